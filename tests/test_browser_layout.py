"""Real-browser tests of the table page's layout: Playwright driving Debian's Chromium.

What a player sees on each screen: at 360 × 640, 375 × 667, 390 × 844 and 412 × 915 (a phone
upright) and 667 × 375 (a phone on its side), one deck and two (at 320 × 568, the narrowest phone,
one deck and a table of people; two decks there are test_browser_phone.py's), the whole hand, the
trick, the four seat plates, the status line and the hint line are on the screen during play with nothing to
scroll, every hand card shows a 44 × 44 px part of itself inside the screen that a tap there
reaches, the hint's whole ranked list opens within the screen, and the deal's summary has no
column cut off.  At 1280 × 800 the table is a felt with the hand spread over it, its cards
growing with the screen; each seat plate has an avatar, the seat to play a lit ring that runs
down with the table's clock, each played card lies in front of its seat and the point cards taken
are small cards on each plate.  Dimmed (unplayable) cards keep red and black apart and their
indices readable (WCAG AA, 4.5:1, computed from the browser's styles).

Every layout is saved as a screenshot in ``test-artifacts/`` (``layout-*.png``).  The browser,
the server and the pages come from ``conftest.py``; the helpers from ``test_browser.py``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pytest

from helpers.browser import VISIBLE_BOX_JS, api_post, in_phase, phase, wait_for
from test_browser import ARTIFACTS, LEGAL, OVER, end_exposure, hand, wait_turn_or_over

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

#: Phones upright, then one on its side (CSS px).
PHONES = ((360, 640), (375, 667), (390, 844), (412, 915), (667, 375))
#: The narrowest phone upright (CSS px): one deck there, with everything the others show.
NARROWEST = (320, 568)
#: The smallest part of a hand card a finger taps (CSS px), after WCAG 2.5.5.
TAP = 44
#: The seat plates, the trick, the status line and the hand: on the screen during play.
PARTS = ("#seat-N", "#seat-E", "#seat-S", "#seat-W", "#center", "#status", "#hand")

# What is on the screen now: the page's scroll size, the parts' boxes, the trick's cards, and for
# each hand card whether a 44 × 44 px square from its top-left corner is inside the screen and
# answers a tap there as that card (checked with elementFromPoint every 3 px).
ON_SCREEN = """([parts, tap]) => {
  const W = innerWidth, H = innerHeight;
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height };
  };
  const out = {
    W, H, scrollWidth: document.scrollingElement.scrollWidth, scrollHeight: document.scrollingElement.scrollHeight,
    parts: {}, trick: [], cards: [],
  };
  for (const sel of parts) {
    const e = document.querySelector(sel);
    out.parts[sel] = e && e.getClientRects().length ? box(e) : null;
  }
  for (const c of document.querySelectorAll("#center .card-face")) out.trick.push(box(c));
  for (const c of document.querySelectorAll("#hand button[data-card]")) {
    const r = c.getBoundingClientRect();
    let shown = true;
    // From 2 px in (the card's rounded corner is no part of it) to its 44th px, every 3 px.
    for (let dx = 2; dx <= tap && shown; dx += 3) {
      for (let dy = 2; dy <= tap && shown; dy += 3) {
        const x = r.left + dx, y = r.top + dy;
        const hit = x >= 0 && y >= 0 && x < W && y < H ? document.elementFromPoint(x, y) : null;
        shown = Boolean(hit && c.contains(hit));
      }
    }
    out.cards.push({ card: c.dataset.card, shown, ...box(c) });
  }
  return out;
}"""

# The hint line and, opened, its list: their boxes and what the line shows.
HINT_LINE = "() => {\n" + VISIBLE_BOX_JS + """  const first = document.querySelector("#hint-list li:first-child");
  const pop = document.getElementById("hint-pop");
  return {
    line: box(document.getElementById("hints")),
    top: box(first),
    play: box(first?.querySelector(".hint-play")),
    expected: box(first?.querySelector(".expected")),
    reason: box(first?.querySelector(".reason")),
    reasonText: first?.querySelector(".reason")?.textContent ?? "",
    shownItems: [...document.querySelectorAll("#hint-list li")].filter((li) => li.getClientRects().length).length,
    items: document.querySelectorAll("#hint-list li").length,
    pop: box(pop),
    popScrolls: getComputedStyle(pop).overflowY,
    popFits: pop.scrollHeight <= pop.clientHeight + 1,
    more: box(document.getElementById("hint-more")),
    hand: box(document.getElementById("hand")),
  };
}"""

# The summary dialog: whether its table (and the dialog) is wider than what shows it.
SUMMARY_FIT = """() => {
  const dlg = document.getElementById("summary");
  const scroller = dlg.querySelector(".table-scroll");
  const table = scroller.querySelector("table");
  const r = dlg.getBoundingClientRect();
  return {
    open: dlg.open, W: innerWidth,
    scroller: [scroller.scrollWidth, scroller.clientWidth],
    table: [table.scrollWidth, table.clientWidth, table.getBoundingClientRect().width],
    dialog: [dlg.scrollWidth, dlg.clientWidth], left: r.left, right: r.right,
    cut: [...table.querySelectorAll("th, td")].filter((c) => c.scrollWidth > c.clientWidth + 1)
      .map((c) => c.textContent),
  };
}"""


def inside(box: dict[str, float] | None, w: int, h: int) -> bool:
    return (
        box is not None
        and box["left"] >= -0.5
        and box["top"] >= -0.5
        and box["right"] <= w + 0.5
        and (box["bottom"] <= h + 0.5)
    )


def resize(page: Page, width: int, height: int) -> None:
    """Give the page a new viewport and let it lay itself out again (two frames)."""
    page.set_viewport_size({"width": width, "height": height})
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


def shot(page: Page, name: str) -> None:
    """The screen as the player sees it (no scrolling: the viewport only)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"layout-{name}.png"))


