"""The browser game's server facing careless and hostile clients (``docs/web-protocol.md``,
Limits and the origin policy): nothing is lost or acknowledged twice when the store fails, no
seed gives the hands away, other sites cannot drive a table, sizes and rates are bounded, and a
bad message or request gets a clear error while the server goes on.  Options are bounded as
R10's integers allow.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect

from gongzhu.players.base import Player
from gongzhu.players.observation import Observation
from gongzhu.records.replay import check_file
from gongzhu.rules import PRESETS, Match, Seat
from gongzhu.rules.cards import Card
from gongzhu.rules.model import Play
from gongzhu.server import create_app
from gongzhu.server.bodies import MAX_SEED
from gongzhu.server.identity import COOKIE, Identity
from gongzhu.server.policy import (
    MAX_BODY_BYTES,
    MAX_HEADER_BYTES,
    MAX_MESSAGE_BYTES,
    OUTBOX_LIMIT,
    RateLimiter,
    normalize_origin,
    server_hosts,
)
from gongzhu.server.registry import Tables
from gongzhu.server.rooms import Outbox, Person
from gongzhu.server.store import Counted, Store
from gongzhu.server.wire import encode
from helpers.client import (
    LOCAL,
    Browser,
    act,
    all_matches,
    assert_resumed,
    local_client,
    new_match,
    play_deal,
    seating,
    settled,
    state_message,
    unversioned,
    user_of,
)

JSON = {"Content-Type": "application/json"}


def tables_of(client: TestClient) -> Tables:
    tables: Tables = client.app.state.tables  # type: ignore[attr-defined]
    return tables


# ---------------------------------------------------------------------- the store and whole deals


def test_a_store_failure_at_the_end_of_a_deal_acknowledges_nothing(client: TestClient) -> None:
    """The play that ends a deal and the deal's record are one transaction: when the store
    refuses, nobody is told the play happened, the table is rebuilt from the store, and the deal
    ends once, with one record (the lifetime score counts it once)."""
    match_id = new_match(client, seed=11, options={"exposure": "none"})
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    real_finish = store.finish_deal
    failures = {"left": 1}

    def failing_finish(*args: Any, **kwargs: Any) -> Counted:
        if failures["left"]:
            failures["left"] -= 1
            raise RuntimeError("disk full")
        return real_finish(*args, **kwargs)

    store.finish_deal = failing_finish  # type: ignore[method-assign]
    rng = random.Random(3)
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        state = browser.settle()
        while True:
            act(browser, rng)
            message = browser.receive()
            while message["type"] != "error" and not (message["type"] == "state" and settled(message["state"])):
                message = browser.receive()
            if message["type"] == "error":
                break
            state = message["state"]
            assert state["phase"] == "play", "the deal ended although its record could not be stored"
        assert "did not happen" in message["message"] and message["message_zh"]
        with pytest.raises(Exception):  # noqa: B017 - the server closes the connection (1011)
            while True:
                browser.receive()
    assert failures["left"] == 0
    assert tables_of(client).open_tables == 0  # the table was dropped
    assert client.get(f"/api/matches/{match_id}/records.jsonl").text == ""
    after = play_deal(client, match_id, rng)  # rebuilt from the store: the last trick is open again
    assert after["phase"] == "deal-over"
    records = check_file(client.get(f"/api/matches/{match_id}/records.jsonl").text)
    assert len(records) == 1
    me = user_of(client)
    assert (me.practice, me.practice_deals, me.matches) == (after["deal_result"]["final"]["S"], 1, 1)


def test_a_served_sqlite_file_has_its_log_copied_back_by_a_thread(tmp_path: Path) -> None:
    """Serving, a SQLite store's commits no longer copy the write-ahead log back into the file
    (a disk flush on the event loop): a thread of the store's own does (Store.checkpoint_in_background)."""
    path = tmp_path / "gongzhu.db"
    store = Store(f"sqlite:///{path}")
    try:
        store.checkpoint_in_background()
        with store.engine.connect() as c:
            assert c.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 0
        before = path.stat().st_size
        for i in range(300):
            store.create_match(match_id=f"m-{i:04d}", preset="online", options=PRESETS["online"].to_dict(),
                               speed="normal", seed=i, seating=seating())
        deadline = time.monotonic() + 30
        while path.stat().st_size <= before:  # the file grows only when the log is copied back
            assert time.monotonic() < deadline, "the write-ahead log was never copied back"
            time.sleep(0.1)
    finally:
        store.close()


