"""Real-browser tests of the people one plays with (docs/people.md): Playwright driving Debian's
Chromium against the real server (``conftest.py``: ``browser``, ``server``, ``page_factory``).

Each browser context is a person of its own (its own session cookie), signed up as an account over
HTTP (``page.request``) before any page of it is open: a request of a page still under way with
the guest's cookie would find that session ended, and make the browser a new guest.  The pages
are driven by clicks and read through their data attributes (``src/gongzhu/web/static/README.md``):
the lobby's friends panel (``#people``), the profile's ``#people-actions``, the table page's
``[data-remove]``, ``#invite-friend`` and the chat lines' ``[data-mute]``.

Without ``/usr/bin/chromium`` or the ``playwright`` package the module is skipped, unless the
environment variable ``CI`` is set: then it fails.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from gongzhu.messages import render
from helpers.browser import api_get, api_post, in_phase, wait_for
from test_browser_tables import new_table, open_table, shot, sit

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

PASSWORD = "a quiet tiger 42 people"


def account(page: Page, name: str) -> None:
    """Make the page's person the account ``name`` (before any page of it is open)."""
    api_post(page, "/api/account", {"name": name, "password": PASSWORD})


def says(page: Page, selector: str, key: str, **params: Any) -> None:
    """Wait until ``selector`` holds the catalog's ``key`` in the page's language (中文 here)."""
    text = render(key, "zh", params)
    wait_for(page, f'{selector}:has-text("{text}")')


def open_lobby(page: Page) -> None:
    page.goto("/lobby")
    wait_for(page, "#people:not([hidden])")