def open_match(page: Page, preset: str, *, seed: int = 1, lang: str = "zh") -> None:
    """A single-player match of ``preset`` at the instant speed, in ``lang``: the page open on it."""
    page.goto("/")
    # The page has its session (GET /api/me, before the new-match dialog opens): the match posted
    # below is that person's, not another guest's made at the same moment.
    page.wait_for_selector("#setup[open]")
    page.evaluate(f"localStorage.setItem('gongzhu.settings', JSON.stringify({{lang: '{lang}'}}))")
    match_id = api_post(page, "/api/matches", {"preset": preset, "speed": "instant", "seed": seed})["match_id"]
    page.goto(f"/?match={match_id}")
    wait_for(page, in_phase("expose", "play"))


def check_on_screen(page: Page, where: str) -> None:
    """Everything the player needs now is on the screen, nothing scrolls, every hand card shows a
    44 × 44 px part of itself inside the screen."""
    seen: dict[str, Any] = page.evaluate(ON_SCREEN, [list(PARTS), TAP])
    w, h = seen["W"], seen["H"]
    assert seen["scrollWidth"] <= w and seen["scrollHeight"] <= h, (where, seen["scrollWidth"], seen["scrollHeight"])
    off = {sel: b for sel, b in seen["parts"].items() if not inside(b, w, h)}
    assert not off, (where, off)
    assert all(inside(c, w, h) for c in seen["trick"]), (where, seen["trick"])
    assert seen["cards"], where
    small = [c["card"] for c in seen["cards"] if not c["shown"] or c["width"] < TAP or c["height"] < TAP]
    assert not small, (where, small)


def check_hint_line(page: Page, where: str, plays: int) -> None:
    """The hint's top play, its expected result and its reason in one line just above the hand;
    the whole ranked list (``plays`` plays) one tap away, within the screen."""
    w, h = page.viewport_size["width"], page.viewport_size["height"]  # type: ignore[index]
    line: dict[str, Any] = page.evaluate(HINT_LINE)
    assert inside(line["line"], w, h), (where, line)
    assert line["shownItems"] == 1 and line["items"] == plays, (where, line)
    for part in ("play", "expected", "reason", "more"):
        box = line[part]
        assert box is not None and box["width"] > 0 and inside(box, w, h), (where, part, line)
    # One line: the play, the number and the reason side by side on the same line.
    middles = [line[p]["top"] + line[p]["height"] / 2 for p in ("play", "expected", "reason")]
    assert max(middles) - min(middles) < 8 and line["line"]["height"] < 64, (where, line)
    assert line["reason"]["width"] >= 24 or not line["reasonText"], (where, line)
    # Above the hand.
    assert line["line"]["bottom"] <= line["hand"]["top"] + 2, (where, line)
    page.click("#hint-more")
    opened: dict[str, Any] = page.evaluate(HINT_LINE)
    assert page.get_attribute("#hint-more", "aria-expanded") == "true"
    assert opened["shownItems"] == plays, (where, opened)
    assert inside(opened["pop"], w, h), (where, opened)
    assert opened["popFits"] or opened["popScrolls"] in ("auto", "scroll"), (where, opened)
    assert seen_scroll(page) == (w, h), where
    shot(page, f"{where}-hints")
    page.click("#hint-more")
    assert page.locator("#hint-pop .hint-explain").is_hidden()


