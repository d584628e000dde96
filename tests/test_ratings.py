"""Skill ratings (gongzhu.ratings, docs/ratings.md): one deal's update is exactly what the
``openskill`` library computes on the same inputs; it orders sides by their R7 results (ties
alike, partners together); a rating settles (its deviation falls below the provisional bound) with
deals; over a population of players of known strength, ratings recover their true order; and a
closed daily challenge moves ratings board by board."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from openskill.models import PlackettLuce
from sqlalchemy import insert, select

from gongzhu.ratings import DEFAULT, PROVISIONAL_DEVIATION, Skill, family_of, placed_last, rate_deal
from gongzhu.rules.options import PRESETS
from gongzhu.server.challenges import Challenges
from gongzhu.server.store import CHALLENGES, USERS, Store
from helpers.database import STORES
from helpers.population import kendall_tau as levels_tau
from helpers.population import rate_population


def test_a_deal_is_rated_as_the_library_rates_it() -> None:
    model = PlackettLuce()
    before = {"a": Skill(27.0, 6.0, 12), "b": Skill(24.0, 7.5, 3), "c": DEFAULT}
    sides = [(["a"], -100), (["b"], 50), (["c"], 0)]
    after = rate_deal(before, sides)
    want = model.rate([[model.rating(mu=27.0, sigma=6.0)], [model.rating(mu=24.0, sigma=7.5)],
                       [model.rating(mu=DEFAULT.mu, sigma=DEFAULT.sigma)]], scores=[-100.0, 50.0, 0.0])
    for person, team in zip("abc", want, strict=True):
        assert after[person].mu == pytest.approx(team[0].mu) and after[person].sigma == pytest.approx(team[0].sigma)
    assert (after["a"].games, after["b"].games, after["c"].games) == (13, 4, 1)
    # The best result gains, the worst loses, every uncertainty falls.
    assert after["b"].mu > before["b"].mu and after["a"].mu < before["a"].mu
    assert all(after[p].sigma < before.get(p, DEFAULT).sigma for p in "abc")


def test_ties_move_alike_and_partners_move_together() -> None:
    tied = rate_deal({}, [(["a"], 0), (["b"], 0)])
    assert tied["a"] == tied["b"] and tied["a"].mu == pytest.approx(DEFAULT.mu)
    teams = rate_deal({}, [(["n", "s"], 200), (["e", "w"], -200)])
    assert teams["n"] == teams["s"] and teams["e"] == teams["w"] and teams["n"].mu > teams["e"].mu


def test_bad_sides_are_refused() -> None:
    for sides in ([(["a"], 0)], [(["a"], 0), ([], 10)], [(["a"], 0), (["a"], 10)]):
        with pytest.raises(ValueError):
            rate_deal({}, sides)


def test_the_shown_scale_and_the_families() -> None:
    assert (DEFAULT.rating, DEFAULT.deviation, DEFAULT.provisional) == (1500, 333, True)
    assert DEFAULT.view() == {"rating": 1500, "deviation": 333, "provisional": True, "games": 0}
    assert Skill(26.0, 2.0, 40).view() == {"rating": 1540, "deviation": 80, "provisional": False, "games": 40}
    assert [family_of(PRESETS[p]) for p in ("online", "tournament", "classic", "online2", "partners", "partners2")] \
        == ["one_deck", "one_deck", "one_deck", "two_decks", "partners", "partners"]


def kendall_tau(order: list[str], truth: list[str]) -> float:
    """Kendall's rank correlation of two orders of the same people (1: the same order)."""
    rank = {p: i for i, p in enumerate(truth)}
    pairs = [(rank[a], rank[b]) for i, a in enumerate(order) for b in order[i + 1:]]
    concordant = sum(1 for x, y in pairs if x < y)
    return (2 * concordant - len(pairs)) / len(pairs)


