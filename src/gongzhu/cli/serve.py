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
import os
import sys
from pathlib import Path
from typing import Any

__all__ = ["default_db_url", "register", "run", "shown_url"]

#: The worker processes of the deal reviews unless ``--review-workers`` says otherwise (the
#: server's own default, gongzhu.server.reviews.WORKERS, which is not imported before serving).
REVIEW_WORKERS = 2
#: WebSockets one client address may hold open unless ``--websockets-per-address`` says otherwise
#: (gongzhu.server.policy.WEBSOCKETS_PER_ADDRESS, not imported before serving either).
WEBSOCKETS_PER_ADDRESS = 32
#: Guests one client address may make in an hour unless ``--guests-per-address`` says otherwise
#: (gongzhu.server.identity.GUESTS_PER_ADDRESS, not imported before serving either).
GUESTS_PER_ADDRESS = 300
#: The kinds of forwarding headers ``--forwarded-header`` names, the first the default
#: (gongzhu.server.policy.FORWARDED_HEADERS and FORWARDED_HEADER, not imported before serving).
FORWARDED_HEADERS = ("x-forwarded-for", "forwarded")


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
    p.add_argument("--redis", default=None, type=_redis, metavar="URL",
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
                   help="a reverse proxy whose forwarding headers (--forwarded-header) give the client's address "
                        "and scheme, e.g. 127.0.0.1 or 10.0.0.0/8 (repeatable; none by default: the headers are "
                        "ignored)")
    p.add_argument("--forwarded-header", type=_forwarded_header, choices=FORWARDED_HEADERS,
                   default=FORWARDED_HEADERS[0],
                   help="the forwarding header the trusted proxies write, and the only one read: x-forwarded-for "
                        "(default: X-Forwarded-For and X-Forwarded-Proto, which Caddy and the usual nginx setup "
                        "write) or forwarded (RFC 7239's Forwarded: for=...;proto=...); a proxy passes the other "
                        "on from the client as it came")
    p.add_argument("--websockets-per-address", type=_sockets, default=WEBSOCKETS_PER_ADDRESS, metavar="N",
                   help=f"WebSockets one client address may hold open at once (default {WEBSOCKETS_PER_ADDRESS}; "
                        "0: no bound)")
    p.add_argument("--guests-per-address", type=_guests, default=GUESTS_PER_ADDRESS, metavar="N",
                   help=f"guests (visitors without a session) one client address may make in an hour (default "
                        f"{GUESTS_PER_ADDRESS}; 0: no bound; docs/operations.md)")
    p.add_argument("--metrics-allow", action="append", default=[], type=_network, metavar="ADDR_OR_CIDR",
                   help="a client address or network that may read GET /metrics, e.g. 10.0.0.0/8 (repeatable; "
                        "default 127.0.0.1 and ::1: this machine; behind a --trusted-proxy, the client it "
                        "forwards counts; docs/operations.md)")
    p.add_argument("--log-format", choices=("json", "text"), default="text",
                   help="the server's log on standard error: text (default: warnings and errors) or json "
                        "(one JSON object a line: every request and table action, with its request id; "
                        "docs/operations.md)")
    p.set_defaults(run=run)
    settings_from_environment(p)


#: Where an option's variable starts: ``--allowed-origin`` is ``GONGZHU_ALLOWED_ORIGIN``.
ENVIRONMENT_PREFIX = "GONGZHU_"
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def environment_variable(action: argparse.Action) -> str | None:
    """The environment variable of an option: ``GONGZHU_`` and its long name in capitals, ``-``
    as ``_`` (``--websockets-per-address``: ``GONGZHU_WEBSOCKETS_PER_ADDRESS``); None for
    ``--help`` and positional arguments."""
    longs = [o for o in action.option_strings if o.startswith("--")]
    if not longs or isinstance(action, argparse._HelpAction):
        return None
    return ENVIRONMENT_PREFIX + longs[0][2:].upper().replace("-", "_")


