"""The observation and action encodings (gongzhu.players.features, docs/env.md): the layout,
the action helpers on every legal play of random two-deck positions, the declaration mask against
the rules' own check (R4.4), and the documentation table."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gongzhu.players import features
from gongzhu.players.features import ACTION_DONE, ACTION_EXPOSE, BLOCKS, N_ACTIONS, OBS_SIZE
from gongzhu.players.observation import observe
from gongzhu.rules.cards import ALL_CARDS, EXPOSABLE, Card, Seat
from gongzhu.rules.deal import Deal, Phase
from gongzhu.rules.options import PRESETS, resolve_options

DOCS = Path(__file__).resolve().parent.parent / "docs" / "env.md"


def test_blocks_tile_the_vector() -> None:
    at = 0
    for b in BLOCKS:
        assert b.start == at and b.size > 0 and b.rules.startswith("R") and b.meaning
        at += b.size
    assert at == OBS_SIZE
    assert len({b.name for b in BLOCKS}) == len(BLOCKS)


def test_docs_list_every_block_and_action() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for b in BLOCKS:
        row = f"| `{b.name}` | {b.start}–{b.start + b.size - 1} | {b.size} | {b.rules} |"
        assert row in text, f"docs/env.md has no row {row}"
    assert f"{OBS_SIZE} values" in text and f"{N_ACTIONS} discrete actions" in text


def test_action_helpers_round_trip() -> None:
    for c in EXPOSABLE:
        for kind in features.DECLARABLE_KINDS:
            a = features.action_of_exposure(c, kind)
            assert ACTION_EXPOSE <= a < N_ACTIONS
            assert features.exposure_of_action(a) == (c, kind)
    with pytest.raises(ValueError):
        features.exposure_of_action(ACTION_DONE)
    with pytest.raises(ValueError):
        features.action_of_exposure(Deal.new(PRESETS["online"], 1).dealt[0][0], "auto")


def _random_position(preset: str, seed: int) -> Deal:
    rng = random.Random(seed)
    deal = Deal.new(resolve_options(preset), seed)
    for s in deal.undeclared:
        deal.declare(s)
    for _ in range(rng.randrange(0, 13 * deal.options.decks * 4 - 4)):
        if deal.is_over:
            break
        deal.play(rng.choice(list(deal.legal_plays())))
    return deal


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), preset=st.sampled_from(["online2", "partners2", "online"]))
def test_every_legal_play_is_built_by_its_actions(seed: int, preset: str) -> None:
    """From any position, each legal play is reached by its actions, each step offered by the
    mask, and no other sequence of offered steps makes an illegal play (R5.2, R5.3)."""
    deal = _random_position(preset, seed)
    if deal.is_over:
        return
    obs = observe(deal, deal.turn)  # type: ignore[arg-type]
    legal = obs.legal
    keys = {tuple(sorted(c.index for c in p)) for p in legal}
    for play in legal:
        steps = features.actions_of_play(legal, play)
        chosen: list[Card] = []
        made = None
        for a in steps:
            assert a in features.play_actions(legal, chosen)
            if a == ACTION_DONE:
                made = tuple(chosen)
                break
            chosen.append(next(c for c in play if c.index == a))
            made = features.finished_play(legal, chosen)
        assert made is not None and tuple(sorted(c.index for c in made)) == tuple(sorted(c.index for c in play))
    # Every path of offered steps ends in a legal play.
    stack: list[list[Card]] = [[]]
    while stack:
        chosen = stack.pop()
        for a in features.play_actions(legal, chosen):
            if a == ACTION_DONE:
                assert tuple(sorted(c.index for c in chosen)) in keys
                continue
            nxt = [*chosen, next(c for c in deal.hand(deal.turn) if c.index == a)]  # type: ignore[arg-type]
            if features.finished_play(legal, nxt) is None:
                stack.append(nxt)
            else:
                assert tuple(sorted(c.index for c in nxt)) in keys


@pytest.mark.parametrize("preset,overrides", [
    ("online", {}), ("tournament", {}), ("online", {"exposure": "hidden"}), ("online", {"exposure": "sell_x4_x2"}),
    ("online2", {}), ("online2", {"exposure": "hidden"}),
])
def test_declaration_steps_reach_exactly_the_declarations_the_rules_accept(preset: str,
                                                                           overrides: dict[str, str]) -> None:
    """Every sequence of offered exposure steps ends in a declaration Deal.declare accepts, and
    every declaration it accepts (the expert's list of them) is reachable (R4.4)."""
    from gongzhu.players.expert import exposure_options

    options = resolve_options(preset, overrides)
    for seed in range(40):
        deal = Deal.new(options, seed)
        for seat in list(deal.undeclared):
            obs = observe(deal, seat)
            reachable: set[tuple[tuple[int, str], ...]] = set()
            stack: list[list[tuple[Card, str]]] = [[]]
            while stack:
                declared = stack.pop()
                for a in features.declaration_actions(obs, declared):
                    if a == ACTION_DONE:
                        key = tuple(sorted((c.index, k) for c, k in declared))
                        assert deal.can_declare(seat, declared), declared
                        reachable.add(key)
                    else:
                        stack.append([*declared, features.exposure_of_action(a)])
            wanted = {tuple(sorted((c.index, k) for c, k in d)) for d in exposure_options(obs)}
            assert reachable == wanted
            deal.declare(seat)


def test_encode_writes_into_a_given_vector_and_rereads_the_same() -> None:
    deal = _random_position("online", 5)
    assert deal.phase is Phase.PLAY
    obs = observe(deal, Seat.S)
    out = np.full(OBS_SIZE, 7.0, dtype=np.float32)
    v = features.encode(obs, out=out)
    assert v is out and np.array_equal(out, features.encode(obs))
    assert out.min() >= 0.0 and out.max() <= 1.0


def test_relative_seats_follow_the_direction_of_play() -> None:
    ccw = resolve_options("online")  # N -> W -> S -> E (R1)
    cw = resolve_options("classic")  # N -> E -> S -> W
    assert features.relative_seats(ccw, Seat.N) == (Seat.N, Seat.W, Seat.S, Seat.E)
    assert features.relative_seats(cw, Seat.N) == (Seat.N, Seat.E, Seat.S, Seat.W)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), plays=st.integers(0, 51))
