"""The expert's world weighting, and the network as its playout policy: what either costs a world,
against what searching it costs.

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
  playouts, what a world costs it without weighing;
- network playouts: the network's passes that one world's playouts would take with the network as
  the playout policy in place of the heuristic one — every candidate play, the expert's playouts
  a world each, every play left in the deal, all of a world's playouts run in step as one batch a
  play.  Only the passes are timed, not encoding each position nor playing the cards: a lower
  bound of that policy's cost a world;
- greedy network playouts: the same with one playout a candidate, all a world needs where the
  network's choice is taken greedily (the same world played out again gives the same deal).

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

import numpy as np

from decisions import decisions
from gongzhu.players import features
from gongzhu.players.expert import _PLAYOUTS_PER_WORLD, ExpertPlayer
from gongzhu.players.learned import LearnedPlayer
from gongzhu.players.network import Network, default_network
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


def _network_playouts(network: Network, obs: Observation, playouts: int) -> tuple[float, int]:
    """Milliseconds of the network's passes for one world's playouts of ``obs``'s decision with
    the network choosing every play, ``playouts`` a candidate (the module docstring: a lower
    bound), and the number of positions they run the network on."""
    rows = np.repeat(features.encode(obs)[None, :], len(obs.legal) * playouts, axis=0)
    steps = 52 - len(obs.played()) - 1  # the plays after the candidate's, to the end of the (one-deck) deal
    start = time.perf_counter()
    for _ in range(steps):
        network.forward(rows)
    return (time.perf_counter() - start) * 1000, steps * len(rows)


def measure(deals: int, worlds: int, think: float) -> dict[str, Any]:
    network = default_network()
    found = positions(deals)
    rng = random.Random(1)
    weighed: list[float] = []
    full: list[float] = []
    searched: list[float] = []
    network_playouts: list[float] = []
    network_positions: list[float] = []
    greedy_playouts: list[float] = []
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
        ms, passes = _network_playouts(network, obs, _PLAYOUTS_PER_WORLD)
        network_playouts.append(ms)
        network_positions.append(passes)
        greedy_playouts.append(_network_playouts(network, obs, 1)[0])
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
                       "searched": _summary(searched),
                       "network playouts (lower bound)": _summary(network_playouts),
                       "greedy network playouts (lower bound)": _summary(greedy_playouts)},
        "network_positions_a_world": _summary(network_positions),
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
        print(f"  {name:38} median {s['median']:.3f} ms  p95 {s['p95']:.3f} ms  max {s['max']:.3f} ms a world")
    n = result["network_positions_a_world"]
    print(f"  positions through the network for a world's playouts: median {n['median']:.0f}  "
          f"p95 {n['p95']:.0f}  max {n['max']:.0f}")
    print(f"worlds a decision at {result['think_s']} s:")
    for name, s in result["worlds_a_decision"].items():
        print(f"  {name:38} median {s['median']:.0f}  p95 {s['p95']:.0f}  max {s['max']:.0f}")
    e = result["effective_share_of_100_worlds"]
    print(f"effective share of 100 weighed worlds: median {e['median']:.1f}%  p10 {e['p10']:.1f}%  "
          f"min {e['min']:.1f}%")


if __name__ == "__main__":
    main()
