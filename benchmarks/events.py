"""Live events under load: a Mitchell of 32 pairs played by 64 scripted people at human pace.

    python benchmarks/events.py [--setups postgres,sqlite] [--pairs 32] [--rounds 4] [--boards 1]
                                [--think 0.5-1.5] [--poll 5] [--no-news] [--processes 2]
                                [--keep-logs DIR] [--quick] [--json]

For each setup, servers are started as ``benchmarks/tables.py`` starts them (its ``Server`` and
``Fleet``): *postgres*, ``--processes`` ``gongzhu serve --redis`` processes on a new PostgreSQL
database (made on ``--pg``, dropped afterwards) and the Redis at ``--redis``; *sqlite*, one
``gongzhu serve`` on a SQLite file in a temporary folder (the baseline).  The servers trust
127.0.0.1 as a proxy (``GONGZHU_TRUSTED_PROXY``) and every scripted person sends an
``X-Forwarded-For`` address of their own, so that the per-address limits (sign-ups, WebSockets)
see 64 people, not one machine.

An organiser and ``2 × --pairs`` players make accounts (``GET /api/me``, ``POST /api/account``),
player k on process k mod N (a pair's two players on different processes); the organiser makes a
Mitchell (``POST /api/events``, form ``mitchell``, pairs 1+2, 3+4, …, ``--boards`` boards a
round, ``--rounds`` rounds, a turn timer, a grace, ``starts_at`` ``--lead`` seconds ahead).
Nobody starts a round by hand: the first begins at ``starts_at``, each next one as soon as every
table has finished the one before.  Each person, like the event page, keeps the lobby's socket
open (``/ws/lobby``, on their own process) and reads ``GET /api/events/{id}`` at once when it
brings the news of a round begun (``{"type": "event", "id", "stage"}``), else every
``--poll`` seconds (at once when their table has finished; ``--no-news``: no socket, the poll
alone, as the page read before it had the news), until ``me.now`` names a table of a later
round, opens its WebSocket (``/ws/{match}``, their cookie and address), and plays it: every
decision — an exposure declaration (``random_exposures`` of ``tests/helpers/client.py``), a play
(a random legal one), the next board (the person at N) — is sent a think time after the state
that asks for it, drawn uniformly from ``--think``.  When the table's match is over they close
it and read the event again.

Measured, on this process's clocks (the servers run on the same machine):

- *round change*: from the moment the last table of a round has finished its last board (its
  last play sent) to the moment every player of the next round has received their first state of
  their new table.  Along the way: until the first of that table's people had the state that ends
  it; until the server began the round (``event_tables.started``, stamped as it makes the round's
  tables, just before it writes the ``start`` entry of the event's log — read from the database,
  since the log entry's own ``at`` has whole seconds; that one is shown too); until every
  player's read of the event page showed their new table.  The first round: from ``starts_at``.
- *play latency*: from sending a play to receiving, on the player's own connection, the state
  that holds it (its cards played moved past it); also until all four seats have such a state
  (``benchmarks/tables.py``'s latency).  p50, p95, p99, max over all plays.
- plays a second over the event, the servers' CPU (``/proc/PID/stat``, summed) and this
  process's, the event page's answer time (and, at the end, 10 reads one after the other: their
  answer time and the first process's CPU time for one), errors sent to the people, connections
  the server closed (a person comes back to the table with ``?since=``, as the page does, up to
  :data:`COMEBACKS` times, then gives up; the run then stops, since the event cannot end) and the
  servers' logs.

Every wait is bounded.  Servers, the database and the people's connections are stopped and
removed at the end, on a failure and on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import platform
import random
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

import tables
from helpers.client import random_exposures
from tables import Base, Fleet, Server, _State, cards_done, cpu_seconds, rss_mib

#: The password of every account made here.
PASSWORD = "a patient heron counts the tricks 7"
SETUPS = ("postgres", "sqlite")
#: How many times a person comes back to a table the server closed before giving up.
COMEBACKS = 3
#: How long after its last expected end an event may still run before the run gives up (seconds).
SLACK = 120.0
#: Once someone gave up on a table the event cannot end: the run stops this many seconds later.
STOP_AFTER_GIVING_UP = 10.0
#: Reads of the event page, one after the other, that time it at the end.
PAGE_READS = 10


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def percentiles(values: list[float]) -> dict[str, Any]:
    """n, p50, p95, p99 and max (None when empty), rounded to 0.1."""
    if not values:
        return {"n": 0, "p50": None, "p95": None, "p99": None, "max": None}
    ordered = sorted(values)
    if len(ordered) > 1:
        cuts = statistics.quantiles(ordered, n=100, method="inclusive")
        p95, p99 = cuts[94], cuts[98]
    else:
        p95 = p99 = ordered[0]
    return {"n": len(ordered), "p50": round(statistics.median(ordered), 1), "p95": round(p95, 1),
            "p99": round(p99, 1), "max": round(ordered[-1], 1)}


def _past(state: _State, where: tuple[int, int, str]) -> bool:
    """Whether ``state`` has moved past the play made at ``where`` (deal, cards played, phase)."""
    deal, place, _ = cards_done(state)
    return deal > where[0] or (deal == where[0] and (place > where[1] or state.phase in ("deal-over", "match-over")))


# ---------------------------------------------------------------------- what the run records

@dataclass
class TableWatch:
    """One table of the event as its people see it: plays waiting for all four seats, the end."""

    stage: int
    match: str
    #: (deal, cards played) of a play -> (sent, seats that have a state past it)
    pending: dict[tuple[int, int], tuple[float, set[str]]] = field(default_factory=dict)
    last_play_at: float | None = None  # time.time() its last play so far was sent
    over_at: float | None = None  # time.time() the play that ended its match was sent
    seen_over_at: float | None = None  # time.time() the first of its people had the state that ends it


class Run:
    """What one setup's people share: the event, the samples, the counters."""

    def __init__(self, args: argparse.Namespace, servers: list[Server]) -> None:
        self.args = args
        self.servers = servers
        self.bases = [s.base for s in servers]
        self.event_id = ""
        self.stages = args.rounds
        self.rng = random.Random(args.seed)
        self.tables: dict[tuple[int, str], TableWatch] = {}
        self.own_ms: list[float] = []  # play sent -> the player's own state past it
        self.all_ms: list[float] = []  # play sent -> all four seats past it
        self.plays_at: list[float] = []  # perf_counter of each play sent
        self.found: dict[tuple[int, int], float] = {}  # (stage, person) -> time.time() a poll showed the table
        self.first_state: dict[tuple[int, int], float] = {}  # (stage, person) -> time.time() of the first state
        self.connect_ms: list[float] = []  # opening a table's WebSocket -> its first state
        self.poll_ms: list[float] = []  # GET /api/events/{id}
        self.polls = 0
        self.errors = 0
        self.comebacks = 0  # connections the server closed, and the person came back
        self.given_up = 0  # people who stopped: the server kept closing their table
        self.first_errors: list[str] = []
        self.failures: list[str] = []
        self.lag_ms: list[float] = []
        self.stopping = False

    def table(self, stage: int, match: str) -> TableWatch:
        key = (stage, match)
        if key not in self.tables:
            self.tables[key] = TableWatch(stage, match)
        return self.tables[key]

    def error(self, text: str) -> None:
        self.errors += 1
        if len(self.first_errors) < 5:
            self.first_errors.append(text[:300])

    async def probe_lag(self) -> None:
        """This process's event-loop lag: how late a 50 ms sleep wakes (it times the plays)."""
        while not self.stopping:
            start = time.perf_counter()
            await asyncio.sleep(0.05)
            self.lag_ms.append(1000 * (time.perf_counter() - start - 0.05))


