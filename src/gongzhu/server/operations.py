"""The routes of the server's operator (``docs/operations.md``): whether the process lives
(``GET /healthz``), whether it can serve (``GET /readyz``: its database answers at the newest
schema this gongzhu knows, and Redis answers when it is one of several servers), and its metrics
(``GET /metrics``, Prometheus's text format, only to the client addresses the operator allows:
``gongzhu serve --metrics-allow``; a 404 to anyone else, as for a path that is not there).

:func:`watch` adds to the metrics what is counted at each scrape: the open WebSockets, the tables
by state and the reviews waiting and running.

Imports the store and its migrations, the registry, the cluster, the reviews, the metrics and the
client addresses of :mod:`gongzhu.server.policy`.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Sequence
from typing import Any

from sqlalchemy import text
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from gongzhu.server.cluster import Cluster
from gongzhu.server.metrics import CONTENT_TYPE, Metrics
from gongzhu.server.migrations import not_at_head
from gongzhu.server.policy import TrustedProxies, client_address, from_trusted_proxy
from gongzhu.server.registry import Tables
from gongzhu.server.reviews import Reviews
from gongzhu.server.store import Store

__all__ = ["METRICS_ALLOW", "READY_WAIT", "allowed_networks", "routes", "watch"]

#: Who may read ``/metrics`` unless ``gongzhu serve --metrics-allow`` says otherwise: this machine.
METRICS_ALLOW = ("127.0.0.1", "::1")
#: How long (seconds) ``/readyz`` waits for the database, and for Redis, before it calls them away.
READY_WAIT = 3.0
#: The states a table may be in (``matches.status``).
TABLE_STATES = ("waiting", "playing", "over")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def allowed_networks(allow: Sequence[str]) -> tuple[Network, ...]:
    """The addresses and networks of ``allow`` (``127.0.0.1``, ``10.0.0.0/8``, ``::1``); raises
    ValueError for anything else."""
    return tuple(ipaddress.ip_network(a.strip(), strict=False) for a in allow)


def watch(metrics: Metrics, tables: Tables, reviews: Reviews) -> None:
    """Count, at each scrape, this server's open WebSockets, the tables it runs by state and its
    reviews waiting and running."""

    def sockets() -> dict[str, float]:
        return {"table": len(tables.board.local), "lobby": len(tables.lobby.outboxes)}

    def states() -> dict[str, float]:
        counts: dict[str, float] = {}
        for match_id in tables.owned():
            table = tables.loaded(match_id)
            if table is not None:
                counts[table.status] = counts.get(table.status, 0) + 1
        return counts

    def queued() -> dict[str, float]:
        counts = reviews.counts
        return {"waiting": counts["waiting"], "running": counts["running"]}

    metrics.sample("gongzhu_websockets", "Open WebSocket connections to this server: table (a table's page) "
                   "or lobby", "kind", sockets, ("table", "lobby"))
    metrics.sample("gongzhu_tables", "Tables this server runs (in memory: someone is at them), by state",
                   "state", states, TABLE_STATES)
    metrics.sample("gongzhu_reviews", "Deal reviews of this server: waiting for their turn, or running",
                   "state", queued, ("waiting", "running"))


def _store_check(store: Store) -> dict[str, str]:
    """The store's part of ``/readyz``: a trivial query, and the schema's revision."""
    with store.engine.connect() as c:
        c.execute(text("SELECT 1"))
        where = not_at_head(c)
    if where is None:
        return {"store": "ok", "schema": "ok"}
    return {"store": "ok", "schema": f"{where}, the newest this server knows"}


def routes(metrics: Metrics, tables: Tables, store: Store, allow: Sequence[str],
           proxies: TrustedProxies) -> list[Route]:
    """``/healthz``, ``/readyz`` and ``/metrics`` (see the module docstring); ``allow``: the
    client addresses and networks that may read the metrics."""
    networks = allowed_networks(allow)

    async def healthz(_request: Request) -> Response:
        return JSONResponse({"ok": True}, headers={"Cache-Control": "no-store"})

    async def readyz(_request: Request) -> Response:
        checks: dict[str, str] = {}
        try:
            checks.update(await asyncio.wait_for(asyncio.to_thread(_store_check, store), READY_WAIT))
        except TimeoutError:
            checks["store"] = f"no answer within {READY_WAIT:.0f} s"
        except Exception as e:  # the database is away: say which error, not its address
            checks["store"] = f"unreachable ({e.__class__.__name__})"
        bus = tables.bus
        if isinstance(bus, Cluster):
            try:
                await asyncio.wait_for(bus.ping(), READY_WAIT)
                checks["redis"] = "ok"
            except TimeoutError:
                checks["redis"] = f"no answer within {READY_WAIT:.0f} s"
            except Exception as e:
                checks["redis"] = f"unreachable ({e.__class__.__name__})"
        failed = sorted(name for name, result in checks.items() if result != "ok")
        body: dict[str, Any] = {"ok": not failed, "checks": checks}
        if failed:
            body["failed"] = failed
        return JSONResponse(body, status_code=503 if failed else 200, headers={"Cache-Control": "no-store"})

    async def metrics_text(request: Request) -> Response:
        try:
            address = ipaddress.ip_address(client_address(request))
        except ValueError:  # no address (a Unix socket): nobody the operator named
            raise HTTPException(404) from None
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        if not any(address in network for network in networks):
            raise HTTPException(404)  # as for a path that is not there
        if not from_trusted_proxy(request.scope, proxies) and any(
                name in (b"x-forwarded-for", b"forwarded") for name, _ in request.scope.get("headers", [])):
            # Forwarded by a proxy the server was not told to trust (a balancer on this machine
            # without --trusted-proxy): the peer's allowed address is the proxy's, not the client's.
            raise HTTPException(404)
        return Response(metrics.text(), media_type=CONTENT_TYPE, headers={"Cache-Control": "no-store"})

    return [Route("/healthz", healthz), Route("/readyz", readyz), Route("/metrics", metrics_text)]
