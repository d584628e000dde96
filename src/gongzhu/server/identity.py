"""Who you are on the server: :class:`Identity` makes guests (``游客`` and digits), turns them into
accounts with a nickname and a password that keep the rules, and keeps their sessions, each a row
of ``sessions`` and the cookie ``gongzhu_session`` (``__Host-gongzhu_session`` over https) signed
with ``itsdangerous`` (by the stored ``session_key`` or ``GONGZHU_SECRET_KEY``); the first local
browser continues as the single-player server's person, ``local``; guests with nothing of theirs
kept are forgotten a week on (:meth:`Identity.forget_idle_guests`).  Passwords are argon2id hashes
made in a worker thread (:func:`default_hasher`); :data:`CHEAP_HASHING_ENV` lowers their cost for
test suites only.  The rules, the cookie and how sessions end: ``docs/web-protocol.md``, Who you
are.  Imports :mod:`gongzhu.messages`, :mod:`gongzhu.rules.match` (the titles) and, of the server,
the names, the policy and the store; ``argon2-cffi``, ``itsdangerous``, SQLAlchemy and Starlette.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import math
import os
import re
import secrets
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from itsdangerous import BadData, URLSafeTimedSerializer
from sqlalchemy import ColumnElement, Connection, Row, and_, delete, exists, insert, literal, null, or_, select, update
from sqlalchemy.exc import IntegrityError
from starlette.requests import HTTPConnection, cookie_parser

from gongzhu.messages import Text
from gongzhu.ratings import PROVISIONAL_DEVIATION, Skill
from gongzhu.ratings.skill import SCALE
from gongzhu.rules.match import title_for
from gongzhu.server.names import (
    MOST_MARKS,
    common_password,
    invisible,
    name_key,
    name_skeleton,
    reserved,
    stacked_marks,
)
from gongzhu.server.policy import Attempts, client_address, counted_address
from gongzhu.server.store import (
    BLOCKS,
    CHALLENGE_DEVICES,
    CHALLENGE_ENTRIES,
    CHALLENGE_RESULTS,
    CHALLENGES,
    FRIENDS,
    INVITATIONS,
    KNOWN_DEVICES,
    MATCH_PLAYERS,
    MATCHES,
    NETWORK_KEPT,
    RATING_HISTORY,
    RATINGS,
    REPORTS,
    REVIEWS,
    SANCTIONS,
    SESSIONS,
    SETTINGS,
    USER_NETWORKS,
    USERS,
    Store,
    hold,
)

__all__ = [
    "CHEAP_HASHING_ENV",
    "COOKIE",
    "COOKIE_MAX_AGE",
    "DEVICE_COOKIE",
    "GUESTS_A_SITE",
    "GUESTS_PER_ADDRESS",
    "GUEST_KEPT",
    "GUEST_WINDOW",
    "KNOWN_DEVICES_MOST",
    "LOCAL_USER",
    "NAME_HELD",
    "NAME_MAX",
    "NAME_MIN",
    "PASSWORD_MAX",
    "PASSWORD_MIN",
    "SECRET_ENV",
    "SECURE_PREFIX",
    "AccountError",
    "GuestsRefused",
    "Identity",
    "User",
    "check_name",
    "check_password",
    "default_hasher",
    "device_of",
    "login_key",
    "name_held",
    "name_key",
    "other_name_like",
]

#: The session cookie's name over http; over https it is :data:`SECURE_PREFIX` and this.
COOKIE = "gongzhu_session"
#: What the cookies' names begin with over https (and are read by there, the plain names not):
#: a browser takes such a cookie only from an https page of the very host, with ``Secure`` and
#: ``Path=/`` and no ``Domain`` — a sibling subdomain, another port's page or a plain-http page
#: (a network in the middle) cannot plant one.
SECURE_PREFIX = "__Host-"
#: How long a session lasts without a visit (seconds): 400 days, the most browsers keep a cookie.
COOKIE_MAX_AGE = 400 * 24 * 3600
#: The device cookie's name: a random token the browser keeps (as long as the session cookie), signed
#: in or out, by which an account knows the browsers it was signed in from
#: (:class:`gongzhu.server.accounts.AccountGuard`).  It is no session and proves nothing alone:
#: the database keeps only its digest, with the accounts signed in from it.  Over https it is
#: :data:`SECURE_PREFIX` and this.
DEVICE_COOKIE = "gongzhu_device"
#: The browsers an account remembers: those it was signed in from last.
KNOWN_DEVICES_MOST = 50
_DEVICE_TOKEN = re.compile(r"[A-Za-z0-9_-]{32}")
#: A session cookie older than this is sent again (its 400 days start anew) when it is used.
REFRESH_AFTER = 7 * 24 * 3600
#: The environment variable whose value, when set, signs the cookies instead of the stored key.
SECRET_ENV = "GONGZHU_SECRET_KEY"
#: The environment variable that, set to ``1``, makes :func:`default_hasher` use argon2id's
#: cheapest parameters: for test suites only, which sign up and in hundreds of times (a
#: ``gongzhu serve`` a test starts inherits it).  Such hashes are cheap to guess: never set it
#: where people keep accounts (a server that has it unset again rehashes them at each sign-in).
CHEAP_HASHING_ENV = "GONGZHU_TEST_CHEAP_HASHING"
#: The settings rows: the stored signing key, and whether ``local`` has been claimed.
KEY_SETTING = "session_key"
CLAIMED_SETTING = "local_claimed"
#: The user migration 0002 made of the single-player server's person.
LOCAL_USER = "local"

NAME_MIN, NAME_MAX = 1, 16
PASSWORD_MIN, PASSWORD_MAX = 8, 128
#: Characters a nickname may hold besides letters and digits.
NAME_PUNCTUATION = "_-·"
#: Guests are named ``游客`` and this many digits at first.  The name is stored once, in this form;
#: an English page shows it as ``Guest`` and the same digits (the catalog's ``name.guest``), and
#: :mod:`gongzhu.server.names` keeps both beginnings back from accounts.
GUEST_PREFIX = "游客"
GUEST_DIGITS = 4
#: A guest with nothing of theirs kept (no deal, no result, no rating, no review, no friend, no
#: block, report or sanction, no open table) is forgotten this long after it was made and last
#: seen (:meth:`Identity.forget_idle_guests`): every visit without a cookie makes a guest, and
#: most never play.
GUEST_KEPT = timedelta(days=7)
#: Guests one client address may make in :data:`GUEST_WINDOW` seconds, on one server process
#: (``gongzhu serve --guests-per-address``; 0: no bound): a request that would make one more is
#: refused (429, ``server.too_many_guests``) until the oldest is an hour old.  A household or a
#: club behind one router makes a few; a script sending request after request without a cookie
#: would otherwise fill the database with guests for a week.
GUESTS_PER_ADDRESS = 300
GUEST_WINDOW = 3600.0
#: An IPv6 client counts by its /64, what one subscriber is given; but one given a /56 or a /48
#: holds hundreds or thousands of /64s.  The /48 about it makes at most this many times as many
#: guests as one address.
GUESTS_A_SITE = 8
#: A name given up is held this long (docs/accounts.md): the name an account changed from, from
#: the change, and every name an account had once it is deleted, from the deletion — besides,
#: a deleted account's names, as long as a sanction of it is in force.  Nobody else may take a
#: name held, nor one that looks like it (:func:`name_held`).  No longer than
#: :data:`gongzhu.server.account_care.RENAME_DAYS`: of a live account, only the name it gave up
#: last can still be held.
NAME_HELD = timedelta(days=30)


def default_hasher() -> PasswordHasher:
    """The password hasher of a server: argon2id at ``argon2-cffi``'s default parameters (its
    RFC 9106 low-memory profile), or at the cheapest ones where :data:`CHEAP_HASHING_ENV` is ``1``."""
    if os.environ.get(CHEAP_HASHING_ENV) == "1":
        return PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    return PasswordHasher()


class AccountError(Exception):
    """A refusal a player reads: an HTTP status and a catalog message."""

    def __init__(self, status: int, text: Text) -> None:
        super().__init__(text.render("en"))
        self.status = status
        self.text = text

    @property
    def json(self) -> dict[str, object]:
        """``{"error": English, "message_zh", "code", "params"}``, as the routes answer it."""
        return {"error": self.text.render("en"), "message_zh": self.text.render("zh"), **self.text.json}


class GuestsRefused(AccountError):
    """No new guest for this address now (:data:`GUESTS_PER_ADDRESS`): ``wait`` seconds until one
    may be made."""

    def __init__(self, wait: float) -> None:
        self.wait = max(1, math.ceil(wait))
        super().__init__(429, Text.of("server.too_many_guests", seconds=self.wait))


@dataclass(frozen=True, slots=True)
class User:
    """A person as the server knows them.  ``guest``: a generated name, no account;
    ``account``: has a password (the user ``local`` of an earlier server is neither until it
    registers)."""

    id: str
    name: str
    guest: bool
    account: bool
    lifetime: int
    deals: int
    matches: int
    pigs: int
    practice: int = 0
    practice_deals: int = 0

    @property
    def title(self) -> str:
        """The title of the lifetime score (R8)."""
        return title_for(self.lifetime)

    def to_json(self) -> dict[str, Any]:
        """``GET /api/me``: id, name, guest, lifetime, title, deals, matches, pigs, and practice
        (the score and the deals of practice against computers, apart)."""
        return {"id": self.id, "name": self.name, "guest": self.guest, "lifetime": self.lifetime,
                "title": self.title, "deals": self.deals, "matches": self.matches, "pigs": self.pigs,
                "practice": {"score": self.practice, "deals": self.practice_deals}}


def _user(row: Row[Any]) -> User:
    m = row._mapping
    return User(id=m["id"], name=m["name"], guest=bool(m["guest"]), account=m["password_hash"] is not None,
                lifetime=int(m["lifetime"]), deals=int(m["deals"]), matches=int(m["matches"]), pigs=int(m["pigs"]),
                practice=int(m["practice"]), practice_deals=int(m["practice_deals"]))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _idle_guest(cutoff: str) -> ColumnElement[bool]:
    """The guests :meth:`Identity.forget_idle_guests` forgets: made and last seen before ``cutoff``,
    with no score, no deal and no row of theirs in any table that names people."""
    me = USERS.c.id
    theirs = (
        MATCH_PLAYERS.c.user_id == me, CHALLENGE_RESULTS.c.user_id == me, CHALLENGE_DEVICES.c.user_id == me,
        CHALLENGE_ENTRIES.c.user_id == me,
        RATINGS.c.user_id == me,
        RATING_HISTORY.c.user_id == me, REVIEWS.c.user_id == me,
        or_(FRIENDS.c.user_id == me, FRIENDS.c.other_id == me), or_(BLOCKS.c.user_id == me, BLOCKS.c.blocked_id == me),
        or_(REPORTS.c.reporter == me, REPORTS.c.reported == me),
        or_(INVITATIONS.c.to_user == me, INVITATIONS.c.from_user == me),
        or_(SANCTIONS.c.user_id == me, SANCTIONS.c.operator == me),
    )
    return and_(
        USERS.c.guest.is_(True), USERS.c.password_hash.is_(None), USERS.c.deleted.is_(None), me != LOCAL_USER,
        USERS.c.created < cutoff, or_(USERS.c.last_seen.is_(None), USERS.c.last_seen < cutoff),
        USERS.c.lifetime == 0, USERS.c.deals == 0, USERS.c.matches == 0, USERS.c.pigs == 0,
        USERS.c.practice == 0, USERS.c.practice_deals == 0, USERS.c.role.is_(None),
        *(~exists().where(clause) for clause in theirs),
    )


# ---------------------------------------------------------------------- names and passwords


def login_key(name: str) -> str:
    """The key of a name as typed to sign in or to look a player up (spaces around it dropped)."""
    return name_key(unicodedata.normalize("NFKC", name).strip())


def _shown(char: str) -> str:
    """A character as a refusal quotes it: itself when it shows, else ``U+XXXX``."""
    return char if char.isprintable() and not char.isspace() and not invisible(char) else f"U+{ord(char):04X}"


def check_name(name: str) -> str:
    """The nickname ``name`` as stored (NFKC, outer spaces dropped); :class:`AccountError` (400)
    when it breaks the rules of ``docs/web-protocol.md``, Who you are, Names (the length, the
    characters, a name that shows nothing or holds a character that shows nothing, a name kept
    back: :mod:`gongzhu.server.names`).  Whether it looks like another account's name is
    :meth:`Identity.register`'s to say."""
    clean = unicodedata.normalize("NFKC", name).strip()
    if not NAME_MIN <= len(clean) <= NAME_MAX:
        raise AccountError(400, Text.of("server.account_name_length", min=NAME_MIN, max=NAME_MAX))
    if all(invisible(char) or char.isspace() for char in clean):  # quoted as typed (NFKC: U+3164 is U+1160)
        typed = next((char for char in name if not char.isspace()), clean[0])
        raise AccountError(400, Text.of("server.account_name_invisible", char=_shown(typed)))
    for i, char in enumerate(clean):
        kind = unicodedata.category(char)
        if not (kind[0] == "L" or kind == "Nd" or char in NAME_PUNCTUATION or (kind in ("Mn", "Mc") and i > 0)):
            raise AccountError(400, Text.of("server.account_name_chars", char=_shown(char)))
    hidden = next((char for char in clean if invisible(char)), None)
    if hidden is not None:
        typed = next((char for char in name if invisible(char)), hidden)
        raise AccountError(400, Text.of("server.account_name_hidden", char=_shown(typed)))
    if stacked_marks(clean) > MOST_MARKS:
        raise AccountError(400, Text.of("server.account_name_marks", limit=MOST_MARKS))
    why = reserved(clean)  # (a deleted account's name too)
    if why is not None:
        raise AccountError(400, Text.of(why, name=clean))
    return clean


