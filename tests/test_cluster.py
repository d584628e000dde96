"""Several ``gongzhu serve`` processes sharing the tables of one PostgreSQL database through one
Redis (``gongzhu.server.cluster``): people connected to different processes at one table, the
table's owner killed mid-deal (SIGKILL) and the match going on at another process, the owner
paused past its lease (SIGSTOP) and letting the table go when it runs again (and, with two servers
in the test process, the narrowest moments of a table changing hands made certain: the old owner
running again just after the new one loaded the table, a page coming while the owner loads its
table again, a server counted gone while it lives), Redis restarted under play, PostgreSQL
stopped and started again under play.

The services are found from ``GONGZHU_TEST_PG`` (a SQLAlchemy URL of a PostgreSQL server whose
user may create databases; default the machine's ``postgresql+psycopg://postgres@127.0.0.1:5432/postgres``)
and ``GONGZHU_TEST_REDIS`` (default ``redis://127.0.0.1:6379/0``); each test makes a database of
its own and drops it.  The restart tests start a Redis server, or a PostgreSQL server
(``helpers.database.ThrowawayPostgres``), of their own.  Under CI a
missing service fails the tests (``.ci/run`` starts both); elsewhere it skips them.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from gongzhu.records import check_file
from gongzhu.rules import Deal, Options, Seat
from helpers.client import Message
from helpers.database import REDIS, ThrowawayPostgres
from helpers.database import service_missing as _missing
from helpers.live import Live, Someone
from helpers.servers import LiveServer, ServeProcess
from test_tables import assert_no_leak, drive

pytestmark = pytest.mark.postgres

def serve(db: str, redis: str, folder: Path, name: str) -> ServeProcess:
    """A ``gongzhu serve`` process on a loopback port, one of several sharing the database ``db``
    through ``redis`` (its output in ``folder``: ``NAME.out``, ``NAME.log``)."""
    return ServeProcess(folder, "--redis", redis, db=db, name=name)


@pytest.fixture
def servers(database: str, redis_url: str, tmp_path: Path) -> Iterator[list[ServeProcess]]:
    started = [serve(database, redis_url, tmp_path, f"server{i}") for i in range(3)]
    try:
        yield started
    finally:
        for s in started:
            s.stop()


def owner_of(table_id: str) -> str | None:
    import redis

    value = redis.Redis.from_url(REDIS).get(f"gz:owner:{table_id}")
    return value.decode() if isinstance(value, bytes) else None


def records_of(person: Someone, table_id: str) -> dict[int, Message]:
    text = person.http.get(f"/api/matches/{table_id}/records.jsonl").text
    check_file(text)  # every record replays: no action lost, none applied twice
    return {r["deal_index"]: r for r in map(json.loads, text.splitlines())}


def test_people_on_different_servers_play_a_match_together(servers: list[ServeProcess]) -> None:
    a, b, c = servers
    rng = random.Random(4)
    host, east, west, watcher = Someone(a), Someone(b), Someone(c), Someone(b)
    table = host.http.post("/api/tables", json={
        "turn_seconds": None, "expose_seconds": None, "speed": "instant", "options": {"match_end": "deals:2"},
        "levels": {"N": "random", "E": "random", "S": "random", "W": "random"}}).json()
    table_id = table["table_id"]
    lives = {"S": host.connect(table_id), "E": east.connect(table_id), "W": west.connect(table_id)}
    spectator = watcher.connect(table_id)
    for seat in ("E", "W"):
        lives[seat].send({"type": "sit", "seat": seat})
    lives["S"].until(lambda s: s["table"]["seats"]["E"]["name"] == east.name
                     and s["table"]["seats"]["W"]["name"] == west.name)
    lives["S"].send({"type": "start"})
    drive(lives, rng, lambda st: all(s.get("phase") in ("deal-over", "match-over") for s in st.values()))
    lives["W"].send({"type": "next"})
    drive(lives, rng, lambda st: all(s.get("phase") == "match-over" for s in st.values()))
    spectator.until(lambda s: s["phase"] == "match-over")
    records = records_of(host, table_id)
    assert len(records) == 2
    for seat, live in lives.items():
        live.drain()
        assert assert_no_leak(live.messages, seat, records) > 10
    assert assert_no_leak(spectator.messages, None, records) > 10
    for person, seat in ((host, "S"), (east, "E"), (west, "W")):  # (guests: their deals are practice)
        played = person.http.get("/api/me").json()["practice"]["score"]
        assert played == sum(r["final"][seat] for r in records.values())


def first_legal(state: Message) -> list[str]:
    return list(state["legal"][0])


def four_people_start(people: dict[str, Someone]) -> tuple[str, dict[str, Live]]:
    """South makes a one-deal table without timers, the others sit in their seats, South starts:
    the table and each person's connection."""
    table_id: str = people["S"].http.post("/api/tables", json={
        "turn_seconds": None, "expose_seconds": None, "options": {"match_end": "deals:1"}}).json()["table_id"]
    lives = {seat: p.connect(table_id) for seat, p in people.items()}
    for seat in ("E", "N", "W"):
        lives[seat].send({"type": "sit", "seat": seat})
    lives["S"].until(lambda s: all(s["table"]["seats"][x]["name"] for x in "NEW"))
    lives["S"].send({"type": "start"})
    return table_id, lives


def play_until(lives: dict[str, Live], done: Any, timeout: float = 60, *, watch: str = "S") -> None:
    """Each person plays their first legal card (and exposes nothing) whenever the table waits
    for them, until ``done(the state of watch's seat)`` (South's by default): a state that person
    has not acted on."""
    acted: dict[str, int] = {}
    end = time.monotonic() + timeout
    while True:
        for live in lives.values():
            live.drain(0.005)
        if done(lives[watch].state):
            return
        assert time.monotonic() < end
        for seat, live in lives.items():
            state = live.state
            if not state or acted.get(seat, -1) >= state["v"]:
                continue
            if state["phase"] == "expose" and seat in state["undeclared"]:
                live.send({"type": "expose", "cards": []})
            elif state["phase"] == "play" and state["turn"] == seat and state["legal"]:
                live.send({"type": "play", "cards": first_legal(state)})
            else:
                continue
            acted[seat] = state["v"]


