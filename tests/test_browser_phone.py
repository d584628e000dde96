"""Real-browser tests of the table page on the narrowest phones and on touch screens: Playwright
driving Debian's Chromium with a phone's touch screen (``is_mobile``, ``has_touch``).

A phone browser (``is_mobile``) that is shown a page wider than the screen zooms out to show it
all: its ``innerWidth`` grows past the screen's width.  So these tests measure against the
screen's width itself (the ``innerWidth`` must stay that width) and not against ``innerWidth``.

At 320 × 568 in English (the longest labels), at a table of two people and two computers: no
button or part of the table is outside the screen, during play and at the end of the deal with
the summary put away (下一副 / Next deal, 本副结算 / Deal summary, 托管 / Auto-play, 离座 / Stand up
wrap into rows); the deal's summary opens at its top (its title and first rows), the keyboard on
下一副 / Next deal, which shows at the dialog's bottom.  Two decks (26 cards) fit the screen,
every card tappable.  The rules page keeps to the screen's width.  Opening 更多 / More moves
neither the table nor the hand (the menu is a panel over the table).  A tablet's touch screen
gets 44 px controls.  The page speaks the browser's language until the person chooses one.

What a player needs stays on the screen where it is tightest, on a phone's touch screen in
English, at each turn checked: two decks at 320 × 568 with the hint line open (while the hand has
four rows); a phone on its side (667 × 375) at a table of two people with the longest names, from
the first trick to the end of the deal; and on its side at a public table, where 提示 / Hint, 声称 /
Claim, 上一圈 / Last trick, 托管 / Auto-play and 离座 / Stand up wrap into rows rather than scroll
sideways.  There the whole hand, the trick, the plates, the status line, the hint line and every
button are on the screen with nothing to scroll, each button reached by a tap at its middle, 44 px
high and wide, and no text is smaller than 12 px.

Beside the table: the profile's facts at 320 and 360 px in English keep every word of their values
whole; the table page's header shows the preset and the deal's number (a challenge's board's)
at 320 to 390 px; the check boxes and radio buttons a player taps are 24 × 24 px at least.

The browser, the server and the pages come from ``conftest.py``; the helpers from
``test_browser.py``, ``test_browser_tables.py`` and ``test_browser_layout.py``.  Every layout is
saved as a screenshot in ``test-artifacts/`` (``phone-*.png``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from gongzhu.messages import render
from helpers.browser import VISIBLE_BOX_JS, api_get, api_post, in_phase, phase, wait_for, wait_until
from test_browser import ARTIFACTS, LEGAL, OVER, end_exposure, hand, wait_turn_or_over
from test_browser_layout import LONG_NAMES, NAMES_IN_PLATES, TAP, check_on_screen, inside, open_match, play_out

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

#: A phone's browser: a touch screen, the page zoomed out where it is wider than the screen.
PHONE = {"is_mobile": True, "has_touch": True, "device_scale_factor": 2}
#: The narrowest phone upright (CSS px).
NARROW = (320, 568)

# What sticks out of the screen sideways (the screen's `width`, not innerWidth): every control a
# finger taps, the plates, the trick, the status line and the hand's cards; and the page's widths.
OUTSIDE = """([width]) => {
  const shown = (e) => e.getClientRects().length && getComputedStyle(e).visibility !== "hidden"
    && !e.closest("[hidden], dialog:not([open])");
  const parts = document.querySelectorAll(
    "button, a.button, select, input, .seat, #center, #center .card-face, #status, .controls");
  const out = [];
  for (const e of parts) {
    if (!shown(e)) continue;
    const r = e.getBoundingClientRect();
    if (r.left < -0.5 || r.right > width + 0.5) {
      out.push({ what: e.id || e.dataset.card || e.className, text: (e.textContent || "").trim().slice(0, 20),
                 left: Math.round(r.left), right: Math.round(r.right) });
    }
  }
  return { innerWidth, scrollWidth: document.scrollingElement.scrollWidth, outside: out };
}"""

# The summary dialog as it opened: its scroll, its title's box, the next step's button (下一副 /
# Next deal, or 再来一局 / New match once the match is over) and its box, the keyboard.
SUMMARY_TOP = """() => {
  const dlg = document.getElementById("summary");
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
  };
  const next = ["summary-next", "summary-again"].map((id) => document.getElementById(id)).find((b) => !b.hidden);
  return {
    open: dlg.open, scrollTop: dlg.scrollTop, scrolls: dlg.scrollHeight > dlg.clientHeight,
    dialog: box(dlg), title: box(document.getElementById("summary-title")),
    nextId: next?.id ?? null, next: next ? box(next) : null,
    focused: document.activeElement?.id ?? null, H: innerHeight,
  };
}"""

# The boxes of the hand and of the table (to see that nothing moved), to a tenth of a pixel.
BOXES = """() => Object.fromEntries(["#hand", ".table", "header.bar"].map((s) => {
  const r = document.querySelector(s).getBoundingClientRect();
  return [s, [r.left, r.top, r.width, r.height].map((v) => Math.round(v * 10) / 10)];
}))"""


# Some of the menu's items: whether a tap at their middle reaches them, and whether they are on the screen.
ON_TOP = """() => Object.fromEntries(["#lang", "#speed", "#motion"].map((s) => {
  const e = document.querySelector(s);
  const r = e.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  const inside = r.left >= 0 && r.right <= innerWidth && r.bottom <= innerHeight;
  return [s, { reached: Boolean(hit && e.contains(hit)), inside }];
}))"""


def shot(page: Page, name: str) -> None:
    """The screen as the player sees it (no scrolling: the viewport only)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"phone-{name}.png"))


