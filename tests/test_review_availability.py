"""The deal reviews and the what-if board stay available to everyone (``docs/web-protocol.md``,
Reviews; ``docs/review.md``, What if and Across many deals): a review worker process that dies
takes no later review (nor a challenge's pars) with it; one person, or one client address, holds
only a share of the reviews' line and a few what-ifs, however many guests it makes; refusals
number a deal as players count it (第 N 副, deal N) and quote a play as it was sent; and
``review-last`` refuses a bad body with a catalog message, after it has checked who asks.

Reviews run with a small budget (a few sampled worlds per decision, two par replays): the same
code as with the default budget, faster.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from gongzhu.messages import render
from gongzhu.review import Budget, Reviewer
from gongzhu.rules import Options, Seat
from gongzhu.rules.boards import make_board_set
from gongzhu.server.app import create_app
from gongzhu.server.reviews import PER_ADDRESS, PER_PERSON, Asker, ReviewRefused, Reviews
from gongzhu.server.whatif import WhatIfRefused, WhatIfs
from helpers.client import (
    LOCAL,
    LocalClient,
    local_client,
    new_match,
    play_deal,
    play_match,
    refused,
    whatifs_of,
)
from helpers.deals import finished_record

#: A small review budget: fixed worlds (reproducible), two par replays, a small solver limit.
SMALL = Budget(think=None, worlds=4, par_replays=2, par_worlds=2, exact_limit=20_000)
#: How long a test waits for a review (or a process) at most before it fails (a guard, not a measurement).
PATIENCE = 300.0
PASSWORD = "a quiet tiger 42 availability"
REVIEW_LAST = "/api/profile/accuracy/review-last"


def make_app(tmp_path: Path, workers: int = 2) -> Starlette:
    return create_app(f"sqlite:///{tmp_path / 'gz.db'}", pace=0, hint_think=0.05, static_dir=tmp_path / "no-static",
                      review_workers=workers, review_budget=SMALL)


@pytest.fixture
def reviewing(tmp_path: Path) -> Iterator[TestClient]:
    """The application reviewing on two worker processes, the server's default, with the small budget."""
    with local_client(make_app(tmp_path)) as c:
        yield c


@pytest.fixture
def inline(tmp_path: Path) -> Iterator[TestClient]:
    """The application reviewing in its own process (nothing here waits for a review to finish)."""
    with local_client(make_app(tmp_path, workers=0)) as c:
        yield c


def reviews_of(client: TestClient) -> Reviews:
    reviews: Reviews = client.app.state.reviews  # type: ignore[attr-defined]
    return reviews



def review_url(match_id: str, k: int | str = 0) -> str:
    return f"/api/matches/{match_id}/deals/{k}/review"


def whatif_url(match_id: str, k: int | str = 0) -> str:
    return f"/api/matches/{match_id}/deals/{k}/whatif"


def post(client: TestClient, url: str, body: Any) -> Any:
    return client.post(url, content=json.dumps(body).encode(),
                       headers={"content-type": "application/json", "origin": LOCAL})


def from_address(client: TestClient, address: str) -> TestClient:
    """Another browser of the same application, at the client address ``address``."""
    return LocalClient(client.app, base_url=LOCAL, client=(address, 50000))


def until_done(client: TestClient, match_id: str, seat: str, k: int = 0) -> dict[str, Any]:
    """Follow a started review with GET until it is done: the review."""
    deadline = time.monotonic() + PATIENCE
    while True:
        answer = client.get(review_url(match_id, k), params={"seat": seat})
        if answer.status_code == 200:
            review: dict[str, Any] = answer.json()["review"]
            return review
        assert answer.status_code == 202, answer.text
        assert time.monotonic() < deadline, f"the review never finished; last answer {answer.text}"
        time.sleep(0.05)



