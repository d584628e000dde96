"""Alembic's migration environment for the store (:mod:`gongzhu.server.migrations`).

Run by Alembic only.  With a connection in ``config.attributes["connection"]`` (the store's
:func:`~gongzhu.server.migrations.upgrade`, inside its locked transaction) it migrates on it;
otherwise on the ``sqlalchemy.url`` of the command line (``python -m gongzhu.server.migrations``).
The target is :data:`gongzhu.server.store.METADATA`, what ``revision --autogenerate`` compares the
database with.  Batch operations are rendered so that column changes also work on SQLite.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine
from sqlalchemy.engine import Connection

from gongzhu.server.store import METADATA


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=METADATA, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def _main() -> None:
    config = context.config
    given: Connection | None = config.attributes.get("connection")
    if given is not None:
        _run(given)
        return
    url = config.get_main_option("sqlalchemy.url")
    if context.is_offline_mode():
        context.configure(url=url, target_metadata=METADATA, render_as_batch=True, literal_binds=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    if url is None:
        raise SystemExit("no database: give one with --db URL")
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            _run(connection)
            connection.commit()
    finally:
        engine.dispose()


_main()
