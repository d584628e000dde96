"""Deal reviews through the API (``docs/web-protocol.md``, Reviews): ``POST
/api/matches/{id}/deals/{k}/review`` starts the review of one seat's decisions in a finished deal
(or finds the one started), ``GET`` on the same path follows it (``queued`` / ``running`` with the
tasks done, then ``done`` with the review) without starting anything.  The review is exactly
what :mod:`gongzhu.review` says of the stored record, it runs in the worker processes (shut down
with the server), finished ones are kept, and at most a few run or wait.  Every bad request — a
bad seat or body, an unknown match or deal, a deal not finished, another site's page — is refused
with a catalog message in both languages and starts nothing.

The server reviews with a small budget here (a few sampled worlds per decision, two par
replays), given to the application factory: the same code as with the default budget, faster.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from gongzhu.review import REVIEW_FORMAT, Budget, Reviewer
from gongzhu.rules import Seat
from gongzhu.server.app import create_app
from gongzhu.server.reviews import ReviewRefused, Reviews
from helpers.client import LOCAL, local_client, new_match, play_deal
from helpers.client import refused as shared_refused
from helpers.deals import finished_record

#: A small review budget: fixed worlds (reproducible), two par replays, a small solver limit.
SMALL = Budget(think=None, worlds=4, par_replays=2, par_worlds=2, exact_limit=20_000)
#: How long a test waits for a review at most before it fails (a guard, not a measurement).
PATIENCE = 300.0


@pytest.fixture
def reviewing(tmp_path: Path) -> Iterator[TestClient]:
    """The application with two review workers and the small budget (SQLite)."""
    app = create_app(f"sqlite:///{tmp_path / 'gz.db'}", pace=0, hint_think=0.05, static_dir=tmp_path / "no-static",
                     review_workers=2, review_budget=SMALL)
    with local_client(app) as c:
        yield c


def reviews_of(client: TestClient) -> Reviews:
    reviews: Reviews = client.app.state.reviews  # type: ignore[attr-defined]
    return reviews


def url(match_id: str, k: int | str = 0) -> str:
    return f"/api/matches/{match_id}/deals/{k}/review"


def post(client: TestClient, match_id: str, body: Any, k: int | str = 0, **headers: str) -> Any:
    return client.post(url(match_id, k), content=json.dumps(body).encode(),
                       headers={"content-type": "application/json", "origin": LOCAL, **headers})


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    """A refusal of the catalog (helpers.client.refused), never kept by a cache."""
    body = shared_refused(response, status, code)
    assert response.headers["cache-control"] == "no-store"
    return body


def until_done(client: TestClient, match_id: str, seat: str, k: int = 0) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Follow a started review with GET until it is done: the review and the answers before."""
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + PATIENCE
    while True:
        answer = client.get(url(match_id, k), params={"seat": seat})
        body: dict[str, Any] = answer.json()
        if answer.status_code == 200:
            assert body["status"] == "done" and body["seat"] == seat
            review: dict[str, Any] = body["review"]
            return review, seen
        assert answer.status_code == 202, answer.text
        assert answer.headers["cache-control"] == "no-store"
        seen.append(body)
        assert time.monotonic() < deadline, f"the review never finished; last answer {body}"
        time.sleep(0.05)


def test_a_review_runs_off_the_loop_to_done_and_is_kept(reviewing: TestClient) -> None:
    client = reviewing
    match_id = new_match(client, seed=5)
    play_deal(client, match_id)
    before = set(multiprocessing.active_children())

    started = post(client, match_id, {"seat": "S"})
    assert started.status_code == 202, started.text
    first = started.json()
    assert first["status"] in ("queued", "running") and first["seat"] == "S"
    # While it runs, the event loop answers other requests.
    assert client.get(f"/api/matches/{match_id}").status_code == 200
    review, seen = until_done(client, match_id, "S")
    # Progress only grows, and never passes the count of tasks.
    progress = [(b["done"], b["total"]) for b in [first, *seen] if b["status"] == "running" and b["total"] is not None]
    assert all(done <= total for done, total in progress)
    assert [d for d, _ in progress] == sorted(d for d, _ in progress)
    assert len({total for _, total in progress}) <= 1
    # The work ran in worker processes of the server's reviewer.
    assert set(multiprocessing.active_children()) - before

    record = client.get(f"/api/matches/{match_id}/deals/0").json()
    assert review["format"] == REVIEW_FORMAT
    assert (review["match"], review["deal_index"], review["seat"]) == (match_id, 0, "S")
    assert review["budget"]["worlds"] == SMALL.worlds
    # Exactly the review gongzhu.review makes of the stored record (fixed worlds: reproducible).
    assert review == Reviewer(workers=0).review(record, Seat.S, budget=SMALL)
    assert review["result"] == review["graph"][-1]["expected"]
    assert len(review["tricks"]) == len(record["tricks"])

    # Kept: asked again, it is answered at once, by POST and by GET alike.
    again = post(client, match_id, {"seat": "S"})
    assert again.status_code == 200 and again.json() == {"status": "done", "seat": "S", "review": review}
    assert client.get(url(match_id), params={"seat": "S"}).json()["review"] == review
    assert reviews_of(client).counts == {"kept": 1, "waiting": 0, "running": 0}

    # Another seat of the same deal is a review of its own.
    assert client.get(url(match_id), params={"seat": "N"}).status_code == 404
    assert post(client, match_id, {"seat": "N"}).status_code == 202
    north, _ = until_done(client, match_id, "N")
    assert north["seat"] == "N" and north["decisions"] != review["decisions"]
    assert reviews_of(client).counts == {"kept": 2, "waiting": 0, "running": 0}