def test_ratings_recover_the_true_order_of_a_population() -> None:
    """Twelve players of known strength meet four at a time; a deal's results are each player's
    strength plus luck (a deal's cards weigh more than skill).  After 600 deals the ratings order
    them nearly as their strengths do, and most are no longer provisional."""
    rng = random.Random(7)
    strength = {f"p{i}": i * 10.0 for i in range(12)}
    truth = sorted(strength, key=strength.__getitem__, reverse=True)
    skills: dict[str, Skill] = {}
    for _ in range(600):
        table = rng.sample(sorted(strength), 4)
        results = [round(strength[p] + rng.gauss(0, 60)) for p in table]
        skills.update(rate_deal(skills, [([p], r) for p, r in zip(table, results, strict=True)]))
    order = sorted(skills, key=lambda p: skills[p].mu, reverse=True)
    assert kendall_tau(order, truth) >= 0.7, (order, truth)
    settled = [p for p in skills if skills[p].deviation <= PROVISIONAL_DEVIATION]
    assert len(settled) >= 9, {p: skills[p].view() for p in skills}


def test_ratings_put_the_computer_levels_in_their_order() -> None:
    """Two accounts each of the levels random, beginner and intermediate (the arena's order, weakest
    first) rated over 200 deals of four drawn at random: the ratings order every pair of accounts
    of different levels as their levels are ordered."""
    levels = ("random", "beginner", "intermediate")
    skills = rate_population(levels, 2, 200, random.Random(1))
    assert levels_tau(skills, levels) == 1.0, {a: s.view() for a, s in skills.items()}


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_closed_daily_challenge_moves_ratings_board_by_board(db_url: str) -> None:
    """Each board of a daily challenge, once it has closed, is one rated deal among the accounts
    that played it, ordered by their results there (the same cards for all: only play tells them
    apart); a guest is not rated; a private challenge moves no rating; it is rated once."""
    clock = [1_796_085_000.0]  # 2026-12-01 00:30 UTC
    store = Store(db_url)
    try:
        challenges = Challenges(store, now=lambda: clock[0], level="random")
        daily = challenges.daily()
        private = challenges.create("u-ann")
        with store.engine.begin() as c:
            c.execute(insert(USERS), [
                {"id": f"u-{n}", "name": n.title(), "name_key": n, "password_hash": None if n == "guest" else "x",
                 "guest": n == "guest", "created": "2026-12-01", "lifetime": 0, "deals": 0, "matches": 0, "pigs": 0,
                 "session_epoch": 0} for n in ("ann", "bo", "cy", "guest")])
        results = {"ann": [50, -100], "bo": [-200, -100], "cy": [0, 300], "guest": [500, 500]}
        for person, boards in results.items():
            for number, result in enumerate(boards, start=1):
                for challenge in (daily, private):
                    store.add_result(challenge.id, number, f"u-{person}", match_id=f"m-{person}",
                                     deal_index=number - 1, result=result)
        assert challenges.rate_closed() == []  # still open
        clock[0] += 24 * 3600  # the next day: closed
        assert challenges.rate_closed() == [daily.id]
        assert challenges.rate_closed() == []  # once
        want: dict[str, Skill] = {}
        for number in (1, 2):
            want.update(rate_deal(want, [([p], results[p][number - 1]) for p in ("ann", "bo", "cy")]))
        got = store.ratings(["u-ann", "u-bo", "u-cy", "u-guest"])
        assert {u: by["one_deck"] for u, by in got.items()} == {f"u-{p}": want[p] for p in ("ann", "bo", "cy")}
        assert [s.games for _, s in store.rating_history("u-ann")["one_deck"]] == [1, 2]
        with store.engine.connect() as c:
            assert c.execute(select(CHALLENGES.c.rated).where(CHALLENGES.c.id == private.id)).scalar() is False
    finally:
        store.close()


@given(st.lists(st.integers(-2000, 2000), min_size=1, max_size=6), st.data())
def test_sides_placed_last_are_below_the_others_in_their_order(results: list[int], data: st.DataObject) -> None:
    """The sides holding someone placed last rank below every other side, each group keeping the
    order of its results (ties kept), whatever the results."""
    sides = tuple(((f"p{i}",), r) for i, r in enumerate(results))
    last = data.draw(st.sets(st.sampled_from([f"p{i}" for i in range(len(results))])))
    moved = placed_last(sides, last)
    assert [m for m, _ in moved] == [m for m, _ in sides]
    low = [r for (m, r) in moved if m[0] in last]
    high = [r for (m, r) in moved if m[0] not in last]
    assert not low or not high or max(low) < min(high)
    for placed in (True, False):
        before = [r for m, r in sides if (m[0] in last) == placed]
        after = [r for m, r in moved if (m[0] in last) == placed]
        assert len({a - b for a, b in zip(before, after, strict=True)}) <= 1  # moved together: in order