# ---------------------------------------------------------------------- one person

class Person:
    """A scripted player (or the organiser): an account on one of the servers, from an address
    of their own."""

    def __init__(self, run: Run, index: int, name: str, address: str, base: Base) -> None:
        self.run = run
        self.index = index
        self.name = name
        self.address = address
        self.base = base
        self.http = httpx.AsyncClient(base_url=base.url.rstrip("/"), headers={"X-Forwarded-For": address},
                                      timeout=tables.SETUP_TIMEOUT)
        self.rng = random.Random(run.rng.getrandbits(64))
        self.ws: ClientConnection | None = None
        self.last: _State | None = None
        self.last_raw: dict[str, Any] | None = None  # the last state in full, while declaring exposures
        self.seat: str | None = None
        self.sent: tuple[float, tuple[int, int, str]] | None = None  # a play waiting for its state
        self.watch: TableWatch | None = None  # the table being played
        self.doing = "starting"  # what the person is waiting for (a failure says it)
        self._acted: set[tuple[str, int, int]] = set()
        self._timers: list[asyncio.TimerHandle] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self.news = asyncio.Event()  # the lobby's socket brought the event's news since the last read
        self._lobby: asyncio.Task[None] | None = None

    async def make_account(self) -> None:
        me = await self.http.get("/api/me")
        if me.status_code != 200:
            raise RuntimeError(f"GET /api/me answered {me.status_code}: {me.text[:200]}")
        made = await self.http.post("/api/account", json={"name": self.name, "password": PASSWORD})
        if made.status_code != 200:
            raise RuntimeError(f"POST /api/account ({self.name}) answered {made.status_code}: {made.text[:200]}")

    async def befriend(self, other: Person) -> None:
        """Ask ``other`` to be friends, and ``other`` accepts (an organiser lists friends only)."""
        for one, two, state in ((self, other, "asked"), (other, self, "friends")):
            answer = await one.http.post(f"/api/people/{two.name}/friend")
            if answer.status_code != 200 or answer.json().get("state") != state:
                raise RuntimeError(f"POST /api/people/{two.name}/friend answered {answer.status_code}: "
                                   f"{answer.text[:200]}")

    def cookie(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.http.cookies.items())

    async def summary(self) -> dict[str, Any]:
        start = time.perf_counter()
        try:
            reply = await self.http.get(f"/api/events/{self.run.event_id}")
        except (httpx.RemoteProtocolError, httpx.ReadError):
            # The server closed the kept-alive connection as the read went out (its keep-alive
            # timeout, 5 s, is the page's refresh; the close seen as the end of the answer or as
            # a reset): asked again on a new one, as a browser does with a read that changes nothing.
            start = time.perf_counter()
            reply = await self.http.get(f"/api/events/{self.run.event_id}")
        self.run.poll_ms.append(1000 * (time.perf_counter() - start))
        self.run.polls += 1
        if reply.status_code != 200:
            raise RuntimeError(f"GET /api/events answered {reply.status_code}: {reply.text[:200]}")
        body: dict[str, Any] = reply.json()
        return body

    # -------------------------------------------------------------- the event, round by round

    async def listen_for_news(self) -> None:
        """The lobby's socket, as the event page keeps it (the person's session: the server tells
        the event's news to its own people only): each news of the event wakes the person's wait
        for their next table."""
        async with connect(self.base.ws("/ws/lobby"),
                           additional_headers={"Cookie": self.cookie(), "X-Forwarded-For": self.address},
                           open_timeout=tables.SETUP_TIMEOUT, close_timeout=2, ping_interval=None,
                           compression=None, max_size=2**22) as ws:
            async for text in ws:
                message = json.loads(text)
                if message.get("type") == "event" and message.get("id") == self.run.event_id:  # a round begun
                    self.news.set()

    async def play_event(self) -> None:
        done = 0
        if self.run.args.news:
            self._lobby = asyncio.create_task(self.listen_for_news())
        try:
            await asyncio.sleep(self.rng.uniform(0, self.run.args.poll))  # pages opened at different moments
            while done < self.run.stages and not self.run.stopping:
                found = await self._next_table(done)
                if found is None:
                    return
                stage, match = found
                self.run.found[(stage, self.index)] = time.time()
                if not await self._play_table(stage, match):
                    return
                done = stage
        except asyncio.CancelledError:
            raise
        except Exception as e:
            self.run.failures.append(f"{self.name}, {self.doing}: {type(e).__name__}: {e}"[:300])

    async def _next_table(self, done: int) -> tuple[int, str] | None:
        """Read the event until it seats this person at a table of a round after ``done``."""
        while not self.run.stopping:
            self.doing = "reading the event page"
            self.news.clear()  # news that comes during the read asks for another one
            body = await self.summary()
            now = body["me"]["now"]
            if now is not None and int(now["stage"]) > done and now["url"]:
                return int(now["stage"]), str(now["url"]).removeprefix("/table/")
            if body["status"] == "over":
                return None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.news.wait(), self.run.args.poll)
        return None

    async def _open(self, match: str, since: int | None = None) -> ClientConnection:
        path = f"/ws/{match}" + (f"?since={since}" if since is not None else "")
        return await connect(self.base.ws(path),
                             additional_headers={"Cookie": self.cookie(), "X-Forwarded-For": self.address},
                             open_timeout=tables.SETUP_TIMEOUT, close_timeout=2, ping_interval=None,
                             compression=None, max_size=2**20)

    async def _play_table(self, stage: int, match: str) -> bool:
        """Play the table through to the end of its match; False if this person gave up (the
        server closed the table more than :data:`COMEBACKS` times: they come back as the page does,
        with ``?since=`` the last version seen)."""
        watch = self.run.table(stage, match)
        opened = time.perf_counter()
        self.doing = f"opening table {match}"
        ws = await self._open(match)
        self.doing = f"waiting for a state at table {match}"
        self.ws, self.watch, self.last, self.last_raw, self.seat, self.sent = ws, watch, None, None, None, None
        self._acted.clear()
        first, comebacks = True, 0
        try:
            while True:
                try:
                    data = await asyncio.wait_for(ws.recv(), self.run.args.turn_seconds * 4)
                except ConnectionClosed as closed:
                    comebacks += 1
                    self.run.comebacks += 1
                    if comebacks > COMEBACKS:
                        self.run.failures.append(f"{self.name}: the server closed the table {match} "
                                                 f"{comebacks} times ({closed}); giving up")
                        self.run.given_up += 1
                        return False
                    await asyncio.sleep(0.5)
                    self.doing = f"coming back to table {match}"
                    self.ws = ws = await self._open(match, self.last.v if self.last is not None else None)
                    self.doing = f"waiting for a state at table {match}"
                    self._acted.clear()  # what was sent to the closed table may be lost: act again
                    continue
                text = data if isinstance(data, str) else data.decode()
                message = tables.DECODE(text)
                if message.type == "error":
                    self.run.error(f"{self.name} at {match}: {message.message}")
                    continue
                state = message.state
                if message.type != "state" or state is None:
                    continue
                received = time.perf_counter()
                if first:
                    first = False
                    self.run.first_state[(stage, self.index)] = time.time()
                    self.run.connect_ms.append(1000 * (received - opened))
                self._seen(watch, state, received, text)
                if state.phase == "match-over":
                    if watch.seen_over_at is None:
                        watch.seen_over_at, watch.over_at = time.time(), watch.last_play_at
                    return True
                self._act(state)
        finally:
            for timer in self._timers:
                timer.cancel()
            self._timers.clear()
            self.ws = self.watch = None
            with contextlib.suppress(Exception):
                await ws.close()

    def _seen(self, watch: TableWatch, state: _State, received: float, text: str) -> None:
        self.last = state
        if self.seat is None or state.phase == "expose":
            raw = json.loads(text)["state"]
            self.seat = raw.get("seat")
            self.last_raw = raw
        if self.sent is not None and _past(state, self.sent[1]):
            self.run.own_ms.append(1000 * (received - self.sent[0]))
            self.sent = None
        for key, (sent, seats) in list(watch.pending.items()):
            if self.seat is not None and self.seat not in seats and _past(state, (key[0], key[1], "play")):
                seats.add(self.seat)
                if len(seats) == 4:
                    del watch.pending[key]
                    self.run.all_ms.append(1000 * (received - sent))

    # -------------------------------------------------------------- decisions, a think time apart

    def _later(self, what: str, state: _State) -> None:
        # A play once a place of the deal (a later version without it — someone came to the
        # table meanwhile — asks nothing new), a declaration and the next board once a deal.
        key = (what, state.deal_index, cards_done(state)[1] if what == "play" else 0)
        if key in self._acted:
            return
        self._acted.add(key)
        lo, hi = self.run.args.think
        self._timers.append(asyncio.get_running_loop().call_later(self.rng.uniform(lo, hi), self._decide, what,
                                                                 state))
        if len(self._timers) > 64:
            self._timers = [t for t in self._timers if not t.cancelled() and t.when() > time.monotonic()]

    def _act(self, state: _State) -> None:
        seat = self.seat
        if state.phase == "expose" and seat in state.undeclared:
            self._later("expose", state)
        elif state.phase == "play" and state.turn == seat and state.legal:
            self._later("play", state)
        elif state.phase == "deal-over" and seat == "N":
            self._later("next", state)

    def _decide(self, what: str, asked: _State) -> None:
        """The think time is over: act if the table still asks for it."""
        last, ws, watch = self.last, self.ws, self.watch
        if last is None or ws is None or watch is None or self.run.stopping:
            return
        if what == "expose":
            if last.phase != "expose" or last.deal_index != asked.deal_index or self.seat not in last.undeclared:
                return
            assert self.last_raw is not None
            message = random_exposures(self.last_raw, self.rng)
        elif what == "play":
            if last.phase != "play" or last.turn != self.seat or cards_done(last) != cards_done(asked):
                return
            cards = self.rng.choice(last.legal)
            message = {"type": "play", "cards": cards}
            where = cards_done(last)
            now = time.perf_counter()
            self.sent = (now, where)
            watch.pending[(where[0], where[1])] = (now, set())
            watch.last_play_at = time.time()
            self.run.plays_at.append(now)
        else:
            if last.phase != "deal-over" or last.deal_index != asked.deal_index:
                return
            message = {"type": "next"}
        task = asyncio.get_running_loop().create_task(self._send(ws, json.dumps(message)))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @staticmethod
    async def _send(ws: ClientConnection, text: str) -> None:
        with contextlib.suppress(ConnectionClosed):
            await ws.send(text)

    async def close(self) -> None:
        for timer in self._timers:
            timer.cancel()
        if self._lobby is not None:
            self._lobby.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._lobby
        with contextlib.suppress(Exception):
            await self.http.aclose()


