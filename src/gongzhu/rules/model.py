"""Small immutable value types shared by the rules modules: an exposure, a play, a trick, the
action records a deal returns (:class:`Declaration`, :class:`CardPlay`), the legal plays of a
position (:class:`LegalPlays`) and a deal's read-only snapshot (:class:`Position`).

Imports :mod:`gongzhu.rules.cards` and :mod:`gongzhu.rules.errors` only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from gongzhu.rules.cards import ALL_CARDS, Card, Seat, parse_card
from gongzhu.rules.errors import CardError

_SEATS = tuple(Seat)

__all__ = [
    "Action", "CardPlay", "Declaration", "Exposure", "LegalPlays", "Play", "Position", "RawTrick", "Trick", "trick_of",
]

#: A play: one card, or two identical-or-not cards in a two-deck pair trick (R5.3).
Play = tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Exposure:
    """One exposed card (R4): who exposed it, which card, and how (``shown``, ``first``,
    ``hidden`` or ``auto``, R10)."""

    seat: Seat
    card: Card
    kind: str


@dataclass(frozen=True, slots=True)
class Trick:
    """A finished trick (圈).  ``taker`` is who took its point cards: the winner, except under
    ``discard_color=penalty`` where the first offender takes them (R5.2)."""

    leader: Seat
    plays: tuple[tuple[Seat, Play], ...]
    winner: Seat
    taker: Seat

    @property
    def cards(self) -> list[Card]:
        return [c for _, play in self.plays for c in play]


#: A finished trick as numbers: leader, ``(seat, card indices)`` plays in order, winner, taker.
RawTrick: TypeAlias = tuple[int, Sequence[tuple[int, Sequence[int]]], int, int]


def trick_of(raw: RawTrick) -> Trick:
    """The :class:`Trick` of a finished trick given as numbers (seats 0–3, card indices)."""
    leader, plays, winner, taker = raw
    seats = _SEATS
    return Trick(seats[leader], tuple((seats[s], tuple(ALL_CARDS[c] for c in p)) for s, p in plays),
                 seats[winner], seats[taker])


def _unpack_trick(code: int) -> Trick:
    """A trick packed by a one-deck C board (``Board.play_packed``)."""
    leader, step = code & 3, code >> 6 & 3
    return trick_of((leader, [((leader + i * step) & 3, (code >> 8 + 6 * i & 63,)) for i in range(4)],
                     code >> 2 & 3, code >> 4 & 3))


@dataclass(frozen=True, slots=True)
class Declaration:
    """One seat's exposure declaration (亮牌, R4.4), as :meth:`Deal.declare
    <gongzhu.rules.deal.Deal.declare>` applied it: the cards ``seat`` exposed (possibly none),
    and ``automatic``, the automatic fourth exposure (逼明) the fourth declaration set off, if
    any (it may belong to another seat)."""

    seat: Seat
    exposures: tuple[Exposure, ...]
    automatic: tuple[Exposure, ...] = ()


class CardPlay:
    """One play (R5), immutable: ``seat`` played ``cards`` (one card, or two in a two-deck pair
    trick).  ``trick`` is the trick this play completed — with its winner and taker — or None
    while the trick goes on.  Records are equal when their seat, cards and trick are."""

    __slots__ = ("_cards", "_seat", "_trick")

    def __init__(self, seat: Seat, cards: Play, trick: Trick | None = None) -> None:
        self._seat = seat
        self._cards = cards
        self._trick: Trick | RawTrick | int | None = trick

    @classmethod
    def _packed(cls, seat: Seat, cards: Play, trick: RawTrick | int) -> CardPlay:
        """A record whose trick is still in numbers: a :data:`RawTrick`, or an int as a one-deck
        C board packs it (``Board.play_packed``: leader | winner << 2 | taker << 4 | step << 6 |
        card i << (8 + 6 i), higher bits ignored).  It becomes a :class:`Trick` on first read, so that a playout that
        never reads it does not pay for it."""
        record = cls.__new__(cls)
        record._seat = seat
        record._cards = cards
        record._trick = trick
        return record

    @property
    def seat(self) -> Seat:
        return self._seat

    @property
    def cards(self) -> Play:
        return self._cards

    @property
    def trick(self) -> Trick | None:
        trick = self._trick
        if trick is None or isinstance(trick, Trick):
            return trick
        built = _unpack_trick(trick) if isinstance(trick, int) else trick_of(trick)
        self._trick = built
        return built

    def __eq__(self, other: object) -> bool:
        if type(other) is not CardPlay:
            return NotImplemented
        return self.seat == other.seat and self.cards == other.cards and self.trick == other.trick

    def __hash__(self) -> int:
        return hash((self.seat, self.cards, self.trick))

    def __repr__(self) -> str:
        return f"CardPlay(seat={self.seat!r}, cards={self.cards!r}, trick={self.trick!r})"

    def __reduce__(self) -> tuple[type[CardPlay], tuple[Seat, Play, Trick | None]]:
        return (CardPlay, (self.seat, self.cards, self.trick))


#: What a deal records, in order: declarations, then plays.
Action: TypeAlias = Declaration | CardPlay


def _as_play(item: object) -> Play | None:
    """``item`` as a play in the order of legal plays (cards by index), or None if it is none."""
    try:
        if isinstance(item, Card):
            return (item,)
        if isinstance(item, str):
            return tuple(sorted((parse_card(t) for t in item.replace(",", " ").split()), key=_index))
        if isinstance(item, Iterable):
            cards = []
            for c in item:
                if not isinstance(c, Card | str):
                    return None
                cards.append(parse_card(c))
            return tuple(sorted(cards, key=_index))
    except CardError:
        return None
    return None


def _index(c: Card) -> int:
    return c.index


class LegalPlays(tuple[Play, ...]):
    """The legal plays of a position: a tuple of plays (tuples of cards, ordered by card) that
    also answers ``in`` for a play written another way — a :class:`Card`, a card's text
    (``"QS"``), a two-deck pair as ``("QS", "QS")`` or ``"QS QS"``: ``"QS" in deal.legal_plays()``.
    Text that is no card is simply not in it."""

    __slots__ = ()

    def __contains__(self, item: object) -> bool:
        if tuple.__contains__(self, item):
            return True
        play = _as_play(item)
        return play is not None and tuple.__contains__(self, play)


@dataclass(frozen=True, slots=True)
class Position:
    """A read-only snapshot of a deal's play state, for search and other code that needs the
    whole position at once (:meth:`Deal.position <gongzhu.rules.deal.Deal.position>`).

    Seats are numbers (N E S W = 0 1 2 3), card sets 52-bit masks (bit ``Card.index``).  Two
    decks hold a card twice: ``hands`` are the cards each seat holds at least once,
    ``hands_twice`` those it holds twice (always 0 with one deck); the same for the exposed
    copies still bound by the play restriction of R4.3/R4.5 (``restricted``,
    ``restricted_twice``).  ``captured`` lists the point cards each seat took, in the order taken.
    ``trick`` is the trick in progress as ``(seat, card indices)`` in playing order, ``led`` its
    suit (-1 when no trick is in progress), ``offender`` the first to break the discard-colour
    rule in it under ``penalty`` (R5.2, -1 if none), ``suits_led`` a bit per suit led in a
    finished trick, ``must_lead_c2`` whether the next play is the match's first lead, which must
    hold ♣2 (R5.1), ``pig_taker`` who took the (first) ♠Q, -1 until then.  ``leader`` and
    ``turn`` are -1 before the play phase."""

    decks: int
    hands: tuple[int, int, int, int]
    hands_twice: tuple[int, int, int, int]
    restricted: tuple[int, int, int, int]
    restricted_twice: tuple[int, int, int, int]
    captured: tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]
    trick: tuple[tuple[int, tuple[int, ...]], ...]
    leader: int
    turn: int
    led: int
    offender: int
    suits_led: int
    must_lead_c2: bool
    pig_taker: int
