"""Live events on two servers sharing one PostgreSQL database through one Redis
(``gongzhu.server.cluster``; docs/tournaments.md, Events on the server): a team match made and
started through one server while its players come to their tables through the other, which then
runs the tables.  Once the grace has passed (the events' clock, moved by the test) the absent are
played for by a computer (托管) — by the server that runs each table, once, whichever server's
event page is read and however often; and an event with a start time has each stage begun once
while both servers watch it and both are asked for its page at once.

The two servers run in the test process (:class:`~helpers.servers.LiveServer`, each with its own
tables, node and Redis connection), so that they share the test's clock.  The services are found
as ``test_cluster.py`` finds them: ``GONGZHU_TEST_PG`` (default the machine's
``postgresql+psycopg://postgres@127.0.0.1:5432/postgres``; each test makes a database of its own
and drops it) and ``GONGZHU_TEST_REDIS`` (default ``redis://127.0.0.1:6379/0``; what the servers
leave there are leases and heartbeats that expire within seconds).  Under CI a missing service
fails the tests; elsewhere it skips them.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from helpers.clock import SetClock
from helpers.database import REDIS
from helpers.live import Live, Someone, account, befriend
from helpers.servers import LiveServer
from test_events_server import board_row, drive, finished, ns_result, tally

pytestmark = pytest.mark.postgres

Message = dict[str, Any]
#: Where each person's requests come from, behind the trusted proxy 127.0.0.1 (an address each).
NET = "10.0.9"


def server(database: str, redis: str, tmp_path: Path, clock: SetClock) -> LiveServer:
    """One of the servers sharing ``database`` through ``redis``, on the events' clock ``clock``."""
    return LiveServer(database, static_dir=tmp_path / "no-static", now=clock, trusted_proxies=["127.0.0.1"],
                      redis_url=redis)


def node_of(live: LiveServer) -> str:
    node: str = Someone(live).http.get("/api/node").json()["node"]
    return node


def owner_of(table_id: str) -> str | None:
    import redis

    value = redis.Redis.from_url(REDIS).get(f"gz:owner:{table_id}")
    return value.decode() if isinstance(value, bytes) else None


def stored(database: str, event_id: str) -> tuple[list[tuple[int, int, str, bool, list[str]]], int]:
    """The event's tables as stored (``event_tables``: stage, table, match, graced, who came),
    and how many matches name the event."""
    from sqlalchemy import create_engine, func, select

    from gongzhu.server.store import EVENT_TABLES, MATCHES

    engine = create_engine(database)
    try:
        with engine.connect() as c:
            rows = c.execute(select(EVENT_TABLES).where(EVENT_TABLES.c.event_id == event_id)).all()
            matches = c.execute(select(func.count()).select_from(MATCHES)
                                .where(MATCHES.c.challenge == event_id)).scalar_one()
    finally:
        engine.dispose()
    tables = sorted((int(r.stage), int(r.table_no), str(r.match_id), bool(r.graced), sorted(r.present or []))
                    for r in rows)
    return tables, int(matches)


def team_match(organiser: Someone, red: list[Someone], blue: list[Someone], name: str, **more: Any) -> str:
    """A team match between 红 (``red``) and 蓝 (``blue``), one board a session (turn 120 s, grace
    60 s, ``more`` of the body), made by ``organiser``: its id."""
    teams = [{"name": "红", "players": [p.name for p in red]}, {"name": "蓝", "players": [p.name for p in blue]}]
    made = organiser.http.post("/api/events", json={"name": name, "preset": "partners", "boards": 1,
                                                    "turn_seconds": 120, "grace_seconds": 60, "entrants": teams,
                                                    **more})
    assert made.status_code == 201, made.text
    event_id: str = made.json()["id"]
    return event_id


def people(on: LiveServer) -> tuple[Someone, list[Someone], list[Someone]]:
    """The referee (the organiser) and the teams' players, their accounts made on ``on``."""
    referee = account(on, "Referee", f"{NET}.1")
    red = [account(on, f"Red{i}", f"{NET}.{1 + i}") for i in range(1, 5)]
    blue = [account(on, f"Blue{i}", f"{NET}.{5 + i}") for i in range(1, 5)]
    befriend(referee, *red, *blue)
    return referee, red, blue


