"""The learned player's time per decision: the whole decision (encoding the observation, the
network, the choice), and the encoding and the network alone, over every decision of whole deals
it plays against itself, per preset.

    python benchmarks/learned.py [--deals 40] [--presets online,partners,online2] [--json]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from typing import Any

import numpy as np

from gongzhu.players import features
from gongzhu.players.learned import LearnedPlayer
from gongzhu.players.observation import observe
from gongzhu.rules.deal import Deal
from gongzhu.rules.options import PRESETS


def _summary(ms: list[float]) -> dict[str, float]:
    ms = sorted(ms)
    return {"n": len(ms), "median": statistics.median(ms), "p95": ms[int(0.95 * (len(ms) - 1))], "max": ms[-1]}


def measure(preset: str, deals: int) -> dict[str, Any]:
    player = LearnedPlayer()
    decide: list[float] = []
    encode: list[float] = []
    forward: list[float] = []
    out = np.zeros(features.OBS_SIZE, dtype=np.float32)
    for seed in range(deals):
        deal = Deal.new(PRESETS[preset], 10_000 + seed)
        for s in deal.undeclared:
            deal.declare(s, player.choose_exposures(observe(deal, s)))
        while (turn := deal.turn) is not None:
            obs = observe(deal, turn)
            t0 = time.perf_counter()
            play = player.choose_play(obs)
            t1 = time.perf_counter()
            features.encode(obs, out=out)
            t2 = time.perf_counter()
            player.network.forward(out)
            t3 = time.perf_counter()
            if len(obs.legal) > 1:
                decide.append((t1 - t0) * 1000)
                encode.append((t2 - t1) * 1000)
                forward.append((t3 - t2) * 1000)
            deal.play(play, turn)
    return {"preset": preset, "decision": _summary(decide), "encode": _summary(encode), "network": _summary(forward)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deals", type=int, default=40)
    p.add_argument("--presets", default="online,partners,online2")
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    rows = [measure(preset, a.deals) for preset in a.presets.split(",")]
    if a.json:
        print(json.dumps({"machine": platform.machine(), "python": platform.python_version(), "rows": rows}, indent=2))
        return
    print(f"{platform.machine()}, Python {platform.python_version()}; ms per decision with a choice")
    print("| preset | decisions | decision median / p95 / max | encoding median | network median |")
    print("| --- | ---: | --- | --- | --- |")
    for r in rows:
        d, e, n = r["decision"], r["encode"], r["network"]
        print(f"| {r['preset']} | {d['n']} | {d['median']:.2f} / {d['p95']:.2f} / {d['max']:.2f} | "
              f"{e['median']:.2f} | {n['median']:.2f} |")


if __name__ == "__main__":
    main()
