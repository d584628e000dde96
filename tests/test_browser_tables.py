"""Real-browser tests of the tables of several people and the lobby: Playwright driving Debian's
Chromium against the real server (``conftest.py``: ``browser``, ``server``, ``page_factory``).

Each browser context is a person of its own (its own session cookie).  The pages are driven only
by what a person does — clicking the lobby's buttons and links, the seats' Sit buttons, the
host's Start, the hand's cards (``button[data-card]`` with ``aria-disabled``), 不亮 / Expose none, the
chat — and read through the stable surface (``<html data-phase>``, ``[data-deal-result]``) and
the views' data attributes (``[data-table-id]``, ``[data-seat]``, ``[data-sit]``).  The results
are compared with the engine's replay of the stored record.

Without ``/usr/bin/chromium`` or the ``playwright`` package the module is skipped, unless the
environment variable ``CI`` is set: then it fails.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from gongzhu.records.replay import replay
from helpers.browser import TIMEOUT_MS, api_get, api_post, in_phase, phase, wait_for

if TYPE_CHECKING:
    from playwright.sync_api import Page, WebSocketRoute

pytestmark = pytest.mark.browser

SEATS = ("N", "E", "S", "W")
LEGAL = '#hand button[data-card][aria-disabled="false"]'
OVER = ("deal-over", "match-over")
#: Computer players that answer at once.
QUICK = {"N": "random", "E": "random", "S": "random", "W": "random"}
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
#: How long a loop that drives several pages may take before the test gives up (a guard, not a measure).
GIVE_UP_S = 120
def name_of(page: Page) -> str:
    name: str = api_get(page, "/api/me")["name"]
    return name


def new_table(page: Page, **body: Any) -> tuple[str, str]:
    """A table created by the page's person (its host): (id, url)."""
    body = {"levels": QUICK, "speed": "instant", "turn_seconds": None, "expose_seconds": None, **body}
    answer = api_post(page, "/api/tables", body)
    return answer["table_id"], answer["url"]


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)

def hand(page: Page) -> list[str]:
    cards: list[str] = page.eval_on_selector_all("#hand button[data-card]", "bs => bs.map(b => b.dataset.card)")
    return cards


def trick(page: Page) -> list[tuple[str, str]]:
    """The cards in the middle of the table, by seat, in the order they were played."""
    slots: list[list[str]] = page.eval_on_selector_all(
        "#center .slot", "ss => ss.map(s => [s.dataset.seat, s.textContent])")
    return [(seat, text) for seat, text in slots]


def known(page: Page) -> dict[str, Any]:
    """What the page's state module holds about its person's view (read, never changed)."""
    seen: dict[str, Any] = page.evaluate("""() => import("/static/state.js").then(({ page }) => ({
        seat: page.state?.seat ?? null, hand: page.state?.hand ?? [], legal: page.state?.legal ?? [],
        v: page.state?.v ?? null, phase: page.state?.phase ?? null }))""")
    return seen


def open_table(page: Page, url: str) -> None:
    page.goto(url)
    wait_for(page, 'html:not([data-phase="setup"])')


def sit(page: Page, seat: str) -> None:
    """Take ``seat`` by its Sit button in the waiting table's seat list."""
    page.click(f'#waiting-seats [data-sit="{seat}"]')
    wait_for(page, f'#waiting-seats li.mine[data-seat="{seat}"]')


