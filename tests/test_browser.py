"""Real-browser tests of the table page: Playwright driving Debian's Chromium.

The module starts the real server (uvicorn on a free loopback port, computer players at pace 0)
and one Chromium, then plays whole deals through the page only by its stable test surface
(``docs/web-protocol.md``): hand cards are ``button[data-card]`` with
``aria-disabled`` ("false" = a legal play now), the button ending the exposure phase is named
不亮 / Expose none (亮出所选 / Expose selected once cards are marked), ``[data-deal-result=<seat>]``
holds each seat's R7 result after a deal, and ``<html data-phase>`` says where the table is.  The
results on the page are compared with the engine's replay of the R11 record the server stored.
Screenshots go to ``test-artifacts/``.

The browser, the server and the pages come from ``conftest.py`` (``browser``, ``server``,
``page_factory``).  Without ``/usr/bin/chromium`` or the ``playwright`` package the module is
skipped, unless the environment variable ``CI`` is set: then it fails, so CI can't pass by
skipping it.
"""

from __future__ import annotations

import json
import re
import threading
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from gongzhu.records.replay import replay
from gongzhu.server.app import STATIC_DIR
from gongzhu.server.policy import SECURITY_HEADERS
from helpers.browser import api_get, api_post, in_phase, not_in_phase, phase, wait_for, wait_until

pytestmark = pytest.mark.browser

if TYPE_CHECKING:
    from playwright.sync_api import ConsoleMessage, Page, Response

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
SEATS = ("N", "E", "S", "W")
LEGAL = '#hand button[data-card][aria-disabled="false"]'
OVER = ("deal-over", "match-over")


def _get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as res:
        return json.loads(res.read().decode("utf-8"))


def hand(page: Page) -> list[str]:
    cards: list[str] = page.eval_on_selector_all("#hand button[data-card]", "bs => bs.map(b => b.dataset.card)")
    return cards


def open_setup(page: Page) -> Response | None:
    response = page.goto("/")
    page.wait_for_selector("#setup[open]")
    return response


def new_match(page: Page, *, keyboard: bool = False) -> None:
    """Open the page, start an online match at the instant speed, end the exposure phase."""
    open_setup(page)
    start_match(page, keyboard=keyboard)


# The match the page shows: its id and the phase of the state it holds (null before one arrives).
SHOWN_MATCH = """() => import("/static/state.js")
  .then(({ page }) => ({ id: page.matchId, phase: page.state?.match_id === page.matchId ? page.state.phase : null }))"""


def start_match(
    page: Page,
    *,
    keyboard: bool = False,
    deals: int | None = None,
    speed: str = "instant",
    seed: int | None = None,
    declare: bool = True,
) -> None:
    """In the open setup dialog, start an online match at ``speed`` and, with ``declare``, end the
    exposure phase.  ``deals``: a match of that many deals (R8) instead of one that ends at the
    loss limit; ``seed``: dealt from that seed (typed under "more options")."""
    page.select_option("#setup-preset", "online")
    if speed in page.eval_on_selector_all("#setup-speed option", "os => os.map(o => o.value)"):
        page.select_option("#setup-speed", speed)
    if (seed is not None or deals is not None) and not page.locator("#setup details.more[open]").count():
        page.click("#setup details.more summary")
    if seed is not None:
        page.fill("#setup-seed", str(seed))
    if deals is not None:
        page.select_option('[data-option="match_end"]', json.dumps("deals:N"))
        page.fill('[data-option-count="match_end"]', str(deals))
    before = page.evaluate(SHOWN_MATCH)
    if keyboard:
        page.focus("#setup-go")
        page.keyboard.press("Enter")
    else:
        page.click("#setup-go")
    # The new match's state is shown (not the previous match's, in the same phase).
    wait_until(
        page,
        f"(before) => ({SHOWN_MATCH})().then((shown) => shown.id !== before.id && shown.phase !== null"
        " && ['expose', 'play'].includes(document.documentElement.dataset.phase))",
        before,
    )
    if declare:
        end_exposure(page, keyboard=keyboard)


EXPOSING = 'html[data-phase="expose"] #start:not([hidden])'


def end_exposure(page: Page, *, keyboard: bool = False) -> None:
    """End South's exposure phase with the 不亮/Expose none button (marking nothing).  Against computer
    players a hand with nothing to expose declares by itself: then the phase ends without it."""
    wait_for(page, f"{EXPOSING}, {in_phase('play')}")
    if page.locator(EXPOSING).count():
        start = page.get_by_role("button", name=re.compile(r"^(不亮|Expose none)$"))
        if keyboard:
            start.focus()
            page.keyboard.press("Space")
        else:
            start.click()
    wait_for(page, not_in_phase("expose"))


def wait_turn_or_over(page: Page) -> str:
    """Wait until South may play (returns "play") or the deal is over (returns the phase)."""
    wait_for(page, f'{in_phase(*OVER)}, html[data-phase="play"] {LEGAL}')
    return phase(page)


def play_deal_by_clicking(page: Page) -> int:
    """Play South's first legal card each turn (two decks: where that card begins several plays,
    the first play the page then offers); the server plays out what is left once no play can change
    a score (R5.4: the last trick at the latest).  Returns the clicks."""
    plays = 0
    while wait_turn_or_over(page) == "play":
        page.locator(LEGAL).first.click()
        if page.locator("#choices:not([hidden]) button").count():
            page.locator("#choices button").first.click()
        plays += 1
    return plays


def south_turns(record: dict[str, Any]) -> int:
    """How many of South's plays in a finished deal were South's to make: all 13, but those the
    server made once the deal was claimed or could no longer change (R5.4, the record's ``end``)."""
    plays = [p["seat"] for t in record["tricks"] for p in t["plays"]]
    end = record.get("end")
    return plays[: end["from_play"] if end else len(plays)].count("S")