def test_friends_invite_remove_block_and_mute(page_factory: Any) -> None:
    """Ann asks Bo by the lobby's form, Bo accepts by a click and both see each other; Ann invites
    Bo from her table's page, Bo follows the invitation's Join link from his lobby and sits; Ann
    (the host) removes him by a click before the start, and his Sit is refused from then on.  Bo,
    watching on, chats: Ann mutes his lines (they go, and stay muted after a reload) and unmutes
    him.  Cy blocks Ann from her profile page and then cannot watch her table.  During play the
    invitation form is in the chat panel."""
    ann, bo, cy = page_factory(), page_factory(), page_factory()
    for page, name in ((ann, "Ann"), (bo, "Bo"), (cy, "Cy")):
        account(page, name)

    # Ann asks Bo by name; her request shows as sent.
    open_lobby(ann)
    wait_for(ann, "#people-body:not([hidden]) #friends-empty:not([hidden])")
    ann.fill("#friend-name", "Bo")
    ann.click("#friend-add")
    wait_for(ann, '#asked li[data-name="Bo"] [data-action="cancel"]')
    says(ann, "#toast", "people.requestSent", name="Bo")

    # Bo sees it in his lobby and accepts by a click; both are friends, Bo online for Ann.
    open_lobby(bo)
    bo.click('#asking li[data-name="Ann"] [data-action="accept"]')
    wait_for(bo, '#friends li.friend[data-name="Ann"]')
    assert bo.locator("#asking-box").is_hidden()
    ann.reload()  # (instead of waiting up to 20 s for the lobby to ask again)
    wait_for(ann, '#friends li.friend[data-name="Bo"][data-online="true"] .dot.online')
    assert ann.locator("#asked-box").is_hidden()
    shot(ann, "people-lobby-friends")

    # Ann hosts a public table and invites Bo from its page.
    table_id, url = new_table(ann, seat="S")
    open_table(ann, url)
    wait_for(ann, '#waiting #invite-friend:not([hidden]) #invite-friend-name option[value="Bo"]')
    ann.select_option("#invite-friend-name", "Bo")
    ann.click("#invite-friend-go")
    says(ann, "#toast", "people.invited", name="Bo")
    shot(ann, "people-table-invite")

    # Bo's lobby shows the invitation (and Ann at her table); he follows Join and sits.
    bo.reload()
    wait_for(bo, f'#friends li[data-name="Ann"] [data-action="table"][data-table-id="{table_id}"]')
    wait_for(bo, '#invitations li[data-from="Ann"] [data-action="join"]')
    says(bo, '#invitations li[data-from="Ann"]', "people.invitedBy", name="Ann")
    shot(bo, "people-lobby-invitation")
    bo.click('#invitations li[data-from="Ann"] [data-action="join"]')
    bo.wait_for_url(f"**/table/{table_id}")
    wait_for(bo, in_phase("waiting"))
    sit(bo, "E")

    # The host removes Bo before the start; his Sit is refused from then on.
    wait_for(ann, '#waiting-seats li[data-seat="E"] .name[data-name="Bo"]')
    assert ann.locator("[data-remove]").count() == 1  # (none on the host's own seat)
    ann.click('#waiting-seats [data-remove="E"]')
    wait_for(ann, '#waiting-seats li[data-seat="E"]:not(:has(.name))')
    wait_for(bo, '#waiting-seats [data-sit="E"]')
    assert bo.locator("#waiting-seats li.mine").count() == 0
    bo.click('#waiting-seats [data-sit="E"]')
    says(bo, "#toast:not([hidden])", "server.table_closed")
    assert bo.locator("#waiting-seats li.mine").count() == 0
    shot(bo, "people-removed-sit-refused")

    # Bo watches on and chats; Ann mutes him by his line's button.
    wait_for(ann, "#chat:not([hidden])")
    bo.fill("#chat-input", "hello from Bo")
    bo.click("#chat-send")
    wait_for(bo, '#chat-log .chat-line[data-from="Bo"]:has-text("hello from Bo")')
    assert bo.locator('#chat-log .chat-line[data-from="Bo"] [data-mute]').count() == 0  # not one's own
    line = '#chat-log .chat-line[data-from="Bo"]:has-text("hello from Bo")'
    wait_for(ann, f'{line} [data-mute="Bo"]')
    shot(ann, "people-chat-before-mute")
    ann.click(f'{line} [data-mute="Bo"]')
    ann.locator(line).wait_for(state="detached")
    wait_for(ann, '#chat-muted-people:not([hidden]) [data-unmute="Bo"]')
    bo.fill("#chat-input", "still here")
    bo.click("#chat-send")
    wait_for(bo, '#chat-log .chat-line:has-text("still here")')
    ann.fill("#chat-input", "quiet now")
    ann.click("#chat-send")
    wait_for(ann, '#chat-log .chat-line[data-from="Ann"]:has-text("quiet now")')
    assert ann.locator('#chat-log .chat-line[data-from="Bo"]').count() == 0
    assert ann.locator('#chat-log .chat-line[data-from="Ann"] [data-mute]').count() == 0
    assert ann.locator("#chat-log").is_visible()  # (the whole chat is not muted)
    wait_for(bo, '#chat-log .chat-line[data-from="Ann"]:has-text("quiet now")')
    shot(ann, "people-chat-muted")
    # Remembered in the settings: muted after a reload too, until unmuted.
    ann.reload()
    wait_for(ann, '#chat-muted-people:not([hidden]) [data-unmute="Bo"]')
    stored = ann.evaluate("JSON.parse(localStorage.getItem('gongzhu.settings')).chatMutedPeople")
    assert stored == ["Bo"]
    ann.click('#chat-muted-people [data-unmute="Bo"]')
    wait_for(ann, "#chat-muted-people[hidden]")
    bo.fill("#chat-input", "back again")
    bo.click("#chat-send")
    wait_for(ann, '#chat-log .chat-line[data-from="Bo"]:has-text("back again")')

    # Cy blocks Ann from her profile page, and then cannot watch her table.
    cy.goto("/profile?name=Ann")
    wait_for(cy, '#people-actions:not([hidden])[data-friend="none"][data-blocked="false"]')
    says(cy, "#friend-button", "people.addFriend")
    cy.click("#block-button")
    wait_for(cy, '#people-actions[data-blocked="true"] #block-button[data-blocked="true"]')
    says(cy, "#friend-state", "people.stateBlocked")
    assert cy.locator("#friend-button").is_hidden()
    assert api_get(cy, "/api/people")["blocked"] == ["Ann"]
    shot(cy, "people-profile-blocked")
    cy.goto(url)
    says(cy, "#center .welcome.error", "server.table_closed")
    assert cy.locator("#waiting-seats [data-sit]").count() == 0
    shot(cy, "people-blocked-table")

    # During play the invitation form is in the chat panel.
    ann.click("#table-start")
    wait_for(ann, in_phase("expose", "play"))
    wait_for(ann, '#chat #invite-friend:not([hidden]) #invite-friend-name option[value="Bo"]')