def act(page: Page) -> bool:
    """Do what the table waits for from this page's person, if anything: declare (no
    exposures: the 不亮 / Expose none button), play the first legal card.  True if something was done.
    A button gone before the click (the table moved on: another person's play ended the deal,
    R5.4) is no action."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    start = page.locator("#start:visible")
    legal = page.locator(f'html[data-phase="play"] {LEGAL}')
    for target in (start, legal):
        if target.count():
            try:
                target.first.click(timeout=2000)
            except PlaywrightTimeout:
                return False
            return True
    return False


def until(page: Page, done: Any) -> None:
    """Wait (letting the page run) until ``done()``."""
    give_up = time.monotonic() + GIVE_UP_S
    while not done():
        assert time.monotonic() < give_up, "it did not happen"
        page.wait_for_timeout(30)


def play_until(pages: list[Page], done: Any) -> None:
    """Each page acts when the table waits for it, until ``done()``."""
    give_up = time.monotonic() + GIVE_UP_S
    while not done():
        assert time.monotonic() < give_up, "the table stopped moving"
        if not any([act(p) for p in pages]):
            pages[0].wait_for_timeout(30)


def check_results(pages: list[Page], table_id: str) -> None:
    """Every page shows the same deal results, and they are the engine's for the stored record."""
    shown = [{s: int(p.locator(f'[data-deal-result="{s}"]').text_content() or "") for s in SEATS} for p in pages]
    assert all(r == shown[0] for r in shown), shown
    record = api_get(pages[0], f"/api/matches/{table_id}/deals/0")
    deal = replay(record)
    assert shown[0] == dict(zip(SEATS, deal.score.result, strict=True))


def test_three_people_and_a_computer_play_a_deal_and_one_comes_back(page_factory: Any) -> None:
    """Three people at one table with a computer player: the host creates it, two take seats by
    the lobby's Sit links, the host starts, and everyone plays by clicking.  Each page draws the
    table from its own seat.  One person closes their page in the middle of a trick and opens the
    table again: the same hand and the same trick are back, and the deal goes on."""
    host, second, third = page_factory(), page_factory(), page_factory()
    table_id, url = new_table(host, seat="S")
    open_table(host, url)
    assert phase(host) == "waiting"
    for page, seat in ((second, "N"), (third, "E")):
        page.goto("/lobby")
        page.click(f'[data-table-id="{table_id}"] a[data-sit="{seat}"]')
        wait_for(page, f'#waiting-seats li.mine[data-seat="{seat}"]')
        # The person's seat is at the bottom of their screen.
        wait_for(page, f"#seat-{seat}.pos-bottom")
    # The host sees them sit without reloading; only the host may start.
    for page, seat in ((second, "N"), (third, "E")):
        wait_for(host, f'#seat-{seat} .name[data-name="{name_of(page)}"]')
    assert host.locator("#table-start").is_visible() and not second.locator("#table-start").is_visible()
    assert host.locator("#seat-W .level").count() == 1  # the computer player's seat
    shot(second, "table-waiting")
    host.click("#table-start")
    people = [host, second, third]
    for page in people:
        wait_for(page, in_phase("expose", "play"))
        assert len(hand(page)) == 13
    # Hints are for games against computers only (fair play).
    assert host.locator("#hint").is_hidden()
    # Nobody holds another's cards.
    hands = [set(hand(p)) for p in people]
    assert not (hands[0] & hands[1] or hands[0] & hands[2] or hands[1] & hands[2])

    # Play until the second person is to play in the middle of a trick after the first trick (the
    # page's playable cards, not the state's legal plays: those stay until the server answers a play).
    def mid_trick() -> bool:
        return second.locator(LEGAL).count() > 0 and len(trick(second)) > 0 and len(hand(second)) < 13

    give_up = time.monotonic() + GIVE_UP_S
    while not (mid_trick() or phase(host) in OVER):
        assert time.monotonic() < give_up, "the table stopped moving"
        acted = [act(host), act(third)]
        if not mid_trick():
            acted.append(act(second))
        if not any(acted):
            host.wait_for_timeout(30)
    assert phase(host) not in OVER, "the second person was never to play in the middle of a trick"
    before = (hand(second), trick(second), known(second)["v"])
    second.close()
    again = second.context.new_page()
    open_table(again, url)
    again.set_default_timeout(TIMEOUT_MS)
    wait_for(again, LEGAL)
    assert (hand(again), trick(again)) == before[:2]
    assert known(again)["v"] > before[2]  # leaving and coming back are changes of the table too
    wait_for(again, "#seat-N.pos-bottom")
    shot(again, "table-back-mid-trick")
    second = again
    people = [host, second, third]
    play_until(people, lambda: all(phase(p) in OVER for p in people))
    check_results(people, table_id)
    # Everyone's own seat is labelled as theirs in the summary.
    assert "你" in (host.locator("#summary-rows th").nth(2).text_content() or "")


