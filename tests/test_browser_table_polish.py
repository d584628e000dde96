"""Real-browser tests of the table page's finer points: Playwright driving Debian's Chromium.

- R8: a seat whose total is past the match's limit says that it has reached it (已达分数线 /
  limit reached), on its plate and in the deal's summary, never a distance below zero; the other
  seats keep their distance (距终点 n / n to the limit).
- On a desktop the hint line opens and closes without moving anything on the table: the trick,
  the seat plates, the status line and the hand stay where they were.
- The gold dot under the card that led the trick says what it is, in the page's language, as a
  tooltip and to a screen reader (an image named 北 领出这一圈 / North led this trick), on the
  table and in the deal's replay.
- A phone on its side (667 × 375) in Chinese: a side plate with three exposed cards and fourteen
  point cards taken, idle and on its turn, fits the screen with the rest of the table.
- Two decks at 320 × 568 in English: a hint whose top play is two cards (a pair) shows its
  reason on two lines beside the play, readable, with nothing outside the screen.
- The hint's 更多 / More says 收起 / Less while its list is open, aria-expanded in step.
- On a phone in Chinese the last trick's caption keeps its phrases whole (上一圈： / 南 赢).

The browser, the server and the pages come from ``conftest.py``; every layout checked is saved as
a screenshot in ``test-artifacts/`` (``polish-*.png``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from gongzhu.messages import catalog, render
from helpers.browser import VISIBLE_BOX_JS, api_post, in_phase, not_in_phase, phase, wait_for

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
SEATS = ("N", "E", "S", "W")
LEGAL = '#hand button[data-card][aria-disabled="false"]'
OVER = ("deal-over", "match-over")
EXPOSING = 'html[data-phase="expose"] #start:not([hidden])'
#: A phone's browser: a touch screen, the page zoomed out where it is wider than the screen.
PHONE = {"is_mobile": True, "has_touch": True, "device_scale_factor": 2}
#: A number below zero, with an ASCII or a true minus sign.
NEGATIVE = re.compile(r"[-−]\s*\d")


def shot(page: Page, name: str) -> None:
    """The screen as the player sees it (no scrolling: the viewport only)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"polish-{name}.png"))
def open_match(page: Page, preset: str, *, lang: str, seed: int = 1, options: dict[str, Any] | None = None) -> None:
    """A single-player match of ``preset`` at the instant speed, in ``lang``: the page open on it."""
    page.goto("/")
    page.wait_for_selector("#setup[open]")  # the page has its session: the match below is its person's
    page.evaluate(f"localStorage.setItem('gongzhu.settings', JSON.stringify({{lang: {json.dumps(lang)}}}))")
    body: dict[str, Any] = {"preset": preset, "speed": "instant", "seed": seed}
    if options:
        body["options"] = options
    match_id = api_post(page, "/api/matches", body)["match_id"]
    page.goto(f"/?match={match_id}")
    wait_for(page, in_phase("expose", "play"))


def end_exposure(page: Page) -> None:
    """South exposes nothing (a hand with nothing to expose declares by itself)."""
    wait_for(page, f"{EXPOSING}, {in_phase('play')}")
    if page.locator(EXPOSING).count():
        page.click("#start")
    wait_for(page, not_in_phase("expose"))


def wait_turn_or_over(page: Page) -> str:
    """Wait until South may play (returns "play") or the deal is over (returns the phase)."""
    wait_for(page, f'{in_phase(*OVER)}, html[data-phase="play"] {LEGAL}')
    return phase(page)


def play_first(page: Page) -> None:
    """Play the first legal card (two decks: the first play offered where it begins several)."""
    page.locator(LEGAL).first.click()
    if page.locator("#choices:not([hidden]) button").count():
        page.locator("#choices button").first.click()


def play_out(page: Page) -> None:
    """South plays its first legal card each turn until the deal is over."""
    while wait_turn_or_over(page) == "play":
        if page.locator("#hand button[data-card]").count() == 1:
            wait_for(page, in_phase(*OVER))
            break
        play_first(page)


def settle(page: Page) -> None:
    """Let the page lay itself out again (two frames)."""
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


STATE = "() => import('/static/state.js').then(({ page }) => page.state)"