def first_legal_record(record: dict[str, Any]) -> dict[str, Any]:
    """The record a single server stores of ``record``'s cards when everyone exposes nothing and
    plays their first legal card."""
    from gongzhu.records.format import deal_to_record

    deal = Deal(Options.from_dict(record["options"]), [record["hands"][s.name] for s in Seat],
                first_receiver=Seat.parse(record["first_receiver"]))
    for waiting in list(deal.undeclared):
        deal.declare(waiting, [])
    while not deal.is_over:
        deal.play(deal.legal_plays()[0])
    alone: dict[str, Any] = deal_to_record(deal, match_id=record["match"], preset=record["preset"])
    return alone


def same_record(record: dict[str, Any], alone: dict[str, Any]) -> None:
    assert {k: record[k] for k in alone if k != "seed"} == {k: alone[k] for k in alone if k != "seed"}


def test_the_owner_killed_mid_deal_the_table_goes_on_elsewhere(servers: list[ServeProcess]) -> None:
    """Four people (no computer), each on one of three servers; the table's owner is killed
    mid-trick; the people of the killed server come back through another one; the deal ends with
    the record a single server would have stored from the same choices."""
    people = {"S": Someone(servers[0]), "E": Someone(servers[1]), "N": Someone(servers[2]), "W": Someone(servers[0])}
    table_id, lives = four_people_start(people)
    play_until(lives, lambda s: s.get("tricks_played", 0) >= 5 and len(s["trick"]["plays"]) == 2)
    owner = owner_of(table_id)
    victim = next(s for s in servers if owner is not None and s.base in _node_base(owner, servers))
    victim.kill()
    # the people of the dead server come back through a live one, saying the last version they saw
    alive = [s for s in servers if s is not victim]
    for seat, person in people.items():
        if person.server is victim:
            seen = lives[seat].state["v"]
            person.rebind(alive[0])
            lives[seat] = person.connect(table_id, since=seen)
    play_until(lives, lambda s: s.get("phase") == "match-over")
    assert owner_of(table_id) not in (None, owner)
    record = records_of(people["E"], table_id)[0]
    same_record(record, first_legal_record(record))  # what a single server stores from the same choices


def test_the_owner_paused_past_its_lease_lets_the_table_go(servers: list[ServeProcess]) -> None:
    """The table's owner stops answering mid-deal for longer than its lease (SIGSTOP, as a
    machine starved of CPU or a stalled virtual machine): another server takes the table over and
    the people of the paused one come back through it; the deal goes on.  Resumed, the old owner
    must not act for the table again: South then comes back through it and plays on through it,
    the table run by the new owner; the deal ends with the record a single server would have
    stored from the same choices."""
    people = {"S": Someone(servers[0]), "E": Someone(servers[1]), "N": Someone(servers[2]), "W": Someone(servers[0])}
    table_id, lives = four_people_start(people)
    play_until(lives, lambda s: s.get("tricks_played", 0) >= 3 and len(s["trick"]["plays"]) == 1)
    owner = owner_of(table_id)
    assert owner is not None
    paused = next(s for s in servers if s.base in _node_base(owner, servers))
    alive = [s for s in servers if s is not paused]
    os.kill(paused.pid, signal.SIGSTOP)
    try:
        # the people of the paused server come back through a live one, as the page does once
        # its connection stops answering
        for seat, person in people.items():
            if person.server is paused:
                seen = lives[seat].state["v"]
                lives[seat].close()
                person.rebind(alive[0])
                lives[seat] = _come_back(person, table_id, seen)
        play_until(lives, lambda s: s.get("tricks_played", 0) >= 6)
        taken = owner_of(table_id)
        assert taken not in (None, owner)
    finally:
        os.kill(paused.pid, signal.SIGCONT)
    time.sleep(2)  # its upkeep finds the lease gone
    # South comes back through the old owner, which forwards to the new one
    seen = lives["S"].state["v"]
    lives["S"].close()
    people["S"].rebind(paused)
    lives["S"] = _come_back(people["S"], table_id, seen)
    play_until(lives, lambda s: s.get("phase") == "match-over")
    assert owner_of(table_id) == taken
    never_set_back(lives, "E", "N")  # the pages on the servers that kept running
    record = records_of(people["E"], table_id)[0]
    same_record(record, first_legal_record(record))
    assert "Traceback" not in paused.log_path.read_text(errors="replace")


def never_set_back(lives: dict[str, Live], *seats: str) -> None:
    """The connections of ``seats`` (open all along: play_until would have failed on a close)
    were never told of a failure of the servers' and never shown an older state than one they
    had been shown (the old owner said nothing to them once the table had moved on)."""
    for seat in seats:
        versions = [m["state"]["v"] for m in lives[seat].messages if m["type"] == "state"]
        assert versions == sorted(versions), (seat, versions)
        assert not [m for m in lives[seat].messages if m["type"] == "error" and m["code"].startswith("server.")]


@pytest.mark.parametrize("where", ["on the owner", "elsewhere"])
def test_a_play_sent_to_a_paused_owner_is_played_by_the_new_one(servers: list[ServeProcess], where: str) -> None:
    """A person plays while the table's owner stands still past its lease — a person connected
    to the owner, or to another server, which forwards the play to the owner — and the others'
    servers take the table over meanwhile.  When the old owner runs again it finds the table
    taken, lets it go, and the play goes to the new owner, which plays it: nobody hears of a
    failure or is disconnected, and the deal ends with the record a single server would have
    stored from the same choices."""
    people = {"S": Someone(servers[0]), "E": Someone(servers[1]), "N": Someone(servers[2]), "W": Someone(servers[0])}
    table_id, lives = four_people_start(people)
    owner = owner_of(table_id)
    assert owner is not None
    paused = next(s for s in servers if s.base in _node_base(owner, servers))
    mover = next(seat for seat, p in people.items() if (p.server is paused) == (where == "on the owner"))
    play_until(lives, lambda s: s.get("tricks_played", 0) >= 2 and s.get("turn") == mover and s["phase"] == "play",
               watch=mover)
    assert owner_of(table_id) == owner
    state = lives[mover].state
    hand = len(state["hand"])
    os.kill(paused.pid, signal.SIGSTOP)
    try:
        lives[mover].send({"type": "play", "cards": first_legal(state)})  # waits in the paused server's socket
        end = time.monotonic() + 30
        while owner_of(table_id) in (None, owner):  # the lease lapses; a server with people there claims it
            assert time.monotonic() < end, "nobody took the table over"
            time.sleep(0.2)
    finally:
        os.kill(paused.pid, signal.SIGCONT)
    taken = owner_of(table_id)
    lives[mover].until(lambda s: len(s["hand"]) == hand - 1, timeout=30)  # the play, played by the new owner
    play_until(lives, lambda s: s.get("phase") == "match-over")
    assert owner_of(table_id) == taken
    never_set_back(lives, *lives)
    record = records_of(people["E"], table_id)[0]
    same_record(record, first_legal_record(record))
    assert "Traceback" not in paused.log_path.read_text(errors="replace")


