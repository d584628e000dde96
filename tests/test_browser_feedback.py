"""Real-browser tests of what the table page tells the player, and how quietly: a refused card's
reason beside the status line for a moment; no "waiting for null" while a deal's last trick stays
shown; the exposure button named for what it does; a single-player table neither private nor
hosted; the title once, in one language; the sound switch's icon drawn by the page; the keyboard
on the hand whenever a deal starts; one language at a time (a guest's name, the card faces' tags,
no key hints on a touch screen, a rules page that speaks to players); the computer levels named and
described by how strong they are; a summary whose exposure factors and breakdown agree.

The catalog checks at the end need no browser.  The browser, the server (computer players at pace
0) and the pages come from ``conftest.py``; the helpers from ``test_browser.py``.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from gongzhu.messages import catalog, render
from gongzhu.players.registry import LEVELS
from gongzhu.records.replay import replay
from gongzhu.rules import Seat
from gongzhu.server.names import RESERVED, reserved
from helpers.browser import api_get, api_post, in_phase, not_in_phase, wait_for
from test_browser import EXPOSING, LEGAL, hand, open_setup, start_match, wait_turn_or_over

if TYPE_CHECKING:
    from playwright.sync_api import Page

browser = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
ZH, EN = catalog("zh"), catalog("en")
CJK = re.compile(r"[\u3400-\u9fff]+")


def declare_nothing(page: Page) -> None:
    wait_for(page, f"{EXPOSING}, {in_phase('play')}")
    if page.locator(EXPOSING).count():
        page.click("#start")
    wait_for(page, not_in_phase("expose"))


def play_out(page: Page) -> None:
    """Play South's first legal card each turn until the deal is over (the server plays out the
    forced last trick, R5.4)."""
    while wait_turn_or_over(page) == "play":
        try:
            page.locator(LEGAL).first.click(timeout=2000)
        except Exception:  # the card went (or the turn passed) between the look and the click
            continue


def focus_in_hand(page: Page) -> bool:
    inside: bool = page.evaluate("Boolean(document.activeElement?.closest('#hand'))")
    return inside


def box(page: Page, selector: str) -> dict[str, float]:
    rect = "e => { const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, height: r.height}; }"
    found: dict[str, float] = page.eval_on_selector(selector, rect)
    return found


# ---------------------------------------------------------------- quiet, precise feedback


@browser
def test_a_refused_card_is_said_beside_the_status_line_for_a_moment(page_factory: Any) -> None:
    """A card the rules refuse: the rules core's reason shows beside the status line (not in the
    toast over the header), in a warning colour, and goes after about 2.5 s."""
    page = page_factory(1280, 800)
    open_setup(page)
    start_match(page, declare=False)
    declare_nothing(page)
    while True:
        assert wait_turn_or_over(page) == "play", "no turn of South's offered a card to refuse"
        refused = page.locator('#hand button[data-card][aria-disabled="true"]')
        if refused.count():
            break
        page.locator(LEGAL).first.click()
    card = refused.first.get_attribute("data-card")
    refused.first.click(force=True)  # aria-disabled: Playwright would wait for it to be enabled
    note = page.locator("#refusal")
    note.wait_for(state="visible", timeout=5000)
    shown = time.monotonic()
    text = note.text_content() or ""
    assert text and "null" not in text, text
    # The rule book's sections it cites link to the rules page.
    assert note.locator("a.rule-link").count() == len(re.findall(r"\bR\d+(?:\.\d+)?\b", text)), text
    assert page.locator("#toast").is_hidden()
    # Beside the status line, below the header.
    bar, status, where = box(page, "header.bar"), box(page, "#status"), box(page, "#refusal")
    assert where["top"] >= bar["bottom"], (where, bar)
    assert abs(where["top"] - status["top"]) <= 2 * max(status["height"], where["height"]), (where, status)
    assert page.eval_on_selector("#refusal", "e => Boolean(e.closest('.controls'))")
    colour = page.eval_on_selector("#refusal", "e => getComputedStyle(e).color")
    assert colour != page.eval_on_selector("#status", "e => getComputedStyle(e).color")
    red, _green, blue = (int(v) for v in re.findall(r"\d+", colour)[:3])
    assert red >= 200 and blue <= 160 and red > blue, colour  # a warm, warning colour
    note.wait_for(state="hidden", timeout=5000)
    lasted = time.monotonic() - shown
    assert 1.8 <= lasted <= 4.0, lasted
    assert card in hand(page)  # nothing was played


WATCH_STATUS = """() => {
  window.__status = [];
  const status = document.getElementById("status");
  new MutationObserver(() => window.__status.push([document.documentElement.dataset.phase, status.textContent]))
    .observe(status, { childList: true, characterData: true, subtree: true });
}"""


@browser
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_last_tricks_pause_waits_for_nobody(page_factory: Any, lang: str) -> None:
    """While a deal's last trick stays shown (the speed's pause) nobody has the turn: the status
    line never says "等待 null" / "waiting for null"."""
    page = page_factory(1280, 800)
    open_setup(page)
    if lang == "en":
        page.select_option("#setup-lang", "en")
    page.evaluate(WATCH_STATUS)
    start_match(page, declare=False, speed="fast")
    declare_nothing(page)
    play_out(page)
    seen = page.evaluate("window.__status")
    assert any(shown == "play" for shown, _ in seen)
    shown_texts = [text for _, text in seen] + [page.text_content("body") or ""]
    assert not [text for text in shown_texts if re.search(r"null|undefined", text)], seen


@browser
def test_the_exposure_button_says_what_it_does(page_factory: Any) -> None:
    """不亮 / Expose none while nothing is marked; 亮出所选 / Expose selected once a card is."""
    page = page_factory(1280, 800)
    open_setup(page)
    start_match(page, declare=False, seed=1)  # South is dealt an exposable card (♦J) with this seed
    wait_for(page, EXPOSING)
    button = page.locator("#start")
    card = page.locator("#hand button.exposable").first
    assert button.text_content() == "不亮"
    assert page.get_by_role("button", name="不亮").count() == 1
    card.click()
    assert button.text_content() == "亮出所选"
    assert "亮出所选" in (page.text_content("#status") or "")
    page.click("#lang")
    assert button.text_content() == "Expose selected"
    assert "Expose selected" in (page.text_content("#status") or "")
    card.click()  # marked once more: unmarked (♦J has one kind of exposure)
    assert button.text_content() == "Expose none"
    assert "Start" not in (page.text_content(".controls") or "")
    card.click()
    button.click()
    wait_for(page, not_in_phase("expose"))
    assert page.locator("#seat-S .exposed").count() == 1


@browser
def test_a_single_player_table_is_not_private_and_has_no_host(page_factory: Any) -> None:
    """Alone against the computers, the header does not call the table private and no seat is
    the host; a table made for people still says both, and that a guest's deals are practice."""
    page = page_factory(1280, 800)
    open_setup(page)
    start_match(page, declare=False)
    wait_for(page, "#seat-S .name")
    info = page.text_content("#table-info") or ""
    assert ZH["table.private"] not in info and ZH["table.public"] not in info, info
    assert ZH["table.practice"] not in info  # (a single-player match is practice, and says so apart)
    assert page.locator(".mark.host").count() == 0
    # A private table of the lobby, its host waiting for friends: a guest, so its deals would be
    # practice, and the header says so beforehand (docs/ratings.md).
    made = api_post(page, "/api/tables", {"visibility": "private"})
    page.goto(made["url"])
    wait_for(page, in_phase("waiting"))
    wait_for(page, "#table-info:not(:empty)")
    assert ZH["table.private"] in (page.text_content("#table-info") or "")
    assert ZH["table.practice"] in (page.text_content("#table-info") or "")
    assert page.locator("#waiting-seats .mark.host").count() == 1


