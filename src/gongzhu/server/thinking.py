"""Thinking: the computer players, the timer's stand-ins and the expert's hints, off the event
loop (``docs/architecture.md``, The game server).

:class:`Pools` are a server's threads and processes to think in: the computer players' threads,
one hint thread, and processes for the levels that search (:data:`SEARCHING`), at a lower
priority so that they never hold up another table.  :class:`Thinking` is one table's: its seats'
computer players, paced by the speed setting, who act whenever the table waits for one; the
stand-ins who act for a person whose time ran out; and hints, one ranking per position shared by
whoever asks.  Every decision is taken from an :class:`~gongzhu.players.Observation` of the
position and handed back to the table, which checks it again before it commits it.

Imports the players and the rules core, the table's clock and the metrics.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import logging
import os
import random
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any, Protocol

from gongzhu.messages import Text
from gongzhu.players.base import Player
from gongzhu.players.expert import DEFAULT_THINK
from gongzhu.players.guard import safe_exposures, safe_play
from gongzhu.players.observation import observe
from gongzhu.players.registry import make_player
from gongzhu.rules.cards import Card, Seat
from gongzhu.rules.deal import Deal, Phase
from gongzhu.rules.match import Match
from gongzhu.rules.model import Play
from gongzhu.server.bodies import DEFAULT_SPEED, SPEEDS
from gongzhu.server.clock import Clock, report_failure
from gongzhu.server.metrics import Metrics
from gongzhu.server.wire import Refused, codes, refusal

__all__ = ["CLAIM_LIMIT", "DECISION_FLOOR", "OVERRUN_WINDOW", "SEARCHING", "SEARCH_FLOOR", "SEARCH_NICENESS",
           "TIMEOUT_LEVEL", "Pools", "Thinking", "computer_level", "decide_apart"]

log = logging.getLogger("gongzhu.server")

#: How many positions a claim's search may visit by default (:attr:`Pools.claim_limit`).
CLAIM_LIMIT = 100_000
#: Who plays for a person whose time ran out.
TIMEOUT_LEVEL = "intermediate"
#: Server threads for the computer players' decisions, and for hints (one at a time).
PLAYER_THREADS = 4
HINT_THREADS = 1
#: The computer levels that search (their thinking takes a process of its own), how many such
#: processes a server keeps, and how much lower their scheduling priority is.
SEARCHING = frozenset({"expert", "flatmc"})
#: The least time a searching computer player's decision takes to show, whatever it decided
#: (seconds, from when it began to think; the speed's pace when longer).  It answers a forced
#: choice at once — one card of the suit led, no card to expose — and searches for up to its think
#: budget otherwise, so shown any sooner, the wait would tell the table what it holds: the budget
#: (:data:`~gongzhu.players.expert.DEFAULT_THINK`) and a margin for the search's own overrun.
SEARCH_FLOOR = DEFAULT_THINK + 0.2
#: On a loaded machine a search can overrun even that margin, and a decision shown later than the
#: floor would tell the table it was searched (more than one card it might play): for this long
#: (seconds) after such an overrun, every searching decision of the server waits as long as the
#: longest overrun, a forced one too.
OVERRUN_WINDOW = 60.0
#: The least time any other computer player's decision takes to show (seconds), for the same
#: reason at the instant speed: a forced choice is answered sooner than a forward pass of the
#: learned player's network or the rules of the others (a millisecond or so, well under this).
DECISION_FLOOR = 0.05
SEARCH_PROCESSES = 2
SEARCH_NICENESS = 10


def computer_level(seat: Seat, levels: Mapping[str, str], seats: Sequence[tuple[str, str] | None],
                   dealt_to: Sequence[str | None], *, in_deal: bool, solo: bool) -> str:
    """The level of the computer player that plays ``seat`` when one does: at a table for
    people, a seat dealt to a person (or, between deals, a person's seat in 托管) is played by the
    stand-ins' level (:data:`TIMEOUT_LEVEL`) while nobody plays it themselves — in 托管 or left,
    never at the level the host set for the seat; any other seat at that level (``levels``)."""
    occupant = seats[seat]
    person = dealt_to[seat] if in_deal else (occupant[0] if occupant is not None else None)
    return TIMEOUT_LEVEL if person is not None and not solo else levels[seat.name]


def _lower_priority() -> None:
    with contextlib.suppress(OSError, AttributeError):
        os.nice(SEARCH_NICENESS)


def decide_apart(kind: str, level: str, seed: int, obs: Any, where: str) -> Any:
    """A searching computer player's decision, in a process of :meth:`Pools.search_pool`: the
    player is made for this decision from a seed of the position (the same position, the same
    decision, whichever server asks)."""
    player = make_player(level, seed=seed)
    if kind == "declare":
        return safe_exposures(player, obs, where=where)
    return safe_play(player, obs, where=where)


class Pools:
    """A server's threads and processes to think in.  ``pace`` (seconds per computer play)
    overrides every table's speed setting (tests use 0); ``hint_think`` is the expert's search
    time per hint.  ``now`` and ``sleep`` are the clock the computer players are paced by (the
    event loop's, unless a test gives its own).  ``metrics``: where their decisions are timed."""

    def __init__(self, *, pace: float | None = None, hint_think: float | None = None,
                 now: Callable[[], float] | None = None,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep, metrics: Metrics | None = None) -> None:
        self.pace = pace
        #: :data:`SEARCH_FLOOR`, unless ``pace`` overrides the speeds (tests: their computers
        #: play at once, a test of the floor sets it).
        self.search_floor = SEARCH_FLOOR if pace is None else 0.0
        #: :data:`DECISION_FLOOR` for the other levels, likewise.
        self.decision_floor = DECISION_FLOOR if pace is None else 0.0
        self.metrics = metrics if metrics is not None else Metrics()
        #: Positions a claim's search may visit (per phase: deciding it, then its line): a few
        #: seconds of the hint pool's thread (:mod:`gongzhu.server.claiming`).
        self.claim_limit = CLAIM_LIMIT
        self.hint_think = hint_think
        self.now = now
        self.sleep = sleep
        #: The searching decisions that took longer than the floor lately: (when, how long).
        self._overruns: deque[tuple[float, float]] = deque()
        self.players = ThreadPoolExecutor(PLAYER_THREADS, thread_name_prefix="gongzhu-player")
        self.hints = ThreadPoolExecutor(HINT_THREADS, thread_name_prefix="gongzhu-hint")
        self._search: ProcessPoolExecutor | None = None

    def floor(self, level: str, now: float) -> float:
        """The least time (seconds) a decision of ``level`` beginning about ``now`` takes to show:
        :attr:`decision_floor`, or for a searching level :attr:`search_floor` — raised to the
        longest search of the last :data:`OVERRUN_WINDOW` seconds that overran it."""
        if level not in SEARCHING:
            return self.decision_floor
        while self._overruns and self._overruns[0][0] < now - OVERRUN_WINDOW:
            self._overruns.popleft()
        if not self.search_floor:
            return self.search_floor  # (tests whose computers play at once)
        return max([self.search_floor, *(took for _, took in self._overruns)])

    def thought(self, level: str, now: float, took: float) -> None:
        """A decision of ``level`` ended at ``now`` after ``took`` seconds of thinking: one of a
        searching level that overran its floor raises the floor of those after it (:meth:`floor`)."""
        if level in SEARCHING and self.search_floor and took > self.search_floor:
            self._overruns.append((now, took))

    def search(self) -> ProcessPoolExecutor:
        """The processes the searching computer players think in, made on first use: their
        search (most of it holding Python's lock) and their CPU stay out of the server's event
        loop, at a lower priority."""
        if self._search is None:
            import multiprocessing

            self._search = ProcessPoolExecutor(SEARCH_PROCESSES, mp_context=multiprocessing.get_context("spawn"),
                                               initializer=_lower_priority)
        return self._search

    def close(self) -> None:
        self.players.shutdown(wait=False, cancel_futures=True)
        self.hints.shutdown(wait=False, cancel_futures=True)
        if self._search is not None:
            self._search.shutdown(wait=False, cancel_futures=True)


class Thought(Protocol):
    """What a table's thinking reads of it, and how it hands a decision back."""

    match_id: str
    match: Match
    speed: str
    levels: dict[str, str]
    status: str
    pending: dict[Seat, list[tuple[Card, str]]]
    position: int
    broken: bool
    clock: Clock
    seats: list[tuple[str, str] | None]
    dealt_to: list[str | None]
    challenge: str | None
    auto: list[bool]
    solo: bool

    def is_computer(self, seat: Seat) -> bool: ...

    def computer_level(self, seat: Seat) -> str: ...

    def declare_for(self, deal: Deal, seat: Seat, choice: list[tuple[Card, str]]) -> None: ...

    def play_for(self, deal: Deal, seat: Seat, choice: Play, *, timed_out: bool = False) -> None: ...

    def deal_next_on_time(self) -> None: ...

    def claim_waiting(self) -> list[Seat] | None: ...

    def claim_unanswered(self) -> None: ...


class Thinking:
    """One table's computer players, stand-ins and hints (see the module docstring).  The
    players are made from the match's seed: the same match, the same players."""

    def __init__(self, table: Thought, pools: Pools, seed: int) -> None:
        self.table = table
        self.pools = pools
        rng = random.Random(seed)
        self.players: dict[Seat, Player] = {s: make_player(table.levels[s.name], seed=rng.getrandbits(63))
                                            for s in Seat}
        self.stand_ins: dict[Seat, Player] = {s: make_player(TIMEOUT_LEVEL, seed=rng.getrandbits(63)) for s in Seat}
        self._driver: asyncio.Task[None] | None = None
        self.hint: tuple[int, Seat, asyncio.Future[dict[str, Any]]] | None = None  # the expert's, of one position
        self.quick_hint: tuple[int, Seat, dict[str, Any]] | None = None  # the network's, of one position
        self._hint_tasks: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ computer players

    @property
    def pace(self) -> float:
        """Seconds per computer play: the server's override, else the speed setting."""
        return self.pools.pace if self.pools.pace is not None else SPEEDS.get(self.table.speed, SPEEDS[DEFAULT_SPEED])

    def step(self) -> tuple[Seat, str] | None:
        """The computer player to act now and how (``declare``/``play``), or None when the
        table waits for a person (or the deal is over)."""
        t = self.table
        deal = t.match.current
        if t.status != "playing" or deal is None or deal.is_over or t.claim_waiting() is not None:
            return None  # (a claim put to the others holds the deal still)
        if deal.phase is Phase.EXPOSE:
            for seat in deal.undeclared:
                if seat not in t.pending and t.is_computer(seat):
                    return seat, "declare"
            return None
        turn = deal.turn
        return (turn, "play") if turn is not None and t.is_computer(turn) else None

    def kick(self) -> None:
        """Start the computer players if one of them is to act (call on the event loop)."""
        if self.table.broken or self.step() is None:
            return
        driver = self._driver
        loop = asyncio.get_running_loop()
        if driver is not None and not driver.done() and driver.get_loop() is loop:
            return
        # in a context of its own: the message that woke it is not what its work belongs to
        self._driver = loop.create_task(self._drive(), context=contextvars.Context())
        self._driver.add_done_callback(report_failure)

    async def _drive(self) -> None:
        t = self.table
        loop = asyncio.get_running_loop()
        pool = self.pools.players
        now = self.pools.now or loop.time
        where = f"match {t.match_id}"
        while not t.broken and (step := self.step()) is not None:
            seat, kind = step
            deal = t.match.current
            assert deal is not None
            position = t.position
            obs = observe(deal, seat)
            # A seat dealt to a person at a table for people — in 托管, or left by its person — is
            # played at the stand-ins' level, not the level set for the seat: nobody has their
            # deals played for them by a level they chose, a weak one for their opponents or a
            # strong one for themselves.
            stand_in = not t.solo and t.dealt_to[seat] is not None
            player = self.stand_ins[seat] if stand_in else self.players[seat]
            started = now()
            thinking = time.perf_counter()
            choice: Any
            level = t.computer_level(seat)
            # A player that fails is logged and stood in for (players.guard): the table goes on.
            apart = None
            if level in SEARCHING:  # a searching player thinks in a process of its own (below)
                seed = random.Random(f"{t.match.seed}:{deal.deal_index}:{len(deal.actions)}:{seat.name}")
                try:
                    apart = await loop.run_in_executor(self.pools.search(), functools.partial(
                        decide_apart, kind, level, seed.getrandbits(63), obs, where))
                except asyncio.CancelledError:
                    raise
                except Exception:  # no process to think in: think here, as the other levels do
                    log.exception("%s: the search processes failed; thinking in a thread", t.match_id)
            if apart is not None:
                choice = apart
                delay = self.pace / 2 if kind == "declare" else self.pace
            elif kind == "declare":
                choice = await loop.run_in_executor(pool, functools.partial(safe_exposures, player, obs, where=where))
                delay = self.pace / 2
            else:
                choice = await loop.run_in_executor(pool, functools.partial(safe_play, player, obs, where=where))
                delay = self.pace
            # Not shown sooner for a forced choice than for one thought about (nor than the
            # server's searches took lately, when they overran: Pools.floor).
            thought = now()
            self.pools.thought(level, thought, thought - started)
            delay = max(delay, self.pools.floor(level, thought))
            self.pools.metrics.think_seconds.labels(level, kind).observe(time.perf_counter() - thinking)
            await self.pools.sleep(max(0.0, delay - (now() - started)))
            if t.position != position or t.broken or self.step() != step:
                continue  # the position changed meanwhile: think again
            try:
                if kind == "declare":
                    t.declare_for(deal, seat, choice)
                else:
                    t.play_for(deal, seat, choice)
            except Exception:  # the table is dropped (the store refused); the next connection rebuilds it
                if t.broken:
                    return
                raise

    # ------------------------------------------------------------------ stand-ins

    async def timeout(self, deadline: float) -> None:
        """The time ran out: the intermediate player acts for each person who had to (a second
        timeout in a row puts the seat into 托管); between deals, the next deal is dealt."""
        t = self.table
        due = t.clock.due()
        if due is None:
            return
        kind, seats = due
        if kind == "next":
            t.deal_next_on_time()
            self.kick()
            return
        if kind == "claim":  # nobody stands in for an answer: the claim is withdrawn
            t.claim_unanswered()
            self.kick()
            return
        deal = t.match.current
        assert deal is not None
        loop = asyncio.get_running_loop()
        position = t.position
        where = f"match {t.match_id} (timeout)"
        choices: list[tuple[Seat, Any]] = []
        for seat in seats:
            obs = observe(deal, seat)
            decide = safe_exposures if kind == "expose" else safe_play
            choice = await loop.run_in_executor(self.pools.players,
                                                functools.partial(decide, self.stand_ins[seat], obs, where=where))
            choices.append((seat, choice))
        if t.position != position or t.clock.deadline != deadline or t.broken:
            return  # someone acted meanwhile
        try:
            for seat, choice in choices:
                if kind == "expose":
                    t.declare_for(deal, seat, choice)
                else:
                    t.play_for(deal, seat, choice, timed_out=True)
        except Exception:
            if t.broken:
                return
            raise
        self.kick()

    # ------------------------------------------------------------------ hints

    def ask_hint(self, deal: Deal, seat: Seat, reply: Callable[[dict[str, Any]], None], *, quick: bool) -> None:
        """Answer a hint request of the person at ``seat``: refused at a table with other people
        and when it is not their turn; a quick one at once with the network's ranking, a search one
        when the expert's ranking is ready, without holding up the connection's next messages (a
        play may overtake it: the hint names the position it ranks, by deal and the seat's hand
        size, so that the page can drop a late one)."""
        t = self.table
        if t.challenge is not None:
            raise Refused("server.no_hints_in_challenges")  # every entrant plays the boards unaided
        others = {u for u in (*t.dealt_to, *(o[0] for o in t.seats if o is not None)) if u is not None}
        occupant = t.seats[seat]
        if others - {occupant[0] if occupant is not None else None}:
            raise Refused("server.no_hints_with_people")  # fair play: hints are for games against computers
        if deal.turn != seat:
            if deal.phase is not Phase.PLAY:
                raise Refused("server.hint_not_now")
            assert deal.turn is not None
            raise Refused("server.hint_not_your_turn", turn=deal.turn)
        position = t.position
        if quick:
            # The network answers in milliseconds: on the event loop, at once, so that no search
            # in the hint pool can hold it up; once per position, every connection asking shares it.
            known = self.quick_hint
            if known is not None and known[0] == position and known[1] == seat:
                reply(known[2])
                return
            try:
                message = self.rank(observe(deal, seat), quick=True)
            except Exception:
                log.exception("%s: a quick hint failed", self.table.match_id)
                reply(refusal(Text.of("server.hint_failed")))
                return
            self.quick_hint = (position, seat, message)
            reply(message)
            return
        # One ranking per position: every connection asking for it shares it, and it is computed
        # in the hint pool, one at a time, beside the computer players' pool.
        hint = self.hint
        ranking = hint[2] if hint is not None and hint[0] == position and hint[1] == seat else None
        if ranking is None or (ranking.done() and (ranking.cancelled() or ranking.exception() is not None)):
            loop = asyncio.get_running_loop()
            ranking = loop.run_in_executor(self.pools.hints, self.rank, observe(deal, seat))
            self.hint = (position, seat, ranking)
        task = asyncio.get_running_loop().create_task(self._send_hint(ranking, reply))
        self._hint_tasks.add(task)
        task.add_done_callback(self._hint_tasks.discard)

    async def _send_hint(self, ranking: asyncio.Future[dict[str, Any]],
                         reply: Callable[[dict[str, Any]], None]) -> None:
        try:
            message = await asyncio.shield(ranking)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if not ranking.cancelled() or (task is not None and task.cancelling()):
                raise
            reply(refusal(Text.of("server.hint_called_off")))
            return
        except Exception:
            log.exception("%s: a hint failed", self.table.match_id)
            reply(refusal(Text.of("server.hint_failed")))
            return
        reply(message)

    def rank(self, obs: Any, quick: bool = False) -> dict[str, Any]:
        """The hint message of a position: the network's ranking (``quick``) or the expert's."""
        from gongzhu.players.hints import DEFAULT_HINT_THINK, hints

        think = self.pools.hint_think if self.pools.hint_think is not None else DEFAULT_HINT_THINK
        ranked = hints(obs, quick=quick, think=think)
        return {"type": "hint", "deal_index": obs.deal_index, "hand_size": len(obs.hand),
                "source": "network" if quick else "search", "hints": [
            {"cards": codes(h.play), "expected": h.expected, "reason": {"zh": h.reason_zh, "en": h.reason_en}}
            for h in ranked
        ]}

    # ------------------------------------------------------------------ stopping

    def halt(self) -> None:
        """Stop the computer players now, and a hint nobody waits for any more unless it has
        started (the table is being let go)."""
        driver, self._driver = self._driver, None
        if driver is not None and not driver.done():
            driver.cancel()
        if self.hint is not None and not self.hint[2].done():
            self.hint[2].cancel()
        for task in list(self._hint_tasks):
            task.cancel()
