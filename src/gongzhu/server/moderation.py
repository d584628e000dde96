"""Moderation of a public site (``docs/moderation.md``): operators, the sanctions they give, the
reports they handle, the tables they close, and the audit log of all of it, on the store's
``users.role``, ``sanctions``, ``reports`` and ``audit_log``.

An operator is an account whose role is ``operator``, given from the command line
(:func:`grant`, ``gongzhu admin grant NAME``), which also gives a person who forgot their
password a temporary one (:func:`reset_password`, ``gongzhu admin reset-password NAME``).  The
operators' JSON API, every route of which answers anyone else ``403`` with a catalog message:

- ``GET /api/admin/people?q=PREFIX``: the people whose name begins so; ``GET
  /api/admin/people/{name}``: one person's account, the reports against them, their sanctions and
  their recent matches.
- ``POST /api/admin/people/{name}/sanctions`` ``{"kind", "reason", "ends"}``: a warning (told at
  once to their open tables, else at the next table they open), a mute (their table chat is
  refused until ``ends``), a suspension until ``ends`` or a ban (no end): every session of theirs
  ends at once — their open tables are told why and closed — and signing in is refused with the
  reason and the end.  ``POST /api/admin/sanctions/{n}/lift`` lifts one.
- ``GET /api/admin/reports`` (``?all=1``: handled ones too), newest first; ``POST
  /api/admin/reports/{n}/handled``.
- ``POST /api/admin/tables/{id}/close`` ``{"reason"}``: the table is over where it stands, its
  people told why.
- ``GET /api/admin/audit?limit=N``: the audit log, newest first (``N`` from 1 to :data:`AUDIT_MAX`,
  else ``400``).  Every action above writes one entry (who, what, whom, why, when), and so do the
  command line's grants and password resets.

A person reads their own at ``GET /api/me/notices`` (their warnings, an active mute).

Imports the store, identity, bodies, wire, the registry's tables and the message catalog.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.engine import Connection
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gongzhu.jsontext import show
from gongzhu.messages import Text
from gongzhu.server.bodies import BodyError, json_body
from gongzhu.server.identity import AccountError, Identity, User, check_password, login_key
from gongzhu.server.registry import Tables
from gongzhu.server.store import (
    AUDIT_LOG,
    KNOWN_DEVICES,
    MATCH_PLAYERS,
    MATCHES,
    REPORTS,
    SANCTIONS,
    SESSIONS,
    USERS,
    Store,
)
from gongzhu.server.wire import personal_answer, plain_error

__all__ = ["AUDIT_DEFAULT", "AUDIT_MAX", "KINDS", "MUTE_CACHE_SECONDS", "OPERATOR", "REASON_MAX", "Moderation",
           "ModerationError", "grant", "operators", "reset_password", "revoke", "routes", "temporary_password",
           "when_text"]

#: The role of the site's operators (``users.role``).
OPERATOR = "operator"
#: The kinds of sanction, mildest first.
KINDS = ("warn", "mute", "suspend", "ban")
#: The longest reason an operator may give (characters).
REASON_MAX = 500
#: How long a server trusts what it read of a person's mute (seconds): a mute or lift made through
#: this server counts at once, one made through another within this time.
MUTE_CACHE_SECONDS = 30.0
#: How many tenths of a second closing a table another server runs is waited for (its store
#: saying it is over) before the operator is told that server did not answer.
CLOSE_WAITS = 50
#: The audit log's entries a request gets (``GET /api/admin/audit?limit=N``): by default, at most.
AUDIT_DEFAULT, AUDIT_MAX = 100, 1000
#: The characters of a temporary password (:func:`reset_password`): none that looks like another.
TEMPORARY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
#: People found by a name's beginning, at most; matches shown on a person's card.
FOUND_MAX, MATCHES_SHOWN, NOTICE_DAYS = 20, 20, 30
#: Accounts listed as linked on a person's card (signed in from a browser they were signed in from).
LINKED_SHOWN = 50
_NUMBER = re.compile(r"[0-9]{1,12}")
_MATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class ModerationError(AccountError):
    """A refusal of the operators' API (or of the command line): an HTTP status and a catalog message."""


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def _moment(text: str) -> datetime:
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def when_text(text: str) -> str:
    """A stored moment as messages show it: ``2026-12-31 12:00 UTC``."""
    return _moment(text).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _audit(c: Connection, at: str, operator: str | None, action: str, *, user: str | None = None,
           match: str | None = None, reason: str | None = None, details: Mapping[str, Any] | None = None) -> None:
    c.execute(insert(AUDIT_LOG).values(at=at, operator=operator, action=action, target_user=user, target_match=match,
                                       reason=reason, details=dict(details) if details is not None else None))