def table_of(person: Someone, event_id: str) -> str:
    url: str = person.http.get(f"/api/events/{event_id}").json()["me"]["table"]
    return url.removeprefix("/table/")


def read_at_once(servers: list[LiveServer], path: str, times: int = 8) -> None:
    """Ask every server for ``path`` ``times`` times, from as many threads at once (each reading
    of an event's page sees to the event: its absent, its next stage)."""
    import httpx

    def read(base: str) -> None:
        with httpx.Client(base_url=base, timeout=20) as http:
            for _ in range(times):
                assert http.get(path).status_code == 200

    with ThreadPoolExecutor(max_workers=2 * len(servers)) as pool:
        for done in [pool.submit(read, s.base) for s in servers for _ in (1, 2)]:
            done.result()


def wait(what: Callable[[], bool], why: str, timeout: float = 30) -> None:
    end = time.monotonic() + timeout
    while not what():
        assert time.monotonic() < end, why
        time.sleep(0.2)


def stage_listed(person: Someone, event_id: str) -> int:
    """The event's stage as the lobby's list says (``GET /api/events``, which begins nothing)."""
    stage: int = next(e for e in person.http.get("/api/events").json()["events"] if e["id"] == event_id)["stage"]
    return stage


def stand_ins(event: Message) -> list[tuple[int, str, str]]:
    return sorted((e["details"]["table"], e["details"]["seat"], e["details"]["player"])
                  for e in event["log"] if e["action"] == "stand_in")


def starts(event: Message) -> list[tuple[str | None, int]]:
    return [(e["by"], e["details"]["stage"]) for e in event["log"] if e["action"] == "start"]


def news_of(lobby: Live, event_id: str, total: int = 1, timeout: float = 30) -> int:
    """Read a lobby connection until it has had ``total`` news of the event in all (the stages
    begun, one by one: ``{"type": "event", "id": ..., "stage": n}``, naming nothing else), and what
    comes soon after: how many."""
    def count() -> int:
        news = [m for m in lobby.messages if m["type"] == "event"]
        assert news == [{"type": "event", "id": event_id, "stage": n} for n in range(1, len(news) + 1)], news
        return len(news)

    end = time.monotonic() + timeout
    while count() < total:
        left = end - time.monotonic()
        assert left > 0, f"{count()} news of {event_id} in the lobby, {total} waited for"
        lobby.receive(left)
    lobby.drain(0.3)
    return count()


def points_of(person: Someone, event_id: str) -> dict[str, float]:
    """Each team's points in the event's ranking, as ``person``'s page reads it."""
    event = person.http.get(f"/api/events/{event_id}").json()
    return {r["entrant"]: r["points"] for r in event["rankings"][0]["rows"]}


def close_all(*tables: dict[str, Live]) -> None:
    for table in tables:
        for live in table.values():
            live.close()


