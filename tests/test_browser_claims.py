"""Real-browser tests of claims (声称, R5.4) on the table page: Playwright driving Debian's
Chromium against the real server (``conftest.py``: ``server``, ``page_factory``).

South opens the claim menu by its button (shown only in play, after the first lead), claims by a
click, and the page says what became of the claim: accepted, the deal is over; refused, play goes
on with South's hand as it was.  The server's answer is held to the exact search's verdict on the
same position, read from the store's record of the finished deal.  Under the tournament preset a
claim the server cannot decide is put to the person opposing it, who contests or accepts it by a
click.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from gongzhu.rules.cards import Seat
from gongzhu.rules.claims import Claim, ClaimKind
from gongzhu.search.claims import check_claim
from helpers.browser import api_get, in_phase, wait_for
from helpers.servers import LiveServer
from test_browser import LEGAL, end_exposure, hand, open_setup, shot, start_match, wait_turn_or_over

pytestmark = pytest.mark.browser


def next_deal(page: Any) -> None:
    """Ask for the next deal, by the deal's summary (it opens when a deal ends), and wait for it
    (the summary closes at once, the finished deal stays shown until the server deals)."""
    page.click("#summary-next")
    wait_for(page, in_phase("expose", "play"))


def test_claims_by_click(page_factory: Any) -> None:
    """South claims the rest of the tricks early (refused: play goes on, the hand as it was, and the
    claim button is gone for the rest of the deal: a seat claims once a deal), then, in the next
    deal with a few cards left, a score nobody can take from it (accepted: the deal is over, its
    record showing the claim)."""
    page = page_factory(1280, 800)
    open_setup(page)
    start_match(page, seed=11, declare=False)
    assert page.locator('html[data-phase="expose"] #claim:visible').count() == 0  # not before play
    end_exposure(page)
    outcomes: list[str] = []
    for _ in range(6):  # deals
        if outcomes == ["refused", "accepted"]:
            break
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
                    assert page.locator("#claim-menu").is_hidden() and page.locator("#claim").is_hidden()
                    shot(page, "claim-refused")
                    page.wait_for_function("() => document.getElementById('toast').hidden")
                elif "成立" in text:
                    wait_for(page, in_phase("deal-over", "match-over"))
                    outcomes.append("accepted")
                    shot(page, "claim-accepted")
                    match_id = page.evaluate("localStorage.getItem('gongzhu.match')")
                    k = page.evaluate("import('/static/state.js').then(({ page }) => page.state.deal_index)")
                    record = api_get(page, f"/api/matches/{match_id}/deals/{k}")
                    assert record["end"]["type"] == "claim" and record["end"]["kind"] == "score"
                    break
                else:  # too early to decide: play on
                    page.wait_for_function("() => document.getElementById('toast').hidden")
            page.locator(LEGAL).first.click()
        if outcomes == ["refused"]:
            assert page.locator(in_phase("deal-over")).count(), "the match ended before a second deal"
            next_deal(page)
            end_exposure(page)
    assert outcomes == ["refused", "accepted"], outcomes


#: The claim search's bound at the table of the test below: small, so that early claims are put
#: to the others (the tournament preset) rather than decided.
VOTE_LIMIT = 3000


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("claims") / "gz.db"
    with LiveServer(f"sqlite:///{db}", challenge_level="random", par_replays=0) as s:
        s.app.state.tables.pools.claim_limit = VOTE_LIMIT
        yield s


@pytest.fixture(scope="module")
def server(live: LiveServer) -> str:
    return live.base


def south_may_put(live: LiveServer, table_id: str, seen: set[tuple[int, int]], spent: int | None) -> bool:
    """Whether it is South's turn after the first trick with a ``no_points`` claim the server would
    put to the others (undecided within the bound, kept by some line of every seat's plays), in a
    deal other than ``spent`` (a seat claims once a deal)."""
    deal = live.app.state.tables._tables[table_id].match.current
    if deal is None or deal.turn is not Seat.S or not deal.tricks or deal.deal_index == spent:
        return False
    at = (deal.deal_index, len(deal.tricks) * 4 + len(deal.current_trick))
    if at in seen:
        return False
    seen.add(at)
    claim = Claim(Seat.S, ClaimKind.NO_POINTS)
    copy = deal.copy()
    return (check_claim(copy, claim, limit=VOTE_LIMIT).holds is None
            and check_claim(copy, claim, limit=VOTE_LIMIT, agreed=True).holds is True)


def test_a_claim_put_to_a_person_is_contested_then_accepted_by_click(page_factory: Any, live: LiveServer) -> None:
    """Under the tournament preset South's claim the server cannot decide is put to East, a
    person: East's page asks (接受 / 反对), South's says whom it waits for; East contests it by a
    click (play goes on; South's claim is spent for the deal), then accepts one of a later deal (the
    deal ends, its record saying so)."""
    from test_browser_tables import act, new_table, open_table, sit

    south, east = page_factory(1280, 800), page_factory(1280, 800)

    def seat_both() -> str:
        """A new tournament table: South hosts it, East sits down, the host starts it."""
        table_id, url = new_table(south, seat="S", preset="tournament", levels={"N": "random", "W": "random"})
        open_table(east, url)
        sit(east, "E")
        open_table(south, url)
        wait_for(south, "#seat-E .name")
        south.click("#table-start")
        return table_id

    table_id = seat_both()
    seen: set[tuple[int, int]] = set()
    outcomes: list[str] = []
    spent: int | None = None
    for _ in range(6000):
        if len(outcomes) == 2:
            break
        if not south_may_put(live, table_id, seen, spent):
            if not any([act(p) for p in (south, east)]):
                south.wait_for_timeout(20)
            if south.locator(in_phase("deal-over")).count():
                next_deal(south)
            elif south.locator(in_phase("match-over")).count():  # (a short match): another table
                table_id, spent = seat_both(), None
            continue
        wait_for(south, 'html[data-phase="play"] #claim:visible')
        south.click("#claim")
        south.click('#claim-menu [data-claim="no_points"]')
        wait_for(east, "#claim-vote:not([hidden]) #claim-accept")
        asked = east.locator("#claim-vote-text").text_content() or ""
        assert "南" in asked and "不再得分牌" in asked, asked
        wait_for(south, '#status:has-text("等待")')
        assert south.locator("#claim").is_hidden() and south.locator("#claim-vote").is_hidden()
        shot(east, f"claim-asked-{len(outcomes)}")
        if not outcomes:
            east.click("#claim-contest")
            wait_for(south, '#toast:has-text("反对")')
            wait_for(east, "#claim-vote[hidden]")
            wait_for(south, 'html[data-phase="play"] #hand')
            assert south.locator("#claim").is_hidden()  # spent for this deal
            spent = live.app.state.tables._tables[table_id].match.current.deal_index
            outcomes.append("contested")
        else:
            east.click("#claim-accept")
            wait_for(south, in_phase("deal-over", "match-over"))
            wait_for(south, '#toast:has-text("已接受")')
            deals = live.app.state.tables._tables[table_id].match.deals
            record = api_get(south, f"/api/matches/{table_id}/deals/{len(deals) - 1}")
            assert record["end"]["type"] == "claim" and record["end"]["agreed"] is True
            outcomes.append("accepted")
            shot(south, "claim-agreed")
    assert outcomes == ["contested", "accepted"], outcomes
