"""The store's schema migrations (:mod:`gongzhu.server.migrations`), on a SQLite file and on a
throwaway PostgreSQL (marker ``postgres``, :data:`helpers.database.STORES`).

A database made before the schema was versioned is built here from a frozen copy of its table
definitions (:data:`_LEGACY`, never to be edited: it is what servers of that time wrote) and
filled with the rows of a real match; the current server must open it, make its person the user
``local`` (lifetime score, deals, matches), serve them — the first browser on the server's own
machine — the same history and records, and resume the deal in progress.  The tables of :mod:`gongzhu.server.store` must
agree with the migrations (Alembic's ``compare_metadata``): a schema change without its revision
fails here.
"""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    insert,
    inspect,
    select,
    text,
)
from sqlalchemy.engine import Engine
from starlette.testclient import TestClient

from gongzhu.cli.main import main as gongzhu_main
from gongzhu.records.format import dump_record
from gongzhu.rules.dealing import match_commitment
from gongzhu.rules.options import Options
from gongzhu.server import create_app
from gongzhu.server import migrations as mig
from gongzhu.server.identity import LOCAL_USER, User
from gongzhu.server.migrations.__main__ import main as migrations_main
from gongzhu.server.names import name_skeleton
from gongzhu.server.store import CHALLENGE_ENTRIES, METADATA, USERS, Store
from helpers.client import Browser, act, local_client, new_match, seating, user_of
from helpers.database import STORES, revisions_of

# ---------------------------------------------------------------------- the schema before versioning