def play_out(page: Page) -> None:
    """South plays its first legal card each turn until the deal is over (two decks: the first
    play offered where a card begins several)."""
    while wait_turn_or_over(page) == "play":
        if len(hand(page)) == 1:
            wait_for(page, in_phase(*OVER))
            break
        page.locator(LEGAL).first.click()
        if page.locator("#choices:not([hidden]) button").count():
            page.locator("#choices button").first.click()


def seen_scroll(page: Page) -> tuple[int, int]:
    size: list[int] = page.evaluate("[document.scrollingElement.scrollWidth, document.scrollingElement.scrollHeight]")
    return size[0], size[1]


def ask_hint(page: Page) -> int:
    """Ask for a hint on South's turn (H) and wait for the expert's ranking; the legal plays."""
    plays: int = page.evaluate("() => import('/static/state.js').then(({ page }) => page.state.legal.length)")
    page.keyboard.press("h")
    wait_for(page, '#hints[data-source="search"] #hint-list button.hint-play')
    return plays


@pytest.mark.parametrize(("preset", "lang"), [("online", "zh"), ("online2", "en")])
def test_everything_is_on_screen_on_every_phone(page_factory: Any, preset: str, lang: str) -> None:
    """On each phone screen, upright and on its side, one deck (13 cards, at 320 × 568 too) and two
    (26): the hand, the trick, the four plates, the status line and the hint line on the screen
    with nothing to scroll, every card tappable on 44 × 44 px of itself; then the deal's summary
    without a column cut off."""
    page = page_factory(*PHONES[0])
    open_match(page, preset, lang=lang)
    # (the narrowest first: a hand of two rows there, as on the phones upright after it, so that
    # no card is still moving from a one-row layout, the phone on its side's, when it is measured)
    phones = (NARROWEST, *PHONES) if preset == "online" else PHONES
    if page.locator('html[data-phase="expose"] #start:not([hidden])').count():
        for w, h in phones:  # the exposure phase, its Start button too
            resize(page, w, h)
            check_on_screen(page, f"{preset}-{w}x{h}-expose")
            start = page.locator("#start").bounding_box()
            assert start is not None and inside(
                {
                    "left": start["x"],
                    "top": start["y"],
                    "right": start["x"] + start["width"],
                    "bottom": start["y"] + start["height"],
                },
                w,
                h,
            ), (w, h, start)
            shot(page, f"{preset}-{w}x{h}-expose")
        end_exposure(page)
    # Play until a trick is on the table at South's turn (the trick's cards then show too).
    while wait_turn_or_over(page) == "play" and not page.locator("#center .card-face").count():
        page.locator(LEGAL).first.click()
        if page.locator("#choices:not([hidden]) button").count():
            page.locator("#choices button").first.click()
    assert phase(page) == "play" and page.locator("#center .card-face").count()
    plays = ask_hint(page)
    for w, h in phones:
        resize(page, w, h)
        where = f"{preset}-{w}x{h}"
        shot(page, where)  # first: a layout that fails is in the artefacts too
        check_on_screen(page, where)
        check_hint_line(page, where, plays)
    # The deal's summary fits each screen: no column cut off or scrolled away.
    play_out(page)
    wait_for(page, "#summary[open]")
    for w, h in phones:
        resize(page, w, h)
        fit: dict[str, Any] = page.evaluate(SUMMARY_FIT)
        where = f"{preset}-{w}x{h}-summary"
        assert fit["open"], where
        assert fit["scroller"][0] <= fit["scroller"][1] and fit["table"][0] <= fit["table"][1], (where, fit)
        assert fit["dialog"][0] <= fit["dialog"][1] and fit["left"] >= 0 and fit["right"] <= fit["W"], (where, fit)
        assert not fit["cut"], (where, fit)
        shot(page, where)


# The hand cards' widths and the box of the hand and of the felt.
HAND_SPREAD = """() => {
  const cards = [...document.querySelectorAll("#hand button[data-card]")].map((c) => c.getBoundingClientRect());
  const felt = document.querySelector(".table").getBoundingClientRect();
  return {
    width: cards[0].width, left: Math.min(...cards.map((r) => r.left)), right: Math.max(...cards.map((r) => r.right)),
    top: Math.min(...cards.map((r) => r.top)), bottom: Math.max(...cards.map((r) => r.bottom)),
    // Rows: tops more than a third of a card apart (a raised card stays in its row).
    rows: cards.map((r) => r.top).sort((a, b) => a - b)
      .filter((top, i, tops) => i === 0 || top - tops[i - 1] > cards[0].height / 3).length,
    felt: { left: felt.left, right: felt.right, top: felt.top, bottom: felt.bottom, width: felt.width },
    // The felt: the table's background, or the layer of its own it is drawn on (::before).
    background: getComputedStyle(document.querySelector(".table")).backgroundImage + " "
      + getComputedStyle(document.querySelector(".table"), "::before").backgroundImage,
  };
}"""

