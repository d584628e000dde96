"""The browser game's server (``docs/web-protocol.md``), through its HTTP routes and its
WebSocket, with Starlette's test client and computer players paced at 0 s.

The person's moves are chosen at random from the ``legal`` and ``exposable`` lists of the state
the server sent, so the tests do not depend on which cards are dealt; every message the server
sends is recorded and read for cards South may not see.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from gongzhu.players import observe
from gongzhu.players.expert import DEFAULT_THINK
from gongzhu.players.hints import hints
from gongzhu.records.replay import check_file, replay
from gongzhu.rules import PRESETS, OptionError, Seat, resolve_options, title_for
from gongzhu.rules.cards import ALL_CARDS, parse_card
from gongzhu.rules.scoring import is_point_card
from gongzhu.server import create_app
from gongzhu.server.bodies import SPEEDS
from gongzhu.server.registry import Tables
from gongzhu.server.store import Store
from gongzhu.server.table import Table
from gongzhu.server.thinking import DECISION_FLOOR, OVERRUN_WINDOW, SEARCH_FLOOR, Pools
from helpers.client import (
    Browser,
    Message,
    act,
    all_matches,
    assert_resumed,
    deal_of,
    local_client,
    new_match,
    state_message,
    unversioned,
    user_of,
)
from helpers.database import STORES

# ---------------------------------------------------------------------- what South may see

_CODE = re.compile(r"^[2-9TJQKA][SHCD]$")
_PRETTY = re.compile(r"([♠♥♣♦])(10|[2-9JQKA])")


def cards_named(obj: Any) -> set[str]:
    """Every card a JSON value names: card codes as whole strings (keys too), and cards written
    with suit symbols inside any text (``♠Q``, ``♣10``)."""
    found: set[str] = set()
    if isinstance(obj, dict):
        for key, value in obj.items():
            found |= cards_named(key) | cards_named(value)
    elif isinstance(obj, list):
        for value in obj:
            found |= cards_named(value)
    elif isinstance(obj, str):
        if _CODE.match(obj):
            found.add(obj)
        for suit, rank in _PRETTY.findall(obj):
            found.add(("T" if rank == "10" else rank) + "SHCD"["♠♥♣♦".index(suit)])
    return found


def check_no_hidden_cards(deal_messages: list[Message], record: Message) -> None:
    """Before the deal is over, each message names only cards in South's dealt hand, cards
    already played (as the record says, in order) or exposures once they are revealed: the other
    seats' declarations stay secret until the one ``revealed`` message, which shows every exposure
    that is not hidden at once; ``played`` messages follow the record's play order."""
    plays = [(p["seat"], p["cards"]) for t in record["tricks"] for p in t["plays"]]
    public = [e for e in record["exposures"] if e["kind"] != "hidden"]
    allowed = set(record["hands"]["S"])
    n = 0
    revealed = 0
    for message in deal_messages:
        if message["type"] == "state" and message["state"]["deal_result"] is not None:
            assert message is deal_messages[-1]
            break
        if message["type"] == "revealed":
            assert sorted(message["exposures"], key=repr) == sorted(public, key=repr), (message, public)
            allowed |= {e["card"] for e in public}
            revealed += 1
        if message["type"] == "played":
            assert revealed == (1 if _declared(deal_messages) else 0), "a play before the exposures were revealed"
            assert (message["seat"], message["cards"]) == plays[n], (message, plays[n])
            allowed |= set(plays[n][1])
            n += 1
        leaked = cards_named(message) - allowed
        assert not leaked, (leaked, message)
    assert n == len(plays)


def _declared(deal_messages: list[Message]) -> bool:
    """Whether the deal had an exposure phase."""
    return any(m["type"] == "state" and m["state"]["phase"] == "expose" for m in deal_messages)


def check_versions(messages: list[Message]) -> None:
    """Every table message carries the table's version ``v``: the messages of one change share
    it and its ``state`` comes last; a later change has a higher version.  Replies to the
    connection alone (hints, errors) carry none."""
    last = -1
    change: int | None = None  # the version of a change whose state has not come yet
    for message in messages:
        if message["type"] in ("hint", "error"):
            assert "v" not in message, message
            continue
        v = message["v"]
        assert isinstance(v, int) and not isinstance(v, bool), message
        if change is not None:
            assert v == change, (change, message)
        else:
            assert v > last, (last, message)
        if message["type"] == "state":
            assert message["state"]["v"] == v
            last, change = v, None
        else:
            change = v
    assert change is None, "a change without its state"


# ---------------------------------------------------------------------- whole matches


def play_match(client: TestClient, rng: random.Random, **body: Any) -> tuple[str, list[list[Message]], Browser]:
    """Play a whole match over the WebSocket; returns its id and the messages of each deal."""
    match_id = new_match(client, **body)
    deals: list[list[Message]] = []
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        current: list[Message] = []
        while True:
            start = len(browser.messages)
            state = browser.settle()
            current += browser.messages[start:]
            if state["phase"] in ("deal-over", "match-over"):
                deals.append(current)
                current = []
                if state["phase"] == "match-over":
                    break
            act(browser, rng)
    return match_id, deals, browser


