"""Request bodies as the server reads them: strict JSON, bounded (``docs/web-protocol.md``,
Limits and the origin policy), typed by the declarations of :mod:`gongzhu.formats`.

A body is read no further than :data:`~gongzhu.server.policy.MAX_BODY_BYTES` (a declared
``Content-Length`` over it is refused before reading); a body that is not empty must be declared
``Content-Type: application/json``; an empty body is ``{}``.  Every refusal is a
:class:`BodyError` with its HTTP status and a plain English reason.

Imports the policy, :mod:`gongzhu.jsontext` and :mod:`gongzhu.formats`.
"""

from __future__ import annotations

from typing import Any, TypeVar

from starlette.requests import ClientDisconnect, Request

from gongzhu.formats import FormatError, typed
from gongzhu.jsontext import JSONTextError, decode_utf8, loads_strict, show
from gongzhu.server.policy import MAX_BODY_BYTES

__all__ = ["BodyError", "json_body", "typed_body"]

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
        return loads_strict(text) if text.strip() else {}
    except JSONTextError as e:
        raise BodyError(400, f"the body is not JSON: {e}") from None


async def typed_body(request: Request, kind: type[T]) -> T:
    """The request's body as ``kind`` (a declaration of :mod:`gongzhu.formats`); a body of the
    wrong shape is refused with the path of the bad field (400)."""
    data = await json_body(request)
    try:
        return typed(data, kind)
    except FormatError as e:
        raise BodyError(400, str(e)) from None