# ---------------------------------------------------------------------- one event on one setup

def _stamp(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).isoformat(timespec="milliseconds")


def _ms(seconds: float) -> float:
    return round(1000 * seconds, 1)


def _median_max(values: list[float]) -> dict[str, Any]:
    return {"n": len(values), "median": round(statistics.median(values), 1) if values else None,
            "max": max(values) if values else None}


async def _gather_bounded(makers: list[Callable[[], Awaitable[None]]], at_once: int) -> None:
    """Run what ``makers`` make, at most ``at_once`` at a time."""
    gate = asyncio.Semaphore(at_once)

    async def one(make: Callable[[], Awaitable[None]]) -> None:
        async with gate:
            await make()

    await asyncio.gather(*(one(m) for m in makers))


def _begun(db: str, event_id: str) -> dict[int, float]:
    """When the server began each stage of the event: ``event_tables.started`` (its events' clock,
    stamped as it made the stage's tables), read from the database."""
    from sqlalchemy import create_engine, func, select

    from gongzhu.server.store import EVENT_TABLES

    engine = create_engine(db)
    try:
        with engine.connect() as c:
            rows = c.execute(select(EVENT_TABLES.c.stage, func.min(EVENT_TABLES.c.started))
                             .where(EVENT_TABLES.c.event_id == event_id).group_by(EVENT_TABLES.c.stage)).all()
    finally:
        engine.dispose()
    return {int(stage): float(started) for stage, started in rows}