def test_a_played_out_deal_without_its_record_is_completed_when_loaded(db_url: str, tmp_path: Path) -> None:
    """Every action of a deal stored but not its record (a store written before the last play
    and the record were one transaction): loading the table stores the record, and ``next``
    deals the next deal instead of answering that the deal is not over."""
    store = Store(db_url)
    identity = Identity(store)
    person = identity.new_guest()
    session = identity.cookie(person, secure=False).split(";", 1)[0].split("=", 1)[1]
    options = PRESETS["online"]
    info = store.create_match(match_id="m-stuck", preset="online", options=options.to_dict(), speed="normal",
                              seed=42, seating=seating((person.id, person.name)))
    deal = Match(options, seed=info.seed, match_id=info.match_id).new_deal()
    seq = 0
    for seat in list(deal.undeclared):
        deal.declare(seat, [])
        store.add_action(info.match_id, 0, seq, {"seat": seat.name, "type": "declare", "items": []})
        seq += 1
    while not deal.is_over:
        turn = deal.turn
        assert turn is not None
        play = deal.legal_plays()[0]
        deal.play(play, turn)
        store.add_action(info.match_id, 0, seq, {"seat": turn.name, "type": "play", "cards": [c.code for c in play]})
        seq += 1
    store.close()
    with (local_client(create_app(db_url, pace=0, static_dir=tmp_path), {COOKIE: session}) as client,
          client.websocket_connect(f"/ws/{info.match_id}") as ws):
        browser = Browser(ws)
        state = browser.settle()
        assert state["phase"] == "deal-over" and state["deal_result"]["final"] == {
            s.name: deal.score.final[s] for s in Seat}
        assert len(check_file(client.get(f"/api/matches/{info.match_id}/records.jsonl").text)) == 1
        me = user_of(client)  # the person dealt the deal is charged with it, once
        assert (me.id, me.practice, me.practice_deals) == (person.id, deal.score.final[Seat.S], 1)
        browser.send({"type": "next"})
        assert browser.settle()["deal_index"] == 1


@pytest.mark.parametrize(("options", "words"), [
    ({"one_deck_factor": 1_000_000_000_000_000_000}, "one_deck_factor must be an integer from 1 to 100"),
    ({"one_deck_factor": 0}, "from 1 to 100"),
    ({"match_limit": 10_000_000}, "match_limit must be an integer from 1 to 1000000"),
    ({"match_end": "deals:1001"}, "deals:N with N from 1 to 1000"),
    ({"match_end": "deals:²"}, "deals:N"),
    ({"match_end": "deals:" + "9" * 5000}, "deals:N"),
    ({"one_deck_factor": "²"}, "one_deck_factor"),
    ({"match_limit": "9" * 5000}, "match_limit"),
])
def test_integer_options_are_bounded(client: TestClient, options: dict[str, Any], words: str) -> None:
    """R10's integers stay within limits that keep every score inside a 64-bit integer."""
    response = client.post("/api/matches", json={"options": options})
    assert response.status_code == 400 and words in response.json()["error"]
    assert len(response.json()["error"]) < 300
    assert client.get("/api/matches").json() == [] and all_matches(client) == []


def test_the_largest_options_play_a_whole_deal(client: TestClient) -> None:
    match_id = new_match(client, seed=2, options={"one_deck_factor": 100, "match_limit": 1_000_000})
    state = play_deal(client, match_id, random.Random(2))
    assert state["phase"] == "deal-over"
    assert len(check_file(client.get(f"/api/matches/{match_id}/records.jsonl").text)) == 1


# ---------------------------------------------------------------------- seeds


def test_the_seed_is_shown_only_once_the_match_is_over(client: TestClient) -> None:
    """The match seed deals every hand of the match again (Match(options, seed).new_deal()):
    neither the match, the listing nor any state message shows it before the end; then the match
    and the last state do (fair dealing: anyone may check the hands against the commitment)."""
    match_id = new_match(client, seed=12345, options={"match_end": "deals:1"})
    assert client.get(f"/api/matches/{match_id}").json()["seed"] is None
    assert [m["seed"] for m in client.get("/api/matches").json()] == [None]
    rng = random.Random(1)
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        state = browser.settle()
        while state["phase"] != "match-over":
            assert client.get(f"/api/matches/{match_id}").json()["seed"] is None
            act(browser, rng)
            state = browser.settle()
        # After the match, a play or a next deal is refused as such, not as the deal being over.
        for frame in ('{"type": "play", "cards": ["2C"]}', '{"type": "next"}'):
            ws.send_text(frame)
            reply = ws.receive_json()
            assert reply["type"] == "error" and reply["code"] == "server.match_over", (frame, reply)
    for message in browser.messages:  # until the match is over (its last state reveals the seed)
        if message["type"] == "state" and message["state"]["phase"] == "match-over":
            assert message["state"]["table"]["seed"] == "12345"
            continue
        assert "12345" not in json.dumps(message)
    assert client.get(f"/api/matches/{match_id}").json()["seed"] == 12345


