"""What the server accepts from the network, and the headers that keep its page to itself.

:class:`SitePolicy`, a plain ASGI middleware, refuses a request or WebSocket whose ``Host`` is
not one of the server's names (400), that carries another site's ``Origin`` (403) or headers
past :data:`MAX_HEADER_BYTES` (431), and adds the security headers to every answer (a health
check, :data:`HEALTH_PATHS`, is answered to any host); a body may hold :data:`MAX_BODY_BYTES` and a
WebSocket message :data:`MAX_MESSAGE_BYTES`.
:class:`RateLimiter` is the per-connection message budget of the WebSocket, :class:`SocketSlots`
the open WebSockets of each address, :class:`Attempts` a count of what one key (an address, a
person) did in a sliding window (new accounts, new guests, challenges made), and
:func:`client_address` the address a client is counted by, read from forwarding headers only
when the peer is a proxy the operator trusts, and only from the one kind of header those proxies
write (:class:`TrustedProxies`).  Each rule and its reason: ``docs/web-protocol.md``, Limits and
the origin policy.  Imports nothing from ``gongzhu``.
"""

from __future__ import annotations

import ipaddress
import logging
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "FORWARDED_HEADER",
    "FORWARDED_HEADERS",
    "HEALTH_PATHS",
    "LOOPBACK_HOSTS",
    "MAX_BODY_BYTES",
    "MAX_HEADER_BYTES",
    "MAX_MESSAGE_BYTES",
    "MESSAGE_BURST",
    "MESSAGE_RATE",
    "OUTBOX_LIMIT",
    "SECURITY_HEADERS",
    "WEBSOCKETS_PER_ADDRESS",
    "Attempts",
    "RateLimiter",
    "SitePolicy",
    "SocketSlots",
    "TrustedProxies",
    "client_address",
    "counted_address",
    "from_trusted_proxy",
    "normalize_origin",
    "server_hosts",
]

log = logging.getLogger("gongzhu.server")

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

#: WebSockets one client address may hold open at once (``gongzhu serve
#: --websockets-per-address``): a family or a club behind one router has a few each.
WEBSOCKETS_PER_ADDRESS = 32

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")

#: The kinds of forwarding headers a trusted proxy may write (``gongzhu serve
#: --forwarded-header``): ``x-forwarded-for`` (the client's address in ``X-Forwarded-For``, the
#: scheme in ``X-Forwarded-Proto``) or ``forwarded`` (RFC 7239's ``Forwarded: for=…;proto=…``).
FORWARDED_HEADERS = ("x-forwarded-for", "forwarded")
#: The kind read unless the operator says otherwise: what Caddy's ``reverse_proxy`` and nginx's
#: usual ``proxy_set_header`` lines write (docs/deploy.md).
FORWARDED_HEADER = "x-forwarded-for"

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy",
     b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
     b"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)

_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

#: The paths a load balancer's health checks ask for, with whatever ``Host`` it sends (an
#: instance's own address, often): answered to any host name, as they show nothing and change
#: nothing (docs/operations.md).
HEALTH_PATHS = frozenset({"/healthz", "/readyz"})


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


# ---------------------------------------------------------------------- client addresses

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: Where :class:`SitePolicy` leaves its :class:`TrustedProxies` in each ASGI scope.
_PROXIES = "gongzhu.trusted_proxies"


def _ip(text: str) -> IPAddress | None:
    """The IP address of a peer or of a forwarded hop (``192.0.2.1``, ``192.0.2.1:5678``,
    ``[2001:db8::1]:80``, ``2001:db8::1``, quoted or not), an IPv4-mapped IPv6 address as its IPv4
    address; None for anything else (``unknown``, an obfuscated name such as ``_proxy1``)."""
    value = text.strip().strip('"').strip()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        value = value[1:end]
    elif value.count(":") == 1:  # an IPv4 address and a port
        value = value.partition(":")[0]
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _forwarded_hops(headers: Iterable[tuple[bytes, bytes]], kind: str) -> list[str]:
    """The addresses a chain of proxies reports in the headers of ``kind`` (one of
    :data:`FORWARDED_HEADERS`), the nearest last: every ``X-Forwarded-For`` header's, in order, or
    the ``for=`` of each element of every ``Forwarded`` header (an element without ``for=`` is a
    hop nobody can read: ``""``).  The other kind is never read, whatever it says: a proxy passes
    it on from the client as it came."""
    if kind == "x-forwarded-for":
        return [hop for name, value in headers if name == b"x-forwarded-for"
                for hop in value.decode("latin-1").split(",")]
    hops: list[str] = []
    for name, value in headers:
        if name != b"forwarded":
            continue
        for element in value.decode("latin-1").split(","):
            hop = ""
            for pair in element.split(";"):
                key, _, given = pair.partition("=")
                if key.strip().lower() == "for":
                    hop = given
            hops.append(hop)
    return hops