def test_the_server_that_runs_each_table_stands_in_for_the_absent_once(
        database: str, redis_url: str, tmp_path: Path) -> None:
    """Made and started through server A; six players come to their tables through server B (B
    runs both tables), Blue2 and Red4 never come.  Within the grace nobody is stood in for; after
    it both servers' event pages are read over and over at once: one stand-in per absent seat,
    made by B (whose tables they are), none for those who came, the same on either page; the
    match is played to its end and its results agree with the records."""
    rng = random.Random(43)
    clock = SetClock(1_796_120_000.0)
    with ExitStack() as stack:
        a = stack.enter_context(server(database, redis_url, tmp_path, clock))
        b = stack.enter_context(server(database, redis_url, tmp_path, clock))
        referee, red, blue = people(a)
        event_id = team_match(referee, red, blue, "Two servers 1")
        # lobby connections: a player's on A and on B, and on B a guest's and another account's
        outsider = account(a, "Outsider", f"{NET}.99")
        lobbies = {"A": Live(f"{a.ws_base}/ws/lobby", red[0].cookie_header()),
                   "B": Live(f"{b.ws_base}/ws/lobby", blue[3].cookie_header())}
        strangers = [Live(f"{b.ws_base}/ws/lobby", ""), Live(f"{b.ws_base}/ws/lobby", outsider.cookie_header())]
        started = referee.http.post(f"/api/events/{event_id}/start")
        assert started.status_code == 200, started.text
        # the stage begun through A is news in both players' lobbies (B's through Redis), and
        # nobody else hears of the event
        assert {k: news_of(lobby, event_id) for k, lobby in lobbies.items()} == {"A": 1, "B": 1}
        for stranger in strangers:
            stranger.drain(0.5)
            assert [m for m in stranger.messages if m["type"] == "event"] == []
            assert event_id not in json.dumps(stranger.messages)
            stranger.close()
        one, two = table_of(red[0], event_id), table_of(blue[2], event_id)
        # Blue2 (table 1, W) and Red4 (table 2, W) never come; the others come through B
        seated = {one: {"N": red[0], "E": blue[0], "S": red[1]}, two: {"N": blue[2], "E": red[2], "S": blue[3]}}
        for person in (p for at in seated.values() for p in at.values()):
            person.rebind(b)
        lives = {m: {seat: p.connect(m) for seat, p in at.items()} for m, at in seated.items()}
        for table in lives.values():
            for live in table.values():
                live.until(lambda s: s["phase"] != "waiting")
        assert owner_of(one) == owner_of(two) == node_of(b)
        came = {m: sorted(p.id for p in at.values()) for m, at in seated.items()}
        tables, matches = stored(database, event_id)
        assert [(t[2], t[3], t[4]) for t in tables] == [(one, False, came[one]), (two, False, came[two])]
        assert matches == 2

        # within the grace: nobody is stood in for, whichever page is read
        clock.t += 59
        read_at_once([a, b], f"/api/events/{event_id}")
        assert stand_ins(referee.http.get(f"/api/events/{event_id}").json()) == []

        # after it: both pages read over and over at once, while B sees to its tables
        clock.t += 2
        read_at_once([a, b], f"/api/events/{event_id}")
        wait(lambda: len(stand_ins(referee.http.get(f"/api/events/{event_id}").json())) >= 2,
             "the absent were not stood in for")
        read_at_once([a, b], f"/api/events/{event_id}")
        for person in (referee, red[0]):  # the page through A, and through B
            event = person.http.get(f"/api/events/{event_id}").json()
            assert stand_ins(event) == [(1, "W", "Blue2"), (2, "W", "Red4")]
            assert [t["stand_ins"] for t in event["tables"]] == [["W"], ["W"]]
        tables, _ = stored(database, event_id)
        assert [(t[3], t[4]) for t in tables] == [(True, came[one]), (True, came[two])]
        for table in lives.values():
            state = next(iter(table.values())).until(lambda s: s["table"]["seats"]["W"]["auto"])
            assert not any(state["table"]["seats"][s]["auto"] for s in "NES")

        # the match is played to its end at B; its results, read through A, agree with the records
        drive(lives[one], rng, finished(1))
        drive(lives[two], rng, finished(1))
        close_all(*lives.values())
        for lobby in lobbies.values():  # boards finished are no news: the pages see them at their next read
            assert news_of(lobby, event_id) == 1
            lobby.close()
        event = referee.http.get(f"/api/events/{event_id}").json()
        assert event["status"] == "over"
        assert stand_ins(event) == [(1, "W", "Blue2"), (2, "W", "Red4")]
        records = [json.loads(line) for line in
                   referee.http.get(f"/api/events/{event_id}/records.jsonl").text.splitlines()]
        assert [(r["seating"]["table"], r["match"]) for r in records] == [(1, one), (2, two)]
        for r in records:
            absent = "Blue2" if r["seating"]["table"] == 1 else "Red4"
            assert r["players"]["W"] == {"name": absent, "computer": None, "auto": True}
            assert not any(r["players"][s]["auto"] for s in "NES")
        by_hand = tally(records, "红")
        assert board_row(event, 1)["teams"][0]["points"]["红"] == by_hand[1]
        assert {r["entrant"]: r["points"] for r in event["rankings"][0]["rows"]} == {"红": by_hand[1],
                                                                                   "蓝": -by_hand[1]}

        # each server keeps the scores it worked out; an adjustment made through the other is
        # seen at once all the same (the page read through B before and after one made through A)
        assert points_of(red[0], event_id) == {"红": by_hand[1], "蓝": -by_hand[1]}
        penalty = {"type": "penalty", "entrant": "红", "points": -30, "reason": "slow play"}
        assert referee.http.post(f"/api/events/{event_id}/adjustments", json=penalty).status_code == 200
        assert points_of(red[0], event_id) == {"红": by_hand[1] - 30, "蓝": -by_hand[1]}
        t2 = next(r for r in records if r["seating"]["table"] == 2)
        raw = {"N": -100, "E": 0, "S": 0, "W": 100}  # table 1: 红 N–S −100
        correction = {"type": "correction", "table": 1, "board": 1, "raw": raw, "reason": "pig at the wrong seat"}
        red[0].rebind(a)
        assert points_of(red[0], event_id) == {"红": by_hand[1] - 30, "蓝": -by_hand[1]}  # A's scores, kept
        red[0].rebind(b)
        assert referee.http.post(f"/api/events/{event_id}/adjustments", json=correction).status_code == 200
        fixed = -100 - ns_result(t2["raw"])
        for via in (b, a):
            red[0].rebind(via)
            assert points_of(red[0], event_id) == {"红": fixed - 30, "蓝": -fixed}


