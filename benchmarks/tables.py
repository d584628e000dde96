"""Online tables under load: many tables of people at once, on one ``gongzhu serve``.

    python benchmarks/tables.py [--scenarios concurrent,saturation,interference] [--tables 50,100,...]
                                [--warmup S] [--window S] [--url URL [--server-pid PID]] [--json]

Starts ``gongzhu serve`` (a new process on a free loopback port, a SQLite file in a temporary
folder; with ``--url`` it measures a server already running instead, and reads its CPU use from
``/proc`` when ``--server-pid`` names it) and drives it from this process, the *load generator*:
asyncio with the ``websockets`` asyncio client, every connection in one process (uvloop when it
is installed, as it is with ``uvicorn[standard]``).  A table is made by one person with ``POST
/api/tables`` (private, no turn timer, no exposure window) and all four seats are taken by
scripted people — four guests, each made by ``GET /api/me`` with a cookie of their own, who open
the table's WebSocket with the invite and sit —, so that no computer player plays; the host
starts.  Each person declares no exposure at once, plays a legal play (a seeded random one of
``legal``) ``--delay`` seconds after their turn has arrived, and the host asks for the next deal
as soon as one is over; when the match is over, the same four people start a new table.

A play's *latency* is the time (``time.perf_counter`` in this process, which holds all four
connections of the table) from sending it to the moment every seat of the table has received a
``state`` of a version after the one the player acted on (the play's own state: nobody else acts
at the table meanwhile; that its counters — tricks and cards of the trick, or a deal that ended
— moved on is checked, and a state that did not is counted as ``mismatched``).  Plays are
counted in a measuring window when they were sent in it.

The scenarios, each on a server of its own:

- *concurrent*: tables added step by step (``--tables``), each step a warm-up and a measuring
  window: p50/p99/max latency, plays a second, the server's CPU use (``/proc/PID/stat``, all its
  threads) and memory, its event loop's thread's time on a CPU and time spent runnable but
  waiting for one (``/proc/PID/task/PID/schedstat``: on a shared machine, the time other
  processes held the cores), the same for this process, and its event-loop lag; meanwhile *reconnects*
  (``--reconnect-rate`` a second): a seated person opens a second connection to their table,
  with their cookie and ``?since=V`` (V: a few versions before the last one their seat saw) or
  without, and the time from opening it to its first ``state`` (the full seat view) is measured;
  it is closed again (a second connection of the same person changes nothing at the table).
  The steps stop once a p99 passes ``--stop-above-ms``; the largest step with p99 under
  ``--target-ms`` is reported.
- *saturation*: the same, but everyone plays as soon as their turn arrives: the plays a second
  the server sustains, and the latency then (``--saturation-tables``).
- *interference*: ``--beside`` tables of people as in *concurrent*, and a measuring window
  without, then with ``--experts`` tables of three ``expert`` computer players and one scripted
  person who plays at once (speed ``instant``: the computers think one after the other without a
  pause), opened once each of them has played its first card, then without again: the latency at
  the people's tables with and without the computers thinking beside them.

With ``--processes N`` the scenarios run on N ``gongzhu serve --redis`` processes sharing one new
PostgreSQL database (made on ``--pg``, dropped afterwards) and the Redis at ``--redis``; the
people of each table are spread over them round-robin, so that a play's change crosses from its
table's owner to the other processes (*crossings*: plays × the other processes with a seat of the
table; CPU is summed over the processes).  *failover* runs ``--failover-tables`` tables on three
such processes and ``--kills`` times kills the owner (Redis ``gz:owner:<table>``, ``GET
/api/node``) of a table in the middle of a deal with SIGKILL, starts a replacement, moves the
people of the dead process to a live one with ``?since=`` their last version, and measures the
time from the kill until all four people of that table have a later version.

Every wait is bounded; a table that stops answering shows as plays that never completed.  The
open-file limit of this process (and so of the server it starts) is raised to its hard limit.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import resource
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from helpers.servers import ServeFailed, ServeProcess

SEATS = ("S", "N", "E", "W")  # the host sits at S
#: How long one step of a table's set-up (a request, a connection, the seats taken) may take.
SETUP_TIMEOUT = 60.0
#: How long the *interference* scenario waits for its expert tables' first card before its
#: window with them opens anyway.
EXPERTS_BEGIN_WITHIN = 60.0
#: How long after a window plays sent in it may still complete.
GRACE = 3.0
SCENARIOS = ("concurrent", "saturation", "interference", "failover")


# ---------------------------------------------------------------------- what the generator reads

class _Seated(msgspec.Struct):
    name: str | None = None


class _TableView(msgspec.Struct):
    seats: dict[str, _Seated] = {}


class _Trick(msgspec.Struct):
    plays: list[msgspec.Raw] = []


class _State(msgspec.Struct):
    v: int
    phase: str
    deal_index: int = 0
    turn: str | None = None
    legal: list[list[str]] = []
    undeclared: list[str] = []
    tricks_played: int = 0
    trick: _Trick | None = None
    table: _TableView | None = None


class _Message(msgspec.Struct):
    """A server message, only the fields the generator reads (msgspec skips the rest)."""

    type: str
    v: int | None = None
    state: _State | None = None
    message: str | None = None


DECODE = msgspec.json.Decoder(_Message).decode


def cards_done(state: _State) -> tuple[int, int, str]:
    """Where a deal stands: (deal, cards played, phase)."""
    in_trick = len(state.trick.plays) if state.trick is not None else 0
    return state.deal_index, state.tricks_played * 4 + in_trick, state.phase


# ---------------------------------------------------------------------- HTTP (a tiny client)

@dataclass
class Reply:
    status: int
    headers: list[tuple[str, str]]
    body: Any


class Base:
    """The server's address: ``http://host:port/prefix/``, or ``https://`` through a TLS proxy
    (its certificate checked as Python's default context does: ``SSL_CERT_FILE``)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise SystemExit(f"--url: an http:// or https:// address, not {url!r}")
        self.url = url if url.endswith("/") else url + "/"
        self.tls = parts.scheme == "https"
        self.host = parts.hostname
        self.port = parts.port or (443 if self.tls else 80)
        self.netloc = parts.netloc
        self.prefix = parts.path.rstrip("/")

    def ws(self, path: str) -> str:
        return f"{'wss' if self.tls else 'ws'}://{self.netloc}{self.prefix}{path}"


async def http(base: Base, method: str, path: str, body: Any = None, cookie: str | None = None) -> Reply:
    """One HTTP/1.1 request on a new connection (``Connection: close``), the body as JSON (a body
    that is not one JSON value, such as JSON Lines, as its text)."""
    if base.tls:
        import ssl

        opened = asyncio.open_connection(base.host, base.port, ssl=ssl.create_default_context(),
                                         server_hostname=base.host)
    else:
        opened = asyncio.open_connection(base.host, base.port)
    reader, writer = await asyncio.wait_for(opened, SETUP_TIMEOUT)
    try:
        data = json.dumps(body).encode() if body is not None else b""
        head = [f"{method} {base.prefix}{path} HTTP/1.1", f"Host: {base.netloc}", "Connection: close",
                "Accept: application/json"]
        if body is not None:
            head += ["Content-Type: application/json", f"Content-Length: {len(data)}"]
        if cookie:
            head.append(f"Cookie: {cookie}")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + data)
        raw = await asyncio.wait_for(reader.read(), SETUP_TIMEOUT)
    finally:
        writer.close()
    head_bytes, _, content = raw.partition(b"\r\n\r\n")
    lines = head_bytes.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = [(k.strip().lower(), v.strip()) for k, _, v in (line.partition(":") for line in lines[1:])]
    if ("transfer-encoding", "chunked") in headers:
        content = _unchunk(content)
    text = content.decode(errors="replace")
    try:
        parsed = json.loads(text) if text.strip() else None
    except json.JSONDecodeError:
        parsed = text  # a JSON Lines body (records.jsonl)
    return Reply(status, headers, parsed)


