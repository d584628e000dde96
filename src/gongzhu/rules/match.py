"""A match (局) of several deals, its end, and lifetime titles (R8).

Match totals add each deal's result *without* the one-deck factor; lifetime scores add the
finals *with* it (R10).  Each later deal is dealt first to, and led by, the player who took the
pig in the previous deal (R3, R5.1) — except in a match of boards (R8.1), whose deals are the
boards in their order, each dealt and led as the board says, whatever happened before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gongzhu.rules.boards import Board
from gongzhu.rules.cards import Seat
from gongzhu.rules.deal import Deal
from gongzhu.rules.dealing import deal_seed, match_commitment
from gongzhu.rules.errors import IllegalPlayError
from gongzhu.rules.options import Options

__all__ = ["TITLES", "Match", "MatchGoal", "MatchOutcome", "match_goal", "match_over", "title_for"]

#: R8 online titles: (threshold, title).  Negative thresholds are reached at or below them,
#: positive ones at or above; in between −100,000 and 10,000 the title is 猪小弟.
TITLES: tuple[tuple[int, str], ...] = (
    (-50_000_000, "八戒"),
    (-10_000_000, "猪圣"),
    (-5_000_000, "猪神"),
    (-1_000_000, "猪王"),
    (-700_000, "乳猪格格"),
    (-500_000, "野猪"),
    (-300_000, "架子猪"),
    (-100_000, "微型猪"),
    (100_000_000, "帝王"),
    (50_000_000, "王爷"),
    (10_000_000, "宰相"),
    (7_000_000, "大学士"),
    (5_000_000, "巡抚"),
    (3_000_000, "知府"),
    (1_000_000, "知州"),
    (800_000, "知县"),
    (600_000, "地主"),
    (400_000, "养猪专业户"),
    (300_000, "优秀饲养员"),
    (200_000, "饲养员"),
    (100_000, "屠夫"),
    (50_000, "猎人"),
    (10_000, "猪倌"),
)


def title_for(lifetime_score: int) -> str:
    """The title of a lifetime score (R8): the furthest threshold reached."""
    for threshold, title in TITLES:
        if (threshold < 0 and lifetime_score <= threshold) or (threshold > 0 and lifetime_score >= threshold):
            return title
    return "猪小弟"


@dataclass(frozen=True, slots=True)
class MatchGoal:
    """How far a match is from its end (R8).  ``kind``: ``loser`` (a total reaching −limit ends
    it), ``either`` (+limit or −limit) or ``deals`` (a fixed number of deals); ``limit``: those
    points, or that number of deals; ``to_go``: per seat (N, E, S, W), how far its total may
    still move before it reaches the limit (for ``deals`` the deals left, alike for every seat).
    The match is over once any ``to_go`` is 0 or less."""

    kind: str
    limit: int
    to_go: tuple[int, int, int, int]


def match_goal(options: Options, totals: list[int] | tuple[int, ...], deals_played: int) -> MatchGoal:
    """Where a match with these totals (without the one-deck factor) stands against its end (R8)."""
    fixed = options.deals_limit
    if fixed is not None:
        left = fixed - deals_played
        return MatchGoal("deals", fixed, (left, left, left, left))
    limit = options.match_limit
    either = options.match_end == "either"
    go = [min(limit - t, t + limit) if either else t + limit for t in totals]
    return MatchGoal(options.match_end, limit, (go[0], go[1], go[2], go[3]))


def match_over(options: Options, totals: list[int] | tuple[int, ...], deals_played: int) -> bool:
    """Whether a match with these totals (without the one-deck factor) has ended (R8)."""
    return min(match_goal(options, totals, deals_played).to_go) <= 0


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """The end of a match: the winners (highest total) and the pigs (当猪: the lowest total;
    with ``double_pig`` the highest too, R8)."""

    totals: tuple[int, int, int, int]
    winners: tuple[Seat, ...]
    pigs: tuple[Seat, ...]


class Match:
    """Deals played one after another until the match ends (R8).  With ``boards``, the deals are
    those boards in order (R8.1), and the match should end after the last of them (a
    ``deals:N`` match end of as many deals)."""

    def __init__(self, options: Options, seed: int = 0, match_id: str = "match",
                 boards: Sequence[Board] | None = None) -> None:
        self.options = options
        self.boards = tuple(boards) if boards is not None else None
        self.seed = seed
        self.match_id = match_id
        self.totals = [0, 0, 0, 0]
        self.lifetime = [0, 0, 0, 0]
        self.deals: list[Deal] = []
        self.current: Deal | None = None

    @property
    def is_over(self) -> bool:
        return match_over(self.options, self.totals, len(self.deals))

    @property
    def commitment(self) -> str:
        """The commitment to the match's cards (:func:`~gongzhu.rules.dealing.match_commitment`)."""
        return match_commitment(self.seed, self.options.to_dict())

    def new_deal(self) -> Deal:
        """Deal the next deal from the match seed: first to the previous pig-taker (R3), who
        also leads (R5.1)."""
        if self.current is not None and not self.current.is_over:
            raise IllegalPlayError("the current deal is not over yet")
        if self.is_over:
            raise IllegalPlayError("the match is over")
        index = len(self.deals)
        if self.boards is not None:
            if index >= len(self.boards):
                raise IllegalPlayError("every board of the match has been played")
            self.current = self.boards[index].deal(self.options)
            return self.current
        previous = self.deals[-1].pig_taker if self.deals else None
        self.current = Deal.new(
            self.options,
            deal_seed(self.seed, index),
            first_receiver=previous if previous is not None else Seat.N,
            deal_index=index,
            previous_pig_taker=previous,
        )
        return self.current

    def finish_deal(self) -> None:
        """Add the finished current deal to the match totals."""
        deal = self.current
        if deal is None or not deal.is_over:
            raise IllegalPlayError("there is no finished deal to add")
        score = deal.score
        for s in range(4):
            self.totals[s] += score.result[s]
            self.lifetime[s] += score.final[s]
        self.deals.append(deal)
        self.current = None

    def outcome(self) -> MatchOutcome:
        t = self.totals
        top, bottom = max(t), min(t)
        winners = tuple(Seat(s) for s in range(4) if t[s] == top)
        pigs = [Seat(s) for s in range(4) if t[s] == bottom]
        if self.options.double_pig:
            pigs += [w for w in winners if w not in pigs]
        return MatchOutcome((t[0], t[1], t[2], t[3]), winners, tuple(pigs))
