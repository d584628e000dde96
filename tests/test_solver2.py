"""The exact open-card solver of two-deck positions (``gongzhu.search.solver2``) against a
brute-force minimax written here over the reference rules.

The brute force plays every legal play of every seat (single cards, pairs, two-card answers to a
pair, R5.3) to the end of the deal on the rules core's :class:`Deal` alone (``legal_plays``,
``play``, ``undo``), scores the end with R6.2 (``deal.score.raw``) and takes the objective written
here again from R7: with individual scoring the reviewed seat's raw score times 3 minus the three
others' (its raw minus the others' mean, times 3), which it maximises and the others, as one
coalition, minimise (paranoid); under ``scoring=partners`` the team's raw minus the other team's
(half the margin, times 2).  It has no pruning and no table, and shares no code with the solver
but the encoding of the position (``fast2.encode``, itself held to the reference by
``tests/test_fast2.py``).

Endings are reached from seeded two-deck deals with random exposures (every kind the options
allow: the R4.5 values and the R4.3 restriction of exposed copies both matter) by random legal
play that tends to keep the suits of exposed cards unled and to lead pairs, under every two-deck
preset with option variants.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gongzhu.rules import PRESETS, Deal, Options, Phase, Seat
from gongzhu.rules.model import Play
from gongzhu.search.fast2 import FastPosition2, encode
from gongzhu.search.solver import solver_weights
from gongzhu.search.solver2 import FITS_CARDS, OpenSolver2, fits
from helpers.deals import declare_random_exposures, preset_option_sets
from helpers.volume import scaled

Weights = tuple[int, int, int, int]

_OVERRIDES: list[dict[str, Any]] = [
    {},
    {"discard_color": "enforce"},
    {"discard_color": "penalty"},
    {"exposed_discard_before_suit_led": True},
    {"heart_values": "book"},
    {"direction": "cw"},
    {"exposure": "hidden"},
    {"exposure": "all"},
    {"first_lead": "club2_any"},
    {"discard_color": "penalty", "exposed_discard_before_suit_led": True, "exposure": "all"},
]

OPTION_SETS = preset_option_sets(_OVERRIDES, decks=2)


def objective(options: Options, seat: Seat) -> tuple[Weights, int]:
    """R7 as the solver reads it, written here again: weights of each seat's raw score, divisor."""
    if options.scoring == "partners":  # R7.3: the team's margin, halved
        w = [1 if (s - seat) % 2 == 0 else -1 for s in range(4)]
        return (w[0], w[1], w[2], w[3]), 2
    w = [3 if s == seat else -1 for s in range(4)]  # R7.1, R7.2: own raw minus the others' mean
    return (w[0], w[1], w[2], w[3]), 3


def mover(deal: Deal) -> Seat:
    turn = deal.turn
    assert turn is not None
    return turn


def key(play: Play) -> tuple[str, ...]:
    return tuple(c.code for c in sorted(play, key=lambda c: c.index))


def brute(deal: Deal, w: Weights) -> int:
    """The paranoid / two-team value by full minimax: every legal play of every seat to the end,
    the seats with w > 0 maximising the weighted sum of the final raw scores, the others
    minimising it.  No pruning, no table."""
    if deal.is_over:
        raw = deal.score.raw
        return sum(w[s] * raw[s] for s in range(4))
    values = []
    for play in deal.legal_plays():
        deal.play(play)
        values.append(brute(deal, w))
        deal.undo()
    return max(values) if w[mover(deal)] > 0 else min(values)


def brute_values(deal: Deal, w: Weights) -> dict[tuple[str, ...], int]:
    out = {}
    for play in deal.legal_plays():
        deal.play(play)
        out[key(play)] = brute(deal, w)
        deal.undo()
    return out


def cards_left(deal: Deal) -> int:
    return max(len(deal.hand(s)) for s in Seat)