def test_a_dropped_connection_catches_up_from_the_last_version_it_saw(page_factory: Any) -> None:
    """A connection that drops says which version it saw last when it comes back (?since=V),
    gets what it missed — another person's play — and shows the table as it is now; meanwhile the
    page says it is reconnecting."""
    host, guest = page_factory(), page_factory()
    urls: list[str] = []
    sockets: list[WebSocketRoute] = []
    held = [False]

    def route(ws: WebSocketRoute) -> None:
        urls.append(ws.url)
        if held[0]:
            ws.close(code=4000, reason="held down by the test")
            return
        ws.connect_to_server()
        sockets.append(ws)

    guest.route_web_socket(re.compile(r"/ws/m-"), route)
    _table_id, url = new_table(host, seat="S")
    open_table(host, url)
    open_table(guest, url)
    sit(guest, "N")
    host.click("#table-start")
    for page in (host, guest):
        wait_for(page, in_phase("expose", "play"))
    # (the host's playable cards, not the state's legal plays: those stay while a play is on its way)
    play_until([host, guest], lambda: host.locator(f'html[data-phase="play"] {LEGAL}').count() > 0)
    until(guest, lambda: known(guest)["v"] == known(host)["v"])  # the guest has seen it all
    seen = known(guest)["v"]
    assert isinstance(seen, int) and "since=" not in urls[-1]
    held[0] = True
    sockets[-1].close(code=4000, reason="dropped by the test")
    guest.locator("#offline").wait_for(state="visible")
    card = host.locator(LEGAL).first.get_attribute("data-card")
    host.locator(LEGAL).first.click()
    wait_for(host, f'#hand:not(:has([data-card="{card}"]))')
    held[0] = False
    guest.locator("#offline").wait_for(state="hidden")
    assert re.search(rf"[?&]since={seen}\b", urls[-1]), urls
    # The guest's table is the host's again: the same version, the same trick, South's card gone.
    until(guest, lambda: known(guest)["v"] == known(host)["v"])
    assert trick(guest) == trick(host)
    count = guest.locator("#seat-S .backs .count").text_content() or ""
    assert re.fullmatch(rf"{len(hand(host))} (张|cards)", count), count


def test_the_turn_timer_plays_for_a_person_who_lets_it_run_out(page_factory: Any) -> None:
    """With a short turn timer and exposure window, a person who does nothing sees the clock count
    down, and the server acts for them: the exposure window closes, then their card is played; a
    second timeout in a row puts the seat into 托管, and Take back gives it back."""
    page = page_factory()
    # Several deals: a deal of the online preset can end the match (a −1000 line at ×12).
    _table_id, url = new_table(page, seat="S", turn_seconds=5, expose_seconds=5, options={"match_end": "deals:3"})
    open_table(page, url)
    page.click("#table-start")
    wait_for(page, in_phase("expose", "play"))
    if phase(page) == "expose":
        # The clock counts down for the person who has not declared.
        page.locator("#clock").wait_for(state="visible")
        assert re.search(r"\d", page.locator("#clock").text_content() or "")
        assert re.search(r"\d", page.locator('#seat-S .clock-badge').text_content() or "")
    wait_for(page, in_phase("play"))
    wait_for(page, LEGAL)  # South's turn: let it run out
    assert len(hand(page)) == 13
    page.locator("#clock").wait_for(state="visible")
    # The exposure window and the turn both ran out: the server played for South and, after two
    # timeouts in a row, put the seat into 托管 (the computer plays on for it).
    page.locator("#takeback").wait_for(state="visible")
    assert len(hand(page)) < 13
    assert page.locator("#seat-S .mark.auto").count() == 1
    assert page.locator("#status").text_content() != ""
    # The summary of a deal the computer finished offers Take back too (the computers may finish
    # the deal between the look and the click: look again).
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    give_up = time.monotonic() + GIVE_UP_S
    while True:
        try:
            page.click("#summary-takeback" if page.locator("#summary[open]").count() else "#takeback", timeout=2000)
            break
        except PlaywrightTimeout:
            assert time.monotonic() < give_up, "Take back was never clickable"
    page.locator("#takeback").wait_for(state="hidden")
    assert page.locator("#seat-S .mark.auto").count() == 0
    # South plays for themselves again: the next turn waits for them.
    if phase(page) in OVER:
        page.click("#summary-next")
    play_until([page], lambda: bool(known(page)["legal"]))
    assert page.locator("#takeback").is_hidden() and page.locator("#clock").is_visible()


