"""Rated tables on a live server (docs/ratings.md): a deal between two accounts at a public table
with a turn timer moves both ratings — as :func:`gongzhu.ratings.rate_deal` moves them from the
deal's own R7 results — shows them on the seat plates, and adds a point to each profile's history;
a table with a guest, one without a turn timer, one whose deals were set in advance, and a
single-player match move none.  The rating leaderboard lists settled ratings only, per family."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert, select

from gongzhu.ratings import Skill, rate_deal
from gongzhu.server import registry
from gongzhu.server.matchmaking import Waiting, choose, gap
from gongzhu.server.store import RATINGS
from helpers.client import Message
from helpers.database import STORES
from helpers.live import PASSWORD, Live, Someone, account, counted_deal
from helpers.servers import LiveServer
from test_fair_tables import ABROAD, AWAY, HOME
from test_tables import drive, new_table


@pytest.fixture
def server(db_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(db_url, static_dir=tmp_path / "no-static") as s:
        yield s

#: Every seat's computer the quick 新手 (rated: one level for every computer seat).
ALL_RANDOM = {"N": "random", "E": "random", "S": "random", "W": "random"}


def one_deal(host: Someone, other: Someone, level: str = "intermediate", **table: Any) -> tuple[str, dict[str, Live]]:
    """``host`` at South and ``other`` at East of a new table (computers of ``level`` at N and W)
    play its first deal to its end."""
    table_id = new_table(host, levels={"N": level, "W": level}, **table)["table_id"]
    south = host.connect(table_id, invite=table.get("invite"))
    info = south.until(lambda s: s["phase"] == "waiting")["table"]
    east = other.connect(table_id, invite=info.get("invite"))
    east.send({"type": "sit", "seat": "E"})
    south.until(lambda s: s["table"]["seats"]["E"]["name"] == other.name)
    south.send({"type": "start"})
    lives = {"S": south, "E": east}
    drive(lives, random.Random(3), lambda states: all(s.get("phase") in ("deal-over", "match-over")
                                                      for s in states.values()))
    return table_id, lives


def stand_up(lives: dict[str, Live]) -> None:
    """The people of :func:`one_deal` stand up (their match goes on: standing up lets them sit at
    another table under way, docs/web-protocol.md, Tables), and their connections close."""
    for live in lives.values():
        live.send({"type": "stand"})
    lives["S"].until(lambda s: s["table"]["seats"]["S"]["name"] is None and s["table"]["seats"]["E"]["name"] is None)
    for live in lives.values():
        live.close()


def let_go(server: LiveServer, table_id: str) -> None:
    """Wait until the server has let the table go (its last connection closed): the next
    connection loads it again from the store."""
    tables, since = server.app.state.tables, time.monotonic()
    while tables._tables.get(table_id) is not None:
        assert time.monotonic() - since < 10
        time.sleep(0.02)


def profile(person: Someone) -> dict[str, Any]:
    r = person.http.get("/api/profile")
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_deal_between_two_accounts_moves_both_ratings(server: LiveServer) -> None:
    anna, bo = account(server, "Anna"), account(server, "Bo")
    # (four deals: the match goes on after the first, so that the lobby still lists the table)
    table_id, lives = one_deal(anna, bo, turn_seconds=30, options={"match_end": "deals:4"})
    state: Message = lives["S"].state
    assert state["table"]["rated"] is True
    result = state["deal_result"]["result"]
    want = rate_deal({}, [(["anna"], result["S"]), (["bo"], result["E"])])
    for person, seat, key in ((anna, "S", "anna"), (bo, "E", "bo")):
        mine = profile(person)
        assert mine["ratings"] == {"one_deck": want[key].view()}
        assert [p["rating"] for p in mine["rating_history"]["one_deck"]] == [want[key].rating]
        plate = state["table"]["seats"][seat]
        assert (plate["rating"], plate["deviation"], plate["provisional"]) == (
            want[key].rating, want[key].deviation, True)
    for seat in ("N", "W"):  # computers have no rating
        assert "rating" not in state["table"]["seats"][seat]
    # The lobby lists the table as rated, with each account's rating.
    listed = next(t for t in anna.http.get("/api/tables").json() if t["id"] == table_id)
    assert listed["rated"] is True and listed["seats"]["E"]["rating"] == want["bo"].rating
    assert "rating" not in listed["seats"]["N"]
    # The record of the deal is the one the ratings were moved by.
    record = anna.http.get(f"/api/matches/{table_id}/deals/0").json()
    assert {s: record["final"][s] for s in "SE"} == {s: state["deal_result"]["final"][s] for s in "SE"}
    for live in lives.values():
        live.close()


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_two_accounts_of_one_browser_are_one_person_to_ratings_and_the_lifetime_score(server: LiveServer) -> None:
    """Anna and Bo sit at a table whose settings rate its deals, then a browser signs in as each
    of them (one person's two accounts, or a household's): the deal dealt to them both is rated for
    neither, and is practice for both, as a deal dealt to one person is."""
    anna, bo = account(server, "Anna"), account(server, "Bo")
    table_id = new_table(anna, levels=ALL_RANDOM, turn_seconds=30, options={"match_end": "deals:4"})["table_id"]
    lives = {"S": anna.connect(table_id), "E": bo.connect(table_id)}
    lives["E"].send({"type": "sit", "seat": "E"})
    lives["S"].until(lambda s: s["table"]["seats"]["E"]["name"] == "Bo" and s["table"]["rated"])
    shared = Someone(server)
    for name in ("Anna", "Bo"):
        assert shared.http.post("/api/login", json={"name": name, "password": PASSWORD}).status_code == 200
    lives["S"].send({"type": "start"})
    assert lives["S"].until(lambda s: s["phase"] != "waiting")["table"]["rated"] is False
    drive(lives, random.Random(4), lambda states: all(s.get("phase") == "deal-over" for s in states.values()))
    assert lives["S"].state["deal_result"]["practice"] is True
    for person in (anna, bo):
        mine = profile(person)
        assert mine["ratings"] == {} and mine["lifetime"] == 0 and mine["deals"] == 0
        assert mine["practice"]["deals"] == 1
    for live in lives.values():
        live.close()


def test_whom_a_deal_was_dealt_to_decides_that_it_is_rated(server: LiveServer) -> None:
    """A deal is rated among the accounts it was dealt to: one of them standing up and a guest
    sitting down at the seat before its end (the guest plays from the next deal) unrates nothing."""
    anna, bo, guest = account(server, "Anna"), account(server, "Bo"), Someone(server)
    # (a quick computer player for East's seat once Bo has left it)
    table_id = new_table(anna, levels=ALL_RANDOM, turn_seconds=30)["table_id"]
    south, east = anna.connect(table_id), bo.connect(table_id)
    east.send({"type": "sit", "seat": "E"})
    south.until(lambda s: s["table"]["seats"]["E"]["name"] == "Bo")
    south.send({"type": "start"})
    south.until(lambda s: s["phase"] in ("expose", "play"))
    east.send({"type": "stand"})
    late = guest.connect(table_id)
    late.send({"type": "sit", "seat": "E"})
    south.until(lambda s: s["table"]["seats"]["E"]["name"] == guest.name)
    assert south.state["table"]["rated"] is False  # a guest sits at it now
    drive({"S": south}, random.Random(4), lambda states: states["S"].get("phase") in ("deal-over", "match-over"))
    result = south.state["deal_result"]["result"]
    want = rate_deal({}, [(["anna"], result["S"]), (["bo"], result["E"])])
    assert profile(anna)["ratings"] == {"one_deck": want["anna"].view()}
    assert profile(bo)["ratings"] == {"one_deck": want["bo"].view()}
    for live in (south, east, late):
        live.drain(0.05)  # (a connection that read nothing would take its time to close)
        live.close()


def test_tables_that_move_no_rating(server: LiveServer) -> None:
    anna, bo, guest = account(server, "Anna"), account(server, "Bo"), Someone(server)
    cases: list[tuple[Someone, Someone, dict[str, Any]]] = [
        (anna, guest, {"turn_seconds": 30}),  # a guest at the table
        (anna, bo, {}),  # no turn timer
        (anna, bo, {"turn_seconds": 30, "visibility": "private", "seed": 5})]  # set in advance
    for host, other, table in cases:
        _, lives = one_deal(host, other, **table)
        seats = lives["S"].state["table"]["seats"]
        assert lives["S"].state["table"]["rated"] is False, table
        assert seats["S"]["rating"] == 1500 and seats["S"]["provisional"] is True  # an account, unrated
        assert ("rating" in seats["E"]) is (other is bo)  # a guest has no rating
        stand_up(lives)
    assert profile(anna)["ratings"] == {} and profile(bo)["ratings"] == {}
    # A single-player match against computers moves no rating either.
    r = anna.http.post("/api/matches", json={"levels": {"N": "random", "E": "random", "W": "random"}})
    assert r.status_code == 201
    assert profile(anna)["ratings"] == {}


def test_partners_are_rated_as_teams(server: LiveServer) -> None:
    anna, bo = account(server, "Anna"), account(server, "Bo")
    _, lives = one_deal(anna, bo, turn_seconds=30, preset="partners")
    state = lives["S"].state
    result = state["deal_result"]["result"]
    want = rate_deal({}, [(["anna"], result["N"]), (["bo"], result["E"])])  # N-S against E-W
    assert profile(anna)["ratings"] == {"partners": want["anna"].view()}
    assert profile(bo)["ratings"] == {"partners": want["bo"].view()}
    for live in lives.values():
        live.close()


def test_the_rating_leaderboard_lists_settled_ratings_per_family(server: LiveServer) -> None:
    anna, bo, cy = account(server, "Anna"), account(server, "Bo"), account(server, "Cy")
    store = server.app.state.store
    ids = {p.name: p.http.get("/api/me").json()["id"] for p in (anna, bo, cy)}
    settled, unsure = Skill(30.0, 2.0, 80), Skill(35.0, 6.0, 5)
    with store.engine.begin() as c:
        c.execute(insert(RATINGS), [
            {"user_id": ids["Anna"], "family": "one_deck", "mu": settled.mu, "sigma": settled.sigma, "games": 80,
             "updated": "2026-12-05"},
            {"user_id": ids["Bo"], "family": "one_deck", "mu": unsure.mu, "sigma": unsure.sigma, "games": 5,
             "updated": "2026-12-05"},
            {"user_id": ids["Cy"], "family": "two_decks", "mu": 20.0, "sigma": 2.5, "games": 60,
             "updated": "2026-12-05"}])
    board = anna.http.get("/api/leaderboard?family=one_deck").json()
    assert board == [{"rank": 1, "name": "Anna", "title": board[0]["title"], "rating": settled.rating,
                      "deviation": settled.deviation, "games": 80, "lifetime": 0}]  # Bo: still provisional
    assert [row["name"] for row in anna.http.get("/api/leaderboard?family=two_decks").json()] == ["Cy"]
    assert anna.http.get("/api/leaderboard?family=partners").json() == []
    assert anna.http.get("/api/leaderboard?family=bridge").status_code == 400
    assert [row["name"] for row in anna.http.get("/api/leaderboard").json()]  # by lifetime, as before


def test_play_now_seats_a_person_at_the_table_nearest_their_rating(server: LiveServer) -> None:
    """Matchmaking: of two public tables waiting for players, "Play now" seats a person at the one
    whose people are nearest their rating, though the other has waited longer; a person already
    seated is sent back to their table; a person never rated (1500) goes to the table nearest
    1500."""
    strong, middling, seeker = account(server, "Strong"), account(server, "Middling"), account(server, "Seeker")
    store = server.app.state.store
    ids = {p.name: p.http.get("/api/me").json()["id"] for p in (strong, middling, seeker)}
    with store.engine.begin() as c:
        c.execute(insert(RATINGS), [
            {"user_id": ids[name], "family": "one_deck", "mu": 25.0 + (rating - 1500) / 40, "sigma": 2.0,
             "games": 90, "updated": "2026-12-05"}
            for name, rating in (("Strong", 1900), ("Middling", 1500), ("Seeker", 1880))])
    older = new_table(middling, turn_seconds=30)["table_id"]  # waiting longer, far from the seeker
    newer = new_table(strong, turn_seconds=30)["table_id"]
    lives = [middling.connect(older), strong.connect(newer)]  # the hosts are there to start
    for live in lives:
        live.until(lambda s: s["phase"] == "waiting")
    joined = seeker.http.post("/api/tables/play-now", json={})
    assert joined.status_code == 200 and joined.json()["table_id"] == newer
    assert seeker.http.post("/api/tables/play-now", json={}).json()["table_id"] == newer  # seated there already
    far = account(server, "Faraway")  # unrated: 1500, nearest the older table
    assert far.http.post("/api/tables/play-now", json={}).json()["table_id"] == older
    for live in lives:
        live.close()


def test_choose_takes_the_nearest_table_within_its_window_the_oldest_among_equals() -> None:
    near_new = Waiting(100.0, 0.0, "2026-12-05T10:00:02")
    far_old = Waiting(400.0, 10.0, "2026-12-05T10:00:00")  # window 150 + 100 = 250: outside
    assert choose([far_old, near_new]) == 1
    assert choose([Waiting(400.0, 30.0, "a"), near_new]) == 1  # both inside: the nearer
    assert choose([Waiting(400.0, 30.0, "a"), Waiting(500.0, 0.0, "b")]) == 0  # only the first inside
    assert choose([Waiting(50.0, 0.0, "b"), Waiting(50.0, 0.0, "a")]) == 1  # alike: the oldest
    assert choose([far_old]) is None and choose([]) is None  # none near: a table of one's own
    assert gap(1600, [1500, 1700, 1400]) == pytest.approx(200 / 3) and gap(1500, []) == 0.0


def test_a_play_now_table_starts_when_full_or_after_a_while(server: LiveServer,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A table "Play now" made starts by itself once "Play now" fills its last seat, or after the
    bound with computers in its empty seats: nobody waits long for others."""
    monkeypatch.setattr(registry, "QUICK_START_SECONDS", 1)
    first, *others = [Someone(server) for _ in range(4)]
    table_id = first.http.post("/api/tables/play-now", json={}).json()["table_id"]
    hosting = first.connect(table_id)
    assert hosting.until(lambda s: s["phase"] == "waiting")["table"]["status"] == "waiting"
    for person in others:
        assert person.http.post("/api/tables/play-now", json={}).json()["table_id"] == table_id
    assert hosting.until(lambda s: s["table"]["status"] == "playing")["phase"] in ("expose", "play")
    alone = Someone(server)
    lonely = alone.http.post("/api/tables/play-now", json={}).json()["table_id"]
    assert lonely != table_id
    waiting = alone.connect(lonely)
    state = waiting.until(lambda s: s["table"]["status"] == "playing", timeout=15)
    assert [state["table"]["seats"][s]["computer"] is not None for s in "NEW"] == [True, True, True]
    for live in (hosting, waiting):
        live.close()


