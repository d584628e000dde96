"""Alembic's command line on the store's migration environment.

    python -m gongzhu.server.migrations [--db URL] COMMAND ...

The database is ``--db URL``, else the variable ``GONGZHU_DB`` (:data:`DB_VARIABLE`, the one
``gongzhu serve`` reads for its own ``--db``).  The commands that read or change a database
(``current``, ``upgrade``, ``downgrade``, ``stamp``, ``ensure_version``, ``history -i``) need
one: without it they end with one line, status 2.  ``current`` prints ``none`` for a database
without a revision; ``upgrade``, ``downgrade`` and ``stamp`` print the revisions they applied or
undid and where the database is now.  ``upgrade head`` migrates as a server opening the database
does (:func:`gongzhu.server.migrations.upgrade`: under the migration lock, a database from before
the schema was versioned taken as its first revision, one of a newer gongzhu refused).  A database
that cannot be used — nothing answers, no such database, authentication refused, a SQLite file
that does not exist (only ``upgrade`` makes a new one), a revision this gongzhu does not know —
ends the command with one line naming it, its URL shown without its password (status 2).

``revision --autogenerate -m "what changes"`` writes a new revision into ``versions/`` from the
differences between :data:`gongzhu.server.store.METADATA` and a database at the newest revision:
without a database it (and ``check``) runs on a new SQLite file first brought to the newest
revision.  ``history``, ``heads`` and the other commands on the revisions alone need no database.

Imports SQLAlchemy and, when the command runs, Alembic and the store's migration environment.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import create_engine, make_url
from sqlalchemy.engine import Engine
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, SQLAlchemyError

from gongzhu.server.migrations import FIRST, HEAD, SchemaError, config, revisions, upgrade

if TYPE_CHECKING:
    from alembic.config import Config

__all__ = ["DB_VARIABLE", "database_problem", "main", "shown_url"]

PROG = "python -m gongzhu.server.migrations"
#: The environment variable that names the database when ``--db`` is not given: the variable of
#: ``gongzhu serve --db`` (``GONGZHU_`` and the option's name in capitals).
DB_VARIABLE = "GONGZHU_DB"
#: Alembic's commands that read or change the database itself.
ON_A_DATABASE = frozenset({"current", "upgrade", "downgrade", "stamp", "ensure_version"})
#: The commands that compare the tables with a database at the newest revision: without a
#: database, a new SQLite file brought there.
COMPARING = frozenset({"revision", "check"})
#: Commands that may make a database that is not there yet (a new SQLite file).
MAKING = frozenset({"upgrade"})


class _Unusable(Exception):
    """The database cannot be used: the command ends with one line, status 2."""


def shown_url(url: str) -> str:
    """A database URL as the command shows it: its password, if any, as ``***``."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(not a database URL)"


def _driver_line(error: BaseException) -> str:
    """The driver's own message of ``error``, in one line."""
    original = error.orig if isinstance(error, DBAPIError) and error.orig is not None else error
    lines = [line.strip() for line in str(original).splitlines() if line.strip()]
    line = lines[0] if lines else type(original).__name__
    return line.removeprefix("connection failed: ")


def database_problem(url: str, error: BaseException) -> str:
    """Why the database ``url`` cannot be used, in one line that never shows its password: the
    connection refused (nothing answers there), no such database, authentication refused, a
    SQLite file that cannot be opened, a URL that is none, a driver that is not installed, or
    else the driver's own first line."""
    if isinstance(error, NoSuchModuleError):
        why = f"no such kind of database: {str(error).split(':')[-1].strip()} (postgresql+psycopg, sqlite ...)"
    elif isinstance(error, ArgumentError):
        why = "give a SQLAlchemy URL such as sqlite:////srv/gongzhu/gongzhu.db or postgresql+psycopg://user:password@host/name"
    elif isinstance(error, ModuleNotFoundError):
        why = f"its driver is not installed (no module {error.name}): pip install 'gongzhu[cluster]'"
    else:
        line = _driver_line(error)
        detail = line.split("FATAL:", 1)[-1].strip()
        lower = line.lower()
        if "connection refused" in lower:
            why = f"the connection was refused, nothing answers there ({line})"
        elif "database" in lower and "does not exist" in lower:
            why = f"no such database ({detail})"
        elif any(words in lower for words in ("authentication", "password", "role ")):
            why = f"authentication failed ({detail})"
        elif "unable to open database file" in lower:
            why = "cannot open the SQLite file (does its folder exist, may this user write there?)"
        elif "timeout" in lower or "timed out" in lower:
            why = f"no answer in time ({line})"
        else:
            why = line
    try:
        password = make_url(url).password
    except ArgumentError:
        password = None
    if password:
        why = why.replace(str(password), "***")
    return why


def missing_sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL when it does not exist (None: it does, or the URL names no file)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return None
    name = parsed.database
    if parsed.get_backend_name() != "sqlite" or name in (None, "", ":memory:") or str(name).startswith("file:"):
        return None
    path = Path(str(name))
    return None if path.exists() else path


