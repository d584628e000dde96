"""The exact open-card solver (``gongzhu.search.solver``, C ``_fastsolve.h``) against a brute-force
search written here over the reference rules.

The brute force plays every legal card of every seat to the end of the deal on the Python rules
alone (``Deal`` without its C board: ``copy``, ``legal_plays``, ``play``), scores the end with R6
(``deal.score.raw``) and takes the same objective as the solver, written here again from R7: with
individual scoring the reviewed seat's raw score times 3 minus the three others' (its raw minus
the others' mean, times 3), which it maximises and the others, as one coalition, minimise; under
``scoring=partners`` the team's raw minus the other team's (half the margin, times 2).  It shares
no code with the solver but the encoding of the position (``fast.encode``, itself held to the
reference by ``tests/test_fast.py``).

Endings are reached from seeded deals with random exposures (every kind the options allow, so
the R10 value factors and the R4.3 restriction both matter) by random legal play that tends to
keep the suits of exposed cards unled (else R4.3 would seldom bind so late), under every
one-deck option set of the C fast path's grid (``helpers.fastpath.ONE_DECK_OPTION_SETS``).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gongzhu.rules._fastplay as _c
from gongzhu.rules import PRESETS, Card, Deal, Declaration, Options, Phase, Position, Seat, deal_hands, parse_cards
from gongzhu.rules.cards import AH, EXPOSABLE, JD, QS, TC, Suit
from gongzhu.search.fast import FastPosition, encode, encode_parts
from gongzhu.search.solver import OpenSolver, solver_weights
from helpers.deals import declare_random_exposures
from helpers.fastpath import ONE_DECK_OPTION_SETS as OPTION_SETS
from helpers.volume import scaled

Weights = tuple[int, int, int, int]
ALL_HEARTS = frozenset(c for c in (Card.from_index(i) for i in range(52)) if c.suit == Suit.HEARTS)


class PythonDeal(Deal):
    """The deal on the Python rules alone: the brute force shares no rules code with the solver."""

    use_c_board = False


def objective(options: Options, seat: Seat) -> tuple[Weights, int]:
    """R7 as the solver reads it, written here again: weights of each seat's raw score, divisor."""
    if options.scoring == "partners":  # R7.3: the team's margin, halved
        w = [1 if (s - seat) % 2 == 0 else -1 for s in range(4)]
        return (w[0], w[1], w[2], w[3]), 2
    w = [3 if s == seat else -1 for s in range(4)]  # R7.1, R7.2, R7.4: own raw minus the others' mean
    return (w[0], w[1], w[2], w[3]), 3


def final_value(deal: Deal, w: Weights) -> int:
    raw = deal.score.raw
    return sum(w[s] * raw[s] for s in range(4))


def children(deal: Deal) -> Iterator[tuple[Card, Deal]]:
    for play in deal.legal_plays():
        child = deal.copy()
        child.play(play)
        yield play[0], child


def brute(deal: Deal, w: Weights, memo: dict[Position, int]) -> int:
    """The paranoid / two-team value by full search: the seats with w > 0 maximise the weighted
    sum of the final raw scores, the others minimise it.  ``memo`` holds the values of whole
    positions already searched (hands, trick, cards taken: everything that decides the rest)."""
    if deal.is_over:
        return final_value(deal, w)
    key = deal.position()
    got = memo.get(key)
    if got is None:
        values = [brute(child, w, memo) for _, child in children(deal)]
        got = max(values) if w[mover(deal)] > 0 else min(values)
        memo[key] = got
    return got


def brute_values(deal: Deal, w: Weights) -> dict[Card, int]:
    memo: dict[Position, int] = {}
    return {card: brute(child, w, memo) for card, child in children(deal)}


def mover(deal: Deal) -> Seat:
    turn = deal.turn
    assert turn is not None
    return turn


def cards_left(deal: Deal) -> int:
    return sum(len(deal.hand(s)) for s in Seat)


def pick(deal: Deal, rng: random.Random, steer: bool, hog: Seat | None = None) -> Card:
    """A random legal card.  ``steer``: a leader mostly avoids the suits of exposed cards still in
    a hand, so that R4.3 still binds late.  ``hog``: that seat plays its highest card and the
    others duck and discard hearts, so one seat gathers the point cards (满红, 满贯, R6)."""
    legal = [p[0] for p in deal.legal_plays()]
    if hog is not None and rng.random() < 0.85:
        if deal.turn == hog:
            return max(legal, key=lambda c: c.rank)
        led = deal.current_trick[0][1][0].suit if deal.current_trick else None
        hearts = [c for c in legal if c.suit == Suit.HEARTS and c.suit != led]
        if hearts:
            return rng.choice(hearts)
        return min(legal, key=lambda c: c.rank)
    if steer and not deal.current_trick and rng.random() < 0.9:
        held = set().union(*(deal.hand(s) for s in Seat))
        avoid = {e.card.suit for e in deal.exposures if e.card in held}
        calm = [c for c in legal if c.suit not in avoid]
        if calm:
            return rng.choice(calm)
    return rng.choice(legal)