def test_play_now_with_a_preset_takes_only_a_table_of_it(server: LiveServer) -> None:
    """"Play now" for a preset: a waiting table of another preset is not taken; a new table is
    made of the preset asked for; a preset the server does not know is refused."""
    host, seeker = Someone(server), Someone(server)
    other = new_table(host, preset="partners", turn_seconds=30, expose_seconds=20)["table_id"]
    hosting = host.connect(other)
    hosting.until(lambda s: s["phase"] == "waiting")
    made = seeker.http.post("/api/tables/play-now", json={"preset": "tournament"}).json()["table_id"]
    assert made != other
    assert server.app.state.store.match(made).preset == "tournament"
    assert seeker.http.post("/api/tables/play-now", json={"preset": "whist"}).status_code == 400
    assert Someone(server).http.post("/api/tables/play-now", json={"preset": "partners"}).json()["table_id"] == other
    hosting.close()


def test_play_now_seats_no_stranger_at_a_table_its_host_rigged(server: LiveServer) -> None:
    """A host gives their own partner an expert and a rival's a 新手 (or changes the options, or
    shortens the clock): that table is not rated, and "Play now" seats nobody at it — the stranger
    gets a table of Play now's own; a table that plays as Play now's own is taken."""
    host = account(server, "Hal")
    rigged = {
        "levels": {"N": "intermediate", "E": "intermediate", "S": "expert", "W": "random"},
        "options": {"match_limit": 500},
        "turn_seconds": 5,
    }
    for n, (what, value) in enumerate(rigged.items()):
        body = {"preset": "partners", "seat": "N", "turn_seconds": 30, "expose_seconds": 20, what: value}
        table_id = new_table(host, **body)["table_id"]
        hosting = host.connect(table_id)
        state = hosting.until(lambda s: s["phase"] == "waiting")
        assert state["table"]["rated"] is (what != "levels"), what  # (a changed limit or clock rates still)
        seeker = account(server, f"Sid{n}")  # (someone seated nowhere yet)
        taken = seeker.http.post("/api/tables/play-now", json={"preset": "partners"}).json()["table_id"]
        assert taken != table_id, what
        hosting.close()
    fair = new_table(host, preset="partners", seat="N", turn_seconds=30, expose_seconds=20)["table_id"]
    hosting = host.connect(fair)
    assert hosting.until(lambda s: s["phase"] == "waiting")["table"]["rated"] is True
    taken = account(server, "Tom").http.post("/api/tables/play-now", json={"preset": "partners"})
    assert taken.json()["table_id"] == fair
    hosting.close()