def sign_up(client: TestClient, name: str) -> None:
    client.get("/api/me")
    answer = client.post("/api/account", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 200, answer.text



def kill_one(children: set[multiprocessing.process.BaseProcess]) -> None:
    """Kill one of ``children`` (a worker process of a pool) at once (SIGKILL), and wait until it is gone."""
    assert children, "no worker process to kill"
    victim = sorted(children, key=lambda p: p.pid or 0)[0]
    assert victim.pid is not None
    os.kill(victim.pid, signal.SIGKILL)
    deadline = time.monotonic() + PATIENCE
    while victim.is_alive():
        assert time.monotonic() < deadline, "the killed worker process is still there"
        time.sleep(0.02)


# ---------------------------------------------------------------------- a dead worker process


def test_a_killed_review_worker_is_replaced_and_the_next_review_succeeds(
        reviewing: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    client = reviewing
    match_id = new_match(client, seed=5)
    play_deal(client, match_id)
    before = set(multiprocessing.active_children())
    assert post(client, review_url(match_id), {"seat": "S"}).status_code == 202
    first = until_done(client, match_id, "S")
    workers = set(multiprocessing.active_children()) - before  # the reviews' pool, started by that review

    caplog.set_level(logging.WARNING, logger="gongzhu")
    kill_one(workers)
    # Every later review is done on a new pool, the broken one shut down (logged, counted).
    for seat in ("N", "E"):
        started = post(client, review_url(match_id), {"seat": seat})
        assert started.status_code == 202, started.text
        review = until_done(client, match_id, seat)
        assert (review["match"], review["deal_index"], review["seat"]) == (match_id, 0, seat)
    reviewer = reviews_of(client).reviewer
    assert reviewer is not None and reviewer.restarts == 1
    assert any("worker process of the reviews died" in r.getMessage() for r in caplog.records)
    assert not (workers & set(multiprocessing.active_children()))
    # What was reviewed before stays; the server is ready.
    assert client.get(review_url(match_id), params={"seat": "S"}).json()["review"] == first
    assert client.get("/readyz").json()["ok"] is True


def test_a_killed_worker_does_not_break_the_pars_of_a_board_set() -> None:
    """A challenge's pars run on the reviews' worker processes too (``Reviewer.board_pars``)."""
    boards = make_board_set(Options(), 1, seed="availability-pars")
    reviewer = Reviewer(workers=1)
    before = set(multiprocessing.active_children())
    try:
        pars = reviewer.board_pars(boards.seed, boards.definition, boards.commitment, Seat.S, replays=1, worlds=2)
        assert len(pars) == 1 and isinstance(pars[0], float)
        kill_one(set(multiprocessing.active_children()) - before)
        again = reviewer.board_pars(boards.seed, boards.definition, boards.commitment, Seat.S, replays=1, worlds=2)
        assert again == pars  # the same experts on the same cards, on the new pool
        assert reviewer.restarts == 1
    finally:
        reviewer.close()
    assert set(multiprocessing.active_children()) - before == set()


# ---------------------------------------------------------------------- one asker's share of the line


def test_one_person_and_one_address_hold_only_a_share_of_the_reviews_line() -> None:
    line = finished_record(4)

    async def main() -> None:
        reviews = Reviews(workers=0, budget=SMALL, waiting=40)  # a line longer than the shares
        reviews.at_once = 0  # nothing starts: what is in line stays there
        try:
            # A client making a new guest for each request: one address, a new person each time.
            jobs = []
            for n in range(20):
                try:
                    jobs.append(reviews.start("m-test", n, Seat.S, line, asker=Asker(f"guest-{n}", "203.0.113.9")))
                except ReviewRefused as e:
                    assert (e.status, e.text.key) == (429, "server.review_too_many_address")
                    assert e.text.params == {"most": PER_ADDRESS}
                    break
            assert len(jobs) == PER_ADDRESS
            # Asked again, a review already in line is followed, not refused.
            assert reviews.start("m-test", 0, Seat.S, line, asker=Asker("guest-99", "203.0.113.9")) is jobs[0]
            # Somebody else still fits in the line.
            other = reviews.start("m-test", 0, Seat.N, line, asker=Asker("someone", "198.51.100.7"))
            assert other.status == "queued"
            # One person from several addresses: their own share.
            mine = [reviews.start("m-test", 100 + n, Seat.S, line, asker=Asker("me", f"192.0.2.{n}"))
                    for n in range(PER_PERSON)]
            assert len(mine) == PER_PERSON
            with pytest.raises(ReviewRefused) as yours:
                reviews.start("m-test", 200, Seat.S, line, asker=Asker("me", "192.0.2.200"))
            assert (yours.value.status, yours.value.text.key) == (429, "server.review_too_many_yours")
            assert reviews.counts["waiting"] == PER_ADDRESS + 1 + PER_PERSON
            assert reviews.in_line(Asker("me", "203.0.113.9")) == (PER_PERSON, PER_ADDRESS)
        finally:
            await reviews.close()

    asyncio.run(main())


def test_one_client_without_a_session_cannot_fill_the_review_line(inline: TestClient) -> None:
    client = inline
    match_id = play_match(client, 3, seed=11)  # 3 deals of 4 seats: 12 reviews to ask for
    reviews = reviews_of(client)
    reviews.at_once = 0  # nothing starts: what is in line stays there
    answers = []
    for k in range(3):
        for seat in "NESW":
            client.cookies.clear()  # no session: each POST makes a new guest
            answers.append(post(client, review_url(match_id, k), {"seat": seat}))
    assert [a.status_code for a in answers[:PER_ADDRESS]] == [202] * PER_ADDRESS
    for answer in answers[PER_ADDRESS:]:
        body = refused(answer, 429, "server.review_too_many_address")
        assert body["params"] == {"most": PER_ADDRESS}
        assert "set-cookie" not in answer.headers  # a refused POST makes nobody a person
    assert reviews.counts["waiting"] == PER_ADDRESS
    # Someone at another address is not held up by it.
    elsewhere = from_address(client, "198.51.100.20")
    assert post(elsewhere, review_url(match_id, 2), {"seat": "W"}).status_code == 202
    assert reviews.counts["waiting"] == PER_ADDRESS + 1


def test_review_last_keeps_to_the_address_share_of_the_line(inline: TestClient) -> None:
    client = inline
    reviews = reviews_of(client)
    reviews.per_address = 2  # a small share, so that few deals fill it
    sign_up(client, "Ada")
    play_match(client, 3, seed=12)
    reviews.at_once = 0  # nothing starts: what is in line stays there
    first = client.post(REVIEW_LAST, json={"count": 5})
    assert first.status_code == 202, first.text
    body = first.json()
    assert (body["queued"], body["left"], body["code"]) == (2, 1, "accuracy.queued_some")
    # Another account at the same address: the address's share is taken.
    client.cookies.clear()
    sign_up(client, "Bea")
    play_match(client, 1, seed=13)
    refusal = refused(client.post(REVIEW_LAST, json={"count": 5}), 429, "server.review_too_many_address")
    assert refusal["params"] == {"most": 2}
    assert reviews.counts["waiting"] == 2


# ---------------------------------------------------------------------- review-last's body


def test_review_last_refuses_a_bad_body_with_a_catalog_message_after_the_session(client: TestClient) -> None:
    headers = {"content-type": "application/json"}
    bad_bodies = [b"{", b"\xef\xbb\xbf{\"count\": 5}", b"[" * 100 + b"]" * 100, b"{\"count\": NaN}"]
    # No session, then a guest: refused as such whatever the body.
    for who in ("nobody", "guest"):
        if who == "guest":
            client.get("/api/me")
        for content in [*bad_bodies, b"x" * 9000]:
            refused(client.post(REVIEW_LAST, content=content, headers=headers), 403, "accuracy.accounts_only")
        refused(client.post(REVIEW_LAST, content=b'{"count": 5}', headers={"content-type": "text/plain"}), 403,
                "accuracy.accounts_only")
    sign_up(client, "Cleo")
    for content in bad_bodies:
        body = refused(client.post(REVIEW_LAST, content=content, headers=headers), 400, "accuracy.bad_body")
        assert body["params"] == {"choices": "5, 10, 20"}
        assert body["message_zh"] == render("accuracy.bad_body", "zh", body["params"])
    # Nothing sent, or nothing in it: said so, not "not {}".
    for content in (b"", b"{}", b"  "):
        body = refused(client.post(REVIEW_LAST, content=content, headers=headers), 400, "accuracy.bad_body")
        assert "{}" not in body["error"] and "{}" not in body["message_zh"]
    big = json.dumps({"count": 5, "pad": "x" * 9000}).encode()
    body = refused(client.post(REVIEW_LAST, content=big, headers=headers), 413, "server.review_body_too_large")
    assert body["params"] == {"limit": 8192}
    refused(client.post(REVIEW_LAST, content=b'{"count": 5}', headers={"content-type": "text/plain"}), 415,
            "server.review_body_type")
    # A body naming a count is read as before.
    assert client.post(REVIEW_LAST, json={"count": 5}).json()["code"] == "accuracy.nothing_new"


# ---------------------------------------------------------------------- deal numbers and plays in refusals


def test_refusals_number_deals_from_one(inline: TestClient) -> None:
    client = inline
    match_id = new_match(client, seed=5)
    play_deal(client, match_id)  # deal 1 (index 0) finished; deal 2 (index 1) next

    def says(body: dict[str, Any], number: int | str) -> None:
        assert f"deal {number}" in body["error"] and f"第 {number} 副" in body["message_zh"], body
        assert "from 0" not in body["error"] and "从 0" not in body["message_zh"] and "编号" not in body["message_zh"]

    body = refused(post(client, whatif_url(match_id, 1), {"seat": "S", "line": []}), 409, "whatif.not_finished")
    says(body, 2)
    assert body["params"]["deal"] == 1 and body["params"]["number"] == 2  # the index stays 0-based
    body = refused(post(client, whatif_url(match_id, 7), {"seat": "S", "line": []}), 404, "whatif.no_deal")
    says(body, 8)
    body = refused(post(client, whatif_url(match_id, "x"), {"seat": "S", "line": []}), 404, "whatif.no_deal")
    assert 'deal "x"' in body["error"] and '第 "x" 副' in body["message_zh"]  # not a number: quoted as sent
    body = refused(post(client, review_url(match_id, 1), {"seat": "S"}), 409, "server.review_not_finished")
    assert body["params"]["deal"] == 1
    says(body, 2)
    says(refused(post(client, review_url(match_id, 7), {"seat": "S"}), 404, "server.review_no_deal"), 8)
    body = refused(client.get(review_url(match_id, 0), params={"seat": "N"}), 404, "server.review_not_started")
    assert body["params"]["deal"] == 0
    says(body, 1)

    good = json.loads(finished_record(6))
    bad = json.dumps({**good, "tricks": good["tricks"][:3] + good["tricks"][4:]})

    async def failed() -> dict[str, Any]:
        reviews = Reviews(workers=0, budget=SMALL)
        try:
            job = reviews.start("m-test", 3, Seat.S, bad)
            while job.status not in ("done", "failed"):
                await asyncio.sleep(0.02)
            with pytest.raises(ReviewRefused) as refusal:
                reviews.answer(job)
            text = refusal.value.text
            return {"error": text.render("en"), "message_zh": text.render("zh"), **text.json}
        finally:
            await reviews.close()

    body = asyncio.run(failed())
    assert body["code"] == "server.review_failed" and body["params"]["deal"] == 3
    says(body, 4)


def test_a_what_if_refusal_quotes_the_play_as_sent(client: TestClient) -> None:
    match_id = new_match(client, seed=5)
    play_deal(client, match_id)
    record = client.get(f"/api/matches/{match_id}/deals/0").json()
    plays = ["+".join(p["cards"]) for t in record["tricks"] for p in t["plays"]]
    body = refused(post(client, whatif_url(match_id), {"seat": "S", "line": ["5H+4H"]}), 400, "whatif.illegal")
    assert body["params"]["play"] == "5H+4H"
    assert '"5H+4H"' in body["error"] and '“5H+4H”' in body["message_zh"]
    body = refused(post(client, whatif_url(match_id), {"seat": "S", "line": [*plays, "KD+QD"]}), 400,
                   "whatif.after_end")
    assert body["params"] == {"index": len(plays) + 1, "play": "KD+QD"}
    assert '"KD+QD"' in body["error"] and '“KD+QD”' in body["message_zh"]


# ---------------------------------------------------------------------- what-ifs per address


def test_what_ifs_are_bounded_per_address_as_well_as_per_person() -> None:
    whatifs = WhatIfs(per_address=2)
    with whatifs.hold("a", "203.0.113.9"), whatifs.hold("b", "203.0.113.9"):
        with pytest.raises(WhatIfRefused) as busy, whatifs.hold("c", "203.0.113.9"):
            pass
        assert (busy.value.status, busy.value.text.key) == (429, "whatif.address_busy")
        assert busy.value.text.params == {"most": 2}
        with whatifs.hold("c", "198.51.100.7"):  # another address
            assert whatifs.asked == 3
    with whatifs.hold("c", "203.0.113.9"):  # the address's what-ifs answered: room again
        assert whatifs.asked == 1
    assert whatifs.asked == 0


def test_new_guests_from_one_address_do_not_get_around_the_what_if_bound(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A client that makes a new guest for each request (a new cookie) is one address: it has at
    most ``per_address`` what-ifs asked at once, whoever it says it is."""
    match_id = new_match(client, seed=5)
    play_deal(client, match_id)
    whatifs = whatifs_of(client)
    most = 4  # the server's bound per address
    release = threading.Event()

    def held(_record_line: str, _seat: Seat, _line: list[Any]) -> dict[str, Any]:
        release.wait(PATIENCE)  # the what-if is being worked out until the test lets it go
        return {"worked": True}

    monkeypatch.setattr(whatifs, "_work", held)
    guests = []
    for _ in range(most + 1):
        client.cookies.clear()
        client.get("/api/me")  # a new guest, with its own cookie
        guests.append("; ".join(f"{name}={value}" for name, value in client.cookies.items()))
    client.cookies.clear()
    answers: dict[int, Any] = {}

    def ask(n: int) -> None:
        answers[n] = client.post(whatif_url(match_id), content=b'{"seat": "S", "line": []}',
                                 headers={"content-type": "application/json", "origin": LOCAL, "cookie": guests[n]})

    asking = [threading.Thread(target=ask, args=(n,), daemon=True) for n in range(most + 1)]
    try:
        for thread in asking[:most]:
            thread.start()
        deadline = time.monotonic() + PATIENCE
        while whatifs.asked < most:
            assert time.monotonic() < deadline, f"only {whatifs.asked} what-ifs were asked"
            time.sleep(0.01)
        asking[most].start()  # one more new guest from the same address
        while most not in answers and whatifs.asked == most:
            assert time.monotonic() < deadline, "the last what-if was neither refused nor asked"
            time.sleep(0.01)
        assert whatifs.asked == most  # it was not let into the line
    finally:
        release.set()
        for thread in asking:
            thread.join(PATIENCE)
    body = refused(answers[most], 429, "whatif.address_busy")
    assert body["params"] == {"most": most} and answers[most].headers["retry-after"] == "1"
    assert [answers[n].status_code for n in range(most)] == [200] * most
    assert whatifs.asked == 0
    # Another address is answered while this one has all its what-ifs asked.
    with contextlib.ExitStack() as holding:
        for n in range(most):
            holding.enter_context(whatifs.hold(f"guest {n}", "testclient"))
        refused(post(client, whatif_url(match_id), {"seat": "S", "line": []}), 429, "whatif.address_busy")
        elsewhere = from_address(client, "198.51.100.20")
        assert post(elsewhere, whatif_url(match_id), {"seat": "S", "line": []}).json() == {"worked": True}
