"""Fair to every player (``docs/web-protocol.md``, Who you are and Limits; ``docs/deploy.md``):
sessions that begin anew at sign-up and end on the server at sign-out; failed sign-ins that slow
down the same name from the same address, never a stranger's correct password, and past more
failures from everywhere, the account's sign-ins from browsers it does not know, never its
owner's own browsers; client
addresses taken from forwarding headers only when the peer is a proxy the operator trusts; slow
requests closed by the transport, a bounded number of WebSockets per address, and a WebSocket
message that is not UTF-8 closed with one line in the log.  Every server a test starts listens on
127.0.0.1, port 0, and every wait is bounded."""

from __future__ import annotations

import base64
import json
import logging
import os
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from itsdangerous import URLSafeTimedSerializer
from sqlalchemy import Connection, select
from starlette.testclient import TestClient
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from gongzhu.server.accounts import ACCOUNT_FREE_FAILURES, FREE_FAILURES, AccountGuard, Backoff
from gongzhu.server.app import TOO_MANY_SOCKETS, create_app
from gongzhu.server.identity import COOKIE, DEVICE_COOKIE, KNOWN_DEVICES_MOST, SECURE_PREFIX, Identity
from gongzhu.server.moderation import reset_password
from gongzhu.server.policy import MAX_BODY_BYTES, TrustedProxies, client_address, counted_address
from gongzhu.server.store import KNOWN_DEVICES, SETTINGS, USERS, Store
from gongzhu.server.transport import MOST_HEAD_BYTES, REQUEST_TIMEOUT, server_config
from helpers.client import LOCAL, refused
from helpers.database import STORES
from helpers.servers import ServeProcess

PASSWORD = "correct horse"


def make_app(db_url: str, tmp_path: Path, **options: Any) -> Any:
    """The application (its passwords hashed with argon2id's cheapest parameters, as in every
    test: ``tests/conftest.py``)."""
    return create_app(db_url, pace=0, static_dir=tmp_path / "no-static", **options)


@pytest.fixture
def app(db_url: str, tmp_path: Path) -> Any:
    return make_app(db_url, tmp_path)


def browser(app: Any, host: str = "198.51.100.7") -> TestClient:
    """A browser of its own (its own cookie jar) on ``app``, from the address ``host``."""
    return TestClient(app, base_url=LOCAL, client=(host, 50000))