def test_server_seeds_are_64_bit_and_any_64_bit_seed_is_kept(client: TestClient) -> None:
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    drawn = [store.match(new_match(client)) for _ in range(8)]
    seeds = [info.seed for info in drawn if info is not None]
    assert len(seeds) == 8 and all(0 <= s < MAX_SEED for s in seeds)
    assert max(seeds) >= 1 << 40  # 8 seeds of 31 bits or fewer: not from a 64-bit draw
    top = new_match(client, seed=MAX_SEED - 1)
    info = store.match(top)
    assert info is not None and info.seed == MAX_SEED - 1
    assert client.post("/api/matches", json={"seed": MAX_SEED}).status_code == 400


# ---------------------------------------------------------------------- other sites


def test_websockets_from_other_origins_are_refused(client: TestClient) -> None:
    match_id = new_match(client, seed=1)
    for origin in ("http://evil.example", "null", "http://127.0.0.1.evil.example", "http://127.0.0.1:9"):
        with pytest.raises(WebSocketDenialResponse) as refused, \
                client.websocket_connect(f"/ws/{match_id}", headers={"origin": origin}):
            pass
        assert refused.value.status_code == 403
    with client.websocket_connect(f"/ws/{match_id}", headers={"origin": LOCAL}) as ws:
        assert ws.receive_json()["type"] == "state"
    with client.websocket_connect(f"/ws/{match_id}") as ws:  # a program: no Origin
        assert ws.receive_json()["type"] == "state"


def test_an_allowed_origin_may_use_the_server(db_url: str, tmp_path: Path) -> None:
    hosts = server_hosts("127.0.0.1", allowed_origins=["https://gongzhu.example.org"])
    app = create_app(db_url, pace=0, static_dir=tmp_path, allowed_hosts=hosts,
                     allowed_origins=["https://gongzhu.example.org:443"])
    with TestClient(app, base_url="https://gongzhu.example.org") as client:
        response = client.post("/api/matches", json={}, headers={"origin": "https://gongzhu.example.org"})
        assert response.status_code == 201
        refused = client.post("/api/matches", json={}, headers={"origin": "https://other.example.org"})
        assert refused.status_code == 403


def test_requests_from_other_sites_and_hosts_are_refused(client: TestClient) -> None:
    # A form or fetch from another site's page: refused before anything is read or stored.
    for origin in ("http://evil.example", "null"):
        for headers in ({"origin": origin, "content-type": "text/plain"}, {"origin": origin, **JSON}):
            response = client.post("/api/matches", content=b"{}", headers=headers)
            assert response.status_code == 403 and "another site" in response.json()["error"]
    # Text that is not declared JSON: refused even from the page itself.
    response = client.post("/api/matches", content=b"{}", headers={"origin": LOCAL, "content-type": "text/plain"})
    assert response.status_code == 415
    assert client.get("/api/matches").json() == [] and all_matches(client) == []
    # DNS rebinding: a page on evil.example whose name now points here cannot read the API.
    for host in ("evil.example", "evil.example:8000", "", "[::1", "127.0.0.1:x"):
        response = client.get("/api/matches", headers={"host": host})
        assert response.status_code == 400, host
    assert client.get("/api/matches", headers={"host": "localhost:8000"}).status_code == 200
    assert client.get("/api/matches", headers={"host": "[::1]:8000"}).status_code == 200
    # Reading with another site's Origin is harmless (CORS keeps the answer from that page).
    assert client.get("/api/config", headers={"origin": "http://evil.example"}).status_code == 200


def test_every_answer_carries_the_security_headers(client: TestClient) -> None:
    match_id = new_match(client)
    for response in (client.get("/"), client.get("/api/config"), client.get("/api/matches/nope"),
                     client.get(f"/api/matches/{match_id}/records.jsonl"),
                     client.post("/api/matches", content=b"{", headers=JSON),
                     client.get("/api/matches", headers={"host": "evil.example"})):
        csp = response.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "default-src 'self'" in csp
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["x-content-type-options"] == "nosniff"


