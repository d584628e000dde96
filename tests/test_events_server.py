"""Team matches run by the server for people (docs/tournaments.md, Team matches on the server),
on a live server: an organiser makes a match of two teams of four, starts its session, six people
play at the two tables while a computer (托管) sits in for the two who never came once the grace
has passed (the events' clock, moved by the test), and the results are checked against a tally of
the records made here.  Nobody sees a hand that is not theirs, nobody else enters an event's
table, the other table's result shows only once both tables have played a board, and the
referee's penalty and correction move the total and are logged.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gongzhu.messages import render
from gongzhu.rules.boards import verify_board_set
from gongzhu.rules.cards import Seat
from helpers.client import random_move
from helpers.clock import SetClock
from helpers.database import STORES
from helpers.live import Live, Someone, account, befriend
from helpers.servers import LiveServer
from test_tables import CARD, cards_in

#: Keys of a state that hold no card of the deal (option values, names).
Message = dict[str, Any]


@pytest.fixture
def clock() -> SetClock:
    return SetClock(1_796_085_000.0)


@pytest.fixture
def server(db_url: str, tmp_path: Path, clock: SetClock) -> Iterator[LiveServer]:
    with LiveServer(db_url, static_dir=tmp_path / "no-static", now=clock) as s:
        yield s


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    """A catalog refusal: its status, code, and text in both languages."""
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["code"] == code, body
    assert body["error"] == render(code, "en", body["params"])
    assert body["message_zh"] == render(code, "zh", body["params"])
    return body


def assert_own_hand_only(messages: list[Message], seat: str, records: dict[int, Message]) -> int:
    """Every state ``seat``'s person received holds, of the deal being played, only their own
    hand and the cards played or shown so far; returns how many states were checked."""
    checked = 0
    for m in messages:
        if m["type"] != "state" or m["state"]["phase"] == "waiting":
            continue
        state = m["state"]
        record = records[state["deal_index"]]
        if state["phase"] in ("deal-over", "match-over"):
            continue  # the board is finished at this table: every card is public to its players
        plays = [c for t in record["tricks"] for p in t["plays"] for c in [p["cards"]]]
        done = state["tricks_played"] * 4 + len(state["trick"]["plays"])
        allowed = {c for cards in plays[:done] for c in cards} | set(record["hands"][seat])
        if state["phase"] != "expose":
            allowed |= {e["card"] for e in record["exposures"] if e["kind"] != "hidden" or e["seat"] == seat}
        shown = cards_in(state)
        assert shown <= allowed, (seat, sorted(shown - allowed))
        assert state["seat"] == seat and set(state["hand"]) <= set(record["hands"][seat])
        checked += 1
    return checked


def drive(lives: dict[str, Live], rng: random.Random, until: Any, *, timeout: float = 120) -> None:
    """Each seated connection acts whenever its table waits for it (the first one also deals the
    next board), until ``until(states)``."""
    import time

    acted: dict[str, int] = {}
    dealer = next(iter(lives))
    end = time.monotonic() + timeout
    while True:
        for live in lives.values():
            live.drain(0.005)
        if until({s: live.state for s, live in lives.items()}):
            return
        assert time.monotonic() < end, {s: (x.state.get("phase"), x.state.get("turn")) for s, x in lives.items()}
        for seat, live in lives.items():
            state = live.state
            if not state or acted.get(seat, -1) >= state["v"]:
                continue
            move = random_move(state, seat, rng)
            if move is not None:
                live.send(move)
            elif state["phase"] == "deal-over" and seat == dealer:
                live.send({"type": "next"})
            else:
                continue
            acted[seat] = state["v"]


def finished(n: int) -> Any:
    """``until``: the table has finished ``n`` boards."""
    def done(states: dict[str, Message]) -> bool:
        s = next(iter(states.values()))
        return bool(s) and s["phase"] in ("deal-over", "match-over") and s["deal_index"] == n - 1
    return done


def ns_result(raw: dict[str, int]) -> float:
    """R7.3, by hand: each N–S member's (N–S raw total − E–W raw total) / 2."""
    return ((raw["N"] + raw["S"]) - (raw["E"] + raw["W"])) / 2