def deal_turns(page: Page) -> int:
    """South's turns in the single-player match's last finished deal (:func:`south_turns`)."""
    match_id = page.evaluate("localStorage.getItem('gongzhu.match')")
    deals = api_get(page, f"/api/matches/{match_id}")["deals"]
    return south_turns(api_get(page, f"/api/matches/{match_id}/deals/{deals - 1}"))


def play_deal_by_keyboard(page: Page) -> int:
    plays = 0
    keys = ("Enter", "Space")
    while wait_turn_or_over(page) == "play":
        cards = hand(page)
        target = cards.index(page.locator(LEGAL).first.get_attribute("data-card") or "")
        focused: int = page.evaluate("[...document.getElementById('hand').children].indexOf(document.activeElement)")
        if focused < 0:
            # Put the focus in the hand, as Tab would: the roving card (tabindex 0).
            page.locator('#hand button[data-card][tabindex="0"]').focus()
            focused = page.evaluate("[...document.getElementById('hand').children].indexOf(document.activeElement)")
            assert focused >= 0
        step = "ArrowRight" if target > focused else "ArrowLeft"
        for _ in range(abs(target - focused)):
            page.keyboard.press(step)
        assert page.evaluate("document.activeElement.dataset.card") == cards[target]
        page.keyboard.press(keys[plays % 2])
        plays += 1
    return plays


