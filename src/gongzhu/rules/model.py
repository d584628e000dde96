"""Small immutable value types shared by the rules modules: an exposure, a play, a trick."""

from __future__ import annotations

from dataclasses import dataclass

from gongzhu.rules.cards import Card, Seat

__all__ = ["Exposure", "Play", "Trick"]

#: A play: one card, or two identical-or-not cards in a two-deck pair trick (R5.3).
Play = tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Exposure:
    """One exposed card (R4): who exposed it, which card, and how (``shown``, ``first``,
    ``hidden`` or ``auto``, R10)."""

    seat: Seat
    card: Card
    kind: str


@dataclass(frozen=True, slots=True)
class Trick:
    """A finished trick (圈).  ``taker`` is who took its point cards: the winner, except under
    ``discard_color=penalty`` where the first offender takes them (R5.2)."""

    leader: Seat
    plays: tuple[tuple[Seat, Play], ...]
    winner: Seat
    taker: Seat

    @property
    def cards(self) -> list[Card]:
        return [c for _, play in self.plays for c in play]
