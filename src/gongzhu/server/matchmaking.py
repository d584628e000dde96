"""Matchmaking: which waiting table "Play now" seats a person at (docs/ratings.md, Play now).

A person is best seated with people near their rating, but never kept waiting long for them: a
person joins a waiting table only within :data:`MATCH_GAP` points of its seated people's mean
rating, a window that widens by :data:`MATCH_WIDENING` points for every second the table has
waited; of those the nearest, the one waiting longest among equals.  With none, the person makes
a table of their own, which people near them join.  A table "Play now" made starts by
itself after :data:`QUICK_START_SECONDS`, computers in its empty seats, and at once when "Play
now" fills its last seat.  The choice is a pure function (:func:`choose`), so that the
matchmaking simulation (benchmarks/matchmaking.py) runs the server's own rule.

Imports nothing of the server.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["MATCH_GAP", "MATCH_WIDENING", "QUICK_START_SECONDS", "Waiting", "choose", "gap"]

#: A waiting table whose people's mean rating is within this many points is preferred ...
MATCH_GAP = 150
#: ... a window that widens by this many points a second the table has waited.
MATCH_WIDENING = 10.0
#: A table "Play now" made starts by itself this long after it was made.
QUICK_START_SECONDS = 60


@dataclass(frozen=True, slots=True)
class Waiting:
    """A table waiting for players, as matchmaking sees it: how far its people's mean rating is
    from the person's, how long it has waited (seconds), and when it was made (to break ties)."""

    gap: float
    waited: float
    created: str


def gap(rating: float, theirs: Sequence[float]) -> float:
    """How far ``rating`` is from the mean of ``theirs`` (none: no distance)."""
    return abs(rating - sum(theirs) / len(theirs)) if theirs else 0.0


def choose(tables: Sequence[Waiting]) -> int | None:
    """The index of the table to seat the person at (see the module docstring); None when none is
    within its window (the person makes a table of their own)."""
    inside = [i for i, t in enumerate(tables) if t.gap <= MATCH_GAP + MATCH_WIDENING * max(0.0, t.waited)]
    return min(inside, key=lambda i: (tables[i].gap, tables[i].created), default=None)
