"""Live events of every form on a live server (docs/tournaments.md, Events on the server): a
Mitchell of five pairs (a phantom, so one pair sits out each round), a Howell of four pairs, an
individual event of eight players, a Swiss of three teams (a match and a bye each round, the
second round paired by the standings) and an event with a start time whose rounds begin by
themselves.  Scripted people play every board of every round at the table the event's page gives
them (random legal plays, at once), one board a round.

The results are checked against a tally of the event's records written here (R7.2 and R7.3 by
hand, matchpoints by their rule, the team match points), nobody is let in at a table not theirs,
and at every step — after each table finishes its board — nobody whose table has not played a
board sees its raw scores, its traveller, its record or its deal; every state each person
received in the whole event holds only their own hand.  The referee's desk moves a pair's
percentage by its penalty and a table's raw scores by a correction, and publishes the results.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from gongzhu.duplicate.movements import Movement, howell, individual, mitchell, swiss_pairings
from gongzhu.rules.boards import verify_board_set
from gongzhu.rules.cards import Seat
from helpers.clock import SetClock
from helpers.database import STORES
from helpers.live import Live, Someone, account, befriend, random_moves
from helpers.servers import LiveServer
from test_events_server import assert_own_hand_only, refused

Message = dict[str, Any]
#: (round, table): where a board is played (one board a round, one stage a round).
Where = tuple[int, int]

SEATS = ("N", "E", "S", "W")
#: The events' clock when each test begins.
NOW = 1_796_085_000.0
#: Long enough that no turn runs out and nobody is stood in for while the test plays.
TURN, GRACE = 300, 3600


@pytest.fixture
def clock() -> SetClock:
    return SetClock(NOW)


@pytest.fixture
def server(db_url: str, tmp_path: Path, clock: SetClock) -> Iterator[LiveServer]:
    # every person comes from an address of their own (through the trusted proxy): the server
    # lets ten accounts be made from one address
    with LiveServer(db_url, static_dir=tmp_path / "no-static", now=clock, trusted_proxies=["127.0.0.1"]) as s:
        yield s


# ---------------------------------------------------------------------- the tally, by hand


def half_away(numerator: int, denominator: int) -> int:
    """numerator / denominator to the nearest whole number, halves away from zero."""
    q, r = divmod(abs(numerator), denominator)
    q += 2 * r >= denominator
    return q if numerator >= 0 else -q


def ns_result(raw: dict[str, int]) -> int:
    """R7.3: each N–S member's (N–S raw total − E–W raw total) / 2 (E–W's is its negative)."""
    return half_away(raw["N"] + raw["S"] - raw["E"] - raw["W"], 2)


def seat_result(raw: dict[str, int], seat: str) -> int:
    """R7.2 (the online preset): the seat's raw less a third of the other three's."""
    others = sum(raw.values()) - raw[seat]
    return half_away(3 * raw[seat] - others, 3)


@dataclass
class Score:
    """One entrant's comparisons: boards, matchpoints, tops, and each board's percentage."""

    boards: int = 0
    matchpoints: int = 0
    top: int = 0
    percents: list[float] = field(default_factory=list)

    def percent(self, penalty: float = 0.0) -> float:
        return sum(self.percents) / len(self.percents) + penalty


def compare(fields: dict[Any, dict[str, int]]) -> tuple[dict[str, Score], dict[tuple[Any, str], tuple[int, int]]]:
    """Matchpoints on each field (a board in one direction or seat: entrant → result): 2 for each
    other result beaten, 1 for each equal; the top is 2 × (field − 1), a lone result 50%.  Returns
    each entrant's score and each (field, entrant)'s (matchpoints, top)."""
    scores: dict[str, Score] = {}
    each: dict[tuple[Any, str], tuple[int, int]] = {}
    for key, results in fields.items():
        for who, mine in results.items():
            others = [v for w, v in results.items() if w != who]
            mp = 2 * sum(v < mine for v in others) + sum(v == mine for v in others)
            top = 2 * len(others)
            s = scores.setdefault(who, Score())
            s.boards += 1
            s.matchpoints += mp
            s.top += top
            s.percents.append(100 * mp / top if top else 50.0)
            each[(key, who)] = (mp, top)
    return scores, each


def raws(records: list[Message], corrected: dict[Where, dict[str, int]] | None = None
         ) -> list[tuple[Message, dict[str, int]]]:
    """Each record with its raw scores (a referee's correction of (round, table) in its place)."""
    fixed = corrected or {}
    out: list[tuple[Message, dict[str, int]]] = []
    for r in records:
        where = (r["seating"]["round"], r["seating"]["table"])
        out.append((r, fixed[where] if where in fixed else r["raw"]))
    return out


def check_pairs(event: Message, records: list[Message], *, corrected: dict[Where, dict[str, int]] | None = None,
                penalties: dict[str, float] | None = None) -> dict[str, float]:
    """The pairs' rankings and travellers of ``event`` against a tally of ``records``: each
    table's N–S result, matchpoints against the pairs in the same direction, each pair's total
    and percentage (a Mitchell ranks N–S and E–W apart).  Returns each pair's percentage."""
    fields: dict[tuple[int, str], dict[str, int]] = {}
    sat: dict[str, str] = {}
    for r, raw in raws(records, corrected):
        board, names, ns = r["board"]["number"], r["seating"]["entrants"], ns_result(raw)
        fields.setdefault((board, "N–S"), {})[names["N"]] = ns
        fields.setdefault((board, "E–W"), {})[names["E"]] = -ns
        sat[names["N"]], sat[names["E"]] = "N–S", "E–W"
    scores, each = compare(fields)
    for row in event["board_results"]:
        assert row["complete"]
        ns_field, ew_field = (row["board"], "N–S"), (row["board"], "E–W")
        for t in row["traveller"]["rows"]:
            assert t["ns_result"] == fields[ns_field][t["ns"]] == -t["ew_result"]
            assert (t["ns_matchpoints"], t["top"]) == each[(ns_field, t["ns"])]
            assert (t["ew_matchpoints"], t["top"]) == each[(ew_field, t["ew"])]
        assert len(row["traveller"]["rows"]) == len(fields[ns_field])
        for cell in row["tables"]:
            record, raw = next((r, raw) for r, raw in raws(records, corrected) if r["board"]["number"] == row["board"]
                               and (r["seating"]["round"], r["seating"]["table"]) == (cell["round"], cell["table"]))
            assert (cell["raw"], cell["ns_result"]) == (raw, ns_result(raw)), (record["match"], cell)
    wanted = ["N–S", "E–W"] if event["form"] == "mitchell" else ["all"]
    assert [r["field"] for r in event["rankings"]] == wanted
    out: dict[str, float] = {}
    for ranking in event["rankings"]:
        rows = ranking["rows"]
        names = {n for n, way in sat.items() if ranking["field"] in ("all", way)}
        assert {r["entrant"] for r in rows} == names
        for r in rows:
            s, off = scores[r["entrant"]], (penalties or {}).get(r["entrant"], 0.0)
            assert (r["boards"], r["matchpoints"], r["top"]) == (s.boards, s.matchpoints, s.top), r
            assert r["percent"] == pytest.approx(s.percent(off), abs=0.011), r
            out[r["entrant"]] = r["percent"]
        assert [r["percent"] for r in rows] == sorted((r["percent"] for r in rows), reverse=True)
    return out


def check_individuals(event: Message, records: list[Message]) -> None:
    """Each seat's R7.2 result against the same seat at the other tables, each player's total."""
    fields: dict[tuple[int, str], dict[str, int]] = {}
    for r in records:
        factor = r["options"]["one_deck_factor"] if r["options"]["decks"] == 1 else 1
        for seat in SEATS:
            result = seat_result(r["raw"], seat)
            assert r["final"][seat] == result * factor  # the table wrote the same result
            fields.setdefault((r["board"]["number"], seat), {})[r["seating"]["entrants"][seat]] = result
    scores, each = compare(fields)
    for row in event["board_results"]:
        for t in row["traveller"]["rows"]:
            for seat, cell in t["seats"].items():
                assert cell["result"] == fields[(row["board"], seat)][cell["player"]]
                assert (cell["matchpoints"], cell["top"]) == each[((row["board"], seat), cell["player"])]
    [ranking] = event["rankings"]
    assert {r["entrant"] for r in ranking["rows"]} == set(scores)
    for r in ranking["rows"]:
        s = scores[r["entrant"]]
        assert (r["boards"], r["matchpoints"], r["top"]) == (s.boards, s.matchpoints, s.top), r
        assert r["percent"] == pytest.approx(s.percent(), abs=0.011), r


@dataclass
class Standing:
    """A team's match points and points by hand."""

    match_points: int = 0
    points: float = 0.0
    byes: int = 0


def team_tally(records: list[Message], teams: list[str]) -> tuple[dict[str, Standing], dict[int, dict[str, float]]]:
    """Each board's team results (a team's N–S result less the other team's N–S result at the
    other table of the match) and each team's match points (a win 2, a draw 1, a bye 2) and
    points."""
    boards: dict[int, dict[str, float]] = {}
    rounds: dict[int, dict[str, float]] = {}
    for r in records:
        n, ns_team = r["board"]["number"], r["seating"]["entrants"]["N"]
        ew_team = r["seating"]["entrants"]["E"]
        result = ns_result(r["raw"])
        boards.setdefault(n, {}).setdefault(ns_team, 0.0)
        boards[n].setdefault(ew_team, 0.0)
        boards[n][ns_team] += result
        boards[n][ew_team] -= result
        totals = rounds.setdefault(r["seating"]["round"], {})
        totals[ns_team] = totals.get(ns_team, 0.0) + result
        totals[ew_team] = totals.get(ew_team, 0.0) - result
    standing = {t: Standing() for t in teams}
    for totals in rounds.values():
        for team in teams:
            if team not in totals:
                standing[team].byes += 1
                standing[team].match_points += 2
                continue
            other = next(t for t in totals if t != team)
            standing[team].points += totals[team]
            won, drawn = totals[team] > totals[other], totals[team] == totals[other]
            standing[team].match_points += 2 if won else (1 if drawn else 0)
    return standing, boards


# ---------------------------------------------------------------------- an event, played


@dataclass
class Night:
    """An event on a live server with its organiser (the referee), a stranger, the entrants'
    players, and what the test saw: where each person sat, which tables finished, every
    connection of the players and of those refused."""

    server: LiveServer
    organiser: Someone
    stranger: Someone
    entrants: list[tuple[str, list[str]]]
    people: dict[str, Someone]
    event_id: str = ""
    seated: dict[str, set[Where]] = field(default_factory=dict)
    matches: dict[Where, str] = field(default_factory=dict)
    finished: set[Where] = field(default_factory=set)
    sat_out: dict[int, set[str]] = field(default_factory=dict)
    played: list[tuple[str, str, Live]] = field(default_factory=list)
    turned_away: list[Live] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"/api/events/{self.event_id}"

    def everyone(self) -> list[Someone]:
        return [*self.people.values(), self.organiser, self.stranger]

    def summary(self, person: Someone | None = None) -> Message:
        answer = (person or self.stranger).http.get(self.url)
        assert answer.status_code == 200, answer.text
        event: Message = answer.json()
        return event

    def records(self, person: Someone | None = None) -> list[Message]:
        text = (person or self.stranger).http.get(f"{self.url}/records.jsonl").text
        return [json.loads(line) for line in text.splitlines()]

    def player(self, entrant: int, member: int) -> str:
        return self.entrants[entrant - 1][1][member]


def night(server: LiveServer, entrants: list[tuple[str, list[str]]]) -> Night:
    """The organiser, a stranger and every player, each an account from an address of their own."""
    names = [p for _, players in entrants for p in players]
    people = {name: account(server, name, f"10.1.0.{i + 3}") for i, name in enumerate(names)}
    organiser = account(server, "Referee", "10.1.0.1")
    befriend(organiser, *people.values())  # an organiser lists friends only
    return Night(server, organiser, account(server, "Stranger", "10.1.0.2"), entrants, people)


def create(n: Night, form: str, preset: str, rounds: int, *, named: bool = True,
           starts_at: float | None = None) -> Message:
    body: Message = {"name": f"A {form} night", "form": form, "preset": preset, "boards": 1, "rounds": rounds,
                     "turn_seconds": TURN, "grace_seconds": GRACE,
                     "entrants": [{"name": name, "players": players} if named else {"players": players}
                                  for name, players in n.entrants]}
    if starts_at is not None:
        body["starts_at"] = datetime.fromtimestamp(starts_at, UTC).isoformat()
    made = n.organiser.http.post("/api/events", json=body)
    assert made.status_code == 201, made.text
    n.event_id = made.json()["id"]
    event = n.summary()
    assert event["status"] == "waiting" and event["stage"] == 0 and event["seed"] is None
    # a pair's or a player's name, when not given, is its players' names
    names = [name if named else " & ".join(players) for name, players in n.entrants]
    assert [e["name"] for e in event["entrants"]] == names
    n.entrants = [(name, players) for name, (_, players) in zip(names, n.entrants, strict=True)]
    return event


def start(n: Night, round_: int) -> None:
    """The organiser begins the next round."""
    started = n.organiser.http.post(f"{n.url}/start")
    assert started.status_code == 200, started.text
    assert started.json()["stage"] == round_ and started.json()["status"] == "playing"


def plays_of(movement: Movement) -> dict[int, set[Where]]:
    """Every (round, table) that plays each board."""
    out: dict[int, set[Where]] = {}
    for s in movement.sittings:
        for board in s.boards:
            out.setdefault(board, set()).add((s.round, s.table))
    return out


def seats_of(n: Night, movement: Movement, round_: int) -> dict[int, dict[str, str]]:
    """Who sits where at each table of ``round_`` of ``movement``."""
    return {s.table: {SEATS[i]: n.player(p.entrant, p.member) for i, p in enumerate(s.seats)}
            for s in movement.in_round(round_)}


def check_hidden(n: Night, plays: dict[int, set[Where]]) -> None:
    """What each person (every player, the organiser, a stranger) sees of the boards: a table's
    raw score and result once it has played the board, to its own players, and to everyone once
    every table that plays the board has (then its traveller or team result too); the records
    of those boards only; an event's deal never through the matches' routes."""
    complete = {b for b, at in plays.items() if at <= n.finished}
    for person in n.everyone():
        mine = n.seated.get(person.name, set())
        event = n.summary(person)
        for row in event["board_results"]:
            board = row["board"]
            assert row["complete"] == (board in complete), (board, row)
            if board not in complete:
                assert row["traveller"] is None and row["teams"] is None, row
            for cell in row["tables"]:
                where = (cell["round"], cell["table"])
                assert where in plays[board] and cell["played"] == (where in n.finished)
                shown = where in n.finished and (board in complete or where in mine)
                assert (cell["raw"] is not None) == shown and (cell["ns_result"] is not None) == shown, (
                    person.name, board, cell)
        assert {r["board"]["number"] for r in n.records(person)} == complete
        for board in set(plays) - complete:
            for where in (plays[board] & n.finished) - mine:
                # the board's deal there (deal_index = number − 1, R8.1), and the match's records
                for path in (f"deals/{board - 1}", "records.jsonl"):
                    answer = person.http.get(f"/api/matches/{n.matches[where]}/{path}")
                    assert answer.status_code == 403, (person.name, board, path, answer.text)


def play_out(lives: dict[str, Live], rng: random.Random, *, timeout: float = 120) -> None:
    """The four people of a table play its board (one a round: then its match is over), each
    acting at once whenever the table waits for them — random exposures and legal plays, as
    :func:`test_events_server.drive` — and reading what comes as soon as it comes."""
    acted: dict[str, int] = {}
    end = time.monotonic() + timeout
    while True:
        for live in lives.values():
            live.drain(0)
        states = {seat: live.state for seat, live in lives.items()}
        if all(s and s["phase"] == "match-over" for s in states.values()):
            return
        assert time.monotonic() < end, {seat: (s.get("phase"), s.get("turn")) for seat, s in states.items()}
        if not random_moves(lives, acted, rng):  # wait for the table: on the connection furthest behind
            behind = min(lives.values(), key=lambda live: live.state.get("v", -1))
            with contextlib.suppress(TimeoutError):
                behind.receive(1)


def turned_away(n: Night, person: Someone, match: str) -> None:
    live = person.connect(match)
    reply = live.receive()
    assert reply["type"] == "error" and reply["code"] == "event.table_closed", reply
    live.close()
    n.turned_away.append(live)


def play_round(n: Night, round_: int, rng: random.Random, plays: dict[int, set[Where]],
               seats: dict[int, dict[str, str]] | None = None,
               then: Callable[[bool], None] | None = None) -> dict[int, dict[str, str]]:
    """Every player comes to the table the event's page gives them for ``round_`` (or sits out),
    and the tables play their board one after the other; after each, ``then(every table has
    finished)`` runs, and what everyone sees is checked.  Returns who sat where at each table."""
    tables: dict[int, dict[str, str]] = {}
    for name, person in n.people.items():
        me = n.summary(person)["me"]
        assert me["entrant"] is not None and not me["organiser"]
        now = me["now"]
        assert (now["stage"], now["round"]) == (round_, round_), now
        if now["table"] is None:
            assert now["url"] is None and me["table"] is None
            n.sat_out.setdefault(round_, set()).add(name)
            continue
        assert me["table"] == now["url"] and now["url"].startswith("/table/")
        n.matches[(round_, now["table"])] = now["url"].removeprefix("/table/")
        n.seated.setdefault(name, set()).add((round_, now["table"]))
        tables.setdefault(now["table"], {})[now["seat"]] = name
    event = n.summary(n.organiser)
    listed = {t["table"]: t["seats"] for t in event["tables"] if t["round"] == round_}
    assert listed == tables and all(set(t) == set(SEATS) for t in tables.values())
    if seats is not None:
        assert tables == seats
    assert all(t["url"] is None for t in event["tables"])  # the organiser sits at none
    sitting_out = sorted(n.sat_out.get(round_, set()))
    assert sorted(p for e in event["sit_outs"] if e["round"] == round_ for entrant in e["entrants"]
                  for p in dict(n.entrants)[entrant]) == sitting_out

    lives = {t: {seat: n.people[who[seat]].connect(n.matches[(round_, t)]) for seat in SEATS}
             for t, who in sorted(tables.items())}
    # nobody else comes to a table: the organiser, a stranger, a player of another table (or
    # one sitting out)
    for t in tables:
        elsewhere = [who for u, seated in tables.items() if u != t for who in seated.values()] + sitting_out
        for person in (n.organiser, n.stranger, n.people[rng.choice(elsewhere)]):
            turned_away(n, person, n.matches[(round_, t)])
    for t, at in lives.items():
        play_out(at, rng)
        n.finished.add((round_, t))
        if then is not None:
            then(len(n.finished & {(round_, u) for u in tables}) == len(tables))
        check_hidden(n, plays)
    for t, at in lives.items():
        for seat, live in at.items():
            live.drain(0.05)
            live.close()
            n.played.append((n.matches[(round_, t)], seat, live))
    return tables


def check_over(n: Night) -> list[Message]:
    """The event is over: its seed is out, the records' hands are its boards', and every state
    each person received at every table held only their own hand.  Returns the records."""
    event = n.summary()
    assert event["status"] == "over" and event["provisional"] and event["stage_over"]
    refused(n.organiser.http.post(f"{n.url}/start"), 409, "event.no_stage_left")
    boards = verify_board_set(event["seed"], event["definition"], event["commitment"])
    records = n.records()
    for r in records:
        board = boards.board(r["board"]["number"])
        assert {s: sorted(h) for s, h in r["hands"].items()} == {
            s.name: sorted(c.code for c in board.hands[s]) for s in Seat}
        assert all(not p["auto"] and p["computer"] is None for p in r["players"].values())
    by_match = {r["match"]: {r["deal_index"]: r} for r in records}
    assert len(by_match) == len(records) == len(n.finished)
    assert all(r["deal_index"] == r["board"]["number"] - 1 for r in records)
    checked = 0
    for match, seat, live in n.played:
        checked += assert_own_hand_only(live.messages, seat, by_match[match])
    assert checked >= 10 * len(n.played)
    assert len(n.played) == 4 * len(n.finished)
    for live in n.turned_away:  # the refused got nothing but their refusal
        assert [m["type"] for m in live.messages] == ["error"]
    return records


def check_rankings_csv(n: Night, event: dict[str, Any], provisional: str) -> None:
    """The rankings' download, to a stranger, holds the summary's rankings row by row (a
    Mitchell's N–S field, then its E–W) with each pair's players, named provisional until the
    results are published."""
    got = n.stranger.http.get(f"{n.url}/rankings.csv")
    assert got.status_code == 200 and got.headers["content-type"].startswith("text/csv; charset=utf-8")
    assert got.headers["content-disposition"] == (
        f'attachment; filename="gongzhu-{event["id"]}-rankings{provisional}.csv"')
    assert got.content.startswith("\ufeff".encode()) and event["rankings_url"] == f"{n.url}/rankings.csv"
    rows = list(csv.DictReader(io.StringIO(got.content.decode("utf-8-sig"))))
    players = {name: " / ".join(who) for name, who in n.entrants}
    assert [(r["field"], int(r["rank"]), r["entrant"], r["players"], r["percent"], float(r["penalty"]))
            for r in rows] == [
        (ranking["field"], r["rank"], r["entrant"], players[r["entrant"]], f"{r['percent']:.2f}", r["penalty"])
        for ranking in event["rankings"] for r in ranking["rows"]]
    assert {r["field"] for r in rows} == {"N–S", "E–W"}


# ---------------------------------------------------------------------- the forms


PAIRS = ["Ash", "Birch", "Cedar", "Elm", "Fir"]


@pytest.mark.slow
@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_mitchell_of_five_pairs_with_a_sit_out_each_round(server: LiveServer) -> None:
    rng = random.Random(11)
    n = night(server, [(p, [f"{p}1", f"{p}2"]) for p in PAIRS])
    made = create(n, "mitchell", "partners", 3)
    assert made["rounds"] == 3 and made["definition"]["count"] == 3
    movement = mitchell(5, 3, 1)
    plays = plays_of(movement)
    for round_ in (1, 2, 3):
        start(n, round_)
        if round_ == 1:
            refused(n.organiser.http.post(f"{n.url}/start"), 409, "event.stage_running")
        play_round(n, round_, rng, plays, seats_of(n, movement, round_))
        # the phantom: one pair sits out each round, a different one each time
        assert len(n.sat_out[round_]) == 2
    # the phantom (E–W) meets each N–S pair once: each sits out one round
    out = [next(p for p, players in n.entrants if set(players) == n.sat_out[r]) for r in (1, 2, 3)]
    assert sorted(out) == PAIRS[:3]
    records = check_over(n)
    event = n.summary()
    percents = check_pairs(event, records)

    # the referee's desk: a penalty moves the pair's percentage by its points, a correction
    # gives a table's raw scores on a board anew (with its reason), then the results are published
    desk = f"{n.url}/adjustments"
    refused(n.stranger.http.post(desk, json={"type": "penalty", "entrant": "Ash", "points": -5, "reason": "x"}),
            403, "event.organiser_only")
    penalised = n.organiser.http.post(desk, json={"type": "penalty", "entrant": "Ash", "points": -7.5,
                                                  "reason": "slow play"})
    assert penalised.status_code == 200, penalised.text
    after = check_pairs(penalised.json(), records, penalties={"Ash": -7.5})
    assert after == {**percents, "Ash": pytest.approx(percents["Ash"] - 7.5, abs=1e-9)}
    assert penalised.json()["log"][-1]["details"] == {"entrant": "Ash", "points": -7.5, "round": 3}

    first = records[0]
    where = (first["seating"]["round"], first["seating"]["table"])
    board = first["board"]["number"]
    raw = {"N": -100, "E": 0, "S": 0, "W": 100}
    corrected = n.organiser.http.post(desk, json={"type": "correction", "table": where[1], "board": board,
                                                  "raw": raw, "reason": "the pig at the wrong seat"})
    assert corrected.status_code == 200, corrected.text
    fixed = corrected.json()
    row = next(r for r in fixed["board_results"] if r["board"] == board)
    cell = next(c for c in row["tables"] if (c["round"], c["table"]) == where)
    assert cell["raw"] == raw and cell["ns_result"] == -100
    line = next(t for t in row["traveller"]["rows"] if (t["round"], t["table"]) == where)
    assert line["raw"] == raw and line["ns_result"] == -100
    others = [c for c in row["tables"] if (c["round"], c["table"]) != where]
    assert all(c["raw"] == next(r["raw"] for r in records if r["board"]["number"] == board
                                and (r["seating"]["round"], r["seating"]["table"]) == (c["round"], c["table"]))
               for c in others)
    check_pairs(fixed, records, corrected={where: raw}, penalties={"Ash": -7.5})
    assert [(a["type"], a["reason"]) for a in fixed["adjustments"]] == [
        ("penalty", "slow play"), ("correction", "the pig at the wrong seat")]
    entry = fixed["log"][-1]
    assert (entry["by"], entry["action"], entry["reason"]) == ("Referee", "correction", "the pig at the wrong seat")
    assert entry["details"] == {"round": where[0], "table": where[1], "board": board, "raw": raw}

    check_rankings_csv(n, fixed, "-provisional")

    published = n.organiser.http.post(f"{n.url}/publish")
    assert published.status_code == 200 and published.json()["published"] and not published.json()["provisional"]
    check_pairs(n.summary(), records, corrected={where: raw}, penalties={"Ash": -7.5})
    check_rankings_csv(n, n.summary(), "")
    refused(n.organiser.http.post(desk, json={"type": "penalty", "entrant": "Elm", "points": -1, "reason": "late"}),
            409, "event.published")


@pytest.mark.slow
@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_howell_of_four_pairs_meets_every_pair_once(server: LiveServer) -> None:
    rng = random.Random(12)
    n = night(server, [(p, [f"{p}1", f"{p}2"]) for p in PAIRS[:4]])
    create(n, "howell", "tournament", 3, named=False)
    names = [f"{p}1 & {p}2" for p in PAIRS[:4]]
    assert [name for name, _ in n.entrants] == names
    movement = howell(4, 3, 1)
    plays = plays_of(movement)
    met: list[frozenset[str]] = []
    for round_ in (1, 2, 3):
        start(n, round_)
        play_round(n, round_, rng, plays, seats_of(n, movement, round_))
        assert round_ not in n.sat_out
        event = n.summary()
        met += [frozenset((t["ns"], t["ew"])) for t in event["tables"] if t["round"] == round_]
        # every table of a round plays the round's board
        assert {b for t in event["tables"] if t["round"] == round_ for b in t["boards"]} == {round_}
    assert sorted(map(sorted, met)) == sorted(sorted((a, b)) for i, a in enumerate(names) for b in names[i + 1:])
    records = check_over(n)
    check_pairs(n.summary(), records)


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_an_individual_event_of_eight_players(server: LiveServer) -> None:
    """The individual movement seats a multiple of four players (no sit-out): eight players at
    two tables, two of its seven rounds."""
    rng = random.Random(13)
    players = [f"Ivy{i}" for i in range(1, 9)]
    n = night(server, [(p, [p]) for p in players])
    bad = n.organiser.http.post("/api/events", json={"name": "Five", "form": "individual", "preset": "online",
                                                      "entrants": [{"players": [p]} for p in players[:5]]})
    refused(bad, 400, "event.bad_movement")
    create(n, "individual", "online", 2, named=False)
    movement = individual(8, 2, 1)
    plays = plays_of(movement)
    partners: list[frozenset[str]] = []
    for round_ in (1, 2):
        start(n, round_)
        tables = play_round(n, round_, rng, plays, seats_of(n, movement, round_))
        assert round_ not in n.sat_out
        partners += [frozenset((t["N"], t["S"])) for t in tables.values()]
        partners += [frozenset((t["E"], t["W"])) for t in tables.values()]
    assert len(set(partners)) == len(partners) == 8  # nobody partners anyone twice
    records = check_over(n)
    event = n.summary()
    assert event["preset"] == "online"
    check_individuals(event, records)


TEAMS = ["Cedar", "Ash", "Birch"]  # entrant 1, 2, 3: level teams are taken in their names' order


def ranking_by_hand(standing: dict[str, Standing]) -> list[str]:
    """The teams best first: match points, then points (level teams in their names' order)."""
    return sorted(standing, key=lambda t: (-standing[t].match_points, -standing[t].points, t))


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_swiss_of_three_teams_pairs_round_two_by_the_standings(server: LiveServer) -> None:
    rng = random.Random(14)
    n = night(server, [(t, [f"{t}{i}" for i in range(1, 5)]) for t in TEAMS])
    made = create(n, "teams", "partners", 2)
    assert made["swiss"] and made["stages"] == 2
    number = {t: i + 1 for i, t in enumerate(TEAMS)}
    played: list[tuple[int, int]] = []
    byes: list[int] = []
    records: list[Message] = []
    plays: dict[int, set[Where]] = {}
    for round_ in (1, 2):
        standing, _ = team_tally(records, TEAMS)
        ranking = [number[t] for t in ranking_by_hand(standing)]
        matches, bye = swiss_pairings(ranking, played, byes)
        start(n, round_)
        event = n.summary()
        pairing = [e["details"] for e in event["log"] if e["action"] == "pairing"]
        assert pairing[-1] == {"round": round_, "matches": [list(m) for m in matches], "bye": bye}
        assert bye is not None and len(matches) == 1
        [(home, away)] = matches
        h, a = n.entrants[home - 1][1], n.entrants[away - 1][1]
        seats = {1: {"N": h[0], "E": a[0], "S": h[1], "W": a[1]}, 2: {"N": a[2], "E": h[2], "S": a[3], "W": h[3]}}
        plays[round_] = {(round_, 1), (round_, 2)}  # round r plays board r at both tables of its match
        play_round(n, round_, rng, plays, seats)
        assert n.sat_out[round_] == set(n.entrants[bye - 1][1])
        played.append((home, away))
        byes.append(bye)
        records = n.records()
    assert byes[0] != byes[1]  # no team has a second bye while another has had none
    assert check_over(n) == records

    event = n.summary()
    standing, boards = team_tally(records, TEAMS)
    for row in event["board_results"]:
        [match] = row["teams"]
        assert match["points"] == boards[row["board"]]
        assert match["round"] == row["board"] and {match["home"], match["away"]} == set(boards[row["board"]])
    for m in event["matches"]:
        home_points = boards[m["round"]][m["home"]]
        assert (m["home_total"], m["away_total"]) == (home_points, -home_points)
        assert m["winner"] == (None if home_points == 0 else (m["home"] if home_points > 0 else m["away"]))
    [ranking] = event["rankings"]
    assert [r["entrant"] for r in ranking["rows"]] == ranking_by_hand(standing)
    assert {r["entrant"]: (r["match_points"], r["points"], r["byes"]) for r in ranking["rows"]} == {
        t: (s.match_points, s.points, s.byes) for t, s in standing.items()}


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_an_event_with_a_start_time_runs_its_rounds_by_itself(server: LiveServer, clock: SetClock) -> None:
    rng = random.Random(15)
    n = night(server, [(p, [f"{p}1", f"{p}2"]) for p in PAIRS[:4]])
    starts_at = NOW + 600
    made = create(n, "howell", "partners", 2, starts_at=starts_at)
    assert made["starts_at"] == datetime.fromtimestamp(starts_at, UTC).isoformat()
    movement = howell(4, 2, 1)
    plays = plays_of(movement)

    def stage_listed() -> int:
        """The stage the organiser's list of events gives (a read that begins nothing)."""
        [mine] = n.organiser.http.get("/api/events").json()["events"]
        stage: int = mine["stage"]
        return stage

    # nothing begins before the start time, however often the page is read
    clock.t = starts_at - 1
    for person in (n.organiser, n.people["Ash1"], n.stranger):
        event = n.summary(person)
        assert event["status"] == "waiting" and event["stage"] == 0 and event["tables"] == []
    assert n.summary(n.people["Ash1"])["me"]["table"] is None

    # once it has passed, the first round begins without the organiser
    clock.t = starts_at + 1
    event = n.summary(n.people["Ash1"])
    assert event["status"] == "playing" and event["stage"] == 1, event["log"]
    assert n.summary(n.people["Ash1"])["me"]["table"] is not None

    def second_round(every_table: bool) -> None:
        """Read before anyone reads the event's page again: the second round waits for every
        table of the first, and the last table's board begins it."""
        if not every_table:
            assert stage_listed() == 1 and n.summary()["stage"] == 1
            return
        end = time.monotonic() + 30
        while stage_listed() != 2:
            assert time.monotonic() < end, "the second round never began"
            time.sleep(0.02)

    # the next round begins by itself as soon as every table has finished this one
    play_round(n, 1, rng, plays, seats_of(n, movement, 1), then=second_round)
    play_round(n, 2, rng, plays, seats_of(n, movement, 2))
    starts = [e for e in n.summary()["log"] if e["action"] == "start"]
    assert [(e["by"], e["details"]["stage"]) for e in starts] == [(None, 1), (None, 2)]
    records = check_over(n)
    check_pairs(n.summary(), records)