def tally(records: list[Message], team: str) -> dict[int, float]:
    """``team``'s result on each board: its N–S pair's result less the other team's N–S pair's."""
    out: dict[int, float] = {}
    for r in records:
        sign = 1 if r["seating"]["entrants"]["N"] == team else -1
        out[r["board"]["number"]] = out.get(r["board"]["number"], 0.0) + sign * ns_result(r["raw"])
    return out


def board_row(event: Message, board: int) -> Message:
    row: Message = next(b for b in event["board_results"] if b["board"] == board)
    return row


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_team_match_played_by_six_people_and_two_stand_ins(server: LiveServer, clock: SetClock) -> None:
    rng = random.Random(7)
    referee = account(server, "Referee")
    red = [account(server, f"Red{i}") for i in range(1, 5)]
    blue = [account(server, f"Blue{i}") for i in range(1, 5)]
    stranger, guest = account(server, "Stranger"), Someone(server)
    teams = [{"name": "红", "players": [p.name for p in red]}, {"name": "蓝", "players": [p.name for p in blue]}]
    body: dict[str, Any] = {"name": "Club night 1", "form": "teams", "preset": "partners", "boards": 2,
                            "sessions": 1, "turn_seconds": 120, "grace_seconds": 60, "entrants": teams}

    # bad input: a precise refusal, and nothing made
    refused(guest.http.post("/api/events", json=body), 403, "event.accounts_only")
    # an organiser lists friends only: nobody is put at an event's tables by a stranger
    assert refused(referee.http.post("/api/events", json=body), 403, "event.player_not_friend")["params"] == {
        "name": "Red1"}
    befriend(referee, *red, *blue[:3])
    assert refused(referee.http.post("/api/events", json=body), 403, "event.player_not_friend")["params"] == {
        "name": "Blue4"}
    befriend(referee, blue[3])
    for change, status, code in (
            ({"boards": 17}, 400, "event.bad_boards"), ({"boards": True}, 400, "event.bad_boards"),
            ({"sessions": 0}, 400, "event.bad_sessions"), ({"preset": "online"}, 400, "event.bad_preset"),
            ({"turn_seconds": 2}, 400, "event.bad_timer"), ({"name": " "}, 400, "event.bad_name"),
            ({"colour": "red"}, 400, "event.bad_field"), ({"entrants": teams[:1]}, 400, "event.bad_entrants_for"),
            ({"form": "swiss"}, 400, "event.bad_form"), ({"rounds": 2}, 400, "event.bad_rounds"),
            ({"starts_at": "tomorrow"}, 400, "event.bad_start"),
            ({"starts_at": "2020-01-01T10:00:00+00:00"}, 400, "event.bad_start"),
            ({"entrants": [teams[0], {"players": [p.name for p in blue]}]}, 400, "event.bad_entrant_name"),
            ({"entrants": [teams[0], {"name": "红", "players": [p.name for p in blue]}]}, 400,
             "event.same_entrant_names"),
            ({"name": "Club\u200b night"}, 400, "event.bad_name"),  # what looks like another name
            ({"name": "Club night\u202e"}, 400, "event.bad_name"),
            ({"name": "Club\nnight"}, 400, "event.bad_name"),
            ({"name": "Club n\u0336\u0334\u0335\u0337ight"}, 400, "event.bad_name"),  # marks drawn over its neighbours
            ({"entrants": [teams[0], {"name": "蓝\u200b", "players": [p.name for p in blue]}]}, 400,
             "event.bad_entrant_name"),
            ({"entrants": [{**teams[0], "name": "Red"}, {"name": "RED", "players": [p.name for p in blue]}]}, 400,
             "event.same_entrant_names"),
            ({"entrants": [{**teams[0], "name": "Red"}, {"name": "Ｒｅｄ", "players": [p.name for p in blue]}]}, 400,
             "event.same_entrant_names"),
            ({"entrants": [teams[0], {"name": "蓝", "players": ["Blue1", "Blue2", "Blue3", "Nobody"]}]}, 404,
             "event.unknown_player"),
            ({"entrants": [teams[0], {"name": "蓝", "players": ["Blue1", "Blue2", "Blue3", guest.name]}]}, 409,
             "event.guest_player"),
            ({"entrants": [teams[0], {"name": "蓝", "players": ["Blue1", "Blue2", "Blue3", "red1"]}]}, 400,
             "event.player_twice")):
        refused(referee.http.post("/api/events", json={**body, **change}), status, code)
    refused(referee.http.get("/api/events/e-000000000000"), 404, "event.unknown")

    made = referee.http.post("/api/events", json={**body, "name": "俱乐部：周五  夜"})
    assert made.status_code == 201, made.text
    assert referee.http.get(made.json()["url"].replace("/event/", "/api/events/")).json()["name"] == "俱乐部：周五 夜"
    made = referee.http.post("/api/events", json=body)
    assert made.status_code == 201, made.text
    event_id = made.json()["id"]
    assert made.json()["url"] == f"/event/{event_id}"
    event = referee.http.get(f"/api/events/{event_id}").json()
    assert event["status"] == "waiting" and event["provisional"] and event["seed"] is None
    assert event["entrants"] == [{"name": "红", "players": [p.name for p in red], "withdrawn": False},
                                 {"name": "蓝", "players": [p.name for p in blue], "withdrawn": False}]
    assert len(event["commitment"]) == 64 and event["definition"]["count"] == 2
    assert not CARD.search(json.dumps(event["board_results"]))

    refused(stranger.http.post(f"/api/events/{event_id}/start"), 403, "event.organiser_only")
    refused(referee.http.post(f"/api/events/{event_id}/publish"), 409, "event.not_over")
    started = referee.http.post(f"/api/events/{event_id}/start")
    assert started.status_code == 200, started.text
    refused(referee.http.post(f"/api/events/{event_id}/start"), 409, "event.no_stage_left")
    tables = started.json()["tables"]
    # team A (红) N–S at table 1 and E–W at table 2, team B (蓝) the other way round
    assert [(t["table"], t["ns"], t["ew"]) for t in tables] == [(1, "红", "蓝"), (2, "蓝", "红")]
    assert tables[0]["seats"] == {"N": "Red1", "E": "Blue1", "S": "Red2", "W": "Blue2"}
    assert tables[1]["seats"] == {"N": "Blue3", "E": "Red3", "S": "Blue4", "W": "Red4"}
    assert all(t["url"] is None for t in tables)  # the organiser sits at neither

    def table_of(person: Someone) -> str:
        me = person.http.get(f"/api/events/{event_id}").json()["me"]
        url: str = me["table"]
        return url.removeprefix("/table/")

    one, two = table_of(red[0]), table_of(blue[2])
    assert table_of(blue[0]) == one and table_of(red[2]) == two
    # Blue2 (table 1, W) and Red4 (table 2, W) never come
    at_one = {"N": red[0].connect(one), "E": blue[0].connect(one), "S": red[1].connect(one)}
    at_two = {"N": blue[2].connect(two), "E": red[2].connect(two), "S": blue[3].connect(two)}

    # nobody else comes to an event's table: neither the organiser, nor a stranger, nor the other table
    for person, match in ((referee, one), (stranger, two), (red[2], one), (guest, one)):
        live = person.connect(match)
        reply = live.receive()
        assert reply["type"] == "error" and reply["code"] == "event.table_closed"
        live.close()
    for path in (f"/api/matches/{one}/deals/0", f"/api/matches/{one}/records.jsonl"):
        answer = blue[2].http.get(path)
        assert answer.status_code == 403 and answer.json()["code"] == "event.board_hidden", answer.text

    # within the grace nobody stands in; after it, a computer plays for the absent
    clock.t += 59
    assert referee.http.get(f"/api/events/{event_id}").json()["log"][-1]["action"] == "start"
    clock.t += 2
    event = referee.http.get(f"/api/events/{event_id}").json()
    stand_ins = [e["details"] for e in event["log"] if e["action"] == "stand_in"]
    assert sorted((d["table"], d["seat"], d["player"]) for d in stand_ins) == [(1, "W", "Blue2"), (2, "W", "Red4")]
    assert [t["stand_ins"] for t in event["tables"]] == [["W"], ["W"]]

    # table 1 plays board 1; table 2 has not: its players and everyone else see none of it
    drive(at_one, rng, finished(1))
    # the board is table 1's own to replay and review (its four hands are theirs to see now),
    # and nobody else's through the match's routes
    own = red[0].http.get(f"/api/matches/{one}/deals/0")
    assert own.status_code == 200 and own.json()["match"] == one
    assert red[0].http.get(f"/api/matches/{one}/records.jsonl").text.count("\n") == 1
    for person in (blue[2], referee, stranger):
        refused(person.http.get(f"/api/matches/{one}/deals/0"), 403, "event.board_hidden")
        refused(person.http.post(f"/api/matches/{one}/deals/0/review", json={"seat": "N"}), 403, "event.board_hidden")
    mine = red[0].http.get(f"/api/events/{event_id}").json()
    row = board_row(mine, 1)
    assert row["tables"][0]["played"] and row["tables"][0]["raw"] is not None and not row["complete"]
    assert row["tables"][1]["raw"] is None and row["teams"] is None and not row["tables"][1]["played"]
    for person in (blue[2], referee, stranger):
        row = board_row(person.http.get(f"/api/events/{event_id}").json(), 1)
        assert row["tables"][0]["raw"] is None and row["teams"] is None
    # nor from table 1's players' public counters, which an event's boards do not move
    for player in (red[0], blue[0], red[1], blue[1]):
        shown = blue[2].http.get(f"/api/users/{player.name}").json()
        assert (shown["lifetime"], shown["deals"], shown["matches"], shown["pigs"]) == (0, 0, 0, 0)
    assert referee.http.get(f"/api/events/{event_id}/records.jsonl").text == ""
    refused(referee.http.post(f"/api/events/{event_id}/adjustments",
                              json={"type": "correction", "table": 1, "board": 1,
                                    "raw": {"N": 0, "E": 0, "S": 0, "W": 0}, "reason": "early"}),
            409, "event.board_not_finished")

    # table 2 plays board 1: both results and the team result show, to everyone
    drive(at_two, rng, finished(1))
    for person in (blue[2], referee, stranger):
        row = board_row(person.http.get(f"/api/events/{event_id}").json(), 1)
        assert row["complete"] and all(t["raw"] is not None for t in row["tables"]) and row["teams"] is not None

    drive(at_one, rng, finished(2))
    drive(at_two, rng, finished(2))
    event = stranger.http.get(f"/api/events/{event_id}").json()
    assert event["status"] == "over" and event["provisional"]
    made_boards = verify_board_set(event["seed"], event["definition"], event["commitment"])
    lines = stranger.http.get(f"/api/events/{event_id}/records.jsonl").text.splitlines()
    records = [json.loads(line) for line in lines]
    assert [(r["board"]["number"], r["seating"]["table"]) for r in records] == [(1, 1), (1, 2), (2, 1), (2, 2)]
    for r in records:
        board = made_boards.board(r["board"]["number"])
        assert {s: sorted(h) for s, h in r["hands"].items()} == {
            s.name: sorted(c.code for c in board.hands[s]) for s in Seat}
        absent = "Blue2" if r["seating"]["table"] == 1 else "Red4"
        assert r["players"]["W"] == {"name": absent, "computer": None, "auto": True}  # 托管 played for them
        assert not r["players"]["N"]["auto"]

    # the results against a tally of the records made here
    by_hand = tally(records, "红")
    for n in (1, 2):
        points = board_row(event, n)["teams"][0]["points"]
        assert points["红"] == by_hand[n] and points["蓝"] == -by_hand[n]
    total = sum(by_hand.values())
    assert {r["entrant"]: r["points"] for r in event["rankings"][0]["rows"]} == {"红": total, "蓝": -total}
    assert event["matches"][0]["winner"] == (None if total == 0 else ("红" if total > 0 else "蓝"))

    # every message each person got held only their own hand of each board
    by_match = {(r["match"], r["deal_index"]): r for r in records}
    for match, lives in ((one, at_one), (two, at_two)):
        for seat, live in lives.items():
            live.drain(0.05)
            deals = {k: by_match[(match, k)] for k in (0, 1)}
            assert assert_own_hand_only(live.messages, seat, deals) > 10

    # the referee's desk: a penalty and a correction move the total and are logged
    desk = f"/api/events/{event_id}/adjustments"
    refused(stranger.http.post(desk, json={"type": "penalty", "entrant": "红", "points": -10, "reason": "x"}),
            403, "event.organiser_only")
    for bad, code in (({"type": "penalty", "entrant": "红", "points": 10, "reason": "x"}, "event.bad_penalty"),
                      ({"type": "penalty", "entrant": "绿", "points": -10, "reason": "x"}, "event.unknown_entrant"),
                      ({"type": "penalty", "entrant": "红", "points": -10}, "event.bad_reason"),
                      ({"type": "penalty", "entrant": "红", "points": -10, "round": 2, "reason": "x"},
                       "event.bad_round"),
                      ({"type": "bonus", "reason": "x"}, "event.bad_adjustment"),
                      ({"type": "correction", "table": 3, "board": 1, "raw": {}, "reason": "x"}, "event.bad_table"),
                      ({"type": "correction", "table": 1, "board": 9, "raw": {}, "reason": "x"}, "event.bad_board"),
                      ({"type": "correction", "table": 1, "board": 1, "raw": {"N": 1}, "reason": "x"},
                       "event.bad_correction")):
        refused(referee.http.post(desk, json=bad), 400, code)
    assert len(referee.http.get(f"/api/events/{event_id}").json()["log"]) == len(event["log"])  # nothing kept
    after = referee.http.post(desk, json={"type": "penalty", "entrant": "红", "points": -200, "reason": "slow play"})
    assert after.status_code == 200, after.text
    totals = {r["entrant"]: r["points"] for r in after.json()["rankings"][0]["rows"]}
    assert totals == {"红": total - 200, "蓝": -total}
    entry = after.json()["log"][-1]
    assert (entry["by"], entry["action"], entry["reason"]) == ("Referee", "penalty", "slow play")
    assert entry["details"] == {"entrant": "红", "points": -200, "round": 1}
    raw = {"N": -100, "E": 0, "S": 0, "W": 100}  # table 1, board 1: 红 N–S −100
    corrected = referee.http.post(desk, json={"type": "correction", "table": 1, "board": 1, "raw": raw,
                                              "reason": "pig at the wrong seat"}).json()
    t2 = next(r for r in records if r["board"]["number"] == 1 and r["seating"]["table"] == 2)
    fixed = {**by_hand, 1: -100 - ns_result(t2["raw"])}
    assert board_row(corrected, 1)["teams"][0]["points"]["红"] == fixed[1]
    assert {r["entrant"]: r["points"] for r in corrected["rankings"][0]["rows"]} == {
        "红": sum(fixed.values()) - 200, "蓝": -sum(fixed.values())}
    assert [a["type"] for a in corrected["adjustments"]] == ["penalty", "correction"]
    assert corrected["adjustments"][1]["reason"] == "pig at the wrong seat"

    published = referee.http.post(f"/api/events/{event_id}/publish")
    assert published.status_code == 200 and published.json()["published"] and not published.json()["provisional"]
    refused(referee.http.post(desk, json={"type": "penalty", "entrant": "蓝", "points": -1, "reason": "late"}),
            409, "event.published")
    for live in (*at_one.values(), *at_two.values()):
        live.close()


