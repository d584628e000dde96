"""The operator's commands and what they say (docs/operations.md, docs/deploy.md, Migrations,
docs/moderation.md, docs/accounts.md): ``python -m gongzhu.server.migrations`` on the database of
``--db`` or ``GONGZHU_DB`` (never a stand-in of its own for a command that reads or changes a
database), ``none`` for a database without a revision, the revisions an upgrade applied, and one
line for a database it cannot use; ``gongzhu serve --redis`` refusing what is no Redis URL before
it starts; ``gongzhu admin`` saying why a database cannot be used (refused, no such database,
authentication, no such file — never making one), what is missing or too much on its line, and
giving a person who forgot their password a temporary one; the audit log's ``limit`` refused out
of its range."""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, select
from starlette.testclient import TestClient

from gongzhu.cli import main as cli_main
from gongzhu.cli import serve
from gongzhu.cli.main import main as gongzhu_main
from gongzhu.server import migrations as mig
from gongzhu.server.app import SESSION_RECHECK, create_app
from gongzhu.server.migrations.__main__ import main as migrations_main
from gongzhu.server.moderation import grant
from gongzhu.server.store import AUDIT_LOG, Store
from helpers.client import LOCAL
from helpers.database import revisions_of
from helpers.live import account
from helpers.servers import ServeProcess

PASSWORD = "a quiet tiger 42 at the operator's"
#: The variable that names the database (gongzhu serve's --db).
DB_VARIABLE = "GONGZHU_DB"
#: The most entries of the audit log one request gets (docs/moderation.md).
AUDIT_MAX = 1000
#: A PostgreSQL URL nothing answers at (port 1), with a password that must never be shown.
REFUSED = "postgresql+psycopg://ops:Hunter2@127.0.0.1:1/site"
ROOT = Path(__file__).resolve().parent.parent



def _tables_of(url: str) -> list[str]:
    engine = create_engine(url)
    try:
        with engine.connect() as c:
            return inspect(c).get_table_names()
    finally:
        engine.dispose()


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.fixture
def no_database_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DB_VARIABLE, raising=False)


# ---------------------------------------------------------------------- python -m gongzhu.server.migrations


def test_the_migrations_command_reads_the_servers_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """``GONGZHU_DB`` names the database when ``--db`` is not given — the variable of ``gongzhu
    serve --db`` — and ``upgrade head`` migrates that one and says what it applied."""
    from gongzhu.server.migrations import __main__ as command

    db_option = next(a for a in _parser_of("serve")._actions if "--db" in a.option_strings)
    assert serve.environment_variable(db_option) == command.DB_VARIABLE == DB_VARIABLE
    url = f"sqlite:///{tmp_path / 'site.db'}"
    monkeypatch.setenv(DB_VARIABLE, url)
    assert migrations_main(["upgrade", "head"]) == 0
    out = capsys.readouterr().out
    assert revisions_of(url) == (mig.HEAD,)
    assert f"applied {mig.FIRST} " in out and f"applied {mig.HEAD} " in out
    assert out.strip().splitlines()[-1] == f"the database is at {mig.HEAD} (head) (it was at none)"
    assert migrations_main(["current"]) == 0
    assert capsys.readouterr().out == f"{mig.HEAD} (head)\n"
    assert migrations_main(["upgrade", "head"]) == 0
    assert capsys.readouterr().out == f"nothing to upgrade: the database is at {mig.HEAD} (head)\n"
    # --db wins over the variable
    other = f"sqlite:///{tmp_path / 'other.db'}"
    assert migrations_main(["upgrade", "head", "--db", other]) == 0
    capsys.readouterr()
    assert revisions_of(other) == (mig.HEAD,)


