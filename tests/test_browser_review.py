"""Real-browser test of the review of a deal (复盘): Playwright driving Debian's Chromium against
the real server, as ``test_browser.py`` does.

A person plays a deal, and the summary's 复盘 / Review button opens the replay with the review of
their seat: while the server works on it the dialog says so ("复盘中 3/20"), then each trick's card
of the seat carries its mark, the summary shows the server's result, luck, skill, par and loss, the graph
is drawn with the par as a reference line, and each of the costliest moments jumps to its trick.
The same review, kept by the server, opens at once in English; the history page's replay reviews
another seat.  Nothing on the page reads "undefined" or a raw catalog key in either language, and
the browser refuses nothing under the page's Content-Security-Policy.

The server reviews with a small budget (``review_budget``).  Skipped without Chromium or
Playwright, unless ``CI`` is set (then failed), like ``test_browser.py``.
"""

from __future__ import annotations

import contextlib
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
    open_setup,
    play_deal_by_clicking,
    shot,
    start_match,
)

pytestmark = pytest.mark.browser

with contextlib.suppress(ImportError):  # without it the module is skipped (the ``browser`` fixture)
    from playwright.sync_api import Locator, Page

#: A small review budget: a few sampled worlds per decision, two par replays.
SMALL = Budget(think=None, worlds=4, par_replays=2, par_worlds=2, exact_limit=20_000)
SEATS = ("N", "E", "S", "W")
#: What must never show: a parameter left unfilled, a raw catalog key, a missing value.
RAW = re.compile(r"undefined|NaN|\{\w+(:\w+)?\}|\b(review|server|btn|replay|kind|card|seat|who)\.[A-Za-z_]+")

#: A costliest moment in words: where the points landed (if they did), where it was avoidable.
#: The card played is named beside the best; a moment after which no point card landed says so.
MOMENT_EN = (r"^(\S+ )?(.+ taken by (North|East|South|West) at trick \d+; "
             r"avoidable at (trick \d+|the exposure \(亮牌\)): .+, best .+ \(−[\d.]+\)"
             r"|(At trick \d+|At the exposure \(亮牌\)): .+, best .+ \(−[\d.]+\); no points landed after it)$")
MOMENT_ZH = (r"^(\S+ )?(第 \d+ 圈(北家|东家|南家|西家)收进 .+；"
             r"可避免于(第 \d+ 圈：出了|亮牌时：亮了) .+，最佳 .+（−[\d.]+）"
             r"|(第 \d+ 圈：出了|亮牌时：亮了) .+，最佳 .+（−[\d.]+）；之后没有失分)$")

# Every text the review's status line showed, in order (an init script: the page's policy
# allows no eval, and a short-lived status would slip between two reads).
STATUS_WATCH = """
window.__reviewStatus = [];
new MutationObserver(() => {
  for (const p of document.querySelectorAll("#replay .review-status")) {
    const seen = `${p.dataset.reviewStatus}|${p.textContent}`;
    if (window.__reviewStatus.at(-1) !== seen) window.__reviewStatus.push(seen);
  }
}).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
"""


# The graph's axis labels that reach past its edges (client boxes, 0.5 px allowed): their text.
AXIS_LABELS_CUT = """(g) => {
  const r = g.getBoundingClientRect();
  return [...g.querySelectorAll(".review-axis")].filter((label) => {
    const b = label.getBoundingClientRect();
    return b.left < r.left - 0.5 || b.right > r.right + 0.5 || b.top < r.top - 0.5 || b.bottom > r.bottom + 0.5;
  }).map((label) => label.textContent);
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real server, reviewing with the small budget in two worker processes."""
    db = tmp_path_factory.mktemp("browser-review") / "gz.db"
    with LiveServer(f"sqlite:///{db}", review_budget=SMALL, review_workers=2) as live:
        yield live.base


def review_json(page: Page, match_id: str, seat: str, k: int = 0) -> dict[str, Any]:
    answer = page.request.get(f"/api/matches/{match_id}/deals/{k}/review?seat={seat}")
    assert answer.status == 200, answer.text()
    body: dict[str, Any] = answer.json()
    assert body["status"] == "done"
    review: dict[str, Any] = body["review"]
    return review


def number(text: str | None) -> float:
    """A number as the page shows it (a true minus sign)."""
    return float((text or "").replace("−", "-"))


def shown(value: float) -> str:
    """A JSON number as the page writes it (JavaScript's String: 50, not 50.0)."""
    return str(int(value)) if value == int(value) else repr(value)