@dataclass
class SharedTable:
    """Two servers in the test process and four people at one table, two through each: ``owner``
    runs the table (the first to claim it), ``other`` does not."""

    owner: LiveServer
    other: LiveServer
    people: dict[str, Someone]
    table_id: str
    lives: dict[str, Live]

    def seat_of_owner(self) -> str:
        """A seat whose person is connected to the owner."""
        return next(seat for seat, person in self.people.items() if person.server is self.owner)


@pytest.fixture
def shared_table(database: str, redis_url: str) -> Iterator[SharedTable]:
    a, b = LiveServer(database, redis_url=redis_url), LiveServer(database, redis_url=redis_url)
    try:
        people = {"S": Someone(a), "E": Someone(b), "N": Someone(a), "W": Someone(b)}
        table_id, lives = four_people_start(people)
        if owner_of(table_id) != a.app.state.tables.node:  # (the first to claim it runs it)
            a, b = b, a
        yield SharedTable(a, b, people, table_id, lives)
    finally:
        a.stop()
        b.stop()


def test_an_old_owner_running_again_stores_nothing_once_the_table_is_taken_over(
        shared_table: SharedTable, monkeypatch: pytest.MonkeyPatch) -> None:
    """The interleaving of a paused owner that runs again just as another server takes its table
    over, made certain: the owner (server A, in the test process) is not told that its lease
    lapsed — its renewals seem to succeed, as when it runs again before its upkeep does — and
    the server that claims the table (B) stands still right after loading it, before it stores
    anything.  A play sent to A then must not be stored by A: B's taking the table over fences
    A's writes, so A lets the table go and the play goes on to B, which plays it on the table it
    loaded (a copy behind the store would have to be let go and loaded again, and connections
    introduced to B meanwhile would be told ``server.cluster_unavailable``); nobody hears of a
    failure and the deal ends with the record a single server would have stored from the same
    choices."""
    import threading

    from gongzhu.server.table import Table

    people, table_id, lives = shared_table.people, shared_table.table_id, shared_table.lives
    a_tables, b_tables = shared_table.owner.app.state.tables, shared_table.other.app.state.tables
    go_on = threading.Event()
    try:
        assert owner_of(table_id) == a_tables.node
        mover = shared_table.seat_of_owner()
        play_until(lives, lambda s: s.get("tricks_played", 0) >= 1 and s["phase"] == "play" and s["turn"] == mover,
                   watch=mover)
        old = a_tables.loaded(table_id)
        assert old is not None
        stored = old.stored

        async def renewed(**_: Any) -> int:
            return 1  # (the lease is not renewed, and A does not find out)

        monkeypatch.setattr(a_tables.bus, "_renew", renewed)
        loaded: list[Table] = []
        load = b_tables.get

        def load_and_stand_still(match_id: str) -> Table | None:
            table: Table | None = load(match_id)
            if match_id == table_id and table is not None and not loaded:
                loaded.append(table)
                go_on.wait(10)  # (B's event loop stands still: what comes for it waits)
            return table

        monkeypatch.setattr(b_tables, "get", load_and_stand_still)
        end = time.monotonic() + 30
        while not loaded:  # A's lease lapses; B, with people at the table, claims it and loads it
            assert time.monotonic() < end, "nobody took the table over"
            time.sleep(0.01)
        assert owner_of(table_id) == b_tables.node
        state = lives[mover].state
        hand = len(state["hand"])
        lives[mover].send({"type": "play", "cards": first_legal(state)})
        end = time.monotonic() + 30
        while old.stored == stored and not old.broken:  # A handles the play
            assert time.monotonic() < end, "the play was not handled"
            time.sleep(0.01)
        go_on.set()
        lives[mover].until(lambda s: len(s["hand"]) == hand - 1, timeout=30)  # the play, played by B
        assert old.handed_over and old.stored == stored  # A stored nothing, and let the table go
        play_until(lives, lambda s: s.get("phase") == "match-over")
        assert b_tables.loaded(table_id) is loaded[0] and not loaded[0].broken
        assert owner_of(table_id) == b_tables.node
        never_set_back(lives, *lives)
        record = records_of(people["E"], table_id)[0]
        same_record(record, first_legal_record(record))
    finally:
        go_on.set()


