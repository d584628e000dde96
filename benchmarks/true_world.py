"""Search players' decisions scored in the true world: what a choice gives up against the hands
as they really were.

    python benchmarks/true_world.py --levels expert,expert-weighted [--deals N] [--seed S]
        [--think S | --iterations N] [--playouts N] [--jobs J] [--json]

Positions: every decision with a choice, from the second trick on, of ``--deals`` online deals
that the expert (60 worlds a decision, seeded) plays against itself. At each, every legal play is
valued in the true world — the hands as dealt, every other seat's included — by ``--playouts``
playouts of the expert's playout policy (the same continuations for every play), and each level
of ``--levels`` chooses a play at the same budget. A level's regret at a decision is the best
play's true-world value minus its choice's, in raw points of the seat's objective (R7).

The true world is one draw from what the seat could not see, as it came about, so the mean of a
play's true-world value over many decisions is what the play is worth against the hands that
really occur: a search that weighs its sampled worlds well (``expert-weighted``) should give up
less here than one that counts them all alike. Per deal, each level's regret summed over the
deal's decisions, compared with the first level's deal by deal (95% CI across the deals). The
figures are estimates for the decisions of deals played by experts, with the rest of the deal
played out by the playout policy, not results of whole deals: the arena is the test of strength
(docs/strength.md).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import platform
from collections import Counter
from typing import Any

from decisions import decisions
from gongzhu.arena.stats import summarize
from gongzhu.players.expert import ExpertPlayer, _Positions, objective_weights
from gongzhu.players.observation import Observation
from gongzhu.players.registry import make_player
from gongzhu.players.sampling import World
from gongzhu.rules import PRESETS
from gongzhu.rules.cards import Seat
from gongzhu.search import POLICY_HEURISTIC, fast


def positions(seed: int, d: int) -> list[tuple[Observation, World]]:
    """(observation, true world) of every decision with a choice from the second trick on, in
    deal ``d`` of ``seed``."""
    players = [ExpertPlayer(seed=seed * 100_000 + 4 * d + s, iterations=60) for s in range(4)]
    return [(obs, World({s: Counter(deal.hand(s)) for s in Seat}, tuple(deal.exposures)))
            for deal, obs in decisions(PRESETS["online"], seed * 100_000 + d, players) if deal.tricks]


def true_values(obs: Observation, world: World, playouts: int) -> dict[int, float]:
    """Each legal play's value in ``world``: the mean of its playouts, the same for every play."""
    pos = _Positions(obs).of(world)
    assert isinstance(pos, fast.FastPosition)  # one deck
    weights = objective_weights(obs.options, obs.seat)
    out = {}
    for play in obs.legal_plays():
        sums = pos.play(play[0]).playout_sums(playouts, 1, policy=POLICY_HEURISTIC)
        out[play[0].index] = sum(w * s for w, s in zip(weights, sums, strict=True)) / playouts
    return out


def one_deal(task: tuple[list[str], int, int, float | None, int | None, int]) -> tuple[int, list[float], list[int]]:
    """Deal ``d``: its decisions, each level's regret summed over them, and how many of them
    each level chose differently from the first."""
    levels, seed, d, think, iterations, playouts = task
    regret = [0.0] * len(levels)
    differ = [0] * len(levels)
    found = positions(seed, d)
    for k, (obs, world) in enumerate(found):
        values = true_values(obs, world, playouts)
        best = max(values.values())
        chosen = []
        for i, level in enumerate(levels):
            play = make_player(level, seed=d * 1000 + k, think=think, iterations=iterations).choose_play(obs)
            chosen.append(play[0].index)
            regret[i] += best - values[play[0].index]
            differ[i] += chosen[i] != chosen[0]
    return len(found), regret, differ


def measure(levels: list[str], deals: int, seed: int, think: float | None, iterations: int | None,
            playouts: int, jobs: int) -> dict[str, Any]:
    tasks = [(levels, seed, d, think, iterations, playouts) for d in range(deals)]
    if jobs > 1:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            done = pool.map(one_deal, tasks, chunksize=1)
    else:
        done = [one_deal(t) for t in tasks]
    by_deal = {level: [r[1][i] for r in done] for i, level in enumerate(levels)}
    first = by_deal[levels[0]]
    return {
        "machine": f"{platform.machine()} {platform.processor() or platform.platform()}",
        "python": platform.python_version(),
        "deals": deals, "seed": seed, "decisions": sum(r[0] for r in done), "think_s": think,
        "iterations": iterations, "playouts": playouts,
        "regret_a_deal": {level: summarize(by_deal[level]).to_dict(3) for level in levels},
        "less_regret_than_first_a_deal": {
            level: summarize([a - b for a, b in zip(first, by_deal[level], strict=True)]).to_dict(3)
            for level in levels[1:]},
        "decisions_chosen_differently": {level: sum(r[2][i] for r in done) for i, level in enumerate(levels)
                                         if i},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default="expert,expert-weighted")
    parser.add_argument("--deals", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--think", type=float)
    budget.add_argument("--iterations", type=int)
    parser.add_argument("--playouts", type=int, default=400)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes, a deal each at a time")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if len(set(args.levels.split(","))) != len(args.levels.split(",")):
        parser.error(f"--levels names a level twice: {args.levels}")
    if args.think is None and args.iterations is None:
        args.iterations = 100
    result = measure(args.levels.split(","), args.deals, args.seed, args.think, args.iterations, args.playouts,
                     args.jobs)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    budget_text = f"{args.think} s" if args.think is not None else f"{args.iterations} worlds"
    print(f"{result['machine']}, Python {result['python']}: {result['decisions']} decisions of "
          f"{args.deals} deals, {budget_text} a decision, {args.playouts} playouts a play in the true world")
    for level, s in result["regret_a_deal"].items():
        print(f"  {level:24} regret {s['mean']:8.1f} raw points a deal")
    for level, s in result["less_regret_than_first_a_deal"].items():
        lo, hi = s["ci95"]
        print(f"  {level:24} gives up {s['mean']:+.1f} ({lo:+.1f} … {hi:+.1f}) less than "
              f"{args.levels.split(',')[0]} a deal; {result['decisions_chosen_differently'][level]} "
              f"decisions chosen differently")


if __name__ == "__main__":
    main()