def test_each_stage_with_a_start_time_is_begun_once_by_two_servers(
        database: str, redis_url: str, tmp_path: Path) -> None:
    """A team match of two sessions with a start time, made through server A; server B starts
    after it was made, so both servers watch it.  When the start time passes, and again when both
    tables of session 1 have finished their board (table 1 run by A, table 2 by B, played at the
    same time), both servers' pages are read at once: each session is begun once — one ``start``
    in the referee's log, two tables stored, two matches made — and by the servers, nobody
    asking."""
    rng = random.Random(47)
    clock = SetClock(1_796_130_000.0)
    at = clock.t + 600
    with ExitStack() as stack:
        a = stack.enter_context(server(database, redis_url, tmp_path, clock))
        referee, red, blue = people(a)
        event_id = team_match(referee, red, blue, "Two servers 2", sessions=2,
                              starts_at=datetime.fromtimestamp(at, UTC).isoformat())
        b = stack.enter_context(server(database, redis_url, tmp_path, clock))  # watches it from its start
        page = f"/api/events/{event_id}"

        # the start time passes: both servers see the first session due
        read_at_once([a, b], page)
        assert stage_listed(referee, event_id) == 0
        clock.t = at + 1
        read_at_once([a, b], page)
        wait(lambda: stage_listed(referee, event_id) == 1, "session 1 did not begin")
        read_at_once([a, b], page)
        tables, matches = stored(database, event_id)
        assert [t[:2] for t in tables] == [(1, 1), (1, 2)] and matches == 2
        assert starts(referee.http.get(page).json()) == [(None, 1)]

        # table 1 comes through A, table 2 through B: each server runs one
        one, two = table_of(red[0], event_id), table_of(blue[2], event_id)
        seated = {one: {"N": red[0], "E": blue[0], "S": red[1], "W": blue[1]},
                  two: {"N": blue[2], "E": red[2], "S": blue[3], "W": red[3]}}
        for person in seated[two].values():
            person.rebind(b)
        lives = {m: {seat: p.connect(m) for seat, p in people_at.items()} for m, people_at in seated.items()}
        for table in lives.values():
            for live in table.values():
                live.until(lambda s: s["phase"] != "waiting")
        assert (owner_of(one), owner_of(two)) == (node_of(a), node_of(b))

        # both tables play their board at once; as they finish, both servers' pages are read
        with ThreadPoolExecutor(max_workers=2) as pool:
            playing = [pool.submit(drive, lives[m], random.Random(rng.random()), finished(1)) for m in (one, two)]
            for done in playing:
                done.result()
        read_at_once([a, b], page)
        wait(lambda: stage_listed(referee, event_id) == 2, "session 2 did not begin")
        read_at_once([a, b], page)
        close_all(*lives.values())

        tables, matches = stored(database, event_id)
        assert [t[:2] for t in tables] == [(1, 1), (1, 2), (2, 1), (2, 2)] and matches == 4
        for person in (referee, red[2]):  # the page through A, and through B
            event = person.http.get(page).json()
            assert starts(event) == [(None, 1), (None, 2)]
            assert (event["status"], event["stage"], event["session"]) == ("playing", 2, 2)
            assert not stand_ins(event)
            assert [(t["stage"], t["played"]) for t in event["tables"]] == [(1, 1), (1, 1), (2, 0), (2, 0)]
        # session 2's tables are where its players are sent
        second = {t[1]: t[2] for t in tables if t[0] == 2}
        assert sorted({table_of(p, event_id) for p in (*red, *blue)}) == sorted(second.values())
