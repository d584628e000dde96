"""Research-environment speed: decisions (environment steps) per second with observations, for the
PettingZoo AEC environment, the batched environment and OpenSpiel's Hearts, all in the same run.

    python benchmarks/env.py [--seconds S] [--n N [N ...]] [--json]

A step is one decision of one deal with a uniformly random legal action, and its observation read.
Every loop plays whole deals, one after another (the batched environment deals the next deal of
a slot as soon as one ends).

- AEC: ``gongzhu.env.aec.raw_env("online")`` — ``last()`` (the observation vector and the action
  mask) each step, a random legal action from the mask, ``step``; reset when the deal ends.  On
  one process, and on two processes (one each, the rates added) for the two-core figure.
- batch: ``gongzhu.env.batch.BatchEnv(N, "online")`` — the actions drawn vectorised in numpy
  from the masks (uniform over each row's legal actions), then ``step``, which writes every
  deal's observation, mask and seat to act into the preallocated arrays; on 1 and 2 threads.
  Also without writing the observations (``step(actions, observe=False)``): the deals alone.
- OpenSpiel: ``pyspiel.load_game("hearts", {"pass_cards": False})`` (see
  ``benchmarks/openspiel_hearts.py`` for the pass-direction quirk) — at each player node the
  player's ``state.information_state_tensor()`` read (Hearts has no ``observation_tensor``) and
  a random action of ``state.legal_actions()`` applied;
  chance nodes (dealing) uniform from ``legal_actions()`` and not counted as steps.  On one
  process and on two.

"online" is the default preset: four seats declare their exposures (R4.4), then 52 plays (R5).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gongzhu.env.batch import BatchEnv
from openspiel_hearts import GAME_NAME, GAME_PARAMS, NO_PASS

try:
    import pyspiel  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # pragma: no cover - depends on the environment
    pyspiel = None

#: (steps per second, deals per second) of one measurement; None when it was skipped.
Rate = tuple[float, float] | None


def aec_rate(seconds: float, seed: int = 1) -> tuple[float, float]:
    """Steps and deals per second of the AEC environment on this process."""
    from gongzhu.env.aec import raw_env

    env = raw_env("online")
    env.reset(seed=seed)
    choice = random.Random(seed).choice
    steps = deals = 0
    clock = time.perf_counter
    start = clock()
    deadline = start + seconds
    while True:
        observation, _, termination, _, _ = env.last()
        if termination:
            deals += 1
            env.reset()
            if clock() >= deadline:
                break
            continue
        env.step(choice(np.flatnonzero(observation["action_mask"]).tolist()))
        steps += 1
    elapsed = clock() - start
    return steps / elapsed, deals / elapsed


def batch_rate(seconds: float, n: int, threads: int, observe: bool = True, seed: int = 1) -> tuple[float, float]:
    """Steps and deals per second of a BatchEnv of ``n`` deals on ``threads`` threads."""
    env = BatchEnv(n, "online", seed=seed, threads=threads)
    rng = np.random.default_rng(seed)
    masks = env.action_masks
    steps = 0
    clock = time.perf_counter
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        actions = (rng.random(masks.shape, dtype=np.float32) * masks).argmax(axis=1)
        env.step(actions, observe=observe)
        steps += n
    elapsed = clock() - start
    return steps / elapsed, env.deals_finished / elapsed


def openspiel_rate(seconds: float, seed: int = 1) -> tuple[float, float] | None:
    """Player steps and deals per second of OpenSpiel's Hearts, reading the observation tensor at
    every player node; None without pyspiel."""
    if pyspiel is None:
        return None
    game = pyspiel.load_game(GAME_NAME, GAME_PARAMS)
    choice = random.Random(seed).choice
    steps = deals = 0
    clock = time.perf_counter
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        state = game.new_initial_state()
        state.apply_action(NO_PASS)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(choice(state.legal_actions()))
                continue
            state.information_state_tensor(state.current_player())
            state.apply_action(choice(state.legal_actions()))
            steps += 1
        deals += 1
    elapsed = clock() - start
    return steps / elapsed, deals / elapsed


def _aec_worker(args: tuple[float, int]) -> tuple[float, float]:
    return aec_rate(*args)


def _openspiel_worker(args: tuple[float, int]) -> tuple[float, float] | None:
    return openspiel_rate(*args)


def on_processes(worker: Callable[[tuple[float, int]], Rate], seconds: float, processes: int) -> Rate:
    """The rates of ``processes`` processes running ``worker`` at once, added."""
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        rates = pool.map(worker, [(seconds, seed) for seed in range(1, processes + 1)])
    if any(r is None for r in rates):
        return None
    return sum(r[0] for r in rates if r), sum(r[1] for r in rates if r)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--n", type=int, nargs="+", default=[256, 1024], help="deals in the batched environment")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    s = args.seconds
    rows: list[tuple[str, Callable[[], Rate]]] = [
        ("AEC (gongzhu.env.aec), 1 process", lambda: aec_rate(s)),
        ("AEC, 2 processes", lambda: on_processes(_aec_worker, s, 2)),
    ]
    for observe in (True, False):
        for n in args.n:
            for threads in (1, 2):
                name = f"BatchEnv n={n}, {threads} thread{'s' if threads > 1 else ''}"
                rows.append((name if observe else f"{name}, no observations",
                             partial(batch_rate, s, n, threads, observe)))
    rows += [
        ("OpenSpiel hearts, 1 process", lambda: openspiel_rate(s)),
        ("OpenSpiel hearts, 2 processes", lambda: on_processes(_openspiel_worker, s, 2)),
    ]
    results = {name: measure() for name, measure in rows}
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    if args.json:
        print(json.dumps({"machine": machine, "seconds": s, "load_average": os.getloadavg()[0],
                          "steps_per_second": {k: None if v is None else v[0] for k, v in results.items()},
                          "deals_per_second": {k: None if v is None else v[1] for k, v in results.items()}},
                         indent=2))
        return
    base = results["OpenSpiel hearts, 1 process"]
    print(f"machine: {machine}; {s:g} s per measurement; load average {os.getloadavg()[0]:.2f}")
    print(f"{'loop':58s} {'steps/s':>12s} {'deals/s':>10s}  vs. OpenSpiel 1 process")
    for name, rate in results.items():
        if rate is None:
            print(f"{name:58s} {'skipped: pyspiel is not installed (pip install open_spiel)':>12s}")
            continue
        ratio = f"{rate[0] / base[0]:8.2f}x" if base else ""
        print(f"{name:58s} {rate[0]:12,.0f} {rate[1]:10,.0f}  {ratio}")


if __name__ == "__main__":
    main()