def test_a_spectator_watches_without_any_hand_and_chats(page_factory: Any) -> None:
    """Someone who sits at no seat watches a deal from South's side: no hand in their page, ever;
    the seats' plates and the trick follow the play, and they may take a free seat.  The chat goes
    both ways as text only, with quick phrases; the mute switch is remembered."""
    player, watcher = page_factory(), page_factory()
    table_id, url = new_table(player, seat="E", options={"match_end": "deals:2"})
    open_table(player, url)
    open_table(watcher, url)
    assert known(watcher)["seat"] is None
    wait_for(watcher, "#seat-S.pos-bottom")
    wait_for(player, "#seat-E.pos-bottom")
    wait_for(player, '#table-info:text-matches("观众 1|1 watching")')
    player.click("#table-start")
    wait_for(watcher, in_phase("expose", "play"))

    def watched() -> bool:
        seen = known(watcher)
        assert seen["seat"] is None and seen["hand"] == [] and seen["legal"] == []
        assert watcher.locator("[data-card]").count() == 0
        return phase(watcher) in OVER

    play_until([player], lambda: watched() or len(hand(player)) < 10)
    shot(watcher, "table-spectator")
    play_until([player], watched)
    wait_for(player, in_phase(*OVER))
    check_results([player, watcher], table_id)
    watcher.click("#summary-close")
    player.click("#summary-close")

    hostile = '<img src="x" id="injected">hi & <b>bye</b>'
    watcher.fill("#chat-input", hostile)
    watcher.click("#chat-send")
    line = player.locator("#chat-log .chat-line").last
    line.wait_for()
    assert (line.locator(".said").text_content() or "") == hostile
    assert player.locator("#chat-log img, #chat-log b, #injected").count() == 0
    assert re.search(r"观众|watching", line.locator(".who").text_content() or "")
    shot(player, "table-chat")
    player.click('#chat-quick [data-quick="chat.quick.hello"]')
    said = watcher.locator("#chat-log .chat-line .said.quick").last
    said.wait_for()
    assert (said.text_content() or "") in ("大家好！", "Hello everyone!")
    # A spectator may take a seat nobody sits in during the match: the table turns to their seat.
    watcher.click('#seat-W [data-sit="W"]')
    wait_for(watcher, "#seat-W.pos-bottom")
    assert known(watcher)["seat"] == "W"
    wait_for(player, '#seat-W .name')
    watcher.check("#chat-mute")
    assert watcher.locator("#chat-log").is_hidden()
    watcher.reload()
    wait_for(watcher, in_phase(*OVER))
    watcher.locator("#chat").wait_for(state="visible")
    assert watcher.locator("#chat-mute").is_checked() and watcher.locator("#chat-log").is_hidden()
    # What was said before the page was loaded again is still there (the server sends it again).
    if watcher.locator("#summary").is_visible():
        watcher.click("#summary-close")
    watcher.uncheck("#chat-mute")
    wait_for(watcher, "#chat-log .chat-line .said.quick")
    assert [watcher.locator("#chat-log .chat-line .said").nth(i).text_content() for i in range(2)] == [
        hostile, said.text_content()]


