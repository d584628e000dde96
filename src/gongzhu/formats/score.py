"""The input of ``gongzhu score`` (``docs/score.md``), declared as typed structures: the point
cards each seat took at a real table, what was exposed, and optionally the hands as dealt.

Cards and seats are read in every notation of R1 (declared as text here, read by the rules
core); unknown fields are refused, so that a typo cannot silently drop a part of the deal.
Whether the input is a possible deal, and its score, is the business of
:mod:`gongzhu.cli.score` and the rules core.

May import ``msgspec`` and ``gongzhu.rules`` (through :mod:`gongzhu.formats.common`) only.
"""

from __future__ import annotations

import msgspec

from gongzhu.formats.common import Cards, CardText, ExposureKind, OptionOverrides, PresetName, SeatText

__all__ = ["INPUT_KEYS", "ScoreExposure", "ScoreInput"]


class ScoreExposure(msgspec.Struct, forbid_unknown_fields=True):
    """One exposed card (R4); ``kind`` defaults to the option's usual kind."""

    seat: SeatText
    card: CardText | list[CardText]
    kind: ExposureKind | msgspec.UnsetType = msgspec.UNSET


class ScoreInput(msgspec.Struct, forbid_unknown_fields=True):
    """One deal played with real cards.  ``captured`` (required) and ``hands`` map seats to
    cards; a seat left out of ``captured`` took nothing, ``hands`` gives all four."""

    captured: dict[SeatText, Cards]
    preset: PresetName = "online"
    options: OptionOverrides = msgspec.field(default_factory=dict)
    exposures: list[ScoreExposure] = msgspec.field(default_factory=list)
    hands: dict[SeatText, Cards] | msgspec.UnsetType = msgspec.UNSET


#: The top-level keys of the input, in the order the documentation gives them.
INPUT_KEYS: tuple[str, ...] = ("preset", "options", "captured", "exposures", "hands")
assert set(INPUT_KEYS) == set(ScoreInput.__struct_fields__)