def speak(page: Page, lang: str) -> None:
    """The page's person chose ``lang`` (remembered before any page of the site opens)."""
    page.add_init_script(f"localStorage.setItem('gongzhu.settings', JSON.stringify({{lang: {json.dumps(lang)}}}))")


def check_inside(page: Page, width: int, where: str) -> None:
    """Nothing a player needs is outside the screen sideways, and the page is no wider than it."""
    seen: dict[str, Any] = page.evaluate(OUTSIDE, [width])
    assert seen["innerWidth"] == width and seen["scrollWidth"] <= width, (where, seen)
    assert not seen["outside"], (where, seen["outside"])


def check_summary_top(page: Page, where: str) -> None:
    """The summary as it opened: at its top (the title inside the dialog), 下一副 / Next deal (再来一局
    / New match once the match is over) inside the dialog and the screen, the keyboard on it."""
    wait_for(page, "#summary[open]")
    seen: dict[str, Any] = page.evaluate(SUMMARY_TOP)
    dialog, title, nxt = seen["dialog"], seen["title"], seen["next"]
    assert seen["scrollTop"] == 0, (where, seen)
    assert dialog["top"] - 0.5 <= title["top"] and title["bottom"] <= dialog["bottom"] + 0.5, (where, seen)
    assert nxt is not None and dialog["top"] <= nxt["top"] and nxt["bottom"] <= dialog["bottom"] + 0.5, (where, seen)
    assert nxt["bottom"] <= seen["H"] + 0.5, (where, seen)
    assert seen["focused"] == seen["nextId"], (where, seen)