def check_no_raw_text(dialog: Locator) -> None:
    text = dialog.inner_text()
    assert not RAW.search(text), RAW.search(text)
    titles = dialog.locator("svg title").all_text_contents()
    labels = [dialog.locator(".review-svg").get_attribute("aria-label") or ""]
    for t in titles + labels:
        assert t and not RAW.search(t), t


def check_review_shown(page: Page, dialog: Locator, review: dict[str, Any]) -> None:
    """The dialog shows ``review`` (the server's JSON): the summary's numbers, the graph, each
    trick's mark on the seat's card, the moments; stepping ends at the last trick."""
    for name in ("result", "luck", "skill", "par", "loss"):
        cell = dialog.locator(f'[data-review="{name}"]')
        assert float(cell.get_attribute("data-value") or "nan") == review[name], name
        assert number(cell.text_content()) == review[name], name
    graph = dialog.locator(".review-svg")
    assert graph.count() == 1
    assert float(graph.locator(".review-par").get_attribute("data-par") or "nan") == review["par"]
    assert graph.locator("circle.review-dot").count() == len(review["graph"])
    # The running luck and skill, one point per weighed decision and the end.
    for part in ("luck", "skill"):
        line = graph.locator(f'polyline[data-running="{part}"]')
        assert line.count() == 1
        assert len((line.get_attribute("points") or "").split()) == len(review["graph"])
    for d in review["decisions"]:
        if d["mark"] is not None:  # a mark inside the noise is one on the graph too
            dot = graph.locator(f'circle[data-decision="{d["index"]}"][data-mark="{d["mark"]}"]')
            assert dot.count() == 1
            assert dot.first.get_attribute("data-uncertain") == ("" if d["uncertain"] else None)
    # Trick by trick: the seat's card carries its decision's mark, and the step's review says what was best.
    seat = review["seat"]
    first = dialog.locator('[data-step="first"]')
    if first.is_enabled():  # at the start already, it is disabled
        first.click()
    wait_for(page, '#replay .review-now[data-step="0"]')
    # Step 0, the deal as dealt: the review of the seat's exposure declaration, if it made one.
    for d in review["decisions"]:
        if d["kind"] == "expose":
            assert dialog.locator(f'.review-step [data-decision="{d["index"]}"]').count() == 1
    plays = {d["trick"]: d for d in review["decisions"] if d["kind"] == "play"}
    for trick in range(1, len(review["tricks"]) + 1):
        dialog.locator('[data-step="next"]').click()
        wait_for(page, f'#replay .review-now[data-step="{trick}"]')
        d = plays[trick]
        marked = dialog.locator(f'.rcenter .slot-{seat}.reviewed [data-mark]')
        if d["mark"] is None:
            assert dialog.locator(".rcenter [data-mark]").count() == 0
        else:  # on the card in the trick too, in brackets when inside the noise
            assert marked.first.get_attribute("data-mark") == d["mark"]
            badge = dialog.locator(f".rcenter .slot-{seat} .mark-badge")
            assert badge.inner_text() == (f'({d["mark"]})' if d["uncertain"] else d["mark"])
        step = dialog.locator(f'.review-step [data-decision="{d["index"]}"]')
        assert step.count() == 1
        assert float(step.locator(".review-verdict").get_attribute("data-loss") or "nan") == d["loss"]
        # the search's noise is told of a loss, not of the best choice (whose loss is 0 in every world)
        told = d["loss"] > 0 and d["loss_spread"] is not None and not d["forced"]
        assert step.locator(".review-noise").count() == (1 if told else 0)
        if d["skill"] is not None:  # the step's own luck and skill, and a mark inside the noise marked so
            parts = step.locator(".review-skill")
            assert float(parts.get_attribute("data-skill") or "nan") == d["skill"]
            assert float(parts.get_attribute("data-luck") or "nan") == d["luck"]
            if d["mark"] is not None:
                assert step.locator("[data-uncertain]").count() == (1 if d["uncertain"] else 0)
    # The moments: one button each, jumping to its trick.
    moments = dialog.locator("button[data-moment]")
    assert moments.count() == len(review["moments"])
    for i, m in enumerate(review["moments"]):
        if dialog.locator('[data-step="last"]').is_enabled():
            dialog.locator('[data-step="last"]').click()
        moments.nth(i).click()
        target = m["trick"] or 0
        wait_for(page, f'#replay .review-now[data-step="{target}"]')
        if m["kind"] == "play" and m["mark"]:
            assert dialog.locator(f'.rcenter .slot-{seat} [data-mark="{m["mark"]}"]').count() >= 1


