"""The exact open-card solver (``gongzhu.search.solver``): how long one position takes to solve.

    python benchmarks/solver.py [--deals N] [--tricks 13 8 5] [--limit NODES] [--small-deals N]
                                [--mode values|value] [--json]

Positions: deal ``i`` of ``fast.random_deal_trace(Options(), seed, i)`` (the standard preset,
``online``; nobody exposes), played by its uniformly random playout until ``t`` tricks are left:
the position at the start of trick ``14 - t``, whoever leads it.  Each is solved for the seat to
move, from an empty table (``clear()``), on one core:

- ``values()`` (default): the exact value of every legal card, what a review of that decision
  shows; ``--mode value``: the value of the position only;
- for each ``t`` of ``--tricks``: median, 95th percentile and maximum wall time over the deals,
  nodes (positions searched) per second, and how many positions passed ``--limit`` nodes (a
  search that passes it stops and counts as not solved: the figures then say "> limit");
- small positions: every position with 6 tricks or fewer left of ``--small-deals`` deals, inside
  tricks as well as at their start (24 positions a deal), by tricks left and all together.

Targets: a whole deal from the first lead under 1 s (median), every position with 6 tricks or
fewer left under 10 ms.  Wall times on a shared machine are noisy; the thread's CPU time is
reported beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from typing import Any

from gongzhu.rules import Options, Seat
from gongzhu.search.fast import FastPosition, random_deal_trace
from gongzhu.search.solver import OpenSolver

SEED = 2026
INF = float("inf")


def machine() -> str:
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{platform.machine()} {model}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"load average {load:.2f}")


def positions(deal: int, cards_left: list[int]) -> list[FastPosition]:
    """The positions of deal ``deal`` with each number of cards in ``cards_left`` left in the hands."""
    pos, trace = random_deal_trace(Options(), SEED, deal)
    out: dict[int, FastPosition] = {}
    left = 52
    for c in [None, *trace.cards]:
        if c is not None:
            pos = pos.play(c)
            left -= 1
        if left in cards_left:
            out[left] = pos
    return [out[n] for n in cards_left]


class Solvers:
    """One solver per seat to move (the objective is that seat's), each table emptied per position."""

    def __init__(self, bits: int) -> None:
        self.by_seat = [OpenSolver(Options(), seat, table_bits=bits) for seat in Seat]

    def solve(self, pos: FastPosition, mode: str, limit: int) -> tuple[float, float, int, bool]:
        """Wall seconds, CPU seconds, nodes, and whether it was solved within ``limit`` nodes."""
        solver = self.by_seat[pos.turn]
        solver.clear()
        wall, cpu = time.perf_counter(), time.thread_time()
        got = solver.values(pos, limit=limit) if mode == "values" else solver.value(pos, limit=limit)
        wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
        return wall, cpu, solver.nodes, got is not None


def summary(times: list[float], nodes: int, seconds: float) -> dict[str, Any]:
    """Median, p95 and max in ms (positions not solved count as infinitely slow)."""
    ts = sorted(times)

    def ms(x: float) -> float | None:
        return None if x == INF else round(x * 1e3, 3)

    return {"n": len(ts), "not_solved": sum(1 for t in ts if t == INF), "median_ms": ms(statistics.median_low(ts)),
            "p95_ms": ms(ts[int(0.95 * (len(ts) - 1))]), "max_ms": ms(ts[-1]),
            "nodes_per_s": round(nodes / seconds) if seconds else 0}


def run_tricks(solvers: Solvers, tricks: int, deals: int, mode: str, limit: int) -> dict[str, Any]:
    wall: list[float] = []
    cpu: list[float] = []
    nodes = 0
    spent = 0.0
    for deal in range(deals):
        (pos,) = positions(deal, [4 * tricks])
        w, c, n, ok = solvers.solve(pos, mode, limit)
        wall.append(w if ok else INF)
        cpu.append(c if ok else INF)
        nodes += n
        spent += w
    out = summary(wall, nodes, spent)
    out["cpu_median_ms"] = summary(cpu, nodes, spent)["median_ms"]
    return out


def run_small(solvers: Solvers, deals: int, mode: str, limit: int) -> dict[str, Any]:
    by_tricks: dict[int, list[float]] = {t: [] for t in range(1, 7)}
    nodes = 0
    spent = 0.0
    for deal in range(deals):
        for pos in positions(deal, list(range(24, 0, -1))):
            left = sum(bin(h).count("1") for h in pos.hands)
            w, _, n, ok = solvers.solve(pos, mode, limit)
            by_tricks[(left + 3) // 4].append(w if ok else INF)
            nodes += n
            spent += w
    every = [t for ts in by_tricks.values() for t in ts]
    return {"all": summary(every, nodes, spent),
            "by_tricks_left": {t: summary(ts, 0, 0) for t, ts in sorted(by_tricks.items(), reverse=True)},
            "over_10_ms": sum(1 for t in every if t > 0.010)}


def fmt(x: float | None) -> str:
    """Milliseconds, or "> limit" for a figure that falls on a position not solved."""
    if x is None:
        return "> limit"
    return f"{x:,.1f} ms" if x >= 10 else f"{x:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=200, help="deals (positions) for each number of tricks")
    parser.add_argument("--tricks", type=int, nargs="*", default=[13, 8, 5], help="tricks left (1..13)")
    parser.add_argument("--limit", type=int, default=20_000_000,
                        help="nodes a position may search before it counts as not solved (0: no limit)")
    parser.add_argument("--small-deals", type=int, default=None,
                        help="deals whose positions with <= 6 tricks left are all solved (default: --deals)")
    parser.add_argument("--mode", choices=["values", "value"], default="values")
    parser.add_argument("--table-bits", type=int, default=20)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    small_deals = args.deals if args.small_deals is None else args.small_deals
    solvers = Solvers(args.table_bits)
    results: dict[str, Any] = {"machine": machine(), "mode": args.mode, "limit": args.limit, "deals": args.deals,
                               "tricks": {}}
    for t in args.tricks:
        results["tricks"][t] = run_tricks(solvers, t, args.deals, args.mode, args.limit)
        if not args.json:
            r = results["tricks"][t]
            print(f"{t:2d} tricks left: median {fmt(r['median_ms'])}, p95 {fmt(r['p95_ms'])}, max "
                  f"{fmt(r['max_ms'])} (CPU median {fmt(r['cpu_median_ms'])}); {r['nodes_per_s']:,} nodes/s; "
                  f"{r['not_solved']}/{r['n']} passed the limit of {args.limit:,} nodes", flush=True)
    if small_deals:
        results["small"] = run_small(solvers, small_deals, args.mode, args.limit)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"machine: {results['machine']}; {args.mode}(), {args.deals} deals, seed {SEED}")
    if small_deals:
        s = results["small"]
        a = s["all"]
        print(f"<= 6 tricks left, {a['n']} positions of {small_deals} deals: median {fmt(a['median_ms'])}, "
              f"p95 {fmt(a['p95_ms'])}, max {fmt(a['max_ms'])}, {s['over_10_ms']} over 10 ms; "
              f"{a['nodes_per_s']:,} nodes/s")
        for t, r in s["by_tricks_left"].items():
            print(f"   {t} tricks left ({r['n']} positions): median {fmt(r['median_ms'])}, p95 {fmt(r['p95_ms'])}, "
                  f"max {fmt(r['max_ms'])}")


if __name__ == "__main__":
    main()
