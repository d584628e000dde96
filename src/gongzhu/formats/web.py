"""The browser game's messages (``docs/web-protocol.md``), declared as typed structures: what
the page sends on a table's WebSocket (:data:`BrowserMessage`, told apart by ``type``), the
body of ``POST /api/matches`` (:class:`NewMatchBody`: one person against three computer players),
that of ``POST /api/tables`` (:class:`NewTableBody`: a table for people), that of
``POST /api/challenges`` (:class:`NewChallengeBody`: a private challenge) and the bodies of the
account routes (:class:`AccountBody`, :class:`LogoutBody`, and those of account care:
:class:`PasswordChangeBody`, :class:`RenameBody`, :class:`DeleteAccountBody`).

Unknown fields are refused.  Whether a message may be sent now (South's turn, a legal play, a
known level) is checked by :mod:`gongzhu.server.dispatch` and the rules core.

May import ``msgspec`` and ``gongzhu.rules`` (through :mod:`gongzhu.formats.common`) only.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from gongzhu.formats.common import CardText, ExposureKind, OptionOverrides, PresetName

__all__ = [
    "CLAIM_SCORE_LIMIT",
    "MAX_CHAT",
    "MAX_REPORT",
    "MAX_SEED",
    "MAX_TIMER",
    "MIN_TIMER",
    "SPEED_NAMES",
    "AccountBody",
    "AgainMessage",
    "AutoMessage",
    "BrowserMessage",
    "ChatMessage",
    "ClaimAnswerMessage",
    "ClaimMessage",
    "DeleteAccountBody",
    "EnterChallengeBody",
    "ExposeMessage",
    "HintMessage",
    "InviteBody",
    "LogoutBody",
    "NewChallengeBody",
    "NewMatchBody",
    "NewTableBody",
    "NextMessage",
    "PasswordChangeBody",
    "PlayMessage",
    "PlayNowBody",
    "RemoveMessage",
    "RenameBody",
    "ReportBody",
    "SettingsMessage",
    "SitMessage",
    "Speed",
    "StandMessage",
    "StartMessage",
    "TakeBackMessage",
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
    """South asks for a ranking of its legal plays: the expert's search (the default), or with
    ``quick`` the network's, answered at once."""

    quick: Annotated[bool, msgspec.Meta(
        description="true (the network's ranking, at once) or false (the expert's search)")] = False


class NextMessage(msgspec.Struct, tag_field="type", tag="next", forbid_unknown_fields=True):
    """After a deal: deal the next one."""


class SettingsMessage(msgspec.Struct, tag_field="type", tag="settings", forbid_unknown_fields=True):
    """Change the pace of the computer players."""

    speed: Speed


SeatName = Annotated[Literal["N", "E", "S", "W"], msgspec.Meta(description="a seat: N, E, S or W")]
#: The longest chat line, in characters.
MAX_CHAT = 120


class SitMessage(msgspec.Struct, tag_field="type", tag="sit", forbid_unknown_fields=True):
    """Take a seat nobody sits in (its computer player stops playing it)."""

    seat: SeatName


class StandMessage(msgspec.Struct, tag_field="type", tag="stand", forbid_unknown_fields=True):
    """Leave one's seat: its computer player takes it over."""


class StartMessage(msgspec.Struct, tag_field="type", tag="start", forbid_unknown_fields=True):
    """The host starts the match: computer players fill the empty seats."""


class TakeBackMessage(msgspec.Struct, tag_field="type", tag="takeback", forbid_unknown_fields=True):
    """Play one's seat again after 托管."""


class AutoMessage(msgspec.Struct, tag_field="type", tag="auto", forbid_unknown_fields=True):
    """Put one's seat into 托管: its computer player plays for it."""


class AgainMessage(msgspec.Struct, tag_field="type", tag="again", forbid_unknown_fields=True):
    """After the match: a new table with the same settings and the same people in their seats."""


ChatText = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_CHAT, description=f"1 to {MAX_CHAT} characters")]
QuickPhrase = Annotated[str, msgspec.Meta(pattern="^chat[.]quick[.][a-z_]{1,32}$",
                                          description="a quick phrase: chat.quick.<name>")]


#: A claimed raw score (R6) lies within ±CLAIM_SCORE_LIMIT (two decks' included).
CLAIM_SCORE_LIMIT = 100_000
#: A claimed raw score (R6), two decks' included.
ClaimedScore = Annotated[int, msgspec.Meta(ge=-CLAIM_SCORE_LIMIT, le=CLAIM_SCORE_LIMIT,
                                           description="a raw score (R6)")]


class ClaimMessage(msgspec.Struct, tag_field="type", tag="claim", forbid_unknown_fields=True):
    """A claim (声称, R5.4) of the person's seat: ``all_tricks`` (the rest of the tricks are mine),
    ``no_points`` (I take no more point cards) or ``score`` (my raw score for the deal is at least
    ``value``)."""

    kind: Literal["all_tricks", "no_points", "score"]
    value: ClaimedScore | None = None


class ClaimAnswerMessage(msgspec.Struct, tag_field="type", tag="claim_answer", forbid_unknown_fields=True):
    """The person's answer to a claim put to them (under the tournament preset, a claim the server
    could not decide): ``accept`` it, or contest it (play goes on)."""

    accept: bool


class RemoveMessage(msgspec.Struct, tag_field="type", tag="remove", forbid_unknown_fields=True):
    """The host's: the person sitting at ``seat`` leaves it, before the table starts, and may not
    sit at this table again."""

    seat: SeatName


