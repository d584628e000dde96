"""Real-browser test of a Mitchell pairs event run by the server (docs/tournaments.md, Events on the
server): Playwright driving Debian's Chromium against the real server, whose events' clock is the
test's own (:class:`~helpers.clock.SetClock`: it does not move here, so no start time comes and
nobody's grace runs out).

The organiser makes the events through the form of /event/new: first a Howell with a start time
(the browser's local time, in a time zone of its own, reaches the server as the moment it names),
then the Mitchell of five pairs, one board a round (a start time in the past refused first, in the
page's language from its catalog code).  Ten accounts, each signed up from an address of its own
(the server counts sign-ups by address: a trusted proxy forwards each one's).  The organiser starts
each round from the referee's desk; two pairs play in browsers, opening their table from "your
seat now" and clicking every card, the other three through WebSocket clients, round after round to
the end: three rounds, a pair sitting out each (the phantom's).  Before a board has been played at
every table only the players of a table see its result there.  At the end the page shows the
Mitchell's two rankings (N–S and E–W) and each board's traveller, and every number of them is
computed again here from the downloaded records alone: each table's N–S result ((N + S raw) −
(E + W raw)) / 2, the matchpoints 2 for each pair beaten and 1 for each tie among the pairs that
played the board in the same direction, the percentages and their means.  The referee's penalty and
correction move them as computed here too.  The event's page fits a 360 px phone, as does the form.

Without ``/usr/bin/chromium`` or the ``playwright`` package the module is skipped, unless the
environment variable ``CI`` is set: then it fails.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import pytest

from gongzhu.messages import render
from helpers.browser import api_get, api_post, in_phase, phase, wait_for
from helpers.client import random_move
from helpers.clock import SetClock
from helpers.live import PASSWORD, Live, Someone, account
from helpers.servers import LiveServer
from test_browser_tables import OVER, act, hand, known, shot

if TYPE_CHECKING:
    from playwright.sync_api import Page, ViewportSize

pytestmark = pytest.mark.browser

Message = dict[str, Any]

#: The pairs in the form's order: N–S pairs 1–3 stay at tables 1–3, E–W pairs 4 and 5 move, and the
#: phantom E–W pair 6 makes one N–S pair sit out each round.
PAIRS = (("Ann", "Bob"), ("Cat", "Dan"), ("Eve", "Fay"), ("Gus", "Hal"), ("Ivy", "Jon"))
#: Pair 3's name, given in the form; the others are named by their players.
EAST_WIND = "东风"
NAMES = ("Ann & Bob", "Cat & Dan", EAST_WIND, "Gus & Hal", "Ivy & Jon")
#: Who plays in a browser (pairs 1 and 4); everyone else through a WebSocket client.
IN_BROWSERS = ("Ann", "Bob", "Gus", "Hal")
#: The browser's time zone (the form sends its start time with this offset).
ZONE = "Asia/Shanghai"
ROUNDS = 3
#: How long a round may take before the test gives up (a guard, not a measure).
GIVE_UP_S = 300
PHONE: ViewportSize = {"width": 360, "height": 740}


@pytest.fixture(scope="module")
def clock() -> SetClock:
    return SetClock(1_796_085_000.0)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, clock: SetClock) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("browser-events-pairs") / "gz.db"
    with LiveServer(f"sqlite:///{db}", now=clock, trusted_proxies=["127.0.0.1"]) as server:
        yield server


@pytest.fixture(scope="module")
def server(live: LiveServer) -> str:
    """The browser tests' server (``page_factory`` opens its pages on it), on the test's clock."""
    return live.base


# ---------------------------------------------------------------------- computed here


def ns_result(raw: dict[str, int]) -> float:
    """R7.3, by hand: each N–S member's (N–S raw total − E–W raw total) / 2."""
    return ((raw["N"] + raw["S"]) - (raw["E"] + raw["W"])) / 2


def matchpoints(field: dict[str, float]) -> dict[str, tuple[int, int, float]]:
    """Each pair's (matchpoints, top, percentage) on a board among the pairs of ``field`` (their
    results in one direction): 2 for each pair beaten, 1 for each tie; the top is 2 for each
    other pair; a lone pair has 50%."""
    top = 2 * (len(field) - 1)
    out = {}
    for pair, result in field.items():
        mp = sum(2 if result > other else 1 if result == other else 0
                 for rival, other in field.items() if rival != pair)
        out[pair] = (mp, top, round(100 * mp / top, 2) if top else 50.0)
    return out