@browser
def test_the_title_is_shown_once_in_one_language(page_factory: Any) -> None:
    """The game's name is the header's heading, once, and the browser tab's title in the page's
    language; the player's title (猪小弟) is on the lifetime line, once."""
    page = page_factory(1280, 800)
    open_setup(page)
    page.click("#setup-cancel")
    wait_for(page, "#center .welcome")
    wait_for(page, "#me:not([hidden])")
    assert page.title() == ZH["app.title"]
    body = page.locator("body").inner_text()
    assert body.count(ZH["app.title"]) == 1, body
    header = page.locator("header.bar").inner_text()
    assert header.count(ZH["title.猪小弟"]) == 1, header
    page.click("#lang")
    assert page.title() == EN["app.title"]
    assert not CJK.search(page.title())
    body = page.locator("body").inner_text()
    assert body.count("Gongzhu") == 1, body


@browser
def test_the_sound_switch_draws_its_icon(page_factory: Any) -> None:
    """The sound switch's icon is inline SVG drawn by the page (a speaker, crossed out while
    off), not an emoji."""
    page = page_factory(1280, 800)
    open_setup(page)
    page.click("#setup-cancel")
    icon = page.locator("#sound-icon")
    assert icon.locator('svg[data-icon="sound-off"]').count() == 1
    assert (icon.text_content() or "").strip() == ""
    assert not re.search(r"[\U0001F300-\U0001FAFF]", page.text_content("#sound") or "")
    page.click("#sound")
    assert icon.locator('svg[data-icon="sound-on"]').count() == 1 and icon.locator("svg").count() == 1
    assert page.get_attribute("#sound", "aria-pressed") == "true"