def test_a_table_of_people_fits_320_in_english_to_the_end_of_the_deal(page_factory: Any) -> None:
    """Two people at a table with two computers, at 320 × 568 in English on a touch screen: during
    play and at the end of the deal (the summary put away: Next deal, Deal summary, Auto-play,
    Stand up; New match where the deal ended the match) every button, plate and card is inside
    the screen, which the page does not outgrow; the summary opens at its top with Next deal
    showing and the keyboard on it."""
    from test_browser_tables import new_table, open_table, play_until, sit

    w, h = NARROW
    pages = [page_factory(w, h, **PHONE), page_factory(w, h, **PHONE)]
    for page in pages:
        speak(page, "en")
    host, second = pages
    _, url = new_table(host, seat="S", preset="online")
    open_table(second, url)
    sit(second, "N")
    open_table(host, url)
    wait_for(host, "#seat-N .name")
    host.click("#table-start")
    play_until(pages, lambda: all(p.locator('html[data-phase="play"] #center .card-face').count() for p in pages))
    for page, who in zip(pages, ("host", "second"), strict=True):
        shot(page, f"people-{who}-{w}x{h}-play")
        check_inside(page, w, f"{who}-play")
    play_until(pages, lambda: all(phase(p) in OVER for p in pages))
    for page, who in zip(pages, ("host", "second"), strict=True):
        shot(page, f"people-{who}-{w}x{h}-summary")
        check_summary_top(page, f"{who}-summary")
        check_inside(page, w, f"{who}-summary")
        page.click("#summary-close")
        wait_for(page, "#summary:not([open])")
        assert page.locator("#next" if phase(page) == "deal-over" else "#again").is_visible(), who
        shot(page, f"people-{who}-{w}x{h}-over")
        check_inside(page, w, f"{who}-over")


@pytest.mark.parametrize(("width", "height"), [NARROW, (667, 375)])
def test_the_summary_opens_at_its_top(page_factory: Any, width: int, height: int) -> None:
    """The deal's summary, taller than a phone's screen, opens at its top: its title and first
    rows show, and so does Next deal (at the dialog's bottom edge), the keyboard on it."""
    page = page_factory(width, height, **PHONE)
    open_match(page, "online", lang="en")
    end_exposure(page)
    play_out(page)
    shot(page, f"summary-{width}x{height}")
    check_summary_top(page, f"{width}x{height}")
    # Scrolled to its end, Next deal is still at the dialog's bottom, inside the screen.
    page.evaluate("document.getElementById('summary').scrollTop = 1e6")
    seen: dict[str, Any] = page.evaluate(SUMMARY_TOP)
    assert seen["next"]["bottom"] <= min(seen["dialog"]["bottom"], seen["H"]) + 0.5, seen


def test_two_decks_fit_320(page_factory: Any) -> None:
    """Two decks at 320 × 568 in English on a touch screen: the 26 cards, the plates, the trick and
    the status line on the screen with nothing to scroll, each card tappable on 44 × 44 px of
    itself, while the exposures are decided and during play."""
    w, h = NARROW
    page = page_factory(w, h, **PHONE)
    open_match(page, "online2", lang="en")
    assert len(hand(page)) == 26
    if page.locator('html[data-phase="expose"] #start:not([hidden])').count():
        assert page.evaluate("innerWidth") == w
        shot(page, f"twodecks-{w}x{h}-expose")
        check_on_screen(page, "two decks, 320, exposures")
        end_exposure(page)
    assert wait_turn_or_over(page) == "play"
    assert page.evaluate("innerWidth") == w
    shot(page, f"twodecks-{w}x{h}-play")
    check_on_screen(page, "two decks, 320, play")
    check_inside(page, w, "two decks, 320, play")


@pytest.mark.parametrize("width", [320, 360])
def test_the_rules_page_keeps_to_a_phone(page_factory: Any, width: int) -> None:
    """The rules page at 320 and 360 px on a phone, in both languages: no wider than the screen
    (its wide tables and its block of code scroll in their own boxes)."""
    page = page_factory(width, 640, **PHONE)
    speak(page, "zh")
    page.goto("/rules")
    for lang in ("zh", "en"):
        if lang == "en":
            page.click("#lang")
        wait_for(page, f"html[data-rules={lang}] #rules table")
        size: list[int] = page.evaluate("[innerWidth, document.scrollingElement.scrollWidth]")
        assert size[0] == width and size[1] <= width, (lang, size)
        shot(page, f"rules-{width}-{lang}")