def sign_up(c: TestClient, name: str) -> dict[str, Any]:
    c.get("/api/me")
    r = c.post("/api/account", json={"name": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def me_with(app: Any, cookie: str) -> dict[str, Any]:
    """``GET /api/me`` from another browser that replays the session cookie ``cookie``."""
    with browser(app, "192.0.2.99") as other:
        body: dict[str, Any] = other.get("/api/me", headers={"cookie": f"{COOKIE}={cookie}"}).json()
        return body


def login(c: TestClient, name: str, password: str, **headers: str) -> Any:
    return c.post("/api/login", json={"name": name, "password": password}, headers=headers)


# ---------------------------------------------------------------------- sessions


def test_signing_up_begins_a_new_session(app: Any) -> None:
    """The guest's cookie from before the sign-up is no session of the account (nor of anyone):
    whoever knew it (a cookie planted before) does not get the account."""
    identity: Identity = app.state.identity
    with browser(app) as c:
        guest = c.get("/api/me").json()
        before = c.cookies[COOKIE]
        account = sign_up(c, "Alice")
        after = c.cookies[COOKIE]
        assert account["id"] == guest["id"] and after != before
        assert c.get("/api/me").json() == account  # the new cookie is the account
    assert identity.user_for({COOKIE: before}) is None
    replayed = me_with(app, before)
    assert replayed["guest"] is True and replayed["id"] != account["id"]
    assert identity.user_for({COOKIE: after}) is not None


def test_signing_out_ends_the_session_on_the_server(app: Any) -> None:
    """After a sign-out the old cookie, replayed, is not the account; the account's sessions on
    other browsers go on (signing out everywhere is what ends them)."""
    identity: Identity = app.state.identity
    with browser(app) as c, browser(app, "198.51.100.8") as elsewhere:
        alice = sign_up(c, "Alice")
        assert login(elsewhere, "Alice", PASSWORD).status_code == 200
        kept = c.cookies[COOKIE]
        r = c.post("/api/logout")
        assert r.status_code == 200 and r.json() == {"signed_out": True}
        assert identity.user_for({COOKIE: kept}) is None
        replayed = me_with(app, kept)
        assert replayed["guest"] is True and replayed["id"] != alice["id"]
        assert elsewhere.get("/api/me").json()["id"] == alice["id"]
        # Signing in again is a new session; the one signed out stays ended.
        assert login(c, "Alice", PASSWORD).status_code == 200
        assert c.get("/api/me").json()["id"] == alice["id"] and identity.user_for({COOKIE: kept}) is None


def test_a_cookie_of_an_earlier_server_is_kept_then_ended_by_signing_out(app: Any) -> None:
    """A cookie signed before sessions were stored (the id and the epoch alone) is still its
    person's and is replaced by a session of its own; signing out with it ends it."""
    store: Store = app.state.store
    with browser(app) as c:
        alice = sign_up(c, "Alice")
    with store.engine.connect() as conn:
        key = conn.scalar(select(SETTINGS.c.value).where(SETTINGS.c.name == "session_key"))
    old = URLSafeTimedSerializer(str(key), salt="gongzhu.session").dumps([alice["id"], 1])
    with browser(app) as c:
        r = c.get("/api/me", headers={"cookie": f"{COOKIE}={old}"})
        assert r.json()["id"] == alice["id"] and r.headers["set-cookie"].startswith(f"{COOKIE}=")
    with browser(app) as c:
        c.cookies.set(COOKIE, old)
        assert c.post("/api/logout").status_code == 200
    assert me_with(app, old)["id"] != alice["id"]


# ---------------------------------------------------------------------- sign-in limits


def test_failures_double_the_wait_up_to_a_cap() -> None:
    now = [100.0]
    backoff = Backoff(free=3, first=1.0, most=8.0, forget=3600.0, most_keys=3, clock=lambda: now[0])
    key = ("alice", "192.0.2.1")
    for _ in range(3):  # free tries
        assert backoff.start(key) == 0.0
        backoff.failed(key)
    waits = []
    for _ in range(6):
        waits.append(backoff.due(key))
        assert backoff.start(key) == pytest.approx(waits[-1])  # refused early: counts nothing
        now[0] += waits[-1]
        assert backoff.start(key) == 0.0
        backoff.failed(key)
    assert waits == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    assert backoff.due(("alice", "192.0.2.2")) == 0.0 and backoff.due(("bob", "192.0.2.1")) == 0.0
    now[0] += 8.0
    backoff.start(key)
    backoff.succeeded(key)  # a success forgets the failures
    assert backoff.due(key) == 0.0 and key not in backoff.seen
    for _ in range(5):
        now[0] += backoff.due(key)
        backoff.start(key)
        backoff.failed(key)
    assert backoff.due(key) == 4.0  # three free, then 1, 2, 4
    now[0] += 3600.0  # and so does an hour (here) without a try
    assert backoff.due(key) == 0.0 and key not in backoff.seen
    for n in range(10):  # memory stays bounded
        backoff.start((f"name{n}", "192.0.2.3"))
    assert len(backoff.seen) <= 3


def test_a_correct_password_is_accepted_after_strangers_fail_from_the_same_address(app: Any) -> None:
    """Everyone behind one proxy or router shares an address: 30 failed sign-ins with made-up
    names from it do not refuse Alice's correct password from it."""
    with browser(app) as c:
        sign_up(c, "Alice")
        c.post("/api/logout")
        for n in range(30):
            refused(login(c, f"nobody{n}", "guessing!"), 401, "server.account_wrong_login")
        r = login(c, "Alice", PASSWORD)
        assert r.status_code == 200 and r.json()["name"] == "Alice"


def test_the_owner_signs_in_from_another_address_while_an_attacker_waits(app: Any) -> None:
    with browser(app) as owner:
        sign_up(owner, "Alice")
        owner.post("/api/logout")
    with browser(app, "203.0.113.9") as attacker:
        statuses = [login(attacker, "Alice", f"guess {n}").status_code for n in range(10)]
        assert statuses == [401] * FREE_FAILURES + [429] * (10 - FREE_FAILURES)
        r = login(attacker, "ALICE", PASSWORD)  # every spelling of the name is the same name
        body = refused(r, 429, "server.account_sign_in_wait")
        assert body["params"] == {"seconds": int(r.headers["retry-after"])} and int(r.headers["retry-after"]) >= 1
    with browser(app) as owner:
        r = login(owner, "Alice", PASSWORD)
        assert r.status_code == 200 and r.json()["name"] == "Alice"


def strangers_fail(app: Any, name: str, tries: int, first: int = 0) -> list[Any]:
    """``tries`` wrong passwords for ``name``, each from a browser of its own at an address of its
    own (as a network of many machines tries), on ``app``."""
    answers = []
    for n in range(first, first + tries):
        with browser(app, f"203.0.{n // 250}.{n % 250 + 1}") as stranger:
            answers.append(login(stranger, name, f"guess {n}"))
    return answers


def known_devices(store: Store, user_id: str, *, trusted: bool = False) -> int:
    """How many browsers ``user_id`` knows (with ``trusted``: of those, how many it trusts)."""
    with store.engine.connect() as c:
        rows = c.execute(select(KNOWN_DEVICES.c.trusted).where(KNOWN_DEVICES.c.user_id == user_id)).all()
        return sum(1 for (trust,) in rows if trust or not trusted)


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_an_account_waits_for_strangers_at_every_address_while_its_owner_signs_in(db_url: str,
                                                                                 tmp_path: Path) -> None:
    """Failures from many addresses, each within the address's own free tries, still add up for
    the account: past :data:`ACCOUNT_FREE_FAILURES`, a browser the account does not know waits —
    with the right password too — on every server of a shared database, while the browser its
    owner signed up in signs in, from an address it never used, and so ends the count."""
    first, second = make_app(db_url, tmp_path), make_app(db_url, tmp_path)
    with browser(first) as owner:
        alice = sign_up(owner, "Alice")
        owner.post("/api/logout")
        half = ACCOUNT_FREE_FAILURES // 2
        answers = strangers_fail(first, "Alice", half) + strangers_fail(second, "Alice", half, first=half)
        assert [r.status_code for r in answers] == [401] * ACCOUNT_FREE_FAILURES
        for app in (first, second):
            with browser(app, "198.51.100.50") as stranger:
                r = login(stranger, "Alice", PASSWORD)
                body = refused(r, 429, "server.account_sign_in_guarded")
                assert body["params"] == {"seconds": int(r.headers["retry-after"])}
        with browser(first, "192.0.2.200") as stranger:  # another name is not held up
            refused(login(stranger, "Bob", "guessing!"), 401, "server.account_wrong_login")
        owner_cookies = dict(owner.cookies)
    # The same browser (its cookies) from an address it never used, on the other server:
    with TestClient(second, base_url=LOCAL, client=("192.0.2.77", 50000), cookies=owner_cookies) as moved:
        r = login(moved, "Alice", PASSWORD)
        assert r.status_code == 200 and r.json()["id"] == alice["id"]
    r = strangers_fail(first, "Alice", 1, first=500)[0]
    refused(r, 401, "server.account_wrong_login")  # the owner's sign-in ended the count


def test_a_browser_that_signs_in_becomes_known_and_the_count_is_forgotten_after_a_day(app: Any) -> None:
    store: Store = app.state.store
    identity: Identity = app.state.identity
    now = [datetime(2026, 1, 1, tzinfo=UTC)]
    guard = AccountGuard(identity, free=2, first=1.0, most=4.0, forget=3600.0, clock=lambda: now[0])
    with browser(app) as c:
        alice = sign_up(c, "Alice")
        c.post("/api/logout")
        device = c.cookies[DEVICE_COOKIE]
    assert [guard.start("Alice", "stranger-device-token-0000000000") for _ in range(3)] == [0.0, 0.0, 1.0]
    assert guard.start("alice", device) == 0.0  # the owner's browser never waits and counts nothing
    waits = []
    for _ in range(4):
        waits.append(guard.start("ALICE", "stranger-device-token-0000000000"))
        now[0] += timedelta(seconds=waits[-1])
        assert guard.start("Alice", "stranger-device-token-0000000000") == 0.0
    assert waits == [1.0, 2.0, 4.0, 4.0]
    assert guard.start("Nobody", "stranger-device-token-0000000000") == 0.0  # no account to guard
    now[0] += timedelta(seconds=3600)
    assert guard.start("Alice", "stranger-device-token-0000000000") == 0.0  # an hour here forgets
    with store.engine.connect() as conn:
        assert conn.scalar(select(USERS.c.sign_in_failures).where(USERS.c.id == alice["id"])) == 1
    guard.succeeded(alice["id"])
    with store.engine.connect() as conn:
        assert conn.scalar(select(USERS.c.sign_in_failures).where(USERS.c.id == alice["id"])) == 0
    # At most the last KNOWN_DEVICES_MOST browsers are remembered.
    for n in range(KNOWN_DEVICES_MOST + 3):
        identity.remember(alice["id"], f"device-{n:02d}-" + "x" * 22)
    assert known_devices(store, alice["id"]) == KNOWN_DEVICES_MOST
    # ... but never one another account was signed in from too: new browsers, however many, do
    # not undo the link between the two accounts (it is only no longer trusted, as an old one)
    with browser(app) as c:
        bob = sign_up(c, "Bob")
    for person in (bob, alice):
        identity.remember(person["id"], "shared-device-" + "y" * 22)
    for n in range(KNOWN_DEVICES_MOST + 3):
        identity.remember(alice["id"], f"later-{n:02d}-" + "x" * 22)
    assert known_devices(store, alice["id"]) == KNOWN_DEVICES_MOST + 1
    assert known_devices(store, alice["id"], trusted=True) == KNOWN_DEVICES_MOST  # (known, no longer trusted)
    assert store.people_of([alice["id"], bob["id"]], networks=False) == [{alice["id"], bob["id"]}]


@pytest.mark.postgres
def test_tries_counted_at_once_on_two_servers_are_counted_once_each(pg_url: str) -> None:
    """The count is compared and set: a try whose count another server changed after it read it
    reads it again rather than pass uncounted or write over the other's, so tries at once on many
    servers never get more than the free failures between them."""
    store = Store(pg_url)
    try:
        with store.engine.begin() as c:
            c.execute(USERS.insert().values(
                id="alice-id", name="Alice", name_key="alice", password_hash="x", guest=False,
                created="2026-01-01T00:00:00+00:00", lifetime=0, deals=0, matches=0, pigs=0, session_epoch=1))
        other = AccountGuard(Identity(store))

        counted_meanwhile: list[float] = []

        class Meanwhile(Identity):
            """Another server counts a try of the same account while this one looks, once."""

            @staticmethod
            def knows(c: Connection, user_id: str, device: str) -> bool:
                if not counted_meanwhile:
                    counted_meanwhile.append(other.start("Alice", "other-device-token-00000000000000"))
                return False

        racing = AccountGuard(Meanwhile(store))
        assert racing.start("Alice", "stranger-device-token-0000000000") == 0.0
        assert counted_meanwhile == [0.0]
        with store.engine.connect() as c:  # both counted: this one read the count again
            assert c.scalar(select(USERS.c.sign_in_failures).where(USERS.c.id == "alice-id")) == 2
    finally:
        store.engine.dispose()


def test_a_new_password_trusts_no_other_browser_and_a_reset_ends_the_wait(app: Any) -> None:
    """Changing the password trusts only this browser (a browser someone else used waits as a
    stranger's), though every browser stays known (its links to other accounts stay); an
    operator's reset trusts none and ends the count, so that the owner signs in at once from any
    browser."""
    store: Store = app.state.store
    with browser(app) as c:
        alice = sign_up(c, "Alice")
        with browser(app, "192.0.2.8") as laptop:
            assert login(laptop, "Alice", PASSWORD).status_code == 200
            assert login(laptop, "Alice", PASSWORD).status_code == 200  # known already: once
        assert known_devices(store, alice["id"], trusted=True) == 2
        r = c.post("/api/account/password", json={"current": PASSWORD, "new": "another horse"})
        assert r.status_code == 200, r.text
        assert (known_devices(store, alice["id"], trusted=True), known_devices(store, alice["id"])) == (1, 2)
    assert [r.status_code for r in strangers_fail(app, "Alice", ACCOUNT_FREE_FAILURES)] == [401] * ACCOUNT_FREE_FAILURES
    with browser(app, "192.0.2.9") as phone:
        refused(login(phone, "Alice", "another horse"), 429, "server.account_sign_in_guarded")
        _, temporary, _ = reset_password(store, "Alice")
        assert (known_devices(store, alice["id"], trusted=True), known_devices(store, alice["id"])) == (0, 2)
        assert login(phone, "Alice", temporary).status_code == 200


def test_a_rotating_forwarded_address_from_a_peer_not_trusted_is_throttled(app: Any) -> None:
    """From loopback, but the application trusts no proxy: X-Forwarded-For and Forwarded are
    ignored, and every try counts against the one peer address."""
    with browser(app, "127.0.0.1") as c:
        sign_up(c, "Alice")
        c.post("/api/logout")
        statuses = []
        for n in range(FREE_FAILURES + 3):
            headers = {"x-forwarded-for": f"203.0.113.{n}"} if n % 2 else {"forwarded": f"for=198.51.100.{n}"}
            statuses.append(login(c, "Alice", "guessing!", **headers).status_code)
        assert statuses == [401] * FREE_FAILURES + [429] * 3


def test_gongzhu_serve_believes_no_forwarding_header_from_loopback_by_itself(app: Any) -> None:
    """Through ``gongzhu serve``'s uvicorn stack (whose own proxy headers would trust loopback): a
    client on the server's machine rotating ``X-Forwarded-For`` is still one address."""
    with browser(app) as c:
        sign_up(c, "Alice")
    with served(app) as port:
        statuses = []
        for n in range(FREE_FAILURES + 3):
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/api/login", method="POST",
                data=json.dumps({"name": "Alice", "password": "guessing!"}).encode(),
                headers={"Content-Type": "application/json", "X-Forwarded-For": f"203.0.113.{n}"})
            try:
                with urllib.request.urlopen(request, timeout=5) as answer:
                    statuses.append(answer.status)
            except urllib.error.HTTPError as e:
                statuses.append(e.code)
        assert statuses == [401] * FREE_FAILURES + [429] * 3


def test_a_trusted_proxy_says_the_scheme(db_url: str, tmp_path: Path) -> None:
    """Behind a trusted proxy that ends TLS (``X-Forwarded-Proto: https``) the session cookie is
    ``Secure``; from a peer not trusted the header changes nothing."""
    trusting = make_app(db_url, tmp_path, trusted_proxies=["127.0.0.0/8"])
    with browser(trusting, "127.0.0.1") as c:
        cookie = c.get("/api/me", headers={"x-forwarded-proto": "https"}).headers["set-cookie"]
        assert "; Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    with browser(trusting, "192.0.2.50") as c:
        assert "Secure" not in c.get("/api/me", headers={"x-forwarded-proto": "https"}).headers["set-cookie"]


def test_over_https_the_cookies_are_the_hosts_own(app: Any) -> None:
    """Over https the session and device cookies are named ``__Host-…`` — a browser takes those
    only from an https page of the very host, ``Secure``, ``Path=/`` and no ``Domain`` — and only
    those are read there: cookies of the plain names, which a sibling subdomain, another port or
    a plain-http page could plant, neither sign anyone in nor are taken as the browser's."""

    def over_https() -> TestClient:
        return TestClient(app, base_url=LOCAL.replace("http:", "https:"), client=("198.51.100.7", 50000))

    with over_https() as c:
        c.get("/api/me")
        answer = c.post("/api/account", json={"name": "Alice", "password": PASSWORD})
        assert answer.status_code == 200, answer.text
        alice = answer.json()["id"]
        for set_cookie in answer.headers.get_list("set-cookie"):
            assert set_cookie.startswith(SECURE_PREFIX), set_cookie
            assert "; Secure" in set_cookie and "; Path=/" in set_cookie and "Domain" not in set_cookie
        session, device = c.cookies[SECURE_PREFIX + COOKIE], c.cookies[SECURE_PREFIX + DEVICE_COOKIE]
        assert COOKIE not in c.cookies and DEVICE_COOKIE not in c.cookies
        assert c.get("/api/me").json()["id"] == alice
    identity: Identity = app.state.identity
    with over_https() as planted:
        planted.cookies.set(COOKIE, session)  # the plain names, planted
        planted.cookies.set(DEVICE_COOKIE, device)
        me = planted.get("/api/me").json()
        assert me["id"] != alice and me["guest"] is True
        assert login(planted, "Alice", PASSWORD).status_code == 200
        own = planted.cookies[SECURE_PREFIX + DEVICE_COOKIE]
    assert own != device and identity.knows_now(alice, own) and identity.knows_now(alice, device)
    with browser(app) as c:  # over http, the plain names as ever
        assert c.get("/api/me").headers["set-cookie"].startswith(COOKIE + "=")


@pytest.mark.parametrize(("header", "secure", "plain"), [
    ("x-forwarded-for", {"x-forwarded-proto": "https", "forwarded": "proto=http"},
     {"x-forwarded-proto": "http", "forwarded": "proto=https"}),
    ("forwarded", {"forwarded": "for=203.0.113.5;proto=https", "x-forwarded-proto": "http"},
     {"forwarded": "for=203.0.113.5;proto=http", "x-forwarded-proto": "https"}),
])
def test_the_scheme_comes_only_from_the_header_the_proxies_write(
        db_url: str, tmp_path: Path, header: str, secure: dict[str, str], plain: dict[str, str]) -> None:
    """``--forwarded-header`` names the kind of header the trusted proxies write, and only that
    kind says the scheme: the other, which a proxy passes on from the client, changes nothing."""
    trusting = make_app(db_url, tmp_path, trusted_proxies=["127.0.0.0/8"], forwarded_header=header)
    with browser(trusting, "127.0.0.1") as c:
        assert "; Secure" in c.get("/api/me", headers=secure).headers["set-cookie"]
    with browser(trusting, "127.0.0.1") as c:
        assert "Secure" not in c.get("/api/me", headers=plain).headers["set-cookie"]


@pytest.mark.parametrize(("header", "other"), [("x-forwarded-for", "forwarded"), ("forwarded", "x-forwarded-for")])
def test_the_other_forwarding_header_is_no_way_around_the_sign_in_bound(
        db_url: str, tmp_path: Path, header: str, other: str) -> None:
    """Behind a trusted proxy that writes one kind of forwarding header and passes the other on
    from the client untouched, a client writing a new address in the other kind on every try is
    still the one client its proxy names: it runs out of tries, and another client does not."""
    app = make_app(db_url, tmp_path, trusted_proxies=["127.0.0.1"], forwarded_header=header)

    def written(address: str) -> str:
        return f"for={address};proto=http" if header == "forwarded" else address

    def chosen(n: int) -> str:
        return f"for=10.9.9.{n}" if other == "forwarded" else f"10.9.9.{n}"

    with browser(app, "127.0.0.1") as proxy:
        sign_up(proxy, "Alice")
        proxy.post("/api/logout")
        statuses = [login(proxy, "Alice", "guessing!", **{header: written("198.51.100.20"), other: chosen(n)})
                    .status_code for n in range(FREE_FAILURES + 3)]
        assert statuses == [401] * FREE_FAILURES + [429] * 3
        r = login(proxy, "Alice", PASSWORD, **{header: written("198.51.100.21"), other: chosen(99)})
        assert r.status_code == 200


def test_a_trusted_proxy_writing_the_other_header_is_logged_once(
        db_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A trusted proxy whose requests carry the kind of header the server does not read, and none
    of the kind it does, writes the other kind: the log says once which option to give."""
    app = make_app(db_url, tmp_path, trusted_proxies=["127.0.0.1"])
    with caplog.at_level(logging.WARNING, logger="gongzhu.server"), browser(app, "127.0.0.1") as c:
        c.get("/api/me", headers={"x-forwarded-for": "203.0.113.5", "forwarded": "for=198.51.100.1"})
        assert not [r for r in caplog.records if "--forwarded-header" in r.getMessage()]  # both: nothing known
        c.get("/api/me", headers={"forwarded": "for=203.0.113.5"})
        c.get("/api/me", headers={"forwarded": "for=203.0.113.6"})
    told = [r.getMessage() for r in caplog.records if "--forwarded-header" in r.getMessage()]
    assert len(told) == 1 and "--forwarded-header forwarded" in told[0] and "127.0.0.1" in told[0], told


def test_the_forwarded_address_of_a_trusted_proxy_is_used(db_url: str, tmp_path: Path) -> None:
    app = make_app(db_url, tmp_path, trusted_proxies=["127.0.0.1"])
    with browser(app, "127.0.0.1") as proxy:
        sign_up(proxy, "Alice")
        proxy.post("/api/logout")
        # Each client behind the proxy has its own tries ...
        for n in range(2 * FREE_FAILURES):
            refused(login(proxy, "Alice", "guessing!", **{"x-forwarded-for": f"203.0.113.{n}"}), 401,
                    "server.account_wrong_login")
        # ... and one client's failures are its own, whatever it writes before the proxy's entry.
        for n in range(FREE_FAILURES):
            r = login(proxy, "Alice", "guessing!", **{"x-forwarded-for": f"10.9.9.{n}, 198.51.100.20"})
            assert r.status_code == 401
        r = login(proxy, "Alice", "guessing!", **{"x-forwarded-for": "198.51.100.20"})
        refused(r, 429, "server.account_sign_in_wait")
        r = login(proxy, "Alice", PASSWORD, **{"x-forwarded-for": "198.51.100.21"})
        assert r.status_code == 200


def scope(peer: str | None, *headers: tuple[str, str]) -> dict[str, Any]:
    return {"type": "http", "client": (peer, 5000) if peer else None,
            "headers": [(n.encode(), v.encode()) for n, v in headers]}


def test_client_addresses_honour_only_trusted_proxies() -> None:
    proxies = TrustedProxies(["127.0.0.1", "10.0.0.0/8", "::1"])
    writing_forwarded = TrustedProxies(["127.0.0.1", "10.0.0.0/8", "::1"], "forwarded")
    xff, fwd = "x-forwarded-for", "forwarded"
    cases = [
        (scope("198.51.100.7", (xff, "203.0.113.5")), "198.51.100.7"),  # a peer not trusted
        (scope("127.0.0.1"), "127.0.0.1"),  # trusted, but says nothing
        (scope("127.0.0.1", (xff, "203.0.113.5")), "203.0.113.5"),
        (scope("127.0.0.1", (xff, "1.1.1.1, 203.0.113.5, 10.0.0.7")), "203.0.113.5"),  # right-most not trusted
        (scope("127.0.0.1", (xff, "1.1.1.1"), (xff, "203.0.113.5")), "203.0.113.5"),  # headers in order
        (scope("127.0.0.1", (xff, "203.0.113.5:4711")), "203.0.113.5"),
        (scope("127.0.0.1", (xff, "[2001:db8::1]:4711")), "2001:db8::1"),
        (scope("127.0.0.1", (xff, "unknown, 10.0.0.7")), "10.0.0.7"),  # no address: the proxy that said so
        (scope("127.0.0.1", (xff, "10.0.0.8, 10.0.0.7")), "10.0.0.8"),  # proxies all the way
        # X-Forwarded-For only, by default: Forwarded is the client's own, whatever it says
        (scope("127.0.0.1", (xff, "203.0.113.5"), (fwd, "for=198.51.100.1")), "203.0.113.5"),
        (scope("127.0.0.1", (fwd, "for=198.51.100.1"), (xff, "203.0.113.5")), "203.0.113.5"),
        (scope("127.0.0.1", (fwd, "for=198.51.100.1")), "127.0.0.1"),
        (scope("::1", (fwd, "for=127.0.0.1")), "::1"),
        (scope("testclient"), "testclient"),
        (scope(None), ""),
    ]
    for given, expected in cases:
        assert client_address(given, proxies) == expected, given
    # Forwarded only, with --forwarded-header forwarded: X-Forwarded-For is the client's own
    cases = [
        (scope("::1", (fwd, 'for="[2001:db8::2]:80";proto=https, for=10.0.0.7')), "2001:db8::2"),
        (scope("::ffff:127.0.0.1", (fwd, "For=203.0.113.6")), "203.0.113.6"),
        (scope("127.0.0.1", (fwd, "for=203.0.113.6"), (fwd, "for=10.0.0.7")), "203.0.113.6"),  # headers in order
        (scope("127.0.0.1", (fwd, "for=unknown, for=10.0.0.7")), "10.0.0.7"),
        (scope("127.0.0.1", (fwd, "proto=https")), "127.0.0.1"),  # no for=: the proxy that said so
        (scope("127.0.0.1", (xff, "198.51.100.1"), (fwd, "for=203.0.113.5")), "203.0.113.5"),
        (scope("127.0.0.1", (xff, "127.0.0.1"), (fwd, "for=203.0.113.5")), "203.0.113.5"),
        (scope("127.0.0.1", (xff, "203.0.113.5")), "127.0.0.1"),
        (scope("198.51.100.7", (fwd, "for=203.0.113.5")), "198.51.100.7"),  # a peer not trusted
    ]
    for given, expected in cases:
        assert client_address(given, writing_forwarded) == expected, given
    assert client_address(scope("127.0.0.1", (xff, "203.0.113.5"))) == "127.0.0.1"  # nobody trusted
    for bad in ("proxy.example", "10.0.0.0/40", ""):
        with pytest.raises(ValueError):
            TrustedProxies([bad])
    for header in ("x-real-ip", "X-Forwarded-For", "forwarded-for", ""):
        with pytest.raises(ValueError):
            TrustedProxies(["127.0.0.1"], header)


def test_an_ipv6_client_counts_as_its_64_network() -> None:
    """Rotating through the addresses of one IPv6 subscriber (a /64) is no way around a bound."""
    assert counted_address(scope("2001:db8:1:2::5")) == counted_address(scope("2001:db8:1:2:ffff::9")) \
        == "2001:db8:1:2::/64"
    assert counted_address(scope("2001:db8:1:3::5")) != counted_address(scope("2001:db8:1:2::5"))
    assert counted_address(scope("203.0.113.5")) == "203.0.113.5"
    assert counted_address(scope("::ffff:203.0.113.5")) == "203.0.113.5"
    assert counted_address(scope("testclient")) == "testclient"


# ---------------------------------------------------------------------- slow and many connections


@contextmanager
def served(app: Any, **options: Any) -> Iterator[int]:
    """``app`` under ``gongzhu serve``'s uvicorn configuration, in a thread, on a free loopback
    port (yielded); stopped afterwards."""
    server = uvicorn.Server(server_config(app, host="127.0.0.1", port=0, **options))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    try:
        yield int(server.servers[0].sockets[0].getsockname()[1])
    finally:
        server.should_exit = True
        thread.join(15)


def closed_after(sock: socket.socket, trickle: bytes) -> int | None:
    """Send ``trickle`` a byte a second; how many bytes were sent when the server closed the
    connection, or None if it was still open after the last."""
    sock.settimeout(0.05)
    for sent, byte in enumerate(trickle):
        try:
            sock.send(bytes([byte]))
        except OSError:
            return sent
        step = time.monotonic() + 1.0
        while time.monotonic() < step:
            try:
                if sock.recv(4096) == b"":
                    return sent + 1
            except TimeoutError:
                pass
            except OSError:
                return sent + 1
    return None


def test_slow_requests_are_closed_and_others_are_served_meanwhile(app: Any) -> None:
    """A client sending its request head a byte a second is closed once the request timeout has
    passed (here 2 s; ``gongzhu serve``: :data:`REQUEST_TIMEOUT`): after its second byte, long
    before its head is complete (each byte restarting the time would keep it open for ever); so
    is one that sends nothing; a head past the transport's bound is refused at once; other
    requests are answered meanwhile."""
    assert getattr(server_config(app).http, "request_timeout", None) == REQUEST_TIMEOUT  # gongzhu serve's
    head = b"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"z" * 40 + b"\r\n\r\n"
    with served(app, request_timeout=2.0) as port:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as slow, \
                socket.create_connection(("127.0.0.1", port), timeout=5) as silent:
            sent = closed_after(slow, head)
            assert sent is not None and 2 <= sent < len(head), sent
            silent.settimeout(5.0)
            assert silent.recv(100) == b""  # sent nothing: closed too, by the same timeout
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/config", timeout=5) as answer:
            assert answer.status == 200
        with socket.create_connection(("127.0.0.1", port), timeout=5) as big:
            big.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"y" * (MOST_HEAD_BYTES + 10))
            assert big.recv(100).startswith(b"HTTP/1.1 431")


def test_a_body_refused_before_it_is_read_ends_its_connection(app: Any) -> None:
    """A body larger than the server takes is refused with 413 before it is read; the rest of
    it, still arriving, is neither read as the next request's head (which once answered the
    next request with a 431 of its own) nor waited for: the connection closes after the 413."""
    body = b'{"pad": "' + b"x" * (MOST_HEAD_BYTES + MAX_BODY_BYTES) + b'"}'
    head = (f"POST /api/matches HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    with served(app) as port, socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(head + body[:1000])
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += sock.recv(4096)
        assert answer.startswith(b"HTTP/1.1 413")
        try:
            sock.sendall(body[1000:] + b"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            while chunk := sock.recv(65536):
                answer += chunk
        except OSError:  # closed while the rest was being sent
            pass
    assert b"HTTP/1.1 431" not in answer and answer.count(b"HTTP/1.1 ") == 1


def test_one_address_holds_a_bounded_number_of_websockets(tmp_path: Path) -> None:
    """``gongzhu serve --websockets-per-address 3``: three WebSockets from one address are open at
    once; the fourth is told why (a catalog message) and closed with 4429; once one closes, the
    next is let in."""
    server = ServeProcess(tmp_path, "--websockets-per-address", "3")
    url = f"{server.ws_base}/ws/lobby"
    try:
        stack = ExitStack()
        opened = [stack.enter_context(connect(url, open_timeout=5)) for _ in range(3)]
        for ws in opened:
            assert json.loads(ws.recv(timeout=5))["type"] == "lobby"
        with connect(url, open_timeout=5) as extra:
            message = json.loads(extra.recv(timeout=5))
            assert message["type"] == "error" and message["code"] == "server.too_many_connections"
            assert message["params"] == {"limit": 3} and message["message_zh"]
            with pytest.raises(ConnectionClosed) as closed:
                extra.recv(timeout=5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == TOO_MANY_SOCKETS
        opened.pop().close()
        deadline = time.monotonic() + 5
        while True:  # the server lets the closed one go as soon as it has seen it close
            with connect(url, open_timeout=5) as again:
                if json.loads(again.recv(timeout=5))["type"] == "lobby":
                    break
            assert time.monotonic() < deadline, "the slot of a closed WebSocket was never given back"
            time.sleep(0.05)
        stack.close()
    finally:
        server.stop()


def test_websockets_are_counted_per_client_address(db_url: str, tmp_path: Path) -> None:
    """Behind a trusted proxy each client has its own WebSockets; from elsewhere every socket
    counts against its peer."""
    app = make_app(db_url, tmp_path, trusted_proxies=["127.0.0.1"], websockets_per_address=1)
    with browser(app, "127.0.0.1") as c:
        behind = [{"x-forwarded-for": f"203.0.113.{n}"} for n in (1, 2)]
        with c.websocket_connect("ws://127.0.0.1/ws/lobby", headers=behind[0]) as one, \
                c.websocket_connect("ws://127.0.0.1/ws/lobby", headers=behind[1]) as two:
            assert one.receive_json()["type"] == two.receive_json()["type"] == "lobby"
            with c.websocket_connect("ws://127.0.0.1/ws/lobby", headers=behind[0]) as third:
                assert third.receive_json()["code"] == "server.too_many_connections"
                assert third.receive() == {"type": "websocket.close", "code": TOO_MANY_SOCKETS,
                                           "reason": "too many connections from one address"}
    assert app.state.sockets.held == {}


def test_a_websocket_message_that_is_not_utf8_is_one_line_in_the_log(app: Any) -> None:
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    keep = Keep()
    logger = logging.getLogger("uvicorn.error")
    with served(app) as port:
        logger.addHandler(keep)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
                key = base64.b64encode(os.urandom(16)).decode()
                sock.sendall(f"GET /ws/lobby HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                             f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                             "Sec-WebSocket-Version: 13\r\n\r\n".encode())
                received = b""
                while b"\r\n\r\n" not in received:
                    received += sock.recv(4096)
                assert received.startswith(b"HTTP/1.1 101")
                mask, payload = os.urandom(4), b"\xff\xfe{}"
                sock.sendall(bytes([0x81, 0x80 | len(payload)]) + mask
                             + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
                received = received.partition(b"\r\n\r\n")[2]
                deadline = time.monotonic() + 5
                while b"\x88\x02\x03\xef" not in received:  # a close frame, code 1007
                    assert time.monotonic() < deadline, received
                    chunk = sock.recv(4096)
                    assert chunk, received
                    received += chunk
            deadline = time.monotonic() + 5
            while not records and time.monotonic() < deadline:
                time.sleep(0.02)
        finally:
            logger.removeHandler(keep)
    said = [r for r in records if "UTF-8" in r.getMessage()]
    assert len(said) == 1, [r.getMessage() for r in records]
    record = said[0]
    assert record.exc_info is None and record.levelno == logging.WARNING
    assert "\n" not in logging.Formatter().format(record) and "1007" in record.getMessage()
