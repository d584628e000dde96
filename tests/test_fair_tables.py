"""Fair tables: nobody receives a second seat's hand of a deal, and nobody chooses the cards of a
table they share with others (docs/web-protocol.md, Seats and deals).

Seat hopping: during a deal a seat is taken back only by the person it was dealt to; anyone else
who sits down there sits from the next deal on (a computer player plays the seat's hand until
then, and the person sees what a spectator sees).  Checked on the exact sequence that used to give
one person three hands of a deal, and on random sequences of stand, sit, watch, reconnect, leave,
play and next among three people and a spectator (a hypothesis state machine), with one deck
and with two, every frame each person received held against the deal records, its cards counted
as a multiset (with two decks a card is in two hands): at most one seat's hidden cards per person
and deal.  ``test_cluster.py`` runs the same machine on two server processes sharing the table.

Chosen seeds: a public table refuses one; a private table takes one, says so to everyone at it and
in the lobby, and counts toward no lifetime score.  The exposure window running out is no missed
turn, and chat refuses marks stacked over the lines around them.
"""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, rule, run_state_machine_as_test
from sqlalchemy import delete, insert, select
from websockets.exceptions import ConnectionClosed

from gongzhu.records import check_file
from gongzhu.server.identity import Identity
from gongzhu.server.store import KNOWN_DEVICES, MATCH_PLAYERS, NETWORK_KEPT, USER_NETWORKS, USERS, Charge, Store
from helpers.client import Message, random_exposures, seating
from helpers.database import STORES
from helpers.live import PASSWORD, Live, Someone, account, counted_deal
from helpers.servers import LiveServer
from helpers.volume import scaled
from test_tables import CARD, NOT_CARDS, drive, new_table

SEATS = "NESW"