@pytest.mark.parametrize(("width", "height"), [NARROW, (667, 375)])
def test_the_more_menu_does_not_move_the_table(page_factory: Any, width: int, height: int) -> None:
    """On a phone, opening 更多 / More shows the header's menu as a panel over the top of the
    table: the header keeps its height, the table and the hand stay where they were, nothing
    scrolls, the menu's items show on top; closed, everything is where it was."""
    page = page_factory(width, height, **PHONE)
    open_match(page, "online", lang="en")
    end_exposure(page)
    assert wait_turn_or_over(page) == "play"
    before = page.evaluate(BOXES)
    page.click("#menu-toggle")
    wait_for(page, "#menu.open")
    shot(page, f"menu-{width}x{height}")
    assert page.evaluate(BOXES) == before
    size: list[int] = page.evaluate("[document.scrollingElement.scrollWidth, document.scrollingElement.scrollHeight]")
    assert size[0] <= width and size[1] <= height, size
    # The menu's items are on top of the table, inside the screen: a tap reaches them.
    on_top: dict[str, Any] = page.evaluate(ON_TOP)
    assert all(v["reached"] and v["inside"] for v in on_top.values()), on_top
    page.click("#menu-toggle")
    wait_for(page, "#menu:not(.open)")
    assert page.evaluate(BOXES) == before


# Every control a finger taps that is on the screen now: its box (a hand's card is not one).
TARGETS = """() => [...document.querySelectorAll("button:not(.card), a.button, select, #me, .chat .mute")]
  .filter((e) => e.getClientRects().length && !e.closest("[hidden], dialog:not([open])"))
  .map((e) => {
    const r = e.getBoundingClientRect();
    return { what: e.id || e.className, width: r.width, height: r.height };
  })"""


def test_a_tablet_touch_screen_has_44_px_controls(page_factory: Any) -> None:
    """On a tablet's touch screen (768 × 1024, wider than a phone's layout) the header's buttons,
    the speed, the person's name and the table's buttons are at least 44 px high and wide."""
    page = page_factory(768, 1024, has_touch=True)
    open_match(page, "online", lang="en")
    end_exposure(page)
    assert wait_turn_or_over(page) == "play"
    targets: list[dict[str, Any]] = page.evaluate(TARGETS)
    assert {"speed", "hint", "new-match"} <= {t["what"] for t in targets}, targets
    small = [t for t in targets if t["height"] < TAP - 0.5 or t["width"] < TAP - 0.5]
    assert not small, small


@pytest.mark.parametrize(
    ("locale", "saved", "expected"),
    [
        ("en-US", None, "en"),
        ("en-GB", None, "en"),
        ("zh-CN", None, "zh"),
        ("zh-TW", None, "zh"),
        ("fr-FR", None, "zh"),
        ("en-US", "zh", "zh"),
        ("zh-CN", "en", "en"),
    ],
)
def test_the_language_is_the_browsers_until_chosen(
    page_factory: Any, locale: str, saved: str | None, expected: str
) -> None:
    """With no language chosen the pages speak the browser's: English for an English browser,
    Chinese for a Chinese one and for any other; a language chosen (remembered) wins."""
    page = page_factory(1280, 800, locale=locale)
    if saved:
        speak(page, saved)
    page.goto("/")
    wait_for(page, "#setup[open]")
    want = {"en": ("en", "New match"), "zh": ("zh-CN", "新比赛")}[expected]
    wait_until(
        page,
        "([lang, label]) => document.documentElement.lang === lang "
        "&& document.getElementById('new-match').textContent === label",
        list(want),
    )
    page.goto("/rules")
    wait_for(page, f"html[data-rules={expected}]")
    assert page.evaluate("document.documentElement.lang") == want[0]


# The table's buttons on the screen now (the status line's row and the hint line's): each one's
# box and whether a tap at its middle reaches it; whether the row of buttons scrolls sideways (a
# button out of sight in it); the hint line and the hand, when shown.
CONTROLS = "() => {\n" + VISIBLE_BOX_JS + """  const row = document.querySelector(".controls .buttons");
  const buttons = [...document.querySelectorAll(".controls button, #hints button")]
    .filter((b) => b.getClientRects().length && !b.closest("[hidden]"))
    .map((b) => {
      const r = box(b);
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return { what: b.id || b.className || b.textContent.trim(), ...r, reached: Boolean(hit && b.contains(hit)) };
    });
  return {
    W: innerWidth, H: innerHeight, rowScrolls: row.scrollWidth > row.clientWidth + 1, buttons,
    hints: box(document.getElementById("hints")), hand: box(document.getElementById("hand")),
  };
}"""