def other_name_like(c: Connection, look: str, me: str) -> str | None:
    """The name of another person whose name looks like ``look`` (:func:`name_skeleton`), read in
    ``c``'s transaction once it holds that look: two people giving names that look alike at one
    moment (signing up or renaming, on one server or several) are then checked one after the
    other, and the second sees the first's name (:func:`~gongzhu.server.store.hold`, by the look;
    on SQLite a write of ``me``'s row that changes nothing)."""
    hold(c, "name " + look, me)
    name: str | None = c.scalar(select(USERS.c.name).where(USERS.c.name_skeleton == look, USERS.c.id != me)
                                .order_by(USERS.c.created, USERS.c.id).limit(1))
    return name


def _in_force(now: str) -> ColumnElement[bool]:
    """The user's row has a sanction in force at ``now`` (not lifted, with no end or a later one:
    as an operator's card counts it, gongzhu.server.moderation)."""
    return exists().where(SANCTIONS.c.user_id == USERS.c.id, SANCTIONS.c.lifted.is_(None),
                          or_(SANCTIONS.c.ends.is_(None), SANCTIONS.c.ends > now))


def _holding(now: datetime) -> ColumnElement[bool]:
    """The rows whose names are held at ``now`` (:data:`NAME_HELD`): an account renamed since
    :data:`NAME_HELD` before (the name it gave up last), an account deleted since then or with a
    sanction in force (every name it had: kept in ``former_names`` for this)."""
    cutoff = (now - NAME_HELD).isoformat(timespec="microseconds")
    return and_(USERS.c.former_names.is_not(None), or_(
        and_(USERS.c.deleted.is_(None), USERS.c.renamed >= cutoff),
        and_(USERS.c.deleted.is_not(None),
             or_(USERS.c.deleted >= cutoff, _in_force(now.isoformat(timespec="microseconds"))))))


