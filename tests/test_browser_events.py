"""Real-browser test of a team match (计副制) run by the server (docs/tournaments.md, Events on the
server): Playwright driving Debian's Chromium against the real server, on the events' clock of the
test's own (:class:`~helpers.clock.SetClock`, moved by the test past the grace).

The organiser makes the match through the form of /event/new (a refusal first, shown from its
catalog code in either language) and starts its session from the referee's desk.  Eight people,
each in a browser context of their own, open their tables at once from the "go to your table"
link of the event's page: four at each table.  Six play every card by clicking; two close their
page right after the start.  Those two came, so the grace passes them by (who has come is kept
with the table, and the referee's log notes no stand-in once the events' clock is past it); the
turn timer plays their first missed turn and puts their seat into 托管 at the second, and a
computer plays the rest of the board for them.  Every page held only its own hand; the event's
page then shows the board's result at both tables and the team result, checked against the
records, and the organiser enters a penalty with its reason and publishes the results.

Without ``/usr/bin/chromium`` or the ``playwright`` package the module is skipped, unless the
environment variable ``CI`` is set: then it fails.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from gongzhu.messages import render
from helpers.browser import api_get, api_post, in_phase, phase, wait_for
from helpers.clock import SetClock
from helpers.servers import LiveServer
from test_browser_tables import OVER, act, hand, known, shot

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

PASSWORD = "a quiet tiger 42 at the event"
GRACE = 60
#: The turn timer: short enough that the two who leave are in 托管 soon, long enough for six
#: people clicking in turn on a busy machine never to miss a turn.
TURN = 20
#: How long the board may take before the test gives up (a guard, not a measure: the two who leave
#: take three turn timers, their exposure window and two missed turns).
GIVE_UP_S = 600
RED = ("Red1", "Red2", "Red3", "Red4")
BLUE = ("Blue1", "Blue2", "Blue3", "Blue4")
#: Table 1: N Red1, E Blue1, S Red2, W Blue2; table 2: N Blue3, E Red3, S Blue4, W Red4.
SEATED = {"Red1": (1, "N"), "Blue1": (1, "E"), "Red2": (1, "S"), "Blue2": (1, "W"),
          "Blue3": (2, "N"), "Red3": (2, "E"), "Blue4": (2, "S"), "Red4": (2, "W")}
#: Who closes their page right after the start (one at each table).
LEAVING = ("Blue2", "Red4")


@pytest.fixture(scope="module")
def clock() -> SetClock:
    return SetClock(1_796_085_000.0)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, clock: SetClock) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("browser-events") / "gz.db"
    with LiveServer(f"sqlite:///{db}", now=clock) as server:
        yield server


@pytest.fixture(scope="module")
def server(live: LiveServer) -> str:
    """The browser tests' server (``page_factory`` opens its pages on it), on the test's clock."""
    return live.base


def fill_form(page: Page, name: str, teams: list[tuple[str, tuple[str, ...]]]) -> None:
    """The form of /event/new for a team match of two teams, one board, one session."""
    page.select_option("#new-kind", "match")
    page.fill("#new-name", name)
    page.select_option("#new-preset", "partners")
    page.fill("#new-boards", "1")
    page.fill("#new-sessions", "1")
    page.fill("#new-turn", str(TURN))
    page.fill("#new-grace", str(GRACE))
    assert page.locator("#new-entrants > li").count() == 2  # a team match has two teams
    for n, (team, players) in enumerate(teams, 1):
        page.fill(f"#entrant-{n}-name", team)
        for k, player in enumerate(players, 1):
            page.fill(f"#entrant-{n}-{k}", player)


def ns_result(raw: dict[str, int]) -> float:
    """R7.3, by hand: each N–S member's (N–S raw total − E–W raw total) / 2."""
    return ((raw["N"] + raw["S"]) - (raw["E"] + raw["W"])) / 2


def value(page: Page, selector: str) -> float:
    """The number an element of the event's page carries (its ``data-value``)."""
    shown = page.locator(selector).get_attribute("data-value")
    assert shown is not None, selector
    return float(shown)


