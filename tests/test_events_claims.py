"""The referee rules on a contested claim (docs/tournaments.md, Events on the server): at an
event's table under the tournament preset, a claim the table's bounded search cannot decide is put
to the people opposing it; contested, play goes on and the claim goes to the referee.  It shows at
the referee's desk only once every table has played the board; the referee's ruling searches it
again from where it was made with a far larger bound, and if it holds, the table's raw scores on
the board become those of the deal finished along it (a correction with the ruling's reason).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gongzhu.records.replay import replay_states
from gongzhu.rules.deal import Deal, Phase
from gongzhu.search.claims import check_claim, finish_by_claim
from gongzhu.server.events import RULING_LIMIT
from helpers.clock import SetClock
from helpers.live import Live, Someone, account, befriend
from helpers.servers import LiveServer
from test_claims_vote import CLAIM, LIMIT, claims, play_until_south_may_put
from test_events_server import drive, finished, refused

#: Boards of the match: South's no-points claim goes to a vote on about three boards in four
#: (random South and East, intermediate computers), so six boards all without one are rare (~1 in 4,000).
BOARDS = 6


@pytest.fixture
def clock() -> SetClock:
    return SetClock(1_796_085_000.0)


@pytest.fixture
def server(db_url: str, tmp_path: Path, clock: SetClock) -> Iterator[LiveServer]:
    with LiveServer(db_url, static_dir=tmp_path / "no-static", now=clock, trusted_proxies=["127.0.0.1"]) as s:
        s.app.state.tables.pools.claim_limit = LIMIT  # small: early claims go to the people opposing
        yield s


def contest_a_claim(server: LiveServer, table_id: str, at_table: dict[str, Live], rng: random.Random,
                    boards: int) -> Deal:
    """Play the table (South and East people, ``at_table``) until South's no-points claim is put to
    East, who contests it; the deal as it stood then (a copy).  Fails if no board of the match
    gives South such a claim."""
    south, east = at_table["S"], at_table["E"]
    for _ in range(boards):
        deal = play_until_south_may_put(server, table_id, at_table, rng, None)
        if deal is None:
            if south.state["phase"] == "match-over":
                break
            south.send({"type": "next"})
            south.until(lambda s: s["phase"] in ("expose", "play"))
            continue
        south.send({"type": "claim", "kind": "no_points"})
        south.until(lambda s: s["claim"] is not None)
        east.until(lambda s: s["claim"] is not None)
        east.send({"type": "claim_answer", "accept": False})
        south.until(lambda s: s["claim"] is None)
        assert claims(south)[-1]["contested"] == "E"
        return deal
    raise AssertionError("no claim went to a vote in this match")


@dataclass
class ClaimsNight:
    """A started team match under the tournament preset (:func:`claims_night`): its referee, the
    red team, the event, table 1's match and the connections at both tables."""

    referee: Someone
    red: list[Someone]
    event_id: str
    one: str
    at_one: dict[str, Live]
    at_two: dict[str, Live]


def claims_night(server: LiveServer, clock: SetClock, names: tuple[str, str, str], net: str,
                 boards: int) -> ClaimsNight:
    """A team match of ``boards`` boards under the tournament preset, made and started by the
    referee (``names``: the referee's name and the two teams' name stems; ``net``: the first two
    parts of their addresses).  At table 1 only South and East come — computers stand in for North
    and West once the grace has passed (checked) — and table 2's four players are all there."""
    judge, reds, blues = names
    referee = account(server, judge, f"{net}.0.1")
    red = [account(server, f"{reds}{i}", f"{net}.1.{i}") for i in range(1, 5)]
    blue = [account(server, f"{blues}{i}", f"{net}.2.{i}") for i in range(1, 5)]
    befriend(referee, *red, *blue)
    teams = [{"name": "红", "players": [p.name for p in red]}, {"name": "蓝", "players": [p.name for p in blue]}]
    made = referee.http.post("/api/events", json={"name": "Claims night", "form": "teams", "preset": "tournament",
                                                  "boards": boards, "turn_seconds": 300, "grace_seconds": 60,
                                                  "entrants": teams})
    assert made.status_code == 201, made.text
    event_id = made.json()["id"]
    assert referee.http.post(f"/api/events/{event_id}/start").status_code == 200
    one = red[1].http.get(f"/api/events/{event_id}").json()["me"]["table"].removeprefix("/table/")
    two = blue[2].http.get(f"/api/events/{event_id}").json()["me"]["table"].removeprefix("/table/")
    at_one = {"S": red[1].connect(one), "E": blue[0].connect(one)}
    at_two = {"N": blue[2].connect(two), "E": red[2].connect(two), "S": blue[3].connect(two), "W": red[3].connect(two)}
    clock.t += 61
    log = referee.http.get(f"/api/events/{event_id}").json()["log"]
    assert sorted(d["details"]["seat"] for d in log if d["action"] == "stand_in") == ["N", "W"]
    return ClaimsNight(referee, red, event_id, one, at_one, at_two)


