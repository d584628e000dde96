"""One table at a time (docs/web-protocol.md, Tables): a person who sits at a table for people whose
match is under way (started, not over) is dealt in at no other — a seat taken at another table
under way is refused (``server.seated_elsewhere``, naming the table they sit at), and the start of
a table they wait at deals them not in (its starter is refused); standing up there, or the match
there ending, frees them.  A single-player match's table and a challenge's hold nobody up (nobody
else is ever dealt in there).  The store checks it again as it stores the seat, so two servers
seating one person at two tables at once seat them at one; on SQLite and on PostgreSQL
(``STORES``)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from gongzhu.server.identity import Identity
from gongzhu.server.store import SeatedElsewhere, Store
from helpers.client import Message, seating
from helpers.database import STORES
from helpers.live import Live, Someone
from helpers.servers import LiveServer
from test_tables import drive, everyone_done, new_table

#: Computer players that decide at once.
QUICK = {"N": "random", "E": "random", "W": "random"}


@pytest.fixture
def server(db_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(db_url, static_dir=tmp_path / "no-static") as s:
        yield s


def under_way(host: Someone, levels: dict[str, str] | None = None) -> tuple[str, Live]:
    """A table for people ``host`` made and started, with computers at its other seats (at
    ``levels``), waiting for the host's first play (nothing happens there meanwhile): its id and
    the host's connection."""
    table_id = new_table(host, levels=levels or QUICK)["table_id"]
    hosting = host.connect(table_id)
    hosting.until(lambda s: s["phase"] == "waiting")
    hosting.send({"type": "start"})
    if hosting.until(lambda s: s["phase"] != "waiting")["phase"] == "expose":
        hosting.send({"type": "expose", "cards": []})
    hosting.until(lambda s: s["phase"] == "play" and s["turn"] == "S")
    return table_id, hosting


def at_bobs_watching_cys(ann: Someone, bob: Someone,
                         cy: Someone) -> tuple[tuple[str, Live, Live], tuple[str, Live, Live, Message]]:
    """Ann sits at East of Bob's table under way, and watches Cy's, under way too: Bob's table,
    Bob's connection and Ann's there; Cy's table, Cy's connection, Ann's there, and the state both
    saw last."""
    bobs, bob_hosting = under_way(bob, levels={"N": "random", "W": "random"})
    playing = ann.connect(bobs)
    playing.send({"type": "sit", "seat": "E"})
    bob_hosting.until(lambda s: s["table"]["seats"]["E"]["name"] == ann.name)
    cys, cy_hosting = under_way(cy)
    watching = ann.connect(cys)
    before = cy_hosting.until(lambda s: s["table"]["spectators"] == 1)
    watching.until(lambda s: s["v"] == before["v"])
    return (bobs, bob_hosting, playing), (cys, cy_hosting, watching, before)


def seats(state: Message) -> list[str | None]:
    return [state["table"]["seats"][s]["name"] for s in "NESW"]


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_person_under_way_at_one_table_sits_at_no_other_until_they_stand_up(server: LiveServer) -> None:
    """Ann plays at Bob's table; she may watch Cy's, under way too, but a seat there is refused,
    naming Bob's table, and nothing changes there; a table that waits seats her (it deals her in
    only at its start).  Once she stands up at Bob's, Cy's seats her."""
    ann, bob, cy, dan = Someone(server), Someone(server), Someone(server), Someone(server)
    (bobs, hosting, playing), (cys, cy_hosting, watching, before) = at_bobs_watching_cys(ann, bob, cy)
    refusal = watching.refused({"type": "sit", "seat": "N"})
    assert refusal["code"] == "server.seated_elsewhere" and refusal["params"] == {"table": bobs}
    assert bobs in refusal["message"] and bobs in refusal["message_zh"]
    cy_hosting.drain()
    assert cy_hosting.state["v"] == before["v"] and seats(cy_hosting.state)[0] is None
    # A table waiting to start seats her: nobody is dealt in there yet.
    dans = new_table(dan, levels=QUICK)["table_id"]
    waiting = ann.connect(dans)
    waiting.send({"type": "sit", "seat": "W"})
    assert waiting.until(lambda s: s["table"]["seats"]["W"]["name"] == ann.name)["phase"] == "waiting"
    # Stood up at Bob's, she sits at Cy's (from the next deal on: the deal there was dealt before).
    playing.send({"type": "stand"})
    hosting.until(lambda s: s["table"]["seats"]["E"]["name"] is None)
    watching.send({"type": "sit", "seat": "N"})
    state = watching.until(lambda s: s["table"]["seats"]["N"]["name"] == ann.name)
    assert state["you"]["next_deal_seat"] == "N"
    # Now Bob's table refuses her, naming Cy's.
    assert playing.refused({"type": "sit", "seat": "E"})["params"] == {"table": cys}
    for live in (hosting, playing, cy_hosting, watching, waiting):
        live.close()


