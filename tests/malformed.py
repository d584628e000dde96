"""Malformed variants of valid JSON inputs, for the command-line fuzz tests (test_fuzz_cli.py).

:func:`json_variants` takes one valid JSON object (a deal record, a score input, a bot request)
and yields ``(name, text)``: every value replaced by a value of each wrong kind, every key
removed, unknown keys added, the text cut at many points.  :func:`byte_variants` yields ``(name,
bytes)`` of a valid text with bytes that are not UTF-8, NUL bytes, a byte-order mark, CRLF line
ends, lone surrogates; :data:`HOSTILE` is text no reader should choke on (deep nesting, huge
integers).  Everything is deterministic.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

#: Replacement values of every JSON kind, including huge and odd ones.
WRONG_VALUES: list[tuple[str, Any]] = [
    ("null", None), ("true", True), ("false", False), ("zero", 0), ("minus_one", -1), ("int_52", 52),
    ("int_40_digits", 10**39), ("int_minus_40_digits", -(10**39)), ("int_2_63", 2**63), ("float", 1.5),
    ("float_huge", 1e308), ("minus_zero", -0.0), ("empty_string", ""), ("string_x", "x"),
    ("string_seat", "N"), ("string_card", "QS"), ("string_nul", "\u0000"), ("string_long", "QS" * 5000),
    ("string_cjk", "北猪"), ("empty_list", []), ("list_null", [None]), ("list_list", [[]]),
    ("list_cards", ["QS"] * 60), ("list_objects", [{"seat": "N"}] * 30), ("empty_object", {}),
    ("object", {"a": 1}),
]

#: Text no strict JSON reader may choke on: (name, text).
HOSTILE: list[tuple[str, str]] = [
    ("nesting_100000_arrays", "[" * 100_000 + "]" * 100_000),
    ("nesting_100000_open", "[" * 100_000),
    ("nesting_100000_objects", '{"a":' * 100_000 + "1" + "}" * 100_000),
    ("int_4301_digits", "9" * 4301),
    ("int_100000_digits_in_object", '{"deal_index": ' + "1" * 100_000 + "}"),
    ("float_1e400", '{"deal_index": 1e400}'),
    ("nan", '{"a": NaN}'),
    ("duplicate_key", '{"a": 1, "a": 1}'),
    ("lone_surrogate", '{"match": "\\ud800"}'),
    ("lone_low_surrogate_key", '{"\\udc00": 1}'),
    ("empty", ""),
    ("blank", "  \n\t\n"),
    ("array", "[]"),
    ("string", '"x"'),
    ("number", "1"),
    ("null", "null"),
]


def paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path (keys and indices) into a JSON value, the empty one first."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from paths(item, (*path, i))


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of ``value`` with the value at ``path`` replaced by ``new``."""
    if not path:
        return new
    out = copy.deepcopy(value)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = new
    return out


def _removed(value: Any, path: tuple[Any, ...]) -> Any:
    out = copy.deepcopy(value)
    node = out
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]
    return out


def _name(path: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in path) or "top"


def json_variants(obj: dict[str, Any], *, every: int = 1, cuts: int = 40) -> Iterator[tuple[str, str]]:
    """Malformed variants of ``obj`` as one line of JSON text each: every ``every``-th path gets
    each wrong value and is removed; unknown keys in every object; ``cuts`` truncations."""
    every_path = list(paths(obj))
    for n, path in enumerate(every_path):
        if n % every:
            continue
        for label, new in WRONG_VALUES:
            yield f"{_name(path)}={label}", json.dumps(replaced(obj, path, new), ensure_ascii=False)
        if path:
            yield f"{_name(path)}=removed", json.dumps(_removed(obj, path), ensure_ascii=False)
        node = replaced(obj, (), obj)
        for key in path:
            node = node[key]
        if isinstance(node, dict):
            extra = replaced(obj, path, {**node, "zz_unknown": 1})
            yield f"{_name(path)}+unknown_key", json.dumps(extra, ensure_ascii=False)
    text = json.dumps(obj, ensure_ascii=False)
    step = max(1, len(text) // cuts)
    for i in range(0, len(text), step):
        yield f"cut_at_{i}", text[:i]


def byte_variants(text: str) -> Iterator[tuple[str, bytes]]:
    """``text`` (valid, UTF-8) with bytes that are not UTF-8, NUL bytes, a byte-order mark, CRLF
    line ends, and lone surrogates written as escapes, at a few places."""
    data = text.encode("utf-8")
    middle = len(data) // 2
    yield "bom", b"\xef\xbb\xbf" + data
    yield "bom_twice", b"\xef\xbb\xbf\xef\xbb\xbf" + data
    yield "crlf", data.replace(b"\n", b"\r\n") + b"\r\n"
    yield "cr_only", data.replace(b"\n", b"\r") + b"\r"
    yield "nul_first", b"\x00" + data
    yield "nul_middle", data[:middle] + b"\x00" + data[middle:]
    yield "nul_last", data + b"\x00"
    yield "byte_ff_first", b"\xff" + data
    yield "byte_ff_middle", data[:middle] + b"\xff" + data[middle:]
    yield "byte_c3_last", data + b"\xc3"
    yield "utf16", text.encode("utf-16")
    yield "latin1_e9", data[:middle] + "é".encode("latin-1") + data[middle:]
    yield "encoded_surrogate", data[:middle] + b"\xed\xa0\x80" + data[middle:]
    quote = data.find(b'"', middle)
    if quote >= 0:
        yield "escaped_surrogate", data[: quote + 1] + b"\\ud800" + data[quote + 1 :]
        yield "escaped_low_surrogate", data[: quote + 1] + b"\\udfff" + data[quote + 1 :]