def pick(deal: Deal, rng: random.Random, keep_pairs: bool = False) -> Play:
    """A random legal play; a leader mostly leads a pair when it has one (R5.3) and avoids the
    suits of exposed cards still in a hand (so that R4.3 still binds late).  ``keep_pairs``: every
    seat plays, where it can, cards of which it holds one copy (so that pairs are left late)."""
    legal = list(deal.legal_plays())
    if keep_pairs:
        hand = deal.hand(mover(deal))
        singles = [p for p in legal if all(hand.count(c) == 1 for c in p)]
        return rng.choice(singles or legal)
    if not deal.current_trick and rng.random() < 0.8:
        pairs = [p for p in legal if len(p) == 2]
        if pairs and rng.random() < 0.5:
            return rng.choice(pairs)
        held = set().union(*(deal.hand(s) for s in Seat))
        avoid = {e.card.suit for e in deal.exposures if e.card in held}
        calm = [p for p in legal if p[0].suit not in avoid]
        if calm:
            return rng.choice(calm)
    return rng.choice(legal)


def ending(options: Options, seed: int, left: int, *, expose_p: float = 0.6, inside: int = 0,
           keep_pairs: bool = False) -> Deal:
    """A seeded two-deck deal (the first of a match, or a later one), random exposures (R4, R4.5),
    random play until no hand holds more than ``left`` cards at the start of a trick, then
    ``inside`` more plays (a position inside a trick); ``keep_pairs``: see :func:`pick`."""
    rng = random.Random(seed)
    later = rng.random() < 0.3
    previous = Seat(rng.randrange(4)) if later else None
    deal = Deal.new(options, seed, deal_index=1 if later else 0, previous_pig_taker=previous)
    declare_random_exposures(deal, rng, expose_p)
    assert deal.phase == Phase.PLAY
    while not deal.is_over and (deal.current_trick or cards_left(deal) > left):
        deal.play(pick(deal, rng, keep_pairs))
    for _ in range(inside):
        if deal.is_over:
            break
        deal.play(pick(deal, rng))
    return deal


def check(deal: Deal, seat: Seat, solver: OpenSolver2 | None = None) -> dict[tuple[str, ...], int]:
    """Everything the solver says about ``deal`` for ``seat`` against the brute force: the value
    after each legal play, the position's value, and a line of best play (legal, reaching the
    value).  Returns the brute-force values."""
    options = deal.options
    w, divisor = objective(options, seat)
    solver = solver or OpenSolver2(options, seat)
    pos = encode(deal)
    want = brute_values(deal, w)
    got = solver.values(pos)
    assert got is not None
    assert {key(p): v for p, v in got.items()} == {k: v / divisor for k, v in want.items()}, \
        "values() differ from the brute force"
    best = max(want.values()) if w[mover(deal)] > 0 else min(want.values())
    assert solver.value(pos) == best / divisor
    line = solver.line(pos)
    assert line is not None
    play = deal.copy()
    for p in line:
        assert p in play.legal_plays(), f"the line plays {key(p)}, not legal"
        play.play(p)
    assert play.is_over
    raw = play.score.raw
    assert sum(w[s] * raw[s] for s in range(4)) == best, "the line does not reach the value"
    return want


# --------------------------------------------------------------------------- the objective


def test_weights_follow_r7() -> None:
    """R7.2, R7.3: the two-deck solver's objective is the one-deck solver's, as written here."""
    for name, options in PRESETS.items():
        if options.decks != 2:
            continue
        for seat in Seat:
            solver = OpenSolver2(options, seat)
            assert (solver.weights, solver.divisor) == solver_weights(options, seat) == objective(options, seat), name
            assert all(solver.maximises(s) == (objective(options, seat)[0][s] > 0) for s in range(4))


def test_one_deck_refused() -> None:
    """R1: the two-deck solver is for decks=2 (one deck has the C solver)."""
    with pytest.raises(ValueError, match="two-deck"):
        OpenSolver2(PRESETS["online"], Seat.N)


def test_every_two_deck_preset_is_covered() -> None:
    """R9: the option sets tested here include every two-deck preset."""
    names = {label.split(",")[0] for label, _ in OPTION_SETS}
    assert names == {name for name, o in PRESETS.items() if o.decks == 2}


# --------------------------------------------------------------------------- against the brute force


