"""The interface every computer player implements.

A player answers two questions for one seat: which cards to expose in the exposure phase
(亮牌, R4) and what to play when it is that seat's turn (R5).  It receives an
:class:`~gongzhu.players.observation.Observation` — the seat's own hand and what is public —
never the deal itself, so no player can see another hand.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from gongzhu.players.observation import Observation
from gongzhu.rules.cards import Card
from gongzhu.rules.model import Play

__all__ = ["Player"]


class Player(ABC):
    """A computer player for one seat at a time."""

    #: The level name (``random``, ``beginner`` …), as the command line spells it.
    level: str = "player"

    @abstractmethod
    def choose_exposures(self, obs: Observation) -> list[tuple[Card, str]]:
        """The cards the seat exposes, as ``(card, kind)`` pairs (kinds of R10), possibly none.

        ``obs.phase`` is the exposure phase; the answer goes to ``deal.declare(seat, ...)``.
        """

    @abstractmethod
    def choose_play(self, obs: Observation) -> Play:
        """The seat's play, which must be one of ``obs.legal_plays()``."""