def check_deal_scores(client: TestClient, match_id: str, deal_messages: list[Message]) -> Message:
    """The deal_result of a finished deal equals the engine's scores of its stored record."""
    result = deal_messages[-1]["state"]["deal_result"]
    record = client.get(result["record_url"]).json()
    deal = replay(record)
    score = deal.score
    for name, values in (("raw", score.raw), ("result", score.result), ("final", score.final)):
        assert result[name] == {s.name: values[s] for s in Seat}, name
    assert result["events"] == [{"seat": s.name, "event": e} for s, e in score.events]
    assert result["hands"] == record["hands"]
    assert result["exposures"] == record["exposures"]
    check_no_hidden_cards(deal_messages, record)
    return dict(record)


CASES: list[tuple[str, dict[str, Any]]] = [(name, {}) for name in PRESETS] + [("online", {"exposure": "hidden"})]


#: Every preset on SQLite; one deck and two decks on PostgreSQL.
WHOLE_MATCHES = [pytest.param("sqlite", p, o, id=f"{p}{'-hidden' if o else ''}") for p, o in CASES] + [
    pytest.param("postgresql", p, o, id=f"postgresql-{p}{'-hidden' if o else ''}", marks=pytest.mark.postgres)
    for p, o in [("online", {}), ("online2", {"exposure": "hidden"})]
]


@pytest.mark.slow
@pytest.mark.parametrize(("db_url", "preset", "overrides"), WHOLE_MATCHES, indirect=["db_url"])
def test_whole_match_over_websocket(client: TestClient, preset: str, overrides: dict[str, Any]) -> None:
    """A whole match under every preset (and hidden exposures): no message names a card South
    may not see before its deal is over; every deal's scores are the engine's; the totals, the
    records and the practice score add up (a single-player match is practice: the lifetime score
    and its title stay where they were)."""
    rng = random.Random(f"{preset}{overrides}")
    seed = rng.randrange(1 << 31)
    match_id, deals, browser = play_match(client, rng, preset=preset, options=overrides, seed=seed)
    options = resolve_options(preset, overrides)
    totals = [0, 0, 0, 0]
    south_finals = 0
    records = []
    for k, messages in enumerate(deals):
        record = check_deal_scores(client, match_id, messages)
        assert record["deal_index"] == k and record["options"] == options.to_dict()
        result = messages[-1]["state"]["deal_result"]
        totals = [t + result["result"][s.name] for t, s in zip(totals, Seat, strict=True)]
        assert messages[-1]["state"]["totals"] == dict(zip("NESW", totals, strict=True))
        south_finals += result["final"]["S"]
        records.append(record)
    final = browser.state
    assert final["phase"] == "match-over"
    top, bottom = max(totals), min(totals)
    assert final["match_result"]["winners"] == [s.name for s in Seat if totals[s] == top]
    assert set(final["match_result"]["pigs"]) >= {s.name for s in Seat if totals[s] == bottom}
    assert final["lifetime"] == {"score": 0, "title": title_for(0), "withheld": 0}
    summary = client.get(f"/api/matches/{match_id}").json()
    assert summary["over"] and summary["deals"] == len(deals)
    assert summary["totals"] == final["totals"] and summary["winners"] == final["match_result"]["winners"]
    download = client.get(f"/api/matches/{match_id}/records.jsonl")
    assert download.status_code == 200 and "attachment" in download.headers["content-disposition"]
    checked = check_file(download.text)
    assert [c.record.deal_index for c in checked] == list(range(len(deals)))
    assert [json.loads(line) for line in download.text.splitlines()] == records
    check_versions(browser.messages)
    me = user_of(client)
    assert (me.lifetime, me.deals, me.practice, me.practice_deals, me.matches) == (0, 0, south_finals, len(deals), 1)
    assert me.pigs == (1 if "S" in final["match_result"]["pigs"] else 0)
    if overrides.get("exposure") == "hidden":
        # The check above is not idle: other seats did expose hidden cards, shown as counts.
        counts = [m["state"]["hidden_counts"] for d in deals for m in d if m["type"] == "state"]
        assert any(c[s] for c in counts for s in "NEW")
    profile = client.get("/api/profile").json()
    assert {k: profile[k] for k in ("lifetime", "title", "matches", "deals", "practice")} == {
        "lifetime": 0, "title": title_for(0), "matches": 1, "deals": 0,
        "practice": {"score": south_finals, "deals": len(deals)}}