def main(argv: Sequence[str] | None = None) -> int:
    from alembic.config import CommandLine
    from alembic.util import CommandError

    front = argparse.ArgumentParser(add_help=False)
    front.add_argument("--db", default=None, metavar="URL")
    known, rest = front.parse_known_args(argv)
    cli = CommandLine(prog=PROG)
    cli.parser.add_argument(
        "--db", metavar="URL",
        help=f"the database, a SQLAlchemy URL (anywhere on the line; default: the variable {DB_VARIABLE}, as for "
             "gongzhu serve). current, upgrade, downgrade, stamp and history -i need one; without one, revision "
             "--autogenerate and check compare with a new SQLite file at the newest revision")
    cli.parser.epilog = (
        f"e.g. {PROG} upgrade head --db 'postgresql+psycopg://gongzhu:SECRET@db/gongzhu'; "
        f"{PROG} current (with {DB_VARIABLE} set). The -c/--config and -n/--name options are not used: the "
        "configuration is built in code.")
    options = cli.parser.parse_args(rest)
    if not hasattr(options, "cmd"):
        cli.parser.error("too few arguments")
    options.raiseerr = True  # Alembic's own failures end with one line below
    command: str = options.cmd[0].__name__
    url: str | None = known.db or os.environ.get(DB_VARIABLE, "").strip() or None
    needs_database = command in ON_A_DATABASE or (command == "history" and getattr(options, "indicate_current", False))
    if url is None and needs_database:
        _say(f"{command} works on a database: give it with --db URL or the variable {DB_VARIABLE}")
        return 2
    try:
        if url is None and command in COMPARING:
            with _at_head() as head_url:
                cli.run_cmd(config(head_url), options)
            return 0
        if url is None or not needs_database:
            cli.run_cmd(config(url), options)
            return 0
        return _on_a_database(cli, options, command, url)
    except _Unusable as e:
        _say(f"{command}: {e}")
        return 2
    except CommandError as e:
        _say(f"{command}: {' '.join(str(e).split())}")
        return 2
    except (SQLAlchemyError, ModuleNotFoundError, SchemaError) as e:
        shown = f" {shown_url(url)}" if url is not None else ""
        why = str(e).splitlines()[0] if isinstance(e, SchemaError) else database_problem(url or "", e)
        _say(f"{command}: cannot use the database{shown}: {why}")
        return 2


def _say(line: str) -> None:
    print(f"{PROG}: {line}", file=sys.stderr)


@contextmanager
def _at_head() -> Iterator[str]:
    """A new SQLite file at the newest revision, deleted afterwards: its URL."""
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'head.db'}"
        engine = create_engine(url)
        try:
            upgrade(engine)
        finally:
            engine.dispose()
        yield url


def _on_a_database(cli: Any, options: argparse.Namespace, command: str, url: str) -> int:
    """Run ``command`` on the database ``url`` and say what it did."""
    missing = missing_sqlite_file(url)
    if missing is not None and command not in MAKING:
        raise _Unusable(f"the database file {missing} does not exist")
    cfg = config(url)
    if getattr(options, "sql", False):  # offline: the SQL is printed, nothing is connected to
        cli.run_cmd(cfg, options)
        return 0
    engine = create_engine(url)
    try:
        before, unversioned = _revisions(engine)
        if command == "current":
            return _current(cli, cfg, options, before)
        if command == "upgrade" and options.revision == "head":
            if unversioned:
                print(f"a database from before the schema was versioned: taken as {FIRST}")
                before = (FIRST,)
            upgrade(engine)
        else:
            cli.run_cmd(cfg, options)
        after = _revisions(engine)[0]
    finally:
        engine.dispose()
    if command in ("upgrade", "downgrade", "stamp"):
        _changes(cfg, command, before, after)
    return 0


def _revisions(engine: Engine) -> tuple[tuple[str, ...], bool]:
    """The database's revisions, and whether it holds the tables without a revision (a database
    made before the schema was versioned)."""
    with engine.connect() as c:
        found = revisions(c)
        return found, not found and c.dialect.has_table(c, "matches")


def _current(cli: Any, cfg: Config, options: argparse.Namespace, before: tuple[str, ...]) -> int:
    """``current``: Alembic's answer, ``none`` for a database without a revision, and a line for
    a revision this gongzhu does not know."""
    from alembic.script import ScriptDirectory

    if not before:
        print("none")
        return 0
    known = {s.revision for s in ScriptDirectory.from_config(cfg).walk_revisions()}
    unknown = [r for r in before if r not in known]
    if unknown:
        for revision in before:
            print(revision if revision in known else
                  f"{revision} (not a revision this gongzhu knows, whose newest is {HEAD}: written by a newer gongzhu)")
        return 0
    cli.run_cmd(cfg, options)
    return 0


def _changes(cfg: Config, command: str, before: tuple[str, ...], after: tuple[str, ...]) -> None:
    """Say which revisions ``command`` applied (or undid, or stamped) and where the database is now."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(cfg)

    def chain(found: tuple[str, ...]) -> list[Any]:
        """The revisions up to where the database is, newest first (none for a database at none
        or at several)."""
        return list(script.iterate_revisions(found[0], "base")) if len(found) == 1 else []

    now, was = chain(after), chain(before)
    went_up = [r for r in reversed(now) if r.revision not in {w.revision for w in was}]
    went_down = [r for r in was if r.revision not in {n.revision for n in now}]

    def line(revision: Any) -> str:
        doc = (revision.doc or "").strip().splitlines()
        return f"{revision.revision}  {doc[0] if doc else ''}".rstrip()

    stamped = command == "stamp"
    for revision in went_up:
        print(f"{'stamped' if stamped else 'applied'} {line(revision)}")
    for revision in went_down:
        print(f"{'unstamped' if stamped else 'undid'} {line(revision)}")
    at = (", ".join(after) or "none") + (" (head)" if after == (HEAD,) else "")
    if after == before:
        print(f"nothing to {command}: the database is at {at}")
    else:
        print(f"the database is at {at} (it was at {', '.join(before) or 'none'})"
              + ("; stamp runs no migration" if stamped else ""))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
