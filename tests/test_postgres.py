"""The browser game's persistence on a real PostgreSQL server (``--db`` takes any
SQLAlchemy URL; SQLite is only the embedded default).

A throwaway PostgreSQL cluster is started for the session (``initdb`` + ``pg_ctl`` of the
machine's PostgreSQL, listening on a Unix socket in a temporary folder only, run as the
``postgres`` user when the tests run as root; the ``postgres_server`` and ``pg_url`` fixtures of
``conftest.py``); each test gets a fresh database.  The server tests parametrized with
``helpers.database.STORES`` run on it too (``tests/test_server.py``: a whole match over the WebSocket
with its scores, records and lifetime score, refusals that change nothing, a restart mid-deal
that resumes), marked ``postgres`` like this module.
Without PostgreSQL installed the tests are skipped, except under CI (``CI`` set), where that is
a failure: ``.ci/run`` installs it.
"""

from __future__ import annotations

import pytest

from gongzhu.server.identity import Identity
from gongzhu.server.store import Charge, Store
from helpers.client import seating

pytestmark = pytest.mark.postgres


def test_the_store_is_on_postgresql(pg_url: str) -> None:
    store = Store(pg_url)
    try:
        assert store.engine.dialect.name == "postgresql"
        assert store.matches() == []
        person = Identity(store).new_guest()
        assert store.people([person.id]) == {person.id: (person.name, 0)}
        info = store.create_match(match_id="m-pg", preset="online", options={}, speed="normal", seed=2**64 - 1,
                                  seating=seating((person.id, person.name)))
        assert store.match("m-pg") == info and store.matches(person.id) == [info]
        store.finish_deal("m-pg", 0, record_line="{}", south_final=-120, totals=[0, 0, -10, 0], over=False,
                          winners=[], pigs=[], charges=[Charge(person.id, -120, result=-10, seat="S")])
        assert store.people([person.id]) == {person.id: (person.name, -120)}
        assert store.records("m-pg") == ["{}"]
    finally:
        store.close()

