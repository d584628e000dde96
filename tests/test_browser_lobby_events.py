"""Real-browser tests of the lobby's events panel (lobby.html ``#events``, lobby.js): Playwright
driving Debian's Chromium against the real server, on the events' clock of the test's own
(:class:`~helpers.clock.SetClock`, which never moves here: an event's start time stays ahead).

The accounts are made over HTTP (:func:`helpers.live.account`), each from an address of its own
(the server trusts the loopback proxy's ``X-Forwarded-For``, so the sign-ups are not one
address's); a browser context is signed in with a person's session cookie before any page of it
is open.  An organiser makes a team match; a player's lobby lists it as not begun, then, once the
organiser has started it (and without a reload: the panel asks again by itself), the round, the
player's table and seat, with a button to the table page of that match.  In 中文 and English, and
on a 360 × 640 phone with nothing to scroll sideways.  A player who sits out a round of an
Howell is told so; the organiser sees the mark and the round of each event.

Without ``/usr/bin/chromium`` or the ``playwright`` package the module is skipped, unless the
environment variable ``CI`` is set: then it fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pytest

from gongzhu.messages import render
from helpers.browser import in_phase, wait_for
from helpers.clock import SetClock
from helpers.live import Someone, account, befriend
from helpers.servers import LiveServer
from test_browser_tables import shot

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

RED = ("Red1", "Red2", "Red3", "Red4")
BLUE = ("Blue1", "Blue2", "Blue3", "Blue4")


@pytest.fixture(scope="module")
def clock() -> SetClock:
    return SetClock(1_796_085_000.0)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, clock: SetClock) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("browser-lobby-events") / "gz.db"
    with LiveServer(f"sqlite:///{db}", now=clock, trusted_proxies=["127.0.0.1"]) as server:
        yield server


@pytest.fixture(scope="module")
def server(live: LiveServer) -> str:
    """The browser tests' server (``page_factory`` opens its pages on it), on the test's clock."""
    return live.base


@pytest.fixture(scope="module")
def people(live: LiveServer) -> Iterator[dict[str, Someone]]:
    """The organiser and the eight players, each an account made from an address of its own."""
    made = {name: account(live, name, f"10.0.0.{n}") for n, name in enumerate(("Organiser", *RED, *BLUE), 1)}
    befriend(made["Organiser"], *(made[name] for name in (*RED, *BLUE)))  # an organiser lists friends only
    yield made
    for person in made.values():
        person.http.close()


def signed_in(page_factory: Any, live: LiveServer, person: Someone, width: int = 1280, height: int = 800) -> Page:
    """A page of a browser context holding ``person``'s session cookie (no page of it open yet)."""
    page: Page = page_factory(width, height)
    page.context.add_cookies([{"name": k, "value": v, "url": live.base} for k, v in person.http.cookies.items()])
    return page


def make_event(organiser: Someone, name: str, **body: Any) -> str:
    r = organiser.http.post("/api/events", json={
        "name": name, "form": "teams", "preset": "partners", "boards": 1, "turn_seconds": 60,
        "grace_seconds": 300, "entrants": [{"name": "红", "players": list(RED)}, {"name": "蓝", "players": list(BLUE)}],
        **body})
    assert r.status_code == 201, r.text
    event_id: str = r.json()["id"]
    return event_id


def start(organiser: Someone, event_id: str) -> None:
    r = organiser.http.post(f"/api/events/{event_id}/start")
    assert r.status_code == 200, r.text


def listed(person: Someone) -> dict[str, Any]:
    """``person``'s ``GET /api/events``, by event id."""
    r = person.http.get("/api/events")
    assert r.status_code == 200, r.text
    return {e["id"]: e for e in r.json()["events"]}


def item(event_id: str) -> str:
    return f'#events:not([hidden]) li.lobby-event[data-event-id="{event_id}"]'


def where_text(lang: str, now: dict[str, Any]) -> str:
    """The line of a seated player, as the catalog writes it in ``lang`` (no sessions here)."""
    return " · ".join([render("lobby.events.round", lang, {"n": now["round"]}),
                       render("lobby.events.table", lang, {"n": now["table"]}),
                       render("lobby.events.seat", lang, {"seat": now["seat"]})])


def no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.evaluate("document.documentElement.clientWidth"), width