# ---------------------------------------------------------------- the keyboard


@browser
def test_the_keyboard_goes_to_the_hand_when_a_deal_starts(page_factory: Any) -> None:
    """Started from the header's 新比赛 by keyboard, the deal puts the keyboard on the hand:
    arrows and Enter play, and Enter never opens the new-match dialog again mid-deal.  The next
    deal, asked for from the summary by keyboard, does the same."""
    page = page_factory(1280, 800)
    open_setup(page)
    page.click("#setup-cancel")
    page.focus("#new-match")
    page.keyboard.press("Enter")
    page.wait_for_selector("#setup[open]")
    start_match(page, declare=False, keyboard=True, deals=2)
    wait_for(page, f"{in_phase('play')}, {EXPOSING}")
    deadline = time.monotonic() + 5
    while not focus_in_hand(page):
        assert time.monotonic() < deadline, page.evaluate("document.activeElement?.outerHTML")
        page.wait_for_timeout(50)
    if page.locator(EXPOSING).count():
        page.keyboard.press("s")  # declare (nothing marked)
    wait_for(page, not_in_phase("expose"))
    played = 0
    while played < 3 and wait_turn_or_over(page) == "play":
        before = len(hand(page))
        if before == 1:
            break
        assert focus_in_hand(page), page.evaluate("document.activeElement?.outerHTML")
        for _ in range(before):  # arrows to a card that may be played now
            if page.evaluate("document.activeElement.getAttribute('aria-disabled')") == "false":
                break
            page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter")
        assert not page.locator("#setup[open]").count(), "Enter opened the new-match dialog"
        deadline = time.monotonic() + 5
        while len(hand(page)) == before:
            assert time.monotonic() < deadline, "Enter did not play the focused card"
            page.wait_for_timeout(30)
        played += 1
    assert played >= 1
    page.keyboard.press("Enter")
    assert not page.locator("#setup[open]").count()
    # Play the deal out; from the summary, 下一副 by keyboard: the next deal's hand has the keyboard.
    play_out(page)
    page.wait_for_selector("#summary[open]")
    page.focus("#summary-next")
    page.keyboard.press("Enter")
    wait_for(page, f"{in_phase('play')}, {EXPOSING}")
    deadline = time.monotonic() + 5
    while not focus_in_hand(page):
        assert time.monotonic() < deadline, page.evaluate("document.activeElement?.outerHTML")
        page.wait_for_timeout(50)
    page.keyboard.press("Enter")
    assert not page.locator("dialog[open]").count()


# ---------------------------------------------------------------- one language at a time


@browser
def test_a_guest_and_the_card_tags_in_the_pages_language(page_factory: Any) -> None:
    """A guest (stored 游客4821) is Guest4821 on an English page, in the header and on the seat
    plate (whose data-name keeps the stored name); the pig's and the sheep's faces are tagged in
    the page's language."""
    page = page_factory(1280, 800)
    stored = api_get(page, "/api/me")["name"]
    digits = re.fullmatch(r"游客([0-9]+)", stored)
    assert digits, stored
    open_setup(page)
    start_match(page, declare=False, seed=1)  # South holds ♦J
    wait_for(page, "#seat-S .name")
    assert page.text_content("#seat-S .name") == stored
    assert page.text_content('#hand [data-card="JD"] text.tag') == "羊"
    page.click("#lang")
    english = f"Guest{digits.group(1)}"
    assert page.text_content("#seat-S .name") == english
    assert page.get_attribute("#seat-S .name", "data-name") == stored
    assert page.text_content("#me") == english
    assert page.text_content('#hand [data-card="JD"] text.tag') == "sheep"
    assert "游客" not in page.locator("body").inner_text()
    page.click("#lang")
    assert page.text_content("#me") == stored