def test_the_state_shows_south_everything_public(client: TestClient) -> None:
    """The state's fields follow the spec: South's hand, its legal plays, the trick, the last
    trick, captured cards and card counts agree with the engine."""
    match_id = new_match(client, seed=11)
    tables: Tables = client.app.state.tables  # type: ignore[attr-defined]
    rng = random.Random(3)
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        state = browser.settle()
        assert state["phase"] == "expose" and state["seat"] == "S" and state["turn"] is None
        # The computer players have declared, in secret: nothing of theirs is shown yet.
        assert state["undeclared"] == ["S"] and state["declared"] == ["N", "E", "W"] and state["legal"] == []
        assert state["exposures"] == [] and state["my_declaration"] is None and state["clock"] is None
        assert state["levels"] == {"N": "random", "E": "beginner", "S": "intermediate", "W": "intermediate"}
        me = state["you"]
        assert me["seat"] == "S" and me["host"] and not me["auto"] and me["name"]
        seats = state["table"]["seats"]
        assert seats["S"] == {"name": me["name"], "title": state["lifetime"]["title"], "computer": None,
                              "auto": False, "connected": True, "timeouts": 0}
        assert {s: seats[s]["computer"] for s in "NEW"} == {"N": "random", "E": "beginner", "W": "intermediate"}
        assert state["table"]["status"] == "playing" and state["table"]["visibility"] == "private"
        assert state["table"]["host"] == me["name"] and state["table"]["invite"]
        for _ in range(20):
            act(browser, rng)
            state = browser.settle()
            table = tables.get(match_id)
            assert table is not None
            deal = deal_of(table)
            assert state["hand"] == [c.code for c in deal.hand(Seat.S)]
            assert state["legal"] == [[c.code for c in p] for p in deal.legal_plays()]
            assert state["trick"]["plays"] == [{"seat": s.name, "cards": [c.code for c in p]}
                                               for s, p in deal.current_trick]
            leader = deal.leader if state["phase"] == "play" else None
            assert state["trick"]["leader"] == (leader.name if leader is not None else None)
            assert state["tricks_played"] == len(deal.tricks)
            assert state["captured"] == {s.name: [c.code for c in deal.captured(s)] for s in Seat}
            assert state["cards_left"] == {s.name: len(deal.hand(s)) for s in Seat}
            if deal.tricks:
                last = deal.tricks[-1]
                assert state["last_trick"]["winner"] == last.winner.name
                assert state["last_trick"]["plays"][0]["seat"] == last.leader.name


# ---------------------------------------------------------------------- refused messages


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_malformed_and_illegal_messages_change_nothing(client: TestClient) -> None:
    match_id = new_match(client, seed=7)
    tables: Tables = client.app.state.tables  # type: ignore[attr-defined]
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        before = browser.settle()
        table = tables.get(match_id)
        assert table is not None
        hand = set(before["hand"])
        missing = next(c for c in ("QS", "JD", "TC", "AH") if c not in hand)
        plain = next(c for c in before["hand"] if c not in ("QS", "JD", "TC", "AH"))
        errors = [
            browser.refused("garbage"),
            browser.refused('{"type": "play", "type": "play", "cards": ["2C"]}'),
            browser.refused("[1, 2]"),
            browser.refused(b'{"type": "next"}'),
            browser.refused({"cards": []}),
            browser.refused({"type": "dance"}),
            browser.refused({"type": 3}),
            browser.refused({"type": "play"}),
            browser.refused({"type": "play", "cards": "2C"}),
            browser.refused({"type": "play", "cards": [2]}),
            browser.refused({"type": "play", "cards": []}),
            browser.refused({"type": "play", "cards": ["ZZ"]}),
            browser.refused({"type": "play", "cards": [before["hand"][0]]}),  # exposure phase
            browser.refused({"type": "expose"}),
            browser.refused({"type": "expose", "cards": [missing]}),
            browser.refused({"type": "expose", "cards": [plain]}),
            browser.refused({"type": "expose", "cards": [], "extra": 1}),
            browser.refused({"type": "expose", "cards": [], "kinds": ["shown"]}),
            browser.refused({"type": "next"}),
            browser.refused({"type": "hint"}),
            browser.refused({"type": "settings", "speed": "warp"}),
            browser.refused({"type": "settings"}),
            browser.refused({"type": "sit", "seat": "N"}),  # South sits already
            browser.refused({"type": "sit", "seat": "X"}),
            browser.refused({"type": "start"}),  # started when it was made
            browser.refused({"type": "chat", "text": ""}),
            browser.refused({"type": "chat", "text": " \u0007 "}),
            browser.refused({"type": "chat", "quick": "chat.quick.no_such_phrase"}),
            browser.refused({"type": "chat"}),
        ]
        assert "not a JSON message" in errors[0] and "duplicate key" in errors[1]
        assert "binary" in errors[3] and errors[5].startswith("$.type: must be one of ")
        assert f"does not hold {_pretty(missing)}" in errors[14]
        assert "cannot be exposed" in errors[15]
        assert "exposure phase" in errors[12]
        # Nothing changed: a second connection gets the same state, at the same version.
        with client.websocket_connect(f"/ws/{match_id}") as ws2:
            assert ws2.receive_json() == state_message(before)
        assert deal_of(table).undeclared == [Seat.N, Seat.E, Seat.S, Seat.W] and Seat.S not in table.pending

        # Play on until South must follow suit while holding another suit.
        browser.send({"type": "expose", "cards": []})
        state = browser.settle()
        first = True
        while state["phase"] == "play":
            legal = {c for p in state["legal"] for c in p}
            other = [c for c in state["hand"] if c not in legal]
            if other:
                expected = _engine_error(table, [other[0]])
                if first and not state["trick"]["plays"]:
                    assert "♣2" in expected  # the first lead of the match (R5.1)
                assert browser.refused({"type": "play", "cards": [other[0]]}) == expected
                held = {c.code for s in (Seat.N, Seat.E, Seat.W) for c in deal_of(table).hand(s)}
                stranger = sorted(held - set(state["hand"]))[0]
                assert browser.refused({"type": "play", "cards": [stranger]}) == _engine_error(table, [stranger])
                assert "does not hold" in _engine_error(table, [stranger])
                assert "exposure phase" in browser.refused({"type": "expose", "cards": []})
                assert "not over" in browser.refused({"type": "next"})
                with client.websocket_connect(f"/ws/{match_id}") as ws2:
                    assert ws2.receive_json() == state_message(state)
                if state["trick"]["plays"]:
                    break
            first = False
            browser.send({"type": "play", "cards": state["legal"][0]})
            state = browser.settle()
        assert state["phase"] == "play" and state["trick"]["plays"], "no follow-suit position found"


