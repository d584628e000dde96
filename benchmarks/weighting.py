"""The expert's world weighting: what weighing a world costs, against what searching it costs.

    python benchmarks/weighting.py [--deals N] [--worlds W] [--think S] [--json]

Positions: every decision with a choice of ``--deals`` online deals that the learned level plays
against itself (seeded), from the second trick on, where the seat has other seats' plays to score.
At each, ``--worlds`` worlds are sampled once and timed three ways:

- weighed: :meth:`gongzhu.players.weighting.PlayLikelihood.log_weights`, the expert's weighting
  (the network's probability of the other seats' last eight plays in each world);
- weighed in full: :meth:`~gongzhu.players.weighting.PlayLikelihood.reference_log_weights`, the
  same weights with every row built in full and the whole network run on it — the baseline, in
  the same run;
- searched: the expert evaluating the position with as many worlds (``iterations``), sampling and
  playouts, what a world costs it without weighing.

Then, at ``--think`` seconds a decision (0.05 by default, the arena runs of docs/strength.md), how
many worlds the plain expert and the weighted one search on the same positions; and what the
weights leave of 100 sampled worlds: their effective number, (sum of the weights)² / (sum of their
squares), as a share of the 100 — 100% where every world counts alike, less the more a few worlds
dominate.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import statistics
import time
from typing import Any

from decisions import decisions
from gongzhu.players.expert import _PLAYOUTS_PER_WORLD, ExpertPlayer
from gongzhu.players.learned import LearnedPlayer
from gongzhu.players.network import default_network
from gongzhu.players.observation import Observation
from gongzhu.players.sampling import sample_world
from gongzhu.players.weighting import PlayLikelihood
from gongzhu.rules import PRESETS


def positions(deals: int) -> list[Observation]:
    player = LearnedPlayer()
    return [obs for seed in range(deals) for deal, obs in decisions(PRESETS["online"], 20_000 + seed, [player] * 4)
            if deal.tricks]


def _summary(ms: list[float]) -> dict[str, float]:
    ms = sorted(ms)
    return {"median": round(statistics.median(ms), 3), "p95": round(ms[int(0.95 * (len(ms) - 1))], 3),
            "max": round(ms[-1], 3)}


def measure(deals: int, worlds: int, think: float) -> dict[str, Any]:
    network = default_network()
    found = positions(deals)
    rng = random.Random(1)
    weighed: list[float] = []
    full: list[float] = []
    searched: list[float] = []
    plain_worlds: list[float] = []
    weighted_worlds: list[float] = []
    effective: list[float] = []
    plain = ExpertPlayer(seed=1, think=think)
    weighted = ExpertPlayer(seed=1, think=think, weighting=network)
    for obs in found:
        likelihood = PlayLikelihood(network, obs)
        sampled = [sample_world(obs, rng) for _ in range(worlds)]
        t0 = time.perf_counter()
        likelihood.log_weights(sampled)
        t1 = time.perf_counter()
        likelihood.reference_log_weights(sampled)
        t2 = time.perf_counter()
        ExpertPlayer(seed=1, iterations=worlds).evaluate(obs)
        t3 = time.perf_counter()
        weighed.append((t1 - t0) * 1000 / worlds)
        full.append((t2 - t1) * 1000 / worlds)
        searched.append((t3 - t2) * 1000 / worlds)
        # ``samples`` counts playouts, the same number a world (no world is solved exactly here).
        plain_worlds.append(plain.evaluate(obs)[0].samples / _PLAYOUTS_PER_WORLD)
        weighted_worlds.append(weighted.evaluate(obs)[0].samples / _PLAYOUTS_PER_WORLD)
        log_w = likelihood.log_weights([sample_world(obs, rng) for _ in range(100)])
        w = [math.exp(x - max(log_w)) for x in log_w]
        effective.append(sum(w) ** 2 / sum(x * x for x in w))
    return {
        "machine": f"{platform.machine()} {platform.processor() or platform.platform()}",
        "python": platform.python_version(),
        "positions": len(found),
        "worlds": worlds,
        "ms_a_world": {"weighed": _summary(weighed), "weighed in full (baseline)": _summary(full),
                       "searched": _summary(searched)},
        "think_s": think,
        "worlds_a_decision": {"plain": _summary(plain_worlds), "weighted": _summary(weighted_worlds)},
        "effective_share_of_100_worlds": {"median": round(statistics.median(effective), 1),
                                          "p10": round(sorted(effective)[len(effective) // 10], 1),
                                          "min": round(min(effective), 1)},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=6)
    parser.add_argument("--worlds", type=int, default=16)
    parser.add_argument("--think", type=float, default=0.05)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = measure(args.deals, args.worlds, args.think)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{result['machine']}, Python {result['python']}: {result['positions']} positions, "
          f"{result['worlds']} worlds each")
    for name, s in result["ms_a_world"].items():
        print(f"  {name:28} median {s['median']:.3f} ms  p95 {s['p95']:.3f} ms  max {s['max']:.3f} ms a world")
    print(f"worlds a decision at {result['think_s']} s:")
    for name, s in result["worlds_a_decision"].items():
        print(f"  {name:28} median {s['median']:.0f}  p95 {s['p95']:.0f}  max {s['max']:.0f}")
    e = result["effective_share_of_100_worlds"]
    print(f"effective share of 100 weighed worlds: median {e['median']:.1f}%  p10 {e['p10']:.1f}%  "
          f"min {e['min']:.1f}%")


if __name__ == "__main__":
    main()
