"""Beginning a stage of an event is one transaction (docs/tournaments.md, Events on the server):
a server that fails half way through storing a stage's tables leaves the event as it was — no
stage begun, no table, no match of it, nothing in the log (a Swiss round's pairing included) —
and the stage begins whole at the next try.  On a SQLite file and on PostgreSQL
(``helpers.database.STORES``), the application in the test process (the store's
``create_match`` made to fail at the stage's second table), with no par computed for the boards;
the Swiss of three teams on a live server, its people playing its first round.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from starlette.testclient import TestClient

from gongzhu.server.app import create_app
from gongzhu.server.store import EVENT_LOG, MATCHES
from helpers.client import local_client
from helpers.clock import SetClock
from helpers.database import STORES
from helpers.live import PASSWORD
from helpers.servers import LiveServer
from test_events_forms import TEAMS, Night, create, night, play_round, ranking_by_hand, team_tally

RED = [f"Red{i}" for i in range(1, 5)]
BLUE = [f"Blue{i}" for i in range(1, 5)]


@pytest.fixture
def client(db_url: str, tmp_path: Path) -> Iterator[TestClient]:
    """The application on ``db_url``, no par computed for an event's boards."""
    with local_client(create_app(db_url, pace=0, par_replays=0, static_dir=tmp_path / "no-static")) as c:
        yield c


@pytest.fixture
def clock() -> SetClock:
    return SetClock(1_796_085_000.0)


@pytest.fixture
def server(db_url: str, tmp_path: Path, clock: SetClock) -> Iterator[LiveServer]:
    """A live server; every person comes from an address of their own (through the trusted
    proxy), since the server lets ten accounts be made from one address."""
    with LiveServer(db_url, static_dir=tmp_path / "no-static", now=clock, trusted_proxies=["127.0.0.1"]) as s:
        yield s


def failing_at_the_second_table(store: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make ``store.create_match`` fail at its second call (the stage's second table); the match
    ids it was asked to store, in order."""
    real: Callable[..., Any] = store.create_match
    tried: list[str] = []

    def fails_at_the_second(**kwargs: Any) -> Any:
        tried.append(kwargs["match_id"])
        if len(tried) == 2:
            raise ConnectionError("the database went away")
        return real(**kwargs)

    monkeypatch.setattr(store, "create_match", fails_at_the_second)
    return tried


def as_referee(client: TestClient) -> None:
    """Accounts for the referee and both teams, each player the referee's friend (an organiser
    lists friends only); the client is left signed in as the referee."""
    for name in ["Referee", *RED, *BLUE]:
        client.cookies.clear()
        made = client.post("/api/account", json={"name": name, "password": PASSWORD})
        assert made.status_code == 200, made.text
        if name != "Referee":
            assert client.post("/api/people/Referee/friend").json()["state"] == "asked"
    client.cookies.clear()
    signed = client.post("/api/login", json={"name": "Referee", "password": PASSWORD})
    assert signed.status_code == 200, signed.text
    for name in [*RED, *BLUE]:
        assert client.post(f"/api/people/{name}/friend").json()["state"] == "friends"


def matches_of(client: TestClient, event_id: str) -> list[str]:
    store = client.app.state.store  # type: ignore[attr-defined]
    with store.engine.connect() as c:
        return sorted(c.scalars(select(MATCHES.c.id).where(MATCHES.c.challenge == event_id)).all())


def log_size(client: TestClient, event_id: str) -> int:
    store = client.app.state.store  # type: ignore[attr-defined]
    with store.engine.connect() as c:
        return int(c.scalar(select(func.count()).select_from(EVENT_LOG).where(EVENT_LOG.c.event_id == event_id)))


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_stage_that_fails_half_way_leaves_nothing_and_begins_whole_next_time(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    as_referee(client)
    teams = [{"name": "红", "players": RED}, {"name": "蓝", "players": BLUE}]
    made = client.post("/api/events", json={"name": "会内赛", "preset": "partners", "boards": 2, "sessions": 1,
                                            "turn_seconds": 120, "grace_seconds": 60, "entrants": teams})
    assert made.status_code == 201, made.text
    event_id: str = made.json()["id"]
    logged = log_size(client, event_id)

    tried = failing_at_the_second_table(client.app.state.store, monkeypatch)  # type: ignore[attr-defined]
    failed = client.post(f"/api/events/{event_id}/start")
    assert failed.status_code == 500  # the server's unexpected error; the server goes on
    assert len(tried) == 2  # the first table's match was stored in the transaction, then undone
    event = client.get(f"/api/events/{event_id}").json()
    assert event["stage"] == 0 and event["tables"] == []
    assert matches_of(client, event_id) == []
    assert log_size(client, event_id) == logged

    monkeypatch.undo()
    started = client.post(f"/api/events/{event_id}/start")
    assert started.status_code == 200, started.text
    event = client.get(f"/api/events/{event_id}").json()
    assert event["stage"] == 1
    assert sorted(t["table"] for t in event["tables"]) == [1, 2]
    kept = matches_of(client, event_id)
    assert len(kept) == 2 and not set(kept) & set(tried)
    assert log_size(client, event_id) == logged + 1  # the start, once
    again = client.post(f"/api/events/{event_id}/start")  # a second begin of a running stage is refused
    assert again.status_code == 409
    assert matches_of(client, event_id) == kept


def pairings(n: Night) -> list[dict[str, Any]]:
    """The Swiss pairings in the event's log, in order."""
    return [e["details"] for e in n.summary()["log"] if e["action"] == "pairing"]


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_swiss_round_that_fails_half_way_keeps_no_pairing(server: LiveServer,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Three teams: each round a match at two tables and a bye.  Both rounds' begins fail at the
    second table once; each leaves no pairing, stage, table or match, and the next begin pairs
    the round once, the second round by the standings after the first."""
    store = server.app.state.store
    n = night(server, [(t, [f"{t}{i}" for i in range(1, 5)]) for t in TEAMS])
    made = create(n, "teams", "partners", 2)
    assert made["swiss"] and made["stages"] == 2
    rng = random.Random(16)
    number = {t: i + 1 for i, t in enumerate(TEAMS)}
    plays: dict[int, set[tuple[int, int]]] = {}
    for round_ in (1, 2):
        before = n.summary()
        tried = failing_at_the_second_table(store, monkeypatch)
        failed = n.organiser.http.post(f"{n.url}/start")
        assert failed.status_code == 500
        assert len(tried) == 2
        after = n.summary()
        assert after["stage"] == round_ - 1 and after["tables"] == before["tables"]
        assert after["log"] == before["log"]  # no pairing, no start
        with store.engine.connect() as c:
            stored = set(c.scalars(select(MATCHES.c.id).where(MATCHES.c.challenge == n.event_id)).all())
        assert not stored & set(tried)

        monkeypatch.undo()
        standing, _ = team_tally(n.records(), TEAMS)
        started = n.organiser.http.post(f"{n.url}/start")
        assert started.status_code == 200, started.text
        [pairing] = pairings(n)[round_ - 1:]
        assert len(pairings(n)) == round_ and pairing["round"] == round_
        [(home, away)] = pairing["matches"]
        assert {home, away, pairing["bye"]} == {1, 2, 3}
        if round_ == 2:  # the leader after round 1 plays; the team that had the bye does not get another
            assert pairing["bye"] != pairings(n)[0]["bye"]
            assert number[ranking_by_hand(standing)[0]] in (home, away)
        plays[round_] = {(round_, 1), (round_, 2)}
        play_round(n, round_, rng, plays)
    assert n.summary()["status"] == "over"
