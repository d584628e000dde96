"""Request bodies as the server reads them: strict JSON, bounded (``docs/web-protocol.md``,
Limits and the origin policy), typed by the declarations of :mod:`gongzhu.formats`.

A body is read no further than :data:`~gongzhu.server.policy.MAX_BODY_BYTES` (a declared
``Content-Length`` over it is refused before reading); a body that is not empty must be declared
``Content-Type: application/json``; an empty body is ``{}``; no string in it may hold U+0000
(which no database keeps in text: refused here, not as a database error).  Every refusal is a
:class:`BodyError` with its HTTP status and a plain English reason.

:func:`parse_new_match` and :func:`parse_new_table` check the bodies that make a table
(:class:`NewTable`), with the defaults a table takes.  What a person chooses in the new-match or
new-table dialog — options that do not go together, a seed out of range — is :class:`Refused`
with its catalog message, which the page shows in its language; a body no dialog sends (a wrong
shape, an unknown key) is a :class:`MessageError` in plain English.

Imports the policy, the wire, :mod:`gongzhu.jsontext`, :mod:`gongzhu.formats`, the rules core's
options and the computer players' level names.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from starlette.requests import ClientDisconnect, Request

from gongzhu.formats import FormatError, typed
from gongzhu.formats.web import MAX_SEED, SPEED_NAMES, NewMatchBody, NewTableBody
from gongzhu.jsontext import JSONTextError, decode_utf8, loads_strict, show
from gongzhu.messages import Text
from gongzhu.players.registry import LEVELS
from gongzhu.rules.cards import Seat
from gongzhu.rules.errors import GongzhuError
from gongzhu.rules.options import Options, resolve_options
from gongzhu.server.policy import MAX_BODY_BYTES
from gongzhu.server.wire import MessageError, Refused

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_SPEED",
    "MAX_SEED",
    "PERSON",
    "SPEEDS",
    "BodyError",
    "NewTable",
    "check_for_people",
    "json_body",
    "parse_new_match",
    "parse_new_table",
    "typed_body",
]

T = TypeVar("T")


class BodyError(Exception):
    """A request body refused (status, reason)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


async def json_body(request: Request) -> Any:
    """The request's body as strict JSON (see the module docstring); raises :class:`BodyError`."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not (declared.isascii() and declared.isdigit()):
            raise BodyError(400, f"Content-Length {show(declared)} is not a number of bytes")
        if len(declared) > 12 or int(declared) > MAX_BODY_BYTES:
            raise BodyError(413, f"the body is too large: at most {MAX_BODY_BYTES} bytes")
    body = bytearray()
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY_BYTES:
                raise BodyError(413, f"the body is too large: at most {MAX_BODY_BYTES} bytes")
    except ClientDisconnect:
        raise BodyError(400, "the body was cut off") from None
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if body and media != "application/json":
        raise BodyError(415, "send the body as JSON, with Content-Type: application/json")
    try:
        text = decode_utf8(bytes(body))
        data = loads_strict(text) if text.strip() else {}
    except JSONTextError as e:
        raise BodyError(400, f"the body is not JSON: {e}") from None
    where = _nul_at(data, "$")
    if where is not None:
        raise BodyError(400, f"{where}: a string holds U+0000, which no text may hold")
    return data


def _nul_at(value: Any, path: str) -> str | None:
    """The path of the first string (a value or a key) in ``value`` that holds U+0000, or None."""
    if isinstance(value, str):
        return path if "\0" in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            found = f"{path} (a key)" if "\0" in key else _nul_at(item, f"{path}.{key}")
            if found is not None:
                return found
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = _nul_at(item, f"{path}[{i}]")
            if found is not None:
                return found
    return None


async def typed_body(request: Request, kind: type[T]) -> T:
    """The request's body as ``kind`` (a declaration of :mod:`gongzhu.formats`); a body of the
    wrong shape is refused with the path of the bad field (400)."""
    data = await json_body(request)
    try:
        return typed(data, kind)
    except FormatError as e:
        raise BodyError(400, str(e)) from None


# ---------------------------------------------------------------------- new tables

#: The seat of the person who plays alone against three computer players (``POST /api/matches``).
PERSON = Seat.S
#: Speed setting -> seconds per computer play (a computer's exposure takes half of it).
SPEEDS: dict[str, float] = {"slow": 1.2, "normal": 0.6, "fast": 0.25, "instant": 0.0}
DEFAULT_SPEED = "normal"
DEFAULT_LEVEL = "intermediate"
assert tuple(SPEEDS) == SPEED_NAMES  # the speeds a message may name (gongzhu.formats.web)


@dataclass(frozen=True, slots=True)
class NewTable:
    """A checked ``POST /api/tables`` or ``POST /api/matches`` body."""

    preset: str
    options: Options
    levels: dict[str, str]
    speed: str
    seed: int
    visibility: str = "private"
    turn_seconds: int | None = None
    expose_seconds: int | None = None
    seat: Seat = PERSON
    started: bool = True  # the match starts at once (one person and three computer players)
    seeded: bool = False  # the caller chose the seed: the deal was set in advance
    challenge: str | None = None  # the challenge whose boards the match plays (docs/tournaments.md)
    accounts_only: bool = False  # only accounts may sit at it (a ranked table of Play now)


class _RulesRefused(Refused):
    """A :class:`Refused` with the rules core's catalog text as it is (whose parameters may be
    named anything, ``key`` included)."""

    def __init__(self, text: Text) -> None:
        Exception.__init__(self, text.render("en"))
        self.text = text


def _options(preset: str | None, overrides: Mapping[str, Any] | None) -> tuple[str, Options]:
    """The preset's options with the overrides; options that do not go together (R10) are
    :class:`Refused` with the rules core's catalog message."""
    name = preset or "online"
    try:
        return name, resolve_options(name, overrides or {})
    except GongzhuError as e:
        if e.text is not None:
            raise _RulesRefused(e.text) from None
        raise MessageError(f"$.options: {e}") from None


