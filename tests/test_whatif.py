"""The what-if board through the API (``POST /api/matches/{id}/deals/{k}/whatif``; docs/review.md,
What if): from any moment of a finished deal, the seat plays any legal card and the other seats
answer — as in the deal while the line follows it, then as the expert would, the same way for
the same line — and each legal play of the seat has its open-card value (exactly the solver's on
the true hands, where it solves within its budget) and its expected value from the seat's view.
Every bad request is refused with its catalog message and changes nothing; a deal whose record
the caller may not read (not finished, a challenge's board not yet open to them) is refused like
the record itself; each person has one what-if at a time.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from gongzhu.records.read import DealRecord, parse_record
from gongzhu.records.replay import replay_states
from gongzhu.review.whatif import DEFAULT_WHATIF_BUDGET, MAX_LINE, WHATIF_FORMAT, what_if
from gongzhu.rules.cards import ALL_CARDS, Seat
from gongzhu.rules.deal import Deal, Phase
from gongzhu.search import fast, fast2
from gongzhu.search.solver import OpenSolver
from gongzhu.search.solver2 import OpenSolver2
from gongzhu.server.app import create_app
from gongzhu.server.whatif import WhatIfRefused, WhatIfs
from helpers.client import LOCAL, local_client, new_match, play_deal, refused, user_of, whatifs_of
from helpers.clock import SetClock
from test_challenges import enter, person, play_board

#: Every card code, to look for in answers that must hold none.
CARD_CODE = re.compile(r"\b(?:" + "|".join(c.code for c in ALL_CARDS) + r")\b")


def url(match_id: str, k: int | str = 0) -> str:
    return f"/api/matches/{match_id}/deals/{k}/whatif"


def post(client: TestClient, match_id: str, body: Any, k: int | str = 0, **headers: str) -> Any:
    return client.post(url(match_id, k), content=json.dumps(body).encode(),
                       headers={"content-type": "application/json", "origin": LOCAL, **headers})


def answered(client: TestClient, match_id: str, seat: str, line: list[str], k: int = 0) -> dict[str, Any]:
    response = post(client, match_id, {"seat": seat, "line": line}, k)
    assert response.status_code == 200, response.text
    assert response.headers["cache-control"] == "no-store"
    body: dict[str, Any] = response.json()
    assert body["format"] == WHATIF_FORMAT and body["seat"] == seat
    return body



def finished(client: TestClient, seed: int = 5, **body: Any) -> tuple[str, dict[str, Any]]:
    """A single-player match whose first deal South played to its end (random legal plays), and
    that deal's record."""
    match_id = new_match(client, seed=seed, **body)
    play_deal(client, match_id)
    record: dict[str, Any] = client.get(f"/api/matches/{match_id}/deals/0").json()
    return match_id, record


def code(play: tuple[Any, ...] | list[Any]) -> str:
    return "+".join(c.code for c in sorted(play, key=lambda c: c.index))


def first_lead(rec: DealRecord) -> Deal:
    return next(d for d in replay_states(rec) if d.phase is Phase.PLAY).copy()


def actual(rec: DealRecord) -> list[tuple[Seat, str]]:
    return [(s, code(p)) for t in rec.tricks for s, p in t.plays]


def played_to(rec: DealRecord, line: list[str]) -> Deal:
    deal = first_lead(rec)
    for play in line:
        deal.play(play.split("+"), deal.turn)
    return deal


def south_turn(rec: DealRecord, *, from_trick: int = 0, choices: int = 1) -> int:
    """The index in the record's plays of South's first play from trick ``from_trick`` (0-based)
    with at least ``choices`` legal plays."""
    deal = first_lead(rec)
    for i, (seat, play) in enumerate(actual(rec)):
        if seat == Seat.S and len(deal.tricks) >= from_trick and len(deal.legal_plays()) >= choices:
            return i
        deal.play(play.split("+"), seat)
    raise AssertionError("no such play of South")


