"""Claims (声称, R5.4) at a table of the browser game, and deals that finish by themselves.

South claims through the WebSocket; the server checks the claim with the exact search
(:func:`gongzhu.search.claims.check_claim`) and the test holds its answer to the search's own
verdict on the same position: a claim that holds ends the deal along its line, the record noting
the claim; one that does not is refused (a catalog message saying by which trick the others can
break it, and no card of theirs) and changes nothing but spending the seat's claim for the deal;
a claim before the first lead is refused.  A deal in which no card left can change a
score is played to its end by the server, in one published change, its record saying so.
"""

from __future__ import annotations

import random
from typing import Any

from starlette.testclient import TestClient

from gongzhu.records.replay import replay
from gongzhu.rules.cards import Seat
from gongzhu.rules.claims import Claim, ClaimKind, settled
from gongzhu.search.claims import check_claim
from gongzhu.server.table import Table
from helpers.client import Browser, act, deal_of, new_match

RANDOM = {"N": "random", "E": "random", "W": "random"}


def table_of(client: TestClient, match_id: str) -> Table:
    table = client.app.state.tables.get(match_id)  # type: ignore[attr-defined]
    assert isinstance(table, Table)
    return table


def record(client: TestClient, match_id: str, k: int = 0) -> dict[str, Any]:
    r = client.get(f"/api/matches/{match_id}/deals/{k}")
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def test_a_claim_before_the_first_lead_is_refused(client: TestClient) -> None:
    match_id = new_match(client, levels=RANDOM, seed=3)
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        state = browser.settle()
        assert state["phase"] == "expose"
        browser.refused({"type": "claim", "kind": "all_tricks"})
        assert browser.messages[-1]["code"] == "server.claim_not_now"
        browser.refused({"type": "claim", "kind": "sometimes"})  # not a kind of claim
        browser.refused({"type": "claim", "kind": "score", "value": "lots"})


def test_claims_are_decided_as_the_exact_search_decides_them(client: TestClient) -> None:
    """R5.4: at South's turns, South claims; the server's answer is the search's verdict on the
    same position — accepted claims end the deal (the record shows the claim and the line),
    refused ones change nothing and say why."""
    seen: dict[str, int] = {"held": 0, "refused": 0}
    limit = 20_000  # the server's bound here (a decided claim is decided alike under any bound)
    client.app.state.tables.pools.claim_limit = limit  # type: ignore[attr-defined]
    for seed in range(1, 40):
        if seen["held"] >= 2 and seen["refused"] >= 2:
            break
        match_id = new_match(client, levels=RANDOM, seed=seed)
        rng = random.Random(seed)
        spent = False  # a seat claims once a deal
        with client.websocket_connect(f"/ws/{match_id}") as ws:
            browser = Browser(ws)
            state = browser.settle()
            while state["phase"] not in ("deal-over", "match-over"):
                deal = deal_of(table_of(client, match_id))
                if state["phase"] == "play" and deal.tricks and deal.turn == Seat.S and spent:
                    browser.refused({"type": "claim", "kind": "no_points"})
                    assert browser.messages[-1]["code"] == "server.claim_used"
                elif state["phase"] == "play" and deal.tricks and deal.turn == Seat.S:
                    kind = ClaimKind.ALL_TRICKS if len(deal.hand(Seat.S)) <= 5 else ClaimKind.NO_POINTS
                    verdict = check_claim(deal, Claim(Seat.S, kind), limit=limit)
                    if verdict.holds is not None and (seen["held" if verdict.holds else "refused"] < 2):
                        before = state
                        browser.send({"type": "claim", "kind": kind.value})
                        if verdict.holds:
                            seen["held"] += 1
                            while state["phase"] not in ("deal-over", "match-over"):
                                state = browser.settle()
                            rec = record(client, match_id)
                            assert rec["end"]["type"] == "claim" and rec["end"]["seat"] == "S"
                            assert rec["end"]["kind"] == kind.value
                            claimed = [m for m in browser.messages if m["type"] == "claim"]
                            assert claimed and claimed[-1]["accepted"] is True
                            replay(rec)  # the line played is legal to the end
                            break
                        seen["refused"] += 1
                        spent = True
                        reply = browser.receive()
                        while reply["type"] != "error":
                            assert reply == {"type": "claim", "v": reply["v"], "seat": "S", "kind": kind.value,
                                             "value": None, "accepted": False}  # no card of another hand
                            reply = browser.receive()
                        assert reply["code"] == "server.claim_refused"
                        assert set(reply["params"]) == {"trick"} and reply["params"]["trick"] > len(deal.tricks)
                        assert deal_of(table_of(client, match_id)).position() == deal.position()
                        assert browser.state == before
                act(browser, rng)
                state = browser.settle()
    assert seen["held"] >= 1 and seen["refused"] >= 1, seen


def test_a_deal_with_nothing_left_to_score_finishes_by_itself(client: TestClient) -> None:
    """R5.4: once no card left can change a score, the server plays the deal to its end in one
    change; the record says how and from which trick; the last trick never waits for anyone."""
    for seed in range(1, 12):
        match_id = new_match(client, levels=RANDOM, seed=seed)
        rng = random.Random(seed)
        with client.websocket_connect(f"/ws/{match_id}") as ws:
            browser = Browser(ws)
            state = browser.settle()
            while state["phase"] not in ("deal-over", "match-over"):
                deal = deal_of(table_of(client, match_id))
                assert deal.is_over or settled(deal) is None  # a settled deal is never left waiting
                act(browser, rng)
                state = browser.settle()
        rec = record(client, match_id)
        end = rec["end"]
        assert end["type"] == "settled" and end["reason"] in ("forced", "nothing_scores")
        assert 1 <= end["from_trick"] <= 13
        assert replay(rec).is_over


def test_a_spent_claim_stays_spent_when_the_table_is_loaded_again(client: TestClient) -> None:
    """R5.4: a seat claims once a deal, an undecided claim included (what the search found tells
    of the hands too), and the table rebuilt from the store (its last connection gone, as after a
    restart or on another server) knows it: asking again and again, reconnecting between the
    questions, reads out nothing of the other hands."""
    limit = 1  # the server's bound: an early claim stays undecided
    client.app.state.tables.pools.claim_limit = limit  # type: ignore[attr-defined]
    tables = client.app.state.tables  # type: ignore[attr-defined]
    match_id = new_match(client, levels=RANDOM, seed=11)
    rng = random.Random(11)
    claim = {"type": "claim", "kind": "no_points"}
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        state = browser.settle()
        while True:
            deal = deal_of(table_of(client, match_id))
            if state["phase"] == "play" and deal.tricks and deal.turn == Seat.S:
                break
            act(browser, rng)
            state = browser.settle()
        assert check_claim(deal, Claim(Seat.S, ClaimKind.NO_POINTS), limit=limit).holds is None
        position = deal.position()
        browser.refused(claim)
        assert browser.messages[-1]["code"] == "server.claim_undecided"
        browser.refused(claim)
        assert browser.messages[-1]["code"] == "server.claim_used"
    assert tables._tables.get(match_id) is None  # let go with its last connection
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        browser.settle()
        again = deal_of(table_of(client, match_id))
        assert again is not deal and again.position() == position  # rebuilt from the store
        for kind in ("no_points", "all_tricks"):
            browser.refused({"type": "claim", "kind": kind})
            assert browser.messages[-1]["code"] == "server.claim_used"
        act(browser, rng)  # play goes on as before
        browser.settle()