@pytest.fixture
def server(db_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(db_url, static_dir=tmp_path / "no-static") as s:
        yield s


def counted(value: Any) -> Counter[str]:
    """Every card in ``value`` (a state, or a part of one), counted as often as it is written (what
    is under the keys of ``NOT_CARDS`` left out: option values, names)."""
    if isinstance(value, str):
        return Counter([value]) if CARD.fullmatch(value) else Counter()
    out: Counter[str] = Counter()
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in NOT_CARDS:
                out.update(counted(item))
    elif isinstance(value, list):
        for item in value:
            out.update(counted(item))
    return out


def _plays(plays: list[Message]) -> list[tuple[str, list[str]]]:
    return [(p["seat"], sorted(p["cards"])) for p in plays]


def state_hidden_seats(state: Message, record: Message) -> set[str]:
    """The seats some of whose hidden cards (dealt, not played, not exposed to all) ``state``
    shows, a deal being played (``record``: the deal's).  Cards are counted as a multiset, as two
    decks need: each part of the state that repeats what the recipient may know — the cards played
    so far (the trick, the last trick, the point cards taken), the exposures it may see, its own
    hand's choices (legal plays, exposable cards, its declaration) — is checked against the record
    and set aside; everything else is counted, with the hand.  A card shown more times than the
    recipient's own hand (exactly its seat's dealt cards not played yet) and the cards played so far
    hold it is a hidden card of another seat that holds it; one that nobody holds hidden fails."""
    seat = state["seat"]
    plays = [(p["seat"], sorted(p["cards"])) for t in record["tricks"] for p in t["plays"]]
    tricks = state["tricks_played"]
    done = tricks * 4 + len(state["trick"]["plays"])
    so_far = plays[:done]
    played: Counter[str] = Counter(c for _, cards in so_far for c in cards)
    left = {s: Counter(record["hands"][s]) - Counter(c for who, cards in so_far if who == s for c in cards)
            for s in SEATS}
    hand: Counter[str] = Counter(state["hand"])
    if seat is None:
        assert not hand and state["legal"] == [] and state["exposable"] == [], state["hand"]  # a spectator's
    else:
        assert hand == left[seat], (seat, sorted(state["hand"]))  # its own seat's hand, as it stands
    # What repeats the cards played so far: as the record has them.
    assert _plays(state["trick"]["plays"]) == plays[tricks * 4:done]
    last = state["last_trick"]
    assert (_plays(last["plays"]) if last is not None else None) == (
        plays[(tricks - 1) * 4:tricks * 4] if tricks else None)
    taken = counted(state["captured"])
    assert not taken - Counter(c for _, cards in plays[:tricks * 4] for c in cards), taken
    # What repeats the hand: its choices.
    for choice in state["legal"]:
        assert not Counter(choice) - hand, choice
    assert not Counter(e["card"] for e in state["exposable"]) - hand, state["exposable"]
    assert not counted(state["my_declaration"]) - hand, state["my_declaration"]
    # The exposures it may see (R4.4): set aside; any other is counted as seen.
    exposed = Counter((e["seat"], e["card"], e["kind"]) for e in record["exposures"])
    unseen: Counter[str] = Counter()
    for e in state["exposures"]:
        known = (e["seat"], e["card"], e["kind"])
        assert exposed[known] > 0, e  # an exposure the deal has
        exposed[known] -= 1
        mine = e["seat"] == seat
        shown = e["kind"] != "hidden" or any(who == e["seat"] and e["card"] in cards for who, cards in so_far)
        if not (mine or (state["phase"] != "expose" and shown)):
            unseen[e["card"]] += 1
    rest = {k: v for k, v in state.items() if k not in (
        "hand", "trick", "last_trick", "captured", "legal", "exposable", "my_declaration", "exposures")}
    shown_cards = hand + unseen + counted(rest)
    explained = (left[seat] if seat is not None else Counter()) + played
    seen = {seat} if seat is not None and hand else set()
    for card in shown_cards - explained:
        holders = {s for s in SEATS if s != seat and left[s][card] > 0}
        assert holders, (card, seat)  # shown more often than anyone holds it or it was played
        seen |= holders
    return seen


def hidden_seats(messages: list[Message], records: dict[int, Message]) -> dict[int, set[str]]:
    """For each deal, the seats some of whose hidden cards are in ``messages``: the hands their
    recipient saw (:func:`state_hidden_seats`).  A hint ranks plays of the hand it was asked for:
    the seat its recipient held in that deal when the hint's cards are that seat's, else every
    seat whose hand holds them all."""
    seen: dict[int, set[str]] = {}
    held: dict[int, str] = {}  # the seat each deal's states last showed held
    for m in messages:
        if m.get("type") == "hint":
            record = records[m["deal_index"]]
            asked: Counter[str] = Counter()
            for h in m["hints"]:
                asked |= Counter(h["cards"])
            assert asked, m
            holding = held.get(m["deal_index"])
            if holding is not None and not asked - Counter(record["hands"][holding]):
                mine = {holding}
            else:
                mine = {s for s in SEATS if not asked - Counter(record["hands"][s])}
                assert mine, sorted(asked)
            seen.setdefault(m["deal_index"], set()).update(mine)
            continue
        if m.get("type") != "state":
            continue
        state = m["state"]
        if state["phase"] not in ("expose", "play"):
            continue  # before the start nothing is dealt; after a deal every card is public
        mine = state_hidden_seats(state, records[state["deal_index"]])
        if state["seat"] is not None:
            assert mine <= {state["seat"]}, (state["seat"], mine)  # what it shows is its own seat's
            held[state["deal_index"]] = state["seat"]
        else:
            assert mine == set(), mine  # a spectator's view
        seen.setdefault(state["deal_index"], set()).update(mine)
    return seen


def records_of(person: Someone, table_id: str) -> dict[int, Message]:
    text = person.http.get(f"/api/matches/{table_id}/records.jsonl").text
    check_file(text)
    return {r["deal_index"]: r for r in map(json.loads, text.splitlines())}


# ---------------------------------------------------------------------- the exact sequence


def test_a_person_who_hops_seats_gets_no_second_hand(server: LiveServer) -> None:
    """Stand, sit W, stand, sit E: one person used to get a hand of each seat of one deal.  Now each
    of those seats is theirs from the next deal on, and a spectator fares no better; the seat they
    were dealt they may take back.  (A second person sits at N and holds the exposure phase open.)"""
    hopper, blocker, watcher = Someone(server), Someone(server), Someone(server)
    table = new_table(hopper, options={"match_end": "deals:2"},
                      levels={"N": "random", "E": "random", "W": "random"})
    table_id = table["table_id"]
    live, held, spectator = (p.connect(table_id) for p in (hopper, blocker, watcher))
    held.send({"type": "sit", "seat": "N"})
    live.until(lambda s: s["table"]["seats"]["N"]["name"] == blocker.name)
    live.send({"type": "start"})
    state = live.until(lambda s: s["phase"] == "expose" and "S" in s["undeclared"])
    dealt = set(state["hand"])
    assert state["you"]["seat"] == "S" and len(dealt) == 13
    for seat in ("W", "E"):
        live.send({"type": "stand"})
        live.send({"type": "sit", "seat": seat})
        s = live.until(lambda s, seat=seat: s["table"]["seats"][seat]["name"] == hopper.name)
        assert s["phase"] == "expose" and s["hand"] == [] and s["legal"] == [] and s["exposable"] == [], seat
        assert s["you"]["seat"] is None and s["you"]["next_deal_seat"] == seat
        assert s["table"]["seats"][seat]["next_deal"] is True
        assert s["table"]["seats"][seat]["computer"] == "random"  # it plays the seat until then
        # acting for the seat is refused: its hand was dealt to someone else
        assert live.refused({"type": "expose", "cards": []})["code"] == "server.next_deal_seat"
        assert live.refused({"type": "hint"})["code"] == "server.next_deal_seat"
    # a spectator cannot take a hand either: South is free, but it was dealt to the hopper
    spectator.send({"type": "sit", "seat": "S"})
    watched = spectator.until(lambda s: s["table"]["seats"]["S"]["name"] == watcher.name)
    assert watched["hand"] == [] and watched["you"]["next_deal_seat"] == "S"
    # the person dealt South takes it back, with its hand, during the deal — also from someone
    # who sat down there meanwhile (they sit nowhere then: nobody can keep a person from their hand)
    live.send({"type": "stand"})
    live.send({"type": "sit", "seat": "S"})
    back = live.until(lambda s: s["you"]["seat"] == "S")
    assert back["you"]["next_deal_seat"] is None and back["hand"] and set(back["hand"]) <= dealt
    moved = spectator.until(lambda s: s["you"]["next_deal_seat"] is None)
    assert moved["you"]["seat"] is None and moved["table"]["seats"]["S"]["name"] == hopper.name
    assert moved["hand"] == []
    # from the next deal on, a seat taken during a deal is the person's
    live.send({"type": "stand"})
    live.send({"type": "sit", "seat": "E"})
    live.until(lambda s: s["you"]["next_deal_seat"] == "E")
    held.send({"type": "stand"})  # the computer plays North: the deal plays out
    live.until(lambda s: s["phase"] == "deal-over", timeout=60)
    assert live.state["you"]["seat"] == "E"
    live.send({"type": "next"})
    nxt = live.until(lambda s: s["phase"] in ("expose", "play") and s["deal_index"] == 1)
    assert nxt["you"]["seat"] == "E" and len(nxt["hand"]) == 13
    live.send({"type": "stand"})
    live.until(lambda s: s["phase"] == "match-over", timeout=60)
    spectator.until(lambda s: s["phase"] == "match-over")
    held.drain()
    records = records_of(hopper, table_id)
    assert records[0]["players"]["S"]["name"] == hopper.name  # the deal counts for whom it was dealt
    assert records[1]["players"]["E"]["name"] == hopper.name
    for who in (live, held, spectator):
        seen = hidden_seats(who.messages, records)
        assert all(len(seats) <= 1 for seats in seen.values()), seen
    assert hidden_seats(live.messages, records) == {0: {"S"}, 1: {"E"}}
    assert all(seats == set() for seats in hidden_seats(spectator.messages, records).values())


# ---------------------------------------------------------------------- random sequences


class SeatHopping(RuleBasedStateMachine):
    """Three people and a spectator at a public table with computer players in every empty seat:
    random stands, sits, new tabs (watch), reconnects, leaves, plays and nexts.  Every frame each
    person receives, on any of their connections, is kept; at the end the match is played out and
    each person's frames are held against the deal records: no person saw the hidden cards of two
    seats of one deal.  ``servers``: where each person's connections go, in turn (several servers
    sharing the table, or one); ``preset``: the table's (one deck or two)."""

    servers: ClassVar[list[Any]] = []
    preset: ClassVar[str] = "online"

    def __init__(self) -> None:
        super().__init__()
        self.rng = random.Random(len(self.servers))
        self.people = [Someone(self.servers[i % len(self.servers)]) for i in range(4)]
        host = self.people[0]
        response = host.http.post("/api/tables", json={
            "preset": self.preset, "turn_seconds": None, "expose_seconds": None, "speed": "instant",
            "options": {"match_end": "deals:3"}, "levels": dict.fromkeys(SEATS, "random")})
        assert response.status_code == 201, response.text
        self.table_id = response.json()["table_id"]
        self.lives: list[list[Live]] = [[p.connect(self.table_id)] for p in self.people]
        self.frames: list[list[Message]] = [[] for _ in self.people]
        for i, seat in ((1, "E"), (2, "W")):
            self.lives[i][0].send({"type": "sit", "seat": seat})
        self.lives[0][0].until(lambda s: bool(s["table"]["seats"]["E"]["name"] and s["table"]["seats"]["W"]["name"]))
        self.lives[0][0].send({"type": "start"})
        self.lives[0][0].until(lambda s: s["phase"] != "waiting")
        self.turns = 0

    # -- what a person does

    def _live(self, who: int) -> Live | None:
        return self.lives[who][-1] if self.lives[who] else None

    def _send(self, who: int, message: Message) -> None:
        live = self._live(who)
        if live is None:
            live = self.people[who].connect(self.table_id)
            self.lives[who].append(live)
        with contextlib.suppress(ConnectionClosed):
            live.send(message)
        self._settle()

    def _settle(self, quiet: float = 0.03) -> None:
        for lives in self.lives:
            for live in lives:
                with contextlib.suppress(ConnectionClosed):
                    live.drain(quiet)

    @rule(who=st.integers(0, 3))
    def stand(self, who: int) -> None:
        self._send(who, {"type": "stand"})

    @rule(who=st.integers(0, 3), seat=st.sampled_from(SEATS))
    def sit(self, who: int, seat: str) -> None:
        self._send(who, {"type": "sit", "seat": seat})

    @rule(who=st.integers(0, 3))
    def watch(self, who: int) -> None:
        """Another tab of the same person."""
        if len(self.lives[who]) < 2:
            self.lives[who].append(self.people[who].connect(self.table_id))
            self._settle()

    @rule(who=st.integers(0, 3), elsewhere=st.booleans())
    def reconnect(self, who: int, elsewhere: bool) -> None:
        """A connection drops and comes back saying the last version it saw (through another
        server when there are several)."""
        live = self._live(who)
        if live is None:
            return
        since = live.state.get("v")
        self._close(who, live)
        if elsewhere and len(self.servers) > 1:
            person = self.people[who]
            person.rebind(self.servers[(self.servers.index(person.server) + 1) % len(self.servers)])
        self.lives[who].append(self.people[who].connect(self.table_id, since=since))
        self._settle()

    @rule(who=st.integers(0, 3))
    def leave(self, who: int) -> None:
        live = self._live(who)
        if live is not None:
            self._close(who, live)
            self._settle()

    @rule(who=st.integers(0, 3))
    def hint(self, who: int) -> None:
        self._send(who, {"type": "hint", "quick": True})

    @rule(who=st.integers(0, 3))
    def next(self, who: int) -> None:
        self._send(who, {"type": "next"})

    @rule(turns=st.integers(1, 8))
    def play(self, turns: int) -> None:
        """Each person whose seat the table waits for acts, a few times over."""
        for _ in range(turns):
            self._act()
            self._settle(0.01)

    def _act(self) -> bool:
        acted = False
        for lives in self.lives:
            live = lives[-1] if lives else None
            state = live.state if live is not None else {}
            seat = state.get("you", {}).get("seat") if state else None
            if live is None or seat is None:
                continue
            message: Message | None = None
            if state["phase"] == "expose" and seat in state["undeclared"]:
                message = random_exposures(state, self.rng)
            elif state["phase"] == "play" and state["turn"] == seat and state["legal"]:
                message = {"type": "play", "cards": self.rng.choice(state["legal"])}
            elif state["phase"] == "deal-over":
                message = {"type": "next"}
            if message is not None:
                with contextlib.suppress(ConnectionClosed):
                    live.send(message)
                acted = True
        return acted

    def _close(self, who: int, live: Live) -> None:
        with contextlib.suppress(ConnectionClosed, TimeoutError):
            live.drain(0.02)
        self.frames[who].extend(live.messages)
        with contextlib.suppress(Exception):
            live.close()
        self.lives[who].remove(live)

    def teardown(self) -> None:
        """Play the match out (everyone stands; the computers play; someone seated deals the next
        deal), then hold every frame against the records."""
        try:
            end = time.monotonic() + 120
            watcher = self.people[0]
            for who in range(4):
                self._send(who, {"type": "stand"})
            live = self._live(0) or watcher.connect(self.table_id)
            if live not in self.lives[0]:
                self.lives[0].append(live)
            while live.state.get("phase") != "match-over":
                assert time.monotonic() < end, live.state.get("phase")
                phase = live.state.get("phase")
                if phase == "deal-over":  # sit to deal the next deal, and let a computer play it
                    if live.state["you"]["seat"] is None and live.state["you"].get("next_deal_seat") is None:
                        free = next(s for s in SEATS if live.state["table"]["seats"][s]["name"] is None)
                        live.send({"type": "sit", "seat": free})
                    live.send({"type": "next"})
                    live.send({"type": "stand"})
                    live.until(lambda s: s["phase"] != "deal-over")
                with contextlib.suppress(TimeoutError):
                    live.receive(0.5)
            self._settle(0.1)
            records = records_of(watcher, self.table_id)
            assert {r["preset"] for r in records.values()} == {self.preset}
            anyone = False
            for who in range(4):
                for open_live in list(self.lives[who]):
                    self._close(who, open_live)
                seen = hidden_seats(self.frames[who], records)
                assert all(len(seats) <= 1 for seats in seen.values()), (who, seen)
                anyone = anyone or any(seen.values())
            assert anyone  # (East and West were dealt the first deal: the check saw their hands)
        finally:
            for lives in self.lives:
                for open_live in lives:
                    with contextlib.suppress(Exception):
                        open_live.close()
            for person in self.people:
                person.http.close()


def run_seat_hopping(servers: list[Any], examples: int, preset: str = "online") -> None:
    machine = type("SeatHoppingHere", (SeatHopping,), {"servers": servers, "preset": preset})
    run_state_machine_as_test(machine, settings=settings(
        max_examples=examples, stateful_step_count=30, deadline=None, derandomize=True,
        suppress_health_check=list(HealthCheck)))


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["online", "online2"])  # one deck, and two: a card twice in a deal
def test_random_seat_changes_never_give_anyone_a_second_hand(server: LiveServer, preset: str) -> None:
    run_seat_hopping([server], scaled(12), preset)


