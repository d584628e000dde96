"""``gongzhu bot``: one of our players behind the bot protocol ``gongzhu-bot/1``.

Reads one JSON request per line on stdin and writes one JSON answer per line on stdout, flushed
after each, as chess engines speak UCI: any program can seat our players at its table.  Blank
lines are skipped; a bad request — not UTF-8, not JSON, longer than
:data:`~gongzhu.players.protocol.MAX_LINE_BYTES`, or one the rules refuse — is answered
``{"error": "..."}`` and the bot keeps serving; end of input ends it with status 0.  The
protocol is :mod:`gongzhu.players.protocol`, documented in ``docs/bot-protocol.md``.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from typing import IO, Any

from gongzhu.players.base import Player
from gongzhu.players.protocol import MAX_LINE_BYTES, handle_line, line_too_long, reply_line
from gongzhu.players.registry import LEVELS, make_player, think_error

__all__ = ["register", "run", "serve"]


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "bot",
        help="answer bot-protocol requests (JSON Lines on stdin/stdout) with a computer player",
        description="Serve the bot protocol gongzhu-bot/1: read one JSON request a line on stdin (a "
        "seat's view of a deal, with the field names of deal records, R11) and write one JSON answer "
        "a line on stdout. See docs/bot-protocol.md.",
    )
    p.add_argument("--level", required=True, metavar="LEVEL",
                   help=f"the player's level (one of: {', '.join(LEVELS)})")
    p.add_argument("--think", type=float, default=None, metavar="S",
                   help="time budget per decision in seconds, more than 0 and at most 60 (levels that search)")
    p.add_argument("--seed", type=int, default=None, help="seed of the player (reproducible answers)")
    p.add_argument("--iterations", type=int, default=None, metavar="K",
                   help="fixed search budget per decision (levels that search)")
    p.set_defaults(run=run)


def _skip_rest_of_line(stdin: IO[bytes] | IO[str]) -> None:
    """Read and drop the rest of an over-long line, a bounded piece at a time."""
    while True:
        piece = stdin.readline(MAX_LINE_BYTES)
        if not piece or piece[-1:] in (b"\n", "\n"):
            return


def serve(player: Player, stdin: IO[bytes] | IO[str], stdout: IO[str]) -> int:
    """Answer every request line of ``stdin`` (bytes, read as UTF-8, or text) on ``stdout``
    until end of input; returns 0.  A line is read up to MAX_LINE_BYTES (characters, for a text
    stream); a longer one is answered with an error and skipped."""
    while True:
        line = stdin.readline(MAX_LINE_BYTES + 1)
        if not line:
            return 0
        reply: dict[str, Any] | None
        if len(line) > MAX_LINE_BYTES and line[-1:] not in (b"\n", "\n"):
            _skip_rest_of_line(stdin)
            reply = line_too_long()
        else:
            reply = handle_line(player, line)
        if reply is None:
            continue
        stdout.write(reply_line(reply) + "\n")
        stdout.flush()


def run(args: argparse.Namespace) -> int:
    if args.level not in LEVELS:  # read at run time: levels are registered by other modules
        print(f"gongzhu bot: unknown level {args.level!r}: choose one of {', '.join(LEVELS)}", file=sys.stderr)
        return 2
    if (why := think_error(args.think)) is not None:
        print(f"gongzhu bot: --{why}", file=sys.stderr)
        return 2
    if args.iterations is not None and args.iterations < 1:
        print("gongzhu bot: --iterations must be 1 or more", file=sys.stderr)
        return 2
    player = make_player(args.level, seed=args.seed, think=args.think, iterations=args.iterations)
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(encoding="utf-8")
    if sys.stdin is None:  # standard input closed: no request will come
        return 0
    stdin: IO[bytes] | IO[str] = getattr(sys.stdin, "buffer", sys.stdin)  # bytes: decoded line by line
    try:
        return serve(player, stdin, sys.stdout)
    except BrokenPipeError:  # the client went away: nothing left to answer
        devnull = os.open(os.devnull, os.O_WRONLY)  # nor to flush at exit
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 0
