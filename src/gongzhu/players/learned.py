"""The learned player: plays from the policy/value network alone, no search.

Each decision is the network's choice among the legal actions of :mod:`gongzhu.players.features`
— a play in one step with one deck, a two-deck play or a declaration built action by action —
ranked by the network's policy (the default) or by its action values.  The policy's ranking may
lean on the values: each legal action scores its logit plus ``value_weight`` times its value in
raw points, the weight tuned in the arena for the network it was trained with and kept in that
network's metadata (``value_weight``; none, 0: the logits alone).  A decision takes one
forward pass of a small network per step, well under the expert's think time, with numpy alone.

:meth:`LearnedPlayer.evaluate` gives every legal play with the network's expected result of it
(raw points of the seat's objective, as the expert's :meth:`~gongzhu.players.expert.ExpertPlayer.evaluate`):
the quick hints of :func:`gongzhu.players.hints.hints`.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from gongzhu.players import features
from gongzhu.players.base import Player
from gongzhu.players.features import ACTION_DONE, OBS_SIZE, Building
from gongzhu.players.network import Network, default_network
from gongzhu.players.observation import Observation
from gongzhu.rules.cards import ALL_CARDS, Card
from gongzhu.rules.model import Play

__all__ = ["LearnedPlayer", "policy_scores"]

Rank = Literal["policy", "values"]


def policy_scores(logits: np.ndarray, values: np.ndarray, value_weight: float) -> np.ndarray:
    """What the learned player ranks actions by with ``rank="policy"``: each action's logit plus
    ``value_weight`` times its value in raw points (the logits alone with no weight)."""
    return logits + np.float32(value_weight) * values if value_weight else logits


class LearnedPlayer(Player):
    """Plays the network's best legal action (see the module docstring).  ``network``: the
    shipped one by default; ``rank``: by the policy's logits or by the action values;
    ``value_weight``: what a raw point of value adds to a logit when ranking by the policy (by
    default the network's own, its metadata's ``value_weight``)."""

    level = "learned"

    def __init__(self, seed: int | None = None, think: float | None = None, iterations: int | None = None,
                 *, network: Network | None = None, rank: Rank = "policy", value_weight: float | None = None) -> None:
        if rank not in ("policy", "values"):
            raise ValueError(f"rank must be 'policy' or 'values', not {rank!r}")
        self.seed = seed  # the player is deterministic; the registry's arguments are accepted
        self.network = network if network is not None else default_network()
        self.rank = rank
        weight = self.network.value_weight if value_weight is None else float(value_weight)
        if not weight >= 0.0:
            raise ValueError(f"value_weight must be a number of at least 0, not {value_weight!r}")
        self.value_weight = weight
        self._x = np.zeros(OBS_SIZE, dtype=np.float32)

    def _scores(self, obs: Observation, building: Building) -> tuple[np.ndarray, np.ndarray]:
        features.encode(obs, building.declared, building.chosen, out=self._x)
        logits, values = self.network.forward(self._x)
        return logits, values

    def _best(self, obs: Observation, building: Building, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        logits, values = self._scores(obs, building)
        score = values if self.rank == "values" else policy_scores(logits, values, self.value_weight)
        return max(legal, key=lambda a: float(score[a]))

    def choose_play(self, obs: Observation) -> Play:
        if not obs.legal:
            raise ValueError(f"{obs.seat.english} has no legal play: it is not their turn")
        if len(obs.legal) == 1:
            return obs.legal[0]
        building = Building()
        while True:
            legal = features.play_actions(obs.legal, building.chosen)
            action = self._best(obs, building, legal)
            if action == ACTION_DONE:
                return tuple(building.chosen)
            building.chosen = [*building.chosen, ALL_CARDS[action]]
            play = features.finished_play(obs.legal, building.chosen)
            if play is not None:
                return play

    def choose_exposures(self, obs: Observation) -> list[tuple[Card, str]]:
        building = Building()
        while True:
            legal = features.declaration_actions(obs, building.declared)
            action = self._best(obs, building, legal)
            if action == ACTION_DONE:
                return building.declared
            building.declared = [*building.declared, features.exposure_of_action(action)]

    def evaluate(self, obs: Observation) -> list[tuple[Play, float]]:
        """Every legal play with the network's value of it, in the order of ``obs.legal``: the
        value of its last action, from the position where its earlier cards are chosen."""
        out = []
        cache: dict[tuple[Card, ...], np.ndarray] = {}
        for play in obs.legal:
            steps = features.actions_of_play(obs.legal, play)
            prefix = tuple(sorted(play, key=lambda c: c.index))[:len(steps) - 1]
            values = cache.get(prefix)
            if values is None:
                _, values = self._scores(obs, Building(chosen=list(prefix)))
                cache[prefix] = values
            out.append((play, float(values[steps[-1]])))
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}(rank={self.rank!r}, value_weight={self.value_weight!r})"