# ---------------------------------------------------------------------- the command line's roles


def _account(c: Connection, name: str, guest: str = "moderation.guest_operator") -> Any:
    """The account ``name``: :class:`ModerationError` for an unknown name (404) or a guest (409,
    the catalog's ``guest``)."""
    row = c.execute(select(USERS.c.id, USERS.c.name, USERS.c.guest, USERS.c.password_hash, USERS.c.role)
                    .where(USERS.c.name_key == login_key(name))).first()
    if row is None:
        raise ModerationError(404, Text.of("server.account_unknown", name=show(name)))
    if row.guest or row.password_hash is None:
        raise ModerationError(409, Text.of(guest, name=row.name))
    return row


def _set_role(store: Store, name: str, role: str | None) -> tuple[str, bool]:
    """Give ``name`` the role (None: take it); their name and whether anything changed."""
    now = _stamp(datetime.now(UTC))
    with store.engine.begin() as c:
        row = _account(c, name)
        if row.role == role:
            return row.name, False
        c.execute(update(USERS).where(USERS.c.id == row.id).values(role=role))
        _audit(c, now, None, "grant" if role else "revoke", user=row.id,
               details={"role": role or row.role, "by": "command line"})
    return row.name, True


def grant(store: Store, name: str) -> tuple[str, bool]:
    """Make the account ``name`` an operator: its name, and False when it was one already.
    :class:`ModerationError` for an unknown name (404) or a guest (409)."""
    return _set_role(store, name, OPERATOR)


def revoke(store: Store, name: str) -> tuple[str, bool]:
    """The account ``name`` is an operator no longer (False: it was none)."""
    return _set_role(store, name, None)


def temporary_password() -> str:
    """A new random password to be read out or typed: four groups of four letters and digits
    that cannot be taken for one another (no 0/o, 1/l/i), about 79 bits."""
    groups = ("".join(secrets.choice(TEMPORARY_ALPHABET) for _ in range(4)) for _ in range(4))
    password = "-".join(groups)
    check_password(password)
    return password


def reset_password(store: Store, name: str, *, identity: Identity | None = None) -> tuple[str, str, int]:
    """Give the account ``name`` a new random password, for a person who forgot theirs: as when
    they change it themselves (:meth:`Identity.end_sessions`), every session of theirs ends in
    the transaction that stores its hash, no browser known to the account is trusted any more and
    its count of failed sign-ins ends (so that its owner signs in at once, from any browser), and
    the audit entry is written (operator: the command line).  Returns their name, the temporary
    password (kept nowhere) and how many sessions ended; :class:`ModerationError` for an unknown
    name (404) or a guest (409)."""
    identity = identity or Identity(store)
    with store.engine.connect() as c:
        row = _account(c, name, "moderation.guest_password")
    password = temporary_password()
    hashed = identity.hasher.hash(password)
    now = _stamp(datetime.now(UTC))

    def audited(c: Connection) -> None:
        _audit(c, now, None, "reset-password", user=row.id, details={"by": "command line"})

    ended = identity.end_sessions(row.id, within=audited, password_hash=hashed, sign_in_failures=0,
                                  sign_in_failed=None)
    return row.name, password, ended


def operators(store: Store) -> list[tuple[str, str]]:
    """Every operator's name and when their account was made, by name."""
    with store.engine.connect() as c:
        rows = c.execute(select(USERS.c.name, USERS.c.created).where(USERS.c.role == OPERATOR)
                         .order_by(USERS.c.name_key)).all()
    return [(r.name, r.created) for r in rows]


