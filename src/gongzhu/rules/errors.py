"""The errors the rules core raises.  All are ``ValueError`` subclasses whose message says why in
plain words; an action refused with one of them leaves the state exactly as it was.

A refusal a player reads is raised by its code in the message catalog (:mod:`gongzhu.messages`)
with its parameters: ``IllegalPlayError("refusal.follow_suit", suit="C", legal="♣6, ♣J")``.
``e.code`` and ``e.params`` keep them, ``str(e)`` is the English text and :func:`message` renders
it in any language of the catalog.  An error raised with plain text (one that only a program or a
developer reads: malformed input) has no code; its text is English only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gongzhu.messages import Text, has, render

__all__ = [
    "BoardError",
    "CardError",
    "CommitmentError",
    "DealError",
    "GongzhuError",
    "IllegalPlayError",
    "OptionError",
    "excerpt",
    "message",
]


class GongzhuError(ValueError):
    """Base class of every rules error, raised as ``GongzhuError(code, **params)`` with a key of
    the message catalog, or as ``GongzhuError(text)`` with an English text.  ``str(e)`` and
    ``e.args`` hold the English message only; ``e.code`` and ``e.params`` are the key and its
    parameters (None and ``{}`` for a plain text)."""

    def __init__(self, message: str, /, **params: object) -> None:
        if has(message):
            self.text: Text | None = Text.of(message, **params)
            english = self.text.render("en")
        elif params:
            raise TypeError(f"{message!r} is not a key of the message catalog: it takes no parameters")
        else:
            self.text = None
            english = message
        super().__init__(english)

    @property
    def code(self) -> str | None:
        """The catalog key of the refusal, or None for a plain English message."""
        return self.text.key if self.text is not None else None

    @property
    def params(self) -> Mapping[str, object]:
        """The refusal's parameters (codes and texts that read the same in any language)."""
        return self.text.params if self.text is not None else {}

    @property
    def zh(self) -> str | None:
        """The Chinese message, or None where there is none."""
        return self.text.render("zh") if self.text is not None else None

    def __reduce__(self) -> tuple[Any, ...]:
        # A refusal is rebuilt from its code and parameters; any further attribute comes along.
        state = {k: v for k, v in self.__dict__.items() if k != "text"}
        if self.text is None:
            return (type(self), self.args, state)
        return (_rebuild, (type(self), self.text.key, dict(self.text.params)), state)


def _rebuild(cls: type[GongzhuError], code: str, params: dict[str, object]) -> GongzhuError:
    return cls(code, **params)


class CardError(GongzhuError):
    """Text that is not a card or a seat."""


class OptionError(GongzhuError):
    """An unknown option key or value, or a combination the rule book does not define (R10)."""


class DealError(GongzhuError):
    """Hands that are not a valid deal (R1, R3)."""


class IllegalPlayError(GongzhuError):
    """An exposure or a play that the rules do not allow now (R4, R5)."""


class BoardError(GongzhuError):
    """A board or a set of boards of duplicate play that is not well formed: a board number, a
    count, a seed or a definition the rules do not define (R8.1)."""


class CommitmentError(BoardError):
    """A set of boards whose seed and definition do not give the published commitment (R8.1):
    the seed, the definition or the commitment is not the one that was published."""


def message(e: BaseException, lang: str) -> str:
    """``e``'s message in ``lang``: rendered from the catalog where ``e`` has a code, else ``str(e)``."""
    text = getattr(e, "text", None)
    if isinstance(text, Text):
        return render(text.key, lang, text.params)
    return str(e)


def excerpt(value: object) -> str:
    """``repr(value)`` for a message, cut at 40 characters: an error quotes at most a short
    piece of what it refuses (a huge integer is named by its size)."""
    if isinstance(value, int) and value.bit_length() > 128:
        return f"an integer of {value.bit_length()} bits"
    text = repr(value[:40] if isinstance(value, str) and len(value) > 40 else value)
    return text if len(text) <= 40 else text[:37] + "..."
