"""The rule book and the how-to-play page as HTML for the browser's rules page (``/rules``).

The texts are the project's own Markdown, shipped inside the package: the rule book
``gongzhu/rules/rules.md`` (``docs/rules.md``, the book the code cites) and its Chinese version
``rules.zh.md`` (``docs/rules.zh.md``, kept section for section in step with it), and the short
how-to-play ``gongzhu/web/how-to-play.md`` / ``how-to-play.zh.md`` (``docs/``).  Each heading that
starts with a section number gets it as its ``id`` (``R4.1``), so refusals that cite a section
link to it (``/rules#R5.2``), and every citation in the text (``R5.2``, ``R10``) becomes a link
to its section (a sub-section without a heading of its own links to its section).  Raw HTML in
the Markdown is not passed through.

May import: the standard library, ``markdown_it`` and :mod:`gongzhu.messages`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from importlib.resources import files
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from gongzhu.messages import LANGS

__all__ = ["book_sources", "rules_page"]

_SECTION = re.compile(r"^(R\d+(?:\.\d+)?)\.?(?:\s|$)")
_CITATION = re.compile(r"\bR(\d+)(?:\.(\d+))?\b")


def book_sources(lang: str) -> tuple[str, str]:
    """The Markdown of the rule book and of the how-to-play in ``lang`` (``zh`` or ``en``)."""
    if lang not in LANGS:
        raise KeyError(f"no rule book in language {lang!r}: one of {', '.join(LANGS)}")
    suffix = "" if lang == "en" else f".{lang}"
    book = files("gongzhu.rules").joinpath(f"rules{suffix}.md").read_text(encoding="utf-8")
    how = files("gongzhu.web").joinpath(f"how-to-play{suffix}.md").read_text(encoding="utf-8")
    return book, how


def _sections(book: str) -> list[str]:
    """The section numbers that have a heading of their own, in order."""
    out = []
    for line in book.splitlines():
        if line.startswith("#"):
            found = _SECTION.match(line.lstrip("#").strip())
            if found:
                out.append(found.group(1))
    return out


def _renderer(sections: Sequence[str]) -> MarkdownIt:
    known = set(sections)

    def target(major: str, minor: str | None) -> str | None:
        if minor is not None and f"R{major}.{minor}" in known:
            return f"R{major}.{minor}"
        return f"R{major}" if f"R{major}" in known else None

    def anchor_headings(state: StateCore) -> None:
        tokens = state.tokens
        for i, token in enumerate(tokens):
            if token.type == "heading_open" and i + 1 < len(tokens):
                found = _SECTION.match(tokens[i + 1].content.strip())
                if found:
                    token.attrSet("id", found.group(1))

    def link_citations(state: StateCore) -> None:
        for block in state.tokens:
            if block.type != "inline" or not block.children:
                continue
            children: list[Token] = []
            inside_link = False
            for child in block.children:
                inside_link = (inside_link or child.type == "link_open") and child.type != "link_close"
                if child.type != "text" or inside_link:
                    children.append(child)
                    continue
                at = 0
                for m in _CITATION.finditer(child.content):
                    name = target(m.group(1), m.group(2))
                    if name is None:
                        continue
                    if m.start() > at:
                        children.append(_text(child.content[at:m.start()]))
                    link = Token("link_open", "a", 1)
                    link.attrSet("href", f"#{name}")
                    children += [link, _text(m.group(0)), Token("link_close", "a", -1)]
                    at = m.end()
                children.append(_text(child.content[at:]) if at else child)
            block.children = children

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    md.core.ruler.push("section_anchors", anchor_headings)
    md.core.ruler.push("section_links", link_citations)
    return md


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


@cache
def rules_page(lang: str) -> dict[str, Any]:
    """``GET /api/rules/{lang}``: the how-to-play and the rule book as HTML, and the section
    numbers that have a heading (``R1`` … ``R12``, ``R4.1`` …).  Raises ``KeyError`` for a
    language there is no book in."""
    book, how = book_sources(lang)
    sections = _sections(book)
    md = _renderer(sections)
    return {"lang": lang, "how_to_play": md.render(how), "rules": md.render(book), "sections": sections}
