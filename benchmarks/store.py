"""The store's write of one table action, on PostgreSQL and SQLite: what checking a pooled
connection before each use (``pool_pre_ping``) costs.

    python benchmarks/store.py [--writes 2000] [--rounds 5] [--pg URL] [--json]

A table stores each play as one transaction (``Store.add_action``: the action's row and the
table's fenced seating).  On PostgreSQL the store's engine checks each connection it takes from
its pool with a round trip before using it, so that a connection the database dropped (a
restart, a failover) is replaced instead of failing the next play; this measures that check:
the same store, the same writes, its pool's check on and off, rounds alternating so that both
see the same machine.  SQLite (a file, no pool check: nothing to drop) is the reference.  Makes
a PostgreSQL database of its own on ``--pg`` (a server URL; the database is made and dropped)
and a SQLite file in a temporary folder.  Reports the median and the 90th percentile of one
write in microseconds, each mode's median over its rounds.  Its database and reporting pieces
(``postgres``, ``on_each_store``, ``spread``, ``over_rounds``, ``print_results``) serve the other
benchmarks of the store too (``benchmarks/links.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, make_url, text

from gongzhu.server.store import Seating, Store

SEATS = (("u-n", "北"), ("u-e", "东"), ("u-s", "南"), ("u-w", "西"))


def seating(version: int) -> Seating:
    return Seating(host="u-s", seats=SEATS, levels={s: "expert" for s in "NESW"}, visibility="private",
                   invite=None, turn_seconds=None, expose_seconds=None, status="playing", version=version,
                   auto=(False,) * 4, timeouts=(0,) * 4, deadline=None, dealt_to=tuple(s[0] for s in SEATS))


@contextmanager
def postgres(server: str) -> Iterator[str]:
    """A new database on the PostgreSQL at ``server``, dropped afterwards."""
    name = f"gz_bench_{secrets.token_hex(4)}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(server).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def database_options(parser: argparse.ArgumentParser) -> None:
    """The options every benchmark of the store takes: ``--pg`` and ``--json``."""
    parser.add_argument("--pg", default=os.environ.get("GONGZHU_TEST_PG",
                                                       "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"),
                        help="a PostgreSQL server (the URL of a database on it); a database is made and dropped")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}"


def on_each_store(pg: str, measure: Callable[[str, str], dict[str, dict[str, float]]]) -> dict[str, Any]:
    """``measure(url, backend)`` on a PostgreSQL database of its own on ``pg`` (made and dropped),
    then on a SQLite file in a temporary folder: the results by backend."""
    results: dict[str, Any] = {}
    with postgres(pg) as url:
        results["postgresql"] = measure(url, "postgresql")
    with tempfile.TemporaryDirectory() as folder:
        results["sqlite"] = measure(f"sqlite:///{Path(folder) / 'bench.db'}", "sqlite")
    return results


def spread(times: list[float]) -> tuple[float, float]:
    """The median and the 90th percentile of one round's times."""
    ordered = sorted(times)
    return statistics.median(ordered), ordered[int(0.9 * len(ordered))]


def over_rounds(runs: list[tuple[float, float]]) -> dict[str, float]:
    """Each round's median and 90th percentile (:func:`spread`), their medians over the rounds."""
    return {"median_us": statistics.median(r[0] for r in runs), "p90_us": statistics.median(r[1] for r in runs)}


def print_results(results: dict[str, Any], heading: str, width: int) -> None:
    print(f"{results['machine']}; {heading}")
    for backend in ("postgresql", "sqlite"):
        for kind, r in results[backend].items():
            print(f"  {backend:<10} {kind:<{width}} median {r['median_us']:7.0f} µs   p90 {r['p90_us']:7.0f} µs")


def rounds_main(doc: str, measure: Callable[[str, int, int], dict[str, dict[str, float]]], *, calls: int, unit: str,
                width: int) -> int:
    """The command line of a benchmark of the store that times kinds of calls in rounds (``--calls``,
    ``--rounds`` and :func:`database_options`): ``measure(url, calls, rounds)`` on each store
    (:func:`on_each_store`), printed (:func:`print_results`) or as JSON; ``unit`` names the calls."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=calls, help=f"{unit} of each kind in each round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds, the kinds taking turns")
    database_options(parser)
    args = parser.parse_args()
    results: dict[str, Any] = {"machine": machine(), "calls": args.calls, "rounds": args.rounds}
    results |= on_each_store(args.pg, lambda url, _backend: measure(url, args.calls, args.rounds))
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print_results(results, f"{args.calls} {unit} x {args.rounds} rounds a kind", width)
    return 0


def writes(store: Store, match_id: str, deal: int, count: int, version: int) -> tuple[list[float], int]:
    """``count`` plays stored as a table stores them; each one's time (µs) and the last version."""
    times = []
    for seq in range(count):
        began = time.perf_counter()
        store.add_action(match_id, deal, seq, {"seat": "S", "type": "play", "cards": ["2C"]},
                         seating(version + 1), expected=version)
        times.append((time.perf_counter() - began) * 1e6)
        version += 1
    return times, version


def measure(url: str, count: int, rounds: int, modes: list[bool]) -> dict[str, dict[str, float]]:
    store = Store(url)
    try:
        store.create_match(match_id="m-bench", preset="online", options={}, speed="normal", seed=1,
                           seating=seating(0))
        version, deal = 0, 0
        _, version = writes(store, "m-bench", deal, 200, version)  # warm: the pool, the plans
        found: dict[bool, list[tuple[float, float]]] = {mode: [] for mode in modes}
        for _ in range(rounds):
            for mode in modes:
                store.engine.pool._pre_ping = mode  # the same pool, its check on or off
                deal += 1
                times, version = writes(store, "m-bench", deal, count, version)
                found[mode].append(spread(times))
        return {("pre_ping" if mode else "no_pre_ping"): over_rounds(runs) for mode, runs in found.items()}
    finally:
        store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=int, default=2000, help="plays stored in each round of each mode")
    parser.add_argument("--rounds", type=int, default=5, help="rounds, the modes alternating")
    database_options(parser)
    args = parser.parse_args()
    results: dict[str, Any] = {"machine": machine(), "writes": args.writes, "rounds": args.rounds}
    modes = {"postgresql": [True, False], "sqlite": [False]}  # (its pool's check on and off; SQLite: none)
    results |= on_each_store(args.pg, lambda url, backend: measure(url, args.writes, args.rounds, modes[backend]))
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print_results(results, f"{args.writes} writes x {args.rounds} rounds a mode", 12)
    return 0


if __name__ == "__main__":
    sys.exit(main())
