"""The beginner computer player: a handful of sensible rules and nothing more.

* Follow low: play the highest card (or two-card answer, R5.3) that still loses to the trick's
  current winner; when every card wins, the lowest one — or, as the last to play, the highest,
  since the trick is ours anyway.
* When void (断门), dump the worst card: the pig ♠Q, then the biggest heart, then the highest card;
  never onto the partner's trick under ``partners`` scoring.
* Last to play with the sheep ♦J on the table (and not the pig), take it.
* Lead the lowest card of a suit other than hearts; spades only without the pig.
* Expose nothing (亮牌 is for players who can defend the card).

Because the rules never play over the winner by choice, the beginner never takes the pig when
it can duck.  Deterministic for a seed: the generator only breaks exact ties.
"""

from __future__ import annotations

import random

from gongzhu.messages import Text
from gongzhu.players.base import Player
from gongzhu.players.intermediate import play_key, reason_for
from gongzhu.players.observation import Observation
from gongzhu.rules.cards import JD, QS, Card, Seat, Suit
from gongzhu.rules.model import Play
from gongzhu.rules.scoring import heart_value

__all__ = ["BeginnerPlayer"]


def _badness(play: Play) -> tuple[int, int, int]:
    """How much we want to get rid of a play when it loses: the pig first, then hearts by
    value, then high cards; the sheep last (it is worth keeping)."""
    pig = sum(1 for c in play if c == QS)
    hearts = sum(-heart_value(c.rank) + 1 for c in play if c.suit == Suit.HEARTS)
    ranks = sum(int(c.rank) for c in play) - 30 * sum(1 for c in play if c == JD)
    return (pig, hearts, ranks)


class BeginnerPlayer(Player):
    """Follows low, dumps the pig and big hearts when void, leads low (see the module
    docstring)."""

    level = "beginner"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def choose_exposures(self, obs: Observation) -> list[tuple[Card, str]]:
        return []

    def _pick(self, plays: list[Play]) -> Play:
        return plays[0] if len(plays) == 1 else self.rng.choice(plays)

    def choose_play(self, obs: Observation) -> Play:
        plays = list(obs.legal_plays())
        if not plays:
            raise ValueError(f"{obs.seat.english} has no legal play: it is not their turn")
        if len(plays) == 1:
            return plays[0]
        if not obs.trick:
            return self._lead(obs, plays)
        led = obs.trick[0][1][0].suit
        pair = len(obs.trick[0][1]) == 2
        best = None
        best_seat = obs.trick[0][0]
        for s, p in obs.trick:
            k = play_key(p, led, pair)
            if k is not None and (best is None or k > best):
                best, best_seat = k, s
        assert best is not None
        keys = [play_key(p, led, pair) for p in plays]
        losing = [p for p, k in zip(plays, keys, strict=True) if k is None or k <= best]
        last = len(obs.trick) == 3
        winning = [p for p, k in zip(plays, keys, strict=True) if k is not None and k > best]
        taken = [c for _, p in obs.trick for c in p]
        if last and winning and JD in taken and QS not in taken:
            # 捉羊: last to play, the sheep is on the table and can be ours.
            low = min(sum(int(c.rank) for c in p) for p in winning)
            return self._pick([p for p in winning if sum(int(c.rank) for c in p) == low])
        if losing:
            partner_wins = obs.options.partnership and best_seat == Seat(obs.seat).partner and last
            if partner_wins:  # keep points off the partner's trick
                safe = [p for p in losing if _badness(p)[:2] == (0, 0)] or losing
                top = max(sum(int(c.rank) for c in p) for p in safe)
                return self._pick([p for p in safe if sum(int(c.rank) for c in p) == top])
            worst = max(_badness(p) for p in losing)
            return self._pick([p for p in losing if _badness(p) == worst])
        # Every play wins: the trick is ours unless someone overtakes.
        ranks = [sum(int(c.rank) for c in p) for p in plays]
        target = max(ranks) if last else min(ranks)
        return self._pick([p for p, r in zip(plays, ranks, strict=True) if r == target])

    def _lead(self, obs: Observation, plays: list[Play]) -> Play:
        singles = [p for p in plays if len(p) == 1] or plays
        has_pig = QS in obs.hand

        def order(p: Play) -> tuple[int, int]:
            c = p[0]
            avoid = c.suit == Suit.HEARTS or (has_pig and c.suit == Suit.SPADES) or c in (QS, JD)
            return (1 if avoid else 0, int(c.rank))

        low = min(order(p) for p in singles)
        return self._pick([p for p in singles if order(p) == low])

    def explain(self, obs: Observation, play: Play) -> Text:
        """Why ``play``, in the words of R12 (a catalog entry to render in either language)."""
        return reason_for(obs, play)

    def __repr__(self) -> str:
        return f"BeginnerPlayer(seed={self.seed!r})"
