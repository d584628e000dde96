"""The history's matches through the API (``docs/web-protocol.md``, HTTP): a single-player match
left before any deal was finished — its person has started another since — is ``abandoned``, not
to be continued, and ``DELETE /api/matches/{id}`` deletes it with every row stored of it.  Whatever
else is asked to be deleted — a match of someone else, one with finished deals, a table for
people, one a page has open, an unknown or malformed id, a request from another site — is refused
with a catalog message in both languages and changes nothing.  Run on SQLite and on PostgreSQL
(:data:`helpers.database.STORES`); the revision that taught the store which matches are single-player
(``0003``) tells the matches of an older database apart.
"""

from __future__ import annotations

from typing import Any

import pytest
from alembic import command
from sqlalchemy import create_engine, func, insert, select
from starlette.applications import Starlette
from starlette.testclient import TestClient

from gongzhu.server import migrations as mig
from gongzhu.server.identity import Identity
from gongzhu.server.store import _ACTIONS, _DEALS, MATCH_PLAYERS, Store
from helpers.client import LOCAL, Browser, all_matches, local_client, new_match, play_deal, refused, seating, user_of
from helpers.database import STORES

pytestmark = pytest.mark.parametrize("db_url", STORES, indirect=True)


def store_of(client: TestClient) -> Store:
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    return store


def someone_else(client: TestClient) -> TestClient:
    """Another browser (no session yet) on the same server."""
    app = client.app
    assert isinstance(app, Starlette)
    return local_client(app)


def rows_of(store: Store, match_id: str) -> dict[str, int]:
    """How many rows of each table that refers to a match hold ``match_id``."""
    with store.engine.connect() as c:
        return {t.name: int(c.scalar(select(func.count()).select_from(t).where(t.c.match_id == match_id)) or 0)
                for t in (_ACTIONS, _DEALS, MATCH_PLAYERS)}


def delete(client: TestClient, match_id: str, **headers: str) -> Any:
    return client.delete(f"/api/matches/{match_id}", headers={"origin": LOCAL, **headers})


def summaries(client: TestClient) -> dict[str, dict[str, Any]]:
    return {m["match_id"]: m for m in client.get("/api/matches").json()}


def test_a_match_left_before_a_deal_is_abandoned_and_deleted_with_its_rows(client: TestClient) -> None:
    played = new_match(client, seed=1)
    play_deal(client, played)
    left = new_match(client, seed=2)
    with client.websocket_connect(f"/ws/{left}") as ws:  # the computers' declarations are stored
        Browser(ws).settle()
    store = store_of(client)
    assert rows_of(store, left)["actions"] > 0
    current = new_match(client, seed=3)
    listed = summaries(client)
    assert {k: (m["solo"], m["abandoned"], m["deals"]) for k, m in listed.items()} == {
        played: (True, False, 1), left: (True, True, 0), current: (True, False, 0)}
    assert client.get(f"/api/matches/{left}").json()["abandoned"] is True
    assert client.get(f"/api/matches/{current}").json()["abandoned"] is False

    response = delete(client, left)
    assert response.status_code == 200 and response.json() == {"deleted": left}
    assert response.headers["cache-control"] == "no-store"
    assert rows_of(store, left) == {"actions": 0, "deals": 0, "match_players": 0}
    assert store.match(left) is None and left not in all_matches(client)
    assert client.get(f"/api/matches/{left}").status_code == 404
    assert set(summaries(client)) == {played, current}
    refused(delete(client, left), 404, "server.delete_unknown")  # once is all
    # The match being played (the newest) may go too, once no page has it open.
    assert delete(client, current).status_code == 200
    assert set(summaries(client)) == {played}
    person = user_of(client)
    assert (person.matches, person.practice_deals) == (1, 1)  # the person's record is as it was