# The table's texts drawn smaller than 12 px (a card's own face, an SVG, aside).
SMALL_TEXT = """() => [...document.querySelectorAll("header.bar *, .table *")]
  .filter((e) => !e.closest("svg") && e.getClientRects().length && getComputedStyle(e).visibility !== "hidden"
    && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()))
  .map((e) => ({ what: e.id || e.className, text: e.textContent.trim().slice(0, 20),
                 size: parseFloat(getComputedStyle(e).fontSize) }))
  .filter((e) => e.size < 11.95)"""


def check_phone_layout(page: Page, where: str, *, hint_line: bool = False) -> None:
    """Everything a player needs on a phone now, with nothing to scroll (check_on_screen): every
    button, the hint line's too, inside the screen and reached by a tap at its middle, none in a
    row that scrolls sideways, each at least 44 × 44 px; the hint line (``hint_line``: it is open)
    above the hand; no text smaller than 12 px."""
    w = page.viewport_size["width"]  # type: ignore[index]
    try:
        check_on_screen(page, where)
        check_inside(page, w, where)
        seen: dict[str, Any] = page.evaluate(CONTROLS)
        assert not seen["rowScrolls"], (where, seen)
        off = [b for b in seen["buttons"] if not (inside(b, seen["W"], seen["H"]) and b["reached"])]
        assert not off, (where, off)
        small = [b for b in seen["buttons"] if b["width"] < TAP - 0.5 or b["height"] < TAP - 0.5]
        assert not small, (where, small)
        if hint_line:
            assert inside(seen["hints"], seen["W"], seen["H"]), (where, seen["hints"])
            assert seen["hints"]["bottom"] <= seen["hand"]["top"] + 2, (where, seen["hints"], seen["hand"])
        tiny: list[dict[str, Any]] = page.evaluate(SMALL_TEXT)
        assert not tiny, (where, tiny)
    except AssertionError:
        shot(page, f"failed-{where}")
        raise


def ask_hint(page: Page) -> None:
    """Ask for a hint on the person's turn (a tap on 提示 / Hint) and wait for the expert's
    ranking: the hint line."""
    page.click("#hint")
    wait_for(page, '#hints[data-source="search"] #hint-list button.hint-play')


def play_first(page: Page) -> None:
    """Play the first legal card (two decks: the first play offered where it begins several)."""
    page.locator(LEGAL).first.click()
    if page.locator("#choices:not([hidden]) button").count():
        page.locator("#choices button").first.click()


def test_two_decks_fit_320_in_english_with_the_hint_line(page_factory: Any) -> None:
    """Two decks at 320 × 568 in English on a touch screen, the hint line open at each of the
    person's turns while the hand has four rows (22 cards and more): the 26 cards down to 22, the
    plates, the trick, the status line, the hint line above the hand and the buttons (声称 / Claim,
    上一圈 / Last trick: the hint line stands in for 提示 / Hint) on the screen with nothing to
    scroll; before the hint is asked, 提示 / Hint with them."""
    w, h = NARROW
    page = page_factory(w, h, **PHONE)
    open_match(page, "online2", lang="en")
    end_exposure(page)
    turns = 0
    while wait_turn_or_over(page) == "play" and len(hand(page)) >= 22:
        where = f"twodecks-hint-{w}x{h}-{len(hand(page))}"
        check_phone_layout(page, f"{where}-asking")
        ask_hint(page)
        shot(page, where)
        check_phone_layout(page, where, hint_line=True)
        turns += 1
        play_first(page)
    assert turns >= 3, turns


