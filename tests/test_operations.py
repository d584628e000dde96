"""The operator's routes (docs/operations.md): ``/healthz`` (the process lives), ``/readyz`` (the
database answers at the newest schema, Redis answers when the server shares its tables) and
``/metrics`` (Prometheus's text format, only to the addresses the operator allows, a 404 to
anyone else — a client behind a trusted proxy counted by the address the proxy forwards).

The metrics are checked against what a played deal's record says: every play of the deal
counted once, by who made it, each person's play timed, the computer players' decisions timed,
the store's reads and writes timed.  The readiness tests that need the machine's Redis, or a
PostgreSQL of their own to stop, are marked ``postgres`` (as ``test_cluster.py``)."""

from __future__ import annotations

import contextlib
import json
import os
import random
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from starlette.applications import Starlette
from starlette.testclient import TestClient

from gongzhu.server import create_app
from gongzhu.server.app import SESSION_RECHECK
from gongzhu.server.migrations import HEAD
from gongzhu.server.store import POSTGRES_LOCK_TIMEOUT, Store
from helpers.client import LOCAL, Browser, LocalClient, local_client, new_match, random_exposures
from helpers.database import ThrowawayPostgres
from helpers.live import Someone
from helpers.servers import LiveServer

REDIS = os.environ.get("GONGZHU_TEST_REDIS", "redis://127.0.0.1:6379/0")

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def _app(tmp_path: Path, **options: Any) -> Starlette:
    tmp_path.mkdir(parents=True, exist_ok=True)
    return create_app(f"sqlite:///{tmp_path / 'g.db'}", pace=0, hint_think=0.05,
                      static_dir=tmp_path / "no-static", **options)


def _from(app: Starlette, address: str, **kwargs: Any) -> TestClient:
    """A test client of ``app`` whose requests come from ``address`` (the peer's address)."""
    return LocalClient(app, base_url=LOCAL, client=(address, 50000), **kwargs)


