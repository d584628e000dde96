"""The deal record ``gongzhu-deal/1`` (R11, ``docs/records.md``), declared as typed structures.

:class:`Record` is one line of a records file; its field order is the order a record is written
in (:mod:`gongzhu.records.format` takes its key order from here).  The declaration checks the
shape: every field present, JSON types, seat and card codes, exposure kinds, option words.  That
the hands are a deal, the tricks follow the rules and the scores add up is checked by
:mod:`gongzhu.records.read` and the replay (:mod:`gongzhu.records.replay`).

May import ``msgspec`` and ``gongzhu.rules`` (through :mod:`gongzhu.formats.common`) only.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from gongzhu.formats.common import CardCode, ExposureKind, RecordOptions, SeatCode

__all__ = ["FORMAT", "Exposure", "Play", "Record", "SeatCards", "SeatScores", "Trick"]

#: The format tag of every record (R11).
FORMAT = "gongzhu-deal/1"


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
    cards: Annotated[list[CardCode], msgspec.Meta(
        min_length=1, max_length=2, description="one card, or two in a two-deck pair trick (R5.3)")]


class Trick(msgspec.Struct, forbid_unknown_fields=True):
    """A finished trick: its leader, the four plays in playing order, its winner, and ``taker``
    only when someone else took its point cards (``discard_color=penalty``, R5.2)."""

    leader: SeatCode
    plays: Annotated[list[Play], msgspec.Meta(min_length=4, max_length=4,
                                              description="4 plays: every player plays once to a trick (R5.2)")]
    winner: SeatCode
    taker: SeatCode | msgspec.UnsetType = msgspec.UNSET


class Record(msgspec.Struct):
    """One deal record (R11).  Top-level fields a later version adds are carried, not refused."""

    format: Annotated[Literal["gongzhu-deal/1"], msgspec.Meta(description='"gongzhu-deal/1"')]
    match: Annotated[str, msgspec.Meta(min_length=1, description="a non-empty string")]
    deal_index: Annotated[int, msgspec.Meta(ge=0, description="a deal number 0, 1, 2 ... (deals count from 0)")]
    preset: str | None
    options: RecordOptions
    seed: int | None
    first_receiver: SeatCode
    hands: SeatCards
    exposures: list[Exposure]
    tricks: list[Trick]
    raw: SeatScores
    final: SeatScores


#: The top-level fields, in the order they are written.
FIELDS: tuple[str, ...] = Record.__struct_fields__
#: The fields of the objects inside a record, in the order they are written.
EXPOSURE_FIELDS: tuple[str, ...] = Exposure.__struct_fields__
TRICK_FIELDS: tuple[str, ...] = Trick.__struct_fields__
PLAY_FIELDS: tuple[str, ...] = Play.__struct_fields__
assert FORMAT == "gongzhu-deal/1"  # the literal of Record.format, kept in step


def options_dict(options: Any) -> dict[str, Any]:
    """A typed ``options`` object as the plain mapping :class:`~gongzhu.rules.options.Options` reads."""
    return msgspec.structs.asdict(options)
