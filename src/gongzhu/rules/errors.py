"""The errors the rules core raises.  All are ``ValueError`` subclasses whose message says why in
plain words; an action refused with one of them leaves the state exactly as it was.

``str(e)`` is always the English message; where a Chinese version exists it is ``e.zh`` (see
:func:`message`)."""

from __future__ import annotations

__all__ = ["CardError", "DealError", "GongzhuError", "IllegalPlayError", "OptionError", "excerpt", "message"]


class GongzhuError(ValueError):
    """Base class of every rules error.  ``str(e)`` and ``e.args`` hold the English message only;
    ``e.zh`` is its Chinese version, or None where there is none."""

    def __init__(self, message: str, *, zh: str | None = None) -> None:
        super().__init__(message)
        self.zh = zh


class CardError(GongzhuError):
    """Text that is not a card or a seat."""


class OptionError(GongzhuError):
    """An unknown option key or value, or a combination the rule book does not define (R10)."""


class DealError(GongzhuError):
    """Hands that are not a valid deal (R1, R3)."""


class IllegalPlayError(GongzhuError):
    """An exposure or a play that the rules do not allow now (R4, R5)."""


def message(e: BaseException, lang: str) -> str:
    """``e``'s message in ``lang``: the Chinese one for ``"zh"`` where ``e`` has one, else ``str(e)``."""
    zh = getattr(e, "zh", None)
    if lang == "zh" and isinstance(zh, str) and zh:
        return zh
    return str(e)


def excerpt(value: object) -> str:
    """``repr(value)`` for a message, cut at 40 characters: an error quotes at most a short
    piece of what it refuses (a huge integer is named by its size)."""
    if isinstance(value, int) and value.bit_length() > 128:
        return f"an integer of {value.bit_length()} bits"
    text = repr(value[:40] if isinstance(value, str) and len(value) > 40 else value)
    return text if len(text) <= 40 else text[:37] + "..."

