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
write in microseconds, each mode's median over its rounds.
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
from collections.abc import Iterator
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
                times.sort()
                found[mode].append((statistics.median(times), times[int(0.9 * len(times))]))
        return {("pre_ping" if mode else "no_pre_ping"): {
            "median_us": statistics.median(r[0] for r in runs), "p90_us": statistics.median(r[1] for r in runs)}
            for mode, runs in found.items()}
    finally:
        store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=int, default=2000, help="plays stored in each round of each mode")
    parser.add_argument("--rounds", type=int, default=5, help="rounds, the modes alternating")
    parser.add_argument("--pg", default=os.environ.get("GONGZHU_TEST_PG",
                                                       "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"),
                        help="a PostgreSQL server (the URL of a database on it); a database is made and dropped")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    results: dict[str, Any] = {"machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}",
                               "writes": args.writes, "rounds": args.rounds}
    with postgres(args.pg) as url:
        results["postgresql"] = measure(url, args.writes, args.rounds, [True, False])
    with tempfile.TemporaryDirectory() as folder:
        results["sqlite"] = measure(f"sqlite:///{Path(folder) / 'bench.db'}", args.writes, args.rounds, [False])
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{results['machine']}; {args.writes} writes x {args.rounds} rounds a mode")
    for backend in ("postgresql", "sqlite"):
        for mode, r in results[backend].items():
            print(f"  {backend:<10} {mode:<12} median {r['median_us']:7.0f} µs   p90 {r['p90_us']:7.0f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
