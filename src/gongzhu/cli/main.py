"""Entry point of the ``gongzhu`` console script: parses the sub-command and runs it."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from gongzhu import __version__

#: Sub-command name -> module in gongzhu.cli with ``register(subparsers)`` and ``run(args) -> int``.
COMMANDS = ("play", "selfplay", "replay", "score", "arena", "bot", "serve")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gongzhu",
        description="拱猪 Gongzhu (chasing the pig): play, score, record and re-check deals.",
    )
    parser.add_argument("--version", action="version", version=f"gongzhu {__version__}")
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
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