def test_ranked_play_now_makes_tables_of_accounts_only(server: LiveServer) -> None:
    """"Play now" ranked: an account's, at a table where only accounts sit (its deals rated); a
    guest may neither ask for one nor sit at one, and plain "Play now" never seats anyone there."""
    anna, cy, guest = account(server, "Anna"), account(server, "Cy"), Someone(server)
    ranked = anna.http.post("/api/tables/play-now", json={"ranked": True}).json()["table_id"]
    hosting = anna.connect(ranked)
    state = hosting.until(lambda s: s["phase"] == "waiting")
    assert state["table"]["accounts_only"] is True and state["table"]["rated"] is True
    refused = guest.http.post("/api/tables/play-now", json={"ranked": True})
    assert refused.status_code == 403 and refused.json()["code"] == "server.ranked_account_needed"
    assert guest.http.post("/api/tables/play-now", json={}).json()["table_id"] != ranked
    assert cy.http.post("/api/tables/play-now", json={"ranked": True}).json()["table_id"] == ranked
    watching = guest.connect(ranked)
    assert watching.until(lambda s: s["phase"] == "waiting")["seat"] is None  # watching is fine
    assert watching.refused({"type": "sit", "seat": "W"})["code"] == "server.accounts_only"
    listed = next(t for t in anna.http.get("/api/tables").json() if t["id"] == ranked)
    assert listed["accounts_only"] is True
    for live in (hosting, watching):
        live.close()