def test_people_with_long_names_fit_a_phone_on_its_side_to_the_end_of_the_deal(page_factory: Any) -> None:
    """Two people with the longest names an account may have, at a table with two computers (a
    chosen seed: a deal whose plates grow tall with the point cards taken), on a phone on its side
    (667 × 375) in English: at each of their turns to the end of the deal, the whole hand, the
    trick, the plates (names cut inside them), the status line and every button (声称 / Claim, 上一圈
    / Last trick, 托管 / Auto-play, 离座 / Stand up) on the screen with nothing to scroll."""
    from test_browser_tables import act, new_table, open_table, sit

    w, h = 667, 375
    pages = [page_factory(w, h, **PHONE), page_factory(w, h, **PHONE)]
    for page, name in zip(pages, LONG_NAMES, strict=True):
        speak(page, "en")
        api_post(page, "/api/account", {"name": name, "password": "a quiet tiger 42 long names"})
    host, second = pages
    _, url = new_table(host, seat="S", preset="online", seed=4, visibility="private")
    open_table(second, url)
    sit(second, "N")
    open_table(host, url)
    wait_for(host, f'#seat-N .name[data-name="{LONG_NAMES[1]}"]')
    host.click("#table-start")
    seen: dict[str, set[int]] = {"host": set(), "second": set()}
    # Each person acts when the table waits for them, their turns checked first, until the deal
    # is over (a bounded number of looks at the table, each a short wait when nobody acted).
    for _ in range(4000):
        if all(phase(p) in OVER for p in pages):
            break
        acted = False
        for page, who in zip(pages, seen, strict=True):
            mine = page.locator('html[data-phase="play"] #hand.my-turn').count()
            if mine:
                n = len(hand(page))
                where = f"people-long-{who}-{w}x{h}-{n}"
                if n not in seen[who]:
                    shot(page, where)
                check_phone_layout(page, where)
                names: list[dict[str, Any]] = page.evaluate(NAMES_IN_PLATES)
                assert all(name["inside"] for name in names), (where, names)
                seen[who].add(n)
            if mine or phase(page) != "play":  # (a turn that came after the look waits for the next)
                acted = act(page) or acted
        if not acted:
            pages[0].wait_for_timeout(30)
    assert all(phase(p) in OVER for p in pages), [phase(p) for p in pages]
    assert all(len(turns) >= 10 for turns in seen.values()), seen


def test_the_buttons_wrap_on_a_phone_on_its_side(page_factory: Any) -> None:
    """One person at a public table with three computers, on a phone on its side (667 × 375) in
    English: 提示 / Hint, 声称 / Claim, 上一圈 / Last trick, 托管 / Auto-play and 离座 / Stand up wrap
    into rows (none out of sight in a row that scrolls sideways), and with the hint line open
    too the whole hand, the trick and every button are on the screen with nothing to scroll."""
    from test_browser_tables import new_table, open_table

    w, h = 667, 375
    page = page_factory(w, h, **PHONE)
    speak(page, "en")
    page.goto("/")
    wait_for(page, "#setup[open]")
    _, url = new_table(page, seat="S", preset="online", visibility="public")
    open_table(page, url)
    page.click("#table-start")
    wait_for(page, in_phase("expose", "play"))
    end_exposure(page)
    turns = 0
    while wait_turn_or_over(page) == "play" and turns < 4:
        n = len(hand(page))
        where = f"public-{w}x{h}-{n}"
        check_phone_layout(page, where)
        assert page.locator("#hint").is_visible() and page.locator("#stand").is_visible(), where
        ask_hint(page)
        shot(page, where)
        check_phone_layout(page, f"{where}-hint", hint_line=True)
        turns += 1
        play_first(page)
    assert turns == 4, turns


# The new-match dialog's buttons: each one's box, the dialog's, and whether a tap at its middle
# reaches it (nothing of the dialog scrolled).
SETUP_BUTTONS = """() => {
  const dlg = document.getElementById("setup");
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  };
  return { dialog: box(dlg), scrollTop: dlg.scrollTop, buttons: ["setup-cancel", "setup-go"].map((id) => {
    const b = document.getElementById(id);
    const r = b.getBoundingClientRect();
    const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
    return { id, tapped: Boolean(hit && b.contains(hit)), ...box(b) };
  }) };
}"""