class ChatMessage(msgspec.Struct, tag_field="type", tag="chat", forbid_unknown_fields=True):
    """A line of table talk: a text, or one of the quick phrases (a catalog key ``chat.quick.*``),
    not both."""

    text: ChatText | msgspec.UnsetType = msgspec.UNSET
    quick: QuickPhrase | msgspec.UnsetType = msgspec.UNSET


#: Any message the page sends, by its ``type``.
BrowserMessage = (ExposeMessage | PlayMessage | HintMessage | NextMessage | SettingsMessage | SitMessage
                  | StandMessage | StartMessage | TakeBackMessage | AutoMessage | ChatMessage | AgainMessage
                  | ClaimMessage | ClaimAnswerMessage | RemoveMessage)


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


#: The turn timer's and the exposure window's bounds, in seconds.
MIN_TIMER = 5
MAX_TIMER = 300
Timer = Annotated[int, msgspec.Meta(ge=MIN_TIMER, le=MAX_TIMER,
                                    description=f"seconds, {MIN_TIMER} to {MAX_TIMER}")]


class PlayNowBody(msgspec.Struct, forbid_unknown_fields=True):
    """The body of ``POST /api/tables/play-now``: the preset the person would play (a waiting
    table of it, or a new one of it); null or absent for any.  ``ranked``: a table of accounts
    only (its deals rated), for an account."""

    preset: PresetName | None = None
    ranked: bool = False  # only a table where only accounts sit (an account's choice)


class NewTableBody(msgspec.Struct, forbid_unknown_fields=True):
    """The body of ``POST /api/tables``: a table for people and computer players.  A field left
    out takes its default: preset ``online``, no overrides, every seat's computer player
    ``intermediate``, a public table, a 30-second turn timer and a 20-second exposure window
    (null: no timer), speed ``normal``, the creator at South, a random seed."""

    preset: PresetName | None = None
    options: OptionOverrides | None = None
    levels: dict[str, str] | None = None
    visibility: Literal["public", "private"] = "public"
    turn_seconds: Timer | None = 30
    expose_seconds: Timer | None = 20
    speed: Speed | None = None
    seat: SeatName = "S"
    seed: Annotated[int, msgspec.Meta(ge=0, description="an integer from 0 to 2^64 - 1")] | None = None


class AccountBody(msgspec.Struct, forbid_unknown_fields=True):
    """The body of ``POST /api/account`` (a new account) and ``POST /api/login``.  The rules of a
    name and a password are the server's (:mod:`gongzhu.server.identity`), refused with a catalog
    message; here only the shape."""

    name: Annotated[str, msgspec.Meta(description="the nickname: 1 to 16 letters, digits, _, - or ·")]
    password: Annotated[str, msgspec.Meta(description="the password: 8 to 128 characters")]


#: The longest reason of a report, in characters.
MAX_REPORT = 500


class ReportBody(msgspec.Struct, forbid_unknown_fields=True):
    """The body of ``POST /api/people/{name}/report``: why, and the match it happened at (if any)."""

    reason: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_REPORT,
                                        description=f"1 to {MAX_REPORT} characters")]
    match_id: Annotated[str, msgspec.Meta(max_length=64)] | None = None


class InviteBody(msgspec.Struct, forbid_unknown_fields=True):
    """The body of ``POST /api/tables/{id}/invite``: the friend asked to the table."""

    name: Annotated[str, msgspec.Meta(max_length=64, description="a friend's name")]


class NewChallengeBody(msgspec.Struct, forbid_unknown_fields=True):
    """The body of ``POST /api/challenges``: a private challenge of ``boards`` boards (1 to 16,
    8 by default) under the preset ``preset`` (``online`` by default)."""

    preset: PresetName = "online"
    boards: Annotated[int, msgspec.Meta(ge=1, le=16, description="boards, 1 to 16")] = 8


class EnterChallengeBody(msgspec.Struct, forbid_unknown_fields=True):
    """The body of ``POST /api/challenges/{id}/play``: ``{}`` (or none); it has no field."""


class LogoutBody(msgspec.Struct, forbid_unknown_fields=True):
    """The body of ``POST /api/logout`` (may be empty): ``everywhere`` ends every session of the
    user, on every browser, not only this one."""

    everywhere: bool = False


_PASSWORD = msgspec.Meta(description="a password: 8 to 128 characters")


class PasswordChangeBody(msgspec.Struct, forbid_unknown_fields=True):
    """The body of ``POST /api/account/password``: the password now and the new one (its rules
    are the server's, :func:`gongzhu.server.identity.check_password`)."""

    current: Annotated[str, _PASSWORD]
    new: Annotated[str, _PASSWORD]


class RenameBody(msgspec.Struct, forbid_unknown_fields=True):
    """The body of ``POST /api/account/name``: the new name and the account's password."""

    name: Annotated[str, msgspec.Meta(description="the nickname: 1 to 16 letters, digits, _, - or ·")]
    password: Annotated[str, _PASSWORD]


class DeleteAccountBody(msgspec.Struct, forbid_unknown_fields=True):
    """The body of ``POST /api/account/delete``: the account's password, and its name typed again
    (``confirm``) to say that the account is to go."""

    password: Annotated[str, _PASSWORD]
    confirm: Annotated[str, msgspec.Meta(description="the account's name, typed again")]