def test_play_now_never_seats_a_person_at_a_second_table(server: LiveServer) -> None:
    """Whoever sits at a table for people not over — of another preset, a ranked one, one their
    own and already playing — is given that table by "Play now", whatever they ask for: nobody
    plays two tables at once."""
    anna = account(server, "Anna")
    first = anna.http.post("/api/tables/play-now", json={}).json()["table_id"]
    hosting = anna.connect(first)
    hosting.until(lambda s: s["phase"] == "waiting")
    for body in ({"preset": "tournament"}, {"ranked": True}, {"preset": "online2"}, {}):
        assert anna.http.post("/api/tables/play-now", json=body).json()["table_id"] == first, body
    hosting.send({"type": "start"})
    hosting.until(lambda s: s["table"]["status"] == "playing")
    assert anna.http.post("/api/tables/play-now", json={"ranked": True}).json()["table_id"] == first
    seats = [m for m in anna.http.get("/api/matches").json() if m["your_seat"] is not None and not m["solo"]]
    assert [m["match_id"] for m in seats] == [first]
    hosting.close()


def test_a_private_table_is_not_rated(server: LiveServer) -> None:
    """A private table's people are chosen by invitation — one's own second account, say — so its
    deals move no rating, and its state says so from the start; they still count toward the
    lifetime score (two accounts were dealt them)."""
    anna, bo = account(server, "Anna"), account(server, "Bo")
    created = new_table(anna, visibility="private", turn_seconds=30)
    south = anna.connect(created["table_id"], invite=created["invite"])
    assert south.until(lambda s: s["phase"] == "waiting")["table"]["rated"] is False
    east = bo.connect(created["table_id"], invite=created["invite"])
    east.send({"type": "sit", "seat": "E"})
    assert south.until(lambda s: s["table"]["seats"]["E"]["name"] == "Bo")["table"]["rated"] is False
    south.send({"type": "start"})
    lives = {"S": south, "E": east}
    drive(lives, random.Random(5), lambda states: all(s.get("phase") in ("deal-over", "match-over")
                                                      for s in states.values()))
    assert south.state["table"]["rated"] is False and south.state["deal_result"]["practice"] is False
    for person in (anna, bo):
        mine = profile(person)
        assert (mine["ratings"], mine["deals"], mine["practice"]["deals"]) == ({}, 1, 0)
    for live in lives.values():
        live.close()


