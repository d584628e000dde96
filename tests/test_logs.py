"""The server's JSON logs (``gongzhu serve --log-format json``, docs/operations.md): a
``gongzhu serve`` process taken through sign-up, sign-in (and a wrong password), a whole match
of two people and two computer players, refused messages and refused requests; then every line
of its log is one JSON object with its time, level, logger and message, each table action is a
line naming its table, person, action and outcome, each request has its id (a trusted proxy's, or
one of the server's own, returned in ``X-Request-Id``), and no line holds a password, a session
cookie or a card of any hand dealt."""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path
from typing import Any

import httpx

from helpers.client import random_exposures
from helpers.live import Live, Someone
from helpers.servers import ServeProcess

PASSWORDS = {"anna": "plum blossom 7 over the river", "bo": "a second quiet password 9"}

#: A card as the records write it (R11): a rank and a suit.
CARD = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][SHDC](?![A-Za-z0-9])")


def _drive(lives: dict[str, Live], rng: random.Random, sent: dict[str, list[str]], timeout: float = 120) -> None:
    """Each person acts whenever the table waits for them, until the match is over for both
    (declaring once a deal: a state sent before their declaration arrived still asks for it)."""
    acted: dict[str, int] = {}
    declared: set[tuple[str, int]] = set()
    end = time.monotonic() + timeout
    while not all(live.state.get("phase") == "match-over" for live in lives.values()):
        assert time.monotonic() < end, {s: (x.state.get("phase"), x.state.get("turn")) for s, x in lives.items()}
        for live in lives.values():
            live.drain(0.005)
        for seat, live in lives.items():
            state = live.state
            if not state or acted.get(seat, -1) >= state["v"]:
                continue
            if state["phase"] == "expose" and seat in state["undeclared"]:
                if (seat, state["deal_index"]) in declared:
                    continue
                declared.add((seat, state["deal_index"]))
                live.send(random_exposures(state, rng))
                sent[seat].append("expose")
            elif state["phase"] == "play" and state["turn"] == seat and state["legal"]:
                live.send({"type": "play", "cards": rng.choice(state["legal"])})
                sent[seat].append("play")
            elif state["phase"] == "deal-over" and seat == "S":
                live.send({"type": "next"})
                sent[seat].append("next")
            else:
                continue
            acted[seat] = state["v"]


def _sign_up(server: ServeProcess, name: str, cookies: set[str]) -> Someone:
    person = Someone(server)
    cookies.update(person.http.cookies.values())
    r = person.http.post("/api/account", json={"name": name, "password": PASSWORDS[name]})
    assert r.status_code == 200, r.text
    cookies.update(person.http.cookies.values())
    return person


