"""The challenges (robot duplicate, R8.1; docs/tournaments.md) through the application in the test
process: today's challenge is made by the first request, every entrant plays the same boards in
the same seat, a board's hands, results and records stay hidden from a person until they finish
it, the travellers compare the results board by board, and a closed challenge publishes its seed
so that its boards can be checked against the commitment published when it opened.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from starlette.applications import Starlette
from starlette.testclient import TestClient

from gongzhu.players.expert import _first_leader
from gongzhu.players.observation import observe
from gongzhu.players.sampling import World
from gongzhu.ratings import rate_deal
from gongzhu.rules.boards import make_board_set, verify_board_set
from gongzhu.rules.cards import ALL_CARDS, Seat
from gongzhu.rules.deal import Deal
from gongzhu.rules.options import resolve_options
from gongzhu.server.app import create_app
from gongzhu.server.challenge_api import MADE_AN_HOUR
from gongzhu.server.store import CHALLENGE_DEVICES, USERS
from helpers.client import Browser, act, local_client, refused
from helpers.clock import SetClock

#: Every card code, to look for in answers that must hold none.
CARD_CODE = re.compile(r"\b(?:" + "|".join(c.code for c in ALL_CARDS) + r")\b")
PASSWORD = "a quiet tiger 42 challenge"


@pytest.fixture
def clock() -> SetClock:
    return SetClock(1_796_085_000.0)  # 2026-12-01 00:30 UTC


@pytest.fixture
def app_client(db_url: str, tmp_path: Path, clock: SetClock) -> Iterator[TestClient]:
    """The application with quick computer players at its challenges and no par replays."""
    app = create_app(db_url, pace=0, hint_think=0.05, static_dir=tmp_path / "no-static", par_replays=0,
                     challenge_level="random", review_workers=0, now=clock)
    with local_client(app) as c:
        yield c


def person(app_client: TestClient, name: str | None) -> TestClient:
    """Another browser of the same application: an account named ``name`` (a guest for None)."""
    app = app_client.app
    assert isinstance(app, Starlette)
    c = local_client(app)
    c.get("/api/me")
    if name is not None:
        r = c.post("/api/account", json={"name": name, "password": PASSWORD})
        assert r.status_code in (200, 201), r.text
    return c


def enter(c: TestClient, challenge_id: str) -> str:
    r = c.post(f"/api/challenges/{challenge_id}/play")
    assert r.status_code == 200, r.text
    match_id: str = r.json()["match_id"]
    assert r.json()["url"] == f"/table/{match_id}"
    return match_id


def play_board(c: TestClient, match_id: str, seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """South plays the board in progress to its end; the final state and every message."""
    rng = random.Random(seed)
    with c.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        state = browser.settle()
        while state["phase"] not in ("deal-over", "match-over"):
            act(browser, rng)
            state = browser.settle()
        return state, browser.messages


def first_state(c: TestClient, match_id: str) -> dict[str, Any]:
    with c.websocket_connect(f"/ws/{match_id}") as ws:
        return Browser(ws).settle()


def test_today_is_made_once_and_shows_no_card(app_client: TestClient) -> None:
    """R8.1: the first request makes today's challenge; its commitment and definition are public,
    its seed and every card are not."""
    first = app_client.get("/api/challenges").json()
    again = app_client.get("/api/challenges").json()
    today = first["today"]
    assert today["id"] == "daily-2026-12-01" == again["today"]["id"]
    assert today["commitment"] == again["today"]["commitment"] and len(today["commitment"]) == 64
    assert today["seed"] is None and not today["closed"]
    assert today["boards"] == 8 and today["definition"]["count"] == 8
    assert not CARD_CODE.search(json.dumps(first)), "a card in the challenge's listing"
    assert [b["open"] for b in today["board_list"]] == [False] * 8


def test_entrants_play_the_same_boards_and_see_a_board_only_once_finished(app_client: TestClient,
                                                                          clock: SetClock) -> None:
    """R8.1: two entrants are dealt the same hands on board 1 in the same seat, with the same
    first leader; neither sees the other's result, the board's hands or the other's record before
    finishing it; once both have, the traveller compares them (matchpoints, the scale)."""
    challenge_id = app_client.get("/api/challenges").json()["today"]["id"]
    a, b = person(app_client, "Anna"), person(app_client, "Bo")
    match_a, match_b = enter(a, challenge_id), enter(b, challenge_id)
    assert match_a != match_b and enter(a, challenge_id) == match_a  # an account enters once
    play, as_json = f"/api/challenges/{challenge_id}/play", {"Content-Type": "application/json"}
    for body, status in ((b"null", 400), (b"[]", 400), (b'{"x": 1}', 400), (b"{", 400), (b"{}" + b" " * 70_000, 413)):
        answer = a.post(play, content=body, headers=as_json)
        assert answer.status_code == status, (body[:10], answer.text)
    assert a.post(play, content=b"{}", headers={"Content-Type": "text/plain"}).status_code == 415
    start_a, start_b = first_state(a, match_a), first_state(b, match_b)
    assert start_a["hand"] == start_b["hand"] and start_a["seat"] == start_b["seat"] == "S"
    assert start_a["table"]["challenge"] == {"id": challenge_id, "url": f"/challenge/{challenge_id}"}
    # No hints in a challenge; nobody else at the table, not even to watch.
    with a.websocket_connect(f"/ws/{match_a}") as ws:
        browser = Browser(ws)
        browser.settle()
        browser.refused({"type": "hint"})
        assert browser.messages[-1]["code"] == "server.no_hints_in_challenges"
    with b.websocket_connect(f"/ws/{match_a}") as ws:
        closed = ws.receive_json()
        assert closed["type"] == "error" and not CARD_CODE.search(json.dumps(closed)), closed
    # B, who finished no board, reads nothing of A's match, not even while it has no board over.
    refused(b.get(f"/api/matches/{match_a}"), 403, "server.challenge_board_hidden")
    final_a, _ = play_board(a, match_a, 1)
    assert final_a["phase"] == "deal-over"
    # B has not finished board 1: its traveller, A's record and A's match are hidden from B.
    hidden = b.get(f"/api/challenges/{challenge_id}/boards/1")
    refused(hidden, 403, "server.challenge_board_hidden")
    assert not CARD_CODE.search(hidden.text)
    refused(b.get(f"/api/matches/{match_a}/deals/0"), 403, "server.challenge_board_hidden")
    refused(b.get(f"/api/matches/{match_a}/records.jsonl"), 403, "server.challenge_board_hidden")
    refused(b.post(f"/api/matches/{match_a}/deals/0/review", json={"seat": "S"}), 403,
            "server.challenge_board_hidden")
    summary_b = b.get(f"/api/challenges/{challenge_id}").json()
    assert not CARD_CODE.search(json.dumps(summary_b))
    # Nor does anything public tell B how A did: no ranking over a board B has not finished, and
    # A's lifetime score, deals and pigs (public, on the profile and the leaderboard) did not move.
    assert summary_b["standings"] == [] and summary_b["standings_boards"] == [] and summary_b["entrants"] == 1
    assert [e["me"] for e in b.get("/api/challenges").json()["challenges"] if e["id"] == challenge_id] == [None]
    profile = b.get("/api/users/Anna").json()
    assert (profile["lifetime"], profile["deals"], profile["matches"], profile["pigs"]) == (0, 0, 0, 0)
    board = b.get("/api/leaderboard").json()
    assert [(r["lifetime"], r["deals"]) for r in board if r["name"] == "Anna"] in ([], [(0, 0)])
    assert a.get(f"/api/challenges/{challenge_id}").json()["standings_boards"] == [1]
    # A sees board 1's traveller.
    travel = a.get(f"/api/challenges/{challenge_id}/boards/1").json()
    assert [r["name"] for r in travel["results"]] == ["Anna"]
    assert travel["hands"]["S"] and sorted(travel["hands"]["S"]) == sorted(start_a["hand"])
    final_b, _ = play_board(b, match_b, 2)
    travel = b.get(f"/api/challenges/{challenge_id}/boards/1").json()
    results = {r["name"]: r for r in travel["results"]}
    assert set(results) == {"Anna", "Bo"}
    ra, rb = results["Anna"]["result"], results["Bo"]["result"]
    assert ra == final_a["deal_result"]["result"]["S"] and rb == final_b["deal_result"]["result"]["S"]
    expected_a = 2 if ra > rb else 1 if ra == rb else 0
    assert results["Anna"]["matchpoints"] == expected_a and results["Anna"]["top"] == 2
    assert results["Bo"]["matchpoints"] == 2 - expected_a
    # B finished board 1 too: A's record of it, and A's match (one finished board) are open to B.
    shown = b.get(f"/api/matches/{match_a}/deals/0")
    assert shown.status_code == 200
    # Shown to B, not to everyone: no cache between people may keep it.
    for answer in (shown, b.get(f"/api/matches/{match_a}/records.jsonl"), b.get(f"/api/matches/{match_a}")):
        assert answer.headers["cache-control"] == "private" and answer.headers["vary"] == "Cookie"
    assert len(b.get(f"/api/matches/{match_a}/records.jsonl").text.splitlines()) == 1
    standings = a.get(f"/api/challenges/{challenge_id}").json()["standings"]
    assert {s["name"] for s in standings} == {"Anna", "Bo"} and {s["rank"] for s in standings} <= {1, 2}
    seen_by_b = b.get(f"/api/challenges/{challenge_id}").json()["standings"]  # both on board 1
    assert [s | {"me": None} for s in seen_by_b] == [s | {"me": None} for s in standings]


def test_a_guest_is_compared_but_not_ranked(app_client: TestClient) -> None:
    challenge_id = app_client.get("/api/challenges").json()["today"]["id"]
    a, g = person(app_client, "Anna"), person(app_client, None)
    play_board(a, enter(a, challenge_id), 1)
    play_board(g, enter(g, challenge_id), 2)
    rows = {s["name"]: s for s in g.get(f"/api/challenges/{challenge_id}").json()["standings"]}
    assert rows["Anna"]["rank"] == 1
    guest = next(s for s in rows.values() if s["guest"])
    assert guest["rank"] is None and guest["top"] == 2
    # The list of challenges counts both, and gives each their own place.
    for c, rank in ((a, 1), (g, None)):
        listed = {x["id"]: x for x in c.get("/api/challenges").json()["challenges"]}
        assert listed[challenge_id]["entrants"] == 2 and listed[challenge_id]["me"]["rank"] == rank
    # The guest signs up: what it played as a guest stays a guest's (else anyone could play the
    # boards as many guests and make the best of them an account), ranked nowhere.
    signed = g.post("/api/account", json={"name": "Late", "password": PASSWORD})
    assert signed.status_code == 200, signed.text
    cy = person(app_client, "Cy")
    play_board(cy, enter(cy, challenge_id), 3)  # a new result: the standings are read again
    rows = {s["name"]: s for s in g.get(f"/api/challenges/{challenge_id}").json()["standings"]}
    assert rows["Late"]["guest"] is True and rows["Late"]["rank"] is None and rows["Anna"]["rank"] is not None


def test_a_browser_enters_a_challenge_as_one_person(app_client: TestClient) -> None:
    """A guest who played board 1 to see its hands cannot enter again from the same browser as
    someone else — signed out (a new guest), then signed up — nor can that account enter from
    another browser once it was signed in from the first; the same person comes back to their
    entry, and another person in another browser enters."""
    challenge_id = app_client.get("/api/challenges").json()["today"]["id"]
    play = f"/api/challenges/{challenge_id}/play"
    scout = person(app_client, None)
    play_board(scout, enter(scout, challenge_id), 5)
    scout.post("/api/logout")
    scout.get("/api/me")  # a new guest, in the same browser
    body = refused(scout.post(play), 409, "server.challenge_other_person")
    assert body["params"] == {"challenge": challenge_id}
    signed = scout.post("/api/account", json={"name": "Ann", "password": PASSWORD})
    assert signed.status_code == 200, signed.text
    refused(scout.post(play), 409, "server.challenge_other_person")
    app = app_client.app
    assert isinstance(app, Starlette)
    with local_client(app) as phone:  # Ann's other browser: her first is the scout's
        assert phone.post("/api/login", json={"name": "Ann", "password": PASSWORD}).status_code == 200
        refused(phone.post(play), 409, "server.challenge_other_person")
        # Signing the scout's browser out from here trusts it no more, but Ann still knows it.
        assert phone.post("/api/account/sessions/end-others").status_code == 200
        refused(phone.post(play), 409, "server.challenge_other_person")
    bo = person(app_client, "Bo")
    entry = enter(bo, challenge_id)
    bo.post("/api/logout")
    assert bo.post("/api/login", json={"name": "Bo", "password": PASSWORD}).status_code == 200
    assert enter(bo, challenge_id) == entry  # the same person, back to their entry
    exported = bo.get("/api/account/export").json()  # which challenges, from a browser; not which
    assert [e["challenge"] for e in exported["challenges_entered"]] == [challenge_id]
    # Once the challenge has closed, which browsers entered it is forgotten by the daily sweep.
    store, identity = app.state.store, app.state.identity
    with store.engine.connect() as c:
        assert len(c.execute(select(CHALLENGE_DEVICES)).all()) == 2
    identity.forget_idle_guests(datetime(2026, 12, 2, 0, 0, 1, tzinfo=UTC))
    with store.engine.connect() as c:
        assert c.execute(select(CHALLENGE_DEVICES)).all() == []


def test_a_second_account_cannot_enter_from_a_browser_of_an_account_that_entered(app_client: TestClient) -> None:
    """Mo, signed in from two browsers, plays board 1 from the first. In the second, signed out,
    a new account is refused; so it is in a third browser Mo signs in from after entering, and in
    the second still once Mo's account is deleted."""
    challenge_id = app_client.get("/api/challenges").json()["today"]["id"]
    play = f"/api/challenges/{challenge_id}/play"
    app = app_client.app
    assert isinstance(app, Starlette)
    mo = person(app_client, "Mo")
    with local_client(app) as second, local_client(app) as third:
        assert second.post("/api/login", json={"name": "Mo", "password": PASSWORD}).status_code == 200
        play_board(mo, enter(mo, challenge_id), 7)
        assert second.post("/api/logout").status_code == 200
        assert second.post("/api/account", json={"name": "Sy", "password": PASSWORD}).status_code == 200
        refused(second.post(play), 409, "server.challenge_other_person")
        assert third.post("/api/login", json={"name": "Mo", "password": PASSWORD}).status_code == 200
        assert third.post("/api/logout").status_code == 200
        third.get("/api/me")  # a guest now
        refused(third.post(play), 409, "server.challenge_other_person")
        gone = mo.post("/api/account/delete", json={"password": PASSWORD, "confirm": "Mo"})
        assert gone.status_code == 200, gone.text
        refused(second.post(play), 409, "server.challenge_other_person")
    other = person(app_client, "Tia")  # someone else, in a browser of her own, enters
    enter(other, challenge_id)