# Each seat plate: its box, its avatar (what it shows, its ring) and the small cards it holds.
PLATES = """() => Object.fromEntries(["N", "E", "S", "W"].map((seat) => {
  const plate = document.getElementById(`seat-${seat}`);
  const r = plate.getBoundingClientRect();
  const avatar = plate.querySelector(".avatar");
  const style = avatar && getComputedStyle(avatar);
  return [seat, {
    box: { left: r.left, top: r.top, right: r.right, bottom: r.bottom },
    turn: plate.classList.contains("turn"),
    avatar: avatar && {
      text: avatar.textContent, robot: Boolean(avatar.querySelector("svg.robot")), ring: style.backgroundImage,
      glow: style.boxShadow, face: getComputedStyle(avatar.querySelector(".face")).backgroundImage,
      timeLeft: avatar.dataset.timeLeft ?? null,
    },
    name: plate.querySelector(".name")?.textContent ?? null,
    rating: plate.querySelector("[data-rating]")?.dataset.rating ?? null,
    minis: [...plate.querySelectorAll(".captured [data-mini]")].map((m) => {
      const b = m.getBoundingClientRect();
      return { card: m.dataset.mini, width: b.width, left: b.left, top: b.top, right: b.right, bottom: b.bottom,
               svg: Boolean(m.querySelector("svg")) };
    }),
  }];
}))"""

# The trick's slots: where each seat's card lies.
SLOTS = """() => [...document.querySelectorAll("#center .slot")].map((s) => {
  const r = s.getBoundingClientRect();
  return { seat: s.dataset.seat, x: r.left + r.width / 2, y: r.top + r.height / 2 };
})"""

STATE = """() => import('/static/state.js')
  .then(({ page }) => ({ captured: page.state.captured, me: page.me?.name ?? null }))"""


def nearest_plate(plates: dict[str, Any], x: float, y: float) -> str:
    def distance(seat: str) -> float:
        b = plates[seat]["box"]
        dx = max(b["left"] - x, 0, x - b["right"])
        dy = max(b["top"] - y, 0, y - b["bottom"])
        return float((dx * dx + dy * dy) ** 0.5)

    return min(plates, key=distance)


def test_a_desktop_table(page_factory: Any) -> None:
    """At 1280 × 800: a felt drawn by CSS gradients, the hand spread over it with cards that grow
    with the screen; seat plates with an avatar (initials on the name's colour, a computer's
    face), the name, no rating where the state has none; the seat to play lit; each played card
    in front of its seat; the point cards taken as small cards on the plate of who took them."""
    page = page_factory(1280, 800)
    open_match(page, "online", seed=5)
    end_exposure(page)
    assert wait_turn_or_over(page) == "play"
    spread: dict[str, Any] = page.evaluate(HAND_SPREAD)
    assert "gradient(" in spread["background"] and "url(" not in spread["background"], spread["background"]
    felt = spread["felt"]
    # The hand lies on the felt, spread over most of its width, in one row.
    assert felt["left"] <= spread["left"] and spread["right"] <= felt["right"] and spread["bottom"] <= felt["bottom"]
    assert spread["right"] - spread["left"] >= 0.7 * felt["width"], spread
    assert spread["rows"] == 1, spread
    shot(page, "desktop-1280x800")
    # The cards grow with the screen.
    widths = {}
    for w, h in ((1024, 700), (1280, 800), (1600, 1000), (1920, 1080)):
        resize(page, w, h)
        widths[(w, h)] = page.evaluate(HAND_SPREAD)["width"]
    resize(page, 1280, 800)
    sizes = list(widths.values())
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1] and widths[(1280, 800)] >= 80, widths
    known: dict[str, Any] = page.evaluate(STATE)
    plates: dict[str, Any] = page.evaluate(PLATES)
    for seat, plate in plates.items():
        avatar = plate["avatar"]
        assert avatar is not None, seat
        assert "gradient(" in avatar["face"] and "url(" not in avatar["face"], (seat, avatar)
        if plate["name"]:  # a person: their initials (a Chinese name's first character)
            assert avatar["text"] and avatar["text"][0] in (plate["name"][0], plate["name"][0].upper()), (seat, plate)
        else:  # a computer player: a face drawn
            assert avatar["robot"], (seat, plate)
        assert plate["rating"] is None, (seat, plate)  # the state gives no rating: none is shown
    assert plates["S"]["name"] == known["me"]
    # The seat to play: its plate and its avatar's ring lit.
    assert plates["S"]["turn"] and "conic-gradient" in plates["S"]["avatar"]["ring"], plates["S"]
    assert plates["S"]["avatar"]["glow"] != "none"
    assert all(not p["turn"] and "conic-gradient" not in p["avatar"]["ring"] for s, p in plates.items() if s != "S")
    assert plates["S"]["avatar"]["timeLeft"] is None  # no clock at this table
    # Play on: each card on the table lies in front of its seat (its plate the nearest), and the
    # point cards taken show as small cards on the plate of who took them.
    checked_trick = checked_minis = False
    while wait_turn_or_over(page) == "play" and not (checked_trick and checked_minis):
        slots: list[dict[str, Any]] = page.evaluate(SLOTS)
        plates = page.evaluate(PLATES)
        if len(slots) >= 2:
            for slot in slots:
                assert nearest_plate(plates, slot["x"], slot["y"]) == slot["seat"], (slot, plates)
            checked_trick = True
        captured = page.evaluate(STATE)["captured"]
        if any(captured.values()):
            for seat, plate in plates.items():
                assert sorted(m["card"] for m in plate["minis"]) == sorted(captured[seat]), (seat, plate, captured)
                for m in plate["minis"]:
                    b = plate["box"]
                    assert m["svg"] and m["width"] <= 24, m
                    assert b["left"] <= m["left"] and m["right"] <= b["right"] and b["top"] <= m["top"], (m, b)
                    assert m["bottom"] <= b["bottom"], (m, b)
            if not checked_minis:
                shot(page, "desktop-1280x800-taken")
            checked_minis = True
        if len(hand(page)) == 1:
            break
        page.locator(LEGAL).first.click()
    assert checked_trick and checked_minis


