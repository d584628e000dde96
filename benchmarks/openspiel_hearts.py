"""OpenSpiel Hearts reference baseline for ``benchmarks/playout.py``.

Gongzhu is a four-player, 52-card trick-taking game, close in shape to Hearts. As an
outside point of comparison for our random-playout throughput, this module times
OpenSpiel's Hearts (``pyspiel.load_game("hearts", {"pass_cards": False})``) played
uniformly at random, counting complete deals (from the initial state until
``state.is_terminal()``):

* :func:`openspiel_deals_per_second` drives the game through pyspiel's Python API:
  chance nodes are sampled from ``state.chance_outcomes()`` with a Python
  ``random.Random``; at player nodes the action is chosen uniformly from
  ``state.legal_actions()``.  This is the like-for-like baseline for a pure-Python
  playout loop.
* :func:`openspiel_cpp_deals_per_second` runs each whole deal inside C++ via
  ``pyspiel.evaluate_bots`` with ``pyspiel.make_uniform_random_bot`` bots, so only one
  Python-to-C++ call is made per deal.  This is an upper bound for what OpenSpiel's
  engine itself can do.

Known OpenSpiel quirk (checked on open_spiel 2.0.2): ``HeartsState::ChanceOutcomes()``
ignores ``pass_cards`` and offers all four pass directions at the first chance node,
although ``state.legal_actions()`` there is only ``[0]`` ("No Pass").  Sampling it
blindly would give three deals in four an extra 12-move passing phase (64 player moves
instead of 52), which Gongzhu does not have.  Both loops therefore apply ``NO_PASS``
explicitly as the first (pass-direction) chance action; every other chance node (the
52 dealing steps) is sampled from ``state.chance_outcomes()``.

Both return ``None`` when ``pyspiel`` (the ``open_spiel`` package, ``pip install
open_spiel`` or the ``bench`` extra) is not installed, so callers can skip the
comparison instead of failing.
"""

from __future__ import annotations

import random
import time
from typing import Any

try:
    import pyspiel  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # pragma: no cover - depends on the environment
    pyspiel = None

GAME_NAME = "hearts"
GAME_PARAMS: dict[str, Any] = {"pass_cards": False}
NUM_PLAYERS = 4
NO_PASS = 0  # pass-direction chance action "No Pass" (see the module docstring)


def _load_game() -> Any:
    return pyspiel.load_game(GAME_NAME, GAME_PARAMS)


def openspiel_deals_per_second(seconds: float = 3.0, seed: int = 1) -> float | None:
    """Random Hearts deals per second through pyspiel's Python API, or None without pyspiel.

    Plays complete deals back to back for about ``seconds`` of wall time (always at
    least one deal) and returns the number of deals divided by the elapsed time.
    """
    if pyspiel is None:
        return None
    game = _load_game()
    rng = random.Random(seed)
    choice = rng.choice
    choices = rng.choices
    clock = time.perf_counter

    deals = 0
    start = clock()
    deadline = start + seconds
    while True:
        state = game.new_initial_state()
        state.apply_action(NO_PASS)
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(choices(outcomes, probs)[0])
            else:
                state.apply_action(choice(state.legal_actions()))
        deals += 1
        now = clock()
        if now >= deadline:
            return deals / (now - start)


def openspiel_uniform_chance_deals_per_second(seconds: float = 3.0, seed: int = 1) -> float | None:
    """As :func:`openspiel_deals_per_second`, but every chance node picks uniformly from
    ``state.legal_actions()`` instead of sampling ``chance_outcomes()`` by probability.

    That is valid only because Hearts deals uniformly; it is the fastest Python-driven loop
    OpenSpiel allows, reported so the baseline is not flattered by the generic sampler.
    """
    if pyspiel is None:
        return None
    game = _load_game()
    choice = random.Random(seed).choice
    clock = time.perf_counter
    deals = 0
    start = clock()
    deadline = start + seconds
    while True:
        state = game.new_initial_state()
        state.apply_action(NO_PASS)
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
        deals += 1
        now = clock()
        if now >= deadline:
            return deals / (now - start)


def openspiel_cpp_deals_per_second(seconds: float = 3.0, seed: int = 1) -> float | None:
    """Random Hearts deals per second with the whole deal played in C++, or None without pyspiel.

    Each deal is one ``pyspiel.evaluate_bots`` call (C++ loop: chance sampling from
    the given seed, uniform random bots at player nodes) on a fresh initial state
    whose pass direction has been set to ``NO_PASS``.
    """
    if pyspiel is None:
        return None
    game = _load_game()
    rng = random.Random(seed)
    bots = [pyspiel.make_uniform_random_bot(p, rng.getrandbits(31)) for p in range(NUM_PLAYERS)]
    evaluate_bots = pyspiel.evaluate_bots
    new_state = game.new_initial_state
    randbits = rng.getrandbits
    clock = time.perf_counter

    deals = 0
    start = clock()
    deadline = start + seconds
    while True:
        state = new_state()
        state.apply_action(NO_PASS)
        evaluate_bots(state, bots, randbits(31))
        deals += 1
        now = clock()
        if now >= deadline:
            return deals / (now - start)


def main() -> None:
    py_rate = openspiel_deals_per_second()
    if py_rate is None:
        print("pyspiel not installed (pip install open_spiel); OpenSpiel baseline skipped")
        return
    print(f"OpenSpiel hearts, Python loop: {py_rate:10.1f} deals/s")
    cpp_rate = openspiel_cpp_deals_per_second()
    if cpp_rate is not None:
        print(f"OpenSpiel hearts, C++ loop:    {cpp_rate:10.1f} deals/s")


if __name__ == "__main__":
    main()