def test_an_account_deleted_mid_deal_unrates_nobody_else(server: LiveServer) -> None:
    """Whether a deal is rated is fixed when it is dealt: Bo leaves a rated deal half way and
    deletes his account; the deal is rated among the three it was dealt to — Anna and Cy as ever,
    and nothing is written of Bo."""
    anna, bo, cy = account(server, "Anna"), account(server, "Bo"), account(server, "Cy")
    ids = {p.name: p.http.get("/api/me").json()["id"] for p in (anna, bo, cy)}
    table_id = new_table(anna, turn_seconds=30, levels={s: "random" for s in "NESW"})["table_id"]
    south, east, west = anna.connect(table_id), bo.connect(table_id), cy.connect(table_id)
    east.send({"type": "sit", "seat": "E"})
    west.send({"type": "sit", "seat": "W"})
    south.until(lambda s: s["table"]["seats"]["E"]["name"] == "Bo" and s["table"]["seats"]["W"]["name"] == "Cy")
    assert south.state["table"]["rated"] is True
    south.send({"type": "start"})
    south.until(lambda s: s["phase"] in ("expose", "play"))
    east.send({"type": "stand"})
    south.until(lambda s: s["table"]["seats"]["E"]["name"] is None)
    r = bo.http.post("/api/account/delete", json={"password": PASSWORD, "confirm": "Bo"})
    assert r.status_code == 200, r.text
    assert south.state["table"]["rated"] is True
    lives = {"S": south, "W": west}
    drive(lives, random.Random(6), lambda states: all(s.get("phase") in ("deal-over", "match-over")
                                                      for s in states.values()))
    result = south.state["deal_result"]["result"]
    want = rate_deal({}, [(["anna"], result["S"]), (["bo"], result["E"]), (["cy"], result["W"])])
    assert profile(anna)["ratings"] == {"one_deck": want["anna"].view()}
    assert profile(cy)["ratings"] == {"one_deck": want["cy"].view()}
    with server.app.state.store.engine.connect() as c:
        assert set(c.scalars(select(RATINGS.c.user_id))) == {ids["Anna"], ids["Cy"]}  # none of Bo's
    for live in (south, west):
        live.close()