def test_the_turn_timer_runs_around_the_seat_to_play(page_factory: Any) -> None:
    """At a table with a turn timer the ring around the avatar of the seat to play is the time
    left: it runs down as the clock does."""
    page = page_factory(1280, 800)
    table = api_post(
        page,
        "/api/tables",
        {
            "levels": {"N": "random", "E": "random", "S": "random", "W": "random"},
            "speed": "instant",
            "turn_seconds": 30,
            "expose_seconds": None,
            "seat": "S",
        },
    )
    page.goto(table["url"])
    wait_for(page, 'html:not([data-phase="setup"])')
    page.click("#table-start")
    wait_for(page, in_phase("expose", "play"))
    end_exposure(page)
    assert wait_turn_or_over(page) == "play"
    wait_for(page, "#seat-S.turn .avatar[data-time-left]")
    first = float(page.get_attribute("#seat-S .avatar", "data-time-left") or "nan")
    page.wait_for_timeout(1300)
    then = float(page.get_attribute("#seat-S .avatar", "data-time-left") or "nan")
    assert 0 < then < first <= 1, (first, then)
    ring: str = page.eval_on_selector("#seat-S .avatar", "a => getComputedStyle(a).backgroundImage")
    assert "conic-gradient" in ring, ring
    assert re.search(r"rgb\(255, 213, 74\)", ring), ring  # gold, the time left
    shot(page, "timer-1280x800")


# The colours a dimmed card is drawn with, as the browser computes them: the face's paper, the
# corner index (rank) and its suit, each with the filters (brightness, saturate, grayscale,
# contrast) and opacity of the card and everything around it applied.
DIMMED_COLOURS = """() => {
  const rgb = (s) => (s.match(/[\\d.]+/g) ?? []).slice(0, 3).map(Number);
  const filters = [];
  const opacities = [];
  const card = (code) => {
    const b = document.querySelector(`#hand button[data-card="${code}"][aria-disabled="true"]`);
    const svg = b.querySelector("svg");
    filters.length = 0;
    opacities.length = 0;
    for (let e = svg; e; e = e.parentElement) {
      const st = getComputedStyle(e);
      if (st.filter !== "none") filters.push(st.filter);
      if (Number(st.opacity) !== 1) opacities.push(st.opacity);
    }
    const paper = svg.querySelector(".paper");
    const rank = svg.querySelector("g .rank");
    const pip = svg.querySelector("g use");
    for (const e of [paper, rank, pip]) {
      if (getComputedStyle(e).opacity !== "1" || getComputedStyle(e).fillOpacity !== "1") opacities.push("part");
    }
    return {
      code, filters: [...filters], opacities: [...opacities],
      paper: rgb(getComputedStyle(paper).fill), rank: rgb(getComputedStyle(rank).fill),
      pip: rgb(getComputedStyle(pip).fill),
    };
  };
  const dimmed = [...document.querySelectorAll('#hand.my-turn button[data-card][aria-disabled="true"]')]
    .map((b) => b.dataset.card);
  const legal = document.querySelector('#hand button[data-card][aria-disabled="false"]');
  const red = dimmed.find((c) => /[HD]$/.test(c));
  const black = dimmed.find((c) => /[SC]$/.test(c));
  return {
    red: red && card(red), black: black && card(black),
    legalPaper: legal && rgb(getComputedStyle(legal.querySelector(".paper")).fill),
  };
}"""


