"""Who you are (``docs/web-protocol.md``, Who you are; :mod:`gongzhu.server.identity` and
:mod:`gongzhu.server.accounts`): guests with generated names and a signed, HttpOnly, SameSite=Lax
cookie; accounts made from the guest (same id, so the same history); signing in and out, on one
browser or every one; forged, tampered with, expired and stale cookies are no session; the
single-player server's person (``local``) is claimed once, and only from the server's own machine;
the leaderboard lists accounts only; idle guests with nothing kept are forgotten, by the
running server too; and every refusal a player reads is a catalog message.
Each test that uses the database runs on SQLite and on PostgreSQL (``STORES``)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from argon2 import PasswordHasher, Type
from itsdangerous import TimestampSigner, URLSafeTimedSerializer
from sqlalchemy import create_engine, delete, func, insert, select, text, update
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from gongzhu.messages import catalog, render
from gongzhu.rules.match import title_for
from gongzhu.server import app as app_module
from gongzhu.server import migrations
from gongzhu.server.accounts import FREE_FAILURES, LEADERBOARD_MAX, SIGNUPS_PER_ADDRESS
from gongzhu.server.app import create_app
from gongzhu.server.identity import (
    CHEAP_HASHING_ENV,
    COOKIE,
    COOKIE_MAX_AGE,
    GUEST_KEPT,
    LOCAL_USER,
    SECRET_ENV,
    AccountError,
    Identity,
    _loopback,
    check_name,
    default_hasher,
    name_key,
)
from gongzhu.server.policy import Attempts
from gongzhu.server.store import (
    KNOWN_DEVICES,
    MATCH_PLAYERS,
    MATCHES,
    RATINGS,
    REPORTS,
    SANCTIONS,
    SESSIONS,
    SETTINGS,
    USERS,
    Store,
)
from helpers.client import LOCAL, local_client, new_match, play_deal
from helpers.database import STORES

PASSWORD = "correct horse"
GUEST = re.compile(r"游客[0-9]{4,}")


@pytest.fixture
def app(db_url: str, tmp_path: Path) -> Any:
    return create_app(db_url, pace=0, static_dir=tmp_path / "no-static")


@pytest.fixture
def client(app: Any) -> Iterator[TestClient]:
    with local_client(app) as c:
        yield c


def browser(app: Any, host: str = "testclient", base_url: str = LOCAL) -> TestClient:
    """Another browser (its own cookie jar) on the same application, from the address ``host``."""
    return TestClient(app, base_url=base_url, client=(host, 50000))


def set_cookie(response: Any) -> str:
    header: str = response.headers.get("set-cookie", "")
    return header


def cookie_attributes(header: str) -> dict[str, str]:
    parts = [p.strip() for p in header.split(";")]
    return {p.split("=", 1)[0].lower(): (p.split("=", 1)[1] if "=" in p else "") for p in parts[1:]}


def register(c: TestClient, name: str, password: str = PASSWORD) -> dict[str, Any]:
    c.get("/api/me")
    r = c.post("/api/account", json={"name": name, "password": password})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def refusal(r: Any, status: int, code: str) -> dict[str, Any]:
    """A catalog refusal: the status, the code, English and Chinese from the catalog."""
    assert r.status_code == status, r.text
    body: dict[str, Any] = r.json()
    assert body["code"] == code, body
    assert set(body) == {"error", "message_zh", "code", "params"}
    assert code in catalog("en") and code in catalog("zh")
    assert body["error"] and body["message_zh"] and body["error"] != body["message_zh"]
    return body


def store_of(app: Any) -> Store:
    store: Store = app.state.store
    return store


def add_match(store: Store, match_id: str, created: str, user_id: str, *, visibility: str = "private",
              over: bool = True, deals: int = 3, total: int = -120, pig: bool = True) -> None:
    """A match as the tables store it (schema revision 0002), played by ``user_id``."""
    with store.engine.begin() as c:
        c.execute(insert(MATCHES).values(
            id=match_id, created=created, preset="online", options={}, levels={}, speed="normal", seed=1,
            totals=[0, 0, total, 0], deals=deals, in_deal=False, over=over, winners=[], pigs=[],
            visibility=visibility, status="over" if over else "playing"))
        c.execute(insert(MATCH_PLAYERS).values(match_id=match_id, user_id=user_id, deals=deals, total=total,
                                               pig=pig, last=created))


# ---------------------------------------------------------------------- guests and the cookie


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_guests_get_distinct_names_and_a_signed_cookie(app: Any) -> None:
    seen = set()
    for _ in range(3):
        with browser(app) as c:
            r = c.get("/api/me")
            assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
            me = r.json()
            assert set(me) == {"id", "name", "guest", "lifetime", "title", "deals", "matches", "pigs", "practice"}
            assert GUEST.fullmatch(me["name"]) and me["guest"] is True and me["id"].startswith("u-")
            assert (me["lifetime"], me["title"], me["deals"], me["matches"], me["pigs"]) == (0, "猪小弟", 0, 0, 0)
            header = set_cookie(r)
            assert header.startswith(f"{COOKIE}=")
            attributes = cookie_attributes(header)
            assert "httponly" in attributes and attributes["samesite"] == "Lax" and attributes["path"] == "/"
            assert int(attributes["max-age"]) >= 300 * 24 * 3600
            assert "secure" not in attributes  # plain http
            # The same browser stays the same guest, and its cookie is not sent again.
            again = c.get("/api/me")
            assert again.json() == me and "set-cookie" not in again.headers
            seen.add((me["id"], me["name"]))
    assert len({i for i, _ in seen}) == 3 and len({n for _, n in seen}) == 3
    # Over https the cookie is Secure.
    with browser(app, base_url="https://127.0.0.1") as c:
        assert "secure" in cookie_attributes(set_cookie(c.get("/api/me")))


def guests(app: Any) -> int:
    with store_of(app).engine.connect() as c:
        return len(c.execute(select(USERS.c.id).where(USERS.c.guest.is_(True))).all())


@pytest.mark.parametrize("db_url", STORES, indirect=True)
@pytest.mark.parametrize("path", ["/", "/lobby", "/table/m-x", "/history", "/profile", "/leaderboard", "/rules",
                                  "/challenges", "/challenge/c-x"])
def test_every_page_makes_the_browsers_session_before_its_scripts_ask(app: Any, path: str) -> None:
    """A page sends its requests at once, side by side: were each to make a guest of its own, the
    last answer would decide who the browser is.  The page itself makes the one session."""
    before = guests(app)
    with browser(app) as c:
        page = c.get(path)
        header = set_cookie(page)
        assert header.startswith(f"{COOKIE}="), (path, page.status_code, page.headers)
        me = c.get("/api/me")
        assert "set-cookie" not in me.headers and GUEST.fullmatch(me.json()["name"])
        assert c.get("/api/config").status_code == 200 and c.get("/api/challenges").status_code == 200
        assert c.get("/api/me").json() == me.json()
        again = c.get(path)  # a page asked again keeps the session
        assert "set-cookie" not in again.headers
    assert guests(app) == before + 1


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_guest_names_stay_unique_when_four_digits_collide(app: Any) -> None:
    store = store_of(app)
    with store.engine.begin() as c:  # every four-digit guest name is taken
        c.execute(insert(USERS), [
            {"id": f"u-taken{n}", "name": f"游客{n:04d}", "name_key": f"游客{n:04d}", "password_hash": None,
             "guest": True, "created": "2026-01-01", "lifetime": 0, "deals": 0, "matches": 0, "pigs": 0,
             "session_epoch": 0} for n in range(10_000)])
    with browser(app) as c:
        name = c.get("/api/me").json()["name"]
    assert re.fullmatch(r"游客[0-9]{5,}", name)


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_idle_guests_with_nothing_kept_are_forgotten(app: Any) -> None:
    """Every visit without a cookie makes a guest: those with nothing of theirs kept are forgotten
    a week after they were made, with their sessions, and their browser is a new guest; a guest
    who played, is rated, reported, seated at an open table or hosts one, or was seen lately
    stays, and so do accounts."""
    store, identity = store_of(app), app.state.identity
    browsers = {what: browser(app) for what in ("idle", "played", "seated", "hosting", "rated", "reported", "seen")}
    ids = {what: b.get("/api/me").json()["id"] for what, b in browsers.items()}
    with browser(app) as alice:
        account = register(alice, "Alice")["id"]
    week = datetime.now(UTC) + GUEST_KEPT
    add_match(store, "m-played", "2026-01-01T00:00:00+00:00", ids["played"])
    with store.engine.begin() as c:
        c.execute(insert(MATCHES).values(
            id="m-open", created="2026-01-01", preset="online", options={}, levels={}, speed="normal", seed=1,
            totals=[0, 0, 0, 0], deals=0, in_deal=False, over=False, winners=[], pigs=[], visibility="public",
            status="waiting", host=ids["hosting"],
            seats=[{"user": ids["seated"] if seat == "E" else None, "name": "x"} for seat in "NESW"]))
        c.execute(insert(RATINGS).values(user_id=ids["rated"], family="standard", mu=25.0, sigma=8.0, games=1,
                                         updated="2026-01-01"))
        c.execute(insert(REPORTS).values(reporter=account, reported=ids["reported"], reason="chat",
                                         created="2026-01-01"))
        c.execute(update(USERS).where(USERS.c.id == ids["seen"]).values(last_seen=week.isoformat()))
    assert identity.forget_idle_guests(datetime.now(UTC)) == set()  # made just now: kept
    assert identity.forget_idle_guests(week + timedelta(seconds=1), batch=2) == {ids["idle"]}
    with store.engine.connect() as c:
        kept = set(c.scalars(select(USERS.c.id)))
        sessions = set(c.scalars(select(SESSIONS.c.user_id)))
    assert kept >= {account} | {v for k, v in ids.items() if k != "idle"}
    assert ids["idle"] not in kept | sessions and ids["played"] in sessions
    again = browsers["idle"].get("/api/me").json()
    assert again["id"] != ids["idle"] and again["guest"] is True  # the browser is someone new
    assert browsers["played"].get("/api/me").json()["id"] == ids["played"]
    # once the open table is over, its host and seated guest are forgotten too (and, a week on,
    # the idle browser's new guest)
    with store.engine.begin() as c:
        c.execute(update(MATCHES).where(MATCHES.c.id == "m-open").values(status="over", over=True))
    assert identity.forget_idle_guests(week + timedelta(seconds=1)) == {ids["seated"], ids["hosting"], again["id"]}
    for each in browsers.values():
        each.close()


def test_the_server_forgets_idle_guests_by_itself(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A running server sweeps the idle guests by itself (here every fifth of a second): a guest
    watching a table since before :data:`GUEST_KEPT` (made and last seen then), with nothing
    kept, is forgotten and its table connection closes as its session ended (4401); the table's
    host stays."""
    monkeypatch.setattr(app_module, "GUEST_SWEEP_FIRST", 0.2)
    monkeypatch.setattr(app_module, "GUEST_SWEEP", 0.2)
    app = create_app(db_url, pace=0, static_dir=tmp_path / "no-static")
    with local_client(app) as player, local_client(app) as watcher:
        me = player.get("/api/me").json()["id"]
        match_id = player.post("/api/tables", json={"visibility": "public", "turn_seconds": None,
                                                    "expose_seconds": None}).json()["table_id"]
        old = watcher.get("/api/me").json()["id"]
        with watcher.websocket_connect(f"/ws/{match_id}") as ws:
            ws.receive_json()
            long_ago = (datetime.now(UTC) - GUEST_KEPT - timedelta(days=1)).isoformat()
            with store_of(app).engine.begin() as db:
                db.execute(update(USERS).where(USERS.c.id == old).values(created=long_ago, last_seen=long_ago))
            for _ in range(300):  # each round a message the server answers, so no wait is unbounded
                try:
                    ws.send_json({"type": "nonsense"})
                    ws.receive_json()
                except WebSocketDisconnect as closed:
                    assert closed.code == 4401
                    break
                time.sleep(0.1)
            else:
                pytest.fail("the idle guest's connection stayed open")
        assert player.get("/api/me").json()["id"] == me
        assert watcher.get("/api/me").json()["id"] != old
        with store_of(app).engine.connect() as db:
            assert db.scalar(select(USERS.c.id).where(USERS.c.id == old)) is None


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_guest_who_comes_to_a_table_is_seen_and_kept(app: Any) -> None:
    """A guest made and last seen long ago who opens a table's connection, or makes a table, is
    marked seen at that moment, so the sweep keeps it (the sweep checks when a guest was last
    seen in the statement that deletes it, whatever it read of the tables' seats before); one
    that does neither is forgotten, and its cookie then opens no table connection (4401)."""
    store, identity = store_of(app), app.state.identity
    host_browser, watcher, maker, idle = (local_client(app) for _ in range(4))
    try:
        match_id = host_browser.post("/api/tables", json={"visibility": "public", "turn_seconds": None,
                                                          "expose_seconds": None}).json()["table_id"]
        ids = {name: b.get("/api/me").json()["id"] for name, b in
               (("watcher", watcher), ("maker", maker), ("idle", idle))}
        long_ago = (datetime.now(UTC) - GUEST_KEPT - timedelta(days=1)).isoformat()
        with store.engine.begin() as c:
            c.execute(update(USERS).where(USERS.c.id.in_(ids.values())).values(created=long_ago, last_seen=long_ago))
        with watcher.websocket_connect(f"/ws/{match_id}") as ws:
            ws.receive_json()
        assert maker.post("/api/tables", json={"visibility": "public", "turn_seconds": None,
                                               "expose_seconds": None}).status_code == 201
        assert identity.forget_idle_guests() == {ids["idle"]}
        with pytest.raises(WebSocketDisconnect) as closed, idle.websocket_connect(f"/ws/{match_id}") as ws:
            ws.receive_json()
            ws.receive_json()
        assert closed.value.code == 4401
    finally:
        for each in (host_browser, watcher, maker, idle):
            each.close()