def red_and_blue(server: LiveServer, name: str, **options: Any) -> tuple[Someone, list[Someone], list[Someone], str]:
    """A listed team match of one board a session, 红 against 蓝, made by the referee Desk (their
    friend): the referee, 红's and 蓝's players, and the event's id."""
    referee = account(server, "Desk")
    red = [account(server, f"Rose{i}") for i in range(1, 5)]
    blue = [account(server, f"Sky{i}") for i in range(1, 5)]
    befriend(referee, *red, *blue)
    teams = [{"name": "红", "players": [p.name for p in red]}, {"name": "蓝", "players": [p.name for p in blue]}]
    made = referee.http.post("/api/events", json={"name": name, "form": "teams", "preset": "partners", "boards": 1,
                                                  "turn_seconds": 120, "grace_seconds": 300, "entrants": teams,
                                                  **options})
    assert made.status_code == 201, made.text
    return referee, red, blue, made.json()["id"]


def test_the_desk_withdraws_a_team_mid_match_and_a_computer_plays_its_seats_at_once(server: LiveServer) -> None:
    """A team match of two sessions: everyone plays the first; then the referee withdraws 红.
    In the second session nobody waits for 红's players: a computer plays their four seats at
    once, well within the grace, and the log says why; 蓝 plays its board out and the results
    count both teams as ever."""
    rng = random.Random(5)
    referee, red, blue, event_id = red_and_blue(server, "Early train", sessions=2)
    withdraw = f"/api/events/{event_id}/withdraw"
    assert referee.http.post(f"/api/events/{event_id}/start").status_code == 200

    def tables_of(stage: int) -> dict[str, dict[str, Live]]:
        """Each table of the stage: its people who come (蓝's alone once 红 is withdrawn)."""
        out: dict[str, dict[str, Live]] = {}
        for person in (*red, *blue):
            me = person.http.get(f"/api/events/{event_id}").json()["me"]["now"]
            assert me["stage"] == stage
            if stage > 1 and person in red:
                continue
            out.setdefault(me["url"].removeprefix("/table/"), {})[me["seat"]] = person.connect(
                me["url"].removeprefix("/table/"))
        return out

    first = tables_of(1)
    for lives in first.values():
        drive(lives, rng, finished(1))
    # the desk alone withdraws, an entrant it names, once
    refused(red[0].http.post(withdraw, json={"entrant": "红"}), 403, "event.organiser_only")
    refused(referee.http.post(withdraw, json={"entrant": "绿"}), 400, "event.unknown_entrant")
    summary = referee.http.post(withdraw, json={"entrant": "红"})
    assert summary.status_code == 200, summary.text
    assert [(e["name"], e["withdrawn"]) for e in summary.json()["entrants"]] == [("红", True), ("蓝", False)]
    entry = summary.json()["log"][-1]
    assert (entry["action"], entry["by"], entry["details"]) == (
        "withdraw", "Desk", {"entrant": "红", "stage": 1, "round": 1, "session": 1})
    refused(referee.http.post(withdraw, json={"entrant": "红"}), 409, "event.withdrawn_already")

    assert referee.http.post(f"/api/events/{event_id}/start").status_code == 200
    second = tables_of(2)
    for lives in second.values():  # the clock stands still: 红's seats are not waited for
        drive(lives, rng, finished(2))  # (board 2, the second session's)
    event = referee.http.get(f"/api/events/{event_id}").json()
    standing_in = sorted((d["table"], d["seat"], d["player"]) for d in
                         (e["details"] for e in event["log"] if e["action"] == "stand_in") if d.get("withdrawn"))
    assert sorted(p for _, _, p in standing_in) == sorted(p.name for p in red)
    assert all(d.get("stage") == 2 for d in (e["details"] for e in event["log"] if e["action"] == "stand_in"))
    records = [json.loads(line) for line in referee.http.get(f"/api/events/{event_id}/records.jsonl").text.splitlines()]
    later = [r for r in records if r["seating"]["session"] == 2]
    assert len(later) == 2
    for r in later:
        for seat, player in r["players"].items():
            assert player["auto"] == (r["seating"]["entrants"][seat] == "红"), (seat, player)
    assert event["status"] == "over" and {row["entrant"] for row in event["rankings"][0]["rows"]} == {"红", "蓝"}
    refused(referee.http.post(withdraw, json={"entrant": "蓝"}), 409, "event.withdraw_over")
    for lives in (*first.values(), *second.values()):
        for live in lives.values():
            live.close()


