"""Players receive an observation, never the deal: it holds the seat's own hand and what is
public, and the rules seen from it agree with the deal's (R4.3, R4.4, R5)."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from gongzhu.players import observation
from gongzhu.players.observation import Observation, observe
from gongzhu.rules import PRESETS, Card, Deal, Options, Phase, Seat
from gongzhu.rules.exposure import visible_exposures
from helpers.deals import declare_random_exposures
from helpers.volume import preset_variants, scaled

VARIANTS: list[tuple[str, dict[str, Any]]] = [
    *((name, {}) for name in PRESETS),
    ("online", {"exposure": "hidden"}),
    ("online", {"exposure": "sell_x4_x2"}),
    ("online", {"discard_color": "enforce"}),
    ("online", {"discard_color": "penalty"}),
    ("online2", {"exposure": "hidden"}),
    ("online2", {"exposure": "all"}),
    ("tournament", {}),
]


def _cards_in(value: object) -> list[Card]:
    """Every card mentioned anywhere inside an observation field."""
    if isinstance(value, Card):
        return [value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [c for f in dataclasses.fields(value) for c in _cards_in(getattr(value, f.name))]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [c for v in value for c in _cards_in(v)]
    if isinstance(value, dict):
        return [c for k, v in value.items() for c in _cards_in(k) + _cards_in(v)]
    return []


def _check(obs: Observation, deal: Deal) -> None:
    seat = obs.seat
    assert list(obs.hand) == deal.hand(seat)
    # Structural: nothing in the observation is a card of another hand, except cards already
    # played and cards exposed visibly (shown / first / auto, or hidden ones once played).
    allowed = set(deal.hand(seat)) | {c for _, c in obs.played()}
    allowed |= {e.card for e in deal.exposures if e.kind != "hidden" or e.seat == seat}
    assert obs.first_card == deal.dealt[seat][0]  # its own first card (for 首明, R4.4)
    assert set(_cards_in(obs)) <= allowed | {obs.first_card}
    hidden_unplayed = [e for e in deal.exposures if e.kind == "hidden" and e.seat != seat
                       and e not in obs.exposures]
    assert sum(obs.hidden_counts) == len(hidden_unplayed)
    if deal.turn == seat:
        assert list(obs.legal_plays()) == list(deal.legal_plays())
        assert sorted(obs.restricted_in_hand(), key=lambda c: c.index) == sorted(
            (c for c in set(deal.hand(seat)) for _ in range(deal.restricted_copies(seat, c))), key=lambda c: c.index)
    else:
        assert obs.legal_plays() == ()
    assert [obs.cards_left(s) for s in Seat] == [len(deal.hand(s)) for s in Seat]
    for s in Seat:
        assert sorted(obs.captured(s), key=lambda c: c.index) == sorted(deal.captured(s), key=lambda c: c.index)
        for suit in obs.voids()[s]:
            assert all(c.suit != suit for c in deal.hand(s)), f"{s} is not void in {suit}"
    held = obs.known_holdings()
    for s, cards in held.items():
        for c, n in cards.items():
            assert deal.copies_held(s, c) >= n


@pytest.mark.parametrize(("preset", "overrides"), preset_variants(VARIANTS), ids=lambda v: str(v))
def test_observations_hold_only_what_the_seat_may_know(preset: str, overrides: dict[str, Any]) -> None:
    options = PRESETS[preset].replace(**overrides)
    for seed in range(scaled(4)):
        rng = random.Random(seed)
        deal = Deal.new(options, seed)
        if deal.phase is Phase.EXPOSE:
            obs = observe(deal, Seat.S)
            assert obs.phase is Phase.EXPOSE
            assert obs.exposable() == deal.exposable(Seat.S)
            for c in set(obs.exposable()):
                assert obs.exposure_kinds(c) == deal.exposure_kinds(Seat.S, c)
        declare_random_exposures(deal, rng)
        while not deal.is_over:
            for seat in Seat:
                _check(observe(deal, seat), deal)
            deal.play(rng.choice(deal.legal_plays()))
        for seat in Seat:
            assert observe(deal, seat).raw_so_far() == deal.score.raw or options.self_catch or any(
                e.kind == "hidden" for e in deal.exposures)


def test_an_observation_has_no_field_for_other_hands() -> None:
    """The type itself: the only hand an observation carries is its own."""
    names = {f.name for f in dataclasses.fields(Observation)}
    assert "hands" not in names and "dealt" not in names
    assert "deal" not in names


@pytest.mark.parametrize("options", [PRESETS["online"].replace(exposure="hidden"),
                                     PRESETS["online"].replace(exposure="sell_x4_x2"),
                                     PRESETS["online2"].replace(exposure="hidden")], ids=["hidden", "sell", "hidden2"])
def test_players_see_the_exposures_the_rules_core_shows(options: Options) -> None:
    """The players' observation (and the name the game server imports from it) is the rules
    core's rule itself, and at every position of random deals each seat's observation holds
    exactly the exposures and hidden counts the rule gives that seat."""
    assert observation.visible_exposures is visible_exposures
    hidden_seen = 0
    for seed in range(scaled(6)):
        rng = random.Random(seed)
        deal = Deal.new(options, seed)
        declare_random_exposures(deal, rng, p=0.9)
        while True:
            played = [(s, c) for t in deal.tricks for s, p in t.plays for c in p]
            played += [(s, c) for s, p in deal.current_trick for c in p]
            for seat in Seat:
                obs = observe(deal, seat)
                assert (obs.exposures, obs.hidden_counts) == visible_exposures(deal.exposures, seat, played)
                hidden_seen += sum(obs.hidden_counts)
            if deal.is_over:
                break
            deal.play(rng.choice(deal.legal_plays()))
    assert hidden_seen > 0
