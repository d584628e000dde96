"""Fairness under load: how much one abusive connection slows down another table.

    python benchmarks/fairness.py [--plays N] [--interval S] [--hint-clients N] [--json]

Starts ``gongzhu serve`` (a new process on a free loopback port, a new SQLite file) and plays one
match at ``instant`` speed against three intermediate players, South playing its first legal
play.  The *move latency* is the time from sending South's play to receiving that play's own
``played`` echo; it is measured over ``--plays`` plays in each scenario, one after the other
against the same server, each replaying the same seeded match.  The measured client sends at
most one message every ``--interval`` seconds (0.05: 20 a second), below the server's rate of 50
a second per connection: a client that plays back to back at ``instant`` speed goes past it and
is slowed down by design, and the latency measured would be that of its own limit.  The
scenarios:

- *baseline*: nothing else connected (run first and again last);
- *flood, reading*: another connection, to a match of its own, sends ``settings`` messages
  (``fast`` / ``slow`` alternately) as fast as its socket takes them, and reads every reply in a
  second thread;
- *flood, never reading*: the same, but it never reads (its client stops taking frames from the
  socket after a frame or two, so the server's sends to it back up);
- *hints, same position*: ``--hint-clients`` connections to as many other matches, each, once it
  is its South's turn, asking for a hint again as soon as the last one is answered;
- *hints, new position*: the same, but after each hint the connection plays South's first legal
  play and asks again at South's next turn, so that every hint is a new search.

The abusive connections run in a child process of this script (``--abuser``), so that their
threads do not share the measuring client's interpreter lock; on a small machine they still
share its cores.  Each scenario also reports the server's CPU use while it ran, its resident
memory before and after (``VmRSS`` of ``/proc/PID/status``), what the abusive connections got
through, and how long the server took to go quiet once they had left.  Every wait is bounded: a
table that stops answering is reported as stalled, and the script ends by itself.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import select
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from helpers.servers import ServeFailed, ServeProcess

#: How long one server message may take before the table counts as stalled (seconds).
RECV_TIMEOUT = 15.0
#: The seed of the measured match (every scenario replays it) and of the abusive connections'.
MEASURED_SEED = 7
FLOOD_SEED = 1001
HINT_SEED = 2001
SCENARIOS: tuple[tuple[str, str | None], ...] = (
    ("baseline", None),
    ("flood, reading", "flood-reading"),
    ("flood, never reading", "flood-silent"),
    ("hints, same position", "hints-same"),
    ("hints, new position", "hints-new"),
    ("baseline, again", None),
)


class Stalled(RuntimeError):
    """The measured table did not answer in time, or answered with an error."""


# ---------------------------------------------------------------------- talking to the server


def new_match(base: str, seed: int) -> str:
    body = json.dumps({"speed": "instant", "seed": seed,
                       "levels": {"N": "intermediate", "E": "intermediate", "W": "intermediate"}}).encode()
    request = urllib.request.Request(base + "api/matches", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        match_id: str = json.loads(response.read())["match_id"]
        return match_id


def ws_url(base: str, match_id: str) -> str:
    return base.replace("http", "ws", 1) + f"ws/{match_id}"


class Client:
    """One WebSocket connection to a table, sending at most one message per ``interval`` seconds
    (the measured table stays below the server's per-connection rate, as a person does; the
    abusive connections send with no interval)."""

    def __init__(self, ws: ClientConnection, interval: float = 0.0) -> None:
        self.ws = ws
        self.interval = interval
        self.last = -interval

    def send(self, message: dict[str, Any]) -> float:
        """Send ``message`` (waiting out the interval first); the ``perf_counter`` when sent."""
        wait = self.last + self.interval - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        self.last = time.perf_counter()
        self.ws.send(json.dumps(message))
        return self.last

    def recv(self, timeout: float = RECV_TIMEOUT) -> dict[str, Any]:
        try:
            text = self.ws.recv(timeout=timeout)
        except TimeoutError:
            raise Stalled(f"no message from the server for {timeout:.0f} s") from None
        message: dict[str, Any] = json.loads(text)
        return message

    def next_state(self) -> dict[str, Any]:
        """Read until the next ``state``; an ``error`` on the way stops the measurement."""
        while True:
            message = self.recv()
            if message["type"] == "error":
                raise Stalled(f"the server answered with an error: {message['message']}")
            if message["type"] == "state":
                state: dict[str, Any] = message["state"]
                return state

    def to_south_turn(self, state: dict[str, Any], stop: Callable[[], bool] = lambda: False,
                      ) -> dict[str, Any] | None:
        """Read until it is South's turn to play, declaring no exposure and dealing the next deal
        on the way; the state then, or None at the end of the match or when ``stop()`` says so."""
        while not stop():
            if state["phase"] == "match-over":
                return None
            if state["phase"] == "play" and state["turn"] == "S" and state["legal"]:
                return state
            if state["phase"] == "deal-over":
                self.send({"type": "next"})
            elif state["phase"] == "expose" and "S" in state["undeclared"]:
                self.send({"type": "expose", "cards": []})
            state = self.next_state()
        return None

    def play_and_time(self, state: dict[str, Any]) -> float:
        """Play South's first legal play; seconds until its own ``played`` echo arrives."""
        sent = self.send({"type": "play", "cards": state["legal"][0]})
        while True:
            message = self.recv()
            if message["type"] == "played" and message["seat"] == "S":
                return time.perf_counter() - sent
            if message["type"] == "error":
                raise Stalled(f"South's play was refused: {message['message']}")