def test_values_are_the_solvers_on_the_true_hands_and_the_experts_from_the_seat(client: TestClient) -> None:
    match_id, record = finished(client)
    rec = parse_record(record)
    plays = actual(rec)
    at = south_turn(rec, from_trick=8)
    line = [p for _, p in plays[:at]]
    board = answered(client, match_id, "S", line)
    # The line follows the deal and reaches South's turn: nothing to answer.
    assert board["diverged"] is None and board["answers"] == [] and board["line"] == line and board["given"] == at
    assert board["seats"] == [s.name for s, _ in plays[:at]]
    deal = played_to(rec, line)
    pos = board["position"]
    assert pos["turn"] == "S" and not pos["over"] and pos["trick"] == len(deal.tricks) + 1
    assert pos["current"] == [{"seat": s.name, "cards": [c.code for c in p]} for s, p in deal.current_trick]
    # Every hand: the record shows them all to whoever may read it.
    assert pos["hands"] == {s.name: [c.code for c in deal.hand(s)] for s in Seat}
    assert pos["counts"] == {s.name: len(deal.hand(s)) for s in Seat}
    # Each legal play with the open-card solver's value on the true hands, solved late in the deal.
    exact = OpenSolver(rec.options, Seat.S).values(fast.encode(deal))
    assert exact is not None
    assert board["exact"]["solved"] and board["exact"]["why"] is None and board["exact"]["meaning"] == "worst_case"
    assert {v["cards"][0]: v["exact"] for v in board["values"]} == {c.code: round(x, 1) for c, x in exact.items()}
    assert sorted(v["cards"][0] for v in board["values"]) == sorted(code(p) for p in deal.legal_plays())
    # Best by each measure; the card played in the deal marked as such; the expected values in order.
    top_exact = max(exact.values())
    assert {v["cards"][0] for v in board["values"] if v["best_exact"]} == \
        {c.code for c, x in exact.items() if round(x, 1) == round(top_exact, 1)}
    expected = [v["expected"] for v in board["values"]]
    assert expected == sorted(expected, reverse=True) and board["values"][0]["best_expected"]
    assert board["best"]["expected"] == board["values"][0]["cards"]
    assert exact[next(c for c in exact if [c.code] == board["best"]["exact"])] == top_exact
    assert [v["cards"][0] for v in board["values"] if v["actual"]] == [plays[at][1]]
    # The server's answer is gongzhu.review.whatif's, as the record and the line give it.
    assert board == what_if(record, Seat.S, line)


def test_early_in_the_deal_the_exact_values_are_null_and_the_expected_ones_given(client: TestClient) -> None:
    match_id, record = finished(client, seed=8)
    rec = parse_record(record)
    board = answered(client, match_id, "E", [])
    # Before the first lead the others play as they did in the deal, up to East's turn.
    assert all(a["by"] == "record" for a in board["answers"])
    assert [(a["seat"], "+".join(a["cards"])) for a in board["answers"]] == \
        [(s.name, p) for s, p in actual(rec)[:len(board["answers"])]]
    assert board["position"]["turn"] == "E"
    assert board["exact"] == {"solver": "paranoid", "meaning": "worst_case", "solved": False, "why": "limit",
                              "limit": 2_000_000}
    assert board["best"]["exact"] is None
    assert all(v["exact"] is None and isinstance(v["expected"], float) for v in board["values"])


