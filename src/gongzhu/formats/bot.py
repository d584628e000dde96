"""Requests of the bot protocol ``gongzhu-bot/1`` (``docs/bot-protocol.md``), declared as typed
structures.

A request is one JSON object per line, told apart by its ``type``: :class:`InfoRequest`, or a
position (:class:`ExposeRequest`, :class:`PlayRequest`, :class:`HintRequest`, the fields of
:class:`Position`) written with the field names of the deal records.  Cards and seats are read
in every notation of R1, so they are declared as text here and read by the rules core
(:func:`~gongzhu.rules.cards.parse_card`, :meth:`~gongzhu.rules.cards.Seat.parse`); fields the
protocol does not use are ignored.  Whether the position is possible is checked by
:mod:`gongzhu.players.protocol`.

May import ``msgspec`` and ``gongzhu.rules`` (through :mod:`gongzhu.formats.common`) only.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from gongzhu.formats.common import Cards, CardText, ExposureKind, OptionOverrides, PresetName, SeatText

__all__ = [
    "REQUEST_TYPES",
    "ClaimRequest",
    "ExposeRequest",
    "Exposure",
    "HintRequest",
    "InfoRequest",
    "Play",
    "PlayRequest",
    "Position",
    "Request",
    "Trick",
]

class Exposure(msgspec.Struct):
    """An exposure the seat can see (R4); another seat's hidden one (暗卖) may come without its card."""

    seat: SeatText
    kind: ExposureKind
    card: CardText | None = None


class Play(msgspec.Struct):
    """One play to a trick, in playing order."""

    seat: SeatText
    cards: Cards


class Trick(msgspec.Struct):
    """A trick so far: every one but the last has 4 plays; ``leader`` may be left out when the
    trick has plays, ``winner`` (computed) and ``taker`` (the winner by default) too."""

    plays: list[Play]
    leader: SeatText | msgspec.UnsetType = msgspec.UNSET
    winner: SeatText | msgspec.UnsetType = msgspec.UNSET
    taker: SeatText | None = None


class InfoRequest(msgspec.Struct, tag_field="type", tag="info"):
    """Who is answering; no other field is needed."""

    id: Any = None


class Position(msgspec.Struct, tag_field="type"):
    """One seat's view of a deal: the fields of an expose, play or hint request."""

    seat: SeatText
    hand: Cards
    preset: PresetName | None = None
    options: OptionOverrides = msgspec.field(default_factory=dict)
    exposures: list[Exposure] = msgspec.field(default_factory=list)
    tricks: list[Trick] = msgspec.field(default_factory=list)
    deal_index: Annotated[int, msgspec.Meta(ge=0, description="a deal number 0, 1, 2 ...")] = 0
    first_receiver: SeatText | None = None
    first_card: CardText | None = None
    #: The board number when the deal is a board of duplicate play (R8.1): dealt counter-clockwise
    #: to its own first receiver and led as a first deal (♣2), whatever ``deal_index`` says.
    board: Annotated[int, msgspec.Meta(ge=1, description="a board number (R8.1)")] | None = None
    id: Any = None


class ExposeRequest(Position, tag="expose"):
    """The seat is to declare its exposures (R4); ``hand`` is its whole hand as dealt, in order."""


class PlayRequest(Position, tag="play"):
    """The seat is to play (R5); ``hand`` is its current hand."""


class HintRequest(Position, tag="hint"):
    """The position of a play request, answered with every legal play ranked."""


class ClaimRequest(Position, tag="claim"):
    """The position of a play request after the first lead, answered with the claim (声称, R5.4)
    the seat can make now whatever the hidden hands hold, or none."""


#: Any request, by its ``type``.
Request = InfoRequest | ExposeRequest | PlayRequest | HintRequest | ClaimRequest
#: The request types, in the order the ``info`` answer lists them.
REQUEST_TYPES: tuple[str, ...] = ("info", "expose", "play", "hint", "claim")
