"""Real-browser tests of the ratings on the leaderboard and profile pages (``/leaderboard``,
``/profile``): Playwright driving Debian's Chromium against the real server (``conftest.py``:
``browser``, ``page_factory``; the server is this module's own, ``live``, so that the test can
write ratings into its database).

Three accounts are signed up over HTTP; their ratings and rating histories are written straight
into the ``ratings`` and ``rating_history`` tables (gongzhu.server.store), as rated deals would
leave them.  The leaderboard opens on 一副牌 and lists the settled rating there, not the
provisional one; its tabs (buttons with ``aria-pressed``) switch to 两副牌 (nobody settled: a line
says so), 打对家 and 生涯积分 (the lifetime board, as before), and the address keeps the tab across
a reload.  The profile, one's own and a public one, shows each family's rating ± deviation, 暂定
where the rating is provisional, the rated deals and an SVG graph with one dot per history row;
with nothing rated it says so.  Switched to English, the pages read "Rating", "provisional",
"One deck".  The pages keep to their Content-Security-Policy.  Screenshots go to
``test-artifacts/``.  Without Chromium or Playwright the module is skipped, unless ``CI`` is set
(then it fails), like ``test_browser.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from sqlalchemy import insert, update

from gongzhu.ratings.skill import SCALE
from gongzhu.server.store import RATING_HISTORY, RATINGS, USERS
from helpers.servers import LiveServer
from test_browser import PolicyWatch, check_policy_headers, shot

if TYPE_CHECKING:
    from playwright.sync_api import APIRequestContext, Browser, Locator, Page

pytestmark = pytest.mark.browser

#: The model's mean skill of a new person: rating 1500.
MU0 = 25.0
PASSWORD = "a quiet tiger 42 ratings"
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("ratings") / "gz.db"
    with LiveServer(f"sqlite:///{db}") as s:
        yield s


@pytest.fixture(scope="module")
def server(live: LiveServer) -> str:
    return live.base


def rate(live: LiveServer, user_id: str, family: str, points: list[tuple[int, int]], games: int) -> None:
    """``user_id``'s rating in ``family`` after ``games`` rated deals, and the newest of its
    history: ``points`` the (rating, deviation) after each, oldest first, the last one the rating
    now."""
    def skill(rating: int, deviation: int) -> dict[str, float]:
        return {"mu": MU0 + (rating - 1500) / SCALE, "sigma": deviation / SCALE}

    first = games - len(points) + 1
    with live.app.state.store.engine.begin() as c:
        for i, (rating, deviation) in enumerate(points):
            c.execute(insert(RATING_HISTORY).values(
                user_id=user_id, family=family, games=first + i, at=f"2026-12-0{1 + i % 9}T21:40:31+00:00",
                match_id=f"m-rated-{user_id}", deal_index=i, **skill(rating, deviation)))
        c.execute(insert(RATINGS).values(user_id=user_id, family=family, games=games,
                                          updated="2026-12-09T21:40:31+00:00", **skill(*points[-1])))


def sign_up(request: APIRequestContext, name: str) -> str:
    """The browser context's person becomes the account ``name`` (a guest first, as every
    browser), before any page is opened; its id."""
    assert request.get("/api/me").ok
    response = request.post("/api/account", data=json.dumps({"name": name, "password": PASSWORD}), headers=JSON)
    assert response.status in (200, 201), response.text()
    found: str = request.get("/api/me").json()["id"]
    return found


@pytest.fixture(scope="module")
def rated(browser: Browser, live: LiveServer) -> dict[str, str]:
    """The accounts Ada, Bo and Cy (name → id), each signed up in a browser context of its own,
    with their ratings and histories written into the database; Ada has the best lifetime score."""
    ids: dict[str, str] = {}
    for name in ("Ada", "Bo", "Cy"):
        ctx = browser.new_context(base_url=live.base)
        try:
            ids[name] = sign_up(ctx.request, name)
        finally:
            ctx.close()
    # Ada: settled in one deck (five points of history), provisional in two decks (two points).
    rate(live, ids["Ada"], "one_deck", [(1500, 333), (1540, 250), (1580, 160), (1610, 110), (1623, 80)], games=30)
    rate(live, ids["Ada"], "two_decks", [(1520, 300), (1480, 150)], games=2)
    # Bo: rated higher in one deck, but provisional (not listed); Cy: settled as partners.
    rate(live, ids["Bo"], "one_deck", [(1530, 300), (1650, 260), (1700, 200)], games=3)
    rate(live, ids["Cy"], "partners", [(1555, 100)], games=25)
    with live.app.state.store.engine.begin() as c:
        c.execute(update(USERS).where(USERS.c.id == ids["Ada"]).values(lifetime=300, deals=30, matches=2))
    return ids


def text(where: Page | Locator, selector: str) -> str:
    return (where.locator(selector).text_content() or "").strip()


def cells(row: Locator) -> list[str]:
    return [c.strip() for c in row.locator("td").all_text_contents()]


def watched(page: Page) -> tuple[PolicyWatch, list[str]]:
    """The page's Content-Security-Policy refusals, and its console errors and uncaught errors."""
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    return PolicyWatch(page), problems