@browser
@pytest.mark.parametrize("touch", [False, True])
def test_key_hints_only_where_there_are_keys(page_factory: Any, touch: bool) -> None:
    """提示 (H), 上一圈 (L), 下一副 (N) with a mouse and keyboard; no key hints on a touch
    screen (pointer: coarse)."""
    page = page_factory(1280, 800, has_touch=touch)
    open_setup(page)
    page.click("#setup-cancel")
    for button, key, label in (
        ("#hint", "H", "btn.hint"),
        ("#last", "L", "btn.last"),
        ("#next", "N", "btn.next"),
        ("#summary-next", "N", "btn.next"),
    ):
        text = page.text_content(button) or ""
        if touch:
            assert f"({key})" not in text and text == ZH[f"{label}Touch"], text
        else:
            assert f"({key})" in text and text == ZH[label], text
        assert page.get_attribute(button, "aria-keyshortcuts") == key
    page.click("#lang")
    text = page.text_content("#hint") or ""
    assert (text == "Hint") if touch else (text == "Hint (H)"), text


@browser
def test_the_rules_page_speaks_to_players(page_factory: Any) -> None:
    """The rules page names no repository file and does not speak of the project's code: the
    rule book opens with its name and a few words to the player, in the page's language."""
    page = page_factory(1280, 800)
    page.goto("/rules")
    for lang, table in (("zh", ZH), ("en", EN)):
        wait_for(page, f"html[data-rules={lang}]")
        text = page.locator("main").inner_text()
        for word in (
            "docs/",
            ".md",
            "the rules this project implements",
            "cite them in code",
            "本项目实现的规则",
            "可在代码、测试和文档中引用",
            "tests",
            "测试",
        ):
            assert word not in text, (lang, word)
        assert page.locator("#rules h1").text_content() == table["rules.book"]
        assert page.locator("#rules .book-intro").text_content() == table["rules.bookIntro"]
        assert page.locator('[id="R1"]').count() == 1
        if lang == "zh":
            page.click("#lang")


# ---------------------------------------------------------------- levels and the summary


@browser
def test_the_levels_are_named_and_described_by_strength(page_factory: Any) -> None:
    """The new-match dialog offers the levels weakest first, by names a player understands, each
    with a line on how strong it is; the last, the strongest, says so."""
    page = page_factory(1280, 800)
    open_setup(page)
    values = page.eval_on_selector_all("#setup-level-N option", "os => os.map(o => o.value)")
    assert values == ["random", "beginner", "intermediate", "flatmc", "learned", "expert"] == list(LEVELS)
    names = page.eval_on_selector_all("#setup-level-N option", "os => os.map(o => o.textContent)")
    assert names == ["新手", "入门", "中级", "进阶", "老手", "高手"]
    lines = page.locator("#setup-level-notes li")
    assert lines.count() == len(values)
    assert [lines.nth(i).get_attribute("data-level") for i in range(len(values))] == values
    assert "最强" in (lines.nth(len(values) - 1).text_content() or "")
    assert "最弱" in (lines.nth(0).text_content() or "")
    page.select_option("#setup-lang", "en")
    names = page.eval_on_selector_all("#setup-level-N option", "os => os.map(o => o.textContent)")
    assert names == ["Novice", "Beginner", "Intermediate", "Advanced", "Veteran", "Expert"]
    assert "the strongest" in (page.locator("#setup-level-notes li").last.text_content() or "")
    body = page.locator("#setup").inner_text()
    for method in ("Monte-Carlo", "Learned", "蒙特卡洛", "神经网络"):
        assert method not in body, method