def test_out_of_turn_play_is_refused(client: TestClient) -> None:
    match_id = new_match(client, seed=21)
    tables: Tables = client.app.state.tables  # type: ignore[attr-defined]
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        browser.settle()
        browser.send({"type": "expose", "cards": []})
        state = browser.settle()
        tables.pools.pace = 60.0  # the next computer player now takes its time
        card = state["legal"][0]
        browser.send({"type": "play", "cards": card})
        played = browser.receive()
        assert unversioned(played) == {"type": "played", "seat": "S", "cards": card} and played["v"] > state["v"]
        while (reply := browser.receive())["type"] != "state":
            assert reply["type"] == "trick" and reply["v"] == played["v"]
        after = reply["state"]
        assert after["turn"] != "S" and reply["v"] == after["v"] == played["v"]
        table = tables.get(match_id)
        assert table is not None
        turn = Seat[after["turn"]]
        message = browser.refused({"type": "play", "cards": [after["hand"][0]]})
        assert message == f"it is {turn.english}'s turn, not South's"
        assert "your turn" in browser.refused({"type": "hint"})
        assert "your turn" in browser.refused({"type": "hint", "quick": True})
        with client.websocket_connect(f"/ws/{match_id}") as ws2:
            assert ws2.receive_json() == state_message(after)


def _pretty(code: str) -> str:
    return "♠♥♣♦"["SHCD".index(code[1])] + ("10" if code[0] == "T" else code[0])


def _engine_error(table: Table, cards: list[str]) -> str:
    try:
        deal_of(table).verify_play(cards, Seat.S)
    except ValueError as e:
        return str(e)
    raise AssertionError(f"{cards} is legal")


# ---------------------------------------------------------------------- hints, settings, next


def test_hint_settings_and_next(client: TestClient) -> None:
    match_id = new_match(client, seed=4, speed="slow")
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        state = browser.settle()
        assert state["speed"] == "slow"
        browser.send({"type": "settings", "speed": "fast"})
        assert browser.settle()["speed"] == "fast"
        assert client.get(f"/api/matches/{match_id}").json()["speed"] == "fast"
        browser.send({"type": "expose", "cards": []})
        state = browser.settle()
        browser.send({"type": "hint"})
        reply = browser.receive()
        assert reply["type"] == "hint" and reply["source"] == "search"
        hinted = [h["cards"] for h in reply["hints"]]
        assert sorted(hinted) == sorted(state["legal"])
        for h in reply["hints"]:
            assert isinstance(h["expected"], float) and h["reason"]["zh"] and h["reason"]["en"]
        rng = random.Random(1)
        while state["phase"] == "play":
            act(browser, rng)
            state = browser.settle()
        assert state["phase"] == "deal-over" and state["turn"] is None and state["legal"] == []
        assert state["deal_result"]["record_url"] == f"/api/matches/{match_id}/deals/0"
        browser.send({"type": "next"})
        state = browser.settle()
        assert state["deal_index"] == 1 and state["deals_played"] == 1
        assert state["phase"] == "expose" and state["deal_result"] is None and len(state["hand"]) == 13


def test_a_quick_hint_is_the_networks_ranking(client: TestClient) -> None:
    """``quick``: the network's ranking of the same position, answered with ``source`` network
    (the expert's with ``source`` search); once per position, shared by the connection's next
    quick request; in the exposure phase refused like the search hint."""
    match_id = new_match(client, seed=4)
    tables: Tables = client.app.state.tables  # type: ignore[attr-defined]
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        browser.settle()
        assert browser.refused({"type": "hint", "quick": True}) == browser.refused({"type": "hint"})
        browser.send({"type": "expose", "cards": []})
        state = browser.settle()
        assert state["phase"] == "play" and state["turn"] == "S"
        browser.send({"type": "hint", "quick": True})
        browser.send({"type": "hint", "quick": False})
        quick, search = browser.receive(), browser.receive()
        assert quick["source"] == "network" and search["source"] == "search"
        for reply in (quick, search):
            assert set(reply) == {"type", "deal_index", "hand_size", "source", "hints"} and "v" not in reply
            assert (reply["type"], reply["deal_index"], reply["hand_size"]) == \
                ("hint", state["deal_index"], len(state["hand"]))
            assert sorted(h["cards"] for h in reply["hints"]) == sorted(state["legal"])
            for h in reply["hints"]:
                assert isinstance(h["expected"], float) and h["reason"]["zh"] and h["reason"]["en"]
        expected = [h["expected"] for h in quick["hints"]]
        assert expected == sorted(expected, reverse=True)
        # The network's values, as hints(quick=True) gives them for South's view.
        table = tables.get(match_id)
        assert table is not None
        ranked = hints(observe(deal_of(table), Seat.S), quick=True)
        assert [(h["cards"], h["expected"]) for h in quick["hints"]] == \
            [([c.code for c in h.play], h.expected) for h in ranked]
        shared = table.thinking.quick_hint
        browser.send({"type": "hint", "quick": True})
        assert browser.receive() == quick and table.thinking.quick_hint is shared