def ending(options: Options, seed: int, left: int, *, expose_p: float = 0.7, steer: bool = True,
           hog: Seat | None = None) -> PythonDeal:
    """A seeded deal (the first of a match, or a later one), random exposures (R4), random play
    until ``left`` cards are left in the hands.  With ``hog``, that seat is dealt the top cards
    (with the pig) and the others three random hands of the rest."""
    rng = random.Random(seed)
    later = rng.random() < 0.3
    previous = Seat(rng.randrange(4)) if later else None
    if hog is None:
        deal = PythonDeal(options, deal_hands(seed, options.decks, Seat.N, options.clockwise),
                          deal_index=1 if later else 0, previous_pig_taker=previous, seed=seed)
    else:
        top = parse_cards("AS KS QS AH KH QH JH AC KC AD KD QD")
        rest = [Card.from_index(i) for i in range(52) if Card.from_index(i) not in top]
        rng.shuffle(rest)
        top.append(rest.pop())
        hands = [rest[13 * k:13 * k + 13] for k in range(3)]
        hands.insert(hog, top)
        deal = PythonDeal(options, hands, deal_index=1 if later else 0, previous_pig_taker=previous)
    declare_random_exposures(deal, rng, expose_p)
    assert deal.phase == Phase.PLAY
    while cards_left(deal) > left:
        deal.play(pick(deal, rng, steer, hog))
    return deal


def check(deal: Deal, seat: Seat, solver: OpenSolver | None = None) -> dict[Card, int]:
    """Everything the solver says about ``deal`` for ``seat`` against the brute force: the value
    after each legal card, the position's value, and a line of best play (legal, reaching the
    value).  Returns the brute-force values."""
    options = deal.options
    w, divisor = objective(options, seat)
    solver = solver or OpenSolver(options, seat)
    pos = encode(deal)
    want = brute_values(deal, w)
    got = solver.values(pos)
    assert got == {c: v / divisor for c, v in want.items()}, "values() differ from the brute force"
    best = max(want.values()) if w[mover(deal)] > 0 else min(want.values())
    assert solver.value(pos) == best / divisor
    line = solver.line(pos)
    assert line is not None
    play = deal.copy()
    for c in line:
        assert c in play.legal_plays(), f"the line plays {c.code}, not legal"
        play.play(c)
    assert play.is_over and len(line) == cards_left(deal)
    assert final_value(play, w) == best, "the line does not reach the value"
    return want


# --------------------------------------------------------------------------- the objective


def test_weights_follow_r7() -> None:
    """R7.2, R7.3: the solver's objective weights and divisors are the ones written here."""
    for name, options in PRESETS.items():
        if options.decks != 1:
            continue
        for seat in Seat:
            assert solver_weights(options, seat) == objective(options, seat), name
            solver = OpenSolver(options, seat)
            assert solver._c.weights == objective(options, seat)[0]
            assert all(solver.maximises(s) == (objective(options, seat)[0][s] > 0) for s in range(4))


# --------------------------------------------------------------------------- against the brute force


@pytest.mark.parametrize(("label", "options"), OPTION_SETS, ids=[lb for lb, _ in OPTION_SETS])
def test_values_match_brute_force(label: str, options: Options) -> None:
    """R4.3, R5.2, R6, R6.1, R7, R10: under every one-deck option set, the value after every legal
    card, the value and a line of best play agree with the brute force on endings of 1, 2 and 3
    tricks and inside the last three tricks, for the mover and for other reviewed seats."""
    for k, left in enumerate((4, 8, 12, 11, 6)):
        seed = 1000 * k + len(label) * 31 + sum(map(ord, label))
        deal = ending(options, seed, left, expose_p=(0.5, 1.0, 0.8, 0.3, 1.0)[k])
        check(deal, Seat((mover(deal) + k) % 4))