def check_results(page: Page, server: str) -> dict[str, int]:
    """The page's deal results equal the engine's for the stored record of that deal."""
    assert phase(page) in OVER
    shown = {seat: int(page.locator(f'[data-deal-result="{seat}"]').text_content() or "") for seat in SEATS}
    match_id = page.evaluate("localStorage.getItem('gongzhu.match')")
    # The person's matches (GET /api/matches lists those of the session's person).
    assert match_id in [m["match_id"] for m in api_get(page, "/api/matches")]
    record = api_get(page, f"/api/matches/{match_id}/deals/0")
    deal = replay(record)
    engine = dict(zip(SEATS, deal.score.result, strict=True))
    assert shown == engine
    assert record["final"] == dict(zip(SEATS, deal.score.final, strict=True))
    # One deck online: the record's final is the result times the one-deck factor 12.
    assert {s: v // 12 for s, v in record["final"].items()} == shown
    return shown


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def test_table_modules_load_without_console_errors(page_factory: Any, server: str) -> None:
    """Every module of the table page loads from /static/ and the page starts without a console
    error; the new-match dialog offers exactly what GET /api/config lists."""
    page = page_factory(1280, 800)
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    loaded: list[tuple[str, int]] = []
    page.on("response", lambda r: loaded.append((r.url.rsplit("/", 1)[1], r.status)) if "/static/" in r.url else None)
    open_setup(page)
    # Every module but the other pages' entry points (history.js, lobby.js, ...), their header and
    # the history's and the profile's list of challenges played.
    entries = {
        m
        for html in STATIC_DIR.glob("*.html")
        if html.name != "index.html"
        for m in re.findall(r'<script type="module" src="/static/([\w.-]+)"', html.read_text(encoding="utf-8"))
    }
    modules = {p.name for p in STATIC_DIR.glob("*.js")} - entries - {"header.js", "played.js"}
    assert {name for name, status in loaded if name.endswith(".js") and status == 200} == modules
    assert problems == []
    config = _get_json(f"{server}/api/config")
    values = "es => es.map(e => e.value)"
    assert page.eval_on_selector_all("#setup-preset option", values) == list(config["presets"])
    assert page.input_value("#setup-preset") == config["default_preset"]
    for seat in ("N", "E", "W"):
        assert page.eval_on_selector_all(f"#setup-level-{seat} option", values) == config["levels"]
        assert page.input_value(f"#setup-level-{seat}") == config["default_level"]
    assert page.eval_on_selector_all("#setup-speed option", values) == list(config["speeds"])
    assert page.input_value("#setup-speed") == config["default_speed"]
    assert page.eval_on_selector_all("[data-option]", "es => es.map(e => e.dataset.option)") == list(config["options"])
    # What the page knows is changed only through state.js's update functions.
    written = page.evaluate("""() => import("/static/state.js").then((m) => {
        try { m.page.state = null; return "written"; } catch (e) { return e.constructor.name; }
    })""")
    assert written == "TypeError"


def test_the_page_waits_for_the_server_configuration(page_factory: Any) -> None:
    """Until GET /api/config answers, the page offers no new match (its buttons wait, busy) and
    says it could not read it; it asks again and opens the dialog once the server answers."""
    page = page_factory(1280, 800)
    refused: list[str] = []

    def refuse(route: Any) -> None:
        refused.append(route.request.url)
        route.abort()

    page.route("**/api/config", refuse)
    page.goto("/")
    wait_for(page, "#center .error")
    welcome = page.locator("#center button.primary")
    assert welcome.is_disabled() and welcome.get_attribute("aria-busy") == "true"
    assert page.locator("#new-match").is_disabled()
    assert page.locator("#setup-preset option").count() == 0
    assert not page.evaluate("document.getElementById('setup').open")
    page.unroute("**/api/config")
    page.wait_for_selector("#setup[open]")
    assert refused and page.locator("#new-match").is_enabled()
    assert page.locator("#center .error").count() == 0


def test_desktop_deal_by_clicking(page_factory: Any, server: str) -> None:
    page = page_factory(1280, 800)
    new_match(page)
    assert phase(page) == "play"
    shot(page, "desktop-play")
    assert play_deal_by_clicking(page) == deal_turns(page)
    check_results(page, server)
    shot(page, "desktop-deal-over")


def test_keyboard_deal(page_factory: Any, server: str) -> None:
    page = page_factory(1280, 800)
    new_match(page, keyboard=True)
    assert play_deal_by_keyboard(page) == deal_turns(page)
    check_results(page, server)
    shot(page, "keyboard-deal-over")


def test_phone_deal(page_factory: Any, server: str) -> None:
    page = page_factory(375, 740, is_mobile=True, has_touch=True, device_scale_factor=2)
    new_match(page)
    no_hscroll = "document.documentElement.scrollWidth"
    assert page.evaluate(no_hscroll) <= 375
    shot(page, "phone-play")
    assert play_deal_by_clicking(page) == deal_turns(page)
    check_results(page, server)
    assert page.evaluate(no_hscroll) <= 375
    shot(page, "phone-deal-over")


def test_illegal_card_is_refused(page_factory: Any, server: str) -> None:
    page = page_factory(1280, 800)
    new_match(page)
    illegal = '#hand button[data-card][aria-disabled="true"]'
    while True:
        now = wait_turn_or_over(page)
        if now == "deal-over":  # (rare) no turn of South's had an illegal card: next deal
            page.click("#summary-next")
            end_exposure(page)
            continue
        assert now == "play", "the match ended before South held an illegal card"
        if page.locator(illegal).count():
            break
        page.locator(LEGAL).first.click()
    before = hand(page)
    legal_before = page.eval_on_selector_all(LEGAL, "bs => bs.map(b => b.dataset.card)")
    card = page.locator(illegal).first
    code = card.get_attribute("data-card")
    card.click(force=True)
    toast = page.locator("#refusal")  # said beside the status line
    toast.wait_for(state="visible")
    # The rules core's refusal, rendered by the page from its code in the page's language (中文):
    # every parameter filled in, the suit named in words (黑桃 …), never as a code.
    text = (toast.text_content() or "").strip()
    assert re.search(r"[\u4e00-\u9fff]", text) and "{" not in text, text
    assert not re.search(r"首家出的是[SHCD]", text), text
    # The rule it cites links to its section of the rules page.
    cited = re.findall(r"R\d+(?:\.\d+)?", text)
    assert cited, text
    assert toast.locator("a.rule-link").first.get_attribute("href") == f"/rules#{cited[0]}"
    page.wait_for_timeout(300)  # a wrongly accepted play would have changed the table by now
    assert hand(page) == before
    assert code in hand(page)
    assert phase(page) == "play"
    assert page.eval_on_selector_all(LEGAL, "bs => bs.map(b => b.dataset.card)") == legal_before
    shot(page, "illegal-card")


TOASTS_SEEN = """() => {
  window.__toasts = [];
  for (const box of [document.getElementById("toast"), document.getElementById("refusal")]) {
    new MutationObserver(() => { if (!box.hidden) window.__toasts.push(box.textContent); })
      .observe(box, { attributes: true, childList: true, characterData: true, subtree: true });
  }
}"""


def test_impatient_clicks_are_not_errors(page_factory: Any, server: str) -> None:
    """Clicking on while the page waits (the server's answer, other seats' turns, the trick's
    pause) and pressing N twice show no error and change nothing: the deal is played as the
    clicks on legal cards alone would play it."""
    page = page_factory(1280, 800)
    open_setup(page)
    # Two deals: South's first-legal-card play can lose 1000 points in one deal (about one deal in
    # twenty), which would end an online match (R8) with no next deal for N to deal.
    start_match(page, deals=2)
    page.select_option("#speed", "slow")  # a finished trick stays 1.6 s
    page.evaluate(TOASTS_SEEN)
    while wait_turn_or_over(page) == "play":
        page.locator(LEGAL).first.click()
        for _ in range(3):  # at once, while the play is on its way and the others answer
            page.evaluate("document.querySelector('#hand button[data-card]')?.click()")
    check_results(page, server)
    assert phase(page) == "deal-over"
    match_id = page.evaluate("localStorage.getItem('gongzhu.match')")
    page.keyboard.press("n")
    page.keyboard.press("n")
    wait_for(page, in_phase("expose", "play"))
    page.wait_for_timeout(300)  # a refusal of the second N would have come by now
    assert page.evaluate("window.__toasts") == []
    assert api_get(page, f"/api/matches/{match_id}")["deals"] == 1  # one deal finished, the next dealt once


def test_nothing_to_expose_needs_no_click(page_factory: Any) -> None:
    """Against computer players a hand with none of ♠Q ♦J ♣10 ♥A declares by itself: the deal
    goes on to the play with no click (seed 3 deals South none of them)."""
    page = page_factory(1280, 800)
    open_setup(page)
    page.select_option("#setup-preset", "online")
    page.select_option("#setup-speed", "instant")
    page.click("details.more summary")
    page.fill("#setup-seed", "3")
    page.click("#setup-go")
    wait_for(page, in_phase("play"))
    assert page.locator("#seat-S .exposed .chip").count() == 0


def test_a_forced_last_trick_needs_no_click(page_factory: Any, server: str) -> None:
    """Once every play left is forced (the last trick always is) or no point card is left in play,
    the server plays the deal out (R5.4): South is never asked for a forced last card, and the
    record says where the deal finished by itself."""
    page = page_factory(1280, 800)
    new_match(page)
    clicks = 0
    while wait_turn_or_over(page) == "play":
        assert len(hand(page)) > 1  # a last card is never South's to click
        page.locator(LEGAL).first.click()
        clicks += 1
    assert clicks == deal_turns(page) <= 12
    match_id = page.evaluate("localStorage.getItem('gongzhu.match')")
    record = api_get(page, f"/api/matches/{match_id}/deals/0")
    assert record["end"]["type"] == "settled" and record["end"]["reason"] in ("forced", "nothing_scores")
    assert record["end"]["from_play"] <= 48  # at the start of the last trick at the latest
    check_results(page, server)


def test_the_summary_breaks_each_score_down(page_factory: Any, server: str) -> None:
    """After a deal each seat's raw score is shown part by part as the rules core adds it up, with
    how far each total is from the match's limit and what 生涯计分 is."""
    page = page_factory(1280, 800)
    new_match(page)
    assert page.locator("[data-points]").count() == 4  # the deal's points so far, each seat
    assert page.locator('[data-to-go="S"]').text_content() == "距终点 1000"
    play_deal_by_clicking(page)
    check_results(page, server)
    match_id = page.evaluate("localStorage.getItem('gongzhu.match')")
    deal = replay(api_get(page, f"/api/matches/{match_id}/deals/0"))
    page.click("#summary-close")
    for s, seat in enumerate(SEATS):  # after the deal: its raw scores, as the cards taken make them
        assert page.locator(f'[data-points="{seat}"]').text_content() == (
            f"本副 {'+' if deal.score.raw[s] > 0 else ''}{deal.score.raw[s]}".replace("-", "−")
        )
    page.click("#show-summary")
    score = deal.score
    for s, seat in enumerate(SEATS):
        row = page.locator(f'tr:has([data-deal-result="{seat}"])')
        total = int(row.locator("td").nth(3).text_content() or "")
        assert total == score.result[s]
        assert int(row.locator("td").nth(4).text_content() or "") == total + 1000  # loser at −1000 (R8)
        line = page.locator("#summary-rows .cards-row").nth(s).locator("[data-breakdown]").text_content() or ""
        part = score.parts[s]
        raw = part.raw
        assert line.endswith(f"= {'+' if raw > 0 else '−' if raw < 0 else ''}{abs(raw)}"), line
        hearts = "满红" if part.all_hearts else "红桃"  # a seat that took every heart: 满红 (R6)
        for value, word in ((part.hearts, hearts), (part.pig, "猪"), (part.sheep, "羊")):
            if value and not part.alone:
                assert word in line and f"{abs(value)}" in line, line
        if part.multiplier != 1:
            assert f"× {part.multiplier}" in line, line
    assert "× 12" in (page.locator("#summary-lifetime").text_content() or "")
    assert "−1000" in (page.locator("#summary-goal").text_content() or "")


def test_the_rules_page_in_both_languages(page_factory: Any) -> None:
    """/rules: a how-to-play, then the rule book with every section's heading reachable by its
    number (in 中文, then in English); a refusal's citation opens its section."""
    page = page_factory(1280, 800)
    page.goto("/rules#R5.2")
    wait_for(page, "html[data-rules=zh]")
    assert page.locator("#how-to-play h1").text_content() == "怎么玩拱猪"
    for n in range(1, 13):
        assert page.locator(f'[id="R{n}"]').count() == 1, f"R{n}"
    section = page.locator('[id="R5.2"]')
    assert re.search(r"[\u4e00-\u9fff]", section.text_content() or "")
    assert section.is_visible() and section.evaluate("e => e.getBoundingClientRect().top") < 200
    page.click("#lang")
    wait_for(page, "html[data-rules=en]")
    assert page.locator("#how-to-play h1").text_content() == "How to play 拱猪"
    assert (page.locator('[id="R5.2"]').text_content() or "").startswith("R5.2 Following and winning")
    # The how-to-play's citations lead into the book.
    page.locator('#how-to-play a[href="#R5.2"]').first.click()
    assert page.evaluate("location.hash") == "#R5.2"


#: The smallest tap target a phone player gets (CSS px), after WCAG 2.5.5 and the platforms' guides.
TAP = 44

# Every control a player can tap now, and each hand card's visible part (the next card of its row
# covers the rest): the size of the part that answers a tap there (checked with elementFromPoint).
TAP_TARGETS = """() => {
  const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden"
    && !e.closest("dialog:not([open]), [hidden], details:not([open]) > :not(summary)");
  const out = [];
  const controls = document.querySelectorAll(
    "button:not(.card), a.button, a[href]:not(.rule-link), select, input, summary, label.toggle");
  for (const e of controls) {
    if (!shown(e) || e.closest("#hand, #toast") || e.matches("input[type=text], input[type=number]")) continue;
    const r = e.getBoundingClientRect();
    out.push({ what: e.id || e.textContent.trim().slice(0, 20) || e.tagName, w: r.width, h: r.height });
  }
  const cards = [...document.querySelectorAll("#hand button[data-card]")];
  cards.forEach((c, i) => {
    c.scrollIntoView({ block: "nearest", inline: "nearest" });
    const r = c.getBoundingClientRect();
    const next = cards[i + 1]?.getBoundingClientRect();
    const sameRow = next && Math.abs(next.top - r.top) < r.height / 2;
    const w = sameRow ? next.left - r.left : r.width;
    const x = r.left + Math.min(w, r.width) / 2, y = r.top + r.height / 2;
    const hit = document.elementFromPoint(x, y);
    out.push({ what: c.dataset.card, w: hit && c.contains(hit) ? w : 0, h: r.height });
  });
  return out;
}"""


def small_targets(page: Page) -> list[dict[str, Any]]:
    targets: list[dict[str, Any]] = page.evaluate(TAP_TARGETS)
    assert targets
    return [t for t in targets if t["w"] < TAP - 0.5 or t["h"] < TAP - 0.5]


@pytest.mark.parametrize("height", [667, 812])
@pytest.mark.parametrize("decks", [1, 2])
def test_phone_taps_are_big_enough(page_factory: Any, server: str, decks: int, height: int) -> None:
    """At 375 px every control and every hand card a player can tap is at least 44 × 44 px (a
    hand card: its visible part), in the exposure phase, the play and the deal's summary."""
    page = page_factory(375, height)
    body = {"preset": "online" if decks == 1 else "online2", "speed": "instant", "seed": 1}
    match_id = api_post(page, "/api/matches", body)["match_id"]
    page.goto(f"/?match={match_id}")
    wait_for(page, in_phase("expose", "play"))
    page.wait_for_timeout(200)
    small = small_targets(page)
    assert small == [], small
    end_exposure(page)
    wait_turn_or_over(page)
    shot(page, f"phone-taps-{decks}-{height}")
    small = small_targets(page)
    assert small == [], small
    # The header's menu (lobby, history, rules, speed, switches, language) folds behind 更多.
    assert not page.locator("#lang").is_visible()
    page.click("#menu-toggle")
    assert page.locator("#lang").is_visible() and page.get_attribute("#menu-toggle", "aria-expanded") == "true"
    small = small_targets(page)
    assert small == [], small
    page.click("#menu-toggle")
    play_deal_by_clicking(page)
    small = small_targets(page)
    assert small == [], small


#: For every visible link styled as a button: how far its label's middle is from the button's.
LABEL_OFF_CENTRE = """() => [...document.querySelectorAll("a.button")].filter(a => a.offsetParent).map(a => {
  const r = a.getBoundingClientRect();
  const range = document.createRange();
  range.selectNodeContents(a);
  const t = range.getBoundingClientRect();
  return { what: a.textContent.trim(), off: Math.abs((t.top + t.bottom) / 2 - (r.top + r.bottom) / 2) };
})"""


def off_centre_labels(page: Page) -> list[dict[str, Any]]:
    labels: list[dict[str, Any]] = page.evaluate(LABEL_OFF_CENTRE)
    assert labels  # there are links styled as buttons to look at
    return [label for label in labels if label["off"] > 2]


def test_link_buttons_centre_their_labels_on_a_phone(page_factory: Any, server: str) -> None:
    """At 375 px a control is at least 44 px high; a link that looks like a button (the lobby's
    Sit, Watch, History…, the summary's records download) has its label in the middle of it, as a
    <button> does, not at its top."""
    page = page_factory(375, 812)
    host = page_factory(1280, 800)
    # A public table, listed with Sit and Watch once its host is at it.
    host.goto(api_post(host, "/api/tables", {"preset": "online"})["url"])
    page.goto("/lobby")
    wait_for(page, ".entry-seat a.button")
    off = off_centre_labels(page)
    assert off == [], off
    match_id = api_post(page, "/api/matches", {"preset": "online", "speed": "instant", "seed": 1})["match_id"]
    page.goto(f"/?match={match_id}")
    wait_for(page, in_phase("expose", "play"))
    end_exposure(page)
    wait_turn_or_over(page)
    play_deal_by_clicking(page)
    shot(page, "phone-summary")  # its table scrolls sideways, with a shadow at the edge still hidden
    off = off_centre_labels(page)
    assert off == [], off


def test_two_decks_fit_a_desktop_screen(page_factory: Any, server: str) -> None:
    """At 1280 × 800 the two-deck hand (26 cards) and the exposure controls are on the screen
    without scrolling, and so is the hand in the play."""
    page = page_factory(1280, 800)
    body = {"preset": "online2", "speed": "instant", "seed": 1}
    match_id = api_post(page, "/api/matches", body)["match_id"]
    page.goto(f"/?match={match_id}")
    wait_for(page, in_phase("expose"))

    def fits() -> None:
        assert page.evaluate("document.scrollingElement.scrollHeight <= innerHeight + 1")
        assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth + 1")
        assert len(hand(page)) >= 25
        for box in [page.locator("#start").bounding_box(), page.locator("#hand").bounding_box()]:
            assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 800, box

    page.screenshot(path=str(ARTIFACTS / "two-decks-1280.png"))  # the screen as the player sees it
    fits()
    end_exposure(page)
    wait_turn_or_over(page)
    assert page.evaluate("document.scrollingElement.scrollHeight <= innerHeight + 1")


def test_exposure_marks_stay_on_their_card(page_factory: Any) -> None:
    """A card marked for exposure is exposed; the mark does not wander onto other cards later.

    The marks were kept by hand position after the exposure phase: as cards were played the
    red 明 badge and the raised, glowing style moved onto whichever card took that position.
    """
    page = page_factory(1280, 800)
    open_setup(page)
    page.select_option("#setup-preset", "online")
    page.select_option("#setup-speed", "instant")
    page.click("details.more summary")
    page.fill("#setup-seed", "1")  # South is dealt an exposable card (♦J) with this seed
    page.click("#setup-go")
    wait_for(page, in_phase("expose"))
    # South declares first: the computer players are not shown deciding meanwhile.
    assert page.eval_on_selector_all(".seat.turn", "es => es.map(e => e.dataset.seat)") == ["S"]
    exposable = page.locator("#hand button.exposable")
    assert exposable.count() >= 1, "seed 1 no longer deals South an exposable card"
    code = exposable.first.get_attribute("data-card")
    exposable.first.click()
    assert page.locator("#hand button.marked").count() == 1
    page.get_by_role("button", name=re.compile(r"^(亮出所选|Expose selected)$")).click()
    wait_for(page, not_in_phase("expose"))
    plays = 0
    while plays < 4 and wait_turn_or_over(page) == "play":
        assert page.locator("#hand button.marked").count() == 0
        badges = page.eval_on_selector_all(
            "#hand .badge", "bs => bs.map(b => [b.parentElement.dataset.card, b.className])"
        )
        # Only the exposed card itself carries a badge, the "exposed" one.
        assert all(card == code and "exposed-badge" in cls for card, cls in badges), badges
        assert page.locator("#seat-S .exposed .chip").count() == 1
        page.locator(LEGAL).first.click()
        plays += 1
    assert plays >= 1


def test_the_s_key_ends_the_exposure_phase(page_factory: Any) -> None:
    """S does what the 不亮 / 亮出所选 button does (the button says so): South declares what is marked
    (here nothing) and the deal is played."""
    page = page_factory(1280, 800)
    open_setup(page)
    page.select_option("#setup-preset", "online")
    page.select_option("#setup-speed", "instant")
    page.click("details.more summary")
    page.fill("#setup-seed", "1")  # South is dealt an exposable card (♦J): the phase waits for South
    page.click("#setup-go")
    wait_for(page, in_phase("expose"))
    start = page.get_by_role("button", name=re.compile(r"^(不亮|Expose none)$"))
    assert start.get_attribute("aria-keyshortcuts") == "S" and "S" in (start.get_attribute("title") or "")
    page.keyboard.press("s")
    wait_for(page, not_in_phase("expose"))
    assert page.locator("#seat-S .exposed .chip").count() == 0  # nothing was marked, nothing exposed


def test_seat_panels_keep_their_height(page_factory: Any) -> None:
    """Every seat keeps a line for the turn flag, so the hand does not jump as the turn passes."""
    page = page_factory(1280, 800)
    new_match(page)
    assert wait_turn_or_over(page) == "play"
    flags = page.eval_on_selector_all(
        ".seat",
        """ss => ss.map(s => {
            const f = s.querySelectorAll('.turn-flag');
            return [s.dataset.seat, f.length, f.length ? f[0].offsetHeight : 0,
                    f.length ? getComputedStyle(f[0]).visibility : ''];
        })""",
    )
    for seat, count, height, visibility in flags:
        assert count == 1 and height > 0, (seat, count, height)
        assert visibility == ("visible" if seat == "S" else "hidden"), (seat, visibility)


def test_language_switch_keeps_the_dialog_choices(page_factory: Any) -> None:
    page = page_factory(1280, 800)
    open_setup(page)
    page.select_option("#setup-preset", "partners")
    page.select_option("#setup-level-E", "expert")
    page.select_option("#setup-speed", "slow")
    page.click("details.more summary")
    page.fill("#setup-seed", "42")
    page.select_option('[data-option="direction"]', json.dumps("cw"))
    page.select_option("#setup-lang", "en")
    assert page.text_content("#setup h2") == "New match"
    assert page.input_value("#setup-preset") == "partners"
    assert page.input_value("#setup-level-E") == "expert"
    assert page.input_value("#setup-speed") == "slow"
    assert page.input_value("#setup-seed") == "42"
    assert page.input_value('[data-option="direction"]') == json.dumps("cw")


def test_a_typed_seed_deals_only_its_own_match(page_factory: Any, server: str) -> None:
    """A seed typed in the new-match dialog deals that match only: the dialog opens empty again
    and the next match is random, until the seed is typed again (it deals the same cards)."""
    page = page_factory(1280, 800)

    def dealt(seed: int | None) -> list[str]:
        # The dialog as it opens: the seed's field empty (read whether "more options" is open or
        # not); start_match opens them only if they are closed, to type the seed there.
        page.wait_for_selector("#setup[open]")
        assert page.input_value("#setup-seed") == ""
        # The hand is read once the new match's own state is shown (start_match waits for it).
        start_match(page, seed=seed)
        assert "seed" not in json.loads(page.evaluate("localStorage.getItem('gongzhu.settings')") or "{}")
        return sorted(hand(page))

    open_setup(page)
    first = dealt(7)
    page.click("#new-match")
    second = dealt(None)
    page.click("#new-match")
    third = dealt(7)
    assert first == third
    assert second != first


def test_fixed_number_of_deals_needs_the_number(page_factory: Any, server: str) -> None:
    page = page_factory(1280, 800)
    open_setup(page)
    before = len(api_get(page, "/api/matches"))
    page.click("details.more summary")
    page.select_option('[data-option="match_end"]', json.dumps("deals:N"))
    page.click("#setup-go")
    wait_for(page, "#setup-error:not(:empty)")
    assert page.evaluate("document.getElementById('setup').open")
    assert len(api_get(page, "/api/matches")) == before
    page.fill('[data-option-count="match_end"]', "2")
    page.click("#setup-go")
    wait_for(page, in_phase("expose", "play"))
    match_id = page.evaluate("localStorage.getItem('gongzhu.match')")
    assert api_get(page, f"/api/matches/{match_id}")["options"]["match_end"] == "deals:2"


def test_history_lists_replays_and_downloads(page_factory: Any, server: str) -> None:
    """The history page: a finished deal's match is listed with its rules (the preset
    and what was changed on top of it, R9/R10), its replay steps trick by trick to the end, and
    the JSON Lines download holds the deal's R11 record."""
    page = page_factory(1280, 800)
    body = {"preset": "online", "options": {"direction": "cw"}, "speed": "instant", "seed": 5}
    match_id = api_post(page, "/api/matches", body)["match_id"]
    page.goto(f"/?match={match_id}")
    end_exposure(page)
    assert play_deal_by_clicking(page) == deal_turns(page)
    page.goto("/history")
    row = page.locator("#match-rows tr", has=page.locator(f'a[href$="{match_id}/records.jsonl"]'))
    row.wait_for()
    rules = row.locator("td").nth(1).text_content() or ""
    assert re.search(r"(出牌方向：顺时针|Direction of play: clockwise)", rules), rules
    row.get_by_role("button").first.click()
    dialog = page.locator("#replay[open]")
    dialog.wait_for()
    dialog.locator('[data-step="next"]').click()
    assert re.search(r"(第 1/13 圈|Trick 1/13)", dialog.locator(".replay-step").text_content() or "")
    dialog.locator('[data-step="last"]').click()
    assert re.search(r"(第 13/13 圈|Trick 13/13)", dialog.locator(".replay-step").text_content() or "")
    shot(page, "history-replay")
    href = row.locator('a[href$="records.jsonl"]').get_attribute("href") or ""
    with urllib.request.urlopen(server + href, timeout=10) as res:
        lines = res.read().decode("utf-8").splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert record["options"]["direction"] == "cw" and len(record["tricks"]) == 13
    assert replay(record).score.final == tuple(record["final"][s] for s in SEATS)


# The page's own site policy (docs/web-protocol.md, Limits and the origin policy): the
# Content-Security-Policy allows only the server's own scripts, styles and connections and no
# framing.  A page that used something the policy forbids (an inline style attribute, an inline
# script or event handler, eval, a connection elsewhere) would be broken in the browser, so every
# refusal is collected from the page: its securitypolicyviolation events and the console lines
# the browser writes for them.

CSP_WATCH = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push({ directive: e.effectiveDirective, blocked: e.blockedURI,
                                source: e.sourceFile, line: e.lineNumber, sample: e.sample });
}, true);
"""


class PolicyWatch:
    """The Content-Security-Policy refusals seen on one page, across its navigations."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.events: list[dict[str, Any]] = []
        self.console: list[str] = []
        page.add_init_script(CSP_WATCH)
        page.on("console", self._console)
        page.on("pageerror", lambda error: self._note(str(error)))

    def _console(self, message: ConsoleMessage) -> None:
        self._note(message.text)

    def _note(self, text: str) -> None:
        if "Content Security Policy" in text:
            self.console.append(text)

    def collect(self) -> None:
        """Take the refusals the current document recorded (before it is left)."""
        seen: list[dict[str, Any]] = self.page.evaluate("window.__cspViolations.splice(0)")
        self.events.extend(seen)

    def found(self) -> list[Any]:
        self.collect()
        return [*self.events, *self.console]


