"""``gongzhu rules``: prints the rule book (``docs/rules.md``, R1–R12), whole or one section.

Refusals, records and hints cite the rule book by section (R5.2, R11); the book is shipped inside
the package (``gongzhu/rules/rules.md``), so an installed ``gongzhu`` can show what it cites.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
from importlib.resources import files
from typing import Any

__all__ = ["register", "rule_book", "run", "section"]

_HEADING = re.compile(r"^(##|###) (R\d+(?:\.\d+)?)\.? ", re.MULTILINE)
_CITATION = re.compile(r"R(\d+)(?:\.(\d+))?(?:\.\d+)*")


def rule_book() -> str:
    """The whole rule book, as Markdown."""
    return files("gongzhu.rules").joinpath("rules.md").read_text(encoding="utf-8")


def section(book: str, citation: str) -> str:
    """The part of ``book`` that ``citation`` names: a section (``R5``: its ``## R5.`` heading up
    to the next section) or a sub-section with a heading of its own (``R5.2``: ``### R5.2`` up to
    the next heading); a sub-section without one (``R9.1``) gives its section. Case-insensitive.
    Raises ``ValueError`` naming the sections there are."""
    headings = list(_HEADING.finditer(book))
    names = [m.group(2) for m in headings]
    found = _CITATION.fullmatch(citation.strip().upper())
    if found is None or f"R{int(found.group(1))}" not in names:
        sections = ", ".join(m.group(2) for m in headings if m.group(1) == "##")
        raise ValueError(f"no rule-book section {citation!r}: give one of {sections} (or a sub-section, e.g. R5.2)")
    wanted = f"R{int(found.group(1))}"
    subsections = [n for n in names if n.startswith(wanted + ".")]
    if found.group(2) is not None and subsections:
        sub = f"{wanted}.{int(found.group(2))}"
        if sub not in subsections:
            raise ValueError(f"no rule-book section {citation!r}: {wanted} has {', '.join(subsections)}")
        wanted = sub
    i = names.index(wanted)
    level = headings[i].group(1)
    end = next((m.start() for m in headings[i + 1:] if len(m.group(1)) <= len(level)), len(book))
    return book[headings[i].start():end].rstrip("\n") + "\n"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "rules",
        help="print the rule book (R1-R12) the game follows and its refusals cite",
        description="Print the rule book, docs/rules.md (Markdown): the whole book, or the section "
        "holding SECTION (R5, or a sub-section such as R5.2 as refusals cite it).",
    )
    p.add_argument("section", nargs="?", default=None, metavar="SECTION",
                   help="a section or sub-section number, e.g. R5 or R5.2")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    book = rule_book()
    if args.section is not None:
        try:
            book = section(book, args.section)
        except ValueError as e:
            print(f"gongzhu rules: {e}", file=sys.stderr)
            return 2
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(encoding="utf-8")  # the book is in English and 中文 on any locale
    sys.stdout.write(book)
    return 0