def _bad_seed() -> Refused:
    # The bound as digits: a page reads a JSON number into a double, which keeps 53 bits.
    return Refused("server.bad_seed", max=str(MAX_SEED - 1))


def _seed(seed: int | None) -> int:
    value = secrets.randbits(64) if seed is None else seed
    if value >= MAX_SEED:
        raise _bad_seed()
    return value


def _typed_new(body: Any, kind: type[T]) -> T:
    """A new-match or new-table body as ``kind``; a seed that is no whole number from 0 to
    2^64 − 1 (as the dialog's seed field may send) is :class:`Refused`, any other wrong shape a
    :class:`MessageError`."""
    try:
        return typed(body, kind)
    except FormatError as e:
        if e.path == "$.seed":
            raise _bad_seed() from None
        raise MessageError(str(e)) from None


def _levels(given: Mapping[str, str] | None, seats: Sequence[str], why_not: Callable[[str], str]) -> dict[str, str]:
    levels = {s.name: DEFAULT_LEVEL for s in Seat}
    for key, level in (given or {}).items():
        if key not in seats:
            raise MessageError(f"$.levels: {why_not(key)}")
        if level not in LEVELS:
            raise MessageError(f"$.levels.{key}: {show(level)} is not a level: choose one of {', '.join(LEVELS)}")
        levels[key] = level
    return levels


def parse_new_match(body: Any) -> NewTable:
    """Check a new-match body (one person at South against three computer players,
    ``docs/web-protocol.md``, declared as :class:`gongzhu.formats.web.NewMatchBody`); raise
    :class:`MessageError` or :class:`Refused` saying what is wrong.  Missing keys take their
    defaults: preset ``online``, no option overrides, every level ``intermediate``, speed
    ``normal``, a random seed."""
    new = _typed_new(body, NewMatchBody)
    preset, options = _options(new.preset, new.options)

    def why_not(key: str) -> str:
        why = "South is you" if key == PERSON.name else f"{show(key)} is not a seat"
        return f"{why}; the computer players sit N, E and W"

    levels = _levels(new.levels, ("N", "E", "W"), why_not)
    return NewTable(preset, options, levels, new.speed or DEFAULT_SPEED, _seed(new.seed), seeded=new.seed is not None)


def check_for_people(options: Options) -> None:
    """:class:`Refused` where ``options`` would tell the people at a table what they may not know:
    逼明 shows the fourth card once three are exposed, hidden ones (暗卖) too, and everyone would
    then know which card was exposed hidden, and by whom (R4.4).  Alone at a table, nobody else
    plays to be told; at a table for people — made, or made by 再来一局 from a single-player
    match — one of the two is turned off."""
    if options.auto_fourth_applies and "hidden" in options.declarable_kinds:
        raise Refused("server.hidden_with_auto_fourth")


def parse_new_table(body: Any) -> NewTable:
    """Check a new-table body (:class:`gongzhu.formats.web.NewTableBody`): a table that waits for
    people until its host starts it.  A chosen seed is :class:`Refused` at a public table (its host
    would know every hand) and marks a private one as set in advance."""
    new = _typed_new(body, NewTableBody)
    if new.seed is not None and new.visibility == "public":
        # Whoever chose the seed knows every hand: nobody else at a public table would.
        raise Refused("server.seed_public")
    preset, options = _options(new.preset, new.options)
    check_for_people(options)
    levels = _levels(new.levels, ("N", "E", "S", "W"), lambda key: f"{show(key)} is not a seat: N, E, S or W")
    return NewTable(preset, options, levels, new.speed or DEFAULT_SPEED, _seed(new.seed), visibility=new.visibility,
                    turn_seconds=new.turn_seconds, expose_seconds=new.expose_seconds, seat=Seat.parse(new.seat),
                    started=False, seeded=new.seed is not None)


#: The turn timer and the exposure window of a table 快速开始 makes (seconds).
QUICK_TURN_SECONDS = 30
QUICK_EXPOSE_SECONDS = 20


def quick_public_table(preset: str = "online", *, accounts_only: bool = False) -> NewTable:
    """The public table 快速开始 makes when no table waits for players: the ``preset`` (online
    unless the person chose one) as it is, a 30-second turn timer and a 20-second exposure window,
    every seat's computer player the default; ``accounts_only`` for a ranked one."""
    return NewTable(preset, resolve_options(preset, {}), {s.name: DEFAULT_LEVEL for s in Seat},
                    DEFAULT_SPEED, secrets.randbits(64), visibility="public", turn_seconds=QUICK_TURN_SECONDS,
                    expose_seconds=QUICK_EXPOSE_SECONDS, started=False, accounts_only=accounts_only)


def plays_as_quick(preset: str, options: Options, levels: Mapping[str, str], turn_seconds: int | None,
                   expose_seconds: int | None) -> bool:
    """Whether a table is one 快速开始 may seat a stranger at: it plays as a table it makes itself
    would (:func:`quick_public_table`) — its preset's options unchanged, the default computer in
    every seat, and as much time to play and to expose — whatever its host chose otherwise."""
    return (options.to_dict() == resolve_options(preset, {}).to_dict()
            and all(levels.get(s.name) == DEFAULT_LEVEL for s in Seat)
            and turn_seconds is not None and turn_seconds >= QUICK_TURN_SECONDS
            and (expose_seconds is None or expose_seconds >= QUICK_EXPOSE_SECONDS))
