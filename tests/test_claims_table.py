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
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
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
        version = table_of(client, match_id).version
        browser.refused(claim)
        assert browser.messages[-1]["code"] == "server.claim_undecided"
        browser.refused(claim)
        assert browser.messages[-1]["code"] == "server.claim_used"
        # Nobody else was told of the claim, and no gap in the versions tells of it.
        assert table_of(client, match_id).version == version
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


def test_a_claim_after_a_version_stored_late_keeps_the_table(client: TestClient) -> None:
    """A change whose version the store could not take a moment (a presence change: published all
    the same) leaves the table a version ahead of what it stored; a claim spent next stores the
    table at its version, and knows it did: the next play is taken, and the table is not let go
    as if another server ran it."""
    client.app.state.tables.pools.claim_limit = 1  # type: ignore[attr-defined]
    match_id = new_match(client, levels=RANDOM, seed=11)
    rng = random.Random(11)
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        state = browser.settle()
        while not (state["phase"] == "play" and deal_of(table_of(client, match_id)).tricks
                   and deal_of(table_of(client, match_id)).turn == Seat.S):
            act(browser, rng)
            state = browser.settle()
        table = table_of(client, match_id)
        store = table.hub.store
        kept = store.set_version

        def away(*_: Any, **__: Any) -> None:
            raise OSError("the store is away a moment")

        store.set_version = away  # type: ignore[method-assign]
        try:
            table.republish()
        finally:
            store.set_version = kept  # type: ignore[method-assign]
        browser.settle()
        assert table.stored == table.version - 1
        browser.refused({"type": "claim", "kind": "no_points"})
        assert table.stored == table.version
        act(browser, rng)
        browser.settle()
        assert not table.broken and table_of(client, match_id) is table


class AfterAPlay(ThreadPoolExecutor):
    """The hint pool, each search on it started only once the table has moved on: a play made
    while a claim's search ran, as a second tab of the claimer can make at will."""

    def __init__(self, table: Table) -> None:
        super().__init__(1)
        self.table = table

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        position = self.table.position

        def later() -> Any:
            deadline = time.monotonic() + 10
            while self.table.position == position and time.monotonic() < deadline:
                time.sleep(0.01)
            return fn(*args, **kwargs)

        return super().submit(later)


def test_a_claim_overtaken_by_a_play_is_spent_all_the_same(client: TestClient) -> None:
    """R5.4: South claims from one tab and plays from another while the search runs: the claim is
    answered ``server.claim_overtaken`` — after the search, whose time tells what it found — and
    is spent for the deal as any claim asked is, so the two tabs cannot time the open-card search
    at every turn."""
    match_id = new_match(client, levels=RANDOM, seed=12)
    rng = random.Random(12)
    with client.websocket_connect(f"/ws/{match_id}") as one, client.websocket_connect(f"/ws/{match_id}") as two:
        claimer, player = Browser(one), Browser(two)
        state = player.settle()
        claimer.settle()
        table = table_of(client, match_id)
        while not (state["phase"] == "play" and deal_of(table).tricks and deal_of(table).turn == Seat.S):
            act(player, rng)
            state = player.settle()
        pools = client.app.state.tables.pools  # type: ignore[attr-defined]
        kept, pools.hints = pools.hints, AfterAPlay(table)
        try:
            claimer.send({"type": "claim", "kind": "no_points"})
            player.send({"type": "play", "cards": state["legal"][0]})
            assert answer_to(claimer)["code"] == "server.claim_overtaken"
        finally:
            pools.hints.shutdown()
            pools.hints = kept
        for kind in ("no_points", "all_tricks"):
            claimer.send({"type": "claim", "kind": kind})
            assert answer_to(claimer)["code"] == "server.claim_used"


def answer_to(browser: Browser) -> dict[str, Any]:
    """The error answering the message just sent (the states published meanwhile read past); a
    claim that holds, ending the deal instead, fails."""
    while True:
        message = browser.receive()
        if message["type"] == "error":
            return message
        assert message["type"] != "claim", message