# ---------------------------------------------------------------------- chosen seeds


def test_a_public_table_never_takes_a_chosen_seed(server: LiveServer) -> None:
    host = Someone(server)
    response = host.http.post("/api/tables", json={"seed": 7})
    assert response.status_code == 400
    assert response.json()["code"] == "server.seed_public"
    assert response.json()["message_zh"]
    assert host.http.get("/api/matches").json() == []  # no table was made
    assert host.http.get("/api/tables").json() == []


@pytest.mark.parametrize("exposure", ["hidden", "sell_x4_x2"])
def test_a_table_for_people_does_not_combine_hidden_exposures_with_the_forced_fourth(server: LiveServer,
                                                                                     exposure: str) -> None:
    """R4.4: under 逼明, once three of the four cards are exposed the fourth is shown — and with one
    of the three exposed hidden (暗卖), everyone would read which card that was, and who holds
    it.  A table for people with hidden exposures refuses 逼明 (the online preset's default), and
    takes them with it turned off; a single-player match, where nobody else is told, takes both —
    but its 再来一局, which makes a table for people, does not."""
    host = Someone(server)
    response = host.http.post("/api/tables", json={"options": {"exposure": exposure}})
    assert response.status_code == 400 and response.json()["code"] == "server.hidden_with_auto_fourth"
    assert response.json()["message_zh"] and host.http.get("/api/tables").json() == []
    made = host.http.post("/api/tables", json={"options": {"exposure": exposure, "auto_expose_fourth": False}})
    assert made.status_code == 201, made.text
    alone = host.http.post("/api/matches", json={"options": {"exposure": exposure, "match_end": "deals:1"},
                                                 "levels": dict.fromkeys("NEW", "random")})
    assert alone.status_code == 201, alone.text
    # 再来一局 there would make a table for people of the same options: refused, nothing made
    live = host.connect(alone.json()["match_id"])
    drive({"S": live}, random.Random(3), lambda states: states["S"].get("phase") == "match-over")
    assert live.refused({"type": "again"})["code"] == "server.hidden_with_auto_fourth"
    assert host.http.get("/api/tables").json() == []
    live.close()


