"""Matchmaking: how long "Play now" keeps people waiting, and how near in rating it seats them.

    python benchmarks/matchmaking.py [--minutes M] [--seed S] [--json]

A simulation of the server's own rule (gongzhu.server.matchmaking: ``choose`` and the quick
start): people press "Play now" at random moments (a Poisson stream of a given rate), with
ratings drawn from a normal distribution (1500 ± 200). Each is seated at a waiting table the rule
chooses (one within its rating window), or makes a new one; a table starts when its last seat is
filled or QUICK_START_SECONDS after it was made, computers in the empty seats. Reported per
rate: the wait from the press to the start (median, 90th percentile, the longest), how many
people a started table holds, and the rating spread at a table of several people (its highest
less its lowest) against the same people seated in the order they came, with no regard to
rating (the baseline in the same run).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
from dataclasses import dataclass, field
from typing import Any

from gongzhu.server.matchmaking import QUICK_START_SECONDS, Waiting, choose, gap

RATES = (1.0, 4.0, 15.0, 60.0)  # people a minute


@dataclass
class Table:
    made: float
    ratings: list[float] = field(default_factory=list)
    arrivals: list[float] = field(default_factory=list)


def simulate(rate: float, minutes: float, rng: random.Random, *, by_rating: bool) -> dict[str, float]:
    t, end = 0.0, minutes * 60
    waiting: list[Table] = []
    started: list[tuple[float, Table]] = []
    while True:
        t += rng.expovariate(rate / 60)
        for table in [w for w in waiting if w.made + QUICK_START_SECONDS <= t]:
            waiting.remove(table)
            started.append((table.made + QUICK_START_SECONDS, table))
        if t > end:
            break
        rating = rng.gauss(1500, 200)
        views = [Waiting(gap(rating, w.ratings) if by_rating else 0.0, t - w.made, f"{w.made:020.6f}")
                 for w in waiting]
        index = choose(views)
        if index is not None:
            table = waiting[index]
            table.ratings.append(rating)
            table.arrivals.append(t)
            if len(table.ratings) == 4:
                waiting.remove(table)
                started.append((t, table))
            continue
        waiting.append(Table(t, [rating], [t]))
    waits = sorted(start - a for start, table in started for a in table.arrivals)
    spreads = [max(table.ratings) - min(table.ratings) for _, table in started if len(table.ratings) > 1]
    sizes = [len(table.ratings) for _, table in started]
    return {"people": len(waits), "wait_median_s": round(statistics.median(waits), 1),
            "wait_p90_s": round(waits[int(0.9 * (len(waits) - 1))], 1), "wait_max_s": round(waits[-1], 1),
            "people_a_table": round(statistics.mean(sizes), 2),
            "spread_median": round(statistics.median(spreads), 0) if spreads else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    for rate in RATES:
        rule = simulate(rate, args.minutes, random.Random(args.seed), by_rating=True)
        base = simulate(rate, args.minutes, random.Random(args.seed), by_rating=False)
        rows.append({"rate_per_minute": rate, "rule": rule, "baseline_in_order": base})
    result = {"machine": platform.machine(), "python": platform.python_version(), "minutes": args.minutes,
              "seed": args.seed, "quick_start_s": QUICK_START_SECONDS, "rows": rows}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{'per min':>7} {'people':>7} {'wait med':>9} {'p90':>6} {'max':>6} {'a table':>8} "
          f"{'spread':>7} {'spread (in order)':>18}")
    for row in rows:
        r, b = row["rule"], row["baseline_in_order"]
        print(f"{row['rate_per_minute']:>7} {r['people']:>7} {r['wait_median_s']:>9} {r['wait_p90_s']:>6} "
              f"{r['wait_max_s']:>6} {r['people_a_table']:>8} {r['spread_median']:>7} {b['spread_median']:>18}")


if __name__ == "__main__":
    main()
