"""Cards, suits, ranks, seats and card notation (R1, R2).

A card is identified by a small integer ``index = suit * 13 + (rank - 2)``, so a set of distinct
cards is a 52-bit int whose four 13-bit blocks are the suits.  The friendly face of that is
:class:`Card` (an interned frozen dataclass) and :func:`parse_card`, which reads every input form
of R1: ``QS``, ``10C``, ``TC``, suit-first ``SQ``, ``♠Q``, in any letter case.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TypeVar

from gongzhu.rules.errors import CardError, excerpt

_P = TypeVar("_P")

__all__ = [
    "AH",
    "ALL_CARDS",
    "EXPOSABLE",
    "JD",
    "POINT_CARDS_MASK",
    "QS",
    "SUIT_MASKS",
    "TC",
    "Card",
    "Rank",
    "Seat",
    "Suit",
    "card",
    "cards_in",
    "format_cards",
    "hand_masks",
    "hand_size",
    "mask_of",
    "parse_card",
    "parse_cards",
    "too_many_copies",
]


class Suit(IntEnum):
    """The four suits.  They have no order in play; the integer is only an index (R1)."""

    SPADES = 0
    HEARTS = 1
    CLUBS = 2
    DIAMONDS = 3

    @property
    def letter(self) -> str:
        return "SHCD"[self]

    @property
    def symbol(self) -> str:
        return "♠♥♣♦"[self]

    @property
    def zh(self) -> str:
        return ("黑桃", "红桃", "梅花", "方块")[self]

    @property
    def is_red(self) -> bool:
        """Hearts and diamonds are red, spades and clubs black (R5.2 ``discard_color``)."""
        return self in (Suit.HEARTS, Suit.DIAMONDS)


class Rank(IntEnum):
    """Ranks, 2 (lowest) to ace (highest) within a suit (R1)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def char(self) -> str:
        """Canonical one-character rank: ``23456789TJQKA``."""
        return "23456789TJQKA"[self - 2]

    @property
    def label(self) -> str:
        """Rank as people write it: ``10`` rather than ``T``."""
        return "10" if self == Rank.TEN else self.char


class Seat(IntEnum):
    """North, East, South, West (北 东 南 西).  Partners sit opposite: N–S and E–W (R1)."""

    N = 0
    E = 1
    S = 2
    W = 3

    @property
    def zh(self) -> str:
        return "北东南西"[self]

    @property
    def english(self) -> str:
        return ("North", "East", "South", "West")[self]

    @property
    def partner(self) -> Seat:
        return Seat((self + 2) % 4)

    @classmethod
    def parse(cls, text: object) -> Seat:
        """Read ``N``/``E``/``S``/``W`` (any case), a full English name, or 北东南西."""
        if isinstance(text, Seat):
            return text
        if isinstance(text, str):
            t = text.strip()
            for seat in cls:
                if t.upper() in (seat.name, seat.english.upper()) or t == seat.zh:
                    return seat
        raise CardError(f"unknown seat {excerpt(text)}: expected one of N, E, S, W")


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One playing card.  Use :func:`card` / :func:`parse_card` to get the shared instances;
    equality and hashing go by the card's index, so they are cheap in search."""

    suit: Suit
    rank: Rank
    index: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", self.suit * 13 + self.rank - 2)

    def __eq__(self, other: object) -> bool:
        return type(other) is Card and other.index == self.index

    def __hash__(self) -> int:
        return self.index

    @property
    def code(self) -> str:
        """Canonical ASCII notation, rank then suit: ``QS``, ``TC``."""
        return self.rank.char + self.suit.letter

    @property
    def pretty(self) -> str:
        """Display notation with a suit symbol: ``♠Q``, ``♣10``."""
        return self.suit.symbol + self.rank.label

    @property
    def zh(self) -> str:
        """Chinese name, e.g. ``黑桃Q``."""
        return self.suit.zh + self.rank.label

    @property
    def bit(self) -> int:
        return 1 << self.index

    def __str__(self) -> str:
        return self.code

    @staticmethod
    def from_index(index: int) -> Card:
        return ALL_CARDS[index]