@pytest.mark.parametrize(("label", "options"), OPTION_SETS, ids=[lb for lb, _ in OPTION_SETS])
def test_values_match_brute_force(label: str, options: Options) -> None:
    """R4.3, R4.5, R5.2, R5.3, R6.2, R7: under every two-deck option set, the value after every
    legal play, the value and a line of best play agree with the brute force on endings of 1, 2
    and 3 cards a hand, at the start of a trick and inside it, for the mover and for other
    reviewed seats."""
    base = len(label) * 31 + sum(map(ord, label))
    for k, (left, inside) in enumerate(((1, 0), (2, 0), (3, 0), (2, 2), (3, 1), (3, 3))):
        deal = ending(options, base + 1000 * k, left, expose_p=(0.5, 1.0, 0.8, 0.3, 1.0, 0.6)[k], inside=inside)
        if deal.is_over:
            continue
        check(deal, Seat((mover(deal) + k) % 4))


@settings(max_examples=scaled(120), deadline=None)
@given(
    index=st.integers(0, len(OPTION_SETS) - 1),
    seed=st.integers(0, 2**32),
    left=st.integers(1, 3),
    inside=st.integers(0, 3),
    shift=st.integers(0, 3),
    expose_p=st.sampled_from([0.0, 0.5, 1.0]),
)
def test_values_match_brute_force_hypothesis(
    index: int, seed: int, left: int, inside: int, shift: int, expose_p: float
) -> None:
    """R4.3, R4.5, R5.2, R5.3, R6.2, R7: random endings (up to three cards a hand, at the start
    of a trick or inside it) under random option sets, any reviewed seat."""
    deal = ending(OPTION_SETS[index][1], seed, left, expose_p=expose_p, inside=inside)
    if not deal.is_over:
        check(deal, Seat((mover(deal) + shift) % 4))


def test_pairs_are_searched() -> None:
    """R5.3: endings where a pair can be led and must be answered by pairs or two cards of the
    suit; the solver agrees with the brute force, and enough such endings are met."""
    options = PRESETS["online2"]
    met = 0
    for seed in range(60):
        deal = ending(options, 7000 + seed, 3, expose_p=0.5, keep_pairs=True)
        if deal.is_over or not any(len(p) == 2 for p in deal.legal_plays()):
            continue
        met += 1
        check(deal, Seat(seed % 4))
        if met == 8:
            break
    assert met >= 4, "too few endings with a pair to lead"


@pytest.mark.slow
@pytest.mark.parametrize(("label", "options"), OPTION_SETS[::4], ids=[lb for lb, _ in OPTION_SETS[::4]])
def test_values_match_brute_force_four_cards(label: str, options: Options) -> None:
    """The same on endings of four cards a hand, inside a trick."""
    deal = ending(options, 77 + len(label), 4, inside=2)
    if not deal.is_over:
        check(deal, Seat((mover(deal) + 1) % 4))


# --------------------------------------------------------------------------- one solver, many positions


def test_limit_aborts_without_storing_wrong_values() -> None:
    """R6.2, R7: a search stopped at its node limit says None, and the table it leaves gives the
    exact values afterwards (nothing half-searched was stored)."""
    options = PRESETS["online2"]
    for seed in range(3):
        deal = ending(options, 40 + seed, 3)
        seat = mover(deal)
        w, divisor = objective(options, seat)
        want = {k: v / divisor for k, v in brute_values(deal, w).items()}
        solver = OpenSolver2(options, seat)
        pos = encode(deal)
        assert solver.values(pos, limit=1) is None
        assert solver.value(pos, limit=1) is None
        assert solver.line(pos, limit=1) is None
        limit, answered = 1, 0
        while limit < 1 << 16:
            got = solver.values(pos, limit=limit)
            if got is not None:
                assert {key(p): v for p, v in got.items()} == want
                answered += 1
            limit = limit * 3 // 2 + 1
        assert answered > 0
        got = solver.values(pos)
        assert got is not None and {key(p): v for p, v in got.items()} == want
    # A bigger search, aborted at many depths, then solved: as a fresh solver solves it.
    deal = ending(options, 7, 5)
    pos = encode(deal)
    fresh = OpenSolver2(options, Seat.N).values(pos)
    assert fresh is not None
    solver = OpenSolver2(options, Seat.N)
    for limit in (10, 100, 1000, 10_000):
        got = solver.values(pos, limit=limit)
        assert got is None or got == fresh
    assert solver.values(pos) == fresh
    assert solver.nodes > 0
    solver.clear()
    assert solver.nodes == 0
    assert solver.values(pos) == fresh
    with pytest.raises(ValueError, match="limit"):
        solver.values(pos, limit=-1)