def _unchunk(data: bytes) -> bytes:
    out = bytearray()
    while data:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out += data[:size]
        data = data[size + 2:]
    return bytes(out)


@dataclass(frozen=True)
class Person:
    id: str
    name: str
    cookie: str  # ``gongzhu_session=…``


async def new_person(base: Base) -> Person:
    """A guest of their own (``GET /api/me`` without a cookie)."""
    reply = await http(base, "GET", "/api/me")
    if reply.status != 200:
        raise RuntimeError(f"GET /api/me answered {reply.status}: {reply.body}")
    cookie = next((v.split(";", 1)[0] for k, v in reply.headers if k == "set-cookie"), None)
    if cookie is None:
        raise RuntimeError("GET /api/me set no cookie")
    return Person(reply.body["id"], reply.body["name"], cookie)


async def open_socket(url: str, person: Person) -> ClientConnection:
    return await connect(url, additional_headers={"Cookie": person.cookie}, open_timeout=SETUP_TIMEOUT,
                         close_timeout=2, ping_interval=None, compression=None, max_size=2**20)


# ---------------------------------------------------------------------- measuring

def summary(ms: list[float]) -> dict[str, Any]:
    """n, p50, p99 and max of a list of milliseconds (None when empty)."""
    if not ms:
        return {"n": 0, "p50": None, "p99": None, "max": None}
    ordered = sorted(ms)
    p99 = statistics.quantiles(ordered, n=100, method="inclusive")[98] if len(ordered) > 1 else ordered[0]
    return {"n": len(ordered), "p50": round(statistics.median(ordered), 2), "p99": round(p99, 2),
            "max": round(ordered[-1], 2)}


