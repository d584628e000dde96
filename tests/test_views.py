"""The server's views on their own (``gongzhu.server.views``): what one seat or a spectator is
shown of a table, held against the deal at every position of random deals under every preset —
no card of another hand, no secret (暗卖) exposure of another seat before its card is played, and
every hand once the deal is over."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import pytest

from gongzhu.ratings import Skill
from gongzhu.rules.cards import Card, Seat
from gongzhu.rules.deal import Deal
from gongzhu.rules.match import Match
from gongzhu.rules.options import PRESETS, Options, resolve_options
from gongzhu.server.views import Views, deal_seat_view, personal, played
from helpers.volume import scaled


@dataclass
class State:
    """A table's state as the views read it, without a server."""

    options: Options
    match: Match
    version: int = 1
    match_id: str = "m-000000000000"
    preset: str = "online"
    speed: str = "normal"
    levels: dict[str, str] = field(default_factory=lambda: dict.fromkeys("NESW", "random"))
    pending: dict[Seat, list[tuple[Card, str]]] = field(default_factory=dict)
    seats: list[tuple[str, str] | None] = field(default_factory=lambda: [None, None, ("u-s", "South"), None])
    lifetimes: dict[str, int] = field(default_factory=dict)
    auto: list[bool] = field(default_factory=lambda: [False] * 4)
    timeouts: list[int] = field(default_factory=lambda: [0] * 4)
    status: str = "playing"
    visibility: str = "private"
    invite: str | None = "an-invite"
    host_name: str | None = "South"
    seeded: bool = False
    challenge: str | None = None
    event_seating: dict[str, Any] | None = None
    turn_seconds: int | None = None
    expose_seconds: int | None = None
    skills: dict[str, Skill] = field(default_factory=dict)
    accounts: set[str] = field(default_factory=set)
    rated: bool = False
    practice: bool = True
    practice_ahead: bool = False
    ranked: bool = True
    accounts_only: bool = False

    @property
    def deal(self) -> Deal | None:
        return self.match.current or (self.match.deals[-1] if self.match.deals else None)

    @property
    def phase(self) -> str:
        deal = self.deal
        assert deal is not None
        return ("match-over" if self.match.is_over else "deal-over") if deal.is_over else deal.phase.value

    def connected(self) -> set[str]:
        return {"u-s", "u-watcher"}

    def seat_of(self, user: str) -> Seat | None:
        return Seat.S if user == "u-s" else None

    def next_deal(self, seat: Seat) -> bool:
        return False

    def computer_level(self, seat: Seat) -> str:
        return self.levels[seat.name]

    def clock_view(self) -> dict[str, Any] | None:
        return None

    def claim_view(self) -> dict[str, Any] | None:
        return None


