"""The browser game's messages (``docs/web-protocol.md``), declared as typed structures: what
the page sends on a table's WebSocket (:data:`BrowserMessage`, told apart by ``type``) and the
body of ``POST /api/matches`` (:class:`NewMatchBody`).

Unknown fields are refused.  Whether a message may be sent now (South's turn, a legal play, a
known level) is checked by :mod:`gongzhu.server.table` and the rules core.

May import ``msgspec`` and ``gongzhu.rules`` (through :mod:`gongzhu.formats.common`) only.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from gongzhu.formats.common import CardText, ExposureKind, OptionOverrides, PresetName

__all__ = [
    "MAX_SEED",
    "SPEED_NAMES",
    "BrowserMessage",
    "ExposeMessage",
    "HintMessage",
    "NewMatchBody",
    "NextMessage",
    "PlayMessage",
    "SettingsMessage",
    "Speed",
]

#: The speed settings of the computer players, slowest first.
SPEED_NAMES: tuple[str, ...] = ("slow", "normal", "fast", "instant")
Speed = Annotated[Literal["slow", "normal", "fast", "instant"],
                  msgspec.Meta(description="a speed: slow, normal, fast or instant")]
#: Seeds are 0 … MAX_SEED − 1 (64 bits).
MAX_SEED = 2**64


class ExposeMessage(msgspec.Struct, tag_field="type", tag="expose", forbid_unknown_fields=True):
    """South's exposure declaration (R4), possibly empty; ``kinds``, one per card, default to
    the option's usual kind."""

    cards: list[CardText]
    kinds: list[ExposureKind] | msgspec.UnsetType = msgspec.UNSET


class PlayMessage(msgspec.Struct, tag_field="type", tag="play", forbid_unknown_fields=True):
    """South's play (R5)."""

    cards: Annotated[list[CardText], msgspec.Meta(
        min_length=1, max_length=2, description="one card, or two for a two-deck pair (R5.2, R5.3)")]


class HintMessage(msgspec.Struct, tag_field="type", tag="hint", forbid_unknown_fields=True):
    """South asks for the expert's ranking of its legal plays."""


class NextMessage(msgspec.Struct, tag_field="type", tag="next", forbid_unknown_fields=True):
    """After a deal: deal the next one."""


class SettingsMessage(msgspec.Struct, tag_field="type", tag="settings", forbid_unknown_fields=True):
    """Change the pace of the computer players."""

    speed: Speed


#: Any message the page sends, by its ``type``.
BrowserMessage = ExposeMessage | PlayMessage | HintMessage | NextMessage | SettingsMessage


class NewMatchBody(msgspec.Struct, forbid_unknown_fields=True):
    """The body of ``POST /api/matches``; a field left out or null takes its default (preset
    ``online``, no overrides, every computer player ``intermediate``, speed ``normal``, a random
    seed).  ``levels`` maps the computer players' seats N, E, W to a level."""

    preset: PresetName | None = None
    options: OptionOverrides | None = None
    levels: dict[str, str] | None = None
    speed: Speed | None = None
    #: msgspec bounds an integer within 64 bits signed: the reader checks ``seed < MAX_SEED``.
    seed: Annotated[int, msgspec.Meta(ge=0, description="an integer from 0 to 2^64 - 1")] | None = None
