"""The deal record ``gongzhu-deal/1`` and ``gongzhu-deal/2`` (R11, ``docs/records.md``), declared
as typed structures.

:class:`Record` is one line of a records file; its field order is the order a record is written
in (:mod:`gongzhu.records.format` takes its key order from here).  Version 2 adds one optional
field, ``board``: the board of duplicate play the deal was dealt from (R8.1); a version 1 record
carries a ``board`` key, if it has one, as a field it does not know.  The declaration checks the
shape: every field present, JSON types, seat and card codes, exposure kinds, option words.  That
the hands are a deal, the tricks follow the rules and the scores add up is checked by
:mod:`gongzhu.records.read` and the replay (:mod:`gongzhu.records.replay`).

May import ``msgspec`` and ``gongzhu.rules`` (through :mod:`gongzhu.formats.common`) only.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from gongzhu.formats.common import CardCode, ExposureKind, RecordOptions, SeatCode

__all__ = [
    "BOARD_FORMAT",
    "FORMAT",
    "FORMATS",
    "Exposure",
    "Play",
    "Record",
    "RecordBoard",
    "SeatCards",
    "SeatScores",
    "Trick",
]

#: The format tag of a record of an ordinary deal (R11).
FORMAT = "gongzhu-deal/1"
#: The format tag of a record that may name the board it was dealt from (R8.1, R11).
BOARD_FORMAT = "gongzhu-deal/2"
#: Every version a reader reads.
FORMATS: tuple[str, ...] = (FORMAT, BOARD_FORMAT)


class SeatCards(msgspec.Struct, forbid_unknown_fields=True):
    """Cards per seat, in seat order."""

    N: list[CardCode]
    E: list[CardCode]
    S: list[CardCode]
    W: list[CardCode]


class SeatScores(msgspec.Struct, forbid_unknown_fields=True):
    """A score per seat, in seat order."""

    N: int
    E: int
    S: int
    W: int


class Exposure(msgspec.Struct, forbid_unknown_fields=True):
    """One exposed card (R4), in the order the engine applied them."""

    seat: SeatCode
    card: CardCode
    kind: ExposureKind


class Play(msgspec.Struct, forbid_unknown_fields=True):
    """One seat's play to a trick: one card, or two in a two-deck pair trick (R5.3)."""

    seat: SeatCode
    cards: Annotated[
        list[CardCode],
        msgspec.Meta(min_length=1, max_length=2, description="one card, or two in a two-deck pair trick (R5.3)"),
    ]


class Trick(msgspec.Struct, forbid_unknown_fields=True):
    """A finished trick: its leader, the four plays in playing order, its winner, and ``taker``
    only when someone else took its point cards (``discard_color=penalty``, R5.2)."""

    leader: SeatCode
    plays: Annotated[
        list[Play],
        msgspec.Meta(min_length=4, max_length=4, description="4 plays: every player plays once to a trick (R5.2)"),
    ]
    winner: SeatCode
    taker: SeatCode | msgspec.UnsetType = msgspec.UNSET


class RecordBoard(msgspec.Struct, forbid_unknown_fields=True):
    """The board of duplicate play a deal was dealt from (R8.1; ``gongzhu-deal/2`` only)."""

    number: Annotated[int, msgspec.Meta(ge=1, description="the board number: 1 for 第1副牌, the board numbered 1")]
    event: Annotated[str, msgspec.Meta(min_length=1, max_length=200, description="the event id")] | None
    dealt: Annotated[
        Literal["ccw"],
        msgspec.Meta(description='"ccw": a board is dealt counter-clockwise whatever the play direction'),
    ]


class Record(msgspec.Struct, kw_only=True):
    """One deal record (R11).  Top-level fields a later version adds are carried, not refused."""

    format: Annotated[
        Literal["gongzhu-deal/1", "gongzhu-deal/2"],
        msgspec.Meta(description='"gongzhu-deal/1", or "gongzhu-deal/2" (which may name a board)'),
    ]
    match: Annotated[str, msgspec.Meta(min_length=1, description="a non-empty string")]
    deal_index: Annotated[int, msgspec.Meta(ge=0, description="a deal number 0, 1, 2 ... (deals count from 0)")]
    board: RecordBoard | msgspec.UnsetType = msgspec.UNSET
    preset: str | None
    options: RecordOptions
    seed: int | None
    first_receiver: SeatCode
    hands: SeatCards
    exposures: list[Exposure]
    tricks: list[Trick]
    raw: SeatScores
    final: SeatScores


#: The top-level fields of version 2, in the order they are written.
FIELDS_V2: tuple[str, ...] = Record.__struct_fields__
#: The top-level fields of version 1 (version 2's but ``board``), in the order they are written.
FIELDS: tuple[str, ...] = tuple(f for f in FIELDS_V2 if f != "board")
#: The fields of the board object of version 2, in the order they are written.
BOARD_FIELDS: tuple[str, ...] = RecordBoard.__struct_fields__
#: The fields of the objects inside a record, in the order they are written.
EXPOSURE_FIELDS: tuple[str, ...] = Exposure.__struct_fields__
TRICK_FIELDS: tuple[str, ...] = Trick.__struct_fields__
PLAY_FIELDS: tuple[str, ...] = Play.__struct_fields__
assert FORMATS == ("gongzhu-deal/1", "gongzhu-deal/2")  # the literal of Record.format, kept in step


def options_dict(options: Any) -> dict[str, Any]:
    """A typed ``options`` object as the plain mapping :class:`~gongzhu.rules.options.Options` reads."""
    return msgspec.structs.asdict(options)
