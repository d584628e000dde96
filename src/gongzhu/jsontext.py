"""Reading JSON from outside strictly, and naming JSON values in error messages.

Records (R11), score inputs and bot requests all come from other programs or people: a key
given twice or a NaN is refused rather than silently accepted, and a wrong value is described
in plain words (``an array``, ``"QX"``).  Imports nothing from the rest of ``gongzhu``.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["JSONTextError", "describe", "loads_strict", "show"]


class JSONTextError(ValueError):
    """Text that is not strict JSON; the message says where and why."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise JSONTextError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _no_constants(name: str) -> Any:
    raise JSONTextError(f"{name} is not a JSON number")


def loads_strict(text: str, *, with_line: bool = False) -> Any:
    """``json.loads`` refusing duplicate keys and NaN / Infinity; raises :class:`JSONTextError`
    with the decoder's reason and position (the line too for a document of several lines, or
    always ``with_line``)."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constants)
    except json.JSONDecodeError as e:
        where = f"line {e.lineno}, column {e.colno}" if with_line or "\n" in text.strip() else f"column {e.colno}"
        raise JSONTextError(f"{e.msg} ({where})") from None


def describe(value: Any) -> str:
    """What kind of JSON value this is, in words: ``null``, ``a boolean``, ``an array`` …"""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number with a fraction"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def show(value: Any) -> str:
    """A short JSON rendering of a value for a message (cut at 40 characters)."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."
