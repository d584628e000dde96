"""The two-deck open-card solver (``gongzhu.search.solver2``): how long a late position takes.

    python benchmarks/solver2.py [--deals N] [--cards 2 3 4 5 6] [--limit NODES] [--preset online2]
                                 [--mode values|value] [--exposures P] [--hindsight N] [--reviews N]
                                 [--json]

Positions: deal ``i`` is ``Deal.new(preset, 2026 + i)`` (``online2`` by default; nobody exposes
unless ``--exposures P``: each exposable copy then with probability P), played from its first
lead by the two-deck C fast path's uniformly random playout (``FastPosition2.playout_trace``,
seed ``i``) until the first start of a trick where no hand holds more than ``k`` cards (a hand of
``k`` cards is at most ``k`` tricks; fewer where pairs are led, R5.3).  Each position is solved
for the seat to move by a fresh :class:`~gongzhu.search.solver2.OpenSolver2`, on one core:
``values()`` (default), the exact value of every legal play (what a review of that decision
shows), or ``value()``.  For each ``k`` of ``--cards``: median, 90th percentile and maximum wall
time over the deals (and the thread's CPU time: wall times on a shared machine are noisy), the
same of the nodes (positions searched), nodes per second, and how many positions passed
``--limit`` nodes (counted as not solved, infinitely slow: a figure that falls on one reads
"> limit").  The largest ``k`` with a median under 1 s is where two-deck hindsight fits
(:data:`gongzhu.search.solver2.FITS_CARDS`: the review and the what-if board try the positions
with at most that many cards in a hand).

``--hindsight N``: the review's hindsight task itself (``gongzhu.review.analysis``, the open-card
values of every play of South, latest first, within ``DEFAULT_BUDGET.exact_limit`` positions
each, and the line of best play) on ``N`` deals played by experts of 8 worlds a decision (seeds
1…N, as ``benchmarks/review.py`` plays them), two-deck (``--preset``) and, as the baseline in the
same run, one-deck (``online``): its wall time, the decisions solved and the earliest trick
solved, with how many tricks that deal still had to play from there, and in how many deals the
node limit rather than the cards in hand (two decks: :func:`~gongzhu.search.solver2.fits`; one
deck: always) ended it.  ``--reviews N``: whole reviews of South on a ``Reviewer`` of 2 worker
processes at the default budget, ``N`` two-deck deals with their hindsight and without it (the
solver's limit set to one position), and ``N`` one-deck deals as the baseline.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from dataclasses import replace
from typing import Any

from gongzhu.players.expert import ExpertPlayer
from gongzhu.players.observation import observe
from gongzhu.records.format import deal_to_record
from gongzhu.records.read import parse_record
from gongzhu.records.replay import replay_states
from gongzhu.review import DEFAULT_BUDGET, Reviewer
from gongzhu.review.analysis import _hindsight_task, _steps
from gongzhu.rules import PRESETS, Deal, Seat
from gongzhu.search.fast2 import FastPosition2, encode
from gongzhu.search.solver2 import OpenSolver2, fits
from solver import machine  # benchmarks/solver.py: the machine a run is on

SEED = 2026
INF = float("inf")


def hand_size(pos: FastPosition2) -> int:
    """The most cards a hand holds (copies counted twice)."""
    h1 = [int.from_bytes(pos.blob[8 * s:8 * s + 8], "little") for s in range(4)]
    h2 = [int.from_bytes(pos.blob[32 + 8 * s:40 + 8 * s], "little") for s in range(4)]
    return max(h1[s].bit_count() + h2[s].bit_count() for s in range(4))


def position(preset: str, deal: int, cards: int, exposures: float) -> FastPosition2 | None:
    """Deal ``deal`` at the first trick start with at most ``cards`` cards in every hand (None if
    the deal ends before)."""
    options = PRESETS[preset]
    d = Deal.new(options, SEED + deal)
    rng = random.Random(deal)
    for s in list(d.undeclared):
        d.declare(s, [(c, d.exposure_kinds(s, c)[0]) for c in d.exposable(s) if rng.random() < exposures])
    pos = encode(d)
    trace = pos.playout_trace(deal)
    for play in trace.plays:
        if not pos.blob[204] and hand_size(pos) <= cards:  # the start of a trick (no play in it)
            return pos
        pos = pos.play(play)
    return None


def summary(times: list[float], cpu: list[float], nodes: list[int], solved: list[bool], spent: float) -> dict[str, Any]:
    ts = sorted(t if ok else INF for t, ok in zip(times, solved, strict=True))
    cs = sorted(t if ok else INF for t, ok in zip(cpu, solved, strict=True))
    ns = sorted(float(n) if ok else INF for n, ok in zip(nodes, solved, strict=True))

    def pct(xs: list[float], q: float) -> float:
        return xs[min(len(xs) - 1, int(q * len(xs)))]

    def ms(x: float) -> float | None:
        return None if x == INF else round(x * 1e3, 2)

    def count(x: float) -> int | None:
        return None if x == INF else int(x)

    return {"n": len(ts), "not_solved": solved.count(False),
            "median_ms": ms(statistics.median(ts)), "p90_ms": ms(pct(ts, 0.9)), "max_ms": ms(ts[-1]),
            "cpu_median_ms": ms(statistics.median(cs)), "cpu_p90_ms": ms(pct(cs, 0.9)),
            "median_nodes": count(statistics.median(ns)), "p90_nodes": count(pct(ns, 0.9)),
            "max_nodes": count(ns[-1]), "nodes_per_s": round(sum(nodes) / spent) if spent else 0}


def run(preset: str, cards: int, deals: int, limit: int, mode: str, exposures: float) -> dict[str, Any]:
    times: list[float] = []
    cpu: list[float] = []
    nodes: list[int] = []
    solved: list[bool] = []
    spent = 0.0
    for deal in range(deals):
        pos = position(preset, deal, cards, exposures)
        if pos is None:
            continue
        solver = OpenSolver2(PRESETS[preset], Seat(pos.turn))
        t, c = time.perf_counter(), time.thread_time()
        got = solver.values(pos, limit=limit) if mode == "values" else solver.value(pos, limit=limit)
        t, c = time.perf_counter() - t, time.thread_time() - c
        spent += t
        times.append(t)
        cpu.append(c)
        nodes.append(solver.nodes)
        solved.append(got is not None)
    return summary(times, cpu, nodes, solved, spent)


def expert_record(preset: str, seed: int) -> dict[str, Any]:
    """A deal of ``preset`` played by experts of 8 worlds a decision (R11 record)."""
    deal = Deal.new(PRESETS[preset], seed)
    players = [ExpertPlayer(seed=seed * 4 + s, iterations=8) for s in range(4)]
    for s in list(deal.undeclared):
        deal.declare(s, players[s].choose_exposures(observe(deal, s)))
    while (turn := deal.turn) is not None:
        deal.play(players[turn].choose_play(observe(deal, turn)), turn)
    return deal_to_record(deal, match_id=f"bench-{seed}", preset=preset)


def run_hindsight(preset: str, deals: int) -> dict[str, Any]:
    """The review's hindsight task for South on ``deals`` expert deals of ``preset``."""
    times: list[float] = []
    solved: list[int] = []
    tricks_left: list[int] = []
    stopped = 0  # deals where the node limit, not the cards in hand, ended the hindsight
    for seed in range(1, deals + 1):
        record = expert_record(preset, seed)
        rec = parse_record(record)
        steps = [s for s in _steps(rec, Seat.S) if s.kind == "play"]
        t = time.perf_counter()
        got = _hindsight_task(record, int(Seat.S), [s.state for s in steps], DEFAULT_BUDGET.exact_limit)
        times.append(time.perf_counter() - t)
        done = [s for s in steps if str(s.state) in got["values"]]
        solved.append(len(done))
        if len(done) < len(steps):  # the latest play not solved: too many cards, or past the limit
            at = steps[len(steps) - len(done) - 1].state
            last = next(d.copy() for i, d in enumerate(replay_states(rec)) if i == at)
            stopped += rec.options.decks == 1 or fits(encode(last))
        first = min((s.trick for s in done if s.trick is not None), default=len(rec.tricks) + 1)
        tricks_left.append(len(rec.tricks) - first + 1)
    ts = sorted(times)
    return {"deals": deals, "median_s": round(statistics.median(ts), 3), "p90_s": round(ts[int(0.9 * len(ts))], 3),
            "max_s": round(ts[-1], 3), "decisions_solved_median": statistics.median(solved),
            "tricks_left_median": statistics.median(tricks_left), "tricks_left": tricks_left,
            "stopped_by_limit": stopped}