def check_policy_headers(response: Response | None) -> None:
    """The page came with the server's Content-Security-Policy, X-Frame-Options and nosniff."""
    assert response is not None and response.ok
    headers = response.headers  # names in lower case
    for name, value in SECURITY_HEADERS:
        assert headers.get(name.decode()) == value.decode(), name
    csp = {d.split()[0]: d.split()[1:] for d in headers["content-security-policy"].split(";") if d.strip()}
    for directive in ("default-src", "script-src", "style-src", "connect-src"):
        assert csp[directive] == ["'self'"], (directive, csp[directive])
    assert csp["frame-ancestors"] == ["'none'"]
    assert headers["x-frame-options"] == "DENY"
    assert headers["x-content-type-options"] == "nosniff"


def test_pages_keep_to_their_content_security_policy(page_factory: Any, server: str) -> None:
    """A whole deal on the table page, its replay, the history page and a replay there: the
    pages carry the policy headers and the browser refuses nothing they do."""
    page = page_factory(1280, 800)
    watch = PolicyWatch(page)
    check_policy_headers(open_setup(page))
    page.select_option("#setup-lang", "en")  # the whole page is written again in English
    start_match(page)
    assert play_deal_by_clicking(page) == deal_turns(page)
    check_results(page, server)
    match_id = page.evaluate("localStorage.getItem('gongzhu.match')")
    page.locator("#summary[open]").wait_for()
    page.click("#summary-replay")
    dialog = page.locator("#replay[open]")
    dialog.wait_for()
    dialog.locator('[data-step="last"]').click()
    assert re.search(r"(第 13/13 圈|Trick 13/13)", dialog.locator(".replay-step").text_content() or "")
    watch.collect()

    check_policy_headers(page.goto("/history"))
    row = page.locator("#match-rows tr", has=page.locator(f'a[href$="{match_id}/records.jsonl"]'))
    row.wait_for()
    row.get_by_role("button").first.click()
    dialog = page.locator("#replay[open]")
    dialog.wait_for()
    dialog.locator('[data-step="next"]').click()
    dialog.locator('[data-step="last"]').click()
    assert re.search(r"(第 13/13 圈|Trick 13/13)", dialog.locator(".replay-step").text_content() or "")
    dialog.locator(".replay-close").click()
    page.click("#lang")
    assert watch.found() == []

    # The watch does see a refusal: an inline style attribute is refused and reported both ways.
    with page.expect_console_message(lambda m: "Content Security Policy" in m.text):
        directive = page.evaluate("""() => new Promise((resolve) => {
            document.addEventListener("securitypolicyviolation", (e) => resolve(e.effectiveDirective), { once: true });
            document.body.insertAdjacentHTML("beforeend", '<i style="color: red"></i>');
        })""")
    assert directive == "style-src-attr"
    assert [e["directive"] for e in watch.found() if isinstance(e, dict)] == ["style-src-attr"]


