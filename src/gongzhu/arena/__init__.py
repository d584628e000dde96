"""The arena: computer players measured against each other, honestly.

:mod:`gongzhu.arena.run` plays seeded deals between four players given by level name, in seat
rotations (duplicate: every player in every seat on the same cards), with fresh, seeded players
for every game and every decision timed; :mod:`gongzhu.arena.stats` turns the games into
per-type means with 95% confidence intervals computed across deals (the deal is the unit of
independence), head-to-head differences, ranks, think-time percentiles and, for partnership
scoring, per-team figures.  ``gongzhu arena`` (:mod:`gongzhu.cli.arena`) is the command line.

May import ``gongzhu.rules``, ``gongzhu.players`` and ``gongzhu.records`` (to write the games
as R11 records); only the command line imports this package.
"""

from gongzhu.arena.run import ArenaConfig, ArenaError, GameResult, play_deal, play_game, run_arena, seating
from gongzhu.arena.stats import Summary, Tally, percentile, rank_shares, summarize, t_critical

__all__ = [
    "ArenaConfig",
    "ArenaError",
    "GameResult",
    "Summary",
    "Tally",
    "percentile",
    "play_deal",
    "play_game",
    "rank_shares",
    "run_arena",
    "seating",
    "summarize",
    "t_critical",
]