def test_a_page_that_comes_while_the_owner_loads_its_table_again_is_let_in(
        shared_table: SharedTable, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table's owner finds its copy behind the store (another server stored a change: here the
    test does, as a server that took the table over while Redis had lost the leases would) and,
    the lease still its own, loads the table again.  A page that comes to the table through
    another server meanwhile — its hello reaching the owner before the table is loaded again,
    made certain by holding the loading until it has — is let in once the table is loaded, not
    told that the table's server cannot be reached; the play that found the copy behind is played
    on the table loaded again, and the deal ends with the record a single server would have
    stored from the same choices."""
    import asyncio
    import threading

    people, table_id, lives = shared_table.people, shared_table.table_id, shared_table.lives
    owner = shared_table.owner.app.state.tables
    go_on, loading, introduced = threading.Event(), threading.Event(), threading.Event()
    try:
        mover = shared_table.seat_of_owner()
        play_until(lives, lambda s: s.get("tricks_played", 0) >= 1 and s["phase"] == "play" and s["turn"] == mover,
                   watch=mover)
        watcher = Someone(shared_table.other)
        took_over, remote_hello = owner.took_over, owner.remote_hello

        async def load_when_told(match_id: str) -> None:
            loading.set()
            while not go_on.is_set():  # (the owner's event loop goes on meanwhile)
                await asyncio.sleep(0.01)
            await took_over(match_id)

        def hello(payload: dict[str, Any]) -> None:
            remote_hello(payload)
            if payload["person"][0] == watcher.id:
                introduced.set()

        monkeypatch.setattr(owner, "took_over", load_when_told)
        monkeypatch.setattr(owner, "remote_hello", hello)
        stored = owner.store.match(table_id).seating.version
        owner.store.set_version(table_id, stored + 1, expected=stored)
        state = lives[mover].state
        hand = len(state["hand"])
        lives[mover].send({"type": "play", "cards": first_legal(state)})  # refused as stale: loaded again
        assert loading.wait(30), "the owner did not load the table again"
        spectator = watcher.connect(table_id)
        assert introduced.wait(30), "the page was not introduced to the owner"
        go_on.set()
        spectator.until(lambda s: True)  # let in: its state
        lives[mover].until(lambda s: len(s["hand"]) == hand - 1, timeout=30)
        play_until(lives, lambda s: s.get("phase") == "match-over")
        spectator.until(lambda s: s["phase"] == "match-over")
        assert owner_of(table_id) == owner.node
        never_set_back(lives, *lives)
        assert not [m for m in spectator.messages if m["type"] == "error"], spectator.messages
        record = records_of(people["E"], table_id)[0]
        same_record(record, first_legal_record(record))
    finally:
        go_on.set()


def test_the_pages_of_a_server_counted_gone_are_served_again(
        shared_table: SharedTable, redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server whose heartbeat lapsed (as one that stood still a few seconds, shorter than a
    lease) is counted gone by the owner of a table its people sit at, which forgets their
    connections — though they are open, and the server runs again.  The owner's changes then
    hold no view for those people; their server finds that out and introduces them again, so
    that they go on being shown their own state (their turn above all) and the deal ends with the
    record a single server would have stored from the same choices, nobody told of a failure."""
    import threading

    import redis

    people, table_id, lives = shared_table.people, shared_table.table_id, shared_table.lives
    owner, other = shared_table.owner.app.state.tables, shared_table.other.app.state.tables
    play_until(lives, lambda s: s.get("tricks_played", 0) >= 1)
    lives["E"].send({"type": "chat", "text": "said once"})
    forgotten = threading.Event()
    node_gone = owner.node_gone

    def gone(node: str) -> None:
        node_gone(node)
        forgotten.set()

    async def no_heartbeat(name: str, *args: Any, **kwargs: Any) -> Any:
        return True if name.startswith("gz:node:") else await heartbeat(name, *args, **kwargs)

    heartbeat = other.bus.redis.set
    monkeypatch.setattr(owner, "node_gone", gone)
    monkeypatch.setattr(other.bus.redis, "set", no_heartbeat)
    redis.Redis.from_url(redis_url).delete(f"gz:node:{other.node}")
    assert forgotten.wait(30), "the server was not counted gone"
    monkeypatch.setattr(other.bus.redis, "set", heartbeat)  # (it runs again)
    play_until(lives, lambda s: s.get("phase") == "match-over")
    for seat in lives:
        lives[seat].until(lambda s: s.get("phase") == "match-over")
    never_set_back(lives, *lives)
    for seat, live in lives.items():  # introduced again, a page is sent nothing twice
        said = [m for m in live.messages if m["type"] == "chat" and m.get("text") == "said once"]
        assert len(said) == 1, (seat, said)
    record = records_of(people["E"], table_id)[0]
    same_record(record, first_legal_record(record))


def _next_of(live: Live, wanted: Any, timeout: float = 30) -> Message:
    """The next message that ``live`` is sent for which ``wanted(message)`` holds (what comes
    before it passed over)."""
    end = time.monotonic() + timeout
    while True:
        got = live.receive(max(0.1, end - time.monotonic()))
        if wanted(got):
            return got


def _said(text: str) -> Any:
    """A chat line saying ``text``, or an error."""
    return lambda m: m["type"] == "error" or (m["type"] == "chat" and m.get("text") == text)


def _error(m: Message) -> bool:
    return bool(m["type"] == "error")


def test_a_person_the_host_removed_is_not_let_back_in_through_a_hand_over(
        database: str, redis_url: str) -> None:
    """Two servers in the test process.  Ann hosts a table waiting for its start, her page on the
    server that runs it; on the other, Bo sat down and Ann had him leave his seat, and Cy watches,
    blocked by Ann since in a way no server heard of (the test writes the block into the store, as
    one made while the servers could not tell each other).  The owner then finds its copy behind
    the store (another server stored a change: here the test does) and loads the table anew, and
    every page is introduced to it again as let in before: Bo may watch on but still not sit (the
    same refusal as before), Cy's page is refused and closed as a new page of hers would be, and
    Ann's goes on without a word of it."""
    from datetime import UTC, datetime

    from sqlalchemy import insert

    from gongzhu.server.store import BLOCKS
    from helpers.live import account

    with LiveServer(database, redis_url=redis_url) as a, LiveServer(database, redis_url=redis_url) as b:
        ann, bo, cy = account(a, "Ann"), account(b, "Bo"), account(b, "Cy")
        table_id = ann.http.post("/api/tables", json={"turn_seconds": None, "expose_seconds": None}).json()["table_id"]
        host = ann.connect(table_id)
        host.until(lambda s: s["phase"] == "waiting")
        owner = a.app.state.tables
        assert owner_of(table_id) == owner.node
        other, watcher = bo.connect(table_id), cy.connect(table_id)
        watcher.until(lambda s: s["phase"] == "waiting")
        other.send({"type": "sit", "seat": "E"})
        host.until(lambda s: s["table"]["seats"]["E"]["name"] == "Bo")
        host.send({"type": "remove", "seat": "E"})
        other.until(lambda s: s["table"]["seats"]["E"]["name"] is None)
        assert other.refused({"type": "sit", "seat": "E"})["code"] == "server.table_closed"
        with a.app.state.store.engine.begin() as c:
            c.execute(insert(BLOCKS).values(user_id=ann.id, blocked_id=cy.id, created=datetime.now(UTC).isoformat()))
        watcher.send({"type": "chat", "text": "still here"})  # (no server knows of it yet)
        assert _next_of(watcher, _said("still here"))["type"] == "chat"
        for live in (host, other, watcher):
            live.drain()
        before = {id(live): len(live.messages) for live in (host, other)}

        old = owner.loaded(table_id)
        assert old is not None
        stored = owner.store.match(table_id).seating.version
        owner.store.set_version(table_id, stored + 1, expected=stored)
        host.send({"type": "chat", "text": "hello"})  # refused as stale: the table is loaded anew
        assert _next_of(host, _said("hello"))["type"] == "chat"
        end = time.monotonic() + 30
        while owner.loaded(table_id) in (old, None):
            assert time.monotonic() < end, "the table was not loaded anew"
            time.sleep(0.01)
        assert owner_of(table_id) == owner.node

        with pytest.raises(ConnectionClosed) as closed:  # Cy: refused as a new page of hers would be
            while True:
                watcher.receive(30)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
        errors = [m for m in watcher.messages if m["type"] == "error"]
        assert [m["code"] for m in errors] == ["server.table_closed"], errors
        assert _next_of(other, _said("hello"))["type"] == "chat"  # Bo watches on
        for seat in ("E", "N"):
            other.send({"type": "sit", "seat": seat})
            answer = _next_of(other, lambda m: _error(m) or (m["type"] == "state" and m["state"]["you"]["seat"]))
            assert answer.get("code") == "server.table_closed", answer
        host.drain()
        assert all(seat["name"] is None for s, seat in host.state["table"]["seats"].items() if s != "S")
        # nobody else was told anything of the hand-over: Bo heard only the answers to his sits
        said = {id(live): [m.get("code") for m in live.messages[before[id(live)]:] if m["type"] == "error"]
                for live in (host, other)}
        assert said == {id(host): [], id(other): ["server.table_closed"] * 2}, said
        for live in (host, other):
            live.close()


