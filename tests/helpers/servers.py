"""Servers a test or a benchmark starts: the browser game's application served by uvicorn in a
thread of the test process (:class:`LiveServer`), and ``gongzhu serve`` in a process of its own,
as a person starts it (:class:`ServeProcess`).

This module imports nothing but the standard library at its top (the server modules are imported
when a :class:`LiveServer` starts), so that ``benchmarks/`` can start their servers with it:
``sys.path.insert(0, "tests")``, then ``from helpers.servers import ServeProcess``.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["ADDRESS", "LiveServer", "ServeFailed", "ServeProcess", "stop_process"]

#: The address ``gongzhu serve`` prints once it listens (its port is group 1).
ADDRESS = re.compile(r"http://127\.0\.0\.1:(\d+)/")


def stop_process(proc: subprocess.Popen[Any], timeout: float = 10) -> None:
    """End a process a test started: terminate, and kill it if it does not end in ``timeout`` s."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:  # pragma: no cover
        proc.kill()
        proc.wait()


class LiveServer:
    """The browser game's application served by uvicorn on a free loopback port, in a thread of
    the test process (computer players paced at 0 s unless ``pace`` says otherwise).  Stopping it
    and starting another on the same database is a server restart.  ``app_options`` go to
    :func:`~gongzhu.server.create_app` as they are (e.g. ``review_budget``); its challenges have
    quick computer players and no par (``challenge_level`` random, ``par_replays`` 0) unless they
    say otherwise."""

    def __init__(self, db_url: str, *, pace: float = 0.0, static_dir: Path | None = None, **app_options: Any) -> None:
        import threading

        import uvicorn

        from gongzhu.server import create_app

        # Challenges with quick computers and no par replays, unless a test asks for them.
        app_options = {"par_replays": 0, "challenge_level": "random", **app_options}
        self.app = create_app(db_url, pace=pace, hint_think=0.05, static_dir=static_dir, **app_options)
        config = uvicorn.Config(app=self.app, host="127.0.0.1", port=0, log_level="warning", lifespan="on",
                                ws_max_size=64 * 1024)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="gongzhu-live", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.01)
        port = self._server.servers[0].sockets[0].getsockname()[1]
        self.base = f"http://127.0.0.1:{port}"
        self.ws_base = f"ws://127.0.0.1:{port}"

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(15)

    def __enter__(self) -> LiveServer:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()


class ServeFailed(RuntimeError):
    """``gongzhu serve`` ended, or did not print its address or answer in time (the message
    holds what it wrote)."""


class ServeProcess:
    """``gongzhu serve`` in a new process on a free loopback port (``--port 0``), as a person
    starts it: ``python -m gongzhu.cli.main serve --port 0 --db DB OPTIONS…``.

    ``db`` is a SQLAlchemy URL, by default a new SQLite file ``g.db`` in ``folder``; ``options``
    are more of the command's (``--redis URL``, ``--websockets-per-address 3`` …).  What it writes
    goes to files in ``folder``, never to a pipe nobody reads (a server never blocks on its
    output): its standard output to ``NAME.out`` (the address it prints), its standard error, the
    server's log, to ``NAME.log`` (:meth:`log_lines`).  ``env`` adds to the environment it
    inherits (with ``PYTHONUNBUFFERED`` set).

    The constructor returns once the server has printed its address and, with ``answering`` (the
    default), once ``GET /api/config`` answers.  A server that ends before, or takes more than
    ``timeout`` seconds, is stopped and :class:`ServeFailed` raised.  Then ``url`` is the address
    it printed (``http://127.0.0.1:PORT/``), ``base`` and ``ws_base`` the same without the last
    slash, for HTTP and for WebSockets (as :class:`LiveServer`'s), ``port`` and ``pid`` its own.
    :meth:`stop` ends it (SIGTERM: uvicorn stops cleanly), :meth:`kill` kills it (SIGKILL); as a
    context manager it is stopped on leaving.
    """

    def __init__(self, folder: str | os.PathLike[str], *options: str, db: str | None = None, name: str = "serve",
                 answering: bool = True, timeout: float = 30.0, env: Mapping[str, str] | None = None) -> None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.db = db or f"sqlite:///{folder / 'g.db'}"
        self.out_path = folder / f"{name}.out"
        self.log_path = folder / f"{name}.log"
        command = [sys.executable, "-m", "gongzhu.cli.main", "serve", "--port", "0", "--db", self.db, *options]
        with self.out_path.open("wb") as out, self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=log,
                                         env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})
        self.pid = self.proc.pid
        deadline = time.monotonic() + timeout
        try:
            while not (found := ADDRESS.search(self.out_path.read_text(errors="replace"))):
                self._still_starting(deadline, "print its address")
                time.sleep(0.002)
            self.port = int(found.group(1))
            self.url = found.group(0)
            self.base = self.url.rstrip("/")
            self.ws_base = f"ws://127.0.0.1:{self.port}"
            while answering and not self._answers():
                self._still_starting(deadline, "answer")
                time.sleep(0.005)
        except BaseException:
            self.stop()
            raise

    def _still_starting(self, deadline: float, what: str) -> None:
        if self.proc.poll() is not None:
            raise ServeFailed(f"gongzhu serve ended (status {self.proc.returncode}) before it could {what}:\n"
                              + self.output())
        if time.monotonic() > deadline:
            raise ServeFailed(f"gongzhu serve did not {what} in time:\n" + self.output())

    def _answers(self) -> bool:
        try:
            with urllib.request.urlopen(self.url + "api/config", timeout=5):
                return True
        except urllib.error.HTTPError:
            return True  # an answer all the same
        except (urllib.error.URLError, OSError):
            return False

    def output(self) -> str:
        """What the server has written so far: its standard output, then its log."""
        return "\n".join(p.read_text(errors="replace") for p in (self.out_path, self.log_path) if p.exists())

    def log_lines(self) -> list[str]:
        """The lines of the server's log (its standard error) so far, blank ones left out."""
        return [line.rstrip() for line in self.log_path.read_text(errors="replace").splitlines() if line.strip()]

    def stop(self, timeout: float = 15) -> None:
        """End the server (SIGTERM), and kill it if it has not ended in ``timeout`` seconds."""
        stop_process(self.proc, timeout)

    def kill(self) -> None:
        """Kill the server at once (SIGKILL), as a machine that fails would."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def __enter__(self) -> ServeProcess:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()
