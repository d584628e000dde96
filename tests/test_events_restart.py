"""A server restart in the middle of a team match's session (docs/tournaments.md, Team matches
on the server): both tables are part-way through board 1 when the server stops; a new server on
the same store takes them up where they stood — same board, same turn, every card played before
the restart still played — the computers that stood in for the absent stay in their seats, the
grace places nobody twice, and the match finishes with results that agree with the records.
Pairs on a Mitchell movement (five pairs, one board a round) the same: both tables of a round
part-way through their board at the restart, taken up where they stood, the next rounds begun by
the director, the matchpoints those of the records.  And an event with a start time goes on by
itself across restarts: a start time that passed while no server ran, a round whose last board
finished just before the server stopped — each round begun once, by the server, nobody asking.
Runs on a SQLite file and on PostgreSQL (``helpers.database.STORES``), the events' clock
injected (:class:`~helpers.clock.SetClock`).
"""

from __future__ import annotations

import json
import random
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from gongzhu.server.events import GRACE_RECHECK
from helpers.clock import SetClock
from helpers.database import STORES
from helpers.live import Live, Someone, account, befriend
from helpers.servers import LiveServer
from test_events_server import board_row, drive, finished, tally

Message = dict[str, Any]
#: What a seat's state says about where its table stands, kept across the restart.
KEPT = ("phase", "deal_index", "turn", "hand", "legal", "trick", "last_trick", "tricks_played", "captured",
        "exposures", "totals", "cards_left")


def mid_board(tricks: int, deal_index: int | None = 0) -> Any:
    """``until``: the table's deal ``deal_index`` (its first: board 1 of a team match; None: the
    deal it plays, whichever) has ``tricks`` tricks or more played and a trick under way."""
    def done(states: dict[str, Message]) -> bool:
        s = next(iter(states.values()))
        return (bool(s) and s["phase"] == "play" and deal_index in (None, s["deal_index"])
                and s["tricks_played"] >= tricks and 0 < len(s["trick"]["plays"]) < 4)
    return done


def plays_seen(lives: dict[str, Live], deal_index: int | None = 0) -> list[tuple[str, tuple[str, ...]]]:
    """The plays of the table's deal ``deal_index`` (None: of the one deal its states show), in
    order, as the table's states showed them (the longest view of each trick)."""
    tricks: dict[int, list[Message]] = {}
    for live in lives.values():
        for m in live.messages:
            state = m.get("state")
            if (m["type"] != "state" or state is None or state["phase"] != "play"
                    or deal_index not in (None, state["deal_index"])):
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
    befriend(referee, *red, *blue)
    teams = [{"name": "红", "players": [p.name for p in red]}, {"name": "蓝", "players": [p.name for p in blue]}]
    made = referee.http.post("/api/events", json={"name": name, "preset": "partners", "boards": boards,
                                                  "sessions": 1, "turn_seconds": 120, "grace_seconds": 60,
                                                  "entrants": teams})
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
            assert board_row(event, n)["teams"][0]["points"]["红"] == by_hand[n]
        total = sum(by_hand.values())
        assert {r["entrant"]: r["points"] for r in event["rankings"][0]["rows"]} == {"红": total, "蓝": -total}
        assert event["matches"][0]["winner"] == (None if total == 0 else ("红" if total > 0 else "蓝"))
        for table in lives.values():
            for live in table.values():
                live.close()


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_the_grace_runs_on_across_a_restart(db_url: str, tmp_path: Path) -> None:
    """A restart within the grace: once it has passed, the absent are played for by a computer as
    soon as their table opens again — without anyone looking at the event's page — and those who
    had come before the restart are not, however long they take to come back."""
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
        # North comes back at once, East and South later: they came before the restart, and the
        # grace (seen to again once the table opens) passes them by
        lives = {"N": seated["N"].connect(one)}
        state = lives["N"].until(lambda s: s["table"]["seats"]["W"]["auto"], timeout=20)
        assert not any(state["table"]["seats"][s]["auto"] for s in "NES")
        time.sleep(GRACE_RECHECK + 1)  # another look at the table finds East and South still away
        lives |= {seat: seated[seat].connect(one) for seat in "ES"}
        state = lives["E"].until(lambda s: s["phase"] != "waiting")
        assert not any(state["table"]["seats"][s]["auto"] for s in "NES")
        drive(lives, rng, lambda st: st["N"].get("tricks_played", 0) >= 2)  # West's computer plays
        referee.rebind(second)
        event = referee.http.get(f"/api/events/{event_id}").json()
        stand_ins = [e["details"] for e in event["log"] if e["action"] == "stand_in"]
        assert [(d["table"], d["seat"], d["player"]) for d in stand_ins if d["table"] == 1] == [(1, "W", "Blue2")]
        for live in lives.values():
            live.close()