def test_an_entry_cannot_be_deleted_to_play_a_board_again(app_client: TestClient) -> None:
    """An account's entry stays, even before its first board is finished: deleted, it would let
    its person enter again and play board 1 once more knowing where the others' cards lie.  Left
    for a newer single-player match, it is not offered for deletion either."""
    challenge_id = app_client.get("/api/challenges").json()["today"]["id"]
    a = person(app_client, "Anna")
    match_id = enter(a, challenge_id)
    with a.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        state = browser.settle()
        rng = random.Random(4)
        while state.get("tricks_played", 0) < 2:  # part of board 1, with cards of the others seen
            act(browser, rng)
            state = browser.settle()
    newer = a.post("/api/matches", json={"levels": {"N": "random", "E": "random", "W": "random"}})
    assert newer.status_code == 201, newer.text
    listed = {m["match_id"]: m for m in a.get("/api/matches").json()}
    assert listed[match_id]["abandoned"] is False
    body = refused(a.delete(f"/api/matches/{match_id}"), 409, "server.delete_challenge")
    assert body["params"]["match"] == f'"{match_id}"'
    assert enter(a, challenge_id) == match_id  # the same entry, its board where it was
    assert first_state(a, match_id)["tricks_played"] == state["tricks_played"]


def test_a_closed_challenge_publishes_its_seed_and_counts_nothing_more(app_client: TestClient, clock: SetClock) -> None:
    """R8.1: once closed, the seed is public and gives the boards that were played (checked
    against the commitment); no new board is dealt and nobody enters."""
    today = app_client.get("/api/challenges").json()["today"]
    a = person(app_client, "Anna")
    match_a = enter(a, today["id"])
    start = first_state(a, match_a)
    clock.t += 86_400
    info = a.get(f"/api/challenges/{today['id']}").json()
    assert info["closed"] and info["seed"]
    boards = verify_board_set(info["seed"], info["definition"], info["commitment"])
    assert sorted(c.code for c in boards.board(1).hands[2]) == sorted(start["hand"])
    late = person(app_client, "Late")
    refused(late.post(f"/api/challenges/{today['id']}/play"), 409, "server.challenge_closed")
    final, _ = play_board(a, match_a, 3)
    assert final["phase"] == "deal-over"
    assert a.get(f"/api/challenges/{today['id']}").json()["standings"] == []  # finished after the close
    with a.websocket_connect(f"/ws/{match_a}") as ws:
        browser = Browser(ws)
        browser.settle()
        browser.refused({"type": "next"})
        assert browser.messages[-1]["code"] == "server.challenge_closed"
    # Everyone sees the travellers of a closed challenge.
    assert late.get(f"/api/challenges/{today['id']}/boards/1").status_code == 200


