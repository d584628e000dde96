"""The browser game's persistence on a real PostgreSQL server (``--db`` takes any
SQLAlchemy URL; SQLite is only the embedded default).

A throwaway PostgreSQL cluster is started for the session (``initdb`` + ``pg_ctl`` of the
machine's PostgreSQL, listening on a Unix socket in a temporary folder only, run as the
``postgres`` user when the tests run as root); each test gets a fresh database.  The same
server tests that run on SQLite then run here: a whole match over the WebSocket with its scores,
records and lifetime score, refusals that change nothing, and a restart mid-deal that resumes.
Without PostgreSQL installed the tests are skipped, except under CI (``CI`` set), where that is
a failure: ``.ci/run`` installs it.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

import test_server
from conftest import local_client
from gongzhu.server import create_app
from gongzhu.server.store import Store

pytestmark = pytest.mark.postgres


def _pg_bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


@pytest.fixture(scope="session")
def postgres_socket() -> Iterator[tuple[str, int]]:
    """A running throwaway PostgreSQL server: (socket folder, port)."""
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if initdb is None or pg_ctl is None:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL (initdb, pg_ctl) is not installed; .ci/run installs it")
        pytest.skip("PostgreSQL is not installed")
    as_user: list[str] = []
    root = Path(tempfile.mkdtemp(prefix="gongzhu-pg-"))
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        as_user = ["runuser", "-u", "postgres", "--"]
        shutil.chown(root, "postgres")
    data, sock = root / "data", root
    port = 5400 + os.getpid() % 500
    subprocess.run([*as_user, initdb, "-D", str(data), "-U", "gongzhu", "--auth=trust", "-E", "UTF8"],
                   check=True, capture_output=True)
    options = f"-c listen_addresses='' -k {sock} -p {port} -c fsync=off"
    subprocess.run([*as_user, pg_ctl, "-D", str(data), "-o", options, "-w", "-l", str(root / "log"), "start"],
                   check=True, capture_output=True)
    try:
        yield str(sock), port
    finally:
        subprocess.run([*as_user, pg_ctl, "-D", str(data), "-m", "immediate", "stop"], capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


_count = iter(range(10_000))


@pytest.fixture
def pg_url(postgres_socket: tuple[str, int]) -> str:
    """A fresh, empty database on the throwaway server, as a SQLAlchemy URL."""
    import psycopg

    sock, port = postgres_socket
    name = f"gongzhu_test_{next(_count)}"
    with psycopg.connect(host=sock, port=port, user="gongzhu", dbname="postgres", autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return f"postgresql+psycopg://gongzhu@/{name}?host={sock}&port={port}"


@pytest.fixture
def pg_client(pg_url: str, tmp_path: Path) -> Iterator[TestClient]:
    with local_client(create_app(pg_url, pace=0, hint_think=0.05, static_dir=tmp_path / "no-static")) as c:
        yield c


def test_the_store_is_on_postgresql(pg_url: str) -> None:
    store = Store(pg_url)
    try:
        assert store.engine.dialect.name == "postgresql"
        assert store.matches() == [] and store.profile().lifetime == 0
    finally:
        store.close()


@pytest.mark.parametrize(("preset", "overrides"), [("online", {}), ("online2", {"exposure": "hidden"})], ids=str)
def test_whole_match_on_postgresql(pg_client: TestClient, preset: str, overrides: dict[str, Any]) -> None:
    test_server.test_whole_match_over_websocket(pg_client, preset, overrides)


def test_refusals_change_nothing_on_postgresql(pg_client: TestClient) -> None:
    test_server.test_malformed_and_illegal_messages_change_nothing(pg_client)


def test_restart_resumes_the_match_on_postgresql(pg_url: str, tmp_path: Path) -> None:
    test_server.test_restart_resumes_the_match(pg_url, tmp_path)


def test_two_tables_and_the_lifetime_title_on_postgresql(pg_client: TestClient) -> None:
    test_server.test_two_tables_and_the_lifetime_title(pg_client)