# ---------------------------------------------------------------------- pairs on a Mitchell movement

#: Five pairs: a Mitchell of three tables, the phantom's table sitting out each round.
PAIRS = (("Amber", "Basil"), ("Cedar", "Daisy"), ("Ember", "Flint"), ("Ginger", "Hazel"), ("Indigo", "Juniper"))
#: Where each person's HTTP requests and table connections come from, behind the trusted proxy
#: 127.0.0.1: an address each, so that eleven accounts are not one address's sign-ups.
NET = "10.0.7"


def live_server(db_url: str, tmp_path: Path, clock: SetClock) -> LiveServer:
    """A server on the store ``db_url`` with the events' clock ``clock``, trusting 127.0.0.1's
    forwarding headers (each person's own address)."""
    return LiveServer(db_url, static_dir=tmp_path / "no-static", now=clock, trusted_proxies=["127.0.0.1"])


def mitchell_people(server: LiveServer) -> tuple[Someone, dict[str, Someone]]:
    """The director (the organiser) and the ten players of :data:`PAIRS`, by name."""
    director = account(server, "Director", f"{NET}.1")
    names = [name for pair in PAIRS for name in pair]
    players = {name: account(server, name, f"{NET}.{i + 2}") for i, name in enumerate(names)}
    befriend(director, *players.values())
    return director, players


def made_mitchell(director: Someone, name: str, **more: Any) -> str:
    """A Mitchell event of :data:`PAIRS` (1 board a round, turn 120 s, grace 60 s) made by the
    director, with ``more`` of the body (``rounds``, ``starts_at``): its id."""
    entrants = [{"name": f"Pair {i}", "players": list(pair)} for i, pair in enumerate(PAIRS, 1)]
    made = director.http.post("/api/events", json={"name": name, "form": "mitchell", "preset": "partners",
                                                   "boards": 1, "turn_seconds": 120, "grace_seconds": 60,
                                                   "entrants": entrants, **more})
    assert made.status_code == 201, made.text
    event_id: str = made.json()["id"]
    return event_id


def round_tables(event_id: str, people: dict[str, Someone]) -> dict[str, dict[str, Someone]]:
    """The two tables of the event's current round: each table's match and who sits at each seat
    (the table's address as its North player's event page gives it)."""
    event = next(iter(people.values())).http.get(f"/api/events/{event_id}").json()
    out: dict[str, dict[str, Someone]] = {}
    for table in event["tables"]:
        if table["stage"] != event["stage"]:
            continue
        seated = {seat: people[name] for seat, name in table["seats"].items()}
        url: str = seated["N"].http.get(f"/api/events/{event_id}").json()["me"]["table"]
        out[url.removeprefix("/table/")] = seated
    assert len(out) == 2, event["tables"]
    return out


def board_over(states: dict[str, Message]) -> bool:
    """``until``: the table has finished its board (one board a round)."""
    s = next(iter(states.values()))
    return bool(s) and s["phase"] in ("deal-over", "match-over")


def play_round(tables: dict[str, dict[str, Someone]], rng: random.Random) -> None:
    """Everyone of the round comes to their table and plays its board to the end."""
    lives = {m: {seat: p.connect(m) for seat, p in seated.items()} for m, seated in tables.items()}
    for table in lives.values():
        drive(table, rng, board_over)
    for table in lives.values():
        for live in table.values():
            live.close()


def rebind(server: LiveServer, *people: Someone) -> None:
    for person in people:
        person.rebind(server)


def half_away(n: int) -> int:
    """``n`` / 2 rounded half away from zero (R10), written out here."""
    q = (abs(n) + 1) // 2
    return q if n >= 0 else -q


def pairs_tally(records: list[Message]) -> dict[str, tuple[int, int]]:
    """Each pair's matchpoints and top from the records alone: on each board each N–S pair's
    partnership result, (N + S − E − W) / 2, against the other N–S pairs' (2 for each one beaten,
    1 for each tie), and each E–W pair's the same with the result's sign turned."""
    fields: dict[tuple[int, str], dict[str, int]] = {}
    for r in records:
        raw, names = r["raw"], r["seating"]["entrants"]
        ns = half_away(raw["N"] + raw["S"] - raw["E"] - raw["W"])
        fields.setdefault((r["board"]["number"], "NS"), {})[names["N"]] = ns
        fields.setdefault((r["board"]["number"], "EW"), {})[names["E"]] = -ns
    totals: dict[str, tuple[int, int]] = {}
    for field in fields.values():
        for who, mine in field.items():
            points = sum(2 if mine > other else 1 if mine == other else 0
                         for them, other in field.items() if them != who)
            got, top = totals.get(who, (0, 0))
            totals[who] = (got + points, top + 2 * (len(field) - 1))
    return totals


