"""Load and faults on the deployed set: ``deploy/compose.yaml`` driven through its TLS proxy.

    python benchmarks/deployed.py [--scenarios capacity,faults] [--tables 20,40,80,...]
                                  [--fault-tables N] [--warmup S] [--window S] [--json]

Builds gongzhu's image from the working tree's files and brings up the compose set on loopback
ports — PostgreSQL, Redis, the migrations, ``--replicas`` ``gongzhu serve`` processes (2) and
Caddy in front — with ``helpers.containers`` (the test's stand-in images from Debian's packages:
``tests/test_deploy.py``), then drives it from this process with the load generator of
``benchmarks/tables.py`` (its ``Load`` and ``Driver``: four scripted guests a table, a play's
latency from sending it until every seat has the state that holds it), every request and
WebSocket over HTTPS through Caddy (its internal CA trusted), round robin over the processes.
The set is taken down (``down -v``) and the image removed at the end.

- *capacity*: tables added step by step (``--tables``), each person playing ``--delay`` s after
  their turn came, a warm-up and a measuring window at each step: p50/p99 play latency, plays a
  second, the serve processes' CPU (``/proc`` of their host process ids): the most tables whose
  p99 stays under ``--target-ms`` (100 ms).
- *faults*: ``--fault-tables`` tables playing, then, one after the other with ``--quiet`` s
  between: one serve process killed (``docker kill``, SIGKILL; started again once the tables go
  on), Redis restarted (``docker restart``), PostgreSQL restarted.  A person whose connection is
  closed comes back through the proxy with ``?since=`` the last version seen, as the page does
  (their own reconnect loop, every 0.5 s), and a person whose play changed nothing for 3 s plays
  again (a click lost with a process).  *Recovery*, from the start of the fault: until every
  table has made a play acknowledged after it, and until every seat of every table has a version
  later than the table's at the fault (``tables.Driver``'s failover watch).  A play is
  *acknowledged* when the player's own connection has a state whose cards played moved past it;
  at the end every table finishes its deal and each acknowledged play is looked up in the stored
  records (``/api/matches/ID/records.jsonl``, as a seated person): the same seat, the same cards
  at the same place of the deal, or it counts as *lost*.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import msgspec
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

import helpers.containers as containers
import tables
from tables import Base, Driver, Load, Person, _State, cards_done

#: How often a person whose connection was closed tries again, as the page does.
COME_BACK_EVERY = 0.5
#: A person whose action changed nothing for this long acts again.
ACT_AGAIN_AFTER = 3.0


# ---------------------------------------------------------------------- people who come back

class Deployed(Load):
    """``tables.Load`` on the compose set: the serve processes' host process ids for CPU, people
    who come back, the plays acknowledged."""

    def __init__(self, base: Base, pids: list[int], rng: random.Random) -> None:
        super().__init__(base, None, rng)
        self.serve_pids = pids
        #: (table, deal, place in the deal, seat, the cards it may have been, acknowledged at) of
        #: every acknowledged play (several cards sent for one place, gone from the hand: one of them)
        self.acknowledged: list[tuple[str, int, int, str, frozenset[tuple[str, ...]], float]] = []
        self.unresolved = 0  # plays first seen past in a later deal: not counted either way
        self.hosts: dict[str, Person] = {}  # table -> its host, who may read its records
        self.comebacks = 0
        self.finishing = False  # no next deal: every table ends the deal it plays

    def pids(self) -> list[int]:
        return list(self.serve_pids)

    async def grow(self, tables_wanted: int, delay: float, concurrency: int = 16) -> None:
        gate = asyncio.Semaphore(concurrency)
        new = [Returning(self, delay, gate, self.seat_bases(len(self.drivers) + i))
               for i in range(tables_wanted - len(self.drivers))]
        self.drivers += new
        for driver in new:
            driver.task = asyncio.create_task(driver.run())
        waits = [asyncio.wait_for(d.started.wait(), tables.SETUP_TIMEOUT * 4) for d in new]
        results = await asyncio.gather(*waits, return_exceptions=True)
        late = sum(1 for r in results if isinstance(r, BaseException))
        if late:
            self.failures.append(f"{late} of {len(new)} new tables did not start")

    async def nudge(self) -> None:
        """A person whose action changed nothing for a while acts again (a click lost with a
        process that went away)."""
        while not self.stopping:
            await asyncio.sleep(1.0)
            now = time.perf_counter()
            for driver in self.drivers:
                if isinstance(driver, Returning) and now - driver.changed > ACT_AGAIN_AFTER:
                    driver.changed = now
                    driver.act_again()


class _Hand(msgspec.Struct):
    hand: list[str] = []


class _HandMessage(msgspec.Struct):
    """What ``tables._Message`` leaves out and an acknowledgment needs: the seat's hand."""

    type: str
    state: _Hand | None = None