def cpu_seconds(pid: int | str) -> float:
    """User and system CPU time of a process so far (all its threads)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int | str) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


def _sched_sum(pids: list[int]) -> tuple[int, int]:
    pairs = [sched_ns(p) for p in pids]
    return sum(a for a, _ in pairs), sum(b for _, b in pairs)


def sched_ns(pid: int | str) -> tuple[int, int]:
    """(on a CPU, waiting for a CPU) nanoseconds of a process's main thread so far
    (``/proc/PID/task/PID/schedstat``; the thread that runs the event loop)."""
    tid = os.getpid() if pid == "self" else pid
    try:
        with open(f"/proc/{tid}/task/{tid}/schedstat") as f:
            running, waiting, _slices = f.read().split()
        return int(running), int(waiting)
    except (OSError, ValueError):
        return 0, 0


@dataclass
class Pending:
    """A play sent and not yet seen by every seat."""

    sent: float
    seat: str
    v_before: int
    where: tuple[int, int, str]
    arrived: set[str] = field(default_factory=set)


class Load:
    """What every table of one scenario shares: the server, the samples, the counters."""

    def __init__(self, base: Base, server_pid: int | None, rng: random.Random,
                 fleet: Fleet | None = None) -> None:
        self.base = base
        self.server_pid = server_pid
        #: With several processes: the servers, the people of each table spread over them.
        self.fleet = fleet
        self.rng = rng
        #: (sent, latency, other processes with a seat of the table) of completed plays
        self.samples: list[tuple[float, float, int]] = []
        self.failovers: list[float] = []  # seconds from a kill to a new version at every seat
        self.failovers_lost = 0
        self.reconnects: list[tuple[float, float, bool]] = []  # (opened, seconds to the state, with since)
        self.reconnect_failures = 0
        self.errors = 0
        self.first_errors: list[str] = []
        self.mismatched = 0
        self.tables_made = 0
        self.lag: list[tuple[float, float]] = []  # (when, seconds late) of this loop's probe
        self.stopping = False
        self.drivers: list[Driver] = []
        self.failures: list[str] = []

    def error(self, text: str) -> None:
        self.errors += 1
        if len(self.first_errors) < 5:
            self.first_errors.append(text[:200])

    async def probe_lag(self) -> None:
        """This process's own event-loop lag: how late a 50 ms sleep wakes."""
        while not self.stopping:
            start = time.perf_counter()
            await asyncio.sleep(0.05)
            self.lag.append((start, time.perf_counter() - start - 0.05))

    async def grow(self, tables: int, delay: float, concurrency: int = 16) -> None:
        """Add tables until there are ``tables``; return when every one has started its match."""
        gate = asyncio.Semaphore(concurrency)
        new = [Driver(self, delay, gate, self.seat_bases(len(self.drivers) + i))
               for i in range(tables - len(self.drivers))]
        self.drivers += new
        for driver in new:
            driver.task = asyncio.create_task(driver.run())
        waits = [asyncio.wait_for(d.started.wait(), SETUP_TIMEOUT * 4) for d in new]
        results = await asyncio.gather(*waits, return_exceptions=True)
        late = sum(1 for r in results if isinstance(r, BaseException))
        if late:
            self.failures.append(f"{late} of {len(new)} new tables did not start within {SETUP_TIMEOUT * 4:.0f} s")

    def seat_bases(self, table: int) -> dict[str, Base]:
        """The process each person of the ``table``-th table talks to: round-robin over the
        processes, starting one further at each table (so a table's owner, the host's process,
        varies and most seats are on another process than their table's owner)."""
        if self.fleet is None:
            return dict.fromkeys(SEATS, self.base)
        bases = [s.base for s in self.fleet.servers]
        return {seat: bases[(table + i) % len(bases)] for i, seat in enumerate(SEATS)}

    def pids(self) -> list[int]:
        if self.fleet is not None:
            return [s.pid for s in self.fleet.servers]
        return [self.server_pid] if self.server_pid else []

    async def reconnect_loop(self, rate: float, until: float) -> None:
        """Reconnects at ``rate`` a second until ``until`` (perf_counter), alternately with and
        without ``?since=``."""
        if rate <= 0:
            return
        tasks: set[asyncio.Task[None]] = set()
        n = 0
        next_at = time.perf_counter()
        while time.perf_counter() < until and not self.stopping:
            playing = [d for d in self.drivers if d.table_id is not None and d.started.is_set()]
            if playing and len(tasks) < 32:
                driver = self.rng.choice(playing)
                task = asyncio.create_task(driver.reconnect(self.rng.choice(SEATS), with_since=n % 2 == 0))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
                n += 1
            next_at += 1.0 / rate
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
        if tasks:
            await asyncio.wait(tasks, timeout=SETUP_TIMEOUT)

    async def window(self, warmup: float, seconds: float, reconnect_rate: float = 0.0) -> dict[str, Any]:
        """Wait ``warmup`` seconds, then measure for ``seconds``: what the plays sent in the window
        took, the server's and this process's CPU use, reconnects."""
        await asyncio.sleep(warmup)
        load_before = os.getloadavg()[0]
        pids = self.pids()
        cpu0 = sum(map(cpu_seconds, pids)) if pids else None
        me0 = cpu_seconds("self")
        loop0 = _sched_sum(pids) if pids else None
        my0 = sched_ns("self")
        start = time.perf_counter()
        n_errors, n_mismatched, n_made = self.errors, self.mismatched, self.tables_made
        await self.reconnect_loop(reconnect_rate, start + seconds)
        await asyncio.sleep(max(0.0, start + seconds - time.perf_counter()))
        end = time.perf_counter()
        cpu1 = sum(map(cpu_seconds, pids)) if pids else None
        me1 = cpu_seconds("self")
        loop1 = _sched_sum(pids) if pids else None
        my1 = sched_ns("self")
        load_after = os.getloadavg()[0]
        # Plays sent at the end of the window may still complete.
        grace_end = time.perf_counter() + GRACE
        while time.perf_counter() < grace_end and any(start <= p.sent < end for d in self.drivers for p in d.pending):
            await asyncio.sleep(0.05)
        done = [lat * 1000 for sent, lat, _ in self.samples if start <= sent < end]
        # A play's change goes from its table's owner to every other process with a seat of the table.
        crossing = sum(others for sent, _, others in self.samples if start <= sent < end)
        unfinished = sum(1 for d in self.drivers for p in d.pending if start <= p.sent < end)
        reconnect_ms = [s * 1000 for opened, s, _ in self.reconnects if start <= opened < end]
        since_ms = [s * 1000 for opened, s, since in self.reconnects if start <= opened < end and since]
        lag_ms = [lag * 1000 for when, lag in self.lag if start <= when < end]
        wall = end - start
        return {
            "tables": len(self.drivers),
            "connections": 4 * len(self.drivers),
            "seconds": round(wall, 1),
            "plays": len(done),
            "plays_per_s": round(len(done) / wall, 1),
            "unfinished": unfinished,
            "latency_ms": summary(done),
            "server_cpu_pct": round(100 * (cpu1 - cpu0) / wall) if cpu0 is not None and cpu1 is not None else None,
            "server_cpu_ms_per_play": (round(1000 * (cpu1 - cpu0) / len(done), 2)
                                       if cpu0 is not None and cpu1 is not None and done else None),
            "server_cpu_ms_per_crossing": (round(1000 * (cpu1 - cpu0) / crossing, 3)
                                           if cpu0 is not None and cpu1 is not None and crossing else None),
            "crossings": crossing,
            "processes": len(pids),
            "server_rss_mib": round(sum(rss_mib(p) or 0.0 for p in pids), 1) if pids else None,
            "server_loop_cpu_pct": round((loop1[0] - loop0[0]) / wall / 1e7) if loop0 and loop1 else None,
            "server_loop_runnable_waiting_pct": round((loop1[1] - loop0[1]) / wall / 1e7) if loop0 and loop1 else None,
            "generator_cpu_pct": round(100 * (me1 - me0) / wall),
            "generator_runnable_waiting_pct": round((my1[1] - my0[1]) / wall / 1e7),
            "generator_lag_ms": summary(lag_ms),
            "reconnect_ms": summary(reconnect_ms),
            "reconnect_since_ms": summary(since_ms),
            "reconnect_failures": self.reconnect_failures,
            "errors": self.errors - n_errors,
            "mismatched": self.mismatched - n_mismatched,
            "tables_made": self.tables_made - n_made,
            "load_average": [round(load_before, 2), round(load_after, 2)],
        }

    async def close(self) -> None:
        self.stopping = True
        for driver in self.drivers:
            if driver.task is not None:
                driver.task.cancel()
        await asyncio.gather(*(d.task for d in self.drivers if d.task is not None), return_exceptions=True)
        await asyncio.gather(*(d.close_sockets() for d in self.drivers), return_exceptions=True)