# ---------------------------------------------------------------------- accounts


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_register_keeps_the_id_and_the_history(app: Any, client: TestClient) -> None:
    guest = client.get("/api/me").json()
    add_match(store_of(app), "m-old", "2026-01-01T00:00:00+00:00", guest["id"])
    me = register(client, "Alice")
    assert me["id"] == guest["id"] and me["name"] == "Alice" and me["guest"] is False
    assert client.get("/api/me").json() == me
    profile = client.get("/api/profile").json()
    assert profile["account"] is True and [m["id"] for m in profile["matches_list"]] == ["m-old"]
    with store_of(app).engine.connect() as c:
        row = c.execute(select(USERS).where(USERS.c.id == guest["id"])).one()
    assert row.password_hash.startswith("$argon2id$") and PASSWORD not in row.password_hash
    assert row.name_key == "alice" and row.guest is False
    # Signed in to an account: another account needs a sign-out first.
    body = refusal(client.post("/api/account", json={"name": "Bob", "password": PASSWORD}), 409,
                   "server.account_signed_in")
    assert body["params"] == {"name": "Alice"}


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_sign_in_and_out(app: Any, client: TestClient) -> None:
    alice = register(client, "Alice")
    r = client.post("/api/logout")
    assert r.status_code == 200 and cookie_attributes(set_cookie(r))["max-age"] == "0"
    after = client.get("/api/me").json()
    assert after["guest"] is True and after["id"] != alice["id"]
    # The name is compared in NFKC case folding: full-width capitals sign in to the same account.
    r = client.post("/api/login", json={"name": " ＡＬＩＣＥ ", "password": PASSWORD})
    assert r.status_code == 200 and r.json() == alice and set_cookie(r).startswith(f"{COOKIE}=")
    assert client.get("/api/me").json() == alice
    # Another browser signs in too; signing out everywhere ends both sessions.
    with browser(app) as other:
        assert other.post("/api/login", json={"name": "alice", "password": PASSWORD}).json()["id"] == alice["id"]
        with store_of(app).engine.connect() as c:
            assert c.scalar(select(func.count()).select_from(KNOWN_DEVICES)
                            .where(KNOWN_DEVICES.c.user_id == alice["id"], KNOWN_DEVICES.c.trusted.is_(True))) == 2
        r = client.post("/api/logout", json={"everywhere": True})
        assert r.status_code == 200
        elsewhere = other.get("/api/me").json()
        assert elsewhere["guest"] is True and elsewhere["id"] != alice["id"]
        with store_of(app).engine.connect() as c:  # (a browser a thief held is trusted no more)
            assert c.scalar(select(func.count()).select_from(KNOWN_DEVICES)
                            .where(KNOWN_DEVICES.c.user_id == alice["id"], KNOWN_DEVICES.c.trusted.is_(True))) == 0
    # ... and signing in again works, with the new epoch.
    assert client.post("/api/login", json={"name": "Alice", "password": PASSWORD}).status_code == 200
    assert client.get("/api/me").json()["id"] == alice["id"]