def test_a_player_sees_the_match_before_and_after_it_starts(page_factory: Any, live: LiveServer,
                                                             people: dict[str, Someone]) -> None:
    organiser, player = people["Organiser"], people["Blue3"]
    event_id = make_event(organiser, "周五俱乐部之夜 Friday club night")
    mine = listed(player)[event_id]
    assert mine["now"] is None and mine["entrant"] == "蓝" and not mine["organiser"]

    # Not begun: the name links to the event's page, the team is named, no table yet.
    page = signed_in(page_factory, live, player)
    page.goto("/lobby")
    wait_for(page, f'{item(event_id)}[data-state="waiting"]')
    entry = page.locator(item(event_id))
    assert entry.locator("a.lobby-event-name").get_attribute("href") == f"/event/{event_id}"
    assert entry.locator(".lobby-event-where").text_content() == render("lobby.events.notStarted", "zh", {})
    assert entry.locator(".lobby-event-entrant").text_content() == render("lobby.events.entrant", "zh", {"name": "蓝"})
    assert entry.locator(".lobby-event-organiser").count() == 0
    assert entry.locator('[data-action="table"]').count() == 0
    assert page.locator("#events-heading").text_content() == render("lobby.events.heading", "zh", {})

    # The organiser starts it: the open lobby shows the round, the table and the seat by itself.
    start(organiser, event_id)
    now = listed(player)[event_id]["now"]
    assert now["round"] == 1 and now["seat"] in "NESW" and now["url"].startswith("/table/m-")
    wait_for(page, f'{item(event_id)}[data-state="seated"]')
    where = entry.locator(".lobby-event-where")
    assert where.get_attribute("data-round") == "1"
    assert where.get_attribute("data-table") == str(now["table"])
    assert where.get_attribute("data-seat") == now["seat"]
    assert where.text_content() == where_text("zh", now)
    go = entry.locator('a[data-action="table"]')
    assert go.text_content() == render("lobby.events.go", "zh", {})
    assert go.get_attribute("href") == now["url"]
    shot(page, "lobby-events-zh")

    # In English, the same place in English words.
    page.click("#lang")
    wait_for(page, f'#events-heading:has-text("{render("lobby.events.heading", "en", {})}")')
    assert where.text_content() == where_text("en", now)
    assert go.text_content() == render("lobby.events.go", "en", {})
    assert entry.locator(".lobby-event-entrant").text_content() == render("lobby.events.entrant", "en", {"name": "蓝"})

    # The button leads to the table page of that match, where the player sits and plays.
    go.click()
    page.wait_for_url(f"**{now['url']}")
    wait_for(page, in_phase("expose", "play"))

    # On a 360 × 640 phone the panel fits: nothing to scroll sideways, the button within the width.
    phone = signed_in(page_factory, live, player, 360, 640)
    phone.goto("/lobby")
    wait_for(phone, f'{item(event_id)}[data-state="seated"] a[data-action="table"]')
    no_sideways_scroll(phone)
    box = phone.locator(f'{item(event_id)} a[data-action="table"]').bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360
    shot(phone, "lobby-events-phone")
    phone.click("#lang")
    wait_for(phone, f'#events-heading:has-text("{render("lobby.events.heading", "en", {})}")')
    no_sideways_scroll(phone)


def test_a_start_time_the_organiser_mark_and_sitting_out(page_factory: Any, live: LiveServer, clock: SetClock,
                                                         people: dict[str, Someone]) -> None:
    organiser = people["Organiser"]
    # A team match with a start time an hour ahead (the test's clock does not reach it).
    later = datetime.fromtimestamp(clock.t + 3600, UTC).isoformat(timespec="seconds")
    timed = make_event(organiser, "Saturday match", starts_at=later)
    # A Howell of three pairs: a phantom makes the fourth, and whoever meets it sits out round 1.
    pairs = [["Red1", "Red2"], ["Red3", "Red4"], ["Blue1", "Blue2"]]
    r = organiser.http.post("/api/events", json={
        "name": "Three pairs", "form": "howell", "preset": "partners", "boards": 1, "turn_seconds": 60,
        "grace_seconds": 300, "entrants": [{"players": pair} for pair in pairs]})
    assert r.status_code == 201, r.text
    alone = r.json()["id"]
    start(organiser, alone)
    out = [name for pair in pairs for name in pair if listed(people[name])[alone]["now"]["seat"] is None]
    assert len(out) == 2, out

    # The one sitting out: the round, and that they sit out it, with no button; the timed match's start.
    page = signed_in(page_factory, live, people[out[0]], 360, 640)
    page.goto("/lobby")
    wait_for(page, f'{item(alone)}[data-state="sitting-out"]')
    assert page.locator(f"{item(alone)} .lobby-event-where").text_content() == " · ".join(
        [render("lobby.events.round", "zh", {"n": 1}), render("lobby.events.sittingOut", "zh", {})])
    assert page.locator(f'{item(alone)} [data-action="table"]').count() == 0
    timed_where = page.locator(f'{item(timed)}[data-state="waiting"] .lobby-event-where')
    assert timed_where.get_attribute("data-starts-at") == later
    zh_text = timed_where.text_content() or ""
    start_zh = render("lobby.events.startsAt", "zh", {"time": "{time}"}).split("{time}")
    assert zh_text.startswith(start_zh[0]) and zh_text.endswith(start_zh[1]) and len(zh_text) > len("".join(start_zh))
    no_sideways_scroll(page)
    page.click("#lang")
    wait_for(page, f'{item(alone)} .lobby-event-where:has-text("{render("lobby.events.sittingOut", "en", {})}")')
    start_en = render("lobby.events.startsAt", "en", {"time": "{time}"}).split("{time}")
    en_text = timed_where.text_content() or ""
    assert en_text.startswith(start_en[0]) and en_text.endswith(start_en[1]) and len(en_text) > len("".join(start_en))
    no_sideways_scroll(page)
    shot(page, "lobby-events-sitting-out")

    # The organiser, who plays in none: each event with the mark, the round of the one begun.
    desk = signed_in(page_factory, live, organiser)
    desk.goto("/lobby")
    wait_for(desk, f'{item(alone)}[data-state="running"]')
    round_one = render("lobby.events.round", "zh", {"n": 1})
    assert desk.locator(f"{item(alone)} .lobby-event-where").text_content() == round_one
    mark = desk.locator(f'{item(timed)}[data-state="waiting"] .lobby-event-organiser')
    assert mark.text_content() == render("lobby.events.organiser", "zh", {})
    assert desk.locator(f'{item(alone)} [data-action="table"]').count() == 0
    assert desk.locator(".lobby-event .lobby-event-entrant").count() == 0


def test_a_guest_sees_no_events_panel(page_factory: Any) -> None:
    page = page_factory()
    page.goto("/lobby")
    wait_for(page, "#people:not([hidden])")
    assert page.locator("#events").is_hidden()