def cards_shown(value: Any) -> set[str]:
    """Every card string anywhere in a view."""
    if isinstance(value, str):
        return {value} if len(value) == 2 and value[1] in "SHDC" and value[0] in "23456789TJQKA" else set()
    if isinstance(value, dict):
        return set().union(*(cards_shown(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_shown(v) for v in value)) if value else set()
    return set()


def may_see(deal: Deal, seat: Seat | None) -> set[str]:
    """What ``seat`` (None: a spectator) may know of the deal now: its own hand, every card
    played, and the exposures that are not secret or whose card was played."""
    seen = {c.code for _s, c in played(deal)}
    if seat is not None:
        seen |= {c.code for c in deal.dealt[seat]}
    for e in deal.exposures:
        if e.kind != "hidden" or e.seat == seat or e.card.code in seen:
            seen.add(e.card.code)
    return seen


#: Every preset, and the two decks with secret exposures (暗卖, R4.4).
VARIANTS: list[tuple[str, dict[str, str]]] = [
    *((p, {}) for p in sorted(PRESETS)), ("online", {"exposure": "hidden"}), ("online2", {"exposure": "hidden"}),
]


@pytest.mark.parametrize(("preset", "overrides"), VARIANTS, ids=[f"{p}{o}" for p, o in VARIANTS])
def test_a_seat_and_a_spectator_see_only_what_they_may(preset: str, overrides: dict[str, str]) -> None:
    rng = random.Random(preset + str(overrides))
    options = resolve_options(preset, overrides)
    for _ in range(scaled(10)):
        state = State(options=options, match=Match(options, seed=rng.getrandbits(32)))
        state.preset = preset
        views = Views(state)
        deal = state.match.new_deal()
        for seat in list(deal.undeclared):  # the exposure phase: every seat declares, some secretly
            chosen = [(c, rng.choice(deal.exposure_kinds(seat, c))) for c in deal.exposable(seat)
                      if rng.random() < 0.6]
            deal.declare(seat, chosen)
        while True:
            state.version += 1
            views.clear()
            for seat in (*Seat, None):
                view = views.seat(seat)
                shown = cards_shown({k: v for k, v in view.items() if k != "options"})
                if deal.is_over:
                    assert view["deal_result"] is not None
                    assert {s: sorted(h) for s, h in view["deal_result"]["hands"].items()} == \
                        {s.name: sorted(c.code for c in deal.dealt[s]) for s in Seat}
                    continue
                assert view["deal_result"] is None
                assert shown <= may_see(deal, seat), (seat, shown - may_see(deal, seat))
                if seat is None:
                    assert view["hand"] == view["legal"] == view["exposable"] == []
                    assert view["my_declaration"] is None and view["seat"] is None
                    assert view["table"]["invite"] is None  # the invitation is for the seated
                else:
                    assert sorted(view["hand"]) == sorted(c.code for c in deal.hand(seat))
                    assert bool(view["legal"]) == (deal.turn == seat)
                    assert view["table"]["invite"] == "an-invite"
            if deal.is_over:
                break
            deal.play(rng.choice(deal.legal_plays()), deal.turn)


def test_a_views_version_is_built_once_and_anew_after_a_change() -> None:
    options = resolve_options("online", {})
    state = State(options=options, match=Match(options, seed=7))
    state.match.new_deal()
    views = Views(state)
    first = views.seat(Seat.S)
    assert views.seat(Seat.S) is first  # every connection of the seat shares it
    state.version += 1
    views.clear()
    assert views.seat(Seat.S) is not first and views.seat(Seat.S)["v"] == state.version


def test_pending_declarations_are_shown_to_their_seat_alone() -> None:
    options = resolve_options("online", {})
    deal = Match(options, seed=11).new_deal()
    seat = next(s for s in Seat if deal.exposable(s))
    card = deal.exposable(seat)[0]
    pending = {seat: [(card, "hidden")]}
    mine = deal_seat_view(deal, seat, pending, [])
    other = deal_seat_view(deal, Seat((seat + 1) % 4), pending, [])
    watcher = deal_seat_view(deal, None, pending, [])
    assert mine["my_declaration"] == [{"card": card.code, "kind": "hidden"}] and mine["exposable"] == []
    assert other["my_declaration"] is None and watcher["my_declaration"] is None
    assert card.code not in cards_shown(watcher)


def test_a_persons_view_says_who_they_are_and_their_title() -> None:
    view = personal({"v": 3}, "u-1", "阿明", host=True, seat=Seat.E, auto=False, waiting=None, lifetime=0)
    assert view["you"] == {"id": "u-1", "name": "阿明", "host": True, "seat": "E", "auto": False,
                           "next_deal_seat": None}
    assert view["lifetime"]["score"] == 0 and view["lifetime"]["title"]
    waiting = personal({"v": 3}, "u-2", "Bo", host=False, seat=None, auto=False, waiting=Seat.W, lifetime=-400)
    assert waiting["you"]["seat"] is None and waiting["you"]["next_deal_seat"] == "W"
