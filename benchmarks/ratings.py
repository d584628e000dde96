"""Ratings: how well the rating (gongzhu.ratings) recovers the true order of players.

    python benchmarks/ratings.py [--deals N] [--seed S] [--json]

A population of twelve accounts plays deals four at a time, as at rated tables of people: three
accounts each of the computer levels ``random``, ``beginner``, ``intermediate`` and ``learned``
(their true order, weakest first, from the arena, docs/strength.md). Each deal seats four accounts
drawn at random, plays a fresh deal of the ``online`` preset with those levels, and rates it from
the deal's R7 results exactly as a rated table does (:func:`gongzhu.ratings.rate_deal`). After
every checkpoint the script reports Kendall's tau between the ratings' order and the true order
(pairs of accounts of different levels only: accounts of one level are equals), how many ratings
are settled (deviation at most 110), and the time spent rating (the baseline in the same run:
the time spent playing the deals).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time

from gongzhu.players import make_player, observe
from gongzhu.players.guard import safe_exposures, safe_play
from gongzhu.ratings import PROVISIONAL_DEVIATION, Skill, rate_deal
from gongzhu.rules.cards import Seat
from gongzhu.rules.deal import Deal
from gongzhu.rules.options import PRESETS

#: The levels of the population, weakest first, and how many accounts play each.
LEVELS = ("random", "beginner", "intermediate", "learned")
PER_LEVEL = 3


def kendall_tau(skills: dict[str, Skill], level_of: dict[str, int]) -> float:
    """Kendall's tau of the ratings' order against the levels', over pairs of different levels."""
    people = sorted(skills)
    agree = disagree = 0
    for i, a in enumerate(people):
        for b in people[i + 1:]:
            if level_of[a] == level_of[b]:
                continue
            truth = level_of[a] > level_of[b]
            rated = skills[a].mu > skills[b].mu
            agree += truth == rated
            disagree += truth != rated
    return (agree - disagree) / max(1, agree + disagree)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=800)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    level_of = {f"{level}-{k}": i for i, level in enumerate(LEVELS) for k in range(PER_LEVEL)}
    skills: dict[str, Skill] = {}
    checkpoints = sorted({n for n in (50, 100, 200, 400, 800, 1600, args.deals) if n <= args.deals})
    rows = []
    played = rating = 0.0
    options = PRESETS["online"]
    for n in range(1, args.deals + 1):
        table = rng.sample(sorted(level_of), 4)
        t0 = time.perf_counter()
        deal = Deal.new(options, rng.getrandbits(63), first_receiver=Seat.N, deal_index=0,
                        previous_pig_taker=None)
        players = [make_player(LEVELS[level_of[a]], seed=rng.getrandbits(63)) for a in table]
        for seat in deal.undeclared:
            deal.declare(seat, safe_exposures(players[seat], observe(deal, seat), where="ratings"))
        while (turn := deal.turn) is not None:
            deal.play(safe_play(players[turn], observe(deal, turn), where="ratings"), turn)
        t1 = time.perf_counter()
        skills.update(rate_deal(skills, [([a], deal.score.result[Seat(i)]) for i, a in enumerate(table)]))
        t2 = time.perf_counter()
        played += t1 - t0
        rating += t2 - t1
        if n in checkpoints:
            rows.append({"deals": n, "tau": round(kendall_tau(skills, level_of), 3),
                         "settled": sum(s.deviation <= PROVISIONAL_DEVIATION for s in skills.values()),
                         "accounts": len(level_of)})
    machine = f"{platform.machine()} {platform.processor() or ''}".strip()
    result = {"machine": machine, "python": platform.python_version(),
              "seed": args.seed, "rows": rows, "rating_ms_per_deal": round(1000 * rating / args.deals, 3),
              "playing_ms_per_deal": round(1000 * played / args.deals, 1),
              "final": {a: skills[a].view() for a in sorted(skills, key=lambda a: -skills[a].mu)}}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{'deals':>6} {'tau':>6} {'settled':>8}")
    for row in rows:
        print(f"{row['deals']:>6} {row['tau']:>6} {row['settled']:>5}/{row['accounts']}")
    print(f"rating: {result['rating_ms_per_deal']} ms a deal; "
          f"playing (baseline): {result['playing_ms_per_deal']} ms a deal")
    for a, view in result["final"].items():
        print(f"  {a:<16} {view['rating']:>5} ± {view['deviation']:<4} {view['games']} deals")


if __name__ == "__main__":
    main()
