"""Real-browser test of the history page (``/history``): Playwright driving Debian's Chromium
against the real server, as ``test_browser.py`` does.

A person plays a deal of one single-player match, starts a second and leaves it before any deal
is finished, and starts a third.  The history lists the first with its replay, the seat its
person sat at and the computer players at the other seats, and the third to continue; the
second, abandoned, is not offered to continue but apart, and its Delete button deletes it
(``DELETE /api/matches/{id}``).  Counts read as the language says them: "1 match · 1 deal" in
English, "1 局 · 1 副" in Chinese; on a phone each stacked cell's column name ends "：" in Chinese and
": " in English.  Skipped without Chromium or Playwright, unless
``CI`` is set (then failed), like ``test_browser.py``.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

import pytest

from gongzhu.messages import catalog
from helpers.browser import TIMEOUT_MS, api_post, in_phase, wait_for
from test_browser import PolicyWatch, check_policy_headers, deal_turns, play_deal_by_clicking, shot, start_match

pytestmark = pytest.mark.browser

with contextlib.suppress(ImportError):  # without it the module is skipped (the ``browser`` fixture)
    from playwright.sync_api import Page


def shown_match(page: Page) -> str:
    """The single-player match the table page remembers (and shows)."""
    match_id: str = page.evaluate("localStorage.getItem('gongzhu.match')")
    assert match_id
    return match_id


def another_match(page: Page) -> str:
    """Start a new match from the table page's New match button (the page then shows and
    remembers it); its id.  Nothing of it is played."""
    before = shown_match(page)
    page.click("#new-match")
    page.wait_for_selector("#setup[open]")
    page.select_option("#setup-preset", "online")
    page.click("#setup-go")
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while (after := shown_match(page)) == before:
        assert time.monotonic() < deadline, "the new match was not shown"
        page.wait_for_timeout(50)
    wait_for(page, in_phase("expose", "play"))
    return after


def test_history_lists_no_abandoned_match_to_continue_and_deletes_it(page_factory: Any, server: str) -> None:
    page = page_factory(1280, 800)
    page.goto("/")
    page.wait_for_selector("#setup[open]")
    # A match of four deals: one that ends at the loss limit can end with its first deal (a seat
    # taking every point card, doubled by exposures), and an ended one is not there to continue.
    start_match(page, deals=4)
    played = shown_match(page)
    assert play_deal_by_clicking(page) == deal_turns(page)
    wait_for(page, in_phase("deal-over", "match-over"))
    page.click("#summary-close")
    left = another_match(page)  # left before any deal was finished
    current = another_match(page)

    watch = PolicyWatch(page)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    check_policy_headers(page.goto("/history"))
    page.wait_for_selector(f'#match-rows tr[data-match="{played}"]')
    if page.evaluate("document.documentElement.lang") != "en":
        page.click("#lang")
    assert page.evaluate("document.documentElement.lang") == "en"

    # The match with a finished deal: its replay, its download, Continue; "1 deal", not "1 deals".
    row = page.locator(f'#match-rows tr[data-match="{played}"]')
    assert row.locator('td[data-label="Deals"]').text_content() == "1 deal"
    assert row.locator(f'a[href="/?match={played}"]').count() == 1
    assert row.locator(f'a[href$="{played}/records.jsonl"]').count() == 1
    row.get_by_role("button", name="Replay").click()
    page.locator("#replay[open]").wait_for()
    page.locator("#replay .replay-close").click()
    assert "1 match · 1 deal" in (page.text_content("#profile") or "")
    # The seat the person sat at, and who sat at the others: the computer players, by level.
    levels = next(m for m in page.request.get("/api/matches").json() if m["match_id"] == played)["levels"]
    assert row.locator('td[data-label="Your seat"]').text_content() == "South"
    others = row.locator('td[data-label="At the table"] [data-seat]')
    assert others.evaluate_all("items => items.map((item) => item.dataset.seat)") == ["N", "E", "W"]
    assert others.all_text_contents() == [
        f"{where}: Computer · {catalog('en')['level.' + levels[s]]}" for s, where in
        [("N", "North"), ("E", "East"), ("W", "West")]]
    # The match being played is there to continue.
    assert page.locator(f'#match-rows tr[data-match="{current}"] a[href="/?match={current}"]').count() == 1
    assert page.locator(f'#match-rows tr[data-match="{current}"] td[data-label="Deals"]').text_content() == "0 deals"

    # The abandoned one is not offered to continue: it is listed apart, to delete.
    assert page.locator(f'#match-rows tr[data-match="{left}"]').count() == 0
    assert page.locator(f'a[href*="{left}"]').count() == 0
    assert page.locator("#abandoned").is_visible()
    gone = page.locator(f'#abandoned-rows tr[data-match="{left}"]')
    assert gone.count() == 1
    shot(page, "history-abandoned")
    with page.expect_response(lambda r: r.request.method == "DELETE") as answer:
        gone.locator(f'button[data-delete="{left}"]').click()
    assert answer.value.status == 200
    gone.wait_for(state="detached")
    assert page.locator("#abandoned").is_hidden()
    assert page.text_content("#history-error") == ""
    assert page.request.get(f"/api/matches/{left}").status == 404
    assert [m["match_id"] for m in page.request.get("/api/matches").json()] == [current, played]

    # In Chinese there is no plural.
    page.click("#lang")
    assert "1 局 · 1 副" in (page.text_content("#profile") or "")
    assert row.locator('td[data-label="副数"]').text_content() == "1 副"
    assert row.locator('td[data-label="你的座位"]').text_content() == "南"
    assert row.locator('td[data-label="同桌"] [data-seat="N"]').text_content() == (
        f"北：电脑 · {catalog('zh')['level.' + levels['N']]}")
    assert watch.found() == [] and errors == []

    # Loaded again, the page still offers nothing of the deleted match.
    page.reload()
    page.wait_for_selector(f'#match-rows tr[data-match="{played}"]')
    assert page.locator(f'[data-match="{left}"]').count() == 0


def test_history_names_a_changed_option_in_the_page_language(page_factory: Any) -> None:
    """R9, R10: a match that set an option differently from its preset shows the preset and the
    option in the history's rules column, punctuated as the page's language writes it: full-width
    in Chinese, ASCII in English."""
    page = page_factory(1280, 800)
    page.goto("/")
    page.wait_for_selector("#setup[open]")
    match_id = api_post(page, "/api/matches", {"preset": "online", "options": {"match_limit": 300}})["match_id"]
    page.goto("/history")
    row = page.locator(f'#match-rows tr[data-match="{match_id}"]')
    row.wait_for()
    zh, en = catalog("zh"), catalog("en")
    if page.evaluate("document.documentElement.lang") != "zh-CN":
        page.click("#lang")
    assert row.locator('td[data-label="规则"]').text_content() == (
        f"{zh['preset.online']}（{zh['opt.match_limit']}：300）")
    page.click("#lang")
    assert row.locator('td[data-label="Rules"]').text_content() == (
        f"{en['preset.online']} ({en['opt.match_limit']}: 300)")


def test_a_phones_stacked_cells_are_labelled_as_the_language_writes(page_factory: Any) -> None:
    """On a phone the history's table becomes one card per match, each cell after its column's
    name: "规则：" with a full-width colon in Chinese, "Rules: " with an ASCII colon and a space in
    English."""
    page = page_factory(360, 640)
    page.goto("/")
    page.wait_for_selector("#setup[open]")
    match_id = api_post(page, "/api/matches", {"preset": "online"})["match_id"]
    page.goto("/history")
    row = page.locator(f'#match-rows tr[data-match="{match_id}"]')
    row.wait_for()
    if page.evaluate("document.documentElement.lang") != "zh-CN":
        page.click("#lang")
    label = "(cell) => getComputedStyle(cell, '::before').content"
    zh, en = catalog("zh"), catalog("en")
    before = row.locator(f'td[data-label="{zh["history.preset"]}"]').evaluate(label)
    assert before == f'"{zh["history.preset"]}："', before
    page.click("#lang")
    wait_for(page, 'html[lang="en"]')
    shot(page, "history-phone-en")
    before = row.locator(f'td[data-label="{en["history.preset"]}"]').evaluate(label)
    assert before == f'"{en["history.preset"]}: "', before