@pytest.mark.parametrize(("value", "shown"), [
    ("yes", 'a string ("yes")'), (1, "an integer (1)"), (None, "null"), ([True], "an array ([true])"),
])
def test_a_malformed_quick_is_refused_and_the_connection_goes_on(client: TestClient, value: object,
                                                                 shown: str) -> None:
    match_id = new_match(client, seed=4)
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        browser.settle()
        browser.send({"type": "expose", "cards": []})
        state = browser.settle()
        assert browser.refused({"type": "hint", "quick": value}) == (
            "$.quick: must be true (the network's ranking, at once) or false (the expert's search), "
            f"not {shown}")
        assert browser.refused({"type": "hint", "quick": True, "pad": 1}) == "$: unknown field 'pad': expected 'quick'"
        browser.send({"type": "hint", "quick": True})
        reply = browser.receive()
        assert reply["source"] == "network" and sorted(h["cards"] for h in reply["hints"]) == sorted(state["legal"])


# ---------------------------------------------------------------------- persistence


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_restart_resumes_the_match(db_url: str, tmp_path: Path) -> None:
    """A server restart in the middle of a deal loses nothing: a new app on the same SQLite
    file shows the same table to the same browser (its session cookie), and the deal finishes
    and is stored as an R11 record."""
    rng = random.Random(8)
    static = tmp_path / "no-static"
    with local_client(create_app(db_url, pace=0, static_dir=static)) as client:
        match_id = new_match(client, seed=99, preset="online")
        cookies = dict(client.cookies)
        with client.websocket_connect(f"/ws/{match_id}") as ws:
            browser = Browser(ws)
            browser.settle()
            browser.send({"type": "expose", "cards": [], "kinds": []})
            for _ in range(5):
                browser.settle()
                act(browser, rng)
            before = browser.settle()
    assert before["phase"] == "play" and before["tricks_played"] >= 4
    with local_client(create_app(db_url, pace=0, static_dir=static), cookies) as client:
        with client.websocket_connect(f"/ws/{match_id}") as ws:
            browser = Browser(ws)
            after = browser.settle()
            assert_resumed(after, before)  # same hand, same trick, same totals, same everything
            while after["phase"] == "play":
                act(browser, rng)
                after = browser.settle()
        assert after["phase"] == "deal-over"
        checked = check_file(client.get(f"/api/matches/{match_id}/records.jsonl").text)
        assert len(checked) == 1 and checked[0].deal.score.final[Seat.S] == after["deal_result"]["final"]["S"]
        assert user_of(client).practice == after["deal_result"]["final"]["S"]
    # And once more between deals: the finished deal is shown, "next" deals the next one.
    with (local_client(create_app(db_url, pace=0, static_dir=static), cookies) as client,
          client.websocket_connect(f"/ws/{match_id}") as ws):
        browser = Browser(ws)
        assert_resumed(browser.settle(), after)
        browser.send({"type": "next"})
        state = browser.settle()
        assert state["deal_index"] == 1 and state["totals"] == after["totals"]


def test_restart_in_the_exposure_phase_of_a_hidden_deal(db_url: str, tmp_path: Path) -> None:
    """Exposure declarations are actions too: the computer players' secret declarations come
    back still secret (and are not declared again), and hidden kinds come back as they were."""
    with local_client(create_app(db_url, pace=0, static_dir=tmp_path)) as client:
        match_id = new_match(client, seed=5, options={"exposure": "hidden"})
        cookies = dict(client.cookies)
        with client.websocket_connect(f"/ws/{match_id}") as ws:
            waiting = Browser(ws).settle()
    assert waiting["declared"] == ["N", "E", "W"] and waiting["exposures"] == []
    with local_client(create_app(db_url, pace=0, static_dir=tmp_path), cookies) as client:
        with client.websocket_connect(f"/ws/{match_id}") as ws:
            browser = Browser(ws)
            assert_resumed(browser.settle(), waiting)
            cards = [e["card"] for e in waiting["exposable"]]
            browser.send({"type": "expose", "cards": cards})
            before = browser.settle()
        store: Store = client.app.state.store  # type: ignore[attr-defined]
        assert [a["seat"] for a in store.actions(match_id, 0) if a["type"] == "declare"] == ["N", "E", "W", "S"]
    with (local_client(create_app(db_url, pace=0, static_dir=tmp_path), cookies) as client,
          client.websocket_connect(f"/ws/{match_id}") as ws):
        assert_resumed(Browser(ws).settle(), before)
    assert [e for e in before["exposures"] if e["seat"] == "S"] == [
        {"seat": "S", "card": c, "kind": "hidden"} for c in cards
    ]