@pytest.mark.parametrize(("width", "height"), [(390, 844), (360, 640)])
@pytest.mark.parametrize("more", [False, True])
def test_the_new_match_dialog_shows_its_buttons(page_factory: Any, width: int, height: int, more: bool) -> None:
    """The new-match dialog's 取消 / 开局 are wholly inside it and answer a tap as it opens, its
    more options opened too, with nothing scrolled."""
    page = page_factory(width, height)
    page.goto("/")
    page.wait_for_selector("#setup[open]")
    if more:
        page.click("#setup details.more summary")
        page.evaluate("document.getElementById('setup').scrollTop = 0")
    seen: dict[str, Any] = page.evaluate(SETUP_BUTTONS)
    dlg = seen["dialog"]
    assert seen["scrollTop"] == 0, seen
    for b in seen["buttons"]:
        assert dlg["top"] <= b["top"] and b["bottom"] <= dlg["bottom"], (width, height, b, dlg)
        assert b["tapped"], (width, height, b, dlg)


# Each word of each value of a list of facts (<dd>): whether it is drawn on one line (the tops of
# its text's boxes), with the value's box; and the page's widths.
FACT_WORDS = """(selector) => {
  const words = [];
  for (const dd of document.querySelectorAll(`${selector} dd`)) {
    if (!dd.getClientRects().length) continue;
    const walker = document.createTreeWalker(dd, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode;
      for (const m of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        words.push({ id: dd.id, word: m[0], lines: tops.size });
      }
    }
  }
  const widths = [...document.querySelectorAll(`${selector} dd`)].map((dd) => dd.getBoundingClientRect().width);
  return { innerWidth, scrollWidth: document.scrollingElement.scrollWidth, words, narrowest: Math.min(...widths) };
}"""


@pytest.mark.parametrize("width", [320, 360])
def test_the_profiles_facts_keep_their_words_whole_on_a_phone(page_factory: Any, width: int) -> None:
    """The profile's facts at 320 and 360 px in English, where a name is long (Times the pig
    (当猪; practice too)): every value keeps its words whole (Guest4821, computers), none broken
    across two lines, and the page keeps to the screen."""
    page = page_factory(width, 640, **PHONE)
    speak(page, "en")
    page.goto("/profile")
    wait_for(page, "#facts:not([hidden]) #fact-practice:not(:empty)")
    shot(page, f"profile-facts-{width}")
    seen: dict[str, Any] = page.evaluate(FACT_WORDS, "#facts")
    assert seen["innerWidth"] == width and seen["scrollWidth"] <= width, seen
    assert {w["id"] for w in seen["words"]} >= {"fact-name", "fact-practice"}, seen
    broken = [w for w in seen["words"] if w["lines"] != 1]
    assert not broken, (broken, seen)
    assert seen["narrowest"] >= 120, seen


# The table page's header: the match's line (its preset and its deal's or board's number), what of
# each part shows (its box, whether its text is cut) and whether the line keeps inside the header.
MATCH_LINE = "() => {\n" + VISIBLE_BOX_JS + """  const info = document.getElementById("match-info");
  const part = (e) => e && { text: e.textContent, box: box(e), cut: e.scrollWidth > e.clientWidth + 0.5 };
  return { text: info.textContent, info: box(info), cut: info.scrollHeight > info.clientHeight + 1.5,
    bar: box(document.querySelector("header.bar")), preset: part(info.querySelector(".preset")),
    deal: part(info.querySelector(".deal")), newMatch: box(document.getElementById("new-match")) };
}"""


def check_match_line(page: Page, where: str, preset: str, number: str) -> None:
    """The header's match line says the preset, whole or cut at its end (its start showing), and
    the deal's (or board's) number whole, inside the header and clear of its buttons."""
    seen: dict[str, Any] = page.evaluate(MATCH_LINE)
    assert seen["preset"] and seen["deal"], (where, seen)
    assert seen["deal"]["text"] == number and not seen["deal"]["cut"] and not seen["cut"], (where, seen)
    assert seen["preset"]["text"].startswith(preset), (where, seen)
    shown = seen["preset"]["box"]
    assert shown["width"] >= 60 and shown["left"] >= seen["info"]["left"] - 0.5, (where, seen)
    for name in ("preset", "deal"):
        b = seen[name]["box"]
        assert b["right"] <= seen["newMatch"]["left"] + 0.5, (where, name, seen)
        assert seen["bar"]["top"] - 0.5 <= b["top"] and b["bottom"] <= seen["bar"]["bottom"] + 0.5, (where, name, seen)


