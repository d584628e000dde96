"""Real-browser tests of the challenges (R8.1; ``/challenges``, ``/challenge/{id}``): Playwright
driving Debian's Chromium against the real server (``conftest.py``: ``browser``, ``server`` —
whose challenges are played against quick computer players, with no par replays —
``page_factory``).

Two people, each in a browser context of their own, open today's challenge (one from the
challenges page, one from the lobby's panel), press Play and play board 1 at their table by
clicking (``button[data-card]`` with ``aria-disabled``, 不亮 / Expose none), with no hint and no
other match offered.  The first to finish follows the summary's 成绩表 / Traveller link and sees
board 1's traveller with their own result; the second, not finished, sees board 1 as not open,
nothing of its hands, and the traveller refused (403).  Once both have finished, both travellers
list both results (the first page's by itself, without a reload), and the standings, the lobby's
panel, the history and the profile list the challenge.  Screenshots go to ``test-artifacts/``.

Without ``/usr/bin/chromium`` or the ``playwright`` package the module is skipped, unless the
environment variable ``CI`` is set: then it fails.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from gongzhu.messages import render
from helpers.browser import api_get, in_phase, not_in_phase, wait_for
from test_browser import PolicyWatch, check_policy_headers

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

LEGAL = '#hand button[data-card][aria-disabled="false"]'
OVER = ("deal-over", "match-over")
EXPOSING = 'html[data-phase="expose"] #start:not([hidden])'
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
PASSWORD = "a quiet tiger 42 challenge"


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)

def sign_up(page: Page, name: str) -> None:
    """The context's person: an account named ``name`` (a guest first, as every browser)."""
    assert page.request.get("/api/me").ok
    response = page.request.post("/api/account", data=json.dumps({"name": name, "password": PASSWORD}),
                                 headers={"Content-Type": "application/json"})
    assert response.status in (200, 201), response.text()


def at_table(page: Page, challenge_id: str) -> None:
    """The page went to the person's table of the challenge: the board is dealt; the match goes at
    the speed `instant` (the person hosts their own table)."""
    page.wait_for_url(re.compile(r"/table/[^/?#]+$"))
    wait_for(page, in_phase("expose", "play"))
    page.select_option("#speed", "instant")
    link = page.locator("#challenge-link")
    link.wait_for()
    assert link.get_attribute("href") == f"/challenge/{challenge_id}"
    # The table is the entrant's alone: no host mark, no hint.
    assert page.locator("#seat-S .mark.host").count() == 0
    assert page.locator("#hint").is_hidden()


def play_board(page: Page) -> int:
    """End South's exposure phase (不亮 / Expose none) and play South's first legal card each turn
    until the board is over; no hint is offered on the way.  Returns the board's result for South."""
    wait_for(page, f"{EXPOSING}, {in_phase('play')}")
    if page.locator(EXPOSING).count():
        page.get_by_role("button", name=re.compile(r"^(不亮|Expose none)$")).click()
    wait_for(page, not_in_phase("expose"))
    while True:
        wait_for(page, f'{in_phase(*OVER)}, html[data-phase="play"] {LEGAL}')
        if page.evaluate("document.documentElement.dataset.phase") in OVER:
            break
        assert page.locator("#hint").is_hidden() and page.locator("#hints").is_hidden()
        page.locator(LEGAL).first.click()
    page.locator("#summary[open]").wait_for()
    return int(page.locator('[data-deal-result="S"]').text_content() or "")


def traveller_rows(page: Page) -> dict[str, int]:
    """The traveller shown: each entrant's result."""
    rows = page.locator("#traveller-rows tr[data-entrant]")
    return {rows.nth(i).get_attribute("data-entrant") or "": int(rows.nth(i).get_attribute("data-result") or "")
            for i in range(rows.count())}


