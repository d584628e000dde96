"""Playout policies of the C fast path: speed and strength of policy 1 (heuristic) against policy 0
(uniform random).

    python benchmarks/policy.py [--deals N] [--mc-deals N] [--seconds S] [--json]

- speed: fresh deals per second (shuffle, deal, play to the end, score: ``fast.random_deals``) on
  one thread, and playouts per second from the start of play of one deal
  (``FastPosition.playout_sums``), for each policy.
- strength, duplicate: on the same deals (deal ``i`` of a seed is the same whatever the policies),
  one seat plays policy 1 instead of policy 0, the other three seats unchanged; the table gives
  that seat's mean raw score (R6) difference per deal with a 95% confidence interval (from batch
  means).  The heuristic seat rotates over N, E, S, W.  Against random opponents and against
  heuristic opponents.
- Monte-Carlo (what policy 1 is for): a perfect-information one-ply Monte-Carlo seat (for each
  legal card, ``m`` playouts, the best mean raw score for itself) whose playouts use policy 1,
  against the same seat whose playouts use policy 0, on the same deals; the opponents play
  policy 1.  Run from Python, so smaller.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import time

from gongzhu.rules import Options
from gongzhu.rules.legal import bits
from gongzhu.search.fast import (
    POLICY_HEURISTIC,
    POLICY_UNIFORM,
    FastPosition,
    Policy,
    random_deal_trace,
    random_deals,
)

H, U = POLICY_HEURISTIC, POLICY_UNIFORM
NAMES = {U: "policy 0 (uniform)", H: "policy 1 (heuristic)"}


def deals_per_second(options: Options, policy: int, seconds: float, threads: int = 1) -> float:
    """Fresh deals dealt, played with ``policy`` and scored per second."""
    n = 20_000 * threads
    random_deals(options, n, 1, threads=threads, policy=policy)  # warm up
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        random_deals(options, n, 2 + done, threads=threads, policy=policy)
        done += n
    return done / (time.perf_counter() - start)


def playouts_per_second(options: Options, policy: int, seconds: float) -> float:
    """Playouts per second from the first lead of one deal (no dealing), one thread."""
    pos, _ = random_deal_trace(options, 5, 0)
    n = 20_000
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        pos.playout_sums(n, done, policy=policy)
        done += n
    return done / (time.perf_counter() - start)


def seat_policy(seat: int, mine: int, others: int) -> Policy:
    ids = [others] * 4
    ids[seat] = mine
    return (ids[0], ids[1], ids[2], ids[3])


def mean_ci(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (normal approximation)."""
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def duplicate(options: Options, deals: int, others: int, batch: int = 50, seed: int = 1000) -> dict[str, float]:
    """Seat k plays policy 1 instead of policy 0 (opponents: ``others``) on the same deals:
    mean raw score difference per deal, its 95% CI, and the two means.  Batches of ``batch``
    deals rotate the seat."""
    diffs: list[float] = []
    with_h = with_u = 0.0
    batches = max(8, deals // batch)
    for b in range(batches):
        seat = b % 4
        h = random_deals(options, batch, seed + b, threads=2, policy=seat_policy(seat, H, others))[seat]
        u = random_deals(options, batch, seed + b, threads=2, policy=seat_policy(seat, U, others))[seat]
        diffs.append((h - u) / batch)
        with_h += h
        with_u += u
    mean, ci = mean_ci(diffs)
    n = batches * batch
    return {"deals": n, "diff": mean, "ci95": ci, "seat_mean_policy1": with_h / n, "seat_mean_policy0": with_u / n}


_bits = bits


def mc_card(pos: FastPosition, m: int, seed: int, policy: int) -> int:
    """Perfect-information one-ply Monte Carlo: the card with the best mean raw score for the
    mover over ``m`` playouts (the same streams for every card)."""
    legal = _bits(pos.legal_mask())
    if len(legal) == 1:
        return legal[0]
    seat = pos.turn
    return max(legal, key=lambda c: pos.play(c).playout_sums(m, seed, policy=policy)[seat])


def mc_deal(options: Options, index: int, seat: int, m: int, playout_policy: int, seed: int = 77) -> int:
    """Seat ``seat`` plays Monte Carlo with ``playout_policy`` playouts, the others policy 1."""
    pos, _ = random_deal_trace(options, seed, index)
    step = 0
    while not pos.is_over:
        move_seed = seed * 1_000_003 + index * 64 + step
        if pos.turn == seat:
            c = mc_card(pos, m, move_seed, playout_policy)
        else:
            c = pos.playout_trace(move_seed, policy=H).cards[0]
        pos = pos.play(c)
        step += 1
    return pos.raw_scores()[seat]


def monte_carlo(options: Options, deals: int, m: int) -> dict[str, float]:
    diffs = [float(mc_deal(options, i, i % 4, m, H) - mc_deal(options, i, i % 4, m, U)) for i in range(deals)]
    mean, ci = mean_ci(diffs)
    return {"deals": deals, "playouts_per_card": m, "diff": mean, "ci95": ci}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200_000, help="deals per duplicate comparison")
    parser.add_argument("--mc-deals", type=int, default=600, help="deals of the Monte-Carlo comparison (0: skip)")
    parser.add_argument("--mc-playouts", type=int, default=24, help="playouts per legal card")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per speed measurement")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    options = Options()
    results: dict[str, object] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "options": "Options() (one deck, standard; no exposures)",
        "deals_per_second_1_thread": {NAMES[p]: deals_per_second(options, p, args.seconds) for p in (U, H)},
        "playouts_per_second_1_thread": {NAMES[p]: playouts_per_second(options, p, args.seconds) for p in (U, H)},
        "duplicate_vs_random_opponents": duplicate(options, args.deals, U),
        "duplicate_vs_heuristic_opponents": duplicate(options, args.deals, H),
        "duplicate_all_exposed_vs_random_opponents": duplicate(Options(exposure="all"), args.deals, U),
    }
    if args.mc_deals > 0:
        results["monte_carlo_policy1_vs_policy0_playouts"] = monte_carlo(options, args.mc_deals, args.mc_playouts)
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
        return
    print(f"machine: {results['machine']}; {results['options']}")
    for key in ("deals_per_second_1_thread", "playouts_per_second_1_thread"):
        rates = results[key]
        assert isinstance(rates, dict)
        for name, rate in rates.items():
            print(f"{key.replace('_', ' '):30s} {name:22s} {rate:12,.0f}")
    for key, value in results.items():
        if key.startswith(("duplicate", "monte")):
            assert isinstance(value, dict)
            extra = ""
            if "seat_mean_policy1" in value:
                extra = (f"  (seat mean {value['seat_mean_policy1']:+.1f} with policy 1,"
                         f" {value['seat_mean_policy0']:+.1f} with policy 0)")
            print(f"{key.replace('_', ' ')}: {value['diff']:+.1f} ± {value['ci95']:.1f} raw points per deal"
                  f" over {value['deals']:,} deals{extra}")


if __name__ == "__main__":
    main()