def settings_from_environment(parser: argparse.ArgumentParser) -> None:
    """Let every option of ``parser`` be set by its environment variable
    (:func:`environment_variable`), as a container or a service manager sets a server's
    settings.  The variables are read when the command line is parsed, so an option added to
    the parser later has its variable too.  A variable that is empty or not set changes
    nothing; an option on the command line wins over its variable; a repeatable option takes
    several values separated by commas or spaces (and the command line's replace them); a flag
    takes 1/true/yes/on or 0/false/no/off.  Each value goes through the option's own type and
    choices: a bad one ends the command with one line naming the variable (status 2)."""
    parser.epilog = ((parser.epilog + " ") if parser.epilog else "") + (
        f"Every option can also be set by an environment variable: {ENVIRONMENT_PREFIX} and the option's "
        f"name in capitals, - as _ ({ENVIRONMENT_PREFIX}DB, {ENVIRONMENT_PREFIX}PORT, "
        f"{ENVIRONMENT_PREFIX}ALLOWED_ORIGIN ...; several values of a repeatable option separated by commas "
        "or spaces); the command line wins over the environment.")
    parse = parser.parse_known_args

    def parse_known_args(args: Any = None, namespace: argparse.Namespace | None = None) -> Any:
        namespace = argparse.Namespace() if namespace is None else namespace
        repeated: dict[str, int] = {}
        for action in parser._actions:
            variable = environment_variable(action)
            text = os.environ.get(variable, "").strip() if variable else ""
            if not variable or not text or hasattr(namespace, action.dest):
                continue
            value = _environment_value(parser, action, variable, text)
            if isinstance(action, argparse._AppendAction):
                repeated[action.dest] = len(value)
            setattr(namespace, action.dest, value)
        parsed, extras = parse(args, namespace)
        for dest, count in repeated.items():  # values on the command line replace the variable's
            values = getattr(parsed, dest)
            if len(values) > count:
                setattr(parsed, dest, values[count:])
        return parsed, extras

    setattr(parser, "parse_known_args", parse_known_args)  # noqa: B010 (a method of this one parser)


def _environment_value(parser: argparse.ArgumentParser, action: argparse.Action, variable: str, text: str) -> Any:
    """``text`` of ``variable`` as ``action``'s value, or the command ended with one line."""
    if action.nargs == 0:  # a flag: store_true, store_false, store_const
        if text.lower() not in _TRUE + _FALSE:
            parser.exit(2, f"{parser.prog}: {variable}={text!r}: not one of 1, true, yes, on, 0, false, no, off\n")
        return action.const if text.lower() in _TRUE else action.default
    convert = action.type if callable(action.type) else str
    words = text.replace(",", " ").split() if isinstance(action, argparse._AppendAction) else [text]
    values = []
    for word in words:
        try:
            value = convert(word)
        except (argparse.ArgumentTypeError, TypeError, ValueError) as e:
            reason = str(e) if isinstance(e, argparse.ArgumentTypeError) else f"not a valid {action.dest} value"
            parser.exit(2, f"{parser.prog}: {variable}={_masked(word)!r}: {reason}\n")
        if action.choices is not None and value not in action.choices:
            shown = ", ".join(map(str, action.choices))
            parser.exit(2, f"{parser.prog}: {variable}={_masked(word)!r}: not one of {shown}\n")
        values.append(value)
    return values if isinstance(action, argparse._AppendAction) else values[0]


def _masked(text: str) -> str:
    """``text`` as a refusal repeats it: the password of a URL in it (``scheme://user:SECRET@``)
    as ``***``."""
    import re

    return re.sub(r"(//[^/@]*?:)[^/@]*@", r"\1***@", text)


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


def _forwarded_header(text: str) -> str:
    """``--forwarded-header``: ``x-forwarded-for`` or ``forwarded``, in any case."""
    value = text.strip().lower()
    if value not in FORWARDED_HEADERS:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a forwarding header the server reads: {' or '.join(FORWARDED_HEADERS)}")
    return value


def _redis(text: str) -> str:
    """``--redis``: a Redis URL, ``redis://`` (``rediss://`` over TLS) with a host, a port and a
    database number (each optional), or ``unix://`` and a socket's path — checked before the server
    starts, so that an address without its scheme (``127.0.0.1:6379``) ends the command with one
    line rather than the server's start.  A password in it is never repeated."""
    from urllib.parse import urlsplit

    value = text.strip()
    shown = _masked(value)
    example = "is not a Redis URL such as redis://127.0.0.1:6379/0 (redis://, rediss:// or unix://)"
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{shown!r} {example}: its port is not a number from 0 to 65535") from None
    if parts.scheme in ("redis", "rediss"):  # no host: localhost, as Redis's client has it
        number = parts.path.strip("/")
        if number and not (number.isascii() and number.isdigit()):
            raise argparse.ArgumentTypeError(f"{shown!r} {example}: its database {number!r} is not a number")
    elif parts.scheme == "unix":
        if not parts.path:
            raise argparse.ArgumentTypeError(f"{shown!r} {example}: it names no socket")
    else:
        raise argparse.ArgumentTypeError(f"{shown!r} {example}")
    return value