ALL_CARDS: tuple[Card, ...] = tuple(Card(Suit(i // 13), Rank(i % 13 + 2)) for i in range(52))
_BY_CODE: dict[str, Card] = {c.code: c for c in ALL_CARDS}

#: The special cards (R2): pig ♠Q, sheep ♦J, transformer ♣10, and the ace of hearts.
QS = _BY_CODE["QS"]
JD = _BY_CODE["JD"]
TC = _BY_CODE["TC"]
AH = _BY_CODE["AH"]
#: Cards that may be exposed (R4.1), in the order the rule book lists them.
EXPOSABLE: tuple[Card, ...] = (QS, JD, TC, AH)

SUIT_MASKS: tuple[int, int, int, int] = tuple(0x1FFF << (13 * s) for s in range(4))  # type: ignore[assignment]
#: Point cards (分牌): ♠Q, ♦J, ♣10 and every heart (R2).
POINT_CARDS_MASK = SUIT_MASKS[Suit.HEARTS] | QS.bit | JD.bit | TC.bit

_SUIT_CHARS = {"S": Suit.SPADES, "H": Suit.HEARTS, "C": Suit.CLUBS, "D": Suit.DIAMONDS,
               "♠": Suit.SPADES, "♥": Suit.HEARTS, "♣": Suit.CLUBS, "♦": Suit.DIAMONDS,
               "♤": Suit.SPADES, "♡": Suit.HEARTS, "♧": Suit.CLUBS, "♢": Suit.DIAMONDS}
_RANK_TEXT = {r.char: r for r in Rank} | {"10": Rank.TEN}
_CARD_RE = re.compile(r"^(?:(10|[2-9TJQKA])([SHCD♠♥♣♦♤♡♧♢])|([SHCD♠♥♣♦♤♡♧♢])(10|[2-9TJQKA]))$")


def parse_card(text: str | Card) -> Card:
    """Read one card in any R1 notation (``QS``, ``10C``, ``SQ``, ``♠Q``, lower case).

    >>> parse_card("10c").code, parse_card("♠Q").code, parse_card("sq").pretty
    ('TC', 'QS', '♠Q')
    """
    if isinstance(text, Card):
        return text
    if not isinstance(text, str):
        raise CardError(f"a card must be a string such as 'QS', not {excerpt(text)}")
    t = text.strip().upper()
    m = _CARD_RE.match(t)
    if m is None:
        raise CardError("refusal.unreadable_card", text=excerpt(text))
    rank_text, suit_text = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
    return ALL_CARDS[_SUIT_CHARS[suit_text] * 13 + _RANK_TEXT[rank_text] - 2]


card = parse_card


def parse_cards(text: str | Iterable[str | Card]) -> list[Card]:
    """Read several cards: a string separated by spaces or commas, or an iterable of cards."""
    if isinstance(text, str):
        return [parse_card(t) for t in re.split(r"[\s,]+", text.strip()) if t]
    return [parse_card(t) for t in text]


def mask_of(cards: Iterable[Card]) -> int:
    """The bit set of distinct cards."""
    m = 0
    for c in cards:
        m |= 1 << c.index
    return m


def hand_masks(cards: Iterable[Card]) -> tuple[int, int]:
    """A hand (copies repeated, two decks) as two bit sets: the cards held at least once and
    the cards held twice."""
    once = twice = 0
    for c in cards:
        bit = 1 << c.index
        if once & bit:
            twice |= bit
        once |= bit
    return once, twice


def hand_size(decks: int) -> int:
    """How many cards each of the four seats is dealt (R1): 13 with one deck, 26 with two."""
    return 13 * decks


def too_many_copies(placed: Iterable[tuple[Card, _P]], decks: int) -> tuple[Card, list[_P]] | None:
    """The first card met more often than it exists with ``decks`` deck(s) (R1: every card once
    per deck), with the place of each copy met; None when no card is.  ``placed`` gives each card
    met with its place (a field path, a seat), in order.  Every reader of hands and plays (the
    deal itself, records, the bot protocol, ``gongzhu score``) asks it, and words the answer."""
    where: dict[Card, list[_P]] = {}
    for c, place in placed:
        where.setdefault(c, []).append(place)
    for c, places in where.items():
        if len(places) > decks:
            return c, places
    return None


def cards_in(mask: int) -> Iterator[Card]:
    """The cards of a bit set, lowest index first."""
    while mask:
        low = mask & -mask
        yield ALL_CARDS[low.bit_length() - 1]
        mask ^= low


def format_cards(cards: Iterable[Card], pretty: bool = False) -> str:
    return " ".join(c.pretty if pretty else c.code for c in cards)