# ---------------------------------------------------------------------- one table of people

class Driver:
    """Four scripted people at one table (a new table with the same people when a match ends)."""

    def __init__(self, load: Load, delay: float, gate: asyncio.Semaphore, bases: dict[str, Base]) -> None:
        self.load = load
        self.bases = bases  # seat -> the process that person talks to
        self.delay = delay
        self.gate = gate
        self.rng = random.Random(load.rng.getrandbits(64))
        self.people: dict[str, Person] = {}
        self.sockets: dict[str, ClientConnection] = {}
        self.last: dict[str, _State] = {}
        self.pending: list[Pending] = []
        self.table_id: str | None = None
        self.started = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self._over = asyncio.Event()
        self._acted: dict[str, tuple[str, int]] = {}  # seat -> (what, deal or version) last done
        self._sat: set[str] = set()
        self._start_sent = False
        self._tasks: set[asyncio.Task[None]] = set()  # the connections' readers and sends in flight
        #: failover: (version before the kill, when killed, seats that have seen a later version)
        self.watch: tuple[int, float, set[str]] | None = None

    async def run(self) -> None:
        try:
            async with self.gate:
                self.people = dict(zip(SEATS, await asyncio.gather(*(new_person(self.bases[s]) for s in SEATS)),
                                       strict=True))
            while not self.load.stopping:
                async with self.gate:
                    await self._open_table()
                await self._over.wait()
                await self.close_sockets()
        except asyncio.CancelledError:
            raise
        except Exception as e:
            self.load.failures.append(f"a table stopped: {type(e).__name__}: {e}"[:300])

    async def _open_table(self) -> None:
        host = self.people["S"]
        body: dict[str, Any] = {"preset": "online", "options": {}, "visibility": "private", "turn_seconds": None,
                                "expose_seconds": None, "speed": "normal", "seat": "S",
                                "seed": self.rng.getrandbits(63)}
        reply = await http(self.bases["S"], "POST", "/api/tables", body, host.cookie)
        if reply.status != 201:
            raise RuntimeError(f"POST /api/tables answered {reply.status}: {reply.body}")
        self.table_id, invite = reply.body["table_id"], reply.body["invite"]
        self.load.tables_made += 1
        self._over.clear()
        self.last.clear()
        self.pending.clear()
        self._acted.clear()
        self._sat.clear()
        self._start_sent = False
        for seat in SEATS:
            ws = await open_socket(self.bases[seat].ws(f"/ws/{self.table_id}?invite={invite}"), self.people[seat])
            self.sockets[seat] = ws
            self._spawn(self._read(seat, ws))

    async def close_sockets(self) -> None:
        sockets, self.sockets = self.sockets, {}
        await asyncio.gather(*(ws.close() for ws in sockets.values()), return_exceptions=True)

    async def _read(self, seat: str, ws: ClientConnection) -> None:
        try:
            async for text in ws:
                self._handle(seat, DECODE(text))
        except ConnectionClosed:
            pass
        except Exception as e:
            self.load.failures.append(f"reading {seat}: {type(e).__name__}: {e}"[:300])
        if not self.load.stopping and self.sockets.get(seat) is ws:
            self.load.failures.append(f"{self.table_id}: the server closed {seat}'s connection")

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _send(self, seat: str, message: dict[str, Any]) -> None:
        ws = self.sockets.get(seat)
        if ws is not None:
            self._spawn(self._send_now(ws, json.dumps(message)))

    @staticmethod
    async def _send_now(ws: ClientConnection, text: str, pending: list[Pending] | None = None,
                        play: Pending | None = None) -> None:
        """Send ``text``; a play is timed from here (registered as pending just before)."""
        if pending is not None and play is not None:
            play.sent = time.perf_counter()
            pending.append(play)
        with contextlib.suppress(ConnectionClosed):
            await ws.send(text)

    def _handle(self, seat: str, message: _Message) -> None:
        if message.type == "error":
            self.load.error(f"{seat}: {message.message}")
            return
        state = message.state
        if message.type != "state" or state is None:
            return
        self.last[seat] = state
        if self.watch is not None and state.v > self.watch[0]:
            self.watch[2].add(seat)
            if len(self.watch[2]) == 4:
                self.load.failovers.append(time.perf_counter() - self.watch[1])
                self.watch = None
        if self.pending:
            self._arrived(seat, state)
        self._act(seat, state)

    def _arrived(self, seat: str, state: _State) -> None:
        now = time.perf_counter()
        for p in list(self.pending):
            if state.v <= p.v_before or seat in p.arrived:
                continue
            p.arrived.add(seat)
            where = cards_done(state)
            if where[0] == p.where[0] and where[2] == "play" and where[1] <= p.where[1]:
                self.load.mismatched += 1  # a later version that does not hold the play
            if len(p.arrived) == 4:
                self.pending.remove(p)
                others = len({self.bases[s].netloc for s in SEATS}) - 1
                self.load.samples.append((p.sent, now - p.sent, others))

    def _act(self, seat: str, state: _State) -> None:
        phase = state.phase
        if phase == "waiting":
            seats = state.table.seats if state.table is not None else {}
            if seat != "S" and seat not in self._sat and (seats.get(seat) or _Seated()).name is None:
                self._sat.add(seat)
                self._send(seat, {"type": "sit", "seat": seat})
            elif seat == "S" and not self._start_sent and all(
                    (seats.get(s) or _Seated()).name is not None for s in SEATS):
                self._start_sent = True
                self._send(seat, {"type": "start"})
        elif phase == "expose":
            if seat in state.undeclared and self._acted.get(seat) != ("expose", state.deal_index):
                self._acted[seat] = ("expose", state.deal_index)
                self._send(seat, {"type": "expose", "cards": []})
        elif phase == "play":
            self.started.set()
            if state.turn == seat and state.legal and self._acted.get(seat) != ("play", state.v):
                self._acted[seat] = ("play", state.v)
                if self.delay > 0:
                    asyncio.get_running_loop().call_later(self.delay, self._play_later, seat, state.v)
                else:
                    self._play(seat, state)
        elif phase == "deal-over":
            if seat == "S" and self._acted.get(seat) != ("next", state.deal_index):
                self._acted[seat] = ("next", state.deal_index)
                self._send(seat, {"type": "next"})
        elif phase == "match-over":
            self._over.set()

    def _play_later(self, seat: str, v: int) -> None:
        state = self.last.get(seat)
        if state is not None and state.v == v and not self.load.stopping:
            self._play(seat, state)

    def _play(self, seat: str, state: _State) -> None:
        ws = self.sockets.get(seat)
        if ws is None:
            return
        cards = self.rng.choice(state.legal)
        play = Pending(0.0, seat, state.v, cards_done(state))
        self._spawn(self._send_now(ws, json.dumps({"type": "play", "cards": cards}), self.pending, play))

    def drop(self, seat: str) -> ClientConnection | None:
        """Forget ``seat``'s connection (its process is about to die): its end is no failure."""
        return self.sockets.pop(seat, None)

    async def move(self, seat: str, base: Base) -> None:
        """``seat``'s person connects to ``base`` instead, with ``?since=`` the last version seen."""
        self.bases[seat] = base
        last = self.last.get(seat)
        if self.table_id is None or last is None:
            return
        ws = await open_socket(base.ws(f"/ws/{self.table_id}?since={last.v}"), self.people[seat])
        self.sockets[seat] = ws
        self._spawn(self._read(seat, ws))

    def act_again(self) -> None:
        """After a failover: a play sent to a process that died may be lost; every person acts
        again on the last state they saw (a stale one is ignored by :meth:`_play_later`)."""
        self._acted.clear()
        for seat, state in list(self.last.items()):
            if seat in self.sockets:
                self._act(seat, state)

    async def reconnect(self, seat: str, *, with_since: bool) -> None:
        """A second connection of ``seat``'s person: seconds from opening it to its first state."""
        table_id = self.table_id
        last = self.last.get(seat)
        if table_id is None or last is None:
            return
        path = f"/ws/{table_id}" + (f"?since={max(0, last.v - 3)}" if with_since else "")
        opened = time.perf_counter()
        try:
            ws = await open_socket(self.bases[seat].ws(path), self.people[seat])
            try:
                while True:
                    message = DECODE(await asyncio.wait_for(ws.recv(), SETUP_TIMEOUT))
                    if message.type == "state":
                        self.load.reconnects.append((opened, time.perf_counter() - opened, with_since))
                        break
                    if message.type == "error":
                        self.load.reconnect_failures += 1
                        break
            finally:
                await ws.close()
        except (ConnectionClosed, InvalidHandshake, OSError, TimeoutError):
            self.load.reconnect_failures += 1