def test_the_lobby_lists_tables_live_and_seats_people(page_factory: Any) -> None:
    """The lobby shows who the person is, and its list follows the tables without a reload:
    a new public table appears (a private one never does), a person sitting down shows in the
    seat, a spectator in the count, the start in the status.  Play now seats the person; Create
    table makes a table with the chosen seat, timers and visibility, and a private table's
    invitation link lets a friend in (without it the table stays shut)."""
    lobby, host, friend = page_factory(), page_factory(), page_factory()
    lobby.goto("/lobby")
    wait_for(lobby, "#me:not([hidden])")
    assert (lobby.locator("#me").get_attribute("href") or "") == "/profile"
    assert name_of(lobby) in (lobby.locator("#me").text_content() or "")
    private_id, _ = new_table(host, visibility="private")
    public_id, public_url = new_table(host, seat="W", turn_seconds=30)
    open_table(host, public_url)  # listed once someone is at it
    entry = lobby.locator(f'[data-table-id="{public_id}"]')
    entry.wait_for()
    assert lobby.locator(f'[data-table-id="{private_id}"]').count() == 0
    assert entry.get_attribute("data-status") == "waiting"
    assert (entry.locator('[data-seat="W"] .name').text_content() or "") == name_of(host)
    assert re.search(r"30", entry.locator(".timer").first.text_content() or "")

    open_table(friend, f"{public_url}?sit=E")
    wait_for(friend, '#waiting-seats li.mine[data-seat="E"]')
    wait_for(lobby, f'[data-table-id="{public_id}"] [data-seat="E"] .name[data-name="{name_of(friend)}"]')
    open_table(host, public_url)
    watcher = page_factory()
    open_table(watcher, public_url)
    wait_for(lobby, f'[data-table-id="{public_id}"] .spectators[data-spectators="1"]')
    shot(lobby, "lobby")
    host.click("#table-start")
    wait_for(lobby, f'[data-table-id="{public_id}"][data-status="playing"]')

    # Play now: a seat at a waiting public table, or a new one.
    player = page_factory()
    player.goto("/lobby")
    player.click("#play-now")
    player.wait_for_url(re.compile(r"/table/m-"))
    wait_for(player, "#waiting-seats li.mine")

    # Create table: a private table, at West, no turn timer.
    creator = page_factory()
    creator.goto("/lobby")
    wait_for(creator, "#create:not([disabled])")
    creator.click("#create")
    # Under the computer levels, one line on each, weakest first, the last the strongest.
    notes = creator.locator("#create-level-notes li")
    levels = creator.eval_on_selector_all("#create-level-N option", "os => os.map(o => o.value)")
    assert [notes.nth(i).get_attribute("data-level") for i in range(notes.count())] == levels
    assert "最强" in (notes.last.text_content() or "")
    creator.select_option("#create-seat", "W")
    creator.check("#create-private")
    creator.uncheck("#create-turn-on")
    creator.fill("#create-expose", "15")
    shot(creator, "lobby-create")
    creator.click("#create-go")
    creator.wait_for_url(re.compile(r"/table/m-[^?]+\?invite="))
    wait_for(creator, '#waiting-seats li.mine[data-seat="W"]')
    wait_for(creator, "#seat-W.pos-bottom")
    invite = creator.locator("#invite-url").input_value()
    assert "invite=" in invite
    table_id = re.search(r"/table/(m-[^?]+)", invite).group(1)  # type: ignore[union-attr]
    state = creator.evaluate("""() => import("/static/state.js").then(({ page }) => page.state.table)""")
    assert (state["visibility"], state["turn_seconds"], state["expose_seconds"]) == ("private", None, 15)
    # Without the invitation the table stays shut; with it, the friend may sit.
    stranger = page_factory()
    stranger.goto(f"/table/{table_id}")
    wait_for(stranger, "#center .error")
    assert phase(stranger) == "setup"
    invited = page_factory()
    open_table(invited, invite)
    sit(invited, "N")
    wait_for(creator, '#seat-N .name')
    assert lobby.locator(f'[data-table-id="{table_id}"]').count() == 0