def leave_board(c: TestClient, match_id: str, seed: int, tricks: int) -> dict[str, Any]:
    """South plays ``tricks`` tricks of the board in progress and leaves it; the last state."""
    rng = random.Random(seed)
    with c.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        state = browser.settle()
        while state.get("tricks_played", 0) < tricks:
            act(browser, rng)
            state = browser.settle()
        return state


def test_a_board_left_unfinished_counts_as_a_last_place_once_closed(app_client: TestClient, clock: SetClock) -> None:
    """R8.1: once the challenge has closed, every entrant who finished a board is held to all of
    them: Cy, who finished board 1 and left board 2 half played, scores 0% and the scale's bottom
    on board 2, as everyone does on the boards 3 to 8 nobody reached — before the close, over
    the boards each played, her one board could have ranked her first.  Dee, a guest who entered
    and signed up before finishing board 1, stays a guest of the challenge.  On the daily
    challenge's close the board Cy left moves ratings with her last."""
    challenge_id = app_client.get("/api/challenges").json()["today"]["id"]
    a, b, cy = person(app_client, "Anna"), person(app_client, "Bo"), person(app_client, "Cy")
    dee = person(app_client, None)
    for c, seed in ((a, 1), (b, 2), (cy, 3)):
        match_id = enter(c, challenge_id)
        play_board(c, match_id, seed)
        with c.websocket_connect(f"/ws/{match_id}") as ws:  # board 2 dealt
            browser = Browser(ws)
            browser.settle()
            browser.send({"type": "next"})
            assert browser.settle()["phase"] in ("expose", "play")
        if c is cy:
            leave_board(cy, match_id, seed, 2)
        else:
            play_board(c, match_id, seed)
    match_dee = enter(dee, challenge_id)
    leave_board(dee, match_dee, 4, 1)
    signed = dee.post("/api/account", json={"name": "Dee", "password": PASSWORD})
    assert signed.status_code == 200, signed.text
    play_board(dee, match_dee, 4)
    travellers = {n: {r["name"]: r for r in a.get(f"/api/challenges/{challenge_id}/boards/{n}").json()["results"]}
                  for n in (1, 2)}
    boards = {n: {name: r["percent"] for name, r in rows.items()} for n, rows in travellers.items()}
    steps = {n: {name: r["steps"] for name, r in rows.items()} for n, rows in travellers.items()}
    assert set(boards[1]) == {"Anna", "Bo", "Cy", "Dee"} and set(boards[2]) == {"Anna", "Bo"}
    clock.t += 86_400
    rows = {s["name"]: s for s in a.get(f"/api/challenges/{challenge_id}").json()["standings"]}
    assert set(rows) == {"Anna", "Bo", "Cy", "Dee"}
    assert rows["Dee"]["guest"] is True and rows["Dee"]["rank"] is None and rows["Dee"]["unfinished"] == 7
    assert (rows["Cy"]["boards"], rows["Cy"]["unfinished"]) == (1, 7)
    assert {(rows[n]["boards"], rows[n]["unfinished"]) for n in ("Anna", "Bo")} == {(2, 6)}
    for name in ("Anna", "Bo", "Cy"):  # board 2 is 0% and −24 steps for Cy, as the boards 3 to 8 for all
        assert rows[name]["percent"] == pytest.approx((boards[1][name] + boards[2].get(name, 0)) / 8, abs=0.01)
        assert rows[name]["steps"] == steps[1][name] + steps[2].get(name, -24) - 24 * 6
    ranked = sorted((rows[n] for n in ("Anna", "Bo", "Cy")), key=lambda r: r["rank"])
    assert [(r["percent"], r["steps"]) for r in ranked] == sorted(((r["percent"], r["steps"]) for r in ranked),
                                                                 reverse=True)
    # The ratings at the daily challenge's close: board 2 orders Anna and Bo by their results and Cy
    # below them (she was dealt it); Dee is a guest's entry, rated nowhere.
    challenges = a.app.state.challenges  # type: ignore[attr-defined]
    assert challenges.rate_closed() == [challenge_id]
    store = a.app.state.store  # type: ignore[attr-defined]
    with store.engine.connect() as conn:
        ids = {name: uid for name, uid in conn.execute(select(USERS.c.name, USERS.c.id)
                                                        .where(USERS.c.name.in_(["Anna", "Bo", "Cy", "Dee"])))}
    history = {name: [s.games for _, s in store.rating_history(uid).get("one_deck", [])] for name, uid in ids.items()}
    assert history == {"Anna": [1, 2], "Bo": [1, 2], "Cy": [1, 2], "Dee": []}
    result = {n: {name: r["result"] for name, r in rows.items()} for n, rows in travellers.items()}
    last = min(result[2].values()) - 1  # below both results of board 2
    want = rate_deal({}, [([name], result[1][name]) for name in ("Anna", "Bo", "Cy")])
    want = rate_deal(want, [([name], result[2].get(name, last)) for name in ("Anna", "Bo", "Cy")])
    got = store.ratings([ids[n] for n in ("Anna", "Bo", "Cy")], "one_deck")
    assert {name: got[ids[name]]["one_deck"] for name in ("Anna", "Bo", "Cy")} == want


