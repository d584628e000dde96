"""Random-playout speed: deals per second through the public API, through the C fast path the
engine keeps for search, and OpenSpiel's Hearts as the reference, all in the same run.

    python benchmarks/playout.py [--seconds S] [--json]

(``make bench`` installs OpenSpiel, the ``bench`` extra, and runs this.)  A "deal" is the whole
of it: shuffle and deal (R3), the exposure phase (nobody exposes), 52 random legal plays, scoring.

- public API: ``Deal.new`` / ``declare`` / ``legal_plays`` / ``random.Random.choice`` / ``play``
  / ``score``, one deal after another in one process — what a user of the library writes.
- fast path: ``gongzhu.search.fast.random_deals`` — dealing, uniform random play and scoring in C,
  on 1 and on 2 threads (the GIL released).
- OpenSpiel (``pyspiel``, game ``hearts`` with ``pass_cards=False``), see
  ``benchmarks/openspiel_hearts.py``: its Python-driven loop (chance nodes sampled from
  ``chance_outcomes()``, as OpenSpiel's own examples do), the same loop sampling chance nodes
  uniformly from ``legal_actions()`` (valid only because Hearts deals uniformly), and its
  C++ loop (``evaluate_bots``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gongzhu.rules import Deal, Options
from gongzhu.search import fast
from openspiel_hearts import (
    openspiel_cpp_deals_per_second,
    openspiel_deals_per_second,
    openspiel_uniform_chance_deals_per_second,
)


def public_api_deals_per_second(seconds: float, seed: int = 1) -> float:
    """Random one-deck deals per second through the public ``Deal`` API."""
    options = Options()
    rng = random.Random(seed)
    choice = rng.choice
    clock = time.perf_counter
    deals = 0
    start = clock()
    deadline = start + seconds
    while True:
        deal = Deal.new(options, rng.getrandbits(32))
        for seat in deal.undeclared:
            deal.declare(seat)
        legal_plays = deal.legal_plays
        play = deal.play
        while not deal.is_over:
            play(choice(legal_plays()))
        deal.score  # noqa: B018 - scoring is part of a deal
        deals += 1
        now = clock()
        if now >= deadline:
            return deals / (now - start)


def fast_path_deals_per_second(seconds: float, threads: int, seed: int = 1) -> float:
    """Random one-deck deals per second through the C fast path on ``threads`` threads."""
    options = Options()
    n = 20_000 * threads
    fast.random_deals(options, n, seed, threads=threads)  # warm up; also sizes the batch
    deals = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        fast.random_deals(options, n, seed + deals, threads=threads)
        deals += n
    return deals / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    s = args.seconds
    rows: list[tuple[str, Callable[[], float | None]]] = [
        ("gongzhu public API (Python)", lambda: public_api_deals_per_second(s)),
        ("gongzhu fast path, 1 thread", lambda: fast_path_deals_per_second(s, 1)),
        ("gongzhu fast path, 2 threads", lambda: fast_path_deals_per_second(s, 2)),
        ("OpenSpiel hearts, Python loop", lambda: openspiel_deals_per_second(s)),
        ("OpenSpiel hearts, Python loop, uniform chance", lambda: openspiel_uniform_chance_deals_per_second(s)),
        ("OpenSpiel hearts, C++ loop", lambda: openspiel_cpp_deals_per_second(s)),
    ]
    results = {name: measure() for name, measure in rows}
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    if args.json:
        print(json.dumps({"machine": machine, "deals_per_second": results}, indent=2))
        return
    base = results["OpenSpiel hearts, Python loop"]
    print(f"machine: {machine}; {s:g} s per measurement")
    for name, rate in results.items():
        if rate is None:
            print(f"{name:48s} {'skipped (pip install open_spiel)':>12s}")
            continue
        ratio = f"{rate / base:6.2f}x OpenSpiel Python loop" if base else ""
        print(f"{name:48s} {rate:12,.0f} deals/s  {ratio}")


if __name__ == "__main__":
    main()
