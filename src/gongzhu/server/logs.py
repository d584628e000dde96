"""The server's logs for its operator (``gongzhu serve --log-format json``, ``docs/operations.md``):
one JSON object a line, each request's id, and what the line is about.

:class:`JsonLines` formats a log record as one JSON object (``time``, ``level``, ``logger``,
``message``, and where known ``request_id``, ``table``, ``person``, ``action``, ``outcome`` …);
:func:`use_json` sends every log line of the process to standard error so.  :class:`RequestIds`,
an ASGI middleware, gives each HTTP request and WebSocket connection an id — the
``X-Request-Id`` a trusted proxy sent, else a new one — returned in the answer's header and
carried by a context variable into every line logged while it is handled (:func:`about` adds the
table and the person), and logs one line per request (``gongzhu.access``).  A table action's
line names the person by their user id and the action by its type; a request's line gives its
path, which for a public profile holds the public name.  Never a password, a cookie, a session's
token or a card.

Imports :mod:`gongzhu.server.policy` (client addresses, trusted proxies).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import secrets
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, TextIO

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gongzhu.server.policy import TrustedProxies, client_address, from_trusted_proxy

__all__ = ["FIELDS", "JsonLines", "RequestIds", "about", "context", "use_json"]

#: The fields a line may carry besides time, level, logger and message (from the context of the
#: request, or given as ``extra``).
FIELDS = ("request_id", "table", "person", "action", "outcome", "code", "method", "path", "status", "duration_ms",
          "client")

#: What the request or connection being handled is (its id, its table, its person).
_CONTEXT: ContextVar[dict[str, Any] | None] = ContextVar("gongzhu_log_context", default=None)

#: A request id taken from a trusted proxy: short, and of characters that need no escaping.
_GIVEN_ID = re.compile(r"[A-Za-z0-9._:@/+=-]{1,128}")

access = logging.getLogger("gongzhu.access")


def context() -> dict[str, Any]:
    """The fields of the request or connection being handled (empty outside one)."""
    return dict(_CONTEXT.get() or {})


@contextlib.contextmanager
def about(**fields: Any) -> Iterator[None]:
    """Lines logged inside this block carry ``fields`` too (``table``, ``person``)."""
    token = _CONTEXT.set({**(_CONTEXT.get() or {}), **fields})
    try:
        yield
    finally:
        _CONTEXT.reset(token)


class JsonLines(logging.Formatter):
    """A log record as one line of JSON: ``time`` (UTC, ISO 8601), ``level``, ``logger``,
    ``message``, the fields of :data:`FIELDS` that are known, and ``error`` (the traceback) for a
    record of an exception."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        known = getattr(record, "gongzhu_context", None)
        if isinstance(known, dict):
            line.update(known)
        for name in FIELDS:
            value = record.__dict__.get(name)
            if value is not None:
                line[name] = value
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


class _Context(logging.Filter):
    """Puts the context of the request being handled on each record, as it is made (the record
    may be formatted elsewhere)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "gongzhu_context"):
            record.gongzhu_context = context()
        return True


def use_json(stream: TextIO | None = None) -> logging.Handler:
    """Log every line of the process as JSON on ``stream`` (standard error): the server's at the
    info level (a line per request and per table action), everything else's from warnings on.
    Returns the handler."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonLines())
    handler.addFilter(_Context())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.getLogger("gongzhu").setLevel(logging.INFO)
    return handler


def _given_id(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"x-request-id":
            text = value.decode("latin-1").strip()
            return text if _GIVEN_ID.fullmatch(text) else None
    return None


def _path(scope: Scope) -> str:
    """The path of a request as logged: its query left out (an invitation's token lives there)."""
    return str(scope.get("path", ""))[:200]


class RequestIds:
    """Each HTTP request and WebSocket connection's id (see the module docstring): a trusted
    proxy's ``X-Request-Id`` (of letters, digits and ``._:@/+=-``, at most 128), else 16 new hex
    digits; ``X-Request-Id`` in the answer (the WebSocket's handshake too).  One ``gongzhu.access``
    line per HTTP request (method, path without its query, status, duration, client address)
    and per WebSocket connection, as it ends."""

    def __init__(self, app: ASGIApp, *, trusted_proxies: TrustedProxies,
                 errors: Callable[[Exception], Awaitable[ASGIApp]] | None = None) -> None:
        self.app = app
        self.proxies = trusted_proxies
        #: The answer to an HTTP request whose handling raised before answering (the application's
        #: 500 or 503), sent here so that it carries the request's id and its lines are logged
        #: with it; None: the exception goes on out.
        self.errors = errors

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        given = _given_id(scope) if from_trusted_proxy(scope, self.proxies) else None
        request_id = given or secrets.token_hex(8)
        header = (b"x-request-id", request_id.encode("latin-1"))
        status: list[int] = []

        async def send_with_id(message: Message) -> None:
            if message["type"] in ("http.response.start", "websocket.accept", "websocket.http.response.start"):
                message = {**message, "headers": [*message.get("headers", []), header]}
                if "status" in message:
                    status.append(int(message["status"]))
            await send(message)

        started = time.perf_counter()
        with about(request_id=request_id):
            try:
                try:
                    await self.app(scope, receive, send_with_id)
                except Exception as exc:
                    if kind != "http" or status or self.errors is None:
                        raise  # an answer was begun (or a WebSocket): nothing more can be said
                    answer = await self.errors(exc)
                    await answer(scope, receive, send_with_id)
            finally:
                if access.isEnabledFor(logging.INFO):
                    access.info("%s %s", scope.get("method", "WEBSOCKET") if kind == "http" else "WEBSOCKET",
                                _path(scope), extra={
                                    "method": scope.get("method") if kind == "http" else "WEBSOCKET",
                                    "path": _path(scope), "status": status[0] if status else None,
                                    "duration_ms": round((time.perf_counter() - started) * 1000, 3),
                                    "client": client_address(scope, self.proxies)})
