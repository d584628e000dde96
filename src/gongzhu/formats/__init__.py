"""The wire formats, each declared once as typed msgspec structures.

One module a format: :mod:`~gongzhu.formats.record` (the deal record ``gongzhu-deal/1``, R11),
:mod:`~gongzhu.formats.bot` (requests of the bot protocol ``gongzhu-bot/1``),
:mod:`~gongzhu.formats.web` (the browser's WebSocket messages and the new-match body) and
:mod:`~gongzhu.formats.score` (the input of ``gongzhu score``); :mod:`~gongzhu.formats.schemas`
writes their JSON Schemas to ``docs/schemas/``.

These declarations check the *shape* of a value: which fields, which JSON types, which words.
Whether what it says is possible (a legal play, a record that replays, a deal of whole hands) is
the rules core's and the readers' business, after :func:`typed` has done its part.

Text is parsed by :func:`gongzhu.jsontext.loads_strict` (its limits: nesting depth, digits,
lone surrogates, duplicate keys), then :func:`typed` turns the JSON value into the declared
type; a refusal is a :class:`FormatError` naming the path of the bad field (``$.tricks[3].winner``)
and the value found there.  May import ``msgspec``, :mod:`gongzhu.jsontext` and the rules core
(``gongzhu.rules``); nothing else of ``gongzhu``.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar, overload

import msgspec
import msgspec.inspect as mi

from gongzhu.jsontext import describe, show
from gongzhu.rules.errors import excerpt

__all__ = ["FormatError", "typed"]

T = TypeVar("T")

_AT = re.compile(r"^(?P<reason>.*?)(?: - at `(?P<path>\$[^`]*)`)?$", re.DOTALL)
_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]")
_MISSING = re.compile(r"^Object missing required field `(?P<key>.*)`$", re.DOTALL)
_UNKNOWN = re.compile(r"^Object contains unknown field `(?P<key>.*)`$", re.DOTALL)
_EXPECTED = re.compile(r"^Expected `(?P<want>[^`]+)`(?:, got `[^`]+`)?(?P<rest>.*)$", re.DOTALL)
_WORDS = {
    "int": "an integer", "str": "a string", "bool": "true or false", "object": "an object",
    "array": "an array", "null": "null", "float": "a number", "int | null": "an integer or null",
    "str | null": "a string or null", "array | null": "an array or null", "object | null": "an object or null",
    "str | array": "a string or an array", "array | str": "an array or a string",
}


class FormatError(ValueError):
    """A JSON value that is not of its declared format.  ``path`` is where (``$`` is the whole
    value, ``$.tricks[3].winner`` a field inside it), ``reason`` what is wrong there, naming the
    value found; ``str()`` is ``path: reason``."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class _Absent:
    pass


_ABSENT = _Absent()


def _value_at(value: Any, path: str) -> Any:
    for key, index in _STEP.findall(path[1:]):
        if key and isinstance(value, dict) and key in value:
            value = value[key]
        elif index and isinstance(value, list) and int(index) < len(value):
            value = value[int(index)]
        else:
            return _ABSENT
    return value


def _unwrap(info: mi.Type) -> tuple[mi.Type, str | None]:
    """A type without its metadata, and the description the metadata gives it, if any."""
    description = None
    while isinstance(info, mi.Metadata):
        description = (info.extra_json_schema or {}).get("description", description)
        info = info.type
    return info, description


def _step(info: mi.Type, key: str, index: str, value: Any) -> mi.Type | None:
    info, _ = _unwrap(info)
    if isinstance(info, mi.UnionType):
        for member in info.types:
            inner, _ = _unwrap(member)
            if (index and isinstance(inner, (mi.ListType, mi.TupleType, mi.VarTupleType))) or (
                    key and isinstance(inner, (mi.StructType, mi.DictType))):
                return _step(inner, key, index, value)
        return None
    if key and isinstance(info, mi.StructType):
        if info.tag_field is not None and isinstance(value, dict):
            return None
        return next((f.type for f in info.fields if f.encode_name == key), None)
    if key and isinstance(info, mi.DictType):
        return info.value_type
    if index and isinstance(info, (mi.ListType, mi.VarTupleType)):
        return info.item_type
    return None


def _tags(info: mi.Type | None, key: str) -> mi.LiteralType | None:
    """The tags a tagged struct (or union of them) takes in its tag field ``key``."""
    if info is None:
        return None
    info, _ = _unwrap(info)
    members = [_unwrap(t)[0] for t in info.types] if isinstance(info, mi.UnionType) else [info]
    tags = tuple(m.tag for m in members if isinstance(m, mi.StructType) and m.tag_field == key)
    return mi.LiteralType(tags) if tags else None


def _member(info: mi.Type, node: Any) -> mi.Type:
    """Of a union of tagged structs, the member ``node`` names by its tag (else ``info``)."""
    unwrapped, _ = _unwrap(info)
    if isinstance(unwrapped, mi.UnionType) and isinstance(node, dict):
        structs = [m for m in (_unwrap(t)[0] for t in unwrapped.types) if isinstance(m, mi.StructType)]
        tagged = [s for s in structs if s.tag_field is not None and node.get(s.tag_field) == s.tag]
        if tagged:
            return tagged[0]
    return info