def test_the_lobby_reconnects_by_itself(page_factory: Any) -> None:
    """After its socket drops, the lobby says it is reconnecting, reconnects, and goes on
    following the tables."""
    lobby, host = page_factory(), page_factory()
    sockets: list[WebSocketRoute] = []

    def route(ws: WebSocketRoute) -> None:
        ws.connect_to_server()
        sockets.append(ws)

    lobby.route_web_socket(re.compile(r"/ws/lobby$"), route)
    lobby.goto("/lobby")
    until(lobby, lambda: bool(sockets))
    # The banner may be up for only the half second before the first retry: a watcher inside the
    # page notes that it was shown, so a busy machine polling slowly cannot miss it.
    lobby.evaluate(
        """() => {
            const banner = document.getElementById("offline");
            window.offlineShown = false;
            new MutationObserver(() => { if (!banner.hidden) window.offlineShown = true; })
                .observe(banner, { attributes: true, attributeFilter: ["hidden"] });
        }"""
    )
    sockets[-1].close(code=4000, reason="dropped by the test")
    until(lobby, lambda: len(sockets) >= 2 and bool(lobby.evaluate("window.offlineShown")))
    lobby.locator("#offline").wait_for(state="hidden")
    table_id, url = new_table(host)
    open_table(host, url)
    lobby.locator(f'[data-table-id="{table_id}"]').wait_for()


CHOSEN_LINES = "ls => ls.filter(l => l.classList.contains('chosen')).map(l => l.dataset.level)"


def test_the_new_table_form_says_how_strong_each_chosen_level_is(page_factory: Any) -> None:
    """The lobby's new-table form, on a phone, has under the computer levels the table page's line
    on each level (the same catalog lines), those of the levels chosen marked as they change, in
    Chinese and in English."""
    from test_browser_layout import shot as screen

    page = page_factory(360, 640)
    page.goto("/lobby")
    wait_for(page, "#create:not([disabled])")
    page.click("#create")
    wait_for(page, "#create-level-notes li[data-level]")
    levels = page.eval_on_selector_all("#create-level-N option", "os => os.map(o => o.value)")
    notes = page.locator("#create-level-notes li")
    assert [notes.nth(i).get_attribute("data-level") for i in range(notes.count())] == levels
    chosen = {page.input_value(f"#create-level-{seat}") for seat in SEATS}
    assert sorted(page.eval_on_selector_all("#create-level-notes li", CHOSEN_LINES)) == sorted(chosen)
    strongest = levels[-1]
    assert strongest not in chosen
    page.select_option("#create-level-E", strongest)
    wait_for(page, f'#create-level-notes li.chosen[aria-current="true"][data-level="{strongest}"]')
    line = page.locator(f'#create-level-notes li[data-level="{strongest}"]')
    assert "最强" in (line.text_content() or "")
    line.scroll_into_view_if_needed()
    screen(page, "lobby-levels-zh-360x640")
    # In English: the same lines, in English (the form is opened again after the switch).
    page.click("#create-cancel")
    page.click("#lang")
    page.click("#create")
    wait_for(page, "#create-level-notes li[data-level]")
    assert "the strongest" in (line.text_content() or "")
    page.select_option("#create-level-W", levels[0])
    chosen = {page.input_value(f"#create-level-{seat}") for seat in SEATS}
    assert levels[0] in chosen
    assert sorted(page.eval_on_selector_all("#create-level-notes li", CHOSEN_LINES)) == sorted(chosen)
    page.locator(f'#create-level-notes li[data-level="{levels[0]}"]').scroll_into_view_if_needed()
    screen(page, "lobby-levels-en-360x640")


def test_a_seat_taken_during_a_deal_is_yours_from_the_next_deal(page_factory: Any) -> None:
    """A spectator who sits down while a deal is being played sits from the next deal on: their
    page shows no hand, the seat's plate and the status line say so on both pages, and once the
    deal is over the seat is theirs.  A table whose seed was chosen says the deal was set in advance."""
    player, watcher = page_factory(), page_factory()
    _table_id, url = new_table(player, seat="E", options={"match_end": "deals:2"})
    open_table(player, url)
    open_table(watcher, url)
    player.click("#table-start")
    wait_for(watcher, in_phase("expose", "play"))
    play_until([player], lambda: len(hand(player)) < 12)
    watcher.click('#seat-W [data-sit="W"]')
    wait_for(watcher, "#seat-W .mark.next-deal")
    wait_for(player, "#seat-W .mark.next-deal")
    assert re.search(r"下一副牌起|from the next deal", watcher.locator("#status").text_content() or "")
    assert watcher.locator("#hand [data-card]").count() == 0 and known(watcher)["hand"] == []
    assert watcher.locator("[data-sit]:visible").count() == 0  # no other seat to take meanwhile
    shot(watcher, "table-sits-from-next-deal")
    play_until([player], lambda: phase(player) in OVER)
    wait_for(watcher, "#seat-W.pos-bottom")
    assert known(watcher)["seat"] == "W" and watcher.locator("#seat-W .mark.next-deal").count() == 0

    seeded_id, seeded_url = new_table(player, seed=42, visibility="private")
    open_table(player, seeded_url)
    wait_for(player, '#table-info:text-matches("预设牌局|deal set in advance")')
    assert all(t["id"] != seeded_id for t in api_get(player, "/api/tables"))  # a private table: not listed


