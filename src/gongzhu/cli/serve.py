"""``gongzhu serve``: the browser game on a local server.

Starts the Starlette application of :mod:`gongzhu.server` under uvicorn, on loopback by default,
with a SQLite file in the user's data folder (``platformdirs.user_data_dir("gongzhu")``: on Linux
``$XDG_DATA_HOME/gongzhu`` or ``~/.local/share/gongzhu``, on macOS ``~/Library/Application
Support/gongzhu``, on Windows ``%LOCALAPPDATA%\\gongzhu``) unless ``--db`` gives another
SQLAlchemy URL, and prints the address to open.  The server modules are imported only when the
command runs, so the other commands start as fast as before.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["default_db_url", "register", "run"]

#: The worker processes of the deal reviews unless ``--review-workers`` says otherwise (the
#: server's own default, gongzhu.server.reviews.WORKERS, which is not imported before serving).
REVIEW_WORKERS = 2
#: WebSockets one client address may hold open unless ``--websockets-per-address`` says otherwise
#: (gongzhu.server.policy.WEBSOCKETS_PER_ADDRESS, not imported before serving either).
WEBSOCKETS_PER_ADDRESS = 32


def default_db_url() -> str:
    """``sqlite:///`` + ``gongzhu.db`` in the user's data folder for gongzhu (created)."""
    from platformdirs import user_data_dir

    folder = Path(user_data_dir("gongzhu", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'gongzhu.db'}"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "serve",
        help="the browser game: start a local server and print its address",
        description="Play Gongzhu (拱猪) in the browser: starts a local server against three computer "
                    "players and prints the address to open.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument("--db", default=None, metavar="URL",
                   help="SQLAlchemy database URL (default: a SQLite file in the user's data folder, "
                        "~/.local/share/gongzhu on Linux)")
    p.add_argument("--redis", default=None, metavar="URL",
                   help="run as one of several servers sharing the tables of one database (PostgreSQL) "
                        "through this Redis, e.g. redis://127.0.0.1:6379/0 (docs/deploy.md)")
    p.add_argument("--allowed-origin", action="append", default=[], metavar="ORIGIN",
                   help="another origin whose pages may use this server, e.g. https://gongzhu.example.org "
                        "behind a proxy (repeatable; the server's own origin always may)")
    p.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                   help="another host name the server answers to (repeatable; loopback names, the --host "
                        "address and the --allowed-origin hosts always are)")
    p.add_argument("--review-workers", type=_workers, default=REVIEW_WORKERS, metavar="N",
                   help="worker processes of the deal reviews (复盘), 0 to 64 (default 2; 0 reviews in the "
                        "server's own process, in a thread)")
    p.add_argument("--trusted-proxy", action="append", default=[], type=_network, metavar="ADDR_OR_CIDR",
                   help="a reverse proxy whose X-Forwarded-For / Forwarded headers give the client's address, "
                        "e.g. 127.0.0.1 or 10.0.0.0/8 (repeatable; none by default: the headers are ignored)")
    p.add_argument("--websockets-per-address", type=_sockets, default=WEBSOCKETS_PER_ADDRESS, metavar="N",
                   help=f"WebSockets one client address may hold open at once (default {WEBSOCKETS_PER_ADDRESS}; "
                        "0: no bound)")
    p.set_defaults(run=run)


def _workers(text: str) -> int:
    """``--review-workers``: a whole number from 0 to 64."""
    if not (text.isascii() and text.isdigit()) or int(text) > 64:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of worker processes from 0 to 64")
    return int(text)


def _network(text: str) -> str:
    """``--trusted-proxy``: an IP address or network (``127.0.0.1``, ``10.0.0.0/8``, ``::1``)."""
    import ipaddress

    try:
        ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an IP address or network such as 10.0.0.0/8") from None
    return text.strip()


def _sockets(text: str) -> int:
    """``--websockets-per-address``: a whole number from 0 (no bound) to 100,000."""
    if not (text.isascii() and text.isdigit()) or int(text) > 100_000:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of WebSockets from 0 (no bound) to 100000")
    return int(text)


def _sqlite_folder(url: str) -> None:
    """Create the folder of a SQLite file URL, as for the default database."""
    prefix = "sqlite:///"
    if url.startswith(prefix) and url[len(prefix):] not in ("", ":memory:"):
        Path(url[len(prefix):].split("?", 1)[0]).parent.mkdir(parents=True, exist_ok=True)


def run(args: argparse.Namespace) -> int:
    import socket

    import uvicorn

    from gongzhu.server.app import create_app
    from gongzhu.server.policy import normalize_origin, server_hosts
    from gongzhu.server.transport import server_config

    db_url = args.db or default_db_url()
    try:
        origins = [normalize_origin(o) for o in args.allowed_origin]
    except ValueError as e:
        print(f"gongzhu serve: --allowed-origin: {e}", file=sys.stderr)
        return 2
    hosts = server_hosts(args.host, args.allowed_host, origins)
    try:
        _sqlite_folder(db_url)
        app = create_app(db_url, allowed_hosts=hosts, allowed_origins=origins, redis_url=args.redis,
                         review_workers=getattr(args, "review_workers", REVIEW_WORKERS),
                         trusted_proxies=getattr(args, "trusted_proxy", []),
                         websockets_per_address=getattr(args, "websockets_per_address", WEBSOCKETS_PER_ADDRESS))
    except Exception as e:
        print(f"gongzhu serve: cannot open the database {db_url}: {e}", file=sys.stderr)
        return 2
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((args.host, args.port))
    except OSError as e:
        print(f"gongzhu serve: cannot listen on {args.host}:{args.port}: {e}", file=sys.stderr)
        return 2
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    shared = f"; shared through {args.redis}" if args.redis else ""
    print(f"gongzhu: open http://{shown}:{port}/ in your browser (database {db_url}{shared}; Ctrl+C stops)",
          flush=True)
    if hosts == server_hosts("127.0.0.1") and args.host not in ("127.0.0.1", "localhost", "::1"):
        print("gongzhu serve: only loopback host names are accepted; add the names players use with "
              "--allowed-host (or --allowed-origin behind a proxy)", file=sys.stderr, flush=True)
    # The transport's own bounds, below the application's limits (docs/web-protocol.md): slow
    # and large requests, large WebSocket messages (gongzhu.server.transport).
    server = uvicorn.Server(server_config(app))
    _tune_gc()
    server.run(sockets=[sock])  # uvicorn stops cleanly on Ctrl+C / SIGTERM
    return 0


#: The cyclic garbage collector's thresholds while serving (Python's defaults: 700, 10, 10).
GC_THRESHOLDS = (50_000, 20, 100)


def _tune_gc() -> None:
    """Keep the garbage collector's pauses off the players' plays.  Every open WebSocket keeps a
    few hundred objects alive (its coroutines through the middleware, its outbox, its table's
    views), and Python's collector walks them all on each full collection: with 2,000
    connections a pause of 100-250 ms, felt by every table at once.  What the server made
    before serving (modules, the application) is moved out of the collector's sight
    (``gc.freeze``), and collections run less often, so young objects die before they are
    promoted (``benchmarks/tables.py``: at 400 tables, p99 from 155 to 44 ms; see
    docs/benchmarks.md)."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