def _sockets(text: str) -> int:
    """``--websockets-per-address``: a whole number from 0 (no bound) to 100,000."""
    if not (text.isascii() and text.isdigit()) or int(text) > 100_000:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of WebSockets from 0 (no bound) to 100000")
    return int(text)


def _guests(text: str) -> int:
    """``--guests-per-address``: a whole number from 0 (no bound) to 1,000,000."""
    if not (text.isascii() and text.isdigit()) or int(text) > 1_000_000:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of guests an hour from 0 (no bound) to 1000000")
    return int(text)


def _sqlite_folder(url: str) -> None:
    """Create the folder of a SQLite file URL, as for the default database."""
    prefix = "sqlite:///"
    if url.startswith(prefix) and url[len(prefix):] not in ("", ":memory:"):
        Path(url[len(prefix):].split("?", 1)[0]).parent.mkdir(parents=True, exist_ok=True)


def shown_url(url: str) -> str:
    """A database (or Redis) URL as the command shows it: its password, if any, as ``***``."""
    from sqlalchemy import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(not a database URL)"


def _said(args: argparse.Namespace, line: str) -> None:
    """A line ``gongzhu serve`` ends with: on standard error, as one JSON line of the server's
    log with ``--log-format json`` (every line of the process is then JSON)."""
    if getattr(args, "log_format", "text") == "json":
        import logging

        logging.getLogger("gongzhu.server").error(line)
    else:
        print(line, file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    import socket

    import uvicorn

    from gongzhu.server.app import create_app
    from gongzhu.server.policy import normalize_origin, server_hosts
    from gongzhu.server.transport import server_config

    if getattr(args, "log_format", "text") == "json":
        from gongzhu.server.logs import use_json

        use_json()
    db_url = args.db or default_db_url()
    try:
        origins = [normalize_origin(o) for o in args.allowed_origin]
    except ValueError as e:
        _said(args, f"gongzhu serve: --allowed-origin: {e}")
        return 2
    hosts = server_hosts(args.host, args.allowed_host, origins)
    try:
        _sqlite_folder(db_url)
        app = create_app(db_url, allowed_hosts=hosts, allowed_origins=origins, redis_url=args.redis,
                         review_workers=getattr(args, "review_workers", REVIEW_WORKERS),
                         trusted_proxies=getattr(args, "trusted_proxy", []),
                         forwarded_header=getattr(args, "forwarded_header", FORWARDED_HEADERS[0]),
                         websockets_per_address=getattr(args, "websockets_per_address", WEBSOCKETS_PER_ADDRESS),
                         guests_per_address=getattr(args, "guests_per_address", GUESTS_PER_ADDRESS),
                         metrics_allow=getattr(args, "metrics_allow", None) or ("127.0.0.1", "::1"))
    except Exception as e:
        _said(args, f"gongzhu serve: cannot open the database {shown_url(db_url)}: {e}")
        return 2
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((args.host, args.port))
    except OSError as e:
        _said(args, f"gongzhu serve: cannot listen on {args.host}:{args.port}: {e}")
        return 2
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    shared = f"; shared through {shown_url(args.redis)}" if args.redis else ""
    print(f"gongzhu: open http://{shown}:{port}/ in your browser (database {shown_url(db_url)}{shared}; "
          "Ctrl+C stops)",
          flush=True)
    if hosts == server_hosts("127.0.0.1") and args.host not in ("127.0.0.1", "localhost", "::1"):
        print("gongzhu serve: only loopback host names are accepted; add the names players use with "
              "--allowed-host (or --allowed-origin behind a proxy)", file=sys.stderr, flush=True)
    # The transport's own bounds, below the application's limits (docs/web-protocol.md): slow
    # and large requests, large WebSocket messages (gongzhu.server.transport).
    # with JSON logs, uvicorn's loggers keep to the handler of gongzhu.server.logs
    log_options: dict[str, Any] = {"log_config": None} if getattr(args, "log_format", "text") == "json" else {}
    server = uvicorn.Server(server_config(app, **log_options))
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
