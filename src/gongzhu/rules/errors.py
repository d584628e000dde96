"""The errors the rules core raises.  All are ``ValueError`` subclasses whose message says why in
plain words; an action refused with one of them leaves the state exactly as it was."""

from __future__ import annotations

__all__ = ["CardError", "DealError", "GongzhuError", "IllegalPlayError", "OptionError"]


class GongzhuError(ValueError):
    """Base class of every rules error."""


class CardError(GongzhuError):
    """Text that is not a card or a seat."""


class OptionError(GongzhuError):
    """An unknown option key or value, or a combination the rule book does not define (R10)."""


class DealError(GongzhuError):
    """Hands that are not a valid deal (R1, R3)."""


class IllegalPlayError(GongzhuError):
    """An exposure or a play that the rules do not allow now (R4, R5)."""