def test_json_logs_name_each_request_and_action_and_hold_no_secret(tmp_path: Path) -> None:
    rng = random.Random(11)
    cookies: set[str] = set()
    sent: dict[str, list[str]] = {"S": [], "N": []}
    with ServeProcess(tmp_path, "--log-format", "json", "--trusted-proxy", "127.0.0.1",
                      "--metrics-allow", "10.0.0.0/8") as server:
        anna, bo = _sign_up(server, "anna", cookies), _sign_up(server, "bo", cookies)
        # sign out and in again, a wrong password first
        assert anna.http.post("/api/logout", json={}).status_code == 200
        wrong = anna.http.post("/api/login", json={"name": "anna", "password": PASSWORDS["bo"]})
        assert wrong.status_code == 401
        r = anna.http.post("/api/login", json={"name": "anna", "password": PASSWORDS["anna"]})
        assert r.status_code == 200, r.text
        cookies.update(anna.http.cookies.values())
        # requests refused: an unknown page, another site's page changing something
        assert anna.http.get("/no-such-page").status_code == 404
        assert anna.http.post("/api/tables", json={}, headers={"Origin": "https://evil.example"}).status_code == 403
        # a request id: a trusted proxy's is kept (127.0.0.1 is one here), a malformed one replaced
        given = anna.http.get("/api/config", headers={"X-Request-Id": "lb-7f3a.42"})
        assert given.headers["x-request-id"] == "lb-7f3a.42"
        replaced = anna.http.get("/api/config", headers={"X-Request-Id": "two words\"}"})
        assert re.fullmatch(r"[0-9a-f]{16}", replaced.headers["x-request-id"])
        # a table of two people and two computer players, one deal
        table = anna.http.post("/api/tables", json={
            "visibility": "private", "turn_seconds": None, "expose_seconds": None, "speed": "instant",
            "options": {"match_end": "deals:1"}, "levels": {"N": "random", "E": "random", "S": "random",
                                                           "W": "random"}, "seat": "S"}).json()
        table_id = table["table_id"]
        lives = {"S": anna.connect(table_id), "N": bo.connect(table_id, invite=table["invite"])}
        lives["N"].send({"type": "sit", "seat": "N"})
        lives["S"].until(lambda s: s["table"]["seats"]["N"]["name"] == "bo")
        assert lives["N"].refused({"type": "start"})["code"] == "server.host_only"
        assert lives["N"].refused("{not json")["type"] == "error"
        lives["S"].send({"type": "start"})
        sent["S"].append("start")
        lives["S"].until(lambda s: s["phase"] in ("expose", "play"))
        _drive(lives, rng, sent)
        got = anna.http.get(f"/api/matches/{table_id}/records.jsonl")
        assert got.status_code == 200, (got.status_code, got.text, server.log_lines()[-30:])
        records = [json.loads(line) for line in got.text.splitlines()]
        # the metrics, to an allowed client behind the trusted proxy only: every play counted
        assert httpx.get(server.base + "/metrics").status_code == 404
        metrics = httpx.get(server.base + "/metrics", headers={"X-Forwarded-For": "10.1.2.3"})
        assert metrics.status_code == 200
        plays = re.findall(r'^gongzhu_plays_total\{by="(\w+)"\} (\S+)$', metrics.text, re.MULTILINE)
        assert sum(float(n) for _, n in plays) == sum(len(t["plays"]) for r in records for t in r["tricks"])
        assert dict(plays)["person"] == str(float(sent["S"].count("play") + sent["N"].count("play")))
        for live in lives.values():
            live.close()
        anna.http.close()
        bo.http.close()
    lines = server.log_lines()
    logged = [json.loads(line) for line in lines]  # every line one JSON object
    assert all(isinstance(entry, dict) for entry in logged)
    for entry in logged:
        assert {"time", "level", "logger", "message"} <= set(entry), entry
        assert entry["level"] in ("debug", "info", "warning", "error", "critical"), entry
    # one line a request, with its id, method, path (no query), status and client
    requests = [e for e in logged if e["logger"] == "gongzhu.access"]
    by_id = {e["request_id"]: e for e in requests}
    assert by_id["lb-7f3a.42"]["path"] == "/api/config" and by_id["lb-7f3a.42"]["status"] == 200
    assert by_id[replaced.headers["x-request-id"]]["client"] == "127.0.0.1"
    assert by_id[wrong.headers["x-request-id"]]["status"] == 401
    assert any(e["path"] == "/no-such-page" and e["status"] == 404 for e in requests)
    assert any(e["path"] == "/api/tables" and e["status"] == 403 for e in requests)
    sockets = [e for e in requests if e["method"] == "WEBSOCKET"]
    assert {e["path"] for e in sockets} == {f"/ws/{table_id}"} and len(sockets) == 2
    assert all("?" not in e["path"] for e in requests)  # an invitation's token is never logged
    # one line a table action: its table, person, action and outcome, and its connection's id
    actions = [e for e in logged if e["logger"] == "gongzhu.server.actions"]
    assert actions and all(e["table"] == table_id and e["level"] == "info" for e in actions)
    socket_ids = {e["request_id"] for e in sockets}
    assert all(e["request_id"] in socket_ids for e in actions)
    for seat, person in (("S", anna), ("N", bo)):
        done = [e["action"] for e in actions if e["person"] == person.id and e["outcome"] == "ok"]
        assert sorted(done) == sorted(sent[seat] + (["sit"] if seat == "N" else [])), (seat, done)
    refusals = [e for e in actions if e["outcome"] == "refused"]
    assert [(e["person"], e["action"], e.get("code")) for e in refusals] == [
        (bo.id, "start", "server.host_only"), (bo.id, "malformed", None)]
    # nothing secret in any line: no password, no session cookie, no card of any hand dealt
    assert len(records) == 1 and cookies
    hands = [cards for record in records for cards in record["hands"].values()]
    assert all(len(cards) == 13 for cards in hands)
    for line in lines:
        for password in PASSWORDS.values():
            assert password not in line
        for cookie in cookies:
            assert cookie not in line
        assert "gongzhu_session" not in line
        for cards in hands:
            assert json.dumps(cards) not in line and " ".join(cards) not in line
        assert not CARD.findall(_values(json.loads(line))), line


def _values(entry: Any) -> str:
    """Every string of a log line, apart: where a card could be written."""
    if isinstance(entry, dict):
        return "\n".join(_values(v) for v in entry.values())
    if isinstance(entry, list):
        return "\n".join(_values(v) for v in entry)
    return str(entry)


def test_text_logs_stay_as_they_were(tmp_path: Path) -> None:
    """Without --log-format json the server writes no line for an ordinary request or action;
    its metrics answer this machine (the default of --metrics-allow)."""
    with ServeProcess(tmp_path) as server:
        assert "gongzhu_plays_total" in httpx.get(server.base + "/metrics").text
        r = httpx.get(server.base + "/api/config")
        assert r.status_code == 200 and re.fullmatch(r"[0-9a-f]{16}", r.headers["x-request-id"])
        # a client that is no trusted proxy does not choose its request id
        other = httpx.get(server.base + "/api/config", headers={"X-Request-Id": "mine"})
        assert other.headers["x-request-id"] != "mine"
    assert server.log_lines() == []



def test_a_failed_request_keeps_its_id_in_the_answer_and_the_lines(tmp_path: Path) -> None:
    """A request whose handling raises gets the server's 500 with its X-Request-Id, and the
    error's line and the access line carry that id and the status."""
    import io
    import logging

    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route
    from starlette.testclient import TestClient

    from gongzhu.server.app import create_app
    from gongzhu.server.logs import JsonLines, context

    async def boom(_request: Request) -> Response:
        raise RuntimeError("a defect")

    app = create_app(f"sqlite:///{tmp_path / 'g.db'}", review_workers=0)
    app.router.routes.append(Route("/boom", boom))
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonLines())

    class Context(logging.Filter):
        def filter(self, record: logging.LogRecord) -> bool:
            record.gongzhu_context = context()
            return True

    handler.addFilter(Context())
    loggers = [logging.getLogger("gongzhu.server"), logging.getLogger("gongzhu.access")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    try:
        with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as client:
            r = client.get("/boom")
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.removeHandler(handler)
            logger.setLevel(level)
    assert r.status_code == 500 and "error" in r.json()
    request_id = r.headers["x-request-id"]
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    failed = [x for x in lines if x["message"] == "unexpected error"]
    assert len(failed) == 1 and failed[0]["request_id"] == request_id and "a defect" in failed[0]["error"]
    access = [x for x in lines if x["logger"] == "gongzhu.access" and x.get("path") == "/boom"]
    assert len(access) == 1 and access[0]["status"] == 500 and access[0]["request_id"] == request_id