@browser
def test_the_summary_names_each_exposure_factor_where_it_counts(page_factory: Any) -> None:
    """With ♣10 exposed, the exposure line names the transformer's factor (变压器 ♣10 ×2) and the
    breakdown of the seat that took ♣10 names that same factor beside its multiplier."""
    page = page_factory(1280, 900)
    open_setup(page)
    for seed in range(1, 60):
        start_match(page, declare=False, seed=seed)
        if page.locator(f"{EXPOSING}").count() and page.locator('#hand button.exposable[data-card="TC"]').count():
            break
        page.click("#new-match")
        page.wait_for_selector("#setup[open]")
    else:
        pytest.fail("no seed under 60 deals South an exposable ♣10")
    page.click('#hand button.exposable[data-card="TC"]')
    page.click("#start")
    wait_for(page, not_in_phase("expose"))
    play_out(page)
    page.wait_for_selector("#summary[open]")
    match_id = page.evaluate("localStorage.getItem('gongzhu.match')")
    deal = replay(api_get(page, f"/api/matches/{match_id}/deals/0"))
    factors = page.text_content("#summary-factors") or ""
    assert factors.startswith("亮牌倍数：") and "变压器 ♣10 ×2" in factors, factors
    taker = next(s for s in range(4) if any(c.code == "TC" for c in deal.captured(Seat(s))))
    line = page.locator("#summary-rows .cards-row").nth(taker).locator("[data-breakdown]").text_content() or ""
    assert "含亮牌倍数 ×2" in line, line
    part = deal.score.parts[taker]
    if part.multiplier != 1:
        assert f"× {part.multiplier}（变压器，含亮牌倍数 ×2）" in line, line
    page.click("#summary-close")
    page.click("#lang")
    page.click("#show-summary")
    assert "transformer ♣10 ×2" in (page.text_content("#summary-factors") or "")
    line = page.locator("#summary-rows .cards-row").nth(taker).locator("[data-breakdown]").text_content() or ""
    assert "exposure factor ×2 included" in line, line


# ---------------------------------------------------------------- the catalog and the names (no browser)


def test_english_texts_say_in_chinese_only_the_rule_books_terms() -> None:
    """Every English text is English: a Chinese word in one (in brackets) is a term of the rule
    book (docs/rules.md uses it), or the name of the Chinese language."""
    book = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    foreign = {
        key: words
        for key, text in EN.items()
        if (words := [w for w in CJK.findall(text) if w not in book and w != "中文"])
    }
    assert foreign == {}
    for key in ("seat.auto", "btn.auto", "status.auto", "summary.lifetimeNote", "card.tag.QS", "card.tag.JD"):
        assert not CJK.search(EN[key]), key
    assert EN["name.guest"] == "Guest{n}" and ZH["name.guest"] == "游客{n}"


def test_level_names_speak_of_strength_not_method() -> None:
    for level in LEVELS:
        assert ZH[f"level.{level}"] and EN[f"level.{level}"] and ZH[f"levelInfo.{level}"] and EN[f"levelInfo.{level}"]
    shown = " ".join(ZH[f"level.{level}"] + EN[f"level.{level}"] for level in LEVELS)
    for method in ("蒙特卡洛", "神经网络", "Monte-Carlo", "Learned", "Flat"):
        assert method not in shown, method
    strongest = list(LEVELS)[-1]
    assert "最强" in ZH[f"levelInfo.{strongest}"] and "strongest" in EN[f"levelInfo.{strongest}"]


def test_guest_names_are_kept_back_in_both_forms() -> None:
    """No account may look like a guest in either language (游客4821, Guest4821), nor like a
    computer player by its level's name, present or former."""
    for name in (
        "游客4821",
        "Guest4821",
        "guest_1",
        "新手",
        "老手",
        "进阶",
        "Veteran",
        "Advanced",
        "Novice2",
        "蒙特卡洛",
        "神经网络",
        "随机",
        "初级",
    ):
        assert reserved(name) == RESERVED, name


@browser
def test_a_visitor_whose_address_made_guests_enough_is_told_why_and_may_sign_in(browser: Any, tmp_path: Path) -> None:
    """Past the guests one address makes in an hour (here one), a new browser there gets the page
    without a session; the page says why, in its language, and signing in works there."""
    from helpers.live import PASSWORD, account
    from helpers.servers import LiveServer

    with LiveServer(f"sqlite:///{tmp_path / 'guests.db'}", guests_per_address=1, trusted_proxies=["127.0.0.1"]) as live:
        address = "203.0.113.9"  # (forwarded by the trusted proxy: not the server's own machine)
        account(live, "Ann", address)  # a guest first, this address's one, then an account
        context = browser.new_context(base_url=live.base, extra_http_headers={"X-Forwarded-For": address})
        page = context.new_page()
        page.goto("/lobby")
        wait_for(page, "#toast.is-error:not([hidden])")
        said = render("server.too_many_guests", "zh", {"seconds": 0}).split("0")[0]
        assert said in (page.text_content("#toast") or "")
        assert not [c for c in context.cookies() if c["name"] == "gongzhu_session"]
        api_post(page, "/api/login", {"name": "Ann", "password": PASSWORD})
        assert api_get(page, "/api/me")["name"] == "Ann"
        context.close()