DECODE_HAND = msgspec.json.Decoder(_HandMessage).decode


class Returning(Driver):
    """``tables.Driver`` whose people come back when the server closes their connection, and
    whose plays are counted as acknowledged once the player has a state past them that no longer
    holds their cards in the hand."""

    load: Deployed

    def __init__(self, load: Deployed, delay: float, gate: asyncio.Semaphore, bases: dict[str, Base]) -> None:
        super().__init__(load, delay, gate, bases)
        #: seat -> the plays sent and not yet seen past: (deal, place in the deal, cards); a person
        #: who plays again (a lost click) may have sent several for one place
        self.sent: dict[str, list[tuple[int, int, tuple[str, ...]]]] = {}
        self.changed = time.perf_counter()

    async def _read(self, seat: str, ws: ClientConnection) -> None:
        try:
            async for text in ws:
                message = tables.DECODE(text)
                if message.type == "state" and message.state is not None:
                    held = DECODE_HAND(text).state
                    self._seen(seat, message.state, set(held.hand) if held is not None else set())
                self._handle(seat, message)
        except ConnectionClosed:
            pass
        except Exception as e:
            self.load.failures.append(f"reading {seat}: {type(e).__name__}: {e}"[:300])
        if self.load.stopping or self.sockets.get(seat) is not ws:
            return
        self.sockets.pop(seat, None)
        self.load.comebacks += 1
        while not self.load.stopping:
            await asyncio.sleep(COME_BACK_EVERY)
            try:
                await self.move(seat, self.bases[seat])
                self.act_again()
                return
            except (ConnectionClosed, InvalidHandshake, InvalidStatus, OSError, TimeoutError):
                continue

    def _seen(self, seat: str, state: _State, hand: set[str]) -> None:
        """A state for ``seat``: the plays it has moved past are acknowledged — those of them
        whose cards the hand no longer holds (a later deal's hand tells nothing: unresolved)."""
        before = self.last.get(seat)
        if before is None or before.v != state.v:
            self.changed = time.perf_counter()
        waiting = self.sent.get(seat)
        if not waiting or self.table_id is None:
            return
        past = [w for w in waiting if _past(state, w[0], w[1])]
        if not past:
            return
        self.sent[seat] = [w for w in waiting if w not in past]
        now = time.perf_counter()
        for deal, place in sorted({(d, p) for d, p, _ in past}):
            if state.deal_index != deal:
                self.load.unresolved += 1
                continue
            gone = frozenset(c for d, p, c in past if (d, p) == (deal, place) and not hand & set(c))
            if gone:
                self.load.hosts[self.table_id] = self.people["S"]
                self.load.acknowledged.append((self.table_id, deal, place, seat, gone, now))

    def _act(self, seat: str, state: _State) -> None:
        if state.phase == "deal-over" and self.load.finishing:
            return
        super()._act(seat, state)

    def _play(self, seat: str, state: _State) -> None:
        ws = self.sockets.get(seat)
        if ws is None:
            return
        cards = self.rng.choice(state.legal)
        deal, place, _ = cards_done(state)
        self.sent.setdefault(seat, []).append((deal, place, tuple(cards)))
        play = tables.Pending(0.0, seat, state.v, cards_done(state))
        self._spawn(self._send_now(ws, json.dumps({"type": "play", "cards": cards}), self.pending, play))