def _come_back(person: Someone, table_id: str, since: int | None, timeout: float = 60) -> Live:
    """Connect again, as the page does after "reconnecting", until the table's state comes."""
    end = time.monotonic() + timeout
    while True:
        try:
            live = person.connect(table_id, since=since)
            live.until(lambda s: True, timeout=10)
            return live
        except (ConnectionClosed, OSError, AssertionError, TimeoutError):
            assert time.monotonic() < end, "the table did not come back"
            time.sleep(0.5)


@pytest.mark.slow
def test_postgresql_restarted_under_play(redis_url: str, tmp_path: Path) -> None:
    """A PostgreSQL server of the test's own stopped mid-trick under two servers: the play made
    meanwhile is refused ("reconnecting") and no page is shown it made; once the database is back
    the people reconnect and the deal ends with the record a single server stores from the same
    choices (no acknowledged play lost, none applied twice)."""
    pg = ThrowawayPostgres()
    servers: list[ServeProcess] = []
    try:
        database = pg.new_database()
        servers = [serve(database, redis_url, tmp_path, "a"), serve(database, redis_url, tmp_path, "b")]
        a, b = servers
        people = {"S": Someone(a), "E": Someone(b), "N": Someone(a), "W": Someone(b)}
        table_id, lives = four_people_start(people)
        play_until(lives, lambda s: s.get("tricks_played", 0) >= 3 and len(s["trick"]["plays"]) == 1)
        for live in lives.values():
            live.drain()
        turn = lives["S"].state["turn"]
        card = first_legal(lives[turn].state)
        pg.stop()
        lives[turn].send({"type": "play", "cards": card})
        # the play is refused and the table's connections end; no state shows the card played
        got: list[Message] = []
        with pytest.raises(ConnectionClosed):
            while True:
                got.append(lives[turn].receive(20))
        errors = [m["message"] for m in got if m["type"] == "error"]
        assert errors and "reconnecting" in errors[0], got
        assert all(card[0] in m["state"]["hand"] for m in got if m["type"] == "state")
        # a page that comes back while the database is away is told so, not shown a wrong state
        early = people[turn].connect(table_id)
        with pytest.raises(ConnectionClosed):
            while True:
                message = early.receive(20)
                assert message["type"] == "error" and "reconnecting" in message["message"], message
        pg.start()
        for seat, person in people.items():
            lives[seat] = _come_back(person, table_id, lives[seat].state.get("v"))
        assert card[0] in lives[turn].state["hand"]  # the refused play did not happen
        play_until(lives, lambda s: s.get("phase") == "match-over")
        record = records_of(people["E"], table_id)[0]
        same_record(record, first_legal_record(record))
    finally:
        for server in servers:
            server.stop()
        pg.remove()


def _node_base(node: str, servers: list[ServeProcess]) -> str:
    """The base address of the server whose node id is ``node`` (asked of each server)."""
    for s in servers:
        import urllib.request

        with urllib.request.urlopen(s.base + "/api/node", timeout=5) as r:
            if json.loads(r.read())["node"] == node:
                return s.base
    raise AssertionError(f"no server is node {node}")