def test_a_private_challenge_on_demand(app_client: TestClient) -> None:
    host = person(app_client, "Host")
    r = host.post("/api/challenges", json={"preset": "tournament", "boards": 2})
    assert r.status_code == 201, r.text
    challenge_id = r.json()["id"]
    info = host.get(f"/api/challenges/{challenge_id}").json()
    assert info["kind"] == "private" and info["boards"] == 2 and info["preset"] == "tournament"
    assert host.post("/api/challenges", json={"boards": 40}).status_code == 400
    assert host.post("/api/challenges", json={"preset": "nope"}).status_code == 400
    listed = [c["id"] for c in host.get("/api/challenges").json()["challenges"]]
    assert challenge_id in listed
    stranger = person(app_client, "Stranger")
    assert challenge_id not in [c["id"] for c in stranger.get("/api/challenges").json()["challenges"]]
    refused(host.get("/api/challenges/nope"), 404, "server.challenge_unknown")
    long = refused(host.get("/api/challenges/" + "c" * 3000), 404, "server.challenge_unknown")
    assert len(long["params"]["challenge"]) <= 40  # a refusal quotes at most 40 characters of what it refuses
    refused(host.get("/api/challenges/nope/boards/abc"), 404, "server.challenge_unknown")
    body = refused(host.get(f"/api/challenges/{challenge_id}/boards/abc"), 404, "server.challenge_no_board")
    assert body["params"]["boards"] == 2
    refused(host.get(f"/api/challenges/{challenge_id}/boards/3"), 404, "server.challenge_no_board")