def test_a_line_that_leaves_the_deal_is_answered_by_the_expert_the_same_way_every_time(client: TestClient) -> None:
    match_id, record = finished(client, seed=11)
    rec = parse_record(record)
    plays = actual(rec)
    at = south_turn(rec, from_trick=2, choices=2)
    prefix = [p for _, p in plays[:at]]
    deal = played_to(rec, prefix)
    other = next(code(p) for p in deal.legal_plays() if code(p) != plays[at][1])
    line = [*prefix, other]
    board = answered(client, match_id, "S", line)
    assert board["diverged"] == at and board["given"] == at + 1
    assert board["line"][:at + 1] == line and len(board["line"]) == at + 1 + len(board["answers"])
    assert board["answers"] and all(a["by"] == "expert" and a["seat"] != "S" for a in board["answers"])
    # Every answer is legal where it was made, and the position is the one they lead to.
    after = played_to(rec, board["line"])
    assert board["position"]["turn"] == (None if after.turn is None else after.turn.name)
    assert board["position"]["hands"] == {s.name: [c.code for c in after.hand(s)] for s in Seat}
    assert board["seats"][at:] == ["S", *(a["seat"] for a in board["answers"])]
    # The same line, asked again and by another person, gets the same board.
    assert answered(client, match_id, "S", line) == board
    stranger = local_client(client.app)  # type: ignore[arg-type]
    assert answered(stranger, match_id, "S", line) == board
    # The board's own line (a shared link) shows the same position and values, nothing to answer.
    shared = answered(stranger, match_id, "S", board["line"])
    assert shared["answers"] == [] and shared["position"] == board["position"]
    assert shared["values"] == board["values"] and shared["diverged"] == at
    # Going on: South plays the best card by its view, and the answers go on from there.
    on = answered(client, match_id, "S", [*board["line"], "+".join(board["best"]["expected"])])
    assert on["line"][:len(board["line"])] == board["line"] and on["diverged"] == at


def test_the_same_line_gets_the_same_board_in_another_process(client: TestClient, tmp_path: Path) -> None:
    """A shared link shows the same board after a restart: nothing depends on the process (its
    hash seed, what it computed before)."""
    match_id, record = finished(client, seed=11)
    rec = parse_record(record)
    at = south_turn(rec, from_trick=3, choices=2)
    deal = played_to(rec, [p for _, p in actual(rec)[:at]])
    other = next(code(p) for p in deal.legal_plays() if code(p) != actual(rec)[at][1])
    line = [*(p for _, p in actual(rec)[:at]), other]
    board = answered(client, match_id, "S", line)
    assert board["diverged"] == at and any(a["by"] == "expert" for a in board["answers"])
    (tmp_path / "record.json").write_text(json.dumps(record), encoding="utf-8")
    script = ("import json, sys; from gongzhu.review.whatif import what_if; from gongzhu.rules.cards import Seat; "
              "record = json.load(open(sys.argv[1])); print(json.dumps(what_if(record, Seat.S, sys.argv[2:])))")
    elsewhere = subprocess.run([sys.executable, "-c", script, str(tmp_path / "record.json"), *line], check=True,
                               capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "12345"})
    assert json.loads(elsewhere.stdout) == board


def test_two_decks_have_exact_values_late_and_expected_ones(client: TestClient) -> None:
    match_id, record = finished(client, seed=4, preset="online2")
    assert record["options"]["decks"] == 2
    board = answered(client, match_id, "S", [])
    # The first lead: far more cards than the two-deck solver fits, not tried.
    assert board["exact"]["solved"] is False and board["exact"]["why"] == "limit"
    assert board["exact"]["limit"] == DEFAULT_WHATIF_BUDGET.exact_limit_two_decks
    assert board["values"] and all(v["exact"] is None and v["expected"] is not None for v in board["values"])
    assert all(len(v["cards"]) in (1, 2) for v in board["values"])
    # A line into the deal, pairs written "5H+5H", plays as recorded.
    rec = parse_record(record)
    line = [p for _, p in actual(rec)[:9]]
    assert answered(client, match_id, "S", line)["line"][:9] == line
    # Late in the deal (four cards a hand or fewer): each legal play with the two-deck open-card
    # solver's value on the true hands (R4.5, R5.3, R6.2).
    deal = first_lead(rec)
    line = []
    for seat, play in actual(rec):
        if seat == Seat.S and max(len(deal.hand(s)) for s in Seat) <= 4 and len(deal.legal_plays()) > 1:
            break
        deal.play(play.split("+"), seat)
        line.append(play)
    else:
        pytest.fail("South never chose among plays with four cards a hand or fewer")
    board = answered(client, match_id, "S", line)
    exact = OpenSolver2(rec.options, Seat.S).values(fast2.encode(deal))
    assert exact is not None
    assert board["exact"]["solved"] and board["exact"]["why"] is None
    assert {"+".join(v["cards"]): v["exact"] for v in board["values"]} == \
        {code(p): round(x, 1) for p, x in exact.items()}