def name_held(c: Connection, key: str, look: str, me: str | None = None) -> bool:
    """Whether a name of the key ``key`` (:func:`name_key`) and the look ``look``
    (:func:`name_skeleton`) is held by someone but ``me`` (:data:`NAME_HELD`): it is, or looks
    like, a name held.  Read in ``c``: a change of name or a deletion stores the name it gives up
    in the transaction that frees it, so a reader finds the name either still the account's or
    held."""
    query = select(USERS.c.deleted, USERS.c.former_names).where(_holding(datetime.now(UTC)))
    if me is not None:
        query = query.where(USERS.c.id != me)
    for row in c.execute(query):
        names = row.former_names or []
        for name in names if row.deleted is not None else names[-1:]:
            if name_key(name) == key or name_skeleton(name) == look:
                return True
    return False


def check_password(password: str) -> None:
    """:class:`AccountError` (400) for a password too short or too long, of spaces (or characters
    that show nothing) only, or one of the most common ones (:func:`gongzhu.server.names.common_password`)."""
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise AccountError(400, Text.of("server.account_password_length", min=PASSWORD_MIN, max=PASSWORD_MAX))
    if all(char.isspace() or invisible(char) for char in password):
        raise AccountError(400, Text.of("server.account_password_blank"))
    if common_password(password):
        raise AccountError(400, Text.of("server.account_password_common"))


def _loopback(host: str | None) -> bool:
    if not host:
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def _site(address: str) -> str | None:
    """The IPv6 /48 about a counted address (an IPv6 client's /64); None for any other."""
    try:
        network = ipaddress.ip_network(address, strict=False)
    except ValueError:
        return None
    return str(network.supernet(new_prefix=48)) if network.version == 6 and network.prefixlen >= 48 else None


def _cookie(name: str, value: str, max_age: int, secure: bool) -> str:
    """A ``Set-Cookie`` value for the cookie ``name`` (:data:`COOKIE`, :data:`DEVICE_COOKIE`),
    named with :data:`SECURE_PREFIX` over https."""
    attributes = f"HttpOnly; Max-Age={max_age}; Path=/; SameSite=Lax" + ("; Secure" if secure else "")
    return f"{_named(name, secure)}={value}; {attributes}"


def _named(name: str, secure: bool) -> str:
    return SECURE_PREFIX + name if secure else name


def device_of(connection: HTTPConnection) -> str | None:
    """The browser's device token (its :data:`DEVICE_COOKIE`), or None without a well-formed one."""
    token = connection.cookies.get(_named(DEVICE_COOKIE, _secure(connection)))
    return token if token is not None and _DEVICE_TOKEN.fullmatch(token) else None


def _secure(connection: HTTPConnection | Mapping[str, Any]) -> bool:
    scheme = connection.url.scheme if isinstance(connection, HTTPConnection) else connection.get("scheme")
    return scheme in ("https", "wss")


