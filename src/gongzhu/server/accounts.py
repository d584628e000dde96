"""The routes of who you are (``docs/web-protocol.md``, Who you are), on an
:class:`~gongzhu.server.identity.Identity`:

- ``GET /api/me``: the current user, made (a guest, with its cookie) when there is none;
- ``POST /api/account`` ``{"name", "password"}``: the current guest becomes an account;
- ``POST /api/login`` ``{"name", "password"}``, ``POST /api/logout`` ``{"everywhere": false}``;
- ``GET /api/profile``: the current user with its matches; ``GET /api/users/{name}``: an
  account's public profile; ``GET /api/leaderboard?limit=N``: the accounts by lifetime score, and
  with ``&family=one_deck|two_decks|partners`` by their rating in that family (docs/ratings.md).
- account care (``/api/account/...``: the password, the other sessions, the name, the export,
  deleting the account): :mod:`gongzhu.server.account_care`, sharing the sign-in :class:`Backoff`.

Bodies are declared in :mod:`gongzhu.formats.web` (:class:`AccountBody`, :class:`LogoutBody`);
a malformed one gets ``400 {"error"}`` naming the ``$.path``.  Every refusal a player reads is a
catalog message, ``{"error": English, "message_zh", "code", "params"}``.  Failed sign-ins slow
down the next try of the same name from the same client address (:class:`Backoff`): a few are
free, then each one doubles the wait, up to a cap; other names' failures from the same address
never delay a sign-in.  Besides, each account counts its failed sign-ins from every address and on
every server, in the database (:class:`AccountGuard`): past a few more, the next try from a
browser the account does not know waits in the same way, while its owner's browsers (those it was
signed in from: :meth:`Identity.remember`) sign in.  New accounts are
limited per address (:class:`~gongzhu.server.policy.Attempts`; only those with a name and a password that keep the
rules count, since each one hashes the password), and none is made from a browser an account
suspended or banned now was signed in from.  Past either: ``429`` with ``Retry-After``.
Addresses are :func:`~gongzhu.server.policy.counted_address`'s (an IPv6 client's /64 network).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import select, update
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from gongzhu.formats.web import AccountBody, LogoutBody
from gongzhu.jsontext import show
from gongzhu.messages import Text
from gongzhu.ratings import FAMILIES
from gongzhu.server.account_care import routes as care_routes
from gongzhu.server.bodies import BodyError, typed_body
from gongzhu.server.identity import AccountError, Identity, check_name, check_password, login_key
from gongzhu.server.policy import Attempts, counted_address
from gongzhu.server.store import USERS
from gongzhu.server.wire import personal_answer, plain_error

__all__ = [
    "ACCOUNT_FREE_FAILURES",
    "FIRST_DELAY",
    "FORGET_AFTER",
    "FREE_FAILURES",
    "LEADERBOARD_DEFAULT",
    "LEADERBOARD_MAX",
    "MOST_DELAY",
    "SIGNUPS_PER_ADDRESS",
    "WINDOW",
    "AccountGuard",
    "Backoff",
    "attempt",
    "routes",
    "too_many",
]

#: Failed sign-ins of one name from one client address before the next one waits; the wait after
#: the first failure past those, doubled by each further failure up to :data:`MOST_DELAY`
#: seconds; how long a name and address without a try are remembered (seconds).
FREE_FAILURES = 5
FIRST_DELAY = 1.0
MOST_DELAY = 15 * 60.0
FORGET_AFTER = 24 * 3600.0
#: Failed sign-ins of one account from browsers it does not know, from any address, before the next
#: such try waits (then as :class:`Backoff`: from FIRST_DELAY, doubled up to MOST_DELAY).
ACCOUNT_FREE_FAILURES = 20
#: New accounts one client address may make per :data:`WINDOW` seconds.
SIGNUPS_PER_ADDRESS = 10
WINDOW = 60.0
#: Rows of ``GET /api/leaderboard`` unless ``?limit=`` says (1 … LEADERBOARD_MAX).
LEADERBOARD_DEFAULT = 50
LEADERBOARD_MAX = 200
#: Matches listed by ``GET /api/profile`` and ``GET /api/users/{name}``, newest first.
PROFILE_MATCHES = 200



def doubling(failures: int, free: int, first: float, most: float) -> float:
    """The wait after ``failures`` failures in a row: none for the first ``free``, then ``first``
    seconds doubled by each further one, up to ``most``."""
    if failures < free:
        return 0.0
    return min(most, first * 2.0 ** min(failures - free, 64))


class Backoff:
    """Failed tries per key (a name and a client address): the first ``free`` cost nothing; after
    that each failure doubles the wait before the key may try again, from ``first`` seconds up to
    ``most``.  :meth:`start` a try (refused while the key must wait: the seconds left, and the
    refusal costs nothing), then :meth:`failed` or :meth:`succeeded`; a try counts as failed from
    its start, so that tries sent at once cannot all pass before the first has failed.  A success
    forgets the key, and so does ``forget`` seconds without a try; past ``most_keys`` keys the
    forgotten ones go first, then those that wait for nothing, then the oldest, so memory stays
    bounded."""

    def __init__(self, free: int = FREE_FAILURES, first: float = FIRST_DELAY, most: float = MOST_DELAY, *,
                 forget: float = FORGET_AFTER, most_keys: int = 100_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.free = free
        self.first = first
        self.most = most
        self.forget = forget
        self.most_keys = most_keys
        self.clock = clock
        #: Each key's failures and when the last one was counted, oldest key first.
        self.seen: dict[tuple[str, str], tuple[int, float]] = {}

    def delay(self, failures: int) -> float:
        """The wait after ``failures`` failures in a row."""
        return doubling(failures, self.free, self.first, self.most)

    def due(self, key: tuple[str, str]) -> float:
        """Seconds until ``key`` may try again (0.0: now)."""
        found = self.seen.get(key)
        if found is None:
            return 0.0
        failures, last = found
        now = self.clock()
        if last <= now - self.forget:
            del self.seen[key]
            return 0.0
        return max(0.0, last + self.delay(failures) - now)

    def start(self, key: tuple[str, str]) -> float:
        """Count a try of ``key`` as failed and return 0.0, or return the seconds it must still
        wait (counting nothing)."""
        wait = self.due(key)
        if wait > 0:
            return wait
        failures, _ = self.seen.pop(key, (0, 0.0))
        self.seen[key] = (failures + 1, self.clock())
        if len(self.seen) > self.most_keys:
            self._trim()
        return 0.0

    def failed(self, key: tuple[str, str]) -> None:
        """The try :meth:`start` counted failed: its wait runs from now."""
        found = self.seen.get(key)
        if found is not None:
            self.seen[key] = (found[0], self.clock())

    def succeeded(self, key: tuple[str, str]) -> None:
        self.seen.pop(key, None)

    def _trim(self) -> None:
        now = self.clock()
        for key in [k for k, (_, last) in self.seen.items() if last <= now - self.forget]:
            del self.seen[key]
        for key in [k for k, (n, last) in self.seen.items() if last + self.delay(n) <= now]:
            if len(self.seen) <= self.most_keys:
                break
            del self.seen[key]
        while len(self.seen) > self.most_keys:
            del self.seen[next(iter(self.seen))]


class AccountGuard:
    """Failed sign-ins per account, counted in the database (``users.sign_in_failures`` and
    ``sign_in_failed``), so from every address and on every server alike: tries from a browser the
    account knows (:meth:`Identity.knows`: it was signed in from there) count nothing and never
    wait; past ``free`` failures from the others, the next of those waits as :class:`Backoff`'s
    do, from ``first`` seconds doubled up to ``most``.  :meth:`start` counts a try as failed from
    its start (once among tries sent at once, on any server: the count is compared and set, and
read again when another try changed it meanwhile); a
    correct password ends the count (:meth:`succeeded`), and so does ``forget`` seconds without a
    failure.  An unknown name counts nothing: it has no account to guard."""

    def __init__(self, identity: Identity, free: int = ACCOUNT_FREE_FAILURES, first: float = FIRST_DELAY,
                 most: float = MOST_DELAY, *, forget: float = FORGET_AFTER,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.identity = identity
        self.free = free
        self.first = first
        self.most = most
        self.forget = forget
        self.clock = clock

    def start(self, name: str, device: str) -> float:
        """Count a try of the account ``name`` from the browser of ``device`` as failed and return
        0.0 (nothing counted for a browser it knows, or a name of no account), or return the seconds
        it must still wait (counting nothing)."""
        engine = self.identity.store.engine
        for _ in range(3):
            now = self.clock()
            with engine.begin() as c:
                row = c.execute(select(USERS.c.id, USERS.c.sign_in_failures, USERS.c.sign_in_failed).where(
                    USERS.c.name_key == login_key(name), USERS.c.password_hash.is_not(None))).first()
                if row is None or self.identity.knows(c, row.id, device):
                    return 0.0
                failures, stamp = int(row.sign_in_failures), row.sign_in_failed
                last = datetime.fromisoformat(stamp) if stamp is not None else None
                if last is None or last <= now - timedelta(seconds=self.forget):
                    failures = 0
                delay = doubling(failures, self.free, self.first, self.most)
                if last is not None and delay > 0:
                    wait = (last + timedelta(seconds=delay) - now).total_seconds()
                    if wait > 0:
                        return wait
                counted = update(USERS).where(
                    USERS.c.id == row.id, USERS.c.sign_in_failures == row.sign_in_failures,
                    USERS.c.sign_in_failed.is_not_distinct_from(stamp),
                ).values(sign_in_failures=failures + 1, sign_in_failed=now.isoformat(timespec="microseconds"))
                if c.execute(counted).rowcount:
                    return 0.0
            # Another try of the account was counted since this one read the count (here or on
            # another server): read it again.
        return self.first  # tries of the account keep coming at once: this one waits a moment

    def succeeded(self, user_id: str) -> None:
        """The account's password was given: its count of failures ends."""
        with self.identity.store.engine.begin() as c:
            c.execute(update(USERS).where(USERS.c.id == user_id, USERS.c.sign_in_failures != 0)
                      .values(sign_in_failures=0, sign_in_failed=None))


