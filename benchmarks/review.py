"""Deal review: how long a full review of one deal for one seat takes at the default budget.

    python benchmarks/review.py [--deals N] [--workers W] [--json]

Target: under 5 s on a 2-core machine.  It plays ``--deals`` deals (standard preset, experts of a
few worlds in every seat, seeds 1…N), then reviews South's decisions in each with
:class:`gongzhu.review.Reviewer` at :data:`gongzhu.review.DEFAULT_BUDGET` (the expert's 0.4 s per
decision, 8 par replays, the open-card solver up to its node limit) on ``--workers`` worker
processes, as the server and ``gongzhu analyze`` do.  The pool's start (spawning the workers) is
timed apart; the baseline in the same run is one worker (the same review on one core).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from typing import Any

from gongzhu.players.expert import ExpertPlayer
from gongzhu.players.observation import observe
from gongzhu.records.format import deal_to_record
from gongzhu.review import DEFAULT_BUDGET, Reviewer
from gongzhu.rules.cards import Seat
from gongzhu.rules.deal import Deal
from gongzhu.rules.options import Options


def record(seed: int) -> dict[str, Any]:
    deal = Deal.new(Options(), seed)
    players = [ExpertPlayer(seed=seed * 4 + s, iterations=8) for s in range(4)]
    for s in list(deal.undeclared):
        deal.declare(s, players[s].choose_exposures(observe(deal, s)))
    while (turn := deal.turn) is not None:
        deal.play(players[turn].choose_play(observe(deal, turn)), turn)
    return deal_to_record(deal, match_id=f"bench-{seed}", preset="online")


def measure(records: list[dict[str, Any]], workers: int) -> dict[str, Any]:
    reviewer = Reviewer(workers)
    try:
        t0 = time.perf_counter()
        reviewer.review(records[0], Seat.S, budget=DEFAULT_BUDGET)  # starts the pool (spawn)
        first = time.perf_counter() - t0
        times = []
        solved_from = []
        for rec in records:
            t0 = time.perf_counter()
            review = reviewer.review(rec, Seat.S, budget=DEFAULT_BUDGET)
            times.append(time.perf_counter() - t0)
            solved_from.append(review["hindsight"]["from_trick"])
    finally:
        reviewer.close()
    ordered = sorted(times)
    return {
        "workers": workers,
        "first_review_with_pool_start_s": round(first, 2),
        "median_s": round(statistics.median(times), 2),
        "p90_s": round(ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))], 2),
        "max_s": round(max(times), 2),
        "hindsight_from_trick_median": statistics.median(t for t in solved_from if t is not None),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    records = [record(seed) for seed in range(1, args.deals + 1)]
    results = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "deals": args.deals,
        "budget": {"think": DEFAULT_BUDGET.think, "par_replays": DEFAULT_BUDGET.par_replays,
                   "par_worlds": DEFAULT_BUDGET.par_worlds, "exact_limit": DEFAULT_BUDGET.exact_limit},
        "review": measure(records, args.workers),
        "baseline_one_worker": measure(records, 1),
    }
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"machine: {results['machine']}; {args.deals} deals, South reviewed, budget {results['budget']}")
    for name in ("review", "baseline_one_worker"):
        r = results[name]
        print(f"{name:>20}: {r['workers']} worker(s): median {r['median_s']} s, p90 {r['p90_s']} s, max "
              f"{r['max_s']} s (first review, pool start included: {r['first_review_with_pool_start_s']} s); "
              f"hindsight from trick {r['hindsight_from_trick_median']} (median)")


if __name__ == "__main__":
    main()
