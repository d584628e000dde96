"""Account care in a real browser (docs/accounts.md): on the profile page of an account, Playwright
driving Debian's Chromium against the real server changes the name and the password, and deletes
the account, while a second browser context signed in as the same person sees the new name, is
signed out by the new password, signs in again with it, and is signed out again by the deletion;
the page counts the browsers signed in and shows refusals from the catalog in the page's language.
Skipped without Chromium or Playwright, unless ``CI`` is set (then failed), like ``test_browser.py``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from gongzhu.messages import render
from helpers.browser import TIMEOUT_MS
from helpers.servers import LiveServer
from test_browser_accounts import me, text

pytestmark = pytest.mark.browser

with contextlib.suppress(ImportError):  # without it the module is skipped (the ``browser`` fixture)
    from playwright.sync_api import Browser, Page

PASSWORD = "a quiet fox 31 in the snow"
NEW_PASSWORD = "a louder fox 64 on the ice"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db_url = f"sqlite:///{tmp_path_factory.mktemp('account-care') / 'gz.db'}"
    with LiveServer(db_url) as live:
        yield live.base


@pytest.fixture
def new_page(browser: Browser, site: str) -> Iterator[Any]:
    contexts = []

    def make() -> Page:
        ctx = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=site)
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        return page

    yield make
    for ctx in contexts:
        ctx.close()


def sign_in(page: Page, name: str, password: str) -> None:
    page.goto("/profile")
    page.wait_for_selector("#signin-form", state="visible")
    page.fill("#signin-name", name)
    page.fill("#signin-password", password)
    page.click("#signin-form button[type=submit]")
    page.wait_for_selector("#account-care", state="visible")


def test_change_the_name_and_the_password_then_delete_the_account(new_page: Any) -> None:
    page = new_page()
    page.goto("/profile")
    page.wait_for_selector("#signup-form", state="visible")
    assert page.locator("#account-care").is_hidden()  # a guest has no account to care for
    page.fill("#signup-name", "Mira")
    page.fill("#signup-password", PASSWORD)
    page.click("#signup-form button[type=submit]")
    page.wait_for_selector("#account-care", state="visible")
    mira = me(page)
    other = new_page()
    sign_in(other, "Mira", PASSWORD)
    assert me(other)["id"] == mira["id"]
    page.reload()
    page.wait_for_selector("#account-sessions:has-text('2')")
    assert text(page, "#account-sessions") == render("account_care.sessions", "zh", {"count": 2})

    # A new name: both browsers show it.
    page.fill("#account-new-name", "Mirabel")
    page.fill("#account-name-password", PASSWORD)
    page.click("#account-name-form button[type=submit]")
    page.wait_for_selector("#fact-name:text-is('Mirabel')")
    assert text(page, "#account-note") == render("account_care.name_done", "zh", {"name": "Mirabel"})
    other.reload()
    other.wait_for_selector("#fact-name:text-is('Mirabel')")

    # A wrong current password is refused in the page's language, and again in the other one.
    page.fill("#account-current-password", "not my password 1")
    page.fill("#account-new-password", NEW_PASSWORD)
    page.click("#account-password-form button[type=submit]")
    page.wait_for_selector("#account-error:not(:empty)")
    assert text(page, "#account-error") == render("account_care.wrong_password", "zh")
    page.click("#lang")
    wrong = render("account_care.wrong_password", "en")
    assert text(page, "#account-error") == wrong[0].upper() + wrong[1:]  # said alone: a sentence
    page.click("#lang")
    # A new password: the other browser is signed out, and signs in with it.
    page.fill("#account-current-password", PASSWORD)
    page.fill("#account-new-password", NEW_PASSWORD)
    page.click("#account-password-form button[type=submit]")
    page.wait_for_selector("#account-error:empty", state="attached")
    page.wait_for_selector("#account-note:not(:empty)")
    assert text(page, "#account-note") == render("account_care.password_done", "zh")
    assert me(page)["id"] == mira["id"]
    assert me(other)["guest"] is True
    other.reload()
    other.wait_for_selector("#signin-form", state="visible")
    assert other.locator("#account-care").is_hidden()
    sign_in(other, "Mirabel", NEW_PASSWORD)
    assert me(other)["id"] == mira["id"]

    # Deleting: the button waits for the name typed again; both browsers are signed out.
    page.reload()
    page.wait_for_selector("#account-sessions:has-text('2')")
    assert page.locator("#account-delete-go").is_disabled()
    page.fill("#account-delete-confirm", "Mira")
    assert page.locator("#account-delete-go").is_disabled()
    page.fill("#account-delete-confirm", "Mirabel")
    page.fill("#account-delete-password", NEW_PASSWORD)
    assert page.locator("#account-delete-go").is_enabled()
    page.click("#account-delete-go")
    page.wait_for_selector("#account-gone", state="visible")
    assert text(page, "#account-gone") == render("account_care.deleted", "zh")
    assert page.locator("#account-care").is_hidden() and page.locator("#signup-form").is_visible()
    now = me(page)
    assert now["guest"] is True and now["id"] != mira["id"]
    other_now = me(other)
    assert other_now["guest"] is True and other_now["id"] != mira["id"]
    other.reload()
    other.wait_for_selector("#signin-form", state="visible")
    # Its name is free again; the old password signs nobody in.
    other.fill("#signin-name", "Mirabel")
    other.fill("#signin-password", NEW_PASSWORD)
    other.click("#signin-form button[type=submit]")
    other.wait_for_selector("#signin-error:not(:empty)")
    assert text(other, "#signin-error") == render("server.account_wrong_login", "zh")
