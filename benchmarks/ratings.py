"""Ratings: how well the rating (gongzhu.ratings) recovers the true order of players.

    python benchmarks/ratings.py [--deals N] [--seed S] [--json]

A population of twelve accounts plays deals four at a time, as at rated tables of people: three
accounts each of the computer levels ``random``, ``beginner``, ``intermediate`` and ``learned``
(their true order, weakest first, from the arena, docs/strength.md). Each deal seats four accounts
drawn at random, plays a fresh deal of the ``online`` preset with those levels, and rates it from
the deal's R7 results exactly as a rated table does (:func:`gongzhu.ratings.rate_deal`). After
every checkpoint the script reports Kendall's tau between the ratings' order and the true order
(pairs of accounts of different levels only: accounts of one level are equals), how many ratings
are settled (deviation at most 110), and the time rating a deal takes (the baseline in the same
run: a deal played and rated). The population is tests/helpers/population.py, shared with
tests/test_ratings.py.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from gongzhu.ratings import PROVISIONAL_DEVIATION, Skill, rate_deal
from helpers.population import kendall_tau, rate_population

#: The levels of the population, weakest first, and how many accounts play each.
LEVELS = ("random", "beginner", "intermediate", "learned")
PER_LEVEL = 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=800)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    checkpoints = sorted({n for n in (50, 100, 200, 400, 800, 1600, args.deals) if n <= args.deals})
    rows = []

    def checkpoint(n: int, skills: dict[str, Skill]) -> None:
        if n in checkpoints:
            rows.append({"deals": n, "tau": round(kendall_tau(skills, LEVELS), 3),
                         "settled": sum(s.deviation <= PROVISIONAL_DEVIATION for s in skills.values()),
                         "accounts": len(LEVELS) * PER_LEVEL})

    t0 = time.perf_counter()
    skills = rate_population(LEVELS, PER_LEVEL, args.deals, rng, checkpoint)
    elapsed = time.perf_counter() - t0
    # Rating alone: the same four people's deal rated again and again.
    four = [([a], r) for a, r in zip(sorted(skills)[:4], (-100, 0, 26, 74), strict=True)]
    t1 = time.perf_counter()
    for _ in range(2000):
        rate_deal(skills, four)
    rating_ms = 1000 * (time.perf_counter() - t1) / 2000
    machine = f"{platform.machine()} {platform.processor() or ''}".strip()
    result = {"machine": machine, "python": platform.python_version(),
              "seed": args.seed, "rows": rows,
              "ms_per_deal": round(1000 * elapsed / args.deals, 1), "rating_ms": round(rating_ms, 3),
              "final": {a: skills[a].view() for a in sorted(skills, key=lambda a: -skills[a].mu)}}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{'deals':>6} {'tau':>6} {'settled':>8}")
    for row in rows:
        print(f"{row['deals']:>6} {row['tau']:>6} {row['settled']:>5}/{row['accounts']}")
    print(f"rating a deal: {result['rating_ms']} ms; a deal played and rated (baseline): {result['ms_per_deal']} ms")
    for a, view in result["final"].items():
        print(f"  {a:<16} {view['rating']:>5} ± {view['deviation']:<4} {view['games']} deals")


if __name__ == "__main__":
    main()
