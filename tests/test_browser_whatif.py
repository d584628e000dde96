"""Real-browser test of the what-if board (试走) of a finished deal's replay: Playwright driving
Debian's Chromium against the real server, as ``test_browser_review.py`` does.

The history page's address opens a finished deal's replay; What if turns it into the board of
South at the trick shown: South's legal cards become buttons, each legal play is listed with its
hindsight (open cards) and its value from South's view — the server's numbers — and playing
another card than the one played in the deal brings the other seats' answers and new values.
Back returns to the position before; Share copies a link that, opened by another person in a
new page, shows the same position with the same values; the values are buttons the keyboard
reaches and plays.  The browser refuses nothing under the page's Content-Security-Policy.
Skipped without Chromium or Playwright, unless ``CI`` is set (then failed), like
``test_browser.py``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from gongzhu.records.read import parse_record
from gongzhu.server.app import create_app
from helpers.browser import wait_for
from helpers.client import local_client, new_match, play_deal
from helpers.servers import LiveServer
from test_browser import PolicyWatch, check_policy_headers, shot
from test_whatif import actual, first_lead, south_turn

pytestmark = pytest.mark.browser

with contextlib.suppress(ImportError):  # without it the module is skipped (the ``browser`` fixture)
    from playwright.sync_api import Locator, Page


#: The page in English (the remembered language of gongzhu.settings), set before it loads.
ENGLISH = 'localStorage.getItem("gongzhu.settings") || localStorage.setItem("gongzhu.settings", \'{"lang": "en"}\')'


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A database holding a single-player match whose first deal is over: its URL and the match."""
    folder = tmp_path_factory.mktemp("browser-whatif")
    db = f"sqlite:///{folder / 'gz.db'}"
    app = create_app(db, pace=0, hint_think=0.05, static_dir=folder / "no-static")
    with local_client(app) as client:
        match_id = new_match(client, seed=11)
        play_deal(client, match_id)
    return db, match_id


@pytest.fixture(scope="module")
def server(finished: tuple[str, str]) -> Iterator[str]:
    """The real server on that database."""
    with LiveServer(finished[0]) as live:
        yield live.base


def board_of(page: Page, match_id: str, line: list[str]) -> dict[str, Any]:
    """The server's what-if answer for South at ``line``, asked the way the page asks it."""
    answer = page.request.post(f"/api/matches/{match_id}/deals/0/whatif", data={"seat": "S", "line": line})
    assert answer.status == 200, answer.text()
    body: dict[str, Any] = answer.json()
    return body


def shown_values(dialog: Locator) -> list[tuple[str, str, str]]:
    """The values list as the page shows it: each play with its hindsight and its view value."""
    rows = dialog.locator(".whatif-value")
    return [(rows.nth(i).get_attribute("data-play") or "", rows.nth(i).get_attribute("data-exact") or "",
             rows.nth(i).get_attribute("data-expected") or "") for i in range(rows.count())]