async def run_event(run: Run, db: str) -> dict[str, Any]:
    """Accounts, the event, every person playing it through; what was measured."""
    args = run.args
    for base in run.bases:
        await tables.until_answering(base)
    n = len(run.bases)
    organiser = Person(run, -1, "Organiser", "10.19.0.1", run.bases[0])
    people = [Person(run, i, f"Player{i + 1:02d}", f"10.20.{i // 200}.{i % 200 + 1}", run.bases[i % n])
              for i in range(2 * args.pairs)]
    lag = asyncio.create_task(run.probe_lag())
    tasks: list[asyncio.Task[None]] = []
    try:
        began = time.perf_counter()
        await _gather_bounded([p.make_account for p in [organiser, *people]], 8)
        accounts_s = time.perf_counter() - began
        _say(f"  {len(people) + 1} accounts in {accounts_s:.1f} s")
        await _gather_bounded([functools.partial(organiser.befriend, p) for p in people], 8)
        starts_at = time.time() + args.lead
        body = {"name": "Benchmark Mitchell", "form": "mitchell", "preset": args.preset, "boards": args.boards,
                "rounds": args.rounds, "turn_seconds": args.turn_seconds, "grace_seconds": args.grace_seconds,
                "starts_at": _stamp(starts_at),
                "entrants": [{"players": [people[2 * k].name, people[2 * k + 1].name]} for k in range(args.pairs)]}
        made = await organiser.http.post("/api/events", json=body)
        if made.status_code != 201:
            raise RuntimeError(f"POST /api/events answered {made.status_code}: {made.text[:300]}")
        run.event_id = made.json()["id"]
        _say(f"  event {run.event_id}: {args.pairs} pairs, {args.rounds} rounds of {args.boards} board(s), "
             f"starts at {_stamp(starts_at)}")
        pids = [s.pid for s in run.servers]
        cpu0, me0, wall0 = sum(map(cpu_seconds, pids)), cpu_seconds("self"), time.perf_counter()
        tasks = [asyncio.create_task(p.play_event()) for p in people]
        hi = args.think[1]
        expected = args.lead + args.rounds * (args.boards * (56 * hi + args.poll) + 2 * args.poll + 5)
        deadline = time.perf_counter() + expected + SLACK
        gave_up_at: float | None = None
        while not all(t.done() for t in tasks):
            now = time.perf_counter()
            if run.given_up and gave_up_at is None:
                gave_up_at = now
            if now > deadline or (gave_up_at is not None and now > gave_up_at + STOP_AFTER_GIVING_UP):
                pending = sum(1 for t in tasks if not t.done())
                run.failures.append(f"stopped with {pending} people not finished: " + (
                    f"{run.given_up} gave up" if gave_up_at is not None else f"past {expected + SLACK:.0f} s"))
                break
            await asyncio.sleep(0.25)
        wall = time.perf_counter() - wall0
        cpu = sum(map(cpu_seconds, pids)) - cpu0
        me = cpu_seconds("self") - me0
        rss = round(sum(rss_mib(p) or 0.0 for p in pids), 1)
        final = await organiser.summary()
        # What one read of the event page costs once every board is played (the most records it
        # reads): one after the other, its answer time and the server's CPU time for it.
        page_cpu0, page_ms = cpu_seconds(pids[0]), []
        for _ in range(PAGE_READS):
            asked = time.perf_counter()
            await organiser.summary()
            page_ms.append(1000 * (time.perf_counter() - asked))
        page_cpu_ms = 1000 * (cpu_seconds(pids[0]) - page_cpu0) / PAGE_READS
        begun = await asyncio.to_thread(_begun, db, run.event_id)
    finally:
        run.stopping = True
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        lag.cancel()
        await asyncio.gather(*(p.close() for p in [organiser, *people]), return_exceptions=True)

    # ---- round changes
    tables_a_round = args.pairs // 2
    over: dict[int, float] = {}  # the last play of the round's last table sent
    seen_over: dict[int, float] = {}  # ... and its end seen by one of its people
    for stage in range(1, args.rounds + 1):
        ends = [(w.over_at, w.seen_over_at) for w in run.tables.values() if w.stage == stage]
        if len(ends) == tables_a_round and all(a is not None and b is not None for a, b in ends):
            over[stage] = max(a for a, _ in ends if a is not None)
            seen_over[stage] = max(b for _, b in ends if b is not None)
    logged = {int(e["details"]["stage"]): datetime.fromisoformat(e["at"]).timestamp()
              for e in final["log"] if e["action"] == "start"}

    def everyone(seen: dict[tuple[int, int], float], stage: int) -> float | None:
        times = [t for (s, _), t in seen.items() if s == stage]
        return max(times) if len(times) == len(people) else None

    changes: list[dict[str, Any]] = []
    for stage in range(1, args.rounds + 1):
        start = starts_at if stage == 1 else over.get(stage - 1)
        seated, found = everyone(run.first_state, stage), everyone(run.found, stage)
        row: dict[str, Any] = {"stage": stage, "from": "starts_at" if stage == 1 else "last board"}
        row["end_seen_ms"] = _ms(seen_over[stage - 1] - start) if start is not None and stage > 1 else None
        row["begun_ms"] = _ms(begun[stage] - start) if start is not None and stage in begun else None
        row["log_entry_s"] = round(logged[stage] - start, 1) if start is not None and stage in logged else None
        row["all_found_ms"] = _ms(found - start) if start is not None and found is not None else None
        row["all_seated_ms"] = _ms(seated - start) if start is not None and seated is not None else None
        changes.append(row)
    later = [c for c in changes if c["stage"] > 1]
    seated_ms = [c["all_seated_ms"] for c in later if c["all_seated_ms"] is not None]
    begun_ms = [c["begun_ms"] for c in later if c["begun_ms"] is not None]
    play_from = begun.get(1)
    play_to = over.get(args.rounds)
    play_s = (play_to - play_from) if play_from is not None and play_to is not None else None
    boards_played = sum(min(int(t["played"]), len(t["boards"])) for t in final["tables"])
    # The event page's "played" of a table, beyond its boards (its matches' deal count, stored as
    # the last deal's index + 1, which an event's board numbers make larger).
    played_beyond = sum(1 for t in final["tables"] if int(t["played"]) > len(t["boards"]))
    stand_ins = sum(1 for e in final["log"] if e["action"] == "stand_in")
    return {
        "processes": n, "pairs": args.pairs, "players": len(people), "tables_a_round": tables_a_round,
        "rounds": args.rounds, "boards": args.boards, "accounts_s": round(accounts_s, 1),
        "status": final["status"], "stages_begun": final["stage"],
        "boards_played": boards_played, "played_beyond_boards": played_beyond,
        "boards_expected": tables_a_round * args.rounds * args.boards,
        "stand_ins": stand_ins,
        "round_changes": changes,
        "round_change_ms": _median_max(seated_ms),
        "server_begin_ms": _median_max(begun_ms),
        "play_latency_ms": percentiles(run.own_ms),
        "all_seats_latency_ms": percentiles(run.all_ms),
        "plays": len(run.plays_at), "plays_unanswered": len(run.plays_at) - len(run.own_ms),
        "play_seconds": round(play_s, 1) if play_s is not None else None,
        "plays_per_s": round(len(run.plays_at) / play_s, 2) if play_s else None,
        "connect_ms": percentiles(run.connect_ms),
        "event_page_ms": percentiles(run.poll_ms), "event_page_reads": run.polls,
        "event_page_alone_ms": round(statistics.median(page_ms), 1), "event_page_cpu_ms": round(page_cpu_ms, 1),
        "seconds": round(wall, 1),
        "server_cpu_pct": round(100 * cpu / wall, 1), "server_cpu_s": round(cpu, 1),
        "server_cpu_ms_per_play": round(1000 * cpu / len(run.plays_at), 2) if run.plays_at else None,
        "server_rss_mib": rss,
        "generator_cpu_pct": round(100 * me / wall, 1), "generator_lag_ms": percentiles(run.lag_ms),
        "comebacks": run.comebacks, "given_up": run.given_up,
        "errors": run.errors, "first_errors": run.first_errors, "failures": run.failures[:10],
        "load_average": round(os.getloadavg()[0], 2),
    }