# ------------------------------------------------------------------ R8: past the match's limit

# Each seat's distance to the limit as its plate and the summary's row say it.
TO_GO = """() => Object.fromEntries(["N", "E", "S", "W"].map((seat) => {
  const plate = document.querySelector(`[data-to-go="${seat}"]`);
  const row = document.querySelector(`#summary-rows [data-deal-result="${seat}"]`)?.closest("tr");
  return [seat, { plate: plate?.textContent ?? null, summary: row?.lastElementChild.textContent ?? null }];
}))"""


def check_to_go(page: Page, lang: str, to_go: dict[str, int], *, summary: bool) -> None:
    seen: dict[str, dict[str, str | None]] = page.evaluate(TO_GO)
    where = (lang, to_go, seen)
    # Never a distance below zero, on a plate or in the summary.
    for seat in SEATS:
        assert seen[seat]["plate"] is not None and not NEGATIVE.search(seen[seat]["plate"] or ""), where
        if summary:
            assert seen[seat]["summary"] is not None and not NEGATIVE.search(seen[seat]["summary"] or ""), where
    for seat, n in to_go.items():
        if n <= 0:  # reached (or past) the limit: said in words
            assert seen[seat]["plate"] == catalog(lang)["seat.limitReached"], where
            if summary:
                assert seen[seat]["summary"] == catalog(lang)["summary.limitReached"], where
        else:  # still short of it: the distance
            assert seen[seat]["plate"] == render("seat.toGo", lang, {"n": n}), where
            if summary:
                assert seen[seat]["summary"] == str(n), where


def test_a_seat_past_the_limit_says_it_has_reached_it(page_factory: Any) -> None:
    """R8: a match to a limit of 10 ends with its first deal, a seat's total past −10: that seat's
    plate and its row of the summary say it reached the limit (已达分数线 / limit reached), in
    Chinese and in English, where a distance below zero showed; the others say their distance."""
    page = page_factory(1280, 800)
    open_match(page, "online", lang="zh", options={"match_limit": 10})
    end_exposure(page)
    play_out(page)
    wait_for(page, 'html[data-phase="match-over"] #summary[open]')
    state: dict[str, Any] = page.evaluate(STATE)
    goal = state["goal"]
    assert goal["kind"] == "loser" and goal["limit"] == 10, goal
    to_go: dict[str, int] = goal["to_go"]
    assert min(to_go.values()) < 0, to_go  # a seat past the limit, not only at it
    shot(page, "limit-summary-zh")
    check_to_go(page, "zh", to_go, summary=True)
    # In English: the plates (the summary put away, the language switched), then the summary again.
    page.click("#summary-close")
    wait_for(page, "#summary:not([open])")
    page.click("#lang")
    wait_for(page, "html[lang=en]")
    check_to_go(page, "en", to_go, summary=False)
    shot(page, "limit-plates-en")
    page.click("#show-summary")
    wait_for(page, "#summary[open]")
    check_to_go(page, "en", to_go, summary=True)


# ------------------------------------------------------------------ the hint line on a desktop

# Where the table's parts are, to a tenth of a pixel.
TABLE_BOXES = """() => Object.fromEntries(
  [".table", "#center", "#seat-N", "#seat-E", "#seat-S", "#seat-W", ".controls", "#status", "#hand"].map((s) => {
    const r = document.querySelector(s).getBoundingClientRect();
    return [s, [r.left, r.top, r.width, r.height].map((v) => Math.round(v * 10) / 10)];
  }))"""


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (1024, 768)])
def test_the_hint_line_does_not_move_the_table_on_a_desktop(page_factory: Any, width: int, height: int) -> None:
    """On a desktop, asking for a hint (H) shows the hint line above the hand without moving the
    trick, the seat plates, the status line or the hand; closing it moves nothing either."""
    page = page_factory(width, height)
    open_match(page, "online", lang="zh", seed=3)
    end_exposure(page)
    assert wait_turn_or_over(page) == "play"
    settle(page)
    before = page.evaluate(TABLE_BOXES)
    page.keyboard.press("h")
    wait_for(page, '#hints[data-source="search"] #hint-list button.hint-play')
    settle(page)
    shot(page, f"hint-desktop-{width}x{height}")
    assert page.locator("#hints").is_visible()
    assert page.evaluate(TABLE_BOXES) == before
    hints = page.locator("#hints").bounding_box()
    hand = page.locator("#hand").bounding_box()
    assert hints is not None and hand is not None and hints["y"] + hints["height"] <= hand["y"] + 2, (hints, hand)
    page.click("#hint-close")
    wait_for(page, "#hints[hidden]")
    settle(page)
    assert page.evaluate(TABLE_BOXES) == before


