"""The movements of duplicate events (gongzhu.duplicate.movements): each one's invariants over
ranges of entrant counts and rounds, checked from the sittings alone."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gongzhu.duplicate.movements import (
    WHIST_STARTS,
    Movement,
    MovementError,
    Sitting,
    board_group,
    howell,
    individual,
    max_rounds,
    mitchell,
    swiss_pairings,
    team_match,
    team_round,
)

# ------------------------------------------------------------------------------ shared checks


def _players(s: Sitting) -> list[tuple[int, int]]:
    return [(p.entrant, p.member) for p in s.seats]


def check_common(m: Movement) -> None:
    """What every movement keeps: nobody at two tables at once, each table of a round has its own
    number and plays each of its boards once, every entrant plays or sits out each round (never
    both), and no player meets a board twice."""
    everyone = set(range(1, m.entrants + 1))
    for r in range(1, m.rounds + 1):
        for session in range(1, m.sessions + 1):
            tables = m.in_round(r, session)
            assert tables, f"round {r} session {session} has no table"
            numbers = [s.table for s in tables]
            assert len(numbers) == len(set(numbers)) and all(1 <= t <= m.tables for t in numbers)
            seated = [p for s in tables for p in _players(s)]
            assert len(seated) == len(set(seated)), f"a player at two seats in round {r}"
            for s in tables:
                assert len(s.boards) == m.boards_per_round == len(set(s.boards))
            playing = {p.entrant for s in tables for p in s.seats}
            out = set(m.sit_outs[r - 1])
            assert not playing & out, f"round {r}: an entrant plays and sits out"
            if m.form != "teams" or m.entrants == 2:
                assert playing | out == everyone, f"round {r}: an entrant neither plays nor sits out"
    seen: Counter[tuple[int, int, int]] = Counter()
    for s in m.sittings:
        for p in s.seats:
            for b in s.boards:
                seen[(p.entrant, p.member, b)] += 1
    assert max(seen.values()) == 1, "a player meets a board twice"


def check_pairs(m: Movement) -> None:
    """A pair sits together: N with S, E with W; it meets another pair at most once."""
    meetings: Counter[frozenset[int]] = Counter()
    for s in m.sittings:
        n, e, so, w = s.seats
        assert n.entrant == so.entrant and e.entrant == w.entrant and n.entrant != e.entrant
        assert (n.member, so.member, e.member, w.member) == (0, 1, 0, 1)
        meetings[frozenset((n.entrant, e.entrant))] += 1
    assert max(meetings.values()) == 1, "two pairs meet twice"


def directions(m: Movement) -> dict[int, tuple[set[int], set[int]]]:
    """For each board, the pairs who played it N–S and E–W."""
    out: dict[int, tuple[set[int], set[int]]] = {}
    for s in m.sittings:
        for b in s.boards:
            ns, ew = out.setdefault(b, (set(), set()))
            ns.add(s.entrant_at(0))
            ew.add(s.entrant_at(1))
    return out


# ------------------------------------------------------------------------------ Mitchell


@settings(max_examples=60)
@given(st.integers(5, 60), st.data())
def test_mitchell_invariants(pairs: int, data: st.DataObject) -> None:
    rounds = data.draw(st.integers(1, max_rounds("mitchell", pairs)))
    per = data.draw(st.integers(1, 3))
    m = mitchell(pairs, rounds, per)
    check_common(m)
    check_pairs(m)
    tables = (pairs + 1) // 2
    # N–S pairs stay at their tables; E–W pairs only sit E–W
    for s in m.sittings:
        assert s.entrant_at(0) == s.table and s.entrant_at(1) > tables
    # boards move down one table: the group at table t in round r + 1 was at table t + 1
    where = {(s.round, s.table): s.boards for s in m.sittings}
    for (r, t), boards in where.items():
        nxt = (r + 1, (t - 2) % tables + 1)
        if nxt in where:
            assert where[nxt] == boards
    # a phantom exactly when the count is odd: one pair sits out each round, each at most once
    outs = [p for round_out in m.sit_outs for p in round_out]
    assert all(len(o) == pairs % 2 for o in m.sit_outs)
    assert len(outs) == len(set(outs)) and all(p <= tables for p in outs)
    # every board is played once a round at most, by one table; each table meets a group once
    for r in range(1, rounds + 1):
        played = [b for s in m.in_round(r) for b in s.boards]
        assert len(played) == len(set(played))
    # comparisons: a board's N–S results are as many as the tables that played it
    for b, (ns, ew) in directions(m).items():
        tables_played = sum(1 for s in m.sittings if b in s.boards)
        assert len(ns) == len(ew) == tables_played


@given(st.integers(5, 60))
def test_a_full_mitchell_meets_and_compares_as_expected(pairs: int) -> None:
    """Every round the movement allows: with an odd number of tables every N–S pair meets every
    E–W pair (the phantom counted) and plays every board; with an even number (skip), all but
    one.  Every board is played N–S and E–W by several different pairs."""
    m = mitchell(pairs)
    tables = (pairs + 1) // 2
    assert m.rounds == (tables if tables % 2 else tables - 1)
    met = {frozenset((s.entrant_at(0), s.entrant_at(1))) for s in m.sittings}
    phantom_meetings = sum(len(o) for o in m.sit_outs)
    assert len(met) + phantom_meetings == tables * m.rounds
    for ns in range(1, tables + 1):
        groups = {s.boards for s in m.sittings if s.entrant_at(0) == ns}
        assert len(groups) == m.rounds - sum(ns in o for o in m.sit_outs)
    plays = Counter(s.boards for s in m.sittings)
    assert sum(plays.values()) == tables * m.rounds - phantom_meetings
    assert max(plays.values()) <= m.rounds
    if tables % 2 and pairs % 2 == 0:
        assert len(met) == tables * tables, "every N–S pair meets every E–W pair"
        assert set(plays.values()) == {tables}
    for ns_pairs, ew_pairs in directions(m).values():
        assert len(ns_pairs) >= 2 and len(ew_pairs) >= 2


def test_mitchell_refuses_what_it_cannot_seat() -> None:
    with pytest.raises(MovementError, match="from 5 to 128"):
        mitchell(4)
    with pytest.raises(MovementError, match="from 1 to 3"):
        mitchell(6, 4)  # three tables: three rounds
    with pytest.raises(MovementError, match="from 1 to 3"):
        mitchell(8, 4)  # four tables, a skip: three rounds


def test_a_small_mitchell_as_documented() -> None:
    """Seven pairs (docs/tournaments.md): four tables, E–W 5 6 7 and the phantom 8, a skip after
    round 2, three rounds."""
    m = mitchell(7)
    layout = [[(s.table, s.entrant_at(0), s.entrant_at(1), s.boards[0]) for s in m.in_round(r)] for r in (1, 2, 3)]
    assert layout == [
        [(1, 1, 5, 1), (2, 2, 6, 2), (3, 3, 7, 3)],
        [(2, 2, 5, 3), (3, 3, 6, 4), (4, 4, 7, 1)],
        [(1, 1, 6, 3), (2, 2, 7, 4), (4, 4, 5, 2)],
    ]
    assert m.sit_outs == ((4,), (1,), (3,))


# ------------------------------------------------------------------------------ Howell


@settings(max_examples=60)
@given(st.integers(3, 40), st.data())
def test_howell_invariants(pairs: int, data: st.DataObject) -> None:
    rounds = data.draw(st.integers(1, max_rounds("howell", pairs)))
    m = howell(pairs, rounds, data.draw(st.integers(1, 3)))
    check_common(m)
    check_pairs(m)
    for r in range(1, rounds + 1):
        tables = m.in_round(r)
        assert len({s.boards for s in tables}) == 1, "every table of a round plays the round's boards"
        assert len(tables) == pairs // 2
        assert len(m.sit_outs[r - 1]) == pairs % 2
    groups = [m.in_round(r)[0].boards for r in range(1, rounds + 1)]
    assert len(set(groups)) == rounds, "each round its own boards"


@given(st.integers(3, 40))
def test_a_complete_howell_is_a_round_robin(pairs: int) -> None:
    """Every pair meets every other exactly once, sits out at most once, sits N–S in half its
    rounds give or take one; each board is played N–S and E–W by every table of its round, so
    each result is compared with pairs // 2 − 1 others."""
    m = howell(pairs)
    met = Counter(frozenset((s.entrant_at(0), s.entrant_at(1))) for s in m.sittings)
    assert set(met) == {frozenset(c) for c in itertools.combinations(range(1, pairs + 1), 2)}
    assert set(met.values()) == {1}
    outs = [p for o in m.sit_outs for p in o]
    assert sorted(outs) == (list(range(1, pairs + 1)) if pairs % 2 else [])
    for p in range(1, pairs + 1):
        ns = sum(1 for s in m.sittings if s.entrant_at(0) == p)
        ew = sum(1 for s in m.sittings if s.entrant_at(1) == p)
        assert abs(ns - ew) <= 1
    for ns_pairs, ew_pairs in directions(m).values():
        assert len(ns_pairs) == len(ew_pairs) == pairs // 2