# ---------------------------------------------------------------------- computer players beside

class ExpertTable:
    """A match of one scripted person (S, playing at once) against three ``expert`` players at
    speed ``instant``, a new one when it is over."""

    def __init__(self, load: Load, seed: int) -> None:
        self.load = load
        self.seed = seed
        self.plays = 0  # states in which a card was played, seen by the person
        self.task: asyncio.Task[None] | None = None
        self.ws: ClientConnection | None = None

    async def run(self) -> None:
        person = await new_person(self.load.base)
        seed = self.seed
        while not self.load.stopping:
            body: dict[str, Any] = {"levels": {"N": "expert", "E": "expert", "W": "expert"}, "speed": "instant",
                                    "seed": seed}
            reply = await http(self.load.base, "POST", "/api/matches", body, person.cookie)
            if reply.status != 201:
                raise RuntimeError(f"POST /api/matches answered {reply.status}: {reply.body}")
            seed += 1
            self.ws = ws = await open_socket(self.load.base.ws(f"/ws/{reply.body['match_id']}"), person)
            acted: tuple[str, int] | None = None
            where: tuple[int, int, str] | None = None
            async for text in ws:
                state = DECODE(text).state
                if state is None:
                    continue
                now = cards_done(state)
                if where is not None and now != where and now[2] == "play":
                    self.plays += 1
                where = now
                if state.phase == "match-over":
                    break
                if state.phase == "expose" and "S" in state.undeclared and acted != ("expose", state.deal_index):
                    acted = ("expose", state.deal_index)
                    await ws.send(json.dumps({"type": "expose", "cards": []}))
                elif state.phase == "play" and state.turn == "S" and state.legal and acted != ("play", state.v):
                    acted = ("play", state.v)
                    await ws.send(json.dumps({"type": "play", "cards": state.legal[0]}))
                elif state.phase == "deal-over" and acted != ("next", state.deal_index):
                    acted = ("next", state.deal_index)
                    await ws.send(json.dumps({"type": "next"}))
            await ws.close()

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()


# ---------------------------------------------------------------------- the server

class Server:
    """``gongzhu serve`` in a new process on a free loopback port (``helpers.servers.ServeProcess``)
    and a SQLite file in ``folder`` (or the database ``db``, and with ``redis`` one of several
    processes; its log ``serveNAME.log``).  It has printed its address; :func:`until_answering`
    waits until it answers."""

    def __init__(self, folder: str, db: str | None = None, redis: str | None = None, name: str = "") -> None:
        shared = ["--redis", redis] if redis else []
        try:
            # Every person of the load comes from this one address: no bound on its WebSockets
            # nor on the guests it makes.
            self.process = ServeProcess(folder, *shared, "--websockets-per-address", "0", "--guests-per-address", "0",
                                        db=db, name=f"serve{name}", answering=False)
        except ServeFailed as e:
            raise SystemExit(str(e)) from None
        self.url = self.process.url
        self.base = Base(self.url)
        self.pid = self.process.pid
        self.log_path = str(self.process.log_path)
        self.node: str | None = None  # GET /api/node, with several processes

    def log_lines(self) -> list[str]:
        return self.process.log_lines()

    def kill(self) -> None:
        self.process.kill()

    def stop(self) -> None:
        self.process.stop()