@pytest.mark.slow
def test_redis_restarted_under_play(database: str, tmp_path: Path) -> None:
    """A Redis of the test's own, stopped and started again while two servers serve a table:
    each server goes on serving its own connections meanwhile and both recover by themselves."""
    binary = shutil.which("redis-server")
    if binary is None:
        _missing("redis-server is not installed")
    assert binary is not None
    port = 6500 + os.getpid() % 400

    def start() -> subprocess.Popen[bytes]:
        proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                 "--appendonly", "no", "--dir", str(tmp_path)], stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return proc
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.05)

    redis_proc = start()
    url = f"redis://127.0.0.1:{port}/0"
    a, b = serve(database, url, tmp_path, "a"), serve(database, url, tmp_path, "b")
    try:
        rng = random.Random(8)
        host, other = Someone(a), Someone(b)
        table_id = host.http.post("/api/tables", json={
            "turn_seconds": None, "expose_seconds": None, "options": {"match_end": "deals:1"},
            "levels": {"N": "random", "W": "random"}}).json()["table_id"]
        lives: dict[str, Live] = {"S": host.connect(table_id), "E": other.connect(table_id)}
        lives["E"].send({"type": "sit", "seat": "E"})
        lives["S"].until(lambda s: s["table"]["seats"]["E"]["name"] == other.name)
        lives["S"].send({"type": "start"})
        drive(lives, rng, lambda st: st["S"].get("tricks_played", 0) >= 3)
        assert not any("Redis is back" in line for line in a.log_lines())  # a start is no comeback
        redis_proc.terminate()
        redis_proc.wait(10)
        time.sleep(1)
        redis_proc = start()
        # both servers recover by themselves: the match goes on to its end (a page whose
        # connection is closed meanwhile comes back, as the page does)
        people = {"S": host, "E": other}
        end = time.monotonic() + 90
        while not all(x.state.get("phase") == "match-over" for x in lives.values()):
            assert time.monotonic() < end, {k: (x.state.get("phase"), x.state.get("turn")) for k, x in lives.items()}
            try:
                drive(lives, rng, lambda st: all(s.get("phase") == "match-over" for s in st.values()), timeout=10,
                      retry_after=2.0)
            except (ConnectionClosed, AssertionError):  # closed, or refused while Redis was away: again
                for seat, live in list(lives.items()):
                    if live.ws.state.name != "OPEN":
                        time.sleep(0.5)
                        lives[seat] = people[seat].connect(table_id, since=live.state.get("v"))
        records_of(host, table_id)
        for server in (a, b):  # each said Redis went away, and that it came back
            said = "\n".join(server.log_lines())
            assert "Redis is away" in said and "Redis is back" in said, said
    finally:
        a.stop()
        b.stop()
        redis_proc.terminate()
        redis_proc.wait(10)