# ------------------------------------------------------------------ the leader's dot

# The trick's leader, as the state says and as the page marks it: the mark's tooltip and name.
LEAD_MARK = """(root) => {
  const marks = [...document.querySelectorAll(`${root} .slot .lead-mark`)];
  const slot = marks[0]?.closest(".slot");
  return { count: marks.length, leaderSlots: document.querySelectorAll(`${root} .slot.leader`).length,
    // (the table's slots name their seat; the replay's are placed by it, slot-N …)
    seat: slot ? slot.dataset.seat ?? slot.className.match(/\\bslot-([NESW])\\b/)?.[1] : null,
    slotClass: slot?.className ?? null,
    title: marks[0]?.title ?? null, label: marks[0]?.getAttribute("aria-label") ?? null,
    role: marks[0]?.getAttribute("role") ?? null, shown: Boolean(marks[0]?.getClientRects().length) };
}"""


def check_lead_mark(page: Page, root: str, lang: str, leader: str, where: str) -> None:
    seen: dict[str, Any] = page.evaluate(LEAD_MARK, root)
    assert seen["count"] == 1 and seen["leaderSlots"] == 1 and seen["shown"], (where, seen)
    assert seen["seat"] == leader and "leader" in seen["slotClass"].split(), (where, leader, seen)
    text = render("center.leader", lang, {"seat": catalog(lang)[f"seat.{leader}"]})
    assert seen["title"] == text and seen["label"] == text and seen["role"] == "img", (where, text, seen)
    assert page.locator(f"{root} .slot").get_by_role("img", name=text, exact=True).count() == 1, where


def test_the_leaders_dot_says_who_led_the_trick(page_factory: Any) -> None:
    """The gold dot under the card that led the trick is an image named, and titled, for what it
    is: 北 领出这一圈 in Chinese, North led this trick in English; so is the replay's."""
    page = page_factory(1280, 800)
    open_match(page, "online", lang="zh", seed=5)
    end_exposure(page)
    # Play until the trick on the table was led by another seat (its card under South's turn).
    while wait_turn_or_over(page) == "play" and not page.locator("#center .slot").count():
        play_first(page)
    assert phase(page) == "play"
    trick = page.evaluate(STATE)["trick"]
    leader = trick["leader"]
    assert page.locator(f'#center .slot[data-seat="{leader}"]').count() == 1, trick
    shot(page, "leader-zh")
    check_lead_mark(page, "#center", "zh", leader, "table, zh")
    page.click("#lang")
    wait_for(page, "html[lang=en]")
    check_lead_mark(page, "#center", "en", leader, "table, en")
    # The deal's replay, at its first trick: that trick's leader (the first lead of the deal).
    play_out(page)
    wait_for(page, "#summary[open]")
    page.click("#summary-replay")
    wait_for(page, "dialog.replay[open]")
    page.click('dialog.replay [data-step="next"]')
    wait_for(page, "dialog.replay[open] .rcenter .slot")
    shown = page.evaluate("() => document.querySelector('dialog.replay .rcenter .slot.leader')?.className ?? ''")
    record_leader = re.search(r"slot-([NESW])", shown)
    assert record_leader, shown
    check_lead_mark(page, "dialog.replay .rcenter", "en", record_leader.group(1), "replay, en")


# ------------------------------------------------------------------ a tall plate on a phone on its side