def run_reviews(preset: str, deals: int) -> dict[str, Any]:
    """Whole reviews of South (``Reviewer`` of 2 worker processes, ``DEFAULT_BUDGET``) of
    ``deals`` expert deals of ``preset``: each with its hindsight and without it (the solver's
    limit set to one position), one after the other, and one-deck (``online``) deals of the same
    seeds as the baseline."""
    without = replace(DEFAULT_BUDGET, exact_limit=1)
    reviewer = Reviewer(2)
    out: dict[str, Any] = {"deals": deals}
    try:
        reviewer.review(expert_record("online", 1), Seat.S, budget=without)  # starts the pool
        for label, name, budget in ((f"{preset}, with hindsight", preset, DEFAULT_BUDGET),
                                    (f"{preset}, without hindsight", preset, without),
                                    ("online, with hindsight", "online", DEFAULT_BUDGET)):
            times = []
            for seed in range(1, deals + 1):
                record = expert_record(name, seed)
                t = time.perf_counter()
                reviewer.review(record, Seat.S, budget=budget)
                times.append(time.perf_counter() - t)
            out[label] = {"median_s": round(statistics.median(times), 2), "max_s": round(max(times), 2),
                          "each_s": [round(x, 2) for x in times]}
    finally:
        reviewer.close()
    return out