def test_a_contested_claim_is_ruled_on_from_the_solvers_verdict(server: LiveServer, clock: SetClock) -> None:
    rng = random.Random(11)
    night = claims_night(server, clock, ("Referee", "Red", "Blue"), "10.8", BOARDS)
    referee, red, event_id, one, at_one, at_two = (night.referee, night.red, night.event_id, night.one,
                                                   night.at_one, night.at_two)

    contested = contest_a_claim(server, one, at_one, rng, BOARDS)
    board = contested.deal_index + 1

    # the claim is the referee's once every table has played the board: not before
    event = referee.http.get(f"/api/events/{event_id}").json()
    assert not [e for e in event["log"] if e["action"] == "claim"] and event["claims"] == []
    refused(referee.http.post(f"/api/events/{event_id}/rulings", json={"claim": 1, "reason": "x"}), 400,
            "event.unknown_claim")
    hidden = next(e["n"] for e in server.app.state.tables.events._log(server.app.state.tables.events.get(event_id))
                  if e["action"] == "claim")
    # asked for by its number (a gap in the desk's numbers, or the number after the last), it is
    # answered as no claim at all: nothing tells the desk of a board not played everywhere yet
    refused(referee.http.post(f"/api/events/{event_id}/rulings", json={"claim": hidden, "reason": "early"}), 400,
            "event.unknown_claim")
    # nor does a gap in the log's numbers tell a player a claim was contested somewhere (an entry
    # after it: a penalty)
    penalty = {"type": "penalty", "entrant": "蓝", "points": -1, "reason": "late"}
    assert referee.http.post(f"/api/events/{event_id}/adjustments", json=penalty).status_code == 200
    seen = red[0].http.get(f"/api/events/{event_id}").json()["log"]
    assert seen[-1]["action"] == "penalty" and [e["n"] for e in seen] == list(range(1, len(seen) + 1))

    drive(at_one, rng, finished(BOARDS), timeout=240)
    drive(at_two, rng, finished(BOARDS), timeout=240)
    event = referee.http.get(f"/api/events/{event_id}").json()
    [claim] = event["claims"]
    assert (claim["n"], claim["board"], claim["table"], claim["seat"], claim["kind"], claim["contested"]) == (
        hidden, board, 1, "S", "no_points", "E")
    assert claim["ruling"] is None

    # what the solver says, worked out here from the record
    records = [json.loads(line) for line in referee.http.get(f"/api/events/{event_id}/records.jsonl").text.splitlines()]
    record = next(r for r in records if r["board"]["number"] == board and r["seating"]["table"] == 1)
    at = next(d.copy() for d in replay_states(record)
              if d.phase is Phase.PLAY and sum(len(t.plays) for t in d.tricks) + len(d.current_trick)
              == claim["from_play"])
    assert sorted(c.code for c in at.hand(CLAIM.seat)) == sorted(c.code for c in contested.hand(CLAIM.seat))
    verdict = check_claim(at, CLAIM, limit=RULING_LIMIT)

    desk = f"/api/events/{event_id}/rulings"
    refused(red[0].http.post(desk, json={"claim": hidden, "reason": "x"}), 403, "event.organiser_only")
    refused(referee.http.post(desk, json={"claim": hidden}), 400, "event.bad_reason")
    ruled = referee.http.post(desk, json={"claim": hidden, "reason": "裁定：按求解结果"})
    assert ruled.status_code == 202, ruled.text
    assert ruled.json()["claims"][0]["ruling"] == "searching"
    refused(referee.http.post(desk, json={"claim": hidden, "reason": "twice"}), 409, "event.claim_ruled")
    end = time.monotonic() + 300
    while (after := referee.http.get(f"/api/events/{event_id}").json())["claims"][0]["ruling"] == "searching":
        assert time.monotonic() < end, "the ruling's search never ended"
        time.sleep(0.5)
    expected = {True: "holds", False: "broken", None: "undecided"}[verdict.holds]
    assert after["claims"][0]["ruling"] == expected
    assert after["log"][-1]["action"] == "ruling" and after["log"][-1]["details"] == {"claim": hidden,
                                                                                       "verdict": expected}
    cell = next(t for t in next(b for b in after["board_results"] if b["board"] == board)["tables"]
                if t["table"] == 1)
    if verdict.holds:
        finish_by_claim(at, verdict)
        raw = dict(zip("NESW", at.score.raw, strict=True))
        assert after["log"][-2]["action"] == "correction" and after["log"][-2]["details"]["raw"] == raw
        assert cell["raw"] == raw
    else:
        assert cell["raw"] == record["raw"]
    refused(referee.http.post(desk, json={"claim": hidden, "reason": "again"}), 409, "event.claim_ruled")
    # a player sees the log numbered as shown, the ruling naming its claim by that number
    seen = red[0].http.get(f"/api/events/{event_id}").json()
    assert [e["n"] for e in seen["log"]] == list(range(1, len(seen["log"]) + 1))
    [theirs] = seen["claims"]
    shown = next(e for e in seen["log"] if e["action"] == "claim")
    assert theirs["n"] == shown["n"] and theirs["ruling"] == expected
    assert seen["log"][-1]["details"] == {"claim": shown["n"], "verdict": expected}
    for live in (*at_one.values(), *at_two.values()):
        live.close()