# A page of another site (another loopback port) that frames the table page and opens a
# WebSocket to the game server: the browser refuses the frame (frame-ancestors 'none',
# X-Frame-Options: DENY) and sends the other site's Origin, which the server refuses.

SOCKET_PROBE = """(url) => new Promise((resolve) => {
  const events = [];
  const ws = new WebSocket(url);
  ws.onopen = () => { events.push("open"); ws.close(); };
  ws.onerror = () => events.push("error");
  ws.onclose = (e) => { events.push(`close ${e.code}`); resolve(events); };
})"""


@pytest.fixture
def other_site() -> Iterator[tuple[str, dict[str, str]]]:
    """A plain HTTP server on another loopback port: its base URL and the pages it serves
    (path -> HTML), filled in by the test."""
    pages: dict[str, str] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path)
            if body is None:
                self.send_error(404)
                return
            data = body.encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, name="other-site", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", pages
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(10)


def test_another_site_can_neither_frame_the_table_nor_open_its_socket(
    page_factory: Any, server: str, other_site: tuple[str, dict[str, str]]
) -> None:
    page = page_factory(1280, 800)  # the person who plays the match
    match_id = api_post(page, "/api/matches", {"preset": "online", "speed": "instant"})["match_id"]
    socket_url = server.replace("http://", "ws://", 1) + f"/ws/{match_id}"
    other, pages = other_site
    assert other != server
    pages["/"] = (
        '<!doctype html><meta charset="utf-8"><title>another site</title>\n'
        f'<iframe id="table" src="{server}/?match={match_id}"></iframe>\n'
        f"<script>window.socketEvents = ({SOCKET_PROBE})({json.dumps(socket_url)});</script>\n"
    )

    foreign = page_factory(1280, 800)
    refusals: list[str] = []
    foreign.on("console", lambda m: refusals.append(m.text))
    foreign.goto(f"{other}/")  # waits for the load event, which waits for the frame
    # The other site's page opened the socket itself, with its own Origin: the server answered
    # the handshake with 403, the socket never opened.
    assert foreign.evaluate("window.socketEvents") == ["error", "close 1006"]
    assert any("WebSocket" in text and "403" in text for text in refusals), refusals
    # The frame holds no table: the browser refused to show the page inside another site's.
    frame = foreign.frame(name="table")
    assert frame is not None and not frame.url.startswith(server), frame and frame.url
    assert foreign.frame_locator("#table").locator("#setup, #hand").count() == 0
    assert any("frame-ancestors 'none'" in text for text in refusals), refusals

    # The game's own page connects to the same match, and so does a socket opened from it.
    page.goto(f"/?match={match_id}")
    wait_for(page, in_phase("expose", "play"))
    assert page.evaluate(SOCKET_PROBE, socket_url)[0] == "open"


