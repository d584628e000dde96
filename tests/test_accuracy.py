"""A person's accuracy across many reviewed deals (``docs/review.md``, Across many deals;
``gongzhu.server.accuracy``): a finished review of a seat an account played is kept for that
account, once per deal whoever asked for it; ``GET /api/profile/accuracy`` adds the kept reviews
up by kind of decision and over groups of deals; ``POST /api/profile/accuracy/review-last``
queues the reviews of the newest deals not reviewed yet, as many as the reviews' line holds.

Each decision's kind is checked against the rules on the deal as replayed (the seat led, held
the led suit, or held none of it); every number of the accuracy is computed again here from the
reviews kept, as JSON, and the deals' records.  The server reviews with a small budget (a few
sampled worlds per decision, two par replays), given to the application factory, as in
``test_review_api.py``.  The stores: SQLite and PostgreSQL (``helpers.database.STORES``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from starlette.testclient import TestClient

import gongzhu.server.accuracy as accuracy_module
from gongzhu.records.replay import replay_states
from gongzhu.review import Budget
from gongzhu.rules import Seat
from gongzhu.rules.deal import Phase
from gongzhu.server.accuracy import COUNTS, GROUP, MOST_POINTS, Accuracy, decision_kind, seats_of
from gongzhu.server.app import create_app
from gongzhu.server.reviews import Reviews
from gongzhu.server.store import REVIEWS, Store
from helpers.client import local_client, play_match
from helpers.client import refused as shared_refused
from helpers.database import STORES

#: A small review budget: fixed worlds (reproducible), two par replays, a small solver limit.
SMALL = Budget(think=None, worlds=4, par_replays=2, par_worlds=2, exact_limit=20_000)
#: How long a test waits for reviews at most before it fails (a guard, not a measurement).
PATIENCE = 300.0
PASSWORD = "a quiet tiger 42 accuracy"
ACCURACY = "/api/profile/accuracy"
REVIEW_LAST = "/api/profile/accuracy/review-last"
KINDS = ("lead", "follow", "discard", "exposure")


def make_app(db_url: str, tmp_path: Path) -> Any:
    return create_app(db_url, pace=0, hint_think=0.05, static_dir=tmp_path / "no-static", review_workers=1,
                      review_budget=SMALL)


@pytest.fixture
def app(db_url: str, tmp_path: Path) -> Any:
    """The application on the test's store, reviewing with the small budget on one worker."""
    return make_app(db_url, tmp_path)


@pytest.fixture
def client(app: Any) -> Iterator[TestClient]:
    with local_client(app) as c:
        yield c


@contextlib.contextmanager
def another_browser(client: TestClient) -> Iterator[TestClient]:
    """The same server's client as another browser (no cookie of the first; its own kept apart),
    then the first browser again."""
    first = dict(client.cookies)
    client.cookies.clear()
    try:
        yield client
    finally:
        client.cookies.clear()
        client.cookies.update(first)


def reviews_of(client: TestClient) -> Reviews:
    reviews: Reviews = client.app.state.reviews  # type: ignore[attr-defined]
    return reviews


def store_of(client: TestClient) -> Store:
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    return store


