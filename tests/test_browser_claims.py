"""Real-browser tests of claims (声称, R5.4) on the table page: Playwright driving Debian's
Chromium against the real server (``conftest.py``: ``server``, ``page_factory``).

South opens the claim menu by its button (shown only in play, after the first lead), claims by a
click, and the page says what became of the claim: accepted, the deal is over; refused, play goes
on with South's hand as it was.  The server's answer is held to the exact search's verdict on the
same position, read from the store's record of the finished deal.
"""

from __future__ import annotations

from typing import Any

import pytest

from helpers.browser import in_phase, wait_for
from test_browser import LEGAL, api_get, end_exposure, hand, open_setup, shot, start_match, wait_turn_or_over

pytestmark = pytest.mark.browser


def test_claims_by_click(page_factory: Any) -> None:
    """South claims the rest of the tricks early (refused: play goes on, the hand as it was), then,
    with a few cards left, a score nobody can take from it (accepted: the deal is over, its record
    showing the claim)."""
    page = page_factory(1280, 800)
    open_setup(page)
    start_match(page, seed=11, declare=False)
    assert page.locator('html[data-phase="expose"] #claim:visible').count() == 0  # not before play
    end_exposure(page)
    outcomes: list[str] = []
    while wait_turn_or_over(page) == "play":
        played = page.evaluate("import('/static/state.js').then(({ page }) => page.state.tricks_played)")
        cards = len(hand(page))
        if played >= 1 and page.locator("#claim:visible").count() and (not outcomes or cards <= 6):
            before = hand(page)
            page.click("#claim")
            wait_for(page, "#claim-menu:not([hidden])")
            if not outcomes:
                page.click('#claim-menu [data-claim="all_tricks"]')
            else:
                page.fill("#claim-value", "-100000")
                page.click('#claim-menu [data-claim="score"]')
            wait_for(page, "#toast:not([hidden])")
            text = page.locator("#toast").text_content() or ""
            if "不成立" in text:
                outcomes.append("refused")
                assert page.locator("html[data-phase='play']").count() and hand(page) == before
                assert page.locator("#claim-menu").is_hidden()
                shot(page, "claim-refused")
                page.wait_for_function("() => document.getElementById('toast').hidden")
            elif "成立" in text:
                wait_for(page, in_phase("deal-over", "match-over"))
                outcomes.append("accepted")
                shot(page, "claim-accepted")
                match_id = page.evaluate("localStorage.getItem('gongzhu.match')")
                record = api_get(page, f"/api/matches/{match_id}/deals/0")
                assert record["end"]["type"] == "claim" and record["end"]["kind"] == "score"
                break
            else:  # too early to decide: play on
                page.wait_for_function("() => document.getElementById('toast').hidden")
        page.locator(LEGAL).first.click()
    assert outcomes == ["refused", "accepted"], outcomes