def expected(records: list[Message], corrections: dict[tuple[int, int], dict[str, int]] | None = None,
             penalties: dict[str, float] | None = None) -> tuple[dict[tuple[int, int, int], Message],
                                                                   dict[str, dict[str, Message]]]:
    """From the records alone (raw scores replaced where ``corrections`` say, by (board, table)):
    each traveller row by (board, round, table) — its N–S result, both directions' matchpoints,
    top and percentages — and each direction's ranking by pair: boards, matchpoints, percentage
    (the mean of its boards' percentages, less its penalty)."""
    corrections, penalties = corrections or {}, penalties or {}
    rows: dict[tuple[int, int, int], Message] = {}
    fields: dict[int, dict[str, dict[str, float]]] = {}
    for r in records:
        board, where = r["board"]["number"], r["seating"]
        fixed = corrections.get((board, where["table"]))
        raw: dict[str, int] = fixed if fixed is not None else r["raw"]
        ns, ew = where["entrants"]["N"], where["entrants"]["E"]
        assert where["entrants"]["S"] == ns and where["entrants"]["W"] == ew
        result = ns_result(raw)
        rows[(board, where["round"], where["table"])] = {"ns": ns, "ew": ew, "ns_result": result}
        fields.setdefault(board, {"N–S": {}, "E–W": {}})
        fields[board]["N–S"][ns] = result
        fields[board]["E–W"][ew] = -result
    ranking: dict[str, dict[str, Message]] = {"N–S": {}, "E–W": {}}
    for board, directions in fields.items():
        scored = {way: matchpoints(field) for way, field in directions.items()}
        for (b, _, _), row in rows.items():
            if b == board:
                row["ns_mp"], row["top"], row["ns_percent"] = scored["N–S"][row["ns"]]
                row["ew_mp"], _, row["ew_percent"] = scored["E–W"][row["ew"]]
        for way, pairs in scored.items():
            for pair, (mp, top, pct) in pairs.items():
                total = ranking[way].setdefault(pair, {"boards": 0, "matchpoints": 0, "top": 0, "percents": []})
                total["boards"] += 1
                total["matchpoints"] += mp
                total["top"] += top
                total["percents"].append(pct)
    for pairs_of_way in ranking.values():
        for pair, total in pairs_of_way.items():
            total["percent"] = round(sum(total["percents"]) / len(total["percents"]) + penalties.get(pair, 0), 2)
    return rows, ranking


# ---------------------------------------------------------------------- the page


def data_value(page: Page, selector: str) -> float | None:
    shown = page.locator(selector).get_attribute("data-value")
    return None if shown is None else float(shown)


def fits_a_phone(page: Page, where: str) -> None:
    """The page at 360 px: no horizontal scroll of the page itself."""
    width: int = page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= PHONE["width"], (where, width)


def check_page(page: Page, rows: dict[tuple[int, int, int], Message], ranking: dict[str, dict[str, Message]]) -> None:
    """The page's travellers and rankings hold the numbers computed here."""
    for (board, round_, table), row in rows.items():
        at = f'#board-{board} tr[data-round="{round_}"][data-table="{table}"]'
        assert page.locator(f"{at} td[data-key=ns]").text_content() == row["ns"]
        assert page.locator(f"{at} td[data-key=ew]").text_content() == row["ew"]
        assert data_value(page, f"{at} td[data-key=ns_result]") == row["ns_result"], (board, table)
        assert data_value(page, f"{at} td[data-key=ns_matchpoints]") == row["ns_mp"], (board, table)
        assert data_value(page, f"{at} td[data-key=ew_matchpoints]") == row["ew_mp"], (board, table)
        assert data_value(page, f"{at} td[data-key=ns_percent]") == row["ns_percent"], (board, table)
        assert data_value(page, f"{at} td[data-key=ew_percent]") == row["ew_percent"], (board, table)
        assert page.locator(f"{at} td[data-key=ns_matchpoints]").text_content() == f"{row['ns_mp']}/{row['top']}"
    assert page.locator("#rankings .event-ranking").count() == 2
    for way, pairs in ranking.items():
        box = f'#rankings .event-ranking[data-field="{way}"]'
        assert page.locator(f"{box} tbody tr").count() == len(pairs)
        shown = []
        for pair, total in pairs.items():
            at = f'{box} tr[data-entrant="{pair}"]'
            assert data_value(page, f"{at} td[data-key=matchpoints]") == total["matchpoints"], (way, pair)
            assert page.locator(f"{at} td[data-key=boards]").text_content() == str(total["boards"])
            assert data_value(page, f"{at} td[data-key=percent]") == pytest.approx(total["percent"], abs=0.005)
            shown.append((data_value(page, f"{at} td[data-key=rank]"), total["percent"]))
        # Ranked by percentage: a better percentage never ranks below a worse one.
        for rank, pct in shown:
            for other_rank, other_pct in shown:
                if pct > other_pct + 0.005:
                    assert rank is not None and other_rank is not None and rank < other_rank, shown