def run_setup(setup: str, args: argparse.Namespace) -> dict[str, Any]:
    """Servers of ``setup`` started, the event played, the servers stopped (and the database dropped)."""
    _say(f"{setup}: starting")
    with tempfile.TemporaryDirectory() as tmp:
        if setup == "postgres":
            fleet = Fleet(tmp, args.processes, args.pg, args.redis)
            try:
                result = tables.run_loop(run_event(Run(args, fleet.servers), fleet.db))
            finally:
                fleet.stop()
            log = fleet.log_lines()
        else:
            server = Server(tmp)
            try:
                result = tables.run_loop(run_event(Run(args, [server]), server.process.db))
            finally:
                server.stop()
            log = server.log_lines()
    result["setup"] = (f"{args.processes} processes, PostgreSQL + Redis" if setup == "postgres"
                       else "1 process, SQLite")
    result["server_log"] = log
    if args.keep_logs:
        folder = Path(args.keep_logs)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{setup}.log").write_text("".join(line + "\n" for line in log))
    return result


# ---------------------------------------------------------------------- the report

def _cell(value: Any) -> str:
    return "—" if value is None else str(value)


def print_report(report: dict[str, Any]) -> None:
    a = report["args"]
    print(f"gongzhu serve, a live Mitchell event ({report['machine']})")
    print(f"{a['pairs']} pairs ({2 * a['pairs']} players, {a['pairs'] // 2} tables), {a['rounds']} rounds of "
          f"{a['boards']} board(s), think {a['think'][0]}–{a['think'][1]} s a decision, event page read "
          f"{'at its news and ' if a['news'] else ''}every {a['poll']} s, turn timer {a['turn_seconds']} s")
    for r in report["setups"]:
        lat, every = r["play_latency_ms"], r["all_seats_latency_ms"]
        print(f"\n{r['setup']}: {r['status']}, {r['boards_played']}/{r['boards_expected']} boards, "
              f"{r['stand_ins']} stand-ins, {r['seconds']} s")
        print("  round   from         end seen ms  begun ms  log entry s  all found ms  all seated ms")
        for c in r["round_changes"]:
            print(f"  {c['stage']:>5}   {c['from']:<12} {_cell(c['end_seen_ms']):>11} {_cell(c['begun_ms']):>9} "
                  f"{_cell(c['log_entry_s']):>12} {_cell(c['all_found_ms']):>13} {_cell(c['all_seated_ms']):>14}")
        rc, sb = r["round_change_ms"], r["server_begin_ms"]
        print(f"  round change (last board → every player's first state): median {rc['median']} ms, max {rc['max']} ms "
              f"over {rc['n']}; last board → round begun: median {sb['median']} ms, max {sb['max']} ms")
        print(f"  play latency (own state): p50 {lat['p50']} p95 {lat['p95']} p99 {lat['p99']} max {lat['max']} ms "
              f"over {lat['n']} plays; all four seats: p50 {every['p50']} p95 {every['p95']} p99 {every['p99']} "
              f"max {every['max']} ms")
        print(f"  {r['plays']} plays in {r['play_seconds']} s: {r['plays_per_s']} plays/s; unanswered "
              f"{r['plays_unanswered']}; table WebSocket → first state p50 {r['connect_ms']['p50']} "
              f"p99 {r['connect_ms']['p99']} ms")
        print(f"  event page (GET /api/events/ID): {r['event_page_reads']} reads, p50 {r['event_page_ms']['p50']} "
              f"p95 {r['event_page_ms']['p95']} p99 {r['event_page_ms']['p99']} max {r['event_page_ms']['max']} ms; "
              f"at the end, alone: {r.get('event_page_alone_ms')} ms, {r.get('event_page_cpu_ms')} ms of server CPU")
        print(f"  server CPU {r['server_cpu_pct']}% of a core ({r['server_cpu_ms_per_play']} ms a play), "
              f"RSS {r['server_rss_mib']} MiB; generator CPU {r['generator_cpu_pct']}%, loop lag p99 "
              f"{r['generator_lag_ms']['p99']} ms; accounts {r['accounts_s']} s; load average {r['load_average']}")
        if r["comebacks"] or r["given_up"]:
            print(f"  connections closed by the server and reopened: {r['comebacks']}; people who gave up: "
                  f"{r['given_up']}")
        if r.get("played_beyond_boards"):
            print(f"  the event page shows {r['played_beyond_boards']} tables with more boards played than they have")
        for line in r["failures"]:
            print(f"  failure: {line}")
        if r["errors"]:
            print(f"  {r['errors']} errors sent to the people; the first:")
            for line in r["first_errors"]:
                print(f"    {line}")
        log = r["server_log"]
        if log:
            print(f"  server log: {len(log)} lines; the first:")
            for line in log[:10]:
                print(f"    {line}")