def test_howell_of_four_pairs_as_documented() -> None:
    m = howell(4)
    layout = [[(s.table, s.entrant_at(0), s.entrant_at(1)) for s in m.in_round(r)] for r in (1, 2, 3)]
    assert layout == [[(1, 2, 3), (2, 4, 1)], [(1, 3, 1), (2, 2, 4)], [(1, 1, 2), (2, 4, 3)]]


# ------------------------------------------------------------------------------ individual


@settings(max_examples=40)
@given(st.sampled_from(sorted(WHIST_STARTS)), st.data())
def test_individual_invariants(k: int, data: st.DataObject) -> None:
    players = 4 * k
    rounds = data.draw(st.integers(1, players - 1))
    m = individual(players, rounds, data.draw(st.integers(1, 2)))
    check_common(m)
    partners: Counter[frozenset[int]] = Counter()
    opponents: Counter[frozenset[int]] = Counter()
    for s in m.sittings:
        n, e, so, w = (p.entrant for p in s.seats)
        assert len({n, e, so, w}) == 4
        partners.update([frozenset((n, so)), frozenset((e, w))])
        opponents.update(frozenset(x) for x in itertools.product((n, so), (e, w)))
    assert max(partners.values()) == 1 and max(opponents.values()) <= 2
    assert all(len(m.in_round(r)) == k for r in range(1, rounds + 1))