@pytest.mark.parametrize("db_url", STORES, indirect=True)
@pytest.mark.parametrize("meanwhile", ["password changed", "signed out everywhere", "deleted", "banned"])
def test_a_sign_in_checking_the_password_as_it_changes_makes_no_session(app: Any, client: TestClient,
                                                                          meanwhile: str) -> None:
    """Someone signs in with Alice's password while she changes it (an operator's reset does the
    same), signs out everywhere or deletes her account, or an operator bans her: the change comes
    while the password is being checked, and the sign-in, which found it right, is refused all the
    same (a ban with its reason) — no session of hers outlives the change, and the browser keeps
    the session it had."""
    from gongzhu.server.account_care import AccountCare

    alice = register(client, "Alice")
    identity: Identity = app.state.identity
    store = store_of(app)
    checking = identity._verify

    def change_while_checking(stored: str, password: str) -> bool:
        right = checking(stored, password)
        if meanwhile == "password changed":
            identity.end_sessions(alice["id"], password_hash=identity.hasher.hash("a brand new one"))
        elif meanwhile == "banned":  # (as an operator's ban does: the sanction, every session ended)
            stamp = datetime.now(UTC).isoformat(timespec="microseconds")
            with store.engine.begin() as c:
                c.execute(insert(SANCTIONS).values(user_id=alice["id"], kind="ban", reason="cheating", starts=stamp,
                                                   ends=None, operator=alice["id"]))
                c.execute(update(USERS).where(USERS.c.id == alice["id"])
                          .values(session_epoch=USERS.c.session_epoch + 1))
                c.execute(delete(SESSIONS).where(SESSIONS.c.user_id == alice["id"]))
        elif meanwhile == "signed out everywhere":
            with store.engine.begin() as c:
                c.execute(update(USERS).where(USERS.c.id == alice["id"])
                          .values(session_epoch=USERS.c.session_epoch + 1))
                c.execute(delete(SESSIONS).where(SESSIONS.c.user_id == alice["id"]))
        else:
            AccountCare(identity).delete(alice["id"])
        return right

    identity._verify = change_while_checking  # type: ignore[method-assign]
    with browser(app) as thief:
        before = thief.get("/api/me").json()["id"]  # (a guest)
        r = thief.post("/api/login", json={"name": "Alice", "password": PASSWORD})
        if meanwhile == "banned":
            assert refusal(r, 403, "moderation.banned")["params"] == {"reason": "cheating"}
        else:
            refusal(r, 401, "server.account_wrong_login")
        assert thief.get("/api/me").json()["id"] == before
    with store.engine.connect() as c:
        assert c.scalar(select(func.count()).select_from(SESSIONS).where(SESSIONS.c.user_id == alice["id"])) == 0
    identity._verify = checking  # type: ignore[method-assign]
    if meanwhile == "signed out everywhere":  # (the password is the same: signing in again works)
        assert client.post("/api/login", json={"name": "Alice", "password": PASSWORD}).json()["id"] == alice["id"]


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_wrong_password_and_an_unknown_name_read_the_same(client: TestClient) -> None:
    register(client, "Alice")
    client.post("/api/logout")
    wrong = refusal(client.post("/api/login", json={"name": "Alice", "password": "not the one"}), 401,
                    "server.account_wrong_login")
    unknown = refusal(client.post("/api/login", json={"name": "Nobody", "password": PASSWORD}), 401,
                      "server.account_wrong_login")
    assert wrong == unknown
    assert "set-cookie" not in client.post("/api/login", json={"name": "Alice", "password": "nope"}).headers
    # A guest's name has no password to sign in with.
    with TestClient(client.app, base_url=LOCAL) as guest:
        name = guest.get("/api/me").json()["name"]
    refusal(client.post("/api/login", json={"name": name, "password": PASSWORD}), 401, "server.account_wrong_login")


