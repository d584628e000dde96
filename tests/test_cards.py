"""R1, R2: cards, notation, seats, the deck."""

from __future__ import annotations

from collections import Counter

import pytest

from gongzhu.rules import (
    AH,
    ALL_CARDS,
    EXPOSABLE,
    JD,
    QS,
    TC,
    Card,
    CardError,
    GongzhuError,
    Rank,
    Seat,
    Suit,
    deal_hands,
    parse_card,
    parse_cards,
)
from gongzhu.rules.cards import POINT_CARDS_MASK, cards_in, format_cards, hand_size, mask_of, too_many_copies


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("QS", "QS"),  # R1 canonical
        ("qs", "QS"),
        ("Qs", "QS"),
        ("10C", "TC"),  # R1 "10C"
        ("10c", "TC"),
        ("TC", "TC"),
        ("tc", "TC"),
        ("SQ", "QS"),  # R1 suit-first
        ("sq", "QS"),
        ("S10", "TS"),
        ("s10", "TS"),
        ("ST", "TS"),
        ("♠Q", "QS"),  # R1 symbol
        ("♤q", "QS"),
        ("♤Q", "QS"),
        ("Q♠", "QS"),
        ("♥A", "AH"),
        ("♡a", "AH"),
        ("♣10", "TC"),
        ("♧10", "TC"),
        ("10♣", "TC"),
        ("♦J", "JD"),
        ("♢j", "JD"),
        ("  JD  ", "JD"),  # surrounding whitespace
        ("\tAH\n", "AH"),
        ("2C", "2C"),
        ("C2", "2C"),
        ("9d", "9D"),
        ("KH", "KH"),
        ("hk", "KH"),
    ],
)
def test_parse_every_input_form(text: str, code: str) -> None:
    """R1: rank-first, suit-first, symbols, ``10``/``T``, any case, surrounding whitespace."""
    c = parse_card(text)
    assert c.code == code
    assert c is parse_card(code)  # interned


def test_parse_card_passes_cards_through() -> None:
    """R1: a Card is accepted where text is."""
    assert parse_card(QS) is QS


@pytest.mark.parametrize(
    ("code", "pretty", "zh"),
    [
        ("QS", "♠Q", "黑桃Q"),
        ("JD", "♦J", "方块J"),
        ("TC", "♣10", "梅花10"),
        ("AH", "♥A", "红桃A"),
        ("2C", "♣2", "梅花2"),
        ("9H", "♥9", "红桃9"),
    ],
)
def test_code_pretty_and_chinese(code: str, pretty: str, zh: str) -> None:
    """R1: canonical ASCII ``code`` and display ``pretty`` (symbol, ``10``)."""
    c = parse_card(code)
    assert c.code == code
    assert str(c) == code
    assert c.pretty == pretty
    assert c.zh == zh
    assert parse_card(pretty) is c  # what is displayed can be read back


def test_every_card_round_trips_through_code_and_pretty() -> None:
    """R1: all 52 codes are distinct and read back to the same card."""
    assert len({c.code for c in ALL_CARDS}) == 52
    for c in ALL_CARDS:
        assert parse_card(c.code) is c
        assert parse_card(c.pretty) is c
        assert parse_card(c.code.lower()) is c
        assert Card.from_index(c.index) is c
        assert len(c.code) == 2
        assert c.code[0] in "23456789TJQKA" and c.code[1] in "SHCD"


@pytest.mark.parametrize(
    "text",
    ["", "   ", "Q", "S", "1C", "11C", "QX", "ZS", "QSS", "Q S", "10", "QS,", "♠", "♠11", "1♠", "JK"],
)
def test_bad_card_text_is_refused_clearly(text: str) -> None:
    """R1: text that is not a card raises CardError (a ValueError) naming the input."""
    with pytest.raises(CardError, match="cannot read") as info:
        parse_card(text)
    assert repr(text) in str(info.value)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, GongzhuError)
    assert "QS" in str(info.value)  # says what to write instead


@pytest.mark.parametrize("value", [12, None, 1.5, b"QS"])
def test_non_string_card_is_refused(value: object) -> None:
    """R1: only text can be read as a card."""
    with pytest.raises(CardError, match="must be a string"):
        parse_card(value)  # type: ignore[arg-type]


def test_parse_cards_separators() -> None:
    """R1: several cards separated by spaces or commas."""
    assert [c.code for c in parse_cards("QS, 10c  ♦J,AH")] == ["QS", "TC", "JD", "AH"]
    assert [c.code for c in parse_cards(["sq", QS])] == ["QS", "QS"]
    assert parse_cards("") == []
    with pytest.raises(CardError):
        parse_cards("QS XX")