def test_a_listed_player_withdraws_before_the_start_and_a_computer_plays_the_seats(server: LiveServer) -> None:
    """Nobody is listed in an event they cannot leave: before a listed team match begins, Rose1
    withdraws 红 (once; a player of no entrant, or one naming another's, is refused).  红 stays in
    the match, made with it: when it begins nobody waits for 红's players, a computer plays their
    seats at once, and the results count both teams."""
    rng = random.Random(6)
    stranger = account(server, "Nobody")
    referee, red, blue, event_id = red_and_blue(server, "Late train")
    withdraw = f"/api/events/{event_id}/withdraw"
    refused(stranger.http.post(withdraw, json={}), 409, "event.not_entered")
    refused(blue[0].http.post(withdraw, json={"entrant": "红"}), 403, "event.organiser_only")
    summary = red[0].http.post(withdraw, json={})
    assert summary.status_code == 200, summary.text
    assert [(e["name"], e["withdrawn"]) for e in summary.json()["entrants"]] == [("红", True), ("蓝", False)]
    entry = summary.json()["log"][-1]
    assert (entry["action"], entry["by"], entry["details"]) == ("withdraw", "Rose1", {"entrant": "红", "listed": True})
    refused(red[1].http.post(withdraw, json={}), 409, "event.withdrawn_already")
    refused(referee.http.post(withdraw, json={"entrant": "红"}), 409, "event.withdrawn_already")

    assert referee.http.post(f"/api/events/{event_id}/start").status_code == 200
    tables: dict[str, dict[str, Live]] = {}
    for person in blue:
        me = person.http.get(f"/api/events/{event_id}").json()["me"]["now"]
        table = me["url"].removeprefix("/table/")
        tables.setdefault(table, {})[me["seat"]] = person.connect(table)
    for lives in tables.values():  # the clock stands still: 红's seats are not waited for
        drive(lives, rng, finished(1))
    event = referee.http.get(f"/api/events/{event_id}").json()
    standing_in = [d for d in (e["details"] for e in event["log"] if e["action"] == "stand_in") if d.get("withdrawn")]
    assert sorted(d["player"] for d in standing_in) == sorted(p.name for p in red)
    assert event["status"] == "over" and {row["entrant"] for row in event["rankings"][0]["rows"]} == {"红", "蓝"}
    for lives in tables.values():
        for live in lives.values():
            live.close()