# ---------------------------------------------------------------------- speed


def test_a_play_is_answered_first_with_itself(client: TestClient) -> None:
    """South's play is answered first by its own ``played`` message (benchmarks/server.py
    measures how fast; this test only prints it)."""
    match_id = new_match(client, seed=3)
    rng = random.Random(5)
    times: list[float] = []
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        state = browser.settle()
        browser.send({"type": "expose", "cards": []})
        state = browser.settle()
        while state["phase"] == "play":
            started = time.perf_counter()
            browser.send({"type": "play", "cards": rng.choice(state["legal"])})
            first = browser.receive()
            times.append(time.perf_counter() - started)
            assert first["type"] == "played" and first["seat"] == "S"
            state = browser.settle()
    times.sort()
    print(f"first reply to a play: median {times[len(times) // 2] * 1000:.1f} ms, max {times[-1] * 1000:.1f} ms")


def paced_app(db_url: str, tmp_path: Path) -> tuple[Any, list[float]]:
    """An application whose computer players keep a pace of 0.05 s on a clock that stands still,
    and the waits they asked for (each, then, the whole wait)."""
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        await asyncio.sleep(0)

    app = create_app(db_url, pace=0.05, static_dir=tmp_path)
    tables: Tables = app.state.tables
    tables.pools.now, tables.pools.sleep = (lambda: 100.0), sleep
    return app, waits


def test_computer_players_take_the_pace(db_url: str, tmp_path: Path) -> None:
    """With a pace, each computer player waits the pace (half of it for an exposure) from when it
    began to think before it plays (the speed setting, here overridden), on the server's clock —
    here one that stands still, so each wait is the whole pace."""
    app, waits = paced_app(db_url, tmp_path)
    with local_client(app) as client:
        match_id = new_match(client, seed=3)
        with client.websocket_connect(f"/ws/{match_id}") as ws:
            browser = Browser(ws)
            state = browser.settle()
            declared = len(waits)
            assert declared == 3 and waits == [0.025] * 3  # N, E and W declare at half the pace
            browser.send({"type": "expose", "cards": []})
            state = browser.settle()
            while len(waits) < 10 and state["phase"] == "play":
                browser.send({"type": "play", "cards": state["legal"][0]})
                state = browser.settle()
    assert len(waits) >= 10 and waits[declared:] == [0.05] * (len(waits) - declared)


def test_a_searching_computer_shows_no_decision_sooner_than_a_searched_one(db_url: str, tmp_path: Path) -> None:
    """The expert answers a forced choice (one card it may play, nothing to expose) at once and
    searches otherwise: each of its decisions waits the same floor from when it began to think,
    here on a clock that stands still, so that how long it took tells nobody what it holds."""
    app, waits = paced_app(db_url, tmp_path)
    app.state.tables.pools.search_floor = SEARCH_FLOOR
    with local_client(app) as client:
        match_id = new_match(client, seed=3, levels={"N": "expert", "E": "expert", "W": "expert"})
        with client.websocket_connect(f"/ws/{match_id}") as ws:
            browser = Browser(ws)
            state = browser.settle()
            browser.send({"type": "expose", "cards": []})
            state = browser.settle()
            while len(waits) < 12 and state["phase"] == "play":
                browser.send({"type": "play", "cards": state["legal"][0]})
                state = browser.settle()
    assert len(waits) >= 12 and waits == [SEARCH_FLOOR] * len(waits)
    assert SEARCH_FLOOR > DEFAULT_THINK


def test_a_search_that_overran_its_floor_raises_every_searching_decisions_floor_for_a_while() -> None:
    """On a loaded machine a search may take longer than the floor: shown then, it would tell the
    table that the computer had a choice, since a forced one shows at the floor.  So for
    ``OVERRUN_WINDOW`` seconds after it every searching decision, a forced one too, waits as long as
    the longest such search; the other levels keep theirs."""
    pools = Pools()
    try:
        assert pools.floor("expert", 100.0) == SEARCH_FLOOR
        pools.thought("expert", 100.0, SEARCH_FLOOR / 2)  # within the floor: nothing to hide
        pools.thought("learned", 100.0, 5.0)  # not a searching level
        assert pools.floor("expert", 100.5) == SEARCH_FLOOR
        pools.thought("expert", 101.0, 1.25)
        pools.thought("flatmc", 102.0, 0.75)
        for level in ("expert", "flatmc"):
            assert pools.floor(level, 110.0) == 1.25
        assert pools.floor("intermediate", 110.0) == DECISION_FLOOR
        assert pools.floor("expert", 101.0 + OVERRUN_WINDOW + 0.5) == 0.75  # the longest has gone by
        assert pools.floor("expert", 102.0 + OVERRUN_WINDOW + 0.5) == SEARCH_FLOOR
    finally:
        pools.close()