def test_the_server_shuts_the_review_workers_down(tmp_path: Path) -> None:
    before = set(multiprocessing.active_children())
    app = create_app(f"sqlite:///{tmp_path / 'gz.db'}", pace=0, static_dir=tmp_path / "no-static",
                     review_workers=1, review_budget=SMALL)
    with local_client(app) as client:
        match_id = new_match(client, seed=2)
        play_deal(client, match_id)
        # Whoever knows the match may ask; a POST makes its caller a person, as every POST does.
        client.cookies.clear()
        started = post(client, match_id, {"seat": "W"})
        assert started.status_code == 202 and "set-cookie" in started.headers
        until_done(client, match_id, "W")
        assert set(multiprocessing.active_children()) - before
    assert set(multiprocessing.active_children()) - before == set()


def test_bad_requests_are_refused_and_start_nothing(client: TestClient) -> None:
    match_id = new_match(client, seed=1)
    in_progress = new_match(client, seed=2)  # its first deal is being played
    play_deal(client, match_id)
    reviews = reviews_of(client)
    stranger = local_client(client.app)  # type: ignore[arg-type]  # no session yet

    # Nothing started yet: GET says so, and starts nothing.
    body = refused(client.get(url(match_id), params={"seat": "S"}), 404, "server.review_not_started")
    assert body["params"] == {"match": f'"{match_id}"', "deal": 0, "number": 1, "seat": "S"}

    # The seat.
    for seat in ("X", "s", "South", "", 2, None, ["S"], {"S": 1}):
        refused(post(client, match_id, {"seat": seat}), 400, "server.review_bad_seat")
    for query in ({}, {"seat": "Q"}, {"seat": "n"}):
        refused(client.get(url(match_id), params=query), 400, "server.review_bad_seat")
    # The body.
    bodies: list[Any] = [{}, [], "S", 1, None, {"seat": "S", "budget": 1}, {"Seat": "S"}]
    for body_value in bodies:
        refused(post(client, match_id, body_value), 400, "server.review_bad_body")
    headers = {"origin": LOCAL}
    refused(client.post(url(match_id), content=b"{seat: S}", headers={**headers, "content-type": "application/json"}),
            400, "server.review_bad_body")
    refused(client.post(url(match_id), content=b"", headers=headers), 400, "server.review_bad_body")
    refused(client.post(url(match_id), content=b'{"seat": "S"}', headers={**headers, "content-type": "text/plain"}),
            415, "server.review_body_type")
    big = json.dumps({"seat": "S", "pad": "x" * 9000}).encode()
    refused(client.post(url(match_id), content=big, headers={**headers, "content-type": "application/json"}),
            413, "server.review_body_too_large")
    # The match and the deal.
    refused(post(client, "m-000000000000", {"seat": "S"}), 404, "server.review_unknown_match")
    refused(post(client, "no such match!", {"seat": "S"}), 404, "server.review_unknown_match")
    refused(client.get(url("m-000000000000"), params={"seat": "S"}), 404, "server.review_unknown_match")
    for k in ("x", "-1", "0x1", "1234567", "٣"):
        refused(post(client, match_id, {"seat": "S"}, k=k), 404, "server.review_no_deal")
    refused(post(client, match_id, {"seat": "S"}, k=7), 404, "server.review_no_deal")
    refused(client.get(url(match_id, 7), params={"seat": "S"}), 404, "server.review_no_deal")
    # A deal not finished: the first deal of the other match, the next deal of this one.
    body = refused(post(client, in_progress, {"seat": "S"}), 409, "server.review_not_finished")
    assert body["params"] == {"match": f'"{in_progress}"', "deal": 0, "number": 1}
    refused(client.get(url(in_progress), params={"seat": "S"}), 409, "server.review_not_finished")
    refused(post(client, match_id, {"seat": "E"}, k=1), 409, "server.review_not_finished")
    # Another site's page may not start one (the origin policy), whoever it is.
    other = post(stranger, match_id, {"seat": "S"}, origin="https://evil.example")
    assert other.status_code == 403
    other = post(client, match_id, {"seat": "S"}, origin="null")
    assert other.status_code == 403
    # A refused request made nobody a person, and started nothing.
    refusal = post(stranger, match_id, {"seat": "Z"})
    assert refusal.status_code == 400 and "set-cookie" not in refusal.headers
    assert not stranger.cookies
    assert reviews.counts == {"kept": 0, "waiting": 0, "running": 0}
    for seat in "NESW":
        refused(client.get(url(match_id), params={"seat": seat}), 404, "server.review_not_started")
    # Only the methods of the route.
    assert client.put(url(match_id), headers=headers).status_code == 405
    assert client.delete(url(match_id), headers=headers).status_code == 405


