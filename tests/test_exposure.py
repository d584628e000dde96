"""R4 exposure (亮牌): who may expose what, how, when; the automatic fourth; refusals."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from gongzhu.rules import (
    AH,
    EXPOSABLE,
    JD,
    PRESETS,
    QS,
    TC,
    Deal,
    Exposure,
    IllegalPlayError,
    Options,
    Phase,
    Seat,
    parse_card,
)
from gongzhu.rules.exposure import visible_exposures
from gongzhu.rules.options import Decks
from helpers.deals import make_deal, phase, snapshot

N, E, S, W = Seat.N, Seat.E, Seat.S, Seat.W

# One special card each; North's first dealt card is ♠Q, West's is ♥A, East's first is ♣3.
SPREAD = {"N": "QS 2S 3S", "E": "3C JD", "S": "TC 4S", "W": "AH 5S"}


def deal_with(hands: dict[str, str] | None = None, decks: Decks = 1, **overrides: Any) -> Deal:
    opts = Options(decks=decks, **overrides)
    return make_deal(opts, hands if hands is not None else SPREAD, declare=False)


def test_standard_starts_in_exposure_phase() -> None:
    """R4: after the deal and before the first lead players may expose."""
    deal = deal_with()
    assert phase(deal) == Phase.EXPOSE
    assert deal.turn is None
    assert deal.undeclared == [N, E, S, W]
    assert deal.exposable(N) == [QS]
    assert deal.exposable(E) == [JD]
    assert deal.exposable(S) == [TC]
    assert deal.exposable(W) == [AH]
    assert list(deal.legal_plays()) == []


def test_standard_shown_exposures_and_start() -> None:
    """R4.1/R4.4 standard: each seat declares once, in any order; then play starts."""
    deal = deal_with()
    deal.declare(S, ["TC"])
    deal.declare(N, ["♠Q"])
    assert phase(deal) == Phase.EXPOSE
    assert deal.undeclared == [E, W]
    assert deal.exposable(N) == []  # already declared
    deal.declare(E)
    deal.declare(W)
    assert phase(deal) == Phase.PLAY
    assert deal.exposures == [Exposure(S, TC, "shown"), Exposure(N, QS, "shown")]
    assert deal.restricted_copies(N, QS) == 1
    assert deal.restricted_copies(S, TC) == 1


@pytest.mark.parametrize(
    ("exposure", "card", "kinds"),
    [
        ("standard", "QS", ("shown",)),
        ("first_card", "QS", ("shown", "first")),  # ♠Q is North's first dealt card
        ("hidden", "QS", ("hidden",)),
        ("sell_x4_x2", "QS", ("shown", "hidden")),
        ("standard", "2S", ()),  # R4.1 only the four
    ],
)
def test_exposure_kinds(exposure: str, card: str, kinds: tuple[str, ...]) -> None:
    """R4.4/R10: the kinds each exposure option allows."""
    deal = deal_with(exposure=exposure)
    assert deal.exposure_kinds(N, parse_card(card)) == kinds


@pytest.mark.parametrize(
    ("exposure", "item", "kind"),
    [
        ("standard", "QS", "shown"),
        ("standard", ("QS", "shown"), "shown"),
        ("first_card", ("QS", "first"), "first"),
        ("first_card", "QS", "shown"),  # ordinary exposure is still allowed (R4.4)
        ("hidden", "QS", "hidden"),
        ("hidden", ("QS", "hidden"), "hidden"),
        ("sell_x4_x2", "QS", "shown"),
        ("sell_x4_x2", ("QS", "hidden"), "hidden"),
        ("sell_x4_x2", ("QS", "shown"), "shown"),
    ],
)
def test_allowed_kinds(exposure: str, item: str | tuple[str, str], kind: str) -> None:
    """R4.4: what each option lets a player declare, and the kind recorded (R10)."""
    deal = deal_with(exposure=exposure)
    deal.declare(N, [item])
    assert deal.exposures == [Exposure(N, QS, kind)]
    assert deal.restricted_copies(N, QS) == (1 if kind == "shown" else 0)


@pytest.mark.parametrize(
    ("exposure", "seat", "item", "words"),
    [
        ("standard", N, ("QS", "hidden"), ["'hidden'", "exposure=standard", "shown"]),
        ("hidden", N, ("QS", "shown"), ["'shown'", "exposure=hidden", "hidden"]),
        ("first_card", N, ("QS", "hidden"), ["'hidden'", "exposure=first_card"]),
        ("sell_x4_x2", N, ("QS", "first"), ["首明"]),
        ("first_card", E, ("JD", "first"), ["first dealt card", "首明"]),  # E's first is ♣3
        ("standard", N, "2S", ["♠2", "cannot be exposed", "♠Q ♦J ♣10 ♥A"]),
        ("standard", N, "JD", ["does not hold", "♦J"]),
        ("standard", N, ("QS", "bogus"), ["'bogus'"]),
    ],
)
def test_refused_kinds(
    exposure: str, seat: Seat, item: str | tuple[str, str], words: list[str]
) -> None:
    """R4.1/R4.4: refused declarations raise IllegalPlayError saying why; nothing changes."""
    deal = deal_with(exposure=exposure)
    before = snapshot(deal)
    with pytest.raises(IllegalPlayError) as info:
        deal.declare(seat, [item])
    for word in words:
        assert word in str(info.value)
    assert snapshot(deal) == before
    assert not deal.can_declare(seat, [item])


def test_first_kind_under_standard_message_is_true() -> None:
    """R4.4: 首明 belongs to exposure=first_card; under standard the refusal says so (and does
    not claim the card was not the first dealt)."""
    deal = deal_with()
    assert deal.dealt[N][0] == QS
    with pytest.raises(IllegalPlayError) as info:
        deal.declare(N, [("QS", "first")])
    assert "first dealt card" not in str(info.value)
    assert "exposure=standard" in str(info.value)


def test_first_card_only_for_the_first_dealt_card() -> None:
    """R4.4 首明: only the first dealt card, if it is one of the four, and only as that card."""
    hands = {"N": "2S QS AH", "E": "JD", "S": "TC", "W": "3S"}
    deal = deal_with(hands, exposure="first_card", auto_expose_fourth=False)
    assert deal.exposure_kinds(N, QS) == ("shown",)  # ♠Q is North's second card
    assert deal.exposure_kinds(N, AH) == ("shown",)
    assert deal.exposure_kinds(E, JD) == ("shown", "first")
    assert deal.exposure_kinds(S, TC) == ("shown", "first")
    before = snapshot(deal)
    with pytest.raises(IllegalPlayError, match="first dealt card"):
        deal.declare(N, [("QS", "first")])
    assert snapshot(deal) == before
    deal.declare(N, ["QS", ("AH", "shown")])
    deal.declare(E, [("JD", "first")])
    deal.declare(S)
    deal.declare(W)
    assert deal.exposures == [
        Exposure(N, QS, "shown"), Exposure(N, AH, "shown"), Exposure(E, JD, "first"),
    ]
    assert deal.restricted_copies(E, JD) == 0  # 首明 is exempt from R4.3
    assert deal.restricted_copies(N, QS) == 1


@pytest.mark.parametrize("decks", [1, 2])
def test_all_exposes_everything_at_construction(decks: Decks) -> None:
    """R4.4 all (分牌全明): all four (every copy) are exposed automatically; play starts."""
    hands = (
        {"N": "QS JD", "E": "TC", "S": "AH", "W": "2S"}
        if decks == 1
        else {"N": "QS JD QS", "E": "TC", "S": "AH TC", "W": "AH JD"}
    )
    deal = deal_with(hands, decks=decks, exposure="all", auto_expose_fourth=False)
    assert phase(deal) == Phase.PLAY
    assert deal.undeclared == []
    expected = [Exposure(N, QS, "shown"), Exposure(N, JD, "shown"), Exposure(E, TC, "shown"),
                Exposure(S, AH, "shown")]
    if decks == 2:
        expected = [
            Exposure(N, QS, "shown"), Exposure(N, JD, "shown"), Exposure(N, QS, "shown"),
            Exposure(E, TC, "shown"), Exposure(S, AH, "shown"), Exposure(S, TC, "shown"),
            Exposure(W, AH, "shown"), Exposure(W, JD, "shown"),
        ]
    assert deal.exposures == expected
    assert deal.restricted_copies(N, QS) == decks
    for seat in Seat:
        assert deal.exposable(seat) == []
    with pytest.raises(IllegalPlayError, match="exposure phase"):
        deal.declare(N, ["QS"])


@pytest.mark.parametrize("auto", [True, False])
def test_all_but_sheep(auto: bool) -> None:
    """R4.4 all_but_sheep (除羊全明): ♠Q ♣10 ♥A exposed, never ♦J — not even by 逼明."""
    deal = deal_with(exposure="all_but_sheep", auto_expose_fourth=auto)
    assert phase(deal) == Phase.PLAY
    assert deal.exposures == [
        Exposure(N, QS, "shown"), Exposure(S, TC, "shown"), Exposure(W, AH, "shown"),
    ]
    assert deal.restricted_copies(E, JD) == 0


def test_none_allows_nothing() -> None:
    """R4.4 none: no exposure; play starts at once."""
    deal = deal_with(exposure="none", auto_expose_fourth=False)
    assert phase(deal) == Phase.PLAY
    assert deal.exposures == []
    assert deal.exposable(N) == []
    assert deal.exposure_kinds(N, QS) == ()
    before = snapshot(deal)
    with pytest.raises(IllegalPlayError, match="exposure phase"):
        deal.declare(N, ["QS"])
    assert snapshot(deal) == before


def test_pig_sheep_preset_has_no_exposure() -> None:
    """R7.4/R9: the pig_sheep preset exposes nothing."""
    deal = Deal.new(PRESETS["pig_sheep"], 3)
    assert phase(deal) == Phase.PLAY
    assert deal.exposures == []


@pytest.mark.parametrize("exposure", ["standard", "hidden", "sell_x4_x2", "first_card"])
def test_auto_fourth(exposure: str) -> None:
    """R4.4 逼明: three of the four exposed → the fourth is exposed automatically for its holder,
    kind ``auto`` (R10), restricted like ``shown``."""
    deal = deal_with(exposure=exposure, auto_expose_fourth=True)
    deal.declare(W)  # the holder of ♥A declares nothing, first
    deal.declare(N, ["QS"])
    deal.declare(E, ["JD"])
    assert phase(deal) == Phase.EXPOSE
    deal.declare(S, ["TC"])
    assert phase(deal) == Phase.PLAY
    assert deal.exposures[-1] == Exposure(W, AH, "auto")
    assert len(deal.exposures) == 4
    assert deal.restricted_copies(W, AH) == 1


def test_auto_fourth_for_a_player_holding_all_four() -> None:
    """R4.4 逼明: the holder of the fourth may be the one who exposed the three."""
    deal = deal_with({"N": "QS JD TC AH"})
    deal.declare(N, ["QS", "JD", "TC"])
    for seat in (E, S, W):
        deal.declare(seat)
    assert deal.exposures == [
        Exposure(N, QS, "shown"), Exposure(N, JD, "shown"), Exposure(N, TC, "shown"),
        Exposure(N, AH, "auto"),
    ]


def test_no_auto_fourth_with_two_exposed() -> None:
    """R4.4: two exposed cards do not trigger 逼明."""
    deal = deal_with()
    deal.declare(N, ["QS"])
    deal.declare(E, ["JD"])
    deal.declare(S)
    deal.declare(W)
    assert [e.card for e in deal.exposures] == [QS, JD]


def test_no_auto_fourth_when_option_off() -> None:
    """R4.4/R10: auto_expose_fourth=false."""
    deal = deal_with(auto_expose_fourth=False)
    for seat, items in ((N, ["QS"]), (E, ["JD"]), (S, ["TC"]), (W, [])):
        deal.declare(seat, items)
    assert [e.card for e in deal.exposures] == [QS, JD, TC]
    assert phase(deal) == Phase.PLAY


def test_no_auto_fourth_with_two_decks() -> None:
    """R4.5: the automatic fourth-card rule applies to one deck only."""
    hands = {"N": "QS QS", "E": "JD JD", "S": "TC TC", "W": "AH AH"}
    deal = deal_with(hands, decks=2, auto_expose_fourth=True)
    for seat, items in ((N, ["QS", "QS"]), (E, ["JD"]), (S, ["TC"]), (W, [])):
        deal.declare(seat, items)
    assert [e.card for e in deal.exposures] == [QS, QS, JD, TC]
    assert deal.restricted_copies(W, AH) == 0


def test_two_deck_copies_each_exposable() -> None:
    """R4.5: each copy is exposed on its own."""
    hands = {"N": "QS QS AH", "E": "JD", "S": "TC TC JD", "W": "AH"}
    deal = deal_with(hands, decks=2, auto_expose_fourth=False)
    assert deal.exposable(N) == [QS, QS, AH]
    assert deal.copies_held(N, QS) == 2
    deal.declare(N, ["QS"])
    assert deal.restricted_copies(N, QS) == 1
    before = snapshot(deal)
    with pytest.raises(IllegalPlayError, match="does not hold another ♣10"):
        deal.declare(S, ["TC", "TC", "TC"])
    with pytest.raises(IllegalPlayError, match="does not hold another ♦J"):
        deal.declare(S, ["JD", "JD"])
    assert snapshot(deal) == before
    deal.declare(S, ["TC", "TC", "JD"])
    assert deal.restricted_copies(S, TC) == 2
    assert deal.restricted_copies(S, JD) == 1
    deal.declare(E)
    deal.declare(W, ["AH"])
    assert deal.exposures == [
        Exposure(N, QS, "shown"), Exposure(S, TC, "shown"), Exposure(S, TC, "shown"),
        Exposure(S, JD, "shown"), Exposure(W, AH, "shown"),
    ]


def test_partial_declaration_is_all_or_nothing() -> None:
    """R4: a declaration with one bad item is refused whole; the good items are not applied."""
    deal = deal_with({"N": "QS AH"})
    before = snapshot(deal)
    with pytest.raises(IllegalPlayError, match="♦J"):
        deal.declare(N, ["QS", "AH", "JD"])
    assert snapshot(deal) == before
    assert deal.exposures == []
    assert deal.undeclared == [N, E, S, W]


def test_declaring_twice_is_refused() -> None:
    """R4: each seat declares once."""
    deal = deal_with()
    deal.declare(N, ["QS"])
    before = snapshot(deal)
    with pytest.raises(IllegalPlayError, match="North has already declared"):
        deal.declare(N, [])
    assert snapshot(deal) == before


def test_declaring_after_the_phase_is_refused() -> None:
    """R4: exposure happens before the first lead only."""
    deal = deal_with()
    for seat in Seat:
        deal.declare(seat)
    before = snapshot(deal)
    with pytest.raises(IllegalPlayError, match=r"exposure phase .* over"):
        deal.declare(N, ["QS"])
    assert snapshot(deal) == before


def test_playing_during_exposure_phase_is_refused() -> None:
    """R4/R5.1: no card is played before every seat has declared."""
    deal = deal_with({"S": "2C TC"})
    deal.declare(N)
    before = snapshot(deal)
    with pytest.raises(IllegalPlayError, match=r"exposure phase .* not over: waiting for East, South"):
        deal.play("2C")
    assert snapshot(deal) == before
    assert not deal.can_play("2C")


def test_auto_fourth_is_the_missing_exposable_card_after_three() -> None:
    """R4.4 逼明: Options.auto_fourth names the fourth exposable card once exactly the three others
    are exposed, where the rule applies (one deck, players declare, auto_expose_fourth); the deal
    and the scorekeeper both ask it."""
    online = PRESETS["online"]
    for n in range(5):
        for shown in itertools.combinations(EXPOSABLE, n):
            expected = next(c for c in EXPOSABLE if c not in shown) if n == 3 else None
            assert online.auto_fourth(shown) == expected
            assert online.auto_fourth([*shown, *shown]) == expected  # a card named twice is one card
            assert PRESETS["online2"].auto_fourth(shown) is None
            assert online.replace(auto_expose_fourth=False).auto_fourth(shown) is None
            assert online.replace(exposure="all").auto_fourth(shown) is None


def test_who_sees_a_hidden_exposure() -> None:
    """R4.4 暗卖, R4.5: a hidden exposure is seen by its own seat; every other seat, and someone
    at no seat, counts it until its seat plays the card (one copy revealed per play with two
    decks); a play of the same card by another seat reveals nothing; other kinds are public."""
    shown, hidden = Exposure(N, AH, "shown"), Exposure(E, QS, "hidden")
    exposures = [shown, hidden]
    for seat in (N, S, W, None):
        assert visible_exposures(exposures, seat, []) == ((shown,), (0, 1, 0, 0))
        assert visible_exposures(exposures, seat, [(W, QS)]) == ((shown,), (0, 1, 0, 0))
        assert visible_exposures(exposures, seat, [(S, TC), (E, QS)]) == ((shown, hidden), (0, 0, 0, 0))
    assert visible_exposures(exposures, E, []) == ((shown, hidden), (0, 0, 0, 0))
    # Two decks: both copies hidden by East; each copy East plays shows one of them.
    both = [hidden, hidden]
    assert visible_exposures(both, N, []) == ((), (0, 2, 0, 0))
    assert visible_exposures(both, N, [(E, QS)]) == ((hidden,), (0, 1, 0, 0))
    assert visible_exposures(both, N, [(E, QS), (W, QS), (E, QS)]) == ((hidden, hidden), (0, 0, 0, 0))