def test_a_hint_ranks_the_legal_plays_and_plays_one(page_factory: Any, server: str) -> None:
    """The hint button shows the server's ranking of the position on the table (the hint names
    that position; the page keeps it), and a ranked play plays it."""
    page = page_factory(1280, 800)
    new_match(page)
    assert wait_turn_or_over(page) == "play"
    legal = sorted(page.eval_on_selector_all(LEGAL, "bs => bs.map(b => b.dataset.card)"))
    cards_before = len(hand(page))
    page.click("#hint")
    wait_for(page, "#hint-list button.hint-play")
    ranked = page.eval_on_selector_all("#hint-list button.hint-play", "bs => bs.length")
    assert ranked == len(legal)
    # the numbers say what they are: the expected result of the deal for the seat, in raw points
    explain = page.text_content("#hint-explain") or ""
    assert "原始分" in explain and "越高越好" in explain
    assert page.get_attribute("#hint-list .expected", "title") == explain
    page.locator("#hint-list button.hint-play").first.click()
    wait_for(page, f"{in_phase(*OVER)}, #hand:not(:has(button[data-card]:nth-child({cards_before})))")
    assert len(hand(page)) == cards_before - 1


#: Records every drawing of the hint box: who ranked the plays (data-source), the label saying so,
#: and the plays listed.
HINT_LOG = """() => {
  window.hintLog = [];
  const box = document.getElementById("hints");
  const note = () => window.hintLog.push({
    source: box.getAttribute("data-source"),
    label: document.getElementById("hint-source").textContent,
    plays: [...document.querySelectorAll("#hint-list button.hint-play")].map((b) => b.textContent),
  });
  new MutationObserver(note).observe(box, { subtree: true, childList: true, attributes: true, characterData: true });
}"""