def scrape(client: TestClient) -> Samples:
    """``GET /metrics`` read as Prometheus reads it: every sample by name and labels."""
    response = client.get("/metrics")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    samples: Samples = {}
    for family in text_string_to_metric_families(response.text):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples[(name, tuple(sorted(labels.items())))]


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels``."""
    want = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and want <= set(ls))


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Starlette]:
    made = _app(tmp_path)
    yield made


# ---------------------------------------------------------------------- health and readiness


def test_healthz_answers_whatever_host_a_balancer_names(app: Starlette) -> None:
    with _from(app, "10.0.0.7") as c:
        for host in ("127.0.0.1", "10.0.0.5:8000", "gongzhu-7f9c-pod"):
            r = c.get("/healthz", headers={"Host": host})
            assert r.status_code == 200 and r.json() == {"ok": True}, (host, r.text)
            assert r.headers["cache-control"] == "no-store"
            assert r.headers["x-frame-options"] == "DENY"  # the security headers as everywhere
        # every other route still answers only to the server's names
        assert c.get("/api/config", headers={"Host": "10.0.0.5:8000"}).status_code == 400
        assert c.get("/metrics", headers={"Host": "10.0.0.5:8000"}).status_code == 400
        # and a health check changes nothing: it takes no other method
        assert c.post("/healthz", headers={"Host": "127.0.0.1"}).status_code == 405


def test_readyz_on_sqlite_says_the_store_and_its_schema_answer(app: Starlette) -> None:
    with _from(app, "10.0.0.7") as c:
        r = c.get("/readyz", headers={"Host": "10.0.0.5"})
    assert r.status_code == 200, r.text
    assert r.json() == {"ok": True, "checks": {"store": "ok", "schema": "ok"}}


def test_readyz_refuses_while_the_database_is_at_another_schema(tmp_path: Path) -> None:
    """A newer gongzhu migrated the database under this server (a rolling upgrade): this one is
    no longer ready; once the database is at its schema again, it is."""
    app = _app(tmp_path)
    with local_client(app) as c:
        with sqlite3.connect(tmp_path / "g.db") as db:
            db.execute("UPDATE alembic_version SET version_num = '9999'")
        r = c.get("/readyz")
        assert r.status_code == 503, r.text
        assert r.json()["failed"] == ["schema"]
        assert r.json()["checks"]["store"] == "ok"
        assert "9999" in r.json()["checks"]["schema"] and HEAD in r.json()["checks"]["schema"]
        with sqlite3.connect(tmp_path / "g.db") as db:
            db.execute("UPDATE alembic_version SET version_num = ?", (HEAD,))
        assert c.get("/readyz").status_code == 200


@pytest.mark.postgres
def test_readyz_refuses_while_the_database_is_away(tmp_path: Path) -> None:
    """PostgreSQL stopped under the server: 503 naming the store, the error counted; started
    again, ready again."""
    server = ThrowawayPostgres()
    try:
        app = create_app(server.new_database(), pace=0, static_dir=tmp_path / "no-static")
        with local_client(app, loopback=True) as c:
            assert c.get("/readyz").status_code == 200
            server.stop()
            r = c.get("/readyz")
            assert r.status_code == 503, r.text
            assert r.json()["failed"] == ["store"]
            assert r.json()["checks"]["store"].startswith("unreachable (")
            assert "host=" not in r.text and "gongzhu@" not in r.text  # the database's address is not shown
            assert value(scrape(c), "gongzhu_store_errors_total") >= 1
            server.start()
            assert c.get("/readyz").status_code == 200
    finally:
        server.remove()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


class Relay:
    """A TCP relay on loopback to the PostgreSQL of ``pg_url`` (a throwaway server's Unix socket,
    :class:`~helpers.database.ThrowawayPostgres`): it passes bytes both ways until :meth:`hush`, then
    holds every connection open — old and new — and passes nothing (a database that takes
    connections and never answers: a hung server, a half-dead network path) until :meth:`speak`."""

    def __init__(self, pg_url: str) -> None:
        url = make_url(pg_url)
        self.target = f"{url.query['host']}/.s.PGSQL.{url.query['port']}"
        #: the database's URL through the relay
        self.url = f"postgresql+psycopg://{url.username}@127.0.0.1:{{port}}/{url.database}"
        self.quiet = threading.Event()
        self.done = threading.Event()
        self.sockets: list[socket.socket] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.url = self.url.format(port=self.port)
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.done.is_set():
            try:
                near, _ = self.listener.accept()
            except OSError:
                return
            self.sockets.append(near)
            if self.quiet.is_set():
                continue  # taken, never answered
            far = socket.socket(socket.AF_UNIX)
            far.connect(self.target)
            self.sockets.append(far)
            for a, b in ((near, far), (far, near)):
                threading.Thread(target=self._pass, args=(a, b), daemon=True).start()

    def _pass(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                while self.quiet.is_set() and not self.done.is_set():
                    time.sleep(0.05)  # held: nothing more gets through
                if self.done.is_set():
                    return
                sink.sendall(data)
        except OSError:
            return

    def hush(self) -> None:
        self.quiet.set()

    def speak(self) -> None:
        self.quiet.clear()

    def close(self) -> None:
        self.done.set()
        self.listener.close()
        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.close()


@pytest.mark.postgres
def test_a_database_that_never_answers_is_given_up_on(pg_url: str) -> None:
    """A store whose PostgreSQL takes the connection and says nothing fails (a 503 to whoever
    asked) instead of waiting for ever."""
    relay = Relay(pg_url)
    relay.hush()
    failed: list[BaseException] = []

    def open_store() -> None:
        try:
            store = Store(relay.url)
            with store.engine.connect():
                pass
        except BaseException as e:  # what the attempt ended with is the test's answer
            failed.append(e)

    attempt = threading.Thread(target=open_store, daemon=True)
    try:
        attempt.start()
        attempt.join(60)  # (a bound on the test, not a measure: the store gives up after 3 s)
        assert not attempt.is_alive(), "the store still waits for a database that never answers"
        assert failed and isinstance(failed[0], OperationalError), failed
    finally:
        relay.close()


@pytest.mark.postgres
def test_health_answers_while_the_database_hangs(pg_url: str, tmp_path: Path) -> None:
    """With the database hung under its open connections, a server of several (Redis) goes on
    answering ``/healthz`` while its sessions' periodic check waits on the database: that check
    reads in a thread, not on the event loop every table and page share."""
    relay = Relay(pg_url)
    server = LiveServer(relay.url, static_dir=tmp_path / "no-static", redis_url=REDIS)
    try:
        with server:
            person = Someone(server)
            made = person.http.post("/api/tables", json={"turn_seconds": None, "expose_seconds": None})
            assert made.status_code == 201, made.text
            table = made.json()["table_id"]
            live = person.connect(table)  # an open connection: the periodic check reads its session
            live.until(lambda state: state.get("phase") == "waiting")
            relay.hush()
            time.sleep(SESSION_RECHECK * 1.5)  # the check has begun, and waits on the database
            for _ in range(3):
                answer = httpx.get(f"{server.base}/healthz", timeout=SESSION_RECHECK)
                assert answer.status_code == 200 and answer.json() == {"ok": True}
            relay.speak()  # the database answers again: what waited goes on, and so does the server
            assert person.http.get("/api/me").json()["id"] == person.id
            live.close()
    finally:
        relay.close()


@pytest.mark.postgres
def test_a_lock_held_elsewhere_fails_a_request_instead_of_holding_the_server(pg_url: str, tmp_path: Path) -> None:
    """A transaction of another connection (an operator's ``psql``) holding a lock the server's
    statement needs: the request fails with ``503 server.store_unavailable`` after the store's
    lock bound instead of waiting, with the server's one event loop, for as long as the lock is
    held; once it is let go the same request answers."""
    import psycopg

    server = LiveServer(pg_url, static_dir=tmp_path / "no-static")
    plain = make_url(pg_url).set(drivername="postgresql").render_as_string(hide_password=False)
    with server, psycopg.connect(plain) as holder:
        person = Someone(server)
        assert person.http.get("/api/matches").status_code == 200
        holder.execute("LOCK TABLE matches IN ACCESS EXCLUSIVE MODE")  # in a transaction left open
        waited = person.http.get("/api/matches", timeout=POSTGRES_LOCK_TIMEOUT / 1000 * 6)
        assert waited.status_code == 503 and waited.json()["code"] == "server.store_unavailable", waited.text
        holder.rollback()
        assert person.http.get("/api/matches").status_code == 200


def test_readyz_refuses_while_redis_is_away(tmp_path: Path) -> None:
    app = _app(tmp_path, redis_url=f"redis://127.0.0.1:{_free_port()}/0")
    with local_client(app, loopback=True) as c:
        r = c.get("/readyz")
        assert r.status_code == 503, r.text
        assert r.json()["failed"] == ["redis"]
        assert r.json()["checks"]["store"] == "ok" and r.json()["checks"]["redis"].startswith("unreachable (")
        assert value(scrape(c), "gongzhu_redis_errors_total") >= 1


@pytest.mark.postgres
def test_readyz_with_redis_pings_it_through_the_clusters_connection(tmp_path: Path) -> None:
    import redis

    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=2).ping()
    except redis.RedisError as e:
        if os.environ.get("CI"):
            pytest.fail(f"Redis at {REDIS} cannot be reached: {e}")
        pytest.skip(f"Redis at {REDIS} cannot be reached: {e}")
    app = _app(tmp_path, redis_url=REDIS)
    with local_client(app, loopback=True) as c:
        before = total(scrape(c), "gongzhu_redis_seconds_count")
        r = c.get("/readyz")
        assert r.status_code == 200, r.text
        assert r.json() == {"ok": True, "checks": {"store": "ok", "schema": "ok", "redis": "ok"}}
        assert total(scrape(c), "gongzhu_redis_seconds_count") > before  # the PING, at least, was timed


# ---------------------------------------------------------------------- metrics


def _play_deal(browser: Browser, rng: random.Random) -> int:
    """South plays the deal to its end; how many plays South sent (each one accepted)."""
    sent = 0
    state = browser.settle()
    while state["phase"] not in ("deal-over", "match-over"):
        if state["phase"] == "expose":
            browser.send(random_exposures(state, rng))
        else:
            browser.send({"type": "play", "cards": rng.choice(state["legal"])})
            sent += 1
        state = browser.settle()
    return sent


def test_metrics_count_every_play_of_a_deal_by_who_made_it(app: Starlette) -> None:
    with local_client(app, loopback=True) as c:
        empty = scrape(c)
        assert total(empty, "gongzhu_plays_total") == 0
        assert value(empty, "gongzhu_tables", state="playing") == 0
        # a match of three deals: its first deal cannot end it (a −1000 line can, at ×12), so the
        # table is still being played at the scrape
        match_id = new_match(c, options={"match_end": "deals:3"})
        with c.websocket_connect(f"/ws/{match_id}") as ws:
            sent = _play_deal(Browser(ws), random.Random(5))
            during = scrape(c)
            with c.websocket_connect("/ws/lobby") as lobby:
                lobby.receive_json()
                with_lobby = scrape(c)
        record = json.loads(c.get(f"/api/matches/{match_id}/deals/0").text)
    plays = sum(len(trick["plays"]) for trick in record["tricks"])
    assert plays == 52  # one deck, one card a play
    assert total(during, "gongzhu_plays_total") == plays
    assert value(during, "gongzhu_plays_total", by="person") == sent
    assert value(during, "gongzhu_plays_total", by="computer") + value(
        during, "gongzhu_plays_total", by="played_out") == plays - sent
    assert total(during, "gongzhu_plays_total", by="timeout") == 0
    # each of South's plays timed from its message's arrival, into the histogram's buckets
    assert value(during, "gongzhu_play_seconds_count") == sent
    assert value(during, "gongzhu_play_seconds_bucket", le="+Inf") == sent
    assert value(during, "gongzhu_play_seconds_sum") > 0
    # every computer play was decided by a computer player (their declarations too)
    computer = value(during, "gongzhu_plays_total", by="computer")
    thought = total(during, "gongzhu_think_seconds_count", kind="play")
    assert thought >= computer
    assert total(during, "gongzhu_think_seconds_count", kind="declare") >= 3
    levels = {dict(ls)["level"] for (n, ls), v in during.items() if n == "gongzhu_think_seconds_count" and v}
    assert levels <= {"random", "beginner", "intermediate"}
    # the store: every play written, the match read; no error
    assert value(during, "gongzhu_store_seconds_count", kind="write") >= sent
    assert value(during, "gongzhu_store_seconds_count", kind="read") > 0
    assert value(during, "gongzhu_store_errors_total") == 0
    # what is counted at a scrape: the table open with South's connection, then the lobby too
    assert value(during, "gongzhu_tables", state="playing") == 1
    assert value(during, "gongzhu_tables", state="waiting") == 0
    assert value(during, "gongzhu_websockets", kind="table") == 1
    assert value(during, "gongzhu_websockets", kind="lobby") == 0
    assert value(with_lobby, "gongzhu_websockets", kind="lobby") == 1
    assert value(during, "gongzhu_reviews", state="waiting") == 0
    assert value(during, "gongzhu_reviews", state="running") == 0
    assert ("gongzhu_event_loop_lag_seconds_count", ()) in during
    assert ("gongzhu_redis_errors_total", ()) in during


def test_metrics_count_tables_by_state(app: Starlette) -> None:
    with local_client(app, loopback=True) as c:
        table = c.post("/api/tables", json={"visibility": "private"}).json()
        with c.websocket_connect(f"/ws/{table['table_id']}?invite={table['invite']}") as ws:
            ws.receive_json()
            samples = scrape(c)
            assert value(samples, "gongzhu_tables", state="waiting") == 1
            assert value(samples, "gongzhu_tables", state="playing") == 0
            assert value(samples, "gongzhu_tables", state="over") == 0


def test_metrics_are_not_found_by_an_address_the_operator_did_not_allow(app: Starlette) -> None:
    unknown_path = _from(app, "203.0.113.9").get("/no-such-page")
    for address in ("203.0.113.9", "10.0.0.7", "2001:db8::1", "testclient"):
        r = _from(app, address).get("/metrics")
        assert r.status_code == 404, (address, r.text)
        assert r.json() == unknown_path.json()  # as any path that is not there: nothing says it exists
        assert "gongzhu_" not in r.text
    for address in ("127.0.0.1", "::1", "::ffff:127.0.0.1"):  # this machine, by default
        assert _from(app, address).get("/metrics").status_code == 200, address
    # forwarding headers from a peer that is no trusted proxy are ignored
    assert _from(app, "203.0.113.9").get("/metrics", headers={"X-Forwarded-For": "127.0.0.1"}).status_code == 404
    # a proxy on this machine the server was not told to trust forwards the public: refused, though
    # its own address is allowed
    for header in ({"X-Forwarded-For": "203.0.113.9"}, {"Forwarded": "for=203.0.113.9"}):
        assert _from(app, "127.0.0.1").get("/metrics", headers=header).status_code == 404, header


def test_metrics_behind_a_trusted_proxy_count_the_client_it_forwards(tmp_path: Path) -> None:
    app = _app(tmp_path, trusted_proxies=["192.0.2.1"], metrics_allow=["10.0.0.0/8", "2001:db8:1::/48"])
    proxy = _from(app, "192.0.2.1")
    # a public client behind the proxy is refused, though the peer is the proxy
    assert proxy.get("/metrics", headers={"X-Forwarded-For": "203.0.113.9"}).status_code == 404
    assert proxy.get("/metrics").status_code == 404  # the proxy itself is not among the allowed
    # an allowed client behind it, or directly, is answered
    assert proxy.get("/metrics", headers={"X-Forwarded-For": "10.9.9.9"}).status_code == 200
    assert proxy.get("/metrics", headers={"X-Forwarded-For": "2001:db8:1::5"}).status_code == 200
    assert _from(app, "10.2.3.4").get("/metrics").status_code == 200
    # loopback is no longer allowed once the operator names the addresses
    assert _from(app, "127.0.0.1").get("/metrics").status_code == 404
    # an untrusted peer cannot claim an allowed address
    assert _from(app, "203.0.113.9").get("/metrics", headers={"X-Forwarded-For": "10.9.9.9"}).status_code == 404


def test_metrics_behind_a_proxy_that_writes_forwarded(tmp_path: Path) -> None:
    """``--forwarded-header forwarded``: the client is the ``for=`` of ``Forwarded``, and an
    ``X-Forwarded-For`` the proxy passes on from the client changes nothing."""
    app = _app(tmp_path, trusted_proxies=["192.0.2.1"], forwarded_header="forwarded",
               metrics_allow=["10.0.0.0/8", "2001:db8:1::/48"])
    proxy = _from(app, "192.0.2.1")
    assert proxy.get("/metrics", headers={"Forwarded": "for=203.0.113.9"}).status_code == 404
    assert proxy.get("/metrics", headers={"Forwarded": "for=10.9.9.9"}).status_code == 200
    assert proxy.get("/metrics", headers={"Forwarded": 'for="[2001:db8:1::5]"'}).status_code == 200
    assert proxy.get("/metrics", headers={"X-Forwarded-For": "10.9.9.9"}).status_code == 404  # the proxy's own
    assert proxy.get("/metrics", headers={"X-Forwarded-For": "10.9.9.9", "Forwarded": "for=203.0.113.9"}) \
        .status_code == 404


@pytest.mark.parametrize(("header", "written", "other"), [
    ("x-forwarded-for", {"X-Forwarded-For": "203.0.113.5"}, {"Forwarded": "for=127.0.0.1"}),
    ("forwarded", {"Forwarded": "for=203.0.113.5"}, {"X-Forwarded-For": "127.0.0.1"}),
])
def test_the_other_forwarding_header_makes_nobody_loopback(
        tmp_path: Path, header: str, written: dict[str, str], other: dict[str, str]) -> None:
    """Behind a trusted proxy on this machine that writes one kind of forwarding header and passes
    the other on from the client, a public client that writes ``127.0.0.1`` in the other is refused
    the loopback-only ``/metrics``; the client the proxy names is who counts."""
    app = _app(tmp_path, trusted_proxies=["127.0.0.1"], forwarded_header=header)
    proxy = _from(app, "127.0.0.1")
    r = proxy.get("/metrics", headers={**written, **other})
    assert r.status_code == 404 and "gongzhu_" not in r.text
    assert proxy.get("/metrics", headers=other).status_code == 200  # the other alone: the proxy's own request


def test_metrics_allow_takes_only_addresses_and_networks(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        _app(tmp_path, metrics_allow=["prometheus.internal"])


def test_two_applications_in_one_process_count_apart(tmp_path: Path) -> None:
    first, second = _app(tmp_path / "a"), _app(tmp_path / "b")
    with local_client(first, loopback=True) as a, local_client(second, loopback=True) as b:
        match_id = new_match(a)
        with a.websocket_connect(f"/ws/{match_id}") as ws:
            sent = _play_deal(Browser(ws), random.Random(6))
        assert value(scrape(a), "gongzhu_plays_total", by="person") == sent > 0
        assert total(scrape(b), "gongzhu_plays_total") == 0
