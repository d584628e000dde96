"""Alembic's command line on the store's migration environment.

    python -m gongzhu.server.migrations [--db URL] COMMAND ...

e.g. ``revision --autogenerate -m "what changes"`` writes a new revision into ``versions/`` from
the differences between :data:`gongzhu.server.store.METADATA` and a database at the newest
revision; ``history``, ``heads``, ``current``, ``upgrade head``.  Without ``--db`` the commands run
on a new SQLite file first brought to the newest revision (what ``--autogenerate`` compares with).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from alembic.config import CommandLine
from sqlalchemy import create_engine

from gongzhu.server.migrations import config, upgrade


def main(argv: Sequence[str] | None = None) -> None:
    front = argparse.ArgumentParser(add_help=False)
    front.add_argument("--db", default=None, metavar="URL")
    known, rest = front.parse_known_args(argv)
    cli = CommandLine(prog="python -m gongzhu.server.migrations [--db URL]")
    options = cli.parser.parse_args(rest)
    if not hasattr(options, "cmd"):
        cli.parser.error("too few arguments")
    if known.db is not None:
        cli.run_cmd(config(known.db), options)
        return
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'head.db'}"
        engine = create_engine(url)
        try:
            upgrade(engine)
        finally:
            engine.dispose()
        cli.run_cmd(config(url), options)


if __name__ == "__main__":
    main(sys.argv[1:])
