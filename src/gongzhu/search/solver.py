"""The exact open-card ("double-dummy") solver of one-deck positions.

It sees every hand and plays every seat perfectly to the end of the deal (C:
``_fastsolve.h`` in ``gongzhu.rules._fastplay``; the design is described there).  Its value
is the reviewed seat's R7 objective in the units of the expert's estimates
(:func:`gongzhu.players.expert.objective_weights`): its raw score minus the others' mean, or
under ``scoring=partners`` half its team's margin.

Solution concept.  With individual scoring a four-player game has no single "best play"; the
solver uses the paranoid one: the seat under review maximises its objective while the three
others, as one coalition, minimise it.  Its values are therefore what the seat can guarantee
whatever the others do — pessimistic where the others' interests differ.  Under
``scoring=partners`` the deal is a two-team zero-sum game, and the value is exact with no
assumption.

:class:`OpenSolver` keeps its transposition table between calls, so solving the successive
positions of one deal reuses what earlier searches found.  A ``limit`` on searched positions
bounds a call: past it the call returns None, and what the table holds stays exact (an early
position can take far longer than a review may wait: under a millisecond from five tricks left
as a rule, about a second from nine, minutes from the first lead; docs/benchmarks.md has the
figures).
"""

from __future__ import annotations

import gongzhu.rules._fastplay as _c
from gongzhu.rules.cards import Card, Seat
from gongzhu.rules.options import Options
from gongzhu.search.fast import FastPosition

__all__ = ["OpenSolver", "solver_weights"]


def solver_weights(options: Options, seat: Seat) -> tuple[tuple[int, int, int, int], int]:
    """Integer weights of the seat's objective and the divisor that brings the weighted sum to
    the expert's units: (3, -1, -1, -1) / 3 for individual scoring (own raw minus the others'
    mean), (1, -1, 1, -1) / 2 for partners (the team's margin, halved)."""
    if options.partnership:
        return (tuple(1 if (s - seat) % 2 == 0 else -1 for s in range(4)), 2)  # type: ignore[return-value]
    return (tuple(3 if s == seat else -1 for s in range(4)), 3)  # type: ignore[return-value]


def _limit(limit: int) -> int:
    if limit < 0:
        raise ValueError(f"limit must be >= 0 (0: no limit), not {limit}")
    return limit


class OpenSolver:
    """Exact values of one-deck positions for ``seat`` under ``options`` (see the module
    docstring); ``table_bits``: a transposition table of up to 2**table_bits entries, 64 bytes
    each (the memory is reserved at once; the table starts small and grows as a search fills
    it).  Positions must come from :func:`gongzhu.search.fast.encode` (ValueError otherwise)."""

    def __init__(self, options: Options, seat: Seat, *, table_bits: int = 20) -> None:
        if options.decks != 1:
            raise ValueError("the open-card solver is for one-deck deals only (decks=1)")
        self.options = options
        self.seat = seat
        weights, self.divisor = solver_weights(options, seat)
        self._c = _c.Solver(weights, table_bits)

    @property
    def nodes(self) -> int:
        """Positions searched so far."""
        nodes: int = self._c.nodes
        return nodes

    def maximises(self, seat: int) -> bool:
        """Whether ``seat`` is on the side of the seat under review."""
        return bool(self._c.weights[seat] > 0)

    def value(self, pos: FastPosition, *, limit: int = 0) -> float | None:
        """The position's value under best play by everyone (None past ``limit`` positions)."""
        v = self._c.value(pos.blob, _limit(limit))
        return None if v is None else v / self.divisor

    def values(self, pos: FastPosition, *, limit: int = 0) -> dict[Card, float] | None:
        """The value after each legal card of the player to move (None past ``limit``)."""
        got = self._c.values(pos.blob, _limit(limit))
        if got is None:
            return None
        return {Card.from_index(c): v / self.divisor for c, v in got}

    def line(self, pos: FastPosition, *, limit: int = 0) -> list[Card] | None:
        """A line of best play by everyone from ``pos`` to the end (None past ``limit``)."""
        got = self._c.line(pos.blob, _limit(limit))
        return None if got is None else [Card.from_index(c) for c in got]

    def clear(self) -> None:
        """Empty the transposition table."""
        self._c.clear()
