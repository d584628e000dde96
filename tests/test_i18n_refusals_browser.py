"""Real-browser tests of refusals said in the page's language (Playwright driving Debian's
Chromium against the real server, ``conftest.py``: ``server``, ``page_factory``): the new-match
dialog shows the server's refusal of options that do not go together and of a seed out of range
by its code, in 中文 or English as the dialog is set, and sends a 64-bit seed digit for digit; the
table's claim menu shows a claimed score out of range in the page's language, the claim not spent;
said on its own, an English refusal begins with a capital."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gongzhu.formats.web import CLAIM_SCORE_LIMIT, MAX_SEED
from gongzhu.messages import render
from helpers.browser import in_phase, wait_for
from test_browser import end_exposure, open_setup, start_match, wait_turn_or_over

pytestmark = pytest.mark.browser


def refusal_shown(page: Any) -> str:
    """Submit the dialog and wait for its refusal; the dialog stays open."""
    page.evaluate("document.getElementById('setup-error').textContent = ''")
    page.click("#setup-go")
    wait_for(page, "#setup-error:not(:empty)")
    assert page.evaluate("document.getElementById('setup').open")
    return page.locator("#setup-error").text_content() or ""


def test_the_new_match_dialog_says_the_servers_refusals_in_its_language(page_factory: Any) -> None:
    page = page_factory(1280, 800)
    open_setup(page)
    page.select_option("#setup-preset", "online")
    page.click("#setup details.more summary")
    page.select_option('[data-option="decks"]', json.dumps(2))
    page.select_option('[data-option="exposure"]', json.dumps("first_card"))
    assert refusal_shown(page) == render("refusal.option_first_card_two_decks", "zh")
    page.select_option("#setup-lang", "en")
    page.select_option('[data-option="decks"]', json.dumps(2))  # (kept across the relabelling)
    page.select_option('[data-option="exposure"]', json.dumps("first_card"))
    assert refusal_shown(page) == render("refusal.option_first_card_two_decks", "en")
    page.select_option("#setup-lang", "zh")
    page.select_option('[data-option="decks"]', json.dumps(1))
    page.fill("#setup-seed", "99999999999999999999999")
    assert refusal_shown(page) == render("server.bad_seed", "zh", {"max": str(MAX_SEED - 1)})


def test_a_64_bit_seed_is_sent_digit_for_digit(page_factory: Any) -> None:
    page = page_factory(1280, 800)
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.post_data or "") if r.url.endswith("/api/matches")
            and r.method == "POST" else None)
    open_setup(page)
    start_match(page, seed=MAX_SEED - 1, declare=False)
    assert len(sent) == 1 and f'"seed":{MAX_SEED - 1}}}' in sent[0], sent


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_claimed_score_out_of_range_is_said_in_the_pages_language(page_factory: Any, lang: str) -> None:
    """The toast says the server's refusal in the page's language, on its own as a sentence: in
    English with a capital ("A claimed score is …"), the catalog's words otherwise."""
    page = page_factory(1280, 800)
    page.add_init_script(f"localStorage.setItem('gongzhu.settings', JSON.stringify({{lang: {json.dumps(lang)}}}))")
    open_setup(page)
    start_match(page, seed=11, declare=False)
    end_exposure(page)
    while wait_turn_or_over(page) == "play" and not page.locator("#claim:visible").count():
        page.locator('#hand button[data-card][aria-disabled="false"]').first.click()
    assert page.locator(in_phase("play")).count(), "the deal ended before South could claim"
    page.click("#claim")
    wait_for(page, "#claim-menu:not([hidden])")
    page.fill("#claim-value", "200000")
    page.click('#claim-menu [data-claim="score"]')
    wait_for(page, "#toast:not([hidden])")
    said = {"min": -CLAIM_SCORE_LIMIT, "max": CLAIM_SCORE_LIMIT}
    words = render("server.claim_bad_score", lang, said)
    assert page.locator("#toast").text_content() == (words[0].upper() + words[1:] if lang == "en" else words)
    page.wait_for_function("() => document.getElementById('toast').hidden")
    assert page.locator("#claim:visible").count() == 1  # not spent: South may still claim this deal


def test_a_refusal_naming_the_table_a_person_sits_at_links_to_it(page_factory: Any) -> None:
    """Refused a seat while dealt in at another table under way (one table at a time), the page
    links to that table, where the person stands up; a {table} of another kind stays words."""
    page = page_factory()
    page.goto("/lobby")
    drawn = page.evaluate("""async () => {
      const i18n = await import("/static/i18n.js");
      const box = document.createElement("p");
      box.append(...i18n.refusalNodes({ body: { code: "server.seated_elsewhere", params: { table: "t-42" } } }));
      const other = document.createElement("p");
      other.append(...i18n.refusalNodes({ body: { code: "server.unknown_table", params: { table: "t-43" } } }));
      const a = box.querySelector("a");
      return [box.textContent, a && a.getAttribute("href"), other.querySelector("a") === null];
    }""")
    text, href, plain = drawn
    assert text == render("server.seated_elsewhere", "zh", {"table": "t-42"})
    assert href == "/table/t-42" and plain