def records_of(person: Someone, event_id: str) -> list[Message]:
    return [json.loads(line) for line in person.http.get(f"/api/events/{event_id}/records.jsonl").text.splitlines()]


def check_pairs_results(event: Message, records: list[Message], rounds: int) -> None:
    """The event is over: each table of each round played its board once, by its four players,
    and every pair's matchpoints and top are those of the records."""
    assert event["status"] == "over" and event["stage"] == event["stages"] == rounds and event["stage_over"]
    assert [(t["round"], t["played"], t["stand_ins"]) for t in event["tables"]] == [
        (r, 1, []) for r in range(1, rounds + 1) for _ in (1, 2)]
    assert sorted((r["seating"]["round"], r["seating"]["table"], r["board"]["number"]) for r in records) == sorted(
        (t["round"], t["table"], t["boards"][0]) for t in event["tables"])
    for r in records:
        assert len(recorded_plays(r)) == 52
        assert not any(p["auto"] or p["computer"] for p in r["players"].values())
    assert [r["field"] for r in event["rankings"]] == ["N–S", "E–W"]
    ranked = {row["entrant"]: (row["matchpoints"], row["top"]) for ranking in event["rankings"]
              for row in ranking["rows"]}
    assert ranked == pairs_tally(records)


def stages_begun(db_url: str, event_id: str) -> list[tuple[int, int]]:
    """The event's tables as stored (``event_tables``): (stage, table) of each, in order."""
    from sqlalchemy import create_engine, select

    from gongzhu.server.store import EVENT_TABLES

    engine = create_engine(db_url)
    try:
        with engine.connect() as c:
            rows = c.execute(select(EVENT_TABLES.c.stage, EVENT_TABLES.c.table_no)
                             .where(EVENT_TABLES.c.event_id == event_id)).all()
    finally:
        engine.dispose()
    return sorted((int(stage), int(table)) for stage, table in rows)