class TrustedProxies:
    """The proxies whose forwarding headers the server believes (``gongzhu serve
    --trusted-proxy``): addresses and networks, ``127.0.0.1``, ``10.0.0.0/8``, ``::1``.  None by
    default.  ``header`` is the kind of forwarding headers they write (``gongzhu serve
    --forwarded-header``, one of :data:`FORWARDED_HEADERS`), and the only kind read, for the
    client's address and for the scheme: a proxy that writes one kind passes the other on from the
    client untouched, so reading both, or either when the other is missing, would let a client
    pick its own address.  Raises ValueError for anything that is not an address or a network,
    and for any other header."""

    def __init__(self, networks: Iterable[str] = (), header: str = FORWARDED_HEADER) -> None:
        self.networks = tuple(ipaddress.ip_network(n.strip(), strict=False) for n in networks)
        if header not in FORWARDED_HEADERS:
            raise ValueError(f"{header!r} is not a forwarding header the server reads: "
                             f"{' or '.join(FORWARDED_HEADERS)}")
        self.header = header

    def trusts(self, address: IPAddress | None) -> bool:
        return address is not None and any(address in network for network in self.networks)

    def __bool__(self) -> bool:
        return bool(self.networks)


_NOBODY = TrustedProxies()


def client_address(connection: HTTPConnection | Scope, proxies: TrustedProxies | None = None) -> str:
    """The address of whoever made a request or opened a WebSocket (a Starlette connection or its
    ASGI scope), as text: the peer's address, unless the peer is a trusted proxy (``proxies``, by
    default those :class:`SitePolicy` was given).  Then the hops its forwarding headers report are
    read from the nearest on, and the first that is not itself a trusted proxy is the client; a
    hop that is no address (``unknown``) stops there, at the proxy that wrote it.  Every header of
    a peer that is not trusted is ignored, so nobody chooses their own address."""
    scope = connection.scope if isinstance(connection, HTTPConnection) else connection
    if proxies is None:
        given = scope.get(_PROXIES)
        proxies = given if isinstance(given, TrustedProxies) else _NOBODY
    peer = scope.get("client")
    host = str(peer[0]) if peer else ""
    current = _ip(host)
    if current is None:
        return host  # a Unix socket, a test client: no address to trust
    if proxies.trusts(current):
        for hop in reversed(_forwarded_hops(scope.get("headers", []), proxies.header)):
            found = _ip(hop)
            if found is None:
                break
            current = found
            if not proxies.trusts(found):
                break
    return str(current)


def from_trusted_proxy(scope: Scope, proxies: TrustedProxies) -> bool:
    """Whether the peer of a request or WebSocket (its ASGI scope) is one of ``proxies``: only
    then are the headers a proxy adds (the client's address, its request id) believed."""
    peer = scope.get("client")
    return proxies.trusts(_ip(str(peer[0]) if peer else ""))


def counted_address(connection: HTTPConnection | Scope) -> str:
    """The client address by which the server counts what a client does (failed sign-ins, new
    accounts, open WebSockets): :func:`client_address`, except that an IPv6 address counts as its
    /64 network — what one subscriber is given, so that rotating through it is no way around a
    bound."""
    address = client_address(connection)
    found = _ip(address)
    if found is None or found.version == 4:
        return address
    return str(ipaddress.ip_network(f"{found}/64", strict=False))


def _forwarded_scheme(scope: Scope, proxies: TrustedProxies) -> None:
    """A request or WebSocket that a trusted proxy passes on takes the scheme the proxy says it
    came by, in the kind of header the proxies write (``X-Forwarded-Proto`` with
    ``x-forwarded-for``, ``Forwarded``'s ``proto=`` with ``forwarded``; the nearest proxy's): over
    https behind a proxy that ends TLS, the cookies are ``Secure`` and named ``__Host-…``, and the page's own origin
    is https.  The other kind is a client's own and changes nothing."""
    peer = scope.get("client")
    if not proxies.trusts(_ip(str(peer[0]) if peer else "")):
        return
    proto: str | None = None
    forwarded: str | None = None
    for name, value in scope.get("headers", []):
        if name == b"x-forwarded-proto" and proxies.header == "x-forwarded-for":
            proto = value.decode("latin-1").split(",")[-1]
        elif name == b"forwarded" and proxies.header == "forwarded":
            forwarded = value.decode("latin-1").split(",")[-1]
    if forwarded is not None:
        for pair in forwarded.split(";"):
            key, _, given = pair.partition("=")
            if key.strip().lower() == "proto":
                proto = given
    proto = (proto or "").strip().strip('"').lower()
    if proto in ("http", "https", "ws", "wss"):
        secure = proto in ("https", "wss")
        if scope["type"] == "websocket":
            scope["scheme"] = "wss" if secure else "ws"
        else:
            scope["scheme"] = "https" if secure else "http"