def _pretty(code: str) -> str:
    return "♠♥♣♦"["SHCD".index(code[1])] + ("10" if code[0] == "T" else code[0])


def test_a_hint_shows_the_networks_ranking_then_the_experts(page_factory: Any, server: str) -> None:
    """Hint asks for both rankings at once: the network's is shown first, marked as the quick
    one, and the expert's replaces it; both list exactly South's legal plays (no card of another
    hand), and a network ranking never comes back over the expert's."""
    page = page_factory(1280, 800)
    new_match(page)
    assert wait_turn_or_over(page) == "play"
    legal = sorted(_pretty(c) for c in page.eval_on_selector_all(LEGAL, "bs => bs.map(b => b.dataset.card)"))
    page.evaluate(HINT_LOG)
    page.keyboard.press("h")
    wait_for(page, '#hints[data-source="search"] #hint-list button.hint-play')
    log: list[dict[str, Any]] = page.evaluate("window.hintLog")
    shown = [entry for entry in log if entry["plays"]]
    sources = [entry["source"] for entry in shown]
    assert sources[0] == "network" and sources[-1] == "search", sources
    first_search = sources.index("search")
    assert set(sources[first_search:]) == {"search"}, sources  # the expert's ranking is not replaced
    for entry in shown:
        # Exactly South's legal plays (one deck: one card each), so no card of a hand the person
        # cannot see.
        assert sorted(entry["plays"]) == legal, entry
        label = "快速提示" if entry["source"] == "network" else "高手提示（细想）"
        assert entry["label"].startswith(label), entry
        assert not any(m in entry["label"] for m in ("神经网络", "搜索）", "network", "search)")), entry  # no method
    assert "高手还在搜索" in shown[0]["label"]
    assert page.text_content("#hint-source") == "高手提示（细想）"
    assert page.is_visible("#hint-source")
    page.click("#hint-close")
    assert page.is_hidden("#hints")


