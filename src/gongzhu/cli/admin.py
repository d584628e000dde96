"""``gongzhu admin``: the site's operators (``docs/moderation.md``), given and taken from the
command line on the server's database, and a temporary password for a person who forgot theirs.

``gongzhu admin grant NAME`` makes the account ``NAME`` an operator (who may then use the
``/admin`` page and its API), ``revoke NAME`` takes the role away, ``list`` prints every operator,
``reset-password NAME`` gives the account a new random password, ends every session of it and
prints the password once (``docs/accounts.md``, A forgotten password).  A ``NAME`` missing, or one
given to ``list``, ends the command with its usage and one line (status 2).  The database is
``--db URL`` (or ``GONGZHU_DB``, as for ``gongzhu serve``), by default the one ``gongzhu serve``
uses; it must be at this gongzhu's schema already (the command migrates nothing, and makes no
SQLite file that is not there), and one it cannot open — nothing answers, no such database,
authentication refused, no such file — or of another schema ends the command with one line that
says which, its URL without its password, status 2.  Every grant, revoke and password reset is
written to the audit log.  What it prints is the message catalog's, in ``--lang`` (en or zh).  The
server modules are imported only when the command runs.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gongzhu.cli.serve import settings_from_environment
from gongzhu.messages import LANGS, render

__all__ = ["ACTIONS", "register", "run"]

#: The sub-commands; all but ``list`` take the account's name.
ACTIONS = ("grant", "revoke", "list", "reset-password")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "admin",
        help="the site's operators: grant or revoke the role, list who has it; reset a forgotten password",
        description="Give an account the operator's role (moderation: the /admin page), take it away, "
                    "or list the operators, on the server's database (docs/moderation.md); give an account "
                    "that forgot its password a temporary one, ending its sessions (docs/accounts.md).",
        usage="gongzhu admin {grant,revoke,reset-password} NAME [--db URL] [--lang {zh,en}]\n"
              "       gongzhu admin list [--db URL] [--lang {zh,en}]",
    )
    p.add_argument("action", choices=ACTIONS, help="grant NAME, revoke NAME, list, or reset-password NAME")
    p.add_argument("name", nargs="?", default=None, metavar="NAME",
                   help="the account's name (grant, revoke, reset-password)")
    p.add_argument("--db", default=None, metavar="URL",
                   help="SQLAlchemy database URL (default: GONGZHU_DB, else the one gongzhu serve uses, a SQLite "
                        "file in the user's data folder)")
    p.add_argument("--lang", choices=LANGS, default="en", help="language of what it prints (default en)")
    settings_from_environment(p)  # --db from GONGZHU_DB, as the server's own
    p.set_defaults(run=run, admin_usage=p.format_usage())


def run(args: argparse.Namespace) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    from gongzhu.cli.serve import default_db_url, shown_url
    from gongzhu.server.migrations import SchemaError
    from gongzhu.server.migrations.__main__ import database_problem, missing_sqlite_file
    from gongzhu.server.moderation import ModerationError, grant, operators, reset_password, revoke
    from gongzhu.server.store import Store

    lang: str = args.lang
    usage: str = getattr(args, "admin_usage", "")
    if args.action != "list" and not args.name:
        why = f"{args.action}: the following arguments are required: NAME (the account's name)"
        print(usage + render("admin.cli.error", lang, {"why": why}), file=sys.stderr)
        return 2
    if args.action == "list" and args.name is not None:
        why = f"list takes no NAME: unrecognized argument {args.name!r}"
        print(usage + render("admin.cli.error", lang, {"why": why}), file=sys.stderr)
        return 2
    url = args.db or default_db_url()

    def unusable(why: str) -> int:
        text = render("admin.cli.no_database", lang, {"url": shown_url(url), "why": why})
        print(render("admin.cli.error", lang, {"why": text}), file=sys.stderr)
        return 2

    missing = missing_sqlite_file(url)
    if missing is not None:  # never made here: a mistyped path is said, not created empty
        return unusable(f"the database file {missing} does not exist")
    try:
        store = Store(url, migrate=False)
    except SchemaError as e:
        return unusable(str(e).splitlines()[0])
    except (SQLAlchemyError, ModuleNotFoundError) as e:
        return unusable(database_problem(url, e))
    try:
        if args.action == "list":
            found = operators(store)
            for name, created in found:
                print(f"{name}\t{created}")
            if not found:
                print(render("admin.cli.none", lang))
            return 0
        try:
            if args.action == "reset-password":
                name, password, _ended = reset_password(store, args.name)
                print(render("admin.cli.password", lang, {"name": name, "password": password}))
                return 0
            name, changed = (grant if args.action == "grant" else revoke)(store, args.name)
        except ModerationError as e:
            print(render("admin.cli.error", lang, {"why": e.text.render(lang)}), file=sys.stderr)
            return 1
        if args.action == "grant":
            print(render("admin.cli.granted" if changed else "admin.cli.already", lang, {"name": name}))
        else:
            print(render("admin.cli.revoked" if changed else "admin.cli.was_not", lang, {"name": name}))
        return 0
    except SQLAlchemyError as e:
        return unusable(database_problem(url, e))
    finally:
        store.close()
