"""Comparing results board by board (R8.1): matchpoints and the 拱猪 scale.

Every entrant of a duplicate event plays the same boards in the same seat, so a result means
something only beside the others' results on the same board.  Two comparisons are given, as
bridge gives matchpoints and IMPs:

- **Matchpoints** (比较分): on a board, 2 for every result of the field one beats and 1 for every
  equal one; the top is 2 × (field − 1).  A board's matchpoints as a percentage of the top weigh
  every board alike, however big its swings: a 满贯 (±800) counts as much as a board won by ten
  points.
- **The 拱猪 scale** (猪分): the difference between one's result and the board's datum (the
  median of the field's results), turned into whole steps by :data:`SCALE_STEPS`.  拱猪 results
  are heavy-tailed (most boards move by tens of points, a 满贯 by 800, two decks with exposures
  by up to 12,800), so steps grow with the size of the difference: below 100 points every 10 to
  40 points is a step, above it each step needs about a third more than the last.  A 满贯
  against a quiet field (+800 − 0) is 11 steps, a pig against none (−100) 4: big results still
  count for more, but one of them cannot outweigh eight boards of careful play, as it would on
  raw totals.

Percentages are shown to two decimals, but compared exactly: two entrants with the same
matchpoints over the same tops are level whatever the rounding of each board would make of them.

Higher results are better (R6, R7: a deal's result is what the seat gains).  The field of a
board is every entrant ranked on it; an entrant outside the field (a guest) is scored against the
field as if added to it, without changing anyone else's score.  Pure functions of the results;
1,000 entrants' results on a board are compared in one sort.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from math import lcm
from statistics import median

__all__ = ["SCALE_STEPS", "BoardScore", "Standing", "datum_of", "scale_of", "score_board", "shown", "standings"]

#: The 拱猪 scale: a difference of at least ``SCALE_STEPS[k - 1]`` points (and less than the next)
#: is worth k steps, 24 at most (as bridge's IMP scale).
SCALE_STEPS: tuple[int, ...] = (
    10, 30, 60, 100, 140, 190, 250, 330, 430, 560, 730, 950,
    1250, 1600, 2100, 2700, 3500, 4500, 5800, 7500, 9700, 12500, 16000, 20000,
)


def scale_of(difference: float) -> int:
    """The steps of the 拱猪 scale for a difference of points (negative for a loss)."""
    steps = bisect_right(SCALE_STEPS, abs(difference))
    return steps if difference >= 0 else -steps


def datum_of(results: Iterable[int]) -> float:
    """A board's datum: the median of the field's results (0 for an empty field).  The median,
    not the mean: one 满贯 in the field moves a mean by hundreds of points and everyone's scale
    with it, and the median not at all."""
    values = list(results)
    return float(median(values)) if values else 0.0


@dataclass(frozen=True, slots=True)
class BoardScore:
    """One entrant's comparison on one board: ``matchpoints`` out of ``top`` (their
    ``percent``, to two decimals), and the scale's ``steps`` against the board's ``datum``."""

    result: int
    matchpoints: int
    top: int
    percent: float
    datum: float
    steps: int


def shown(percent: Fraction) -> float:
    """A percentage as it is shown: to two decimals, half away from zero (``Fraction`` rounds
    halves to even; a percentage rounds as people do)."""
    return _hundredths(percent.numerator, percent.denominator)


def _hundredths(numerator: int, denominator: int) -> float:
    """``numerator / denominator`` (denominator > 0) to two decimals, half away from zero, in
    whole numbers (no Fraction made: a board ranks a thousand results)."""
    whole = (200 * abs(numerator) + denominator) // (2 * denominator)
    return (whole if numerator >= 0 else -whole) / 100


def score_board(field: Mapping[str, int], others: Mapping[str, int] | None = None) -> dict[str, BoardScore]:
    """Every entrant's comparison on one board: ``field`` maps each ranked entrant to their
    result; ``others`` (guests) are each scored against the field alone.  A lone result has 50%."""
    ordered = sorted(field.values())
    n = len(ordered)
    datum = datum_of(ordered)
    scores: dict[str, BoardScore] = {}

    def one(result: int, size: int, itself: int) -> BoardScore:
        below = bisect_left(ordered, result)
        equal = bisect_right(ordered, result) - below - itself
        top = 2 * (size - 1)
        mp = 2 * below + equal
        percent = _hundredths(100 * mp, top) if top else 50.0
        return BoardScore(result, mp, top, percent, datum, scale_of(result - datum))

    for who, result in field.items():
        scores[who] = one(result, n, 1)
    for who, result in (others or {}).items():
        scores[who] = one(result, n + 1, 0)
    return scores


@dataclass(frozen=True, slots=True)
class Standing:
    """One entrant's place in an event: ``rank`` (None for one outside the field, a guest),
    ``boards`` played, the mean of their boards' matchpoint percentages (``exact``, and
    ``percent`` to two decimals), their matchpoints and the top they were out of, their
    scale's total, and how many boards they did not finish that count as a last place
    (``unfinished``, besides ``boards``)."""

    entrant: str
    rank: int | None
    boards: int
    percent: float
    matchpoints: int
    top: int
    steps: int
    exact: Fraction
    unfinished: int = 0


def standings(boards: Mapping[int, Mapping[str, int]], guests: Iterable[str] = (),
              unfinished: Mapping[int, Iterable[str]] | None = None) -> list[Standing]:
    """The event's standings from each board's results (board number → entrant → result).
    Ranked by the mean matchpoint percentage over the boards each played and those held
    ``unfinished`` (exactly, not as rounded), then by the scale's total; entrants level on both
    share a rank.  ``guests`` are compared but not ranked (listed after the ranked entrants).

    ``unfinished`` (board number → entrants) names, on each board, the entrants who did not
    finish it and are held to it all the same (a closed challenge's entrant who left the board,
    or never reached it): each is scored a last place there — no matchpoint out of the board's
    top, and the scale's bottom (−24 steps) — and nobody else's score changes.  No result
    finished scores less (a lone one has 50%), so leaving a board never does better than
    finishing it, however badly."""
    outside = set(guests)
    scored: list[dict[str, BoardScore]] = []
    # Each entrant's boards, their percentages summed exactly in whole units of 100 / unit (every
    # top divides ``unit``; a lone result, top 0, counts 50%: half of it), matchpoints, tops,
    # steps and boards left unfinished.
    sums: dict[str, list[int]] = {}
    last: list[tuple[str, int, int]] = []  # (entrant, top, steps) of each unfinished board
    held = unfinished or {}
    for number in {*boards, *held}:
        results = boards.get(number, {})
        field = {who: r for who, r in results.items() if who not in outside}
        rest = {who: r for who, r in results.items() if who in outside}
        scored.append(score_board(field, rest))
        last.extend((who, max(2 * len(field) - (0 if who in outside else 2), 0), -len(SCALE_STEPS))
                    for who in held.get(number, ()) if who not in results)
    unit = lcm(2, *{s.top for board in scored for s in board.values() if s.top})
    for board in scored:
        for who, score in board.items():
            s = sums.setdefault(who, [0, 0, 0, 0, 0, 0])
            s[0] += 1
            s[1] += score.matchpoints * (unit // score.top) if score.top else unit // 2
            s[2] += score.matchpoints
            s[3] += score.top
            s[4] += score.steps
    for who, top, steps in last:
        s = sums.setdefault(who, [0, 0, 0, 0, 0, 0])
        s[3] += top
        s[4] += steps
        s[5] += 1
    rows = [Standing(who, None, n, _hundredths(100 * units, (n + left) * unit), mp, top, steps,
                     Fraction(100 * units, (n + left) * unit), left)
            for who, (n, units, mp, top, steps, left) in sums.items()]

    def order(r: Standing) -> tuple[Fraction, int, str]:
        return -r.exact, -r.steps, r.entrant

    ranked = sorted((r for r in rows if r.entrant not in outside), key=order)
    out: list[Standing] = []
    for i, row in enumerate(ranked):
        level = out and (out[-1].exact, out[-1].steps) == (row.exact, row.steps)
        rank = out[-1].rank if level else i + 1
        out.append(Standing(row.entrant, rank, row.boards, row.percent, row.matchpoints, row.top, row.steps,
                            row.exact, row.unfinished))
    out.extend(sorted((r for r in rows if r.entrant in outside), key=order))
    return out