def test_a_player_who_leaves_a_board_to_the_computer_is_noted_at_the_desk(server: LiveServer) -> None:
    """Everyone comes; at table 2 Red3 (E) hands their seat to the computer (托管) and leaves; at
    table 1 Sky1 (E) stands up, and may sit in no other seat.  When the board ends, the referee's
    log notes each stand-in once, with the board, as the board's records say a computer finished
    it for them; nobody else is noted."""
    rng = random.Random(11)
    referee = account(server, "Desk")
    red = [account(server, f"Rose{i}") for i in range(1, 5)]
    blue = [account(server, f"Sky{i}") for i in range(1, 5)]
    befriend(referee, *red, *blue)
    teams = [{"name": "红", "players": [p.name for p in red]}, {"name": "蓝", "players": [p.name for p in blue]}]
    made = referee.http.post("/api/events", json={"name": "Left early", "form": "teams", "preset": "partners",
                                                  "boards": 1, "sessions": 1, "turn_seconds": 120,
                                                  "grace_seconds": 60, "entrants": teams})
    assert made.status_code == 201, made.text
    event_id = made.json()["id"]
    assert referee.http.post(f"/api/events/{event_id}/start").status_code == 200

    def table_of(person: Someone) -> str:
        url: str = person.http.get(f"/api/events/{event_id}").json()["me"]["table"]
        return url.removeprefix("/table/")

    one, two = table_of(red[0]), table_of(blue[2])
    at_one = {"N": red[0].connect(one), "E": blue[0].connect(one), "S": red[1].connect(one), "W": blue[1].connect(one)}
    at_two = {"N": blue[2].connect(two), "E": red[2].connect(two), "S": blue[3].connect(two), "W": red[3].connect(two)}
    leaver = at_two.pop("E")
    leaver.until(lambda s: s["phase"] != "waiting")
    leaver.send({"type": "auto"})
    leaver.until(lambda s: s["table"]["seats"]["E"]["auto"])
    leaver.close()
    # At table 1, Sky1 (E, 蓝) may not take Rose1's seat (N, 红) — nor any but their own — and
    # standing up leaves their seat to the computer, noted at the desk as 托管 is.
    at_one["E"].until(lambda s: s["phase"] != "waiting")
    at_one["E"].send({"type": "stand"})
    at_one["N"].until(lambda s: s["table"]["seats"]["E"]["name"] is None)
    for seat in ("N", "W"):
        at_one["E"].send({"type": "sit", "seat": seat})
        refusal = at_one["E"].receive()
        while refusal["type"] != "error":  # (the computer may play the seat meanwhile)
            refusal = at_one["E"].receive()
        assert refusal["code"] == "event.not_your_seat" and refusal["params"] == {"seat": seat, "yours": "E"}
    at_one.pop("E").close()
    drive(at_one, rng, finished(1))
    drive(at_two, rng, finished(1))
    event = referee.http.get(f"/api/events/{event_id}").json()
    stand_ins = [e["details"] for e in event["log"] if e["action"] == "stand_in"]
    assert sorted((d["table"], d["seat"], d["player"], d["board"]) for d in stand_ins) == [
        (1, "E", "Sky1", 1), (2, "E", "Rose3", 1)]
    assert [t["stand_ins"] for t in event["tables"]] == [["E"], ["E"]]
    records = [json.loads(line) for line in referee.http.get(f"/api/events/{event_id}/records.jsonl").text.splitlines()]
    autos = sorted((r["seating"]["entrants"]["N"], seat) for r in records
                   for seat, p in r["players"].items() if p.get("auto"))
    assert autos == [("红", "E"), ("蓝", "E")]
