"""Claims (声称, R5.4) a seat can make from what it sees: those that hold whatever the hidden hands
hold, so that a player who makes them is never refused.

- **The rest of the tricks are mine** (one deck): the seat is on lead, no trick in progress, and
  every card it holds is a master — no card still unseen ranks above it in its suit.  Leading any
  of them wins the trick (the others cannot beat it in the suit, and discards are lowest, R5.2),
  and the seat leads again with masters only; an exposed card still bound by R4.3 is never the
  only card it may lead, since another card of its suit, or it alone, may be led.
- **I take no more point cards**: no point card (R2) is left in the seat's hand, among the cards
  it cannot see, or in the trick in progress.

May import the rules core and :mod:`gongzhu.players.observation`.
"""

from __future__ import annotations

from collections import Counter

from gongzhu.players.observation import Observation
from gongzhu.rules.cards import ALL_CARDS, Card, Suit
from gongzhu.rules.claims import ClaimKind
from gongzhu.rules.deal import Phase
from gongzhu.rules.scoring import is_point_card

__all__ = ["sure_claim"]


def _unseen(obs: Observation) -> Counter[Card]:
    """The cards the seat has not seen: not in its hand, not played."""
    out = Counter({c: obs.options.decks for c in ALL_CARDS})
    out.subtract(obs.hand)
    out.subtract(c for t in obs.tricks for _, p in t.plays for c in p)
    out.subtract(c for _, p in obs.trick for c in p)
    return +out


def sure_claim(obs: Observation) -> ClaimKind | None:
    """The claim the seat can make now whatever the hidden hands hold, or None (see the module
    docstring): the rest of the tricks, else no more point cards."""
    if obs.phase is not Phase.PLAY or not obs.hand or not (obs.tricks or obs.trick):
        return None
    unseen = _unseen(obs)
    if obs.options.decks == 1 and not obs.trick and obs.turn == obs.seat:
        top: dict[Suit, int] = {}
        for c in unseen:
            top[c.suit] = max(top.get(c.suit, -1), int(c.rank))
        if all(c.rank > top.get(c.suit, -1) for c in obs.hand):
            return ClaimKind.ALL_TRICKS
    in_play = list(obs.hand) + list(unseen) + [c for _, p in obs.trick for c in p]
    if not any(is_point_card(c) for c in in_play):
        return ClaimKind.NO_POINTS
    return None