def _think(text: str) -> tuple[float, float]:
    try:
        lo, _, hi = text.partition("-")
        low, high = float(lo), float(hi or lo)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seconds LOW-HIGH, such as 0.5-1.5, not {text!r}") from None
    if not 0 <= low <= high:
        raise argparse.ArgumentTypeError("0 <= LOW <= HIGH")
    return low, high


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--setups", default=",".join(SETUPS),
                        help="which to run, in order, comma-separated: postgres (--processes on PostgreSQL + "
                             "Redis), sqlite (1 process on SQLite, the baseline)")
    parser.add_argument("--pairs", type=int, default=32, help="pairs of the Mitchell (an even number, 4 to 64)")
    parser.add_argument("--rounds", type=int, default=4, help="rounds (each after the first is a round change)")
    parser.add_argument("--boards", type=int, default=1, help="boards a round")
    parser.add_argument("--think", type=_think, default="0.5-1.5",
                        help="seconds from a state that asks a decision to acting on it, drawn uniformly")
    parser.add_argument("--poll", type=float, default=5.0,
                        help="seconds between a waiting person's reads of the event page (the page's own: 5)")
    parser.add_argument("--no-news", dest="news", action="store_false",
                        help="no lobby socket: the event page read every --poll seconds alone")
    parser.add_argument("--lead", type=float, default=5.0, help="seconds from making the event to its start")
    parser.add_argument("--preset", default="partners", choices=("partners", "tournament"))
    parser.add_argument("--turn-seconds", type=int, default=30, help="the event's turn timer")
    parser.add_argument("--grace-seconds", type=int, default=60, help="the event's grace before 托管")
    parser.add_argument("--processes", type=int, default=2, help="postgres: gongzhu serve processes")
    parser.add_argument("--seed", type=int, default=1, help="seeds the people's choices and think times")
    parser.add_argument("--quick", action="store_true",
                        help="a short run: 8 pairs, 2 rounds, think 0.1-0.3 s, the page read every 1 s")
    parser.add_argument("--pg", default=os.environ.get("GONGZHU_TEST_PG",
                                                       "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"),
                        help="postgres: a PostgreSQL server (SQLAlchemy URL) whose user may create databases")
    parser.add_argument("--redis", default=os.environ.get("GONGZHU_TEST_REDIS", "redis://127.0.0.1:6379/0"),
                        help="postgres: the Redis the processes share")
    parser.add_argument("--keep-logs", metavar="DIR", help="write the servers' logs to DIR/SETUP.log")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    if args.quick:
        args.pairs, args.rounds, args.think, args.poll, args.lead = 8, 2, (0.1, 0.3), 1.0, 3.0
    setups = [s.strip() for s in args.setups.split(",") if s.strip()]
    if not setups or any(s not in SETUPS for s in setups):
        parser.error(f"--setups: choose from {', '.join(SETUPS)}")
    if args.pairs % 2 or not 4 <= args.pairs <= 64 or args.rounds < 1 or not 1 <= args.boards <= 16:
        parser.error("--pairs an even number from 4 to 64, --rounds at least 1, --boards 1 to 16")
    if args.poll <= 0 or args.lead < 1 or args.processes < 1:
        parser.error("--poll above 0, --lead at least 1 s, --processes at least 1")
    tables.raise_open_files()
    # Every person's own address reaches the servers through X-Forwarded-For.
    os.environ["GONGZHU_TRUSTED_PROXY"] = "127.0.0.1"
    # Stopped with SIGTERM (``timeout``), still stop the servers and drop the database.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    report: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
                   f"load average {os.getloadavg()[0]:.2f} at the start",
        "date": time.strftime("%Y-%m-%d %H:%M"), "command": " ".join(sys.argv),
        "args": {"pairs": args.pairs, "rounds": args.rounds, "boards": args.boards, "think": list(args.think),
                 "poll": args.poll, "news": args.news, "turn_seconds": args.turn_seconds,
                 "grace_seconds": args.grace_seconds,
                 "preset": args.preset},
        "setups": [],
    }
    for setup in setups:
        report["setups"].append(run_setup(setup, args))
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print_report(report)


if __name__ == "__main__":
    main()