def test_the_lobbys_table_card_tells_its_sit_buttons_apart(page_factory: Any) -> None:
    """On a 390 px phone in English, a waiting table's card in the lobby has a Sit here button on each
    free seat and one primary button that takes any free seat, worded apart (neither label within
    the other), that one leading to the first free seat."""
    host, phone = page_factory(), page_factory(390, 844, is_mobile=True, has_touch=True)
    phone.add_init_script("localStorage.setItem('gongzhu.settings', JSON.stringify({lang: 'en'}))")
    table_id, url = new_table(host, seat="N")
    open_table(host, url)  # listed once someone is at it
    phone.goto("/lobby")
    card = phone.locator(f'[data-table-id="{table_id}"]')
    card.wait_for()
    wait_for(phone, f'[data-table-id="{table_id}"] [data-seat="N"] .name')
    shot(phone, "lobby-card-390-en")
    primary = card.locator('[data-action="sit"]')
    seats = card.locator("a.sit[data-sit]")
    assert seats.count() == 3 and primary.count() == 1
    take = (primary.text_content() or "").strip()
    here = {(seats.nth(i).text_content() or "").strip() for i in range(seats.count())}
    assert len(here) == 1, here
    [sit_here] = here
    assert take.lower() not in sit_here.lower() and sit_here.lower() not in take.lower(), (take, sit_here)
    assert seats.first.get_attribute("data-sit") == "E"
    assert primary.get_attribute("href") == seats.first.get_attribute("href")


def test_the_summary_says_what_the_lifetime_score_did_not_count(page_factory: Any) -> None:
    """Two accounts new here play a deal with two 中级 computers: the deal counts, but each one's
    final is shared out to the other, new here too, and counts nothing yet (docs/ratings.md, Won
    from one person): each one's summary says how much was not counted — unless it is nothing."""
    from helpers.live import PASSWORD

    host, other = page_factory(), page_factory()
    for page, name in ((host, "Meiling"), (other, "Guowei")):
        page.goto("/lobby")
        api_post(page, "/api/account", {"name": name, "password": PASSWORD})
    middling = dict.fromkeys(SEATS, "intermediate")
    table_id, url = new_table(host, seat="S", levels=middling, options={"match_end": "deals:1"})
    open_table(host, url)
    other.goto("/lobby")
    other.click(f'[data-table-id="{table_id}"] a[data-sit="N"]')
    wait_for(other, '#waiting-seats li.mine[data-seat="N"]')
    wait_for(host, f'#seat-N .name[data-name="{name_of(other)}"]')
    host.click("#table-start")
    people = [host, other]
    play_until(people, lambda: all(phase(p) in OVER for p in people))
    record = api_get(host, f"/api/matches/{table_id}/deals/0")
    assert record["players"]["S"]["name"] == "Meiling" and record["players"]["N"]["name"] == "Guowei"
    for page, seat in ((host, "S"), (other, "N")):
        wait_for(page, "#summary-lifetime")
        note = page.locator("#summary-lifetime").text_content() or ""
        final = record["final"][seat]
        assert "× 12" in note and (f"有 {final} 分未计入" in note) == (final != 0), (seat, final, note)
        assert ("未计入" in note) == (final != 0), note
        assert api_get(page, "/api/me")["lifetime"] == 0