class SocketSlots:
    """At most ``most`` open WebSockets per client address (0: no bound).  :meth:`take` one as a
    WebSocket opens (False: that address holds them all already), :meth:`give_back` it as it
    closes.  Only addresses holding some are kept."""

    def __init__(self, most: int = WEBSOCKETS_PER_ADDRESS) -> None:
        self.most = most
        self.held: dict[str, int] = {}

    def take(self, address: str) -> bool:
        held = self.held.get(address, 0)
        if self.most and held >= self.most:
            return False
        self.held[address] = held + 1
        return True

    def give_back(self, address: str) -> None:
        held = self.held.get(address, 0) - 1
        if held > 0:
            self.held[address] = held
        else:
            self.held.pop(address, None)


# ---------------------------------------------------------------------- the middleware


class SitePolicy:
    """The host, origin and header checks (docs/web-protocol.md, Limits and the origin policy)
    as ASGI middleware.  ``trusted_proxies``: the proxies whose
    forwarding headers :func:`client_address` believes; ``forwarded_header``: the kind of those
    headers they write (:class:`TrustedProxies`)."""

    def __init__(self, app: ASGIApp, *, allowed_hosts: Sequence[str], allowed_origins: Sequence[str] = (),
                 trusted_proxies: Sequence[str] = (), forwarded_header: str = FORWARDED_HEADER) -> None:
        self.app = app
        self.any_host = "*" in allowed_hosts
        self.hosts = frozenset(h.lower() for h in allowed_hosts)
        self.origins = frozenset(normalize_origin(o) for o in allowed_origins)
        self.proxies = TrustedProxies(trusted_proxies, forwarded_header)
        self.warned = False
        self.warned_of_header = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        scope[_PROXIES] = self.proxies
        if self.proxies:
            _forwarded_scheme(scope, self.proxies)
        if not self.warned:
            self._warn_of_untrusted_proxy(scope)
        if self.proxies and not self.warned_of_header:
            self._warn_of_other_header(scope)
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

    def _warn_of_untrusted_proxy(self, scope: Scope) -> None:
        """Say once that forwarding headers come from a peer that is not a trusted proxy: behind
        a proxy the operator has not named, every client counts as the proxy's one address."""
        if not any(name in (b"x-forwarded-for", b"forwarded") for name, _ in scope.get("headers", [])):
            return
        peer = scope.get("client")
        host = str(peer[0]) if peer else ""
        if self.proxies.trusts(_ip(host)):
            return
        self.warned = True
        log.warning("requests from %s carry forwarding headers, but %s is not a trusted proxy: they are "
                    "ignored, and if a proxy sends them, every client behind it counts as one address "
                    "(gongzhu serve --trusted-proxy %s)", host, host, host)

    def _warn_of_other_header(self, scope: Scope) -> None:
        """Say once that a trusted proxy forwards a request with the other kind of forwarding
        header and none of the kind the server reads: that proxy writes the other kind (a client
        cannot take away a header its proxy adds), so every client behind it counts as its one
        address, and a client's own header of the kind read would be believed."""
        peer = scope.get("client")
        host = str(peer[0]) if peer else ""
        if not self.proxies.trusts(_ip(host)):
            return
        names = {name for name, _ in scope.get("headers", [])}
        read = self.proxies.header
        other = next(h for h in FORWARDED_HEADERS if h != read)
        if read.encode() in names or other.encode() not in names:
            return
        self.warned_of_header = True
        log.warning("requests from the trusted proxy %s carry %s but no %s, the only forwarding header this "
                    "server reads: if the proxy writes %s, start the server with --forwarded-header %s "
                    "(until then every client behind it counts as its one address, and a client that "
                    "sends its own %s picks its address)", host, _shown(other), _shown(read),
                    _shown(other), other, _shown(read))

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
        if scope["type"] == "http" and scope.get("path") in HEALTH_PATHS and scope.get("method") in ("GET", "HEAD"):
            return None  # a health check: any host, and no origin matters to a safe method
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


def _shown(header: str) -> str:
    """A header's name as people write it: ``X-Forwarded-For``, ``Forwarded``."""
    return "-".join(word.capitalize() for word in header.split("-"))


class Attempts:
    """At most ``limit`` attempts per key in any ``window`` seconds (a sliding window):
    :meth:`due` says how long until a key has room, :meth:`add` counts an attempt.  Keys idle for
    a window are forgotten; past ``most_keys`` the oldest keys are dropped, so memory stays
    bounded."""

    def __init__(self, limit: int, window: float, *, most_keys: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self.most_keys = most_keys
        self.clock = clock
        self.seen: dict[str, deque[float]] = {}

    def due(self, key: str) -> float:
        """Seconds until ``key`` may make another attempt (0.0: now)."""
        now = self.clock()
        times = self.seen.get(key)
        if times is None:
            return 0.0
        while times and times[0] <= now - self.window:
            times.popleft()
        return times[0] + self.window - now if len(times) >= self.limit else 0.0

    def add(self, key: str) -> None:
        now = self.clock()
        self.seen.setdefault(key, deque()).append(now)
        if len(self.seen) > self.most_keys:
            for idle in [k for k, times in self.seen.items() if not times or times[-1] <= now - self.window]:
                del self.seen[idle]
            while len(self.seen) > self.most_keys:
                del self.seen[next(iter(self.seen))]


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
