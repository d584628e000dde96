"""Real-browser test of the accuracy across reviewed deals on the profile (``/profile``,
``docs/review.md``, Across many deals): Playwright driving Debian's Chromium against the real
server, as ``test_browser.py`` does.

A person signs up, plays a match of two deals against computer players by clicking, and opens
their profile: nothing is reviewed yet, and the page says so.  复盘我最近的牌局 / Review my last
deals (5) queues both deals — the page says how many are in line — and the progress shows
("复盘中：已完成 0/2 副") until the reviews are done; then the table by kind of decision shows the
server's numbers (decisions, mean loss, share of ?? and ?, the marks) and the graph one dot per
group of deals.  In English the same reads "Accuracy", "Leads", "Reviews done: 2 deals".  Nobody
else sees it: the person's public profile and a guest's own profile have no accuracy.  Nothing on
the page reads "undefined" or a raw catalog key, and the browser refuses nothing under the page's
Content-Security-Policy.

The server reviews with a small budget (``review_budget``).  Skipped without Chromium or
Playwright, unless ``CI`` is set (then failed), like ``test_browser.py``.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Iterator
from typing import Any

import pytest

from gongzhu.review import Budget
from helpers.browser import in_phase, wait_for
from helpers.servers import LiveServer
from test_browser import (
    PolicyWatch,
    check_policy_headers,
    deal_turns,
    end_exposure,
    open_setup,
    play_deal_by_clicking,
    shot,
    start_match,
)

pytestmark = pytest.mark.browser

with contextlib.suppress(ImportError):  # without it the module is skipped (the ``browser`` fixture)
    from playwright.sync_api import APIRequestContext, Locator, Page

#: A small review budget: a few sampled worlds per decision, two par replays.
SMALL = Budget(think=None, worlds=4, par_replays=2, par_worlds=2, exact_limit=20_000)
PASSWORD = "a quiet tiger 42 accuracy"
JSON = {"Content-Type": "application/json"}
ROWS = ["lead", "follow", "discard", "exposure", "all"]
#: What must never show: a parameter left unfilled, a raw catalog key, a missing value.
RAW = re.compile(r"undefined|NaN|null|\{\w+(:\w+)?\}|\b(accuracy|profile|server)\.[A-Za-z_]+")

# Every text the progress line showed, in order (an init script: the page's policy allows no
# eval, and a short-lived text would slip between two reads).
PROGRESS_WATCH = """
window.__accuracyProgress = [];
new MutationObserver(() => {
  const p = document.getElementById("accuracy-progress");
  if (!p || p.hidden) return;
  const seen = `${p.dataset.state}|${p.textContent.trim()}`;
  if (window.__accuracyProgress.at(-1) !== seen) window.__accuracyProgress.push(seen);
}).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real server, reviewing with the small budget in one worker process."""
    db = tmp_path_factory.mktemp("browser-accuracy") / "gz.db"
    with LiveServer(f"sqlite:///{db}", review_budget=SMALL, review_workers=1) as live:
        yield live.base


def sign_up(request: APIRequestContext, name: str) -> None:
    """The browser context's person (a guest first) becomes the account ``name``."""
    assert request.get("/api/me").ok
    response = request.post("/api/account", data=json.dumps({"name": name, "password": PASSWORD}), headers=JSON)
    assert response.status == 200, response.text()


def number(text: str | None) -> float:
    return float((text or "").replace("−", "-"))


def check_table(section: Locator, accuracy: dict[str, Any]) -> None:
    """The table shows the server's accuracy, a row per kind and one for all."""
    rows = section.locator("#accuracy-rows tr")
    assert [rows.nth(i).get_attribute("data-kind") for i in range(rows.count())] == ROWS
    for kind in ROWS:
        want = accuracy["all"] if kind == "all" else accuracy["kinds"][kind]
        cells = section.locator(f'#accuracy-rows tr[data-kind="{kind}"] td')
        assert int(cells.nth(1).text_content() or "") == want["decisions"]
        mean, share = cells.nth(2), cells.nth(3)
        if want["mean_loss"] is None:
            assert mean.text_content() == "–" and share.text_content() == "–"
        else:
            assert float(mean.get_attribute("data-value") or "nan") == want["mean_loss"]
            assert number(mean.text_content()) == want["mean_loss"]
            assert float(share.get_attribute("data-value") or "nan") == want["error_share"]
            assert share.text_content() == f"{math.floor(want['error_share'] * 1000 + 0.5) / 10:g}%"
        assert (cells.nth(4).text_content() or "").startswith(f"{want['??']} / {want['?']} / {want['?!']}")


def check_no_raw_text(section: Locator) -> None:
    text = section.inner_text()
    assert not RAW.search(text), RAW.search(text)
    for t in [*section.locator("svg title").all_text_contents(),
              section.locator(".accuracy-svg").get_attribute("aria-label") or ""]:
        assert t and not RAW.search(t), t