def test_what_may_not_be_deleted_is_refused_and_kept(client: TestClient) -> None:
    played = new_match(client, seed=1)
    play_deal(client, played)
    mine = new_match(client, seed=2)
    table = client.post("/api/tables", json={}).json()["table_id"]  # a table for people, waiting
    with client.websocket_connect(f"/ws/{mine}") as ws:  # a page has it open
        Browser(ws).settle()
        refused(delete(client, mine), 409, "server.delete_open")
    before = {m: store_of(client).match(m) for m in (played, mine, table)}
    body = refused(delete(client, played), 409, "server.delete_has_deals")
    assert body["params"] == {"match": f'"{played}"'}
    refused(delete(client, table), 409, "server.delete_table")
    # Someone else: not theirs, whatever the match.
    other = someone_else(client)
    new_match(other)
    for match_id in (mine, played, table):
        refused(delete(other, match_id), 403, "server.delete_not_yours")
    # No session, another site, an unknown id, a malformed one.
    stranger = someone_else(client)
    refused(delete(stranger, mine), 401, "server.no_session")
    for origin in ("http://evil.example", "null"):
        response = delete(client, mine, origin=origin)
        assert response.status_code == 403 and "another site" in response.json()["error"]
    refused(delete(client, "m-000000000000"), 404, "server.delete_unknown")
    for bad in ("m-%00", "m" * 65, "m%20x", "%ED%A0%80"):
        body = refused(delete(client, bad), 400, "server.delete_bad_id")
        assert len(body["error"]) < 200
    assert {m: store_of(client).match(m) for m in (played, mine, table)} == before
    assert delete(client, mine).status_code == 200  # refused only for what it was


def test_a_table_of_several_people_is_never_deleted(client: TestClient) -> None:
    table = client.post("/api/tables", json={"visibility": "public", "turn_seconds": None,
                                               "expose_seconds": None}).json()["table_id"]
    guest = someone_else(client)
    guest.get("/api/me")
    with guest.websocket_connect(f"/ws/{table}") as ws:
        browser = Browser(ws)
        browser.send({"type": "sit", "seat": "N"})
        while not (browser.receive()["type"] == "state" and browser.state["table"]["seats"]["N"]["name"]):
            pass
    info = store_of(client).match(table)
    assert info is not None and not info.solo and sum(s is not None for s in info.seating.seats) == 2
    refused(delete(client, table), 409, "server.delete_table")
    refused(delete(guest, table), 403, "server.delete_not_yours")
    assert store_of(client).match(table) == info
    assert [(m["solo"], m["abandoned"]) for m in client.get("/api/matches").json()] == [(False, False)]


def test_older_databases_learn_which_matches_are_single_player(db_url: str) -> None:
    """Revision 0003 marks as single-player the started private tables without timers whose only
    person (seated, dealt or charged) is their host, and nothing else."""
    store = Store(db_url)
    try:
        people = Identity(store)
        host, other = people.new_guest(), people.new_guest()
        me, them = (host.id, host.name), (other.id, other.name)
        made = {
            "m-solo": (True, seating(me)),
            "m-waiting": (False, seating(me, status="waiting", visibility="public", turn_seconds=30,
                                         expose_seconds=20)),
            "m-public": (False, seating(me, visibility="public")),
            "m-timers": (False, seating(me, turn_seconds=30, expose_seconds=20)),
            "m-two": (False, seating(me, seats=(them, None, me, None))),
            "m-dealt": (False, seating(me, dealt_to=(other.id, None, host.id, None))),
            "m-charged": (False, seating(me)),
        }
        for match_id, (_solo, seats) in made.items():
            store.create_match(match_id=match_id, preset="online", options={}, speed="normal", seed=1, seating=seats)
        with store.engine.begin() as c:
            c.execute(insert(MATCH_PLAYERS).values(match_id="m-charged", user_id=other.id, deals=1, total=0,
                                                   pig=False, last="2026-01-01"))
    finally:
        store.close()
    engine = create_engine(db_url)  # without the store's pragmas: SQLite copies the table to drop a column
    try:
        with engine.connect() as c:
            cfg = mig.config()
            cfg.attributes["connection"] = c
            command.downgrade(cfg, "0002")
            c.commit()
    finally:
        engine.dispose()
    store = Store(db_url)  # upgraded again
    try:
        assert {m.match_id: m.solo for m in store.matches()} == {k: solo for k, (solo, _s) in made.items()}
    finally:
        store.close()