def test_origins_and_host_names() -> None:
    assert normalize_origin("HTTPS://Gongzhu.Example.org:443/") == "https://gongzhu.example.org"
    assert normalize_origin("http://[::1]:8000") == "http://[::1]:8000"
    for bad in ("null", "file:///x", "https://a.example/path", "https://user@a.example", "a.example"):
        with pytest.raises(ValueError):
            normalize_origin(bad)
    assert server_hosts("0.0.0.0") == ["127.0.0.1", "localhost", "::1"]
    assert server_hosts("192.168.1.5", ["gongzhu.lan"]) == ["127.0.0.1", "localhost", "::1", "192.168.1.5",
                                                            "gongzhu.lan"]


# ---------------------------------------------------------------------- sizes


def test_request_sizes_are_bounded(client: TestClient) -> None:
    big = json.dumps({"preset": "online", "pad": "x" * MAX_BODY_BYTES}).encode()
    response = client.post("/api/matches", content=big, headers=JSON)
    assert response.status_code == 413 and str(MAX_BODY_BYTES) in response.json()["error"]

    def chunks() -> Iterator[bytes]:  # no Content-Length: the body is cut off while it is read
        for _ in range(1000):
            yield b" " * 1024

    response = client.post("/api/matches", content=chunks(), headers=JSON)
    assert response.status_code == 413
    response = client.get("/api/config", headers={"x-padding": "y" * (MAX_HEADER_BYTES + 1)})
    assert response.status_code == 431
    assert client.get("/api/matches").json() == [] and client.get("/api/config").status_code == 200
    assert all_matches(client) == []


def test_websocket_messages_are_bounded_and_never_echoed_whole(client: TestClient) -> None:
    match_id = new_match(client, seed=4)
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        before = browser.settle()
        too_large = browser.refused({"type": "play", "cards": ["x" * MAX_MESSAGE_BYTES]})
        assert "too large" in too_large and len(too_large) < 200
        card = "Z" * 3000
        error = browser.refused({"type": "expose", "cards": [card]})
        assert error.startswith('$.cards[0]: must be a card such as "QS"') and len(error) < 300
        browser.send({"type": "expose", "cards": []})  # the connection goes on
        assert browser.settle()["phase"] == "play"
        assert before["phase"] == "expose"


# ---------------------------------------------------------------------- memory and fairness


def test_tables_are_let_go_when_nobody_is_connected(client: TestClient) -> None:
    tables = tables_of(client)
    ids = [new_match(client, seed=i) for i in range(30)]
    states = {}
    for match_id in ids:
        with client.websocket_connect(f"/ws/{match_id}") as ws:
            states[match_id] = Browser(ws).settle()
            assert tables.open_tables == 1
    assert tables.open_tables == 0
    with client.websocket_connect(f"/ws/{ids[7]}") as ws:  # back from the store, the same
        assert_resumed(Browser(ws).settle(), states[ids[7]])


async def _flood(outbox: Outbox, n: int) -> list[str | None]:
    for i in range(n):
        outbox.put(encode({"type": "error", "message": f"#{i}"}))
    assert len(outbox) <= OUTBOX_LIMIT
    first = await outbox.get()
    outbox.close(1000, "bye")
    rest: list[str | None] = []
    while (text := await outbox.get()) is not None:
        rest.append(text)
    return [first, *rest]


def test_a_client_that_does_not_read_costs_a_bounded_outbox(client: TestClient) -> None:
    """Past OUTBOX_LIMIT waiting messages, the waiting ones are dropped and the next message
    sent is the whole current table."""
    match_id = new_match(client, seed=5)
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        Browser(ws).settle()  # the computer players have declared: the table waits for South
        table = tables_of(client).get(match_id)
        assert table is not None
        sent = asyncio.run(_flood(Outbox(lambda: encode(table.state_message())), 10 * OUTBOX_LIMIT))
        assert len(sent) < OUTBOX_LIMIT
        first = json.loads(sent[0] or "")
        assert first == table.state_message()
        # A real connection that keeps sending without reading: its outbox stays bounded.
        for _ in range(3 * OUTBOX_LIMIT):
            ws.send_text('{"type": "next"}')
        ws.send_text('{"type": "expose", "cards": []}')
        while True:
            message = ws.receive_json()
            if message["type"] == "state" and message["state"]["phase"] == "play":
                break
        local = tables_of(client).board.local.values()
        assert local and all(len(c.outbox) <= OUTBOX_LIMIT for c in local)