def attempt(*checks: tuple[Attempts, str]) -> float:
    """Count an attempt on each (limit, key) when every one has room; else count nothing and
    return the seconds until they all have."""
    wait = max(limits.due(key) for limits, key in checks)
    if wait <= 0:
        for limits, key in checks:
            limits.add(key)
    return max(wait, 0.0)


def too_many(seconds: float, key: str = "server.account_too_many_attempts") -> JSONResponse:
    wait = max(1, math.ceil(seconds))
    refusal = AccountError(429, Text.of(key, seconds=wait))
    return JSONResponse(refusal.json, status_code=429, headers={"Retry-After": str(wait), "Cache-Control": "no-store"})


_LIMIT = re.compile(r"[0-9]{1,4}")


def routes(identity: Identity) -> list[Route]:
    """The account routes of ``docs/web-protocol.md`` (Who you are), on ``identity``; each
    application makes its own (the attempt limits are per application)."""
    failures = Backoff()
    guard = AccountGuard(identity)
    signups = Attempts(SIGNUPS_PER_ADDRESS, WINDOW)

    async def me(request: Request) -> Response:
        user, cookie = identity.ensure(request)
        device_cookie = None
        if user.account:  # a browser holding a session of the account is one it knows
            device, device_cookie = identity.device(request)
            if device_cookie is not None or not identity.knows_now(user.id, device):
                identity.remember(user.id, device)
        return personal_answer(user.to_json(), cookie, device_cookie)

    async def register(request: Request) -> Response:
        try:
            body = await typed_body(request, AccountBody)
        except BodyError as e:
            return plain_error(e.status, str(e))
        try:
            check_name(body.name)  # refused before counting: only a hashed password counts
            check_password(body.password)
        except AccountError as e:
            return personal_answer(e.json, status=e.status)
        wait = attempt((signups, counted_address(request)))
        if wait:
            return too_many(wait)
        device, device_cookie = identity.device(request)
        if identity.barred_here(device):  # a suspended or banned person's browser: not a new account
            refusal = AccountError(403, Text.of("server.account_browser_barred"))
            return personal_answer(refusal.json, status=refusal.status, device_cookie=device_cookie)
        try:
            user, cookie = await identity.register(request, body.name, body.password)
        except AccountError as e:
            return personal_answer(e.json, status=e.status)
        identity.remember(user.id, device)
        return personal_answer(user.to_json(), cookie, device_cookie)

    async def login(request: Request) -> Response:
        try:
            body = await typed_body(request, AccountBody)
        except BodyError as e:
            return plain_error(e.status, str(e))
        # A name is counted by its key (every spelling of it alike), with the client's address.
        key = (login_key(body.name)[:64], counted_address(request))
        wait = failures.due(key)
        if wait:
            return too_many(wait, "server.account_sign_in_wait")
        device, device_cookie = identity.device(request)
        wait = guard.start(body.name, device)
        if wait:
            return too_many(wait, "server.account_sign_in_guarded")
        failures.start(key)  # due now: nothing awaited since it was asked
        try:
            user, cookie = await identity.login(request, body.name, body.password)
        except AccountError as e:
            failures.failed(key)
            return personal_answer(e.json, status=e.status, device_cookie=device_cookie)
        failures.succeeded(key)
        guard.succeeded(user.id)
        identity.remember(user.id, device)
        return personal_answer(user.to_json(), cookie, device_cookie)

    async def logout(request: Request) -> Response:
        try:
            body = await typed_body(request, LogoutBody)
        except BodyError as e:
            return plain_error(e.status, str(e))
        return personal_answer({"signed_out": True}, identity.logout(request, everywhere=body.everywhere))

    async def profile(request: Request) -> Response:
        user, cookie = identity.ensure(request)
        found = identity.profile(user.id, PROFILE_MATCHES)
        assert found is not None  # ensure made it
        return personal_answer(found, cookie)

    async def public_profile(request: Request) -> Response:
        name = request.path_params["name"]
        found = identity.public_profile(name, PROFILE_MATCHES) if len(name) <= 64 else None
        if found is None:
            refusal = AccountError(404, Text.of("server.account_unknown", name=show(name)))
            return personal_answer(refusal.json, status=404)
        return personal_answer(found)

    async def leaderboard(request: Request) -> Response:
        given = request.query_params.get("limit")
        if given is None:
            limit = LEADERBOARD_DEFAULT
        elif _LIMIT.fullmatch(given) and 1 <= int(given) <= LEADERBOARD_MAX:
            limit = int(given)
        else:
            return plain_error(400, f"limit={show(given)}: a number of rows from 1 to {LEADERBOARD_MAX}")
        family = request.query_params.get("family")
        if family is None:
            return personal_answer(identity.leaderboard(limit))
        if family not in FAMILIES:
            return plain_error(400, f"family={show(family)}: one of {', '.join(FAMILIES)}")
        return personal_answer(identity.rating_board(family, limit))

    return [
        Route("/api/me", me),
        Route("/api/account", register, methods=["POST"]),
        Route("/api/login", login, methods=["POST"]),
        Route("/api/logout", logout, methods=["POST"]),
        Route("/api/profile", profile),
        Route("/api/users/{name}", public_profile),
        Route("/api/leaderboard", leaderboard),
        *care_routes(identity, failures),  # a wrong password there counts as a failed sign-in
    ]
