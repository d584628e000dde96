"""Real-browser tests of names written in a right-to-left script (docs/web-protocol.md, Names): an
account may be named ``ناصر`` (Arabic, one script), and every page shows such a name isolated
from the text around it — a ``<bdi>`` of its own (or ``dir="auto"`` on an element holding the
name alone), whose computed ``unicode-bidi`` is ``isolate`` — so that Unicode's bidirectional
algorithm does not carry the numbers and marks beside it into its direction (``ناصر 12`` drawn
``12 ناصر``).  Checked where names show: the table's seat plates, waiting list, waiting note,
chat and header, the lobby's tables, friend requests, friends, invitations and toasts, the profile
seen by another account, and the leaderboard; and the message renderer of the catalog
(``i18n.js``'s ``tNodes``, ``refusalNodes``) drawing a message with a name before a number.

Without ``/usr/bin/chromium`` or the ``playwright`` package the module is skipped, unless the
environment variable ``CI`` is set: then it fails.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import pytest

from helpers.browser import api_post, wait_for
from test_browser_tables import new_table, open_table, shot, sit

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

PASSWORD = "a quiet tiger 42 people"
#: An account's name in Arabic letters (a right-to-left script), and one in Hebrew.
NASIR, NOA = "ناصر", "נועה"

#: Whether the element ``selector`` matches (or one inside it) shows ``name`` isolated: an element
#: whose text is the name alone and whose computed unicode-bidi isolates it.  What was found, for
#: the assertion's message.
ISOLATED = """([selector, name]) => {
  const root = document.querySelector(selector);
  if (!root) return { found: false };
  const holders = [root, ...root.querySelectorAll("*")].filter((e) => e.textContent.trim() === name);
  const styles = holders.map((e) => `${e.tagName.toLowerCase()}:${getComputedStyle(e).unicodeBidi}`);
  const isolating = ["isolate", "isolate-override", "plaintext"];
  const isolated = holders.some((e) => isolating.includes(getComputedStyle(e).unicodeBidi));
  return { found: true, isolated, styles, text: root.textContent };
}"""


def account(page: Page, name: str) -> None:
    """Make the page's person the account ``name`` (before any page of it is open)."""
    api_post(page, "/api/account", {"name": name, "password": PASSWORD})


def shows_isolated(page: Page, selector: str, name: str = NASIR) -> None:
    """``selector`` (waited for) shows ``name`` isolated from the text around it."""
    wait_for(page, selector)
    seen = page.evaluate(ISOLATED, [selector, name])
    assert seen["found"] and seen["isolated"], (selector, seen)


def test_a_right_to_left_name_is_isolated_wherever_it_is_shown(page_factory: Any) -> None:
    """ناصر asks Ann to be friends: Ann's lobby lists the request, and ناصر's profile says he
    asks; she accepts by a click (the toast names him); he invites her to the public table he
    hosts: her lobby shows the table (its host, his seat) and the invitation; she sits, and his
    name on the seat plate, in the waiting list, in the waiting note and on his chat line is a
    <bdi> of its own, as it is in his own header, in the profile's heading and facts, and on the
    leaderboard."""
    nasir, ann = page_factory(), page_factory()
    account(nasir, NASIR)
    account(ann, "Ann")
    api_post(nasir, "/api/people/Ann/friend", {})

    # The request in Ann's lobby and on ناصر's profile page.
    ann.goto("/lobby")
    shows_isolated(ann, f'#asking li[data-name="{NASIR}"]')
    ann.goto(f"/profile?name={quote(NASIR)}")
    wait_for(ann, '#people-actions:not([hidden])[data-friend="asking"]')
    shows_isolated(ann, "#friend-state")
    shows_isolated(ann, "#heading")
    shows_isolated(ann, "#fact-name")
    ann.click("#friend-button")
    wait_for(ann, '#people-actions[data-friend="friends"]')

    # ناصر hosts a public table and invites Ann; her lobby shows both, and accepting shows a toast.
    table_id, url = new_table(nasir, seat="S")
    open_table(nasir, url)
    api_post(nasir, f"/api/tables/{table_id}/invite", {"name": "Ann"})
    ann.goto("/lobby")
    shows_isolated(ann, f'#friends li.friend[data-name="{NASIR}"]')
    shows_isolated(ann, f'#invitations li[data-from="{NASIR}"] .who')
    shows_isolated(ann, f'#tables [data-table-id="{table_id}"] .entry-head .host')
    shows_isolated(ann, f'#tables [data-table-id="{table_id}"] .entry-seat[data-seat="S"]')
    shot(ann, "names-rtl-lobby")

    # At the table: the seat plate, the waiting list and note, the chat line, his own header.
    open_table(ann, url)
    sit(ann, "E")
    shows_isolated(ann, f'#seat-S .seat-head .name[data-name="{NASIR}"]')
    shows_isolated(ann, '#waiting-seats li[data-seat="S"]')
    shows_isolated(ann, "#waiting-note")
    shows_isolated(nasir, "#me")
    wait_for(nasir, "#chat:not([hidden])")
    nasir.fill("#chat-input", "12 分")
    nasir.click("#chat-send")
    shows_isolated(ann, f'#chat-log .chat-line[data-from="{NASIR}"] .who')
    shot(ann, "names-rtl-table")

    # The leaderboard's lifetime tab lists every account by name.
    ann.goto("/leaderboard#lifetime")
    shows_isolated(ann, f'#leaderboard-rows a[href="/profile?name={quote(NASIR, safe="")}"]')


