"""``gongzhu serve`` as a person starts it: a real server process on a loopback port, answering
HTTP until it is stopped (benchmarks/server.py measures how soon it answers)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from email.message import Message
from pathlib import Path

import pytest
from sqlalchemy import make_url
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from gongzhu.cli import main as cli_main
from gongzhu.cli import serve
from gongzhu.server.identity import COOKIE
from helpers.servers import ServeProcess


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=2) as response:
        body: bytes = response.read()
        return body


def test_serve_starts_prints_the_address_and_answers(tmp_path: Path) -> None:
    db = tmp_path / "nested" / "folder" / "g.db"
    started = time.perf_counter()
    server = ServeProcess(tmp_path, db=f"sqlite:///{db}")  # back once it has printed its address and answers
    try:
        print(f"gongzhu serve: answering after {(time.perf_counter() - started) * 1000:.0f} ms")
        assert server.out_path.read_text().startswith("gongzhu: open http://127.0.0.1:")  # its first line
        base = server.url
        config = json.loads(_get(base + "api/config"))
        assert "online" in config["presets"]
        request = urllib.request.Request(base + "api/matches", data=b'{"seed": 1, "speed": "instant"}',
                                         method="POST", headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=2) as response:
            assert response.status == 201
            match_id = json.loads(response.read())["match_id"]
            session = _session(response.headers)
        assert db.is_file()
        ws_url = base.replace("http", "ws", 1) + f"ws/{match_id}"
        # Without the session cookie the HTTP answer set, the table is not South's to open.
        with connect(ws_url, open_timeout=5) as ws:
            refused = json.loads(ws.recv(timeout=5))
            assert refused["type"] == "error" and refused["code"] == "server.no_session"
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
        # The WebSocket through uvicorn's own stack: the table, a refusal, an exposure.
        with connect(ws_url, additional_headers=session, open_timeout=5) as ws:
            first = json.loads(ws.recv(timeout=5))
            state = first["state"]
            assert first["type"] == "state" and first["v"] == state["v"]
            assert state["phase"] == "expose" and len(state["hand"]) == 13 and state["seat"] == "S"
            ws.send("{}")
            while (message := json.loads(ws.recv(timeout=5)))["type"] == "state":
                state = message["state"]  # the computer players declare meanwhile
            assert message["type"] == "error"
            ws.send(json.dumps({"type": "expose", "cards": []}))
            while state["phase"] == "expose" or state["turn"] != "S":
                message = json.loads(ws.recv(timeout=10))
                if message["type"] == "state":
                    state = message["state"]
            assert state["legal"]
            sent = time.perf_counter()
            ws.send(json.dumps({"type": "play", "cards": state["legal"][0]}))
            first = json.loads(ws.recv(timeout=5))
            print(f"gongzhu serve: first reply to a play after {(time.perf_counter() - sent) * 1000:.1f} ms")
            assert first == {"type": "played", "v": first["v"], "seat": "S", "cards": state["legal"][0]}
            assert first["v"] > state["v"]
    finally:
        server.stop()


def test_serve_is_a_command() -> None:
    assert "serve" in cli_main.COMMANDS
    args = cli_main.build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.db) == ("127.0.0.1", 8000, None)
    assert (args.allowed_origin, args.allowed_host) == ([], [])


def test_default_database_is_in_the_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert serve.default_db_url() == f"sqlite:///{tmp_path / 'data' / 'gongzhu' / 'gongzhu.db'}"
    assert (tmp_path / "data" / "gongzhu").is_dir()
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert serve.default_db_url() == f"sqlite:///{tmp_path / 'home' / '.local' / 'share' / 'gongzhu' / 'gongzhu.db'}"


def test_serve_reports_a_port_in_use(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        args = argparse.Namespace(host="127.0.0.1", port=port, db=f"sqlite:///{tmp_path / 'g.db'}",
                                  allowed_origin=[], allowed_host=[], redis=None)
        assert serve.run(args) == 2
    assert "cannot listen" in capsys.readouterr().err


def test_serve_reports_a_bad_database(capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(host="127.0.0.1", port=0, db="nosuchdb://x", allowed_origin=[], allowed_host=[])
    assert serve.run(args) == 2
    assert "cannot open the database" in capsys.readouterr().err


def test_serve_refuses_a_bad_allowed_origin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(host="127.0.0.1", port=0, db=f"sqlite:///{tmp_path / 'g.db'}",
                              allowed_origin=["https://gongzhu.example.org/play"], allowed_host=[])
    assert serve.run(args) == 2
    assert "--allowed-origin" in capsys.readouterr().err


def _status(base: str, path: str, *, method: str = "GET", body: bytes | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, bytes, dict[str, str]]:
    """A request's status, body and session cookie (``{"Cookie": ...}`` when the answer set one)."""
    request = urllib.request.Request(base + path.lstrip("/"), data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read(), _session(response.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read(), _session(e.headers)


def _session(headers: Message) -> dict[str, str]:
    """The session cookie an answer sets, as the header a browser sends it back with (a raw
    WebSocket client keeps no cookies: the test passes it on)."""
    for value in headers.get_all("Set-Cookie") or []:
        pair = value.split(";", 1)[0]
        if pair.startswith(COOKIE + "="):
            return {"Cookie": pair}
    return {}


def test_a_real_server_keeps_other_sites_out_and_bounds_what_it_reads(tmp_path: Path) -> None:
    """Through uvicorn's own stack: foreign origins and host names, oversized headers and
    WebSocket messages; the server answers on after each."""
    from websockets.exceptions import InvalidStatus
    from websockets.typing import Origin

    server = ServeProcess(tmp_path, "--allowed-origin", "https://gongzhu.example.org")
    base = server.url
    try:
        json_type = {"Content-Type": "application/json"}
        status, body, _ = _status(base, "/api/matches", method="POST", body=b"{}",
                                  headers={**json_type, "Origin": "http://evil.example"})
        assert status == 403 and b"another site" in body
        status, _, _ = _status(base, "/api/matches", method="POST", body=b"{}",
                               headers={"Content-Type": "text/plain"})
        assert status == 415
        status, _, _ = _status(base, "/api/matches", headers={"Host": "evil.example"})
        assert status == 400
        status, _, _ = _status(base, "/api/config", headers={"X-Padding": "y" * 20_000})
        assert status in (400, 431)
        status, body, session = _status(base, "/api/matches", method="POST", body=b'{"seed": 5}',
                                        headers={**json_type, "Origin": "https://gongzhu.example.org"})
        assert status == 201 and session
        match_id = json.loads(body)["match_id"]
        ws_url = base.replace("http", "ws", 1) + f"ws/{match_id}"
        with pytest.raises(InvalidStatus) as refused:  # South's own session, from another site's page
            connect(ws_url, origin=Origin("http://evil.example"), additional_headers=session, open_timeout=5)
        assert refused.value.response.status_code == 403
        with connect(ws_url, origin=Origin(base.rstrip("/")), additional_headers=session, open_timeout=5) as ws:
            assert json.loads(ws.recv(timeout=5))["type"] == "state"
            ws.send(json.dumps({"type": "play", "cards": ["x" * 5000]}))
            assert "too large" in json.loads(ws.recv(timeout=5))["message"]
            ws.send("[" * 200_000)  # past the transport's cap: the connection is closed
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    ws.recv(timeout=5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        with connect(ws_url, additional_headers=session, open_timeout=5) as ws:  # the server goes on
            assert json.loads(ws.recv(timeout=5))["state"]["phase"] == "expose"
        assert server.proc.poll() is None
    finally:
        server.stop()


@pytest.mark.postgres
def test_serve_never_shows_the_databases_password(pg_url: str, tmp_path: Path) -> None:
    """The address line, and the line a server that cannot open its database ends with (in
    JSON with ``--log-format json``), show a database URL with its password as ``***``."""
    url = make_url(pg_url)
    with_password = url.set(username=url.username or "gongzhu", password="Hunter2Secret").render_as_string(
        hide_password=False)
    with ServeProcess(tmp_path / "a", db=with_password) as server:
        shown = server.output()
    assert "Hunter2Secret" not in shown and ":***@" in shown
    failed = subprocess.run([sys.executable, "-m", "gongzhu.cli.main", "serve", "--port", "0", "--log-format", "json",
                             "--db", "postgresql+psycopg://someone:Hunter2Secret@127.0.0.1:1/nowhere"],
                            capture_output=True, text=True, timeout=60)
    assert failed.returncode == 2 and "Hunter2Secret" not in failed.stdout + failed.stderr
    line = json.loads(failed.stderr.strip().splitlines()[-1])
    assert "cannot open the database postgresql+psycopg://someone:***@127.0.0.1:1/nowhere" in line["message"]