# ---------------------------------------------------------------------- the reviews' line



def test_reviews_wait_in_line_and_the_oldest_finished_go() -> None:
    """One review at a time, one waiting; past that, busy; finished ones kept up to ``keep``."""
    line = finished_record(4)

    async def main() -> None:
        reviews = Reviews(workers=0, budget=SMALL, at_once=1, waiting=1, keep=2)
        try:
            first = reviews.start("m-test", 0, Seat.S, line)
            second = reviews.start("m-test", 0, Seat.N, line)
            assert (first.status, second.status) == ("running", "queued")
            status, body = reviews.answer(second)
            assert status == 202 and body == {"status": "queued", "seat": "N", "done": 0, "total": None, "position": 1}
            with pytest.raises(ReviewRefused) as busy:
                reviews.start("m-test", 0, Seat.E, line)
            assert busy.value.status == 503 and busy.value.text.key == "server.review_busy"
            assert busy.value.text.params == {"waiting": 1}
            # The same review asked again is the one in line, not another.
            assert reviews.start("m-test", 0, Seat.N, line) is second
            assert reviews.counts == {"kept": 2, "waiting": 1, "running": 1}
            while second.status != "done":
                await asyncio.sleep(0.02)
            assert first.status == "done" and first.review is not None and first.record is None
            third = reviews.start("m-test", 0, Seat.E, line)
            while third.status != "done":
                await asyncio.sleep(0.02)
            # keep=2: the least recently asked for (South) went.
            assert reviews.find("m-test", 0, Seat.S) is None
            assert reviews.find("m-test", 0, Seat.N) is second and reviews.find("m-test", 0, Seat.E) is third
        finally:
            await reviews.close()
        with pytest.raises(ReviewRefused) as stopping:
            reviews.start("m-test", 0, Seat.W, line)
        assert stopping.value.status == 503 and stopping.value.text.key == "server.review_stopping"

    asyncio.run(main())


def test_a_failed_review_says_so_and_is_started_anew() -> None:
    """A record that does not replay fails its review (logged); POST starts it again."""
    good = json.loads(finished_record(6))
    bad = json.dumps({**good, "tricks": good["tricks"][:3] + good["tricks"][4:]})

    async def main() -> None:
        reviews = Reviews(workers=0, budget=SMALL)
        try:
            job = reviews.start("m-test", 0, Seat.S, bad)
            while job.status not in ("done", "failed"):
                await asyncio.sleep(0.02)
            assert job.status == "failed"
            with pytest.raises(ReviewRefused) as failed:
                reviews.answer(job)
            assert failed.value.status == 500 and failed.value.text.key == "server.review_failed"
            again = reviews.start("m-test", 0, Seat.S, json.dumps(good))
            assert again is not job
            while again.status not in ("done", "failed"):
                await asyncio.sleep(0.02)
            assert again.status == "done" and reviews.answer(again)[0] == 200
        finally:
            await reviews.close()

    asyncio.run(main())


def test_serve_takes_the_number_of_review_workers() -> None:
    from gongzhu.cli import main as cli_main

    parser = cli_main.build_parser()
    assert parser.parse_args(["serve"]).review_workers == 2
    assert parser.parse_args(["serve", "--review-workers", "0"]).review_workers == 0
    assert parser.parse_args(["serve", "--review-workers", "4"]).review_workers == 4
    for bad in ("-1", "x", "65", "٣", "1.5"):
        with pytest.raises(SystemExit):
            parser.parse_args(["serve", "--review-workers", bad])


def test_a_stopping_server_stops_its_running_review() -> None:
    """The server stops while a long review runs: the review stops at its next progress, the
    waiting one is dropped, the worker processes are shut down, and nothing new starts."""
    line = finished_record(8)
    before = set(multiprocessing.active_children())
    long = Budget(think=None, worlds=400, par_replays=8, par_worlds=64, exact_limit=20_000)

    async def main() -> None:
        reviews = Reviews(workers=1, budget=long)
        running = reviews.start("m-test", 0, Seat.S, line)
        waiting = reviews.start("m-test", 0, Seat.N, line)
        while running.total is None:  # its tasks are on the worker process
            await asyncio.sleep(0.02)
        await reviews.close()
        assert (running.status, waiting.status) == ("failed", "failed")
        for job in (running, waiting):
            with pytest.raises(ReviewRefused) as stopped:
                reviews.answer(job)
            assert stopped.value.status == 503 and stopped.value.text.key == "server.review_stopping"
        assert reviews.counts == {"kept": 2, "waiting": 0, "running": 0}
        assert set(multiprocessing.active_children()) - before == set()

    asyncio.run(main())
