"""Refusals a player reads, answered from the message catalog (a code, its parameters, the text in
English and in Chinese) rather than in plain English: what the new-match dialog and the lobby's
new-table dialog may send (options that do not go together, a seed out of range), what the table
page may send (a claimed score out of range, a chat line that shows nothing, a message too large),
and the server's own trouble (the database away, a defect) — each refused with nothing changed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.testclient import TestClient

from gongzhu.formats.web import CLAIM_SCORE_LIMIT, MAX_SEED
from gongzhu.messages import render
from gongzhu.server import create_app
from gongzhu.server.policy import MAX_MESSAGE_BYTES
from gongzhu.server.registry import Tables
from helpers.client import Browser, Message, all_matches, local_client, new_match, refused

CHINESE = re.compile(r"[\u4e00-\u9fff]")


def ws_refused(browser: Browser, message: Message | str, code: str) -> Message:
    """Send ``message``: it is refused by the catalog's ``code``, in both languages."""
    browser.send(message)
    reply = browser.receive()
    assert reply["type"] == "error" and reply["code"] == code, reply
    assert reply["message"] == render(code, "en", reply["params"])
    assert reply["message_zh"] == render(code, "zh", reply["params"])
    assert CHINESE.search(reply["message_zh"]), reply
    return reply


# ---------------------------------------------------------------------- the new-match and new-table dialogs


@pytest.mark.parametrize("path", ["/api/matches", "/api/tables"])
def test_options_that_do_not_go_together_are_a_catalog_refusal(client: TestClient, path: str) -> None:
    body = refused(client.post(path, json={"options": {"decks": 2, "exposure": "first_card"}}), 400,
                   "refusal.option_first_card_two_decks")
    assert "首明" in body["message_zh"] and "$.options" not in body["error"]
    body = refused(client.post(path, json={"options": {"one_deck_factor": 0}}), 400, "refusal.option_integer")
    assert body["params"]["key"] == "one_deck_factor"  # a parameter named "key" is kept as it is
    assert client.get("/api/tables").json() == [] and all_matches(client) == []


@pytest.mark.parametrize("path", ["/api/matches", "/api/tables"])
@pytest.mark.parametrize("seed", [99999999999999999999999, -5, MAX_SEED, 1.5, "7", True])
def test_a_seed_out_of_range_is_a_catalog_refusal(client: TestClient, path: str, seed: Any) -> None:
    private = {"visibility": "private"} if path == "/api/tables" else {}  # (a public table takes no seed)
    body = refused(client.post(path, json={"seed": seed, **private}), 400, "server.bad_seed")
    assert body["params"] == {"max": str(MAX_SEED - 1)}
    assert str(MAX_SEED - 1) in body["message_zh"] and "种子" in body["message_zh"]
    assert all_matches(client) == []


def test_the_largest_seed_is_taken(client: TestClient) -> None:
    assert client.post("/api/matches", json={"seed": MAX_SEED - 1}).status_code == 201
    assert client.post("/api/tables", json={"seed": MAX_SEED - 1, "visibility": "private"}).status_code == 201


# ---------------------------------------------------------------------- the table page


@pytest.mark.parametrize("value", [200_000, -CLAIM_SCORE_LIMIT - 1, CLAIM_SCORE_LIMIT + 1,
                                   99999999999999999999999, 1e30, 2.5])
def test_a_claimed_score_out_of_range_is_a_catalog_refusal(client: TestClient, value: Any) -> None:
    match_id = new_match(client, seed=7)
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        before = browser.settle()
        reply = ws_refused(browser, {"type": "claim", "kind": "score", "value": value}, "server.claim_bad_score")
        assert reply["params"] == {"min": -CLAIM_SCORE_LIMIT, "max": CLAIM_SCORE_LIMIT}
        assert "声称" in reply["message_zh"]
        # Nothing changed: the state is the same, and South still declares its exposures.
        browser.send({"type": "expose", "cards": []})
        assert browser.settle()["v"] > before["v"]


def test_a_chat_line_that_shows_nothing_is_a_catalog_refusal(client: TestClient) -> None:
    match_id = new_match(client, seed=7)
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        browser.settle()
        for text in ("\u200b", " \u200b\u200c ", "\u0007", "\ufeff\u2060"):
            ws_refused(browser, {"type": "chat", "text": text}, "server.chat_empty")
        browser.send({"type": "chat", "text": "好"})
        while (said := browser.receive())["type"] != "chat":
            pass
        assert said["text"] == "好"


def test_a_message_too_large_is_a_catalog_refusal(client: TestClient) -> None:
    match_id = new_match(client, seed=7)
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        browser.settle()
        frame = '{"type": "chat", "text": "' + "x" * MAX_MESSAGE_BYTES + '"}'
        reply = ws_refused(browser, frame, "server.message_too_large")
        assert reply["params"] == {"size": len(frame), "limit": MAX_MESSAGE_BYTES}
        assert reply["message"] == f"the message is too large ({len(frame)} bytes): at most {MAX_MESSAGE_BYTES}"


def test_a_message_the_server_fails_on_is_a_catalog_refusal(client: TestClient,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    match_id = new_match(client, seed=7)
    tables: Tables = client.app.state.tables  # type: ignore[attr-defined]

    async def defect(*_args: Any) -> None:
        raise RuntimeError("a defect")

    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        browser.settle()
        monkeypatch.setattr(tables, "message", defect)
        ws_refused(browser, {"type": "hint"}, "server.message_failed")
        monkeypatch.undo()
        browser.send({"type": "expose", "cards": []})  # the connection goes on
        assert browser.settle()["phase"] == "play"


# ---------------------------------------------------------------------- the server's own trouble


@pytest.fixture
def failing(tmp_path: Path) -> Iterator[TestClient]:
    """The application with two routes of its own: the database away, and a defect."""

    async def database_away(_request: Request) -> Response:
        raise OperationalError("SELECT 1", {}, ConnectionRefusedError("the database is restarting"))

    async def defect(_request: Request) -> Response:
        raise RuntimeError("a defect")

    app = create_app(f"sqlite:///{tmp_path / 'g.db'}", pace=0, review_workers=0, static_dir=tmp_path / "none")
    app.router.routes += [Route("/away", database_away), Route("/defect", defect)]
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as client:
        yield client


def test_the_database_away_and_a_defect_are_catalog_refusals(failing: TestClient) -> None:
    body = refused(failing.get("/away"), 503, "server.store_unavailable")
    assert "restarting" not in str(body)
    body = refused(failing.get("/defect"), 500, "server.request_failed")
    assert "a defect" not in str(body)


def test_my_records_without_a_session_is_a_catalog_refusal(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'g.db'}", pace=0, static_dir=tmp_path / "none")
    with local_client(app) as client:
        refused(client.get("/api/me/records.jsonl"), 401, "server.no_session")
