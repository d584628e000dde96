"""Claims put to the others (声称, R5.4, under the tournament preset): a claim the exact search
cannot decide within the server's bound is put to the people opposing it, on a live server.

While they answer the deal stands still (no play is taken, the computers wait, the clock runs for
the answers); one contesting, or the time running out, withdraws the claim and play goes on where
it stood; all accepting end the deal along a line of every seat's plays that keeps the claim,
the record saying it was agreed.  Only the people asked may answer, once.  Without people among
the opponents (or under another preset) such a claim is refused as undecided.  The test holds the
server to the searches' own verdicts on the same positions, with a small bound.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from gongzhu.records.replay import replay
from gongzhu.rules.cards import Seat
from gongzhu.rules.claims import Claim, ClaimKind, claim_met
from gongzhu.rules.deal import Deal
from gongzhu.search.claims import check_claim
from gongzhu.server import clock as clock_module
from gongzhu.server.table import Table
from helpers.client import Browser, act, new_match
from helpers.live import Live, Someone
from helpers.servers import LiveServer
from test_tables import new_table

#: The claim search's bound on these tables: small, so that early claims are undecided.
LIMIT = 3000
RANDOM = {"N": "random", "W": "random"}
CLAIM = Claim(Seat.S, ClaimKind.NO_POINTS)


@pytest.fixture
def server(db_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(db_url, static_dir=tmp_path / "no-static") as s:
        s.app.state.tables.pools.claim_limit = LIMIT
        yield s


def table_of(server: LiveServer, table_id: str) -> Table:
    table = server.app.state.tables._tables[table_id]
    assert isinstance(table, Table)
    return table


def put_to_vote(deal: Deal) -> bool:
    """Whether South's ``no_points`` claim now is undecided within the bound, and some line of
    every seat's plays keeps it: the server then puts it to the others."""
    return (check_claim(deal, CLAIM, limit=LIMIT).holds is None
            and check_claim(deal, CLAIM, limit=LIMIT, agreed=True).holds is True)


def play_until_south_may_put(server: LiveServer, table_id: str, lives: dict[str, Live],
                             rng: random.Random, spent: int | None) -> Deal | None:
    """Play (South and East at random) until it is South's turn after the first trick with a claim
    to put to East (not in deal ``spent``: a seat claims once a deal); that deal (a copy), or None
    if the deal ended first."""
    south, east = lives["S"], lives["E"]
    while True:
        for live in lives.values():
            live.drain(0.02)
        state = south.state
        if state["phase"] in ("deal-over", "match-over"):
            return None
        if state["phase"] == "expose":
            for seat, live in lives.items():
                if seat in live.state.get("undeclared", []) and live.state.get("my_declaration") is None:
                    live.send({"type": "expose", "cards": []})
            south.until(lambda s: s["phase"] != "expose")
            continue
        if state["phase"] != "play":
            continue
        if state["turn"] == "S":
            deal = table_of(server, table_id).match.current
            assert deal is not None
            if deal.tricks and deal.deal_index != spent and put_to_vote(deal):
                return deal.copy()
            south.send({"type": "play", "cards": rng.choice(state["legal"])})
            south.until(lambda s, v=state["v"]: s["v"] > v)
        elif state["turn"] == "E":
            e_state = east.until(lambda s, v=state["v"]: s["v"] >= v)
            east.send({"type": "play", "cards": rng.choice(e_state["legal"])})
            south.until(lambda s, v=state["v"]: s["v"] > v)
        else:
            south.until(lambda s, v=state["v"]: s["v"] > v)


def claims(live: Live) -> list[dict[str, Any]]:
    return [m for m in live.messages if m["type"] == "claim"]


