"""R8: a match — its end, winners and pigs, titles, and how deals follow one another."""

from __future__ import annotations

import pytest

from gongzhu.rules import (
    PRESETS,
    TITLES,
    Deal,
    IllegalPlayError,
    Match,
    Options,
    Phase,
    Seat,
    deal_hands,
    deal_seed,
    match_goal,
    match_over,
    title_for,
)

N, E, S, W = Seat.N, Seat.E, Seat.S, Seat.W

# R8 title table, transcribed from the rule book: (threshold, title), from the bottom up.
NEGATIVE = [
    (-50_000_000, "八戒"), (-10_000_000, "猪圣"), (-5_000_000, "猪神"), (-1_000_000, "猪王"),
    (-700_000, "乳猪格格"), (-500_000, "野猪"), (-300_000, "架子猪"), (-100_000, "微型猪"),
]
POSITIVE = [
    (10_000, "猪倌"), (50_000, "猎人"), (100_000, "屠夫"), (200_000, "饲养员"),
    (300_000, "优秀饲养员"), (400_000, "养猪专业户"), (600_000, "地主"), (800_000, "知县"),
    (1_000_000, "知州"), (3_000_000, "知府"), (5_000_000, "巡抚"), (7_000_000, "大学士"),
    (10_000_000, "宰相"), (50_000_000, "王爷"), (100_000_000, "帝王"),
]
MIDDLE = "猪小弟"


def _boundary_cases() -> list[tuple[int, str]]:
    cases: list[tuple[int, str]] = []
    for i, (t, title) in enumerate(NEGATIVE):
        inside = NEGATIVE[i + 1][1] if i + 1 < len(NEGATIVE) else MIDDLE  # toward zero
        cases += [(t, title), (t + 1, inside), (t - 1, title)]
    for i, (t, title) in enumerate(POSITIVE):
        inside = POSITIVE[i - 1][1] if i > 0 else MIDDLE
        cases += [(t, title), (t - 1, inside), (t + 1, title)]
    return cases


@pytest.mark.parametrize(("score", "title"), _boundary_cases())
def test_title_at_every_boundary(score: int, title: str) -> None:
    """R8: a negative threshold is reached at or below it, a positive one at or above it."""
    assert title_for(score) == title


@pytest.mark.parametrize(
    ("score", "title"),
    [(0, MIDDLE), (-99_999, MIDDLE), (9_999, MIDDLE), (-10**12, "八戒"), (10**12, "帝王")],
)
def test_title_extremes(score: int, title: str) -> None:
    """R8: titles beyond the last thresholds and in the middle band."""
    assert title_for(score) == title


def test_titles_table_matches_rule_book() -> None:
    """R8: the title table."""
    assert sorted(TITLES) == sorted(NEGATIVE + POSITIVE)


@pytest.mark.parametrize(
    ("match_end", "limit", "totals", "over"),
    [
        ("loser", 1000, (-999, 0, 0, 999), False),
        ("loser", 1000, (-1000, 0, 0, 1000), True),  # at −limit: over
        ("loser", 1000, (-1001, 500, 500, 1), True),
        ("loser", 1000, (0, 0, -200, 5000), False),  # loser: +limit does not end it
        ("either", 1000, (0, 0, -200, 1000), True),  # either: at +limit
        ("either", 1000, (0, 0, -200, 999), False),
        ("either", 1000, (-1000, 0, 0, 0), True),
        ("either", 1000, (-999, 999, 0, 0), False),
        ("loser", 800, (-800, 0, 0, 0), True),  # match_limit
        ("loser", 800, (-799, 0, 0, 0), False),
        ("either", 800, (0, 800, 0, 0), True),
    ],
)
def test_match_over(match_end: str, limit: int, totals: tuple[int, ...], over: bool) -> None:
    """R8 match_end loser / either with match_limit."""
    opts = Options(match_end=match_end, match_limit=limit)
    assert match_over(opts, totals, deals_played=3) is over


@pytest.mark.parametrize(
    ("n", "played", "totals", "over"),
    [(16, 15, (-5000, 0, 0, 0), False), (16, 16, (0, 0, 0, 0), True), (1, 1, (0, 0, 0, 0), True),
     (3, 2, (9999, 0, 0, -9999), False)],
)
def test_match_over_deals(n: int, played: int, totals: tuple[int, ...], over: bool) -> None:
    """R8: a fixed number of deals (16 deals make one 盘); totals do not end it."""
    assert match_over(Options(match_end=f"deals:{n}"), totals, played) is over


def _outcome(totals: list[int], double_pig: bool = False) -> tuple[list[Seat], list[Seat]]:
    match = Match(Options(double_pig=double_pig))
    match.totals = list(totals)
    out = match.outcome()
    assert out.totals == tuple(totals)
    return list(out.winners), sorted(out.pigs)