class Fleet:
    """Several ``gongzhu serve`` processes on one new PostgreSQL database (made on the server of
    ``pg``, a SQLAlchemy URL of a user who may create databases, and dropped by :meth:`stop`) and
    the Redis at ``redis``."""

    def __init__(self, folder: str, processes: int, pg: str, redis: str) -> None:
        import psycopg
        from sqlalchemy.engine import make_url

        url = make_url(pg)
        self.folder, self.redis = folder, redis
        self.name = f"gongzhu_bench_{os.getpid()}_{random.getrandbits(24):06x}"
        self._admin: dict[str, Any] = dict(host=url.host or "127.0.0.1", port=url.port or 5432,
                                           user=url.username or "postgres", dbname=url.database or "postgres",
                                           autocommit=True)
        if url.password:
            self._admin["password"] = url.password
        with psycopg.connect(**self._admin, connect_timeout=5) as c:
            c.execute(f"CREATE DATABASE {self.name}")
        self.db = url.set(database=self.name).render_as_string(hide_password=False)
        self.started = 0
        self.servers: list[Server] = []
        self.gone: list[Server] = []  # killed, their logs kept
        try:
            # The first one alone: it makes the tables of the new database.
            self.servers.append(self._new())
            self.servers += [self._new() for _ in range(processes - 1)]
        except BaseException:
            self.stop()
            raise

    def _new(self) -> Server:
        self.started += 1
        return Server(self.folder, self.db, self.redis, name=str(self.started))

    async def ready(self) -> None:
        for server in self.servers:
            if server.node is None:
                await until_answering(server.base)
                server.node = (await http(server.base, "GET", "/api/node")).body["node"]

    async def owner(self, table_id: str) -> Server | None:
        """The process that owns the table now (Redis ``gz:owner:<table>``)."""
        import redis.asyncio as aioredis

        client = aioredis.from_url(self.redis)
        try:
            value = await client.get(f"gz:owner:{table_id}")
        finally:
            await client.aclose()
        node = value.decode() if isinstance(value, bytes) else None
        return next((s for s in self.servers if s.node == node), None)

    def replace(self, server: Server) -> Server:
        """Start a process in place of ``server`` (killed)."""
        new = self._new()
        self.servers[self.servers.index(server)] = new
        self.gone.append(server)
        return new

    def log_lines(self) -> list[str]:
        return [f"{os.path.basename(s.log_path)}: {line}" for s in self.gone + self.servers for line in s.log_lines()]

    def stop(self) -> None:
        import psycopg

        for server in self.servers:
            with contextlib.suppress(Exception):
                server.stop()
        with psycopg.connect(**self._admin) as c:
            c.execute(f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)")


async def until_answering(base: Base, limit: float = 30.0) -> None:
    deadline = time.monotonic() + limit
    while True:
        try:
            reply = await http(base, "GET", "/api/config")
            if reply.status == 200:
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit(f"the server at {base.url} did not answer within {limit:.0f} s")
        await asyncio.sleep(0.05)


# ---------------------------------------------------------------------- the scenarios

def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _brief(r: dict[str, Any]) -> str:
    lat = r["latency_ms"]
    return (f"{r['tables']} tables: {r['plays_per_s']} plays/s, p50 {lat['p50']} ms, p99 {lat['p99']} ms, "
            f"max {lat['max']} ms, server CPU {r['server_cpu_pct']}%, generator CPU {r['generator_cpu_pct']}%")


async def concurrent(load: Load, args: argparse.Namespace) -> dict[str, Any]:
    steps: list[dict[str, Any]] = []
    for tables in args.tables:
        _say(f"concurrent: growing to {tables} tables")
        await load.grow(tables, args.delay)
        result = await load.window(args.warmup, args.window, args.reconnect_rate)
        steps.append(result)
        _say("  " + _brief(result) + f"; reconnect p99 {result['reconnect_ms']['p99']} ms")
        p99 = result["latency_ms"]["p99"]
        if p99 is None or p99 > args.stop_above_ms or load.failures:
            break
    passing = [s["tables"] for s in steps if s["latency_ms"]["p99"] is not None
               and s["latency_ms"]["p99"] < args.target_ms and not s["unfinished"]]
    return {"steps": steps, "largest_under_target": max(passing) if passing else None}


async def saturation(load: Load, args: argparse.Namespace) -> dict[str, Any]:
    steps: list[dict[str, Any]] = []
    for tables in args.saturation_tables:
        _say(f"saturation: growing to {tables} tables")
        await load.grow(tables, 0.0)
        result = await load.window(args.warmup, args.window)
        steps.append(result)
        _say("  " + _brief(result))
        if load.failures:
            break
    return {"steps": steps}


async def interference(load: Load, args: argparse.Namespace) -> dict[str, Any]:
    _say(f"interference: {args.beside} tables of people")
    await load.grow(args.beside, args.delay)
    without = await load.window(args.warmup, args.window)
    _say("  without: " + _brief(without))
    experts = [ExpertTable(load, args.seed * 1000 + i) for i in range(args.experts)]
    for table in experts:
        table.task = asyncio.create_task(table.run())
    # The window opens once every expert table is playing cards: making a match and the
    # exposures take seconds on a loaded machine, and a window spent there measures nothing.
    deadline = time.perf_counter() + EXPERTS_BEGIN_WITHIN
    while (any(t.plays == 0 and t.task is not None and not t.task.done() for t in experts)
           and time.perf_counter() < deadline):
        await asyncio.sleep(0.05)
    plays0 = sum(t.plays for t in experts)
    started = time.perf_counter()
    with_experts = await load.window(min(args.warmup, 5.0), args.window)
    expert_rate = (sum(t.plays for t in experts) - plays0) / (time.perf_counter() - started)
    failed = [f"{type(t.task.exception()).__name__}: {t.task.exception()}" for t in experts
              if t.task is not None and t.task.done() and not t.task.cancelled() and t.task.exception()]
    for table in experts:
        await table.stop()
    _say("  with:    " + _brief(with_experts) + f"; expert table {expert_rate:.1f} plays/s")
    again = await load.window(min(args.warmup, 5.0), args.window)
    _say("  again:   " + _brief(again))
    extra = None
    if with_experts["latency_ms"]["p99"] is not None and without["latency_ms"]["p99"] is not None:
        extra = round(with_experts["latency_ms"]["p99"] - without["latency_ms"]["p99"], 2)
    return {"without": without, "with_experts": with_experts, "without_again": again,
            "expert_tables": args.experts, "expert_plays_per_s": round(expert_rate, 2),
            "extra_p99_ms": extra, "expert_failures": failed}