def test_a_set_deal_is_shown_to_everyone_and_counts_for_nobody(server: LiveServer) -> None:
    """A private table with a chosen seed: the host could know every hand, so everyone at the table
    is told the deal was set in advance, and its deals count toward no lifetime score."""
    rng = random.Random(5)
    host, guest = Someone(server), Someone(server)
    table = new_table(host, seed=7, visibility="private", options={"match_end": "deals:1"},
                      levels=dict.fromkeys(SEATS, "random"))
    plain = new_table(host, visibility="private", levels=dict.fromkeys(SEATS, "random"))
    lives = {"S": host.connect(table["table_id"]), "N": guest.connect(table["table_id"], invite=table["invite"])}
    lives["N"].send({"type": "sit", "seat": "N"})
    state = lives["S"].until(lambda s: s["table"]["seats"]["N"]["name"] == guest.name)
    assert state["table"]["seeded"] is True
    assert lives["N"].until(lambda s: s["you"]["seat"] == "N")["table"]["seeded"] is True
    lives["S"].send({"type": "start"})
    # A chosen seed may be one of few: its commitment, from which it could be found, is shown to
    # nobody before the match is over (the guest seated, or anyone who knows the match's id).
    playing = lives["N"].until(lambda s: s["phase"] in ("expose", "play"))
    assert playing["table"]["commitment"] is None
    assert guest.http.get(f"/api/matches/{table['table_id']}/verify").json()["commitment"] is None
    from test_tables import drive

    drive(lives, rng, lambda states: all(s.get("phase") == "match-over" for s in states.values()))
    over = guest.http.get(f"/api/matches/{table['table_id']}/verify").json()
    assert over["commitment"] == lives["N"].state["table"]["commitment"] and over["seed"] == "7"
    assert over["verified"] == 1
    records = records_of(host, table["table_id"])
    assert len(records) == 1
    # nor toward practice (it counts for nobody): the summary says it was set in advance, not practice
    assert lives["N"].state["deal_result"]["practice"] is False and lives["N"].state["table"]["practice"] is False
    for person in (host, guest):
        me = person.http.get("/api/me").json()
        assert (me["lifetime"], me["deals"], me["matches"], me["practice"]["deals"]) == (0, 0, 0, 0)
        # the history keeps the match, marked as set in advance
        listed = {m["match_id"]: m for m in person.http.get("/api/matches").json()}
        assert listed[table["table_id"]]["seeded"] is True
        assert listed[table["table_id"]]["over"] is True
    other = host.connect(plain["table_id"])
    assert other.until(lambda s: s["phase"] == "waiting")["table"]["seeded"] is False