def test_a_guest_is_told_and_an_account_asks_cancels_and_reports(page_factory: Any) -> None:
    """A guest's lobby says friends need an account, with a link to the profile, and a guest's
    profile page of an account offers no buttons.  An account asks another from their profile
    (the state reads as sent), cancels, and reports them with a reason: the page says it was sent.
    They become friends from their profiles; alone at her private table, during play, she invites
    him from the chat panel; then she removes him."""
    guest, fay, gus = page_factory(), page_factory(), page_factory()
    account(fay, "Fay")
    account(gus, "Gus")
    open_lobby(guest)
    wait_for(guest, '#people-guest:not([hidden]) a[href="/profile"]')
    assert guest.locator("#people-body").is_hidden()
    says(guest, "#people-guest", "people.guestNote")
    shot(guest, "people-lobby-guest")
    guest.goto("/profile?name=Gus")
    wait_for(guest, '#fact-name:has-text("Gus")')
    guest.wait_for_timeout(300)  # (the people buttons would come right after the facts)
    assert guest.locator("#people-actions").is_hidden()

    fay.goto("/profile?name=Gus")
    wait_for(fay, '#people-actions:not([hidden])[data-friend="none"]')
    fay.click("#friend-button")
    wait_for(fay, '#people-actions[data-friend="asked"]')
    says(fay, "#friend-state", "people.stateAsked")
    says(fay, "#friend-remove", "people.cancelRequest")
    assert api_get(gus, "/api/people")["asking"] == ["Fay"]
    fay.click("#friend-remove")
    wait_for(fay, '#people-actions[data-friend="none"]')
    assert api_get(gus, "/api/people")["asking"] == []

    fay.click("#report-open")
    wait_for(fay, "#report-form:not([hidden])")
    assert fay.get_attribute("#report-reason", "maxlength") == "500"
    fay.click("#report-send")  # no reason: the page asks for one
    says(fay, "#people-error", "people.reportEmpty")
    fay.fill("#report-reason", "rude in the chat")
    fay.click("#report-send")
    says(fay, "#report-note", "people.reportSent")
    wait_for(fay, "#report-form[hidden]")
    assert (fay.text_content("#people-error") or "") == ""
    shot(fay, "people-profile-reported")
    # Friends from the profile: Gus asks back there, Fay sees them as friends and can remove him.
    gus.goto("/profile?name=Fay")
    wait_for(gus, '#people-actions[data-friend="none"]')
    gus.click("#friend-button")
    wait_for(gus, '#people-actions[data-friend="asked"]')
    fay.reload()
    wait_for(fay, '#people-actions[data-friend="asking"]')
    says(fay, "#friend-button", "people.accept")
    fay.click("#friend-button")
    wait_for(fay, '#people-actions[data-friend="friends"]')
    says(fay, "#friend-remove", "people.removeFriend")
    # Alone with the computers at her private table, during play Fay invites Gus from the chat
    # panel (shown for it); the invitation carries the private table's invitation.
    table_id, url = new_table(fay, seat="S", visibility="private")
    open_table(fay, url)
    fay.click("#table-start")
    wait_for(fay, in_phase("expose", "play"))
    wait_for(fay, '#chat:not([hidden]) #invite-friend:not([hidden]) #invite-friend-name option[value="Gus"]')
    fay.click("#invite-friend-go")
    says(fay, "#toast", "people.invited", name="Gus")
    (invitation,) = api_get(gus, "/api/people")["invitations"]
    assert invitation["from"] == "Fay" and table_id in invitation["url"] and "invite=" in invitation["url"]
    shot(fay, "people-private-table-invite")
    fay.goto("/profile?name=Gus")
    wait_for(fay, '#people-actions[data-friend="friends"]')
    fay.click("#friend-remove")
    wait_for(fay, '#people-actions[data-friend="none"]')
    assert api_get(gus, "/api/people")["friends"] == []
