"""Real-browser test of an event's news (docs/web-protocol.md, WebSocket ``/ws/lobby``): a page
showing an event, and the lobby's events panel, read the event again as soon as the server says
a stage of it has begun, without waiting for their next timed read.  The pages' clocks are
paused (Playwright's ``page.clock``), so that no timed read happens at all: where they show
their person sitting after the referee begins a session came through the news alone.

A team match (计副制) of two sessions of one board between 红 and 蓝: Red1's event page and
Blue3's lobby are open in browsers; the referee begins the first session over HTTP and both
pages show where their person sits; both tables play their board (the players over
WebSockets) and Red2 opens their table, played out, in a browser (its summary offers no next
table); the referee begins the second session: both pages show the new tables (the directions
swapped), and Red2's table page offers the next table (去下一桌).  The server's events' clock
is the test's own (it does not move: nobody's grace runs out).  Without ``/usr/bin/chromium`` or
the ``playwright`` package the module is skipped, unless the environment variable ``CI`` is set:
then it fails.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from helpers.browser import api_post, wait_for
from helpers.clock import SetClock
from helpers.live import PASSWORD, Someone, account, befriend
from helpers.servers import LiveServer
from test_events_server import drive, finished

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def clock() -> SetClock:
    return SetClock(1_796_090_000.0)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, clock: SetClock) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("browser-events-news") / "gz.db"
    with LiveServer(f"sqlite:///{db}", now=clock, trusted_proxies=["127.0.0.1"]) as server:
        yield server


@pytest.fixture(scope="module")
def server(live: LiveServer) -> str:
    """The browser tests' server (``page_factory`` opens its pages on it)."""
    return live.base


def browser_of(page_factory: Any, person: Someone) -> Page:
    """A browser page of ``person`` (an account made over HTTP, who keeps that session too)."""
    page: Page = page_factory()
    api_post(page, "/api/login", {"name": person.name, "password": PASSWORD})
    return page


def paused(page: Page, ready: str) -> None:
    """Once ``ready`` is shown, the page's timers stop: nothing it does on a timer happens."""
    wait_for(page, ready)
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)


def seated(people: list[Someone], event_id: str) -> dict[str, dict[str, Any]]:
    """Where each of ``people`` sits now (``me.now`` of the event), by name."""
    return {p.name: p.http.get(f"/api/events/{event_id}").json()["me"]["now"] for p in people}


def shown_where(event_page: Page, lobby: Page, event_id: str, where: dict[str, dict[str, Any]]) -> None:
    """Red1's event page and Blue3's lobby show where ``where`` says they sit."""
    red, blue = where["Red1"], where["Blue3"]
    wait_for(event_page, f'#me-section[data-round="{red["round"]}"][data-table="{red["table"]}"]'
                         f'[data-seat="{red["seat"]}"] #me-go[href="{red["url"]}"]')
    wait_for(lobby, f'li.lobby-event[data-event-id="{event_id}"] .lobby-event-where[data-round="{blue["round"]}"]'
                    f'[data-session="{blue["session"]}"][data-table="{blue["table"]}"][data-seat="{blue["seat"]}"]')


def test_an_event_page_and_the_lobby_read_the_event_at_its_news(page_factory: Any, live: LiveServer) -> None:
    rng = random.Random(11)
    referee = account(live, "Referee", "10.9.0.1")
    red = [account(live, f"Red{i}", f"10.9.1.{i}") for i in range(1, 5)]
    blue = [account(live, f"Blue{i}", f"10.9.2.{i}") for i in range(1, 5)]
    befriend(referee, *red, *blue)
    teams = [{"name": "红", "players": [p.name for p in red]}, {"name": "蓝", "players": [p.name for p in blue]}]
    made = referee.http.post("/api/events", json={"name": "News night", "preset": "partners", "boards": 1,
                                                  "sessions": 2, "turn_seconds": 120, "grace_seconds": 600,
                                                  "entrants": teams})
    assert made.status_code == 201, made.text
    event_id = made.json()["id"]

    event_page = browser_of(page_factory, red[0])
    event_page.clock.install()
    event_page.goto(f"/event/{event_id}")
    paused(event_page, '#event[data-status="waiting"]')
    lobby = browser_of(page_factory, blue[2])
    lobby.clock.install()
    lobby.goto("/lobby")
    paused(lobby, f'#events-list li.lobby-event[data-event-id="{event_id}"][data-state="waiting"]')
    table_page = browser_of(page_factory, red[1])
    table_page.clock.install()

    before: dict[str, dict[str, Any]] = {}
    for session in (1, 2):
        started = referee.http.post(f"/api/events/{event_id}/start")
        assert started.status_code == 200, started.text
        where = seated([*red, *blue], event_id)
        assert all(w["session"] == session and w["url"] != before.get(name, {}).get("url")
                   for name, w in where.items())
        shown_where(event_page, lobby, event_id, where)
        if session == 2:  # Red2's page of the table played out offers the next one
            wait_for(table_page, f'#summary-next-table:not([hidden])[href="{where["Red2"]["url"]}"]')
        before = where
        tables: dict[str, dict[str, Someone]] = {}
        for person in [*red, *blue]:
            mine = where[person.name]
            tables.setdefault(mine["url"].removeprefix("/table/"), {})[mine["seat"]] = person
        assert len(tables) == 2
        for table_id, at in sorted(tables.items()):
            lives = {seat: person.connect(table_id) for seat, person in sorted(at.items())}
            drive(lives, rng, finished(session))  # the session's board: board 1, then board 2
            for one in lives.values():
                one.close()
        if session == 1:  # Red2 looks at their table played out: the event read, no next table yet
            with table_page.expect_response(lambda r: r.url.endswith(f"/api/events/{event_id}")) as read:
                table_page.goto(where["Red2"]["url"])
                wait_for(table_page, 'html[data-phase="match-over"]')
            assert read.value.ok and read.value.json()["me"]["now"]["url"] == where["Red2"]["url"]
            paused(table_page, "#summary[open]")
            assert table_page.locator("#summary-next-table").is_hidden()
    assert referee.http.get(f"/api/events/{event_id}").json()["status"] == "over"
