"""Online tables over the real protocol: people at one table on a live server (uvicorn on a
loopback port), each with their own session, computers in the empty seats.

What is checked on whole matches under every preset: every message each seat and each
spectator received holds no card that recipient could see at that moment (its own hand as
dealt, cards played so far, exposures once revealed — a hidden one (暗卖) only once played),
checked against the deal's record; each person's lifetime score is the sum of their seats'
finals; the records say who played each seat.  And the refusals: acting out of turn, not seated,
without a session, at a private table without its invite, malformed — each answered with an
error that changes nothing.  Secret exposures, catching up after a reconnect, a restart of the
server mid-deal with three people seated, the turn timer and 托管, the lobby's live list.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from gongzhu.records import check_file
from gongzhu.server.rooms import CHAT_BLOCKS_SECONDS, CHAT_BUDGETS_KEPT, ChatBlocks, ChatBudgets
from helpers.client import Message
from helpers.database import STORES
from helpers.live import Live, Someone, account, counted_shares, random_moves, settle
from helpers.servers import LiveServer

CARD = re.compile(r"[2-9TJQKA][SHCD]")
#: Keys of a state that hold no card of the deal (option values, names).
NOT_CARDS = {"options", "you", "table", "levels", "preset", "deal_result"}
PRESETS = ["online", "online2", "partners", "partners2", "pig_sheep", "tournament", "classic"]


@pytest.fixture
def server(db_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(db_url, static_dir=tmp_path / "no-static") as s:
        yield s


def cards_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value} if CARD.fullmatch(value) else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for k, v in value.items() if k not in NOT_CARDS)) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


def visible(record: Message, seat: str | None, state: Message) -> set[str]:
    """The cards ``seat`` (None: a spectator) may see in ``state`` of the deal of ``record``."""
    plays = [c for t in record["tricks"] for p in t["plays"] for c in [p["cards"]]]
    done = state["tricks_played"] * 4 + len(state["trick"]["plays"])
    allowed = {c for cards in plays[:done] for c in cards}
    if seat is not None:
        allowed |= set(record["hands"][seat])
    if state["phase"] != "expose":
        allowed |= {e["card"] for e in record["exposures"] if e["kind"] != "hidden" or e["seat"] == seat}
    return allowed


def assert_no_leak(messages: list[Message], seat: str | None, records: dict[int, Message]) -> int:
    """Every message of a connection of ``seat`` holds only cards it may see (while its person
    stood up, or sat down somewhere from the next deal on, what a spectator may see); returns how
    many states were checked."""
    checked = 0
    for m in messages:
        if m["type"] == "state":
            state = m["state"]
            if state["phase"] == "waiting":
                assert cards_in(state) == set()
                continue
            record = records[state["deal_index"]]
            shown = cards_in(state)
            holds = state["seat"]
            allowed = visible(record, holds, state)
            assert shown <= allowed, (seat, sorted(shown - allowed), state["phase"], state["tricks_played"])
            if holds is None:
                assert state["hand"] == [] and state["legal"] == [] and state["exposable"] == []
            else:
                assert holds == seat
            if state["deal_result"] is not None:
                assert state["phase"] in ("deal-over", "match-over")
            checked += 1
        elif m["type"] == "revealed":
            assert all(e["kind"] != "hidden" for e in m["exposures"])
        elif m["type"] == "chat":
            assert "text" in m or "quick" in m
    return checked


def drive(lives: dict[str, Live], rng: random.Random, until: Any, *, timeout: float = 120,
          retry_after: float | None = None) -> None:
    """Let each seated connection act whenever the table waits for it, until ``until(states)``;
    with ``retry_after``, a person whose action changed nothing for that long acts again (as a
    person does whose click was lost, e.g. while servers recover)."""
    import time

    acted: dict[str, int] = {}
    end = time.monotonic() + timeout
    changed_at, last = time.monotonic(), None
    while True:
        for live in lives.values():
            live.drain(0.005)
        if until({s: live.state for s, live in lives.items()}):
            return
        now = {s: live.state.get("v") for s, live in lives.items()}
        if now != last:
            changed_at, last = time.monotonic(), now
        elif retry_after is not None and time.monotonic() - changed_at > retry_after:
            acted.clear()
            changed_at = time.monotonic()
        assert time.monotonic() < end, {s: (x.state.get("phase"), x.state.get("turn")) for s, x in lives.items()}
        random_moves(lives, acted, rng)


def new_table(person: Someone, **body: Any) -> Message:
    body.setdefault("turn_seconds", None)
    body.setdefault("expose_seconds", None)
    response = person.http.post("/api/tables", json=body)
    assert response.status_code == 201, response.text
    created: Message = response.json()
    return created


def everyone_done(states: dict[str, Message]) -> bool:
    return all(s.get("phase") == "match-over" for s in states.values())


@pytest.mark.parametrize("preset", PRESETS)
def test_whole_match_three_people_a_computer_and_a_spectator(server: LiveServer, preset: str) -> None:
    rng = random.Random(preset)
    # (accounts: a deal counts toward the lifetime score when two accounts at least were dealt it)
    host, east, west = (account(server, name) for name in ("Ann", "Bea", "Cal"))
    watcher = Someone(server)
    table = new_table(host, preset=preset, options={"match_end": "deals:2"},
                      levels={"N": "intermediate", "E": "beginner", "S": "random", "W": "random"}, seat="S")
    table_id = table["table_id"]
    lives = {"S": host.connect(table_id), "E": east.connect(table_id), "W": west.connect(table_id)}
    spectator = watcher.connect(table_id)
    lives["E"].send({"type": "sit", "seat": "E"})
    lives["W"].send({"type": "sit", "seat": "W"})
    lives["S"].until(lambda s: s["table"]["seats"]["E"]["name"] == east.name
                     and s["table"]["seats"]["W"]["name"] == west.name)
    assert lives["S"].state["table"]["seats"]["N"] == {"name": None, "title": None, "computer": "intermediate",
                                                       "auto": False, "connected": False, "timeouts": 0}
    assert lives["E"].refused({"type": "start"})["code"] == "server.host_only"
    lives["S"].send({"type": "start"})
    lives["S"].until(lambda s: s["phase"] in ("expose", "play"))
    # seat changes during the deal: the spectator sits at North (theirs from the next deal on) and
    # leaves again; West stands up and takes their seat back (with its hand)
    spectator.send({"type": "sit", "seat": "N"})
    assert spectator.until(lambda s: s["you"]["next_deal_seat"] == "N")["hand"] == []
    spectator.send({"type": "stand"})
    spectator.until(lambda s: s["table"]["seats"]["N"]["name"] is None)
    lives["W"].send({"type": "stand"})
    lives["W"].until(lambda s: s["you"]["seat"] is None)
    lives["W"].send({"type": "sit", "seat": "W"})
    lives["W"].until(lambda s: s["you"]["seat"] == "W" and bool(s["hand"]))
    drive(lives, rng, lambda states: everyone_done(states) or any(
        s.get("phase") == "deal-over" for s in states.values()))
    for live in lives.values():
        live.until(lambda s: s["phase"] in ("deal-over", "match-over"))
    if lives["S"].state["phase"] == "deal-over":
        lives["E"].send({"type": "next"})
    drive(lives, rng, everyone_done)
    spectator.until(lambda s: s["phase"] == "match-over")
    spectator.drain()
    download = host.http.get(f"/api/matches/{table_id}/records.jsonl")
    lines = download.text.splitlines()
    checked = check_file(download.text)
    assert len(checked) == 2
    records = {r["deal_index"]: r for r in map(json.loads, lines)}
    for seat, live in lives.items():
        live.drain()
        assert assert_no_leak(live.messages, seat, records) > 10
    assert assert_no_leak(spectator.messages, None, records) > 10
    assert all(m["type"] != "hint" for m in spectator.messages)
    # who played: the record names the people and the computer
    for record in records.values():
        assert record["players"]["N"] == {"name": None, "computer": "intermediate", "auto": False}
        assert record["players"]["E"]["name"] == east.name and record["players"]["E"]["computer"] is None
    # each person's deals count (the computer dealt a hand: 中级, as strong as a stand-in; a weaker
    # one would make the deals practice), but their finals are shared out among the two others,
    # accounts new here, whose shares count nothing yet (docs/ratings.md, Won from one person)
    for person in (host, east, west):
        me = person.http.get("/api/me").json()
        assert me["lifetime"] == 0 and me["practice"]["score"] == 0
        assert me["matches"] == 1 and me["deals"] == 2
    assert watcher.http.get("/api/me").json()["matches"] == 0


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_whole_match_on_each_store(server: LiveServer) -> None:
    """Two people (accounts), two computers, the default preset, to the end of a two-deal match."""
    rng = random.Random(7)
    host, other = account(server, "Ann"), account(server, "Bea")
    settle(server.app.state.store, host.id, other.id)  # (shares count between settled accounts: docs/ratings.md)
    table_id = new_table(host, options={"match_end": "deals:2"})["table_id"]  # computers of the stand-ins' level
    lives = {"S": host.connect(table_id), "N": other.connect(table_id)}
    lives["N"].send({"type": "sit", "seat": "N"})
    lives["S"].until(lambda s: s["table"]["seats"]["N"]["name"] == other.name)
    lives["S"].send({"type": "start"})
    drive(lives, rng, lambda st: all(s.get("phase") in ("deal-over", "match-over") for s in st.values()))
    lives["N"].send({"type": "next"})
    drive(lives, rng, everyone_done)
    records = {r["deal_index"]: r for r in map(json.loads, host.http.get(
        f"/api/matches/{table_id}/records.jsonl").text.splitlines())}
    for seat, live in lives.items():
        assert_no_leak(live.messages, seat, records)
    assert host.http.get("/api/me").json()["lifetime"] == counted_shares([records[k]["final"]["S"] for k in (0, 1)])
    assert other.http.get("/api/me").json()["lifetime"] == counted_shares([records[k]["final"]["N"] for k in (0, 1)])
    mine = other.http.get("/api/me/records.jsonl")
    assert mine.status_code == 200 and "attachment" in mine.headers["content-disposition"]
    assert [json.loads(line) for line in mine.text.splitlines()] == [records[0], records[1]]
    assert len(check_file(mine.text)) == 2


def test_refusals_change_nothing(server: LiveServer) -> None:
    host, other, stranger = Someone(server), Someone(server), Someone(server)
    table_id = new_table(host, levels={"N": "random", "E": "random", "W": "random"})["table_id"]
    s_live, e_live, x_live = host.connect(table_id), other.connect(table_id), stranger.connect(table_id)
    e_live.send({"type": "sit", "seat": "E"})
    s_live.until(lambda s: s["table"]["seats"]["E"]["name"] == other.name)
    assert x_live.refused({"type": "sit", "seat": "E"})["code"] == "server.seat_taken"
    assert e_live.refused({"type": "sit", "seat": "W"})["code"] == "server.already_seated"
    assert x_live.refused({"type": "play", "cards": ["2C"]})["code"] == "server.not_seated"
    assert e_live.refused({"type": "play", "cards": ["2C"]})["code"] == "server.not_started"
    s_live.send({"type": "start"})
    s_live.until(lambda s: s["phase"] == "expose")
    for live in (s_live, e_live):
        live.send({"type": "expose", "cards": []})
    state = s_live.until(lambda s: s["phase"] == "play" and s["turn"] in ("S", "E"))
    e_live.until(lambda s: s["v"] == state["v"])
    x_live.until(lambda s: s["v"] == state["v"])
    mover, idle = (s_live, e_live) if state["turn"] == "S" else (e_live, s_live)
    before = state["v"]
    # out of turn; for another seat (a seat field is not part of a message); not seated; malformed
    refusal = idle.refused({"type": "play", "cards": [idle.state["hand"][0]]})
    assert refusal["code"] in ("refusal.not_your_turn", "refusal.not_turn") or "turn" in refusal["message"]
    assert "seat" in idle.refused({"type": "play", "cards": mover.state["legal"][0], "seat": state["turn"]})["message"]
    assert x_live.refused({"type": "play", "cards": mover.state["legal"][0]})["code"] == "server.not_seated"
    assert x_live.refused({"type": "expose", "cards": []})["code"] == "server.not_seated"
    assert "JSON" in mover.refused("{not json")["message"]
    assert mover.refused({"type": "hint"})["code"] == "server.no_hints_with_people"
    assert mover.refused({"type": "hint", "quick": True})["code"] == "server.no_hints_with_people"
    assert mover.refused({"type": "play", "cards": ["ZZ"]})["message"]
    assert mover.refused({"type": "settings", "speed": "fast"} if mover is e_live
                         else {"type": "start"})["code"] in ("server.host_only", "server.already_started")
    for live in (s_live, e_live, x_live):
        live.drain()
        assert live.state["v"] == before
    # no session, a forged cookie, a private table without its invite
    from websockets.sync.client import connect

    for cookie in (None, "gongzhu_session=forged.value.here", host.cookie_header() + "x"):
        headers = {"Cookie": cookie} if cookie else None
        with connect(f"{server.ws_base}/ws/{table_id}", additional_headers=headers) as ws:
            reply = json.loads(ws.recv(timeout=5))
            assert reply["type"] == "error" and reply["code"] == "server.no_session"
    private = new_table(host, visibility="private")
    assert private["invite"] and "invite=" in private["url"]
    refused = stranger.connect(private["table_id"])
    assert refused.receive()["code"] == "server.private_table"
    with pytest.raises(ConnectionClosed):  # told why, then closed
        refused.receive()
    invited = stranger.connect(private["table_id"], invite=private["invite"])
    assert invited.receive()["state"]["seat"] is None
    s_live.drain()
    assert s_live.state["v"] == before


def test_exposures_are_secret_until_everyone_has_declared(server: LiveServer) -> None:
    host, other = Someone(server), Someone(server)
    for seed in range(40):  # a deal where South may expose something
        # a chosen seed: a private table, which shows that its deal was set in advance
        table = new_table(host, seed=seed, visibility="private", levels={"N": "random", "W": "random"})
        table_id = table["table_id"]
        s_live, e_live = host.connect(table_id), other.connect(table_id, invite=table["invite"])
        e_live.send({"type": "sit", "seat": "E"})
        s_live.until(lambda s: s["table"]["seats"]["E"]["name"] == other.name)
        s_live.send({"type": "start"})
        state = s_live.until(lambda s: s["phase"] == "expose")
        if state["exposable"]:
            break
        s_live.close()
        e_live.close()
    card = state["exposable"][0]["card"]
    s_live.send({"type": "expose", "cards": [card]})
    mine = s_live.until(lambda s: s["my_declaration"] is not None)
    assert mine["my_declaration"][0]["card"] == card and "S" in mine["declared"]
    theirs = e_live.until(lambda s: "S" in s["declared"])
    assert theirs["my_declaration"] is None and all(e["card"] != card for e in theirs["exposures"])
    assert card not in cards_in(theirs)
    e_live.send({"type": "expose", "cards": []})
    revealed = e_live.until(lambda s: s["phase"] == "play")
    assert any(e["card"] == card and e["seat"] == "S" for e in revealed["exposures"])
    events = [m for m in e_live.messages if m["type"] == "revealed"]
    assert len(events) == 1 and any(e["card"] == card for e in events[0]["exposures"])


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_reconnect_gets_what_it_missed(server: LiveServer) -> None:
    rng = random.Random(3)
    host, other = Someone(server), Someone(server)
    table_id = new_table(host, levels={"N": "random", "W": "random"})["table_id"]
    lives = {"S": host.connect(table_id), "E": other.connect(table_id)}
    lives["E"].send({"type": "sit", "seat": "E"})
    lives["S"].until(lambda s: s["table"]["seats"]["E"]["name"] == other.name)
    lives["S"].send({"type": "start"})
    drive(lives, rng, lambda st: st["S"].get("tricks_played", 0) >= 2 and st["S"]["turn"] == "S")
    seen = lives["E"].state["v"]
    lives["E"].close()
    gone = lives.pop("E")
    # South plays on alone until East's turn comes (the computers play their seats)
    while lives["S"].state["turn"] != "E":
        sent = lives["S"].state["v"]
        lives["S"].send({"type": "play", "cards": rng.choice(lives["S"].state["legal"])})
        lives["S"].until(lambda s, sent=sent: s["turn"] in ("S", "E") and s["v"] > sent)
    back = other.connect(table_id, since=seen)
    first = back.receive()
    missed = [first]
    while missed[-1]["type"] != "state":
        missed.append(back.receive())
    # exactly the public messages South received meanwhile, then the state
    public = [m for m in lives["S"].messages if m["type"] != "state" and m.get("v", 0) > seen]
    assert missed[:-1] == public and [m["type"] for m in public].count("played") >= 1
    assert first["v"] > seen
    fresh = other.connect(table_id).receive()["state"]
    assert missed[-1]["state"]["hand"] == fresh["hand"] and missed[-1]["state"]["trick"] == fresh["trick"]
    assert gone.state["tricks_played"] * 4 + len(gone.state["trick"]["plays"]) < \
        fresh["tricks_played"] * 4 + len(fresh["trick"]["plays"])
    # a version the table never had: the whole state at once
    assert other.connect(table_id, since=10**9).receive()["type"] == "state"


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_restart_mid_deal_with_three_people(db_url: str, tmp_path: Path) -> None:
    rng = random.Random(11)
    first = LiveServer(db_url, static_dir=tmp_path / "none")
    people = {"S": Someone(first), "E": Someone(first), "W": Someone(first)}
    table_id = new_table(people["S"], levels={"N": "random"})["table_id"]
    lives = {seat: p.connect(table_id) for seat, p in people.items()}
    for seat in ("E", "W"):
        lives[seat].send({"type": "sit", "seat": seat})
    lives["S"].until(lambda s: all(s["table"]["seats"][x]["name"] for x in "ESW"))
    lives["S"].send({"type": "start"})
    drive(lives, rng, lambda st: st["S"].get("tricks_played", 0) >= 4 and 0 < len(st["S"]["trick"]["plays"]) < 4)
    for live in lives.values():
        live.drain()
    before = {seat: live.state for seat, live in lives.items()}
    for live in lives.values():
        live.close()
    first.stop()
    with LiveServer(db_url, static_dir=tmp_path / "none") as second:
        for seat, person in people.items():
            person.rebind(second)
            after = person.connect(table_id).receive()["state"]
            for key in ("hand", "legal", "exposures", "trick", "last_trick", "captured", "totals", "turn", "phase",
                        "cards_left", "deal_index"):
                assert after[key] == before[seat][key], key
            assert after["seat"] == seat


@pytest.mark.slow
def test_timer_plays_for_a_slow_person_then_托管(server: LiveServer) -> None:
    host = Someone(server)
    table_id = new_table(host, turn_seconds=5, expose_seconds=5,
                         levels={"N": "random", "E": "random", "W": "random"})["table_id"]
    live = host.connect(table_id)
    live.until(lambda s: s["phase"] == "waiting")
    live.send({"type": "start"})
    state = live.until(lambda s: s["phase"] == "expose")
    assert state["clock"]["kind"] == "expose" and state["clock"]["seats"] == ["S"]
    assert 0 < state["clock"]["remaining"] <= 5
    # the window closes: the intermediate player declares for South — not a missed turn, so it
    # does not count toward 托管
    live.until(lambda s: s["phase"] == "play", timeout=15)
    assert live.state["table"]["seats"]["S"]["timeouts"] == 0
    # two turns timed out in a row: 托管 until South takes the seat back
    live.until(lambda s: s["table"]["seats"]["S"]["timeouts"] == 1, timeout=30)
    live.until(lambda s: s["table"]["seats"]["S"]["auto"], timeout=30)
    assert live.state["you"]["auto"] is True
    live.send({"type": "takeback"})
    back = live.until(lambda s: not s["table"]["seats"]["S"]["auto"])
    assert back["table"]["seats"]["S"]["timeouts"] == 0


@pytest.mark.slow
def test_a_timed_table_waits_a_turn_for_exposures_and_托管_plays_at_the_stand_ins_level(
        server: LiveServer) -> None:
    """With a turn timer and no exposure window, the exposures wait a turn's time (nobody holds
    the table by never declaring); a person's seat in 托管 is played by the intermediate player,
    whatever level the host set for it (here random: no weak player for one's opponents), and a
    deal played alone against computers is practice, apart from the lifetime score."""
    import httpx

    host = Someone(server)
    table_id = new_table(host, turn_seconds=5, expose_seconds=None,
                         levels={s: "random" for s in "NESW"})["table_id"]
    live = host.connect(table_id)
    live.until(lambda s: s["phase"] == "waiting")
    live.send({"type": "start"})
    state = live.until(lambda s: s["phase"] == "expose")
    assert state["clock"]["kind"] == "expose" and state["clock"]["total"] == 5
    live.until(lambda s: s["phase"] == "play", timeout=15)
    live.send({"type": "auto"})
    live.until(lambda s: s["table"]["seats"]["S"]["auto"])
    live.until(lambda s: s["phase"] in ("deal-over", "match-over"), timeout=60)
    metrics = httpx.get(server.base + "/metrics").text
    played = re.search(r'^gongzhu_think_seconds_count\{kind="play",level="intermediate"\} (\S+)$', metrics, re.M)
    assert played is not None and float(played.group(1)) >= 1, metrics
    me = host.http.get("/api/me").json()
    assert (me["lifetime"], me["deals"], me["practice"]["deals"]) == (0, 0, 1)
    live.close()


def test_a_seat_left_mid_deal_is_played_at_the_stand_ins_level(server: LiveServer) -> None:
    """A person who stands up during a deal at a table for people leaves the seat to the
    intermediate player for the rest of it, as 托管 does — not to the level the host set for the
    seat (here random: no weak player for a second account to feed its points to) — and the
    seat's plate and the lobby's entry show that level; the next deal is nobody's there, the
    host's level's again."""
    import httpx

    host, other = Someone(server), Someone(server)
    table_id = new_table(host, levels={s: "random" for s in "NESW"}, options={"match_end": "deals:2"})["table_id"]
    south, east = host.connect(table_id), other.connect(table_id)
    east.send({"type": "sit", "seat": "E"})
    south.until(lambda s: s["table"]["seats"]["E"]["name"] == other.name)
    south.send({"type": "start"})
    south.until(lambda s: s["phase"] in ("expose", "play"))
    east.send({"type": "stand"})
    seats = south.until(lambda s: s["table"]["seats"]["E"]["name"] is None)["table"]["seats"]
    assert (seats["E"]["computer"], seats["N"]["computer"]) == ("intermediate", "random")
    listed = next(t for t in host.http.get("/api/tables").json() if t["id"] == table_id)
    assert (listed["seats"]["E"]["computer"], listed["seats"]["N"]["computer"]) == ("intermediate", "random")
    drive({"S": south}, random.Random(9), lambda st: st["S"].get("phase") in ("deal-over", "match-over"))
    metrics = httpx.get(server.base + "/metrics").text
    played = re.search(r'^gongzhu_think_seconds_count\{kind="play",level="intermediate"\} (\S+)$', metrics, re.M)
    assert played is not None and float(played.group(1)) >= 1, metrics
    assert south.state["table"]["seats"]["E"]["computer"] == "random"
    for live in (south, east):
        live.close()


def test_lobby_lists_public_tables_live(server: LiveServer) -> None:
    from websockets.sync.client import connect

    host, other = Someone(server), Someone(server)
    with connect(f"{server.ws_base}/ws/lobby") as lobby:
        assert json.loads(lobby.recv(timeout=5)) == {"type": "lobby", "tables": []}
        table_id = new_table(host, preset="partners", options={"match_limit": 800})["table_id"]
        quiet = host.http.get("/api/tables").json()
        assert quiet == []  # nobody is at it yet
        hosting = host.connect(table_id)
        hosting.until(lambda s: s["phase"] == "waiting")
        entry = json.loads(lobby.recv(timeout=5))
        assert entry["type"] == "table" and entry["table"]["id"] == table_id
        assert entry["table"]["changed"] == {"match_limit": 800} and entry["table"]["status"] == "waiting"
        assert entry["table"]["seats"]["S"]["name"] == host.name
        new_table(host, visibility="private")  # not listed
        joining = other.connect(table_id)
        joining.send({"type": "sit", "seat": "E"})
        while True:
            entry = json.loads(lobby.recv(timeout=5))
            if entry["type"] == "table" and any(s["name"] == other.name for s in entry["table"]["seats"].values()):
                break
        listed = host.http.get("/api/tables").json()
        assert [t["id"] for t in listed] == [table_id]
        joining.close()


def test_chat_is_text_rate_limited_and_reaches_the_table(server: LiveServer) -> None:
    host, other = Someone(server), Someone(server)
    table_id = new_table(host)["table_id"]
    a, b = host.connect(table_id), other.connect(table_id)
    a.until(lambda s: s["table"]["spectators"] == 1)
    a.send({"type": "chat", "text": "<b>你好</b>\u0007  all"})
    said = next(m for m in iter(b.receive, None) if m["type"] == "chat")
    assert said["text"] == "<b>你好</b> all" and said["from"] == {"name": host.name, "seat": "S"}
    a.send({"type": "chat", "quick": "chat.quick.good_game"})
    assert next(m for m in iter(b.receive, None) if m["type"] == "chat")["quick"] == "chat.quick.good_game"
    assert b.refused({"type": "chat", "quick": "chat.quick.nope"})["message"]
    assert b.refused({"type": "chat", "text": "x" * 121})["message"]
    both = b.refused({"type": "chat", "text": "hi", "quick": "chat.quick.good_game"})  # neither dropped unsaid
    assert "not both" in both["message"]
    for _ in range(6):
        b.send({"type": "chat", "text": "spam"})
    b.drain()
    codes = [m.get("code") for m in b.messages if m["type"] == "error"]
    assert "server.chat_too_fast" in codes


def test_a_page_opened_anew_gets_the_chat_said_before(server: LiveServer) -> None:
    """The chat lines a room keeps come to a page that opens the table anew (loaded again, or
    someone who comes to watch) before its state — the state says everything but what was said —
    and a page that comes back with the version it saw gets only what it has not had."""
    host, other, newcomer = Someone(server), Someone(server), Someone(server)
    table_id = new_table(host)["table_id"]
    a, b = host.connect(table_id), other.connect(table_id)
    a.until(lambda s: s["table"]["spectators"] == 1)
    a.send({"type": "chat", "text": "一路顺风"})
    next(m for m in iter(b.receive, None) if m["type"] == "chat")
    b.send({"type": "chat", "quick": "chat.quick.good_game"})
    next(m for m in iter(a.receive, None) if m["type"] == "chat")
    a.drain()
    seen = max(m["v"] for m in a.messages if "v" in m)

    def before_state(live: Live) -> list[Message]:
        got: list[Message] = []
        while (message := live.receive())["type"] != "state":
            got.append(message)
        return got

    said = [(m.get("text"), m.get("quick"), m["from"]["name"]) for m in before_state(newcomer.connect(table_id))
            if m["type"] == "chat"]
    assert said == [("一路顺风", None, host.name), (None, "chat.quick.good_game", other.name)]
    again = before_state(host.connect(table_id))  # the same person's page loaded again
    assert [m.get("text") or m.get("quick") for m in again if m["type"] == "chat"] == [
        "一路顺风", "chat.quick.good_game"]
    back = before_state(host.connect(table_id, since=seen))  # away, and back with the version it saw
    assert not [m for m in back if m["type"] == "chat"], back


def test_chat_budget_is_a_persons_not_a_connections(server: LiveServer) -> None:
    """A second tab, or connecting again, buys no more chat: the budget is the person's at the
    table (3 lines at once, then one a second), so of 11 lines sent from three connections in
    ``elapsed`` seconds at most 3 + ``elapsed`` (and one for the rounding) pass — where a budget
    per connection would let 9 through at once."""
    host, other = Someone(server), Someone(server)
    table_id = new_table(host)["table_id"]
    first, second = other.connect(table_id), other.connect(table_id)
    for live in (first, second):
        live.until(lambda s: s.get("table") is not None)
    began = time.monotonic()
    for n in range(4):
        first.send({"type": "chat", "text": f"one {n}"})
        second.send({"type": "chat", "text": f"two {n}"})
    third = other.connect(table_id)  # connecting again starts from what is left
    third.until(lambda s: s.get("table") is not None)
    for n in range(3):
        third.send({"type": "chat", "text": f"three {n}"})
    for live in (first, second, third):
        live.drain()
    elapsed = time.monotonic() - began  # at least as long as the server took over them
    refused = sum(m["type"] == "error" and m.get("code") == "server.chat_too_fast"
                  for live in (first, second, third) for m in live.messages)
    assert 11 - refused <= 3 + elapsed + 1, (refused, elapsed)


def test_chat_budgets_count_by_person_and_forget_the_full_ones() -> None:
    budgets = ChatBudgets()
    assert [budgets.allow("u-a", 0.0) for _ in range(4)] == [True, True, True, False]
    assert budgets.allow("u-b", 0.0)  # another person's own budget
    assert not budgets.allow("u-a", 0.5) and budgets.allow("u-a", 1.0)
    for n in range(CHAT_BUDGETS_KEPT - 2):
        assert budgets.allow(f"u-{n}", 10.0)
    assert len(budgets) == CHAT_BUDGETS_KEPT
    assert budgets.allow("u-new", 10.0)  # u-a's and u-b's budgets were full again: forgotten
    assert len(budgets) == CHAT_BUDGETS_KEPT - 1
    assert budgets.allow("u-0", 10.0) and budgets.allow("u-0", 10.0) and not budgets.allow("u-0", 10.0)


def test_chat_reads_a_persons_blocks_once_a_while_and_again_after_a_block() -> None:
    """A table reads whom a person's chat goes to none of once every CHAT_BLOCKS_SECONDS, not at
    every line; a block made between two people has both read again at once; at most
    CHAT_BUDGETS_KEPT people are kept, the old ones forgotten first."""
    blocks = {"u-a": {"u-b"}}
    reads: list[str] = []

    def read(person: str) -> set[str]:
        reads.append(person)
        return set(blocks.get(person, ()))

    kept = ChatBlocks()
    assert kept.of("u-a", 0.0, read) == {"u-b"} and kept.of("u-a", 1.0, read) == {"u-b"}
    assert reads == ["u-a"]
    blocks["u-a"] = {"u-b", "u-c"}
    assert kept.of("u-a", 2.0, read) == {"u-b"}  # (not read again yet)
    kept.forget(["u-c", "u-a"])  # a block made between u-a and u-c
    assert kept.of("u-a", 3.0, read) == {"u-b", "u-c"} and reads == ["u-a", "u-a"]
    blocks["u-a"] = set()  # lifted: known once the reading is old
    assert kept.of("u-a", 3.0 + CHAT_BLOCKS_SECONDS - 0.5, read) == {"u-b", "u-c"}
    assert kept.of("u-a", 3.0 + CHAT_BLOCKS_SECONDS, read) == set()
    for n in range(3 * CHAT_BUDGETS_KEPT):  # (many people at one moment, then as time goes)
        kept.of(f"u-{n}", 100.0 + (n // CHAT_BUDGETS_KEPT) * CHAT_BLOCKS_SECONDS, read)
        assert len(kept._read) <= CHAT_BUDGETS_KEPT


def test_with_a_turn_timer_the_next_deal_has_a_clock(server: LiveServer) -> None:
    """Between deals the clock says when the next deal comes by itself; asking sooner deals it."""
    rng = random.Random(5)
    host = Someone(server)
    table_id = new_table(host, turn_seconds=30, expose_seconds=20, options={"match_end": "deals:3"},
                         levels={"N": "random", "E": "random", "W": "random"})["table_id"]
    lives = {"S": host.connect(table_id)}
    lives["S"].until(lambda s: s["phase"] == "waiting")
    lives["S"].send({"type": "start"})
    state = lives["S"].until(lambda s: s["phase"] == "expose")
    assert state["clock"]["kind"] == "expose" and state["clock"]["total"] == 20
    drive(lives, rng, lambda st: st["S"]["phase"] == "play")
    assert lives["S"].state["clock"] is None or lives["S"].state["clock"]["kind"] == "play"
    drive(lives, rng, lambda st: st["S"]["phase"] == "deal-over")
    over = lives["S"].state
    assert over["clock"]["kind"] == "next" and over["clock"]["seats"] == [] and over["clock"]["total"] == 10
    lives["S"].send({"type": "next"})
    again = lives["S"].until(lambda s: s["phase"] == "expose")
    assert again["deal_index"] == 1 and again["clock"]["kind"] == "expose"


def test_a_lifetime_score_shows_alike_at_every_table(server: LiveServer) -> None:
    """A deal finished at one table of people changes the person's lifetime score at their other
    open tables too, and a spectator sees their own score (accounts: a deal dealt to fewer than
    two is practice)."""
    rng = random.Random(2)
    person, host = account(server, "Ann"), account(server, "Bea")
    settle(server.app.state.store, person.id, host.id)  # (Ann's finals are shared to Bea: docs/ratings.md)
    elsewhere = person.connect(new_table(host)["table_id"])  # watching a waiting table
    assert elsewhere.receive()["state"]["seat"] is None
    final = 0
    for _ in range(20):  # a deal may score nothing for the person; play another until one does
        table_id = new_table(host, options={"match_end": "deals:1"})["table_id"]  # (新手 computers: practice)
        hosting, playing = host.connect(table_id), person.connect(table_id)
        playing.send({"type": "sit", "seat": "E"})
        hosting.until(lambda s: s["table"]["seats"]["E"]["name"] == person.name)
        hosting.send({"type": "start"})
        lives = {"S": hosting, "E": playing}
        drive(lives, rng, lambda st: all(s.get("phase") == "match-over" for s in st.values()))
        final = counted_shares([playing.state["deal_result"]["final"]["E"]])
        assert playing.state["lifetime"]["score"] == final  # every match before scored nothing
        for live in lives.values():
            live.close()
        if final != 0:
            break
    assert final != 0
    assert elsewhere.until(lambda s: s["lifetime"]["score"] == final)["you"]["seat"] is None


def test_when_the_host_has_left_a_seated_person_may_start(server: LiveServer) -> None:
    host, other = Someone(server), Someone(server)
    table_id = new_table(host, levels={"N": "random", "W": "random", "E": "random"})["table_id"]
    hosting, joining = host.connect(table_id), other.connect(table_id)
    joining.send({"type": "sit", "seat": "N"})
    hosting.until(lambda s: s["table"]["seats"]["N"]["name"] == other.name)
    assert joining.refused({"type": "start"})["code"] == "server.host_only"
    hosting.close()
    joining.until(lambda s: not s["table"]["seats"]["S"]["connected"])
    joining.send({"type": "start"})
    assert joining.until(lambda s: s["phase"] != "waiting")["table"]["status"] == "playing"



def test_again_makes_the_next_table_with_the_same_people(server: LiveServer) -> None:
    rng = random.Random(9)
    host, other = Someone(server), Someone(server)
    created = new_table(host, visibility="private", turn_seconds=20, options={"match_end": "deals:1"},
                        levels={"N": "random", "W": "beginner"})
    table_id = created["table_id"]
    lives = {"S": host.connect(table_id), "E": other.connect(table_id, invite=created["invite"])}
    lives["E"].send({"type": "sit", "seat": "E"})
    lives["S"].until(lambda s: s["table"]["seats"]["E"]["name"] == other.name)
    assert lives["E"].refused({"type": "again"})["code"] == "server.not_over"
    lives["S"].send({"type": "start"})
    drive(lives, rng, lambda st: all(s.get("phase") == "match-over" for s in st.values()))
    lives["E"].send({"type": "again"})
    told = [next(m for m in iter(live.receive, None) if m["type"] == "again") for live in lives.values()]
    assert told[0] == told[1] and told[0]["by"] == other.name and "?invite=" in told[0]["url"]
    lives["S"].send({"type": "again"})  # asking again: the same table
    assert next(m for m in iter(lives["S"].receive, None) if m["type"] == "again")["url"] == told[0]["url"]
    new_id, invite = told[0]["url"].removeprefix("/table/").split("?invite=")
    state = other.connect(new_id).receive()["state"]
    assert state["phase"] == "waiting" and state["you"]["host"] and state["seat"] == "E"
    assert state["table"]["seats"]["S"]["name"] == host.name and state["table"]["turn_seconds"] == 20
    assert state["levels"]["W"] == "beginner" and state["options"]["match_end"] == "deals:1"
    assert state["table"]["visibility"] == "private" and invite


def played_then_again(bob: Someone, ann: Someone, cy: Someone, rng: random.Random, *,
                      leaving: str | None = None) -> tuple[dict[str, Live], list[Message]]:
    """Bob's one-deal table with Ann at East and Cy at West, played to its end; the person at
    ``leaving`` (a seat) closes their page, and Bob asks for 再来一局: the connections still open,
    by seat, and what each was told of the next table."""
    table_id = new_table(bob, options={"match_end": "deals:1"}, levels={"N": "random", "E": "random",
                                                                          "W": "random"})["table_id"]
    lives = {"S": bob.connect(table_id), "E": ann.connect(table_id), "W": cy.connect(table_id)}
    for seat, person in (("E", ann), ("W", cy)):
        lives[seat].send({"type": "sit", "seat": seat})
        lives["S"].until(lambda s, seat=seat, person=person: s["table"]["seats"][seat]["name"] == person.name)
    lives["S"].send({"type": "start"})
    drive(lives, rng, everyone_done)
    if leaving is not None:
        lives.pop(leaving).close()
        lives["S"].until(lambda s: not s["table"]["seats"][leaving]["connected"])
    lives["S"].send({"type": "again"})
    told = [next(m for m in iter(live.receive, None) if m["type"] == "again") for live in lives.values()]
    return lives, told


def test_again_seats_only_the_people_there_and_the_start_deals_in_only_who_came(server: LiveServer) -> None:
    """再来一局 seats at the next table only the people at the finished table when it is asked
    (Cy had closed her page: her seat is free), and the start deals in nobody seated there who
    never came to it (Ann went elsewhere: her seat is left to its computer player), so nobody's
    deals are played, or counted, without them."""
    bob, ann, cy = Someone(server), Someone(server), Someone(server)
    lives, told = played_then_again(bob, ann, cy, random.Random(11), leaving="W")
    lives["E"].close()  # Ann does not follow
    new_id = told[0]["url"].removeprefix("/table/")
    page = bob.connect(new_id)
    seats = page.until(lambda s: s["phase"] == "waiting"
                       and not s["table"]["seats"]["E"]["connected"])["table"]["seats"]
    assert (seats["S"]["name"], seats["E"]["name"], seats["W"]["name"]) == (bob.name, ann.name, None)
    page.send({"type": "start"})
    seats = page.until(lambda s: s["phase"] != "waiting")["table"]["seats"]
    assert [seats[s]["name"] for s in "NESW"] == [None, None, bob.name, None]
    page.close()


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_who_came_to_a_waiting_table_before_a_restart_is_dealt_in_after_it(db_url: str, tmp_path: Path) -> None:
    """再来一局 seats Ann and Cy at Bob's next table; Ann's page comes there, Cy's never does, and
    Dee sits down there herself.  The server restarts (or another takes the table over) and Bob
    starts it before anyone else's page is back: whoever had come before is dealt in — it is
    stored with the seats, not only known to the server that ran the table — and Cy is not."""
    first = LiveServer(db_url, static_dir=tmp_path / "none")
    bob, ann, cy, dee = Someone(first), Someone(first), Someone(first), Someone(first)
    lives, told = played_then_again(bob, ann, cy, random.Random(5))
    new_id, _, invite = told[0]["url"].removeprefix("/table/").partition("?invite=")
    came = ann.connect(new_id, invite=invite or None)
    came.until(lambda s: s["phase"] == "waiting" and s["seat"] == "E")
    sitting = dee.connect(new_id, invite=invite or None)
    sitting.send({"type": "sit", "seat": "N"})
    sitting.until(lambda s: s["table"]["seats"]["N"]["name"] == dee.name)
    for live in (*lives.values(), came, sitting):
        live.close()
    first.stop()
    with LiveServer(db_url, static_dir=tmp_path / "none") as second:
        bob.rebind(second)
        page = bob.connect(new_id)
        seats = page.until(lambda s: s["phase"] == "waiting")["table"]["seats"]
        assert [seats[s]["name"] for s in "NESW"] == [dee.name, ann.name, bob.name, cy.name]
        assert not any(seats[s]["connected"] for s in "NEW")
        page.send({"type": "start"})
        seats = page.until(lambda s: s["phase"] != "waiting")["table"]["seats"]
        assert [seats[s]["name"] for s in "NESW"] == [dee.name, ann.name, bob.name, None]
        page.close()
