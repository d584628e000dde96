"""The two-deck C fast path (gongzhu.search.fast2) against the reference rules (Deal, raw_scores).

Every C playout is replayed through ``Deal.play``: at each step the C position must equal the
encoding of the Python position (hands and copies, exposed copies bound by R4.3/R4.5, cards
taken, the trick, the R5.2 penalty offender, the next leader), the C legal plays must equal
``Deal.legal_plays()`` (R5.3 → R4.3/R4.5 → R5.2), and the final raw scores must equal
``deal.score.raw`` (R6.2).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gongzhu.rules import ALL_CARDS, PRESETS, Deal, Options, Phase, Seat, raw_scores
from gongzhu.rules.cards import POINT_CARDS_MASK, Card, parse_cards
from gongzhu.rules.model import Exposure
from gongzhu.search.fast import POLICY_HEURISTIC, POLICY_UNIFORM, Policy
from gongzhu.search.fast2 import FastPosition2, PlayoutTrace2, encode, encode_parts
from helpers.deals import declare_random_exposures, preset_option_sets
from helpers.volume import scaled

_OVERRIDES: list[dict[str, Any]] = [
    {},
    {"discard_color": "enforce"},
    {"discard_color": "penalty"},
    {"exposed_discard_before_suit_led": True},
    {"heart_values": "book"},
    {"direction": "cw"},
    {"exposure": "hidden"},
    {"exposure": "all"},
    {"exposure": "all_but_sheep"},
    {"exposure": "none"},
    {"first_lead": "club2_any"},
    {"first_lead": "spade3_any"},
    {"discard_color": "penalty", "exposed_discard_before_suit_led": True, "exposure": "all"},
    {"discard_color": "enforce", "heart_values": "book", "direction": "cw"},
]

OPTION_SETS = preset_option_sets(_OVERRIDES, decks=2)


def test_every_two_deck_preset_is_covered() -> None:
    names = {label.split(",")[0] for label, _ in OPTION_SETS}
    assert names == {name for name, o in PRESETS.items() if o.decks == 2}
    assert len(OPTION_SETS) >= 2 * len(_OVERRIDES) - 2


def make_deal(options: Options, seed: int, n_plays: int, expose_p: float = 0.5, later: bool = False) -> Deal:
    """A two-deck deal dealt from ``seed``, random exposures declared, ``n_plays`` random plays."""
    rng = random.Random(seed * 7919 + 29)
    prev = Seat(rng.randrange(4)) if later else None
    deal = Deal.new(options, seed, deal_index=1 if later else 0, previous_pig_taker=prev)
    declare_random_exposures(deal, rng, expose_p)
    assert deal.phase == Phase.PLAY
    for _ in range(n_plays):
        if deal.is_over:
            break
        deal.play(rng.choice(list(deal.legal_plays())))
    return deal


def index_plays(deal: Deal) -> set[tuple[int, ...]]:
    return {tuple(sorted(c.index for c in p)) for p in deal.legal_plays()}


def replay(deal: Deal, start: FastPosition2, trace: PlayoutTrace2) -> None:
    """Replay a C playout through Deal.play, checking every step against the reference."""
    pos = start
    for play in trace.plays:
        assert not deal.is_over and not pos.is_over
        assert encode(deal) == pos, "C position differs from the encoded Python position"
        legal = pos.legal_plays()
        assert len(set(legal)) == len(legal)
        assert set(legal) == index_plays(deal)
        assert play in legal
        assert pos.turn == deal.turn
        deal.play([ALL_CARDS[c] for c in play])
        pos = pos.play(play)
    assert deal.is_over and pos.is_over
    assert pos.legal_plays() == ()
    assert deal.score.raw == trace.raw == pos.raw_scores()


def check_trace(options: Options, seed: int, n_plays: int, expose_p: float, later: bool,
                policy: Policy = POLICY_UNIFORM) -> Deal:
    deal = make_deal(options, seed, n_plays, expose_p, later)
    if deal.is_over:
        with pytest.raises(ValueError, match="play phase"):
            encode(deal)
        return deal
    pos = encode(deal)
    trace = pos.playout_trace(seed, policy=policy)
    assert pos.playout_trace(seed, policy=policy) == trace  # determinism
    assert pos.playout_sums(1, seed, policy=policy) == trace.raw  # playout 0 is the trace
    replay(deal, pos, trace)
    return deal


@pytest.mark.parametrize(("label", "options"), OPTION_SETS, ids=[lb for lb, _ in OPTION_SETS])
def test_traces_replay_in_python(label: str, options: Options) -> None:
    for seed in range(4):
        check_trace(options, seed * 1000 + len(label), n_plays=(seed * 23) % 90,
                    expose_p=(0.0, 0.5, 1.0, 0.7)[seed], later=seed == 3,
                    policy=POLICY_HEURISTIC if seed % 2 else POLICY_UNIFORM)


@settings(max_examples=scaled(120), deadline=None)
@given(
    index=st.integers(0, len(OPTION_SETS) - 1),
    seed=st.integers(0, 2**40),
    n_plays=st.integers(0, 104),
    expose_p=st.sampled_from([0.0, 0.4, 1.0]),
    later=st.booleans(),
    policy=st.sampled_from([POLICY_UNIFORM, POLICY_HEURISTIC, (1, 0, 1, 0)]),
)
def test_traces_replay_hypothesis(index: int, seed: int, n_plays: int, expose_p: float, later: bool,
                                  policy: Policy) -> None:
    check_trace(OPTION_SETS[index][1], seed, n_plays, expose_p, later, policy)


@pytest.mark.parametrize("discard_color", ["off", "penalty"])
def test_pairs_and_penalties_are_exercised(discard_color: str) -> None:
    """Whole playouts from the first lead meet pair leads, two-card answers made up with other
    suits, exposed copies, and (under ``penalty``) an offender who takes the trick's points."""
    options = PRESETS["online2"].replace(discard_color=discard_color, exposure="all")
    pair_leads = made_up = penalties = 0
    for seed in range(12):
        deal = check_trace(options, seed, 0, 1.0, False, POLICY_HEURISTIC if seed % 2 else POLICY_UNIFORM)
        for t in deal.tricks:
            lead = t.plays[0][1]
            if len(lead) == 2:
                pair_leads += 1
                made_up += sum(1 for _, p in t.plays[1:] if any(c.suit != lead[0].suit for c in p))
            penalties += t.taker != t.winner
    assert pair_leads > 0 and made_up > 0
    assert (penalties > 0) == (discard_color == "penalty")