# The server's state of the table, with `seat` holding three exposed cards and fourteen point
# cards taken (and, with `turn`, that seat to play); drawn, then where everything is.
TALL_PLATE = "async ([seat, turn]) => {\n" + VISIBLE_BOX_JS + """  const state = await import("/static/state.js");
  const s = structuredClone(state.page.state);
  s.exposures = [["QS", "shown"], ["TC", "shown"], ["AH", "shown"]].map(([card, kind]) => ({ seat, card, kind }));
  s.captured = { N: [], E: [], S: [], W: [] };
  s.captured[seat] = ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH", "AH", "QS"];
  s.points = { N: 0, E: 0, S: 0, W: 0, [seat]: -1200 };
  s.turn = turn ? seat : "S";
  state.applyServerState(s);
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  const plate = document.getElementById(`seat-${seat}`);
  return {
    W: innerWidth, H: innerHeight, scrollHeight: document.scrollingElement.scrollHeight,
    scrollWidth: document.scrollingElement.scrollWidth,
    chips: plate.querySelectorAll(".exposed .chip").length,
    minis: plate.querySelectorAll(".captured [data-mini]").length,
    flag: plate.querySelector(".turn-flag:not(.idle)")?.textContent ?? null,
    parts: Object.fromEntries(["#seat-N", "#seat-E", "#seat-S", "#seat-W", "#center", "#status", "#hand", ".table"]
      .map((s) => [s, box(document.querySelector(s))])),
    minisInside: [...plate.querySelectorAll(".captured [data-mini]")].every((m) => {
      const r = m.getBoundingClientRect(), p = plate.getBoundingClientRect();
      return r.left >= p.left - 0.5 && r.right <= p.right + 0.5 && r.top >= p.top - 0.5 && r.bottom <= p.bottom + 0.5;
    }),
    cards: [...document.querySelectorAll("#hand button[data-card]")].map((c) => {
      const r = c.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + 22, r.top + 22);
      return { card: c.dataset.card, tapped: Boolean(hit && c.contains(hit)), bottom: r.bottom };
    }),
  };
}"""


def test_a_tall_side_plate_fits_a_phone_on_its_side(page_factory: Any) -> None:
    """A phone on its side (667 × 375) in Chinese: a seat with three exposed cards (明) and
    fourteen point cards taken fits on the screen, its plate and every other part of the table
    inside it, nothing to scroll and every hand card reached by a tap, whichever seat it is,
    idle and on its turn."""
    w, h = 667, 375
    page = page_factory(w, h, **PHONE)
    open_match(page, "online", lang="zh", seed=1)
    end_exposure(page)
    assert wait_turn_or_over(page) == "play"
    for seat in ("E", "W", "N"):
        for turn in (False, True):
            where = f"{seat}{'-turn' if turn else ''}"
            seen: dict[str, Any] = page.evaluate(TALL_PLATE, [seat, turn])
            shot(page, f"tall-plate-{w}x{h}-{where}")
            assert seen["chips"] == 3 and seen["minis"] == 14, (where, seen)
            assert (seen["flag"] is not None) == turn, (where, seen)
            assert seen["scrollHeight"] <= h and seen["scrollWidth"] <= w, (where, seen)
            off = {k: b for k, b in seen["parts"].items()
                   if b is None or b["top"] < -0.5 or b["left"] < -0.5 or b["bottom"] > h + 0.5 or b["right"] > w + 0.5}
            assert not off, (where, off)
            assert seen["minisInside"], (where, seen)
            untapped = [c["card"] for c in seen["cards"] if not c["tapped"] or c["bottom"] > h + 0.5]
            assert seen["cards"] and not untapped, (where, untapped)


# ------------------------------------------------------------------ a pair's hint at 320 px

# The hint line's top play: its parts' boxes, and how much of the reason shows (the characters
# drawn inside the reason's box, and on how many lines).
HINT_REASON = "() => {\n" + VISIBLE_BOX_JS + """  const top = document.querySelector("#hint-list li:first-child");
  const reason = top.querySelector(".reason");
  const area = reason.getBoundingClientRect();
  const text = reason.firstChild;
  let shown = 0;
  const lines = new Set();
  const range = document.createRange();
  for (let i = 0; text && i < text.length; i++) {
    range.setStart(text, i);
    range.setEnd(text, i + 1);
    const r = [...range.getClientRects()][0];
    if (!r || r.width === 0) continue;
    const middle = (r.top + r.bottom) / 2;
    if (r.left >= area.left - 0.5 && r.right <= area.right + 0.5 && middle >= area.top && middle <= area.bottom) {
      shown += 1;
      lines.add(Math.round(r.top));
    }
  }
  return {
    W: innerWidth, H: innerHeight, scrollWidth: document.scrollingElement.scrollWidth,
    scrollHeight: document.scrollingElement.scrollHeight,
    cards: top.querySelector(".hint-play").textContent.trim().split(/\\s+/).length,
    text: reason.textContent, shown, lines: lines.size, fontSize: parseFloat(getComputedStyle(reason).fontSize),
    line: box(document.getElementById("hints")), play: box(top.querySelector(".hint-play")),
    expected: box(top.querySelector(".expected")), reason: box(reason),
    more: box(document.getElementById("hint-more")), close: box(document.getElementById("hint-close")),
    hand: box(document.getElementById("hand")),
  };
}"""