def _past(state: _State, deal: int, place: int) -> bool:
    """Whether ``state`` has the cards played moved past ``place`` of deal ``deal``."""
    now_deal, now_place, phase = cards_done(state)
    return now_deal > deal or (now_deal == deal and (now_place > place or phase in ("deal-over", "match-over")))


# ---------------------------------------------------------------------- scenarios

def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


async def capacity(load: Deployed, args: argparse.Namespace) -> dict[str, Any]:
    steps: list[dict[str, Any]] = []
    for wanted in args.tables:
        _say(f"capacity: growing to {wanted} tables")
        await load.grow(wanted, args.delay)
        result = await load.window(args.warmup, args.window)
        steps.append(result)
        _say("  " + tables._brief(result))
        p99 = result["latency_ms"]["p99"]
        if p99 is None or p99 > args.stop_above_ms or load.failures:
            break
    passing = [s["tables"] for s in steps if s["latency_ms"]["p99"] is not None
               and s["latency_ms"]["p99"] < args.target_ms and not s["unfinished"]]
    return {"steps": steps, "largest_under_target": max(passing) if passing else None}


async def _recovery(load: Deployed, fault_at: float, limit: float = 120.0) -> float | None:
    """Seconds from ``fault_at`` until every table has a play acknowledged after it (to the
    player; None: not within ``limit``)."""
    wanted = {d.table_id for d in load.drivers if d.table_id is not None}
    while time.perf_counter() - fault_at < limit:
        seen = {t for t, *_, at in load.acknowledged if at > fault_at}
        if wanted <= seen:
            first = {t: min(at for t2, *_, at in load.acknowledged if t2 == t and at > fault_at) for t in wanted}
            return max(first.values()) - fault_at
        await asyncio.sleep(0.05)
    return None


async def faults(load: Deployed, compose: containers.ComposeSet, args: argparse.Namespace) -> dict[str, Any]:
    _say(f"faults: {args.fault_tables} tables")
    await load.grow(args.fault_tables, args.delay)
    before = await load.window(args.warmup, args.window)
    _say("  before: " + tables._brief(before))
    results: list[dict[str, Any]] = []
    serving = compose.containers("serve")
    loop = asyncio.get_running_loop()

    async def docker(*command: str) -> None:
        await loop.run_in_executor(None, lambda: containers.docker(*command, timeout=120))

    plan: list[tuple[str, list[tuple[str, ...]]]] = [
        ("serve process killed (docker kill)", [("kill", serving[0])]),
        ("Redis restarted (docker restart)", [("restart", "--time", "2", *compose.containers("redis"))]),
        ("PostgreSQL restarted (docker restart)", [("restart", "--time", "5", *compose.containers("db"))]),
    ]
    for name, commands in plan:
        await asyncio.sleep(args.quiet)
        errors, comebacks, failovers = load.errors, load.comebacks, len(load.failovers)
        fault_at = time.perf_counter()
        for driver in load.drivers:  # tables.Driver's watch: every seat of the table has a later version
            if driver.last:
                driver.watch = (max(st.v for st in driver.last.values()), fault_at, set())
        for command in commands:
            await docker(*command)
        done_at = time.perf_counter() - fault_at
        played = await _recovery(load, fault_at)
        deadline = time.perf_counter() + 120
        while any(d.watch is not None for d in load.drivers) and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        whole = load.failovers[failovers:]
        restarted_by_policy = None
        if commands[0][0] == "kill":  # the killed process started again (if its restart policy did not)
            running = containers.docker("inspect", "-f", "{{.State.Running}}", serving[0]).stdout.strip()
            restarted_by_policy = running == "true"
            if not restarted_by_policy:
                await docker("start", serving[0])
            load.serve_pids = _pids(serving)
        window = await load.window(1.0, args.window)
        results.append({"fault": name, "command_s": round(done_at, 2),
                        "every_table_played_s": round(played, 2) if played is not None else None,
                        "every_seat_current_s": round(max(whole), 2) if len(whole) == len(load.drivers) else None,
                        "tables_not_current": len(load.drivers) - len(whole),
                        "restarted_by_policy": restarted_by_policy,
                        "comebacks": load.comebacks - comebacks, "errors": load.errors - errors,
                        "after": window})
        _say(f"  {name}: command {done_at:.1f} s; every table played again after "
             f"{played if played is None else round(played, 2)} s, every seat of every table had a later "
             f"version after {round(max(whole), 2) if whole else None} s ({len(load.drivers) - len(whole)} "
             f"tables never); after: {tables._brief(window)}")
    # Every table ends the deal it plays; then each acknowledged play is looked for in the records.
    load.finishing = True
    for driver in load.drivers:
        driver.act_again()
    deadline = time.perf_counter() + 120
    while time.perf_counter() < deadline and not all(
            d.last and all(s.phase in ("deal-over", "match-over") for s in d.last.values()) for d in load.drivers):
        await asyncio.sleep(0.2)
    lost, checked = await _lost(load)
    return {"tables": args.fault_tables, "before": before, "faults": results, "acknowledged_checked": checked,
            "acknowledged_lost": lost, "unresolved": load.unresolved, "comebacks": load.comebacks,
            "errors": load.errors}