def deal_three(server: LiveServer, seed: int) -> tuple[str, dict[str, Someone], dict[str, Live]]:
    """Anna (South, the host), Bo (East) and Cy (West), accounts of their own networks when
    ``server`` tells them apart, at a rated table, six tricks into its first deal."""
    people = {"S": account(server, "Anna", HOME), "E": account(server, "Bo", AWAY), "W": account(server, "Cy", ABROAD)}
    table_id = new_table(people["S"], turn_seconds=30)["table_id"]  # (新手 computers would make it practice)
    lives = {seat: person.connect(table_id) for seat, person in people.items()}
    lives["E"].send({"type": "sit", "seat": "E"})
    lives["W"].send({"type": "sit", "seat": "W"})
    south = lives["S"]
    south.until(lambda s: s["table"]["seats"]["E"]["name"] == "Bo" and s["table"]["seats"]["W"]["name"] == "Cy")
    assert south.state["table"]["rated"] is True
    south.send({"type": "start"})
    drive(lives, random.Random(seed), lambda states: states["S"].get("tricks_played", 0) >= 6)
    return table_id, people, lives


def rated_with_last(server: LiveServer, table_id: str, people: dict[str, Someone], lives: dict[str, Live],
                    last: str, seed: int) -> None:
    """Everyone's page goes and comes back (the table, let go and loaded again from the store,
    rates the deal as it was dealt), the deal is played out, and it is rated with the seats of
    ``last`` placed below the others, in the order of their results (none: as it was played); it
    counts toward the lifetime score as dealt (where the others, accounts new here, make what it
    counts nothing yet), and the table says the next deal is not rated."""
    for live in lives.values():
        live.close()
    let_go(server, table_id)
    lives = {seat: person.connect(table_id) for seat, person in people.items()}
    south = lives["S"]
    assert south.until(lambda s: s["phase"] in ("expose", "play"))["table"]["rated"] is True
    drive(lives, random.Random(seed + 1), lambda states: all(s.get("phase") in ("deal-over", "match-over")
                                                             for s in states.values()))
    state = south.state
    assert state["deal_result"]["practice"] is False
    # The two linked now, the table says the next deal is rated for nobody, and practice.
    assert (state["table"]["rated"], state["table"]["practice"]) == (False, True)
    result = state["deal_result"]["result"]
    below = max(result[s] for s in "SEW") - min(result[s] for s in "SEW") + 1
    want = rate_deal({}, [([seat], result[seat] - (below if seat in last else 0)) for seat in "SEW"])
    for seat, person in people.items():
        mine = profile(person)
        assert mine["ratings"] == {"one_deck": want[seat].view()}, seat
        assert (mine["deals"], mine["practice"]["deals"]) == (1, 0)
        assert mine["lifetime"] == counted_deal(lives[seat].state, seat)
    if last:
        assert min(want[seat].mu for seat in "SEW" if seat not in last) > max(want[seat].mu for seat in last)
    for live in lives.values():
        live.close()


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_an_account_linking_itself_during_a_deal_is_rated_below_the_others(db_url: str, tmp_path: Path) -> None:
    """Anna, Bo and Cy are people apart when a rated deal is dealt to them.  Half way, a browser
    Anna was signed in from signs in as Bo: Bo made the link, and is placed below Anna and Cy, who
    are rated as they played.  Linking two accounts during a deal that is going badly spares
    neither of them anything."""
    with LiveServer(db_url, static_dir=tmp_path / "no-static", trusted_proxies=["127.0.0.1"]) as server:
        table_id, people, lives = deal_three(server, 9)
        assert people["S"].http.post("/api/login", json={"name": "Bo", "password": PASSWORD}).status_code == 200
        people["S"].http.post("/api/logout")
        assert people["S"].http.post("/api/login", json={"name": "Anna", "password": PASSWORD}).status_code == 200
        rated_with_last(server, table_id, people, lives, "E", 9)


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_network_shared_during_a_deal_moves_nobody(db_url: str, tmp_path: Path) -> None:
    """Half way through a rated deal, Cy opens a table page from Anna's network (a café's, an
    office's, a carrier's shared address — anyone's to reach, and whose page came first tells
    nobody apart: one may have been there the day before, waiting for the other's phone to
    come by): the deal is rated as it was played, nobody placed last — a player losing anyway
    drags nobody down, and nobody is spared anything."""
    with LiveServer(db_url, static_dir=tmp_path / "no-static", trusted_proxies=["127.0.0.1"]) as server:
        table_id, people, lives = deal_three(server, 11)
        from_home = Someone(server, HOME)
        assert from_home.http.post("/api/login", json={"name": "Cy", "password": PASSWORD}).status_code == 200
        page = from_home.connect(table_id)
        page.until(lambda s: s["phase"] in ("expose", "play"))
        page.close()
        rated_with_last(server, table_id, people, lives, "", 11)