def test_private_challenges_made_from_one_address_are_limited(app_client: TestClient) -> None:
    """Each private challenge deals its boards and has its par computed: at most MADE_AN_HOUR an
    hour from one client address, whoever asks (a new guest a request makes no difference)."""
    host = person(app_client, "Host")
    for _ in range(MADE_AN_HOUR):  # refused bodies count for nothing
        assert host.post("/api/challenges", json={"boards": 40}).status_code == 400
    for _ in range(MADE_AN_HOUR):
        assert host.post("/api/challenges", json={"boards": 1}).status_code == 201
    r = refused(host.post("/api/challenges", json={"boards": 1}), 429, "server.challenge_too_many")
    assert r["params"]["seconds"] > 0
    again = host.post("/api/challenges", json={"boards": 1})
    assert again.status_code == 429 and int(again.headers["retry-after"]) > 0
    refused(person(app_client, None).post("/api/challenges", json={"boards": 1}), 429, "server.challenge_too_many")
    assert len(host.get("/api/challenges").json()["challenges"]) == MADE_AN_HOUR + 1  # and today's


@pytest.mark.parametrize("preset", ["online", "online2"])
def test_the_computers_lead_a_board_as_a_first_deal(preset: str) -> None:
    """R8.1, R5.1: on every board, whatever its number, the computer players read the first lead
    as in a first deal (the holder of ♣2), not as the previous pig-taker's; an ordinary match's
    later deal is led by its first receiver."""
    options = resolve_options(preset)
    boards = make_board_set(options, 5, seed="0123456789abcdef")
    rng = random.Random(1)
    for board in boards.boards:
        deal = board.deal(options)
        obs = observe(deal, Seat.N)
        assert not obs.led_by_pig_taker
        world = World(hands={s: Counter(deal.hand(s)) for s in Seat}, exposures=())
        holders = [int(s) for s in Seat if any(c.code == "2C" for c in deal.hand(s))]
        leader = _first_leader(obs, world, rng)  # a computer sees no dealing order: any holder of ♣2
        assert leader in holders and (len(holders) > 1 or leader == int(board.first_leader(options)))
    later = Deal.new(options, 5, first_receiver=Seat.W, deal_index=1, previous_pig_taker=Seat.W)
    assert observe(later, Seat.N).led_by_pig_taker


