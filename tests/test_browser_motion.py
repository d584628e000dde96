"""Real-browser tests of the table page's motion and sound, and of their two header switches.

The page marks each cue where a test can read it without timing it (README.md of the static
folder): ``#center[data-sweep=<seat>][data-trick=<n>]`` while a finished trick sweeps to the seat
that took it, ``<html data-sweeps>`` counting the tricks swept and ``<html data-motion>`` (view-table.js);
``<html data-last-sound>`` (turn / won / lost) and ``<html data-sounds>`` counting the cues played
(sound.js).  Observers installed in the page collect every mark as it comes; the sweeps are compared
with the takers of the deal's R11 record (``GET /api/matches/{id}/deals/0``), the trick cues with
the record's point tricks.

The browser, the server (computer players at pace 0) and the pages come from ``conftest.py``; the
helpers from ``test_browser.py``.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import pytest

from helpers.browser import api_get, in_phase, not_in_phase, phase, wait_for
from test_browser import LEGAL, OVER, open_setup, south_turns, wait_turn_or_over

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

POINT = re.compile(r"^(QS|JD|TC|.H)$")

# Every sweep the page shows, [trick number, seat], and the CSS animations of the swept slots.
WATCH_SWEEPS = """() => {
  window.__sweeps = [];
  window.__sweepAnimations = new Set();
  const center = document.getElementById("center");
  new MutationObserver(() => {
    const seat = center.dataset.sweep;
    if (!seat) return;
    const last = window.__sweeps.at(-1);
    if (!last || last[0] !== center.dataset.trick) window.__sweeps.push([center.dataset.trick, seat]);
    for (const slot of center.querySelectorAll(".slot")) {
      for (const a of slot.getAnimations()) window.__sweepAnimations.add(a.animationName);
    }
  }).observe(center, { attributes: true, childList: true, attributeFilter: ["data-sweep", "data-trick"] });
}"""

# Every CSS animation that runs on the table or in the hand while the page is watched.
WATCH_ANIMATIONS = """() => {
  window.__animations = new Set();
  const look = () => {
    for (const a of document.getAnimations()) if (a.animationName) window.__animations.add(a.animationName);
  };
  const what = { attributes: true, childList: true, subtree: true };
  for (const id of ["center", "hand"]) new MutationObserver(look).observe(document.getElementById(id), what);
}"""

# Every sound cue the page plays, in order, with the phase shown then (cues played together come
# in one batch of records:
# each record's new value is the next one's old value, the last one's is the attribute now).
WATCH_SOUNDS = """() => {
  window.__sounds = [];
  const root = document.documentElement;
  new MutationObserver((records) => {
    records.forEach((r, i) => window.__sounds.push(
      [i + 1 < records.length ? records[i + 1].oldValue : root.dataset.lastSound, root.dataset.phase]));
  }).observe(root, { attributes: true, attributeOldValue: true, attributeFilter: ["data-last-sound"] });
}"""


def start_at(page: Page, speed: str, preset: str = "online") -> None:
    """In the open setup dialog, start a match of ``preset`` at ``speed``; the exposure phase is
    left to the test (the page is in it, or already playing)."""
    page.select_option("#setup-preset", preset)
    page.select_option("#setup-speed", speed)
    page.click("#setup-go")
    wait_for(page, in_phase("expose", "play"))


def end_exposures(page: Page) -> None:
    """Declare nothing, if the page asks South to declare (it may declare by itself)."""
    wait_for(page, f'html[data-phase="expose"] #start:not([hidden]), {in_phase("play")}')
    if phase(page) == "expose":
        page.get_by_role("button", name=re.compile(r"^(不亮|Expose none)$")).click()
    wait_for(page, not_in_phase("expose"))


def play_deal(page: Page) -> None:
    """Play South's first legal card at each turn until the deal is over (the server plays out
    the forced last trick, R5.4)."""
    while wait_turn_or_over(page) == "play":
        page.locator(LEGAL).first.click()
    assert phase(page) in OVER


def record_of(page: Page) -> dict[str, Any]:
    """The R11 record of the match's first deal, as the server stored it."""
    match_id = page.evaluate("localStorage.getItem('gongzhu.match')")
    record: dict[str, Any] = api_get(page, f"/api/matches/{match_id}/deals/0")
    return record


def takers(record: dict[str, Any]) -> list[str]:
    """Who took each trick's cards (a record writes ``taker`` only when it is not the winner)."""
    return [t.get("taker", t["winner"]) for t in record["tricks"]]


def settings_of(page: Page) -> dict[str, Any]:
    saved: dict[str, Any] = json.loads(page.evaluate("localStorage.getItem('gongzhu.settings')") or "{}")
    return saved


def root_data(page: Page, name: str) -> str | None:
    value: str | None = page.evaluate(f"document.documentElement.dataset.{name} ?? null")
    return value


def test_a_finished_trick_sweeps_to_the_seat_that_took_it(page_factory: Any) -> None:
    """Motion on (the default) at the normal speed: each finished trick that stays shown sweeps
    to its taker's seat plate (the record's taker), drawn by motion.css; a click during the
    sweep is answered at once."""
    page = page_factory(1280, 800)
    open_setup(page)
    assert page.get_attribute("#motion", "aria-pressed") == "true"
    assert root_data(page, "motion") == "on"
    start_at(page, "normal")
    page.evaluate(WATCH_SWEEPS)
    end_exposures(page)
    while wait_turn_or_over(page) == "play":
        # The click is answered at once (in the click's own task), also while the trick the
        # person took is sweeping: the hand is drawn again, nothing playable while the play is on
        # its way.  How fast: benchmarks/page.py.
        left = page.evaluate("""(legal) => {
            const b = document.querySelector(legal);
            if (!b) return 0;  // the deal finished by itself meanwhile (R5.4)
            b.click();
            return document.querySelectorAll(legal).length;
        }""", LEGAL)
        assert left == 0
    swept = page.evaluate("window.__sweeps")
    expected = takers(record_of(page))
    assert swept, "no finished trick was shown sweeping"
    assert all(seat == expected[int(n) - 1] for n, seat in swept), (swept, expected)
    assert int(root_data(page, "sweeps") or 0) >= len(swept)
    assert "sweep" in page.evaluate("[...window.__sweepAnimations]")