def test_the_match_summary_reveals_the_seed_committed_to(page_factory: Any) -> None:
    """Fair dealing: the header names the commitment to the match's cards from its start; when the
    match is over its summary reveals the seed, with a link that checks every deal against both."""
    page = page_factory(1280, 800)
    open_setup(page)
    start_match(page, deals=1)
    title = page.locator("#table-info").get_attribute("title") or ""
    commitment = page.evaluate("import('/static/state.js').then(({ page }) => page.state.table.commitment)")
    assert len(commitment) == 64 and commitment in title, title
    play_deal_by_clicking(page)
    wait_for(page, in_phase("match-over"))
    wait_for(page, "#summary[open] #summary-verify")
    fair = page.locator("#summary-match .fair-dealing").text_content() or ""
    seed = page.evaluate("import('/static/state.js').then(({ page }) => page.state.table.seed)")
    assert seed in fair and commitment[:16] in fair, fair
    href = page.locator("#summary-verify").get_attribute("href") or ""
    checked = api_get(page, href)
    assert (checked["commitment"], checked["seed"], checked["verified"]) == (commitment, seed, 1), checked
    # Pressed, the check is said in words on the summary (no page of JSON to read)
    page.click("#summary-verify")
    wait_for(page, "#summary-verified:has-text('已核对')")
    assert (page.locator("#summary-verified").text_content() or "").startswith("已核对：1 副全部由这颗种子发出")
    assert len(page.context.pages) == 1
    shot(page, "fair-dealing-summary")