def test_a_team_match_made_started_played_by_eight_and_published_in_browsers(page_factory: Any,
                                                                           clock: SetClock) -> None:
    referee = page_factory()
    api_post(referee, "/api/account", {"name": "Referee", "password": PASSWORD})
    people: dict[str, Page] = {name: page_factory() for name in SEATED}
    for name, page in people.items():
        api_post(page, "/api/account", {"name": name, "password": PASSWORD})
        api_post(page, "/api/people/Referee/friend", {})  # an organiser lists friends only
    for name in people:
        assert api_post(referee, f"/api/people/{name}/friend", {})["state"] == "friends"

    # The form refuses an unknown player, in the page's language from the catalog code.
    referee.goto("/event/new")
    wait_for(referee, "#new-section:not([hidden])")
    assert referee.locator("#event").is_hidden() and referee.locator("#desk").is_hidden()
    fill_form(referee, "Club night", [("红", RED), ("蓝", (*BLUE[:3], "Nobody"))])
    referee.click("#new-submit")
    wait_for(referee, f'#new-error:has-text("{render("event.unknown_player", "zh", {"name": "Nobody"})}")')
    assert referee.url.endswith("/event/new")
    # In English too (the language switch writes the refusal again).
    referee.click("#lang")
    wait_for(referee, f'#new-error:has-text("{render("event.unknown_player", "en", {"name": "Nobody"})}")')
    assert referee.locator("#new-submit").text_content() == render("event.new.create", "en", {})
    assert referee.locator("#entrant-2-name").input_value() == "蓝"  # what was typed stays
    shot(referee, "event-new")
    referee.fill("#entrant-2-4", "Blue4")
    referee.click("#new-submit")
    referee.wait_for_url("**/event/e-*")
    event_id = referee.url.rsplit("/", 1)[1]
    wait_for(referee, '#event[data-status="waiting"][data-form="teams"]')
    assert referee.locator("#fact-boards").text_content() == "1"
    assert referee.locator("#fact-form").text_content() == render("event.form.match", "en", {})
    assert referee.locator("#fact-grace").text_content() == render("event.seconds", "en", {"n": GRACE})
    assert referee.locator("#event-entrants li").count() == 2

    # The referee starts the session from the desk: two tables.
    wait_for(referee, "#desk-start:not([disabled])")
    referee.click("#desk-start")
    wait_for(referee, '#event-stages li[data-table="2"]')
    wait_for(referee, "#desk-start[disabled]")
    started = api_get(referee, f"/api/events/{event_id}")
    seat_of = {name: (t["table"], seat) for t in started["tables"] for seat, name in t["seats"].items()}
    assert seat_of == SEATED
    # Under way, the desk may withdraw an entrant, asked to confirm first: dismissed, nothing changes.
    withdraw = '#event-entrants li[data-entrant="红"] button.event-remove.withdraw'
    wait_for(referee, withdraw)
    assert referee.locator(withdraw).text_content() == render("event.desk.withdraw", "en", {})
    asked: list[str] = []

    def dismiss(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    referee.once("dialog", dismiss)
    referee.click(withdraw)
    # (the entrant's name isolated by U+2068 … U+2069, as a name is where only text can go)
    assert asked == [render("event.desk.withdrawConfirm", "en", {"entrant": "\u2068红\u2069"})]
    assert not any(e["action"] == "withdraw" for e in api_get(referee, f"/api/events/{event_id}")["log"])

    # Everyone opens their table from the event's page ("your seat now"); the two who leave close
    # their page right after it has shown them their hand.
    seen: dict[str, set[str]] = {}
    for name in (*LEAVING, *(n for n in SEATED if n not in LEAVING)):
        page = people[name]
        page.goto(f"/event/{event_id}")
        table, seat = SEATED[name]
        wait_for(page, f'#me-section[data-table="{table}"][data-seat="{seat}"]')
        page.click("#me-go")
        page.wait_for_url("**/table/m-*")
        wait_for(page, in_phase("expose", "play"))
        seen[name] = set(hand(page))
        if name in LEAVING:
            page.close()
    assert all(len(cards) == 13 for cards in seen.values()), seen
    for table in (1, 2):
        hands = [seen[n] for n in SEATED if SEATED[n][0] == table]
        assert len(set().union(*hands)) == 52  # four hands, none sharing a card

    # Past the grace the events' clock changes nothing for them: they came.
    clock.t += GRACE + 1
    summary = api_get(referee, f"/api/events/{event_id}")
    assert not any(e["action"] == "stand_in" for e in summary["log"])
    assert not any(t["stand_ins"] for t in summary["tables"])

    # Board 1, played by clicking (the first legal card, 不亮) by the six who stayed; every hand
    # each page shows is noted.  The turn timer plays for the two who left, then 托管.
    playing = {name: page for name, page in people.items() if name not in LEAVING}
    pages = list(playing.values())
    give_up = time.monotonic() + GIVE_UP_S
    while not all(phase(p) in OVER for p in pages):
        assert time.monotonic() < give_up, {n: phase(p) for n, p in playing.items()}
        acted = False
        for name, page in playing.items():
            if act(page):  # the hand changes only when its person plays: look at it then
                acted = True
                seen[name] |= set(hand(page)) | set(known(page)["hand"])
        if not acted:
            pages[0].wait_for_timeout(30)

    # The records: each person's page held only their own dealt hand; a computer finished the
    # board for the two who left, and for nobody else.
    response = referee.request.get(f"/api/events/{event_id}/records.jsonl")
    assert response.ok, response.status
    records = {r["seating"]["table"]: r for r in map(json.loads, response.text().splitlines())}
    assert sorted(records) == [1, 2]
    for name, (table, seat) in SEATED.items():
        assert seen[name] == set(records[table]["hands"][seat]), name
        assert records[table]["players"][seat]["name"] == name
        assert records[table]["players"][seat]["auto"] == (name in LEAVING), name
    # The desk notes the two who came and left, as the board a computer finished for them ended.
    log = api_get(referee, f"/api/events/{event_id}")["log"]
    assert sorted((e["details"]["player"], e["details"]["table"], e["details"]["seat"], e["details"]["board"])
                  for e in log if e["action"] == "stand_in") == sorted((n, *SEATED[n], 1) for n in LEAVING)

    # The event's page shows board 1's result at both tables, and the team result.
    referee.reload()
    wait_for(referee, '#board-1[data-complete="true"]')
    for table in (1, 2):
        cell = f'#board-1 tr[data-table="{table}"] td[data-key="ns_result"]'
        assert value(referee, cell) == ns_result(records[table]["raw"])
    red_result = ns_result(records[1]["raw"]) - ns_result(records[2]["raw"])  # 红 sits N–S at table 1
    teams = api_get(referee, f"/api/events/{event_id}")["board_results"][0]["teams"]
    assert [(m["home"], m["away"], m["points"]) for m in teams] == [("红", "蓝", {"红": red_result, "蓝": -red_result})]
    line = referee.locator("#board-1 .event-team-results li")
    assert (line.get_attribute("data-home"), line.get_attribute("data-away")) == ("红", "蓝")
    assert float(line.get_attribute("data-home-points") or "nan") == red_result
    assert float(line.get_attribute("data-away-points") or "nan") == -red_result
    assert value(referee, '#ranking-1 tr[data-entrant="红"] td[data-key="points"]') == red_result
    # A player sees the same row on their event page, and no desk.
    player = people["Blue3"]
    player.goto(f"/event/{event_id}")
    wait_for(player, '#board-1[data-complete="true"]')
    assert value(player, '#board-1 tr[data-table="1"] td[data-key="ns_result"]') == ns_result(records[1]["raw"])
    assert player.locator("#desk").is_hidden()

    # The referee's penalty (an entrant and a round) with its reason, then the results published.
    referee.select_option("#penalty-entrant", "红")
    referee.fill("#penalty-points", "-10")
    referee.fill("#penalty-round", "1")
    referee.fill("#penalty-reason", "slow play")
    referee.click('#penalty-form button[type="submit"]')
    wait_for(referee, '#event-log li[data-action="penalty"]')
    assert "slow play" in (referee.locator('#event-log li[data-action="penalty"]').text_content() or "")
    after = api_get(referee, f"/api/events/{event_id}")
    assert {r["entrant"]: r["points"] for r in after["rankings"][0]["rows"]} == {"红": red_result - 10,
                                                                               "蓝": -red_result}
    assert (after["matches"][0]["home_penalty"], after["matches"][0]["away_penalty"]) == (-10, 0)
    wait_for(referee, '#match-1-1 td[data-key="penalties"]:has-text("−10 : 0")')
    wait_for(referee, "#desk-publish:not([disabled])")
    referee.click("#desk-publish")
    wait_for(referee, '#event[data-published="true"]')
    wait_for(referee, '#event-log li[data-action="publish"]')
    assert referee.locator("#event-provisional").text_content() == render("event.final", "en", {})
    assert [referee.locator("#event-log li").nth(i).get_attribute("data-action") for i in range(6)] == [
        "create", "start", "stand_in", "stand_in", "penalty", "publish"]
    shot(referee, "event-page")