def test_a_redis_that_does_not_answer_at_the_start_is_said(database: str, tmp_path: Path) -> None:
    """A server started with a Redis that does not answer (a wrong port, say) starts, serves the
    tables it runs and says so in its log — not silence until someone reads ``/readyz`` — and
    makes no table or match that it could not open."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # nothing listens there once the socket is closed
    server = serve(database, f"redis://127.0.0.1:{port}/0", tmp_path, "alone")
    try:
        deadline = time.monotonic() + 20
        while not any("Redis does not answer" in line for line in server.log_lines()):
            assert time.monotonic() < deadline, server.output()
            time.sleep(0.1)
        assert not any("Redis is back" in line for line in server.log_lines())
        # nothing is made that could not be opened, and the refusal names Redis, not another server
        person = Someone(server)
        for path, body in (("/api/tables", {"turn_seconds": None, "expose_seconds": None}), ("/api/matches", {}),
                           ("/api/tables/play-now", {})):
            answer = person.http.post(path, json=body)
            assert answer.status_code == 503 and answer.json()["code"] == "server.cluster_down", (path, answer.text)
        assert person.http.get("/api/matches").json() == []
    finally:
        server.stop()


def test_a_redis_that_comes_after_the_start_is_said_back_and_tables_are_made_again(database: str,
                                                                                   tmp_path: Path) -> None:
    """A server whose Redis did not answer at its start says so when it comes (``Redis is back``,
    once), and from then on makes tables again."""
    binary = shutil.which("redis-server")
    if binary is None:
        _missing("redis-server is not installed")
    assert binary is not None
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    server = serve(database, f"redis://127.0.0.1:{port}/0", tmp_path, "early")
    redis_proc = None
    try:
        deadline = time.monotonic() + 20
        while not any("Redis does not answer" in line for line in server.log_lines()):
            assert time.monotonic() < deadline, server.output()
            time.sleep(0.1)
        person = Someone(server)
        new = {"turn_seconds": None, "expose_seconds": None}
        assert person.http.post("/api/tables", json=new).status_code == 503
        redis_proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                       "--appendonly", "no", "--dir", str(tmp_path)], stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while not any("Redis is back" in line for line in server.log_lines()):
            assert time.monotonic() < deadline, server.output()
            time.sleep(0.1)
        assert sum("Redis is back" in line for line in server.log_lines()) == 1
        assert person.http.post("/api/tables", json=new).status_code == 201
    finally:
        server.stop()
        if redis_proc is not None:
            redis_proc.terminate()
            redis_proc.wait(10)


def test_an_action_forwarded_from_another_server_is_logged_with_its_connections_request_id(
        database: str, redis_url: str, tmp_path: Path) -> None:
    """Every action line the owner logs carries the request id of the connection it came from,
    a connection on another server included (its server's id for the WebSocket)."""
    a = ServeProcess(tmp_path, "--redis", redis_url, "--log-format", "json", db=database, name="owner")
    b = ServeProcess(tmp_path, "--redis", redis_url, "--log-format", "json", db=database, name="other")
    try:
        host, guest = Someone(a), Someone(b)
        table_id = host.http.post("/api/tables", json={"turn_seconds": None, "expose_seconds": None}).json()["table_id"]
        lives = {"S": host.connect(table_id), "E": guest.connect(table_id)}
        lives["S"].until(lambda s: s["phase"] == "waiting")
        lives["E"].send({"type": "sit", "seat": "E"})
        lives["S"].until(lambda s: s["table"]["seats"]["E"]["name"] == guest.name)
        lives["E"].send({"type": "stand"})
        lives["S"].until(lambda s: s["table"]["seats"]["E"]["name"] is None)
        for live in lives.values():
            live.close()
        time.sleep(0.5)
        logged = [json.loads(line) for line in a.log_lines() + b.log_lines() if line.startswith("{")]
        sockets = {e["request_id"] for e in logged
                   if e["logger"] == "gongzhu.access" and e.get("method") == "WEBSOCKET"}
        actions = [e for e in logged if e["logger"] == "gongzhu.server.actions" and e["person"] == guest.id]
        assert {e["action"] for e in actions} >= {"sit", "stand"}, actions
        assert all(e.get("request_id") in sockets for e in actions), actions
    finally:
        a.stop()
        b.stop()


def test_two_sites_on_two_databases_of_one_redis_hear_nothing_of_each_other(database: str, tmp_path: Path) -> None:
    """Two sites share one Redis on two database numbers (site A: two servers on PostgreSQL and
    Redis database 14; site B: one on its own SQLite file and database 15). A's servers hear each
    other's public tables; nothing of B's reaches A's lobby, though a Redis channel is heard in
    every database."""
    base = REDIS.rsplit("/", 1)[0]
    a1, a2 = serve(database, f"{base}/14", tmp_path, "a1"), serve(database, f"{base}/14", tmp_path, "a2")
    b1 = ServeProcess(tmp_path, "--redis", f"{base}/15", db=f"sqlite:///{tmp_path / 'b.db'}", name="b1")
    try:
        watcher = Someone(a1)
        lobby = Live(f"{a1.ws_base}/ws/lobby", watcher.cookie_header(), {})
        hosts = {"a": Someone(a2), "b": Someone(b1)}
        made = {site: person.http.post("/api/tables", json={"turn_seconds": 30, "expose_seconds": None,
                                                             "visibility": "public"}).json()["table_id"]
                for site, person in hosts.items()}
        at_tables = [hosts[site].connect(made[site]) for site in ("a", "b")]  # hosts at their tables: news
        deadline = time.monotonic() + 20
        while made["a"] not in json.dumps(lobby.messages):  # site A's own news comes through
            assert time.monotonic() < deadline, lobby.messages
            lobby.drain(0.1)
        lobby.drain(1.0)
        listed = watcher.http.get("/api/tables").text
        assert made["a"] in listed
        assert made["b"] not in listed and made["b"] not in json.dumps(lobby.messages)
        for live in (lobby, *at_tables):
            live.close()
    finally:
        for server in (a1, a2, b1):
            server.stop()


@dataclass
class OperatorAndPlayer:
    """Two servers: an operator's session on ``a``, and Pat at a table of her own on ``b``."""

    a: LiveServer
    b: LiveServer
    op: Someone
    pat: Someone
    table_id: str
    page: Live


@pytest.fixture
def operator_and_player(database: str, redis_url: str) -> Iterator[OperatorAndPlayer]:
    from gongzhu.server.moderation import grant
    from helpers.live import account

    with LiveServer(database, redis_url=redis_url) as a, LiveServer(database, redis_url=redis_url) as b:
        op = account(a, "Opal")
        assert grant(a.app.state.store, "Opal") == ("Opal", True)
        pat = account(b, "Pat")
        table_id = pat.http.post("/api/tables", json={"turn_seconds": None, "expose_seconds": None}).json()["table_id"]
        page = pat.connect(table_id)
        page.until(lambda s: s["phase"] == "waiting")
        yield OperatorAndPlayer(a, b, op, pat, table_id, page)
        page.close()


def first_error(live: Live) -> Message:
    """The next error ``live`` is sent (what comes before it passed over)."""
    got = live.receive(10)
    while got.get("type") != "error":
        got = live.receive(10)
    return got


def test_a_warning_and_a_mute_reach_pages_on_another_server_at_once(operator_and_player: OperatorAndPlayer) -> None:
    """The operator works on server A; Pat's table page is on server B. The warning and the mute
    are told on B's page at once, the warning marked seen, and B refuses Pat's chat at once
    (not when its kept mute runs out)."""
    op, page = operator_and_player.op, operator_and_player.page
    page.send({"type": "chat", "text": "hello"})  # (B reads and keeps Pat's mute: none)
    heard = page.receive(10)
    while "hello" not in json.dumps(heard):
        heard = page.receive(10)
    for kind, code in (("warn", "moderation.warned"), ("mute", "moderation.muted")):
        ends = None if kind == "warn" else "2099-01-01T00:00:00+00:00"
        r = op.http.post("/api/admin/people/Pat/sanctions", json={"kind": kind, "reason": "rude", "ends": ends})
        assert r.status_code == 201, r.text
        told = first_error(page)
        assert (told["code"], told["params"]["reason"]) == (code, "rude"), told
    sanctions = op.http.get("/api/admin/people/Pat").json()["sanctions"]
    assert [s["seen"] is not None for s in sanctions if s["kind"] == "warn"] == [True]
    page.send({"type": "chat", "text": "still here"})
    assert first_error(page)["code"] == "moderation.muted"


def test_a_message_on_the_bus_that_a_server_cannot_read_is_dropped_alone(operator_and_player: OperatorAndPlayer,
                                                                           redis_url: str) -> None:
    """Anything that can publish (a server of another version) sends server B messages it cannot
    read — not JSON, a shape it does not know: each is dropped, B does not take Redis for away
    (no resubscribing, no introducing every connection again), and the warning the operator gives
    through server A next reaches Pat's page on B."""
    import redis

    from gongzhu.server.cluster import node_channel

    o = operator_and_player
    bus = o.b.app.state.tables.bus
    recovered = bus._failed_at
    client = redis.Redis.from_url(redis_url)
    try:
        for garbage in (b"not json", b"[1, 2]", b'{"op": "msg"}', b'{"op": "send", "cid": "x"}', b'{"op": "hello"}'):
            assert client.publish(node_channel(bus.node, bus.site), garbage) == 1
        assert client.publish(bus.lobby, b'{"op": "moderated"}') >= 1
    finally:
        client.close()
    r = o.op.http.post("/api/admin/people/Pat/sanctions", json={"kind": "warn", "reason": "mind it", "ends": None})
    assert r.status_code == 201, r.text
    told = first_error(o.page)
    assert (told["code"], told["params"]) == ("moderation.warned", {"reason": "mind it"}), told
    assert bus.up and bus._failed_at == recovered


def test_a_mute_holds_the_browser_at_a_table_another_server_runs(operator_and_player: OperatorAndPlayer) -> None:
    """Pat, muted, signs out and opens her table, which server B runs, as a guest through server A:
    what A forwards names the accounts of her browser, and B refuses the guest's chat."""
    o = operator_and_player
    ends = "2099-01-01T00:00:00+00:00"
    r = o.op.http.post("/api/admin/people/Pat/sanctions", json={"kind": "mute", "reason": "rude", "ends": ends})
    assert r.status_code == 201, r.text
    keeping = Someone(o.b).connect(o.table_id)  # (someone at the table on B keeps it loaded there)
    keeping.until(lambda s: s["phase"] == "waiting")
    assert o.pat.http.post("/api/logout").status_code == 200
    o.pat.rebind(o.a)
    assert o.pat.http.get("/api/me").json()["guest"] is True  # a guest now, in the same browser
    assert o.b.app.state.tables.loaded(o.table_id) is not None and o.a.app.state.tables.loaded(o.table_id) is None
    guest = o.pat.connect(o.table_id)
    guest.until(lambda s: s["phase"] == "waiting")
    guest.send({"type": "chat", "text": "not me"})
    told = first_error(guest)
    assert (told["code"], told["params"]) == ("moderation.muted_browser", {"until": "2099-01-01 00:00 UTC"}), told
    guest.close()
    keeping.close()


def test_an_account_deleted_through_another_server_leaves_no_chat_line_there(
        operator_and_player: OperatorAndPlayer) -> None:
    """Pat stands up at her table, which server B runs, chats, and renames herself Pam; she
    deletes her account through server A: B, told through Redis, sends her line under none of her
    names to a page that comes back."""
    from helpers.live import PASSWORD, Someone

    o = operator_and_player
    o.page.send({"type": "stand"})
    o.page.until(lambda s: s["you"]["seat"] is None)
    o.page.send({"type": "chat", "text": "call me on 555-0199"})
    heard = o.page.receive(10)
    while "555-0199" not in json.dumps(heard):
        heard = o.page.receive(10)
    watcher = Someone(o.b).connect(o.table_id)  # (keeps the table loaded on B)
    watcher.until(lambda s: s["phase"] == "waiting")
    assert o.pat.http.post("/api/account/name", json={"name": "Pam", "password": PASSWORD}).status_code == 200
    o.pat.rebind(o.a)
    r = o.pat.http.post("/api/account/delete", json={"password": PASSWORD, "confirm": "Pam"})
    assert r.status_code == 200, r.text
    deadline = time.monotonic() + 10
    while True:  # (told through Redis: at once, or nearly)
        back = Someone(o.b).connect(o.table_id, since=1)
        back.until(lambda s: s["phase"] == "waiting")
        back.drain(0.3)
        replayed = json.dumps(back.messages)
        back.close()
        if "555-0199" not in replayed or time.monotonic() > deadline:
            break
    assert "555-0199" not in replayed and '"Pat"' not in replayed, replayed
    watcher.close()


def test_an_operator_closes_a_table_another_server_runs(operator_and_player: OperatorAndPlayer) -> None:
    """Behind a balancer an operator cannot pick a server: closing a table that server B runs,
    through server A, has B close it — its page told why and closed — and the store says over."""
    o = operator_and_player
    assert o.b.app.state.tables.loaded(o.table_id) is not None and o.a.app.state.tables.loaded(o.table_id) is None
    r = o.op.http.post(f"/api/admin/tables/{o.table_id}/close", json={"reason": "spam in chat"})
    assert r.status_code == 200, r.text
    told = first_error(o.page)
    assert (told["code"], told["params"]) == ("moderation.table_closed", {"reason": "spam in chat"})
    assert o.a.app.state.store.match(o.table_id).seating.status == "over"
    again = o.op.http.post(f"/api/admin/tables/{o.table_id}/close", json={"reason": "again"})
    assert again.status_code == 409 and again.json()["code"] == "moderation.table_over"


def test_a_match_open_on_another_server_is_not_deleted(servers: list[ServeProcess]) -> None:
    """A single-player match that another server runs for the person's page is refused deletion
    (``server.delete_open``), as on one server; once nobody runs it, it may go."""
    a, b, _c = servers
    person = Someone(a)
    levels = {"N": "random", "E": "random", "W": "random"}
    match_id = person.http.post("/api/matches", json={"speed": "instant", "levels": levels}).json()["match_id"]
    live = person.connect(match_id)  # server a runs the table for this page
    live.until(lambda s: s.get("phase") in ("expose", "play"))
    assert owner_of(match_id) is not None
    person.rebind(b)
    answer = person.http.delete(f"/api/matches/{match_id}")
    assert answer.status_code == 409 and answer.json()["code"] == "server.delete_open", answer.text
    assert person.http.get(f"/api/matches/{match_id}").status_code == 200


@pytest.mark.slow
def test_seat_changes_on_two_servers_never_give_anyone_a_second_hand(servers: list[ServeProcess]) -> None:
    """The seat-hopping machine of ``test_fair_tables.py`` with its people on two servers sharing
    the table (each reconnect may come back through the other): nobody's frames, on either server,
    hold the hidden cards of two seats of one deal."""
    from helpers.volume import scaled
    from test_fair_tables import run_seat_hopping

    run_seat_hopping(servers[:2], scaled(6))


def test_a_session_ended_on_one_server_closes_its_table_on_another(servers: list[ServeProcess]) -> None:
    """Signing out through one server closes the person's table connection on another (each
    server checks its connections' sessions every few seconds)."""
    a, b = servers[0], servers[1]
    person = Someone(a)
    table_id = person.http.post("/api/tables", json={"visibility": "private"}).json()["table_id"]
    there = Live(f"{b.ws_base}/ws/{table_id}", person.cookie_header())
    there.until(lambda s: s["phase"] == "waiting")
    assert person.http.post("/api/logout").status_code == 200
    there.closed_for_the_session(timeout=20)


def test_a_block_made_through_one_server_ends_the_watching_at_a_table_another_runs(
        database: str, redis_url: str) -> None:
    """Behind a balancer the block is made wherever the request lands: Ann's table runs on server
    A, Bo watches it through server B, and Ann blocks Bo through B — A shuts Bo out of the table
    as it would refuse a new page of his (``server.table_closed``, 4403)."""
    from helpers.live import account

    with LiveServer(database, redis_url=redis_url) as a, LiveServer(database, redis_url=redis_url) as b:
        ann, bo = account(a, "Ann"), account(b, "Bo")
        table_id = ann.http.post("/api/tables", json={"turn_seconds": None, "expose_seconds": None}).json()["table_id"]
        hosting = ann.connect(table_id)
        hosting.until(lambda s: s["phase"] == "waiting")
        watching = bo.connect(table_id)
        hosting.until(lambda s: s["table"]["spectators"] == 1)
        assert a.app.state.tables.loaded(table_id) is not None and b.app.state.tables.loaded(table_id) is None
        ann.rebind(b)
        assert ann.http.post("/api/people/Bo/block").json()["blocked"]
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                watching.receive(10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
        assert [m["code"] for m in watching.messages if m["type"] == "error"] == ["server.table_closed"]
        assert hosting.until(lambda s: s["table"]["spectators"] == 0)["phase"] == "waiting"
        hosting.close()
