"""A player that picks uniformly at random among the legal choices: the baseline opponent,
the self-play driver and a fuzzer for the rules core."""

from __future__ import annotations

import random

from gongzhu.players.base import Player
from gongzhu.players.observation import Observation
from gongzhu.rules.cards import Card
from gongzhu.rules.model import Play

__all__ = ["RandomPlayer"]


class RandomPlayer(Player):
    """Uniform over the legal plays; each exposable card exposed with probability 1/2, in a
    kind chosen uniformly among those allowed (R4.4).  Reproducible from ``seed``."""

    level = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def choose_exposures(self, obs: Observation) -> list[tuple[Card, str]]:
        chosen: list[tuple[Card, str]] = []
        # Two decks: ``exposable`` lists a card twice when both copies are held (R4.5); each
        # copy is decided on its own.
        for c in obs.exposable():
            if self.rng.random() < 0.5:
                kinds = obs.exposure_kinds(c)
                if any(k == "first" for _, k in chosen):
                    kinds = tuple(k for k in kinds if k != "first")  # only one 首明 card (R4.4)
                chosen.append((c, self.rng.choice(kinds)))
        return chosen

    def choose_play(self, obs: Observation) -> Play:
        plays = obs.legal_plays()
        if not plays:
            raise ValueError(f"{obs.seat.english} has no legal play: it is not their turn")
        return self.rng.choice(plays)

    def __repr__(self) -> str:
        return f"RandomPlayer(seed={self.seed!r})"