def test_no_message_or_answer_shows_an_entrant_a_hand_of_a_board_they_have_not_finished(
        app_client: TestClient) -> None:
    """R8.1: while B plays board 1 (which A has finished), no message B's table sends holds a card
    of another seat's hand that is not public yet (played or exposed), and no HTTP answer B gets
    about the challenge or A's match holds a card at all; after B finishes, the traveller does."""
    challenge_id = app_client.get("/api/challenges").json()["today"]["id"]
    a, b = person(app_client, "Anna"), person(app_client, "Bo")
    match_a = enter(a, challenge_id)
    play_board(a, match_a, 1)
    match_b = enter(b, challenge_id)
    board = app_client.app.state.challenges.boards_of(challenge_id)[0]  # type: ignore[attr-defined]
    others = {c.code for s in (Seat.N, Seat.E, Seat.W) for c in board.hands[s]}
    answers = [b.get(path) for path in (
        "/api/challenges", f"/api/challenges/{challenge_id}", "/api/me/challenges",
        f"/api/challenges/{challenge_id}/boards/1", f"/api/matches/{match_a}",
        f"/api/matches/{match_a}/deals/0", f"/api/matches/{match_a}/records.jsonl")]
    for r in answers:
        assert not CARD_CODE.search(r.text), (r.url, r.text[:200])
    _, messages = play_board(b, match_b, 2)
    public: set[str] = set()
    for m in messages:
        if m["type"] == "played":
            public.update(m["cards"])
        elif m["type"] == "revealed":
            public.update(e["card"] for e in m["exposures"] if e.get("card"))
        elif m["type"] == "state":
            s = m["state"]
            public.update(c for p in s["trick"]["plays"] for c in p["cards"])
            public.update(e["card"] for e in s["exposures"] if e.get("card"))
            if s["phase"] in ("deal-over", "match-over"):
                break  # the board is finished: every card is public now
        leaked = set(CARD_CODE.findall(json.dumps(m))) & others - public
        assert not leaked, (m["type"], leaked)
    assert b.get(f"/api/challenges/{challenge_id}/boards/1").status_code == 200


def test_the_par_is_the_computers_result_shown_once_a_board_is_finished(db_url: str, tmp_path: Path,
                                                                        clock: SetClock) -> None:
    """R8.1: the par of each board (the expert's mean result at South over replays by four
    experts) is computed when the challenge is made, and shown for a board only to whoever may see
    the board."""
    app = create_app(db_url, pace=0, static_dir=tmp_path / "no-static", par_replays=1, challenge_level="random",
                     review_workers=0, now=clock)
    with local_client(app) as c:
        c.get("/api/me")
        today = c.get("/api/challenges").json()["today"]
        app.state.challenges.wait(120)
        stored = app.state.store.challenge(today["id"])["par"]
        assert len(stored) == 8 and all(isinstance(p, float) for p in stored)
        assert [b["par"] for b in c.get(f"/api/challenges/{today['id']}").json()["board_list"]] == [None] * 8
        play_board(c, enter(c, today["id"]), 1)
        shown = c.get(f"/api/challenges/{today['id']}").json()["board_list"]
        assert shown[0]["par"] == stored[0] and [b["par"] for b in shown[1:]] == [None] * 7
        assert c.get(f"/api/challenges/{today['id']}/boards/1").json()["par"] == stored[0]
