"""The people one plays with (docs/people.md), on a live server: friends (ask, accept, online, at
which public table, remove), blocks (the two never share a table: neither sits nor watches at
the other's; the blocked person is not told, and "Play now" never seats them together), reports,
invitations to a table (friends only, shown in the invitee's list until dismissed), and the host
having a person leave a seat before the start.  Guests have none of it; every refusal is a
catalog message."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, insert, select, update

from gongzhu.messages import render
from gongzhu.server.identity import AccountError
from gongzhu.server.names import name_key, name_skeleton
from gongzhu.server.people import INVITATION_MINUTES, INVITATIONS_AT_ONCE, REQUESTS_WAITING, People
from gongzhu.server.store import FRIENDS, INVITATIONS, REPORTS, USERS, Store
from helpers.database import STORES
from helpers.live import Someone, account
from helpers.servers import LiveServer
from test_tables import new_table


@pytest.fixture
def server(db_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(db_url, static_dir=tmp_path / "no-static") as s:
        yield s


def people(person: Someone) -> dict[str, Any]:
    r = person.http.get("/api/people")
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def refused(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["code"] == code and body["error"] and body["message_zh"], body


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_friends_ask_accept_see_each_other_and_part(server: LiveServer) -> None:
    ann, bo = account(server, "Ann"), account(server, "Bo")
    assert ann.http.post("/api/people/bo/friend").json() == {"name": "Bo", "state": "asked"}
    assert people(ann)["asked"] == ["Bo"] and people(bo)["asking"] == ["Ann"]
    assert bo.http.post("/api/people/Ann/friend").json() == {"name": "Ann", "state": "friends"}
    table_id = new_table(bo, turn_seconds=30)["table_id"]  # Bo hosts a public table: Ann sees it
    mine = people(ann)
    assert mine["friends"] == [{"name": "Bo", "online": True, "table": {"id": table_id, "url": f"/table/{table_id}"}}]
    assert mine["asked"] == [] and people(bo)["friends"][0]["name"] == "Ann"
    assert ann.http.delete("/api/people/Bo/friend").json() == {"name": "Bo", "state": None}
    assert people(ann)["friends"] == [] and people(bo)["friends"] == []
    # Refusals: a guest, an unknown name, oneself.
    guest = Someone(server)
    refused(guest.http.post("/api/people/Ann/friend"), 403, "server.people_account_needed")
    assert people(guest) == {"friends": [], "asked": [], "asking": [], "blocked": [], "invitations": [],
                             "account": False}
    refused(ann.http.post("/api/people/Nobody/friend"), 404, "server.account_unknown")
    refused(ann.http.post("/api/people/ann/friend"), 400, "server.people_yourself")


def test_a_block_keeps_two_people_apart_and_the_blocked_is_not_told(server: LiveServer) -> None:
    ann, bo, cy = account(server, "Ann"), account(server, "Bo"), account(server, "Cy")
    ann.http.post("/api/people/Bo/friend")
    bo.http.post("/api/people/Ann/friend")
    earlier = new_table(ann, turn_seconds=30)["table_id"]
    assert ann.http.post(f"/api/tables/{earlier}/invite", json={"name": "Bo"}).status_code == 201
    assert len(people(bo)["invitations"]) == 1
    assert ann.http.post("/api/people/Bo/block").json() == {"name": "Bo", "blocked": True}
    assert people(bo)["invitations"] == []  # to a table Bo cannot sit at
    assert people(ann)["friends"] == [] and people(ann)["blocked"] == ["Bo"] and people(bo)["friends"] == []
    # Bo is not told: asking Ann reads as asked, and Ann never sees it.
    assert bo.http.post("/api/people/Ann/friend").json()["state"] == "asked"
    assert people(ann)["asking"] == []
    refused(ann.http.post("/api/people/Bo/friend"), 409, "server.people_blocked_by_you")
    # Bo can neither sit at nor watch Ann's table; Ann cannot sit at Bo's.
    ann_table = new_table(ann, turn_seconds=30)["table_id"]
    hosting = ann.connect(ann_table)
    hosting.until(lambda s: s["phase"] == "waiting")
    watching = bo.connect(ann_table)
    reply = watching.receive()
    assert reply["type"] == "error" and reply["code"] == "server.table_closed"
    bo_table = new_table(bo, turn_seconds=30)["table_id"]
    bo_hosting = bo.connect(bo_table)
    bo_hosting.until(lambda s: s["phase"] == "waiting")
    ann_at_bo = ann.connect(bo_table)
    assert ann_at_bo.receive()["code"] == "server.table_closed"
    # "Play now" seats Cy at a waiting table, but never Bo at Ann's.
    assert cy.http.post("/api/tables/play-now", json={}).json()["table_id"] in (ann_table, bo_table)
    joined = bo.http.post("/api/tables/play-now", json={}).json()["table_id"]
    assert joined != ann_table
    # Lifted, Bo may come to Ann's table again.
    assert ann.http.delete("/api/people/Bo/block").json() == {"name": "Bo", "blocked": False}
    again = bo.connect(ann_table)
    assert again.receive()["type"] == "state"
    for live in (hosting, bo_hosting, again):
        live.close()


def test_reports_are_kept_for_the_operator(server: LiveServer) -> None:
    ann, bo = account(server, "Ann"), account(server, "Bo")
    table_id = new_table(bo)["table_id"]
    r = ann.http.post("/api/people/Bo/report", json={"reason": "  rude in the chat ", "match_id": table_id})
    assert r.status_code == 201 and r.json() == {"name": "Bo", "reported": True}
    assert ann.http.post("/api/people/Bo/report", json={"reason": ""}).status_code == 400
    assert ann.http.post("/api/people/Bo/report", json={"reason": "x" * 501}).status_code == 400
    refused(ann.http.post("/api/people/Bo/report", json={"reason": " \n "}), 400, "people.reportEmpty")
    refused(ann.http.post("/api/people/Bo/report", json={"reason": "rude", "match_id": "m-nope"}), 404,
            "server.unknown_table")
    with server.app.state.store.engine.connect() as c:
        rows = c.execute(select(REPORTS.c.reason, REPORTS.c.match_id)).all()
    assert [tuple(r) for r in rows] == [("rude in the chat", table_id)]
    assert bo.http.get("/api/people").json()["blocked"] == []  # (a report blocks nobody)
    # Three a day about one person: a grievance repeated does not bury the operator's list.
    cy = account(server, "Cy")
    for _ in range(2):
        assert ann.http.post("/api/people/Bo/report", json={"reason": "again"}).status_code == 201
    refused(ann.http.post("/api/people/Bo/report", json={"reason": "and again"}), 429, "server.people_reports_of_one")
    assert ann.http.post("/api/people/Cy/report", json={"reason": "rude too"}).status_code == 201
    assert cy.http.post("/api/people/Bo/report", json={"reason": "rude to me"}).status_code == 201


def test_a_friend_is_invited_to_a_table_and_dismisses_it(server: LiveServer) -> None:
    ann, bo, cy = account(server, "Ann"), account(server, "Bo"), account(server, "Cy")
    ann.http.post("/api/people/Bo/friend")
    bo.http.post("/api/people/Ann/friend")
    private = new_table(ann, visibility="private", turn_seconds=30)
    r = ann.http.post(f"/api/tables/{private['table_id']}/invite", json={"name": "Bo"})
    assert r.status_code == 201, r.text
    invitations = people(bo)["invitations"]
    assert [(i["from"], i["url"]) for i in invitations] == [("Ann", private["url"])]
    assert "invite=" in invitations[0]["url"]  # a private table's address carries its invitation
    refused(ann.http.post(f"/api/tables/{private['table_id']}/invite", json={"name": "Cy"}), 409,
            "server.people_not_friends")
    cy_table = new_table(cy)["table_id"]
    refused(ann.http.post(f"/api/tables/{cy_table}/invite", json={"name": "Bo"}), 409,
            "server.people_not_your_table")
    assert bo.http.delete(f"/api/people/invitations/{invitations[0]['id']}").json() == {"dismissed": True}
    assert people(bo)["invitations"] == []
    assert people(cy)["invitations"] == []  # nothing of Ann's private table reaches anyone else
    assert ann.http.post(f"/api/tables/{private['table_id']}/invite", content=b"{",
                         headers={"Content-Type": "application/json"}).status_code == 400


def _aged(server: LiveServer, minutes: float, **which: Any) -> None:
    """Make the stored invitations matching ``which`` (columns) ``minutes`` older, as if that
    time had passed since they were sent (and dismissed)."""
    table = INVITATIONS
    with server.app.state.store.engine.begin() as c:
        for row in c.execute(select(table).where(*(table.c[k] == v for k, v in which.items()))).all():
            def earlier(stamp: str | None) -> str | None:
                return None if stamp is None else (datetime.fromisoformat(stamp)
                                                   - timedelta(minutes=minutes)).isoformat()
            c.execute(update(table).where(table.c.id == row.id).values(created=earlier(row.created),
                                                                       dismissed=earlier(row.dismissed)))


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_dismissed_invitation_is_not_sent_again_and_invitations_are_bounded(server: LiveServer) -> None:
    ann, bo = account(server, "Ann"), account(server, "Bo")
    ann.http.post("/api/people/Bo/friend")
    bo.http.post("/api/people/Ann/friend")
    table = new_table(ann, visibility="private", turn_seconds=30)["table_id"]
    invite = f"/api/tables/{table}/invite"
    assert ann.http.post(invite, json={"name": "Bo"}).status_code == 201
    first = people(bo)["invitations"]
    # asked again at once: the same invitation, not a new one at the top
    assert ann.http.post(invite, json={"name": "Bo"}).status_code == 201
    assert people(bo)["invitations"] == first
    # a minute later it comes back to the top, a new one in place of the old
    _aged(server, 1.5, from_user=ann.id)
    assert ann.http.post(invite, json={"name": "Bo"}).status_code == 201
    again = people(bo)["invitations"]
    assert len(again) == 1 and again[0]["created"] > first[0]["created"]
    # dismissed, it is not sent again while it would have shown
    assert bo.http.delete(f"/api/people/invitations/{again[0]['id']}").json() == {"dismissed": True}
    assert people(bo)["invitations"] == []
    refused(ann.http.post(invite, json={"name": "Bo"}), 409, "server.people_invitation_dismissed")
    assert people(bo)["invitations"] == []
    _aged(server, INVITATION_MINUTES + 1, from_user=ann.id)
    assert ann.http.post(invite, json={"name": "Bo"}).status_code == 201
    assert len(people(bo)["invitations"]) == 1

    # at most INVITATIONS_AT_ONCE of one person's show at a time: the rest wait for some to age
    now = datetime.now(UTC)
    with server.app.state.store.engine.begin() as c:
        for n in range(INVITATIONS_AT_ONCE - 1):
            c.execute(insert(INVITATIONS).values(to_user=bo.id, from_user=ann.id, match_id=f"m-{n}",
                                                 url=f"/table/m-{n}", created=now.isoformat()))
        c.execute(insert(INVITATIONS).values(to_user=bo.id, from_user=ann.id, match_id="m-old",
                                             url="/table/m-old", created=(now - timedelta(days=2)).isoformat()))
    other = new_table(ann, turn_seconds=30)["table_id"]
    refused(ann.http.post(f"/api/tables/{other}/invite", json={"name": "Bo"}), 429, "server.people_invitations_many")
    assert len(people(bo)["invitations"]) == INVITATIONS_AT_ONCE
    _aged(server, INVITATION_MINUTES + 1, match_id="m-0")
    assert ann.http.post(f"/api/tables/{other}/invite", json={"name": "Bo"}).status_code == 201
    assert len(people(bo)["invitations"]) == INVITATIONS_AT_ONCE
    with server.app.state.store.engine.connect() as c:  # what stopped showing a day ago is gone
        assert c.execute(select(func.count()).select_from(INVITATIONS).where(
            INVITATIONS.c.match_id == "m-old")).scalar_one() == 0


def test_the_host_has_a_person_leave_a_seat_before_the_start(server: LiveServer) -> None:
    ann, bo = account(server, "Ann"), account(server, "Bo")
    table_id = new_table(ann)["table_id"]
    host, other = ann.connect(table_id), bo.connect(table_id)
    other.send({"type": "sit", "seat": "E"})
    host.until(lambda s: s["table"]["seats"]["E"]["name"] == "Bo")
    assert other.refused({"type": "remove", "seat": "S"})["code"] == "server.host_only"
    assert host.refused({"type": "remove", "seat": "W"})["code"] == "server.remove_nobody"
    assert host.refused(json.dumps({"type": "remove", "seat": "X"}))["message"]  # malformed
    host.send({"type": "remove", "seat": "E"})
    host.until(lambda s: s["table"]["seats"]["E"]["name"] is None)
    assert other.refused({"type": "sit", "seat": "E"})["code"] == "server.table_closed"
    # "Play now" never seats the removed person there either (a table of their own instead).
    assert bo.http.post("/api/tables/play-now", json={}).json()["table_id"] != table_id
    host.send({"type": "start"})
    host.until(lambda s: s["phase"] != "waiting")
    assert host.refused({"type": "remove", "seat": "N"})["code"] == "server.already_started"
    for live in (host, other):
        live.close()


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_person_the_host_removed_stays_removed_after_a_restart(db_url: str, tmp_path: Path) -> None:
    """Whom the host had leave a seat is kept with the table: once the server restarts on the same
    database and the table is loaded again, they may watch on but still not sit there (the same
    refusal as before), and "Play now" still never seats them there."""
    static = tmp_path / "no-static"
    first = LiveServer(db_url, static_dir=static)
    try:
        ann, bo = account(first, "Ann"), account(first, "Bo")
        table_id = new_table(ann)["table_id"]
        host, other = ann.connect(table_id), bo.connect(table_id)
        other.send({"type": "sit", "seat": "E"})
        host.until(lambda s: s["table"]["seats"]["E"]["name"] == "Bo")
        host.send({"type": "remove", "seat": "E"})
        host.until(lambda s: s["table"]["seats"]["E"]["name"] is None)
        assert other.refused({"type": "sit", "seat": "E"})["code"] == "server.table_closed"
        for live in (host, other):
            live.close()
    finally:
        first.stop()
    with LiveServer(db_url, static_dir=static) as second:
        for person in (ann, bo):
            person.rebind(second)
        host = ann.connect(table_id)
        host.until(lambda s: s["phase"] == "waiting")
        other = bo.connect(table_id)
        assert other.until(lambda s: s["phase"] == "waiting")["you"]["seat"] is None  # watching
        for seat in ("E", "W"):
            assert other.refused({"type": "sit", "seat": seat})["code"] == "server.table_closed"
        assert bo.http.post("/api/tables/play-now", json={}).json()["table_id"] != table_id
        host.drain()
        assert [s["name"] for s in host.state["table"]["seats"].values()] == [None, None, "Ann", None]
        for live in (host, other):
            live.close()


def shut_out(live: Any) -> list[dict[str, Any]]:
    """Read until the server closes ``live`` as it refuses a page at a table closed to its person
    (``server.table_closed``, 4403); what came before."""
    from websockets.exceptions import ConnectionClosed

    got: list[dict[str, Any]] = []
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            got.append(live.receive(10))
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403, closed.value
    assert [m["code"] for m in got if m["type"] == "error"] == ["server.table_closed"], got
    return got


def test_again_leaves_out_whom_a_block_keeps_apart(server: LiveServer) -> None:
    """Ann blocks Bad at the end of their match; Bad asks for 再来一局: his next table seats him
    alone, Ann's page is not sent there (nor told of it), and Ann asking for it is refused as a
    table closed to her."""
    import random

    from test_tables import drive, everyone_done

    ann, bad = account(server, "Ann"), account(server, "Bad")
    table_id = new_table(ann, options={"match_end": "deals:1"},
                         levels={"N": "random", "E": "random", "W": "random"})["table_id"]
    lives = {"S": ann.connect(table_id), "E": bad.connect(table_id)}
    lives["E"].send({"type": "sit", "seat": "E"})
    lives["S"].until(lambda s: s["table"]["seats"]["E"]["name"] == "Bad")
    lives["S"].send({"type": "start"})
    drive(lives, random.Random(5), everyone_done)
    assert ann.http.post("/api/people/Bad/block").json() == {"name": "Bad", "blocked": True}
    lives["E"].send({"type": "again"})
    told = next(m for m in iter(lives["E"].receive, None) if m["type"] == "again")
    lives["S"].drain(0.5)
    assert [m for m in lives["S"].messages if m["type"] == "again"] == []
    assert lives["S"].refused({"type": "again"})["code"] == "server.table_closed"
    page = bad.connect(told["url"].removeprefix("/table/"))
    seats = page.until(lambda s: s["phase"] == "waiting")["table"]["seats"]
    assert [seats[s]["name"] for s in "NESW"] == [None, "Bad", None, None]
    for live in (*lives.values(), page):
        live.close()


def test_a_block_ends_the_watching_of_whom_it_keeps_apart(server: LiveServer) -> None:
    """A person watching a table is shut out of it as a new page of theirs would be
    (``server.table_closed``, 4403) when someone who blocked them, or whom they blocked, sits down
    there — or when a block is made between them and someone who sits there or hosts it; the
    others watch on."""
    host, ann, bad, cy = (account(server, n) for n in ("Host", "Ann", "Bad", "Cy"))
    assert ann.http.post("/api/people/Bad/block").json()["blocked"]
    table_id = new_table(host)["table_id"]
    hosting = host.connect(table_id)
    hosting.until(lambda s: s["phase"] == "waiting")
    watching, other = bad.connect(table_id), cy.connect(table_id)
    hosting.until(lambda s: s["table"]["spectators"] == 2)
    sitting = ann.connect(table_id)
    sitting.until(lambda s: s["phase"] == "waiting")
    sitting.send({"type": "sit", "seat": "E"})
    shut_out(watching)
    assert sitting.until(lambda s: s["table"]["spectators"] == 1)["table"]["seats"]["E"]["name"] == "Ann"
    other.send({"type": "chat", "text": "still here"})
    assert next(m for m in iter(sitting.receive, None) if m["type"] == "chat")["text"] == "still here"
    # A block made while the other watches: Host blocks Cy.
    assert host.http.post("/api/people/Cy/block").json()["blocked"]
    shut_out(other)
    assert hosting.until(lambda s: s["table"]["spectators"] == 0)["table"]["seats"]["E"]["connected"]
    for live in (hosting, sitting):
        live.close()


def _accounts(store: Store, prefix: str, n: int) -> list[str]:
    """``n`` accounts named ``prefix`` and a number, written to the store as signing up writes
    them (a name of their own, a password's hash): their ids."""
    ids = [f"u-{prefix.lower()}{k:03d}" for k in range(n)]
    with store.engine.begin() as c:
        for k, user_id in enumerate(ids):
            name = f"{prefix}{k:03d}"
            c.execute(insert(USERS).values(
                id=user_id, name=name, name_key=name_key(name), name_skeleton=name_skeleton(name),
                password_hash="$argon2id$stand-in", guest=False, created=datetime.now(UTC).isoformat(), lifetime=0,
                deals=0, matches=0, pigs=0, session_epoch=0))
    return ids


def _ask(store: Store, askers: list[str], to: str) -> None:
    """Each of ``askers`` asks ``to`` to be friends, as the friends' route writes a request."""
    with store.engine.begin() as c:
        for user_id in askers:
            c.execute(insert(FRIENDS).values(user_id=user_id, other_id=to, state="asked",
                                             created=datetime.now(UTC).isoformat()))


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_friend_requests_waiting_for_one_person_are_bounded(server: LiveServer) -> None:
    """At most REQUESTS_WAITING requests wait for one person's answer: past that a new one is
    refused with its catalog message (the ones waiting stay), alike for someone the person
    blocked — the refusal tells them nothing of the block —, whose own request, never shown, is
    not counted.  Answering some makes room; accepting a request and asking again are never
    refused; the bound is the person asked's, not the asker's."""
    ann, bo, cy, dee, eve = (account(server, name) for name in ("Ann", "Bo", "Cy", "Dee", "Eve"))
    store = server.app.state.store
    assert ann.http.post("/api/people/Cy/block").json()["blocked"] is True
    many = _accounts(store, "Fan", REQUESTS_WAITING - 1)
    _ask(store, many, ann.id)
    assert bo.http.post("/api/people/Ann/friend").json() == {"name": "Ann", "state": "asked"}
    asking = people(ann)["asking"]
    assert len(asking) == REQUESTS_WAITING and "Bo" in asking
    full = dee.http.post("/api/people/Ann/friend")
    refused(full, 409, "server.people_requests_waiting")
    assert full.json()["params"] == {"n": REQUESTS_WAITING}
    assert render("server.people_requests_waiting", "en", {"n": REQUESTS_WAITING}) in full.json()["error"]
    blocked = cy.http.post("/api/people/Ann/friend")  # the same answer for the one Ann blocked
    assert (blocked.status_code, blocked.json()) == (full.status_code, full.json())
    assert people(dee)["asked"] == [] and people(cy)["asked"] == []
    assert len(people(ann)["asking"]) == REQUESTS_WAITING  # nothing was dropped to make room
    # Asking again, and Ann accepting one of them, are never refused; the bound is Ann's alone.
    assert bo.http.post("/api/people/Ann/friend").json()["state"] == "asked"
    assert ann.http.post("/api/people/Bo/friend").json() == {"name": "Bo", "state": "friends"}
    assert bo.http.post("/api/people/Dee/friend").json()["state"] == "asked"
    # Bo's request answered, there is room for one: Cy's (never shown to Ann) takes none of it.
    assert cy.http.post("/api/people/Ann/friend").json() == {"name": "Ann", "state": "asked"}
    assert "Cy" not in people(ann)["asking"] and people(cy)["asked"] == ["Ann"]
    assert dee.http.post("/api/people/Ann/friend").json() == {"name": "Ann", "state": "asked"}
    refused(eve.http.post("/api/people/Ann/friend"), 409, "server.people_requests_waiting")
    # Declining makes room again; blocking a flooder frees their place for good.
    assert ann.http.delete("/api/people/Fan000/friend").json()["state"] is None
    assert eve.http.post("/api/people/Ann/friend").json()["state"] == "asked"
    assert ann.http.post("/api/people/Fan001/block").json()["blocked"] is True
    assert len(people(ann)["asking"]) == REQUESTS_WAITING - 1
    with store.engine.begin() as c:  # Fan001 asks again: read as asked, and never counted
        c.execute(insert(FRIENDS).values(user_id="u-fan001", other_id=ann.id, state="asked",
                                         created=datetime.now(UTC).isoformat()))
    assert account(server, "Gus").http.post("/api/people/Ann/friend").json()["state"] == "asked"
    assert len(people(ann)["asking"]) == REQUESTS_WAITING


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_friend_requests_asked_at_one_moment_on_two_servers_keep_to_the_bound(db_url: str) -> None:
    """Two servers on one database (each its own store, its own connections): with one place left
    for one person's requests, twelve people asking at the same moment, half on each server, find
    one of them asked and eleven refused, and the person has exactly REQUESTS_WAITING waiting;
    the one asked declined, the same again, a few times over (each time a race of its own)."""
    stores = [Store(db_url), Store(db_url)]
    try:
        (ann,) = _accounts(stores[0], "Ann", 1)
        _ask(stores[0], _accounts(stores[0], "Fan", REQUESTS_WAITING - 1), ann)
        servers = [People(store) for store in stores]
        for race in range(4):
            askers = _accounts(stores[0], f"Now{race}x", 12)
            start = threading.Barrier(len(askers))

            def ask(k: int, askers: list[str] = askers, start: threading.Barrier = start) -> str:
                start.wait()
                try:
                    return servers[k % 2].befriend(askers[k], ann)
                except AccountError as e:
                    assert e.status == 409 and e.json["code"] == "server.people_requests_waiting", e.json
                    return "refused"

            with ThreadPoolExecutor(len(askers)) as pool:
                answers = list(pool.map(ask, range(len(askers))))
            assert sorted(answers) == ["asked"] + ["refused"] * (len(askers) - 1), (race, answers)
            with stores[1].engine.connect() as c:
                waiting = c.execute(select(func.count()).select_from(FRIENDS).where(
                    FRIENDS.c.other_id == ann, FRIENDS.c.state == "asked")).scalar_one()
            assert waiting == REQUESTS_WAITING, race
            servers[race % 2].unfriend(ann, askers[answers.index("asked")])  # declined: one place again
    finally:
        for store in stores:
            store.close()


def test_people_apart_by_a_block_do_not_hear_each_other_watching_one_table(server: LiveServer) -> None:
    """Ann blocked Bad; both watch Host's table, which neither sits at nor hosts, so nothing shuts
    either out.  Neither hears the other's chat — live, or replayed to a page that comes back —
    while Host and Cy hear both."""
    host, ann, bad, cy = (account(server, n) for n in ("Host", "Ann", "Bad", "Cy"))
    assert ann.http.post("/api/people/Bad/block").json()["blocked"]
    table_id = new_table(host)["table_id"]
    hosting = host.connect(table_id)
    hosting.until(lambda s: s["phase"] == "waiting")
    lives = {"ann": ann.connect(table_id), "bad": bad.connect(table_id), "cy": cy.connect(table_id)}
    hosting.until(lambda s: s["table"]["spectators"] == 3)
    lives["bad"].send({"type": "chat", "text": "you cannot block me"})
    lives["ann"].send({"type": "chat", "text": "hello all"})
    lives["cy"].send({"type": "chat", "text": "hi"})

    def heard(live: Any) -> list[str]:
        said: list[str] = []
        while "hi" not in said:  # (Cy spoke last: everyone hears Cy)
            message = live.receive()
            if message["type"] == "chat":
                said.append(message["text"])
        return said

    assert heard(hosting) == ["you cannot block me", "hello all", "hi"]
    assert heard(lives["cy"]) == ["you cannot block me", "hello all", "hi"]
    assert heard(lives["ann"]) == ["hello all", "hi"]
    assert heard(lives["bad"]) == ["you cannot block me", "hi"]
    lives["ann"].close()
    again = ann.connect(table_id)  # a page opened anew: the chat kept is replayed, Bad's left out
    assert heard(again) == ["hello all", "hi"]
    for live in (hosting, again, lives["bad"], lives["cy"]):
        live.close()


def test_someone_who_changes_their_name_is_blocked_and_reported_by_the_name_they_were_seen_by(
        server: LiveServer) -> None:
    """Bad says something to Ann and changes their name at once: Ann blocks and reports the name
    she saw, which Bad holds for a while (docs/accounts.md), and the answers name them by it — not
    by the new name.  A name nobody holds is still unknown."""
    from helpers.live import PASSWORD

    ann, bad = account(server, "Ann"), account(server, "Bad")
    renamed = bad.http.post("/api/account/name", json={"name": "Rob", "password": PASSWORD})
    assert renamed.status_code == 200, renamed.text
    blocked = ann.http.post("/api/people/bad/block")
    assert blocked.status_code == 200, blocked.text
    assert blocked.json() == {"name": "Bad", "blocked": True}
    assert people(ann)["blocked"] == ["Rob"]  # (her own list names them as they are)
    reported = ann.http.post("/api/people/Bad/report", json={"reason": "abuse in chat"})
    assert reported.status_code == 201 and reported.json()["name"] == "Bad", reported.text
    assert ann.http.delete("/api/people/Bad/block").json() == {"name": "Bad", "blocked": False}
    refused(ann.http.post("/api/people/Nobody/block"), 404, "server.account_unknown")
    refused(ann.http.post("/api/people/Bad/friend"), 404, "server.account_unknown")  # (nor is the new one told)