# ---------------------------------------------------------------------- the service


@dataclass(frozen=True, slots=True)
class _Mute:
    checked: float  # when it was read (the clock's seconds)
    ends: datetime | None  # None: not muted
    reason: str


class Moderation:
    """Sanctions, reports, closed tables and the audit log (see the module docstring).  ``now`` is
    the clock (seconds since the epoch); ``tell(user, text)``, set by the application, says
    ``text`` to every open table connection of ``user`` on this server and returns how many there
    were."""

    def __init__(self, store: Store, identity: Identity, tables: Tables, now: Callable[[], float]) -> None:
        self.store = store
        self.identity = identity
        self.tables = tables
        self.now = now
        self.tell: Callable[[str, Text], int] = lambda _user, _text: 0
        #: Passes a sanction's news to the other servers (the server's bus; none alone): whom it
        #: is about and what to tell their pages there (None: their unseen warnings), which
        #: :meth:`heard` does on each of them.
        self.share: Callable[[str, Text | None], None] = lambda _user, _text: None
        self._mutes: dict[str, _Mute] = {}

    def _moment(self) -> datetime:
        return datetime.fromtimestamp(self.now(), UTC)

    # ------------------------------------------------------------------ who is who

    def role(self, user_id: str) -> str | None:
        with self.store.engine.connect() as c:
            role: str | None = c.scalar(select(USERS.c.role).where(USERS.c.id == user_id))
        return role

    def operator_of(self, request: Request) -> User:
        """The request's user when they are an operator; refused (403) otherwise."""
        user = self.identity.user_for(request)
        if user is None or not user.account or self.role(user.id) != OPERATOR:
            raise ModerationError(403, Text.of("moderation.operators_only"))
        return user

    def _person(self, c: Connection, name: str) -> Any:
        row = c.execute(select(USERS).where(USERS.c.name_key == login_key(name))).first()
        if row is None:
            raise ModerationError(404, Text.of("server.account_unknown", name=show(name)))
        return row

    def _active(self, c: Connection, user_id: str, kinds: tuple[str, ...]) -> list[Any]:
        """The sanctions of ``kinds`` on ``user_id`` in force now, the longest first (a ban first)."""
        now = self._moment()
        rows = c.execute(select(SANCTIONS).where(SANCTIONS.c.user_id == user_id, SANCTIONS.c.kind.in_(kinds),
                                                 SANCTIONS.c.lifted.is_(None))).all()
        live = [r for r in rows if _moment(r.starts) <= now and (r.ends is None or _moment(r.ends) > now)]
        return sorted(live, key=lambda r: (r.ends is not None, r.ends or ""), reverse=False)

    # ------------------------------------------------------------------ what a sanctioned person meets

    def barred(self, user_id: str) -> Text | None:
        """Why ``user_id`` may not sign in now (a ban, or a suspension with its end), or None."""
        with self.store.engine.connect() as c:
            found = self._active(c, user_id, ("ban", "suspend"))
        if not found:
            return None
        first = found[0]
        if first.ends is None:
            return Text.of("moderation.banned", reason=first.reason)
        latest = max(found, key=lambda r: _moment(r.ends))
        return Text.of("moderation.suspended", until=when_text(latest.ends), reason=latest.reason)

    def muted(self, user_id: str) -> Text | None:
        """Why ``user_id``'s chat is refused now (a mute, with its end), or None.  What was read is
        kept :data:`MUTE_CACHE_SECONDS` (a person who chats costs a query that often)."""
        now = self.now()
        entry = self._mutes.get(user_id)
        if entry is None or not 0 <= now - entry.checked <= MUTE_CACHE_SECONDS:
            with self.store.engine.connect() as c:
                found = [r for r in self._active(c, user_id, ("mute",)) if r.ends is not None]
            longest = max(found, key=lambda r: _moment(r.ends), default=None)
            if len(self._mutes) > 10_000:
                self._mutes.clear()
            entry = self._mutes[user_id] = _Mute(now, _moment(longest.ends) if longest is not None else None,
                                                 longest.reason if longest is not None else "")
        if entry.ends is None or entry.ends <= self._moment():
            return None
        return Text.of("moderation.muted", until=when_text(_stamp(entry.ends)), reason=entry.reason)

    def notices(self, user_id: str) -> dict[str, Any]:
        """``GET /api/me/notices``: the person's warnings of the last :data:`NOTICE_DAYS` days,
        newest first, and their mute in force (null: none)."""
        since = _stamp(self._moment() - timedelta(days=NOTICE_DAYS))
        with self.store.engine.connect() as c:
            rows = c.execute(select(SANCTIONS).where(SANCTIONS.c.user_id == user_id, SANCTIONS.c.kind == "warn",
                                                     SANCTIONS.c.lifted.is_(None), SANCTIONS.c.starts >= since)
                             .order_by(SANCTIONS.c.id.desc())).all()
            mutes = self._active(c, user_id, ("mute",))
        mute = mutes[-1] if mutes else None
        return {"warnings": [{"id": r.id, "reason": r.reason, "at": r.starts} for r in rows],
                "mute": {"ends": mute.ends, "reason": mute.reason} if mute is not None else None}

    def heard(self, user_id: str, text: Text | None) -> None:
        """Another server's sanction of ``user_id`` (:attr:`share`): the mute kept here is read
        again, their table pages here are told ``text`` (a mute), or their unseen warnings."""
        self._mutes.pop(user_id, None)
        if text is not None:
            self.tell(user_id, text)
        else:
            self.tell_unseen(user_id)

    def tell_unseen(self, user_id: str) -> None:
        """Say the warnings ``user_id`` was not told yet to their open table connections (they are
        marked seen once told)."""
        with self.store.engine.connect() as c:
            rows = c.execute(select(SANCTIONS.c.id, SANCTIONS.c.reason).where(
                SANCTIONS.c.user_id == user_id, SANCTIONS.c.kind == "warn", SANCTIONS.c.seen.is_(None),
                SANCTIONS.c.lifted.is_(None)).order_by(SANCTIONS.c.id)).all()
        told = [r.id for r in rows if self.tell(user_id, Text.of("moderation.warned", reason=r.reason))]
        if told:
            with self.store.engine.begin() as c:
                c.execute(update(SANCTIONS).where(SANCTIONS.c.id.in_(told)).values(seen=_stamp(self._moment())))

    # ------------------------------------------------------------------ finding people

    def find(self, prefix: str) -> list[dict[str, Any]]:
        key = login_key(prefix)
        if not key:
            return []
        escaped = key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        with self.store.engine.connect() as c:
            rows = c.execute(select(USERS).where(USERS.c.name_key.like(escaped + "%", escape="\\"))
                             .order_by(USERS.c.guest, USERS.c.name_key).limit(FOUND_MAX)).all()
            return [self._summary(c, r) for r in rows]

    def _summary(self, c: Connection, row: Any) -> dict[str, Any]:
        active = self._active(c, row.id, KINDS[1:])
        return {"name": row.name, "guest": bool(row.guest), "account": row.password_hash is not None,
                "created": row.created, "last_seen": row.last_seen, "role": row.role,
                "sanctioned": sorted({r.kind for r in active}, key=KINDS.index)}

    def card(self, name: str) -> dict[str, Any]:
        """A person's card: their account, the reports against them, their sanctions, their recent
        matches, and the accounts linked to theirs by a browser (:meth:`_linked`)."""
        reporter = USERS.alias("reporter")
        with self.store.engine.connect() as c:
            row = self._person(c, name)
            reports = c.execute(select(REPORTS, reporter.c.name.label("reporter_name"))
                                .join(reporter, reporter.c.id == REPORTS.c.reporter)
                                .where(REPORTS.c.reported == row.id).order_by(REPORTS.c.id.desc()).limit(200)).all()
            made = c.scalar(select(func.count()).select_from(REPORTS).where(REPORTS.c.reporter == row.id))
            sanctions = self._sanctions(c, SANCTIONS.c.user_id == row.id)
            matches = c.execute(select(MATCHES.c.id, MATCHES.c.created, MATCHES.c.status, MATCHES.c.solo,
                                       MATCH_PLAYERS.c.deals, MATCH_PLAYERS.c.last)
                                .join(MATCHES, MATCHES.c.id == MATCH_PLAYERS.c.match_id)
                                .where(MATCH_PLAYERS.c.user_id == row.id)
                                .order_by(MATCH_PLAYERS.c.last.desc()).limit(MATCHES_SHOWN)).all()
            summary = self._summary(c, row)
            linked = self._linked(c, row.id)
        return {
            **summary, "lifetime": int(row.lifetime), "deals": int(row.deals), "matches_played": int(row.matches),
            "reports": [self._report(r, r.reporter_name, row.name) for r in reports],
            "reports_made": int(made or 0),
            "sanctions": sanctions,
            "matches": [{"id": m.id, "url": f"/table/{m.id}", "created": m.created, "status": m.status,
                         "solo": bool(m.solo), "deals": int(m.deals), "last": m.last} for m in matches],
            "linked": linked,
        }

    def _linked(self, c: Connection, user_id: str) -> list[dict[str, Any]]:
        """The accounts signed in from a browser ``user_id`` was signed in from (a second account of
        the same person, or a household's): each with how many such browsers, how many matches
        they both played, and its sanctions in force; most matches together first."""
        mine = select(KNOWN_DEVICES.c.device).where(KNOWN_DEVICES.c.user_id == user_id).scalar_subquery()
        shared = c.execute(select(KNOWN_DEVICES.c.user_id, func.count().label("browsers"))
                           .where(KNOWN_DEVICES.c.device.in_(mine), KNOWN_DEVICES.c.user_id != user_id)
                           .group_by(KNOWN_DEVICES.c.user_id)).all()
        me, them = MATCH_PLAYERS.alias("me"), MATCH_PLAYERS.alias("them")
        linked = []
        for other_id, browsers in shared:
            other = c.execute(select(USERS).where(USERS.c.id == other_id)).one()
            together = c.scalar(select(func.count()).select_from(me.join(them, me.c.match_id == them.c.match_id))
                                .where(me.c.user_id == user_id, them.c.user_id == other_id))
            linked.append({"name": other.name, "browsers": int(browsers), "matches_together": int(together or 0),
                           "sanctioned": self._summary(c, other)["sanctioned"]})
        return sorted(linked, key=lambda x: (-x["matches_together"], x["name"]))[:LINKED_SHOWN]

    def _sanctions(self, c: Connection, where: Any) -> list[dict[str, Any]]:
        by = USERS.alias("by")
        rows = c.execute(select(SANCTIONS, by.c.name.label("by_name")).join(by, by.c.id == SANCTIONS.c.operator)
                         .where(where).order_by(SANCTIONS.c.id.desc()).limit(200)).all()
        now = self._moment()
        return [{"id": r.id, "kind": r.kind, "reason": r.reason, "starts": r.starts, "ends": r.ends,
                 "by": r.by_name, "lifted": r.lifted, "seen": r.seen,
                 "active": r.lifted is None and (r.ends is None or _moment(r.ends) > now)} for r in rows]

    @staticmethod
    def _report(r: Any, reporter: str, reported: str) -> dict[str, Any]:
        return {"id": r.id, "reporter": reporter, "reported": reported, "reason": r.reason, "match_id": r.match_id,
                "match_url": f"/table/{r.match_id}" if r.match_id else None, "created": r.created,
                "handled": r.handled}

    # ------------------------------------------------------------------ sanctions

    def sanction(self, operator: User, name: str, kind: str, reason: str, ends: str | None) -> dict[str, Any]:
        """Give ``name`` a sanction (see the module docstring) and write its audit entry."""
        if kind not in KINDS:
            raise ModerationError(400, Text.of("moderation.kind_unknown", kind=show(kind)))
        reason = _reason(reason)
        now = self._moment()
        until: datetime | None = None
        if kind == "ban":
            if ends is not None:
                raise ModerationError(400, Text.of("moderation.ban_has_no_end"))
        elif kind == "warn":
            if ends is not None:
                raise ModerationError(400, Text.of("moderation.warn_has_no_end"))
        elif kind in ("mute", "suspend"):
            if ends is None:
                raise ModerationError(400, Text.of("moderation.ends_needed"))
            try:
                until = _moment(ends)
                _stamp(until)  # a moment that cannot be written in UTC (year 9999 west of it)
            except (ValueError, OverflowError):
                raise ModerationError(400, Text.of("moderation.ends_bad", ends=show(ends))) from None
            if until <= now:
                raise ModerationError(400, Text.of("moderation.ends_past"))
        with self.store.engine.begin() as c:
            row = self._person(c, name)
            if row.id == operator.id:
                raise ModerationError(400, Text.of("moderation.not_yourself"))
            if row.role == OPERATOR:
                raise ModerationError(409, Text.of("moderation.target_operator", name=row.name))
            values = {"user_id": row.id, "kind": kind, "reason": reason, "starts": _stamp(now),
                      "ends": _stamp(until) if until is not None else None, "operator": operator.id}
            number = c.execute(insert(SANCTIONS).values(**values)).inserted_primary_key[0]  # type: ignore[index]
            if kind in ("suspend", "ban"):  # every session ends at once
                c.execute(update(USERS).where(USERS.c.id == row.id).values(session_epoch=USERS.c.session_epoch + 1))
                c.execute(SESSIONS.delete().where(SESSIONS.c.user_id == row.id))
            _audit(c, values["starts"], operator.id, kind, user=row.id, reason=reason,
                   details={"sanction": number, "ends": values["ends"]})
        self._mutes.pop(row.id, None)
        if kind in ("suspend", "ban") and self.identity.on_ended is not None:
            self.identity.on_ended(row.id)  # their open tables are told why and closed
        elif kind == "warn":
            self.tell_unseen(row.id)
            self.share(row.id, None)  # and on the pages the other servers serve
        elif kind == "mute":
            muted = Text.of("moderation.muted", until=when_text(values["ends"]), reason=reason)
            self.tell(row.id, muted)
            self.share(row.id, muted)
        return {"id": number, "name": row.name, **{k: values[k] for k in ("kind", "reason", "starts", "ends")}}

    def lift(self, operator: User, number: int, reason: str | None) -> dict[str, Any]:
        now = _stamp(self._moment())
        with self.store.engine.begin() as c:
            row = c.execute(select(SANCTIONS).where(SANCTIONS.c.id == number)).first()
            if row is None:
                raise ModerationError(404, Text.of("moderation.unknown_sanction", n=number))
            if row.lifted is not None:
                raise ModerationError(409, Text.of("moderation.already_lifted", n=number))
            c.execute(update(SANCTIONS).where(SANCTIONS.c.id == number).values(lifted=now))
            _audit(c, now, operator.id, "lift", user=row.user_id, reason=reason or None,
                   details={"sanction": number, "kind": row.kind})
        self._mutes.pop(row.user_id, None)
        if row.kind == "mute":
            self.share(row.user_id, None)  # the other servers read the mute again
        return {"id": number, "lifted": now}

    # ------------------------------------------------------------------ reports

    def reports(self, *, everything: bool = False) -> list[dict[str, Any]]:
        """The reports not handled yet (``everything``: all), newest first."""
        reporter, reported = USERS.alias("reporter"), USERS.alias("reported")
        query = (select(REPORTS, reporter.c.name.label("reporter_name"), reported.c.name.label("reported_name"))
                 .join(reporter, reporter.c.id == REPORTS.c.reporter)
                 .join(reported, reported.c.id == REPORTS.c.reported)
                 .order_by(REPORTS.c.created.desc(), REPORTS.c.id.desc()).limit(500))
        if not everything:
            query = query.where(REPORTS.c.handled.is_(None))
        with self.store.engine.connect() as c:
            return [self._report(r, r.reporter_name, r.reported_name) for r in c.execute(query)]

    def handle(self, operator: User, number: int, note: str | None) -> dict[str, Any]:
        now = _stamp(self._moment())
        with self.store.engine.begin() as c:
            row = c.execute(select(REPORTS).where(REPORTS.c.id == number)).first()
            if row is None:
                raise ModerationError(404, Text.of("moderation.unknown_report", n=number))
            if row.handled is None:
                c.execute(update(REPORTS).where(REPORTS.c.id == number).values(handled=now, handled_by=operator.id))
                _audit(c, now, operator.id, "handle", user=row.reported, match=row.match_id, reason=note or None,
                       details={"report": number})
        return {"id": number, "handled": row.handled or now}

    # ------------------------------------------------------------------ tables

    async def close_table(self, operator: User, match_id: str, reason: str) -> dict[str, Any]:
        """End a table where it stands: its people are told why and their connections closed."""
        reason = _reason(reason)
        info = self.store.match(match_id) if _MATCH_ID.fullmatch(match_id) else None
        if info is None:
            raise ModerationError(404, Text.of("server.unknown_table", table=show(match_id)))
        if info.seating.status == "over":
            raise ModerationError(409, Text.of("moderation.table_over", table=match_id))
        closed = Text.of("moderation.table_closed", reason=reason)
        table = self.tables.loaded(match_id)
        owner = None
        if table is None and self.tables.bus.shared:
            owner = await self.tables.bus.owner(match_id)
        if owner is not None and owner != self.tables.node:
            # another server runs it: it closes it, and the store says so once it has
            self.tables.bus.to_node(owner, {"op": "close", "t": match_id, "text": [closed.key, dict(closed.params)]})
            for _ in range(CLOSE_WAITS):
                await asyncio.sleep(0.1)
                after = self.store.match(match_id)
                if after is not None and after.seating.status == "over":
                    break
            else:
                raise ModerationError(503, Text.of("moderation.table_not_reached", table=match_id))
        else:
            if table is None:
                table = self.tables.get(match_id)
            if table is None:
                raise ModerationError(404, Text.of("server.unknown_table", table=show(match_id)))
            table.close_down(closed)
        now = _stamp(self._moment())
        with self.store.engine.begin() as c:
            _audit(c, now, operator.id, "close", match=match_id, reason=reason,
                   details={"people": [o[0] for o in info.seating.seats if o is not None]})  # ids: names change
        return {"id": match_id, "closed": now}

    # ------------------------------------------------------------------ the audit log

    def audit(self, limit: int) -> list[dict[str, Any]]:
        who, whom = USERS.alias("who"), USERS.alias("whom")
        query = (select(AUDIT_LOG, who.c.name.label("operator_name"), whom.c.name.label("target_name"))
                 .outerjoin(who, who.c.id == AUDIT_LOG.c.operator)
                 .outerjoin(whom, whom.c.id == AUDIT_LOG.c.target_user)
                 .order_by(AUDIT_LOG.c.id.desc()).limit(limit))
        with self.store.engine.connect() as c:
            rows = c.execute(query).all()
            # The people of a closed table are kept by id and shown by their name of today (a
            # renamed or deleted account's too).
            ids = {i for r in rows if isinstance(r.details, dict) for i in r.details.get("people", [])}
            named = c.execute(select(USERS.c.id, USERS.c.name).where(USERS.c.id.in_(sorted(ids))))
            names = {r.id: r.name for r in named}

        def shown(details: Any) -> Any:
            if isinstance(details, dict) and "people" in details:
                return {**details, "people": [names.get(i, i) for i in details["people"]]}
            return details

        return [{"id": r.id, "at": r.at, "operator": r.operator_name, "action": r.action, "target": r.target_name,
                 "table": r.target_match, "reason": r.reason, "details": shown(r.details)} for r in rows]


