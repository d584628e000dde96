"""Pieces shared by the wire formats: card codes, seat codes, exposure kinds, the options object.

Declared from the rules core's own tables (:data:`~gongzhu.rules.options.OPTION_CHOICES`,
:data:`~gongzhu.rules.options.EXPOSURE_KINDS`), so a new option or kind appears here by itself.
May import ``msgspec`` and ``gongzhu.rules`` only.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from gongzhu.rules.options import (
    EXPOSURE_KINDS,
    INTEGER_LIMITS,
    INTEGER_OPTIONS,
    OPTION_CHOICES,
    OPTION_KEYS,
    PRESETS,
)

__all__ = [
    "SEAT_CODES",
    "CardCode",
    "CardText",
    "Cards",
    "ExposureKind",
    "OptionOverrides",
    "PresetName",
    "RecordOptions",
    "SeatCode",
    "SeatText",
]

#: Seat codes in seat order (R1).
SEAT_CODES: tuple[str, str, str, str] = ("N", "E", "S", "W")

#: A canonical card code (R1): rank ``23456789TJQKA`` then suit ``SHCD``.
CardCode = Annotated[str, msgspec.Meta(
    pattern="^[2-9TJQKA][SHCD]$",
    description='a card code: rank 23456789TJQKA then suit SHCD, e.g. "QS", "TC"')]
#: A card in any notation of R1 (``QS``, ``10C``, ``SQ``, ``♠Q``, any case); read by
#: :func:`gongzhu.rules.cards.parse_card`.
CardText = Annotated[str, msgspec.Meta(
    min_length=1, max_length=8,
    description='a card such as "QS" (also read: "10C", "SQ", "♠Q", any case)')]
#: Cards as a list, or as one string such as ``"QS 3S AH"`` (read by
#: :func:`gongzhu.rules.cards.parse_cards`).
Cards = list[CardText] | Annotated[str, msgspec.Meta(max_length=512)]
#: A seat code (R1).
SeatCode = Annotated[Literal["N", "E", "S", "W"], msgspec.Meta(description="a seat: N, E, S or W")]
#: A seat in any notation :meth:`gongzhu.rules.cards.Seat.parse` reads (``N``, ``north``, ``北``).
SeatText = Annotated[str, msgspec.Meta(
    min_length=1, max_length=16, description='a seat such as "N" (also read: "North", "北")')]
#: An exposure kind of R10.
ExposureKind = Annotated[
    Literal["shown", "first", "hidden", "auto"],
    msgspec.Meta(description="an exposure kind: shown, first, hidden or auto (R10)")]

#: A preset of R9 (its name).
PresetName: Any = Annotated[
    Literal.__getitem__(tuple(PRESETS)),
    msgspec.Meta(description=f"a preset of R9: {', '.join(PRESETS)}")]


def _option_type(key: str) -> Any:
    if key in INTEGER_OPTIONS:
        return Annotated[int, msgspec.Meta(ge=1, le=INTEGER_LIMITS[key])]
    choices = OPTION_CHOICES.get(key)
    if choices is None:  # match_end: loser, either or deals:N (the number is checked by Options)
        return Annotated[str, msgspec.Meta(pattern="^(loser|either|deals:[0-9]{1,4})$",
                                           description="loser, either or deals:N")]
    if isinstance(choices[0], bool):
        return bool
    words = ", ".join(str(c) for c in choices)
    return Annotated[Literal.__getitem__(choices), msgspec.Meta(description=f"one of {words}")]


#: The ``options`` object of a record: every key of R10, resolved (checked further, combinations
#: included, by :class:`~gongzhu.rules.options.Options`).
RecordOptions: Any = msgspec.defstruct(
    "RecordOptions", [(k, _option_type(k)) for k in OPTION_KEYS], forbid_unknown_fields=True,
    module=__name__)
#: Option overrides on top of a preset (bot requests, score input, a new match): any keys of
#: R10; values may also be written as text (``"2"``, ``"true"``), as on a command line, so they
#: are read and checked by :func:`~gongzhu.rules.options.resolve_options`.
OptionOverrides = dict[str, Any]
assert EXPOSURE_KINDS == ("shown", "first", "hidden", "auto")  # the literal above, kept in step
