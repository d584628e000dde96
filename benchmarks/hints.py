"""Hints: how long a quick hint (the learned player's network) takes against the expert's hint.

    python benchmarks/hints.py [--positions N] [--think S] [--json]

Positions: ``--positions`` per preset (``online``, ``partners``, ``online2`` with two decks,
``tournament``), each at a random point of a deal played by intermediate players (seeded, so every
run ranks the same positions), at the turn of a seat with at least two legal plays.  Each is
ranked by :func:`gongzhu.players.hints.hints` with ``quick=True`` (the network and the reasons) and
by the expert's search at ``--think`` seconds (:data:`~gongzhu.players.hints.DEFAULT_HINT_THINK`
by default, as the server's hint) — the baseline, in the same run.  The first quick hint, which
loads the network, is timed apart.  Also: how often both put the same play first.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time
from typing import Any

from gongzhu.players.hints import DEFAULT_HINT_THINK, hints
from gongzhu.players.intermediate import IntermediatePlayer
from gongzhu.players.observation import Observation, observe
from gongzhu.rules import PRESETS, Deal

PRESET_NAMES = ("online", "partners", "online2", "tournament")


def positions(preset: str, count: int) -> list[Observation]:
    """``count`` positions of ``preset`` with a choice to make, from seeded deals."""
    out: list[Observation] = []
    seed = 0
    while len(out) < count:
        seed += 1
        rng = random.Random(seed)
        deal = Deal.new(PRESETS[preset], seed)
        players = [IntermediatePlayer(seed=seed * 4 + s) for s in range(4)]
        for s in list(deal.undeclared):
            deal.declare(s, players[s].choose_exposures(observe(deal, s)))
        stop = rng.randrange(0, 4 * 13)
        plays = 0
        while (turn := deal.turn) is not None:
            obs = observe(deal, turn)
            if plays >= stop and len(obs.legal_plays()) >= 2:
                out.append(obs)
                break
            deal.play(players[turn].choose_play(obs), turn)
            plays += 1
    return out


def summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "median_ms": round(statistics.median(ordered) * 1000, 2),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] * 1000, 2),
        "max_ms": round(ordered[-1] * 1000, 2),
    }


def measure(count: int, think: float) -> dict[str, Any]:
    cases = [(preset, obs) for preset in PRESET_NAMES for obs in positions(preset, count)]
    t0 = time.perf_counter()
    hints(cases[0][1], quick=True)  # loads the network
    first = time.perf_counter() - t0
    quick: dict[str, list[float]] = {p: [] for p in PRESET_NAMES}
    search: dict[str, list[float]] = {p: [] for p in PRESET_NAMES}
    same = 0
    for i, (preset, obs) in enumerate(cases):
        t0 = time.perf_counter()
        fast = hints(obs, quick=True)
        quick[preset].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        slow = hints(obs, think=think, seed=i)
        search[preset].append(time.perf_counter() - t0)
        same += fast[0].play == slow[0].play
    rows = [{"preset": p, "source": "network (quick)", **summary(quick[p])} for p in PRESET_NAMES]
    rows.append({"preset": "all", "source": "network (quick)", **summary([t for p in PRESET_NAMES for t in quick[p]])})
    rows.append({"preset": "all", "source": f"expert search ({think} s)",
                 **summary([t for p in PRESET_NAMES for t in search[p]])})
    return {
        "positions": len(cases),
        "think_s": think,
        "first_quick_hint_ms": round(first * 1000, 2),
        "same_best_play": round(same / len(cases), 3),
        "rows": rows,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=50, help="positions per preset (default 50)")
    parser.add_argument("--think", type=float, default=DEFAULT_HINT_THINK,
                        help=f"the expert's search time, seconds (default {DEFAULT_HINT_THINK})")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    result = measure(args.positions, args.think)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{result['positions']} positions; {result['machine']}")
    print(f"first quick hint (loads the network): {result['first_quick_hint_ms']} ms")
    print(f"the same best play from both: {result['same_best_play']:.0%}")
    print("| preset | source | median | p95 | max |")
    print("| --- | --- | ---: | ---: | ---: |")
    for row in result["rows"]:
        times = " | ".join(f"{row[k]} ms" for k in ("median_ms", "p95_ms", "max_ms"))
        print(f"| {row['preset']} | {row['source']} | {times} |")


if __name__ == "__main__":
    main()
