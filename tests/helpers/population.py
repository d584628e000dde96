"""A population of computer players rated as accounts (docs/ratings.md): each rated deal seats
four of them drawn at random, plays a fresh deal with their levels and rates it from its R7
results exactly as a rated table does.  ``tests/test_ratings.py`` checks the order it recovers;
``benchmarks/ratings.py`` reports it."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from gongzhu.players import make_player, observe
from gongzhu.players.guard import safe_exposures, safe_play
from gongzhu.ratings import Skill, rate_deal
from gongzhu.rules.cards import Seat
from gongzhu.rules.deal import Deal
from gongzhu.rules.options import PRESETS

__all__ = ["kendall_tau", "rate_population"]


def rate_population(levels: Sequence[str], per_level: int, deals: int, rng: random.Random,
                    checkpoint: Callable[[int, dict[str, Skill]], None] | None = None) -> dict[str, Skill]:
    """The ratings of ``per_level`` accounts of each level after ``deals`` rated deals of the
    ``online`` preset (``checkpoint(n, skills)`` after each); accounts are named ``level-k``."""
    accounts = [f"{level}-{k}" for level in levels for k in range(per_level)]
    skills: dict[str, Skill] = {}
    options = PRESETS["online"]
    for n in range(1, deals + 1):
        table = rng.sample(accounts, 4)
        deal = Deal.new(options, rng.getrandbits(63), first_receiver=Seat.N, deal_index=0,
                        previous_pig_taker=None)
        players = [make_player(a.rsplit("-", 1)[0], seed=rng.getrandbits(63)) for a in table]
        for seat in deal.undeclared:
            deal.declare(seat, safe_exposures(players[seat], observe(deal, seat), where="population"))
        while (turn := deal.turn) is not None:
            deal.play(safe_play(players[turn], observe(deal, turn), where="population"), turn)
        skills.update(rate_deal(skills, [([a], deal.score.result[Seat(i)]) for i, a in enumerate(table)]))
        if checkpoint is not None:
            checkpoint(n, skills)
    return skills


def kendall_tau(skills: dict[str, Skill], levels: Sequence[str]) -> float:
    """Kendall's tau of the ratings' order against the levels' (weakest first in ``levels``), over
    the pairs of accounts of different levels (accounts of one level are equals)."""
    rank = {a: levels.index(a.rsplit("-", 1)[0]) for a in skills}
    people = sorted(skills)
    agree = disagree = 0
    for i, a in enumerate(people):
        for b in people[i + 1:]:
            if rank[a] == rank[b]:
                continue
            right = (rank[a] > rank[b]) == (skills[a].mu > skills[b].mu)
            agree += right
            disagree += not right
    return (agree - disagree) / max(1, agree + disagree)