async def _lost(load: Deployed) -> tuple[list[str], int]:
    """The acknowledged plays not in the stored records (as text), and how many were checked."""
    lost: list[str] = []
    checked = 0
    by_table: dict[str, list[tuple[int, int, str, frozenset[tuple[str, ...]]]]] = {}
    for table, deal, place, seat, cards, _ in load.acknowledged:
        by_table.setdefault(table, []).append((deal, place, seat, cards))
    for table, plays in by_table.items():
        person = load.hosts.get(table)
        if person is None:
            lost.append(f"{table}: no seated person to ask for its records")
            continue
        reply = await tables.http(load.base, "GET", f"/api/matches/{table}/records.jsonl", cookie=person.cookie)
        text = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
        stored: dict[int, list[tuple[str, tuple[str, ...]]]] = {}
        for line in filter(None, (text or "").splitlines()):
            record = json.loads(line)
            stored[record["deal_index"]] = [(p["seat"], tuple(p["cards"])) for trick in record["tricks"]
                                            for p in trick["plays"]]
        for deal, place, seat, cards in plays:
            checked += 1
            found = stored.get(deal)
            if found is None or place >= len(found) or found[place][0] != seat or found[place][1] not in cards:
                lost.append(f"{table} deal {deal} place {place}: {seat} {sorted(cards)}; stored "
                            f"{found[place] if found is not None and place < len(found) else None}")
    return lost, checked


def _pids(container_ids: list[str]) -> list[int]:
    """The host process ids of the containers' first processes (the serve processes)."""
    found = containers.docker("inspect", "-f", "{{.State.Pid}}", *container_ids).stdout.split()
    return [int(p) for p in found if p != "0"]


async def run(compose: containers.ComposeSet, args: argparse.Namespace) -> dict[str, Any]:
    base = Base(compose.base)
    report: dict[str, Any] = {}
    for name in args.scenarios:
        load = Deployed(base, _pids(compose.containers("serve")), random.Random(f"{args.seed}-{name}"))
        probe = asyncio.create_task(load.probe_lag())
        nudge = asyncio.create_task(load.nudge())
        try:
            if name == "capacity":
                report[name] = await capacity(load, args)
            else:
                report[name] = await faults(load, compose, args)
        finally:
            await load.close()
            probe.cancel()
            nudge.cancel()
        report[name]["failures"] = load.failures[:10]
        report[name]["first_errors"] = load.first_errors
        if name == "capacity":
            report[name]["reconnected"] = load.comebacks
    return report