def test_name_rules() -> None:
    for name, code in [
        ("", "server.account_name_length"),
        ("   ", "server.account_name_length"),
        ("a" * 17, "server.account_name_length"),
        ("Al ice", "server.account_name_chars"),
        ("a@b", "server.account_name_chars"),
        ("pig\u200b", "server.account_name_chars"),
        ("\u0301a", "server.account_name_chars"),  # a combining mark has nothing to mark
        ("游客1234", "server.account_name_reserved"),
        ("Guest", "server.account_name_reserved"),
        ("guest_7", "server.account_name_reserved"),
        ("ＧＵＥＳＴ1", "server.account_name_reserved"),
        ("电脑北", "server.account_name_reserved"),
        ("Expert", "server.account_name_reserved"),
        ("高手", "server.account_name_reserved"),
        ("intermediate", "server.account_name_reserved"),
    ]:
        with pytest.raises(AccountError) as info:
            check_name(name)
        assert info.value.status == 400 and info.value.text.key == code, (name, info.value)
    for name, stored in [("张三", "张三"), ("Zoë", "Zoë"), ("ｆｕｌｌ", "full"), ("a_b-c·d", "a_b-c·d"),
                         ("हिन्दी", "हिन्दी"), (" 李四 ", "李四"), ("x" * 16, "x" * 16), ("7", "7")]:
        assert check_name(name) == stored
    assert name_key("Straße") == name_key("STRASSE") == "strasse"


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_refusals_of_names_and_passwords(app: Any, client: TestClient) -> None:
    register(client, "Alice")
    with browser(app) as c:
        c.get("/api/me")
        body = refusal(c.post("/api/account", json={"name": "ａｌｉｃｅ", "password": PASSWORD}), 409,
                       "server.account_name_taken")
        assert body["params"] == {"name": "alice"}
        body = refusal(c.post("/api/account", json={"name": "Bob", "password": "x" * 7}), 400,
                       "server.account_password_length")
        assert body["params"] == {"min": 8, "max": 128}
        refusal(c.post("/api/account", json={"name": "Bob", "password": "x" * 129}), 400,
                "server.account_password_length")
        body = refusal(c.post("/api/account", json={"name": "B b", "password": PASSWORD}), 400,
                       "server.account_name_chars")
        assert body["params"] == {"char": "U+0020"} and "U+0020" in body["message_zh"]
        refusal(c.post("/api/account", json={"name": "Guest1", "password": PASSWORD}), 400,
                "server.account_name_reserved")
        # Still a guest after every refusal; then a good name.
        assert c.get("/api/me").json()["guest"] is True
        assert c.post("/api/account", json={"name": "Bob", "password": "x" * 128}).status_code == 200


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_bad_bodies_name_the_path(client: TestClient) -> None:
    client.get("/api/me")
    for body, status, pattern in [
        ({"name": 5, "password": PASSWORD}, 400, r"^\$\.name: "),
        ({"name": "Bob"}, 400, r"^\$: .*password"),
        ({"name": "Bob", "password": PASSWORD, "admin": True}, 400, r"^\$: .*admin"),
        (["Bob"], 400, r"^\$: "),
    ]:
        r = client.post("/api/account", json=body)
        assert r.status_code == status and re.search(pattern, r.json()["error"]), (body, r.text)
        assert set(r.json()) == {"error"}
    r = client.post("/api/login", content=b"{nope", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "not JSON" in r.json()["error"]
    r = client.post("/api/login", content=b'{"name":"a","password":"b"}', headers={"Content-Type": "text/plain"})
    assert r.status_code == 415
    r = client.post("/api/login", content=b"x" * 9000, headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    r = client.post("/api/logout", json={"everywhere": "yes"})
    assert r.status_code == 400 and r.json()["error"].startswith("$.everywhere: ")


def test_passwords_are_hashed_at_production_strength_by_default(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server hashes passwords at argon2-cffi's default argon2id parameters (RFC 9106's
    low-memory profile: 3 passes over 64 MiB in 4 lanes); the cheapest ones only where
    ``GONGZHU_TEST_CHEAP_HASHING`` is ``1`` (the tests set it: ``tests/conftest.py``)."""
    production = (3, 64 * 1024, 4)
    monkeypatch.delenv(CHEAP_HASHING_ENV, raising=False)
    hasher = default_hasher()
    assert (hasher.time_cost, hasher.memory_cost, hasher.parallelism) == production
    assert hasher.type is Type.ID
    assert (PasswordHasher().time_cost, PasswordHasher().memory_cost, PasswordHasher().parallelism) == production
    app = create_app(f"sqlite:///{tmp_path / 'g.db'}", pace=0, static_dir=tmp_path / "none")
    served: PasswordHasher = app.state.identity.hasher
    assert (served.time_cost, served.memory_cost, served.parallelism) == production
    for value in ("", "0", "true", "yes"):
        monkeypatch.setenv(CHEAP_HASHING_ENV, value)
        assert default_hasher().memory_cost == 64 * 1024, value
    monkeypatch.setenv(CHEAP_HASHING_ENV, "1")
    cheap = default_hasher()
    assert (cheap.time_cost, cheap.memory_cost, cheap.parallelism) == (1, 8, 1)


def test_a_password_hashed_with_old_parameters_is_hashed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A login under new hasher parameters stores a new hash (argon2's check_needs_rehash): here
    from cheaper ones to the production parameters."""
    monkeypatch.delenv(CHEAP_HASHING_ENV, raising=False)
    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    try:
        cheap = PasswordHasher(time_cost=1, memory_cost=8 * 1024, parallelism=1)
        old = Identity(store, hasher=cheap)
        app = create_app(f"sqlite:///{tmp_path / 'g.db'}", pace=0, static_dir=tmp_path / "none")
        app.state.identity.hasher = cheap  # the accounts of an earlier server
        with local_client(app) as c:
            user_id = register(c, "Alice")["id"]
        with store.engine.connect() as conn:
            first = conn.scalar(select(USERS.c.password_hash).where(USERS.c.id == user_id))
        assert first is not None and "m=8192,t=1,p=1" in first
        assert old.hasher.check_needs_rehash(first) is False
        app = create_app(f"sqlite:///{tmp_path / 'g.db'}", pace=0, static_dir=tmp_path / "none")
        with local_client(app) as c:  # today's parameters
            assert c.post("/api/login", json={"name": "Alice", "password": PASSWORD}).status_code == 200
            with store.engine.connect() as conn:
                second = conn.scalar(select(USERS.c.password_hash).where(USERS.c.id == user_id))
            assert isinstance(second, str) and second != first
            assert not PasswordHasher().check_needs_rehash(second)
            c.post("/api/logout")
            assert c.post("/api/login", json={"name": "Alice", "password": PASSWORD}).status_code == 200
    finally:
        store.close()


def test_two_sign_ins_hashing_an_old_password_again_at_once_both_sign_in(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Under new hasher parameters, a sign-in hashes the password again; another sign-in of the
    same person stores its own new hash meanwhile: the first finds the hash changed, checks the
    password against it, and signs in all the same."""
    monkeypatch.delenv(CHEAP_HASHING_ENV, raising=False)
    url = f"sqlite:///{tmp_path / 'g.db'}"
    cheap = PasswordHasher(time_cost=1, memory_cost=8 * 1024, parallelism=1)
    app = create_app(url, pace=0, static_dir=tmp_path / "none")
    app.state.identity.hasher = cheap  # the accounts of an earlier server
    with local_client(app) as c:
        user_id = register(c, "Alice")["id"]
    app = create_app(url, pace=0, static_dir=tmp_path / "none")
    identity: Identity = app.state.identity

    class AnotherSignInMeanwhile(PasswordHasher):
        def hash(self, password: str | bytes, *, salt: bytes | None = None) -> str:
            with store_of(app).engine.begin() as conn:  # (its hash of the same password, stored first)
                conn.execute(update(USERS).where(USERS.c.id == user_id)
                             .values(password_hash=super().hash(password)))
            return super().hash(password, salt=salt)

    identity.hasher = AnotherSignInMeanwhile()  # today's parameters
    with local_client(app) as c:
        r = c.post("/api/login", json={"name": "Alice", "password": PASSWORD})
        assert r.status_code == 200, r.text
        assert c.get("/api/me").json()["id"] == user_id


# ---------------------------------------------------------------------- cookies that are no session


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_forged_tampered_expired_and_stale_cookies_are_no_session(app: Any, client: TestClient) -> None:
    alice = register(client, "Alice")
    token = client.cookies[COOKIE]
    identity: Identity = app.state.identity
    assert identity.user_for({COOKIE: token}) is not None
    with store_of(app).engine.connect() as c:
        key = c.scalar(select(SETTINGS.c.value).where(SETTINGS.c.name == "session_key"))
    assert key
    signer = URLSafeTimedSerializer(key, salt="gongzhu.session")
    payload = signer.loads(token)  # the id, the epoch (raised by signing up) and the session's token
    assert payload[:2] == [alice["id"], 1] and isinstance(payload[2], str) and len(payload) == 3

    class Old(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(datetime.now(UTC).timestamp()) - COOKIE_MAX_AGE - 60

    payload, _, signature = token.rpartition(".")
    # the first character of the signature: all six of its bits are signature bits (the last
    # character's low bits are padding, which base64 decoding drops)
    flipped = ("A" if signature[0] != "A" else "B") + signature[1:]
    forged = {
        "another key": URLSafeTimedSerializer("not the key", salt="gongzhu.session").dumps([alice["id"], 0]),
        "tampered": f"{payload}.{flipped}",
        "another user": token.replace(token.split(".")[0], signer.dumps(["local", 0]).split(".")[0], 1),
        "expired": URLSafeTimedSerializer(key, salt="gongzhu.session", signer=Old).dumps([alice["id"], 0]),
        "not a list": signer.dumps({"id": alice["id"]}),
        "epoch not a number": signer.dumps([alice["id"], "0"]),
        "garbage": "x",
        "empty": "",
        "non-ASCII": "游客",
    }
    for why, value in forged.items():
        assert identity.user_for({COOKIE: value}) is None, why
        scope = {"type": "websocket", "headers": [(b"cookie", f"{COOKIE}={value}".encode())]}
        assert identity.user_for(scope) is None, why
        with browser(app) as other:
            me = other.get("/api/me", headers={b"cookie": f"{COOKIE}={value}".encode()}).json()
            assert me["guest"] is True and me["id"] != alice["id"], why
    # A good cookie read from an ASGI scope (as a WebSocket gets it), among other cookies.
    scope = {"type": "websocket", "headers": [(b"cookie", f"a=1; {COOKIE}={token}; b=2".encode())]}
    user = identity.user_for(scope)
    assert user is not None and user.id == alice["id"] and user.name == "Alice" and user.title == "猪小弟"
    # Stale: an earlier server's cookie (the id and the epoch, no session) once the user's epoch
    # is raised; a session once its row has gone.
    earlier = signer.dumps([alice["id"], 1])
    assert identity.user_for({COOKIE: earlier}) is not None
    with store_of(app).engine.begin() as c:
        c.execute(update(USERS).where(USERS.c.id == alice["id"]).values(session_epoch=USERS.c.session_epoch + 1))
    assert identity.user_for({COOKIE: earlier}) is None
    assert identity.user_for({COOKIE: token}) is not None  # its row is kept
    with store_of(app).engine.begin() as c:
        c.execute(delete(SESSIONS).where(SESSIONS.c.user_id == alice["id"]))
    assert identity.user_for({COOKIE: token}) is None and identity.user_for(scope) is None
    assert client.get("/api/me").json()["id"] != alice["id"]


def test_a_week_old_cookie_is_sent_again(app: Any, client: TestClient) -> None:
    """A session in use keeps going: a cookie signed more than a week ago is renewed."""
    me = client.get("/api/me").json()
    with store_of(app).engine.connect() as conn:
        key = conn.scalar(select(SETTINGS.c.value).where(SETTINGS.c.name == "session_key"))

    class WeekOld(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(datetime.now(UTC).timestamp()) - 8 * 24 * 3600

    old = URLSafeTimedSerializer(str(key), salt="gongzhu.session", signer=WeekOld).dumps([me["id"], 0])
    with browser(app) as c:
        r = c.get("/api/me", headers={"cookie": f"{COOKIE}={old}"})
        assert r.json() == me and set_cookie(r).startswith(f"{COOKIE}=")
        renewed = set_cookie(r).split(";")[0].split("=", 1)[1]
        assert renewed != old
        again = c.get("/api/me", headers={"cookie": f"{COOKIE}={renewed}"})
        assert again.json() == me and "set-cookie" not in again.headers


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_the_signing_key_is_kept_and_the_environment_replaces_it(db_url: str, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SECRET_ENV, raising=False)
    first = create_app(db_url, pace=0, static_dir=tmp_path / "none")
    with local_client(first) as c:
        me = c.get("/api/me").json()
        token = c.cookies[COOKIE]
    second = create_app(db_url, pace=0, static_dir=tmp_path / "none")  # a restarted server
    with local_client(second) as c:
        c.cookies.set(COOKIE, token)
        assert c.get("/api/me").json() == me
    with store_of(second).engine.connect() as conn:
        assert conn.scalar(text("SELECT COUNT(*) FROM settings WHERE name = 'session_key'")) == 1
    monkeypatch.setenv(SECRET_ENV, "a key of the server's operator")
    third = create_app(db_url, pace=0, static_dir=tmp_path / "none")
    with local_client(third) as c:
        c.cookies.set(COOKIE, token)
        assert c.get("/api/me").json()["id"] != me["id"]
    for app in (first, second, third):
        store_of(app).close()


# ---------------------------------------------------------------------- the single-player server's person


def legacy_database(db_url: str, lifetime: int) -> None:
    """A database of the single-player server (revision 0001) with a lifetime score, which the
    store's migration turns into the user ``local``."""
    engine = create_engine(db_url)
    try:
        with engine.connect() as c:
            cfg = migrations.config()
            cfg.attributes["connection"] = c
            command.upgrade(cfg, migrations.FIRST)
            c.execute(text("INSERT INTO profile (id, lifetime) VALUES ('local', :l)"), {"l": lifetime})
            c.commit()
    finally:
        engine.dispose()


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_the_local_player_is_claimed_once_and_only_from_loopback(db_url: str, tmp_path: Path) -> None:
    legacy_database(db_url, 4321)
    app = create_app(db_url, pace=0, static_dir=tmp_path / "none")
    with browser(app, host="192.168.1.20") as c:
        assert c.get("/api/me").json()["guest"] is True  # not the server's machine
    with browser(app, host="127.0.0.1") as c:
        me = c.get("/api/me").json()
        assert (me["id"], me["name"], me["guest"], me["lifetime"]) == (LOCAL_USER, "本机玩家", False, 4321)
        # It keeps its session, and may become an account under a name of its own.
        assert c.get("/api/me").json()["id"] == LOCAL_USER
        assert c.get("/api/profile").json()["account"] is False
        assert c.get("/api/leaderboard").json()[0]["name"] == "本机玩家"
        account = register(c, "Host")
        assert (account["id"], account["lifetime"]) == (LOCAL_USER, 4321)
    with browser(app, host="127.0.0.1") as c:  # claimed already: another browser there is a guest
        assert c.get("/api/me").json()["guest"] is True
    with store_of(app).engine.connect() as conn:
        assert conn.scalar(select(SETTINGS.c.value).where(SETTINGS.c.name == "local_claimed"))
    store_of(app).close()


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_new_server_has_no_local_player_to_claim(app: Any) -> None:
    with browser(app, host="::1") as c:
        me = c.get("/api/me").json()
    assert me["guest"] is True and me["id"] != LOCAL_USER


def test_loopback_addresses() -> None:
    for host in ("127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"):
        assert _loopback(host), host
    for other in ("10.0.0.1", "::ffff:10.0.0.1", "testclient", "", None, "fe80::1"):
        assert not _loopback(other), other


# ---------------------------------------------------------------------- profiles and the leaderboard


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_profiles_list_matches_newest_first(app: Any, client: TestClient) -> None:
    me = register(client, "Alice")
    store = store_of(app)
    add_match(store, "m-1", "2026-01-01T10:00:00+00:00", me["id"], visibility="public", total=240, pig=False)
    add_match(store, "m-2", "2026-01-02T10:00:00+00:00", me["id"], visibility="private")
    add_match(store, "m-3", "2026-01-03T10:00:00+00:00", me["id"], visibility="public", over=False, deals=1,
              total=0, pig=False)
    with store.engine.begin() as c:
        c.execute(update(USERS).where(USERS.c.id == me["id"]).values(lifetime=15_000, deals=7, matches=3, pigs=1))
    profile = client.get("/api/profile").json()
    assert {k: profile[k] for k in ("id", "name", "guest", "account", "lifetime", "title", "deals", "matches",
                                    "pigs")} == {
        "id": me["id"], "name": "Alice", "guest": False, "account": True, "lifetime": 15_000, "title": "猪倌",
        "deals": 7, "matches": 3, "pigs": 1}
    assert profile["matches_list"] == [
        {"id": "m-3", "created": "2026-01-03T10:00:00+00:00", "preset": "online", "deals": 1, "total": 0,
         "pig": False, "over": False},
        {"id": "m-2", "created": "2026-01-02T10:00:00+00:00", "preset": "online", "deals": 3, "total": -120,
         "pig": True, "over": True},
        {"id": "m-1", "created": "2026-01-01T10:00:00+00:00", "preset": "online", "deals": 3, "total": 240,
         "pig": False, "over": True},
    ]
    # The public profile: no id, and only the matches of public tables.
    with browser(app) as other:
        public = other.get("/api/users/alice").json()
        assert "id" not in public and public["name"] == "Alice" and public["lifetime"] == 15_000
        assert [m["id"] for m in public["matches_list"]] == ["m-3", "m-1"]
        guest = other.get("/api/me").json()["name"]
        body = refusal(other.get(f"/api/users/{guest}"), 404, "server.account_unknown")
        assert guest in body["error"]
        refusal(other.get("/api/users/nobody"), 404, "server.account_unknown")


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_deal_played_counts_on_the_profile_and_the_leaderboard(app: Any, client: TestClient) -> None:
    """A real deal at a single-player table: the account's profile lists the match with what it
    scored there, and its practice score is the deal's final for its seat — apart from the
    lifetime score, which the leaderboard ranks (practice against computers cannot climb it)."""
    me = register(client, "Alice")
    match_id = new_match(client, seed=7)
    state = play_deal(client, match_id, 7)
    final, result = state["deal_result"]["final"]["S"], state["deal_result"]["result"]["S"]
    profile = client.get("/api/profile").json()
    assert profile["id"] == me["id"] and (profile["lifetime"], profile["deals"], profile["matches"]) == (0, 0, 1)
    assert profile["practice"] == {"score": final, "deals": 1}
    # The match's total is in the unit of the match's totals (R8), as the table shows it.
    assert [(m["id"], m["deals"], m["total"]) for m in profile["matches_list"]] == [(match_id, 1, result)]
    with browser(app) as other:
        assert other.get("/api/users/Alice").json()["matches_list"] == []  # a private table
        board = other.get("/api/leaderboard").json()
    assert [(row["name"], row["lifetime"], row["title"]) for row in board] == [("Alice", 0, title_for(0))]


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_the_leaderboard_lists_accounts_only(app: Any) -> None:
    lifetimes = {"Carol": 12_000, "alice": 60_000, "Bob": 12_000, "Dave": -150_000}
    ids = {}
    for name in lifetimes:
        with browser(app) as c:
            ids[name] = register(c, name)["id"]
    with browser(app) as c:
        rich_guest = c.get("/api/me").json()
    with store_of(app).engine.begin() as conn:
        for name, lifetime in lifetimes.items():
            conn.execute(update(USERS).where(USERS.c.id == ids[name]).values(lifetime=lifetime, matches=2, pigs=1))
        conn.execute(update(USERS).where(USERS.c.id == rich_guest["id"]).values(lifetime=99_999))
    with browser(app) as c:
        board = c.get("/api/leaderboard").json()
        assert [(row["rank"], row["name"], row["lifetime"]) for row in board] == [
            (1, "alice", 60_000), (2, "Bob", 12_000), (2, "Carol", 12_000), (4, "Dave", -150_000)]
        assert board[0] == {"rank": 1, "name": "alice", "title": "猎人", "lifetime": 60_000, "deals": 0,
                            "matches": 2, "pigs": 1}
        assert [row["title"] for row in board[1:]] == ["猪倌", "猪倌", "微型猪"]
        assert [row["name"] for row in c.get("/api/leaderboard?limit=2").json()] == ["alice", "Bob"]
        assert len(c.get(f"/api/leaderboard?limit={LEADERBOARD_MAX}").json()) == 4
        for bad in ("0", str(LEADERBOARD_MAX + 1), "-1", "ten", "", "１"):
            r = c.get(f"/api/leaderboard?limit={bad}")
            assert r.status_code == 400 and "limit" in r.json()["error"], bad


# ---------------------------------------------------------------------- sign-in attempts


def test_attempts_slide_over_their_window() -> None:
    now = [0.0]
    limits = Attempts(3, 60.0, clock=lambda: now[0], most_keys=2)
    for t in (0.0, 10.0, 20.0):
        now[0] = t
        assert limits.due("a") == 0.0
        limits.add("a")
    now[0] = 30.0
    assert limits.due("a") == pytest.approx(30.0) and limits.due("b") == 0.0
    now[0] = 60.0
    assert limits.due("a") == 0.0  # the first attempt left the window
    limits.add("b")
    limits.add("c")  # three keys: the idle and then the oldest are forgotten
    assert len(limits.seen) <= 2


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_sign_in_attempts_are_limited_per_name_and_address(client: TestClient) -> None:
    register(client, "Alice")
    client.post("/api/logout")
    for _ in range(FREE_FAILURES):
        assert client.post("/api/login", json={"name": "Alice", "password": "guessing"}).status_code == 401
    # From this address the right password waits too now, and every spelling of the name is the same name.
    for name in ("Alice", "ALICE"):
        r = client.post("/api/login", json={"name": name, "password": PASSWORD})
        body = refusal(r, 429, "server.account_sign_in_wait")
        assert 1 <= int(r.headers["retry-after"]) <= 60 and body["params"] == {"seconds": int(r.headers["retry-after"])}
    # Another name from the same address is still heard.
    refusal(client.post("/api/login", json={"name": "Bob", "password": PASSWORD}), 401, "server.account_wrong_login")


def test_new_accounts_are_limited_per_address(app: Any) -> None:
    """Only requests that would hash a password count: names against the rules never do."""
    with browser(app, host="10.0.0.7") as c:
        c.get("/api/me")
        for _ in range(SIGNUPS_PER_ADDRESS + 2):
            refusal(c.post("/api/account", json={"name": "Guest", "password": PASSWORD}), 400,
                    "server.account_name_reserved")
    for n in range(SIGNUPS_PER_ADDRESS):
        with browser(app, host="10.0.0.7") as c:
            register(c, f"player{n}")
    with browser(app, host="10.0.0.7") as c:
        c.get("/api/me")
        r = c.post("/api/account", json={"name": "one_more", "password": PASSWORD})
        refusal(r, 429, "server.account_too_many_attempts")
        assert c.get("/api/me").json()["guest"] is True
    with browser(app, host="10.0.0.8") as c:  # another address is heard
        register(c, "one_more")


def test_the_guests_one_address_makes_are_bounded(tmp_path: Path) -> None:
    """Every request without a session makes a guest: one client address (an IPv6 client's /64)
    makes at most ``guests_per_address`` of them in an hour (here 3), and an IPv6 /48 eight times
    as many.  The next request of the API
    that would make one is refused with 429, ``Retry-After`` and the catalog's words, and makes
    nothing; a page is served without one (its person may sign in or up there, and signing up
    makes the account, counted by new accounts' own bound).  A browser that has its session goes
    on, and another address is counted apart."""
    import httpx

    from gongzhu.server.identity import GUESTS_A_SITE
    from helpers.live import Someone
    from helpers.servers import LiveServer

    with LiveServer(f"sqlite:///{tmp_path / 'guests.db'}", trusted_proxies=["127.0.0.1"],
                    guests_per_address=3) as server:
        store = server.app.state.store

        def guests() -> int:
            with store.engine.connect() as c:
                return int(c.scalar(select(func.count()).select_from(USERS).where(USERS.c.guest.is_(True))))

        first, *_ = [Someone(server, "203.0.113.7") for _ in range(3)]
        for path in ("/", "/lobby"):
            page = httpx.get(server.base + path, headers={"X-Forwarded-For": "203.0.113.7"})
            assert page.status_code == 200 and "set-cookie" not in page.headers
        assert guests() == 3
        for path in ("/api/me", "/api/profile"):
            refused = httpx.get(server.base + path, headers={"X-Forwarded-For": "203.0.113.7"})
            assert refused.status_code == 429, (path, refused.text)
            body = refused.json()
            assert body["code"] == "server.too_many_guests" and "set-cookie" not in refused.headers
            wait = int(refused.headers["retry-after"])
            assert 3500 <= wait <= 3600 and body["params"] == {"seconds": wait}  # the oldest's hour
            assert body["error"] == render("server.too_many_guests", "en", body["params"])
            assert body["message_zh"] == render("server.too_many_guests", "zh", body["params"])
        assert guests() == 3
        assert first.http.get("/api/me").json()["id"] == first.id  # a session goes on
        signing_up = httpx.post(server.base + "/api/account", json={"name": "Newcomer", "password": "a long one 123"},
                                headers={"X-Forwarded-For": "203.0.113.7"})
        assert signing_up.status_code == 200, signing_up.text
        Someone(server, "198.51.100.9")  # another address
        for host in (1, 2, 3):
            Someone(server, f"2001:db8:0:7::{host}")
        other_host = httpx.get(server.base + "/api/me", headers={"X-Forwarded-For": "2001:db8:0:7::ffff"})
        assert other_host.status_code == 429  # one /64: one subscriber's
        assert guests() == 7
        # a /48 holds 65,536 /64s: it makes GUESTS_A_SITE times as many as one of them, no more
        for subnet in range(8, 8 + GUESTS_A_SITE - 1):
            for host in (1, 2, 3):
                Someone(server, f"2001:db8:0:{subnet:x}::{host}")
        wide = httpx.get(server.base + "/api/me", headers={"X-Forwarded-For": "2001:db8:0:ff::1"})
        assert wide.status_code == 429 and wide.json()["code"] == "server.too_many_guests"
        Someone(server, "2001:db9::1")  # another /48
        assert guests() == 7 + 3 * (GUESTS_A_SITE - 1) + 1


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_u0000_in_a_body_or_a_path_is_refused_as_bad_input_not_as_the_database_away(db_url: str,
                                                                                   client: TestClient) -> None:
    """PostgreSQL keeps no U+0000 in text: a body holding it is refused with the path of the
    string, and a path holding it (a person's name) as a value that cannot be kept — neither
    as the database being away, and the server goes on."""
    register(client, "Alice")
    r = client.post("/api/login", json={"name": "Al\u0000ice", "password": PASSWORD})
    assert r.status_code == 400 and "$.name" in r.text and "U+0000" in r.text, r.text
    r = client.post("/api/people/Bob/report", json={"reason": "rude\u0000", "match_id": None})
    assert r.status_code == 400 and "$.reason" in r.text, r.text
    r = client.get("/api/users/Al%00ice")
    if db_url.startswith("postgresql"):
        refusal(r, 400, "server.value_not_kept")
    else:  # (SQLite keeps it: nobody of that name)
        assert r.status_code == 404, r.text
    assert client.get("/api/users/Alice").status_code == 200