def _apply_filter(colour: list[float], filters: list[str]) -> list[float]:
    """``colour`` (sRGB 0–255) as CSS filter functions draw it (innermost element first)."""
    r, g, b = colour
    for chain in filters:
        for name, arg in re.findall(r"([a-z-]+)\(([^)]*)\)", chain):
            if name == "drop-shadow":
                continue  # a shadow behind the card: the face's colours stay
            value = float(arg.rstrip("%")) / (100 if arg.endswith("%") else 1)
            if name == "brightness":
                r, g, b = r * value, g * value, b * value
            elif name in ("saturate", "grayscale"):
                s = value if name == "saturate" else 1 - value
                r, g, b = (
                    (0.213 + 0.787 * s) * r + (0.715 - 0.715 * s) * g + (0.072 - 0.072 * s) * b,
                    (0.213 - 0.213 * s) * r + (0.715 + 0.285 * s) * g + (0.072 - 0.072 * s) * b,
                    (0.213 - 0.213 * s) * r + (0.715 - 0.715 * s) * g + (0.072 + 0.928 * s) * b,
                )
            elif name == "contrast":
                r, g, b = ((c - 127.5) * value + 127.5 for c in (r, g, b))
            else:
                raise AssertionError(f"a filter the test does not model: {chain}")
    return [min(255.0, max(0.0, c)) for c in (r, g, b)]


def _luminance(colour: list[float]) -> float:
    def linear(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: list[float], b: list[float]) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_dimmed_cards_keep_their_colours_and_readable_indices(page_factory: Any) -> None:
    """On the person's turn the cards that cannot be played are dimmed: a grey face on which the
    red suits stay red and the black ones black, and the corner index (rank and suit) keeps a
    contrast of at least 4.5:1 against it (WCAG AA), computed from the browser's styles."""
    page = page_factory(1280, 800)
    open_match(page, "online", seed=2)
    end_exposure(page)
    seen = None
    while wait_turn_or_over(page) == "play":
        colours: dict[str, Any] = page.evaluate(DIMMED_COLOURS)
        if colours["red"] and colours["black"]:
            seen = colours
            break
        if len(hand(page)) == 1:
            break
        page.locator(LEGAL).first.click()
    assert seen is not None, "no turn with both a red and a black card that cannot be played"
    shot(page, "dimmed-1280x800")
    faces = {}
    for suit in ("red", "black"):
        card = seen[suit]
        assert not card["opacities"], card  # nothing see-through: the colours are what shows
        paper = _apply_filter(card["paper"], card["filters"])
        for part in ("rank", "pip"):
            ink = _apply_filter(card[part], card["filters"])
            assert contrast(ink, paper) >= 4.5, (suit, part, card, ink, paper, contrast(ink, paper))
        faces[suit] = _apply_filter(card["rank"], card["filters"])
        # Still dimmed: the face is darker than a playable card's.
        assert _luminance(paper) < _luminance(_apply_filter(seen["legalPaper"], [])) - 0.1, (card, seen["legalPaper"])
    red, black = faces["red"], faces["black"]
    assert red[0] - max(red[1], red[2]) >= 80, red  # red stays red
    assert max(black) - min(black) <= 30 and max(black) <= 80, black  # black stays black (dark, no hue)
    assert contrast(red, black) >= 1.8, (red, black)


# Each plate's name: whether it stays inside its plate (cut with an ellipsis, not spilling over).
NAMES_IN_PLATES = """() => ["N", "E", "S", "W"].map((seat) => {
  const plate = document.getElementById(`seat-${seat}`).getBoundingClientRect();
  const name = document.querySelector(`#seat-${seat} .name`);
  if (!name) return { seat, inside: true };
  const r = name.getBoundingClientRect();
  return { seat, text: name.textContent, inside: r.left >= plate.left - 0.5 && r.right <= plate.right + 0.5 };
})"""

