"""The store's connections to its database (:mod:`gongzhu.server.store`): a connection the
database dropped (a restart, a failover, an operator ending sessions) is replaced before the next
write instead of failing it, and a failed statement's error — which the server logs — holds none
of the statement's values (an action's cards).  Each on SQLite and on PostgreSQL (``STORES``)
where it applies."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import IntegrityError

from gongzhu.server.store import Seating, Store
from helpers.database import STORES

SEATS = (("u-n", "北"), ("u-e", "东"), ("u-s", "南"), ("u-w", "西"))


def seating(version: int) -> Seating:
    return Seating(host="u-s", seats=SEATS, levels={s: "expert" for s in "NESW"}, visibility="private",
                   invite=None, turn_seconds=None, expose_seconds=None, status="playing", version=version,
                   auto=(False,) * 4, timeouts=(0,) * 4, deadline=None, dealt_to=tuple(s[0] for s in SEATS))


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    made = Store(db_url)
    made.create_match(match_id="m-1", preset="online", options={}, speed="normal", seed=1, seating=seating(0))
    try:
        yield made
    finally:
        made.close()


@pytest.mark.postgres
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_write_after_the_database_dropped_the_connections_goes_through(store: Store, db_url: str) -> None:
    store.add_action("m-1", 0, 0, {"seat": "S", "type": "play", "cards": ["2C"]}, seating(1), expected=0)
    admin = create_engine(db_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as c:
            ended = c.execute(text("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                   "WHERE datname = current_database() AND pid <> pg_backend_pid()")).scalar_one()
    finally:
        admin.dispose()
    assert ended >= 1  # the store's pooled connection
    store.add_action("m-1", 0, 1, {"seat": "W", "type": "play", "cards": ["3C"]}, seating(2), expected=1)
    assert [a["cards"] for a in store.actions("m-1", 0)] == [["2C"], ["3C"]]


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_a_failed_write_says_nothing_of_its_values(store: Store) -> None:
    store.add_action("m-1", 0, 0, {"seat": "S", "type": "play", "cards": ["QS"]})
    with pytest.raises(IntegrityError) as failed:  # the same action number twice
        store.add_action("m-1", 0, 0, {"seat": "S", "type": "play", "cards": ["JD"]})
    said = str(failed.value)
    assert "JD" not in said and "play" not in said  # (a key the database names, the table's id, is no secret)
    assert "parameters hidden" in said  # SQLAlchemy's words for what it left out