def wait_for_stage(person: Someone, event_id: str, stage: int, timeout: float = 30) -> None:
    """Wait until the event's ``stage`` has begun, as the lobby's list of the person's events says
    (``GET /api/events``, which begins nothing itself: the event's page would see to it)."""
    end = time.monotonic() + timeout
    while True:
        listed = {e["id"]: e for e in person.http.get("/api/events").json()["events"]}
        if listed[event_id]["stage"] >= stage:
            assert listed[event_id]["stage"] == stage
            return
        assert time.monotonic() < end, f"stage {stage} did not begin by itself: {listed[event_id]}"
        time.sleep(0.2)


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_mitchell_restarted_mid_round_loses_no_card(db_url: str, tmp_path: Path) -> None:
    """Pairs on a Mitchell (five pairs, one board a round): both tables of round 1 are part-way
    through their board when the server stops; a new server takes them up where they stood, the
    round is over only once both have finished, the director begins rounds 2 and 3, and the
    results agree with a tally of the records."""
    rng = random.Random(31)
    clock = SetClock(1_796_100_000.0)
    first = live_server(db_url, tmp_path, clock)
    try:
        director, people = mitchell_people(first)
        event_id = made_mitchell(director, "Pairs night 1")
        assert director.http.post(f"/api/events/{event_id}/start").status_code == 200
        tables = round_tables(event_id, people)
        one, two = tables
        lives = {m: {seat: p.connect(m) for seat, p in seated.items()} for m, seated in tables.items()}
        drive(lives[one], rng, mid_board(6, None))
        drive(lives[two], rng, mid_board(3, None))
        for table in lives.values():
            for live in table.values():
                live.drain()
        before = {m: {seat: live.state for seat, live in table.items()} for m, table in lives.items()}
        seen = {m: plays_seen(table, None) for m, table in lives.items()}
        assert len(seen[one]) > 24 and len(seen[two]) > 12
        log_before = director.http.get(f"/api/events/{event_id}").json()["log"]
        for table in lives.values():
            for live in table.values():
                live.close()
    finally:
        first.stop()

    clock.t += 40  # down for a while, within the grace
    with live_server(db_url, tmp_path, clock) as second:
        rebind(second, director, *people.values())
        event = director.http.get(f"/api/events/{event_id}").json()
        assert (event["status"], event["round"], event["stage_over"]) == ("playing", 1, False)
        assert [(t["round"], t["played"], t["stand_ins"]) for t in event["tables"]] == [(1, 0, []), (1, 0, [])]
        assert event["log"] == log_before
        assert round_tables(event_id, people) == tables
        refused = director.http.post(f"/api/events/{event_id}/start")  # round 1 is still being played
        assert refused.status_code == 409 and refused.json()["code"] == "event.stage_running", refused.text

        # each person takes up their table where it stood; the tables play on past the grace, and
        # since everyone had come before the restart no computer stands in
        lives = {m: {seat: p.connect(m) for seat, p in seated.items()} for m, seated in tables.items()}
        for m, table in lives.items():
            for seat, live in table.items():
                after = live.until(lambda s: s["phase"] != "waiting")
                assert after["seat"] == seat
                for key in KEPT:
                    assert after[key] == before[m][seat][key], (m, seat, key)
        clock.t += 30
        drive(lives[one], rng, board_over)
        event = director.http.get(f"/api/events/{event_id}").json()
        assert [t["played"] for t in event["tables"]] == [1, 0] and not event["stage_over"]  # table 2 plays on
        drive(lives[two], rng, board_over)
        for table in lives.values():
            for live in table.values():
                live.close()
        event = director.http.get(f"/api/events/{event_id}").json()
        assert event["stage_over"] and [t["played"] for t in event["tables"]] == [1, 1]
        assert records_of(director, event_id) == []  # each board is played again in a later round

        # the director begins rounds 2 and 3, each once the round before is over
        for round_ in (2, 3):
            started = director.http.post(f"/api/events/{event_id}/start")
            assert started.status_code == 200, started.text
            assert started.json()["round"] == round_
            play_round(round_tables(event_id, people), rng)

        event = director.http.get(f"/api/events/{event_id}").json()
        records = records_of(director, event_id)
        check_pairs_results(event, records, rounds=3)
        by_match = {r["match"]: r for r in records}
        for m in tables:  # every card played before the restart is in the record, in its place
            assert recorded_plays(by_match[m])[:len(seen[m])] == seen[m]
        assert [(e["by"], e["details"]["round"]) for e in event["log"] if e["action"] == "start"] == [
            ("Director", 1), ("Director", 2), ("Director", 3)]
        assert not any(e["action"] == "stand_in" for e in event["log"])
        # each N–S pair sat out one round, at the phantom's table
        assert sorted(name for s in event["sit_outs"] for name in s["entrants"]) == ["Pair 1", "Pair 2", "Pair 3"]


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_mitchell_with_a_start_time_goes_on_by_itself_across_restarts(db_url: str, tmp_path: Path) -> None:
    """Pairs on a Mitchell of two rounds with a start time.  The start time passes while no
    server runs: the next server to start begins round 1 by itself, nobody asking.  That server
    stops right after round 1's last board: round 2 is begun once and by itself — by the server
    that saw round 1 end, or by the next one as it starts — and the event finishes on it."""
    rng = random.Random(37)
    clock = SetClock(1_796_110_000.0)
    starts = clock.t + 600
    with live_server(db_url, tmp_path, clock) as first:
        director, people = mitchell_people(first)
        event_id = made_mitchell(director, "Pairs night 2", rounds=2,
                                 starts_at=datetime.fromtimestamp(starts, UTC).isoformat())
        event = director.http.get(f"/api/events/{event_id}").json()
        assert (event["status"], event["stage"]) == ("waiting", 0)

    clock.t = starts + 5  # the start time passes while no server runs
    with live_server(db_url, tmp_path, clock) as second:
        rebind(second, director, *people.values())
        wait_for_stage(director, event_id, 1)
        play_round(round_tables(event_id, people), rng)
    # stopped right after round 1's last board

    with live_server(db_url, tmp_path, clock) as third:
        rebind(third, director, *people.values())
        wait_for_stage(director, event_id, 2)
        assert stages_begun(db_url, event_id) == [(1, 1), (1, 2), (2, 2), (2, 3)]
        play_round(round_tables(event_id, people), rng)
        event = director.http.get(f"/api/events/{event_id}").json()
        check_pairs_results(event, records_of(director, event_id), rounds=2)
        # each round begun once, by the server (nobody asked)
        assert [(e["by"], e["details"]["round"]) for e in event["log"] if e["action"] == "start"] == [
            (None, 1), (None, 2)]
        assert stages_begun(db_url, event_id) == [(1, 1), (1, 2), (2, 2), (2, 3)]