def test_the_leaderboard_lists_settled_ratings_by_family(page_factory: Any, rated: dict[str, str]) -> None:
    ada = page_factory(1280, 800)  # a guest: the leaderboard is everyone's
    watch, problems = watched(ada)
    check_policy_headers(ada.goto("/leaderboard"))
    row = ada.locator("#leaderboard-rows tr", has=ada.locator("a", has_text="Ada"))
    row.wait_for()
    # The default tab: one deck, with Ada settled and Bo (provisional) not listed.
    assert ada.locator('#board-tabs button[aria-pressed="true"]').get_attribute("data-board") == "one_deck"
    assert text(ada, '#board-tabs button[data-board="one_deck"]') == "一副牌"
    assert [text(ada, f'#board-tabs button[data-board="{b}"]') for b in ("two_decks", "partners", "lifetime")] == [
        "两副牌", "打对家", "生涯积分"]
    assert ada.locator("#leaderboard-rows tr").count() == 1
    got = cells(row)
    assert [got[0], got[1], got[3], got[4], got[5]] == ["1", "Ada", "1623 ± 80", "30", "300"]
    assert row.locator("a").get_attribute("href") == "/profile?name=Ada"
    assert [h.strip() for h in ada.locator("#leaderboard thead th").all_text_contents()] == [
        "名次", "昵称", "称号", "等级分", "等级分副数", "生涯积分"]
    assert "Bo" not in text(ada, "#leaderboard-rows")
    note = text(ada, "#board-note")
    assert "账号" in note and "限时" in note and "预设" in note and "暂定" in note
    assert ada.locator("#leaderboard-empty").is_hidden()
    shot(ada, "leaderboard-ratings")

    # Two decks: Ada is provisional there, so nobody is listed.
    ada.click('#board-tabs button[data-board="two_decks"]')
    ada.wait_for_selector("#leaderboard-empty:not([hidden])")
    assert ada.locator('#board-tabs button[data-board="two_decks"]').get_attribute("aria-pressed") == "true"
    assert ada.locator('#board-tabs button[data-board="one_deck"]').get_attribute("aria-pressed") == "false"
    assert ada.locator("#leaderboard-rows tr").count() == 0
    assert text(ada, "#leaderboard-empty") == "这一类还没有人有稳定的等级分。"
    assert ada.url.endswith("/leaderboard#two_decks")

    # Partners: Cy; the tab is kept across a reload.
    ada.click('#board-tabs button[data-board="partners"]')
    ada.locator("#leaderboard-rows tr", has=ada.locator("a", has_text="Cy")).wait_for()
    assert ada.url.endswith("/leaderboard#partners")
    watch.collect()
    ada.reload()
    entry = ada.locator("#leaderboard-rows tr", has=ada.locator("a", has_text="Cy"))
    entry.wait_for()
    assert ada.locator('#board-tabs button[aria-pressed="true"]').get_attribute("data-board") == "partners"
    assert cells(entry)[3:5] == ["1555 ± 100", "25"]

    # Lifetime: every account, as before, with its own columns.
    ada.click('#board-tabs button[data-board="lifetime"]')
    ada.wait_for_selector('#leaderboard[data-board="lifetime"] #leaderboard-rows tr')
    names = [a.strip() for a in ada.locator("#leaderboard-rows tr a").all_text_contents()]
    assert names[0] == "Ada" and {"Bo", "Cy"} <= set(names)
    assert [h.strip() for h in ada.locator("#leaderboard thead th").all_text_contents()] == [
        "名次", "昵称", "称号", "生涯积分", "局数", "当猪次数"]
    assert "游客" not in text(ada, "#leaderboard-rows")

    # In English.
    ada.click('#board-tabs button[data-board="one_deck"]')
    ada.locator("#leaderboard-rows tr", has=ada.locator("a", has_text="Ada")).wait_for()
    ada.click("#lang")
    assert text(ada, '#board-tabs button[data-board="one_deck"]') == "One deck"
    assert text(ada, '#board-tabs button[data-board="lifetime"]') == "Lifetime score"
    assert ada.locator('#leaderboard-rows td[data-label="Rating"]').all_text_contents() == ["1623 ± 80"]
    assert text(ada, "#board-note").startswith("Ratings come only from rated tables")
    shot(ada, "leaderboard-ratings-en")
    assert watch.found() == [] and problems == []