def values_of(board: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The same list from the server's answer (numbers as JavaScript's String writes them)."""
    def js(v: float | None) -> str:
        return "" if v is None else (str(int(v)) if v == int(v) else repr(v))

    return [("+".join(v["cards"]), js(v["exact"]), js(v["expected"])) for v in board["values"]]


def settled(page: Page) -> None:
    wait_for(page, '#replay .whatif-status[data-whatif-status="shown"]')


def hand_of(dialog: Locator, seat: str) -> list[str]:
    return sorted(dialog.locator(f".rseat-{seat} .rhand > *").evaluate_all("faces => faces.map((f) => f.dataset.card)"))


def test_what_if_plays_on_from_the_replay_and_shares_the_position(page_factory: Any, server: str,
                                                                   finished: tuple[str, str]) -> None:
    _, match_id = finished
    page = page_factory(1280, 900, permissions=["clipboard-read", "clipboard-write"])
    watch = PolicyWatch(page)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.add_init_script(ENGLISH)
    # The history page's address opens the deal's replay.
    check_policy_headers(page.goto(f"/history?match={match_id}&deal=0&seat=S"))
    dialog = page.locator("#replay[open]")
    dialog.wait_for()
    assert page.evaluate("document.documentElement.lang") == "en"
    record = page.request.get(f"/api/matches/{match_id}/deals/0").json()
    rec = parse_record(record)
    plays = actual(rec)
    # A trick where South has a choice: step the replay to it (step k shows trick k).
    at = south_turn(rec, from_trick=5, choices=2)
    deal = first_lead(rec)
    for seat, play in plays[:at]:
        deal.play(play.split("+"), seat)
    step = len(deal.tricks)  # the tricks before it
    for _ in range(step + 1):
        dialog.locator('[data-step="next"]').click()

    # What if: South's board at the trick shown, the deal followed up to South's turn in it.
    dialog.locator(".replay-whatif").click()
    settled(page)
    first = board_of(page, match_id, [p for trick in record["tricks"][:step] for p in
                                      ("+".join(x["cards"]) for x in trick["plays"])])
    assert first["position"]["turn"] == "S" and first["diverged"] is None
    assert shown_values(dialog) == values_of(first)
    assert dialog.locator(".whatif-path").get_attribute("data-diverged") == ""
    assert dialog.locator(".whatif-head .whatif-exact").text_content() == "hindsight (open cards)"
    assert dialog.locator(".whatif-head .whatif-expected").text_content() == "South's view"
    assert not dialog.locator(".replay-nav").is_visible()
    legal = sorted(v["cards"][0] for v in first["values"] if len(v["cards"]) == 1)
    assert sorted(dialog.locator(".rseat-S [data-whatif-card]").evaluate_all(
        "bs => bs.map((b) => b.dataset.whatifCard)")) == legal
    assert dialog.locator("[data-whatif-card]").count() == len(legal)  # only South's, only legal ones
    played = plays[at][1]
    assert dialog.locator(f'.whatif-value[data-play="{played}"]').get_attribute("data-actual") == ""
    shot(page, "whatif-start")

    # Another card than the one played: the others answer, the values are the new position's.
    other = next(c for c in legal if c != played)
    dialog.locator(f'[data-whatif-card="{other}"]').click()
    wait_for(page, f'#replay .whatif-path[data-diverged="{at}"]')
    settled(page)
    second = board_of(page, match_id, [*first["line"], other])
    assert shown_values(dialog) == values_of(second)
    assert int(dialog.locator(".whatif-answers").get_attribute("data-answers") or "0") == len(second["answers"]) > 0
    current = dialog.locator(".rcenter .card-face").evaluate_all("fs => fs.map((f) => f.dataset.card)")
    shown_trick = second["position"]["current"] or second["position"]["last"]["plays"]
    assert current == [c for p in shown_trick for c in p["cards"]]
    assert {s: hand_of(dialog, s) for s in "NESW"} == {s: sorted(h) for s, h in second["position"]["hands"].items()}
    shot(page, "whatif-answered")

    # Back: the position before, as it was.
    dialog.locator(".whatif-back").click()
    wait_for(page, '#replay .whatif-path[data-diverged=""]')
    assert shown_values(dialog) == values_of(first)

    # The keyboard: the values are buttons; Enter on one plays it.
    button = dialog.locator(f'.whatif-value[data-play="{other}"]')
    button.focus()
    page.keyboard.press("Enter")
    wait_for(page, f'#replay .whatif-path[data-diverged="{at}"]')
    settled(page)
    assert shown_values(dialog) == values_of(second)
    assert page.evaluate("document.activeElement.classList.contains('whatif-value')")

    # Share: the link is copied, and opened by another person it shows the same position.
    dialog.locator(".whatif-share").click()
    wait_for(page, '#replay .whatif-note[data-copied="true"]')
    link = dialog.locator(".whatif-link").input_value()
    assert page.evaluate("navigator.clipboard.readText()") == link
    query = parse_qs(urlsplit(link).query)
    assert query["match"] == [match_id] and query["deal"] == ["0"] and query["seat"] == ["S"]
    assert query["line"] == [",".join(second["line"])]
    hands = {s: hand_of(dialog, s) for s in "NESW"}

    other_page = page_factory(1280, 900)
    other_watch = PolicyWatch(other_page)
    check_policy_headers(other_page.goto(link.removeprefix(server)))
    other_dialog = other_page.locator("#replay[open]")
    other_dialog.wait_for()
    settled(other_page)
    # In Chinese, the page's own language at first.
    assert other_dialog.locator(".whatif-head .whatif-exact").text_content() == "事后（四家牌公开）"
    assert other_dialog.locator(".whatif-head .whatif-expected").text_content() == "南家视角"
    assert shown_values(other_dialog) == values_of(second)
    assert other_dialog.locator(".whatif-path").get_attribute("data-diverged") == str(at)
    assert {s: hand_of(other_dialog, s) for s in "NESW"} == hands
    assert other_dialog.locator(".rcenter .card-face").evaluate_all("fs => fs.map((f) => f.dataset.card)") == current
    # From a shared position, Back goes to the position before South's last play.
    other_dialog.locator(".whatif-back").click()
    wait_for(other_page, '#replay .whatif-path[data-diverged=""]')
    settled(other_page)
    assert shown_values(other_dialog) == values_of(first)
    shot(other_page, "whatif-shared")

    # Leaving what-if gives the replay back, at the trick it showed.
    dialog.locator(".whatif-leave").click()
    assert dialog.locator(".replay-nav").is_visible()
    assert dialog.locator(".whatif").is_hidden()
    assert (dialog.locator(".replay-step").text_content() or "").startswith(f"Trick {step + 1}/")
    assert watch.found() == [] and other_watch.found() == [] and errors == []