async def failover(load: Load, args: argparse.Namespace) -> dict[str, Any]:
    """Kill the owner of a table mid-deal, again and again (see the module docstring)."""
    fleet = load.fleet
    assert fleet is not None
    _say(f"failover: {args.failover_tables} tables over {len(fleet.servers)} processes, {args.kills} kills")
    await load.grow(args.failover_tables, args.delay)
    kills = 0
    for _ in range(args.kills * 20):
        if kills == args.kills or load.failures:
            break
        await asyncio.sleep(0.3)
        playing = [d for d in load.drivers if d.table_id is not None and d.watch is None and len(d.last) == 4
                   and all(st.phase == "play" for st in d.last.values())]
        if not playing:
            continue
        driver = load.rng.choice(playing)
        assert driver.table_id is not None
        dead = await fleet.owner(driver.table_id)
        if dead is None:
            continue
        live = next(s for s in fleet.servers if s is not dead)
        moving = [(d, seat) for d in load.drivers for seat in SEATS if d.bases[seat] is dead.base]
        for d, seat in moving:
            d.drop(seat)
        driver.watch = (max(st.v for st in driver.last.values()), time.perf_counter(), set())
        dead.kill()
        kills += 1
        # The people of the dead process go to a live one; a replacement starts meanwhile.
        replacing = asyncio.create_task(asyncio.to_thread(fleet.replace, dead))
        moved = await asyncio.gather(*(d.move(seat, live.base) for d, seat in moving), return_exceptions=True)
        for m in moved:
            if isinstance(m, BaseException):
                load.failures.append(f"moving to another process: {type(m).__name__}: {m}"[:300])
        for d in load.drivers:
            d.act_again()
        await replacing
        await fleet.ready()
        deadline = time.perf_counter() + SETUP_TIMEOUT
        while driver.watch is not None and time.perf_counter() < deadline:
            await asyncio.sleep(0.02)
        if driver.watch is not None:
            driver.watch = None
            load.failovers_lost += 1
        else:
            _say(f"  kill {kills}: {1000 * load.failovers[-1]:.0f} ms")
    ms = [1000 * x for x in load.failovers]
    return {"processes": len(fleet.servers), "tables": args.failover_tables, "kills": kills,
            "recovered_ms": summary(ms), "not_recovered": load.failovers_lost, "errors": load.errors,
            "load_average": round(os.getloadavg()[0], 2)}


RUNS: dict[str, Callable[[Load, argparse.Namespace], Awaitable[dict[str, Any]]]] = {
    "concurrent": concurrent, "saturation": saturation, "interference": interference, "failover": failover,
}


async def run_scenario(name: str, url: str, pid: int | None, args: argparse.Namespace,
                       fleet: Fleet | None = None) -> dict[str, Any]:
    base = Base(url)
    await until_answering(base)
    if fleet is not None:
        await fleet.ready()
    load = Load(base, pid, random.Random(f"{args.seed}-{name}"), fleet)
    probe = asyncio.create_task(load.probe_lag())
    try:
        result = await RUNS[name](load, args)
    finally:
        await load.close()
        probe.cancel()
    result["failures"] = load.failures
    result["first_errors"] = load.first_errors
    return result


def run_loop(coro: Awaitable[dict[str, Any]]) -> dict[str, Any]:
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coro)  # type: ignore[arg-type]
    return uvloop.run(coro)  # type: ignore[arg-type]


def raise_open_files() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = 1 << 20
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


# ---------------------------------------------------------------------- the report

def _cells(r: dict[str, Any]) -> str:
    lat = r["latency_ms"]
    rec = r["reconnect_ms"]

    def ms(x: float | None) -> str:
        return "—" if x is None else f"{x:.1f}"

    cpu = "—" if r["server_cpu_pct"] is None else f"{r['server_cpu_pct']}%"
    wait = "—" if r["server_loop_runnable_waiting_pct"] is None else f"{r['server_loop_runnable_waiting_pct']}%"
    return (f"{r['tables']:>6} {r['connections']:>6} {r['plays_per_s']:>8} {ms(lat['p50']):>8} {ms(lat['p99']):>8} "
            f"{ms(lat['max']):>8} {cpu:>7} {wait:>5} {ms(r['server_cpu_ms_per_play']):>6} {r['generator_cpu_pct']:>5}% "
            f"{ms(r['generator_lag_ms']['p99']):>7} "
            f"{ms(rec['p50']):>8} {ms(rec['p99']):>8} {r['unfinished']:>5} {r['errors']:>5} "
            f"{r['load_average'][0]:>5.2f}")


HEADER = (f"{'tables':>6} {'conns':>6} {'plays/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'server':>7} "
          f"{'wait':>5} {'ms/pl':>6} {'gen':>6} {'lag99':>7} {'rec p50':>8} {'rec p99':>8} {'unfin':>5} {'errs':>5} "
          f"{'load':>5}")


