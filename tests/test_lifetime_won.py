"""What the lifetime score counts of a deal at a table with people (docs/ratings.md, Won from one
person): each final shared out equally among the other people dealt it; the share of an account
not settled here counts nothing, and the share of a settled one counts but for a win beyond
10,000 net with that account within seven days."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import insert, select, update

from gongzhu.server.identity import Identity
from gongzhu.server.store import (
    LIFETIME_WON,
    SETTLED_AGE,
    SETTLED_DEALS,
    USERS,
    WON_FROM_ONE,
    WON_WITHIN,
    Charge,
    Store,
)
from helpers.database import STORES
from helpers.live import counted_shares, settle


def people(store: Store, n: int, *, settled: bool) -> list[str]:
    """``n`` new accounts, settled (:func:`settle`) or just made."""
    identity = Identity(store)
    made = [identity.new_guest().id for _ in range(n)]
    with store.engine.begin() as c:
        c.execute(update(USERS).where(USERS.c.id.in_(made)).values(guest=False, password_hash="-"))
    if settled:
        settle(store, *made)
    return made


def lifetimes(store: Store, *users: str) -> list[int]:
    with store.engine.connect() as c:
        kept = {r.id: int(r.lifetime) for r in c.execute(select(USERS.c.id, USERS.c.lifetime)
                                                          .where(USERS.c.id.in_(users)))}
    return [kept[u] for u in users]


class Deals:
    """Deals of one match finished straight into the store, each with its people's finals."""

    def __init__(self, store: Store, match_id: str, host: str) -> None:
        from helpers.client import seating

        self.store, self.match_id, self.next = store, match_id, 0
        store.create_match(match_id=match_id, preset="online", options={}, speed="normal", seed=7,
                           seating=seating((host, "H")))

    def finish(self, finals: dict[str, int]) -> dict[str, int]:
        """A deal at which each of ``finals``'s people scored their final (the computers, the
        rest); what it withheld of each."""
        dealt = tuple(finals)
        charges = [Charge(user, final, result=final // 12, seat="NESW"[i], others=dealt)
                   for i, (user, final) in enumerate(finals.items())]
        counted = self.store.finish_deal(self.match_id, self.next, record_line="{}", south_final=0,
                                         totals=[0, 0, 0, 0], over=False, winners=[], pigs=[], charges=charges)
        self.next += 1
        return counted.withheld


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_between_a_new_account_and_a_settled_one_nothing_counts(db_url: str) -> None:
    """A throwaway account loses a deal on purpose to another: the other's lifetime score counts
    nothing of it — a share with an account new here, win or loss — nor the throwaway's its loss,
    nor either of them a deal the other way round, while the deals count for both."""
    store = Store(db_url)
    try:
        [fed] = people(store, 1, settled=True)
        [throwaway] = people(store, 1, settled=False)
        deals = Deals(store, "m-fed", fed)
        assert deals.finish({fed: 16_752, throwaway: -16_752}) == {fed: 16_752, throwaway: -16_752}
        assert deals.finish({fed: -600, throwaway: 600}) == {fed: -600, throwaway: 600}
        with store.engine.begin() as c:  # fifty deals, but made an hour ago: still new
            c.execute(update(USERS).where(USERS.c.id == throwaway).values(deals=SETTLED_DEALS))
        assert deals.finish({fed: 1_000, throwaway: -1_000}) == {fed: 1_000, throwaway: -1_000}
        assert lifetimes(store, fed, throwaway) == [0, 0]
        with store.engine.connect() as c:
            counts = dict(c.execute(select(USERS.c.id, USERS.c.deals).where(USERS.c.id.in_([fed, throwaway]))).all())
            assert c.execute(select(LIFETIME_WON)).all() == []
        assert counts == {fed: SETTLED_DEALS + 3, throwaway: SETTLED_DEALS + 1}
    finally:
        store.close()


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_final_is_shared_out_among_the_other_people_and_each_share_bounded(db_url: str) -> None:
    """With three people dealt, each one's final is shared out in halves to the two others (an odd
    point to the first of them): a half shared between two settled accounts counts, a half shared
    with a new account — either way — counts nothing."""
    store = Store(db_url)
    try:
        ann, bo = people(store, 2, settled=True)
        [cy] = people(store, 1, settled=False)
        deals = Deals(store, "m-three", ann)
        first = min(bo, cy)  # (the others in the order of their ids: the first gets the odd point)
        withheld = deals.finish({ann: 1_201, bo: -1_000, cy: -201})
        assert withheld == {ann: 601 if first == cy else 600, bo: -500, cy: -201}
        assert lifetimes(store, ann, bo, cy) == [1_201 - withheld[ann], -500, 0]
    finally:
        store.close()


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_what_is_won_from_one_settled_account_counts_up_to_10000_net_a_week(db_url: str) -> None:
    """From a settled account a person's wins count while the net counted with it within seven
    days stays within 10,000: a deal that crosses the bound counts what is left of it, the next
    nothing; a loss to it counts and makes room again; a third person's win from the same loser
    counts on its own bound; days more than a week old are forgotten (and deleted as a deal ends)."""
    store = Store(db_url)
    try:
        winner, loser, third = people(store, 3, settled=True)
        deals = Deals(store, "m-week", winner)
        deals.finish({winner: 6_000, loser: -6_000})
        assert deals.finish({winner: 6_000, loser: -6_000}) == {winner: 2_000}
        assert lifetimes(store, winner, loser) == [WON_FROM_ONE, -12_000]
        assert deals.finish({winner: 6_000, loser: -6_000}) == {winner: 6_000}
        deals.finish({winner: -2_500, loser: 2_500})  # the other way round: counted, and room again
        assert lifetimes(store, winner, loser) == [WON_FROM_ONE - 2_500, -15_500]
        assert deals.finish({winner: 3_000, loser: -3_000}) == {winner: 500}
        assert lifetimes(store, winner) == [WON_FROM_ONE]
        Deals(store, "m-third", third).finish({third: 6_000, loser: -6_000})
        assert lifetimes(store, third) == [6_000]
        eight_days_ago = (datetime.now(UTC) - WON_WITHIN - timedelta(days=1)).date().isoformat()
        with store.engine.begin() as c:  # the week's wins, made eight days ago instead
            rows = c.execute(select(LIFETIME_WON).where(LIFETIME_WON.c.user_id == winner)).all()
            c.execute(LIFETIME_WON.delete().where(LIFETIME_WON.c.user_id == winner))
            c.execute(insert(LIFETIME_WON), [{**r._mapping, "day": eight_days_ago} for r in rows])
        assert deals.finish({winner: 3_000, loser: -3_000}) == {}
        assert lifetimes(store, winner) == [WON_FROM_ONE + 3_000]
        with store.engine.connect() as c:  # the old day went as the deal ended
            days = set(c.scalars(select(LIFETIME_WON.c.day)))
        assert len(days) == 1 and days != {eight_days_ago}
    finally:
        store.close()


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_the_export_holds_what_was_counted_with_each_account_and_deletion_removes_it(db_url: str) -> None:
    """A person's account export lists what their lifetime score counted with each other account,
    net, each day (never what others counted with them); deleting an account removes its own."""
    from gongzhu.server.account_care import AccountCare

    store = Store(db_url)
    try:
        winner, loser = people(store, 2, settled=True)
        deals = Deals(store, "m-export", winner)
        deals.finish({winner: 6_000, loser: -6_000})
        deals.finish({winner: 6_000, loser: -6_000})
        care = AccountCare(Identity(store))
        names = {u: care.export(u)["profile"]["name"] for u in (winner, loser)}
        with store.engine.connect() as c:  # (the day the rows were written: a run may cross midnight)
            today = c.scalar(select(LIFETIME_WON.c.day).limit(1))
        assert care.export(winner)["lifetime_counted"] == [{"with": names[loser], "day": today, "net": WON_FROM_ONE}]
        assert care.export(loser)["lifetime_counted"] == [{"with": names[winner], "day": today, "net": -12_000}]
        care.delete(loser)  # its own rows go; the winner's with it are the winner's, and age out
        with store.engine.connect() as c:
            assert [(r.user_id, r.other_id) for r in c.execute(select(LIFETIME_WON))] == [(winner, loser)]
    finally:
        store.close()


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_the_days_of_the_week_add_up_to_the_bound(db_url: str) -> None:
    """What was counted with one account on the days before, within the week, counts against the
    bound of today."""
    store = Store(db_url)
    try:
        winner, loser = people(store, 2, settled=True)
        three_days_ago = (datetime.now(UTC) - timedelta(days=3)).date().isoformat()
        with store.engine.begin() as c:
            c.execute(insert(LIFETIME_WON).values(user_id=winner, other_id=loser, day=three_days_ago,
                                                  won=WON_FROM_ONE - 1_200))
        assert Deals(store, "m-days", winner).finish({winner: 2_400, loser: -2_400}) == {winner: 1_200}
        assert lifetimes(store, winner, loser) == [1_200, -2_400]
    finally:
        store.close()


def test_the_summary_names_the_bounds_the_store_keeps() -> None:
    """The deal's summary says in both languages what was not counted, with the bounds the store
    keeps: fifty deals, a week, 10,000 within seven days."""
    from gongzhu.messages import catalog

    assert SETTLED_AGE.days == WON_WITHIN.days == 7
    for lang, week, seven_days in (("en", "a week", "seven days"), ("zh", "一周", "七天")):
        note = catalog(lang)["summary.withheldNote"]
        assert "{withheld}" in note and f"{SETTLED_DEALS}" in note and f"{WON_FROM_ONE:,}" in note, lang
        assert week in note and seven_days in note, lang


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_an_account_deleted_during_the_deal_counts_as_it_was_dealt(db_url: str, tmp_path: Path) -> None:
    """Tam stands up in the middle of a deal and deletes the account; the table is let go and loaded
    again from the store before the deal ends: Fay's final, shared to Tam, counts as it would have —
    both were settled when the deal was dealt — so a loss is not wiped out."""
    import time

    from helpers.live import PASSWORD, account
    from helpers.servers import LiveServer
    from test_tables import drive, new_table

    with LiveServer(db_url, static_dir=tmp_path / "no-static") as server:
        fay, tam = account(server, "Fay"), account(server, "Tam")
        settle(server.app.state.store, fay.id, tam.id)
        table_id = new_table(fay, options={"match_end": "deals:1"})["table_id"]
        lives = {"S": fay.connect(table_id), "E": tam.connect(table_id)}
        lives["S"].until(lambda s: s["phase"] == "waiting")
        lives["E"].send({"type": "sit", "seat": "E"})
        lives["S"].until(lambda s: s["table"]["seats"]["E"]["name"] == "Tam")
        lives["S"].send({"type": "start"})
        drive(lives, random.Random(5), lambda states: all(s.get("phase") == "play" for s in states.values()))
        lives["E"].send({"type": "stand"})
        lives["S"].until(lambda s: s["table"]["seats"]["E"]["name"] is None)
        r = tam.http.post("/api/account/delete", json={"password": PASSWORD, "confirm": "Tam"})
        assert r.status_code == 200, r.text
        for live in lives.values():
            live.close()
        tables, since = server.app.state.tables, time.monotonic()
        while tables._tables.get(table_id) is not None:  # let go: the next connection loads it again
            assert time.monotonic() - since < 10
            time.sleep(0.02)
        again = {"S": fay.connect(table_id)}
        drive(again, random.Random(6), lambda states: states["S"].get("phase") == "match-over")
        final = again["S"].state["deal_result"]["final"]["S"]
        counted = counted_shares([final])
        assert again["S"].state["lifetime"]["withheld"] == final - counted
        assert fay.http.get("/api/me").json()["lifetime"] == counted
        with server.app.state.store.engine.connect() as c:  # (nothing kept that names the deleted account)
            assert c.execute(select(LIFETIME_WON).where(LIFETIME_WON.c.other_id == tam.id)).all() == []
        again["S"].close()


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_at_a_table_shares_count_between_settled_accounts_only(db_url: str, tmp_path: Path) -> None:
    """Ann and Bo, settled, play two deals at a table with two computers, then Ann and Cy, new: the
    finals of the first count, each shared whole to the other within the week's bound, and the
    pages say what was not counted; of the second nothing counts, for either."""
    from helpers.live import account
    from helpers.servers import LiveServer
    from test_tables import drive, new_table

    with LiveServer(db_url, static_dir=tmp_path / "no-static") as server:
        ann, bo, cy = account(server, "Ann"), account(server, "Bo"), account(server, "Cy")
        settle(server.app.state.store, ann.id, bo.id)
        finals: dict[str, list[int]] = {"Ann": [], "Bo": []}
        for other, deals in ((bo, 2), (cy, 1)):
            table_id = new_table(ann, options={"match_end": f"deals:{deals}"})["table_id"]
            lives = {"S": ann.connect(table_id), "E": other.connect(table_id)}
            lives["S"].until(lambda s: s["phase"] == "waiting")
            lives["E"].send({"type": "sit", "seat": "E"})
            lives["S"].until(lambda s, name=other.name: s["table"]["seats"]["E"]["name"] == name)
            lives["S"].send({"type": "start"})
            for deal_index in range(deals):
                drive(lives, random.Random(deal_index), lambda states, k=deal_index: all(
                    s.get("phase") in ("deal-over", "match-over") and s["deal_index"] == k for s in states.values()))
                final = lives["S"].state["deal_result"]["final"]
                for seat, name in (("S", "Ann"), ("E", other.name)):
                    if other is cy:  # (nothing counts with a new account)
                        assert lives[seat].state["lifetime"]["withheld"] == final[seat]
                        continue
                    counts = counted_shares([*finals[name], final[seat]]) - counted_shares(finals[name])
                    assert lives[seat].state["lifetime"]["withheld"] == final[seat] - counts
                    finals[name].append(final[seat])
                if deal_index + 1 < deals:
                    lives["S"].send({"type": "next"})
            for live in lives.values():
                live.close()
        assert [p.http.get("/api/me").json()["lifetime"] for p in (ann, bo, cy)] == [
            counted_shares(finals["Ann"]), counted_shares(finals["Bo"]), 0]
