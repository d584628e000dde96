"""Entering an event (docs/tournaments.md, Events on the server): an event open to entries, or
entered by invitation, takes its entrants from the players themselves until it begins; it is
seated when it begins — by the organiser, or by itself at its start time once its entries can be
seated — and its rounds default to the movement's most for the entrants who came.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers.clock import SetClock
from helpers.database import STORES
from helpers.live import PASSWORD, Someone, account, befriend
from helpers.servers import LiveServer
from test_events_server import refused


@pytest.fixture
def clock() -> SetClock:
    return SetClock(1_796_085_000.0)


@pytest.fixture
def server(db_url: str, tmp_path: Path, clock: SetClock) -> Iterator[LiveServer]:
    with LiveServer(db_url, static_dir=tmp_path / "no-static", now=clock, trusted_proxies=["127.0.0.1"]) as s:
        yield s


def people(server: LiveServer, prefix: str, n: int) -> list[Someone]:
    """``n`` accounts, each pair of them (the first and second, the third and fourth …) friends,
    as partners who enter together are."""
    made = [account(server, f"{prefix}{i}", f"10.7.{len(prefix)}.{i + 1}") for i in range(n)]
    for i in range(0, n - 1, 2):
        befriend(made[i], made[i + 1])
    return made


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_players_enter_an_open_event_and_it_is_seated_when_it_begins(server: LiveServer) -> None:
    referee = account(server, "Referee", "10.7.0.1")
    p = people(server, "P", 8)
    made = referee.http.post("/api/events", json={"name": "Open pairs", "form": "howell", "boards": 1,
                                                  "entry": "open"})
    assert made.status_code == 201, made.text
    event_id = made.json()["id"]
    event = referee.http.get(f"/api/events/{event_id}").json()
    assert event["entry"] == "open" and event["entrants"] == [] and event["invite_url"] is None
    entries = f"/api/events/{event_id}/entries"

    # bad entries: a precise refusal, nothing kept
    refused(Someone(server, "10.7.9.1").http.post(entries, json={"players": ["P0", "P1"]}), 403,
            "event.accounts_only")
    refused(p[0].http.post(entries, json={"players": ["P2", "P3"]}), 400, "event.enter_yourself")
    refused(p[0].http.post(entries, json={"players": ["P0"]}), 400, "event.bad_entrants_for")
    refused(p[0].http.post(entries, json={"players": ["P0", "Nobody"]}), 404, "event.unknown_player")
    # partners are friends: nobody is entered by someone they have not accepted, or blocked
    refused(p[0].http.post(entries, json={"players": ["P0", "P2"]}), 403, "event.partner_not_friend")
    refused(referee.http.post(entries, json={"players": ["Referee", "P0"]}), 400, "event.organiser_plays")
    blocker = account(server, "Blocker", "10.7.9.2")
    befriend(blocker, p[0])
    assert blocker.http.post("/api/people/P0/block").status_code == 200
    refused(p[0].http.post(entries, json={"players": ["P0", "Blocker"]}), 403, "event.partner_not_friend")
    refused(p[0].http.post(f"/api/events/{event_id}/withdraw", json={}), 409, "event.not_entered")
    assert referee.http.get(f"/api/events/{event_id}").json()["entrants"] == []

    for i in range(0, 8, 2):
        entered = p[i].http.post(entries, json={"players": [p[i].name, p[i + 1].name]})
        assert entered.status_code == 200, entered.text
    refused(p[1].http.post(entries, json={"players": ["P1", "P2"]}), 400, "event.player_twice")
    assert p[2].http.post(f"/api/events/{event_id}/withdraw", json={}).status_code == 200  # P2 & P3 leave
    refused(p[0].http.post(f"/api/events/{event_id}/withdraw", json={"entrant": "P4 & P5"}), 403,
            "event.organiser_only")
    event = referee.http.get(f"/api/events/{event_id}").json()
    assert [e["name"] for e in event["entrants"]] == ["P0 & P1", "P4 & P5", "P6 & P7"]
    assert [e["action"] for e in event["log"]] == ["create", "entry", "entry", "entry", "entry", "withdraw"]
    assert event["rounds"] == 0 and event["board_results"] == [] and event["tables"] == []

    started = referee.http.post(f"/api/events/{event_id}/start")
    assert started.status_code == 200, started.text
    event = started.json()
    # three pairs: a Howell of 3 rounds, one table a round and one pair out
    assert (event["rounds"], event["stage"], len(event["tables"])) == (3, 1, 1)
    assert len(event["sit_outs"]) == 1 and len(event["sit_outs"][0]["entrants"]) == 1
    refused(p[2].http.post(entries, json={"players": ["P2", "P3"]}), 409, "event.entry_closed")
    refused(p[0].http.post(f"/api/events/{event_id}/withdraw", json={}), 409, "event.entry_closed")
    seated = {n for t in event["tables"] for n in t["seats"].values()}
    assert seated <= {"P0", "P1", "P4", "P5", "P6", "P7"} and len(seated) == 4


@pytest.mark.parametrize("form", ["individual", "mitchell", "howell", "teams"])
def test_an_open_event_with_one_entrant_cannot_begin_and_says_why(server: LiveServer, form: str) -> None:
    """Begun with a single entrant, whatever its form, an event is refused as no movement seats
    it (never with a range of rounds that cannot be: "1 to −1")."""
    referee = account(server, "Referee", "10.7.0.1")
    size = {"individual": 1, "mitchell": 2, "howell": 2, "teams": 4}[form]
    p = people(server, "R", max(size, 2))
    made = referee.http.post("/api/events", json={"name": "Alone", "form": form, "boards": 1, "entry": "open",
                                                  "preset": "tournament"})
    assert made.status_code == 201, made.text
    event_id = made.json()["id"]
    entry: dict[str, Any] = {"players": [x.name for x in p[:size]]}
    if form == "teams":  # the one who enters a team is its other players' friend
        befriend(p[0], p[2])
        befriend(p[0], p[3])
        entry["name"] = "甲队"
    entered = p[0].http.post(f"/api/events/{event_id}/entries", json=entry)
    assert entered.status_code == 200, entered.text
    bad = refused(referee.http.post(f"/api/events/{event_id}/start"), 400, "event.bad_movement")
    assert bad["params"]["entrants"] == 1


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_an_event_by_invitation_begins_by_itself_once_its_entries_can_be_seated(
        server: LiveServer, clock: SetClock) -> None:
    from datetime import UTC, datetime

    referee = account(server, "Referee", "10.7.0.1")
    p = people(server, "Q", 8)
    starts = datetime.fromtimestamp(clock.t + 600, UTC).isoformat()
    made = referee.http.post("/api/events", json={"name": "Invited", "form": "howell", "boards": 1, "rounds": 1,
                                                  "entry": "invite", "starts_at": starts})
    assert made.status_code == 201, made.text
    event_id = made.json()["id"]
    invite_url: str = referee.http.get(f"/api/events/{event_id}").json()["invite_url"]
    token = invite_url.split("invite=")[1]
    assert p[0].http.get(f"/api/events/{event_id}").json()["invite_url"] is None  # the organiser's alone
    entries = f"/api/events/{event_id}/entries"
    refused(p[0].http.post(entries, json={"players": ["Q0", "Q1"]}), 403, "event.bad_invite")
    forged = token[:-1] + ("y" if token[-1] == "x" else "x")  # one character other than the token's
    refused(p[0].http.post(entries, json={"players": ["Q0", "Q1"], "invite": forged}), 403, "event.bad_invite")
    body: dict[str, Any] = {"players": ["Q0", "Q1"], "invite": token, "name": "东风"}
    assert p[0].http.post(entries, json=body).status_code == 200

    # the start time passes with one pair entered: not seated, said once in the log; it waits
    clock.t += 601
    for _ in range(2):
        event = referee.http.get(f"/api/events/{event_id}").json()
    assert event["stage"] == 0 and [e["action"] for e in event["log"]].count("start_refused") == 1
    assert event["log"][-1]["details"] == {"code": "event.bad_movement"}

    for i in (2, 4):
        assert p[i].http.post(entries, json={"players": [p[i].name, p[i + 1].name], "invite": token}).status_code == 200
    event = referee.http.get(f"/api/events/{event_id}").json()  # looks at the event: due, and seatable now
    assert event["stage"] == 1 and event["rounds"] == 1 and event["status"] == "playing"
    mine = p[0].http.get("/api/events").json()["events"]
    assert [e["id"] for e in mine] == [event_id]


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_referees_the_organiser_names_sit_at_the_desk(server: LiveServer) -> None:
    organiser = account(server, "Organiser", "10.7.0.1")
    judge = account(server, "Judge", "10.7.0.2")
    p = people(server, "R", 6)
    body: dict[str, Any] = {"name": "Refereed", "form": "howell", "boards": 1, "entry": "open",
                            "entrants": [{"players": ["R0", "R1"]}]}
    refused(organiser.http.post("/api/events", json={**body, "referees": ["R0"]}), 400, "event.referee_plays")
    refused(organiser.http.post("/api/events", json={**body, "referees": "Judge"}), 400, "event.bad_referees")
    refused(organiser.http.post("/api/events", json={**body, "referees": ["Nobody"]}), 404, "event.unknown_player")
    refused(organiser.http.post("/api/events", json={**body, "entrants": [{"players": ["Organiser", "R0"]}]}), 400,
            "event.organiser_plays")
    # whoever an organiser names, to play or to referee, has accepted them as a friend
    refused(organiser.http.post("/api/events", json=body), 403, "event.player_not_friend")
    befriend(organiser, *p)
    assert refused(organiser.http.post("/api/events", json={**body, "referees": ["Judge"]}), 403,
                   "event.player_not_friend")["params"] == {"name": "Judge"}
    befriend(organiser, judge)
    made = organiser.http.post("/api/events", json={**body, "referees": ["Judge"]})
    assert made.status_code == 201, made.text
    event_id = made.json()["id"]
    refused(judge.http.post(f"/api/events/{event_id}/entries", json={"players": ["Judge", "R2"]}), 400,
            "event.referee_plays")
    for i in (2, 4):
        assert p[i].http.post(f"/api/events/{event_id}/entries",
                              json={"players": [p[i].name, p[i + 1].name]}).status_code == 200
    refused(p[2].http.post(f"/api/events/{event_id}/start"), 403, "event.organiser_only")
    seen = judge.http.get(f"/api/events/{event_id}").json()
    assert seen["referees"] == ["Judge"] and seen["me"]["referee"] and not seen["me"]["organiser"]
    assert not p[2].http.get(f"/api/events/{event_id}").json()["me"]["referee"]
    listed = organiser.http.post("/api/events", json={"name": "Listed", "form": "howell", "boards": 1,
                                                      "entrants": [{"players": [p[i].name, p[i + 1].name]}
                                                                   for i in (0, 2, 4)]})
    assert listed.status_code == 201, listed.text
    refused(p[0].http.post(f"/api/events/{listed.json()['id']}/entries", json={"players": [p[0].name, p[1].name]}),
            403, "event.entry_listed")  # a listed event was seated, and its boards made, when it was made
    gone = organiser.http.post(f"/api/events/{listed.json()['id']}/withdraw", json={"entrant": "R0 & R1"})
    assert gone.status_code == 200, gone.text  # withdrawn, not removed: a computer plays its seats
    assert [(e["name"], e["withdrawn"]) for e in gone.json()["entrants"]] == [
        ("R0 & R1", True), ("R2 & R3", False), ("R4 & R5", False)]
    started = judge.http.post(f"/api/events/{event_id}/start")  # the referee begins it
    assert started.status_code == 200, started.text
    entry = started.json()["log"][-1]
    assert (entry["action"], entry["by"]) == ("start", "Judge")


def test_each_board_of_a_partnership_event_has_its_par_once_every_table_has_played_it(
        tmp_path: Path, clock: SetClock) -> None:
    """R8.1: an event scored by partnership gets each board's par — the N–S result four experts
    average on its cards (``gongzhu.review.board_pars``, South's result under partnership
    scoring) — computed when it is made and shown with the board once every table has played it."""
    from gongzhu.review import board_pars
    from gongzhu.rules.cards import Seat
    from test_events_server import drive, finished

    with LiveServer(f"sqlite:///{tmp_path / 'par.db'}", static_dir=tmp_path / "no-static", now=clock,
                    trusted_proxies=["127.0.0.1"], par_replays=1, review_workers=0) as server:
        referee = account(server, "Referee", "10.7.0.1")
        red, blue = people(server, "Red", 4), people(server, "Blue", 4)
        befriend(referee, *red, *blue)
        made = referee.http.post("/api/events", json={
            "name": "Par night", "form": "teams", "boards": 1, "grace_seconds": 600,
            "entrants": [{"name": "红", "players": [p.name for p in red]},
                         {"name": "蓝", "players": [p.name for p in blue]}]})
        assert made.status_code == 201, made.text
        event_id = made.json()["id"]
        events = server.app.state.tables.events
        events.wait(300)
        stored = events.get(event_id).par
        assert stored is not None and len(stored) == 1 and isinstance(stored[0], float)
        started = referee.http.post(f"/api/events/{event_id}/start").json()
        seats = {name: (t["table"], seat) for t in started["tables"] for seat, name in t["seats"].items()}
        tables: dict[int, dict[str, Any]] = {1: {}, 2: {}}
        for person in (*red, *blue):
            table, seat = seats[person.name]
            url = person.http.get(f"/api/events/{event_id}").json()["me"]["table"]
            tables[table][seat] = person.connect(url.removeprefix("/table/"))
        rng = __import__("random").Random(3)
        drive(tables[1], rng, finished(1))
        row = next(b for b in referee.http.get(f"/api/events/{event_id}").json()["board_results"] if b["board"] == 1)
        assert not row["complete"] and row["par"] is None  # not before every table has played it
        drive(tables[2], rng, finished(1))
        event = referee.http.get(f"/api/events/{event_id}").json()
        assert event["board_results"][0]["par"] == stored[0]
        again = board_pars(event["seed"], event["definition"], event["commitment"], Seat.S, replays=1)
        assert again == stored  # the same experts on the same cards, worked out here
        for live in (*tables[1].values(), *tables[2].values()):
            live.close()


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_accounts_signed_in_from_one_browser_are_one_entrant(server: LiveServer) -> None:
    """Two accounts once signed in from a same browser (one person's two, or a household's) would
    play the same boards at two tables, each knowing the other's cards: they may be partners of
    one entrant, but not players of two, whether the organiser lists them or they enter.  Players
    of one network are not refused: a club night's share one."""
    referee = account(server, "Desk", "10.7.0.1")
    ann, bob, cy, dee = (account(server, n, "10.7.1.1") for n in ("Ann", "Bob", "Cy", "Dee"))  # one club's network
    assert bob.http.post("/api/login", json={"name": "Ann", "password": PASSWORD}).status_code == 200
    assert bob.http.post("/api/login", json={"name": "Bob", "password": PASSWORD}).status_code == 200
    listed = {"name": "Club night", "form": "howell", "boards": 1}
    eve, fay, gus, hal = (account(server, name, "10.7.1.1") for name in ("Eve", "Fay", "Gus", "Hal"))
    others = [{"players": ["Eve", "Fay"]}, {"players": ["Gus", "Hal"]}]
    two = [{"players": ["Ann", "Cy"]}, {"players": ["Bob", "Dee"]}, *others]
    # to whom they are not friends, nothing tells that two accounts share a browser
    refused(referee.http.post("/api/events", json={**listed, "entrants": two}), 403, "event.player_not_friend")
    befriend(referee, ann, bob, cy, dee, eve, fay, gus, hal)
    refused(referee.http.post("/api/events", json={**listed, "entrants": two}), 409, "event.linked_entrants")
    one = [{"players": ["Ann", "Bob"]}, {"players": ["Cy", "Dee"]}, *others]
    club = referee.http.post("/api/events", json={**listed, "entrants": one})
    assert club.status_code == 201, club.text

    # Cy signs in from Eve's browser once listed: when the event begins, the desk is told, and
    # nobody else (it tells of browsers), once
    assert eve.http.post("/api/login", json={"name": "Cy", "password": PASSWORD}).status_code == 200
    club_url = f"/api/events/{club.json()['id']}"
    assert referee.http.post(f"{club_url}/start").status_code == 200
    linked = [e["details"] for e in referee.http.get(club_url).json()["log"] if e["action"] == "linked"]
    assert linked == [{"entrants": ["Cy & Dee", "Eve & Fay"]}]
    for person in (ann, cy, gus, Someone(server, "10.7.9.9")):
        assert all(e["action"] != "linked" for e in person.http.get(club_url).json()["log"])
    events = server.app.state.tables.events
    events._note_links(events.get(club.json()["id"]))  # as the next stage begins: not told again
    assert [e["action"] for e in referee.http.get(club_url).json()["log"]].count("linked") == 1
    # Hal signs in on that browser too: the group grows, and is told; once the desk withdraws
    # Cy & Dee, what is left of it was told already
    assert eve.http.post("/api/login", json={"name": "Hal", "password": PASSWORD}).status_code == 200
    events._note_links(events.get(club.json()["id"]))
    assert referee.http.post(f"{club_url}/withdraw", json={"entrant": "Cy & Dee"}).status_code == 200
    events._note_links(events.get(club.json()["id"]))
    linked = [e["details"] for e in referee.http.get(club_url).json()["log"] if e["action"] == "linked"]
    assert linked == [{"entrants": ["Cy & Dee", "Eve & Fay"]}, {"entrants": ["Cy & Dee", "Eve & Fay", "Gus & Hal"]}]
    befriend(ann, cy)
    befriend(bob, dee)
    made = referee.http.post("/api/events", json={"name": "Open pairs", "form": "howell", "boards": 1,
                                                  "entry": "open"})
    entries = f"/api/events/{made.json()['id']}/entries"
    assert ann.http.post(entries, json={"players": ["Ann", "Cy"]}).status_code == 200
    refused(bob.http.post(entries, json={"players": ["Bob", "Dee"]}), 409, "event.linked_entrants")
    assert [e["name"] for e in referee.http.get(entries.removesuffix("/entries")).json()["entrants"]] == ["Ann & Cy"]


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_entrants_linked_after_entering_keep_out_nobody_and_are_told_to_the_desk(server: LiveServer) -> None:
    """Two entrants of an open event are linked after they entered (one signs in on the other's
    browser).  A third pair, linked to nobody, still enters — the refusal would tell strangers
    of the two's browsers, and let one person's two accounts close the entries — and the desk
    hears of the two when the event begins."""
    referee = account(server, "Desk", "10.7.0.1")
    p = people(server, "L", 6)
    made = referee.http.post("/api/events", json={"name": "Open", "form": "howell", "boards": 1, "entry": "open"})
    event = f"/api/events/{made.json()['id']}"
    for i in (0, 2):
        assert p[i].http.post(f"{event}/entries", json={"players": [p[i].name, p[i + 1].name]}).status_code == 200
    assert p[0].http.post("/api/login", json={"name": "L2", "password": PASSWORD}).status_code == 200
    entered = p[4].http.post(f"{event}/entries", json={"players": ["L4", "L5"]})
    assert entered.status_code == 200, entered.text
    assert referee.http.post(f"{event}/start").status_code == 200
    log = referee.http.get(event).json()["log"]
    assert [e["details"] for e in log if e["action"] == "linked"] == [{"entrants": ["L0 & L1", "L2 & L3"]}]


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_no_event_or_entrant_passes_for_someone_it_is_not(server: LiveServer) -> None:
    """An entrant's own name is not another account's, nor like one (it would take that person's
    name from them: they could not enter under it); it may be its own player's.  Neither an
    event's name nor an entrant's passes for the game's staff, a guest or a deleted player."""
    referee = account(server, "Desk", "10.7.0.1")
    ann, bob, cy = (account(server, n, f"10.7.5.{i}") for i, n in enumerate(("Ann", "Bob", "Cy"), 1))
    refused(referee.http.post("/api/events", json={"name": "拱猪官方锦标赛 · 系统通知", "form": "individual",
                                                   "entry": "open"}), 400, "event.name_kept")
    made = referee.http.post("/api/events", json={"name": "Open night", "form": "individual", "entry": "open"})
    entries = f"/api/events/{made.json()['id']}/entries"
    for name in ("Ann", "ANN", "Ａｎｎ", "Cy"):
        taken = bob.http.post(entries, json={"name": name, "players": ["Bob"]})
        assert refused(taken, 400, "event.entrant_name_taken")["params"] == {"name": name}
    for name in ("系统管理员", "游客1234", "Guest 12"):
        refused(bob.http.post(entries, json={"name": name, "players": ["Bob"]}), 400, "event.name_kept")
    assert bob.http.post(entries, json={"name": "Bobby", "players": ["Bob"]}).status_code == 200
    assert ann.http.post(entries, json={"name": "Ann", "players": ["Ann"]}).status_code == 200  # her own
    assert cy.http.post(entries, json={"players": ["Cy"]}).status_code == 200
    names = [e["name"] for e in referee.http.get(entries.removesuffix("/entries")).json()["entrants"]]
    assert names == ["Bobby", "Ann", "Cy"]