def test_a_match_over_frees_its_people(server: LiveServer) -> None:
    """Ann's match at Bob's table ends: she sits at Cy's, under way, without standing up."""
    rng = random.Random(3)
    ann, bob, cy = Someone(server), Someone(server), Someone(server)
    bobs = new_table(bob, levels={"N": "random", "W": "random"}, options={"match_end": "deals:1"})["table_id"]
    lives = {"S": bob.connect(bobs), "E": ann.connect(bobs)}
    lives["E"].send({"type": "sit", "seat": "E"})
    lives["S"].until(lambda s: s["table"]["seats"]["E"]["name"] == ann.name)
    lives["S"].send({"type": "start"})
    cys, cy_hosting = under_way(cy)
    watching = ann.connect(cys)
    watching.until(lambda s: s["phase"] != "waiting")
    assert watching.refused({"type": "sit", "seat": "N"})["params"] == {"table": bobs}
    drive(lives, rng, everyone_done)
    watching.send({"type": "sit", "seat": "N"})
    watching.until(lambda s: s["table"]["seats"]["N"]["name"] == ann.name)
    for live in (*lives.values(), cy_hosting, watching):
        live.close()


def test_a_single_player_match_or_a_challenge_under_way_holds_nobody_up(server: LiveServer) -> None:
    """Ann has a single-player match under way and today's challenge entered (nobody else is ever
    dealt in at either): she sits at Cy's table, under way, all the same."""
    ann, cy = Someone(server), Someone(server)
    solo = ann.http.post("/api/matches", json={"levels": QUICK})
    assert solo.status_code == 201, solo.text
    today = ann.http.get("/api/challenges").json()["today"]["id"]
    entered = ann.http.post(f"/api/challenges/{today}/play")
    assert entered.status_code == 200, entered.text
    for match_id in (solo.json()["match_id"], entered.json()["match_id"]):
        assert ann.connect(match_id).until(lambda s: s["phase"] != "waiting")["seat"] == "S"
    cys, cy_hosting = under_way(cy)
    watching = ann.connect(cys)
    watching.send({"type": "sit", "seat": "N"})
    watching.until(lambda s: s["table"]["seats"]["N"]["name"] == ann.name)
    for live in (cy_hosting, watching):
        live.close()


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_the_start_deals_in_nobody_under_way_elsewhere_and_refuses_such_a_starter(server: LiveServer) -> None:
    """Ann sits at Dan's table while it waits, then at Bob's, under way: Dan's start deals her not
    in (her seat is left to its computer player).  Dan sits at Bob's too while his second table
    waits: its start is refused him, naming Bob's table, and it still waits."""
    ann, bob, dan = Someone(server), Someone(server), Someone(server)
    dans = new_table(dan, levels=QUICK)["table_id"]
    hosting, waiting = dan.connect(dans), ann.connect(dans)
    waiting.send({"type": "sit", "seat": "N"})
    hosting.until(lambda s: s["table"]["seats"]["N"]["name"] == ann.name)
    bobs, bob_hosting = under_way(bob, levels={"N": "random", "W": "random"})
    playing = ann.connect(bobs)
    playing.send({"type": "sit", "seat": "E"})
    bob_hosting.until(lambda s: s["table"]["seats"]["E"]["name"] == ann.name)
    hosting.send({"type": "start"})
    state = hosting.until(lambda s: s["phase"] != "waiting")
    assert seats(state) == [None, None, dan.name, None]
    # Dan's second table: he sits at Bob's meanwhile, and its start is refused him.
    second = new_table(dan, levels=QUICK)["table_id"]
    other = dan.connect(second)
    before = other.until(lambda s: s["phase"] == "waiting")
    hosting.send({"type": "stand"})
    dan_at_bobs = dan.connect(bobs)
    dan_at_bobs.send({"type": "sit", "seat": "W"})
    bob_hosting.until(lambda s: s["table"]["seats"]["W"]["name"] == dan.name)
    other.drain()
    refusal = other.refused({"type": "start"})
    assert refusal["code"] == "server.seated_elsewhere" and refusal["params"] == {"table": bobs}
    other.drain()
    assert other.state["phase"] == "waiting" and seats(other.state) == [None, None, dan.name, None]
    assert other.state["v"] == before["v"]
    for live in (hosting, waiting, bob_hosting, playing, other, dan_at_bobs):
        live.close()


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_seat_taken_elsewhere_meanwhile_is_refused_cleanly(server: LiveServer,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Ann's seat at Cy's table is looked for at other tables before she sat down at Bob's (on
    another server, say): the store finds her there as it stores the seat, and refuses it — Ann is
    told why, Cy's table is as it was (its version too), nobody's page loads it again.  The same
    at a start: Dan's deals in everyone but Ann."""
    ann, bob, cy, dan = Someone(server), Someone(server), Someone(server), Someone(server)
    dans = new_table(dan, levels=QUICK)["table_id"]
    dan_hosting, dan_waiting = dan.connect(dans), ann.connect(dans)
    dan_waiting.send({"type": "sit", "seat": "E"})
    dan_hosting.until(lambda s: s["table"]["seats"]["E"]["name"] == ann.name)
    (bobs, bob_hosting, playing), (cys, cy_hosting, watching, before) = at_bobs_watching_cys(ann, bob, cy)
    monkeypatch.setattr(Store, "playing_at", lambda self, user_id, *, besides: None)  # the look came first
    refusal = watching.refused({"type": "sit", "seat": "N"})
    assert refusal["code"] == "server.seated_elsewhere" and refusal["params"] == {"table": bobs}
    cy_hosting.send({"type": "chat", "text": "still here"})
    for live in (cy_hosting, watching):  # the next change is the next version, on open connections
        said = next(m for m in iter(live.receive, None) if m["type"] == "chat")
        assert said["v"] == before["v"] + 1
        assert seats(live.state)[0] is None
    store: Store = server.app.state.store
    stored = store.match(cys)
    assert stored is not None and stored.seating.seats[0] is None and stored.seating.version == before["v"] + 1
    dan_hosting.send({"type": "start"})
    state = dan_hosting.until(lambda s: s["phase"] != "waiting")
    assert seats(state) == [None, None, dan.name, None]
    for live in (dan_hosting, dan_waiting, bob_hosting, playing, cy_hosting, watching):
        live.close()


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_the_store_deals_nobody_in_at_two_tables_on_any_server(db_url: str) -> None:
    """Two servers on one database (two stores): a seat stored at a table under way, or a start,
    that deals in someone the other server has dealt in at a table under way is refused
    (:class:`SeatedElsewhere`, naming that table), nothing stored; a seat at a table that waits
    is stored, a single-player match holds nobody up, and once that other table's match is over
    the seat is stored."""
    one, two = Store(db_url), Store(db_url)
    try:
        identity = Identity(one)
        ann, bob, cy = ((u.id, u.name) for u in (identity.new_guest(), identity.new_guest(), identity.new_guest()))
        for match_id, host, status in (("m-first", bob, "waiting"), ("m-second", cy, "waiting"),
                                       ("m-third", None, "waiting"), ("m-alone", ann, "playing")):
            one.create_match(match_id=match_id, preset="online", options={}, speed="normal", seed=1,
                             seating=seating(host, status=status))
        alone = one.match("m-alone")
        assert alone is not None and alone.solo
        # The first server starts Bob's table with Ann at it, the second Cy's.
        one.save_table("m-first", seating(bob, status="playing", seats=(None, None, bob, ann)))
        two.save_table("m-second", seating(cy, status="playing"))
        with pytest.raises(SeatedElsewhere) as refused:  # seated anew at a table under way
            two.save_table("m-second", seating(cy, status="playing", seats=(ann, None, cy, None)))
        assert (refused.value.match_id, refused.value.user_id) == ("m-first", ann[0])
        two.save_table("m-third", seating(None, status="waiting", seats=(ann, None, None, None)))
        with pytest.raises(SeatedElsewhere):  # seated while it waited: its start would deal her in
            two.save_table("m-third", seating(None, status="playing", seats=(ann, None, None, None)))
        second, third = two.match("m-second"), two.match("m-third")
        assert second is not None and second.seating.seats[0] is None
        assert third is not None and third.seating.status == "waiting" and third.seating.seats[0] == ann
        assert two.playing_at(ann[0], besides="m-second") == "m-first"
        assert two.playing_at(ann[0], besides="m-first") is None  # (her single-player match is none)
        one.save_table("m-first", seating(bob, status="over", seats=(None, None, bob, ann)))
        two.save_table("m-second", seating(cy, status="playing", seats=(ann, None, cy, None)))
        assert one.playing_at(ann[0], besides="m-first") == "m-second"
    finally:
        one.close()
        two.close()
