"""Players receive an observation, never the deal: it holds the seat's own hand and what is
public, and the rules seen from it agree with the deal's (R4.3, R4.4, R5)."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from conftest import declare_random_exposures, preset_variants, scaled
from gongzhu.players.observation import Observation, observe
from gongzhu.rules import PRESETS, Card, Deal, Phase, Seat

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