@pytest.mark.parametrize("k", sorted(WHIST_STARTS))
def test_a_complete_individual_is_a_whist_tournament(k: int) -> None:
    """Over 4k − 1 rounds every player partners every other exactly once and plays against every
    other exactly twice; with two tables or more every player sits N–S in half the rounds, give
    or take one half, and in every seat."""
    players = 4 * k
    m = individual(players)
    pairs = {frozenset(c) for c in itertools.combinations(range(1, players + 1), 2)}
    partners: Counter[frozenset[int]] = Counter()
    opponents: Counter[frozenset[int]] = Counter()
    for s in m.sittings:
        n, e, so, w = (p.entrant for p in s.seats)
        partners.update([frozenset((n, so)), frozenset((e, w))])
        opponents.update(frozenset(x) for x in itertools.product((n, so), (e, w)))
    assert set(partners) == pairs and set(partners.values()) == {1}
    assert set(opponents) == pairs and set(opponents.values()) == {2}
    for p in range(1, players + 1):
        ns = sum(1 for s in m.sittings if p in (s.entrant_at(0), s.entrant_at(2)))
        # four players cannot do better: someone sits N–S in every round or none
        assert abs(2 * ns - m.rounds) <= (1 if k > 1 else 3)
        seats = {i for s in m.sittings for i, q in enumerate(s.seats) if q.entrant == p}
        assert len(seats) == 4 or k == 1


def test_individual_refuses_counts_that_are_not_four_k() -> None:
    with pytest.raises(MovementError, match="multiple of four"):
        individual(10)
    with pytest.raises(MovementError, match="multiple of four"):
        individual(4 * max(WHIST_STARTS) + 4)


# ------------------------------------------------------------------------------ teams