# ---------------------------------------------------------------------- chat


@pytest.mark.parametrize(("text", "kept"), [
    ("Tiếng Việt", True),  # two marks on a letter, as Vietnamese writes them
    ("ग्रन्थ", True),
    ("a" + "\u0301\u0302\u0303", True),
    ("Z" + "\u0300\u0301\u0302\u0303\u0304" * 4 + "algo", False),
    ("e" + "\u0336" * 4, False),
])
def test_chat_refuses_marks_stacked_over_other_lines(server: LiveServer, text: str, kept: bool) -> None:
    person = Someone(server)
    table = new_table(person)
    live = person.connect(table["table_id"])
    live.until(lambda s: s["phase"] == "waiting")
    if kept:
        live.send({"type": "chat", "text": text})
        got = live.receive()
        while got["type"] not in ("chat", "error"):
            got = live.receive()
        assert got["type"] == "chat" and got["text"] == text, got
    else:
        refusal = live.refused({"type": "chat", "text": text})
        assert refusal["code"] == "server.chat_marks"


#: Client addresses on the internet (a rated table tells people apart by theirs; loopback and
#: private networks tell nobody apart): a household's, and three others, one of them an IPv6
#: address in the same /64 as a fourth.
HOME, AWAY, ABROAD = "93.184.216.34", "151.101.1.69", "2a03:2880:f12f:83::1"
ABROAD_NEIGHBOUR = "2a03:2880:f12f:83:face:b00c::25de"


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_rated_table_seats_one_player_per_network_and_per_browser(db_url: str, tmp_path: Path) -> None:
    """Two accounts from one network (a person's second, or their household's) are not seated
    at one rated table, where they could see each other's cards, nor are two accounts once
    signed in from a same browser; each sits at a table that rates nothing — one without a
    timer, or one a guest sits at — and people of other networks and browsers sit at the rated
    one."""
    with LiveServer(db_url, static_dir=tmp_path / "no-static", trusted_proxies=["127.0.0.1"]) as server:
        ann = account(server, "Ann", HOME)
        rated = new_table(ann, turn_seconds=30, expose_seconds=30)["table_id"]  # public, timed: rated
        lives = {"Ann": ann.connect(rated)}
        bob = account(server, "Bob", HOME)  # Ann's household
        lives["Bob"] = bob.connect(rated)
        assert lives["Bob"].refused({"type": "sit", "seat": "N"})["code"] == "server.linked_at_table"
        cy = account(server, "Cy", ABROAD)
        lives["Cy"] = cy.connect(rated)
        lives["Cy"].send({"type": "sit", "seat": "E"})
        lives["Ann"].until(lambda s: s["table"]["seats"]["E"]["name"] == "Cy")
        neighbour = account(server, "Dee", ABROAD_NEIGHBOUR)  # Cy's /64
        lives["Dee"] = neighbour.connect(rated)
        assert lives["Dee"].refused({"type": "sit", "seat": "W"})["code"] == "server.linked_at_table"
        # Eve's browser is signed in as Cy once: Eve, from a network of her own, is linked to Cy.
        eve = account(server, "Eve", AWAY)
        assert eve.http.post("/api/login", json={"name": "Cy", "password": PASSWORD}).status_code == 200
        eve_again = Someone(server, AWAY)
        assert eve_again.http.post("/api/login", json={"name": "Eve", "password": PASSWORD}).status_code == 200
        lives["Eve"] = eve_again.connect(rated)
        assert lives["Eve"].refused({"type": "sit", "seat": "W"})["code"] == "server.linked_at_table"
        # A guest of Ann's household sits: with a guest at it, the table rates nothing.
        guest = Someone(server, HOME)
        lives["guest"] = guest.connect(rated)
        lives["guest"].send({"type": "sit", "seat": "W"})
        lives["Ann"].until(lambda s: s["table"]["seats"]["W"]["name"] is not None and not s["table"]["rated"])
        # A table that rates nothing (no turn timer) seats Ann's household together.
        friendly = new_table(ann)["table_id"]
        at_home = {"Ann": ann.connect(friendly), "Bob": bob.connect(friendly)}
        at_home["Bob"].send({"type": "sit", "seat": "N"})
        at_home["Ann"].until(lambda s: s["table"]["seats"]["N"]["name"] == "Bob")
        for live in [*lives.values(), *at_home.values()]:
            live.close()
        exported = ann.http.get("/api/account/export").text  # when her pages came from a network, not which
        assert len(json.loads(exported)["sign_ins"]["networks"]) == 1 and HOME not in exported


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_linked_accounts_at_a_table_with_others_play_practice(db_url: str, tmp_path: Path) -> None:
    """Ann and Bo, of one household's network, sit with Cy at a table that rates nothing (no turn
    timer): they would see two hands against Cy, so its deals are practice for all three — the
    header says so before the start, and the deal's summary after — and Cy's lifetime score is
    not theirs to take.  Ann and Dee, of networks apart, play for the lifetime score there."""
    with LiveServer(db_url, static_dir=tmp_path / "no-static", trusted_proxies=["127.0.0.1"]) as server:
        ann, bo = account(server, "Ann", HOME), account(server, "Bo", HOME)
        cy, dee = account(server, "Cy", ABROAD), account(server, "Dee", AWAY)
        for people, practice in (((ann, bo, cy), True), ((ann, dee, cy), False)):
            table_id = new_table(people[0], levels=dict.fromkeys(SEATS, "intermediate"),
                                 options={"match_end": "deals:4"})["table_id"]
            lives = {"S": people[0].connect(table_id)}
            lives["S"].until(lambda s: s["phase"] == "waiting")
            for seat, person in zip("EW", people[1:], strict=True):
                lives[seat] = person.connect(table_id)
                lives[seat].send({"type": "sit", "seat": seat})
            state = lives["S"].until(lambda s: all(s["table"]["seats"][x]["name"] is not None for x in "SEW"))
            assert state["table"]["rated"] is False and state["table"]["practice"] is practice
            before = {p.name: p.http.get("/api/me").json() for p in people}
            lives["S"].send({"type": "start"})
            drive(lives, random.Random(4), lambda states: all(s.get("phase") in ("deal-over", "match-over")
                                                              for s in states.values()))
            result = lives["S"].state["deal_result"]
            assert result["practice"] is practice
            for seat, person in zip("SEW", people, strict=True):
                me, was = person.http.get("/api/me").json(), before[person.name]
                assert (me["practice"]["deals"] - was["practice"]["deals"], me["deals"] - was["deals"]) == (
                    (1, 0) if practice else (0, 1)), person.name
                assert me["lifetime"] - was["lifetime"] == (
                    0 if practice else counted_deal(lives[seat].state, seat))
            if not practice:
                # Between deals Ann and Dee become linked (a browser signs in as both): the next
                # deal is practice, and the header says so after it, read anew as it was dealt.
                shared = Someone(server, AWAY)
                for name in ("Dee", "Ann"):
                    assert shared.http.post("/api/login", json={"name": name, "password": PASSWORD}).status_code == 200
                lives["S"].send({"type": "next"})
                drive(lives, random.Random(5), lambda states: all(
                    s.get("phase") in ("deal-over", "match-over") and s.get("deal_index") == 1
                    for s in states.values()))
                state = lives["S"].state
                assert (state["deal_result"]["practice"], state["table"]["practice"]) == (True, True)
            for live in lives.values():  # (standing up, they may sit at another table under way)
                live.send({"type": "stand"})
            lives["S"].until(lambda s: all(s["table"]["seats"][x]["name"] is None for x in "SEW"))
            for live in lives.values():
                live.close()