def test_rank_order_and_suits() -> None:
    """R1: A K Q J 10 … 2 high to low; four suits, two red."""
    ranks = [parse_card(t + "S").rank for t in "AKQJT98765432"]
    assert ranks == sorted(ranks, reverse=True)
    assert Rank.ACE > Rank.KING > Rank.QUEEN > Rank.JACK > Rank.TEN > Rank.TWO
    assert [s.letter for s in Suit] == ["S", "H", "C", "D"]
    assert [s.symbol for s in Suit] == ["♠", "♥", "♣", "♦"]
    assert [s.is_red for s in Suit] == [False, True, False, True]


def test_special_cards() -> None:
    """R2: pig, sheep, transformer, ace of hearts; 16 point cards in one deck."""
    assert (QS.code, JD.code, TC.code, AH.code) == ("QS", "JD", "TC", "AH")
    assert EXPOSABLE == (QS, JD, TC, AH)
    points = list(cards_in(POINT_CARDS_MASK))
    assert len(points) == 16
    assert {c.code for c in points if c.suit != Suit.HEARTS} == {"QS", "JD", "TC"}


def test_card_counts() -> None:
    """R1: 13 cards a seat with one deck, 26 with two; every card exists once per deck, and the
    first card met more often is named with each place it was met."""
    assert (hand_size(1), hand_size(2)) == (13, 26)
    placed = [(c, i) for i, c in enumerate(parse_cards("QS 2H QS JD 2H 2H QS"))]
    assert too_many_copies(placed, 1) == (QS, [0, 2, 6])
    assert too_many_copies(placed, 2) == (QS, [0, 2, 6])
    assert too_many_copies(placed[:5], 2) is None
    assert too_many_copies([(c, None) for c in ALL_CARDS], 1) is None
    assert too_many_copies([], 1) is None


def test_mask_helpers() -> None:
    """R1/R2: card sets in index order (suits S H C D)."""
    cs = parse_cards("AH 2S TC")
    m = mask_of(cs)
    assert m.bit_count() == 3
    assert [c.code for c in cards_in(m)] == ["2S", "AH", "TC"]  # index order: suit S H C D
    assert format_cards(cs) == "AH 2S TC"
    assert format_cards(cs, pretty=True) == "♥A ♠2 ♣10"


@pytest.mark.parametrize(
    ("text", "seat"),
    [
        ("N", Seat.N), ("n", Seat.N), (" north ", Seat.N), ("North", Seat.N), ("北", Seat.N),
        ("E", Seat.E), ("east", Seat.E), ("东", Seat.E),
        ("S", Seat.S), ("SOUTH", Seat.S), ("南", Seat.S),
        ("W", Seat.W), ("West", Seat.W), ("西", Seat.W),
        (Seat.W, Seat.W),
    ],
)
def test_seat_parse(text: str | Seat, seat: Seat) -> None:
    """R1: seats N E S W (北 东 南 西)."""
    assert Seat.parse(text) is seat


@pytest.mark.parametrize("text", ["X", "", "NE", "Nord", "中", 0, None])
def test_bad_seat_is_refused(text: object) -> None:
    """R1: seats are N E S W only."""
    with pytest.raises(CardError, match="unknown seat") as info:
        Seat.parse(text)
    assert "N, E, S, W" in str(info.value)


def test_partners_sit_opposite() -> None:
    """R1: N–S and E–W are partners."""
    assert [s.partner for s in Seat] == [Seat.S, Seat.W, Seat.N, Seat.E]
    assert [s.zh for s in Seat] == ["北", "东", "南", "西"]


def test_one_deck_52_two_decks_104() -> None:
    """R1: one deck 52 cards, 13 each; two decks 104, 26 each, every card twice."""
    assert len(ALL_CARDS) == 52
    assert len(set(ALL_CARDS)) == 52
    assert Counter(c.suit for c in ALL_CARDS) == {s: 13 for s in Suit}
    one = deal_hands(7, decks=1)
    assert [len(h) for h in one] == [13] * 4
    assert Counter(c for h in one for c in h) == {c: 1 for c in ALL_CARDS}
    two = deal_hands(7, decks=2)
    assert [len(h) for h in two] == [26] * 4
    assert sum(len(h) for h in two) == 104
    assert Counter(c for h in two for c in h) == {c: 2 for c in ALL_CARDS}