def test_outcome_winners_and_pigs() -> None:
    """R8: the highest total wins; the lowest is the pig (当猪); 双猪: the highest too."""
    assert _outcome([-1000, 200, 300, 500]) == ([W], [N])
    assert _outcome([-1000, 200, 300, 500], double_pig=True) == ([W], [N, W])
    assert _outcome([-1000, 500, -1000, 500]) == ([E, W], [N, S])
    assert _outcome([-1000, 500, -1000, 500], double_pig=True) == ([E, W], [N, E, S, W])


def play_out(deal: Deal) -> None:
    if deal.phase == Phase.EXPOSE:
        for seat in Seat:
            deal.declare(seat)
    while not deal.is_over:
        plays = deal.legal_plays()
        deal.play(plays[len(plays) // 2])


def test_match_deals_follow_the_pig() -> None:
    """R3/R5.1/R8: the first deal goes first to North; each later deal is dealt first to, and
    led by, the previous pig taker; totals add ``result`` (no one-deck factor), lifetime scores
    add ``final``."""
    match = Match(PRESETS["online"], seed=2024)
    first = match.new_deal()
    assert first.first_receiver == N
    assert first.previous_pig_taker is None
    assert first.deal_index == 0
    assert [list(h) for h in first.dealt] == deal_hands(deal_seed(2024, 0), 1, N, False)
    with pytest.raises(IllegalPlayError, match="not over"):
        match.new_deal()
    with pytest.raises(IllegalPlayError, match="no finished deal"):
        match.finish_deal()
    totals = [0, 0, 0, 0]
    lifetime = [0, 0, 0, 0]
    previous: Deal | None = None
    for index in range(4):
        deal = first if index == 0 else match.new_deal()
        assert deal.deal_index == index
        if previous is not None:
            taker = previous.pig_taker
            assert taker is not None
            assert deal.first_receiver == taker
            assert deal.previous_pig_taker == taker
            assert [list(h) for h in deal.dealt] == deal_hands(
                deal_seed(2024, index), 1, taker, False)
        play_out(deal)
        if previous is not None:
            assert deal.tricks[0].leader == previous.pig_taker
        score = deal.score
        assert score.final == tuple(12 * r for r in score.result)
        match.finish_deal()
        totals = [t + r for t, r in zip(totals, score.result, strict=True)]
        lifetime = [t + f for t, f in zip(lifetime, score.final, strict=True)]
        assert match.totals == totals
        assert match.lifetime == lifetime
        previous = deal
    assert len(match.deals) == 4


def test_match_with_fixed_deals_ends() -> None:
    """R8 deals:N: the match ends after N deals and refuses another."""
    match = Match(Options(match_end="deals:2", scoring="raw"), seed=5)
    for _ in range(2):
        assert not match.is_over
        play_out(match.new_deal())
        match.finish_deal()
    assert match.is_over
    with pytest.raises(IllegalPlayError, match="match is over"):
        match.new_deal()


def test_match_until_a_loser() -> None:
    """R8 loser: deals are played until someone's total is at or below −limit."""
    match = Match(Options(match_limit=300), seed=11)
    before = list(match.totals)
    while not match.is_over:
        before = list(match.totals)
        play_out(match.new_deal())
        match.finish_deal()
        assert len(match.deals) < 200
    assert min(match.totals) <= -300
    assert min(before) > -300  # it did not end a deal too late
    out = match.outcome()
    assert out.pigs == tuple(s for s in Seat if match.totals[s] == min(match.totals))


def test_match_is_reproducible() -> None:
    """R3: a seeded match replays identically."""
    def run() -> list[tuple[int, int, int, int]]:
        match = Match(PRESETS["classic"], seed=77)
        out = []
        for _ in range(3):
            play_out(match.new_deal())
            match.finish_deal()
            out.append(match.deals[-1].score.raw)
        return out

    assert run() == run()


@pytest.mark.parametrize(
    ("match_end", "totals", "to_go"),
    [
        ("loser", (0, -250, 400, -150), (1000, 750, 1400, 850)),  # the points each may still lose
        ("either", (0, -250, 400, -150), (1000, 750, 600, 850)),  # the nearer of +limit and −limit
        ("loser", (-1000, 0, 0, 1000), (0, 1000, 1000, 2000)),
        ("deals:16", (-5000, 0, 0, 0), (13, 13, 13, 13)),  # deals left, alike for every seat
    ],
)
def test_match_goal(match_end: str, totals: tuple[int, int, int, int], to_go: tuple[int, ...]) -> None:
    """R8: how far each total is from the match's end; the match is over once one is at 0 or less."""
    opts = Options(match_end=match_end)
    goal = match_goal(opts, totals, deals_played=3)
    assert goal.to_go == to_go
    assert goal.kind == match_end.split(":")[0]
    assert goal.limit == (16 if match_end == "deals:16" else 1000)
    assert match_over(opts, totals, 3) is (min(to_go) <= 0)