def fmt(x: float | None) -> str:
    if x is None:
        return "> limit"
    return f"{x / 1e3:,.2f} s" if x >= 1000 else f"{x:,.1f} ms" if x >= 10 else f"{x:.2f} ms"


def fmt_nodes(x: int | None) -> str:
    return "> limit" if x is None else f"{x:,}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=50, help="deals (positions) for each number of cards")
    parser.add_argument("--cards", type=int, nargs="*", default=[2, 3, 4, 5, 6],
                        help="cards a hand holds at most (1..26)")
    parser.add_argument("--limit", type=int, default=20_000_000,
                        help="nodes a position may search before it counts as not solved (0: no limit)")
    parser.add_argument("--preset", default="online2", choices=[n for n, o in PRESETS.items() if o.decks == 2])
    parser.add_argument("--mode", choices=["values", "value"], default="values")
    parser.add_argument("--exposures", type=float, default=0.0, help="probability of exposing each copy")
    parser.add_argument("--hindsight", type=int, default=0, metavar="N",
                        help="time the review's hindsight task on N expert deals (two decks and one deck)")
    parser.add_argument("--reviews", type=int, default=0, metavar="N",
                        help="time whole reviews of N expert deals, two decks with and without hindsight, one deck")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if args.reviews:
        reviews = {"machine": machine(), **run_reviews(args.preset, args.reviews)}
        print(json.dumps(reviews, indent=2 if args.json else None))
        return
    if args.hindsight:
        out: dict[str, Any] = {"machine": machine(), "exact_limit": DEFAULT_BUDGET.exact_limit,
                               args.preset: run_hindsight(args.preset, args.hindsight),
                               "online": run_hindsight("online", args.hindsight)}
        if args.json:
            print(json.dumps(out, indent=2))
        else:
            for name in (args.preset, "online"):
                r = out[name]
                print(f"{name}: hindsight task median {r['median_s']} s, p90 {r['p90_s']} s, max {r['max_s']} s; "
                      f"South's plays solved (median) {r['decisions_solved_median']}, from (median) "
                      f"{r['tricks_left_median']} tricks before the end (each deal: {r['tricks_left']}); "
                      f"{r['stopped_by_limit']} stopped by the node limit")
            print(f"machine: {out['machine']}; exact_limit {out['exact_limit']:,}")
        return
    results: dict[str, Any] = {"machine": machine(), "preset": args.preset, "mode": args.mode,
                               "limit": args.limit, "deals": args.deals, "cards": {}}
    for k in args.cards:
        r = results["cards"][k] = run(args.preset, k, args.deals, args.limit, args.mode, args.exposures)
        if not args.json:
            print(f"{k:2d} cards a hand: median {fmt(r['median_ms'])}, p90 {fmt(r['p90_ms'])}, max "
                  f"{fmt(r['max_ms'])} (CPU median {fmt(r['cpu_median_ms'])}, p90 {fmt(r['cpu_p90_ms'])}); "
                  f"nodes median {fmt_nodes(r['median_nodes'])}, p90 {fmt_nodes(r['p90_nodes'])}, max "
                  f"{fmt_nodes(r['max_nodes'])}; {r['nodes_per_s']:,} nodes/s; "
                  f"{r['not_solved']}/{r['n']} passed the limit of {args.limit:,} nodes", flush=True)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"machine: {results['machine']}; {args.preset}, {args.mode}(), seed {SEED}")


if __name__ == "__main__":  # the review's worker processes are spawned: they import this file
    main()
