"""Hints: the legal plays of a position ranked by the expert's expected result, each with a
one-line reason in Chinese and English (the terms of R12), fast enough for a hint button."""

from __future__ import annotations

from dataclasses import dataclass

from gongzhu.players.expert import ExpertPlayer
from gongzhu.players.intermediate import reason_for
from gongzhu.players.observation import Observation
from gongzhu.rules.model import Play

__all__ = ["DEFAULT_HINT_THINK", "Hint", "hints"]

#: Default search time for a hint, seconds (the hint button must answer within 1 s).
DEFAULT_HINT_THINK = 0.6


@dataclass(frozen=True)
class Hint:
    """A legal play, its expected result for the seat (R7 units of raw points: own minus the
    others' mean, or the team's margin under ``partners``) and why one would play it."""

    play: Play
    expected: float
    reason_zh: str
    reason_en: str

    def reason(self, lang: str) -> str:
        return self.reason_zh if lang == "zh" else self.reason_en


def hints(obs: Observation, *, think: float = DEFAULT_HINT_THINK, seed: int | None = None,
          iterations: int | None = None) -> list[Hint]:
    """The seat's legal plays, best first (empty when it is not the seat's turn)."""
    if not obs.legal_plays():
        return []
    expert = ExpertPlayer(seed=seed, think=None if iterations is not None else think, iterations=iterations)
    ranked = sorted(expert.evaluate(obs), key=lambda v: -v.value)
    out = []
    for v in ranked:
        zh, en = reason_for(obs, v.play)
        out.append(Hint(v.play, round(v.value, 1), zh, en))
    return out