def test_the_rate_limiter_slows_a_fast_sender_down() -> None:
    limiter = RateLimiter(rate=10.0, burst=5)
    assert [limiter.delay(0.0) for _ in range(5)] == [0.0] * 5
    assert limiter.delay(0.0) == pytest.approx(0.1)
    assert limiter.delay(0.0) == pytest.approx(0.2)
    assert limiter.delay(10.0) == 0.0  # refilled, up to the burst


def test_hints_never_hold_up_the_computer_players(client: TestClient) -> None:
    """Hints run in a pool of their own: with it busy, the computer players still play; every
    connection asking for the same position shares one ranking."""
    match_id = new_match(client, seed=6, options={"exposure": "none"})
    tables = tables_of(client)
    release = threading.Event()
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        state = browser.settle()
        table = tables.get(match_id)
        assert table is not None
        busy = tables.pools.hints.submit(release.wait, 30)  # the hint pool is busy
        try:
            for _ in range(3):  # three of South's plays, and the computers' answers
                browser.send({"type": "play", "cards": state["legal"][0]})
                state = browser.settle()
            assert state["tricks_played"] >= 2
        finally:
            release.set()
            busy.result()
        with client.websocket_connect(f"/ws/{match_id}") as ws2:
            second = Browser(ws2)
            second.settle()
            browser.send({"type": "hint"})
            second.send({"type": "hint"})
            hint = browser.receive()
            assert hint["type"] == "hint" and second.receive() == hint
            shared = table.thinking.hint
            browser.send({"type": "hint"})
            assert browser.receive() == hint and table.thinking.hint is shared


class Failing(Player):
    level = "failing"

    def choose_exposures(self, obs: Observation) -> list[tuple[Card, str]]:
        raise RuntimeError("the exposure search broke")

    def choose_play(self, obs: Observation) -> Play:
        raise RuntimeError("the play search broke")