PEOPLE = ["u-a", "u-b", "u-c", "u-d"]


@pytest.fixture(scope="module")
def linking_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """A store with four accounts, for :func:`test_people_apart_follow_every_link`."""
    store = Store(f"sqlite:///{tmp_path_factory.mktemp('links') / 'gz.db'}")
    with store.engine.begin() as c:
        for user in PEOPLE:
            c.execute(insert(USERS).values(id=user, name=user, name_key=user, password_hash="x", guest=False,
                                           created="2026-01-01T00:00:00+00:00", lifetime=0, deals=0, matches=0,
                                           pigs=0, session_epoch=1))
    yield store
    store.close()


@settings(max_examples=scaled(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(browsers=st.lists(st.tuples(st.sampled_from(PEOPLE), st.integers(0, 4)), max_size=8),
       networks=st.lists(st.tuples(st.sampled_from(PEOPLE), st.integers(0, 4), st.booleans()), max_size=8))
def test_people_apart_follow_every_link(linking_store: Store, browsers: list[tuple[str, int]],
                                        networks: list[tuple[str, int, bool]]) -> None:
    """However the four accounts share browsers and networks (a network's only while it is kept),
    the store counts as one person every group joined by links, along chains of them too — as a
    plain union of the pairs that share something says."""
    store, now = linking_store, datetime.now(UTC)
    with store.engine.begin() as c:
        c.execute(delete(KNOWN_DEVICES))
        c.execute(delete(USER_NETWORKS))
        for user, browser in set(browsers):
            c.execute(insert(KNOWN_DEVICES).values(user_id=user, device=f"browser-{browser}",
                                                   last_seen=now.isoformat()))
        kept: dict[tuple[str, int], bool] = {}
        for user, network, fresh in networks:
            kept.setdefault((user, network), fresh)
        for (user, network), fresh in kept.items():
            seen = now if fresh else now - NETWORK_KEPT - timedelta(minutes=1)
            c.execute(insert(USER_NETWORKS).values(user_id=user, network=f"net-{network}",
                                                   last_seen=seen.isoformat(timespec="microseconds")))
    shared = [{u for u, b in set(browsers) if b == n} for n in range(5)]
    shared += [{u for (u, k), fresh in kept.items() if k == n and fresh} for n in range(5)]
    groups = [{u} for u in PEOPLE]
    for together in shared:
        joined = [g for g in groups if g & together]
        groups = [g for g in groups if not g & together] + ([set().union(*joined)] if joined else [])
    assert store.people_apart(PEOPLE) == len(groups)
    assert sorted(map(sorted, store.people_of(PEOPLE))) == sorted(map(sorted, groups))
    assert store.linked("u-a", PEOPLE[1:]) == any(len(g) > 1 and "u-a" in g for g in groups)


def test_who_made_a_link_is_who_signed_in_there_later(linking_store: Store) -> None:
    """Of accounts signed in from one browser, those signed in there after another made the link;
    sign-ins of one moment, or kept before that was kept (null), were made by nobody; and a
    network shared makes nobody the maker of anything — it is anyone's to reach."""
    store, now = linking_store, datetime.now(UTC)
    at = [(now - timedelta(minutes=m)).isoformat(timespec="microseconds") for m in range(4)]
    with store.engine.begin() as c:
        c.execute(delete(KNOWN_DEVICES))
        c.execute(delete(USER_NETWORKS))
        c.execute(insert(KNOWN_DEVICES).values(
            [{"user_id": "u-a", "device": "browser-0", "last_seen": at[0], "since": None},
             {"user_id": "u-b", "device": "browser-0", "last_seen": at[0], "since": at[1]},
             {"user_id": "u-c", "device": "browser-1", "last_seen": at[0], "since": at[2]},
             {"user_id": "u-d", "device": "browser-1", "last_seen": at[0], "since": at[2]}]))
        c.execute(insert(USER_NETWORKS).values(
            [{"user_id": "u-a", "network": "net-0", "last_seen": at[3]},
             {"user_id": "u-c", "network": "net-0", "last_seen": at[0]}]))
    assert store.link_makers(PEOPLE) == {"u-b"}
    assert store.link_makers(["u-c", "u-d"]) == set()  # one moment
    assert store.link_makers(["u-a", "u-c"]) == set()  # a network alone
    assert sorted(map(sorted, store.people_of(PEOPLE))) == [["u-a", "u-b", "u-c", "u-d"]]


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_the_pig_is_whoever_brought_its_seat_lowest(db_url: str) -> None:
    """The pig of a match is charged to whoever brought the pig's seat lowest, not to whoever was dealt
    its last deal: Ann sinks East and moves to North for the last deal, Bo taking East — it is
    Ann's; Cy sinks South in one deal and stands up, Dee mends it in two — Cy's, though Dee played
    it more; Bo plays West once and a 新手 computer sinks it for the rest — nobody's (a stranger is
    not made the pig of a seat a weak computer lost); two who sank a seat equally are each
    charged; under 双猪 the top seat's pig is whoever brought it highest; a part kept before seats
    were counted counts all its deals and total at its last seat; a match whose last deal is not
    ranked counts in nobody's pig count, and its parts keep their pig."""
    store = Store(db_url)
    try:
        identity = Identity(store)
        ann, bo, cy, dee = (identity.new_guest().id for _ in range(4))
        Deal = dict[str, tuple[str | None, int]]  # each seat: who was dealt it (None: a computer), its result

        def play(match_id: str, deals: list[Deal], pigs: list[str], *, ranked: bool = True,
                 first: int = 0, totals: list[int] | None = None) -> None:
            if not first:
                store.create_match(match_id=match_id, preset="online", options={}, speed="normal", seed=7,
                                   seating=seating((ann, "Ann")))
            totals = list(totals or [0, 0, 0, 0])
            for i, seats in enumerate(deals, first):
                over = i == first + len(deals) - 1
                for seat, (_, result) in seats.items():
                    totals[SEATS.index(seat)] += result
                assert min(totals) == min(totals[SEATS.index(p)] for p in pigs) or not over
                store.finish_deal(match_id, i, record_line="{}", south_final=0, totals=list(totals), over=over,
                                  winners=[], pigs=pigs if over else [], ranked=ranked or not over,
                                  charges=[Charge(user, result, result=result, seat=seat)
                                           for seat, (user, result) in seats.items() if user is not None])

        def pigs() -> dict[str, int]:
            with store.engine.connect() as c:
                return dict(c.execute(select(USERS.c.id, USERS.c.pigs).where(USERS.c.id.in_([ann, bo, cy, dee]))).all())

        def parts(match_id: str) -> dict[str, bool]:
            with store.engine.connect() as c:
                return dict(c.execute(select(MATCH_PLAYERS.c.user_id, MATCH_PLAYERS.c.pig)
                                      .where(MATCH_PLAYERS.c.match_id == match_id)).all())

        play("m-moved", [{"E": (ann, -300), "N": (None, 300)}] * 3
             + [{"N": (ann, 50), "E": (bo, 100), "S": (None, -150)}], ["E"])
        assert pigs() == {ann: 1, bo: 0, cy: 0, dee: 0} and parts("m-moved") == {ann: True, bo: False}
        play("m-ruined", [{"S": (cy, -833), "N": (None, 833)}] + [{"S": (dee, 83), "N": (None, -83)}] * 2, ["S"])
        assert pigs() == {ann: 1, bo: 0, cy: 1, dee: 0} and parts("m-ruined") == {cy: True, dee: False}
        play("m-computer", [{"W": (bo, 50), "N": (None, -50)}] + [{"W": (None, -300), "N": (None, 300)}] * 3, ["W"])
        assert pigs() == {ann: 1, bo: 0, cy: 1, dee: 0} and parts("m-computer") == {bo: False}
        play("m-even", [{"S": (cy, -100), "N": (None, 100)}, {"S": (dee, -100), "N": (None, 100)}], ["S"])
        assert pigs() == {ann: 1, bo: 0, cy: 2, dee: 1}
        play("m-friendly", [{"W": (bo, -60), "E": (None, 60)}] * 2, ["W"], ranked=False)
        assert pigs() == {ann: 1, bo: 0, cy: 2, dee: 1} and parts("m-friendly") == {bo: True}
        # 双猪 (double_pig): the highest total is a pig too — whoever brought that seat highest.
        play("m-double", [{"E": (ann, 50), "S": (None, -50)}] * 2 + [{"E": (bo, 350), "S": (cy, -350)}] * 2,
             ["S", "E"])
        assert pigs() == {ann: 1, bo: 1, cy: 3, dee: 1} and parts("m-double") == {ann: False, bo: True, cy: True}
        store.create_match(match_id="m-older", preset="online", options={}, speed="normal", seed=7,
                           seating=seating((ann, "Ann")))
        with store.engine.begin() as c:  # parts kept before seats were counted
            c.execute(insert(MATCH_PLAYERS).values(
                [{"match_id": "m-older", "user_id": user, "deals": deals, "total": total, "pig": False,
                  "last": "x", "seat": seat} for user, deals, total, seat in ((bo, 5, -50, "N"), (dee, 2, 40, "E"))]))
        play("m-older", [{"N": (dee, 10), "E": (None, -10)}], ["N"], first=7, totals=[-50, 40, 10, 0])
        assert parts("m-older") == {bo: True, dee: False}  # Bo's five at N: −50, Dee's one there: +10
    finally:
        store.close()


def test_a_single_player_match_seats_nobody_else(server: LiveServer) -> None:
    """On a chosen seed its player may know every hand: a friend with the invite may watch, never
    sit down; nor at one on drawn cards."""
    player, friend = Someone(server), Someone(server)
    response = player.http.post("/api/matches", json={"seed": 11, "levels": dict.fromkeys("NEW", "random")})
    assert response.status_code == 201, response.text
    match_id = response.json()["match_id"]
    live = player.connect(match_id)
    state = live.until(lambda s: (s["phase"] == "expose" and "S" in s["undeclared"])
                       or (s["phase"] == "play" and s["turn"] == "S"))  # the table waits for its player
    assert state["table"]["seeded"] is True
    watching = friend.connect(match_id, invite=state["table"]["invite"])
    watching.until(lambda s: s["phase"] in ("expose", "play"))
    for seat in "NEW":
        assert watching.refused({"type": "sit", "seat": seat})["code"] == "server.seeded_alone"
    drawn = player.http.post("/api/matches", json={"levels": dict.fromkeys("NEW", "random")}).json()["match_id"]
    mine = player.connect(drawn)
    state = mine.until(lambda s: s["phase"] != "waiting")
    assert state["table"]["seeded"] is False
    # Nor does one on drawn cards: its hands are played at the levels its player chose (a person
    # sitting there in 托管 would be played by 新手, for a lifetime score), and nobody is dealt in
    # there (one table at a time does not count it).
    other = account(server, "Other")
    watching = other.connect(drawn, invite=state["table"]["invite"])
    watching.until(lambda s: s["phase"] != "waiting")
    for seat in "NEW":
        assert watching.refused({"type": "sit", "seat": seat})["code"] == "server.solo_alone"
    assert all(s["name"] is None for seat, s in mine.state["table"]["seats"].items() if seat != "S")


# ---------------------------------------------------------------------- sessions and open tables


def test_an_open_table_ends_with_its_session(server: LiveServer) -> None:
    """Someone who knew a guest's cookie and opened the guest's table with it sees nothing more of
    the account the guest signs up as; a sign-out closes that browser's connections too."""
    guest = Someone(server)
    table = new_table(guest, visibility="private", levels=dict.fromkeys(SEATS, "random"))
    mine, copied = guest.connect(table["table_id"]), guest.connect(table["table_id"])  # the copy: another's
    copied.until(lambda s: s["phase"] == "waiting")
    answer = guest.http.post("/api/account", json={"name": "Huang", "password": "a quiet tiger 42"})
    assert answer.status_code == 200, answer.text
    copied.closed_for_the_session()
    mine.closed_for_the_session()
    again = guest.connect(table["table_id"])  # the page connects again, as the account
    state = again.until(lambda s: s["phase"] == "waiting")
    assert state["you"]["name"] == "Huang" and state["you"]["seat"] == "S"
    assert guest.http.post("/api/logout").status_code == 200
    again.closed_for_the_session()