@pytest.mark.parametrize("preset", ["online", "pig_sheep"])
def test_the_match_line_shows_the_preset_and_the_deal_on_a_phone(page_factory: Any, preset: str) -> None:
    """The table page's header at 320, 360 and 390 px in English: the match's line shows the
    preset (its start at least: Pig and sheep team …) and the deal's number whole (deal 1), on two
    lines where one has no room; in Chinese too."""
    page = page_factory(*NARROW, **PHONE)
    open_match(page, preset, lang="en")
    for lang in ("en", "zh"):
        if lang == "zh":
            page.click("#menu-toggle")
            page.click("#lang")
            page.click("#menu-toggle")
            wait_for(page, "#menu:not(.open)")
        for w, h in (NARROW, (360, 640), (390, 844)):
            page.set_viewport_size({"width": w, "height": h})
            page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
            shot(page, f"match-line-{preset}-{lang}-{w}")
            name = render(f"preset.{preset}", lang)
            check_match_line(page, f"{preset} {lang} {w}", name[:8], render("header.dealN", lang, {"n": 1}))


def test_a_challenges_table_says_board_on_a_phone(page_factory: Any) -> None:
    """At a challenge's table on a 360 px phone in English, the header's match line says the
    board's number (board 1), not the deal's, with the preset."""
    page = page_factory(360, 640, **PHONE)
    speak(page, "en")
    page.goto("/challenges")
    wait_for(page, '#today:not([hidden]) #today-play[data-action="play"]:not([hidden])')
    challenge = api_get(page, "/api/challenges")["today"]
    url = api_post(page, f"/api/challenges/{challenge['id']}/play", {})["url"]
    page.goto(url)
    wait_for(page, in_phase("expose", "play"))
    wait_for(page, "#match-info .deal")
    shot(page, "match-line-challenge-360")
    check_match_line(page, "challenge 360", render(f"preset.{challenge['preset']}", "en")[:8],
                     render("header.boardN", "en", {"n": 1}))


# The check boxes and radio buttons a player taps: each one's box and its label's.
TICKS = "(ids) => {\n" + VISIBLE_BOX_JS + """  return ids.map((id) => {
    const input = document.getElementById(id);
    return { id, input: box(input), label: box(input?.closest("label")) };
  });
}"""


def check_ticks(page: Page, ids: list[str]) -> None:
    """Each of ``ids`` is a target of 24 × 24 px at least (WCAG 2.5.8), its label too."""
    seen: list[dict[str, Any]] = page.evaluate(TICKS, ids)
    for tick in seen:
        assert tick["input"] and tick["input"]["width"] >= 23.5 and tick["input"]["height"] >= 23.5, tick
        assert tick["label"] and tick["label"]["width"] >= 23.5 and tick["label"]["height"] >= 23.5, tick


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1280, 800)])
def test_check_boxes_are_targets_a_finger_can_tap(page_factory: Any, width: int, height: int) -> None:
    """The lobby's Ranked box, the new table's public / private choice and its timers' boxes, and
    the chat's Mute box are 24 × 24 px at least, on a phone and on a desktop."""
    from test_browser_tables import new_table, open_table

    page = page_factory(width, height, **(PHONE if width < 600 else {}))
    page.goto("/lobby")
    wait_for(page, "#create:not([disabled])")
    check_ticks(page, ["play-now-ranked"])
    page.click("#create")
    wait_for(page, "#create-private")
    shot(page, f"ticks-create-{width}")
    check_ticks(page, ["create-public", "create-private", "create-turn-on", "create-expose-on"])
    _, url = new_table(page, seat="S")
    open_table(page, url)
    if width < 600:
        page.click("#chat-toggle")
    wait_for(page, "#chat:not([hidden]) #chat-mute")
    check_ticks(page, ["chat-mute"])
