"""The exact open-card ("double-dummy") solver of two-deck positions.

The two-deck counterpart of :class:`gongzhu.search.solver.OpenSolver`, with the same solution
concept and the same units: every hand is seen and every seat plays perfectly to the end of the
deal; the value is the reviewed seat's R7 objective (:func:`~gongzhu.search.solver.solver_weights`:
its raw score minus the others' mean, or under ``scoring=partners`` half its team's margin).  With
individual scoring it is the paranoid value — the seat under review maximises its objective, the
three others as one coalition minimise it: what the seat can guarantee whatever they do — and under
``scoring=partners`` the exact value of the two-team zero-sum game.

It plays on the two-deck C fast path (:mod:`gongzhu.search.fast2`: ``legal_plays`` and ``play``
on the position's bytes, which follow the rules core play by play — R4.3/R4.5 bound copies, R5.2,
R5.3 pairs — and its R6.2 scoring); the search itself is Python:

- a fail-soft alpha-beta over plays (single cards, pairs, two-card answers to a pair); exact
  values by null-window searches converging on the value (MTD(f));
- bounds on the final value from the point cards taken and those still out: the least and the
  most the objective can end at over every way of sharing the cards still out among the seats
  (while the ways are few enough to weigh); a position whose bounds fall outside the window, or
  meet (the end: no point card left), is decided without search;
- a transposition table probed and stored at the start of each trick, holding bounds and the best
  play found, keyed by the whole position (the hands with their copies, the exposed copies still
  bound, the point cards each seat took — scores are not additive, so the outcome depends on
  them —, the leader, the suits led, the exposure counts, the options); once the rest of the deal
  adds up card by card (hearts split, both ♣10 taken and none alone) the key keeps of the cards
  taken only how many ♣10 each seat has, and the entry holds values relative to the objective so
  far, shared by every history that reaches the same hands;
- equivalent single cards searched once (of one suit, nothing between them and no other copy of
  either still in play, scoring alike), and the table's best play first.

Like :class:`~gongzhu.search.solver.OpenSolver` it keeps its table between calls (solving the
successive positions of one deal reuses what earlier searches found), and a ``limit`` on searched
positions bounds a call: past it the call returns None, and what the table holds stays exact
(entries are stored only for finished searches).  A position is far dearer than a one-deck one
(Python over the C moves, more legal plays, weaker bounds): the solver fits late positions,
:data:`FITS_CARDS` cards a hand or fewer (docs/benchmarks.md has the figures by cards left).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from itertools import product
from typing import TypeVar

import gongzhu.rules._fastplay2 as _c
from gongzhu.rules.cards import AH, POINT_CARDS_MASK, SUIT_MASKS, TC, Card, Seat, Suit
from gongzhu.rules.options import Options
from gongzhu.rules.scoring import heart_value
from gongzhu.search.fast2 import FastPosition2
from gongzhu.search.solver import solver_weights

__all__ = ["FITS_CARDS", "OpenSolver2", "Play2", "fits"]

#: The most cards a hand may hold for a position to be worth solving: the largest number with a
#: median solving time (``values()``, from an empty table) under 1 s on the project's 2-core
#: machine (docs/benchmarks.md, the two-deck solver).  Deal review and the what-if board try
#: two-deck positions up to it.
FITS_CARDS = 6

#: A play as the solver answers it: one card, or two (sorted by card index; equal for a pair).
Play2 = tuple[Card, ...]
_IndexPlay = tuple[int, ...]

_INF = 1 << 62
_T = TypeVar("_T")
# The two-deck position's layout (``Fp2Pos`` in ``_fastplay2.c``, 224 bytes): the hands (cards
# held at least once, twice: 4 + 4 masks) at 0, the exposed copies still bound at 64, the point
# cards taken (4 + 4 masks) at 128, the trick's cards (4 plays x 2 bytes, 0xFF for none) at 196,
# the number of plays in it at 204, whose turn at 206, the R5.1 ♣2 obligation at 211; from 212 on
# what stays the same through a deal (the options, the copies exposed of ♠Q ♦J ♣10 ♥A).
if _c.POSITION_SIZE != 224:  # pragma: no cover - a build of another layout
    raise ImportError(f"gongzhu.search.solver2 reads the 224-byte two-deck position, not {_c.POSITION_SIZE} bytes")
_HANDS8 = struct.Struct("<8Q")
_CAPTURED = struct.Struct("<8Q")
_CAPTURED_AT = 128
_TRICK_AT = 196
_N_TRICK_AT = 204
_TURN_AT = 206
_MUST_C2_AT = 211
_CONSTANTS_AT = 212
_NO_CARD = 0xFF
_TC = TC.index
_HEARTS_MASK = SUIT_MASKS[Suit.HEARTS]
_POINTS_BUT_TC = POINT_CARDS_MASK & ~(1 << _TC)
#: Past this many entries (about 500 bytes each) the table or the memo of bounds is emptied before
#: a call.
_MAX_ENTRIES = 250_000
#: The most splits of the point cards still out between two seats that a bound weighs (else no
#: bound): 243 is five kinds of one card.
_MAX_SPLITS = 243


class _LimitReached(Exception):
    """The search passed its node limit."""


def _limit(limit: int) -> int:
    if limit < 0:
        raise ValueError(f"limit must be >= 0 (0: no limit), not {limit}")
    return limit


def _points_left(captured: tuple[int, ...]) -> tuple[int, int]:
    """The point cards (R2) still in the hands or the trick in progress, as a multiset (the cards
    left at least once, twice), from the point cards taken (``c1[4], c2[4]``): every point card
    of the two decks is in a hand, in the trick or taken."""
    t1 = t2 = 0
    for x in captured:
        t2 |= t1 & x
        t1 |= x
    return POINT_CARDS_MASK & ~t2, POINT_CARDS_MASK & ~t1


_Plan = tuple[list[tuple[int, ...]], list[tuple[int, int, int]], list[int]]
_plans: dict[tuple[int, ...], _Plan | None] = {}


def _plan(shape: tuple[int, ...]) -> _Plan | None:
    """For kinds of ``shape[k]`` like cards each: every share (how many of each kind, a vector
    ``y``), every way of splitting a share between two seats (``(y, x, y + x)`` as indices), and
    the index of the rest of the whole for each share; None where the splits are more than
    :data:`_MAX_SPLITS`."""
    if shape in _plans:
        return _plans[shape]
    splits = 1
    for n in shape:
        splits *= (n + 1) * (n + 2) // 2
    plan: _Plan | None = None
    if splits <= _MAX_SPLITS:
        vectors = list(product(*(range(n + 1) for n in shape)))
        index = {y: i for i, y in enumerate(vectors)}
        merges = [(index[y], index[x], index[tuple(a + b for a, b in zip(y, x, strict=True))])
                  for y in vectors for x in vectors if all(a + b <= n for a, b, n in zip(y, x, shape, strict=True))]
        complements = [index[tuple(n - a for a, n in zip(y, shape, strict=True))] for y in vectors]
        plan = (vectors, merges, complements)
    _plans[shape] = plan
    return plan


class OpenSolver2:
    """Exact values of two-deck positions for ``seat`` under ``options`` (see the module
    docstring).  Positions are :class:`~gongzhu.search.fast2.FastPosition2` (from
    :func:`gongzhu.search.fast2.encode`); plays are sorted tuples of cards."""

    def __init__(self, options: Options, seat: Seat) -> None:
        if options.decks != 2:
            raise ValueError("OpenSolver2 is for two-deck deals only (decks=2); one deck has OpenSolver")
        self.options = options
        self.seat = seat
        weights, self.divisor = solver_weights(options, seat)
        self.weights = weights
        self._max = tuple(w > 0 for w in weights)
        #: Trick starts searched: position bytes -> (lower bound, upper bound, best play or None).
        self._table: dict[bytes, tuple[int, int, _IndexPlay | None]] = {}
        self._nodes = 0
        self._stop = 0
        #: What the point cards taken say: bounds on the objective, and the additive key and base.
        self._bound_memo: dict[bytes, tuple[int, int, bytes | None, int]] = {}
        self._head = self._tail = self._constants = b""
        self._kind = [_kind(c, options.heart_values) for c in range(52)]
        #: Cards of one role (>= 0) play alike where nothing ranks between them: no point card
        #: (0), hearts of one value but ♥A; the other point cards have none (-1).
        self._role = [0 if not POINT_CARDS_MASK >> c & 1 else k if k >= 1000 else -1
                      for c, k in enumerate(self._kind)]

    @property
    def nodes(self) -> int:
        """Positions searched so far."""
        return self._nodes

    def maximises(self, seat: int) -> bool:
        """Whether ``seat`` is on the side of the seat under review."""
        return self._max[seat]

    def clear(self) -> None:
        """Empty the transposition table (and the node count)."""
        self._table.clear()
        self._bound_memo.clear()
        self._constants = b""
        self._nodes = 0

    # ------------------------------------------------------------------ the answers

    def value(self, pos: FastPosition2, *, limit: int = 0) -> float | None:
        """The position's value under best play by everyone (None past ``limit`` positions)."""
        got = self._run(pos.blob, lambda: self._exact(pos.blob, 0), limit)
        return None if got is None else got / self.divisor

    def values(self, pos: FastPosition2, *, limit: int = 0) -> dict[Play2, float] | None:
        """The value after each legal play of the player to move (None past ``limit``)."""
        got = self._run(pos.blob, lambda: self._child_values(pos.blob), limit)
        if got is None:
            return None
        return {_cards(p): v / self.divisor for p, v in got.items()}

    def line(self, pos: FastPosition2, *, limit: int = 0) -> list[Play2] | None:
        """A line of best play by everyone from ``pos`` to the end (None past ``limit``)."""
        got = self._run(pos.blob, lambda: self._line(pos.blob), limit)
        return None if got is None else [_cards(p) for p in got]

    # ------------------------------------------------------------------ the search

    def _run(self, blob: bytes, fn: Callable[[], _T], limit: int) -> _T | None:
        limit = _limit(limit)
        constants = blob[_CONSTANTS_AT:]
        if constants != self._constants:  # another deal's exposures (R4.5 values): other bounds
            self._bound_memo.clear()
            self._constants = constants
        # What the bounds score with: a position of this deal, its cards taken replaced.
        self._head, self._tail = blob[:_CAPTURED_AT], blob[_CAPTURED_AT + 64:]
        if len(self._table) > _MAX_ENTRIES:
            self._table.clear()
        if len(self._bound_memo) > _MAX_ENTRIES:
            self._bound_memo.clear()
        self._stop = self._nodes + limit if limit else -1
        try:
            return fn()
        except _LimitReached:
            return None

    def _child_values(self, blob: bytes) -> dict[_IndexPlay, int]:
        if _c.turn(blob)[1]:
            raise ValueError("the deal is over: no play is left to value")
        alike = dict(self._alike(blob, _c.legal_plays(blob)))
        out: dict[_IndexPlay, int] = {}
        guess = 0
        for p in self._ordered(blob, tuple(p for p, same in alike.items() if p is same)):
            out[p] = guess = self._exact(_c.play(blob, p), guess)
        return {p: out[same] for p, same in alike.items()}

    def _exact(self, blob: bytes, guess: int) -> int:
        """The exact value of ``blob`` by null-window searches converging from ``guess`` (MTD(f)):
        each search proves a bound, the next one starts where it left off."""
        lo, hi = -_INF, _INF
        g = guess
        while lo < hi:
            beta = g + 1 if g == lo else g
            v = self._search(blob, beta - 1, beta)
            if v < beta:
                hi = v
            else:
                lo = v
            g = v
        return g

    def _alike(self, blob: bytes, plays: tuple[_IndexPlay, ...]) -> list[tuple[_IndexPlay, _IndexPlay]]:
        """Each play with the first play equivalent to it (itself if none before it is).

        Two single cards of the mover are equivalent when they are of one suit, no other copy of
        either and no card between them is in a hand or the trick (so neither ranks differently
        against any card still in play, ties of copies included, R5.3), and they score alike (no
        point card, or hearts of one value but ♥A; the exposable cards, which R4.3 may bind,
        never): the deal after either differs only in the two cards' names.  (The single plays
        come first in the C fast path's list, in card order.)"""
        if blob[_MUST_C2_AT] or len(plays) < 2 or len(plays[1]) > 1:
            return [(p, p) for p in plays]
        h = _HANDS8.unpack_from(blob)
        a, b, c, d = h[0], h[1], h[2], h[3]
        m1 = a | b | c | d  # the cards in a hand or the trick at least once, twice
        m2 = h[4] | h[5] | h[6] | h[7] | a & b | a & c | a & d | b & c | b & d | c & d
        n = blob[_N_TRICK_AT]
        if n:
            for x in blob[_TRICK_AT:_TRICK_AT + 2 * n]:
                if x != _NO_CARD:
                    bit = 1 << x
                    m2 |= m1 & bit
                    m1 |= bit
        role = self._role
        out: list[tuple[_IndexPlay, _IndexPlay]] = []
        prev = -1
        kept: _IndexPlay = plays[0]
        for p in plays:
            if len(p) == 1:
                x = p[0]
                if (prev >= 0 and prev // 13 == x // 13 and role[x] == role[prev] and role[x] >= 0
                        and not (m2 >> x | m2 >> prev) & 1 and not m1 & ((1 << x) - (2 << prev))):
                    out.append((p, kept))
                    prev = x
                    continue
                prev, kept = x, p
            out.append((p, p))
        return out

    def _line(self, blob: bytes) -> list[_IndexPlay]:
        line: list[_IndexPlay] = []
        while not _c.turn(blob)[1]:
            values = self._child_values(blob)
            pick = max if self._max[_c.turn(blob)[0]] else min
            best = pick(values.values())
            play = next(p for p, v in values.items() if v == best)
            line.append(play)
            blob = _c.play(blob, play)
        return line

    def _final(self, blob: bytes) -> int:
        """The objective (times the divisor) of the raw scores of the cards taken."""
        w = self.weights
        r = _c.raw_scores(blob)
        return w[0] * r[0] + w[1] * r[1] + w[2] * r[2] + w[3] * r[3]

    def _bounds(self, captured_bytes: bytes) -> tuple[int, int, bytes | None, int]:
        """The least and the most the objective (times the divisor) can end at, over every way of
        sharing the point cards still out among the seats, from the point cards each has taken
        (``captured_bytes``: the position's ``c1[4], c2[4]``); no bound (infinite) where there are
        too many ways to weigh.

        Each seat's score depends on its own cards taken only (R6.2), and cards of one kind
        (copies; hearts of one value but ♥A) score alike: so each seat's weighted score is read
        once for every share of each kind (the C fast path's scoring, with that share added to
        every seat at once), and the best and worst sharing among the seats follow by merging
        the seats two by two."""
        captured = _CAPTURED.unpack(captured_bytes)
        m1, m2 = _points_left(captured)
        kinds: dict[int, list[int]] = {}
        for mask in (m1, m2):
            while mask:
                low = mask & -mask
                c = low.bit_length() - 1
                mask ^= low
                kinds.setdefault(self._kind[c], []).append(c)
        groups = list(kinds.values())
        shape = tuple(len(g) for g in groups)
        plan = _plan(shape)
        bound = (-_INF, _INF)
        if plan is not None:
            vectors, merges, complements = plan
            head, tail = self._head, self._tail
            w = self.weights
            g: list[list[int]] = [[], [], [], []]
            for y in vectors:
                c1, c2 = list(captured[:4]), list(captured[4:])
                for cards, k in zip(groups, y, strict=True):
                    for c in cards[:k]:
                        b = 1 << c
                        for s in range(4):
                            if c1[s] & b:
                                c2[s] |= b
                            else:
                                c1[s] |= b
                r = _c.raw_scores(head + _CAPTURED.pack(*c1, *c2) + tail)
                for s in range(4):
                    g[s].append(w[s] * r[s])
            n = len(vectors)
            hi01, lo01 = [-_INF] * n, [_INF] * n
            hi23, lo23 = [-_INF] * n, [_INF] * n
            g0, g1, g2, g3 = g
            for iy, ix, iz in merges:
                v = g0[iy] + g1[ix]
                if v > hi01[iz]:
                    hi01[iz] = v
                if v < lo01[iz]:
                    lo01[iz] = v
                v = g2[iy] + g3[ix]
                if v > hi23[iz]:
                    hi23[iz] = v
                if v < lo23[iz]:
                    lo23[iz] = v
            bound = (min(lo01[i] + lo23[j] for i, j in enumerate(complements)),
                     max(hi01[i] + hi23[j] for i, j in enumerate(complements)))
        additive, base = self._additive(captured)
        known = (*bound, additive, base)
        self._bound_memo[captured_bytes] = known
        return known

    def _additive(self, captured: tuple[int, ...]) -> tuple[bytes | None, int]:
        """Whether the rest of the deal adds to the objective card by card, and then what the
        value added depends on besides the hands, with the objective so far: ``(key, base)``, or
        ``(None, 0)``.

        It does once two seats have taken hearts (no 满红 nor 满贯 can come, R6.2), both ♣10 are
        taken, and no seat holds a ♣10 alone (whose +50 the next point card would turn into a
        multiplied pile, R6 step 7): each seat's score is then its pile of point values times its
        ♣10 multiplier (R4.5), fixed for the rest of the deal, so every point card still to be
        taken adds its value times its taker's multiplier.  What is added depends on the hands
        and on how many ♣10 each seat took (the key), not on the rest of what was taken: the
        table keeps the value relative to the objective so far (``base``), shared by every
        history that reaches the same hands."""
        c1, c2 = captured[:4], captured[4:]
        hearts = sum(1 for s in range(4) if c1[s] & _HEARTS_MASK)
        tc = [(c1[s] >> _TC & 1) + (c2[s] >> _TC & 1) for s in range(4)]
        if hearts < 2 or sum(tc) < 2 or any(tc[s] and not c1[s] & _POINTS_BUT_TC for s in range(4)):
            return None, 0
        r = _c.raw_scores(self._head + _CAPTURED.pack(*captured) + self._tail)
        w = self.weights
        return bytes(tc), w[0] * r[0] + w[1] * r[1] + w[2] * r[2] + w[3] * r[3]

    def _ordered(self, blob: bytes, plays: tuple[_IndexPlay, ...]) -> tuple[_IndexPlay, ...]:
        """``plays`` with the best play the table holds for ``blob`` (a trick start) first."""
        entry = None
        if blob[_N_TRICK_AT] == 0:
            captured = blob[_CAPTURED_AT:_CAPTURED_AT + 64]
            additive = (self._bound_memo.get(captured) or self._bounds(captured))[2]
            entry = self._table.get(blob if additive is None else _additive_key(blob, additive))
        best = entry[2] if entry is not None else None
        if best is None or best not in plays:
            return plays
        return (best, *(p for p in plays if p != best))

    def _search(self, blob: bytes, alpha: int, beta: int) -> int:
        """The fail-soft alpha-beta value of ``blob`` in the window (alpha, beta): the exact value
        when it lies inside, else a bound on the side it fell (at most alpha, at least beta)."""
        # The bounds decide the end (no point card left: they meet) and whatever falls outside.
        captured = blob[_CAPTURED_AT:_CAPTURED_AT + 64]
        least, most, additive, base = self._bound_memo.get(captured) or self._bounds(captured)
        if least >= beta or least == most:
            return least
        if most <= alpha:
            return most
        self._nodes += 1
        if self._nodes == self._stop:
            raise _LimitReached
        turn = blob[_TURN_AT]
        at_start = blob[_N_TRICK_AT] == 0
        best_play: _IndexPlay | None = None
        table = self._table
        key = blob
        if at_start:
            if additive is not None:  # the entry is shared by every history with these hands
                key = _additive_key(blob, additive)
            else:
                base = 0
            entry = table.get(key)
            if entry is not None:
                lo, hi, best_play = entry
                lo += base
                hi += base
                if lo >= beta:
                    return lo
                if hi <= alpha:
                    return hi
                if lo == hi:
                    return lo
                alpha = max(alpha, lo)
                beta = min(beta, hi)
        plays = _c.legal_plays(blob)
        if len(plays) > 2:
            plays = tuple(p for p, same in self._alike(blob, plays) if p is same)
        if best_play is not None and len(plays) > 1 and best_play in plays:
            plays = (best_play, *(p for p in plays if p != best_play))
        maximise = self._max[turn]
        best = -_INF if maximise else _INF
        chosen: _IndexPlay | None = None
        a, b = alpha, beta
        play = _c.play
        search = self._search
        for p in plays:
            v = search(play(blob, p), a, b)
            if maximise:
                if v > best:
                    best, chosen = v, p
                    if v > a:
                        a = v
                        if a >= b:
                            break
            else:
                if v < best:
                    best, chosen = v, p
                    if v < b:
                        b = v
                        if a >= b:
                            break
        if at_start:
            lo, hi = -_INF, _INF
            entry = table.get(key)
            if entry is not None:
                lo, hi = entry[0] + base, entry[1] + base
            if best <= alpha:
                hi = min(hi, best)
            elif best >= beta:
                lo = max(lo, best)
            else:
                lo = hi = best
            table[key] = (lo - base, hi - base, chosen)
        return best


def _additive_key(blob: bytes, additive: bytes) -> bytes:
    """The table's key of a trick start where the rest of the deal adds up card by card: the
    position without the cards taken, and how many ♣10 each seat took."""
    return blob[:_CAPTURED_AT] + blob[_CAPTURED_AT + 64:] + additive


def fits(pos: FastPosition2) -> bool:
    """Whether no hand of ``pos`` holds more than :data:`FITS_CARDS` cards."""
    h: tuple[int, ...] = _HANDS8.unpack_from(pos.blob)
    return max(h[s].bit_count() + h[s + 4].bit_count() for s in range(4)) <= FITS_CARDS


def _kind(c: int, heart_values: str) -> int:
    """Cards of one kind score alike wherever they go (R2, R4.5, R6.2): copies of a card, and
    hearts of one value but ♥A (whose exposure doubles the hearts)."""
    card = Card.from_index(c)
    if card.suit == Suit.HEARTS and card != AH:
        return 1000 - heart_value(card.rank, heart_values)  # apart from the card indices 0..51
    return c


def _cards(play: _IndexPlay) -> Play2:
    return tuple(Card.from_index(c) for c in play)
