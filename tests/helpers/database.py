"""Databases of the tests' own: a throwaway PostgreSQL server, and :data:`STORES`, the stores a
server test runs on (the fixtures ``postgres_server``, ``pg_url`` and ``db_url`` in
``tests/conftest.py`` make them), and :func:`revisions_of`, the migration revisions a database is at."""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

__all__ = ["STORES", "ThrowawayPostgres", "revisions_of"]

#: The stores a server test can run on: ``@pytest.mark.parametrize("db_url", STORES, indirect=True)``
#: runs it on a SQLite file and on a throwaway PostgreSQL (marked ``postgres``).
STORES = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]

_pg_servers = itertools.count()
_pg_databases = itertools.count()


def _pg_bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


class ThrowawayPostgres:
    """A PostgreSQL server of the tests' own: ``initdb`` + ``pg_ctl`` of the machine's
    PostgreSQL, listening on a Unix socket in a temporary folder only, run as the ``postgres``
    user when the tests run as root.  :meth:`stop` and :meth:`start` restart it; :meth:`remove`
    stops it and deletes its files."""

    def __init__(self) -> None:
        initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
        if initdb is None or pg_ctl is None:
            if os.environ.get("CI"):
                pytest.fail("PostgreSQL (initdb, pg_ctl) is not installed; .ci/run installs it")
            pytest.skip("PostgreSQL is not installed")
        self._pg_ctl = pg_ctl
        self._as_user: list[str] = []
        self.root = Path(tempfile.mkdtemp(prefix="gongzhu-pg-"))
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            self._as_user = ["runuser", "-u", "postgres", "--"]
            shutil.chown(self.root, "postgres")
        self.data, self.socket = self.root / "data", str(self.root)
        self.port = 5400 + (os.getpid() + next(_pg_servers)) % 500
        subprocess.run([*self._as_user, initdb, "-D", str(self.data), "-U", "gongzhu", "--auth=trust", "-E", "UTF8"],
                       check=True, capture_output=True)
        self.start()

    def start(self) -> None:
        options = f"-c listen_addresses='' -k {self.socket} -p {self.port} -c fsync=off"
        subprocess.run([*self._as_user, self._pg_ctl, "-D", str(self.data), "-o", options, "-w",
                        "-l", str(self.root / "log"), "start"], check=True, capture_output=True)

    def stop(self, mode: str = "fast") -> None:
        subprocess.run([*self._as_user, self._pg_ctl, "-D", str(self.data), "-m", mode, "-w", "stop"],
                       capture_output=True)

    def remove(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def new_database(self) -> str:
        """A fresh, empty database on this server, as a SQLAlchemy URL."""
        import psycopg

        name = f"gongzhu_test_{next(_pg_databases)}"
        with psycopg.connect(host=self.socket, port=self.port, user="gongzhu", dbname="postgres",
                             autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return f"postgresql+psycopg://gongzhu@/{name}?host={self.socket}&port={self.port}"


#: The machine's PostgreSQL server (its user may create databases) and Redis, which the cluster
#: tests share (tests/README.md).
SHARED_PG = os.environ.get("GONGZHU_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
REDIS = os.environ.get("GONGZHU_TEST_REDIS", "redis://127.0.0.1:6379/0")


def service_missing(why: str) -> None:
    """A service a test needs is not there: a failure under CI (which starts it), else a skip."""
    if os.environ.get("CI"):
        pytest.fail(f"{why}; .ci/run starts PostgreSQL and Redis")
    pytest.skip(why)


def revisions_of(url: str) -> tuple[str, ...]:
    """The migration revisions the database of ``url`` is at (``()``: none), read on a
    connection of its own."""
    from sqlalchemy import create_engine

    from gongzhu.server.migrations import revisions

    engine = create_engine(url)
    try:
        with engine.connect() as c:
            return revisions(c)
    finally:
        engine.dispose()