def test_a_failing_computer_player_does_not_stop_the_table(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    match_id = new_match(client, seed=9)
    # West fails from the start: the computer players declare as soon as the table opens.
    table = tables_of(client).get(match_id)
    assert table is not None
    table.thinking.players[Seat.W] = Failing()
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        browser.settle()
        assert tables_of(client).get(match_id) is table
        with caplog.at_level(logging.ERROR, logger="gongzhu.players"):
            rng = random.Random(9)
            state = browser.state
            while state["phase"] not in ("deal-over", "match-over"):
                act(browser, rng)
                state = browser.settle()
    assert "the play search broke" in caplog.text and "the exposure search broke" in caplog.text
    assert len(check_file(client.get(f"/api/matches/{match_id}/records.jsonl").text)) == 1


# ---------------------------------------------------------------------- bad input


def test_bad_websocket_messages_get_an_error_and_the_connection_goes_on(client: TestClient) -> None:
    match_id = new_match(client, seed=10)
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        before = browser.settle()
        for text in ('{"type":"\\ud800"}', "[" * 100_000, '{"type": "play", "cards": [' + "9" * 5000 + "]}",
                     '{"type": "play", "cards": ["\\udfff"]}', '{"type": "settings", "speed": 1e999}'):
            error = browser.refused(text)
            assert len(error) < 300
        with client.websocket_connect(f"/ws/{match_id}") as ws2:
            assert ws2.receive_json() == state_message(before)
        browser.send({"type": "expose", "cards": []})
        assert browser.settle()["phase"] == "play"


@pytest.mark.parametrize(("path", "status"), [
    ("/deals/99999999999999999999999", 404),
    ("/deals/²", 404),
    ("/deals/-1", 404),
    ("/deals/%00", 404),
])
def test_deal_numbers_that_are_not_numbers_are_404(client: TestClient, path: str, status: int) -> None:
    match_id = new_match(client)
    response = client.get(f"/api/matches/{match_id}{path}")
    assert response.status_code == status and "has no finished deal" in response.json()["error"]


@pytest.mark.parametrize("body", [
    b'{"seed": ' + b"7" * 5000 + b"}",
    b'{"options": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    b'{"levels": {"\\ud800": "x"}}',
    b'{"preset": "\\ud800"}',
    b"\xff\xfe{}",
    b'{"seed": 1e999}',
])
def test_bad_bodies_are_400_with_a_reason(client: TestClient, body: bytes) -> None:
    response = client.post("/api/matches", content=body, headers=JSON)
    assert response.status_code in (400, 413), response.text
    assert response.json()["error"] and len(response.json()["error"]) < 300
    assert client.get("/api/matches").json() == [] and all_matches(client) == []


def test_refusals_are_json_and_odd_ids_never_reach_the_database(client: TestClient) -> None:
    for response in (client.get("/api/nope"), client.put("/api/matches", content=b"{}", headers=JSON),
                     client.get("/api/matches/m-%00"), client.get("/api/matches/%ED%A0%80/records.jsonl"),
                     client.get("/api/matches/" + "m" * 65)):
        assert 400 <= response.status_code < 500 and response.json()["error"]
    for length in ("-1", "abc", "1e3"):
        response = client.post("/api/matches", content=b"{}", headers={**JSON, "content-length": length})
        assert response.status_code == 400 and "Content-Length" in response.json()["error"]
    for preset in ("", "x" * 5000):
        response = client.post("/api/matches", json={"preset": preset})
        assert response.status_code == 400 and response.json()["error"].startswith("$.preset: must be a preset of R9")
        assert len(response.json()["error"]) < 300
    response = client.post("/api/matches", json={"k" * 5000: 1})
    assert response.status_code == 400 and len(response.json()["error"]) < 300
    assert client.get("/api/matches").json() == [] and all_matches(client) == []
    with client.websocket_connect("/ws/m-%00") as ws:  # no session yet: refused before anything else
        refused = ws.receive_json()
        assert refused["type"] == "error" and refused["code"] == "server.no_session"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4401
    new_match(client)  # a session (the answer's cookie)
    with client.websocket_connect("/ws/m-%00") as ws:
        assert ws.receive_json()["message"].startswith("unknown match")


@contextlib.contextmanager
def busy_hint_pool(client: TestClient) -> Iterator[None]:
    """The server's hint pool held by another task until the block ends."""
    release = threading.Event()
    busy = tables_of(client).pools.hints.submit(release.wait, 30)
    try:
        yield
    finally:
        release.set()
        busy.result()


def test_a_hint_does_not_hold_up_the_connection(client: TestClient) -> None:
    """While a hint is computed, the same connection's play is handled; the late hint names the
    position it ranks (the page drops it)."""
    match_id = new_match(client, seed=12, options={"exposure": "none"})
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        state = browser.settle()
        with busy_hint_pool(client):
            browser.send({"type": "hint"})
            browser.send({"type": "play", "cards": state["legal"][0]})
            first = browser.receive()
            assert unversioned(first) == {"type": "played", "seat": "S", "cards": state["legal"][0]}
        while (message := browser.receive())["type"] != "hint":
            pass
        assert (message["deal_index"], message["hand_size"]) == (state["deal_index"], len(state["hand"]))
        assert sorted(h["cards"] for h in message["hints"]) == sorted(state["legal"])


def test_a_quick_hint_does_not_wait_for_the_hint_pool(client: TestClient) -> None:
    """A quick hint (the network's) is answered at once, even while the hint pool is busy with a
    search; the search hint asked together with it comes after, once the pool is free."""
    match_id = new_match(client, seed=12, options={"exposure": "none"})
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        state = browser.settle()
        with busy_hint_pool(client):
            browser.send({"type": "hint"})
            browser.send({"type": "hint", "quick": True})
            quick = browser.receive()
            assert quick["type"] == "hint" and quick["source"] == "network"
            assert (quick["deal_index"], quick["hand_size"]) == (state["deal_index"], len(state["hand"]))
            assert sorted(h["cards"] for h in quick["hints"]) == sorted(state["legal"])
        search = browser.receive()
        assert search["type"] == "hint" and search["source"] == "search"
        assert sorted(h["cards"] for h in search["hints"]) == sorted(state["legal"])


def test_a_forwarded_person_reads_the_same_in_the_shape_earlier_servers_read() -> None:
    """A person forwarded to the table's owner keeps ``person`` the two items every version reads,
    the other accounts of the browser beside it; a message of an earlier server, without them,
    reads as a person of no other account."""
    person = Person("u-1", "Ann", ("u-2", "u-3"))
    sent = person.to_json()
    assert sent["person"] == ["u-1", "Ann"]
    again = Person.of(json.loads(json.dumps(sent)))
    assert again == person and again.same_browser == ("u-2", "u-3")
    assert Person.of({"person": ["u-1", "Ann"]}).same_browser == ()