@pytest.mark.postgres
def test_the_migrations_command_upgrades_the_postgresql_database_of_the_variable(
        database: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(DB_VARIABLE, database)
    assert migrations_main(["current"]) == 0
    assert capsys.readouterr().out == "none\n"
    assert migrations_main(["upgrade", "head"]) == 0
    assert f"applied {mig.HEAD} " in capsys.readouterr().out
    assert revisions_of(database) == (mig.HEAD,)


@pytest.mark.parametrize("command", [["current"], ["upgrade", "head"], ["stamp", "head"], ["downgrade", "-1"],
                                     ["history", "-i"]])
def test_commands_on_a_database_need_one(command: list[str], tmp_path: Path, no_database_variable: None,
                                         monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Without ``--db`` or ``GONGZHU_DB`` a command that reads or changes a database ends with
    one line saying how to name it — it never works on a database of its own."""
    monkeypatch.chdir(tmp_path)
    assert migrations_main(command) == 2
    captured = capsys.readouterr()
    line = _one_line(captured.err)
    assert "--db URL" in line and DB_VARIABLE in line and command[0] in line
    assert captured.out == "" and list(tmp_path.iterdir()) == []


def test_current_says_none_and_upgrade_and_downgrade_say_what_they_did(
        tmp_path: Path, no_database_variable: None, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).close()
    url = f"sqlite:///{empty}"
    assert migrations_main(["current", "--db", url]) == 0
    assert capsys.readouterr().out == "none\n"
    assert migrations_main(["upgrade", "head", "--db", url]) == 0
    applied = [line.split()[1] for line in capsys.readouterr().out.splitlines() if line.startswith("applied ")]
    assert applied[0] == mig.FIRST and applied[-1] == mig.HEAD and len(applied) == int(mig.HEAD)
    assert migrations_main(["downgrade", "-1", "--db", url]) == 0
    out = capsys.readouterr().out.splitlines()
    before = f"{int(mig.HEAD) - 1:04d}"
    assert out[0].startswith(f"undid {mig.HEAD} ") and out[-1] == f"the database is at {before} (it was at {mig.HEAD})"
    assert migrations_main(["current", "--db", url]) == 0
    assert capsys.readouterr().out.strip() == before


def test_a_database_the_migrations_command_cannot_use_is_one_line(
        tmp_path: Path, no_database_variable: None, capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing answers, a SQLite file that is not there (only ``upgrade`` makes one), a URL that
    is none: one line naming the database without its password, status 2."""
    assert migrations_main(["current", "--db", REFUSED]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "Hunter2" not in line and "ops:***@127.0.0.1:1/site" in line and "refused" in line
    assert migrations_main(["upgrade", "head", "--db", REFUSED]) == 2
    assert "refused" in _one_line(capsys.readouterr().err)
    missing = tmp_path / "typo.db"
    assert migrations_main(["current", "--db", f"sqlite:///{missing}"]) == 2
    assert f"{missing} does not exist" in _one_line(capsys.readouterr().err)
    assert not missing.exists()
    assert migrations_main(["current", "--db", "no such thing"]) == 2
    assert "not a database URL" in _one_line(capsys.readouterr().err)


def test_the_migrations_help_names_the_database_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        migrations_main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert re.search(r"^  --db URL\s", out, re.MULTILINE) and DB_VARIABLE in out


def test_autogenerate_without_a_database_keeps_its_own(tmp_path: Path, no_database_variable: None,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """``check`` (what ``revision --autogenerate`` compares) still runs on a new SQLite file at
    the newest revision when no database is named: the tables agree with the revisions."""
    assert migrations_main(["check"]) == 0
    assert "No new upgrade operations detected" in capsys.readouterr().out


# ---------------------------------------------------------------------- gongzhu serve --redis


def _parser_of(command: str) -> argparse.ArgumentParser:
    parser = cli_main.build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found: argparse.ArgumentParser = subparsers.choices[command]
    return found


def _serve(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "gongzhu.cli.main", "serve", "--port", "0",
                           "--db", f"sqlite:///{tmp_path / 'site.db'}", *args],
                          capture_output=True, text=True, timeout=120, env=environment, cwd=tmp_path)


def test_serve_refuses_a_redis_address_that_is_no_url(tmp_path: Path) -> None:
    """``--redis 127.0.0.1:6379`` (no scheme) is refused before the server starts: the option
    named on one line, status 2, as for the other bad options — from the command line or from
    ``GONGZHU_REDIS``."""
    done = _serve(tmp_path, "--redis", "127.0.0.1:6379")
    assert done.returncode == 2, done.stderr
    assert "open http" not in done.stdout and "Traceback" not in done.stderr
    assert "argument --redis: '127.0.0.1:6379' is not a Redis URL" in done.stderr.splitlines()[-1]
    done = _serve(tmp_path, env={"GONGZHU_REDIS": "redis://:Secret7@127.0.0.1:six/0"})
    assert done.returncode == 2, done.stderr
    line = _one_line(done.stderr)
    assert line.startswith("gongzhu serve: GONGZHU_REDIS=") and "port" in line and "open http" not in done.stdout
    assert "Secret7" not in done.stderr


def test_serve_takes_every_form_of_redis_url() -> None:
    parser = _parser_of("serve")
    for url in ("redis://127.0.0.1:6379/0", "redis://redis:6379", "rediss://:pw@cache.example.org:6380/2",
                "unix:///run/redis/redis.sock"):
        assert parser.parse_args(["--redis", url]).redis == url


# ---------------------------------------------------------------------- gongzhu admin


def test_admin_says_why_a_database_cannot_be_used(tmp_path: Path, no_database_variable: None,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert gongzhu_main(["admin", "list", "--db", REFUSED]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "refused" in line and "Hunter2" not in line and "ops:***@" in line
    typo = tmp_path / "typo.db"
    assert gongzhu_main(["admin", "list", "--db", f"sqlite:///{typo}"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert f"the database file {typo} does not exist" in line and "gongzhu serve" not in line
    assert not typo.exists()


@pytest.mark.postgres
def test_admin_names_a_missing_database_and_a_refused_user(database: str, no_database_variable: None,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    from sqlalchemy import make_url

    url = make_url(database)
    nowhere = url.set(database=f"{url.database}_not_made", password="Hunter2").render_as_string(hide_password=False)
    assert gongzhu_main(["admin", "list", "--db", nowhere]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "no such database" in line and "does not exist" in line and "Hunter2" not in line
    stranger = url.set(username="nobody_of_gongzhu", password="Hunter2").render_as_string(hide_password=False)
    assert gongzhu_main(["admin", "list", "--db", stranger]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "authentication failed" in line and "nobody_of_gongzhu" in line and "Hunter2" not in line


def test_admin_says_what_is_missing_or_too_much(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'site.db'}"
    Store(url).close()
    for action in ("grant", "revoke", "reset-password"):
        assert gongzhu_main(["admin", action, "--db", url]) == 2
        err = capsys.readouterr().err
        assert err.startswith("usage: gongzhu admin")
        assert f"{action}: the following arguments are required: NAME" in err.splitlines()[-1]
    assert gongzhu_main(["admin", "list", "extra", "--db", url]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("usage: gongzhu admin")
    assert "list takes no NAME" in captured.err and "'extra'" in captured.err


def _browser(app: Any) -> TestClient:
    """A browser of its own (the application's lifespan runs in the test's one ``with`` client)."""
    browser = TestClient(app, base_url=LOCAL)
    browser.get("/api/me")
    return browser


def _sign_up(app: Any, name: str) -> TestClient:
    browser = _browser(app)
    r = browser.post("/api/account", json={"name": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    return browser


def _sign_in(app: Any, name: str, password: str) -> tuple[int, TestClient]:
    browser = _browser(app)
    return browser.post("/api/login", json={"name": name, "password": password}).status_code, browser


def test_a_forgotten_password_is_reset_from_the_command_line(tmp_path: Path, no_database_variable: None,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """``gongzhu admin reset-password NAME``: a new random password, printed once; the old one
    no longer signs in, the new one does; every session of the account ends (as when its person
    changes the password); an audit entry, operator "command line"."""
    url = f"sqlite:///{tmp_path / 'site.db'}"
    app = create_app(url, pace=0, static_dir=tmp_path / "no-static")
    with TestClient(app, base_url=LOCAL) as guest:
        guest_name = guest.get("/api/me").json()["name"]
        first, op = _sign_up(app, "Ann"), _sign_up(app, "Op")
        second = _sign_in(app, "ann", PASSWORD)[1]
        assert grant(app.state.store, "Op") == ("Op", True)
        assert first.get("/api/me").json()["name"] == second.get("/api/me").json()["name"] == "Ann"

        assert gongzhu_main(["admin", "reset-password", "ANN", "--db", url]) == 0
        out = capsys.readouterr().out
        found = re.search(r"^Ann's temporary password: (\S+)$", out, re.MULTILINE)
        assert found is not None, out
        temporary = found.group(1)
        assert re.fullmatch(r"[a-z2-9]{4}(-[a-z2-9]{4}){3}", temporary) and "change it" in out

        for browser in (first, second):  # every session of Ann's ended
            me = browser.get("/api/me").json()
            assert me["name"] != "Ann" and me["guest"], me
        assert _sign_in(app, "Ann", PASSWORD)[0] == 401
        code, again = _sign_in(app, "Ann", temporary)
        assert code == 200 and again.get("/api/me").json()["name"] == "Ann"
        # the person changes it at once, as the command says
        changed = again.post("/api/account/password", json={"current": temporary, "new": PASSWORD + "!"})
        assert changed.status_code == 200, changed.text

        entries = op.get("/api/admin/audit").json()["entries"]
        reset = [e for e in entries if e["action"] == "reset-password"]
        assert [(e["operator"], e["target"]) for e in reset] == [(None, "Ann")]

        assert gongzhu_main(["admin", "reset-password", guest_name, "--db", url]) == 1
        assert "is a guest" in capsys.readouterr().err
        assert gongzhu_main(["admin", "reset-password", "Nobody", "--db", url]) == 1
        assert "no player with an account named" in capsys.readouterr().err
    store = Store(url)
    try:
        with store.engine.connect() as c:
            rows = c.execute(select(AUDIT_LOG.c.action, AUDIT_LOG.c.operator).order_by(AUDIT_LOG.c.id)).all()
    finally:
        store.close()
    assert [tuple(r) for r in rows] == [("grant", None), ("reset-password", None)]


def test_a_reset_password_closes_the_open_table_pages_of_a_single_server(tmp_path: Path,
                                                                          no_database_variable: None) -> None:
    """A single ``gongzhu serve`` (no Redis), which the command cannot reach: the account's open
    table page is told its session ended and closed all the same, within a few seconds (every
    server checks its connections' sessions on the database)."""
    with ServeProcess(tmp_path / "serve") as server:
        ann = account(server, "Ann")
        table_id = ann.http.post("/api/tables", json={"visibility": "private"}).json()["table_id"]
        page = ann.connect(table_id)
        page.until(lambda s: s["phase"] == "waiting")
        assert gongzhu_main(["admin", "reset-password", "Ann", "--db", server.db]) == 0
        page.closed_for_the_session(timeout=4 * SESSION_RECHECK)
        assert ann.http.get("/api/me").json()["guest"]


# ---------------------------------------------------------------------- the audit log's limit


def test_the_audit_logs_limit_is_refused_out_of_its_range(tmp_path: Path) -> None:
    """``GET /api/admin/audit?limit=N``: N from 1 to AUDIT_MAX entries, newest first; anything
    else is refused 400 saying the range (never the default instead)."""
    url = f"sqlite:///{tmp_path / 'site.db'}"
    app = create_app(url, pace=0, static_dir=tmp_path / "no-static")
    with TestClient(app, base_url=LOCAL):
        op = _sign_up(app, "Op")
        assert grant(app.state.store, "Op") == ("Op", True)
        for name in ("Ann", "Bob", "Cy"):
            _sign_up(app, name)
            grant(app.state.store, name)
        assert len(op.get("/api/admin/audit").json()["entries"]) == 4
        assert [e["target"] for e in op.get("/api/admin/audit?limit=2").json()["entries"]] == ["Cy", "Bob"]
        assert len(op.get(f"/api/admin/audit?limit={AUDIT_MAX}").json()["entries"]) == 4
        for given in ("5000", "0", "abc", "-1", "", "2.5", str(AUDIT_MAX + 1)):
            r = op.get("/api/admin/audit", params={"limit": given})
            assert r.status_code == 400, (given, r.text)
            assert r.json() == {"error": f"limit={json.dumps(given)}: a number of entries from 1 to {AUDIT_MAX}"}