def _digest(token: str) -> str:
    """A session's row id, or a known browser's: the SHA-256 of its cookie's token (the database
    never holds the token)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


# ---------------------------------------------------------------------- the identity service


@dataclass(frozen=True, slots=True)
class _Session:
    user_id: str
    epoch: int
    age: float  # seconds since the cookie was signed
    token: str | None  # None: a cookie of an earlier server, kept by no row of ``sessions``


class Identity:
    """Guests, accounts and sessions on a :class:`~gongzhu.server.store.Store` (see
    ``docs/web-protocol.md``, Who you are).  ``hasher`` replaces :func:`default_hasher`'s argon2id
    parameters."""

    def __init__(self, store: Store, *, hasher: PasswordHasher | None = None,
                 guests_per_address: int = GUESTS_PER_ADDRESS) -> None:
        self.store = store
        self.hasher = hasher or default_hasher()
        #: The guests made from each address in the last :data:`GUEST_WINDOW`, and from each IPv6
        #: /48 (:data:`GUESTS_A_SITE` times as many); None: no bound.
        self.new_guests = Attempts(guests_per_address, GUEST_WINDOW) if guests_per_address else None
        self.new_guests_a_site = Attempts(GUESTS_A_SITE * guests_per_address, GUEST_WINDOW)
        self._serializer: URLSafeTimedSerializer | None = None
        self._network_key: bytes | None = None
        self._stand_in: str | None = None
        #: Told the user id whenever sessions of that user end (sign-out, sign-up, signing in over
        #: a session): the application closes its connections that no longer have one.
        self.on_ended: Callable[[str], None] | None = None
        #: Told of an account deleted (its id, every name it had, its neutral name), on the event
        #: loop: the application's open tables forget those names.
        self.on_deleted: Callable[[str, Sequence[str], str], None] | None = None
        #: Why a user may not sign in now (a suspension or a ban, gongzhu.server.moderation), or
        #: None; set by the application.
        self.barred: Callable[[str], Text | None] | None = None

    # ------------------------------------------------------------------ the signing key

    def _signer(self) -> URLSafeTimedSerializer:
        if self._serializer is None:
            key = os.environ.get(SECRET_ENV) or self._stored_key()
            self._serializer = URLSafeTimedSerializer(key, salt="gongzhu.session")
        return self._serializer

    def _stored_key(self) -> str:
        """The ``session_key`` setting, made now if there is none: insert if absent, then read,
        so that servers starting at once on one database agree on it."""
        engine = self.store.engine
        with engine.connect() as c:
            key = c.scalar(select(SETTINGS.c.value).where(SETTINGS.c.name == KEY_SETTING))
        if key is None:
            try:
                with engine.begin() as c:
                    c.execute(insert(SETTINGS).values(name=KEY_SETTING, value=secrets.token_urlsafe(48)))
            except IntegrityError:
                pass  # another server made it first
            with engine.connect() as c:
                key = c.scalar(select(SETTINGS.c.value).where(SETTINGS.c.name == KEY_SETTING))
        assert isinstance(key, str)
        return key

    # ------------------------------------------------------------------ reading a session

    def _session(self, token: str | None) -> _Session | None:
        if not token:
            return None
        try:
            payload, signed = self._signer().loads(token, max_age=COOKIE_MAX_AGE, return_timestamp=True)
        except BadData:  # forged, tampered with, expired, or not a cookie of ours
            return None
        if not (isinstance(payload, list) and len(payload) in (2, 3) and isinstance(payload[0], str)
                and isinstance(payload[1], int) and not isinstance(payload[1], bool)
                and (len(payload) == 2 or isinstance(payload[2], str))):
            return None
        age = (datetime.now(UTC) - signed).total_seconds()
        return _Session(payload[0], payload[1], age, payload[2] if len(payload) == 3 else None)

    @staticmethod
    def _token(source: HTTPConnection | Mapping[str, Any]) -> str | None:
        if isinstance(source, HTTPConnection):
            return source.cookies.get(_named(COOKIE, _secure(source)))
        if "type" in source and "headers" in source:  # an ASGI scope
            header = "; ".join(value.decode("latin-1") for name, value in source["headers"] if name == b"cookie")
            return cookie_parser(header).get(_named(COOKIE, _secure(source)))
        token = source.get(COOKIE)
        return token if isinstance(token, str) else None

    def _current(self, source: HTTPConnection | Mapping[str, Any]) -> tuple[User, _Session] | None:
        session = self._session(self._token(source))
        if session is None:
            return None
        query = select(USERS).where(USERS.c.id == session.user_id)
        if session.token is not None:
            query = query.join(SESSIONS, SESSIONS.c.user_id == USERS.c.id).where(
                SESSIONS.c.id == _digest(session.token))
        with self.store.engine.connect() as c:
            row = c.execute(query).first()
        if row is None or (session.token is None and row._mapping["session_epoch"] != session.epoch):
            # A user no longer there, or a session that ended: a session of its own row lasts as
            # long as the row, and an earlier server's cookie until the user's epoch is raised
            # (every change that raises it also deletes the rows).
            return None
        return _user(row), session

    def user_for(self, source: HTTPConnection | Mapping[str, Any]) -> User | None:
        """The user of a request or WebSocket (a Starlette connection, an ASGI scope, or the
        cookies as a mapping), or None without a valid session.  Changes nothing."""
        current = self._current(source)
        return current[0] if current is not None else None

    def user(self, user_id: str) -> User | None:
        with self.store.engine.connect() as c:
            row = c.execute(select(USERS).where(USERS.c.id == user_id)).first()
        return _user(row) if row is not None else None

    # ------------------------------------------------------------------ making a session

    def cookie(self, user: User, *, secure: bool, checked: tuple[str, int] | None = None) -> str:
        """A ``Set-Cookie`` value that signs ``user`` in: a new session (at the user's current
        epoch).  With ``checked`` (the password hash a sign-in checked the password against, and
        the user's epoch read with it), only while both are still the row's, in one statement
        after the row's lock: a password changed or reset, sessions ended or the account deleted
        while the password was being checked refuse it (401 ``server.account_wrong_login``), and
        no session outlives them."""
        token = secrets.token_urlsafe(24)
        row = {"id": _digest(token), "user_id": user.id, "created": _now()}
        with self.store.engine.begin() as c:
            epoch = c.scalar(select(USERS.c.session_epoch).where(USERS.c.id == user.id).with_for_update())
            if checked is None:
                c.execute(insert(SESSIONS).values(**row))
            else:
                still = select(*(literal(v).label(k) for k, v in row.items())).where(exists().where(
                    USERS.c.id == user.id, USERS.c.password_hash == checked[0], USERS.c.session_epoch == checked[1],
                    USERS.c.deleted.is_(None)))
                made = c.execute(insert(SESSIONS).from_select(list(row), still).returning(SESSIONS.c.id)).first()
                if made is None:
                    raise AccountError(401, Text.of("server.account_wrong_login"))
        return self._signed(user.id, int(epoch or 0), token, secure)

    def _signed(self, user_id: str, epoch: int, token: str, secure: bool) -> str:
        value = self._signer().dumps([user_id, epoch, token])
        assert isinstance(value, str)
        return _cookie(COOKIE, value, COOKIE_MAX_AGE, secure)

    @staticmethod
    def cleared_cookie(*, secure: bool) -> str:
        """A ``Set-Cookie`` value that removes the session cookie."""
        return _cookie(COOKIE, "", 0, secure)

    def ensure(self, request: HTTPConnection, *, counted: bool = True) -> tuple[User, str | None]:
        """The request's user, made when it has no session: the user ``local`` for the first
        browser on the server's own machine while it is unclaimed, else a new guest (refused,
        :class:`GuestsRefused`, past :data:`GUESTS_PER_ADDRESS`, unless not ``counted``: a guest
        made to become an account at once, which new accounts' own bound counts).  Returns the
        user and a ``Set-Cookie`` value to send (None when the cookie is current)."""
        current = self._current(request)
        if current is not None:
            user, session = current
            if session.token is None:  # an earlier server's cookie: a session of its own from now on
                return user, self.cookie(user, secure=_secure(request))
            if session.age > REFRESH_AFTER:
                return user, self._signed(user.id, session.epoch, session.token, _secure(request))
            return user, None
        claimed = self._claim_local() if _loopback(client_address(request)) else None
        if claimed is None and counted and self.new_guests is not None:
            address = counted_address(request)
            counts = [(self.new_guests, address)]
            site = _site(address)
            if site is not None:
                counts.append((self.new_guests_a_site, site))
            wait = max(count.due(key) for count, key in counts)
            if wait > 0:
                raise GuestsRefused(wait)
            for count, key in counts:
                count.add(key)
        user = claimed or self.new_guest()
        return user, self.cookie(user, secure=_secure(request))

    # ------------------------------------------------------------------ the browsers known

    @staticmethod
    def device(request: HTTPConnection) -> tuple[str, str | None]:
        """The request's device token and a ``Set-Cookie`` value that gives the browser one (None
        when it has one already)."""
        token = device_of(request)
        if token is not None:
            return token, None
        token = secrets.token_urlsafe(24)
        return token, _cookie(DEVICE_COOKIE, token, COOKIE_MAX_AGE, _secure(request))

    @staticmethod
    def knows(c: Connection, user_id: str, device: str) -> bool:
        """Whether ``user_id`` was signed in from the browser of the device token ``device``, and
        trusts it still (not signed out since by its owner's ending the other sessions or a new
        password)."""
        return c.scalar(select(KNOWN_DEVICES.c.last_seen).where(
            KNOWN_DEVICES.c.user_id == user_id, KNOWN_DEVICES.c.device == _digest(device),
            KNOWN_DEVICES.c.trusted.is_(True))) is not None

    def browsers(self, user_id: str, device: str) -> list[str]:
        """The digests of the browser of ``device`` and of every browser known to ``user_id``, that
        one first."""
        mine = _digest(device)
        with self.store.engine.connect() as c:
            known = c.scalars(select(KNOWN_DEVICES.c.device).where(KNOWN_DEVICES.c.user_id == user_id,
                                                                   KNOWN_DEVICES.c.device != mine))
            return [mine, *known]

    def network_of(self, connection: HTTPConnection) -> str | None:
        """A keyed digest of the client's network (:func:`~gongzhu.server.policy.counted_address`:
        an IPv4 address, an IPv6 /64), or None for one not on the internet — loopback, a private
        network, a proxy not trusted that all clients would share: nothing to tell people apart
        by.  Keyed by the signing key, so that the database holds no address."""
        counted = counted_address(connection)
        try:
            network = ipaddress.ip_network(counted, strict=False)
        except ValueError:
            return None
        if not network.network_address.is_global:
            return None
        if self._network_key is None:
            self._network_key = (os.environ.get(SECRET_ENV) or self._stored_key()).encode()
        return hmac.new(self._network_key, str(network).encode(), hashlib.sha256).hexdigest()

    def came_from(self, user_id: str, connection: HTTPConnection) -> None:
        """``user_id``'s table page came from the client's network (:meth:`network_of`): kept for
        :data:`NETWORK_KEPT` from now."""
        network = self.network_of(connection)
        if network is None:
            return
        now = _now()
        try:
            with self.store.engine.begin() as c:
                if not c.execute(update(USER_NETWORKS).where(USER_NETWORKS.c.user_id == user_id,
                                                              USER_NETWORKS.c.network == network)
                                 .values(last_seen=now)).rowcount:
                    c.execute(insert(USER_NETWORKS).values(user_id=user_id, network=network, last_seen=now))
        except IntegrityError:  # kept by another page of theirs at that moment
            pass

    def accounts_of_browser(self, device: str) -> list[str]:
        """The accounts signed in from the browser of ``device`` (known to them, trusted or not)."""
        with self.store.engine.connect() as c:
            return list(c.scalars(select(KNOWN_DEVICES.c.user_id).where(KNOWN_DEVICES.c.device == _digest(device))))

    def barred_here(self, device: str) -> bool:
        """Whether an account signed in from the browser of ``device`` is barred now (suspended or
        banned: :attr:`barred`)."""
        barred = self.barred
        return barred is not None and any(barred(u) is not None for u in self.accounts_of_browser(device))

    def knows_now(self, user_id: str, device: str) -> bool:
        """:meth:`knows`, in a connection of its own."""
        with self.store.engine.connect() as c:
            return self.knows(c, user_id, device)

    def remember(self, user_id: str, device: str) -> None:
        """``user_id`` was signed in from the browser of ``device``: it is known to the account,
        and trusted, from now on (the :data:`KNOWN_DEVICES_MOST` signed in from last; every
        browser another account was signed in from too stays known, no longer trusted once
        older than those: it links the two accounts — one person's, or one household's — and new
        browsers must not undo the link)."""
        now, digest = _now(), _digest(device)
        try:
            with self.store.engine.begin() as c:
                if not c.execute(update(KNOWN_DEVICES).where(KNOWN_DEVICES.c.user_id == user_id,
                                                              KNOWN_DEVICES.c.device == digest)
                                 .values(last_seen=now, trusted=True)).rowcount:
                    c.execute(insert(KNOWN_DEVICES).values(user_id=user_id, device=digest, last_seen=now,
                                                           trusted=True, since=now))
                kept = select(KNOWN_DEVICES.c.device).where(KNOWN_DEVICES.c.user_id == user_id).order_by(
                    KNOWN_DEVICES.c.last_seen.desc(), KNOWN_DEVICES.c.device).limit(KNOWN_DEVICES_MOST)
                other = KNOWN_DEVICES.alias("other")
                shared = exists().where(other.c.device == KNOWN_DEVICES.c.device, other.c.user_id != user_id)
                older = KNOWN_DEVICES.c.device.not_in(kept.scalar_subquery())
                c.execute(delete(KNOWN_DEVICES).where(KNOWN_DEVICES.c.user_id == user_id, ~shared, older))
                c.execute(update(KNOWN_DEVICES).where(KNOWN_DEVICES.c.user_id == user_id, older,
                                                      KNOWN_DEVICES.c.trusted.is_(True)).values(trusted=False))
        except IntegrityError:  # remembered by another request from the browser at that moment
            pass

    def _claim_local(self) -> User | None:
        engine = self.store.engine
        with engine.connect() as c:
            if c.scalar(select(SETTINGS.c.value).where(SETTINGS.c.name == CLAIMED_SETTING)) is not None:
                return None
            row = c.execute(select(USERS).where(USERS.c.id == LOCAL_USER)).first()
        if row is None:
            return None
        try:
            with engine.begin() as c:
                c.execute(insert(SETTINGS).values(name=CLAIMED_SETTING, value=_now()))
        except IntegrityError:
            return None  # claimed by a request at the same moment
        return _user(row)

    def new_guest(self) -> User:
        """A new guest, ``游客`` and four random digits (more once those keep colliding)."""
        for attempt in range(60):
            digits = GUEST_DIGITS + attempt // 10
            name = f"{GUEST_PREFIX}{secrets.randbelow(10**digits):0{digits}d}"
            user_id = f"u-{secrets.token_hex(8)}"
            try:
                with self.store.engine.begin() as c:
                    c.execute(insert(USERS).values(
                        id=user_id, name=name, name_key=name_key(name), password_hash=None, guest=True,
                        created=_now(), lifetime=0, deals=0, matches=0, pigs=0, session_epoch=0))
            except IntegrityError:
                continue
            return User(id=user_id, name=name, guest=True, account=False, lifetime=0, deals=0, matches=0, pigs=0)
        raise RuntimeError("no free guest name after 60 tries")

    def seen(self, user: User) -> bool:
        """Mark the guest ``user`` as seen now, as it is about to sit at, watch or host a table:
        the sweep (:meth:`forget_idle_guests`), which checks when each guest was last seen in
        the statement that deletes it, then keeps it even when it read the tables' seats before
        this one took its seat.  False when the guest was forgotten a moment ago (its session
        ended with it); an account is not written to and is always True."""
        if user.account or not user.guest:
            return True
        with self.store.engine.begin() as c:
            done = c.execute(update(USERS).where(USERS.c.id == user.id, USERS.c.password_hash.is_(None))
                             .values(last_seen=_now())).rowcount
        return bool(done)

    def forget_idle_guests(self, now: datetime | None = None, *, batch: int = 500) -> set[str]:
        """Delete the guests with nothing of theirs kept, made and last seen more than
        :data:`GUEST_KEPT` before ``now``, with their sessions (a browser that comes back is a
        new guest); ``batch`` at a time, each in one transaction.  The ids forgotten: the
        caller closes their connections (:attr:`on_ended`).  First, the deleted accounts whose
        names are held no more (:data:`NAME_HELD`) forget them, the networks kept longer than
        :data:`NETWORK_KEPT` are forgotten, and so are the browsers that entered a challenge
        closed."""
        moment = now or datetime.now(UTC)
        with self.store.engine.begin() as c:
            c.execute(update(USERS).where(USERS.c.deleted.is_not(None), USERS.c.former_names.is_not(None),
                                          ~_holding(moment)).values(former_names=null()))
            c.execute(delete(USER_NETWORKS).where(
                USER_NETWORKS.c.last_seen < (moment - NETWORK_KEPT).isoformat(timespec="microseconds")))
            # A challenge closed takes no entry more: which browsers entered it is forgotten.
            closed = select(CHALLENGES.c.id).where(CHALLENGES.c.closes <= moment.isoformat()).scalar_subquery()
            c.execute(delete(CHALLENGE_DEVICES).where(CHALLENGE_DEVICES.c.challenge_id.in_(closed)))
        cutoff = (moment - GUEST_KEPT).isoformat(timespec="microseconds")
        idle = _idle_guest(cutoff)
        forgotten: set[str] = set()
        after = ""
        while True:
            with self.store.engine.connect() as c:
                listed = list(c.scalars(select(USERS.c.id).where(idle, USERS.c.id > after)
                                        .order_by(USERS.c.id).limit(batch)))
                if not listed:
                    return forgotten
                after, found = listed[-1], set(listed)
                # seated at, or hosting, a table not over: its seats are JSON, read here
                for host, seats in c.execute(select(MATCHES.c.host, MATCHES.c.seats).where(MATCHES.c.status != "over")):
                    found.discard(host)
                    found.difference_update(seat.get("user") for seat in seats or ())
            if found:
                try:
                    with self.store.engine.begin() as c:
                        still = select(USERS.c.id).where(USERS.c.id.in_(found), idle)
                        c.execute(delete(SESSIONS).where(SESSIONS.c.user_id.in_(still)))
                        c.execute(delete(USER_NETWORKS).where(USER_NETWORKS.c.user_id.in_(still)))
                        forgotten.update(c.scalars(delete(USERS).where(USERS.c.id.in_(found), idle)
                                                   .returning(USERS.c.id)))
                except IntegrityError:  # one of them kept something at that moment: next time
                    return forgotten
            if len(listed) < batch:
                return forgotten

    # ------------------------------------------------------------------ accounts

    async def register(self, request: HTTPConnection, name: str, password: str) -> tuple[User, str]:
        """Turn the request's user (a guest, or ``local`` without a password; made by
        :meth:`ensure` when there is none) into the account ``name``; returns it and the
        ``Set-Cookie`` value of a new session: every earlier session of the user ends (its epoch
        is raised), so a cookie someone knew before is not the account.  :class:`AccountError`:
        signed in to an account (409), the name's or the password's rules (400), the name taken
        or looking like another person's (409: their names' skeletons are one,
        :func:`gongzhu.server.names.name_skeleton`), or held (409, as taken: :func:`name_held`)."""
        current = self.user_for(request)
        if current is not None and current.account:
            raise AccountError(409, Text.of("server.account_signed_in", name=current.name))
        clean = check_name(name)
        check_password(password)
        key, look = name_key(clean), name_skeleton(clean)
        taken = AccountError(409, Text.of("server.account_name_taken", name=clean))
        with self.store.engine.connect() as c:
            holder = c.scalar(select(USERS.c.id).where(USERS.c.name_key == key))
            alike = c.execute(select(USERS.c.id, USERS.c.name).where(USERS.c.name_skeleton == look)
                              .order_by(USERS.c.created, USERS.c.id)).all()
            held = name_held(c, key, look, current.id if current is not None else None)
        if holder is not None and (current is None or holder != current.id):
            raise taken
        other = next((row.name for row in alike if current is None or row.id != current.id), None)
        if other is not None:
            raise AccountError(409, Text.of("server.account_name_like", name=clean, other=other))
        if held:  # given up a moment ago, or an account's deleted (docs/accounts.md)
            raise taken
        hashed = await asyncio.to_thread(self.hasher.hash, password)
        user, _ = self.ensure(request, counted=False) if current is None else (current, None)
        try:
            with self.store.engine.begin() as c:
                other = other_name_like(c, look, user.id)  # checked again, one at a time
                if other is not None:
                    raise AccountError(409, Text.of("server.account_name_like", name=clean, other=other))
                if name_held(c, key, look, user.id):
                    raise taken
                done = c.execute(
                    update(USERS).where(USERS.c.id == user.id, USERS.c.password_hash.is_(None))
                    .values(name=clean, name_key=key, name_skeleton=look, password_hash=hashed, guest=False,
                            session_epoch=USERS.c.session_epoch + 1)).rowcount
                if done:
                    c.execute(delete(SESSIONS).where(SESSIONS.c.user_id == user.id))
        except IntegrityError:
            raise taken from None
        if not done:  # became an account meanwhile
            raise AccountError(409, Text.of("server.account_signed_in", name=user.name))
        self._ended(user.id)  # a connection opened with the guest's cookie is not the account's
        registered = self.user(user.id)
        assert registered is not None
        return registered, self.cookie(registered, secure=_secure(request))

    def _verify(self, stored: str, password: str) -> bool:
        try:
            return self.hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False

    async def login(self, request: HTTPConnection, name: str, password: str) -> tuple[User, str]:
        """Sign in to the account ``name``; returns it and the ``Set-Cookie`` value of a new
        session (the session the request had ends), or :class:`AccountError` (401) for an unknown
        name or a wrong password alike."""
        with self.store.engine.connect() as c:
            row = c.execute(select(USERS).where(USERS.c.name_key == login_key(name),
                                                USERS.c.password_hash.is_not(None))).first()
        if row is None:
            if self._stand_in is None:
                self._stand_in = await asyncio.to_thread(self.hasher.hash, secrets.token_urlsafe(16))
            await asyncio.to_thread(self._verify, self._stand_in, password)
            raise AccountError(401, Text.of("server.account_wrong_login"))
        stored: str = row._mapping["password_hash"]
        if not await asyncio.to_thread(self._verify, stored, password):
            raise AccountError(401, Text.of("server.account_wrong_login"))
        user = _user(row)
        holding = stored
        if self.hasher.check_needs_rehash(stored):
            hashed = await asyncio.to_thread(self.hasher.hash, password)
            with self.store.engine.begin() as c:
                if c.execute(update(USERS).where(USERS.c.id == user.id, USERS.c.password_hash == stored)
                             .values(password_hash=hashed)).rowcount:
                    holding = hashed
                else:  # hashed again meanwhile by another sign-in of theirs (or changed: checked below)
                    holding = c.scalar(select(USERS.c.password_hash).where(USERS.c.id == user.id)) or stored
            if holding not in (stored, hashed) and not await asyncio.to_thread(self._verify, holding, password):
                raise AccountError(401, Text.of("server.account_wrong_login"))
        why = self.barred(user.id) if self.barred is not None else None
        if why is not None:
            raise AccountError(403, why)
        try:  # (the password checked is still the account's: not changed, reset or deleted meanwhile)
            cookie = self.cookie(user, secure=_secure(request), checked=(holding, int(row._mapping["session_epoch"])))
        except AccountError:  # (a suspension or a ban made meanwhile raised the epoch: said as such)
            why = self.barred(user.id) if self.barred is not None else None
            if why is not None:
                raise AccountError(403, why) from None
            raise
        # The browser's session until now ends once the new one is made (a sign-in refused leaves it).
        self._end(request, everywhere=False, legacy=False)
        # A suspension or ban that another server made between the check above and the new
        # session ended every session before this one existed: asked again now, it ends this too.
        why = self.barred(user.id) if self.barred is not None else None
        if why is not None:
            with self.store.engine.begin() as c:
                c.execute(delete(SESSIONS).where(SESSIONS.c.user_id == user.id))
            raise AccountError(403, why)
        return user, cookie

    def logout(self, request: HTTPConnection, *, everywhere: bool = False) -> str:
        """Sign the request out: its session ends on the server, and the ``Set-Cookie`` value
        returned removes the cookie.  With ``everywhere``, every other session of the same user
        ends too (its epoch is raised)."""
        self._end(request, everywhere=everywhere)
        return self.cleared_cookie(secure=_secure(request))

    def end_others(self, request: HTTPConnection, **values: Any) -> tuple[User, int] | None:
        """End every session of the request's user but the request's own (their rows go; the
        request's own session, and the connections opened with it, go on), setting ``values`` on
        the user's row in the same transaction (a new ``password_hash``); returns the user and how
        many sessions ended (an earlier server's cookie, which no row keeps, among them: the
        user's epoch is raised).  None without a session of its own row (none, or an earlier
        server's cookie): nothing changes."""
        current = self._current(request)
        token = current[1].token if current is not None else None
        if current is None or token is None:
            return None
        user = current[0]
        return user, self.end_sessions(user.id, keeping=token, keeping_device=device_of(request), **values)

    def end_sessions(self, user_id: str, *, keeping: str | None = None, keeping_device: str | None = None,
                     within: Callable[[Connection], None] | None = None, **values: Any) -> int:
        """End every session of ``user_id`` but the one whose cookie token is ``keeping`` (none
        kept without it), and trust no browser known to it but ``keeping_device``'s (known still:
        the links to other accounts stay), setting
        ``values`` on the user's row (a new ``password_hash``) and running ``within`` (an audit
        entry) in the same transaction; how many sessions ended.  An earlier server's cookie, which
        no row keeps, ends too: the user's epoch is raised."""
        with self.store.engine.begin() as c:
            others = KNOWN_DEVICES.c.user_id == user_id
            if keeping_device is not None:
                others = others & (KNOWN_DEVICES.c.device != _digest(keeping_device))
            c.execute(update(KNOWN_DEVICES).where(others).values(trusted=False))
            # The epoch raised too: an earlier server's cookie, which no row keeps, ends as well.
            c.execute(update(USERS).where(USERS.c.id == user_id)
                      .values(session_epoch=USERS.c.session_epoch + 1, **values))
            ending = SESSIONS.c.user_id == user_id
            if keeping is not None:
                ending = ending & (SESSIONS.c.id != _digest(keeping))
            ended = c.execute(delete(SESSIONS).where(ending)).rowcount
            if within is not None:
                within(c)
        self._ended(user_id)
        return int(ended)

    def _ended(self, user_id: str) -> None:
        """Sessions of ``user_id`` ended: the server's open connections of that user are checked
        again at once (:attr:`on_ended`, set by the application), so that one whose session ended
        is closed rather than going on as the user."""
        if self.on_ended is not None:
            self.on_ended(user_id)

    def _end(self, request: HTTPConnection, *, everywhere: bool, legacy: bool = True) -> None:
        """End the request's session; with ``everywhere``, every session of its user.  An
        earlier server's cookie, which no row keeps, ends only with every session of its user:
        so it does with ``legacy``, else it is left as it is."""
        current = self._current(request)
        if current is None:
            return
        user, session = current
        if session.token is None and not (everywhere or legacy):
            return
        with self.store.engine.begin() as c:
            if everywhere or session.token is None:
                c.execute(update(USERS).where(USERS.c.id == user.id).values(session_epoch=USERS.c.session_epoch + 1))
                c.execute(delete(SESSIONS).where(SESSIONS.c.user_id == user.id))
            else:
                c.execute(delete(SESSIONS).where(SESSIONS.c.id == _digest(session.token)))
            if everywhere:  # (as when sessions end otherwise: a browser held by a thief meanwhile goes too)
                c.execute(update(KNOWN_DEVICES).where(KNOWN_DEVICES.c.user_id == user.id).values(trusted=False))
        self._ended(user.id)

    # ------------------------------------------------------------------ profiles and the leaderboard

    def leaderboard(self, limit: int) -> list[dict[str, Any]]:
        """The ``limit`` best players with a name of their own (guests are not listed), by
        lifetime score, then name: rank (equal scores share one), name, title, lifetime, deals,
        matches, pigs."""
        with self.store.engine.connect() as c:
            rows = c.execute(select(USERS).where(USERS.c.guest.is_(False))
                             .order_by(USERS.c.lifetime.desc(), USERS.c.name, USERS.c.id).limit(limit)).all()
        board: list[dict[str, Any]] = []
        for i, row in enumerate(rows):
            user = _user(row)
            rank = board[-1]["rank"] if board and board[-1]["lifetime"] == user.lifetime else i + 1
            board.append({"rank": rank, "name": user.name, "title": user.title, "lifetime": user.lifetime,
                          "deals": user.deals, "matches": user.matches, "pigs": user.pigs})
        return board

    def rating_board(self, family: str, limit: int) -> list[dict[str, Any]]:
        """The ``limit`` best rated accounts of ``family`` whose rating is no longer provisional,
        by rating, then name: rank (equal ratings share one), name, title, rating, deviation,
        games (rated deals), lifetime."""
        bound = (PROVISIONAL_DEVIATION + 0.5) / SCALE  # as Skill.provisional rounds the deviation
        query = (select(USERS, RATINGS.c.mu, RATINGS.c.sigma, RATINGS.c.games.label("rated"))
                 .join(RATINGS, RATINGS.c.user_id == USERS.c.id)
                 .where(RATINGS.c.family == family, RATINGS.c.sigma <= bound, USERS.c.guest.is_(False))
                 .order_by(RATINGS.c.mu.desc(), USERS.c.name, USERS.c.id).limit(limit))
        with self.store.engine.connect() as c:
            rows = c.execute(query).all()
        board: list[dict[str, Any]] = []
        for i, row in enumerate(rows):
            user, skill = _user(row), Skill(row.mu, row.sigma, row.rated)
            rank = board[-1]["rank"] if board and board[-1]["rating"] == skill.rating else i + 1
            board.append({"rank": rank, "name": user.name, "title": user.title, "rating": skill.rating,
                          "deviation": skill.deviation, "games": skill.games, "lifetime": user.lifetime})
        return board

    def ratings_of(self, user_id: str) -> dict[str, Any]:
        """A person's ratings (``ratings``: family → rating, deviation, provisional, games) and
        their history (``rating_history``: family → [{at, rating, deviation}], oldest first)."""
        ratings = self.store.ratings([user_id]).get(user_id, {})
        history = self.store.rating_history(user_id)
        return {"ratings": {f: s.view() for f, s in ratings.items()},
                "rating_history": {f: [{"at": at, "rating": s.rating, "deviation": s.deviation} for at, s in points]
                                   for f, points in history.items()}}

    def _matches(self, user_id: str, limit: int, public_only: bool) -> list[dict[str, Any]]:
        query = (select(MATCHES.c.id, MATCHES.c.created, MATCHES.c.preset, MATCHES.c.over,
                        MATCH_PLAYERS.c.deals, MATCH_PLAYERS.c.total, MATCH_PLAYERS.c.pig)
                 .join(MATCHES, MATCHES.c.id == MATCH_PLAYERS.c.match_id)
                 .where(MATCH_PLAYERS.c.user_id == user_id)
                 .order_by(MATCHES.c.created.desc(), MATCHES.c.id.desc()).limit(limit))
        if public_only:
            query = query.where(MATCHES.c.visibility == "public")
        with self.store.engine.connect() as c:
            rows = c.execute(query).all()
        return [{"id": r.id, "created": r.created, "preset": r.preset, "deals": int(r.deals), "total": int(r.total),
                 "pig": bool(r.pig), "over": bool(r.over)} for r in rows]

    def profile(self, user_id: str, limit: int = 200) -> dict[str, Any] | None:
        """``GET /api/profile``: the user as :meth:`User.to_json` says, whether it is an account,
        and its ``limit`` newest matches (``matches_list``: id, created, preset, deals it played,
        its total, whether the match's pig was charged to it, whether the match is over)."""
        user = self.user(user_id)
        if user is None:
            return None
        return {**user.to_json(), "account": user.account, **self.ratings_of(user_id),
                "matches_list": self._matches(user_id, limit, False)}

    def public_profile(self, name: str, limit: int = 200) -> dict[str, Any] | None:
        """``GET /api/users/{name}``: a player with a name of their own (not a guest), as
        :meth:`profile` says but without the id, and only the matches of public tables."""
        with self.store.engine.connect() as c:
            row = c.execute(select(USERS).where(USERS.c.name_key == login_key(name), USERS.c.guest.is_(False))).first()
        if row is None:
            return None
        user = _user(row)
        shown = {k: v for k, v in user.to_json().items() if k != "id"}
        return {**shown, "account": user.account, **self.ratings_of(user.id),
                "matches_list": self._matches(user.id, limit, True)}
