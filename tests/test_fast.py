"""The C fast path (gongzhu.search.fast) against the reference rules (Deal, raw_scores).

Every C playout is replayed through ``Deal.play``: at each step the C legal set must equal
``Deal.legal_mask`` (R5.2 → R4.3 → discard colour), the C position must equal the encoding of the
Python position (so hands, R4.3 restrictions, cards taken, the R5.2 penalty offender and the next
leader agree), and the final raw scores must equal ``deal.score.raw`` (R6, R6.1).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gongzhu.rules import ALL_CARDS, EXPOSABLE, PRESETS, Deal, Options, Phase, Seat, raw_scores
from gongzhu.rules.cards import AH, JD, POINT_CARDS_MASK, QS, TC, Card, parse_cards
from gongzhu.rules.model import Exposure
from gongzhu.rules.options import DiscardColor, ExposureRule
from gongzhu.search.fast import (
    POLICY_UNIFORM,
    FastPosition,
    encode,
    encode_parts,
    playout_scores,
    playout_trace,
    random_deal_trace,
    random_deals,
)
from helpers.fastpath import ONE_DECK_OPTION_SETS as OPTION_SETS
from helpers.fastpath import played_deal, python_deal, replay_playout
from helpers.volume import scaled

# --------------------------------------------------------------------------- option sets




ONE_DECK_PRESETS = [name for name, o in PRESETS.items() if o.decks == 1]


def test_every_one_deck_preset_is_covered() -> None:
    names = {label.split(",")[0] for label, _ in OPTION_SETS}
    assert names == set(ONE_DECK_PRESETS)
    assert len(OPTION_SETS) > 50


# --------------------------------------------------------------------------- helpers


def snapshot(deal: Deal) -> tuple[Any, ...]:
    return (
        deal.position(), len(deal.tricks), list(deal.exposures), deal.phase,
        deal.legal_mask() if deal.phase == Phase.PLAY else None,
    )


def check_trace(options: Options, seed: int, n_plays: int, expose_p: float, later: bool) -> None:
    deal = played_deal(options, seed, n_plays, expose_p, later)
    if deal.is_over:
        with pytest.raises(ValueError, match="play phase"):
            encode(deal)
        return
    before = snapshot(deal)
    pos = encode(deal)
    trace = playout_trace(deal, seed)
    mean = playout_scores(deal, 1, seed)
    assert snapshot(deal) == before, "the deal changed"
    assert mean == tuple(float(x) for x in trace.raw)
    assert playout_trace(deal, seed) == trace  # determinism
    assert pos.playout_trace(seed) == trace
    replay_playout(deal, pos, trace)


# --------------------------------------------------------------------------- play and scoring


@pytest.mark.parametrize(("label", "options"), OPTION_SETS, ids=[lb for lb, _ in OPTION_SETS])
def test_traces_replay_in_python(label: str, options: Options) -> None:
    for seed in range(6):
        check_trace(options, seed * 1000 + len(label), n_plays=(seed * 11) % 40,
                    expose_p=(0.0, 0.5, 1.0)[seed % 3], later=seed % 4 == 3)


@settings(max_examples=scaled(300), deadline=None)
@given(
    index=st.integers(0, len(OPTION_SETS) - 1),
    seed=st.integers(0, 2**40),
    n_plays=st.integers(0, 52),
    expose_p=st.sampled_from([0.0, 0.3, 0.7, 1.0]),
    later=st.booleans(),
)
def test_traces_replay_hypothesis(
    index: int, seed: int, n_plays: int, expose_p: float, later: bool
) -> None:
    check_trace(OPTION_SETS[index][1], seed, n_plays, expose_p, later)


@pytest.mark.parametrize("discard_color", ["off", "enforce", "penalty"])
def test_many_traces_from_the_start(discard_color: DiscardColor) -> None:
    options = Options(discard_color=discard_color, exposed_discard_before_suit_led=True,
                      self_catch=True)
    penalties = 0
    for seed in range(40):
        deal = played_deal(options, seed, 0, expose_p=0.6)
        trace = playout_trace(deal, seed + 1)
        replay_playout(deal, encode(played_deal(options, seed, 0, expose_p=0.6)), trace)
        penalties += sum(1 for t in deal.tricks if t.taker != t.winner)
    if discard_color == "penalty":
        assert penalties > 0  # the R5.2 penalty path was exercised
    else:
        assert penalties == 0


def _random_split(rng: random.Random) -> list[list[Card]]:
    """The 16 point cards split among the seats, often all to one seat (满红, 满贯)."""
    main = rng.randrange(4)
    bias = rng.choice([0.0, 0.5, 0.9, 1.0])
    captured: list[list[Card]] = [[], [], [], []]
    for c in ALL_CARDS:
        if POINT_CARDS_MASK >> c.index & 1:
            s = main if rng.random() < bias else rng.randrange(4)
            captured[s].append(c)
    if rng.random() < 0.3:  # a transformer alone, or hearts worth 0 with it (R6 step 7)
        for s in range(4):
            captured[s] = [c for c in captured[s] if c != TC]
        seat = rng.randrange(4)
        extra = rng.choice([[], parse_cards("2H 3H 4H")])
        for s in range(4):
            captured[s] = [c for c in captured[s] if c not in extra]
        captured[seat] += [TC, *extra]
    return captured


@settings(max_examples=scaled(500), deadline=None)
@given(
    seed=st.integers(0, 2**32),
    exposure=st.sampled_from(["standard", "first_card", "hidden", "sell_x4_x2"]),
    book=st.booleans(),
    self_catch=st.booleans(),
)
def test_raw_scores_match_reference(seed: int, exposure: ExposureRule, book: bool, self_catch: bool) -> None:
    rng = random.Random(seed)
    options = Options(exposure=exposure, heart_values="book" if book else "standard",
                      self_catch=self_catch, auto_expose_fourth=False)
    deal = Deal.new(options, seed)
    exposures = []
    for special in EXPOSABLE:
        if rng.random() < 0.5:
            holder = next(s for s in Seat if special in deal.dealt[s])
            exposures.append(Exposure(holder, special, rng.choice(["shown", "first", "hidden",
                                                                   "auto"])))
    captured = _random_split(rng)
    pos = encode_parts(options, hands=(0, 0, 0, 0), restricted=(0, 0, 0, 0), captured=captured,
                       exposures=exposures, dealt=deal.dealt, leader=0, turn=0)
    assert pos.is_over
    expected, _ = raw_scores(options, captured, exposures, deal.dealt)
    assert pos.raw_scores() == expected


def _score_of(options: Options, took: str, exposed: list[tuple[Card, str]],
              dealt_to_taker: tuple[Card, ...] = ()) -> int:
    """The raw score of North taking ``took``; ``dealt_to_taker`` cards were dealt to North."""
    deal = Deal.new(options, 3)
    dealt = [list(h) for h in deal.dealt]
    for c in EXPOSABLE:  # deal c to North iff it is in dealt_to_taker, else to East
        to = 0 if c in dealt_to_taker else 1
        s = next(s for s in range(4) if c in dealt[s])
        if s != to:
            j = next(j for j, d in enumerate(dealt[to]) if d not in EXPOSABLE)
            i = dealt[s].index(c)
            dealt[to][j], dealt[s][i] = dealt[s][i], dealt[to][j]
    exposures = [Exposure(Seat.E, c, k) for c, k in exposed]
    captured: list[list[Card]] = [parse_cards(took), [], [], []]
    pos = encode_parts(options, hands=(0, 0, 0, 0), restricted=(0, 0, 0, 0), captured=captured,
                       exposures=exposures, dealt=dealt, leader=0, turn=0)
    raw = pos.raw_scores()
    assert raw == raw_scores(options, captured, exposures, dealt)[0]
    return raw[0]


def test_rule_book_examples() -> None:
    base = Options(scoring="raw")
    # R6 worked example: ♠Q, ♥6 8 10 J and ♣10 with ♥A exposed: (−100 + (−50) × 2) × 2 = −400.
    assert _score_of(base, "QS 6H 8H TH JH TC", [(AH, "shown")]) == -400
    # R6 grand slam with ♠Q and ♥A exposed, ♦J self-caught (R6.1): (200 + 400 + 200) × 2.
    hearts = " ".join(f"{r}H" for r in "23456789TJQKA")
    slam = f"QS JD TC {hearts}"
    tour = base.replace(self_catch=True)
    assert _score_of(tour, slam, [(QS, "shown"), (AH, "shown")], (JD,)) == 1600
    assert _score_of(base, slam, []) == 800  # (100 + 100 + 200) × 2
    assert _score_of(base, hearts, []) == 200  # 满红
    assert _score_of(base, hearts, [(AH, "shown")]) == 400
    assert _score_of(base, "TC", []) == 50  # transformer alone
    assert _score_of(base, "TC", [(TC, "shown")]) == 100
    assert _score_of(base, "TC", [(TC, "first")]) == 200
    assert _score_of(base, "TC 2H 3H 4H", []) == 0
    assert _score_of(base.replace(heart_values="book"), "4H", []) == -10
    assert _score_of(base, "QS", [(QS, "shown")]) == -200
    assert _score_of(base.replace(exposure="sell_x4_x2"), "QS", [(QS, "shown")]) == -400
    assert _score_of(tour, "AH", [], (AH,)) == -100  # R6.1: ♥A's own value doubled


# --------------------------------------------------------------------------- API behaviour


def test_refuses_two_decks_and_other_phases() -> None:
    two = Deal.new(PRESETS["online2"], 1)
    for s in Seat:
        two.declare(s, [])
    with pytest.raises(ValueError, match="one-deck"):
        encode(two)
    with pytest.raises(ValueError, match="one-deck"):
        playout_scores(two, 10, 1)
    with pytest.raises(ValueError, match="one-deck"):
        random_deals(PRESETS["online2"], 10, 1)
    fresh = Deal.new(Options(), 1)
    assert fresh.phase == Phase.EXPOSE
    with pytest.raises(ValueError, match="play phase"):
        playout_trace(fresh, 1)
    done = played_deal(Options(), 2, 52)
    assert done.is_over
    with pytest.raises(ValueError, match="play phase"):
        encode(done)
    with pytest.raises(ValueError):
        playout_scores(played_deal(Options(), 2, 3), 0, 1)


def test_fast_position_checks() -> None:
    deal = played_deal(Options(), 5, 7)
    pos = encode(deal)
    assert FastPosition(pos.blob) == pos and hash(FastPosition(pos.blob)) == hash(pos)
    assert len(pos.blob) == 136
    illegal = next(c for c in range(52) if not pos.legal_mask() >> c & 1)
    with pytest.raises(ValueError, match="not a legal play"):
        pos.play(illegal)
    with pytest.raises(ValueError):
        FastPosition(pos.blob[:-1])
    with pytest.raises(ValueError):
        FastPosition(bytes(136))
    with pytest.raises(ValueError, match="policy"):
        pos.playout_trace(1, policy=99)
    assert pos.turn == deal.turn
    assert "FastPosition" in repr(pos)


def test_first_lead_club2_must() -> None:
    deal = played_deal(Options(), 11, 0)
    pos = encode(deal)
    assert pos.legal_mask() == 1 << parse_cards("2C")[0].index
    assert playout_trace(deal, 3).cards[0] == parse_cards("2C")[0].index


def test_playout_scores_determinism_and_mean() -> None:
    deal = played_deal(Options(discard_color="penalty"), 21, 9)
    a = playout_scores(deal, 500, 42)
    assert a == playout_scores(deal, 500, 42)
    assert a != playout_scores(deal, 500, 43)
    pos = encode(deal)
    sums = pos.playout_sums(500, 42, policy=POLICY_UNIFORM)
    assert a == tuple(x / 500 for x in sums)
    traces = {tuple(playout_trace(deal, s).cards) for s in range(20)}
    assert len(traces) > 1
    assert playout_scores(deal, 1, 2**64 + 7) == playout_scores(deal, 1, 7)  # seeds mod 2**64


def test_playout_scores_converge() -> None:
    """Uniform playouts from the start of a deal: C means agree with Python random playouts."""
    options = Options()
    deal = played_deal(options, 8, 20, expose_p=0.0)
    n = 4000
    fast = playout_scores(deal, n, 1)
    rng = random.Random(5)
    m = 600
    totals = [0, 0, 0, 0]
    for _ in range(m):
        k = 0
        while not deal.is_over:
            deal.play(rng.choice(deal.legal_plays())[0])
            k += 1
        for s in range(4):
            totals[s] += deal.score.raw[s]
        for _ in range(k):
            deal.undo()
    for s in range(4):
        assert abs(fast[s] - totals[s] / m) < 25, (fast, [t / m for t in totals])


@pytest.mark.parametrize(("label", "options"), OPTION_SETS[::3], ids=[lb for lb, _ in OPTION_SETS[::3]])
def test_random_deals_match_python(label: str, options: Options) -> None:
    """Each C deal of random_deals: its position equals the same deal built in Python, its
    playout replays there, and random_deals sums exactly these deals' raw scores."""
    seed, n = 99 + len(label), 12
    expose = 0.5
    totals = [0, 0, 0, 0]
    for i in range(n):
        pos, trace = random_deal_trace(options, seed, i, expose_prob=expose)
        replay_playout(python_deal(options, pos), pos, trace)
        for s in range(4):
            totals[s] += trace.raw[s]
    assert random_deals(options, n, seed, threads=1, expose_prob=expose) == tuple(totals)
    assert random_deals(options, n, seed, threads=2, expose_prob=expose) == tuple(totals)