@settings(max_examples=scaled(150), deadline=None)
@given(
    index=st.integers(0, len(OPTION_SETS) - 1),
    seed=st.integers(0, 2**32),
    left=st.integers(1, 12),
    shift=st.integers(0, 3),
    expose_p=st.sampled_from([0.0, 0.5, 1.0]),
    steer=st.booleans(),
)
def test_values_match_brute_force_hypothesis(
    index: int, seed: int, left: int, shift: int, expose_p: float, steer: bool
) -> None:
    """R4.3, R5.2, R6, R6.1, R7, R10: random endings (any number of cards up to three tricks,
    inside a trick or at its start) under random option sets, any reviewed seat."""
    deal = ending(OPTION_SETS[index][1], seed, left, expose_p=expose_p, steer=steer)
    check(deal, Seat((mover(deal) + shift) % 4))


@pytest.mark.parametrize("preset", ["online", "partners", "tournament"])
def test_all_hearts_and_grand_slam(preset: str) -> None:
    """R6 steps 4 and 5: endings where one seat has taken every heart so far (满红 and 满贯 still
    open, the signs about to flip), the ♣10 doubling; the solver agrees with the brute force,
    and the endings do leave 满红 possible."""
    options = PRESETS[preset]
    full = 0
    for seed in range(12):
        hog = Seat(seed % 4)
        deal = ending(options, 500 + seed, (4, 8, 12, 10)[seed % 4], expose_p=0.5, steer=False, hog=hog)
        taken = [set(deal.captured(s)) for s in Seat]
        if any(ALL_HEARTS - t <= set().union(*(deal.hand(s) for s in Seat)) for t in taken):
            full += 1
        check(deal, Seat((seed // 4 + seed) % 4))
    assert full >= 4, "too few endings with 满红 still possible"


@pytest.mark.parametrize("preset", ["online", "tournament"])
def test_transformer_alone(preset: str) -> None:
    """R6 step 7, R6.1: endings where a seat's only point card is the ♣10 (alone it scores +50,
    or more exposed or self-caught; its next point card turns that into the doubled pile, a
    jump the solver's additive bounds must allow for)."""
    options = PRESETS[preset]
    found = 0
    for seed in range(120):
        deal = ending(options, 3000 + seed, (8, 12, 10)[seed % 3], expose_p=0.5)
        if any(set(deal.captured(s)) == {TC} for s in Seat):
            check(deal, Seat(seed % 4))
            found += 1
    assert found >= 5


@pytest.mark.slow
@pytest.mark.parametrize(("label", "options"), OPTION_SETS[::6], ids=[lb for lb, _ in OPTION_SETS[::6]])
def test_values_match_brute_force_four_tricks(label: str, options: Options) -> None:
    """R4.3, R5.2, R6, R6.1, R7, R10: the same on endings of four tricks and inside them."""
    for k, left in enumerate((16, 14)):
        deal = ending(options, 77 + 13 * k + len(label), left)
        check(deal, Seat((mover(deal) + k) % 4))


# --------------------------------------------------------------------------- one solver, many positions


def test_limit_aborts_without_storing_wrong_values() -> None:
    """R6, R7: a search stopped at its node limit says None, and the table it leaves gives the
    exact values afterwards (nothing half-searched was stored)."""
    options = Options()
    for seed in range(3):
        deal = ending(options, 40 + seed, 12)
        seat = mover(deal)
        w, divisor = objective(options, seat)
        want = {c: v / divisor for c, v in brute_values(deal, w).items()}
        solver = OpenSolver(options, seat)
        pos = encode(deal)
        assert solver.values(pos, limit=1) is None
        assert solver.value(pos, limit=1) is None
        assert solver.line(pos, limit=1) is None
        limit, answered = 1, 0
        while limit < 1 << 20:
            got = solver.values(pos, limit=limit)
            if got is not None:
                assert got == want
                answered += 1
            limit = limit * 3 // 2 + 1
        assert answered > 0
        assert solver.values(pos) == want
    # A bigger search, aborted at many depths, then solved: as a fresh solver solves it.
    deal = ending(options, 7, 24)
    pos = encode(deal)
    fresh = OpenSolver(options, Seat.N).values(pos)
    solver = OpenSolver(options, Seat.N)
    for limit in (10, 100, 1000, 10_000, 30_000):
        got = solver.values(pos, limit=limit)
        assert got is None or got == fresh
    assert solver.values(pos) == fresh
    assert solver.nodes > 0
    solver.clear()
    assert solver.nodes == 0
    assert solver.values(pos) == fresh


def test_one_solver_along_a_deal() -> None:
    """R5.2, R6, R7: one solver kept along the positions of a deal — first a bigger search from
    six tricks left, then every position of the last three tricks, then back to earlier ones —
    stays exact (entries stored by earlier searches, with their bounds, are right)."""
    for preset in ("online", "partners", "tournament"):
        options = PRESETS[preset]
        deal = ending(options, 11 + len(preset), 24)
        seat = Seat.S
        solver = OpenSolver(options, seat)
        assert solver.values(encode(deal)) is not None
        rng = random.Random(5)
        line: list[Deal] = []
        while cards_left(deal) > 12:
            deal.play(pick(deal, rng, False))
        while not deal.is_over:
            line.append(deal.copy())
            check(deal, seat, solver)
            deal.play(pick(deal, rng, False))
        for earlier in line[::3]:
            check(earlier, seat, solver)


def low_card_twins(options: Options, seed: int, left: int, count: int) -> list[PythonDeal]:
    """A seeded deal played at random (exposures included) until ``left`` cards are left, and
    ``count`` twins of it: the same deal with two cards of one suit (♠ ♣ ♦, no special card, no
    ♣2) that two seats still hold dealt the other way round, and the same declarations and plays.
    Each seat keeps its number of cards in each suit, so every play stays legal; the twins differ
    only in who holds which low (or high) card."""
    rng = random.Random(seed)
    hands = deal_hands(seed, 1, Seat.N, options.clockwise)
    base = PythonDeal(options, [list(h) for h in hands])
    declare_random_exposures(base, rng, 0.6)
    while cards_left(base) > left:
        base.play(pick(base, rng, False))
    actions = base.actions
    plain = [c for c in (Card.from_index(i) for i in range(52))
             if c.suit != Suit.HEARTS and c not in (QS, JD, TC) and c.code != "2C"]
    held = {c: s for s in Seat for c in base.hand(s) if c in plain}
    pairs = [(a, b) for a in held for b in held if a.suit == b.suit and a.index < b.index and held[a] != held[b]]
    out = [base]
    for a, b in rng.sample(pairs, min(count, len(pairs))):
        twin_hands = [[b if c == a else a if c == b else c for c in h] for h in hands]
        twin = PythonDeal(options, twin_hands)
        for act in actions:
            if isinstance(act, Declaration):
                twin.declare(act.seat, [(e.card, e.kind) for e in act.exposures])
            else:
                twin.play(act.cards, act.seat)
        out.append(twin)
    return out


def test_positions_that_differ_in_low_cards_stay_exact() -> None:
    """R5.2, R6, R7: positions that differ only in who holds two cards of a suit share most of
    their hands (and their table keys but for those cards): one solver kept across such twins of
    a deal gives each the values of the brute force (three tricks left) and of a fresh solver (six
    tricks left), whatever the others left in its table."""
    for preset in ("online", "partners"):
        options = PRESETS[preset]
        for seed in range(3):
            twins = low_card_twins(options, 300 + seed, 12, 5)
            assert len(twins) > 2
            seat = mover(twins[0])
            solver = OpenSolver(options, seat)
            for twin in twins + twins[::-1]:
                check(twin, seat, solver)
            twins = low_card_twins(options, 310 + seed, 24, 6)
            shared = OpenSolver(options, seat)
            for twin in twins:
                pos = encode(twin)
                assert shared.values(pos) == OpenSolver(options, seat).values(pos)


def test_one_solver_across_deals() -> None:
    """R10, R4.2, R6.1: one solver kept across deals whose positions share hands, cards taken
    and trick but differ in exposure factors, in self-catch or in who was dealt the pig gives
    each deal its own exact values (the table holds one deal's constants at a time)."""
    # The same deal and the same plays, without exposures and with every card exposed hidden
    # (factor 2, no play restriction): equal positions but for the factors.
    options = Options(exposure="hidden", auto_expose_fourth=False)
    for seed in range(3):
        plain = PythonDeal(options, deal_hands(900 + seed, 1, Seat.N, options.clockwise))
        sold = PythonDeal(options, deal_hands(900 + seed, 1, Seat.N, options.clockwise))
        for s in Seat:
            plain.declare(s, [])
            sold.declare(s, [(c, "hidden") for c in sold.exposable(s)])
        rng = random.Random(seed)
        while cards_left(plain) > 12:
            c = pick(plain, rng, False)
            plain.play(c)
            sold.play(c)
        assert encode(plain).hands == encode(sold).hands
        assert encode(plain).factors != encode(sold).factors
        solver = OpenSolver(options, Seat(seed))
        for deal in (plain, sold, plain, sold):
            check(deal, Seat(seed), solver)
    # Self-catch on and off: the same deal, the same plays, other options.
    for seed in range(2):
        deals = [ending(Options(self_catch=catch), 950 + seed, 12) for catch in (False, True)]
        assert encode(deals[0]).hands == encode(deals[1]).hands
        solver = OpenSolver(deals[0].options, Seat.W)
        for deal in (deals[0], deals[1], deals[0]):
            check(deal, Seat.W, solver)
    # Who was dealt the special cards (R6.1): the same position told that each special card
    # taken so far was dealt to its taker, or to the seat after it.
    options = Options(self_catch=True)
    differ = 0
    for seed in range(8):
        deal = ending(options, 970 + seed, 12)
        pos = encode(deal)
        takers = {c: s for s in Seat for c in deal.captured(s) if c in EXPOSABLE}
        variants = [pos] + [with_dealt(deal, {c: Seat((s + k) % 4) for c, s in takers.items()}) for k in (0, 1)]
        fresh = [OpenSolver(options, Seat.N).values(p) for p in variants]
        differ += fresh[1] != fresh[2]
        solver = OpenSolver(options, Seat.N)
        for i in (0, 1, 2, 1, 0, 2):
            assert solver.values(variants[i]) == fresh[i]
    assert differ >= 2, "self-catch never changed a value: the check above checked nothing"


def with_dealt(deal: Deal, moved: dict[Card, Seat]) -> FastPosition:
    """The C position of ``deal`` with some cards moved to other hands as dealt (what R6.1 reads)."""
    dealt = [[c for c in deal.dealt[s] if c not in moved] for s in Seat]
    for c, s in moved.items():
        dealt[s].append(c)
    pos = deal.position()
    return encode_parts(
        deal.options, hands=pos.hands, restricted=pos.restricted, captured=pos.captured,
        exposures=deal.exposures, dealt=dealt, trick=[p[0] for _, p in pos.trick], leader=pos.leader,
        turn=pos.turn, led=pos.led, offender=pos.offender, suits_led=pos.suits_led,
        must_lead_c2=pos.must_lead_c2,
    )


# --------------------------------------------------------------------------- refusals


def test_bad_input_is_refused() -> None:
    """R1, R6: two-deck deals, a finished deal and weights that define no game are refused."""
    with pytest.raises(ValueError, match="one-deck"):
        OpenSolver(PRESETS["online2"], Seat.N)
    options = Options()
    deal = ending(options, 3, 0)
    assert deal.is_over
    pos = FastPosition(encode_finished(deal))
    solver = OpenSolver(options, Seat.N)
    with pytest.raises(ValueError, match="over"):
        solver.values(pos)
    w, divisor = objective(options, Seat.N)
    assert solver.value(pos) == final_value(deal, w) / divisor
    assert solver.line(pos) == []
    for weights in [(1, 1, 1, 1), (0, 0, 0, 0), (-1, -1, -1, -1), (1001, -1, -1, -1)]:
        with pytest.raises(ValueError):
            _c.Solver(weights)
    bad_weights: list[Any] = [(1, -1, 1), [1, -1, 1, -1], (1.5, -1, 1, -1)]
    for bad in bad_weights:
        with pytest.raises(TypeError):
            _c.Solver(bad)
    with pytest.raises(ValueError, match="table_bits"):
        _c.Solver((1, -1, 1, -1), 40)
    live = encode(ending(options, 3, 5))
    with pytest.raises(ValueError, match="limit"):
        solver.values(live, limit=-1)
    # Positions no deal can reach: an exposure factor outside R10's, a bound card that is not an
    # exposed special card (R4.3).
    blob = bytearray(live.blob)
    blob[96:100] = (9).to_bytes(4, "little")  # the ♠Q's factor
    with pytest.raises(ValueError, match="not a position of a deal"):
        solver.values(FastPosition(bytes(blob)))
    blob = bytearray(live.blob)
    seat = live.turn
    plain = live.hands[seat] & ~(QS.bit | JD.bit | TC.bit | AH.bit)
    low = plain & -plain  # its lowest card that is not a special card
    assert low
    blob[32 + 8 * seat:40 + 8 * seat] = low.to_bytes(8, "little")
    with pytest.raises(ValueError, match="not a position of a deal"):
        solver.value(FastPosition(bytes(blob)))
    assert solver.values(live) is not None


def encode_finished(deal: Deal) -> bytes:
    """The C position of a finished deal: its last position, played to the end in C."""
    back = deal.copy()
    back.undo()
    pos = encode(back)
    (last,) = back.legal_plays()
    return pos.play(last[0]).blob