#: The longest names an account may have (16 characters), wide and narrow.
LONG_NAMES = ("诸葛孔明卧龙先生南阳布衣躬耕陇亩", "Wilhelmina_WWWWW")


def test_a_table_of_people_with_long_names_fits_every_phone(page_factory: Any) -> None:
    """Two people with the longest names an account may have, at a table with two computers: on
    every phone, upright and on its side, 320 × 568 too, each sees the plates (names cut inside their plate),
    the trick, the status line and the whole hand with nothing to scroll.  (The chat, a tap away on
    every phone, is test_browser_chat.py's.)"""
    from test_browser_tables import new_table, open_table, play_until, sit

    pages = [page_factory(*PHONES[0]), page_factory(*PHONES[0])]
    for page, name in zip(pages, LONG_NAMES, strict=True):
        # Signed up before a page is open: a request of the page still under way with the guest's
        # cookie would find that session ended, and make the browser a new guest.
        api_post(page, "/api/account", {"name": name, "password": "a quiet tiger 42 long names"})
    host, second = pages
    _, url = new_table(host, seat="S", preset="online")
    open_table(second, url)
    sit(second, "N")
    open_table(host, url)  # (the live update of a seat taken is the tables' tests' concern)
    wait_for(host, f'#seat-N .name[data-name="{LONG_NAMES[1]}"]')
    host.click("#table-start")
    # Play until a trick lies on the table (each person acts when it is their turn; the loop's
    # guard is play_until's, however long each step takes on a busy machine).
    play_until(pages, lambda: all(p.locator('html[data-phase="play"] #center .card-face').count() for p in pages))
    for page, who in zip(pages, ("host", "second"), strict=True):
        for w, h in (NARROWEST, *PHONES):
            resize(page, w, h)
            where = f"people-{who}-{w}x{h}"
            check_on_screen(page, where)
            names = page.evaluate(NAMES_IN_PLATES)
            assert all(n["inside"] for n in names), (where, names)
            wait_for(page, f'#seat-S .name[data-name="{LONG_NAMES[0]}"]')  # the host's name, on every screen
            shot(page, where)


