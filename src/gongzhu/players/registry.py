"""Computer players by level name, as the command line, the arena, the bot protocol and the
game spell them.

:data:`LEVELS` are the players everyone is offered.  :data:`RESEARCH_LEVELS` are variants of
them that only the arena plays, to measure an idea against the level it would change (for
instance the expert with its endgame solved exactly, docs/strength.md); the game, the server and
the bot do not list them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from gongzhu.players.base import Player
from gongzhu.players.beginner import BeginnerPlayer
from gongzhu.players.expert import ExpertPlayer, FlatMonteCarloPlayer
from gongzhu.players.intermediate import IntermediatePlayer
from gongzhu.players.mixed import DECISION_KINDS, MixedPlayer
from gongzhu.players.random_player import RandomPlayer

if TYPE_CHECKING:  # numpy is loaded only when a learned player is made
    from gongzhu.players.learned import Rank

__all__ = ["LEVELS", "MOST_THINK", "RESEARCH_LEVELS", "arena_levels", "make_player", "think_error"]

#: The longest a computer player may be given to think about one decision, in seconds.
MOST_THINK = 60.0


def think_error(think: float | None) -> str | None:
    """Why ``think`` is not a time to think about one decision (more than 0, at most
    :data:`MOST_THINK` seconds; not NaN, not infinite); None when it is one, or None."""
    if think is None or 0 < think <= MOST_THINK:
        return None
    return f"think must lie in (0, {MOST_THINK:g}] seconds, not {think}"


def _random(seed: int | None, think: float | None, iterations: int | None) -> Player:
    return RandomPlayer(seed)


def _beginner(seed: int | None, think: float | None, iterations: int | None) -> Player:
    return BeginnerPlayer(seed)


def _intermediate(seed: int | None, think: float | None, iterations: int | None) -> Player:
    return IntermediatePlayer(seed)


# The learned player and the network load numpy (and its BLAS threads) when first asked for, not
# when a command starts: a command waiting on its input must still get its Ctrl-C on the main
# thread.
def _learned(rank: Rank, value_weight: float | None = None) -> Callable[[int | None, float | None, int | None], Player]:
    def factory(seed: int | None, think: float | None, iterations: int | None) -> Player:
        from gongzhu.players.learned import LearnedPlayer

        return LearnedPlayer(seed, think, iterations, rank=rank, value_weight=value_weight)
    return factory


#: Level name -> factory(seed, think seconds or None for the level's default, iterations or None),
#: weakest first as the arena measures them (docs/strength.md): random < beginner < intermediate <
#: expert step by step, the expert leading the intermediate by about 78 raw points a deal, flatmc
#: by about 50 and learned by about 13.  The game offers them in this order, each with a line on
#: how strong it is (the message catalog's ``level.<name>`` and ``levelInfo.<name>``).
LEVELS: dict[str, Callable[[int | None, float | None, int | None], Player]] = {
    "random": _random,
    "beginner": _beginner,
    "intermediate": _intermediate,
    "flatmc": FlatMonteCarloPlayer,
    "learned": _learned("policy"),
    "expert": ExpertPlayer,
}


def _expert_endgame(tricks: int) -> Callable[[int | None, float | None, int | None], Player]:
    def factory(seed: int | None, think: float | None, iterations: int | None) -> Player:
        return ExpertPlayer(seed, think, iterations, endgame=tricks)
    return factory


def _learned_with_expert(kind: str) -> Callable[[int | None, float | None, int | None], Player]:
    def factory(seed: int | None, think: float | None, iterations: int | None) -> Player:
        from gongzhu.players.learned import LearnedPlayer

        return MixedPlayer(LearnedPlayer(seed), ExpertPlayer(seed, think, iterations), (kind,))
    return factory


def _expert_weighted(temper: float) -> Callable[[int | None, float | None, int | None], Player]:
    def factory(seed: int | None, think: float | None, iterations: int | None) -> Player:
        from gongzhu.players.network import default_network

        return ExpertPlayer(seed, think, iterations, weighting=default_network(), temper=temper)
    return factory


#: Level name -> factory, for the arena only: ``expert-endgameK`` is the expert that solves its
#: sampled worlds exactly once at most K tricks are left (one deck; ``ExpertPlayer(endgame=K)``);
#: ``expert-weighted`` the expert that weighs its sampled worlds by how likely the learned network
#: finds the other seats' recent plays in each (one deck; ``ExpertPlayer(weighting=...)``), its
#: log-likelihood halved, and ``expert-weighted-soft`` the same with it times 0.2 (flatter weights);
#: ``learned-values`` the learned player choosing by the network's action values rather than
#: its policy; ``learned-policy`` by the policy's logits alone, the values not leaned on;
#: ``learned-expert-KIND`` the learned player with the expert taking its decisions of one kind
#: (``declare``, ``lead``, ``follow``, ``discard``; :mod:`gongzhu.players.mixed`).
RESEARCH_LEVELS: dict[str, Callable[[int | None, float | None, int | None], Player]] = {
    **{f"expert-endgame{k}": _expert_endgame(k) for k in (3, 4, 5, 6)},
    "expert-weighted": _expert_weighted(0.5),
    "expert-weighted-soft": _expert_weighted(0.2),
    "learned-values": _learned("values"),
    "learned-policy": _learned("policy", 0.0),
    **{f"learned-expert-{kind}": _learned_with_expert(kind) for kind in DECISION_KINDS},
}


def arena_levels() -> list[str]:
    """Every level name the arena plays: :data:`LEVELS`, then :data:`RESEARCH_LEVELS`."""
    return [*LEVELS, *RESEARCH_LEVELS]


def make_player(
    level: str, *, seed: int | None = None, think: float | None = None, iterations: int | None = None
) -> Player:
    """A new player of ``level`` (one of :data:`LEVELS` or :data:`RESEARCH_LEVELS`).  ``think``
    is a time budget in seconds per decision and ``iterations`` a fixed search budget
    (reproducible with ``seed``); levels that do not search ignore both."""
    factory = LEVELS.get(level) or RESEARCH_LEVELS.get(level)
    if factory is None:
        raise ValueError(f"unknown level {level!r}: choose one of {', '.join(LEVELS)}")
    if (why := think_error(think)) is not None:
        raise ValueError(why)
    return factory(seed, think, iterations)