def print_report(report: dict[str, Any]) -> None:
    print(f"gongzhu serve, online tables ({report['machine']}); a person plays {report['delay']} s after "
          f"their turn arrives; warm-up {report['warmup']} s, window {report['window']} s")
    print("(latency: a play sent → every seat has its state; server, gen: CPU use of the server and of this "
          "load generator; wait: the server's event loop runnable but waiting for a CPU; ms/pl: the server's CPU "
          "time per play; lag99: the generator's event-loop lag, p99; "
          "rec: reconnect → first state)")
    for name, result in report["scenarios"].items():
        print(f"\n{name}:")
        if name in ("concurrent", "saturation"):
            print("  " + HEADER)
            for step in result["steps"]:
                print("  " + _cells(step))
            if name == "concurrent":
                print(f"  largest step with p99 < {report['target_ms']} ms: {result['largest_under_target']}")
            procs = result["steps"][0]["processes"] if result["steps"] else 1
            if result["steps"] and result["steps"][0]["crossings"]:
                print(f"  {procs} processes; server CPU per crossing (a play's change reaching one more process "
                      "than its owner): " + ", ".join(f"{st['tables']} tables {st['server_cpu_ms_per_crossing']} ms"
                                                       for st in result["steps"]))
        elif name == "failover":
            rec = result["recovered_ms"]
            print(f"  {result['tables']} tables over {result['processes']} processes, {result['kills']} owners "
                  f"killed: kill → a later version at every seat p50 {rec['p50']} ms, max {rec['max']} ms; "
                  f"not recovered {result['not_recovered']}, errors {result['errors']}")
        else:
            print("  " + HEADER)
            for key in ("without", "with_experts", "without_again"):
                print("  " + _cells(result[key]) + f"  {key}")
            print(f"  {result['expert_tables']} expert table(s), {result['expert_plays_per_s']} plays/s; "
                  f"extra p99 with them: {result['extra_p99_ms']} ms")
            if result["expert_failures"]:
                print(f"  expert tables failed: {result['expert_failures']}")
        for line in result.get("failures", [])[:10]:
            print(f"  failure: {line}")
        for line in result.get("first_errors", []):
            print(f"  error: {line}")
        log = result.get("server_log") or []
        if log:
            print(f"  server log: {len(log)} lines; the first:")
            for line in log[:10]:
                print(f"    {line}")


def _number_list(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"a comma-separated list of numbers, not {text!r}") from None
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError("at least one number, each 1 or more")
    return values


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--scenarios", default=",".join(SCENARIOS),
                        help=f"which to run, comma-separated, of {', '.join(SCENARIOS)}")
    parser.add_argument("--tables", type=_number_list, default="50,100,200,300,400,500,600",
                        help="concurrent: the steps, tables at once (four connections each)")
    parser.add_argument("--saturation-tables", type=_number_list, default="20,100",
                        help="saturation: the steps, tables at once")
    parser.add_argument("--beside", type=int, default=100, help="interference: tables of people")
    parser.add_argument("--experts", type=int, default=1, help="interference: tables of expert players")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds before each measuring window")
    parser.add_argument("--window", type=float, default=30.0, help="seconds of each measuring window")
    parser.add_argument("--delay", type=float, default=1.0,
                        help="seconds a person waits after their turn arrives before playing (concurrent, "
                             "interference)")
    parser.add_argument("--reconnect-rate", type=float, default=5.0,
                        help="concurrent: reconnects a second during each window (0: none)")
    parser.add_argument("--target-ms", type=float, default=100.0, help="the p99 latency target")
    parser.add_argument("--stop-above-ms", type=float, default=1000.0,
                        help="concurrent: stop adding tables once a step's p99 is above this")
    parser.add_argument("--seed", type=int, default=1, help="seeds the deals and the people's choices")
    parser.add_argument("--processes", type=int,
                        help="concurrent, saturation, interference: this many (1 or more) gongzhu serve processes "
                             "on one new PostgreSQL database (made on --pg, dropped after) and the Redis at --redis, "
                             "each table's people spread over them round-robin")
    parser.add_argument("--failover-tables", type=int, default=6, help="failover: tables of people (3 processes)")
    parser.add_argument("--kills", type=int, default=20, help="failover: how many times a table's owner is killed")
    parser.add_argument("--pg", default=os.environ.get("GONGZHU_TEST_PG",
                                                       "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"),
                        help="several processes: a PostgreSQL server (SQLAlchemy URL) whose user may create databases")
    parser.add_argument("--redis", default=os.environ.get("GONGZHU_TEST_REDIS", "redis://127.0.0.1:6379/0"),
                        help="several processes: the Redis they share")
    parser.add_argument("--url", help="measure the server at this http:// address instead of starting one")
    parser.add_argument("--server-pid", type=int, help="with --url: the server's process id, for its CPU use")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    names = [n.strip() for n in args.scenarios.split(",") if n.strip()]
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown or not names:
        parser.error(f"--scenarios: {', '.join(unknown) or 'none given'}: choose from {', '.join(SCENARIOS)}")
    if args.warmup < 0 or args.window <= 0 or args.delay < 0 or args.beside < 1 or args.experts < 0:
        parser.error("--warmup and --delay at least 0, --window above 0, --beside at least 1, --experts at least 0")
    if args.url and (args.processes is not None or "failover" in names):
        parser.error("--processes and failover start servers of their own: not with --url")
    if (args.processes is not None and args.processes < 1) or args.kills < 1 or args.failover_tables < 1:
        parser.error("--processes, --kills and --failover-tables: at least 1")
    if args.server_pid is not None and not args.url:
        parser.error("--server-pid goes with --url")
    open_files = raise_open_files()
    # Stopped with SIGTERM (``timeout``), still stop the servers and drop the database.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    report: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
                   f"load average {os.getloadavg()[0]:.2f} at the start",
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "command": " ".join(sys.argv),
        "open_files": open_files, "delay": args.delay, "warmup": args.warmup, "window": args.window,
        "target_ms": args.target_ms, "scenarios": {},
    }
    for name in names:
        processes = 3 if name == "failover" else args.processes
        if args.url:
            result = run_loop(run_scenario(name, args.url, args.server_pid, args))
        elif processes is not None:
            with tempfile.TemporaryDirectory() as tmp:
                fleet = Fleet(tmp, processes, args.pg, args.redis)
                try:
                    first = fleet.servers[0]
                    result = run_loop(run_scenario(name, first.url, first.pid, args, fleet))
                finally:
                    fleet.stop()
                result["server_log"] = fleet.log_lines()
        else:
            with tempfile.TemporaryDirectory() as tmp:
                server = Server(tmp)
                try:
                    result = run_loop(run_scenario(name, server.url, server.pid, args))
                finally:
                    server.stop()
                result["server_log"] = server.log_lines()
        report["scenarios"][name] = result
    report["load_average_end"] = round(os.getloadavg()[0], 2)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print_report(report)


if __name__ == "__main__":
    main()