def _up(args: argparse.Namespace, folder: Path) -> tuple[containers.ComposeSet, str, bool]:
    why = containers.missing()
    if why is not None:
        raise SystemExit(f"cannot run the deployed set: {why}")
    images = containers.stand_ins()
    built = args.image is None
    app = args.image or f"gongzhu-bench/app:{random.getrandbits(32):08x}"
    if built:
        _say("building gongzhu's image from the working tree")
        untagged = containers.untagged_images()
        containers.build_image(containers.tree_copy(folder / "tree"), app, PYTHON_IMAGE=images["python"])
        args.builder_stages = sorted(containers.untagged_images() - untagged)
    compose = containers.ComposeSet(app, images, replicas=args.replicas)
    compose.env["GONGZHU_WEBSOCKETS_PER_ADDRESS"] = "0"  # every person comes from this one address
    compose.env["GONGZHU_GUESTS_PER_ADDRESS"] = "0"  # (and is a guest of their own)
    compose.up()
    os.environ["SSL_CERT_FILE"] = str(compose.root_certificate(folder / "root.crt"))
    return compose, app, built


async def _answering(base: Base, nodes: int, limit: float = 90) -> None:
    deadline = time.monotonic() + limit
    seen: set[str] = set()
    while len(seen) < nodes:
        try:
            reply = await tables.http(base, "GET", "/api/node")
            if reply.status == 200:
                seen.add(reply.body["node"])
        except (OSError, TimeoutError, ValueError, IndexError):
            pass
        if time.monotonic() > deadline:
            raise SystemExit(f"only {len(seen)} of {nodes} serve processes answered through the proxy")
        await asyncio.sleep(0.2)


def _number_list(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--scenarios", default="capacity,faults", type=lambda t: [x for x in t.split(",") if x])
    parser.add_argument("--tables", type=_number_list, default="20,40,80,120,160",
                        help="capacity: the steps, in tables of four people")
    parser.add_argument("--fault-tables", type=int, default=20, help="faults: tables playing through the faults")
    parser.add_argument("--replicas", type=int, default=2, help="serve processes")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds before each measuring window")
    parser.add_argument("--window", type=float, default=15.0, help="seconds of each measuring window")
    parser.add_argument("--quiet", type=float, default=5.0, help="faults: seconds of play before each fault")
    parser.add_argument("--delay", type=float, default=1.0, help="seconds a person waits before playing")
    parser.add_argument("--target-ms", type=float, default=100.0, help="the p99 latency target")
    parser.add_argument("--stop-above-ms", type=float, default=1000.0, help="capacity: stop once a p99 passes it")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--image", help="use this image of gongzhu instead of building one from the working tree")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    args.scenarios = [s for s in args.scenarios if s in ("capacity", "faults")]
    tables.raise_open_files()
    with tempfile.TemporaryDirectory(prefix="gongzhu-deployed-") as folder:
        started = time.monotonic()
        compose, app, built = _up(args, Path(folder))
        try:
            _say(f"the set is up after {time.monotonic() - started:.0f} s: {compose.base}")
            tables.run_loop(_answering(Base(compose.base), args.replicas))  # type: ignore[arg-type]
            report = tables.run_loop(run(compose, args))
        finally:
            compose.down()
            if built:  # the image and its builder stage
                containers.docker("rmi", "--force", app, *args.builder_stages, check=False)
    report["machine"] = {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                         "load_average": [round(x, 2) for x in os.getloadavg()]}
    report["conditions"] = {k: v for k, v in vars(args).items() if k not in ("json", "builder_stages")}
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print(json.dumps({"capacity": {"largest_under_target": report.get("capacity", {}).get("largest_under_target"),
                                   "steps": [(s["tables"], s["plays_per_s"], s["latency_ms"], s["server_cpu_pct"])
                                             for s in report.get("capacity", {}).get("steps", [])]},
                      "faults": {k: v for k, v in report.get("faults", {}).items() if k != "before"}}, indent=1,
                     default=str))


if __name__ == "__main__":
    main()

