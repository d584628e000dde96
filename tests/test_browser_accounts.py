"""Real-browser tests of the profile and leaderboard pages (``/profile``, ``/leaderboard``):
Playwright driving Debian's Chromium against the real server, as ``test_browser.py`` does.

A browser arrives as a guest with an HttpOnly, SameSite=Lax session cookie; the profile page
shows its name, lifetime score, title (R8), matches with their records and pig count; a refusal
(a short password, a wrong one) is shown from the catalog in the page's language; the guest
becomes an account keeping its matches, signs out and in again; the leaderboard lists the
accounts and not the guests, each name leading to that player's public profile.  The pages
keep to their Content-Security-Policy.  Skipped without Chromium or Playwright, unless ``CI``
is set (then failed), like ``test_browser.py``.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import insert, update

from gongzhu.server.store import MATCH_PLAYERS, MATCHES, USERS, Store
from helpers.browser import TIMEOUT_MS
from helpers.servers import LiveServer
from test_browser import PolicyWatch, check_policy_headers, shot

pytestmark = pytest.mark.browser

with contextlib.suppress(ImportError):  # without it the module is skipped (the ``browser`` fixture)
    from playwright.sync_api import Browser, Page

#: What Chromium writes to the console for the refusals the test asks for (400, 401).
REFUSED = re.compile(r"^Failed to load resource: the server responded with a status of 40[01] ")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """The real server on a free loopback port: (its URL, its database URL)."""
    db_url = f"sqlite:///{tmp_path_factory.mktemp('accounts') / 'gz.db'}"
    with LiveServer(db_url) as live:
        yield live.base, db_url


@pytest.fixture
def new_page(browser: Browser, site: tuple[str, str]) -> Iterator[Any]:
    contexts = []

    def make(width: int = 1280, height: int = 800) -> Page:
        ctx = browser.new_context(viewport={"width": width, "height": height}, base_url=site[0])
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        return page

    yield make
    for ctx in contexts:
        ctx.close()


def me(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate("fetch('/api/me').then((r) => r.json())")
    return found


def text(page: Page, selector: str) -> str:
    return page.locator(selector).text_content() or ""


def played(db_url: str, user_id: str, match_id: str, *, lifetime: int) -> None:
    """A finished match of ``user_id`` (one deal, ended as the pig) and its lifetime score, as the
    tables store them."""
    store = Store(db_url)
    try:
        with store.engine.begin() as c:
            c.execute(insert(MATCHES).values(
                id=match_id, created="2026-03-01T12:00:00+00:00", preset="online", options={}, levels={},
                speed="normal", seed=1, totals=[0, 0, -30, 0], deals=1, in_deal=False, over=True, winners=[],
                pigs=["S"], visibility="private", status="over"))
            c.execute(insert(MATCH_PLAYERS).values(match_id=match_id, user_id=user_id, deals=1, total=-360, pig=True,
                                                   last="2026-03-01T12:00:00+00:00"))
            c.execute(update(USERS).where(USERS.c.id == user_id).values(lifetime=lifetime, deals=1, matches=1, pigs=1))
    finally:
        store.close()


def test_profile_sign_up_sign_in_and_the_leaderboard(new_page: Any, site: tuple[str, str]) -> None:
    db_url = site[1]
    page = new_page()
    watch = PolicyWatch(page)
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" and not REFUSED.match(m.text) else None)
    page.on("pageerror", lambda error: problems.append(str(error)))

    # A guest, with its cookie.
    check_policy_headers(page.goto("/profile"))
    page.wait_for_selector("#fact-name:not(:empty)")
    guest = me(page)
    assert re.fullmatch(r"游客[0-9]{4,}", text(page, "#fact-name")) and text(page, "#fact-name") == guest["name"]
    assert text(page, "#fact-kind") == "游客" and text(page, "#fact-title") == "猪小弟"
    assert page.locator("#signup-form").is_visible() and page.locator("#guest-note").is_visible()
    assert not page.locator("#signed-in").is_visible()
    cookie = next(c for c in page.context.cookies() if c["name"] == "gongzhu_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax" and cookie["path"] == "/"
    assert page.evaluate("document.cookie") == ""  # the page's scripts cannot read it

    # Its matches, with their records.
    played(db_url, guest["id"], "m-browser-1", lifetime=12_000)
    page.reload()
    row = page.locator('#match-rows tr[data-match="m-browser-1"]')
    row.wait_for()
    assert row.locator('a[href="/api/matches/m-browser-1/records.jsonl"]').count() == 1
    assert row.locator('td[data-label="当猪"]').text_content() == "是"
    assert text(page, "#fact-pigs") == "1" and text(page, "#fact-title") == "猪倌"
    assert text(page, "#fact-lifetime") == "12000"

    # A refusal in the page's language, written again in the other one.
    page.fill("#signup-name", "Ada_1")
    page.fill("#signup-password", "short")
    page.click("#signup-form button[type=submit]")
    page.wait_for_selector("#signup-error:not(:empty)")
    assert text(page, "#signup-error") == "密码须为 8–128 个字符"
    page.click("#lang")
    assert text(page, "#signup-error") == "A password has 8 to 128 characters"  # said alone: a sentence
    assert text(page, "#fact-kind") == "guest"
    shot(page, "profile-guest")

    # The guest becomes an account: same id, same matches.
    page.fill("#signup-password", "a good password")
    page.click("#signup-form button[type=submit]")
    page.wait_for_selector("#signed-in:not([hidden])")
    assert text(page, "#fact-name") == "Ada_1" and text(page, "#fact-kind") == "account"
    assert text(page, "#signed-in-as") == "Signed in as Ada_1" and text(page, "#signup-error") == ""
    assert me(page)["id"] == guest["id"]
    assert page.locator('#match-rows tr[data-match="m-browser-1"]').count() == 1
    assert not page.locator("#sign-forms").is_visible()
    shot(page, "profile-account")

    # Signing out makes a new guest; a wrong password is refused; the right one signs in again.
    page.click("#signout")
    page.wait_for_selector("#sign-forms:not([hidden])")
    assert text(page, "#fact-kind") == "guest" and me(page)["id"] != guest["id"]
    page.fill("#signin-name", "ada_1")
    page.fill("#signin-password", "not the password")
    page.click("#signin-form button[type=submit]")
    page.wait_for_selector("#signin-error:not(:empty)")
    assert text(page, "#signin-error") == "The name or the password is wrong"
    page.fill("#signin-password", "a good password")
    page.click("#signin-form button[type=submit]")
    page.wait_for_selector("#signed-in:not([hidden])")
    assert me(page)["id"] == guest["id"] and text(page, "#signin-error") == ""
    watch.collect()

    # The leaderboard: the account, not the guests; its name opens the public profile.
    check_policy_headers(page.goto("/leaderboard"))
    entry = page.locator("#leaderboard-rows tr", has=page.locator("a", has_text="Ada_1"))
    entry.wait_for()
    assert [c.strip() for c in entry.locator("td").all_text_contents()] == [
        "1", "Ada_1", "Swineherd (猪倌)", "12000", "1", "1"]
    assert not re.search(r"游客[0-9]", text(page, "#leaderboard-rows"))
    page.click("#lang")
    assert text(page, "#heading") == "排行榜"
    shot(page, "leaderboard")
    entry.locator("a").click()
    page.wait_for_url(re.compile(r"/profile\?name=Ada_1$"))
    page.wait_for_selector("#fact-name:not(:empty)")
    assert text(page, "#heading") == "玩家资料：Ada_1"
    assert not page.locator("#sign-forms").is_visible() and not page.locator("#signed-in").is_visible()
    assert text(page, "#matches-heading") == "公开牌桌上的比赛"  # a private table's match is not shown
    assert page.locator("#match-rows tr").count() == 0 and page.locator("#matches-empty").is_visible()
    assert watch.found() == [] and problems == []


def test_pages_fit_a_phone(new_page: Any) -> None:
    """At 375 px neither page scrolls sideways."""
    page = new_page(375, 740)
    # (the leaderboard drawn: with nobody on it yet, its table has no height and does not show)
    for path, ready in (("/profile", "#fact-name:not(:empty)"), ("/leaderboard", "#leaderboard[data-board]")):
        page.goto(path)
        page.wait_for_selector(ready, state="attached")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), path


def test_a_missing_player_is_said_in_the_page_language(new_page: Any) -> None:
    page = new_page()
    page.goto("/profile?name=nobody")
    page.wait_for_selector("#profile-error:not(:empty)")
    assert text(page, "#profile-error") == '没有叫 "nobody" 的注册玩家'
    assert not page.locator("#facts").is_visible()

