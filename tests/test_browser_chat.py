"""Real-browser tests of a table's chat on phones: Playwright driving Debian's Chromium.

At a table of two people and two computers, during play, one person (and a spectator) say
something while the other holds a phone — 360 × 640, 375 × 667, 390 × 844, 412 × 915 upright and
667 × 375 on its side.  On every one the header's chat button is on the screen with the count of
the lines not yet read, the table's guarantees hold with it there (``check_on_screen``), and a tap
opens the chat over the table without scrolling the page: its input and the newest line inside the
screen, the count gone.  The person answers from it; Escape puts it away and the keyboard goes
back to the hand.  On a desktop the chat stands beside the table, with no button.

The screens are saved in ``test-artifacts/`` (``chat-*.png``).  The browser, the server and the
pages come from ``conftest.py``; the table's helpers from ``test_browser_tables.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from helpers.browser import VISIBLE_BOX_JS, wait_for
from test_browser import ARTIFACTS
from test_browser_layout import PHONES, check_on_screen, inside, resize
from test_browser_tables import new_table, open_table, play_until, sit

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

# What the reader's screen shows of the chat now: the scroll, the boxes of the button, the panel,
# its input and its newest line, whether the panel is open, and where the keyboard is.
CHAT_VIEW = "() => {\n" + VISIBLE_BOX_JS + """  const active = document.activeElement;
  return {
    scrollX: window.scrollX, scrollY: window.scrollY,
    toggle: box(document.getElementById("chat-toggle")),
    unread: box(document.getElementById("chat-unread")),
    panel: box(document.getElementById("chat")),
    input: box(document.getElementById("chat-input")),
    log: box(document.getElementById("chat-log")),
    last: box(document.querySelector("#chat-log .chat-line:last-child")),
    open: document.getElementById("chat").classList.contains("open"),
    focusInHand: Boolean(active && active.closest && active.closest("#hand button[data-card]")),
    focusInInput: active === document.getElementById("chat-input"),
  };
}"""


def shot(page: Page, name: str) -> None:
    """The screen as the player sees it (the viewport only)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"chat-{name}.png"))


def say(page: Page, text: str) -> None:
    """Say ``text`` from the page's chat (open on a desktop) and wait until its own log shows it."""
    page.fill("#chat-input", text)
    page.click("#chat-send")
    wait_for(page, f'#chat-log .chat-line .said:text-is("{text}")')


def test_the_chat_opens_over_the_table_on_every_phone(page_factory: Any) -> None:
    """During play, on every phone size, the reader sees the unread count on the header's chat
    button, opens the chat with nothing scrolling, reads the line, answers, and Escape closes it
    with the keyboard back on the hand."""
    host, watcher = page_factory(1280, 800), page_factory(1280, 800)
    reader = page_factory(*PHONES[0])
    _, url = new_table(host, seat="S", preset="online")
    open_table(reader, url)
    sit(reader, "N")
    open_table(host, url)
    wait_for(host, "#seat-N .name:not(:empty)")
    host.click("#table-start")
    play_until(
        [host, reader],
        lambda: all(p.locator('html[data-phase="play"] #hand button[data-card]').count() for p in (host, reader)),
    )
    open_table(watcher, url)
    wait_for(watcher, 'html[data-phase="play"] #chat:not([hidden])')
    # On a desktop the chat stands beside the table, open, with no button for it.
    assert host.locator("#chat").is_visible() and host.locator("#chat-input").is_visible()
    assert host.locator("#chat-toggle").is_hidden()

    # The lines come from the host and the spectator by turns (each connection may say three
    # lines at once before the server asks it to slow down); the reader answers twice.
    senders = (host, watcher, host, watcher, host)
    answer_on = {PHONES[0], PHONES[-1]}
    for n, ((w, h), sender) in enumerate(zip(PHONES, senders, strict=True)):
        where = f"{w}x{h}"
        resize(reader, w, h)
        line = f"第{n + 1}句 line {n + 1}"
        say(sender, line)
        wait_for(reader, '#chat-unread:not([hidden]):text-is("1")')
        closed: dict[str, Any] = reader.evaluate(CHAT_VIEW)
        assert not closed["open"], where
        assert inside(closed["toggle"], w, h) and inside(closed["unread"], w, h), (where, closed)
        check_on_screen(reader, f"chat-closed-{where}")  # the table's guarantees, the button there
        shot(reader, f"unread-{where}")

        reader.click("#chat-toggle")
        wait_for(reader, "#chat.open")
        wait_for(reader, f'#chat-log .chat-line:last-child .said:text-is("{line}")')
        opened: dict[str, Any] = reader.evaluate(CHAT_VIEW)
        assert (opened["scrollX"], opened["scrollY"]) == (0, 0), (where, opened)
        for part in ("panel", "input", "last", "toggle"):
            assert inside(opened[part], w, h), (where, part, opened)
        # The newest line shows within the lines' own box (they scroll), not hidden under it.
        log, last = opened["log"], opened["last"]
        assert log["top"] - 0.5 <= last["top"] and last["bottom"] <= log["bottom"] + 0.5, (where, log, last)
        assert opened["focusInInput"], where
        assert reader.locator("#chat-unread").is_hidden(), where
        if (w, h) in answer_on:
            answer = f"收到 {where}"
            reader.keyboard.type(answer)
            reader.keyboard.press("Enter")
            wait_for(reader, f'#chat-log .chat-line:last-child .said:text-is("{answer}")')
            wait_for(host, f'#chat-log .chat-line[data-from] .said:text-is("{answer}")')
            assert reader.locator("#chat-unread").is_hidden(), where
        shot(reader, f"open-{where}")

        # Escape puts the chat away; the keyboard is back on the hand, the page did not scroll.
        reader.keyboard.press("Escape")
        wait_for(reader, "#chat:not(.open)")
        after: dict[str, Any] = reader.evaluate(CHAT_VIEW)
        assert after["panel"] is None and after["focusInHand"], (where, after)
        assert (after["scrollX"], after["scrollY"]) == (0, 0), (where, after)
        assert reader.locator("#chat-unread").is_hidden(), where
