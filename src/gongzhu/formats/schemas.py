"""JSON Schemas of the wire formats, generated from their declarations into ``docs/schemas/``.

``python -m gongzhu.formats.schemas --write`` writes them (run from the repository root, or give
the folder with ``--dir``); ``--check`` exits 1 when a file there differs from what the
declarations give (the test suite checks the same).  One file a document: the deal record, a bot
request, the score input, and for the browser game a WebSocket message, the new-match body and
the account bodies.

May import ``msgspec`` and the format modules of :mod:`gongzhu.formats` only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import msgspec

from gongzhu.formats.bot import Request
from gongzhu.formats.record import Record
from gongzhu.formats.score import ScoreInput
from gongzhu.formats.web import (
    AccountBody,
    BrowserMessage,
    LogoutBody,
    NewChallengeBody,
    NewMatchBody,
    NewTableBody,
)

__all__ = ["DOCUMENTS", "main", "render"]

#: File name -> (title, description, declared type).
DOCUMENTS: dict[str, tuple[str, str, Any]] = {
    "deal-record.schema.json": (
        "gongzhu-deal/1 and gongzhu-deal/2 deal record",
        "One line of a records file (JSON Lines): a finished deal, or a finished board of duplicate play "
        "(rule book R11, R8.1, docs/records.md).",
        Record,
    ),
    "bot-request.schema.json": (
        "gongzhu-bot/1 request",
        "One request line of the bot protocol (docs/bot-protocol.md).",
        Request,
    ),
    "web-message.schema.json": (
        "Browser game message",
        "A message the page sends on a table's WebSocket /ws/{match_id} (docs/web-protocol.md).",
        BrowserMessage,
    ),
    "web-new-match.schema.json": (
        "Browser game new-match body",
        "The JSON body of POST /api/matches (docs/web-protocol.md).",
        NewMatchBody,
    ),
    "web-new-table.schema.json": (
        "Browser game new-table body",
        "The JSON body of POST /api/tables (docs/web-protocol.md).",
        NewTableBody,
    ),
    "web-new-challenge.schema.json": (
        "Browser game new-challenge body",
        "The JSON body of POST /api/challenges (docs/web-protocol.md, Challenges).",
        NewChallengeBody,
    ),
    "web-account.schema.json": (
        "Browser game account body",
        "The JSON body of POST /api/account and POST /api/login (docs/web-protocol.md, Who you are).",
        AccountBody,
    ),
    "web-logout.schema.json": (
        "Browser game sign-out body",
        "The JSON body of POST /api/logout, which may be left empty (docs/web-protocol.md, Who you are).",
        LogoutBody,
    ),
    "score-input.schema.json": (
        "gongzhu score input",
        "The input of gongzhu score: one deal played with real cards (docs/score.md).",
        ScoreInput,
    ),
}


def render() -> dict[str, str]:
    """Each schema file's name and text (JSON, two-space indent, a final newline)."""
    out = {}
    for name, (title, description, kind) in DOCUMENTS.items():
        schema = msgspec.json.schema(kind)
        document = {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": title,
                    "description": description, **schema}
        out[name] = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gongzhu.formats.schemas",
                                     description="Write or check the JSON Schemas of the wire formats.")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help="write the schema files")
    action.add_argument("--check", action="store_true", help="exit 1 if a schema file differs")
    parser.add_argument("--dir", type=Path, default=Path("docs/schemas"), help="the folder (default docs/schemas)")
    args = parser.parse_args(argv)
    files = render()
    if args.write:
        args.dir.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (args.dir / name).write_text(text, encoding="utf-8")
        return 0
    stale = [name for name, text in files.items()
             if not (args.dir / name).is_file() or (args.dir / name).read_text(encoding="utf-8") != text]
    extra = sorted(p.name for p in args.dir.glob("*.schema.json") if p.name not in files) if args.dir.is_dir() else []
    for name in [*stale, *extra]:
        print(f"{args.dir / name}: not what the declarations give: run python -m gongzhu.formats.schemas --write",
              file=sys.stderr)
    return 1 if stale or extra else 0


if __name__ == "__main__":
    sys.exit(main())
