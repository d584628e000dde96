"""What goes over a table's WebSocket, as text: the encoder of server messages, the reader of
browser messages, and the refusals (``docs/web-protocol.md``).

A refused message is answered ``{"type": "error", ...}`` by :func:`refusal` — the catalog's text
in both languages when it is a :class:`Refused` — and changes nothing.  The HTTP routes answer
in the same words: :func:`refused_answer` (a catalog refusal), :func:`plain_error` (plain
English) and :func:`personal_answer` (an answer about a person, never cached).

Imports Starlette's JSON response, :mod:`gongzhu.formats`, :mod:`gongzhu.jsontext`,
:mod:`gongzhu.messages` and the rules core's cards; nothing of the server.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

import msgspec
from starlette.responses import JSONResponse

from gongzhu.formats import FormatError, typed
from gongzhu.formats.web import BrowserMessage
from gongzhu.jsontext import JSONTextError, loads_strict
from gongzhu.messages import Text
from gongzhu.rules.cards import Card, Seat
from gongzhu.server.names import MOST_MARKS, stacked_marks

__all__ = ["CHAT_MARKS", "MessageError", "Refused", "chat_line", "codes", "encode", "personal_answer", "plain_error",
           "read_message", "refusal", "refused_answer", "seat_map"]

T = TypeVar("T")

#: Chat: the most combining marks one character may carry (as in a name).
CHAT_MARKS = MOST_MARKS


class MessageError(ValueError):
    """A browser message or request body that is refused; the message says why."""


class Refused(Exception):
    """A message refused with a catalog text (the page shows it in its language)."""

    def __init__(self, key: str, **params: Any) -> None:
        self.text = Text.of(key, **params)
        super().__init__(self.text.render("en"))


def refusal(why: Text | str) -> dict[str, Any]:
    """An error message for the browser: ``message`` in English, and for a refusal of the message
    catalog its ``message_zh``, ``code`` and ``params`` (the page renders the code in its language;
    a plain text is English only)."""
    if isinstance(why, str):
        return {"type": "error", "message": why}
    return {"type": "error", "message": why.render("en"), "message_zh": why.render("zh"), **why.json}


def refused_answer(status: int, text: Text) -> JSONResponse:
    """An HTTP refusal a player reads: ``{"error": English, "message_zh", "code", "params"}``,
    never cached."""
    return JSONResponse({"error": text.render("en"), "message_zh": text.render("zh"), **text.json},
                        status_code=status, headers={"Cache-Control": "no-store"})


def plain_error(status: int, message: str) -> JSONResponse:
    """An HTTP refusal in plain English: ``{"error"}`` (a malformed request, an unknown match)."""
    return JSONResponse({"error": message}, status_code=status)


def personal_answer(content: Any, cookie: str | None = None, device_cookie: str | None = None,
                    status: int = 200) -> JSONResponse:
    """A JSON answer about a person: never cached, with the session cookie and the device cookie
    when they are given."""
    response = JSONResponse(content, status_code=status, headers={"Cache-Control": "no-store"})
    for value in (cookie, device_cookie):
        if value is not None:
            response.headers.append("set-cookie", value)
    return response


#: msgspec's encoder writes the same compact JSON text as ``json.dumps(..., ensure_ascii=False,
#: separators=(",", ":"))`` (floats aside: ``1e16`` for ``1e+16``) in a sixth of the time: every
#: change of a table encodes a state for each of its connections (docs/benchmarks.md, Online tables).
_ENCODER = msgspec.json.Encoder()


def encode(message: Mapping[str, Any]) -> str:
    """A server message as JSON text (UTF-8 kept as is; a lone surrogate that cannot be sent as
    UTF-8 is written as its ``\\u`` escape)."""
    try:
        return _ENCODER.encode(message).decode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(message, ensure_ascii=True, separators=(",", ":"))


def read_message(text: str | None) -> BrowserMessage:
    """A browser message, typed as declared in :mod:`gongzhu.formats.web` (``text`` None for a
    binary frame); raises :class:`MessageError` saying what is wrong."""
    if text is None:
        raise MessageError("messages are JSON text, not binary frames")
    try:
        message: BrowserMessage = typed(loads_strict(text), BrowserMessage)
    except JSONTextError as e:
        raise MessageError(f"not a JSON message: {e}") from None
    except FormatError as e:
        raise MessageError(str(e)) from None
    return message


def chat_line(text: str) -> str:
    """A chat line as it is shown: control characters out, spaces at the ends trimmed.  A line
    with a run of more than :data:`CHAT_MARKS` combining marks on one character (marks stacked
    so high that they draw over the lines around it) is :class:`Refused`."""
    kept = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C" or ch == " ")
    if stacked_marks(kept) > CHAT_MARKS:
        raise Refused("server.chat_marks", limit=CHAT_MARKS)
    return " ".join(kept.split())


def codes(cards: Iterable[Card]) -> list[str]:
    """Cards as their canonical strings."""
    return [c.code for c in cards]


def seat_map(values: Sequence[T] | Mapping[Seat, T]) -> dict[str, T]:
    """Values indexed by seat, keyed by the seat's letter."""
    return {s.name: values[s] for s in Seat}