def sign_up(client: TestClient, name: str) -> str:
    """The client's person (a guest first) becomes the account ``name``; its id."""
    client.get("/api/me")
    r = client.post("/api/account", json={"name": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    found: str = r.json()["id"]
    return found



def review(client: TestClient, match_id: str, k: int, seat: str) -> dict[str, Any]:
    """Ask for the review of ``seat`` in deal ``k`` and wait for it."""
    url = f"/api/matches/{match_id}/deals/{k}/review"
    started = client.post(url, json={"seat": seat})
    assert started.status_code in (200, 202), started.text
    deadline = time.monotonic() + PATIENCE
    while True:
        answer = client.get(url, params={"seat": seat})
        if answer.status_code == 200:
            found: dict[str, Any] = answer.json()["review"]
            return found
        assert answer.status_code == 202, answer.text
        assert time.monotonic() < deadline, "the review never finished"
        time.sleep(0.05)


def until_reviewed(client: TestClient) -> dict[str, Any]:
    """Read the accuracy until the reviews asked for with review-last are all finished."""
    deadline = time.monotonic() + PATIENCE
    while True:
        answer = client.get(ACCURACY)
        assert answer.status_code == 200, answer.text
        body: dict[str, Any] = answer.json()
        r = body["reviewing"]
        if r is None or r["done"] + r["failed"] == r["asked"]:
            return body
        assert time.monotonic() < deadline, f"the reviews never finished: {r}"
        time.sleep(0.05)


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    body = shared_refused(response, status, code)
    assert response.headers["cache-control"] == "no-store"
    return body


def record_of(client: TestClient, match_id: str, k: int) -> dict[str, Any]:
    answer = client.get(f"/api/matches/{match_id}/deals/{k}")
    assert answer.status_code == 200, answer.text
    record: dict[str, Any] = answer.json()
    return record


def kept_rows(client: TestClient) -> list[dict[str, Any]]:
    with store_of(client).engine.connect() as c:
        return [dict(r._mapping) for r in c.execute(select(REVIEWS).order_by(REVIEWS.c.match_id,
                                                                             REVIEWS.c.deal_index))]


# ---------------------------------------------------------------------- by the rules


def kinds_by_the_rules(record: dict[str, Any], seat: Seat) -> dict[tuple[int, int] | None, str]:
    """Each decision of ``seat`` in the deal, by the rules on the deal replayed: (trick, place) →
    ``lead`` (it began the trick), ``follow`` (it held a card of the led suit), ``discard`` (it held
    none); None → ``exposure`` where the seat had an exposure to declare."""
    kinds: dict[tuple[int, int] | None, str] = {}
    for deal in replay_states(record):
        if deal.phase == Phase.EXPOSE and seat in deal.undeclared:
            kinds[None] = "exposure"
        elif deal.phase == Phase.PLAY and deal.turn == seat:
            place = (len(deal.tricks) + 1, len(deal.current_trick))
            if not deal.current_trick:
                kinds[place] = "lead"
                continue
            led = deal.current_trick[0][1][0].suit
            holds = any(card.suit == led for card in deal.hand(seat))
            kinds[place] = "follow" if holds else "discard"
            # The rules agree: holding the led suit, every legal play follows it; else none does.
            assert all(all(c.suit == led for c in play) == holds for play in deal.legal_plays())
    return kinds


def expected_counts(reviews: list[tuple[dict[str, Any], dict[str, Any]]], kinds: tuple[str, ...]) -> dict[str, Any]:
    """The accuracy of ``kinds`` over (review, record) pairs, computed from the reviews' JSON."""
    n = loss = blunders = mistakes = inaccuracies = uncertain = 0.0
    for rev, record in reviews:
        by_rules = kinds_by_the_rules(record, Seat[rev["seat"]])
        for d in rev["decisions"]:
            kind = by_rules[None if d["kind"] == "expose" else (d["trick"], d["order"])]
            if d["forced"] or kind not in kinds:
                continue
            n += 1
            loss += d["loss"]
            blunders += d["mark"] == "??"
            mistakes += d["mark"] == "?"
            inaccuracies += d["mark"] == "?!"
            uncertain += d["mark"] is not None and d["uncertain"]
    return {"decisions": n, "loss": loss, "??": blunders, "?": mistakes, "?!": inaccuracies, "uncertain": uncertain,
            "mean_loss": loss / n if n else None, "error_share": (blunders + mistakes) / n if n else None}


def assert_counts(shown: dict[str, Any], want: dict[str, Any]) -> None:
    for key in ("decisions", "??", "?", "?!", "uncertain"):
        assert shown[key] == want[key], key
    assert shown["loss"] == pytest.approx(want["loss"], abs=0.051 * max(1, want["decisions"]))
    for key, places in (("mean_loss", 0.006), ("error_share", 0.00006)):
        if want[key] is None:
            assert shown[key] is None
        else:
            assert shown[key] == pytest.approx(want[key], abs=places + 0.05 * (key == "mean_loss")), key


# ---------------------------------------------------------------------- the tests


def test_each_decision_takes_its_kind_from_the_rules(client: TestClient) -> None:
    """Every decision of the seat in a real deal: a lead where it began the trick, a follow where
    it held the led suit, a discard where it held none, the declaration an exposure."""
    sign_up(client, "Lin")
    match_id = play_match(client, 1, seed=11)
    record = record_of(client, match_id, 0)
    rev = review(client, match_id, 0, "S")
    by_rules = kinds_by_the_rules(record, Seat.S)
    seen = {decision_kind(d, record) for d in rev["decisions"]}
    for d in rev["decisions"]:
        assert decision_kind(d, record) == by_rules[None if d["kind"] == "expose" else (d["trick"], d["order"])]
    assert {"lead", "follow", "discard"} <= seen, seen  # this deal has each kind of play
    assert len(rev["decisions"]) == len(by_rules)


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_review_is_kept_once_for_the_account_that_played_the_seat(
        client: TestClient, db_url: str, tmp_path: Path) -> None:
    """A review asked by anybody of the seat an account played is kept for it, once; a seat of a
    computer player keeps nothing; the kept review opens again after the server restarts."""
    user = sign_up(client, "Mei")
    match_id = play_match(client, 2, seed=5)
    with another_browser(client) as stranger:  # a guest who knows the match
        south = review(stranger, match_id, 0, "S")
        review(stranger, match_id, 0, "N")  # a computer player's seat
    rows = kept_rows(client)
    assert [(r["user_id"], r["match_id"], r["deal_index"], r["seat"]) for r in rows] == [(user, match_id, 0, "S")]
    row = rows[0]
    assert json.loads(row["review"]) == south
    assert row["format"] == south["format"] == "gongzhu-review/2"
    assert (row["result"], row["luck"], row["skill"]) == (south["result"], south["luck"], south["skill"])
    assert row["played"] == store_of(client).match(match_id).created  # type: ignore[union-attr]
    pairs = [(south, record_of(client, match_id, 0))]
    for kind in KINDS:
        want = expected_counts(pairs, (kind,))
        assert row[f"{kind}_decisions"] == want["decisions"]
        assert row[f"{kind}_loss"] == pytest.approx(want["loss"], abs=0.051)
        assert (row[f"{kind}_blunders"], row[f"{kind}_mistakes"], row[f"{kind}_inaccuracies"]) == \
            (want["??"], want["?"], want["?!"])
        assert row[f"{kind}_uncertain"] == want["uncertain"]

    # Kept once: asked again, and kept again by hand, it is still one row.
    review(client, match_id, 0, "S")
    assert Accuracy(store_of(client), Reviews(workers=0)).keep(match_id, 0, Seat.S, south) == user
    with store_of(client).engine.connect() as c:
        assert c.scalar(select(func.count()).select_from(REVIEWS)) == 1
    assert client.get(ACCURACY).json()["deals"] == 1

    # A restarted server has no review in memory: the kept one opens at once.
    restarted = make_app(db_url, tmp_path)
    with local_client(restarted) as again:
        answer = again.get(f"/api/matches/{match_id}/deals/0/review", params={"seat": "S"})
        assert answer.status_code == 200 and answer.json() == {"status": "done", "seat": "S", "review": south}
        assert again.get(f"/api/matches/{match_id}/deals/0/review", params={"seat": "N"}).status_code == 404
        assert again.get(f"/api/matches/{match_id}/deals/1/review", params={"seat": "S"}).status_code == 404


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_the_accuracy_adds_up_the_kept_reviews(client: TestClient) -> None:
    """Review-last reviews the newest deals; the accuracy's every number, by kind, all together
    and per group of deals, is what the kept reviews' JSON says."""
    sign_up(client, "Ana")
    match_id = play_match(client, 6, seed=7)
    empty = client.get(ACCURACY).json()
    assert (empty["deals"], empty["groups"], empty["reviewing"], empty["counts"]) == (0, [], None, list(COUNTS))
    assert empty["all"]["mean_loss"] is None

    answer = client.post(REVIEW_LAST, json={"count": 10})
    assert answer.status_code == 202, answer.text
    body = answer.json()
    assert (body["queued"], body["under_way"], body["left"], body["code"]) == (6, 0, 0, "accuracy.queued")
    assert body["params"] == {"queued": 6}
    assert body["message"] == "6 deals in line for review" and body["message_zh"] == "已有 6 副排队复盘"
    accuracy = until_reviewed(client)
    assert accuracy["reviewing"] == {"asked": 6, "done": 6, "failed": 0, "queued": 0, "running": None}
    assert accuracy["deals"] == 6

    rows = kept_rows(client)
    assert [(r["match_id"], r["deal_index"]) for r in rows] == [(match_id, k) for k in range(6)]
    pairs = [(json.loads(r["review"]), record_of(client, match_id, r["deal_index"])) for r in rows]
    assert_counts(accuracy["all"], expected_counts(pairs, KINDS))
    for kind in KINDS:
        assert_counts(accuracy["kinds"][kind], expected_counts(pairs, (kind,)))
    for part in ("result", "luck", "skill"):
        assert accuracy[part] == pytest.approx(sum(rev[part] for rev, _ in pairs), abs=0.051 * len(pairs))
    # Groups of GROUP deals, oldest first (the last one smaller).
    size = max(GROUP, math.ceil(len(pairs) / MOST_POINTS))
    assert accuracy["group"] == size == 5
    assert [g["deals"] for g in accuracy["groups"]] == [5, 1]
    for g, start in zip(accuracy["groups"], range(0, len(pairs), size), strict=True):
        chunk = pairs[start:start + size]
        assert_counts(g["all"], expected_counts(chunk, KINDS))
        for kind in KINDS:
            assert_counts(g["kinds"][kind], expected_counts(chunk, (kind,)))

    # Everything reviewed: nothing more is queued, and the progress shown stays.
    again = client.post(REVIEW_LAST, json={"count": 5})
    assert again.status_code == 200 and again.json()["code"] == "accuracy.nothing_new"
    assert again.json()["reviewing"]["asked"] == 6


def test_review_last_queues_only_unreviewed_deals_and_keeps_to_the_line(client: TestClient) -> None:
    """The newest deals not reviewed yet are queued, as many as the reviews' line holds, and the
    answer says how many did not fit; asked again, those under way are followed, not queued
    twice; somebody else, with the line full, is refused with the reviews' own message."""
    sign_up(client, "Bo")
    match_id = play_match(client, 6, seed=3)
    review(client, match_id, 5, "S")  # the newest deal is reviewed already
    reviews = reviews_of(client)
    reviews.waiting = 2  # a short line: one review running, two waiting

    first = client.post(REVIEW_LAST, json={"count": 5})
    assert first.status_code == 202, first.text
    body = first.json()
    assert (body["queued"], body["under_way"], body["left"]) == (3, 0, 2)
    assert body["code"] == "accuracy.queued_some" and body["params"] == {"queued": 3, "left": 2}
    assert body["message"] == ("3 deals in line for review; the line is full, so 2 deals more wait: "
                               "ask again once these are done")
    assert body["reviewing"]["asked"] == 3 and body["reviewing"]["queued"] == 2
    asked = {k for k in range(6) if (job := reviews.find(match_id, k, Seat.S)) is not None and job.status != "done"}
    assert asked == {4, 3, 2}  # the newest not reviewed; deal 5 was not asked again
    assert reviews.counts["waiting"] == 2

    # The line stays full while no review starts (none runs at once): asked again, Bo's reviews
    # under way are followed, nothing is queued twice, and the same two deals do not fit.
    reviews.at_once = 0
    second = client.post(REVIEW_LAST, json={"count": 5})
    assert second.status_code == 202, second.text
    b = second.json()
    assert (b["queued"], b["left"], b["code"]) == (0, 2, "accuracy.queued_some")
    assert b["under_way"] in (2, 3)  # deal 4's review may have finished (and been kept) meanwhile
    assert reviews.counts["waiting"] == 2

    with another_browser(client) as other:
        sign_up(other, "Cy")
        play_match(other, 1, seed=4)
        refusal = refused(other.post(REVIEW_LAST, json={"count": 5}), 503, "server.review_busy")
        assert refusal["params"] == {"waiting": 2}
        assert reviews.counts["waiting"] == 2
        # A line of the usual length again: Cy's review is queued, and the line moves on.
        reviews.at_once, reviews.waiting = 1, 16
        assert other.post(REVIEW_LAST, json={"count": 5}).json()["queued"] == 1

    accuracy = until_reviewed(client)
    while (more := client.post(REVIEW_LAST, json={"count": 20})).status_code == 202:
        assert more.json()["left"] == 0
        accuracy = until_reviewed(client)
    assert more.json()["code"] == "accuracy.nothing_new"
    assert accuracy["deals"] == 6
    assert sorted(r["deal_index"] for r in kept_rows(client) if r["match_id"] == match_id) == list(range(6))


def test_one_person_takes_only_a_share_of_the_reviews_line(client: TestClient,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """However many deals a person asks for, at most PER_PERSON of their reviews are in line at
    once; the answer says how many wait for another press, and the others' reviews still fit."""
    monkeypatch.setattr(accuracy_module, "PER_PERSON", 2)
    sign_up(client, "Bo")
    play_match(client, 4, seed=3)
    reviews = reviews_of(client)
    reviews.at_once = 0  # nothing starts: what is in line stays there
    body = client.post(REVIEW_LAST, json={"count": 20}).json()
    assert (body["queued"], body["under_way"], body["left"]) == (2, 0, 2)
    assert body["code"] == "accuracy.queued_some"
    again = client.post(REVIEW_LAST, json={"count": 20}).json()  # the share is taken: nothing more
    assert (again["queued"], again["under_way"], again["left"]) == (0, 2, 2)
    assert reviews.counts["waiting"] == 2
    reviews.at_once = 1


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_guests_and_bad_counts_are_refused(client: TestClient) -> None:
    with another_browser(client) as nobody:  # no session at all
        refused(nobody.get(ACCURACY), 403, "accuracy.accounts_only")
    client.get("/api/me")  # a guest
    refused(client.get(ACCURACY), 403, "accuracy.accounts_only")
    refused(client.post(REVIEW_LAST, json={"count": 5}), 403, "accuracy.accounts_only")
    sign_up(client, "Dee")
    for body in ({"count": 7}, {"count": "5"}, {"count": 5, "more": 1}, [5], {"count": True}):
        bad = refused(client.post(REVIEW_LAST, json=body), 400, "accuracy.bad_count")
        assert bad["params"]["choices"] == ", ".join(map(str, COUNTS))
        assert "null" not in bad["params"]["count"]  # what was sent, as sent
    assert client.post(REVIEW_LAST, content=b"{", headers={"content-type": "application/json"}).status_code == 400
    # Nothing played: nothing to review.
    nothing = client.post(REVIEW_LAST, json={"count": 5})
    assert nothing.status_code == 200 and nothing.json()["code"] == "accuracy.nothing_new"
    assert reviews_of(client).counts == {"kept": 0, "waiting": 0, "running": 0}


def test_the_seat_goes_to_its_person_and_a_guests_review_counts_once_they_sign_up(client: TestClient) -> None:
    """The seat of a deal goes to the person dealt it: by the name the record gives, then one of
    theirs; a review finished while its person was a guest is kept when they ask, not run again."""
    client.get("/api/me")
    match_id = play_match(client, 1, seed=9)
    rev = review(client, match_id, 0, "S")  # a guest's: kept for nobody
    assert kept_rows(client) == []
    user = sign_up(client, "Eve")
    answer = client.post(REVIEW_LAST, json={"count": 5})
    assert answer.status_code == 200 and answer.json()["code"] == "accuracy.nothing_new"
    assert reviews_of(client).counts["waiting"] == 0
    rows = kept_rows(client)
    assert [(r["user_id"], r["deal_index"]) for r in rows] == [(user, 0)] and json.loads(rows[0]["review"]) == rev

    # At a table (not a single-player match) the seat goes by the name dealt it, or a former one.
    accuracy = Accuracy(store_of(client), Reviews(workers=0))
    info = store_of(client).match(match_id)
    assert info is not None
    table = dataclasses.replace(info, solo=False)
    record = record_of(client, match_id, 0)
    players = accuracy.players(match_id)
    assert seats_of(record, info, players) == {"S": user}
    assert seats_of(record, table, players) == {"S": user}  # by the seat of the last deal: the name was the guest's
    named = {**record, "players": {**record["players"], "S": {"name": "Eve", "computer": None, "auto": False}}}
    assert seats_of(named, table, [dataclasses.replace(p, seat=None) for p in players]) == {"S": user}
    former = [dataclasses.replace(p, seat=None, names=frozenset({"Evelyn", "Eve"})) for p in players]
    assert seats_of(named, table, former) == {"S": user}
    assert seats_of(named, table, [dataclasses.replace(p, seat=None, names=frozenset({"Zed"})) for p in players]) == {}