_LEGACY = MetaData()
Table(
    "matches", _LEGACY,
    Column("id", String(64), primary_key=True),
    Column("created", String(40), index=True, nullable=False),
    Column("preset", String(32), nullable=False),
    Column("options", JSON, nullable=False),
    Column("levels", JSON, nullable=False),
    Column("speed", String(16), nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("totals", JSON, nullable=False),
    Column("deals", Integer, nullable=False, default=0),
    Column("in_deal", Boolean, nullable=False, default=True),
    Column("over", Boolean, nullable=False, default=False),
    Column("winners", JSON, nullable=False),
    Column("pigs", JSON, nullable=False),
)
Table(
    "deals", _LEGACY,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("match_id", ForeignKey("matches.id"), index=True, nullable=False),
    Column("deal_index", Integer, nullable=False),
    Column("record", Text, nullable=False),
    Column("south_final", BigInteger, nullable=False),
    UniqueConstraint("match_id", "deal_index"),
)
Table(
    "actions", _LEGACY,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("match_id", ForeignKey("matches.id"), index=True, nullable=False),
    Column("deal_index", Integer, nullable=False),
    Column("seq", Integer, nullable=False),
    Column("action", Text, nullable=False),
    UniqueConstraint("match_id", "deal_index", "seq"),
)
Table(
    "profile", _LEGACY,
    Column("id", String(32), primary_key=True),
    Column("lifetime", BigInteger, nullable=False, default=0),
)

Rows = dict[str, list[dict[str, Any]]]


def _served(client: TestClient, match_id: str) -> dict[str, Any]:
    """What the server says about the stored data: the person's history, the match, its records."""
    return {
        "history": client.get("/api/matches").json(),
        "match": client.get(f"/api/matches/{match_id}").json(),
        "records": client.get(f"/api/matches/{match_id}/records.jsonl").text,
    }


def _played(tmp_path: Path) -> tuple[str, Rows, dict[str, Any], dict[str, Any]]:
    """A match with a finished deal and a deal in progress, played on a scratch SQLite store by
    one person: (match id, the rows of the four tables as the single-player server wrote them,
    what the server served that person, the table's state).

    The rows are the scratch store's, in the frozen columns of :data:`_LEGACY`, as that server
    had them: the levels of the computer players only (N, E, W), deal records without who
    played each seat, and the person's lifetime score in the one ``profile`` row."""
    url = f"sqlite:///{tmp_path / 'scratch.db'}"
    rng = random.Random(5)
    with local_client(create_app(url, pace=0, hint_think=0.05, static_dir=tmp_path / "none")) as client:
        match_id = new_match(client, seed=11)
        with client.websocket_connect(f"/ws/{match_id}") as ws:
            browser = Browser(ws)
            state = browser.settle()
            while not (state["phase"] == "play" and state["deal_index"] == 1 and len(state["trick"]["plays"]) > 1):
                act(browser, rng)
                state = browser.settle()
        served = _served(client, match_id)
        person = user_of(client)
    assert person.practice_deals == 1 and person.lifetime == state["lifetime"]["score"] == 0
    engine = create_engine(url)
    with engine.connect() as c:
        rows = {name: [dict(r._mapping) for r in c.execute(select(table))]
                for name, table in _LEGACY.tables.items() if name != "profile"}
    engine.dispose()
    for match in rows["matches"]:
        match["levels"] = {s: level for s, level in match["levels"].items() if s != "S"}
    for deal in rows["deals"]:
        record = json.loads(deal["record"])
        del record["players"]
        deal["record"] = dump_record(record)
    # That server counted every deal in the lifetime score: practice did not exist yet.
    rows["profile"] = [{"id": "local", "lifetime": person.practice}]
    assert rows["matches"] and rows["deals"] and rows["actions"]
    return match_id, rows, served, state


def _as_local(served: dict[str, Any], state: dict[str, Any], rows: Rows, local: User
              ) -> tuple[dict[str, Any], dict[str, Any]]:
    """What the person of the single-player server is served once migration 0002 made them the
    user ``local``: what the scratch server served its person, under the name of ``local``; the
    legacy records (written without who played each seat); a private table without an invite
    (that server had none) whose host and South are ``local``, and whose seed, chosen there, is not
    known to have been (revision 0004 reads earlier rows as drawn seeds)."""
    served = copy.deepcopy(served)
    for match in [*served["history"], served["match"]]:
        match["seats"]["S"] = local.name
        match["players"]["S"]["name"] = local.name
        match["seeded"] = False
    served["records"] = "".join(d["record"] + "\n" for d in rows["deals"])
    state = copy.deepcopy(state)
    state["you"] = {"id": LOCAL_USER, "name": local.name, "host": True, "seat": "S", "auto": False,
                    "next_deal_seat": None}
    # (read as drawn, its commitment is shown from the start, as a drawn seed's is)
    match = rows["matches"][0]
    drawn = match_commitment(int(match["seed"]), Options.from_dict(match["options"]).to_dict())
    state["table"].update(host=local.name, invite=None, seeded=False, commitment=drawn)
    state["table"]["seats"]["S"]["name"] = local.name
    return served, state


def _legacy_database(url: str, rows: Rows) -> None:
    """A database as servers wrote it before the schema was versioned, holding ``rows``."""
    engine = create_engine(url)
    _LEGACY.create_all(engine)
    with engine.begin() as c:
        for table in _LEGACY.sorted_tables:
            if rows[table.name]:
                c.execute(insert(table), rows[table.name])
        if engine.dialect.name == "postgresql":  # rows inserted with their ids: their sequences follow
            for name in ("deals", "actions"):
                c.execute(text(f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), MAX(id)) FROM {name}"))
    engine.dispose()



def _snapshot(url: str) -> dict[str, Any]:
    """Every table's name, columns and rows."""
    engine = create_engine(url)
    try:
        with engine.connect() as c:
            meta = MetaData()
            meta.reflect(c)
            return {name: ([col.name for col in t.columns], sorted(map(tuple, c.execute(select(t)).all()), key=repr))
                    for name, t in meta.tables.items()}
    finally:
        engine.dispose()


# ---------------------------------------------------------------------- tests


def test_head_names_the_newest_revision() -> None:
    script = ScriptDirectory.from_config(mig.config())
    assert script.get_heads() == [mig.HEAD]
    assert script.get_base() == mig.FIRST


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_database_before_versioning_is_kept_and_served(db_url: str, tmp_path: Path) -> None:
    """The single-player server's person becomes the user ``local`` (migration 0002) with their
    lifetime score, deals and matches — the deals they played alone against computers moved to
    their practice score (migration 0009), so the two add up to the old lifetime score; the first
    browser on the server's own machine continues as them — their history, records and the deal in
    progress, which then counts for them as practice — and the next such browser is someone else."""
    match_id, rows, scratch, scratch_state = _played(tmp_path)
    _legacy_database(db_url, rows)
    assert revisions_of(db_url) == ()
    app = create_app(db_url, pace=0, hint_think=0.05, static_dir=tmp_path / "none")
    with local_client(app, loopback=True) as client:
        assert revisions_of(db_url) == (mig.HEAD,)
        new = new_match(client, seed=3)  # the first request of a browser on this machine: it is "local"
        local = user_of(client)
        assert local.id == LOCAL_USER and not local.guest
        practised = sum(d["south_final"] for d in rows["deals"])
        assert len(rows["deals"]) == 1 and (local.practice, local.practice_deals) == (practised, 1)
        assert (local.lifetime + local.practice, local.deals, local.matches, local.pigs) == (
            rows["profile"][0]["lifetime"], 0, 1, 0)
        served, state = _as_local(scratch, scratch_state, rows, local)
        now = _served(client, match_id)
        assert [m["match_id"] for m in now["history"]] == [new, match_id]
        assert {**now, "history": now["history"][1:]} == served
        with client.websocket_connect(f"/ws/{match_id}") as ws:  # the deal in progress resumes
            browser = Browser(ws)
            resumed = browser.settle()
            assert {**resumed, "v": state["v"]} == state  # (the version starts anew: there was none)
            # Every stored row of the single-player server is still there, unchanged but for the
            # levels (South's is named too); the profile row is the user "local".
            engine = create_engine(db_url)
            with engine.connect() as c:
                assert "profile" not in inspect(c).get_table_names()
                kept = {name: [dict(r._mapping) for r in c.execute(select(table))]
                        for name, table in _LEGACY.tables.items() if name != "profile"}
            engine.dispose()
            assert [m for m in kept["matches"] if m["id"] != new] == [
                {**m, "levels": {**m["levels"], "S": "intermediate"}} for m in rows["matches"]]
            assert (kept["deals"], kept["actions"]) == (rows["deals"], rows["actions"])
            rng = random.Random(6)
            while resumed["phase"] == "play":
                act(browser, rng)
                resumed = browser.settle()
        final = resumed["deal_result"]["final"]["S"]  # the deal counts for "local", in the same match
        after = user_of(client)
        assert (after.practice, after.practice_deals, after.lifetime, after.matches) == (
            local.practice + final, 2, local.lifetime, 1)
        other = local_client(app, loopback=True)  # "local" is claimed once: the next browser is a guest
        new_match(other)
        assert user_of(other).guest and user_of(other).id != LOCAL_USER
        profile = client.get("/api/profile").json()
        assert {k: profile[k] for k in ("id", "lifetime", "deals", "matches", "practice")} == {
            "id": LOCAL_USER, "lifetime": after.lifetime, "deals": 0, "matches": 1,
            "practice": {"score": after.practice, "deals": 2}}
        assert [m["id"] for m in profile["matches_list"]] == [match_id]


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_new_database_is_made_by_the_migrations_and_agrees_with_the_tables(db_url: str) -> None:
    Store(db_url).close()
    assert revisions_of(db_url) == (mig.HEAD,)
    engine = create_engine(db_url)
    try:
        with engine.connect() as c:
            assert set(inspect(c).get_table_names()) == {*METADATA.tables, "alembic_version"}
            context = MigrationContext.configure(c, opts={"compare_type": True})
            assert compare_metadata(context, METADATA) == []
    finally:
        engine.dispose()


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_database_at_an_older_revision_is_upgraded(db_url: str) -> None:
    Store(db_url).close()
    engine = create_engine(db_url)
    try:
        with engine.connect() as c:
            cfg = mig.config()
            cfg.attributes["connection"] = c
            command.downgrade(cfg, "base")
            c.commit()
            assert set(inspect(c).get_table_names()) == {"alembic_version"}
    finally:
        engine.dispose()
    assert revisions_of(db_url) == ()
    store = Store(db_url)
    try:
        assert store.matches() == [] and store.people([LOCAL_USER]) == {}  # an empty database has no "local"
    finally:
        store.close()
    assert revisions_of(db_url) == (mig.HEAD,)


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_database_of_a_newer_gongzhu_is_refused_unchanged(db_url: str, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    store = Store(db_url)
    store.create_match(match_id="m1", preset="classic", options={}, speed="normal", seed=3, seating=seating())
    store.close()
    engine = create_engine(db_url)
    with engine.begin() as c:
        c.execute(text("UPDATE alembic_version SET version_num = 'ffffffffffff'"))
        c.execute(text("CREATE TABLE tables_of_the_future (id INTEGER PRIMARY KEY)"))
    engine.dispose()
    before = _snapshot(db_url)
    with pytest.raises(mig.SchemaError, match=r"revision ffffffffffff, .* written by a newer gongzhu"):
        Store(db_url)
    assert _snapshot(db_url) == before
    # gongzhu serve says so in one line and stops.
    assert gongzhu_main(["serve", "--port", "0", "--db", db_url]) == 2
    err = capsys.readouterr().err
    assert "cannot open the database" in err and "newer gongzhu" in err and "Traceback" not in err
    assert _snapshot(db_url) == before


_OPEN_AT_ONCE = """
import sys, time
from pathlib import Path
from gongzhu.server.store import Store
folder, url, me = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
(folder / f"ready-{me}").touch()
while not (folder / "go").exists():
    time.sleep(0.001)
Store(url).close()
"""


@pytest.mark.slow  # four server processes race to migrate
@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_servers_starting_at_once_migrate_once(db_url: str, tmp_path: Path) -> None:
    servers = 4
    procs = [subprocess.Popen([sys.executable, "-c", _OPEN_AT_ONCE, str(tmp_path), db_url, str(i)],
                              stderr=subprocess.PIPE, text=True) for i in range(servers)]
    try:
        while len(list(tmp_path.glob("ready-*"))) < servers and all(p.poll() is None for p in procs):
            time.sleep(0.01)
        (tmp_path / "go").touch()
        errors = [p.communicate(timeout=120)[1] for p in procs]
    finally:
        for p in procs:
            p.kill()
    assert [p.returncode for p in procs] == [0] * servers, errors
    assert revisions_of(db_url) == (mig.HEAD,)
    engine = create_engine(db_url)
    with engine.connect() as c:
        assert list(c.scalars(text("SELECT version_num FROM alembic_version"))) == [mig.HEAD]
        assert set(inspect(c).get_table_names()) == {*METADATA.tables, "alembic_version"}
    engine.dispose()


def test_command_line_works_on_the_package_environment(capsys: pytest.CaptureFixture[str]) -> None:
    migrations_main(["heads"])
    assert capsys.readouterr().out.split() == [mig.HEAD, "(head)"]
    with pytest.raises(SystemExit):
        migrations_main([])


def _at_revision(db_url: str, revision: str) -> Engine:
    """A database made at the head and taken down to ``revision``, and an engine on it (the
    caller disposes of it): rows written there are what an upgrade from ``revision`` finds."""
    Store(db_url).close()
    engine = create_engine(db_url)
    with engine.connect() as c:
        cfg = mig.config()
        cfg.attributes["connection"] = c
        command.downgrade(cfg, revision)
        c.commit()
    return engine


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_practice_is_split_from_the_lifetime_score(db_url: str) -> None:
    """Migration 0009: the deals a person played alone against computers outside a challenge move
    from their lifetime score and deal count to practice; challenges' boards and tables of people
    stay in the lifetime score."""
    engine = _at_revision(db_url, "0008")
    try:
        with engine.begin() as c:
            c.execute(text(
                "INSERT INTO users (id, name, name_key, guest, created, lifetime, deals, matches, pigs, session_epoch) "
                "VALUES ('u-a', 'Ann', 'ann', false, '2026', -1000, 5, 3, 1, 0), "
                "('u-b', 'Bob', 'bob', false, '2026', 40, 1, 1, 0, 0)"))
            matches = (("m-solo", True, None), ("m-board", True, "c-1"), ("m-people", False, None))
            for match_id, solo, challenge in matches:
                c.execute(text(
                    "INSERT INTO matches (id, created, preset, options, levels, speed, seed, totals, deals, in_deal, "
                    "over, winners, pigs, host, solo, seeded, challenge) VALUES (:id, '2026', 'online', '{}', '{}', "
                    "'normal', 1, '[0,0,0,0]', 0, false, false, '[]', '[]', 'u-a', :solo, false, :challenge)"),
                    {"id": match_id, "solo": solo, "challenge": challenge})
            deals = [("m-solo", 0, -700), ("m-solo", 1, -100), ("m-board", 0, -150), ("m-people", 0, -50),
                     ("m-people", 1, 0)]
            for match_id, k, final in deals:
                c.execute(text("INSERT INTO deals (match_id, deal_index, record, south_final) "
                               "VALUES (:m, :k, '{}', :f)"), {"m": match_id, "k": k, "f": final})
    finally:
        engine.dispose()
    store = Store(db_url)  # upgrades to the head
    try:
        with store.engine.connect() as c:
            rows = {r.id: (r.lifetime, r.deals, r.practice, r.practice_deals, r.matches, r.pigs)
                    for r in c.execute(select(USERS))}
    finally:
        store.close()
    assert rows == {"u-a": (-200, 3, -800, 2, 3, 1), "u-b": (40, 1, 0, 0, 1, 0)}


def test_the_look_alike_keys_of_accounts_are_worked_out_again(db_url: str) -> None:
    """Migration 0021: every account's look-alike key is worked out again by today's rules (an
    ``i`` read as ``l`` in any case, Japanese forms folded), so that a new ``BlLL`` is kept apart
    from an ``Bill`` made before; a deleted account's key, and a guest's absence of one, stay."""
    engine = _at_revision(db_url, "0020")
    try:
        with engine.begin() as c:
            c.execute(text(
                "INSERT INTO users (id, name, name_key, name_skeleton, guest, created, deleted, lifetime, deals, "
                "matches, pigs, session_epoch) VALUES "
                "('u-a', 'Bill', 'bill', 'bill', false, '2026', NULL, 0, 0, 0, 0, 0), "
                "('u-b', '剣客', '剣客', '剣客', false, '2026', NULL, 0, 0, 0, 0, 0), "
                "('u-c', 'deleted-1', 'deleted-1', 'kept', true, '2026', '2026', 0, 0, 0, 0, 0), "
                "('u-d', '游客7', '游客7', NULL, true, '2026', NULL, 0, 0, 0, 0, 0)"))
    finally:
        engine.dispose()
    store = Store(db_url)  # upgrades to the head
    try:
        with store.engine.connect() as c:
            looks = {r.id: r.name_skeleton for r in c.execute(select(USERS))}
    finally:
        store.close()
    assert looks == {"u-a": name_skeleton("BlLL"), "u-b": name_skeleton("剑客"), "u-c": "kept", "u-d": None}
    assert looks["u-a"] != "bill"


@pytest.mark.parametrize("db_url", STORES, indirect=True)
def test_the_entries_of_challenges_are_taken_from_their_matches(db_url: str) -> None:
    """Migration 0026: each challenge's entrants are its matches' hosts, each with their first
    match; an entry is a guest's where its person is a guest now or finished a board as one (an
    account that signed up after playing as a guest stays a guest of that challenge); an event's
    table, whose ``challenge`` names no challenge, is nobody's entry."""
    engine = _at_revision(db_url, "0025")
    try:
        with engine.begin() as c:
            c.execute(text(
                "INSERT INTO users (id, name, name_key, guest, created, lifetime, deals, matches, pigs, session_epoch) "
                "VALUES ('u-a', 'Ann', 'ann', false, '2026', 0, 0, 0, 0, 0), "
                "('u-b', 'Bob', 'bob', false, '2026', 0, 0, 0, 0, 0), "
                "('u-g', '游客7', '游客7', true, '2026', 0, 0, 0, 0, 0)"))
            c.execute(text(
                "INSERT INTO challenges (id, kind, title, created, closes, host, preset, options, level, seed, "
                "definition, commitment, par, rated) VALUES ('daily-2026-12-01', 'daily', '2026-12-01', "
                "'2026-12-01T00:00:00+00:00', '2026-12-02T00:00:00+00:00', NULL, 'online', '{}', 'expert', 's', "
                "'{}', 'c', NULL, false)"))
            matches = (("m-a1", "u-a", "daily-2026-12-01", "2026-12-01T01"),
                       ("m-a2", "u-a", "daily-2026-12-01", "2026-12-01T02"),
                       ("m-b", "u-b", "daily-2026-12-01", "2026-12-01T03"),
                       ("m-g", "u-g", "daily-2026-12-01", "2026-12-01T04"),
                       ("m-e", "u-a", "e-1a2b3c4d5e6f", "2026-12-01T05"))
            for match_id, host, challenge, created in matches:
                c.execute(text(
                    "INSERT INTO matches (id, created, preset, options, levels, speed, seed, totals, deals, in_deal, "
                    "over, winners, pigs, host, solo, seeded, challenge) VALUES (:id, :created, 'online', '{}', '{}', "
                    "'normal', 1, '[0,0,0,0]', 0, false, false, '[]', '[]', :host, true, false, :challenge)"),
                    {"id": match_id, "host": host, "challenge": challenge, "created": created})
            c.execute(text(
                "INSERT INTO challenge_results (challenge_id, board, user_id, match_id, deal_index, result, finished, "
                "guest) VALUES ('daily-2026-12-01', 1, 'u-b', 'm-b', 0, -100, '2026-12-01T03', true)"))
    finally:
        engine.dispose()
    store = Store(db_url)  # upgrades to the head
    try:
        with store.engine.connect() as c:
            rows = {r.user_id: (r.challenge_id, r.match_id, r.guest, r.entered)
                    for r in c.execute(select(CHALLENGE_ENTRIES))}
    finally:
        store.close()
    assert rows == {"u-a": ("daily-2026-12-01", "m-a1", False, "2026-12-01T01"),
                    "u-b": ("daily-2026-12-01", "m-b", True, "2026-12-01T03"),
                    "u-g": ("daily-2026-12-01", "m-g", True, "2026-12-01T04")}