def test_a_server_of_its_own_speeds_keeps_the_floors() -> None:
    """Unless a pace overrides the speeds (as in these tests, whose computers play at once), every
    computer decision waits its floor: a searching level's, or any other's."""
    own, paced = Pools(), Pools(pace=0)
    assert (own.search_floor, own.decision_floor) == (SEARCH_FLOOR, DECISION_FLOOR)
    assert (paced.search_floor, paced.decision_floor) == (0.0, 0.0)
    own.close()
    paced.close()


def test_speeds() -> None:
    assert SPEEDS == {"slow": 1.2, "normal": 0.6, "fast": 0.25, "instant": 0.0}


# ---------------------------------------------------------------------- HTTP


def test_config(client: TestClient) -> None:
    config = client.get("/api/config").json()
    assert config["presets"] == {name: o.to_dict() for name, o in PRESETS.items()}
    assert list(config["options"]) == list(PRESETS["online"].to_dict())
    assert config["options"]["decks"] == [1, 2] and config["options"]["exposure"][-1] == "none"
    assert config["options"]["match_limit"] == "integer"
    assert "deals:N" in config["options"]["match_end"]
    assert {"random", "beginner", "intermediate", "expert", "learned"} <= set(config["levels"])
    assert config["speeds"] == SPEEDS and config["seat"] == "S"
    # the point cards of the rules core (R2), which the pages' record replays take from here
    assert {parse_card(c) for c in config["point_cards"]} == {c for c in ALL_CARDS if is_point_card(c)}


@pytest.mark.parametrize(("body", "words"), [
    ({"preset": "poker"}, '$.preset: must be a preset of R9: online, '),
    ({"preset": 3}, "not an integer (3)"),
    ({"options": {"decks": 3}}, "decks cannot be 3"),
    ({"options": {"colour": "red"}}, "unknown option"),
    ({"options": {"decks": 2, "exposure": "first_card"}}, "one deck only"),
    ({"options": []}, "$.options: must be an object or null, not an array"),
    ({"levels": {"S": "expert"}}, "South is you"),
    ({"levels": {"N": "genius"}}, "not a level"),
    ({"levels": "expert"}, "$.levels: must be an object or null"),
    ({"speed": "warp"}, '$.speed: must be a speed: slow, normal, fast or instant or null, not "warp"'),
    ({"seed": "x"}, "the seed is a whole number from 0 to 18446744073709551615"),
    ({"seed": -1}, "the seed is a whole number from 0 to 18446744073709551615"),
    ({"seed": True}, "the seed is a whole number from 0 to 18446744073709551615"),
    ({"seed": 2**64}, "the seed is a whole number from 0 to 18446744073709551615"),
    ({"colour": 1}, "$: unknown field 'colour': expected 'preset', 'options', 'levels', 'speed', 'seed'"),
    ([1], "$: must be an object, not an array"),
])
def test_new_match_refuses_a_bad_body(client: TestClient, body: Any, words: str) -> None:
    response = client.post("/api/matches", json=body)
    assert response.status_code == 400
    assert words in response.json()["error"]


JSON = {"Content-Type": "application/json"}


def test_new_match_refuses_text_that_is_not_json(client: TestClient) -> None:
    response = client.post("/api/matches", content=b"{nope", headers=JSON)
    assert response.status_code == 400 and "not JSON" in response.json()["error"]
    response = client.post("/api/matches", content=b"{}")  # no Content-Type
    assert response.status_code == 415 and "application/json" in response.json()["error"]
    assert client.get("/api/matches").json() == [] and all_matches(client) == []


def test_new_match_defaults_and_listing(client: TestClient) -> None:
    first = client.post("/api/matches", content=b"", headers=JSON).json()["match_id"]
    second = new_match(client, preset="classic", options={"match_limit": 500}, seed=12)
    listed = client.get("/api/matches").json()
    assert [m["match_id"] for m in listed] == [second, first]
    one = client.get(f"/api/matches/{first}").json()
    assert one["preset"] == "online" and one["speed"] == "normal" and one["deals"] == 0
    assert one["levels"] == {"N": "intermediate", "E": "intermediate", "S": "intermediate", "W": "intermediate"}
    assert one["seats"] == {"N": None, "E": None, "S": user_of(client).name, "W": None}
    assert one["status"] == "playing"
    assert one["totals"] == {"N": 0, "E": 0, "S": 0, "W": 0} and not one["over"]
    assert listed[0]["options"] == resolve_options("classic", {"match_limit": 500}).to_dict()
    assert listed[0]["seed"] is None  # shown once the match is over
    app: Starlette = client.app  # type: ignore[assignment]
    other = local_client(app)  # another browser lists its own matches only
    third = new_match(other)
    assert [m["match_id"] for m in other.get("/api/matches").json()] == [third]
    assert [m["match_id"] for m in client.get("/api/matches").json()] == [second, first]
    with pytest.raises(OptionError):
        resolve_options("classic", {"match_limit": 0})


