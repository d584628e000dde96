"""The expert's search: what a sampled world costs it, and how many worlds it searches.

    python benchmarks/expert.py [--deals N] [--worlds W] [--think S] [--json]

Positions: every decision with a choice of ``--deals`` deals per preset (``online``, and
``online2`` with two decks) that intermediate players play against themselves (seeded, so every
run measures the same positions).  At each, the expert evaluates the position twice with
``--worlds`` worlds, from the same seed, so the two make the same choice:

- shared: as the expert searches, what every world of the decision shares (the seats' room, the
  known holdings, the unseen cards and the voids of :class:`gongzhu.players.sampling.WorldSampler`;
  the trick, the points taken and the cards played of its C positions) worked out once a decision;
- each world on its own (the baseline, in the same run): all of that worked out again for every
  world, as :func:`gongzhu.players.sampling.sample_world` does for one world;

and the time a world is reported for each.  Then, at ``--think`` seconds a decision (the expert's
default budget, 0.3 s), how many worlds each searches on the same positions.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from decisions import decisions
from gongzhu.players import expert as expert_module
from gongzhu.players.expert import _PLAYOUTS_PER_WORLD, DEFAULT_THINK, ExpertPlayer
from gongzhu.players.intermediate import IntermediatePlayer
from gongzhu.players.observation import Observation
from gongzhu.players.sampling import World, sample_world
from gongzhu.rules import PRESETS

PRESET_NAMES = ("online", "online2")
_SHARED = expert_module._Positions


class _EachOnItsOwn(ExpertPlayer):
    """The expert drawing every world with nothing kept from the decision's other worlds."""

    def _worlds(self, obs: Observation) -> Callable[[], World]:
        return lambda: sample_world(obs, self.rng)


class _FreshPositions:
    """Builds every world's C position from the observation alone, as for one world."""

    def __init__(self, obs: Observation) -> None:
        self.obs = obs

    def of(self, world: World) -> Any:
        return _SHARED(self.obs).of(world)


@contextmanager
def _each_on_its_own() -> Iterator[None]:
    expert_module._Positions = _FreshPositions  # type: ignore[misc,assignment]
    try:
        yield
    finally:
        expert_module._Positions = _SHARED  # type: ignore[misc]


def positions(preset: str, deals: int) -> list[Observation]:
    player = IntermediatePlayer(seed=0)
    return [obs for seed in range(deals) for _, obs in decisions(PRESETS[preset], 30_000 + seed, [player] * 4)]


def _summary(xs: list[float], digits: int = 3) -> dict[str, float]:
    xs = sorted(xs)
    return {"median": round(statistics.median(xs), digits), "p95": round(xs[int(0.95 * (len(xs) - 1))], digits),
            "max": round(xs[-1], digits)}


def measure(preset: str, deals: int, worlds: int, think: float) -> dict[str, Any]:
    found = positions(preset, deals)
    shared_ms: list[float] = []
    own_ms: list[float] = []
    shared_worlds: list[float] = []
    own_worlds: list[float] = []
    same = 0
    for k, obs in enumerate(found):
        t0 = time.perf_counter()
        a = ExpertPlayer(seed=k, iterations=worlds).evaluate(obs)
        t1 = time.perf_counter()
        with _each_on_its_own():
            b = _EachOnItsOwn(seed=k, iterations=worlds).evaluate(obs)
        t2 = time.perf_counter()
        same += a == b
        shared_ms.append((t1 - t0) * 1000 / worlds)
        own_ms.append((t2 - t1) * 1000 / worlds)
        # ``samples`` counts playouts, the same number a world (no world is solved exactly here).
        shared_worlds.append(ExpertPlayer(seed=k, think=think).evaluate(obs)[0].samples / _PLAYOUTS_PER_WORLD)
        with _each_on_its_own():
            own_worlds.append(_EachOnItsOwn(seed=k, think=think).evaluate(obs)[0].samples / _PLAYOUTS_PER_WORLD)
    return {
        "positions": len(found),
        "same_values": same,
        "ms_a_world": {"shared": _summary(shared_ms), "each on its own (baseline)": _summary(own_ms)},
        "worlds_a_decision": {"shared": _summary(shared_worlds, 0),
                              "each on its own (baseline)": _summary(own_worlds, 0)},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=3)
    parser.add_argument("--worlds", type=int, default=50)
    parser.add_argument("--think", type=float, default=DEFAULT_THINK)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result: dict[str, Any] = {
        "machine": f"{platform.machine()} {platform.processor() or platform.platform()}",
        "python": platform.python_version(),
        "worlds": args.worlds,
        "think_s": args.think,
        "presets": {p: measure(p, args.deals, args.worlds, args.think) for p in PRESET_NAMES},
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{result['machine']}, Python {result['python']}: {args.worlds} worlds a position, then {args.think} s")
    for preset, r in result["presets"].items():
        print(f"{preset}: {r['positions']} positions ({r['same_values']} valued alike both ways)")
        for name, s in r["ms_a_world"].items():
            print(f"  {name:28} median {s['median']:.3f} ms  p95 {s['p95']:.3f} ms  max {s['max']:.3f} ms a world")
        for name, s in r["worlds_a_decision"].items():
            print(f"  {name:28} median {s['median']:.0f}  p95 {s['p95']:.0f}  max {s['max']:.0f} worlds a decision")


if __name__ == "__main__":
    main()
