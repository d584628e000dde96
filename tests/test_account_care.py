"""Account care (docs/accounts.md; :mod:`gongzhu.server.account_care`): the open sessions and
signing out everywhere else, a new password (every other session ends, their table connections
close, this one goes on; a wrong current password counts as a failed sign-in), a new name (the
naming rules, unique, once in 30 days; the records of deals played keep the name of the time, the
lists of matches and the events show the new one, and the old name is held 30 days), the download
of everything stored about the person (their matches and records, never a password hash, a session
or what others keep), and deleting the account (refused while seated at a table in play, checked
again as it is deleted; its sessions end at once, the row is anonymised, its records name it
``deleted-…``, its names are held 30 days and while a sanction of it is in force, and everyone
else's totals, ratings and the leaderboard stay as they were).
Every refusal is a catalog message; the tests that change the database run on SQLite and on
PostgreSQL (``STORES``)."""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from itsdangerous import URLSafeTimedSerializer
from sqlalchemy import func, insert, select, update
from starlette.testclient import TestClient

import gongzhu.server.app as app_module
from gongzhu.server.account_care import AccountCare
from gongzhu.server.accounts import FREE_FAILURES
from gongzhu.server.app import create_app
from gongzhu.server.identity import COOKIE, DEVICE_COOKIE, Identity
from gongzhu.server.moderation import grant
from gongzhu.server.store import (
    BLOCKS,
    FRIENDS,
    KNOWN_DEVICES,
    MATCH_PLAYERS,
    RATING_HISTORY,
    RATINGS,
    REPORTS,
    REVIEW_COUNTS,
    REVIEW_KINDS,
    REVIEWS,
    SANCTIONS,
    SESSIONS,
    SETTINGS,
    USERS,
    Charge,
    Rated,
    Store,
)
from helpers.client import local_client, new_match, play_deal, refused
from helpers.database import STORES
from helpers.live import PASSWORD, Someone, account, befriend
from helpers.servers import LiveServer
from test_ratings_tables import one_deal
from test_tables import new_table

NEW_PASSWORD = "a brand new tiger 77 at the table"
#: How long a name given up is held (docs/accounts.md; gongzhu.server.identity.NAME_HELD).
HELD = timedelta(days=30)