# The pig's and the sheep's faces as the page draws them, 80 px wide: the boxes of their name, of
# each suit symbol and of the frame on each face.
TAGGED_FACES = """async () => {
  const cards = await import("/static/cards.js");
  cards.installCardDefs();
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  };
  const out = {};
  for (const code of ["QS", "JD"]) {
    const holder = document.createElement("div");
    holder.style.cssText = "position: fixed; left: 10px; top: 10px; width: 80px; z-index: 99";
    const face = cards.cardFace(code);
    face.style.width = "80px";
    holder.append(face);
    document.body.append(holder);
    const tag = face.querySelector("text.tag");
    out[code] = { text: tag.textContent, tag: box(tag), frame: box(face.querySelector("rect.frame")),
      suits: [...face.querySelectorAll("use")].map(box) };
    holder.remove();
  }
  return out;
}"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_pig_and_the_sheep_show_their_whole_name(page_factory: Any, lang: str) -> None:
    """R1: the name on the pig's and the sheep's face (pig, sheep; 猪, 羊) lies inside the card's
    frame, clear of every suit symbol, in either language."""
    page = page_factory(1280, 800, locale="en-US" if lang == "en" else "zh-CN")
    page.goto("/")
    page.wait_for_selector("#setup[open]")
    faces: dict[str, Any] = page.evaluate(TAGGED_FACES)
    names = {"en": {"QS": "pig", "JD": "sheep"}, "zh": {"QS": "猪", "JD": "羊"}}[lang]
    for code, face in faces.items():
        assert face["text"] == names[code], (code, face)
        tag, frame = face["tag"], face["frame"]
        assert frame["left"] <= tag["left"] and tag["right"] <= frame["right"], (code, face)
        assert frame["top"] <= tag["top"] and tag["bottom"] <= frame["bottom"] + 0.5, (code, face)
        for suit in face["suits"]:
            apart = (suit["right"] <= tag["left"] or tag["right"] <= suit["left"]
                     or suit["bottom"] <= tag["top"] or tag["bottom"] <= suit["top"])
            assert apart, (code, suit, tag)


# In the new-match dialog: make `key` differ from the chosen preset (the first value the server
# offers that the preset does not have), as the person does; the value chosen (JSON).
CHANGE_OPTION = """async (key) => {
  const config = await (await fetch("/api/config")).json();
  const base = config.presets[document.getElementById("setup-preset").value][key];
  const field = document.querySelector(`#more-options [data-option="${key}"]`);
  if (field.tagName === "INPUT") {
    field.value = String((base ?? 0) + 100);
    field.dispatchEvent(new Event("input", { bubbles: true }));
    return field.value;
  }
  const option = [...field.options].find((o) => o.value !== "" && o.value !== JSON.stringify(base)
    && !/:N"$/.test(o.value));
  field.value = option.value;
  field.dispatchEvent(new Event("change", { bubbles: true }));
  return option.value;
}"""


def test_the_new_match_dialog_says_when_more_options_differ_from_the_preset(page_factory: Any) -> None:
    """R9, R10: an option changed under 更多选项 is remembered for the next match; the section's
    closed summary then says how many options differ from the chosen preset, and says nothing
    once they are as the preset says again."""
    page = page_factory(1280, 800)
    page.goto("/")
    page.wait_for_selector("#setup[open]")
    page.select_option("#setup-preset", "online")
    marker = page.locator("#setup-changed")
    assert marker.is_hidden()
    page.click("#setup details.more summary")
    page.evaluate(CHANGE_OPTION, "match_limit")
    assert marker.is_visible() and marker.text_content() == "已改 1 项"
    page.click("#setup-go")
    wait_for(page, in_phase("expose", "play"))
    page.reload()  # a later visit: the section closed, the change remembered
    wait_for(page, in_phase("expose", "play"))
    page.click("#new-match")
    page.wait_for_selector("#setup[open]")
    assert not page.evaluate("document.querySelector('#setup details.more').open")
    assert marker.is_visible() and marker.text_content() == "已改 1 项"
    page.select_option("#setup-lang", "en")
    assert marker.text_content() == "1 changed"
    # Back to the preset's value: nothing differs, nothing is said.
    page.click("#setup details.more summary")
    page.fill('#more-options [data-option="match_limit"]', "")
    assert marker.is_hidden()


# The trick's caption: its box, its text's box, the trick's cards' boxes, and its font size.
CAPTION = """() => {
  const c = document.querySelector("#center .caption");
  if (!c) return null;
  const box = (r) => ({ left: r.left, top: r.top, right: r.right, bottom: r.bottom, height: r.height });
  const range = document.createRange();
  range.selectNodeContents(c);
  return { text: c.textContent, box: box(c.getBoundingClientRect()), textBox: box(range.getBoundingClientRect()),
    cards: [...document.querySelectorAll("#center .card-face")].map((e) => box(e.getBoundingClientRect())),
    fontSize: parseFloat(getComputedStyle(c).fontSize),
    topOrBottom: Boolean(document.querySelector("#center :is(.slot-top, .slot-bottom)")) };
}"""


def check_caption(page: Page, where: str) -> None:
    """The trick's caption shows whole, at least 12 px high, between the trick's cards."""
    seen: dict[str, Any] = page.evaluate(CAPTION)
    assert seen and seen["text"] and seen["fontSize"] >= 12, (where, seen)
    box, text = seen["box"], seen["textBox"]
    assert box["height"] >= 12, (where, seen)
    assert box["left"] - 0.5 <= text["left"] and text["right"] <= box["right"] + 0.5, (where, seen)
    assert box["top"] - 0.5 <= text["top"] and text["bottom"] <= box["bottom"] + 0.5, (where, seen)
    for card in seen["cards"]:
        apart = (card["right"] <= text["left"] or text["right"] <= card["left"]
                 or card["bottom"] <= text["top"] or text["bottom"] <= card["top"])
        assert apart, (where, card, seen)


def test_the_trick_caption_shows_beside_cards_above_and_below_it(page_factory: Any) -> None:
    """At 1280 × 800, with a card above or below the middle: the tricks played so far, and the
    last trick (L) with who won it, are said readably between the cards."""
    page = page_factory(1280, 800)
    open_match(page, "online", seed=5)
    end_exposure(page)
    checked = False
    while not checked and wait_turn_or_over(page) == "play":
        now: dict[str, Any] = page.evaluate(CAPTION)
        if now["topOrBottom"] and "已出 0 圈" not in now["text"]:  # a last trick to show
            check_caption(page, "tricks played")
            checked = True
        else:
            page.locator(LEGAL).first.click()
    assert checked
    # The last trick: all four cards, above and below the caption too.
    before = page.evaluate("document.querySelector('#center .caption').textContent")
    page.keyboard.press("l")
    page.wait_for_function("(before) => document.querySelector('#center .caption')?.textContent !== before", arg=before)
    seen: dict[str, Any] = page.evaluate(CAPTION)
    assert len(seen["cards"]) == 4 and seen["topOrBottom"], seen
    check_caption(page, "last trick")
    shot(page, "desktop-last-trick")