def test_the_profile_shows_each_family_with_its_graph(page_factory: Any, rated: dict[str, str]) -> None:
    page = page_factory(1280, 900)
    sign_up(page.request, "Dee")  # an account with nothing rated
    watch, problems = watched(page)

    # One's own profile, nothing rated: a line says so.
    check_policy_headers(page.goto("/profile"))
    page.wait_for_selector("#fact-name:not(:empty)")
    page.wait_for_selector("#ratings-empty:not([hidden])")
    assert text(page, "#ratings-heading") == "等级分"
    assert page.locator("#rating-list .rating-entry").count() == 0
    assert "还没有等级分" in text(page, "#ratings-empty")

    # Ada's public profile: one deck settled, two decks provisional, each with its graph.
    watch.collect()
    page.goto("/profile?name=Ada")
    one = page.locator('#rating-list .rating-entry[data-family="one_deck"]')
    one.wait_for()
    two = page.locator('#rating-list .rating-entry[data-family="two_decks"]')
    assert page.locator("#ratings-empty").is_hidden()
    assert [e.get_attribute("data-family") for e in page.locator("#rating-list .rating-entry").all()] == [
        "one_deck", "two_decks"]
    assert text(one, ".rating-family") == "一副牌" and text(one, ".rating-value") == "1623 ± 80"
    assert one.locator(".rating-provisional").count() == 0 and text(one, ".rating-games") == "30 副计入等级分"
    assert text(two, ".rating-family") == "两副牌" and text(two, ".rating-value") == "1480 ± 150"
    assert text(two, ".rating-provisional") == "暂定" and text(two, ".rating-games") == "2 副计入等级分"
    graph = one.locator('svg.rating-svg[data-family="one_deck"]')
    assert graph.locator("circle.rating-dot").count() == 5  # one per history row
    assert [d.get_attribute("data-rating") for d in graph.locator("circle.rating-dot").all()] == [
        "1500", "1540", "1580", "1610", "1623"]
    assert text(graph, 'text[data-axis="max"]') == "1623" and text(graph, 'text[data-axis="min"]') == "1500"
    assert [t.strip() for t in graph.locator("text:not([data-axis])").all_text_contents()] == ["26", "30"]
    assert "一副牌" in (graph.get_attribute("aria-label") or "")
    assert text(graph, "circle.rating-dot:last-of-type title") == "第 30 副：1623 ± 80"
    assert two.locator("svg.rating-svg circle.rating-dot").count() == 2
    # The dots climb as the rating does (SVG's y grows downwards).
    ys = [float(d.get_attribute("cy") or "nan") for d in graph.locator("circle.rating-dot").all()]
    assert ys == sorted(ys, reverse=True) and len(set(ys)) == 5
    shot(page, "profile-ratings")

    # Bo: provisional; Cy: one point of history, so no graph.
    watch.collect()
    page.goto("/profile?name=Bo")
    bo = page.locator('#rating-list .rating-entry[data-family="one_deck"]')
    bo.wait_for()
    assert text(bo, ".rating-value") == "1700 ± 200" and text(bo, ".rating-provisional") == "暂定"
    assert bo.locator("circle.rating-dot").count() == 3
    watch.collect()
    page.goto("/profile?name=Cy")
    cy = page.locator('#rating-list .rating-entry[data-family="partners"]')
    cy.wait_for()
    assert text(cy, ".rating-family") == "打对家" and text(cy, ".rating-value") == "1555 ± 100"
    assert cy.locator("svg").count() == 0 and cy.locator(".rating-provisional").count() == 0

    # In English.
    watch.collect()
    page.goto("/profile?name=Ada")
    one.wait_for()
    page.click("#lang")
    assert text(page, "#ratings-heading") == "Rating"
    assert text(one, ".rating-family") == "One deck" and text(one, ".rating-games") == "30 rated deals"
    assert text(two, ".rating-provisional") == "provisional"
    assert text(two, "circle.rating-dot:last-of-type title") == "Rated deal 2: 1480 ± 150"
    assert re.match(r"^One deck rating", one.locator("svg").get_attribute("aria-label") or "")
    shot(page, "profile-ratings-en")
    assert watch.found() == [] and problems == []

    # Ada's own profile (signed in before the page is opened): the same ratings and graphs.
    own = page_factory(1280, 900)
    response = own.request.post("/api/login", data=json.dumps({"name": "Ada", "password": PASSWORD}), headers=JSON)
    assert response.ok, response.text()
    check_policy_headers(own.goto("/profile"))
    mine = own.locator('#rating-list .rating-entry[data-family="one_deck"]')
    mine.wait_for()
    assert text(own, "#heading") == "我的资料" and text(mine, ".rating-value") == "1623 ± 80"
    assert mine.locator("svg.rating-svg circle.rating-dot").count() == 5
    assert text(own, '#rating-list .rating-entry[data-family="two_decks"] .rating-provisional') == "暂定"