def test_scores_match_the_reference_scoring() -> None:
    """R6.2 in C equals scoring.raw_scores for random splits of the 32 point cards and every
    count of exposed copies (满红, 满贯 and the transformer table included)."""
    rng = random.Random(5)
    points = [c for c in ALL_CARDS if POINT_CARDS_MASK >> c.index & 1] * 2
    specials = parse_cards("QS JD TC AH")
    for trial in range(400):
        options = PRESETS["online2"].replace(heart_values=rng.choice(["standard", "book"]))
        main = rng.randrange(4)
        bias = rng.choice([0.0, 0.5, 0.95, 1.0])
        captured: list[list[Card]] = [[], [], [], []]
        for c in points:
            captured[main if rng.random() < bias else rng.randrange(4)].append(c)
        exposures = [Exposure(Seat(rng.randrange(4)), c, "shown") for c in specials for _ in range(rng.randrange(3))]
        pos = encode_parts(options, hands=[[], [], [], []], bound=[[], [], [], []], captured=captured,
                           exposures=exposures, leader=0, turn=0)
        assert pos.is_over
        expected, _ = raw_scores(options, captured, exposures)
        assert pos.raw_scores() == expected, (trial, captured, exposures)


def test_source_example_scores() -> None:
    """R4.5's check: both ♣10, ♥A, ♠Q exposed; ♥A ♣10 ♣10 → −3200; ♠Q ♠Q ♣10 ♣10 → −12800."""
    exposures = [Exposure(Seat.N, c, "shown") for c in parse_cards("TC TC AH AH QS QS")]
    captured = [parse_cards("AH TC TC"), parse_cards("QS QS"), [], []]
    pos = encode_parts(PRESETS["online2"], hands=[[], [], [], []], bound=[[], [], [], []], captured=captured,
                       exposures=exposures, leader=0, turn=0)
    assert pos.raw_scores()[0] == -3200
    captured = [parse_cards("QS QS TC TC"), [], [], []]
    pos = encode_parts(PRESETS["online2"], hands=[[], [], [], []], bound=[[], [], [], []], captured=captured,
                       exposures=exposures, leader=0, turn=0)
    assert pos.raw_scores()[0] == -12800


def test_bad_input_is_refused() -> None:
    deal = make_deal(PRESETS["online2"], 3, 0)
    pos = encode(deal)
    with pytest.raises(ValueError, match="not a legal play"):
        pos.play((0, 51))
    with pytest.raises(ValueError, match="one or two cards"):
        pos.play((1, 2, 3))
    with pytest.raises(ValueError, match=r"decks=2 only"):
        encode(Deal.new(PRESETS["online"], 1))
    with pytest.raises(ValueError, match="224 bytes"):
        FastPosition2(b"x")
    with pytest.raises(ValueError, match="unknown playout policy"):
        pos.playout_sums(1, 1, policy=7)
    assert encode(deal) == pos  # nothing changed


@pytest.mark.strength
def test_the_heuristic_policy_beats_uniform_playouts() -> None:
    """The heuristic playout policy is a better player than uniform play (duplicate: the same
    positions, the heuristic in one seat, uniform in the others)."""
    options = PRESETS["online2"]
    diff = 0.0
    n = 0
    for seed in range(60):
        pos = encode(make_deal(options, seed, 0, expose_p=0.3))
        for seat in range(4):
            mixed: tuple[int, int, int, int] = tuple(  # type: ignore[assignment]
                POLICY_HEURISTIC if s == seat else POLICY_UNIFORM for s in range(4))
            heur = pos.playout_sums(20, seed, policy=mixed)
            unif = pos.playout_sums(20, seed, policy=POLICY_UNIFORM)
            diff += (heur[seat] - sum(heur) / 4) - (unif[seat] - sum(unif) / 4)
            n += 20
    assert diff / n > 150  # raw points per deal; measured about +440 (100 deals)


def test_hands_are_counted_with_copies() -> None:
    deal = make_deal(PRESETS["online2"], 8, 30)
    pos = encode(deal)
    left = Counter(c for s in Seat for c in deal.hand(s))
    assert sum(left.values()) == 104 - sum(len(p) for t in deal.tricks for _, p in t.plays) - sum(
        len(p) for _, p in deal.current_trick)
    assert pos == encode(deal)
