"""A server restart in the middle of a team match's session (docs/tournaments.md, Team matches
on the server): both tables are part-way through board 1 when the server stops; a new server on
the same store takes them up where they stood — same board, same turn, every card played before
the restart still played — the computers that stood in for the absent stay in their seats, the
grace places nobody twice, and the match finishes with results that agree with the records.
Runs on a SQLite file and on PostgreSQL (``helpers.database.STORES``), the events' clock
injected (:class:`~helpers.clock.SetClock`).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from helpers.clock import SetClock
from helpers.database import STORES
from helpers.live import Live, Someone, account
from helpers.servers import LiveServer
from test_events_server import board_row, drive, finished, tally

Message = dict[str, Any]
#: What a seat's state says about where its table stands, kept across the restart.
KEPT = ("phase", "deal_index", "turn", "hand", "legal", "trick", "last_trick", "tricks_played", "captured",
        "exposures", "totals", "cards_left")


def mid_board(tricks: int) -> Any:
    """``until``: board 1 has ``tricks`` tricks or more played and a trick under way."""
    def done(states: dict[str, Message]) -> bool:
        s = next(iter(states.values()))
        return (bool(s) and s["phase"] == "play" and s["deal_index"] == 0 and s["tricks_played"] >= tricks
                and 0 < len(s["trick"]["plays"]) < 4)
    return done


def plays_seen(lives: dict[str, Live]) -> list[tuple[str, tuple[str, ...]]]:
    """Board 1's plays, in order, as the table's states showed them (the longest view of each trick)."""
    tricks: dict[int, list[Message]] = {}
    for live in lives.values():
        for m in live.messages:
            state = m.get("state")
            if m["type"] != "state" or state is None or state["phase"] != "play" or state["deal_index"] != 0:
                continue
            shown = state["trick"]["plays"]
            if len(shown) > len(tricks.get(state["tricks_played"], [])):
                tricks[state["tricks_played"]] = shown
            if state.get("last_trick") and state["tricks_played"] > 0:
                last = state["last_trick"]["plays"]
                if len(last) > len(tricks.get(state["tricks_played"] - 1, [])):
                    tricks[state["tricks_played"] - 1] = last
    assert sorted(tricks) == list(range(len(tricks))), sorted(tricks)
    return [(p["seat"], tuple(p["cards"])) for k in sorted(tricks) for p in tricks[k]]


def recorded_plays(record: Message) -> list[tuple[str, tuple[str, ...]]]:
    return [(p["seat"], tuple(p["cards"])) for t in record["tricks"] for p in t["plays"]]


def started_match(server: LiveServer, name: str, *, boards: int) -> tuple[Someone, list[Someone], list[Someone], str]:
    """A team match of one session of ``boards`` boards (turn 120 s, grace 60 s) made and started
    by Referee, between 红 (Red1-4) and 蓝 (Blue1-4): the referee, the teams and the event's id."""
    referee = account(server, "Referee")
    red = [account(server, f"Red{i}") for i in range(1, 5)]
    blue = [account(server, f"Blue{i}") for i in range(1, 5)]
    teams = [{"name": "红", "players": [p.name for p in red]}, {"name": "蓝", "players": [p.name for p in blue]}]
    made = referee.http.post("/api/events", json={"name": name, "preset": "partners", "boards": boards,
                                                  "sessions": 1, "turn_seconds": 120, "grace_seconds": 60,
                                                  "teams": teams})
    assert made.status_code == 201, made.text
    event_id: str = made.json()["id"]
    started = referee.http.post(f"/api/events/{event_id}/start")
    assert started.status_code == 200, started.text
    return referee, red, blue, event_id


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_restart_mid_session_loses_no_card(db_url: str, tmp_path: Path) -> None:
    rng = random.Random(23)
    clock = SetClock(1_796_090_000.0)
    static = tmp_path / "no-static"
    first = LiveServer(db_url, static_dir=static, now=clock)
    try:
        referee, red, blue, event_id = started_match(first, "Club night 2", boards=2)

        def table_of(person: Someone) -> str:
            url: str = person.http.get(f"/api/events/{event_id}").json()["me"]["table"]
            return url.removeprefix("/table/")

        one, two = table_of(red[0]), table_of(blue[2])
        # Blue2 (table 1, W) and Red4 (table 2, W) never come
        seated = {one: {"N": red[0], "E": blue[0], "S": red[1]}, two: {"N": blue[2], "E": red[2], "S": blue[3]}}
        lives = {m: {seat: p.connect(m) for seat, p in people.items()} for m, people in seated.items()}
        clock.t += 61
        event = referee.http.get(f"/api/events/{event_id}").json()
        assert [t["stand_ins"] for t in event["tables"]] == [["W"], ["W"]]

        # part of board 1 at both tables: table 1 further on than table 2
        drive(lives[one], rng, mid_board(5))
        drive(lives[two], rng, mid_board(2))
        for table in lives.values():
            for live in table.values():
                live.drain()
        before = {m: {seat: live.state for seat, live in table.items()} for m, table in lives.items()}
        seen = {m: plays_seen(table) for m, table in lives.items()}
        assert len(seen[one]) > 20 and len(seen[two]) > 8
        log_before = referee.http.get(f"/api/events/{event_id}").json()["log"]
        for table in lives.values():
            for live in table.values():
                live.close()
    finally:
        first.stop()

    clock.t += 30  # the server was down for a while
    with LiveServer(db_url, static_dir=static, now=clock) as second:
        for person in (referee, *red, *blue):
            person.rebind(second)
        event = referee.http.get(f"/api/events/{event_id}").json()
        assert event["status"] == "playing" and event["session"] == 1
        assert [t["played"] for t in event["tables"]] == [0, 0]
        assert [t["stand_ins"] for t in event["tables"]] == [["W"], ["W"]]  # the computers stay, none twice
        assert event["log"] == log_before
        assert table_of(red[0]) == one and table_of(blue[2]) == two

        # each person takes up their table where it stood
        lives = {m: {seat: p.connect(m) for seat, p in people.items()} for m, people in seated.items()}
        for m, table in lives.items():
            for seat, live in table.items():
                after = live.until(lambda s: s["phase"] != "waiting")
                assert after["seat"] == seat
                for key in KEPT:
                    assert after[key] == before[m][seat][key], (m, seat, key)
                assert after["table"]["seats"]["W"]["auto"] and not after["table"]["seats"][seat]["auto"]

        drive(lives[one], rng, finished(2))
        drive(lives[two], rng, finished(2))
        event = referee.http.get(f"/api/events/{event_id}").json()
        assert event["status"] == "over"
        assert [e["action"] for e in event["log"]].count("stand_in") == 2
        records = [json.loads(line) for line in
                   referee.http.get(f"/api/events/{event_id}/records.jsonl").text.splitlines()]
        assert [(r["board"]["number"], r["seating"]["table"]) for r in records] == [(1, 1), (1, 2), (2, 1), (2, 2)]
        for r in records:
            assert r["players"]["W"]["auto"] and not r["players"]["N"]["auto"]
            assert len(recorded_plays(r)) == 52
        # every card played before the restart is in board 1's record, in its place
        for m, r in ((one, records[0]), (two, records[1])):
            assert r["match"] == m
            assert recorded_plays(r)[:len(seen[m])] == seen[m]

        # the results agree with a tally of the records
        by_hand = tally(records, "红")
        for n in (1, 2):
            assert board_row(event, n)["teams"]["红"] == by_hand[n]
        total = sum(by_hand.values())
        assert {t["team"]: t["points"] for t in event["totals"]} == {"红": total, "蓝": -total}
        assert event["match"]["winner"] == (None if total == 0 else ("红" if total > 0 else "蓝"))
        for table in lives.values():
            for live in table.values():
                live.close()


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_the_grace_runs_on_across_a_restart(db_url: str, tmp_path: Path) -> None:
    """A restart within the grace: once it has passed, the absent are played for by a computer as
    soon as their table opens again — without anyone looking at the event's page."""
    rng = random.Random(29)
    clock = SetClock(1_796_095_000.0)
    static = tmp_path / "no-static"
    first = LiveServer(db_url, static_dir=static, now=clock)
    try:
        referee, red, blue, event_id = started_match(first, "Club night 3", boards=1)
        one = red[0].http.get(f"/api/events/{event_id}").json()["me"]["table"].removeprefix("/table/")
        seated = {"N": red[0], "E": blue[0], "S": red[1]}  # Blue2 (W) has not come yet
        for live in [p.connect(one) for p in seated.values()]:
            live.until(lambda s: s["phase"] != "waiting")
            live.close()
        clock.t += 30
    finally:
        first.stop()

    clock.t += 31  # the grace passed while the server was down
    with LiveServer(db_url, static_dir=static, now=clock) as second:
        for person in seated.values():
            person.rebind(second)
        lives = {seat: p.connect(one) for seat, p in seated.items()}
        state = lives["N"].until(lambda s: s["table"]["seats"]["W"]["auto"], timeout=20)
        assert not any(state["table"]["seats"][s]["auto"] for s in "NES")
        drive(lives, rng, lambda st: st["N"].get("tricks_played", 0) >= 2)  # West's computer plays
        referee.rebind(second)
        event = referee.http.get(f"/api/events/{event_id}").json()
        stand_ins = [e["details"] for e in event["log"] if e["action"] == "stand_in"]
        assert [(d["table"], d["seat"], d["player"]) for d in stand_ins if d["table"] == 1] == [(1, "W", "Blue2")]
        for live in lives.values():
            live.close()