# ---------------------------------------------------------------------- playing


class Player:
    """A person at their table this round: a browser page, or a WebSocket client."""

    def __init__(self, name: str, page: Page | None = None, live: Live | None = None) -> None:
        self.name, self.page, self.live = name, page, live
        self.acted = -1
        self.seen: set[str] = set()

    def over(self) -> bool:
        if self.page is not None:
            return phase(self.page) in OVER
        assert self.live is not None
        return bool(self.live.state) and self.live.state["phase"] in OVER

    def step(self, rng: random.Random) -> bool:
        """Act if the table waits for this person; True if something was done."""
        if self.page is not None:
            if not act(self.page):
                return False
            self.seen |= set(hand(self.page)) | set(known(self.page)["hand"])
            return True
        assert self.live is not None
        self.live.drain(0.005)
        state = self.live.state
        if not state or self.acted >= state["v"]:
            return False
        move = random_move(state, state["seat"], rng)
        if move is None:
            return False
        self.live.send(move)
        self.acted = state["v"]
        return True


def fill_pairs(page: Page, pairs: list[tuple[str, str]], named: dict[int, str]) -> None:
    assert page.locator("#new-entrants > li").count() == len(pairs)
    for n, (first, second) in enumerate(pairs, 1):
        page.fill(f"#entrant-{n}-name", named.get(n, ""))
        page.fill(f"#entrant-{n}-1", first)
        page.fill(f"#entrant-{n}-2", second)