def test_one_solver_along_a_deal() -> None:
    """R5.3, R6.2, R7: one solver kept along the positions of a deal — first a bigger search from
    five cards a hand, then every position of the last three cards, then back to earlier ones —
    stays exact (entries stored by earlier searches, with their bounds, are right)."""
    for preset in ("online2", "partners2"):
        options = PRESETS[preset]
        deal = ending(options, 11 + len(preset), 5)
        seat = Seat.S
        solver = OpenSolver2(options, seat)
        assert solver.values(encode(deal)) is not None
        rng = random.Random(5)
        while cards_left(deal) > 3 or deal.current_trick:
            deal.play(pick(deal, rng))
        seen: list[Deal] = []
        while not deal.is_over:
            seen.append(deal.copy())
            check(deal, seat, solver)
            deal.play(pick(deal, rng))
        for earlier in seen[::3]:
            check(earlier, seat, solver)


def test_over_and_positions() -> None:
    """R6.2: a finished deal has no play to value; its value is its result."""
    options = PRESETS["online2"]
    deal = ending(options, 3, 1)
    rng = random.Random(0)
    while not deal.is_over:
        deal.play(pick(deal, rng))
    # The last position before the end, played out: the solver scores the end as R6.2 does.
    deal.undo()
    pos = encode(deal)
    solver = OpenSolver2(options, Seat.E)
    (only,) = list(deal.legal_plays())
    after = FastPosition2(pos.play(only).blob)
    assert after.is_over
    w, divisor = objective(options, Seat.E)
    deal.play(only)
    raw = deal.score.raw
    assert solver.value(after) == sum(w[s] * raw[s] for s in range(4)) / divisor
    with pytest.raises(ValueError, match="over"):
        solver.values(after)
    assert solver.line(after) == []


def additive_at_root(deal: Deal) -> bool:
    """Whether the rest of ``deal`` adds up card by card for the solver (hearts split, both ♣10
    taken, none alone: R4.5, R6.2), where its table shares entries across histories."""
    solver = OpenSolver2(deal.options, Seat.N)
    pos = encode(deal)
    assert solver.value(pos) is not None  # sets the deal's constants
    return solver._bounds(pos.blob[128:192])[2] is not None


def test_endings_that_add_up_card_by_card() -> None:
    """R4.5, R6 step 7, R6.2: endings where every ♣10 is taken and hearts are split, so the rest of
    the deal adds each point card times its taker's multiplier (the table then keeps values
    relative to the score so far, shared by histories that took other cards): the solver agrees
    with the brute force there too, and such endings are met."""
    met = 0
    for seed in range(200):
        options = OPTION_SETS[seed % len(OPTION_SETS)][1]
        deal = ending(options, 9000 + seed, 3, expose_p=0.5, inside=seed % 3)
        if deal.is_over or not additive_at_root(deal):
            continue
        met += 1
        check(deal, Seat((mover(deal) + seed) % 4))
        if met == 10:
            break
    assert met >= 5, "too few endings that add up card by card"


def test_fits() -> None:
    """R3, R5.3: the solver is tried where no hand holds more than FITS_CARDS cards (copies
    counted twice)."""
    options = PRESETS["online2"]
    deal = ending(options, 1, FITS_CARDS)
    assert fits(encode(deal))
    deal = ending(options, 1, FITS_CARDS + 2)
    assert max(len(deal.hand(s)) for s in Seat) > FITS_CARDS and not fits(encode(deal))
