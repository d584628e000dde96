"""The arena engine: plays deals between computer players, in seat rotations, and times them.

Deal ``i`` of a run with seed ``S`` is dealt from ``deal_seed(S, i)``; in rotation ``r`` the
``k``-th listed player sits in seat ``(k + r) mod 4`` (``--duplicate``: every rotation on the same
cards).  Every game gets fresh players seeded by :func:`player_seed`, every decision is timed, and
a player that fails or answers illegally is stood in for in that decision and counted
(:attr:`GameResult.stand_ins`); :func:`run_arena` yields the games in deal order whatever the
number of worker processes.  This module imports the rules core, the players (registry, guard,
observation) and the records' writer.  The rules of a run: docs/arena.md, How deals are played.
"""

from __future__ import annotations

import functools
import hashlib
import multiprocessing
import signal
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from gongzhu.players.guard import safe_exposures, safe_play
from gongzhu.players.observation import observe
from gongzhu.players.registry import arena_levels, make_player, think_error
from gongzhu.records.format import deal_to_record
from gongzhu.rules.cards import Seat
from gongzhu.rules.deal import Deal
from gongzhu.rules.dealing import deal_seed
from gongzhu.rules.errors import GongzhuError
from gongzhu.rules.options import Options

__all__ = [
    "ArenaConfig",
    "ArenaError",
    "GameResult",
    "match_id",
    "play_deal",
    "play_game",
    "player_seed",
    "rotations",
    "run_arena",
    "seating",
]

SEAT_NAMES = ("N", "E", "S", "W")


class ArenaError(ValueError):
    """A bad arena setting, or a game that could not be finished: a failure outside the players
    (they are stood in for, :mod:`gongzhu.players.guard`), the message says which deal,
    rotation, seat and level."""


@dataclass(frozen=True, slots=True)
class ArenaConfig:
    """What an arena run plays.

    ``players`` are four level names for seats N, E, S, W in rotation 0 (the registry's levels
    or its research levels, :func:`~gongzhu.players.registry.arena_levels`); ``think`` (seconds
    per decision) and ``iterations`` go to :func:`~gongzhu.players.registry.make_player` for
    every player; ``preset`` is only a note for records and reports (``options`` rule);
    ``records`` asks every game for its R11 record.
    """

    players: tuple[str, str, str, str]
    options: Options
    deals: int
    seed: int = 0
    duplicate: bool = False
    think: float | None = None
    iterations: int | None = None
    preset: str | None = None
    records: bool = False

    def __post_init__(self) -> None:
        if len(self.players) != 4:
            raise ArenaError(f"an arena needs exactly four players (N, E, S, W), not {len(self.players)}")
        known = arena_levels()
        unknown = [p for p in self.players if p not in known]
        if unknown:
            raise ArenaError(f"unknown level {unknown[0]!r}: choose one of {', '.join(known)}")
        if self.deals < 1:
            raise ArenaError(f"the number of deals must be 1 or more, not {self.deals}")
        if (why := think_error(self.think)) is not None:
            raise ArenaError(why)
        if self.iterations is not None and self.iterations < 1:
            raise ArenaError(f"the iterations budget must be 1 or more, not {self.iterations}")

    def to_dict(self) -> dict[str, Any]:
        """The settings that decide the results (not ``records``, nor the number of jobs)."""
        return {
            "players": list(self.players),
            "preset": self.preset,
            "options": self.options.to_dict(),
            "deals": self.deals,
            "seed": self.seed,
            "duplicate": self.duplicate,
            "rotations": 4 if self.duplicate else 1,
            "think": self.think,
            "iterations": self.iterations,
        }


@dataclass(frozen=True, slots=True)
class GameResult:
    """One deal played in one rotation.  Seat-indexed tuples are in seat order N, E, S, W.

    ``levels`` says who sat where; ``raw`` is R6 and ``final`` R7 with the one-deck factor;
    ``think`` holds, per seat, the seconds each of its ``choose_*`` calls took; ``record`` is
    the R11 record (with an extra ``players`` field) when the run asked for records;
    ``stand_ins`` counts, per seat, the decisions a stand-in made because the seat's player
    failed or answered something illegal (:mod:`gongzhu.players.guard`).
    """

    deal: int
    rotation: int
    levels: tuple[str, str, str, str]
    raw: tuple[int, int, int, int]
    final: tuple[int, int, int, int]
    think: tuple[tuple[float, ...], ...]
    record: dict[str, Any] | None = None
    stand_ins: tuple[int, int, int, int] = (0, 0, 0, 0)


