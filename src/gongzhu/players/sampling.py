"""Sampling the hidden hands: worlds consistent with everything a seat has observed.

A *world* gives every other seat a hand for the cards this seat has not seen, respecting what is
public: how many cards each seat still holds, the suits it has shown void in (R5.2, R5.3) or
shown to hold no pair in (R5.3), the
exposed cards it has not yet played (R4), and its hidden exposures (暗卖: that many of the unseen
♠Q ♦J ♣10 ♥A are in its hand, R4.4).  The search players (``expert``) evaluate their choices over
many such worlds, drawn one after another by a :class:`WorldSampler`, which works out what they
share once.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from gongzhu.players.observation import Observation
from gongzhu.rules.cards import EXPOSABLE, Card, Seat, Suit
from gongzhu.rules.model import Exposure

__all__ = ["NoWorldError", "World", "WorldSampler", "sample_world", "sample_worlds"]


@dataclass(frozen=True)
class World:
    """Every seat's current hand (the observer's own included) and the full exposure list,
    hidden exposures made concrete.  The hands are disjoint with one deck (each unplayed card
    in exactly one hand, copies split with two) and hold positive counts only."""

    hands: dict[Seat, Counter[Card]]
    exposures: tuple[Exposure, ...]


class NoWorldError(ValueError):
    """No hands for the other seats fit the observation (it contradicts itself)."""


def sample_world(obs: Observation, rng: random.Random, attempts: int = 50) -> World:
    """One world drawn at random among those consistent with ``obs`` (close to uniform: the
    most constrained cards are placed first, each on a seat chosen in proportion to its room).

    Where random placement keeps failing (late in a two-deck deal, voids and no-pair inferences
    can leave few consistent worlds) a randomized backtracking search finds one.  Should the
    inferences ever admit no world at all, they are relaxed — first the no-pair inferences, then
    the voids — rather than leaving the player without a decision.  A caller drawing many worlds
    for one observation keeps a :class:`WorldSampler` instead, which works out once what they
    all share.
    """
    return WorldSampler(obs).sample(rng, attempts)


def sample_worlds(obs: Observation, n: int, rng: random.Random) -> list[World]:
    sampler = WorldSampler(obs)
    return [sampler.sample(rng) for _ in range(n)]


def _pair_clash(no_pairs: dict[Suit, set[Card]], hand: Counter[Card], c: Card) -> bool:
    """Whether a seat known to hold no pair of ``c``'s suit (R5.3) cannot take ``c``."""
    banned = no_pairs.get(c.suit)
    return banned is not None and (c in banned or hand[c] > 0)


class _Plan:
    """What every attempt with the same inferences starts from: each other seat's room and the
    cards known to be in its hand, the unseen cards left to place, and which seats each of them
    may go to."""

    __slots__ = ("cards", "eligible", "hands", "no_pairs", "pool", "room", "voids")

    def __init__(self, obs: Observation, others: list[Seat], use_voids: bool, use_no_pairs: bool) -> None:
        self.room = {s: obs.cards_left(s) for s in others}
        self.voids = obs.voids() if use_voids else {s: set() for s in Seat}
        self.hands: dict[Seat, Counter[Card]] = {s: Counter() for s in others}
        pool = obs.unseen()
        for s, known in obs.known_holdings().items():
            for c, n in known.items():
                self.hands[s][c] += n
                self.room[s] -= n
                pool[c] -= n
        self.pool = +pool
        self.cards = list(self.pool.elements())
        self.no_pairs = obs.no_pairs() if use_no_pairs else {s: {} for s in Seat}
        self.eligible = {c: [s for s in others if c.suit not in self.voids[s]] for c in self.pool}


