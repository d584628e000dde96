"""Real-browser test of the operators' page (docs/moderation.md): Playwright driving Debian's
Chromium against the real server (``conftest.py``: ``browser``, ``page_factory``; the server here
is this module's own, so that the test can make an operator on its database).

Bo sits at his table in one browser context; Ann reports him over HTTP.  The operator, in another
context, opens ``/admin``, finds the report in the open reports, opens Bo's card from it, and bans
him with a reason by the page's form: Bo's table page is told why and its connection ends (it
does not come back), and the audit log on the operator's page shows the ban.  A person who is no
operator sees only the page's "not an operator" message.

Without ``/usr/bin/chromium`` or the ``playwright`` package the module is skipped, unless the
environment variable ``CI`` is set: then it fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from gongzhu.messages import render
from gongzhu.server.moderation import grant
from helpers.browser import api_get, api_post, wait_for
from helpers.servers import LiveServer
from test_browser_tables import new_table, open_table, shot

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

PASSWORD = "a quiet tiger 42 moderation"


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("browser-admin") / "gz.db"
    with LiveServer(f"sqlite:///{db}", challenge_level="random", par_replays=0) as server:
        yield server


@pytest.fixture(scope="module")
def server(live: LiveServer) -> str:
    """The page factory's server: this module's own."""
    return live.base


def account(page: Page, name: str) -> None:
    api_post(page, "/api/account", {"name": name, "password": PASSWORD})


def test_an_operator_bans_a_reported_person_sitting_at_a_table(page_factory: Any, live: LiveServer) -> None:
    op, bo, ann = page_factory(), page_factory(), page_factory()
    for page, name in ((op, "Op"), (bo, "Bo"), (ann, "Ann")):
        account(page, name)

    # A person who is no operator sees only the refusal.
    ann.goto("/admin")
    wait_for(ann, f'#admin-refused:has-text("{render("admin.notOperator", "zh")}")')
    assert ann.locator("#admin-body").is_hidden()

    grant(live.app.state.store, "Op")
    table_id, url = new_table(bo, seat="S")
    open_table(bo, url)
    api_post(ann, "/api/people/Bo/report", {"reason": "rude in the chat", "match_id": table_id})

    # Cy's browser signs in as Bo too: the two accounts are linked by a browser.
    cy = page_factory()
    account(cy, "Cy")
    api_post(cy, "/api/logout", {})
    api_post(cy, "/api/login", {"name": "Bo", "password": PASSWORD})

    # The operator finds the report, opens Bo's card from it — Cy listed as linked — and bans him
    # with a reason.
    op.goto("/admin")
    wait_for(op, '#admin-body:not([hidden]) #admin-reports li.admin-report:has-text("rude in the chat")')
    op.click('#admin-reports li.admin-report button:has-text("查看")')
    wait_for(op, '#admin-card[data-name="Bo"] #admin-actions')
    linked = render("admin.linkedBrowsers", "zh", {"n": 1})
    wait_for(op, f'#admin-linked li[data-person="Cy"]:has-text("{linked}")')
    op.fill("#admin-reason", "cheating")
    op.click('#admin-actions button[data-act="ban"]')
    wait_for(op, '#admin-sanctions li.admin-sanction.active[data-kind="ban"]')
    wait_for(op, '#admin-audit li.admin-entry[data-action="ban"]:has-text("Bo")')
    shot(op, "admin-ban")

    # Bo's table page is told why, and its connection ends for good.
    told = render("moderation.banned", "zh", {"reason": "cheating"})
    wait_for(bo, f'#center:has-text("{told}")')
    assert api_get(bo, "/api/me")["guest"] is True
    refused = bo.request.post("/api/login", data='{"name": "Bo", "password": "' + PASSWORD + '"}',
                              headers={"Content-Type": "application/json"})
    assert refused.status == 403 and refused.json()["code"] == "moderation.banned"
    # Nor does his browser make a new account while the ban is in force.
    made = bo.request.post("/api/account", data='{"name": "Bo2", "password": "' + PASSWORD + '"}',
                           headers={"Content-Type": "application/json"})
    assert made.status == 403 and made.json()["code"] == "server.account_browser_barred"
    shot(bo, "admin-banned-player")
