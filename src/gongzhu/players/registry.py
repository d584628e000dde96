"""Computer players by level name, as the command line, the arena, the bot protocol and the
game spell them."""

from __future__ import annotations

from collections.abc import Callable

from gongzhu.players.base import Player
from gongzhu.players.beginner import BeginnerPlayer
from gongzhu.players.expert import ExpertPlayer, FlatMonteCarloPlayer
from gongzhu.players.intermediate import IntermediatePlayer
from gongzhu.players.random_player import RandomPlayer

__all__ = ["LEVELS", "make_player"]


def _random(seed: int | None, think: float | None, iterations: int | None) -> Player:
    return RandomPlayer(seed)


def _beginner(seed: int | None, think: float | None, iterations: int | None) -> Player:
    return BeginnerPlayer(seed)


def _intermediate(seed: int | None, think: float | None, iterations: int | None) -> Player:
    return IntermediatePlayer(seed)


#: Level name -> factory(seed, think seconds or None for the level's default, iterations or None).
LEVELS: dict[str, Callable[[int | None, float | None, int | None], Player]] = {
    "random": _random,
    "beginner": _beginner,
    "intermediate": _intermediate,
    "expert": ExpertPlayer,
    "flatmc": FlatMonteCarloPlayer,
}


def make_player(
    level: str, *, seed: int | None = None, think: float | None = None, iterations: int | None = None
) -> Player:
    """A new player of ``level``.  ``think`` is a time budget in seconds per decision and
    ``iterations`` a fixed search budget (reproducible with ``seed``); levels that do not
    search ignore both."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}: choose one of {', '.join(LEVELS)}")
    return LEVELS[level](seed, think, iterations)
