"""``gongzhu --help``, a bare ``gongzhu`` and ``gongzhu COMMAND --help`` print their help (every
help text is an argparse format string: a literal ``%`` must be written ``%%``); Ctrl+C stops a
command quietly."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gongzhu.cli.main import COMMANDS, main


def test_main_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: gongzhu")
    for name in COMMANDS:
        assert name in out
    assert "95% CIs" in out


def test_bare_command_prints_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    captured = capsys.readouterr()
    assert captured.out.startswith("usage: gongzhu") and "Traceback" not in captured.err


@pytest.mark.parametrize("name", COMMANDS)
def test_command_help(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([name, "--help"])
    assert info.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: gongzhu {name}")


def test_help_as_a_process() -> None:
    done = subprocess.run([sys.executable, "-m", "gongzhu.cli.main", "--help"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "usage: gongzhu" in done.stdout and done.stderr == ""


def wait_until_reading_input(proc: subprocess.Popen[str], limit: float = 120.0) -> None:
    """Wait until ``proc`` has started and blocks reading its standard input (a pipe), however busy
    the machine: Linux names the wait in ``/proc/PID/wchan``; elsewhere wait one second."""
    wchan = Path(f"/proc/{proc.pid}/wchan")
    if not wchan.exists():  # pragma: no cover - not Linux
        time.sleep(1.0)
        return
    deadline = time.monotonic() + limit
    while proc.poll() is None and time.monotonic() < deadline:
        if "pipe_read" in wchan.read_text(encoding="ascii", errors="replace"):
            return
        time.sleep(0.02)


def _as_from_a_shell() -> None:
    """Start the command with Ctrl-C as a shell gives it: SIGINT at its default disposition and
    not blocked, whatever the test process's own threads and earlier tests left in the state a
    child inherits."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("command", [["replay", "-"], ["score"]])
def test_ctrl_c_stops_a_command_quietly(command: list[str]) -> None:
    """A command waiting for its input is interrupted: status 130, one line, no traceback."""
    proc = subprocess.Popen([sys.executable, "-m", "gongzhu.cli.main", *command], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_as_from_a_shell)
    try:
        wait_until_reading_input(proc)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:  # pragma: no cover
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.strip().endswith("interrupted")
