"""The message catalog: every text a player reads, in 中文 and English.

``zh.json`` and ``en.json`` (in this package) map the same keys to templates — refusals, hint
reasons, the terminal's phrases, the page's own texts, value words and plural forms; the Python
code renders them with :func:`render`, and the page loads the very same files.  This is the one
package below the rules core: it imports nothing of ``gongzhu`` (only the standard library), so
every layer, the rules core included, may use it.  Keys, templates and plurals:
docs/architecture.md, The message catalog (and docs/web-protocol.md, The message catalog).
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Callable, Mapping
from functools import cache
from importlib import resources
from typing import NamedTuple

__all__ = ["LANGS", "PLURAL", "Text", "catalog", "catalog_bytes", "has", "params_of", "plain", "plural_types",
           "render"]

#: The languages of the catalog; the first is the default of the page.
LANGS = ("zh", "en")

#: Each language's plural category of a number (CLDR's: English ``one`` for 1, ``other`` for
#: the rest; Chinese has only ``other``), which picks ``type.one`` or ``type.other``.
PLURAL: Mapping[str, Callable[[int], str]] = {
    "zh": lambda n: "other",
    "en": lambda n: "one" if abs(n) == 1 else "other",
}

_FIELD = re.compile(r"\{(\w+)(![rs])?(?::([^{}]*))?\}")
_TYPE = re.compile(r"[a-z_]+")
#: A number as a plural parameter may be given: an integer, or its ASCII digits.
_NUMBER = re.compile(r"-?[0-9]+")


@cache
def catalog_bytes(lang: str) -> bytes:
    """The catalog file of ``lang`` as stored (UTF-8 JSON), as the server sends it."""
    if lang not in LANGS:
        raise KeyError(f"no message catalog for language {lang!r}: one of {', '.join(LANGS)}")
    return (resources.files(__name__) / f"{lang}.json").read_bytes()


@cache
def catalog(lang: str) -> Mapping[str, str]:
    """Key -> template of ``lang``."""
    table = json.loads(catalog_bytes(lang))
    assert isinstance(table, dict) and all(isinstance(v, str) for v in table.values()), lang
    return table


def has(key: str) -> bool:
    """Whether ``key`` is in the catalog."""
    return key in catalog("en")


def params_of(template: str) -> set[str]:
    """The parameter names of a template."""
    return {m.group(1) for m in _FIELD.finditer(template)}


def plain(value: object) -> object:
    """A parameter as it is stored and sent: an enum by its name, a tuple as a list."""
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def plural_types(lang: str) -> set[str]:
    """The plural types of ``lang``'s catalog: those with a ``type.other`` entry."""
    return {key[: -len(".other")] for key in catalog(lang) if key.endswith(".other")}


def _count(value: object) -> int | None:
    """``value`` as the number a plural counts, or None when it is no number."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _NUMBER.fullmatch(value):
        return int(value)
    return None


def _word(value: object, kind: str, table: Mapping[str, str], lang: str) -> str:
    if isinstance(value, (list, tuple)):
        sep = table.get(f"sep.{kind}", table["sep.list"])
        return sep.join(_word(v, kind, table, lang) for v in value)
    name = str(plain(value))
    if f"{kind}.{name}" in table:
        return table[f"{kind}.{name}"]
    n = _count(value)
    if n is not None and f"{kind}.other" in table:
        form = table.get(f"{kind}.{PLURAL[lang](n)}", table[f"{kind}.other"])
        return form.replace("#", name)
    return name


def render(key: str, lang: str, params: Mapping[str, object] | None = None) -> str:
    """The template ``key`` of ``lang`` (English for a language the catalog does not have) with
    its parameters filled in; a :class:`KeyError` names a missing key or parameter."""
    lang = lang if lang in LANGS else "en"
    table = catalog(lang)
    values = params or {}

    def field(m: re.Match[str]) -> str:
        name, conversion, spec = m.group(1), m.group(2), m.group(3)
        if name not in values:
            raise KeyError(f"message {key!r} needs the parameter {name!r}")
        value = values[name]
        if conversion == "!r":
            return repr(value)
        if spec and _TYPE.fullmatch(spec):
            return _word(value, spec, table, lang)
        if spec:
            return format(value, spec)
        return str(plain(value))

    return _FIELD.sub(field, table[key])


class Text(NamedTuple):
    """A message not yet in a language: a catalog key and its parameters."""

    key: str
    params: Mapping[str, object] = {}

    def render(self, lang: str) -> str:
        return render(self.key, lang, self.params)

    @staticmethod
    def of(key: str, /, **params: object) -> Text:
        """``Text(key, params)``, the parameters stored plain (see :func:`plain`)."""
        return Text(key, {k: plain(v) for k, v in params.items()})

    @property
    def json(self) -> dict[str, object]:
        """``{"code": key, "params": {...}}``, as the server sends it."""
        return {"code": self.key, "params": dict(self.params)}
