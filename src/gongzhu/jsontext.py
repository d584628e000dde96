"""Reading JSON from outside strictly, and naming JSON values in error messages.

Records (R11), score inputs and bot requests all come from other programs or people: a key
given twice or a NaN is refused rather than silently accepted, and a wrong value is described
in plain words (``an array``, ``"QX"``).  Imports nothing from the rest of ``gongzhu``.

Limits: a document may nest arrays and objects :data:`MAX_DEPTH` (64) deep, an integer may have
:data:`MAX_INT_DIGITS` (40) digits, a number with a fraction or an exponent must be a finite
double, and no string or key may hold a lone surrogate (``"\\ud800"`` — half of a UTF-16 pair,
not a character).  Every refusal is a :class:`JSONTextError`: nothing from inside the decoder
(``RecursionError``, Python's own 4,300-digit ``ValueError``, ``UnicodeError`` when the text is
written out again) gets out.  Bytes are decoded with :func:`decode_utf8`, which names the offset
of the first byte that is not UTF-8.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

__all__ = [
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "SHOW_CHARS",
    "JSONTextError",
    "decode_utf8",
    "describe",
    "loads_strict",
    "show",
]

#: The deepest nesting of arrays and objects read: ``[[1]]`` is 2 deep.
MAX_DEPTH = 64
#: The most digits an integer may have (a sign does not count).
MAX_INT_DIGITS = 40
#: The longest rendering :func:`show` returns.
SHOW_CHARS = 40


class JSONTextError(ValueError):
    """Text that is not strict JSON; the message says where and why."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise JSONTextError(f"duplicate key {_cut(repr(key))}")
        out[key] = value
    return out


def _no_constants(name: str) -> Any:
    raise JSONTextError(f"{name} is not a JSON number")


def _bounded_int(text: str) -> int:
    digits = len(text) - text.startswith("-")
    if digits > MAX_INT_DIGITS:
        raise JSONTextError(
            f"an integer of {digits} digits ({text[:12]}...): at most {MAX_INT_DIGITS} digits are read"
        )
    return int(text)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONTextError(f"the number {_cut(text)} is too large for a double")
    return value


# A string (to its closing quote, or to the end when unterminated) or a bracket.
_TOKENS = re.compile(r'"(?:[^"\\]+|\\.)*"?|[\[\]{}]', re.DOTALL)
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _where(text: str, pos: int, with_line: bool) -> str:
    line = text.count("\n", 0, pos) + 1
    column = pos - text.rfind("\n", 0, pos)
    return f"line {line}, column {column}" if with_line or "\n" in text.strip() else f"column {column}"


def _check_depth(text: str, with_line: bool) -> None:
    """Refuse nesting deeper than MAX_DEPTH by a linear scan, before the (recursive) decoder."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    depth = 0
    for m in _TOKENS.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise JSONTextError(
                    f"arrays and objects nested more than {MAX_DEPTH} deep ({_where(text, m.start(), with_line)})"
                )
        elif c in "]}":
            depth -= 1


def _surrogate_message(s: str) -> str:
    m = _SURROGATE.search(s)
    assert m is not None
    return f"a string holds the lone surrogate \\u{ord(m.group()):04x}, which is not a character"


def _check_surrogates(value: Any) -> None:
    """Refuse a string or key that holds a lone surrogate (iterative: ``value`` is bounded in
    depth already, but no recursion is needed)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if _SURROGATE.search(v):
                raise JSONTextError(_surrogate_message(v))
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())


def loads_strict(text: str, *, with_line: bool = False) -> Any:
    """``json.loads`` refusing duplicate keys and NaN / Infinity; raises :class:`JSONTextError`
    with the decoder's reason and position (the line too for a document of several lines, or
    always ``with_line``).

    Also refused: nesting deeper than :data:`MAX_DEPTH`, an integer longer than
    :data:`MAX_INT_DIGITS` digits, a number too large for a double, and a lone surrogate in
    a string or key (written as ``\\ud800`` or present in ``text`` itself).
    """
    m = _SURROGATE.search(text)
    if m is not None:
        raise JSONTextError(
            f"the lone surrogate \\u{ord(m.group()):04x} is not a character ({_where(text, m.start(), with_line)})"
        )
    _check_depth(text, with_line)
    try:
        value = json.loads(
            text,
            object_pairs_hook=_no_duplicates,
            parse_constant=_no_constants,
            parse_int=_bounded_int,
            parse_float=_finite_float,
        )
    except json.JSONDecodeError as e:
        raise JSONTextError(f"{e.msg} ({_where(text, e.pos, with_line)})") from None
    except RecursionError:  # not reached after _check_depth; kept so that nothing else gets out
        raise JSONTextError(f"arrays and objects nested more than {MAX_DEPTH} deep") from None
    if _SURROGATE_ESCAPE.search(text):
        _check_surrogates(value)
    return value


def decode_utf8(data: bytes) -> str:
    """``data`` decoded as UTF-8 (a byte-order mark is kept); raises :class:`JSONTextError`
    naming the offset of the first byte that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise JSONTextError(
            f"not valid UTF-8: byte 0x{data[e.start]:02x} at offset {e.start} ({e.reason})"
        ) from None


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


def _escape_surrogates(text: str) -> str:
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _cut(text: str) -> str:
    return text if len(text) <= SHOW_CHARS else text[: SHOW_CHARS - 3] + "..."


def show(value: Any) -> str:
    """A short JSON rendering of a value for a message: at most :data:`SHOW_CHARS` characters,
    always encodable as UTF-8 (a lone surrogate is written as its ``\\ud800`` escape)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 4 * MAX_INT_DIGITS:
        return f"an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits"
    if isinstance(value, str) and len(value) > 4 * SHOW_CHARS:
        value = value[: 4 * SHOW_CHARS]  # no need to render the rest
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except (ValueError, RecursionError):  # a huge integer or a cycle deep inside
        text = f"({describe(value)})"
    return _cut(_escape_surrogates(text))
