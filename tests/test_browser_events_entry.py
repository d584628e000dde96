"""Real-browser test of the entries, referees, contested claims and printing of an event run by the
server (docs/tournaments.md, Events on the server): Playwright driving Debian's Chromium against
the real server, whose events' clock is the test's own (:class:`~helpers.clock.SetClock`: it does
not move here, so nobody's grace runs out).

An organiser makes an open Howell through the form of /event/new, naming a referee and no
entrant; three pairs enter before it begins — one through the page's form in a browser (the
person's own name fixed among the players), two over HTTP — one withdraws by click and enters
again, another is removed by the referee by click and enters again; the referee, not the
organiser, starts it from the desk.  The page says it all in Chinese and in English, the referee's
log words every action, and it fits a 360 px phone.  An event by invitation shows no form
without the invitation's token (and the server refuses an entry without it); with the link the
referee's desk shows, the person enters by click.  A claim contested at a team match's table
(the table's search bound made small, as tests/test_events_claims.py does) is ruled on by the
referee by click, the page showing "searching" and then the solver's verdict to everyone; the
results printed show the rankings, results and log, and neither the desk nor a form.  Only a
guest is told, on /event/new, to sign in first.

Each account signs up from an address of its own (the server counts sign-ups by address: a
trusted proxy forwards each one's).  Without ``/usr/bin/chromium`` or the ``playwright`` package
the module is skipped, unless the environment variable ``CI`` is set: then it fails.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from gongzhu.messages import render
from helpers.browser import api_get, api_post, wait_for
from helpers.clock import SetClock
from helpers.live import PASSWORD, Someone, account, befriend
from helpers.servers import LiveServer
from test_claims_vote import LIMIT
from test_events_claims import BOARDS, claims_night, contest_a_claim
from test_events_server import drive, finished

if TYPE_CHECKING:
    from playwright.sync_api import Page, ViewportSize

pytestmark = pytest.mark.browser

PHONE: ViewportSize = {"width": 360, "height": 740}
#: The boards of the team match whose claim is contested.
CLAIM_BOARDS = BOARDS  # enough boards that one of them puts South's claim to a vote


@pytest.fixture(scope="module")
def clock() -> SetClock:
    return SetClock(1_796_085_000.0)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, clock: SetClock) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("browser-events-entry") / "gz.db"
    with LiveServer(f"sqlite:///{db}", now=clock, trusted_proxies=["127.0.0.1"]) as server:
        yield server


@pytest.fixture(scope="module")
def server(live: LiveServer) -> str:
    """The browser tests' server (``page_factory`` opens its pages on it), on the test's clock."""
    return live.base


def signed_in(page_factory: Any, person: Someone) -> Page:
    """A browser page of ``person`` (an account made over HTTP), signed in."""
    person.http.close()
    page: Page = page_factory()
    api_post(page, "/api/login", {"name": person.name, "password": PASSWORD})
    return page


def fits_a_phone(page: Page, where: str) -> None:
    """The page at 360 px: no horizontal scroll of the page itself."""
    width: int = page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= PHONE["width"], (where, width)


def log_actions(page: Page) -> list[str | None]:
    items = page.locator("#event-log li")
    return [items.nth(i).get_attribute("data-action") for i in range(items.count())]


def log_text(page: Page, action: str, n: int = 0) -> str:
    return page.locator(f'#event-log li[data-action="{action}"]').nth(n).text_content() or ""


def entrant_names(page: Page) -> list[str | None]:
    items = page.locator("#event-entrants li")
    return [items.nth(i).get_attribute("data-entrant") for i in range(items.count())]


def test_an_open_howell_entered_from_its_page_and_started_by_its_referee(page_factory: Any, live: LiveServer) -> None:
    people = {name: account(live, name, f"10.9.1.{i}")
              for i, name in enumerate(("Olga", "Ref", "Ann", "Bob", "Cat", "Dan", "Eve", "Fay"), 10)}
    for one, other in (("Ann", "Bob"), ("Cat", "Dan"), ("Eve", "Fay")):
        befriend(people[one], people[other])  # partners are friends
    befriend(people["Olga"], people["Ref"])  # so are the referees an organiser names
    organiser = signed_in(page_factory, people["Olga"])
    referee = signed_in(page_factory, people["Ref"])
    ann = signed_in(page_factory, people["Ann"])

    # The form: an open Howell with no entrant named, one board a round, a referee.
    organiser.goto("/event/new")
    wait_for(organiser, "#new-section:not([hidden])")
    organiser.select_option("#new-kind", "howell")
    organiser.select_option("#new-entry", "open")
    assert organiser.locator("#new-entry-note").text_content() == render("event.new.entryNote.open", "zh", {})
    organiser.fill("#new-count", "0")
    organiser.dispatch_event("#new-count", "change")
    assert organiser.locator("#new-entrants > li").count() == 0
    organiser.fill("#new-name", "Open Howell")
    organiser.fill("#new-boards", "1")
    organiser.fill("#new-referees", "Ref")
    organiser.set_viewport_size(PHONE)
    fits_a_phone(organiser, "/event/new open")
    organiser.click("#new-submit")
    organiser.wait_for_url("**/event/e-*")
    event_id = organiser.url.rsplit("/", 1)[1]
    made = api_get(organiser, f"/api/events/{event_id}")
    assert (made["entry"], made["referees"], made["entrants"], made["form"]) == ("open", ["Ref"], [], "howell")
    wait_for(organiser, '#event[data-status="waiting"][data-entry="open"]')
    assert organiser.locator("#fact-entry").text_content() == render("event.entry.open", "zh", {})
    assert organiser.locator("#fact-referees").text_content() == "Ref"
    assert organiser.locator("#entrants-none").is_visible()

    # Ann enters through the page's form, her own name fixed first; Cat and Eve over HTTP.
    ann.set_viewport_size(PHONE)
    ann.goto(f"/event/{event_id}")
    wait_for(ann, "#entry-form:not([hidden])")
    assert ann.input_value("#entry-player-1") == "Ann"
    assert ann.locator("#entry-player-1").get_attribute("readonly") is not None
    assert ann.locator("#entry-note").text_content() == render("event.entry.noteOpen", "zh", {})
    assert ann.locator("#desk").is_hidden()
    fits_a_phone(ann, "the entry form")
    ann.fill("#entry-player-2", "Bob")
    ann.click("#entry-submit")
    wait_for(ann, '#entry-section[data-entered="true"]')
    assert ann.locator("#entry-mine").text_content() == render("event.entry.mine", "zh", {"name": "Ann & Bob"})
    assert ann.locator("#entry-form").is_hidden()
    base = f"/api/events/{event_id}"
    entered = people["Cat"].http.post(f"{base}/entries", json={"players": ["Cat", "Dan"]})
    assert entered.status_code == 200, entered.text
    entered = people["Eve"].http.post(f"{base}/entries", json={"name": "东风", "players": ["Eve", "Fay"]})
    assert entered.status_code == 200, entered.text

    # Ann withdraws by click and enters again.
    ann.click("#entry-withdraw")
    wait_for(ann, '#entry-section[data-entered="false"] #entry-form:not([hidden])')
    ann.fill("#entry-player-2", "Bob")
    ann.click("#entry-submit")
    wait_for(ann, '#entry-section[data-entered="true"]')

    # The referee (not the organiser) sees the desk, removes 东风 by click; Eve enters again.
    referee.goto(f"/event/{event_id}")
    wait_for(referee, "#desk:not([hidden])")
    assert referee.locator("#desk-invite").is_hidden()  # open entry: no invitation
    assert referee.locator("#event-entrants button.event-remove").count() == 3
    assert ann.locator("#event-entrants button.event-remove").count() == 0
    referee.click('#event-entrants button.event-remove[data-entrant="东风"]')
    wait_for(referee, '#event-entrants:not(:has(li[data-entrant="东风"]))')
    assert entrant_names(referee) == ["Cat & Dan", "Ann & Bob"]
    again = people["Eve"].http.post(f"{base}/entries", json={"name": "东风", "players": ["Eve", "Fay"]})
    assert again.status_code == 200, again.text
    referee.reload()
    wait_for(referee, '#event-entrants li[data-entrant="东风"]')
    assert log_actions(referee) == ["create", "entry", "entry", "entry", "withdraw", "entry", "withdraw", "entry"]
    zh_create = render("event.log.create", "zh", {"form": render("event.form.howell", "zh", {}),
                                                  "entry": render("event.entry.open", "zh", {})})
    assert zh_create in log_text(referee, "create")
    assert render("event.log.entry", "zh", {"entrant": "Ann & Bob", "players": "Ann、Bob"}) in \
        log_text(referee, "entry")
    assert render("event.log.withdraw", "zh", {"entrant": "东风"}) in log_text(referee, "withdraw", 1)
    assert "Ref" in log_text(referee, "withdraw", 1)
    referee.set_viewport_size(PHONE)
    fits_a_phone(referee, "the referee's desk before the start")

    # In English: the facts, the entry panel and the log.
    referee.click("#lang")
    wait_for(referee, f'#fact-entry:has-text("{render("event.entry.open", "en", {})}")')
    assert render("event.log.entry", "en", {"entrant": "Cat & Dan", "players": "Cat, Dan"}) in \
        log_text(referee, "entry", 1)
    assert referee.locator("#event-entrants button.event-remove").first.text_content() == \
        render("event.desk.remove", "en", {})
    ann.click("#lang")
    wait_for(ann, f'#entry-mine:has-text("{render("event.entry.mine", "en", {"name": "Ann & Bob"})}")')
    assert ann.locator("#entry-withdraw").text_content() == render("event.entry.withdraw", "en", {})
    fits_a_phone(ann, "the entry panel, English")

    # The referee starts the event; entries close.
    wait_for(referee, "#desk-start:not([disabled])")
    referee.click("#desk-start")
    wait_for(referee, '#event[data-stage="1"]')
    started = api_get(referee, f"/api/events/{event_id}")
    assert started["status"] == "playing" and [e["name"] for e in started["entrants"]] == [
        "Cat & Dan", "Ann & Bob", "东风"]
    assert log_actions(referee)[-1] == "start"
    # entries closed: nobody is removed now, but the desk may withdraw an entrant from the event
    assert referee.locator("#event-entrants button.event-remove:not(.withdraw)").count() == 0
    assert referee.locator("#event-entrants button.event-remove.withdraw").count() == 3
    assert ann.locator("#event-entrants button.event-remove").count() == 0
    ann.reload()
    wait_for(ann, '#me-section[data-round="1"]')
    assert ann.locator("#entry-section").is_hidden()
    fits_a_phone(referee, "the referee's desk after the start")
    late = people["Dan"].http.post(f"{base}/entries", json={"players": ["Dan", "Bob"]})
    assert late.status_code == 409 and late.json()["code"] == "event.entry_closed"


def test_an_event_by_invitation_is_entered_from_its_link(page_factory: Any, live: LiveServer) -> None:
    people = {name: account(live, name, f"10.9.2.{i}")
              for i, name in enumerate(("Ida", "Gus", "Hal", "Kim", "Jo"), 10)}
    befriend(people["Gus"], people["Jo"])
    organiser = signed_in(page_factory, people["Ida"])
    gus = signed_in(page_factory, people["Gus"])
    organiser.goto("/event/new")
    wait_for(organiser, "#new-section:not([hidden])")
    organiser.select_option("#new-kind", "howell")
    organiser.select_option("#new-entry", "invite")
    organiser.fill("#new-name", "By invitation")
    organiser.fill("#new-boards", "1")
    # One row filled (Kim's pair, named here), the others left empty: no entrants.
    organiser.fill("#entrant-1-1", "Kim")
    organiser.fill("#entrant-1-2", "Hal")
    organiser.click("#new-submit")  # an organiser lists friends only: refused, in the page's language
    wait_for(organiser, f'#new-error:has-text("{render("event.player_not_friend", "zh", {"name": "Kim"})}")')
    for name in ("Kim", "Hal"):
        assert api_post(organiser, f"/api/people/{name}/friend", {})["state"] == "asked"
        assert people[name].http.post("/api/people/Ida/friend").json()["state"] == "friends"
    organiser.click("#new-submit")
    organiser.wait_for_url("**/event/e-*")
    event_id = organiser.url.rsplit("/", 1)[1]
    wait_for(organiser, "#desk-invite:not([hidden])")
    link = organiser.input_value("#desk-invite-url")
    assert link.startswith(f"{live.base}/event/{event_id}?invite=")
    assert organiser.locator("#fact-entry").text_content() == render("event.entry.invite", "zh", {})
    assert entrant_names(organiser) == ["Kim & Hal"]

    # Without the token: no form, and the server refuses an entry.
    gus.goto(f"/event/{event_id}")
    wait_for(gus, "#entry-section:not([hidden])")
    assert gus.locator("#entry-form").is_hidden()
    assert gus.locator("#entry-note").text_content() == render("event.entry.needInvite", "zh", {})
    refused = gus.request.post(f"/api/events/{event_id}/entries", data={"players": ["Gus", "Jo"]})
    assert refused.status == 403 and refused.json()["code"] == "event.bad_invite"

    # With the link: the form, and the entry by click (a refusal first, in the page's language).
    gus.goto(link)
    wait_for(gus, "#entry-form:not([hidden])")
    assert gus.locator("#entry-note").text_content() == render("event.entry.noteInvite", "zh", {})
    gus.fill("#entry-player-2", "Hal")
    gus.click("#entry-submit")
    wait_for(gus, f'#entry-error:has-text("{render("event.player_twice", "zh", {"name": "Hal"})}")')
    gus.fill("#entry-player-2", "Ida")  # the organiser, who does not play
    gus.click("#entry-submit")
    wait_for(gus, f'#entry-error:has-text("{render("event.organiser_plays", "zh", {})}")')
    gus.fill("#entry-player-2", "Jo")
    gus.click("#entry-submit")
    wait_for(gus, '#entry-section[data-entered="true"]')
    assert entrant_names(gus) == ["Kim & Hal", "Gus & Jo"]
    assert gus.locator("#desk").is_hidden() and gus.locator("#desk-invite-url").is_hidden()
    event = api_get(gus, f"/api/events/{event_id}")
    assert event["invite_url"] is None and event["me"]["entrant"] == "Gus & Jo"


def test_a_contested_claim_ruled_by_click_and_the_results_printed(page_factory: Any, live: LiveServer,
                                                                  clock: SetClock) -> None:
    rng = random.Random(11)
    pools = live.app.state.tables.pools
    was = pools.claim_limit
    pools.claim_limit = LIMIT  # small: early claims go to the people opposing
    try:
        night = claims_night(live, clock, ("Judge", "Rot", "Bleu"), "10.10", CLAIM_BOARDS)
        referee, red, event_id, one, at_one, at_two = (night.referee, night.red, night.event_id, night.one,
                                                       night.at_one, night.at_two)
        contested = contest_a_claim(live, one, at_one, rng, CLAIM_BOARDS)
        board = contested.deal_index + 1
        drive(at_one, rng, finished(CLAIM_BOARDS), timeout=240)
        drive(at_two, rng, finished(CLAIM_BOARDS), timeout=240)
        for person in (*at_one.values(), *at_two.values()):
            person.close()
    finally:
        pools.claim_limit = was

    desk = signed_in(page_factory, referee)
    player = signed_in(page_factory, red[0])
    desk.goto(f"/event/{event_id}")
    wait_for(desk, '#event[data-status="over"]')
    wait_for(desk, '#desk-claims li[data-claim][data-ruling=""]')
    [claim] = api_get(desk, f"/api/events/{event_id}")["claims"]
    assert (claim["board"], claim["table"], claim["seat"], claim["contested"], claim["ruling"]) == (
        board, 1, "S", "E", None)
    said = render("event.claim.line", "zh", {
        "where": render("event.claim.where", "zh", {"round": 1, "table": 1, "board": board}), "seat": "S",
        "what": render("claim.said.no_points", "zh", {}),
        "against": render("event.claim.contested", "zh", {"seat": "E"})})
    item = f'#desk-claims li[data-claim="{claim["n"]}"]'
    assert said in (desk.locator(item).text_content() or "")
    assert desk.locator(f'#event-claims li[data-claim="{claim["n"]}"]').text_content() == \
        f'{said} — {render("event.ruling.none", "zh", {})}'
    assert render("event.log.claim", "zh", {"claim": said}) in log_text(desk, "claim")

    # The ruling by click: searching, then the solver's verdict, to the referee and to a player.
    desk.fill(f"#claim-reason-{claim['n']}", "裁定：按求解结果")
    desk.click(f'{item} button[type="submit"]')
    wait_for(desk, f'{item}:not([data-ruling=""])')
    desk.wait_for_selector(f'{item}:not([data-ruling="searching"])', state="attached", timeout=300_000)
    verdict = api_get(desk, f"/api/events/{event_id}")["claims"][0]["ruling"]
    assert verdict in ("holds", "broken", "undecided")
    assert desk.locator(f"{item} .event-ruling").text_content() == render(f"event.ruling.{verdict}", "zh", {})
    wait_for(desk, '#event-log li[data-action="ruling"]')
    assert render("event.log.ruling", "zh", {
        "claim": render("event.claim.where", "zh", {"round": 1, "table": 1, "board": board}),
        "verdict": render(f"event.ruling.{verdict}", "zh", {})}) in log_text(desk, "ruling")
    assert "裁定：按求解结果" in log_text(desk, "ruling")
    assert ("correction" in log_actions(desk)) == (verdict == "holds")
    player.goto(f"/event/{event_id}")
    wait_for(player, f'#event-claims li[data-claim="{claim["n"]}"][data-ruling="{verdict}"]')
    assert player.locator("#desk").is_hidden() and player.locator("#desk-claims li").count() == 0
    player.set_viewport_size(PHONE)
    fits_a_phone(player, "the claims and the rulings")

    # On paper: the rankings, results, claims and log; no header bar, desk, form or button.
    wait_for(desk, "#rankings-section:not([hidden])")
    desk.emulate_media(media="print")
    for shown in ("#event-name", "#rankings", "#matches-section", "#results-section", f'#board-{board}',
                  "#claims-section", "#event-log"):
        assert desk.locator(shown).first.is_visible(), shown
    assert desk.locator("#event-rankings-csv").get_attribute("href") == f"/api/events/{event_id}/rankings.csv"
    assert desk.locator("#event-rankings-csv").text_content() == render("event.rankingsCsv", "zh", {})
    for hidden in ("header.bar", "#desk", "#penalty-form", "#event-print", "#event-records", "#event-rankings-csv",
                   "#me-section", "#tables-section"):
        assert desk.locator(hidden).is_hidden(), hidden
    assert desk.evaluate("""() => [...document.querySelectorAll('#results-section .table-scroll')]
        .every((box) => getComputedStyle(box).overflowX === 'visible' && box.scrollWidth <= box.clientWidth + 1)""")
    assert desk.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"
    desk.emulate_media(media="screen")
    assert desk.locator("#desk").is_visible() and desk.locator("#event-print").is_visible()
    assert desk.locator("#event-rankings-csv").is_visible()


def test_only_a_guest_is_told_to_sign_in_to_organise(page_factory: Any, live: LiveServer) -> None:
    """/event/new tells a guest to sign in first (only an account organises an event), and says
    nothing of it to a person signed in with an account, in either language."""
    guest = page_factory()
    guest.goto("/event/new")
    wait_for(guest, "#new-section:not([hidden]) #new-sign-in:not([hidden])")
    assert guest.locator("#new-sign-in").text_content() == render("event.new.signIn", "zh", {})
    organiser = signed_in(page_factory, account(live, "Ned", "10.9.3.10"))
    organiser.goto("/event/new")
    wait_for(organiser, "#new-section:not([hidden])")
    organiser.wait_for_load_state("networkidle")  # (the page has read who the person is)
    for lang in ("zh", "en"):
        if lang == "en":
            organiser.click("#lang")
            wait_for(organiser, 'html[lang="en"]')
        note = organiser.locator("#new-section > p.help").first.text_content() or ""
        assert note == render("event.new.note", lang, {}), note
        assert organiser.locator("#new-sign-in").is_hidden()


def test_a_listed_player_withdraws_by_click_before_the_start(page_factory: Any, live: LiveServer) -> None:
    """A listed event's player is shown their place in it before it begins, and may leave it: the
    page asks once more (declined: nothing changes), then 退赛 — the entrant is shown withdrawn,
    the panel goes, and the log says a computer plays its seats.  The desk is offered to
    withdraw the other listed entrants, not to remove them; in English as in Chinese, at 360 px."""
    people = {name: account(live, name, f"10.9.4.{i}")
              for i, name in enumerate(("Wen", "Uma", "Vic", "Xia", "Yan", "Zoe", "Quin"), 10)}
    befriend(people["Wen"], *(people[n] for n in ("Uma", "Vic", "Xia", "Yan", "Zoe", "Quin")))
    made = people["Wen"].http.post("/api/events", json={
        "name": "Listed Howell", "form": "howell", "boards": 1,
        "entrants": [{"players": ["Uma", "Vic"]}, {"players": ["Xia", "Yan"]}, {"players": ["Zoe", "Quin"]}]})
    assert made.status_code == 201, made.text
    event_id = made.json()["id"]
    uma = signed_in(page_factory, people["Uma"])
    uma.set_viewport_size(PHONE)
    uma.goto(f"/event/{event_id}")
    wait_for(uma, '#entry-section:not([hidden])[data-listed="true"]')
    assert uma.locator("#entry-heading").text_content() == render("event.entry.listedHeading", "zh", {})
    assert uma.locator("#entry-mine").text_content() == render("event.entry.listedMine", "zh", {"name": "Uma & Vic"})
    assert uma.locator("#entry-form").is_hidden() and uma.locator("#entry-note").text_content() == ""
    fits_a_phone(uma, "a listed player's place")
    uma.click("#lang")
    wait_for(uma, f'#entry-withdraw:has-text("{render("event.entry.withdrawListed", "en", {})}")')
    assert uma.locator("#entry-heading").text_content() == render("event.entry.listedHeading", "en", {})
    asked: list[str] = []

    def answer(accept: bool) -> Any:
        def reply(dialog: Any) -> None:
            asked.append(dialog.message)
            dialog.accept() if accept else dialog.dismiss()
        return reply

    uma.once("dialog", answer(False))
    uma.click("#entry-withdraw")
    assert asked == [render("event.entry.withdrawListedConfirm", "en", {"name": "\u2068Uma & Vic\u2069"})]
    assert not api_get(uma, f"/api/events/{event_id}")["entrants"][0]["withdrawn"]
    uma.once("dialog", answer(True))
    uma.click("#entry-withdraw")
    wait_for(uma, '#event-entrants li[data-entrant="Uma & Vic"][data-withdrawn="true"]')
    wait_for(uma, "#entry-section[hidden]")
    assert render("event.log.withdrawListed", "en", {"entrant": "Uma & Vic"}) in log_text(uma, "withdraw")
    desk = signed_in(page_factory, people["Wen"])
    desk.goto(f"/event/{event_id}")
    wait_for(desk, "#desk:not([hidden])")
    offered = desk.locator("#event-entrants button.event-remove.withdraw")
    assert [offered.nth(i).get_attribute("data-entrant") for i in range(offered.count())] == ["Xia & Yan", "Zoe & Quin"]
    assert render("event.log.withdrawListed", "zh", {"entrant": "Uma & Vic"}) in log_text(desk, "withdraw")
