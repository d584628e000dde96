"""The interface every computer player implements.

A player answers two questions for one seat of a :class:`~gongzhu.rules.Deal`: which cards to
expose in the exposure phase (亮牌, R4) and what to play when it is that seat's turn (R5).  The
interface is kept minimal on purpose: a later version hands players an observation (what the seat
may know) instead of the whole deal, and only these two signatures will have to change.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from gongzhu.rules.cards import Card, Seat
from gongzhu.rules.deal import Deal
from gongzhu.rules.model import Play

__all__ = ["Player"]


class Player(ABC):
    """A computer player for one seat at a time."""

    @abstractmethod
    def choose_exposures(self, deal: Deal, seat: Seat) -> list[tuple[Card, str]]:
        """The cards ``seat`` exposes, as ``(card, kind)`` pairs (kinds of R10), possibly none.

        Called once per deal while ``seat`` is in ``deal.undeclared``; the answer goes to
        ``deal.declare(seat, ...)``.
        """

    @abstractmethod
    def choose_play(self, deal: Deal, seat: Seat) -> Play:
        """The play of ``seat``, which is ``deal.turn``: one of ``deal.legal_plays()``."""