def test_reduced_motion_turns_motion_off_by_default(page_factory: Any) -> None:
    """A browser asking for reduced motion, and nothing remembered: the switch is off, no trick
    sweeps, no card flies in, no hand is dealt in."""
    page = page_factory(1280, 800, reduced_motion="reduce")
    open_setup(page)
    assert page.get_attribute("#motion", "aria-pressed") == "false"
    assert root_data(page, "motion") == "off"
    assert "motion" not in settings_of(page)
    page.evaluate(WATCH_SWEEPS)
    page.evaluate(WATCH_ANIMATIONS)
    start_at(page, "fast")
    end_exposures(page)
    play_deal(page)
    assert page.evaluate("window.__sweeps") == []
    assert root_data(page, "sweeps") is None
    assert not {"sweep", "fly-in", "deal-in"} & set(page.evaluate("[...window.__animations]"))


def test_the_motion_switch_turns_motion_off_and_is_remembered(page_factory: Any) -> None:
    """Switched off in the header, nothing moves, and the choice survives a reload; switched on
    again, the next hand is dealt in."""
    page = page_factory(1280, 800)
    open_setup(page)
    start_at(page, "fast")
    switch = page.get_by_role("button", name=re.compile(r"^(动画|Motion)$"))
    assert switch.get_attribute("aria-pressed") == "true"
    switch.click()
    assert switch.get_attribute("aria-pressed") == "false"
    assert root_data(page, "motion") == "off"
    assert settings_of(page)["motion"] is False
    page.reload()  # the match is resumed
    wait_for(page, in_phase("expose", "play"))
    assert page.get_attribute("#motion", "aria-pressed") == "false"
    assert root_data(page, "motion") == "off"
    page.evaluate(WATCH_SWEEPS)
    page.evaluate(WATCH_ANIMATIONS)
    end_exposures(page)
    play_deal(page)
    assert page.evaluate("window.__sweeps") == []
    assert root_data(page, "sweeps") is None
    assert not {"sweep", "fly-in", "deal-in"} & set(page.evaluate("[...window.__animations]"))
    # On again (the deal's summary put away): the hand of a new match's first deal flies in.
    page.click("#summary-close")
    page.click("#motion")
    assert page.get_attribute("#motion", "aria-pressed") == "true"
    assert settings_of(page)["motion"] is True
    page.click("#new-match")
    page.wait_for_selector("#setup[open]")
    start_at(page, "fast")
    assert "deal-in" in page.evaluate("[...window.__animations]")


@pytest.mark.parametrize("preset", ["online", "partners"])
def test_sound_cues_the_turn_and_the_tricks_with_points(page_factory: Any, preset: str) -> None:
    """Sound switched on (its click lets the audio start): a cue each time it becomes South's turn,
    to declare and to play, and after each trick carrying points "won" when they went to South's
    side (South, and North too when the match scores by partners), "lost" otherwise."""
    page = page_factory(1280, 800)
    open_setup(page)
    page.click("#setup-cancel")
    switch = page.get_by_role("button", name=re.compile(r"^(声音|Sound)$"))
    assert switch.get_attribute("aria-pressed") == "false"
    assert page.locator('#sound-icon svg[data-icon="sound-off"]').count() == 1
    switch.click()
    assert switch.get_attribute("aria-pressed") == "true"
    assert page.locator('#sound-icon svg[data-icon="sound-on"]').count() == 1
    assert settings_of(page)["sound"] is True
    assert root_data(page, "sounds") == "0"
    page.evaluate(WATCH_SOUNDS)
    page.click("#new-match")
    page.wait_for_selector("#setup[open]")
    start_at(page, "instant", preset)
    end_exposures(page)
    play_deal(page)
    record = record_of(page)
    side = {"S", "N"} if preset == "partners" else {"S"}
    expected = ["won" if t.get("taker", t["winner"]) in side else "lost"
                for t in record["tricks"]
                if any(POINT.match(c) for p in t["plays"] for c in p["cards"])]
    heard = page.evaluate("window.__sounds")
    assert [cue for cue, _ in heard if cue != "turn"] == expected
    # One turn cue to declare the exposures (when South was asked to), one before each play that
    # was South's to make (not those the server made once the deal could no longer change, R5.4).
    turns = [shown for cue, shown in heard if cue == "turn"]
    assert turns.count("play") == south_turns(record)
    assert turns.count("expose") <= 1 and len(turns) == south_turns(record) + turns.count("expose")
    assert root_data(page, "sounds") == str(len(heard))


def test_no_sound_while_the_switch_is_off(page_factory: Any) -> None:
    """Sound is off by default: a whole deal, its turns and its point tricks, plays no cue."""
    page = page_factory(1280, 800)
    open_setup(page)
    assert page.get_attribute("#sound", "aria-pressed") == "false"
    start_at(page, "instant")
    end_exposures(page)
    play_deal(page)
    assert root_data(page, "sounds") == "0"
    assert root_data(page, "lastSound") is None
