"""What the server accepts from the network, and the headers that keep its page to itself
(``docs/web-protocol.md``, Limits and the origin policy).

- **Hosts.** A request or WebSocket whose ``Host`` header is not one of the server's own names
  is refused (400): a page on another site that rebinds its DNS name to this server cannot read
  the API.  The names are the loopback ones, the address the server listens on when it is a
  specific one, and whatever ``--allowed-host`` / ``--allowed-origin`` add.
- **Origins.** A WebSocket, or a request that changes something (any method but GET, HEAD and
  OPTIONS), that carries an ``Origin`` other than the server's own (the scheme and the ``Host``
  it was reached at) or one given with ``--allowed-origin`` is refused (403); ``Origin: null``
  (sandboxed frames, local files) is refused too.  Requests without ``Origin`` come from programs,
  not from a page on another site (browsers always send it on WebSockets and POSTs), and are let
  through.
- **Sizes.** Request headers at most :data:`MAX_HEADER_BYTES` (431), a request body at most
  :data:`MAX_BODY_BYTES` (413), a WebSocket message at most :data:`MAX_MESSAGE_BYTES`.
- **Headers sent.** Every HTTP answer carries a Content-Security-Policy that allows only the
  server's own scripts, styles and connections and no framing, ``X-Frame-Options: DENY``,
  ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy: no-referrer``.

:class:`SitePolicy` is a plain ASGI middleware; :class:`RateLimiter` is the per-connection
message budget of the WebSocket.  Imports nothing from ``gongzhu``.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "LOOPBACK_HOSTS",
    "MAX_BODY_BYTES",
    "MAX_HEADER_BYTES",
    "MAX_MESSAGE_BYTES",
    "MESSAGE_BURST",
    "MESSAGE_RATE",
    "OUTBOX_LIMIT",
    "SECURITY_HEADERS",
    "RateLimiter",
    "SitePolicy",
    "normalize_origin",
    "server_hosts",
]

#: The most bytes of request headers (names and values) a request may carry.
MAX_HEADER_BYTES = 8 * 1024
#: The most bytes of a request body (a new match's settings take a few hundred).
MAX_BODY_BYTES = 8 * 1024
#: The most bytes of one WebSocket message (a play or a declaration takes under a hundred).
MAX_MESSAGE_BYTES = 4 * 1024
#: Messages of one connection handled per second on average, and in one burst (a person sends a
#: few a second; faster senders are slowed down, see RateLimiter).
MESSAGE_RATE = 50.0
MESSAGE_BURST = 100
#: Messages waiting to be sent to one connection before the server stops queueing and sends
#: the current table instead (a client that does not read costs no more than this).
OUTBOX_LIMIT = 64

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy",
     b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
     b"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)

_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def normalize_origin(origin: str) -> str:
    """``scheme://host[:port]`` in lower case, the default port dropped; raises ValueError for
    anything that is not such an origin (a path, a user name, another scheme)."""
    parts = urlsplit(origin.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/") \
            or parts.query or parts.fragment or parts.username is not None:
        raise ValueError(f"{origin!r} is not an origin such as https://gongzhu.example.org")
    port = parts.port  # raises ValueError for a bad port
    default = 443 if parts.scheme == "https" else 80
    host = parts.hostname.lower()
    shown = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{shown}" + (f":{port}" if port not in (None, default) else "")


def server_hosts(listen_host: str, allowed_hosts: Iterable[str] = (), allowed_origins: Iterable[str] = ()) -> list[str]:
    """The host names a server listening on ``listen_host`` answers to: the loopback names, the
    listening address itself unless it is a wildcard (``0.0.0.0``, ``::``), and the hosts of
    ``allowed_hosts`` and ``allowed_origins``."""
    hosts = list(LOOPBACK_HOSTS)
    try:
        wildcard = ipaddress.ip_address(listen_host).is_unspecified
    except ValueError:
        wildcard = False
    if listen_host and not wildcard:
        hosts.append(listen_host.lower())
    hosts.extend(h.lower() for h in allowed_hosts)
    for origin in allowed_origins:
        hostname = urlsplit(normalize_origin(origin)).hostname
        if hostname:
            hosts.append(hostname)
    return list(dict.fromkeys(hosts))


def _host_name(host_header: str) -> str | None:
    """The host name of a ``Host`` header (brackets and port removed), or None if malformed."""
    value = host_header.strip().lower()
    if not value:
        return None
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[1:end], value[end + 1:]
    else:
        name, _, port = value.partition(":")
        rest = ":" + port if port else ""
    if rest and not (rest.startswith(":") and rest[1:].isascii() and rest[1:].isdigit()):
        return None
    return name or None


class SitePolicy:
    """The ASGI middleware of the module docstring."""

    def __init__(self, app: ASGIApp, *, allowed_hosts: Sequence[str], allowed_origins: Sequence[str] = ()) -> None:
        self.app = app
        self.any_host = "*" in allowed_hosts
        self.hosts = frozenset(h.lower() for h in allowed_hosts)
        self.origins = frozenset(normalize_origin(o) for o in allowed_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is not None:
            status, message = refusal
            await self._refuse(scope, receive, send, status, message)
            return
        if kind == "websocket":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in SECURITY_HEADERS if n not in names]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _refusal(self, scope: Scope) -> tuple[int, str] | None:
        size = 0
        host_header: str | None = None
        origin: str | None = None
        for name, value in scope.get("headers", []):
            size += len(name) + len(value)
            if name == b"host":
                host_header = value.decode("latin-1")
            elif name == b"origin":
                origin = value.decode("latin-1")
        if size > MAX_HEADER_BYTES:
            return 431, f"the request headers are too large: at most {MAX_HEADER_BYTES} bytes"
        host = _host_name(host_header) if host_header is not None else None
        if host is None:
            return 400, "the request has no valid Host header"
        if not self.any_host and host not in self.hosts:
            return 400, ("this server does not answer to that host name "
                         "(gongzhu serve --allowed-host adds one)")
        if origin is None:
            return None
        if scope["type"] == "http" and scope.get("method", "GET") in _SAFE_METHODS:
            return None
        if self._origin_allowed(scope, origin, host_header or ""):
            return None
        return 403, ("requests from another site's page are refused: the Origin is not this server's "
                     "(gongzhu serve --allowed-origin adds one)")

    def _origin_allowed(self, scope: Scope, origin: str, host_header: str) -> bool:
        try:
            seen = normalize_origin(origin)
        except ValueError:
            return False  # "null", or not an origin at all
        if seen in self.origins:
            return True
        secure = scope.get("scheme") in ("https", "wss")
        try:
            own = normalize_origin(("https://" if secure else "http://") + host_header.strip())
        except ValueError:
            return False
        return seen == own

    @staticmethod
    async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, message: str) -> None:
        if scope["type"] == "websocket" and "websocket.http.response" not in scope.get("extensions", {}):
            await send({"type": "websocket.close", "code": 1008, "reason": message[:120]})
            return
        # An HTTP answer; on a WebSocket, the handshake's denial response (a browser sees a
        # failed connection).
        response = JSONResponse({"error": message}, status_code=status,
                                headers={n.decode(): v.decode() for n, v in SECURITY_HEADERS})
        await response(scope, receive, send)


class RateLimiter:
    """A token bucket of ``rate`` messages a second on average with bursts of ``burst``.
    :meth:`delay` counts one more message and says how long to wait before handling it: a
    connection that sends faster only slows itself down (while it waits, the server reads nothing
    more from it, so what it sends piles up on its own side), and never loses a message."""

    def __init__(self, rate: float = MESSAGE_RATE, burst: int = MESSAGE_BURST) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.last: float | None = None

    def delay(self, now: float) -> float:
        """Seconds from ``now`` until one more message fits the budget (0.0 if it fits now)."""
        if self.last is not None:
            self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        self.tokens -= 1.0
        return 0.0 if self.tokens >= 0.0 else -self.tokens / self.rate

    def allow(self, now: float) -> bool:
        """Whether one more message fits the budget at ``now`` (counted if it does; one that does
        not costs nothing, so a refused sender is not kept waiting longer)."""
        if self.last is not None:
            self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True