def _type_at(root: Any, path: str, value: Any) -> mi.Type | None:
    info: mi.Type | None = mi.type_info(root)
    node = value
    for key, index in _STEP.findall(path[1:]):
        if info is None:
            return None
        tags = _tags(info, key)
        if tags is not None:
            info = tags
            continue
        unwrapped, _ = _unwrap(_member(info, node))
        if isinstance(unwrapped, mi.StructType) and unwrapped.tag_field is not None:
            info = next((f.type for f in unwrapped.fields if f.encode_name == key), None)
        else:
            info = _step(unwrapped, key, index, node)
        node = node.get(key) if key and isinstance(node, dict) else (
            node[int(index)] if index and isinstance(node, list) and int(index) < len(node) else None)
    return None if info is None else _member(info, node)


def _choices(info: mi.Type | None) -> str | None:
    if info is None:
        return None
    info, description = _unwrap(info)
    if description is not None:
        return description
    if isinstance(info, mi.LiteralType):
        return "one of " + ", ".join(show(v) for v in info.values)
    if isinstance(info, mi.UnionType):
        described = [c for c in map(_choices, info.types) if c is not None]
        nullable = any(isinstance(t, mi.NoneType) for t in info.types)
        if len(described) == 1 and len(info.types) == 1 + nullable:
            return described[0] + (" or null" if nullable else "")
    return None


def _fields(info: mi.Type | None) -> str:
    inner = _unwrap(info)[0] if info is not None else None
    if isinstance(inner, mi.UnionType):
        inner = next((t for t in map(lambda m: _unwrap(m)[0], inner.types) if isinstance(t, mi.StructType)), None)
    if isinstance(inner, mi.StructType):
        if not inner.fields:
            return f": a {inner.tag} message has no other field" if inner.tag is not None else ""
        return ": expected " + ", ".join(repr(f.encode_name) for f in inner.fields)
    return ""


def _explain(error: msgspec.ValidationError, root: Any, value: Any) -> FormatError:
    m = _AT.match(str(error))
    assert m is not None  # the pattern matches any text
    reason, path = m.group("reason"), m.group("path") or "$"
    missing, unknown = _MISSING.match(reason), _UNKNOWN.match(reason)
    if missing:
        key = missing.group("key")
        tags = _choices(_tags(_type_at(root, path, value), key))
        return FormatError(path, f"missing field {excerpt(key)}" + (f": {tags}" if tags else ""))
    if unknown:
        known = _fields(_type_at(root, path, value))
        return FormatError(path, f"unknown field {excerpt(unknown.group('key'))}{known}")
    found = _value_at(value, path)
    expected = _EXPECTED.match(reason)
    mismatch = expected is not None and ", got `" in reason
    if isinstance(found, _Absent):
        shown = ""
    elif found is None:
        shown = "null"
    elif mismatch:  # a value of the wrong kind: say which kind it is
        shown = f"{describe(found)} ({show(found)})"
    elif isinstance(found, list):  # an array of the wrong length
        shown = f"an array of {len(found)} ({show(found)})"
    else:  # a value of the right kind out of its range or choices: the value says it
        shown = show(found)
    wanted = _choices(_type_at(root, path, value))
    if wanted is None and expected is not None:
        wanted = _WORDS.get(expected.group("want"), expected.group("want")) + expected.group("rest")
    if wanted is not None:
        return FormatError(path, f"must be {wanted}, not {shown}" if shown else f"must be {wanted}")
    return FormatError(path, f"{reason[:1].lower()}{reason[1:]}: {shown}" if shown else reason)


@overload
def typed(value: Any, kind: type[T]) -> T: ...
@overload
def typed(value: Any, kind: Any) -> Any: ...
def typed(value: Any, kind: Any) -> Any:
    """``value`` (a JSON value as :func:`~gongzhu.jsontext.loads_strict` returns it) as the
    declared type ``kind``; raises :class:`FormatError` naming the path and the bad value."""
    try:
        return msgspec.convert(value, kind, strict=True)
    except msgspec.ValidationError as e:
        raise _explain(_named_key(e, kind, value), kind, value) from None


def _named_key(error: msgspec.ValidationError, kind: Any, value: Any) -> msgspec.ValidationError:
    """msgspec writes the path of a bad value in an object of free keys as ``[...]``: find the
    key by converting the object one key at a time, and write it into the path."""
    text = str(error)
    at = text.find(" - at `$")
    cut = text.find("[...]", at)
    if at < 0 or cut < 0:
        return error
    parent = text[at + len(" - at `"):cut]
    mapping = _value_at(value, parent)
    if not isinstance(mapping, dict):
        return error
    for key, item in mapping.items():
        mapping_alone = {key: item}
        trial = _replaced(value, parent, mapping_alone)
        try:
            msgspec.convert(trial, kind, strict=True)
        except msgspec.ValidationError as e:
            # A plain short key as it is; any other (odd characters, or long) as a short excerpt.
            step = f".{key}" if key and len(key) <= 40 and not _ODD_KEY.search(key) else f"[{show(key)}]"
            return msgspec.ValidationError(str(e).replace("[...]", step, 1))
    return error


_ODD_KEY = re.compile(r"[.\[\]`]")


def _replaced(value: Any, path: str, new: Any) -> Any:
    """``value`` with the part at ``path`` replaced by ``new`` (copies along the path only)."""
    steps = _STEP.findall(path[1:])
    if not steps:
        return new
    (key, index), rest = steps[0], path[1:][len(_STEP.match(path[1:]).group()):]  # type: ignore[union-attr]
    if key and isinstance(value, dict):
        return {**value, key: _replaced(value[key], "$" + rest, new)}
    if index and isinstance(value, list):
        i = int(index)
        return [*value[:i], _replaced(value[i], "$" + rest, new), *value[i + 1:]]
    return value