def test_a_guest_who_signs_up_mid_deal_does_not_make_it_rated(server: LiveServer) -> None:
    """A deal dealt to a guest is not rated — not even when the guest makes an account before its
    end, having seen how it goes."""
    anna, guest = account(server, "Anna"), Someone(server)
    table_id = new_table(anna, turn_seconds=30, levels={s: "random" for s in "NESW"})["table_id"]
    south, east = anna.connect(table_id), guest.connect(table_id)
    east.send({"type": "sit", "seat": "E"})
    assert south.until(lambda s: s["table"]["seats"]["E"]["name"] == guest.name)["table"]["rated"] is False
    south.send({"type": "start"})
    lives = {"S": south, "E": east}
    drive(lives, random.Random(7), lambda states: states["S"].get("tricks_played", 0) >= 6
          or states["S"].get("phase") in ("deal-over", "match-over"))
    r = guest.http.post("/api/account", json={"name": "Late", "password": PASSWORD})
    assert r.status_code == 200, r.text
    east.close()
    lives["E"] = east = guest.connect(table_id)  # (the page comes back with the account's session)
    assert east.until(lambda s: s["you"]["seat"] == "E")["table"]["rated"] is False
    # Both pages go and come back: the table loaded again from the store knows whom it dealt to.
    for live in lives.values():
        live.close()
    let_go(server, table_id)
    lives = {"S": anna.connect(table_id), "E": guest.connect(table_id)}
    assert lives["S"].until(lambda s: s["phase"] in ("expose", "play"))["table"]["rated"] is False
    drive(lives, random.Random(8), lambda states: all(s.get("phase") in ("deal-over", "match-over")
                                                      for s in states.values()))
    assert profile(anna)["ratings"] == {} and profile(guest)["ratings"] == {}
    for live in lives.values():
        live.close()