def apart(a: dict[str, float], b: dict[str, float]) -> bool:
    return a["right"] <= b["left"] + 0.5 or b["right"] <= a["left"] + 0.5 or a["bottom"] <= b["top"] + 0.5 \
        or b["bottom"] <= a["top"] + 0.5


def inside(b: dict[str, float] | None, outer: dict[str, float]) -> bool:
    return b is not None and b["left"] >= outer["left"] - 0.5 and b["right"] <= outer["right"] + 0.5 \
        and b["top"] >= outer["top"] - 0.5 and b["bottom"] <= outer["bottom"] + 0.5


def test_a_pairs_hint_shows_its_reason_at_320(page_factory: Any) -> None:
    """Two decks at 320 × 568 in English on a touch screen: a hint whose top play is two cards (a
    pair, ♥Q ♥Q, or two following one) shows its reason readably beside the play, under its
    expected result — on two lines at least 100 px wide, 32 characters of it or more, at 12 px or
    more — with the hint line, its buttons and the hand inside the screen and nothing to scroll."""
    w, h = 320, 568
    page = page_factory(w, h, **PHONE)
    open_match(page, "online2", lang="en", seed=1)
    end_exposure(page)
    seen: dict[str, Any] | None = None
    while wait_turn_or_over(page) == "play" and page.locator("#hand button[data-card]").count() > 1:
        page.click("#hint")
        wait_for(page, '#hints[data-source="search"] #hint-list button.hint-play')
        settle(page)
        now: dict[str, Any] = page.evaluate(HINT_REASON)
        if now["cards"] == 2 and len(now["text"]) >= 34:  # more than a line's worth
            seen = now
            break
        play_first(page)
    assert seen is not None, "no hint of a pair with a reason to read in the deal"
    shot(page, f"pair-hint-{w}x{h}")
    screen: dict[str, float] = {"left": 0, "top": 0, "right": w, "bottom": h}
    assert seen["W"] == w and seen["scrollWidth"] <= w and seen["scrollHeight"] <= h, seen
    # The reason: readable, not cut to a few letters: on two lines, at least 32 characters of it.
    assert seen["shown"] >= 32 and seen["lines"] == 2 and seen["reason"]["width"] >= 100, seen
    assert seen["fontSize"] >= 11.95, seen
    # Inside the hint line, clear of the play, the expected result and the buttons; the line inside
    # the screen and above the hand.
    for part in ("play", "expected", "reason", "more", "close"):
        assert inside(seen[part], seen["line"]), (part, seen)
    for part in ("play", "expected", "more", "close"):
        assert apart(seen["reason"], seen[part]), (part, seen)
    assert inside(seen["line"], screen) and seen["line"]["bottom"] <= seen["hand"]["top"] + 2, seen
    assert inside(seen["hand"], screen), seen


# ------------------------------------------------------------------ the hint's More / Less

HINT_MORE = """() => {
  const more = document.getElementById("hint-more");
  const label = more.querySelector(".more-label");
  return { expanded: more.getAttribute("aria-expanded"), title: more.title,
    label: label?.textContent ?? null, labelShown: Boolean(label?.getClientRects().length),
    open: document.getElementById("hints").classList.contains("open") };
}"""