def test_unknown_things_are_404(client: TestClient) -> None:
    assert client.get("/api/matches/nope").status_code == 404
    assert "unknown match" in client.get("/api/matches/nope").json()["error"]
    assert client.get("/api/matches/nope/records.jsonl").status_code == 404
    match_id = new_match(client)
    assert client.get(f"/api/matches/{match_id}/deals/0").status_code == 404
    assert client.get(f"/api/matches/{match_id}/deals/x").status_code == 404
    assert client.get(f"/api/matches/{match_id}/records.jsonl").text == ""
    with client.websocket_connect("/ws/nope") as ws:
        reply = ws.receive_json()
        assert reply["code"] == "server.unknown_table" and reply["params"] == {"table": '"nope"'}
        assert reply["message"] == 'unknown match "nope": it does not exist on this server'
        assert reply["message_zh"] == '没有这局比赛："nope"'


def test_pages_are_served_only_when_built(db_url: str, tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    with local_client(create_app(db_url, static_dir=missing)) as client:
        for path in ("/", "/history"):
            response = client.get(path)
            assert response.status_code == 503 and "not built" in response.text
        assert client.get("/static/app.js").status_code == 404
    static = tmp_path / "static"
    static.mkdir()
    (static / "index.html").write_text("<!doctype html><title>table</title>", encoding="utf-8")
    (static / "history.html").write_text("<!doctype html><title>history</title>", encoding="utf-8")
    (static / "app.js").write_text("console.log(1)", encoding="utf-8")
    with local_client(create_app(db_url, static_dir=static)) as client:
        assert "table" in client.get("/").text and "history" in client.get("/history").text
        assert client.get("/").headers["content-type"].startswith("text/html")
        assert client.get("/static/app.js").text == "console.log(1)"


def test_the_default_app_needs_no_network(db_url: str) -> None:
    """create_app works with the real static folder, present or not."""
    with local_client(create_app(db_url)) as client:
        assert client.get("/").status_code in (200, 503)
        profile = client.get("/api/profile").json()
        assert {k: profile[k] for k in ("lifetime", "title", "matches", "deals")} == {
            "lifetime": 0, "title": "猪小弟", "matches": 0, "deals": 0}


def test_memory_database(tmp_path: Path) -> None:
    with local_client(create_app("sqlite://", pace=0, static_dir=tmp_path)) as client:
        match_id = new_match(client, seed=1)
        with client.websocket_connect(f"/ws/{match_id}") as ws:
            assert Browser(ws).settle()["phase"] == "expose"


def drive(client: TestClient, match_id: str, until: Callable[[Message], bool], rng: random.Random) -> Message:
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        state = browser.settle()
        while not until(state):
            act(browser, rng)
            state = browser.settle()
        return state


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_two_tables_and_the_lifetime_title(client: TestClient) -> None:
    """The practice score adds South's finals (with the one-deck factor) over every single-player
    match; the lifetime score and its title count only the deals played with people and the
    challenges (tests/test_tables.py, tests/test_challenges.py)."""
    rng = random.Random(2)
    a = new_match(client, seed=1)
    b = new_match(client, seed=2, preset="online2")
    sa = drive(client, a, lambda s: s["phase"] == "deal-over", rng)
    sb = drive(client, b, lambda s: s["phase"] == "deal-over", rng)
    lifetime = sa["deal_result"]["final"]["S"] + sb["deal_result"]["final"]["S"]
    assert sb["lifetime"] == {"score": 0, "title": title_for(0), "withheld": 0}
    me = user_of(client)
    assert (me.practice, me.practice_deals, me.lifetime, me.deals, me.matches) == (lifetime, 2, 0, 0, 2)


def test_the_rules_page_and_its_rule_book(client: TestClient) -> None:
    """/rules is the rules page; /api/rules/<lang> the how-to-play and the rule book as HTML, every
    numbered heading reachable by its number, every citation a link to its section (the page
    itself is a static file: the browser tests open it)."""
    for lang, title in (("zh", "<h1>怎么玩拱猪</h1>"), ("en", "<h1>How to play 拱猪</h1>")):
        page = client.get(f"/api/rules/{lang}").json()
        assert page["lang"] == lang and page["how_to_play"].startswith(title)
        assert [s for s in page["sections"] if "." not in s] == [f"R{n}" for n in range(1, 13)]
        for section in page["sections"]:
            assert page["rules"].count(f'id="{section}"') == 1, section
        assert 'href="#R5.2"' in page["how_to_play"] and 'href="#R4.4"' in page["rules"]
    assert client.get("/api/rules/fr").status_code == 404


def test_the_rule_book_renderer_passes_no_raw_html() -> None:
    from gongzhu.server.rulebook import _renderer

    html = _renderer(["R5", "R5.2"]).render("## R5.2 Following\n\n<script>x()</script> as R5.2 and R5.9 say, not R7\n")
    assert '<h2 id="R5.2">' in html and "<script>" not in html and "&lt;script&gt;" in html
    assert '<a href="#R5.2">R5.2</a>' in html and '<a href="#R5">R5.9</a>' in html and ">R7<" not in html