def test_random_deals_determinism_and_threads() -> None:
    options = Options()
    a = random_deals(options, 3000, 7, threads=2)
    assert a == random_deals(options, 3000, 7, threads=2)
    assert a == random_deals(options, 3000, 7, threads=1)
    assert a == random_deals(options, 3000, 7, threads=5)
    assert a != random_deals(options, 3000, 8, threads=2)
    assert random_deals(options, 0, 7) == (0, 0, 0, 0)
    assert random_deals(options, 1, 7, threads=4) == random_deal_trace(options, 7, 0)[1].raw
    with pytest.raises(ValueError):
        random_deals(options, 10, 1, threads=0)
    with pytest.raises(ValueError):
        random_deals(options, 10, 1, expose_prob=1.5)
    # Every one-deck option set runs, with and without exposures.
    for _, opts in OPTION_SETS:
        random_deals(opts, 300, 3, threads=2, expose_prob=0.5)


def test_random_deal_exposures() -> None:
    everything = random_deal_trace(Options(exposure="all"), 1, 0)[0]
    assert everything.factors == (2, 2, 2, 2)
    assert sum(r.bit_count() for r in everything.restricted) == 4
    none = random_deal_trace(Options(), 1, 0)[0]
    assert none.factors == (1, 1, 1, 1)
    # Exposing each with probability 1 under standard: three exposed → the fourth too (R4.4).
    full = random_deal_trace(Options(), 1, 0, expose_prob=1.0)[0]
    assert full.factors == (2, 2, 2, 2)
    hidden = random_deal_trace(Options(exposure="hidden"), 1, 0, expose_prob=1.0)[0]
    assert hidden.factors == (2, 2, 2, 2) and hidden.restricted == (0, 0, 0, 0)
    sell = random_deal_trace(Options(exposure="sell_x4_x2"), 1, 0, expose_prob=1.0)[0]
    assert sell.factors == (4, 4, 4, 4)
    assert (QS, JD, TC, AH) == EXPOSABLE
