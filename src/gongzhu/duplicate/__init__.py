"""Duplicate play's comparisons: the same boards played by many, each result set against the
others on the same board (R8.1).

- :mod:`gongzhu.duplicate.scoring` — matchpoints and the 拱猪 scale (:func:`scale_of`) of one
  board, and the standings of an event over its boards.
- :mod:`gongzhu.duplicate.movements` — who sits where in each round and which boards each table
  plays: Mitchell, Howell, the individual movement (a whist tournament), the team match
  (计副制) and Swiss pairing of teams.
- :mod:`gongzhu.duplicate.events` — a club night's file checked (:func:`~gongzhu.duplicate.events.parse_event`)
  and an event scored from its tables' results: travellers, team matches, rankings, and the
  referee's penalties (罚分) and corrections in an ordered log.

How boards are compared, with worked examples: docs/tournaments.md.  May import the rules core
(``gongzhu.rules``) and the message catalog only; the server and the command line import it.
"""