@given(st.integers(1, 6), st.integers(1, 16))
def test_team_match_invariants(sessions: int, per: int) -> None:
    """Both tables play each board in the same session; team 1 sits N–S at one and E–W at the
    other, team 2 the other way round; sessions swap the directions (each pair sits both ways
    over two sessions) and from the third session each pair has met both pairs of the other
    team."""
    m = team_match(sessions, per)
    check_common(m)
    for session in range(1, sessions + 1):
        one, two = m.in_round(1, session)
        assert one.boards == two.boards == board_group(session, per)
        assert {one.entrant_at(0), two.entrant_at(0)} == {1, 2} == {one.entrant_at(1), two.entrant_at(1)}
        for s in (one, two):
            assert s.entrant_at(0) == s.entrant_at(2) and s.entrant_at(1) == s.entrant_at(3)
        assert one.entrant_at(0) == (1 if session % 2 else 2)
    for team in (1, 2):
        for pair in ((0, 1), (2, 3)):
            def sat(s: Sitting, team: int = team, pair: tuple[int, int] = pair) -> bool:
                return any(p.entrant == team and p.member in pair for p in s.seats)
            ways = {s.seats.index(next(p for p in s.seats if p.entrant == team and p.member in pair)) % 2
                    for s in m.sittings if sat(s) and s.session <= 2}
            assert len(ways) == (2 if sessions >= 2 else 1), "directions swap between sessions"
            met = {frozenset(p.member for p in s.seats if p.entrant != team) for s in m.sittings if sat(s)}
            assert len(met) == (2 if sessions >= 3 else 1)


def test_team_round_seats_matches_at_pairs_of_tables() -> None:
    sittings = team_round([(3, 1), (2, 4)], 2, 1, 4, 5)
    assert [(s.table, s.match, s.entrant_at(0), s.entrant_at(1)) for s in sittings] == [
        (1, 1, 3, 1), (2, 1, 1, 3), (3, 2, 2, 4), (4, 2, 4, 2)]
    assert {s.boards for s in sittings} == {(17, 18, 19, 20)}


# ------------------------------------------------------------------------------ Swiss


def _all_pairings(teams: list[int]) -> list[list[tuple[int, int]]]:
    if not teams:
        return [[]]
    first, rest = teams[0], teams[1:]
    return [[(first, o), *tail] for i, o in enumerate(rest) for tail in _all_pairings(rest[:i] + rest[i + 1:])]


@settings(max_examples=80)
@given(st.integers(2, 9), st.data())
def test_swiss_pairs_everyone_once_with_the_fewest_rematches(n: int, data: st.DataObject) -> None:
    teams = data.draw(st.permutations(list(range(1, n + 1))))
    possible = list(itertools.combinations(range(1, n + 1), 2))
    played = data.draw(st.lists(st.sampled_from(possible), max_size=len(possible)))
    byes = data.draw(st.lists(st.sampled_from(range(1, n + 1)), max_size=n))
    matches, bye = swiss_pairings(teams, played, byes)
    if n % 2:
        assert bye is not None
        without = [t for t in teams if t not in byes]
        assert bye == (without[-1] if without else teams[-1])
    else:
        assert bye is None
    seated = [t for m in matches for t in m] + ([bye] if bye is not None else [])
    assert sorted(seated) == list(range(1, n + 1))
    order = {t: i for i, t in enumerate(teams)}
    assert all(order[a] < order[b] for a, b in matches), "the better-ranked team is at home"
    met = {frozenset(p) for p in played}
    rematches = sum(frozenset(m) in met for m in matches)
    rest = [t for t in teams if t != bye]
    fewest = min(sum(frozenset(m) in met for m in p) for p in _all_pairings(rest))
    assert rematches == fewest


def test_swiss_pairs_the_top_with_the_best_team_not_yet_met() -> None:
    assert swiss_pairings([1, 2, 3, 4]) == ([(1, 2), (3, 4)], None)
    assert swiss_pairings([1, 2, 3, 4], [(1, 2)]) == ([(1, 3), (2, 4)], None)
    assert swiss_pairings([1, 2, 3, 4, 5], [(1, 2)], [5]) == ([(1, 3), (2, 5)], 4)