def test_the_catalog_renderer_isolates_a_name_before_a_number(page_factory: Any) -> None:
    """A message of the catalog with a name followed by a number — a team match's line, "ناصر 12,
    Ann 8" — keeps the number after the name on the screen: the name, put in by ``tNodes``, is a
    <bdi>, and the number is drawn to its right; the same message as plain text, as the pages drew
    it before, has the bidirectional algorithm take the number into the Arabic run and draw it
    first.  A refusal naming a name typed
    (``refusalNodes``) isolates it the same way, and a Hebrew name as well as an Arabic one."""
    page = page_factory()
    page.goto("/lobby")
    wait_for(page, "#people:not([hidden])")
    drawn = page.evaluate("""async ([nasir, noa]) => {
      const i18n = await import("/static/i18n.js");
      i18n.setLang("en");
      const line = document.createElement("p");
      line.style.direction = "ltr";
      line.append(...i18n.tNodes("event.teamLine", { round: 1, match: 1, home: nasir, home_points: "12", away: "Ann",
        away_points: "8", steps: "3" }));
      // The same message as plain text (t), as the pages drew it before: the number is drawn first.
      const plain = document.createElement("p");
      plain.style.direction = "ltr";
      plain.textContent = i18n.t("event.teamLine", { round: 1, match: 1, home: nasir, home_points: "12", away: "Ann",
        away_points: "8", steps: "3" });
      const refusal = document.createElement("p");
      refusal.append(...i18n.refusalNodes({ body: { code: "server.account_unknown", params: { name: noa } } }));
      document.body.append(line, plain, refusal);
      const span = (node, text) => {  // the box where `text` in the text node `node` is drawn
        const r = document.createRange();
        r.setStart(node, node.data.indexOf(text));
        r.setEnd(node, node.data.indexOf(text) + text.length);
        return r.getBoundingClientRect();
      };
      const name = line.querySelector("bdi");
      // the text "12" after it, home_points: where it is drawn
      const number = [...line.childNodes].find((n) => n.nodeType === Node.TEXT_NODE && n.data.includes("12"));
      const result = {
        line: line.textContent, name: name.textContent, nameRight: name.getBoundingClientRect().right,
        numberLeft: span(number, "12").left, refusal: refusal.textContent,
        plainNameRight: span(plain.firstChild, nasir).right, plainNumberLeft: span(plain.firstChild, "12").left,
        refusalName: refusal.querySelector("bdi")?.textContent ?? null,
        bidi: getComputedStyle(name).unicodeBidi,
      };
      line.remove();
      plain.remove();
      refusal.remove();
      return result;
    }""", [NASIR, NOA])
    assert drawn["line"] == f"Round 1, match 1: {NASIR} 12, Ann 8 (scale 3)", drawn
    assert drawn["name"] == NASIR and drawn["bidi"] == "isolate", drawn
    assert drawn["numberLeft"] >= drawn["nameRight"], drawn  # "ناصر 12", not "12 ناصر"
    assert drawn["plainNumberLeft"] < drawn["plainNameRight"], drawn  # unisolated: "12 ناصر"
    assert drawn["refusal"] == f"There is no player with an account named {NOA}", drawn
    assert drawn["refusalName"] == NOA, drawn