def test_a_mitchell_of_five_pairs_made_and_played_to_the_end(page_factory: Any, live: LiveServer,
                                                             clock: SetClock) -> None:
    rng = random.Random(5)
    organiser = page_factory(timezone_id=ZONE)
    api_post(organiser, "/api/account", {"name": "Organiser", "password": PASSWORD})
    people: dict[str, Someone] = {}
    for i, name in enumerate(n for pair in PAIRS for n in pair):
        people[name] = account(live, name, f"10.7.{i // 4}.{i + 10}")
        assert people[name].http.post("/api/people/Organiser/friend").json()["state"] == "asked"
        assert api_post(organiser, f"/api/people/{name}/friend", {})["state"] == "friends"  # lists friends only
    pages: dict[str, Page] = {}
    for name in IN_BROWSERS:
        people[name].http.close()
        pages[name] = page_factory()
        api_post(pages[name], "/api/login", {"name": name, "password": PASSWORD})

    # A Howell of four pairs with a start time: the browser's local time, sent with its offset.
    organiser.goto("/event/new")
    wait_for(organiser, "#new-section:not([hidden])")
    organiser.select_option("#new-kind", "howell")
    assert organiser.locator("#new-entrants > li").count() == 4
    organiser.click("#new-add")
    assert organiser.locator("#new-entrants > li").count() == 5 and organiser.input_value("#new-count") == "5"
    organiser.click("#new-remove")
    assert organiser.locator("#new-entrants > li").count() == 4
    assert organiser.locator("#new-sessions-field").is_hidden()
    assert organiser.input_value("#new-boards") == "2"
    form_url = organiser.url
    organiser.fill("#new-name", "Howell evening")
    fill_pairs(organiser, list(PAIRS[:4]), {})
    starts = datetime.fromtimestamp(clock.t - clock.t % 60, UTC) + timedelta(days=2, hours=1)
    organiser.fill("#new-start", starts.astimezone(ZoneInfo(ZONE)).strftime("%Y-%m-%dT%H:%M"))
    organiser.click("#new-submit")
    organiser.wait_for_url("**/event/e-*")
    howell = api_get(organiser, f"/api/events/{organiser.url.rsplit('/', 1)[1]}")
    assert howell["starts_at"] == starts.isoformat(timespec="seconds") and howell["form"] == "howell"
    assert [e["name"] for e in howell["entrants"]] == [*NAMES[:2], "Eve & Fay", "Gus & Hal"]
    wait_for(organiser, '#event[data-status="waiting"][data-form="howell"]')
    shown_start = organiser.locator("#fact-start").text_content() or ""
    assert organiser.locator("#event-status").text_content() == render("event.status.waitingAt", "zh",
                                                                         {"time": shown_start})

    # The Mitchell: a start time in the past is refused, in the page's language; then made.
    organiser.goto(form_url)
    wait_for(organiser, "#new-section:not([hidden])")
    organiser.select_option("#new-kind", "mitchell")
    assert organiser.locator("#new-entrants > li").count() == 5
    organiser.fill("#new-name", "Spring pairs")
    organiser.fill("#new-boards", "1")
    organiser.fill("#new-turn", "120")
    fill_pairs(organiser, list(PAIRS), {3: EAST_WIND})
    organiser.fill("#new-start", "2020-01-01T10:00")
    organiser.click("#new-submit")
    wait_for(organiser, f'#new-error:has-text("{render("event.bad_start", "zh", {"days": 30})}")')
    organiser.fill("#new-start", "")
    organiser.click("#new-submit")
    organiser.wait_for_url("**/event/e-*")
    event_id = organiser.url.rsplit("/", 1)[1]
    wait_for(organiser, '#event[data-status="waiting"][data-form="mitchell"]')
    made = api_get(organiser, f"/api/events/{event_id}")
    assert [e["name"] for e in made["entrants"]] == list(NAMES)
    assert (made["rounds"], made["boards"], made["stages"], made["starts_at"]) == (ROUNDS, 1, ROUNDS, None)
    assert organiser.locator("#fact-form").text_content() == render("event.form.mitchell", "zh", {})
    assert organiser.locator("#event-entrants li").count() == 5

    # Round after round: the organiser starts it, everyone goes to their table and plays.
    seen: dict[tuple[str, int], set[str]] = {}
    for round_ in range(1, ROUNDS + 1):
        wait_for(organiser, "#desk-start:not([disabled])")
        assert organiser.locator("#desk-start").text_content() == render(
            "event.desk.start", "zh", {"where": render("event.roundN", "zh", {"n": round_})})
        organiser.click("#desk-start")
        wait_for(organiser, f'#event[data-stage="{round_}"]')
        players: list[Player] = []
        for name, person in people.items():
            if name in IN_BROWSERS:
                continue
            now = person.http.get(f"/api/events/{event_id}").json()["me"]["now"]
            assert now["round"] == round_
            if now["table"] is not None:
                players.append(Player(name, live=person.connect(now["url"].removeprefix("/table/"))))
        for name, page in pages.items():
            page.goto(f"/event/{event_id}")
            wait_for(page, f'#me-section[data-round="{round_}"]')
            if page.locator("#me-section").get_attribute("data-table") == "":
                where = render("event.roundN", "zh", {"n": round_})
                sitting_out = render("event.me.sittingOut", "zh", {"where": where})
                assert page.locator("#me-now").text_content() == sitting_out and page.locator("#me-go").is_hidden()
                continue
            page.click("#me-go")
            page.wait_for_url("**/table/m-*")
            wait_for(page, in_phase("expose", "play"))
            player = Player(name, page=page)
            player.seen = set(hand(page))
            players.append(player)
        assert len(players) == 8  # two tables of four; the phantom's table sits out
        give_up = time.monotonic() + GIVE_UP_S
        while not all(p.over() for p in players):
            assert time.monotonic() < give_up, {p.name: p.over() for p in players}
            if not any([p.step(rng) for p in players]):
                time.sleep(0.02)
        for player in players:
            if player.live is not None:
                player.live.close()
            else:
                seen[(player.name, round_)] = player.seen

        if round_ == 1:
            # Board 1 was played at table 1 (pairs 1 and 4): it is played again at table 3 in
            # round 2, so only table 1's players see its result; board 2 at table 2 likewise.
            ann = pages["Ann"]
            ann.goto(f"/event/{event_id}")
            wait_for(ann, '#board-1[data-complete="false"] tr[data-table="1"][data-played="true"]')
            assert data_value(ann, '#board-1 tr[data-table="1"] td[data-key=ns_result]') is not None
            assert data_value(ann, '#board-2 tr[data-table="2"] td[data-key=ns_result]') is None
            assert ann.locator('#board-1 td[data-key="ns_matchpoints"]').count() == 0
            assert ann.locator("#rankings-section").is_hidden()
            organiser.reload()
            wait_for(organiser, '#board-1 tr[data-table="1"][data-played="true"]')
            assert data_value(organiser, '#board-1 tr[data-table="1"] td[data-key=ns_result]') is None
            assert organiser.locator('#board-1 tr[data-table="1"] td[data-key=ns_result]').text_content() == \
                render("event.hiddenUntilAll", "zh", {})
            assert organiser.locator('#event-stages .event-sit-out[data-round="1"]').text_content() == \
                render("event.sitOut", "zh", {"entrants": EAST_WIND})

    # The end: the records, and every number of the page computed again from them.
    wait_for(organiser, '#event[data-status="over"]')
    response = organiser.request.get(f"/api/events/{event_id}/records.jsonl")
    assert response.ok, response.status
    records = [json.loads(line) for line in response.text().splitlines()]
    assert sorted((r["board"]["number"], r["seating"]["round"], r["seating"]["table"]) for r in records) == [
        (1, 1, 1), (1, 2, 3), (2, 1, 2), (2, 3, 3), (3, 2, 2), (3, 3, 1)]
    # The people in browsers held their own hand only, each round.
    for (name, round_), cards in seen.items():
        record = next(r for r in records if r["seating"]["round"] == round_
                      and name in {p["name"] for p in r["players"].values()})
        seat = next(s for s, p in record["players"].items() if p["name"] == name)
        assert cards == set(record["hands"][seat]), (name, round_)
        assert not record["players"][seat]["auto"]
    rows, ranking = expected(records)
    organiser.reload()
    wait_for(organiser, "#rankings-section:not([hidden])")
    wait_for(organiser, '#board-3[data-complete="true"]')
    check_page(organiser, rows, ranking)
    assert organiser.locator('#rankings .event-ranking[data-field="N–S"] h3').text_content() == \
        render("event.ranking.ns", "zh", {})
    assert organiser.locator('#rankings .event-ranking[data-field="E–W"] h3').text_content() == \
        render("event.ranking.ew", "zh", {})
    # A player of the event sees the same, their own rows marked.
    gus = pages["Gus"]
    gus.goto(f"/event/{event_id}")
    wait_for(gus, '#board-3[data-complete="true"]')
    check_page(gus, rows, ranking)
    assert gus.locator('#rankings tr.mine[data-entrant="Gus & Hal"]').count() == 1
    assert gus.locator("#desk").is_hidden()

    # The referee's penalty (a pair and a round) and correction (a table and a board).
    organiser.select_option("#penalty-entrant", EAST_WIND)
    organiser.fill("#penalty-points", "-5")
    organiser.fill("#penalty-round", "3")
    organiser.fill("#penalty-reason", "slow play")
    organiser.click('#penalty-form button[type="submit"]')
    wait_for(organiser, '#event-log li[data-action="penalty"]')
    raw = {"N": -100, "E": 0, "S": 0, "W": 0}
    organiser.fill("#correction-table", "1")
    organiser.fill("#correction-board", "1")
    for seat, points in raw.items():
        organiser.fill(f"#raw-{seat}", str(points))
    organiser.fill("#correction-reason", "the pig was at the wrong seat")
    organiser.click('#correction-form button[type="submit"]')
    wait_for(organiser, '#event-log li[data-action="correction"]')
    rows, ranking = expected(records, {(1, 1): raw}, {EAST_WIND: -5})
    check_page(organiser, rows, ranking)
    assert data_value(organiser, f'#rankings tr[data-entrant="{EAST_WIND}"] td[data-key=penalty]') == -5
    wait_for(organiser, "#desk-publish:not([disabled])")
    organiser.click("#desk-publish")
    wait_for(organiser, '#event[data-published="true"]')
    assert [organiser.locator("#event-log li").nth(i).get_attribute("data-action")
            for i in range(organiser.locator("#event-log li").count())] == [
        "create", "start", "start", "start", "penalty", "correction", "publish"]

    # On a 360 px phone: the event's page, for the organiser and for a player, and the form.
    for page in (organiser, gus):
        page.set_viewport_size(PHONE)
        page.reload()
        wait_for(page, '#board-3[data-complete="true"]')
        fits_a_phone(page, page.url)
    shot(organiser, "event-pairs-phone")
    organiser.set_viewport_size({"width": 1280, "height": 800})
    shot(organiser, "event-pairs")
    organiser.set_viewport_size(PHONE)
    organiser.goto("/event/new")
    wait_for(organiser, "#new-section:not([hidden])")
    for kind in ("match", "swiss", "mitchell", "howell", "individual"):
        organiser.select_option("#new-kind", kind)
        fits_a_phone(organiser, f"/event/new {kind}")