@pytest.mark.parametrize(("width", "height", "lang"), [(1280, 800, "en"), (390, 844, "zh")])
def test_the_hints_more_button_says_less_while_the_list_is_open(
    page_factory: Any, width: int, height: int, lang: str
) -> None:
    """The hint's 更多 / More opens the whole ranked list and then says 收起 / Less (on a phone too,
    where the closed line shows only the count), aria-expanded in step; pressed again it folds the
    list and says 更多 / More."""
    page = page_factory(width, height, **(PHONE if width < 600 else {}))
    open_match(page, "online", lang=lang, seed=3)
    end_exposure(page)
    assert wait_turn_or_over(page) == "play"
    page.click("#hint")
    wait_for(page, '#hints[data-source="search"] #hint-list button.hint-play')
    more, less = render("btn.menu", lang), render("btn.less", lang)
    closed: dict[str, Any] = page.evaluate(HINT_MORE)
    assert closed["expanded"] == "false" and closed["title"] == more and closed["label"] == more, closed
    assert closed["labelShown"] == (width >= 600), closed
    page.click("#hint-more")
    opened: dict[str, Any] = page.evaluate(HINT_MORE)
    shot(page, f"hint-less-{lang}-{width}x{height}")
    assert opened["open"] and opened["expanded"] == "true", opened
    assert opened["title"] == less and opened["label"] == less and opened["labelShown"], opened
    assert less in (page.locator("#hint-more").inner_text() or ""), opened
    page.click("#hint-more")
    again: dict[str, Any] = page.evaluate(HINT_MORE)
    assert not again["open"] and again["expanded"] == "false" and again["title"] == more, again


# ------------------------------------------------------------------ the trick's caption on a phone

# The lines a phrase of the trick's caption is drawn on (the tops of its text's boxes), and whether
# the caption's text keeps inside its box sideways.
CAPTION_PHRASE = """(phrase) => {
  const caption = document.querySelector("#center .caption");
  if (!caption) return null;
  const walker = document.createTreeWalker(caption, NodeFilter.SHOW_TEXT);
  const nodes = [];
  let text = "";
  while (walker.nextNode()) {
    nodes.push([walker.currentNode, text.length]);
    text += walker.currentNode.data;
  }
  const at = text.indexOf(phrase);
  if (at < 0) return { text, lines: 0 };
  const where = (i, end) => {
    for (const [node, start] of nodes) {
      if (end ? i <= start + node.data.length : i < start + node.data.length) return [node, i - start];
    }
    return null;
  };
  const range = document.createRange();
  range.setStart(...where(at, false));
  range.setEnd(...where(at + phrase.length, true));
  const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
  const all = document.createRange();
  all.selectNodeContents(caption);
  const box = caption.getBoundingClientRect(), words = all.getBoundingClientRect();
  return { text, lines: tops.size, inside: words.left >= box.left - 0.5 && words.right <= box.right + 0.5,
    scrolls: caption.scrollWidth > caption.clientWidth + 1 };
}"""


@pytest.mark.parametrize(("width", "height"), [(390, 844), (360, 640), (320, 568)])
def test_the_last_tricks_caption_keeps_its_phrases_whole_on_a_phone(page_factory: Any, width: int, height: int) -> None:
    """On a phone upright in Chinese, the last trick (上一圈) says who won it between the cards
    with each phrase on one line, "上一圈：" and "南 赢", never "南" on one line and "赢" on the
    next; nothing of it outside its box."""
    lang = "zh"
    page = page_factory(width, height, **PHONE)
    open_match(page, "online", lang=lang, seed=1)
    end_exposure(page)
    while wait_turn_or_over(page) == "play" and not page.evaluate(STATE)["tricks_played"]:
        play_first(page)
    assert phase(page) == "play"
    winner = render(f"seat.{page.evaluate(STATE)['last_trick']['winner']}", lang)
    said = render("center.lastTrick", lang, {"seat": winner})
    page.click("#last")
    page.wait_for_function("(said) => document.querySelector('#center .caption')?.textContent === said", arg=said)
    shot(page, f"last-trick-{lang}-{width}x{height}")
    colon = max(said.find("："), said.find(":"))
    for phrase in (said[: colon + 1], said[colon + 1 :].strip()):
        seen: dict[str, Any] = page.evaluate(CAPTION_PHRASE, phrase)
        assert seen and seen["lines"] == 1, (phrase, seen)
        assert seen["inside"] and not seen["scrolls"], (phrase, seen)