def test_bad_requests_are_refused_with_their_message_and_change_nothing(client: TestClient) -> None:
    match_id, record = finished(client)
    in_progress = new_match(client, seed=2)  # its first deal is being played
    rec = parse_record(record)
    plays = [p for _, p in actual(rec)]
    whatifs = whatifs_of(client)
    stranger = local_client(client.app)  # type: ignore[arg-type]  # no session yet

    def bad(body: Any, status: int, code_: str, k: int | str = 0, match: str = match_id,
            who: TestClient = client) -> dict[str, Any]:
        return refused(post(who, match, body, k), status, code_)

    # The body.
    bodies: list[Any] = [{}, [], "S", None, {"seat": "S"}, {"line": []}, {"seat": "S", "line": [], "budget": 1},
                         {"seat": "S", "line": "2C"}, {"seat": "S", "line": {"0": "2C"}}]
    for value in bodies:
        bad(value, 400, "whatif.bad_body")
    headers = {"origin": LOCAL}
    refused(client.post(url(match_id), content=b"{seat: S}", headers={**headers, "content-type": "application/json"}),
            400, "whatif.bad_body")
    refused(client.post(url(match_id), content=b"", headers=headers), 400, "whatif.bad_body")
    refused(client.post(url(match_id), content=b'{"seat": "S", "line": []}',
                        headers={**headers, "content-type": "text/plain"}), 415, "whatif.body_type")
    big = json.dumps({"seat": "S", "line": ["2C"] * 2000}).encode()
    refused(client.post(url(match_id), content=big, headers={**headers, "content-type": "application/json"}),
            413, "whatif.body_too_large")
    # The seat.
    for seat in ("X", "s", "South", "", 2, None, ["S"]):
        body = bad({"seat": seat, "line": []}, 400, "whatif.bad_seat")
        assert body["params"] == {"seat": json.dumps(seat)}
    # The line: its form, then each play where it stands.
    body = bad({"seat": "S", "line": ["2C"] * (MAX_LINE + 1)}, 400, "whatif.bad_line")
    assert body["params"] == {"most": MAX_LINE}
    for item in ("ZZ", "", 5, None, ["2C"], "2c", "♣2", "10C", "2C+", "+2C", "2C+3C+4C", " 2C", "2C,3C"):
        body = bad({"seat": "S", "line": [*plays[:3], item]}, 400, "whatif.bad_play")
        assert body["params"] == {"index": 4, "play": json.dumps(item, ensure_ascii=False)}
    deal = first_lead(rec)
    for i, play in enumerate(plays[:6]):
        wrong = next(c.code for c in ALL_CARDS if c.code not in {code(p) for p in deal.legal_plays()})
        body = bad({"seat": "S", "line": [*plays[:i], wrong]}, 400, "whatif.illegal")
        assert deal.turn is not None
        assert body["params"] == {"index": i + 1, "play": wrong, "seat": deal.turn.name}
        assert body["reason"]["code"].startswith("refusal.")  # the rules' own refusal, a catalog message
        deal.play(play.split("+"), deal.turn)
    body = bad({"seat": "S", "line": [*plays, "2C"]}, 400, "whatif.after_end")
    assert body["params"] == {"index": len(plays) + 1, "play": "2C"}
    # The match and the deal, refused as the deal's record is.
    for missing in ("m-000000000000", "no such match!"):
        bad({"seat": "S", "line": []}, 404, "whatif.unknown_match", match=missing)
    for k in ("x", "-1", "0x1", "1234567", "٣", 7):
        bad({"seat": "S", "line": []}, 404, "whatif.no_deal", k=k)
        assert client.get(f"/api/matches/{match_id}/deals/{k}").status_code == 404
    # A deal not finished: the first deal of the other match, the next deal of this one.
    body = bad({"seat": "S", "line": []}, 409, "whatif.not_finished", match=in_progress, who=stranger)
    assert body["params"] == {"match": json.dumps(in_progress), "deal": 0, "number": 1}
    assert not CARD_CODE.search(json.dumps(body))
    bad({"seat": "E", "line": []}, 409, "whatif.not_finished", k=1)
    assert client.get(f"/api/matches/{in_progress}/deals/0").status_code == 404
    # A table for people waiting for its people: nothing dealt.
    table = client.post("/api/tables", json={}).json()["table_id"]
    bad({"seat": "S", "line": []}, 404, "whatif.no_deal", match=table)
    # A refusal found only once the line is played on the deal makes nobody a person either.
    bad({"seat": "S", "line": [*plays[:1], plays[0]]}, 400, "whatif.illegal", who=stranger)
    # Another site's page may not ask.
    assert post(stranger, match_id, {"seat": "S", "line": []}, origin="https://evil.example").status_code == 403
    # Nothing changed: nobody was made a person by a refusal, nothing is being worked out, the
    # record is as it was; the server goes on answering.
    assert not stranger.cookies and whatifs.asked == 0
    assert client.get(f"/api/matches/{match_id}/deals/0").json() == record
    assert answered(stranger, match_id, "S", plays[:4])["line"][:4] == plays[:4]
    assert stranger.cookies  # a POST answered makes its caller a person, as every other does


