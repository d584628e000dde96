"""Deal review: what each decision of a seat cost, in hindsight and from what the seat could know.

:func:`review_record` reads a finished deal's R11 record and, for one seat, returns a review
(the JSON object ``gongzhu-review/2`` of docs/review.md):

- per decision (every play, and the declaration of exposures), the expected result of each legal
  alternative from what the seat could see then (the expert's sampling of the hidden hands, with
  more time than in play), the best one, the loss and a mark (?! ?, ??);
- hindsight, labelled as such: the exact open-card value of each legal play from the solver that
  sees every hand (:mod:`gongzhu.search.solver` for one deck, :mod:`gongzhu.search.solver2` for
  two decks from 6 cards a hand), and where the deal's points would
  have gone under best play by everyone;
- the seat's result split into luck and skill that add up decision by decision, the par of the
  deal (the expert's mean result in the seat over duplicate replays of the same cards), the sum
  of its losses, and its three costliest moments, each tied to the trick where the points landed.

The work is split into independent tasks (one per decision, the hindsight, the par replays) that
:class:`Reviewer` runs on a pool of worker processes, reporting progress as tasks finish.

May import ``gongzhu.rules``, ``gongzhu.search``, ``gongzhu.players``, ``gongzhu.records``,
``gongzhu.formats``, ``gongzhu.jsontext`` and ``gongzhu.messages``; the server and the command
line import it.
"""

from gongzhu.review.analysis import (
    DEFAULT_BUDGET,
    MARKS,
    REVIEW_FORMAT,
    Budget,
    Reviewer,
    Weighed,
    board_pars,
    mark_for,
    review_record,
    weigh,
)

__all__ = [
    "DEFAULT_BUDGET", "MARKS", "REVIEW_FORMAT", "Budget", "Reviewer", "Weighed", "board_pars", "mark_for",
    "review_record", "weigh",
]
