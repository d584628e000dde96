"""Entry point of the ``gongzhu`` console script: parses the sub-command and runs it.

A closed standard output (``gongzhu score --json | head -c1``) ends the command quietly with
status 141, as a process stopped by SIGPIPE, without a traceback."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from gongzhu import __version__

#: Sub-command name -> module in gongzhu.cli with ``register(subparsers)`` and ``run(args) -> int``.
COMMANDS = ("play", "selfplay", "replay", "analyze", "score", "boards", "event", "arena", "bot", "serve", "rules",
            "admin")
#: The exit status after standard output was closed by the reader (128 + SIGPIPE).
CLOSED_OUTPUT = 141
#: The exit status after Ctrl+C.
INTERRUPTED = 130


def version_text() -> str:
    """``gongzhu --version``: the version and which rules path this installation runs on."""
    from gongzhu.rules.deal import C_BOARD
    from gongzhu.search import AVAILABLE

    if C_BOARD and AVAILABLE:
        return f"gongzhu {__version__} (C fast paths built: one-deck play on the C board, search available)"
    return (f"gongzhu {__version__} (C fast paths not built: pure-Python rules, slower; the expert and "
            "flatmc players are unavailable — reinstall with a C compiler present to get them)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gongzhu",
        description="拱猪 Gongzhu (chasing the pig): play, score, record and re-check deals.",
    )
    parser.add_argument("--version", action="version", version=version_text())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"gongzhu.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    try:
        code: int = args.run(args)
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        _drop_stdout()
        return CLOSED_OUTPUT
    except KeyboardInterrupt:  # Ctrl+C: stop quietly, as a shell expects (128 + SIGINT)
        print(f"gongzhu {args.command}: interrupted", file=sys.stderr)
        return INTERRUPTED
    return code


def _drop_stdout() -> None:
    """Send what is left of standard output to /dev/null, so that the interpreter's final flush
    does not fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no file descriptor (captured output)
        pass


if __name__ == "__main__":
    sys.exit(main())