def test_one_what_if_at_a_time_for_each_person(client: TestClient) -> None:
    match_id, _ = finished(client)
    whatifs = whatifs_of(client)
    me = user_of(client).id
    with whatifs.hold(me):
        response = post(client, match_id, {"seat": "S", "line": []})
        refused(response, 429, "whatif.running")
        assert response.headers["retry-after"] == "1"
        # Another person is not held up by it.
        other = local_client(client.app)  # type: ignore[arg-type]
        answered(other, match_id, "S", [])
        assert whatifs.asked == 1
    assert whatifs.asked == 0
    answered(client, match_id, "S", [])


def test_a_full_line_of_what_ifs_refuses_more() -> None:
    whatifs = WhatIfs(at_once=1, waiting=1)
    with whatifs.hold("a"), whatifs.hold("b"):
        with pytest.raises(WhatIfRefused) as busy, whatifs.hold("c"):
            pass
        assert busy.value.status == 503 and busy.value.text.key == "whatif.busy"
        with pytest.raises(WhatIfRefused) as again, whatifs.hold("a"):
            pass
        assert again.value.status == 429 and again.value.text.key == "whatif.running"
        assert whatifs.asked == 2
    assert whatifs.asked == 0
    with pytest.raises(ValueError):
        WhatIfs(at_once=0)


@pytest.fixture
def challenge_client(db_url: str, tmp_path: Path) -> Iterator[TestClient]:
    """The application with quick computer players at its challenges and no par replays."""
    app = create_app(db_url, pace=0, hint_think=0.05, static_dir=tmp_path / "no-static", par_replays=0,
                     challenge_level="random", review_workers=0, now=SetClock(1_796_085_000.0))
    with local_client(app) as c:
        yield c


def test_a_challenge_board_is_played_on_only_by_whom_it_is_open_to(challenge_client: TestClient) -> None:
    challenge_id = challenge_client.get("/api/challenges").json()["today"]["id"]
    a, b = person(challenge_client, "Anna"), person(challenge_client, "Bo")
    match_a = enter(a, challenge_id)
    enter(b, challenge_id)
    play_board(a, match_a, 1)
    # Bo has not finished board 1: Anna's record of it is hidden from him, and so is its what-if.
    assert b.get(f"/api/matches/{match_a}/deals/0").status_code == 403
    hidden = post(b, match_a, {"seat": "S", "line": []})
    refused(hidden, 403, "server.challenge_board_hidden")
    assert not CARD_CODE.search(hidden.text)
    # Anna may.
    assert answered(a, match_a, "S", [])["position"]["hands"]["S"]