def measure(base: str, plays: int, seed: int, interval: float) -> list[float]:
    """Move latencies (seconds) of ``plays`` South plays, from the match of ``seed`` on (a new
    match with the next seed when one is over), one message per ``interval`` seconds at most."""
    latencies: list[float] = []
    while len(latencies) < plays:
        with connect(ws_url(base, new_match(base, seed)), open_timeout=10, close_timeout=5) as ws:
            client = Client(ws, interval)
            state: dict[str, Any] | None = client.next_state()
            while len(latencies) < plays:
                assert state is not None
                state = client.to_south_turn(state)
                if state is None:
                    break  # the match is over
                latencies.append(client.play_and_time(state))
                state = client.next_state()
        seed += 1
    return latencies


# ---------------------------------------------------------------------- the server


class Server(ServeProcess):
    """``gongzhu serve`` in a new process on a free loopback port and a new SQLite file in
    ``folder`` (its log ``serve.log``), answering."""

    def __init__(self, folder: str) -> None:
        try:
            super().__init__(folder, timeout=30)
        except ServeFailed as e:
            raise SystemExit(str(e)) from None

    def rss_kib(self) -> int:
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise RuntimeError("no VmRSS in /proc/PID/status")

    def cpu_seconds(self) -> float:
        """User and system CPU time of the server so far (all its threads)."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def settle(self, limit: float = 60.0, window: float = 0.5, idle: float = 0.03) -> float:
        """Wait until the server uses under ``idle`` of a core over ``window`` seconds (at most
        ``limit`` seconds); the seconds waited."""
        start = time.perf_counter()
        while time.perf_counter() - start < limit:
            before = self.cpu_seconds()
            time.sleep(window)
            if self.cpu_seconds() - before < idle * window:
                break
        return time.perf_counter() - start


# ---------------------------------------------------------------------- the abusive connections


@dataclass
class Tally:
    """What the abusive connections of one scenario did (shared by their threads)."""

    sent: int = 0
    received: int = 0
    errors: int = 0
    first_error: str | None = None
    reconnects: int = 0
    hints: int = 0
    hint_seconds: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def error(self, text: str) -> None:
        with self.lock:
            self.errors += 1
            if self.first_error is None:
                self.first_error = text[:200]


class Abuse:
    """The connections of one scenario, each in threads of its own, until :meth:`stop`."""

    def __init__(self, kind: str, base: str, hint_clients: int) -> None:
        self.kind = kind
        self.base = base
        self.tally = Tally()
        self.stopping = threading.Event()
        self.sockets: list[ClientConnection] = []
        self.threads: list[threading.Thread] = []
        self.ready = threading.Semaphore(0)
        self.started = time.perf_counter()
        if kind.startswith("flood"):
            self.clients = 1
            self._spawn(self._flood)
        else:
            self.clients = hint_clients
            for i in range(hint_clients):
                self._spawn(self._hints, HINT_SEED + i)

    def _spawn(self, target: Callable[..., None], *args: Any) -> None:
        def run() -> None:
            try:
                target(*args)
            except Exception as e:
                if not self.stopping.is_set():
                    with self.tally.lock:
                        self.tally.failures.append(f"{type(e).__name__}: {e}"[:200])

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        self.threads.append(thread)

    def _connect(self, match_id: str, *, reading: bool = True) -> ClientConnection:
        # A client that does not read takes one frame and then leaves the rest in the socket.
        ws = connect(ws_url(self.base, match_id), open_timeout=10, close_timeout=2,
                     max_queue=16 if reading else 1).__enter__()
        with self.tally.lock:
            self.sockets.append(ws)
        return ws

    def wait_ready(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        return all(self.ready.acquire(timeout=max(0.0, deadline - time.monotonic())) for _ in range(self.clients))

    def _flood(self) -> None:
        reading = self.kind == "flood-reading"
        match_id = new_match(self.base, FLOOD_SEED)
        speeds = (json.dumps({"type": "settings", "speed": "fast"}), json.dumps({"type": "settings", "speed": "slow"}))
        # Ready a second after the first connection opens: past the burst, the rate limit is in force.
        announce = threading.Timer(1.0, self.ready.release)
        try:
            while not self.stopping.is_set() and self.tally.reconnects <= 20:
                ws = self._connect(match_id, reading=reading)
                if announce.ident is None:
                    announce.start()
                if reading:
                    reader = threading.Thread(target=self._read_all, args=(ws,), daemon=True)
                    reader.start()
                    self.threads.append(reader)
                try:
                    while not self.stopping.is_set():
                        ws.send(speeds[self.tally.sent % 2])
                        self.tally.sent += 1
                        time.sleep(0)  # let the reading thread have the interpreter too
                except (ConnectionClosed, OSError):
                    if self.stopping.is_set():
                        break
                    self.tally.reconnects += 1  # the server closed it (e.g. a connection that never answers pings)
        finally:
            if announce.ident is None:
                self.ready.release()  # never leave the parent waiting on a connection that failed

    def _read_all(self, ws: ClientConnection) -> None:
        with_errors = '"type":"error"'
        try:
            for text in ws:
                self.tally.received += 1
                if isinstance(text, str) and with_errors in text[:20]:
                    self.tally.error(text)
        except (ConnectionClosed, OSError):
            pass

    def _hints(self, seed: int) -> None:
        new_position = self.kind == "hints-new"
        announced = False
        try:
            client = Client(self._connect(new_match(self.base, seed)))
            state: dict[str, Any] | None = client.next_state()
            while not self.stopping.is_set():
                assert state is not None
                state = client.to_south_turn(state, self.stopping.is_set)
                if state is None:
                    return
                asked = client.send({"type": "hint"})
                with self.tally.lock:
                    self.tally.sent += 1
                while (message := client.recv(60.0))["type"] not in ("hint", "error"):
                    pass
                if message["type"] == "error":
                    self.tally.error(message["message"])
                    continue
                with self.tally.lock:
                    self.tally.hints += 1
                    self.tally.hint_seconds.append(time.perf_counter() - asked)
                if not announced:
                    announced = True
                    self.ready.release()  # its first hint has come: the hint pool is at work
                if new_position:
                    client.send({"type": "play", "cards": state["legal"][0]})
                    state = client.next_state()
        finally:
            if not announced:
                self.ready.release()

    def stop(self) -> dict[str, Any]:
        """Close every connection at once (a reset, as when a client goes away) and say what
        the connections did."""
        self.stopping.set()
        seconds = time.perf_counter() - self.started
        with self.tally.lock:
            sockets = list(self.sockets)
        for ws in sockets:
            try:
                ws.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                ws.socket.shutdown(socket.SHUT_RDWR)  # wakes a thread blocked in send
            except OSError:
                pass
            ws.close_socket()
        for thread in list(self.threads):
            thread.join(timeout=10)
        t = self.tally
        hint_ms = sorted(x * 1000 for x in t.hint_seconds)
        cpu = os.times()
        return {
            "connections": self.clients,
            "seconds": round(seconds, 2),
            "sent": t.sent,
            "sent_per_s": round(t.sent / seconds, 1),
            "received": t.received,
            "received_per_s": round(t.received / seconds, 1),
            "errors": t.errors,
            "first_error": t.first_error,
            "reconnects": t.reconnects,
            "hints": t.hints,
            "hints_per_s": round(t.hints / seconds, 2),
            "hint_reply_ms": summary(hint_ms) if hint_ms else None,
            "failures": t.failures,
            "client_cpu_s": round(cpu.user + cpu.system, 2),
        }


def abuser_main(kind: str, base: str, hint_clients: int, lifetime: float) -> None:
    """The child process: start the connections, say ``ready``, and on ``stop`` (or the end of
    the input, or ``lifetime`` seconds) print what they did as one JSON line."""
    abuse = Abuse(kind, base, hint_clients)
    ok = abuse.wait_ready(60.0)
    print("ready" if ok else "not ready", flush=True)
    readable, _, _ = select.select([sys.stdin], [], [], lifetime)
    if readable:
        sys.stdin.readline()
    print(json.dumps(abuse.stop()), flush=True)


class AbuserProcess:
    """The abusive connections of one scenario, in a child process of this script."""

    def __init__(self, kind: str, base: str, hint_clients: int, lifetime: float) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--abuser", kind, "--base", base,
             "--hint-clients", str(hint_clients), "--lifetime", str(round(lifetime))],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )

    def _line(self, timeout: float) -> str:
        stdout: IO[str] | None = self.proc.stdout
        assert stdout is not None
        readable, _, _ = select.select([stdout], [], [], timeout)
        return stdout.readline().strip() if readable else ""

    def wait_ready(self) -> str:
        return self._line(90.0)

    def stop(self) -> dict[str, Any]:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write("stop\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        line = self._line(30.0)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        if not line:
            return {"failures": ["the abusive connections' process said nothing"]}
        result: dict[str, Any] = json.loads(line)
        return result


# ---------------------------------------------------------------------- the scenarios


def summary(ms: list[float]) -> dict[str, Any]:
    """n, p50, p99 and max of a list of milliseconds."""
    ordered = sorted(ms)
    p99 = statistics.quantiles(ordered, n=100, method="inclusive")[98] if len(ordered) > 1 else ordered[0]
    return {"n": len(ordered), "p50": round(statistics.median(ordered), 2), "p99": round(p99, 2),
            "max": round(ordered[-1], 2)}


def scenario(server: Server, name: str, kind: str | None, plays: int, interval: float, hint_clients: int,
             ) -> dict[str, Any]:
    result: dict[str, Any] = {"scenario": name, "quiet_before_s": round(server.settle(), 2)}
    result["rss_kib_before"] = server.rss_kib()
    abuser = AbuserProcess(kind, server.url, hint_clients, lifetime=120.0 + plays * (interval + 1.0)) if kind else None
    try:
        if abuser is not None:
            said = abuser.wait_ready()
            if said != "ready":
                result["note"] = f"the abusive connections were not all ready ({said or 'no answer'})"
        cpu = server.cpu_seconds()
        start = time.perf_counter()
        try:
            latencies = measure(server.url, plays, MEASURED_SEED, interval)
        except (Stalled, ConnectionClosed, OSError) as e:
            latencies = []
            result["stalled"] = f"{type(e).__name__}: {e}"
        wall = time.perf_counter() - start
        result["server_cpu_pct"] = round(100 * (server.cpu_seconds() - cpu) / wall)
        result["seconds"] = round(wall, 2)
        result["plays_per_s"] = round(len(latencies) / wall, 1)
        result["move_latency_ms"] = summary([x * 1000 for x in latencies]) if latencies else None
    finally:
        if abuser is not None:
            result["abuser"] = abuser.stop()
    result["rss_kib_after"] = server.rss_kib()
    result["quiet_after_s"] = round(server.settle(), 2)
    result["rss_kib_quiet"] = server.rss_kib()
    return result


def print_table(report: dict[str, Any]) -> None:
    print(f"gongzhu serve, fairness under load ({report['machine']}); "
          f"{report['plays']} South plays per scenario, a message every {report['interval_s']} s at most, "
          f"{report['hint_clients']} hint connections")
    print(f"  {'scenario':<22} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'plays/s':>8} {'server CPU':>10} "
          f"{'RSS before → after, MiB':>24}  abusive connections")
    for r in report["scenarios"]:
        lat = r.get("move_latency_ms")
        cells = (f"{lat['p50']:>8.2f} {lat['p99']:>8.2f} {lat['max']:>8.2f}" if lat
                 else f"{'stalled':>8} {'':>8} {'':>8}")
        rss = f"{r['rss_kib_before'] / 1024:.1f} → {r['rss_kib_after'] / 1024:.1f}"
        a = r.get("abuser")
        if a is None:
            what = ""
        elif r["scenario"].startswith("flood"):
            what = (f"{a.get('sent_per_s')} msg/s sent, {a.get('received')} handled "
                    f"({a.get('received_per_s')}/s)" if r["scenario"] == "flood, reading"
                    else f"{a.get('sent_per_s')} msg/s sent, none read")
        else:
            hint = a.get("hint_reply_ms") or {}
            what = (f"{a.get('hints_per_s')} hints/s answered, reply p50 {hint.get('p50')} ms, "
                    f"max {hint.get('max')} ms")
        if a and (a.get("errors") or a.get("reconnects") or a.get("failures")):
            what += f"; errors {a.get('errors')}, reconnects {a.get('reconnects')}, failures {a.get('failures')}"
        print(f"  {r['scenario']:<22} {cells} {r['plays_per_s']:>8} {r['server_cpu_pct']:>9}% {rss:>24}  {what}")
        if r["quiet_after_s"] > 1.0:
            print(f"      the server went quiet {r['quiet_after_s']} s after the abusive connections left")
        if r.get("stalled"):
            print(f"      stalled: {r['stalled']}")
        if r.get("note"):
            print(f"      {r['note']}")
    print(f"  server RSS: {report['rss_kib_start'] / 1024:.1f} MiB at the start, "
          f"{report['rss_kib_end'] / 1024:.1f} MiB at the end")
    log = report["server_log"]
    print(f"  server log: {len(log)} lines" + ("" if not log else ":"))
    for line in log[:10]:
        print(f"    {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plays", type=int, default=150, help="South plays timed in each scenario")
    parser.add_argument("--interval", type=float, default=0.05,
                        help="least seconds between the measured client's messages (the server lets a "
                             "connection send 50 a second on average)")
    parser.add_argument("--hint-clients", type=int, default=6, help="connections asking for hints")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--abuser", help=argparse.SUPPRESS)
    parser.add_argument("--base", help=argparse.SUPPRESS)
    parser.add_argument("--lifetime", type=float, default=300.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.abuser:
        abuser_main(args.abuser, args.base, args.hint_clients, args.lifetime)
        return
    if args.plays < 2:
        parser.error("--plays must be at least 2")
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(tmp)
        try:
            rss_start = server.rss_kib()
            results = [scenario(server, name, kind, args.plays, args.interval, args.hint_clients)
                       for name, kind in SCENARIOS]
            rss_end = server.rss_kib()
            log = server.log_lines()
        finally:
            server.stop()
    report = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
                   f"load average {os.getloadavg()[0]:.2f}",
        "plays": args.plays,
        "interval_s": args.interval,
        "hint_clients": args.hint_clients,
        "rss_kib_start": rss_start,
        "rss_kib_end": rss_end,
        "scenarios": results,
        "server_log": log,
    }
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print_table(report)


if __name__ == "__main__":
    main()