def test_the_summary_opens_the_review_of_the_persons_seat(page_factory: Any, server: str) -> None:
    page = page_factory(1280, 900)
    watch = PolicyWatch(page)
    page.add_init_script(STATUS_WATCH)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    check_policy_headers(open_setup(page))
    page.select_option("#setup-lang", "zh")
    start_match(page)
    assert play_deal_by_clicking(page) == deal_turns(page)
    wait_for(page, in_phase("deal-over", "match-over"))
    match_id: str = page.evaluate("localStorage.getItem('gongzhu.match')")

    page.locator("#summary[open]").wait_for()
    page.click("#summary-review")
    dialog = page.locator("#replay[open]")
    dialog.wait_for()
    dialog.locator('[data-review="result"]').wait_for()
    dialog.locator(".review-svg").wait_for()
    # While it ran, the dialog said so, in the catalog's words.
    statuses: list[str] = page.evaluate("window.__reviewStatus")
    running = [s.split("|", 1)[1] for s in statuses if s.split("|", 1)[0] in ("starting", "running", "queued")]
    assert running, statuses
    assert all(re.fullmatch(r"复盘中(…| \d+/\d+ ?)|排队等待复盘：第 \d+ 位", s) for s in running), running
    assert statuses[-1].startswith("done|")

    review = review_json(page, match_id, "S")
    assert dialog.locator(".review-title").text_content() == "南家的复盘"
    check_review_shown(page, dialog, review)
    check_no_raw_text(dialog)
    for i, m in enumerate(review["moments"]):
        text = dialog.locator(f'button[data-moment="{i}"]').text_content() or ""
        assert re.search(MOMENT_ZH, text), text
        assert (m["mark"] or "") in text and f"−{shown(m['loss'])}" in text
    assert "事后（四家牌公开）" in dialog.inner_text() or review["hindsight"]["from_trick"] is None
    assert "?!" in (dialog.locator(".review-marks").text_content() or "")
    shot(page, "review-zh")
    # On a phone's width the graph scales down, its axis labels not: they stay readable.
    page.set_viewport_size({"width": 320, "height": 640})
    step = "first" if dialog.locator('[data-step="first"]').is_enabled() else "next"
    dialog.locator(f'[data-step="{step}"]').click()  # the graph drawn again, at this width
    wait_for(page, '#replay .review-now[data-step="0"]' if step == "first" else '#replay .review-now[data-step="1"]')
    heights = [box["height"] for box in (label.bounding_box() for label in dialog.locator(".review-axis").all()) if box]
    assert heights and min(heights) >= 10, heights
    # Nor are they cut off at the graph's edges: each lies whole inside it, at 320 px and 390 px.
    for width in (320, 390):
        page.set_viewport_size({"width": width, "height": 844})
        dialog.locator(".review-svg").evaluate("g => { g.dataset.before = ''; }")
        step = next(s for s in ("first", "next", "prev", "last") if dialog.locator(f'[data-step="{s}"]').is_enabled())
        dialog.locator(f'[data-step="{step}"]').click()  # the graph drawn again, at this width
        dialog.locator(".review-svg:not([data-before])").wait_for()
        cut = dialog.locator(".review-svg").evaluate(AXIS_LABELS_CUT)
        assert cut == [], (width, cut)
    page.set_viewport_size({"width": 1280, "height": 900})

    # In English: the review the server kept opens at once.
    dialog.locator(".replay-close").click()
    page.click("#summary-close")
    page.click("#lang")
    page.click("#show-summary")
    page.locator("#summary[open]").wait_for()
    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/review")) as answer:
        page.click("#summary-review")
    assert answer.value.status == 200
    dialog.locator('[data-review="result"]').wait_for()
    assert dialog.locator(".review-title").text_content() == "Review of South"
    assert dialog.locator('dt').first.text_content() == "Result"
    check_review_shown(page, dialog, review)
    check_no_raw_text(dialog)
    for i, m in enumerate(review["moments"]):
        text = dialog.locator(f'button[data-moment="{i}"]').text_content() or ""
        assert re.search(MOMENT_EN, text), text
        assert f"(−{shown(m['loss'])})" in text
    shot(page, "review-en")
    dialog.locator(".replay-close").click()

    # The history page's replay reviews any seat: the person's is offered first.
    check_policy_headers(page.goto("/history"))
    row = page.locator(f'#match-rows tr[data-match="{match_id}"]')
    row.wait_for()
    row.get_by_role("button", name="Replay").click()
    dialog.wait_for()
    assert dialog.locator(".review-seat").input_value() == "S"
    dialog.locator(".review-seat").select_option("W")
    dialog.locator(".replay-review").click()
    dialog.locator('[data-review="result"]').wait_for()
    assert dialog.locator(".review-title").text_content() == "Review of West"
    check_review_shown(page, dialog, review_json(page, match_id, "W"))
    check_no_raw_text(dialog)
    assert watch.found() == [] and errors == []