def test_two_people_play_board_one_and_see_its_traveller_once_finished(page_factory: Any) -> None:
    anna, bo = page_factory(1280, 900), page_factory(1280, 900)
    watch = PolicyWatch(anna)
    errors: list[str] = []
    for page in (anna, bo):
        page.on("pageerror", lambda error: errors.append(str(error)))
    sign_up(anna, "Anna")
    sign_up(bo, "Bo")

    # Anna: the challenges page, today's challenge up top; Play.
    check_policy_headers(anna.goto("/challenges"))
    wait_for(anna, '#today:not([hidden]) #today-play[data-action="play"]:not([hidden])')
    challenge_id = anna.locator("#today").get_attribute("data-challenge") or ""
    assert challenge_id.startswith("daily-")
    assert anna.locator("#today-link").get_attribute("href") == f"/challenge/{challenge_id}"
    wait_for(anna, f'#challenge-rows tr[data-challenge="{challenge_id}"]')
    shot(anna, "challenges-page")
    anna.click("#today-play")
    at_table(anna, challenge_id)

    # Bo: the lobby's panel of today's challenge, then the challenge's page; Play.
    bo.goto("/lobby")
    wait_for(bo, '#today:not([hidden]) #today-line[data-entrants="0"]')
    bo.click("#today-link")
    bo.wait_for_url(f"**/challenge/{challenge_id}")
    play = bo.locator('#challenge-play[data-action="play"]')
    play.wait_for()
    assert bo.locator('#board-rows tr[data-board="1"][data-open="false"]').count() == 1
    assert bo.locator("#fact-commitment").text_content() == api_get(bo, f"/api/challenges/{challenge_id}")["commitment"]
    play.click()
    at_table(bo, challenge_id)

    # Anna finishes board 1 first: no other match, and the summary links to the traveller.
    result_anna = play_board(anna)
    assert anna.locator("#summary-again").is_hidden() and anna.locator("#again").is_hidden()
    traveller_link = anna.locator("#summary-traveller")
    assert traveller_link.is_visible()
    assert traveller_link.get_attribute("href") == f"/challenge/{challenge_id}#board-1"
    shot(anna, "challenge-table-board-over")
    traveller_link.click()
    anna.wait_for_url(f"**/challenge/{challenge_id}#board-1")
    wait_for(anna, '#traveller[data-board="1"] #traveller-rows tr.me[data-entrant="Anna"]')
    assert traveller_rows(anna) == {"Anna": result_anna}
    assert anna.locator("#traveller-hands .thand[data-seat] .card-face[data-card]").count() == 52
    assert anna.locator("#traveller-review").is_visible()  # the 复盘 of her own play
    wait_for(anna, '#board-rows tr[data-board="1"][data-open="true"] [data-traveller="1"]')
    assert anna.locator('#board-rows tr[data-board="1"]').get_attribute("data-result") == str(result_anna)
    assert anna.locator('#board-rows tr[data-board="2"]').get_attribute("data-open") == "false"
    shot(anna, "challenge-traveller-first")

    # Bo has not finished board 1: it is not open to him, nothing of it is drawn, and the server
    # refuses its traveller.
    peek = bo.context.new_page()
    peek.goto(f"/challenge/{challenge_id}#board-1")
    wait_for(peek, '#board-rows tr[data-board="1"][data-open="false"][data-played="1"]')
    assert peek.locator('[data-traveller="1"]').count() == 0
    wait_for(peek, "#traveller-error:not(:empty)")
    assert peek.locator("#traveller-body").is_hidden()
    assert peek.locator(".card-face").count() == 0
    # Nor do the standings tell him how Anna did: they count the boards he finished, none yet.
    wait_for(peek, "#standings-scope:not([hidden])")
    assert peek.locator("#standing-rows tr").count() == 0
    assert peek.locator("#standings-scope").text_content() == render("challenge.standingsNone", "zh", {})
    wait_for(anna, '#standings-scope[data-boards="1"]')
    assert anna.locator("#standings-scope").text_content() == render("challenge.standingsMine", "zh", {"boards": "1"})
    refused = peek.request.get(f"/api/challenges/{challenge_id}/boards/1")
    assert refused.status == 403 and refused.json()["code"] == "server.challenge_board_hidden"
    assert peek.locator("#traveller-error").text_content() == refused.json()["message_zh"]
    shot(peek, "challenge-board-hidden")
    peek.close()

    # Bo finishes board 1: both travellers list both results, Anna's without a reload.
    result_bo = play_board(bo)
    bo.locator("#summary-traveller").click()
    bo.wait_for_url(f"**/challenge/{challenge_id}#board-1")
    wait_for(bo, '#traveller-rows tr.me[data-entrant="Bo"]')
    wait_for(anna, '#traveller-rows tr[data-entrant="Bo"]')
    both = {"Anna": result_anna, "Bo": result_bo}
    assert traveller_rows(anna) == traveller_rows(bo) == both
    api = api_get(bo, f"/api/challenges/{challenge_id}/boards/1")
    assert {r["name"]: r["result"] for r in api["results"]} == both
    assert anna.locator("#traveller-rows tr.me").get_attribute("data-entrant") == "Anna"

    # The standings list both, the person's own row marked.
    for page, name in ((anna, "Anna"), (bo, "Bo")):
        wait_for(page, '#standing-rows tr[data-name="Anna"]')
        wait_for(page, '#standing-rows tr[data-name="Bo"]')
        assert page.locator("#standing-rows tr.me").get_attribute("data-name") == name
        ranks = {page.locator(f'#standing-rows tr[data-name="{n}"]').get_attribute("data-rank") for n in both}
        assert ranks <= {"1", "2"}

    # Another entrant's play of the board opens in the replay once one has finished it.
    bo.locator('#traveller-rows [data-record="Anna"]').click()
    bo.locator("#replay[open]").wait_for()
    shot(bo, "challenge-replay")
    bo.locator("#replay .replay-close").click()
    shot(bo, "challenge-traveller-both")
    shot(anna, "challenge-traveller-both-first")

    # The lobby's panel counts both; the history and the profile list the challenge with a place.
    bo.goto("/lobby")
    wait_for(bo, '#today-line[data-entrants="2"]')
    for path in ("/history", "/profile"):
        anna.goto(path)
        row = anna.locator(f'#played-rows tr[data-challenge="{challenge_id}"]')
        row.wait_for()
        assert row.get_attribute("data-rank") in ("1", "2")
        assert row.locator("a").get_attribute("href") == f"/challenge/{challenge_id}"
    shot(anna, "challenge-profile")
    assert watch.found() == [] and errors == []
