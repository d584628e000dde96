"""What bounding the lifetime score by what one account gives another costs a deal's end, on
PostgreSQL and SQLite.

    python benchmarks/lifetime.py [--calls 300] [--rounds 5] [--pg URL] [--json]

A deal at a table with people ends in one transaction (``Store.finish_deal``: its record, the
match's totals, each person's part and lifetime score).  Each person's final is now shared out
among the other people dealt the deal, and the share of a settled account counted within the
week's bound (docs/ratings.md, Won from one person): the days older than a week deleted, what
was counted with each other person this week read, and today's row of each pair written.  This
times the deal's end of four accounts, all settled, with their finals shared so (``shared``),
against the same deal's end with no one to share with (``whole``, every final added whole, as
before the bound), rounds alternating so that both see the same machine (who is settled is read
as a deal is dealt, one read beside the links' of benchmarks/links.py, not timed here).  Makes a PostgreSQL
database of its own on ``--pg`` (a server URL; the database is made and dropped) and a SQLite
file in a temporary folder.  Reports the median and the 90th percentile of one deal's end in
microseconds, each the median over the rounds.
"""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sqlalchemy import insert

from gongzhu.server.store import SETTLED_AGE, SETTLED_DEALS, USERS, Charge, Store
from store import over_rounds, rounds_main, seating, spread

PEOPLE = ["u-n", "u-e", "u-s", "u-w"]
FINALS = [1_200, -480, -960, 240]


def measure(url: str, count: int, rounds: int) -> dict[str, dict[str, float]]:
    store = Store(url)
    try:
        came = (datetime.now(UTC) - SETTLED_AGE - timedelta(days=1)).isoformat(timespec="microseconds")
        with store.engine.begin() as c:
            c.execute(insert(USERS), [{"id": u, "name": u, "name_key": u, "password_hash": "x", "guest": False,
                                       "created": came, "lifetime": 0, "deals": SETTLED_DEALS, "matches": 0,
                                       "pigs": 0, "session_epoch": 1} for u in PEOPLE])
        store.create_match(match_id="m-bench", preset="online", options={}, speed="normal", seed=1,
                           seating=seating(0))
        deal = 0

        def finish(shared: bool) -> float:
            nonlocal deal
            charges = [Charge(user, final if deal % 2 else -final, result=final // 12, seat="NESW"[i],
                              others=tuple(PEOPLE) if shared else ())
                       for i, (user, final) in enumerate(zip(PEOPLE, FINALS, strict=True))]
            began = time.perf_counter()
            store.finish_deal("m-bench", deal, record_line="{}", south_final=0, totals=[0, 0, 0, 0], over=False,
                              winners=[], pigs=[], charges=charges, settled=PEOPLE if shared else ())
            deal += 1
            return (time.perf_counter() - began) * 1e6

        kinds = {"deal's end, finals whole (baseline)": False, "deal's end, finals shared and bounded": True}
        for shared in kinds.values():
            for _ in range(30):  # warm: the pool, the plans
                finish(shared)
        found: dict[str, list[tuple[float, float]]] = {kind: [] for kind in kinds}
        for _ in range(rounds):
            for kind, shared in kinds.items():
                found[kind].append(spread([finish(shared) for _ in range(count)]))
        return {kind: over_rounds(runs) for kind, runs in found.items()}
    finally:
        store.close()


def main() -> int:
    return rounds_main(__doc__ or "", measure, calls=300, unit="deals", width=40)


if __name__ == "__main__":
    sys.exit(main())