class WorldSampler:
    """Draws worlds for one observation as :func:`sample_world` does, one after another from
    the same random generator; what does not change from world to world (the seats' room, the
    known holdings, the unseen cards, the voids) is worked out once."""

    __slots__ = ("_others", "_plans", "obs")

    def __init__(self, obs: Observation) -> None:
        self.obs = obs
        self._others = [s for s in Seat if s != obs.seat]
        self._plans: dict[tuple[bool, bool], _Plan] = {}

    def sample(self, rng: random.Random, attempts: int = 50) -> World:
        """One world (see :func:`sample_world`)."""
        for _ in range(attempts):
            world = self._try(rng)
            if world is not None:
                return world
        for voids, no_pairs in ((True, True), (True, False), (False, False)):
            for _ in range(5):
                world = self._try(rng, backtrack=True, use_voids=voids, use_no_pairs=no_pairs)
                if world is not None:
                    return world
        raise NoWorldError("no world is consistent with this observation")

    def _plan(self, use_voids: bool, use_no_pairs: bool) -> _Plan:
        plan = self._plans.get((use_voids, use_no_pairs))
        if plan is None:
            plan = self._plans[use_voids, use_no_pairs] = _Plan(self.obs, self._others, use_voids, use_no_pairs)
        return plan

    def _try(self, rng: random.Random, backtrack: bool = False, use_voids: bool = True,
             use_no_pairs: bool = True) -> World | None:
        """One attempt: random placement, or (``backtrack``) a randomized depth-first search
        with a node budget; ``use_voids`` / ``use_no_pairs`` switch those inferences off."""
        obs, others = self.obs, self._others
        plan = self._plan(use_voids, use_no_pairs)
        room = dict(plan.room)
        voids, no_pairs = plan.voids, plan.no_pairs
        hands = {s: h.copy() for s, h in plan.hands.items()}
        exposures = list(obs.exposures)
        if any(obs.hidden_counts[s] for s in others):
            pool = plan.pool.copy()
            # Hidden exposures: that many of the unseen exposable cards sit in the exposer's hand.
            for s in others:
                for _ in range(obs.hidden_counts[s]):
                    choices = [c for c in pool.elements() if c in EXPOSABLE and c.suit not in voids[s]
                               and not _pair_clash(no_pairs[s], hands[s], c)]
                    if not choices or room[s] <= 0:
                        return None
                    c = rng.choice(choices)
                    hands[s][c] += 1
                    room[s] -= 1
                    pool[c] -= 1
                    pool = +pool
                    exposures.append(Exposure(s, c, "hidden"))
            cards = list(pool.elements())
        else:
            cards = list(plan.cards)
        rng.shuffle(cards)
        eligible = plan.eligible
        cards.sort(key=lambda c: len(eligible[c]))  # stable: random order within a class
        if backtrack:
            if not _search(cards, eligible, hands, room, no_pairs, rng):
                return None
        else:
            for c in cards:
                seats = [s for s in eligible[c]
                         if room[s] > 0 and not (no_pairs[s] and _pair_clash(no_pairs[s], hands[s], c))]
                if not seats:
                    return None
                total = 0
                for s in seats:
                    total += room[s]
                pick = rng.randrange(total)
                for s in seats:
                    pick -= room[s]
                    if pick < 0:
                        break
                hands[s][c] += 1
                room[s] -= 1
        if any(room.values()):
            return None
        hands[obs.seat] = Counter(obs.hand)
        return World(hands, tuple(exposures))


def _search(cards: list[Card], eligible: dict[Card, list[Seat]], hands: dict[Seat, Counter[Card]],
            room: dict[Seat, int], no_pairs: dict[Seat, dict[Suit, set[Card]]], rng: random.Random,
            budget: int = 20_000) -> bool:
    """Place ``cards`` in order by depth-first search (seats tried in random order); True when
    every card found a seat within ``budget`` placements.  ``hands`` and ``room`` are filled in."""
    left = [budget]

    def place(i: int) -> bool:
        if i == len(cards):
            return True
        left[0] -= 1
        if left[0] < 0:
            return False
        c = cards[i]
        seats = [s for s in eligible[c] if room[s] > 0 and not _pair_clash(no_pairs[s], hands[s], c)]
        rng.shuffle(seats)
        for s in seats:
            hands[s][c] += 1
            room[s] -= 1
            if place(i + 1):
                return True
            hands[s][c] -= 1  # undo, leaving no zero count behind (a world's hands hold positive counts only)
            if not hands[s][c]:
                del hands[s][c]
            room[s] += 1
        return False

    return place(0)