def _reason(reason: object) -> str:
    text = reason.strip() if isinstance(reason, str) else ""
    if not text:
        raise ModerationError(400, Text.of("moderation.reason_needed"))
    if len(text) > REASON_MAX:
        raise ModerationError(400, Text.of("moderation.reason_too_long", n=REASON_MAX))
    return text


# ---------------------------------------------------------------------- the routes


def routes(moderation: Moderation, identity: Identity) -> list[Route]:
    """The operators' routes and ``GET /api/me/notices`` (see the module docstring)."""

    def refused(e: AccountError) -> Response:
        return personal_answer(e.json, status=e.status)

    async def body_of(request: Request) -> dict[str, Any]:
        try:
            body = await json_body(request)
        except BodyError as e:
            raise _Plain(e.status, str(e)) from None
        if not isinstance(body, dict):
            raise _Plain(400, "$: the body is a JSON object")
        return body

    def text_field(body: Mapping[str, Any], key: str) -> str | None:
        value = body.get(key)
        if value is not None and not isinstance(value, str):
            raise _Plain(400, f"$.{key}: a string or null")
        return value

    def number(request: Request) -> int:
        given = request.path_params["n"]
        if not _NUMBER.fullmatch(given):
            raise _Plain(404, f"no entry {show(given)}")
        return int(given)

    def endpoint(work: Callable[[Request, User], Any], *, made: bool = False) -> Callable[[Request], Any]:
        async def answer(request: Request) -> Response:
            try:
                operator = moderation.operator_of(request)
                result = work(request, operator)
                if asyncio.iscoroutine(result):
                    result = await result
            except AccountError as e:
                return refused(e)
            except _Plain as e:
                return plain_error(e.status, e.message)
            return personal_answer(result, status=201 if made else 200)

        return answer

    def find(request: Request, _operator: User) -> Any:
        return {"people": moderation.find(request.query_params.get("q", "")[:64])}

    def card(request: Request, _operator: User) -> Any:
        return moderation.card(request.path_params["name"][:64])

    async def sanction(request: Request, operator: User) -> Any:
        body = await body_of(request)
        kind = text_field(body, "kind") or ""
        return moderation.sanction(operator, request.path_params["name"][:64], kind, text_field(body, "reason") or "",
                                   text_field(body, "ends"))

    async def lift(request: Request, operator: User) -> Any:
        body = await body_of(request)
        return moderation.lift(operator, number(request), text_field(body, "reason"))

    def reports(request: Request, _operator: User) -> Any:
        return {"reports": moderation.reports(everything=request.query_params.get("all") == "1")}

    async def handled(request: Request, operator: User) -> Any:
        body = await body_of(request)
        return moderation.handle(operator, number(request), text_field(body, "reason"))

    async def close(request: Request, operator: User) -> Any:
        body = await body_of(request)
        return await moderation.close_table(operator, request.path_params["match_id"], text_field(body, "reason") or "")

    def audit(request: Request, _operator: User) -> Any:
        given = request.query_params.get("limit")
        if given is None:
            limit = AUDIT_DEFAULT
        elif _NUMBER.fullmatch(given) and 1 <= int(given) <= AUDIT_MAX:
            limit = int(given)
        else:
            raise _Plain(400, f"limit={show(given)}: a number of entries from 1 to {AUDIT_MAX}")
        return {"entries": moderation.audit(limit)}

    async def notices(request: Request) -> Response:
        user = identity.user_for(request)
        if user is None:
            return personal_answer({"warnings": [], "mute": None})
        return personal_answer(moderation.notices(user.id))

    return [
        Route("/api/admin/people", endpoint(find)),
        Route("/api/admin/people/{name}", endpoint(card)),
        Route("/api/admin/people/{name}/sanctions", endpoint(sanction, made=True), methods=["POST"]),
        Route("/api/admin/sanctions/{n}/lift", endpoint(lift), methods=["POST"]),
        Route("/api/admin/reports", endpoint(reports)),
        Route("/api/admin/reports/{n}/handled", endpoint(handled), methods=["POST"]),
        Route("/api/admin/tables/{match_id}/close", endpoint(close), methods=["POST"]),
        Route("/api/admin/audit", endpoint(audit)),
        Route("/api/me/notices", notices),
    ]


class _Plain(Exception):
    """A malformed request (plain English, as every other route answers one)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