def seating(players: Sequence[str], rotation: int) -> tuple[str, str, str, str]:
    """The level in each seat (N, E, S, W) in ``rotation``: listed player ``k`` sits in seat
    ``(k + rotation) mod 4``."""
    s = [players[(seat - rotation) % 4] for seat in range(4)]
    return (s[0], s[1], s[2], s[3])


def rotations(config: ArenaConfig, deal: int) -> tuple[int, ...]:
    """The rotations deal ``deal`` is played in: all four with duplicate, else ``deal mod 4``."""
    return (0, 1, 2, 3) if config.duplicate else (deal % 4,)


def player_seed(seed: int, deal: int, rotation: int, seat: int) -> int:
    """A 63-bit seed for the player in ``seat`` of one game, derived from the run's seed."""
    digest = hashlib.sha256(f"gongzhu-arena:{seed}:{deal}:{rotation}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def match_id(seed: int, deal: int, rotation: int) -> str:
    """The ``match`` field of a game's record."""
    return f"arena-{seed}-{deal}-r{rotation}"


def play_game(config: ArenaConfig, deal_index: int, rotation: int) -> GameResult:
    """Play deal ``deal_index`` of the run in ``rotation`` with fresh players."""
    levels = seating(config.players, rotation)
    players = [
        make_player(level, seed=player_seed(config.seed, deal_index, rotation, seat),
                    think=config.think, iterations=config.iterations)
        for seat, level in enumerate(levels)
    ]
    think: list[list[float]] = [[], [], [], []]
    stand_ins: list[list[str]] = [[], [], [], []]
    game = f"arena deal {deal_index} rotation {rotation}"
    deal = Deal.new(config.options, deal_seed(config.seed, deal_index), first_receiver=Seat.N,
                    deal_index=0, previous_pig_taker=None)
    seat = Seat.N

    def where() -> str:
        return f"deal {deal_index} rotation {rotation}: {levels[seat]} at {SEAT_NAMES[seat]}"

    try:
        for seat in deal.undeclared:
            obs = observe(deal, seat)
            t0 = time.perf_counter()
            exposures = safe_exposures(players[seat], obs, where=game, stand_ins=stand_ins[seat])
            think[seat].append(time.perf_counter() - t0)
            deal.declare(seat, exposures)
        while (turn := deal.turn) is not None:
            seat = turn
            obs = observe(deal, seat)
            t0 = time.perf_counter()
            play = safe_play(players[seat], obs, where=game, stand_ins=stand_ins[seat])
            think[seat].append(time.perf_counter() - t0)
            deal.play(play, seat)
    except Exception as e:  # players are stood in for: a failure of the rules or the guard, say where
        kind = "" if isinstance(e, GongzhuError) else f"{type(e).__name__}: "
        raise ArenaError(f"{where()}: {kind}{e}") from e
    score = deal.score
    record = None
    if config.records:
        record = deal_to_record(deal, match_id=match_id(config.seed, deal_index, rotation),
                                preset=config.preset)
        record["players"] = dict(zip(SEAT_NAMES, levels, strict=True))
    n = [len(x) for x in stand_ins]
    return GameResult(deal_index, rotation, levels, score.raw, score.final,
                      tuple(tuple(t) for t in think), record, (n[0], n[1], n[2], n[3]))


def play_deal(config: ArenaConfig, deal_index: int) -> list[GameResult]:
    """Play deal ``deal_index`` in each of its rotations (:func:`rotations`)."""
    return [play_game(config, deal_index, r) for r in rotations(config, deal_index)]


def run_arena(config: ArenaConfig, jobs: int = 1) -> Iterator[list[GameResult]]:
    """Play the run's deals, yielding each deal's games in deal order.

    With ``jobs`` > 1 the deals are played in that many worker processes (``spawn``: each
    worker imports the package afresh, so only levels registered at import time exist there);
    the order of the results, and so everything computed from them, is the same as with one.
    A deal that cannot be finished raises (:class:`ArenaError`) once the deals before it have
    been yielded, so a caller keeps every finished deal.
    """
    if jobs < 1:
        raise ArenaError(f"the number of jobs must be 1 or more, not {jobs}")
    if jobs == 1 or config.deals == 1:
        for i in range(config.deals):
            yield play_deal(config, i)
        return
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(min(jobs, config.deals), initializer=_ignore_interrupts) as pool:
        yield from pool.imap(functools.partial(play_deal, config), range(config.deals), chunksize=1)


def _ignore_interrupts() -> None:
    """In a worker process: Ctrl-C is the parent's to handle (it stops the run and ends the pool)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