def test_the_profile_reviews_the_last_deals_and_shows_the_accuracy(page_factory: Any, server: str) -> None:
    page: Page = page_factory(1280, 900)
    watch = PolicyWatch(page)
    page.add_init_script(PROGRESS_WATCH)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    sign_up(page.request, "Ada")

    # A match of two deals, played by clicking.
    check_policy_headers(open_setup(page))
    page.select_option("#setup-lang", "zh")
    start_match(page, deals=2)
    for deal in range(2):
        assert play_deal_by_clicking(page) == deal_turns(page)
        wait_for(page, in_phase("deal-over", "match-over"))
        if deal == 0:
            page.click("#summary-next")
            end_exposure(page)
    wait_for(page, in_phase("match-over"))

    # The profile: nothing reviewed yet.
    check_policy_headers(page.goto("/profile"))
    section = page.locator("#accuracy")
    section.wait_for()
    page.locator("#accuracy-none").wait_for()
    assert page.locator("#accuracy-heading").text_content() == "复盘准确度"
    assert page.locator("#accuracy-reviewed").text_content() == "已复盘 0 副"
    assert page.locator("#accuracy-table").is_hidden()
    assert page.eval_on_selector_all("#accuracy-count option", "os => os.map(o => o.value)") == ["5", "10", "20"]

    # Review my last 5 deals: both are queued, the progress shows, then the accuracy.
    page.select_option("#accuracy-count", "5")
    with page.expect_response(lambda r: r.url.endswith("/review-last")) as asked:
        page.click("#accuracy-go")
    assert asked.value.status == 202
    page.locator('#accuracy-progress[data-state="done"]').wait_for()
    assert page.locator("#accuracy-note").text_content() == "已有 2 副排队复盘"
    seen: list[str] = page.evaluate("window.__accuracyProgress")
    running = [s.split("|", 1)[1] for s in seen if s.startswith("running|")]
    assert running, seen
    assert all(re.fullmatch(r"复盘中：已完成 [01]/2 副( · 当前一副 \d+/\d+)?", s) for s in running), running
    assert seen[-1] == "done|复盘完成：2 副"
    assert page.locator("#accuracy-progress-bar").evaluate("b => [b.value, b.max]") == [2, 2]

    page.locator("#accuracy-table:not([hidden])").wait_for()
    answer = page.request.get("/api/profile/accuracy")
    assert answer.ok
    accuracy: dict[str, Any] = answer.json()
    assert accuracy["deals"] == 2
    assert page.locator("#accuracy-reviewed").text_content() == "已复盘 2 副"
    assert page.locator("#accuracy-none").is_hidden()
    check_table(section, accuracy)
    graph = section.locator(".accuracy-svg")
    assert graph.count() == 1
    points = [g for g in accuracy["groups"] if g["all"]["mean_loss"] is not None]
    dots = graph.locator("circle.accuracy-dot")
    assert dots.count() == len(points) == 1
    assert float(dots.first.get_attribute("data-mean") or "nan") == points[0]["all"]["mean_loss"]
    assert dots.first.get_attribute("data-deals") == "2"
    assert "2 副" in (dots.first.locator("title").text_content() or "")
    totals = page.locator("#accuracy-totals").text_content() or ""
    assert totals.startswith("运气 ") and "技术 " in totals and "结果 " in totals
    check_no_raw_text(section)
    shot(page, "accuracy-zh")

    # In English.
    page.click("#lang")
    page.wait_for_function("() => document.getElementById('accuracy-heading').textContent === 'Accuracy'")
    assert page.locator('#accuracy-rows tr[data-kind="lead"] td').first.text_content() == "Leads"
    assert page.locator("#accuracy-reviewed").text_content() == "2 deals reviewed"
    assert page.locator("#accuracy-progress-text").text_content() == "Reviews done: 2 deals"
    assert page.locator("#accuracy-note").text_content() == "2 deals in line for review"
    check_table(section, accuracy)
    check_no_raw_text(section)
    shot(page, "accuracy-en")

    # Asked again: every deal is reviewed already.
    page.click("#accuracy-go")
    page.wait_for_function("() => document.getElementById('accuracy-note').textContent"
                           " === 'Every deal you finished is reviewed already'")

    # Nobody else sees it: Ada's public profile, and a guest's own profile.
    other = page_factory(1280, 900)
    other_watch = PolicyWatch(other)
    check_policy_headers(other.goto("/profile?name=Ada"))
    other.locator("#facts:not([hidden])").wait_for()
    assert other.locator("#accuracy").is_hidden()
    check_policy_headers(other.goto("/profile"))
    other.locator("#sign-forms:not([hidden])").wait_for()
    assert other.locator("#accuracy").is_hidden()
    assert other.request.get("/api/profile/accuracy").status == 403

    assert watch.found() == [] and other_watch.found() == []
    assert errors == []