@pytest.fixture
def server(db_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(db_url, static_dir=tmp_path / "no-static") as s:
        yield s


@pytest.fixture
def app(db_url: str, tmp_path: Path) -> Any:
    return create_app(db_url, pace=0, static_dir=tmp_path / "no-static")


def store_of(app: Any) -> Store:
    store: Store = app.state.store
    return store


def signed_in_again(server: LiveServer, name: str, password: str = PASSWORD) -> Someone:
    """Another browser signed in to the account ``name``."""
    other = Someone(server)
    r = other.http.post("/api/login", json={"name": name, "password": password})
    assert r.status_code == 200, r.text
    other.id, other.name = r.json()["id"], name
    return other


def sign_up(c: TestClient, name: str) -> dict[str, Any]:
    c.get("/api/me")
    r = c.post("/api/account", json={"name": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def held_no_more(store: Store, user_id: str) -> None:
    """As if :data:`HELD` had passed since ``user_id`` changed their name or deleted their
    account: the names given up then are held no more (but for a sanction in force)."""
    past = (datetime.now(UTC) - HELD - timedelta(minutes=1)).isoformat()
    with store.engine.begin() as c:
        row = c.execute(select(USERS.c.renamed, USERS.c.deleted).where(USERS.c.id == user_id)).one()
        c.execute(update(USERS).where(USERS.c.id == user_id).values(
            renamed=past if row.renamed is not None else None, deleted=past if row.deleted is not None else None))


def signing_up(server: LiveServer, name: str) -> httpx.Response:
    """A new browser's answer to signing up as ``name``."""
    return Someone(server).http.post("/api/account", json={"name": name, "password": PASSWORD})


def earlier_cookie(server: LiveServer, user_id: str) -> httpx.Client:
    """A browser holding a cookie of ``user_id`` as a server from before sessions were kept signed
    it (the id and the epoch, no session token), signed with this server's key (as a copy of an
    old cookie would be)."""
    store: Store = server.app.state.store
    with store.engine.connect() as c:
        key = c.scalar(select(SETTINGS.c.value).where(SETTINGS.c.name == "session_key"))
        epoch = c.scalar(select(USERS.c.session_epoch).where(USERS.c.id == user_id))
    value = URLSafeTimedSerializer(str(key), salt="gongzhu.session").dumps([user_id, epoch])
    browser = httpx.Client(base_url=server.base, cookies={COOKIE: value})
    assert browser.get("/api/account/sessions").status_code == 200  # it is the person's, for now
    return browser


def ended(browser: httpx.Client) -> None:
    """``browser``'s cookie is no session any more (its next request is a new guest's), and
    ``browser`` is closed."""
    try:
        refused(browser.get("/api/account/sessions"), 401, "server.no_session")
    finally:
        browser.close()


def solo_connection(person: Someone) -> Any:
    """A table connection of ``person``: their single-player match, opened and shown."""
    r = person.http.post("/api/matches", json={"levels": {"N": "random", "E": "random", "W": "random"}})
    assert r.status_code == 201, r.text
    live = person.connect(r.json()["match_id"])
    live.until(lambda s: bool(s.get("phase")))
    return live


def still_open(live: Any) -> None:
    """The connection goes on: a message is still answered on it."""
    assert live.refused({"type": "sit", "seat": "S"})["type"] == "error"


# ---------------------------------------------------------------------- sessions


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_signing_out_everywhere_else_keeps_this_session(server: LiveServer) -> None:
    ann = account(server, "Ann")
    phone, laptop = signed_in_again(server, "Ann"), signed_in_again(server, "Ann")
    assert ann.http.get("/api/account/sessions").json() == {"sessions": 3}
    here, there = solo_connection(ann), solo_connection(phone)
    copied = earlier_cookie(server, ann.id)
    r = ann.http.post("/api/account/sessions/end-others")
    assert r.status_code == 200 and r.json() == {"ended": 2, "sessions": 1}
    ended(copied)  # no row keeps it: the raised epoch ends it
    assert r.headers["cache-control"] == "no-store"
    there.closed_for_the_session()
    still_open(here)
    assert ann.http.get("/api/me").json()["name"] == "Ann"
    for other in (phone, laptop):
        assert other.http.get("/api/me").json()["id"] != ann.id  # a new guest
    assert ann.http.get("/api/account/sessions").json() == {"sessions": 1}
    # Guests have no account to care for; without a session there is nobody.
    guest = Someone(server)
    for r in (guest.http.get("/api/account/sessions"), guest.http.post("/api/account/sessions/end-others")):
        refused(r, 403, "account_care.account_needed")
    with httpx.Client(base_url=server.base) as nobody:
        refused(nobody.get("/api/account/sessions"), 401, "server.no_session")
        refused(nobody.post("/api/account/sessions/end-others"), 401, "server.no_session")
    here.close()


# ---------------------------------------------------------------------- the password


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_changing_the_password_ends_the_other_sessions(server: LiveServer) -> None:
    ann = account(server, "Ann")
    phone = signed_in_again(server, "Ann")
    here, there = solo_connection(ann), solo_connection(phone)
    change = "/api/account/password"
    refused(ann.http.post(change, json={"current": "not the one 123", "new": NEW_PASSWORD}), 401,
            "account_care.wrong_password")
    refused(ann.http.post(change, json={"current": PASSWORD, "new": PASSWORD}), 400, "account_care.password_same")
    refused(ann.http.post(change, json={"current": PASSWORD, "new": "short"}), 400, "server.account_password_length")
    refused(ann.http.post(change, json={"current": PASSWORD, "new": "password1"}), 400,
            "server.account_password_common")
    r = ann.http.post(change, json={"current": PASSWORD, "new": 5})
    assert r.status_code == 400 and r.json()["error"].startswith("$.new")
    assert phone.http.get("/api/me").json()["id"] == ann.id  # nothing changed yet
    copied = earlier_cookie(server, ann.id)
    r = ann.http.post(change, json={"current": PASSWORD, "new": NEW_PASSWORD})
    assert r.status_code == 200 and r.json() == {"changed": True, "ended": 1}
    ended(copied)
    there.closed_for_the_session()
    still_open(here)
    assert ann.http.get("/api/me").json()["id"] == ann.id
    assert phone.http.get("/api/me").json()["id"] != ann.id
    with httpx.Client(base_url=server.base) as c:
        refused(c.post("/api/login", json={"name": "Ann", "password": PASSWORD}), 401, "server.account_wrong_login")
        assert c.post("/api/login", json={"name": "Ann", "password": NEW_PASSWORD}).json()["id"] == ann.id
    guest = Someone(server)
    refused(guest.http.post(change, json={"current": PASSWORD, "new": NEW_PASSWORD}), 403,
            "account_care.account_needed")
    here.close()


def test_wrong_passwords_wait_as_failed_sign_ins_of_the_name(server: LiveServer) -> None:
    bo = account(server, "Bo")
    for _ in range(FREE_FAILURES):
        refused(bo.http.post("/api/account/name", json={"name": "Bob", "password": "guessing 1234"}), 401,
                "account_care.wrong_password")
    r = bo.http.post("/api/account/password", json={"current": PASSWORD, "new": NEW_PASSWORD})
    refused(r, 429, "server.account_sign_in_wait")
    assert int(r.headers["retry-after"]) >= 1
    # The same count as signing in to the name from this address: that waits too.
    with httpx.Client(base_url=server.base) as c:
        refused(c.post("/api/login", json={"name": "Bo", "password": PASSWORD}), 429, "server.account_sign_in_wait")


# ---------------------------------------------------------------------- the name


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_changing_the_name(app: Any) -> None:
    store = store_of(app)
    with local_client(app) as ann, local_client(app) as bo, local_client(app) as someone:
        me = sign_up(ann, "Ann")
        sign_up(bo, "Bo")
        someone.get("/api/me")  # a guest
        match_id = new_match(ann, seed=5)
        play_deal(ann, match_id)
        rename = "/api/account/name"
        refused(ann.post(rename, json={"name": "Annie", "password": "not the one 123"}), 401,
                "account_care.wrong_password")
        refused(ann.post(rename, json={"name": "Ann!", "password": PASSWORD}), 400, "server.account_name_chars")
        refused(ann.post(rename, json={"name": "Ann", "password": PASSWORD}), 400, "account_care.name_same")
        refused(ann.post(rename, json={"name": "BO", "password": PASSWORD}), 409, "server.account_name_taken")
        refused(ann.post(rename, json={"name": "ВО", "password": PASSWORD}), 409, "server.account_name_like")
        refused(ann.post(rename, json={"name": "Robot7", "password": PASSWORD}), 400, "server.account_name_reserved")
        refused(ann.post(rename, json={"name": "deleted-a1b2c3", "password": PASSWORD}), 400,
                "account_care.name_deleted")
        refused(someone.post(rename, json={"name": "Annie", "password": PASSWORD}), 403, "account_care.account_needed")
        assert ann.get("/api/me").json()["name"] == "Ann"  # nothing changed
        r = ann.post(rename, json={"name": " Annie ", "password": PASSWORD})
        assert r.status_code == 200, r.text
        assert r.json()["name"] == "Annie" and r.json()["id"] == me["id"]
        assert ann.get("/api/profile").json()["name"] == "Annie"
        # The list of matches shows the new name; the record of the deal played, the name of the time.
        listed = next(m for m in ann.get("/api/matches").json() if m["match_id"] == match_id)
        assert listed["players"]["S"]["name"] == "Annie"
        assert ann.get(f"/api/matches/{match_id}/deals/0").json()["players"]["S"]["name"] == "Ann"
        # Signing in takes the new name; the old one is held 30 days: nobody takes it, nor one
        # that looks like it, signing up or changing their name.
        assert bo.post("/api/login", json={"name": "Ann", "password": PASSWORD}).status_code == 401
        for name in ("Ann", "aNN"):
            refused(someone.post("/api/account", json={"name": name, "password": PASSWORD}), 409,
                    "server.account_name_taken")
        refused(bo.post(rename, json={"name": "ann", "password": PASSWORD}), 409, "server.account_name_taken")
        assert bo.get("/api/me").json()["name"] == "Bo"
        # Once in 30 days.
        body = refused(ann.post(rename, json={"name": "Anna", "password": PASSWORD}), 409, "account_care.rename_wait")
        assert body["params"]["date"].startswith(str((datetime.now(UTC) + timedelta(days=30)).year))
        with store.engine.begin() as c:
            assert c.scalar(select(USERS.c.former_names).where(USERS.c.id == me["id"])) == ["Ann"]
            c.execute(update(USERS).where(USERS.c.id == me["id"]).values(
                renamed=(datetime.now(UTC) - timedelta(days=31)).isoformat()))
        # 30 days on, the old name is anyone's.
        assert sign_up(someone, "Ann")["id"] != me["id"]
        assert ann.post(rename, json={"name": "Anna", "password": PASSWORD}).json()["name"] == "Anna"
        with store.engine.connect() as c:
            assert c.scalar(select(USERS.c.former_names).where(USERS.c.id == me["id"])) == ["Ann", "Annie"]


def test_a_name_is_not_changed_at_a_table_that_is_not_over(server: LiveServer) -> None:
    """The table keeps the names of its people and writes them with every change: a rename
    waits until the person has left it or it is over."""
    cy = account(server, "Cy")
    waiting = new_table(cy)["table_id"]
    body = refused(cy.http.post("/api/account/name", json={"name": "Cyd", "password": PASSWORD}), 409,
                   "account_care.rename_seated")
    assert body["params"]["table"] == waiting
    assert cy.http.get("/api/me").json()["name"] == "Cy"  # nothing changed


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_deleted_account_leaves_its_name_at_no_open_table(server: LiveServer) -> None:
    """Nina hosts a public table, stands up, chats, renames herself Nora, chats again and deletes
    her account while Dave watches: the table, still open, shows its host by the neutral name to
    whoever comes, and a page that comes back is sent neither chat line again, under either name."""
    nina, dave = account(server, "Nina"), account(server, "Dave")
    table_id = new_table(nina)["table_id"]
    host = nina.connect(table_id)
    host.until(lambda s: s["phase"] == "waiting")
    host.send({"type": "stand"})
    host.until(lambda s: s["you"]["seat"] is None)
    seen = dave.connect(table_id)
    seen.until(lambda s: s["table"]["host"] == "Nina")
    host.send({"type": "chat", "text": "mail me at nina@example.com"})
    heard = seen.receive(10)
    while "nina@example.com" not in json.dumps(heard):
        heard = seen.receive(10)
    r = nina.http.post("/api/account/name", json={"name": "Nora", "password": PASSWORD})
    assert r.status_code == 200, r.text
    host.close()
    host = nina.connect(table_id)
    host.until(lambda s: s["phase"] == "waiting")
    host.send({"type": "chat", "text": "or call 555-0100"})
    while "555-0100" not in json.dumps(heard):
        heard = seen.receive(10)
    r = nina.http.post("/api/account/delete", json={"password": PASSWORD, "confirm": "Nora"})
    assert r.status_code == 200, r.text
    neutral = r.json()["name"]
    newcomer = Someone(server).connect(table_id)
    assert newcomer.until(lambda s: s["phase"] == "waiting")["table"]["host"] == neutral
    back = dave.connect(table_id, since=1)
    back.until(lambda s: s["phase"] == "waiting")
    back.drain(0.5)
    replayed = json.dumps(back.messages)
    assert not any(said in replayed for said in ("Nina", "Nora", "nina@example.com", "555-0100")), replayed
    assert "Nina" not in json.dumps(newcomer.messages) and "Nora" not in json.dumps(newcomer.messages)
    for live in (newcomer, back, seen):  # (Dave's first page stayed all along: the table stayed loaded)
        live.close()


def test_two_people_taking_one_name_at_once_get_it_once(server: LiveServer) -> None:
    people = [account(server, f"Racer{n}") for n in range(4)]
    start = threading.Barrier(len(people))
    answers: list[httpx.Response] = []

    def take(person: Someone) -> None:
        start.wait()
        answers.append(person.http.post("/api/account/name", json={"name": "Winner", "password": PASSWORD}))

    threads = [threading.Thread(target=take, args=(p,)) for p in people]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(r.status_code for r in answers) == [200, 409, 409, 409]
    for r in answers:
        if r.status_code == 409:
            assert r.json()["code"] in ("server.account_name_taken", "server.account_name_like")
    assert sum(p.http.get("/api/me").json()["name"] == "Winner" for p in people) == 1


# ---------------------------------------------------------------------- the export


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_the_export_holds_the_persons_data_and_nothing_else(app: Any) -> None:
    with local_client(app) as ann, local_client(app) as bo, local_client(app) as cy, local_client(app) as guest:
        me = sign_up(ann, "Ann")
        bo_me = sign_up(bo, "Bo")
        sign_up(cy, "Cy")
        with store_of(app).engine.begin() as c:  # an operator's warning to Ann, by Bo
            c.execute(insert(SANCTIONS).values(user_id=me["id"], kind="warn", reason="mind the chat",
                                               starts="2026-12-01T00:00:00+00:00", operator=bo_me["id"]))
        first = new_match(ann, seed=5)
        play_deal(ann, first)
        second = new_match(ann, seed=9)
        play_deal(ann, second)
        assert ann.post("/api/people/Bo/friend").status_code == 200
        assert ann.post("/api/people/Cy/block").status_code == 200
        assert ann.post("/api/people/Cy/report", json={"reason": "rude in chat", "match_id": None}).status_code == 201
        assert bo.post("/api/people/Ann/report", json={"reason": "a secret of Bo's", "match_id": None}).status_code \
            == 201
        bo_match = new_match(bo, seed=11)
        play_deal(bo, bo_match)
        r = ann.get("/api/account/export")
        assert r.status_code == 200, r.text
        assert r.headers["content-disposition"] == f'attachment; filename="gongzhu-account-{me["id"]}.json"'
        assert r.headers["content-type"].startswith("application/json") and r.headers["cache-control"] == "no-store"
        data = r.json()
        text = r.text
        assert data["format"] == "gongzhu-account-export/1"
        profile = data["profile"]
        assert (profile["id"], profile["name"], profile["account"]) == (me["id"], "Ann", True)
        mine = ann.get("/api/me").json()
        assert (profile["lifetime"], profile["deals"], profile["practice"]) == (mine["lifetime"], mine["deals"],
                                                                                 mine["practice"])
        # The matches, oldest first, with every record as GET /api/me/records.jsonl gives it.
        assert [m["id"] for m in data["matches"]] == [first, second]
        lines = [json.loads(line) for line in ann.get("/api/me/records.jsonl").text.splitlines()]
        assert [rec for m in data["matches"] for rec in m["records"]] == lines and len(lines) == 2
        played = data["matches"][0]["played"]
        assert (played["deals"], played["seat"], played["seats"]) == (1, "S", {"S": [1, played["total"]]})
        assert data["friends"] == [{"name": "Bo", "state": "asked", "since": data["friends"][0]["since"]}]
        assert [b["name"] for b in data["blocks"]] == ["Cy"]
        assert [(x["name"], x["reason"]) for x in data["reports"]] == [("Cy", "rude in chat")]
        assert len(data["sessions"]) == 1 and set(data["sessions"][0]) == {"created"}
        assert len(data["sign_ins"]["browsers"]) == 1 and data["sign_ins"]["failures"] == 0
        browser = data["sign_ins"]["browsers"][0]
        assert browser["first_signed_in"] <= browser["last_signed_in"]
        # The sanctions given to the person, with their reasons, not who gave them.
        assert data["sanctions"] == [{"kind": "warn", "reason": "mind the chat", "starts": "2026-12-01T00:00:00+00:00",
                                      "ends": None, "lifted": None}]
        # Nothing of what others keep, no password hash, no session token or cookie.
        assert "a secret of Bo's" not in text and bo_match not in text
        assert "argon2" not in text and "password_hash" not in text
        assert ann.cookies[COOKIE] not in text
        with store_of(app).engine.connect() as c:
            for digest in [*c.scalars(select(SESSIONS.c.id)), *c.scalars(select(KNOWN_DEVICES.c.device))]:
                assert digest not in text
        assert ann.cookies[DEVICE_COOKIE] not in text
        # A guest's export holds what a guest has; without a session there is nothing to export.
        guest.get("/api/me")
        g = guest.get("/api/account/export")
        assert g.status_code == 200 and g.json()["profile"]["guest"] is True and g.json()["matches"] == []
    with TestClient(app, base_url="http://127.0.0.1") as nobody:
        refused(nobody.get("/api/account/export"), 401, "server.no_session")


# ---------------------------------------------------------------------- deleting the account


def leaderboard_of_others(person: Someone, gone: str) -> list[tuple[str, int, int, int, int]]:
    board = person.http.get("/api/leaderboard").json()
    return [(r["name"], r["lifetime"], r["deals"], r["matches"], r["pigs"]) for r in board if r["name"] != gone]


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_deleting_the_account(server: LiveServer) -> None:
    anna, bo, cy = account(server, "Anna"), account(server, "Bo"), account(server, "Cy")
    table_id, lives = one_deal(anna, bo, turn_seconds=30, options={"match_end": "deals:1"})
    for live in lives.values():
        live.close()
    assert anna.http.post("/api/people/Cy/friend").status_code == 200
    assert bo.http.post("/api/people/Anna/block").status_code == 200
    assert anna.http.post("/api/people/Bo/report", json={"reason": "slow", "match_id": table_id}).status_code == 201
    store: Store = server.app.state.store
    with store.engine.begin() as c:  # a review kept for Anna's accuracy (docs/review.md, Across many deals)
        c.execute(insert(REVIEWS).values(
            user_id=anna.id, match_id=table_id, deal_index=0, seat="S", played="2026-12-01", reviewed="2026-12-01",
            format="gongzhu-review/2", result=0.0, luck=0.0, skill=0.0, review="{}",
            **{f"{kind}_{count}": 0 for kind in REVIEW_KINDS for count in REVIEW_COUNTS}))
    phone = signed_in_again(server, "Anna")
    there = solo_connection(phone)
    bo_before = bo.http.get("/api/profile").json()
    board_before = leaderboard_of_others(cy, "Anna")
    assert "Anna" in [row["name"] for row in cy.http.get("/api/leaderboard").json()]

    delete = "/api/account/delete"
    refused(anna.http.post(delete, json={"password": PASSWORD, "confirm": "Ana"}), 400, "account_care.confirm_mismatch")
    refused(anna.http.post(delete, json={"password": "not the one 123", "confirm": "Anna"}), 401,
            "account_care.wrong_password")
    refused(Someone(server).http.post(delete, json={"password": PASSWORD, "confirm": "x"}), 403,
            "account_care.account_needed")
    waiting = new_table(cy)["table_id"]  # Cy sits at a table that waits for people
    body = refused(cy.http.post(delete, json={"password": PASSWORD, "confirm": "Cy"}), 409,
                   "account_care.delete_seated")
    assert body["params"]["table"] == waiting
    assert anna.http.get("/api/me").json()["name"] == "Anna"  # nothing changed

    r = anna.http.post(delete, json={"password": PASSWORD, "confirm": "anna"})
    assert r.status_code == 200, r.text
    neutral = r.json()["name"]
    assert r.json() == {"deleted": True, "name": neutral} and neutral.startswith("deleted-") and len(neutral) == 14
    assert "Max-Age=0" in r.headers["set-cookie"]
    there.closed_for_the_session()
    assert phone.http.get("/api/me").json()["id"] != anna.id
    with httpx.Client(base_url=server.base) as c:
        refused(c.post("/api/login", json={"name": "Anna", "password": PASSWORD}), 401, "server.account_wrong_login")
        refused(c.post("/api/login", json={"name": neutral, "password": PASSWORD}), 401, "server.account_wrong_login")
    assert Someone(server).http.get(f"/api/users/{neutral}").status_code == 404

    # Everyone else's totals, ratings and places stay as they were; Anna is on no board.
    bo_after = bo.http.get("/api/profile").json()
    for key in ("lifetime", "deals", "matches", "pigs", "ratings", "rating_history"):
        assert bo_after[key] == bo_before[key], key
    assert leaderboard_of_others(cy, "Anna") == board_before
    assert all(row["name"] not in ("Anna", neutral) for row in cy.http.get("/api/leaderboard").json())
    # The match stays; its record and the lists name Anna's seat by the neutral name.
    record = bo.http.get(f"/api/matches/{table_id}/deals/0").json()
    assert record["players"]["S"]["name"] == neutral and record["players"]["E"]["name"] == "Bo"
    listed = next(m for m in bo.http.get("/api/matches").json() if m["match_id"] == table_id)
    assert listed["players"]["S"]["name"] == neutral and listed["players"]["E"]["name"] == "Bo"
    assert "Anna" not in bo.http.get(f"/api/matches/{table_id}/records.jsonl").text
    assert bo.http.get("/api/people").json()["blocked"] == []

    with store.engine.connect() as c:
        row = c.execute(select(USERS).where(USERS.c.id == anna.id)).one()
        assert (row.name, row.password_hash, row.guest, row.lifetime) == (neutral, None, True, 0)
        assert row.deleted is not None and row.former_names == ["Anna"]  # held, and nothing else of hers
        for table, column in ((SESSIONS, SESSIONS.c.user_id), (RATINGS, RATINGS.c.user_id),
                              (RATING_HISTORY, RATING_HISTORY.c.user_id), (FRIENDS, FRIENDS.c.user_id),
                              (FRIENDS, FRIENDS.c.other_id), (BLOCKS, BLOCKS.c.blocked_id),
                              (REPORTS, REPORTS.c.reporter), (REVIEWS, REVIEWS.c.user_id)):
            assert c.scalar(select(func.count()).select_from(table).where(column == anna.id)) == 0, table.name
        assert c.scalar(select(func.count()).select_from(MATCH_PLAYERS).where(MATCH_PLAYERS.c.user_id == anna.id)) == 1
    # The name is held 30 days, then anyone's (a new account, nothing of the deleted one's).
    refused(signing_up(server, "Anna"), 409, "server.account_name_taken")
    held_no_more(store, anna.id)
    again = account(server, "Anna")
    assert again.id != anna.id and again.http.get("/api/profile").json()["matches_list"] == []
    server.app.state.identity.forget_idle_guests()  # the sweep: the names held no more are forgotten
    with store.engine.connect() as c:
        assert c.scalar(select(USERS.c.former_names).where(USERS.c.id == anna.id)) is None


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_deleted_accounts_names_stay_held_while_a_sanction_is_in_force(server: LiveServer) -> None:
    """An operator warns and mutes Troll (once Grump), who deletes the account to sign up afresh:
    every name it had stays held — 30 days, and besides as long as a sanction of it is in force —
    so nobody signs up or changes their name to one of them, nor to one that looks like it; once
    the sanctions are lifted and 30 days have passed, they are anyone's."""
    troll = account(server, "Grump")
    assert troll.http.post("/api/account/name", json={"name": "Troll", "password": PASSWORD}).status_code == 200
    store: Store = server.app.state.store
    held_no_more(store, troll.id)  # (renamed long ago)
    op = account(server, "Op")
    assert grant(store, "Op") == ("Op", True)
    sanctions = "/api/admin/people/Troll/sanctions"
    ends = (datetime.now(UTC) + timedelta(days=60)).isoformat(timespec="seconds")
    made = [op.http.post(sanctions, json={"kind": "warn", "reason": "abuse in chat"}),
            op.http.post(sanctions, json={"kind": "mute", "reason": "abuse in chat", "ends": ends})]
    assert [r.status_code for r in made] == [201, 201], [r.text for r in made]
    r = troll.http.post("/api/account/delete", json={"password": PASSWORD, "confirm": "Troll"})
    assert r.status_code == 200, r.text
    bo = account(server, "Bo")

    def held(signing: tuple[str, ...], renaming: tuple[str, ...]) -> None:
        for name in signing:
            refused(signing_up(server, name), 409, "server.account_name_taken")
        for name in renaming:
            refused(bo.http.post("/api/account/name", json={"name": name, "password": PASSWORD}), 409,
                    "server.account_name_taken")

    held(("Troll", "TroII", "Grump"), ("troll", "Grurnp", "Grump"))  # (TroII with capital Is; rn for m)
    held_no_more(store, troll.id)  # 30 days on: the warning and the mute are still in force
    held(("Troll",), ("TroII", "Grurnp"))
    assert op.http.get("/api/admin/people/Troll").status_code == 404  # no new Troll without the sanctions
    for sanction in made:
        lifted = op.http.post(f"/api/admin/sanctions/{sanction.json()['id']}/lift", json={"reason": "appeal"})
        assert lifted.status_code == 200, lifted.text
    again = account(server, "Troll")
    assert again.id != troll.id
    assert bo.http.post("/api/account/name", json={"name": "Grump", "password": PASSWORD}).status_code == 200


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_deleting_is_refused_to_someone_who_sat_down_meanwhile(server: LiveServer,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Cy sits down at a table after the route looked whether she sits anywhere (a sit on this
    server, or on another, between the look and the deletion): the deletion looks again in its
    transaction and is refused as the first look would have been; nothing changes."""
    cy = account(server, "Cy")
    waiting = new_table(cy)["table_id"]
    monkeypatch.setattr(AccountCare, "seated_at", lambda self, user_id: None)  # the route's look came first
    body = refused(cy.http.post("/api/account/delete", json={"password": PASSWORD, "confirm": "Cy"}), 409,
                   "account_care.delete_seated")
    assert body["params"]["table"] == waiting
    assert cy.http.get("/api/me").json()["name"] == "Cy"
    with server.app.state.store.engine.connect() as c:
        row = c.execute(select(USERS).where(USERS.c.id == cy.id)).one()
        assert (row.name, row.deleted, row.former_names) == ("Cy", None, None)


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_person_whose_account_is_deleted_sits_at_no_table(db_url: str, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Dave watches Nina's table; his account is deleted through another server, and before this
    one finds his session ended his page asks for a seat: refused in words that say why
    (``server.account_deleted``), and nothing else happens — the table stays as it was, its
    version too, and no connection of it is closed or loads it again — and the deleted account
    sits at no table."""
    monkeypatch.setattr(app_module, "SESSION_RECHECK", 3600.0)  # (this server does not look meanwhile)
    with LiveServer(db_url, static_dir=tmp_path / "no-static") as server:
        nina, dave = account(server, "Nina"), account(server, "Dave")
        table_id = new_table(nina)["table_id"]
        hosting, watching = nina.connect(table_id), dave.connect(table_id)
        before = hosting.until(lambda s: s["table"]["spectators"] == 1)
        watching.until(lambda s: s["v"] == before["v"])
        elsewhere = Store(db_url)
        try:
            AccountCare(Identity(elsewhere)).delete(dave.id)
        finally:
            elsewhere.close()
        reply = watching.refused({"type": "sit", "seat": "N"})
        assert reply["code"] == "server.account_deleted", reply
        store: Store = server.app.state.store
        assert store.seated_at(dave.id) is None
        # Nothing changed and nobody reloads: the next change of the table is the next version,
        # and it reaches both connections, still open.
        hosting.send({"type": "chat", "text": "still here"})
        for live in (hosting, watching):
            said = next(m for m in iter(live.receive, None) if m["type"] == "chat")
            assert (said["v"], said["text"]) == (before["v"] + 1, "still here")
        seats = hosting.state["table"]["seats"]
        assert seats["N"]["name"] is None and seats["S"]["name"] == "Nina"
        again = nina.connect(table_id)
        state = again.until(lambda s: s["phase"] == "waiting")
        assert state["table"]["seats"]["N"]["name"] is None and state["v"] == before["v"] + 1
        for live in (again, hosting, watching):
            live.close()


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_deal_finished_after_its_player_deleted_the_account_charges_them_nothing(db_url: str) -> None:
    """Carol leaves a rated deal half way and deletes her account; the deal is played out and
    stored: her part of the match's history stays, but her row stays at zero (no lifetime, deal,
    match or pig) and no rating is made for her, while Dan is charged and rated as ever."""
    from helpers.client import seating

    store = Store(db_url)
    try:
        identity = Identity(store)
        carol, dan = identity.new_guest(), identity.new_guest()
        with store.engine.begin() as c:  # accounts (a guest has no account to delete)
            c.execute(update(USERS).where(USERS.c.id.in_([carol.id, dan.id])).values(guest=False, password_hash="-"))
        store.create_match(match_id="m-left", preset="online", options={}, speed="normal", seed=7,
                           seating=seating((carol.id, carol.name)))
        neutral, names = AccountCare(identity).delete(carol.id)
        assert names == [carol.name]
        charges = [Charge(carol.id, -300, result=-300, seat="S"), Charge(dan.id, 200, result=200, seat="N")]
        rated = Rated("online", (((carol.id,), -300), ((dan.id,), 200)))
        store.finish_deal("m-left", 0, record_line="{}", south_final=-300, totals=[200, 0, -300, 0], over=True,
                          winners=["N"], pigs=["S"], charges=charges, rated=rated)
        with store.engine.connect() as c:
            row = c.execute(select(USERS).where(USERS.c.id == carol.id)).one()
            assert (row.name, row.lifetime, row.deals, row.matches, row.pigs) == (neutral, 0, 0, 0, 0)
            assert c.scalar(select(func.count()).select_from(RATINGS).where(RATINGS.c.user_id == carol.id)) == 0
            assert c.scalar(select(func.count()).select_from(RATING_HISTORY)
                            .where(RATING_HISTORY.c.user_id == carol.id)) == 0
            kept = c.execute(select(MATCH_PLAYERS).where(MATCH_PLAYERS.c.user_id == carol.id)).one()
            assert (kept.deals, kept.total, kept.pig) == (1, -300, True)  # the match's history keeps her seat's part
            dan_row = c.execute(select(USERS).where(USERS.c.id == dan.id)).one()
            assert (dan_row.lifetime, dan_row.deals, dan_row.matches) == (200, 1, 1)
            assert c.scalar(select(func.count()).select_from(RATINGS).where(RATINGS.c.user_id == dan.id)) == 1
    finally:
        store.close()


def test_deleting_an_account_leaves_another_persons_name_it_once_had(server: LiveServer) -> None:
    """Ann renames herself Anna, someone else takes the name Ann, and the two play: deleting
    Anna's account makes her seat neutral and leaves the other Ann's name where it is."""
    first = account(server, "Ann")
    r = first.http.post("/api/account/name", json={"name": "Anna", "password": PASSWORD})
    assert r.status_code == 200, r.text
    held_no_more(server.app.state.store, first.id)
    second = account(server, "Ann")
    table_id, lives = one_deal(first, second, turn_seconds=30, options={"match_end": "deals:1"})
    for live in lives.values():
        live.close()
    r = first.http.post("/api/account/delete", json={"password": PASSWORD, "confirm": "Anna"})
    assert r.status_code == 200, r.text
    neutral = r.json()["name"]
    players = second.http.get(f"/api/matches/{table_id}/deals/0").json()["players"]
    assert (players["S"]["name"], players["E"]["name"]) == (neutral, "Ann")


def test_a_renamed_account_deleted_leaves_none_of_its_names_in_the_records(app: Any) -> None:
    store = store_of(app)
    with local_client(app) as ann:
        sign_up(ann, "Ann")
        first = new_match(ann, seed=5)
        play_deal(ann, first, random.Random(1))
        assert ann.post("/api/account/name", json={"name": "Annie", "password": PASSWORD}).status_code == 200
        second = new_match(ann, seed=6)
        play_deal(ann, second, random.Random(2))
        lines = ann.get("/api/me/records.jsonl").text.splitlines()
        assert [json.loads(line)["players"]["S"]["name"] for line in lines] == ["Ann", "Annie"]
        r = ann.post("/api/account/delete", json={"password": PASSWORD, "confirm": "Annie"})
        assert r.status_code == 200, r.text
        neutral = r.json()["name"]
    text = "".join(store.records(first) + store.records(second))
    assert "Ann" not in text and text.count(neutral) == 2


def _two_events(organiser: Someone, alice: Someone, cy: Someone, judge: Someone, partner: Someone) -> tuple[str, str]:
    """Two events of ``organiser``: one that lists ``alice`` with ``partner`` (the organiser's
    friends), ``judge`` its referee, and another that she entered with ``cy`` and withdrew from
    (its log names her)."""
    befriend(organiser, alice, partner, judge)
    made = organiser.http.post("/api/events", json={
        "name": "Open pairs", "form": "howell", "boards": 1, "entry": "open", "referees": [judge.name],
        "entrants": [{"players": [alice.name, partner.name]}]})
    assert made.status_code == 201, made.text
    other = organiser.http.post("/api/events", json={"name": "Another", "form": "howell", "boards": 1,
                                                     "entry": "open"}).json()["id"]
    befriend(alice, cy)
    entered = alice.http.post(f"/api/events/{other}/entries", json={"players": [alice.name, cy.name]})
    assert entered.status_code == 200, entered.text
    assert alice.http.post(f"/api/events/{other}/withdraw", json={}).status_code == 200
    return made.json()["id"], other


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_deleted_account_leaves_its_name_in_no_event(server: LiveServer) -> None:
    """An entrant and a referee of an event delete their accounts: the event names them by their
    neutral names — its entrants, its referees and its log — and whoever takes the name next is
    not taken for them."""
    organiser, alice, bob, judge, cy = (account(server, n) for n in ("Olga", "Alice", "Bob", "Judge", "Cy"))
    event_id, other = _two_events(organiser, alice, cy, judge, bob)
    names = {}
    for person in (alice, judge):
        r = person.http.post("/api/account/delete", json={"password": PASSWORD, "confirm": person.name})
        assert r.status_code == 200, r.text
        names[person.name] = r.json()["name"]
    refused(signing_up(server, "Alice"), 409, "server.account_name_taken")  # held a while
    held_no_more(server.app.state.store, alice.id)
    account(server, "Alice")  # then free: someone else takes it
    event = organiser.http.get(f"/api/events/{event_id}").json()
    gone = names["Alice"]
    assert event["entrants"] == [{"name": f"{gone} & Bob", "players": [gone, "Bob"], "withdrawn": False}]
    assert event["referees"] == [names["Judge"]]
    shown = json.dumps({k: event[k] for k in ("entrants", "referees", "log")}, ensure_ascii=False)
    assert "Alice" not in shown and "Judge" not in shown
    log = organiser.http.get(f"/api/events/{other}").json()["log"]
    assert [e["details"] for e in log if e["action"] in ("entry", "withdraw")] == [
        {"entrant": f"{gone} & Cy", "players": [gone, "Cy"]}, {"entrant": f"{gone} & Cy"}]


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_renamed_person_is_renamed_in_the_events(server: LiveServer) -> None:
    """An entrant and a referee of an event change their names: the event names them by their new
    names — its entrants, its referees and its log — and their old names are held, so nobody else
    takes one and is taken for them there."""
    organiser, alice, bob, judge, cy = (account(server, n) for n in ("Olga8", "Alice8", "Bob8", "Judge8", "Cy8"))
    event_id, other = _two_events(organiser, alice, cy, judge, bob)
    for person, name in ((alice, "Alicia8"), (judge, "Justice8")):
        r = person.http.post("/api/account/name", json={"name": name, "password": PASSWORD})
        assert r.status_code == 200, r.text
    for name in ("Alice8", "Judge8"):  # Mallory would take them: held
        refused(signing_up(server, name), 409, "server.account_name_taken")
    assert Someone(server).http.get("/api/users/Alice8").status_code == 404
    event = organiser.http.get(f"/api/events/{event_id}").json()
    assert event["entrants"] == [{"name": "Alicia8 & Bob8", "players": ["Alicia8", "Bob8"], "withdrawn": False}]
    assert event["referees"] == ["Justice8"]
    shown = json.dumps({k: event[k] for k in ("entrants", "referees", "log")}, ensure_ascii=False)
    assert "Alice8" not in shown and "Judge8" not in shown
    log = organiser.http.get(f"/api/events/{other}").json()["log"]
    assert [e["details"] for e in log if e["action"] in ("entry", "withdraw")] == [
        {"entrant": "Alicia8 & Cy8", "players": ["Alicia8", "Cy8"]}, {"entrant": "Alicia8 & Cy8"}]
    # Held no more, the name is someone else's, and the event still names Alicia8.
    held_no_more(server.app.state.store, alice.id)
    mallory = account(server, "Alice8")
    assert Someone(server).http.get("/api/users/Alice8").json()["lifetime"] == 0
    event = mallory.http.get(f"/api/events/{event_id}").json()
    assert event["entrants"][0]["players"] == ["Alicia8", "Bob8"]


def test_a_renamed_person_connects_again_under_the_new_name(server: LiveServer) -> None:
    """A person watching a table renames themself: that connection, which knows them by the old
    name, is told so and closed with 4401 (the page connects again), so they never sit down there
    under a name someone else may take next. Their lobby connection, once their session ends,
    gets no event's news (it goes on as nobody's)."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    cy, al = account(server, "Cy"), account(server, "Al")
    table_id = new_table(cy)["table_id"]
    watching = al.connect(table_id)
    watching.until(lambda s: bool(s.get("phase")))
    lobbies = server.app.state.tables.lobby.people
    with connect(f"{server.ws_base}/ws/lobby", additional_headers={"Cookie": al.cookie_header()}):
        deadline = time.monotonic() + 10
        while al.id not in lobbies.values():
            assert time.monotonic() < deadline
            time.sleep(0.02)
        r = al.http.post("/api/account/name", json={"name": "Alan", "password": PASSWORD})
        assert r.status_code == 200, r.text
        got = []
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                got.append(watching.receive())
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
        assert [m["params"] for m in got if m.get("code") == "server.name_changed"] == [{"name": "Alan"}]
        held_no_more(server.app.state.store, al.id)
        account(server, "Al")  # someone else takes the old name (once it is held no more)
        again = al.connect(table_id)
        again.until(lambda s: bool(s.get("phase")))
        again.send({"type": "sit", "seat": "N"})
        seated = again.until(lambda s: s["table"]["seats"]["N"]["name"] is not None)
        assert seated["table"]["seats"]["N"]["name"] == "Alan"
        again.close()
        assert al.id in lobbies.values()
        assert al.http.post("/api/logout", json={}).status_code == 200
        assert al.id not in lobbies.values()  # its session ended: no event's news reaches it
