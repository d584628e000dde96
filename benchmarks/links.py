"""What looking for links between accounts costs, on PostgreSQL and SQLite, beside a table's write.

    python benchmarks/links.py [--calls 500] [--rounds 5] [--pg URL] [--json]

A table for people asks the store how many people apart the accounts it deals a deal to are
(``Store.people_apart``: those signed in from a same browser, or whose table pages came from a same
network, count as one; docs/ratings.md) as each deal is dealt and again as it ends — two reads,
timed beside the way it was first written, each account's links looked up in turn (``pairwise``,
the baseline); a sign-in asks the account's count of failures (``AccountGuard.start``: a read,
and a compared write when the browser is not trusted).  This times both against the store's write of one play
(``Store.add_action``, what every play costs), in the same run: four accounts, each with
:data:`~gongzhu.server.identity.KNOWN_DEVICES_MOST` browsers and three networks of its own, and
two of them sharing a browser (the worst a deal meets: every browser an account keeps, and a
link to follow).  Makes a PostgreSQL database of its own on ``--pg`` (a server URL; the
database is made and dropped) and a SQLite file in a temporary folder.  Reports the median and
the 90th percentile of one call in microseconds, each the median over the rounds.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sqlalchemy import insert, update

from gongzhu.server.accounts import AccountGuard
from gongzhu.server.identity import KNOWN_DEVICES_MOST, Identity
from gongzhu.server.store import KNOWN_DEVICES, USER_NETWORKS, USERS, Store
from store import over_rounds, rounds_main, seating, spread

PEOPLE = ["u-n", "u-e", "u-s", "u-w"]


def populate(store: Store) -> None:
    """Four accounts with every browser an account keeps and three networks each; North and East
    share one browser."""
    now = datetime.now(UTC).isoformat(timespec="microseconds")
    with store.engine.begin() as c:
        for user in PEOPLE:
            c.execute(insert(USERS).values(id=user, name=user, name_key=user, password_hash="x", guest=False,
                                           created=now, lifetime=0, deals=0, matches=0, pigs=0, session_epoch=1))
            c.execute(insert(KNOWN_DEVICES), [{"user_id": user, "device": f"{user}-browser-{n:02d}".ljust(64, "0"),
                                               "last_seen": now, "trusted": True} for n in range(KNOWN_DEVICES_MOST)])
            c.execute(insert(USER_NETWORKS), [{"user_id": user, "network": f"{user}-network-{n}".ljust(64, "0"),
                                               "last_seen": now} for n in range(3)])
        c.execute(insert(KNOWN_DEVICES).values(user_id="u-e", device="u-n-browser-00".ljust(64, "0"),
                                               last_seen=now, trusted=True))


def pairwise(store: Store, users: list[str]) -> int:
    """:meth:`Store.people_apart` as it was first written: each account's links to the ones after
    it (:meth:`Store.linked_to`, two reads each), then joined — the baseline of the two reads."""
    group = {u: u for u in users}

    def root(u: str) -> str:
        while group[u] != u:
            u = group[u]
        return u

    for i, user in enumerate(users):
        for other in store.linked_to(user, users[i + 1:]):
            group[root(other)] = root(user)
    return len({root(u) for u in users})


def timed(call: Callable[[], Any], count: int) -> list[float]:
    times = []
    for _ in range(count):
        began = time.perf_counter()
        call()
        times.append((time.perf_counter() - began) * 1e6)
    return times


def measure(url: str, count: int, rounds: int) -> dict[str, dict[str, float]]:
    store = Store(url)
    try:
        populate(store)
        store.create_match(match_id="m-bench", preset="online", options={}, speed="normal", seed=1,
                           seating=seating(0))
        guard = AccountGuard(Identity(store), free=10**9)  # counts every try, never makes one wait
        version, deal = 0, 0

        def write() -> None:
            nonlocal version
            store.add_action("m-bench", deal, version, {"seat": "S", "type": "play", "cards": ["2C"]},
                             seating(version + 1), expected=version)
            version += 1

        assert store.people_apart(PEOPLE) == pairwise(store, PEOPLE) == 3
        kinds: dict[str, Callable[[], Any]] = {
            "table write (a play)": write,
            "people apart, pairwise (baseline)": lambda: pairwise(store, PEOPLE),
            "people apart (4 accounts)": lambda: store.people_apart(PEOPLE),
            "sign-in count (a stranger's browser)": lambda: guard.start("u-s", "a-browser-it-does-not-know"),
        }
        for call in kinds.values():
            timed(call, 50)  # warm: the pool, the plans
        found: dict[str, list[tuple[float, float]]] = {kind: [] for kind in kinds}
        for _ in range(rounds):
            for kind, call in kinds.items():
                deal += 1
                found[kind].append(spread(timed(call, count)))
            with store.engine.begin() as c:  # (the count back to nothing between rounds)
                c.execute(update(USERS).values(sign_in_failures=0, sign_in_failed=None))
        return {kind: over_rounds(runs) for kind, runs in found.items()}
    finally:
        store.close()


def main() -> int:
    return rounds_main(__doc__ or "", measure, calls=500, unit="calls", width=38)


if __name__ == "__main__":
    sys.exit(main())