def test_a_claim_the_search_cannot_decide_is_put_to_the_people_opposing_it(
        server: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    south_person, east_person = Someone(server), Someone(server)

    def new_tournament_table() -> tuple[str, Live, Live]:
        """South's table under the tournament preset, East a person, North and West computers."""
        table_id = new_table(south_person, preset="tournament", levels=RANDOM)["table_id"]
        south, east = south_person.connect(table_id), east_person.connect(table_id)
        east.send({"type": "sit", "seat": "E"})
        south.until(lambda s: s["table"]["seats"]["E"]["name"] == east_person.name)
        south.send({"type": "start"})
        return table_id, south, east

    table_id, south, east = new_tournament_table()
    lives = {"S": south, "E": east}
    rng = random.Random(5)
    seen = {"contested": 0, "unanswered": 0, "agreed": 0}
    spent: int | None = None
    monkeypatch.setattr(clock_module, "CLAIM_SECONDS", 1)  # the answers' time, short here
    for _ in range(30):
        if seen["agreed"]:
            break
        deal = play_until_south_may_put(server, table_id, lives, rng, spent)
        if deal is None and south.state["phase"] == "match-over":  # (a short match): another table
            for live in lives.values():
                live.close()
            table_id, south, east = new_tournament_table()
            lives, spent = {"S": south, "E": east}, None
            continue
        if deal is None:  # the deal ended: the next one
            south.send({"type": "next"})
            south.until(lambda s: s["phase"] in ("expose", "play"))
            continue
        before = south.state
        south.send({"type": "claim", "kind": "no_points"})
        state = south.until(lambda s: s["claim"] is not None)
        put = claims(south)[-1]
        assert put == {"type": "claim", "v": state["v"], "seat": "S", "kind": "no_points", "value": None,
                       "vote": ["E"]}
        assert state["claim"] == {"type": "claim", "seat": "S", "kind": "no_points", "value": None,
                                  "voters": ["E"], "accepted": []}
        assert state["clock"]["kind"] == "claim" and state["clock"]["seats"] == ["E"]
        assert state["turn"] == "S" and state["trick"] == before["trick"]
        east.until(lambda s, v=state["v"]: s["v"] >= v and s["claim"] is not None)
        # The deal stands still: South may not play; only East answers, and South may not claim again.
        assert south.refused({"type": "play", "cards": state["legal"][0]})["code"] == "server.claim_waiting"
        assert south.refused({"type": "claim_answer", "accept": True})["code"] == "server.claim_not_asked"
        assert south.refused({"type": "claim", "kind": "all_tricks"})["code"] == "server.claim_waiting"
        assert east.refused({"type": "claim_answer", "accept": "yes"})["message"]  # malformed
        if not seen["contested"]:
            east.send({"type": "claim_answer", "accept": False})
            after = south.until(lambda s: s["claim"] is None)
            assert claims(south)[-1]["accepted"] is False and claims(south)[-1]["contested"] == "E"
            seen["contested"] += 1
        elif not seen["unanswered"]:
            after = south.until(lambda s: s["claim"] is None, timeout=10)  # the second runs out
            assert claims(south)[-1]["accepted"] is False and claims(south)[-1]["unanswered"] == ["E"]
            seen["unanswered"] += 1
        else:
            east.send({"type": "claim_answer", "accept": True})
            end = south.until(lambda s: s["phase"] in ("deal-over", "match-over"))
            assert claims(south)[-1] == {"type": "claim", "v": claims(south)[-1]["v"], "seat": "S",
                                         "kind": "no_points", "value": None, "accepted": True, "agreed": True}
            assert east.refused({"type": "claim_answer", "accept": True})["code"] == "server.no_claim_waiting"
            record = south_person.http.get(f"/api/matches/{table_id}/deals/{end['deals_played'] - 1}").json()
            assert record["end"]["type"] == "claim" and record["end"]["agreed"] is True
            assert record["end"]["kind"] == "no_points" and record["end"]["seat"] == "S"
            assert claim_met(deal, replay(record), CLAIM)  # legal to the end, and the claim came true
            seen["agreed"] += 1
            continue
        # Withdrawn: play goes on where it stood, South's turn, nothing played; South's claim is spent.
        assert after["turn"] == "S" and after["trick"] == before["trick"] and after["hand"] == before["hand"]
        assert after["clock"] is None  # no turn timer at this table
        assert south.refused({"type": "claim", "kind": "no_points"})["code"] == "server.claim_used"
        spent = deal.deal_index
        south.send({"type": "play", "cards": rng.choice(after["legal"])})
        south.until(lambda s, v=after["v"]: s["v"] > v)
    assert seen == {"contested": 1, "unanswered": 1, "agreed": 1}, seen
    for live in lives.values():
        live.close()


def test_without_people_to_ask_an_undecided_claim_is_refused(client: TestClient) -> None:
    """Against computers only, or under another preset, nobody is asked: undecided is refused."""
    client.app.state.tables.pools.claim_limit = 1  # type: ignore[attr-defined]
    for preset in ("tournament", "online"):
        match_id = new_match(client, preset=preset, levels={s: "random" for s in "NEW"}, seed=3)
        rng = random.Random(3)
        with client.websocket_connect(f"/ws/{match_id}") as ws:
            browser = Browser(ws)
            state = browser.settle()
            while not (state["phase"] == "play" and state["tricks_played"] >= 1):
                act(browser, rng)
                state = browser.settle()
            assert browser.refused({"type": "claim", "kind": "no_points"})
            assert browser.messages[-1]["code"] == "server.claim_undecided"
            # While a claim of the seat is being checked (from another connection of the same
            # person), a second is refused: one question of the search at a time.
            table = client.app.state.tables.get(match_id)  # type: ignore[attr-defined]
            table.claims.checking.add(Seat.S)
            assert browser.refused({"type": "claim", "kind": "all_tricks"})
            assert browser.messages[-1]["code"] == "server.claim_used"
            table.claims.checking.discard(Seat.S)
            assert browser.refused({"type": "claim_answer", "accept": True})
            assert browser.messages[-1]["code"] == "server.no_claim_waiting"
