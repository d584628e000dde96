"""Duplicate play's comparisons: the same boards played by many, each result set against the
others on the same board (R8.1).

- :mod:`gongzhu.duplicate.scoring` — matchpoints and the 拱猪 scale (:func:`scale_of`) of one
  board, and the standings of an event over its boards.

How boards are compared, with worked examples: docs/tournaments.md.  May import the rules core
(``gongzhu.rules``) and the message catalog only; the server and the command line import it.
"""