def test_practice_is_a_deal_dealt_to_fewer_than_two_accounts_or_played_for_a_larger_factor(
        server: LiveServer) -> None:
    """A person's table with a guest (a second browser, say) is practice, and so is a deal played
    under options that score otherwise than any preset (a one-deck factor of 100, 全亮), one
    dealt to a computer weaker than the stand-ins (新手, 入门: one person's two accounts on two
    networks would pile up a score against them), and one dealt to two accounts and a guest (who
    might lose on purpose): none adds to the lifetime score, the deal's summary says so; two
    accounts under a preset's scoring (how the match ends, the direction may change) with
    中级 computers or stronger play for the lifetime score."""
    anna, bo, guest = account(server, "Anna"), account(server, "Bo"), Someone(server)
    cases: list[tuple[Someone, dict[str, Any], bool]] = [
        (guest, {"visibility": "private"}, True),
        (bo, {"options": {"one_deck_factor": 100}}, True),
        (bo, {"level": "random"}, True),
        (bo, {"level": "beginner", "visibility": "private"}, True),
        (bo, {"options": {"exposure": "all"}}, True),  # 全亮: every exposure doubles, a host's choice
        (bo, {}, False),
        (bo, {"visibility": "private"}, False),
        (bo, {"options": {"match_end": "deals:3", "direction": "cw"}}, False),  # the same scoring
        (bo, {"options": {"scoring": "partners"}}, False)]  # online so changed: the partners preset
    told, finals, headers = [], [], []
    for other, table, practice in cases:
        _, lives = one_deal(anna, other, **table)
        told.append(lives["S"].state["deal_result"].get("practice"))
        # (of a deal for the lifetime score, nothing of Anna's final shared out to Bo, new here, counts)
        finals.append(lives["S"].state["deal_result"]["final"]["S"] if practice
                      else counted_deal(lives["S"].state, "S"))
        headers.append(lives["S"].state["table"]["practice"])  # (the next deal's, as things stand)
        stand_up(lives)
    anna_now, bo_now = profile(anna), profile(bo)
    assert (anna_now["deals"], anna_now["practice"]["deals"]) == (4, 5)
    assert (bo_now["deals"], bo_now["practice"]["deals"]) == (4, 4)
    assert anna_now["lifetime"] == sum(finals[5:]) and anna_now["practice"]["score"] == sum(finals[:5])
    assert guest.http.get("/api/me").json()["practice"]["deals"] == 1
    assert told == [practice for _, _, practice in cases]  # the deal's summary says which
    assert headers == told  # and the table's header, beforehand

    # Anna and Bo with a guest at West: practice for all three
    table_id = new_table(anna)["table_id"]
    lives = {"S": anna.connect(table_id), "E": bo.connect(table_id), "W": guest.connect(table_id)}
    for seat in "EW":
        lives[seat].send({"type": "sit", "seat": seat})
    lives["S"].until(lambda s: s["table"]["seats"]["W"]["name"] == guest.name and s["table"]["seats"]["E"]["name"])
    lives["S"].send({"type": "start"})
    drive(lives, random.Random(4), lambda states: all(s.get("phase") in ("deal-over", "match-over")
                                                      for s in states.values()))
    assert lives["S"].state["deal_result"]["practice"] is True and lives["S"].state["table"]["practice"] is True
    assert (profile(anna)["deals"], profile(anna)["practice"]["deals"]) == (4, 6)
    assert profile(anna)["lifetime"] == sum(finals[5:])
    assert guest.http.get("/api/me").json()["practice"]["deals"] == 2
    for live in lives.values():
        live.close()