def test_card_features_read_the_position_each_card_is_played_in(seed: int, plays: int) -> None:
    """Each card's row (features.card_features) against the observation itself: in hand, legal,
    of the suit led, taking the trick as it stands, unseen cards above it, its suit's length in
    hand, seats after the observer known void in its suit."""
    deal = Deal.new(PRESETS["online"], seed)
    for s in deal.undeclared:
        deal.declare(s)
    rng = random.Random(seed)
    for _ in range(plays):
        deal.play(rng.choice(list(deal.legal_plays())))
    turn = deal.turn
    assert turn is not None
    obs = observe(deal, turn)
    rows = features.card_features(features.encode(obs))
    assert rows.shape == (1, 52, len(features.CARD_FEATURES))
    col = {name: k for k, (name, _) in enumerate(features.CARD_FEATURES)}
    unseen = obs.unseen()
    rel = features.relative_seats(obs.options, obs.seat)
    after = [rel[k] for k in range(1, 4 - len(obs.trick))]
    voids = obs.voids()
    led = obs.trick[0][1][0].suit if obs.trick else None
    legal = {p[0] for p in obs.legal}
    for card in ALL_CARDS:
        row = rows[0, card.index]
        same = [c for c in ALL_CARDS if c.suit == card.suit]
        above = [c for c in same if c.rank > card.rank]
        assert row[col["in_hand"]] == (card in obs.hand)
        assert row[col["legal"]] == (card in legal)
        assert row[col["follows"]] == (card.suit == led)
        beaten = any(c in above for _, p in obs.trick for c in p)
        assert row[col["wins_now"]] == (card.suit == led and not beaten)
        assert row[col["unseen_higher"]] == pytest.approx(sum(unseen.get(c, 0) for c in above) / 12)
        assert row[col["own_suit"]] == pytest.approx(sum(c in obs.hand for c in same) / 13)
        assert row[col["voids_after"]] == pytest.approx(sum(card.suit in voids.get(s, ()) for s in after) / 3)
        assert row[col["to_play_after"]] == pytest.approx(len(after) / 3)
        assert row[col["leading"]] == (not obs.trick)


def test_docs_list_every_card_feature() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for k, (name, meaning) in enumerate(features.CARD_FEATURES):
        assert f"| {k} | `{name}` | {meaning} |" in text, f"docs/env.md has no row for {name}"
