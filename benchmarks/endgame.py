"""The expert's endgame solved exactly (``ExpertPlayer(endgame=K)``) against the plain expert, on
paired endings: a finer measurement than the arena's whole deals (docs/strength.md).

    python benchmarks/endgame.py [--preset online] [--tricks 4] [--endings 1000] [--iterations 100]
                                 [--seed 0] [--json]

Each ending is a fresh deal (``Deal.new(options, seed + i)``) declared and played by four
intermediate players until the seat to move holds ``--tricks`` cards.  From there the deal is
played to the end twice by four experts with the same seeds (``--iterations`` worlds per
decision): once with the seat to move solving its sampled worlds exactly, once plain; the other
three seats are plain experts both times.  The difference of that seat's R7 objective (its raw
score minus the others' mean, or half its team's margin under ``partners``: the units of
``ExpertPlayer.evaluate``) is the paired sample; the table gives its mean with a 95% confidence
interval (normal), how many endings were played differently, and the seat's mean think time
per decision in both.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import time
from typing import Any

from gongzhu.players import observe
from gongzhu.players.expert import ExpertPlayer, objective_weights
from gongzhu.players.intermediate import IntermediatePlayer
from gongzhu.rules import PRESETS, Deal, Seat


def ending(preset: str, seed: int, tricks: int) -> Deal:
    """A deal played by intermediate players until the seat to move holds ``tricks`` cards."""
    deal = Deal.new(PRESETS[preset], seed)
    players = {s: IntermediatePlayer(seed * 4 + s) for s in Seat}
    for s in deal.undeclared:
        deal.declare(s, players[s].choose_exposures(observe(deal, s)))
    while (turn := deal.turn) is not None and len(deal.hand(turn)) > tricks:
        deal.play(players[turn].choose_play(observe(deal, turn)), turn)
    return deal


def finish(deal: Deal, seat: Seat, endgame: int, seed: int, iterations: int) -> tuple[float, list[Any], list[float]]:
    """Play ``deal`` out with four experts, ``seat`` solving its worlds once at most ``endgame``
    tricks are left; its objective, the plays, and its think times."""
    deal = deal.copy()
    players = {s: ExpertPlayer(seed=seed * 4 + s, iterations=iterations, endgame=endgame if s == seat else 0)
               for s in Seat}
    plays: list[Any] = []
    think: list[float] = []
    while (turn := deal.turn) is not None:
        obs = observe(deal, turn)
        t0 = time.perf_counter()
        play = players[turn].choose_play(obs)
        if turn == seat and len(obs.legal_plays()) > 1:
            think.append(time.perf_counter() - t0)
        deal.play(play, turn)
        plays.append(play)
    weights = objective_weights(deal.options, seat)
    return sum(w * r for w, r in zip(weights, deal.score.raw, strict=True)), plays, think


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="online")
    parser.add_argument("--tricks", type=int, default=4)
    parser.add_argument("--endings", type=int, default=1000)
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    diffs: list[float] = []
    differ = 0
    think: dict[str, list[float]] = {"solved": [], "plain": []}
    start = time.perf_counter()
    for i in range(args.endings):
        deal = ending(args.preset, args.seed + i, args.tricks)
        seat = deal.turn
        assert seat is not None
        solved, plays_s, think_s = finish(deal, seat, args.tricks, args.seed + i, args.iterations)
        plain, plays_p, think_p = finish(deal, seat, 0, args.seed + i, args.iterations)
        diffs.append(solved - plain)
        differ += plays_s != plays_p
        think["solved"] += think_s
        think["plain"] += think_p
    mean = statistics.fmean(diffs)
    hw = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else math.inf
    report = {
        "preset": args.preset, "tricks": args.tricks, "endings": len(diffs), "iterations": args.iterations,
        "seed": args.seed, "mean": round(mean, 2), "ci95": [round(mean - hw, 2), round(mean + hw, 2)],
        "sd": round(statistics.stdev(diffs), 1) if len(diffs) > 1 else None, "endings_played_differently": differ,
        "think_ms": {k: round(1000 * statistics.fmean(v), 2) if v else None for k, v in think.items()},
        "elapsed_s": round(time.perf_counter() - start, 1), "python": platform.python_version(),
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{args.preset}, {args.tricks} tricks left, {len(diffs)} endings, {args.iterations} worlds per decision")
    print(f"solved − plain, objective per ending: {mean:+.2f} (95% CI {mean - hw:+.2f} … {mean + hw:+.2f}), "
          f"sd {report['sd']}; played differently in {differ} of {len(diffs)}")
    print(f"the seat's think time per decision (more than one legal play): solved {report['think_ms']['solved']} ms, "
          f"plain {report['think_ms']['plain']} ms")


if __name__ == "__main__":
    main()
