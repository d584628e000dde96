"""How ``gongzhu serve`` runs the application under uvicorn: the bounds of the transport itself,
below the application's.

:func:`server_config` is ``gongzhu serve``'s uvicorn configuration: each request's head and
body must arrive within :data:`REQUEST_TIMEOUT` seconds and its head within
:data:`MOST_HEAD_BYTES` (:class:`_Bounds`, mixed into whichever HTTP/1.1 protocol uvicorn
chooses by :func:`bounded_http`); uvicorn reads no forwarding headers (the application does,
from the proxies the operator names); a WebSocket message past 16 × ``MAX_MESSAGE_BYTES`` closes
its connection, with no per-message compression; and :class:`OneLine` logs a text message that
is not UTF-8 as one line.  What each bound is for: ``docs/web-protocol.md``, Limits and the
origin policy (Under uvicorn).  Imports uvicorn, Starlette's types and the sizes of
:mod:`gongzhu.server.policy`.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import uvicorn
from starlette.types import ASGIApp
from uvicorn.protocols.http.auto import AutoHTTPProtocol

from gongzhu.server.policy import MAX_HEADER_BYTES, MAX_MESSAGE_BYTES

__all__ = ["MOST_HEAD_BYTES", "REQUEST_TIMEOUT", "OneLine", "bounded_http", "server_config"]

log = logging.getLogger("gongzhu.server")

#: Seconds a connection has to send each request, from when the server begins waiting for it.
REQUEST_TIMEOUT = 10.0
#: The most bytes of a request head the transport reads (the application refuses more than
#: MAX_HEADER_BYTES of headers with 431 itself).
MOST_HEAD_BYTES = 2 * MAX_HEADER_BYTES

_TOO_LARGE = b'{"error": "the request headers are too large"}'


class _Bounds(asyncio.Protocol):
    """The slow-request and head-size bounds (docs/web-protocol.md, Limits and the origin policy),
    mixed in before one of uvicorn's HTTP/1.1 protocols, httptools' or h11's (see
    :func:`bounded_http`), through what both have: ``connection_made``, ``data_received``,
    ``on_response_complete``, ``connection_lost`` and the request being read, ``cycle``
    (``more_body``, ``response_complete``).  A connection upgraded to a WebSocket is no longer
    theirs (``transport.get_protocol()``): its own protocol pings it and bounds its messages."""

    request_timeout: float = REQUEST_TIMEOUT
    most_head_bytes: int = MOST_HEAD_BYTES
    # Set by uvicorn's protocols, which this class is mixed into.
    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop
    cycle: Any
    _deadline: asyncio.TimerHandle | None = None
    _head_bytes = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._wait()

    def data_received(self, data: bytes) -> None:
        awaiting = self._awaiting()
        super().data_received(data)
        if not awaiting or self.transport.get_protocol() is not self or self.transport.is_closing():
            return
        if not self._awaiting():  # a head is in: its request is being read or answered
            self._head_bytes = 0
            return
        self._head_bytes += len(data)
        if self._head_bytes > self.most_head_bytes:
            log.info("a request head of more than %d bytes: the connection is closed", self.most_head_bytes)
            self.transport.write(b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
                                 b"content-type: application/json\r\nconnection: close\r\n"
                                 b"content-length: %d\r\n\r\n%s" % (len(_TOO_LARGE), _TOO_LARGE))
            self.transport.close()

    def on_response_complete(self) -> None:
        unread = self.cycle is not None and bool(self.cycle.more_body)
        super().on_response_complete()  # type: ignore[misc]  # uvicorn's protocol, after this one
        if unread and not self.transport.is_closing():
            # answered before its body was read (a 413, say): the rest of that body is neither
            # read nor taken for the next request's head — the connection ends with the answer
            self.transport.close()
            return
        self._wait()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        super().connection_lost(exc)

    def _awaiting(self) -> bool:
        """No request in progress: waiting for the head of the next one."""
        return self.cycle is None or bool(self.cycle.response_complete)

    def _wait(self) -> None:
        """The server begins waiting for a request: its time starts now."""
        if self._deadline is not None:
            self._deadline.cancel()
        self._head_bytes = 0
        self._deadline = self.loop.call_later(self.request_timeout, self._late)

    def _late(self) -> None:
        self._deadline = None
        if self.transport.get_protocol() is not self or self.transport.is_closing():
            return  # a WebSocket now, or closing anyway
        if self._awaiting() or self.cycle.more_body:
            log.info("a request not sent within %.0f s: the connection is closed", self.request_timeout)
            self.transport.close()


def bounded_http(request_timeout: float = REQUEST_TIMEOUT, most_head_bytes: int = MOST_HEAD_BYTES,
                 ) -> type[asyncio.Protocol]:
    """uvicorn's HTTP/1.1 protocol (httptools' when it is installed, else h11's) with the bounds
    of :class:`_Bounds`."""
    base: type[asyncio.Protocol] = AutoHTTPProtocol
    return type(f"Bounded{base.__name__}", (_Bounds, base),
                {"request_timeout": request_timeout, "most_head_bytes": most_head_bytes})


class OneLine(logging.Filter):
    """uvicorn's record of a WebSocket text message that is not UTF-8 (the connection is closed
    with 1007) as one warning without the decoding error's traceback: the client's mistake, not
    the server's."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and record.msg.startswith("Invalid UTF-8"):
            record.msg, record.args = "a WebSocket text message that is not UTF-8 was refused (closed with 1007)", ()
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, logging.getLevelName(logging.WARNING)
        return True


def _one_line_errors() -> None:
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, OneLine) for f in logger.filters):
        logger.addFilter(OneLine())


def server_config(app: ASGIApp, *, request_timeout: float = REQUEST_TIMEOUT, **options: Any) -> uvicorn.Config:
    """The uvicorn configuration of ``gongzhu serve`` for ``app`` (``options``: more of
    ``uvicorn.Config``'s, e.g. ``host`` and ``port``; tests shorten ``request_timeout``)."""
    config = uvicorn.Config(app, **{"log_level": "warning", "lifespan": "on", **options},
                            http=bounded_http(request_timeout), ws="auto", proxy_headers=False,
                            ws_max_size=16 * MAX_MESSAGE_BYTES, ws_per_message_deflate=False,
                            h11_max_incomplete_event_size=MOST_HEAD_BYTES)
    _one_line_errors()  # after uvicorn has configured its loggers
    return config
