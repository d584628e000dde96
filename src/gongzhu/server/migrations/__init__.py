"""The store's schema migrations (Alembic): the migration environment (``env.py``), the template
of a new revision (``script.py.mako``) and the revisions (``versions/``), shipped with the package
so that an installed server brings its database to the newest schema.

:func:`upgrade` is what :class:`gongzhu.server.store.Store` calls when it opens a database: a
database already at :data:`HEAD` costs one query and no import of Alembic; any other database is
migrated under a lock (the write lock of a SQLite transaction, a PostgreSQL advisory lock), so
that servers starting at once on the same database never both create its tables.  A database
made before the schema was versioned (its tables present, no ``alembic_version`` table) is
recognised as :data:`FIRST`; one written by a newer gongzhu is refused with :class:`SchemaError`
and left as it is.  ``python -m gongzhu.server.migrations`` is Alembic's command line on this
environment (``docs/web-protocol.md``, Persistence).

Imports SQLAlchemy and, lazily, Alembic; ``env.py`` imports :mod:`gongzhu.server.store` (the
tables the revisions must agree with).  Nothing but the store and its tests imports this package.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

if TYPE_CHECKING:
    from alembic.config import Config

__all__ = ["FIRST", "HEAD", "SchemaError", "config", "not_at_head", "revisions", "upgrade"]

#: The first revision: the schema as it was before it was versioned.
FIRST = "0001"
#: The newest revision in ``versions/`` (a test checks it against Alembic's own view).
HEAD = "0030"

#: Where the environment lives (Alembic's ``script_location``).
LOCATION = Path(__file__).parent

#: The key of the PostgreSQL advisory lock held while a database is migrated ("gongzhu").
_LOCK_KEY = int.from_bytes(b"gongzhu", "big")
#: Alembic keeps the running migration's context in module globals: one migration at a time here.
_IN_PROCESS = threading.Lock()


class SchemaError(RuntimeError):
    """The database's schema is one this gongzhu cannot bring to :data:`HEAD`."""


def config(url: str | None = None) -> Config:
    """Alembic's configuration for this environment, without an ``alembic.ini`` (``url``: the
    database the command line works on)."""
    from alembic.config import Config

    cfg = Config(stdout=sys.stdout)
    cfg.set_main_option("script_location", str(LOCATION))
    # New revision files are valid module names, sorted by date.
    cfg.set_main_option("file_template", "r%%(year)d%%(month).2d%%(day).2d_%%(rev)s_%%(slug)s")
    if url is not None:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def revisions(c: Connection) -> tuple[str, ...]:
    """The revisions the database says it is at (none: not versioned)."""
    if not c.dialect.has_table(c, "alembic_version"):
        return ()
    return tuple(sorted(c.scalars(text("SELECT version_num FROM alembic_version"))))


def not_at_head(c: Connection) -> str | None:
    """None when the database is at :data:`HEAD`, else where it is, as a phrase: ``at revision
    0017, not 0018`` (``none`` for a database not versioned)."""
    found = revisions(c)
    return None if found == (HEAD,) else f"at revision {', '.join(found) or 'none'}, not {HEAD}"


def upgrade(engine: Engine) -> None:
    """Bring the database to :data:`HEAD` (see the module docstring).  Raises
    :class:`SchemaError` (nothing changed) for a database of a newer gongzhu."""
    with engine.connect() as c:
        if revisions(c) == (HEAD,):
            return
    _migrate(engine)


def _lock(c: Connection) -> None:
    """Begin the transaction the migration runs in, holding the database's migration lock."""
    backend = c.dialect.name
    if backend == "sqlite":
        # A write transaction at once: a second server waits here for the first to commit.
        c.exec_driver_sql("BEGIN IMMEDIATE")
    else:
        c.begin()
        if backend == "postgresql":
            # A migration waits for another server's (the lock) and may rewrite big tables: the
            # store's bounds on a serving statement (store.POSTGRES_CONNECT) are lifted for it.
            c.exec_driver_sql("SET LOCAL lock_timeout = 0")
            c.exec_driver_sql("SET LOCAL statement_timeout = 0")
            c.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})


def _migrate(engine: Engine) -> None:
    from alembic import command
    from alembic.script import ScriptDirectory

    cfg = config()
    with _IN_PROCESS, engine.connect() as c:
        known = {s.revision for s in ScriptDirectory.from_config(cfg).walk_revisions()}
        _lock(c)
        current = revisions(c)  # again, under the lock: another server may have migrated it
        unknown = [r for r in current if r not in known]
        if unknown:
            raise SchemaError(
                f"the database's schema is at revision {', '.join(unknown)}, which this gongzhu does "
                f"not know (its newest is {HEAD}): it was written by a newer gongzhu; upgrade gongzhu "
                "or use another database")
        cfg.attributes["connection"] = c
        if not current and c.dialect.has_table(c, "matches"):
            command.stamp(cfg, FIRST)  # made before the schema was versioned
        command.upgrade(cfg, "head")
        c.commit()
