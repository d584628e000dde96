"""Hints: the legal plays of a position ranked by their expected result, each with a one-line
reason (the terms of R12) from the message catalog, in Chinese or English, fast enough for a hint
button.

Two sources rank the plays.  By default the expert's search (:class:`~gongzhu.players.expert.ExpertPlayer`,
``think`` seconds, 0.6 s by default); with ``quick=True`` the learned player's network
(:meth:`gongzhu.players.learned.LearnedPlayer.evaluate`: one forward pass per card of a play
built card by card, a few milliseconds), in the same units and cruder, for a hint shown at once
while the search runs.

A hint always comes: should its source fail (a bug, a view of the deal no hands fit, a network
that cannot be loaded), the failure is logged and the plays are ranked by the intermediate
player's rule-based estimate instead (:meth:`gongzhu.players.intermediate.Table.evaluate`,
roughly the same units, far cruder); should that fail too, they come in the order of the legal
plays, valued 0.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gongzhu.messages import Text
from gongzhu.players.expert import ExpertPlayer
from gongzhu.players.intermediate import Table, reason_for
from gongzhu.players.observation import Observation
from gongzhu.rules.model import Play

if TYPE_CHECKING:  # numpy is loaded only at the first quick hint
    from gongzhu.players.learned import LearnedPlayer

__all__ = ["DEFAULT_HINT_THINK", "Hint", "hints"]

log = logging.getLogger("gongzhu.players")

#: Default search time for a hint, seconds (the hint button must answer within 1 s).
DEFAULT_HINT_THINK = 0.6

# The quick hints' player, made (its network loaded) at the first quick hint and kept; the lock
# keeps threads from sharing its input buffer at once.
_network: LearnedPlayer | None = None
_network_lock = threading.Lock()


@dataclass(frozen=True)
class Hint:
    """A legal play, its expected result for the seat (R7 units of raw points: own minus the
    others' mean, or the team's margin under ``partners``) and why one would play it."""

    play: Play
    expected: float
    why: Text  # a ``hint.reason.*`` entry of the message catalog

    def reason(self, lang: str) -> str:
        return self.why.render(lang)

    @property
    def reason_zh(self) -> str:
        return self.why.render("zh")

    @property
    def reason_en(self) -> str:
        return self.why.render("en")


def hints(obs: Observation, *, quick: bool = False, think: float = DEFAULT_HINT_THINK,
          seed: int | None = None, iterations: int | None = None) -> list[Hint]:
    """The seat's legal plays, best first (empty when it is not the seat's turn): ranked by the
    expert's search (``think`` seconds, or ``iterations`` of it, from ``seed``), or with ``quick``
    by the learned player's network (``think``, ``seed`` and ``iterations`` do not matter then)."""
    plays = obs.legal_plays()
    if not plays:
        return []
    source = "the network" if quick else "the expert's search"
    try:
        if quick:
            values = _network_values(obs)
        else:
            expert = ExpertPlayer(seed=seed, think=None if iterations is not None else think, iterations=iterations)
            values = [(v.play, v.value) for v in expert.evaluate(obs)]
    except Exception:
        log.exception("hint for %s: %s failed; ranking by the intermediate player's rules", obs.seat.name, source)
        values = _rule_values(obs)
    ranked = sorted(values, key=lambda pv: -pv[1])
    out = []
    for play, value in ranked:
        try:
            why = reason_for(obs, play)
        except Exception:
            log.exception("hint for %s: no reason for %s", obs.seat.name, play)
            why = Text.of("hint.reason.play", cards=" ".join(c.pretty for c in play))
        out.append(Hint(play, round(value, 1), why))
    return out


def _network_values(obs: Observation) -> list[tuple[Play, float]]:
    """The learned player's value of each legal play."""
    global _network
    with _network_lock:
        if _network is None:
            from gongzhu.players.learned import LearnedPlayer

            _network = LearnedPlayer()
        return _network.evaluate(obs)


def _rule_values(obs: Observation) -> list[tuple[Play, float]]:
    """The intermediate player's estimate of each legal play, or 0 for each if that fails."""
    plays = obs.legal_plays()
    try:
        table = Table(obs)
        return [(p, table.evaluate(p)) for p in plays]
    except Exception:
        log.exception("hint for %s: the intermediate player's rules failed too; the plays are not ranked",
                      obs.seat.name)
        return [(p, 0.0) for p in plays]
