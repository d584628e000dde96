"""Words the command line shows, in Chinese (``zh``) and English (``en``), using the Chinese
terms of the rule book: the ``term.*`` entries of the message catalog (:mod:`gongzhu.messages`)."""

from __future__ import annotations

import unicodedata

from gongzhu.messages import LANGS, catalog, render
from gongzhu.rules.cards import Card, Seat, parse_card

__all__ = ["LANGS", "card_text", "cards_text", "event_text", "kind_text", "plain", "seat_text", "t"]


def plain(text: str) -> str:
    """A text read from a file, as a terminal may print it: control and format characters (an
    escape sequence that would recolour the terminal or retitle its window, a bidi override)
    written as ``\\x1b``, ``\\u202e``."""
    return "".join(ch if unicodedata.category(ch) not in ("Cc", "Cf", "Cs") else ch.encode("unicode_escape").decode()
                   for ch in text)


def t(key: str, lang: str, **fields: object) -> str:
    """The catalog's phrase ``term.<key>`` in ``lang`` with ``{fields}`` filled in."""
    return render(f"term.{key}", lang, fields)


def seat_text(seat: Seat, lang: str) -> str:
    return render(f"seat.{seat.name}", lang)


def card_text(c: Card, lang: str) -> str:
    """♠Q in both languages: the suit symbols read the same to everyone."""
    return c.pretty


def cards_text(cards: list[Card] | tuple[Card, ...], lang: str) -> str:
    return " ".join(card_text(c, lang) for c in cards) or "—"


def event_text(event: str, lang: str) -> str:
    """``all_hearts`` → 满红; ``self_catch:QS`` → 自得 ♠Q."""
    name, _, code = event.partition(":")
    word = catalog(lang).get(f"term.event.{name}", name)
    if code:
        word += " " + parse_card(code).pretty
    return word


def kind_text(kind: str, lang: str) -> str:
    return catalog(lang).get(f"term.kind.{kind}", kind)
