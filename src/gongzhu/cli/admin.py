"""``gongzhu admin``: the site's operators (``docs/moderation.md``), given and taken from the
command line on the server's database.

``gongzhu admin grant NAME`` makes the account ``NAME`` an operator (who may then use the
``/admin`` page and its API), ``revoke NAME`` takes the role away, ``list`` prints every operator.
The database is ``--db URL`` (or ``GONGZHU_DB``, as for ``gongzhu serve``), by default the one
``gongzhu serve`` uses; it must be at this gongzhu's schema already (the command migrates
nothing), and one it cannot open or of another schema ends the command with one line, status 2.
Every grant and revoke is written to the audit log.  What it prints is the message catalog's,
in ``--lang`` (en or zh).  The server modules are imported only when the command runs.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gongzhu.cli.serve import settings_from_environment
from gongzhu.messages import LANGS, render

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "admin",
        help="the site's operators: grant or revoke the role, list who has it",
        description="Give an account the operator's role (moderation: the /admin page), take it away, "
                    "or list the operators, on the server's database (docs/moderation.md).",
    )
    p.add_argument("action", choices=("grant", "revoke", "list"), help="grant NAME, revoke NAME, or list")
    p.add_argument("name", nargs="?", default=None, metavar="NAME", help="the account's name (grant, revoke)")
    p.add_argument("--db", default=None, metavar="URL",
                   help="SQLAlchemy database URL (default: the one gongzhu serve uses, a SQLite file in the "
                        "user's data folder)")
    p.add_argument("--lang", choices=LANGS, default="en", help="language of what it prints (default en)")
    settings_from_environment(p)  # --db from GONGZHU_DB, as the server's own
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    from gongzhu.cli.serve import default_db_url, shown_url
    from gongzhu.server.migrations import SchemaError
    from gongzhu.server.moderation import ModerationError, grant, operators, revoke
    from gongzhu.server.store import Store

    lang: str = args.lang
    if args.action != "list" and not args.name:
        print(render("admin.cli.error", lang, {"why": f"{args.action} NAME"}), file=sys.stderr)
        return 2
    url = args.db or default_db_url()
    try:
        store = Store(url, migrate=False)
    except (SchemaError, SQLAlchemyError) as e:
        why = str(e).splitlines()[0] if isinstance(e, SchemaError) else type(e).__name__
        text = render("admin.cli.no_database", lang, {"url": shown_url(url), "why": why})
        print(render("admin.cli.error", lang, {"why": text}), file=sys.stderr)
        return 2
    try:
        if args.action == "list":
            found = operators(store)
            for name, created in found:
                print(f"{name}\t{created}")
            if not found:
                print(render("admin.cli.none", lang))
            return 0
        change = grant if args.action == "grant" else revoke
        try:
            name, changed = change(store, args.name)
        except ModerationError as e:
            print(render("admin.cli.error", lang, {"why": e.text.render(lang)}), file=sys.stderr)
            return 1
        if args.action == "grant":
            print(render("admin.cli.granted" if changed else "admin.cli.already", lang, {"name": name}))
        else:
            print(render("admin.cli.revoked" if changed else "admin.cli.was_not", lang, {"name": name}))
        return 0
    finally:
        store.close()
