"""Two-deck playouts: the C fast path (``gongzhu.search.fast2``) against the Python rules engine.

    python benchmarks/twodeck.py [--seconds S] [--deals N] [--json]

- speed, one thread, playouts per second from the first lead of one seeded ``online2`` deal:
  the baseline is the loop the expert used for two decks before the fast path (``Deal.play`` of
  a uniformly random legal play to the end, then ``Deal.undo`` back), against ``fast2`` with the
  uniform policy (the same random play, in C) and with the heuristic policy;
- strength of the heuristic playout policy, duplicate: on the same positions, one seat plays
  policy 1 (heuristic) and the others policy 0 (uniform), against all four uniform; the seat's
  raw score above the table mean, per deal, with a 95% confidence interval across deals.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import time

from gongzhu.rules import PRESETS, Deal
from gongzhu.search.fast import POLICY_HEURISTIC, POLICY_UNIFORM
from gongzhu.search.fast2 import FastPosition2, encode

OPTIONS = PRESETS["online2"]


def start_deal(seed: int) -> Deal:
    deal = Deal.new(OPTIONS, seed)
    for seat in deal.undeclared:
        deal.declare(seat, [])
    return deal


def python_playouts_per_second(seconds: float) -> float:
    deal = start_deal(5)
    rng = random.Random(1)
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        n = 0
        while not deal.is_over:
            deal.play(rng.choice(deal.legal_plays()))
            n += 1
        for _ in range(n):
            deal.undo()
        done += 1
    return done / (time.perf_counter() - start)


def c_playouts_per_second(policy: int, seconds: float) -> float:
    pos = encode(start_deal(5))
    n = 2_000
    pos.playout_sums(n, 0, policy=policy)  # warm up
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        pos.playout_sums(n, done, policy=policy)
        done += n
    return done / (time.perf_counter() - start)


def policy_margin(deals: int, playouts: int = 20) -> tuple[float, float]:
    """Mean and 95% half-width of the heuristic seat's edge, raw points per deal."""
    per_deal = []
    for seed in range(deals):
        pos: FastPosition2 = encode(start_deal(1000 + seed))
        edge = 0.0
        for seat in range(4):
            mixed = (POLICY_HEURISTIC if seat == 0 else POLICY_UNIFORM,
                     POLICY_HEURISTIC if seat == 1 else POLICY_UNIFORM,
                     POLICY_HEURISTIC if seat == 2 else POLICY_UNIFORM,
                     POLICY_HEURISTIC if seat == 3 else POLICY_UNIFORM)
            h = pos.playout_sums(playouts, seed, policy=mixed)
            u = pos.playout_sums(playouts, seed, policy=POLICY_UNIFORM)
            edge += ((h[seat] - sum(h) / 4) - (u[seat] - sum(u) / 4)) / playouts
        per_deal.append(edge / 4)
    mean = sum(per_deal) / deals
    sd = math.sqrt(sum((x - mean) ** 2 for x in per_deal) / (deals - 1))
    return mean, 1.96 * sd / math.sqrt(deals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per speed measurement")
    parser.add_argument("--deals", type=int, default=300, help="deals for the policy's strength")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    python = python_playouts_per_second(args.seconds)
    uniform = c_playouts_per_second(POLICY_UNIFORM, args.seconds)
    heuristic = c_playouts_per_second(POLICY_HEURISTIC, args.seconds)
    edge, half = policy_margin(args.deals)
    result = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "python_engine_playouts_per_s": round(python, 1),
        "c_uniform_playouts_per_s": round(uniform),
        "c_heuristic_playouts_per_s": round(heuristic),
        "c_uniform_speedup": round(uniform / python, 1),
        "heuristic_edge_raw_per_deal": round(edge, 1),
        "heuristic_edge_ci95": [round(edge - half, 1), round(edge + half, 1)],
        "deals": args.deals,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"two-deck playouts from the first lead, one thread ({result['machine']})")
    print(f"  Python engine (Deal.play + undo, uniform)  {python:12,.1f} /s   (baseline)")
    print(f"  C fast2, policy 0 (uniform)                {uniform:12,.0f} /s   {uniform / python:8.1f}x")
    print(f"  C fast2, policy 1 (heuristic)              {heuristic:12,.0f} /s   {heuristic / python:8.1f}x")
    print(f"heuristic seat among uniform ones, duplicate, {args.deals} deals: "
          f"{edge:+.1f} raw/deal (95% CI {edge - half:+.1f} … {edge + half:+.1f})")


if __name__ == "__main__":
    main()
