"""The exact open-card solver (``gongzhu.search.solver``): how long one position takes to solve.

    python benchmarks/solver.py [--deals N] [--tricks 13 8 5] [--limit NODES] [--small-deals N]
                                [--mode values|value] [--before SO] [--after SO] [--json]

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

Before and after: ``--before SO`` names another build of the C extension
(``gongzhu/rules/_fastplay*.so``, e.g. a copy kept from before a change to ``_fastsolve.h``); each
position is then solved by both, the old build first, one after the other in the same process, and
every figure is given for both.  ``--after SO`` times another build in place of the installed one.
The two must agree on every value (the script stops if they do not).

Targets: a whole deal from the first lead under 1 s (median), every position with 6 tricks or
fewer left under 10 ms.  Wall times on a shared machine are noisy; the thread's CPU time is
reported beside them.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import json
import os
import platform
import statistics
import time
from types import ModuleType
from typing import Any

import gongzhu.rules._fastplay as installed
from gongzhu.rules import Options, Seat
from gongzhu.search.fast import FastPosition, random_deal_trace
from gongzhu.search.solver import solver_weights

SEED = 2026
INF = float("inf")
Answer = float | dict[int, float] | None


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


def load_build(path: str) -> ModuleType:
    """Another build of ``gongzhu.rules._fastplay`` (its shared object), loaded beside the installed one."""
    name = "gongzhu.rules._fastplay"
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    if spec is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


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
    """One solver of a build per seat to move (the objective is that seat's), each table emptied per
    position.  The build's ``Solver`` is used as ``gongzhu.search.solver.OpenSolver`` uses it."""

    def __init__(self, module: ModuleType, bits: int) -> None:
        self.by_seat = [module.Solver(solver_weights(Options(), seat)[0], bits) for seat in Seat]

    def solve(self, pos: FastPosition, mode: str, limit: int) -> tuple[float, float, int, Answer]:
        """Wall seconds, CPU seconds, nodes, and the answer (None past ``limit`` nodes)."""
        solver = self.by_seat[pos.turn]
        solver.clear()
        wall, cpu = time.perf_counter(), time.thread_time()
        got = solver.values(pos.blob, limit) if mode == "values" else solver.value(pos.blob, limit)
        wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
        answer: Answer = None if got is None else dict(got) if mode == "values" else float(got)
        return wall, cpu, solver.nodes, answer


class Tally:
    """One build's times and nodes over a set of positions."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.nodes: list[int] = []
        self.solved: list[bool] = []
        self.taken: list[float] = []  # the wall time, solved or not
        self.spent = 0.0

    def add(self, wall: float, cpu: float, nodes: int, ok: bool) -> None:
        self.wall.append(wall if ok else INF)  # not solved: infinitely slow
        self.cpu.append(cpu if ok else INF)
        self.nodes.append(nodes)
        self.solved.append(ok)
        self.taken.append(wall)
        self.spent += wall


def solve_all(builds: dict[str, Solvers], pos: FastPosition, mode: str, limit: int,
              tallies: dict[str, Tally]) -> None:
    """Solve ``pos`` with every build in turn; the builds must agree where both solved it."""
    answers: dict[str, Answer] = {}
    for label, solvers in builds.items():
        w, c, n, answer = solvers.solve(pos, mode, limit)
        tallies[label].add(w, c, n, answer is not None)
        answers[label] = answer
    solved = {a if not isinstance(a, dict) else tuple(sorted(a.items())) for a in answers.values() if a is not None}
    if len(solved) > 1:
        raise SystemExit(f"the builds disagree on a position: {answers}")


def summary(t: Tally) -> dict[str, Any]:
    """Median, p95 and max in ms and nodes (positions not solved count as infinitely slow)."""
    ts = sorted(t.wall)
    ns = sorted(float(n) if ok else INF for n, ok in zip(t.nodes, t.solved, strict=True))

    def ms(x: float) -> float | None:
        return None if x == INF else round(x * 1e3, 3)

    def count(x: float) -> int | None:
        return None if x == INF else int(x)

    out: dict[str, Any] = {
        "n": len(ts), "not_solved": sum(1 for x in ts if x == INF), "median_ms": ms(statistics.median_low(ts)),
        "p95_ms": ms(ts[int(0.95 * (len(ts) - 1))]), "max_ms": ms(ts[-1]),
        "nodes_per_s": round(sum(t.nodes) / t.spent) if t.spent else 0}
    if t.cpu:
        out["cpu_median_ms"] = ms(statistics.median_low(sorted(t.cpu)))
    out["median_nodes"] = count(statistics.median_low(ns))
    out["p95_nodes"] = count(ns[int(0.95 * (len(ns) - 1))])
    out["max_nodes"] = count(ns[-1])
    return out


def run_tricks(builds: dict[str, Solvers], tricks: int, deals: int, mode: str, limit: int) -> dict[str, Any]:
    tallies = {label: Tally() for label in builds}
    for deal in range(deals):
        (pos,) = positions(deal, [4 * tricks])
        solve_all(builds, pos, mode, limit, tallies)
    return {label: summary(t) for label, t in tallies.items()}


def run_small(builds: dict[str, Solvers], deals: int, mode: str, limit: int) -> dict[str, Any]:
    every = {label: Tally() for label in builds}
    by_tricks = {t: {label: Tally() for label in builds} for t in range(6, 0, -1)}
    for deal in range(deals):
        for pos in positions(deal, list(range(24, 0, -1))):
            left = sum(bin(h).count("1") for h in pos.hands)
            tallies = {label: Tally() for label in builds}
            solve_all(builds, pos, mode, limit, tallies)
            for label, t in tallies.items():
                for into in (every[label], by_tricks[(left + 3) // 4][label]):
                    into.add(t.taken[0], t.cpu[0], t.nodes[0], t.solved[0])
    return {label: {"all": summary(every[label]),
                    "by_tricks_left": {t: summary(by[label]) for t, by in by_tricks.items()},
                    "over_10_ms": sum(1 for x in every[label].wall if x > 0.010)}
            for label in builds}


def fmt(x: float | None) -> str:
    """Milliseconds, or "> limit" for a figure that falls on a position not solved."""
    if x is None:
        return "> limit"
    return f"{x:,.1f} ms" if x >= 10 else f"{x:.2f} ms"


def fmt_nodes(x: int | None) -> str:
    return "> limit" if x is None else f"{x:,}"


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
    parser.add_argument("--before", metavar="SO", help="another build of the extension, timed first beside it")
    parser.add_argument("--after", metavar="SO", help="the build to time in place of the installed one")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    small_deals = args.deals if args.small_deals is None else args.small_deals
    builds: dict[str, Solvers] = {}
    if args.before:
        builds["before"] = Solvers(load_build(args.before), args.table_bits)
    builds["after" if args.before else "this"] = Solvers(
        load_build(args.after) if args.after else installed, args.table_bits)
    results: dict[str, Any] = {"machine": machine(), "mode": args.mode, "limit": args.limit, "deals": args.deals,
                               "builds": {"before": args.before, "after": args.after or installed.__file__},
                               "tricks": {}}
    for t in args.tricks:
        results["tricks"][t] = run_tricks(builds, t, args.deals, args.mode, args.limit)
        if not args.json:
            for label, r in results["tricks"][t].items():
                print(f"{t:2d} tricks left, {label}: median {fmt(r['median_ms'])}, p95 {fmt(r['p95_ms'])}, max "
                      f"{fmt(r['max_ms'])} (CPU median {fmt(r['cpu_median_ms'])}); nodes median "
                      f"{fmt_nodes(r['median_nodes'])}, p95 {fmt_nodes(r['p95_nodes'])}, max "
                      f"{fmt_nodes(r['max_nodes'])}; {r['nodes_per_s']:,} nodes/s; "
                      f"{r['not_solved']}/{r['n']} passed the limit of {args.limit:,} nodes", flush=True)
    if small_deals:
        results["small"] = run_small(builds, small_deals, args.mode, args.limit)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"machine: {results['machine']}; {args.mode}(), {args.deals} deals, seed {SEED}")
    if small_deals:
        for label, s in results["small"].items():
            a = s["all"]
            print(f"<= 6 tricks left, {label}, {a['n']} positions of {small_deals} deals: median "
                  f"{fmt(a['median_ms'])}, p95 {fmt(a['p95_ms'])}, max {fmt(a['max_ms'])}, {s['over_10_ms']} over "
                  f"10 ms; {a['nodes_per_s']:,} nodes/s")
            for t, r in s["by_tricks_left"].items():
                print(f"   {t} tricks left ({r['n']} positions): median {fmt(r['median_ms'])}, p95 "
                      f"{fmt(r['p95_ms'])}, max {fmt(r['max_ms'])}")


if __name__ == "__main__":
    main()
