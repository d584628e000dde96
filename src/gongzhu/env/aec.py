"""Gongzhu as a PettingZoo AEC environment: one deal per episode, every decision a turn.

>>> from gongzhu.env.aec import env
>>> table = env(preset="online")
>>> table.reset(seed=7)
>>> for agent in table.agent_iter():
...     observation, reward, termination, truncation, info = table.last()
...     if termination or truncation:
...         action = None
...     else:
...         mask = observation["action_mask"]
...         action = int(mask.nonzero()[0][0])  # the first legal action
...     table.step(action)
>>> sorted(table.possible_agents)
['E', 'N', 'S', 'W']

The agents are the seats ``N E S W``; an episode is the first deal of a match dealt from a seed
(R3, R5.1), the exposure phase (R4) and then the play (R5), each decision an action of
:mod:`gongzhu.players.features`.  Observations are the seat's vector and its action mask, rewards
each seat's result of R7 at the end of the deal, and an illegal action raises
:class:`IllegalActionError` and changes nothing.  This module imports the rules core and the
players' observation and encodings (and numpy, PettingZoo and Gymnasium).  The episode, rewards
and seeding in full: docs/env.md, The AEC environment.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from gongzhu.env import AGENTS
from gongzhu.players import features
from gongzhu.players.features import N_ACTIONS, OBS_SIZE
from gongzhu.players.observation import Observation, observe
from gongzhu.rules.cards import Card, Seat
from gongzhu.rules.deal import Deal, Phase
from gongzhu.rules.errors import GongzhuError
from gongzhu.rules.options import Options, resolve_options

__all__ = ["GongzhuEnv", "IllegalActionError", "env", "raw_env"]

_SEATS = {name: Seat(i) for i, name in enumerate(AGENTS)}


class IllegalActionError(ValueError):
    """An action the current agent may not take now; the environment is unchanged."""


class GongzhuEnv(AECEnv[str, dict[str, np.ndarray], int | None]):  # type: ignore[misc]
    """One Gongzhu deal under ``preset`` (R9) with ``options`` (R10 keys) overridden on top.

    ``render_mode`` ``"ansi"`` makes :meth:`render` return the table as text, ``"human"``
    prints it."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"], "name": "gongzhu_v0", "is_parallelizable": False,
    }

    def __init__(self, preset: str = "online", options: dict[str, Any] | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: choose one of {self.metadata['render_modes']}")
        self.rules: Options = resolve_options(preset, options)
        self.preset = preset
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        observation = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (N_ACTIONS,), dtype=np.int8),
        })
        self.observation_spaces = {a: observation for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in AGENTS}
        self._rng = np.random.default_rng()
        self.deal: Deal | None = None
        self._building = features.Building()
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[0]

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ episodes

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new deal: from ``options["deal_seed"]`` when given (the one key of ``options``
        read), else the next seed of the environment's random stream (re-seeded by ``seed``)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        # Other keys are left alone, as PettingZoo's API asks of reset options.
        deal_seed = (options or {}).get("deal_seed")
        if deal_seed is None:
            deal_seed = int(self._rng.integers(0, 2**63 - 1))
        elif not isinstance(deal_seed, int) or isinstance(deal_seed, bool) or deal_seed < 0:
            raise ValueError(f"deal_seed must be a non-negative integer, not {deal_seed!r}")
        self.deal = Deal.new(self.rules, deal_seed)
        self._building = features.Building()
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {"deal_seed": deal_seed} for a in AGENTS}
        self.agent_selection = self._to_act()

    def _to_act(self) -> str:
        deal = self._deal()
        if deal.phase is Phase.EXPOSE:
            return AGENTS[deal.undeclared[0]]
        turn = deal.turn
        return AGENTS[turn] if turn is not None else self.agent_selection

    def _deal(self) -> Deal:
        if self.deal is None:
            raise RuntimeError("call reset() before using the environment")
        return self.deal

    # ------------------------------------------------------------------ observing

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        deal = self._deal()
        seat = _SEATS[agent]
        obs = observe(deal, seat)
        acting = agent == self.agent_selection and not self.terminations[agent] and not deal.is_over
        b = self._building
        declared, chosen = (b.declared, b.chosen) if acting else ([], [])
        vector = features.encode(obs, declared, chosen)
        mask = features.action_mask(obs, declared, chosen) if acting else np.zeros(N_ACTIONS, dtype=np.int8)
        return {"observation": vector, "action_mask": mask}

    def observation_of(self, agent: str) -> Observation:
        """The seat's :class:`~gongzhu.players.observation.Observation` (what a gongzhu player is
        given), for agents that want it rather than the vector."""
        return observe(self._deal(), _SEATS[agent])

    @property
    def building(self) -> tuple[tuple[tuple[Card, str], ...], tuple[Card, ...]]:
        """What the seat to act has built so far: its declaration (exposure phase) and the
        cards of its play (two decks)."""
        return tuple(self._building.declared), tuple(self._building.chosen)

    # ------------------------------------------------------------------ acting

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        deal = self._deal()
        seat = _SEATS[agent]
        obs = observe(deal, seat)
        mask = features.action_mask(obs, self._building.declared, self._building.chosen)
        if isinstance(action, np.integer):
            action = int(action)
        if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action < N_ACTIONS \
                or not mask[action]:
            legal = [int(a) for a in np.flatnonzero(mask)]
            raise IllegalActionError(f"{agent} may not take action {action!r} now: the legal actions are {legal}")
        try:
            features.take_action(deal, seat, action, self._building)
        except GongzhuError as e:  # the mask and the rules disagree: say so, nothing changed
            raise IllegalActionError(f"{agent} may not take action {action}: {e}") from e
        self._cumulative_rewards[agent] = 0.0
        if deal.is_over:
            result = deal.score.result
            self.rewards = {a: float(result[i]) for i, a in enumerate(AGENTS)}
            self.terminations = {a: True for a in AGENTS}
            for a in AGENTS:
                self.infos[a]["raw"] = deal.score.raw[_SEATS[a]]
        else:
            self.rewards = {a: 0.0 for a in AGENTS}
            self.agent_selection = self._to_act()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # ------------------------------------------------------------------ showing

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        b = self._building
        text = _table_text(self._deal(), b.declared, b.chosen, self.agent_selection)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def _table_text(deal: Deal, declared: list[tuple[Card, str]], chosen: list[Card], agent: str) -> str:
    lines = []
    for s in Seat:
        hand = " ".join(c.code for c in deal.hand(s))
        lines.append(f"{AGENTS[s]}: {hand}")
    if deal.exposures:
        lines.append("exposed: " + " ".join(f"{AGENTS[e.seat]}:{e.card.code}({e.kind})" for e in deal.exposures))
    if deal.phase is Phase.EXPOSE:
        lines.append(f"{agent} declares" + (": " + " ".join(f"{c.code}({k})" for c, k in declared) if declared else ""))
    elif deal.is_over:
        lines.append("over: " + " ".join(f"{AGENTS[s]} {r:+d}" for s, r in zip(Seat, deal.score.result, strict=True)))
    else:
        trick = " ".join(f"{AGENTS[s]}:{''.join(c.code for c in p)}" for s, p in deal.current_trick)
        building = f" ({' '.join(c.code for c in chosen)} chosen)" if chosen else ""
        lines.append(f"trick {len(deal.tricks) + 1}: {trick or '-'}; {agent} to play{building}")
    return "\n".join(lines)


def raw_env(preset: str = "online", options: dict[str, Any] | None = None,
            render_mode: str | None = None) -> GongzhuEnv:
    """The environment without PettingZoo's wrappers."""
    return GongzhuEnv(preset, options, render_mode)


def env(preset: str = "online", options: dict[str, Any] | None = None,
        render_mode: str | None = None) -> AECEnv[str, dict[str, np.ndarray], int | None]:
    """The environment in PettingZoo's usual wrappers (order enforcing: reset before step,
    no stepping after the end)."""
    return wrappers.OrderEnforcingWrapper(raw_env(preset, options, render_mode))
