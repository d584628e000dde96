"""The browser game's server: from the start command to a playable table, and a card click.

    python benchmarks/server.py [--runs N] [--plays N] [--json]

The targets: from the start command to a playable table in under 1 s locally; a card click
answered in under 50 ms.  For each of ``--runs`` cold starts of ``gongzhu serve`` (a new process
on a free loopback port, a new SQLite file; with ``--existing`` the same file, already at the
newest schema) it measures

- *answering*: until ``GET /api/config`` answers;
- *table*: until a new match's table state has arrived over the WebSocket (the page's own first
  steps: ``GET /``, ``GET /api/config``, ``POST /api/matches``, open ``/ws/{id}``, first state);

and, in the last run, the time from sending South's play to the server's first reply (the
``played`` echo) for ``--plays`` plays, with the computer players at ``instant`` speed.  The named
baseline, in the same run: a bare ``python -c "import starlette.applications, uvicorn,
sqlalchemy.orm"`` — the imports of the web stack the server stands on, which it pays before it
can answer whatever it does itself.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from helpers.servers import ServeFailed, ServeProcess


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as response:
        body: bytes = response.read()
        return body


def baseline_seconds() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import starlette.applications, uvicorn, sqlalchemy.orm"], check=True)
    return time.perf_counter() - start


@contextlib.contextmanager
def start_serve(url: str, folder: str) -> Iterator[str]:
    """``gongzhu serve`` on a free loopback port and the database ``url`` (its output in
    ``folder``), until it answers; yields its address (``http://127.0.0.1:PORT/``) and stops it
    afterwards."""
    try:
        server = ServeProcess(folder, db=url, timeout=60)
    except ServeFailed as e:
        raise SystemExit(str(e)) from None
    with server:
        yield server.url


def one_start(plays: int, db: str | None = None) -> tuple[float, float, list[float]]:
    """(answering, table) seconds after the start command, and reply times of ``plays`` plays;
    on the SQLite file ``db``, or a new one."""
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        with start_serve(f"sqlite:///{db or tmp + '/g.db'}", tmp) as base:
            answering = time.perf_counter() - started
            _get(base)
            request = urllib.request.Request(base + "api/matches", data=b'{"seed": 1, "speed": "instant"}',
                                             method="POST", headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=5) as response:
                match_id = json.loads(response.read())["match_id"]
                # The person the server made for this request: its session cookie opens the table.
                cookie = response.headers["Set-Cookie"].split(";", 1)[0]
            replies: list[float] = []
            with connect(base.replace("http", "ws", 1) + f"ws/{match_id}", open_timeout=5,
                         additional_headers={"Cookie": cookie}) as ws:
                state: dict[str, Any] = json.loads(ws.recv(timeout=5))["state"]
                table = time.perf_counter() - started
                ws.send(json.dumps({"type": "expose", "cards": []}))
                while len(replies) < plays:
                    if state["phase"] == "match-over":
                        break
                    if state["phase"] == "deal-over":
                        ws.send(json.dumps({"type": "next"}))
                    elif state["phase"] == "expose" and "S" in state["undeclared"]:
                        ws.send(json.dumps({"type": "expose", "cards": []}))
                    elif state["phase"] == "play" and state["turn"] == "S" and state["legal"]:
                        sent = time.perf_counter()
                        ws.send(json.dumps({"type": "play", "cards": state["legal"][0]}))
                        reply = json.loads(ws.recv(timeout=5))
                        replies.append(time.perf_counter() - sent)
                        if reply["type"] == "state":
                            state = reply["state"]
                        continue
                    while True:
                        message = json.loads(ws.recv(timeout=10))
                        if message["type"] == "state":
                            state = message["state"]
                            break
            return answering, table, replies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="cold starts")
    parser.add_argument("--plays", type=int, default=40, help="South plays timed in the last run")
    parser.add_argument("--existing", action="store_true",
                        help="every start opens the same database, made by an unmeasured start first "
                             "(what `make play` does after its first start); else a new file per start")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    base = [baseline_seconds() for _ in range(args.runs)]
    answering: list[float] = []
    table: list[float] = []
    replies: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        db = f"{folder}/existing.db" if args.existing else None
        if db is not None:
            one_start(0, db)
        for i in range(args.runs):
            a, t, r = one_start(args.plays if i == args.runs - 1 else 0, db)
            answering.append(a)
            table.append(t)
            replies += r
    ms = [x * 1000 for x in replies]
    result = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "runs": args.runs,
        "baseline_imports_ms": {"median": round(statistics.median(base) * 1000), "max": round(max(base) * 1000)},
        "answering_ms": {"median": round(statistics.median(answering) * 1000), "max": round(max(answering) * 1000)},
        "table_ms": {"median": round(statistics.median(table) * 1000), "max": round(max(table) * 1000)},
        "click_reply_ms": {"n": len(ms), "median": round(statistics.median(ms), 2), "max": round(max(ms), 2)}
        if ms else None,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    on = "the same up-to-date database" if args.existing else "a new database each"
    print(f"gongzhu serve, {args.runs} cold starts on {on} ({result['machine']}); median / max")
    print(f"  baseline: import starlette, uvicorn, sqlalchemy.orm     "
          f"{result['baseline_imports_ms']['median']} / {result['baseline_imports_ms']['max']} ms")
    print(f"  start command -> /api/config answers                {result['answering_ms']['median']} / "
          f"{result['answering_ms']['max']} ms")
    print(f"  start command -> a new match's table over WebSocket {result['table_ms']['median']} / "
          f"{result['table_ms']['max']} ms   (target < 1000 ms)")
    if ms:
        print(f"  South's play -> first reply, {len(ms)} plays           {statistics.median(ms):.2f} / "
              f"{max(ms):.2f} ms   (target < 50 ms)")


if __name__ == "__main__":
    main()
