"""Account care (``docs/accounts.md``): what a person with an account does to it — change the
password, end their other sessions, change the name, download everything stored about them and
delete the account — and the routes that answer it (``docs/web-protocol.md``, Who you are):

- ``GET /api/account/sessions``: how many sessions the account has open;
- ``POST /api/account/sessions/end-others``: every session but this one ends;
- ``POST /api/account/password`` ``{"current", "new"}``: a new password, every other session ends;
- ``POST /api/account/name`` ``{"name", "password"}``: a new name (once in :data:`RENAME_DAYS` days);
- ``GET /api/account/export``: one JSON file of everything stored about the person;
- ``POST /api/account/delete`` ``{"password", "confirm"}``: the account is deleted.

:class:`AccountCare` holds the statements (each change one transaction); :func:`routes` is made by
:func:`gongzhu.server.accounts.routes`, which gives it its sign-in :class:`~gongzhu.server.accounts.Backoff`:
a wrong password here counts as a failed sign-in of the account's name from the client's address,
and waits as one.  Every refusal is a catalog message.  Imports the catalog, the record format
(:func:`~gongzhu.records.format.dump_record`), the ratings, the titles of :mod:`gongzhu.rules.match`,
the bodies of :mod:`gongzhu.formats.web` and, of
the server, the names, the policy, the store, the bodies, the wire and the identity;
``argon2-cffi``, SQLAlchemy and Starlette.
"""

from __future__ import annotations

import asyncio
import json
import math
import secrets
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple, Protocol

from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import Connection, Row, String, cast, delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from gongzhu.formats.web import DeleteAccountBody, PasswordChangeBody, RenameBody
from gongzhu.messages import Text
from gongzhu.ratings import Skill
from gongzhu.records.format import dump_record
from gongzhu.rules.match import title_for
from gongzhu.server.bodies import BodyError, typed_body
from gongzhu.server.identity import (
    AccountError,
    Identity,
    User,
    check_name,
    check_password,
    login_key,
    name_held,
    name_key,
    other_name_like,
)
from gongzhu.server.names import DELETED_PREFIX, name_skeleton
from gongzhu.server.policy import counted_address
from gongzhu.server.store import (
    BLOCKS,
    CHALLENGE_ENTRIES,
    CHALLENGE_RESULTS,
    CHALLENGES,
    EVENT_LOG,
    EVENTS,
    FRIENDS,
    INVITATIONS,
    KNOWN_DEVICES,
    LIFETIME_WON,
    MATCH_PLAYERS,
    MATCHES,
    METADATA,
    NETWORK_KEPT,
    RATING_HISTORY,
    RATINGS,
    REPORTS,
    REVIEWS,
    SANCTIONS,
    SESSIONS,
    USER_NETWORKS,
    USERS,
    seated_rows,
)
from gongzhu.server.wire import personal_answer, plain_error

__all__ = ["EXPORT_FORMAT", "RENAME_DAYS", "AccountCare", "Deleted", "Tries", "routes"]

#: An account changes its name at most once in this many days (the name it gave up is held as
#: long, :data:`~gongzhu.server.identity.NAME_HELD`).
RENAME_DAYS = 30
#: The ``format`` of ``GET /api/account/export``'s file.
EXPORT_FORMAT = "gongzhu-account-export/1"
#: The random hex digits after :data:`~gongzhu.server.names.DELETED_PREFIX` in a deleted account's name.
DELETED_DIGITS = 6

_DEALS = METADATA.tables["deals"]


class Tries(Protocol):
    """The sign-in failures a password typed here counts with (:class:`gongzhu.server.accounts.Backoff`)."""

    def start(self, key: tuple[str, str]) -> float: ...

    def failed(self, key: tuple[str, str]) -> None: ...

    def succeeded(self, key: tuple[str, str]) -> None: ...


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _when(stamp: str) -> datetime:
    moment = datetime.fromisoformat(stamp)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _rename_seats(c: Connection, user_id: str, name: str) -> None:
    """The stored seats of ``user_id`` named ``name`` (the lists of matches show it)."""
    for row in seated_rows(c, user_id, open_tables=False):
        seats = [{**s, "name": name} if s and s.get("user") == user_id else s for s in row.seats]
        c.execute(update(MATCHES).where(MATCHES.c.id == row.id).values(seats=seats))


def _rename_events(c: Connection, user_id: str, names: set[str], neutral: str) -> None:
    """The events ``user_id`` entered, entered and withdrew from, or refereed name them
    ``neutral`` (their new name, or a deleted account's): in their entrants and referees (kept
    by id and name), an entrant named after its players, or by one of ``names``, named anew —
    and their log likewise, an entrant by the same new name wherever it names it, so that the
    log and the entrants agree."""
    mentioned = f'"{user_id}"'
    acted = select(EVENT_LOG.c.event_id).where(EVENT_LOG.c.actor == user_id)
    rows = c.execute(select(EVENTS.c.id, EVENTS.c.entrants, EVENTS.c.referees).where(or_(
        cast(EVENTS.c.entrants, String).contains(mentioned, autoescape=True),
        cast(EVENTS.c.referees, String).contains(mentioned, autoescape=True),
        EVENTS.c.id.in_(acted)))).all()

    def anew(name: str, players: list[tuple[bool, str]]) -> str:
        """An entrant's name once the person's name among ``players`` (each: whether it is the
        person's, the name) is the neutral one."""
        if name == " & ".join(p for _, p in players):
            return " & ".join(neutral if theirs else p for theirs, p in players)
        return neutral if name in names else name

    for row in rows:
        log = c.execute(select(EVENT_LOG.c.id, EVENT_LOG.c.actor, EVENT_LOG.c.action, EVENT_LOG.c.details)
                        .where(EVENT_LOG.c.event_id == row.id).order_by(EVENT_LOG.c.id)).all()
        entrant_names: dict[str, str] = {}  # an entrant's name → its new name
        ours: set[str] = set()  # the names of the entrants the person plays in
        entrants = []
        for entrant in row.entrants or []:
            if any(p[0] == user_id for p in entrant["players"]):
                ours.add(entrant["name"])
                entrant_names[entrant["name"]] = anew(entrant["name"],
                                                      [(p[0] == user_id, p[1]) for p in entrant["players"]])
                players = [[p[0], neutral if p[0] == user_id else p[1]] for p in entrant["players"]]
                entrant = {**entrant, "name": entrant_names[entrant["name"]], "players": players}
            entrants.append(entrant)
        for entry in log:  # an entrant the person entered and withdrew since is in the log alone
            d = entry.details
            if entry.action == "entry" and entry.actor == user_id and d["entrant"] not in entrant_names:
                entrant_names[d["entrant"]] = anew(d["entrant"], [(p in names, p) for p in d["players"]])
        referees = [[r[0], neutral if r[0] == user_id else r[1]] for r in row.referees or []]
        c.execute(update(EVENTS).where(EVENTS.c.id == row.id).values(entrants=entrants, referees=referees))
        for entry in log:
            d = entry.details
            if not isinstance(d, dict):
                continue
            changed = dict(d)
            for key in ("entrant", "bye"):
                if isinstance(d.get(key), str) and d[key] in entrant_names:
                    changed[key] = entrant_names[d[key]]
            if isinstance(d.get("entrants"), list):
                changed["entrants"] = [entrant_names.get(e, e) for e in d["entrants"]]
            if isinstance(d.get("matches"), list):
                changed["matches"] = [[entrant_names.get(e, e) for e in m] for m in d["matches"]]
            # players named in an entry or a stand-in of the person's own entrant (or by themself)
            own = entry.actor == user_id or d.get("entrant") in ours
            if own and isinstance(d.get("players"), list):
                changed["players"] = [neutral if p in names else p for p in d["players"]]
            if entry.action == "stand_in" and d.get("player") in names and ours:
                changed["player"] = neutral
            if changed != d:
                c.execute(update(EVENT_LOG).where(EVENT_LOG.c.id == entry.id).values(details=changed))


def _rename_records(c: Connection, user_id: str, names: set[str], neutral: str) -> int:
    """The records of the finished deals of the matches ``user_id`` played name them ``neutral``
    wherever they named them by one of ``names`` (the names they had); returns how many changed."""
    played = list(c.scalars(select(MATCH_PLAYERS.c.match_id).where(MATCH_PLAYERS.c.user_id == user_id)))
    changed = 0
    for start in range(0, len(played), 500):
        chunk = played[start:start + 500]
        # A name another player of the match has or had is theirs as much: left as it is (not the
        # names a deleted account holds: its records name it by its neutral name alone).
        others: dict[str, set[str]] = {}
        for match_id, other, former, deleted in c.execute(
                select(MATCH_PLAYERS.c.match_id, USERS.c.name, USERS.c.former_names, USERS.c.deleted)
                .join(USERS, USERS.c.id == MATCH_PLAYERS.c.user_id)
                .where(MATCH_PLAYERS.c.match_id.in_(chunk), MATCH_PLAYERS.c.user_id != user_id)):
            others.setdefault(match_id, set()).update([other, *((former or []) if deleted is None else [])])
        rows = c.execute(select(_DEALS.c.id, _DEALS.c.match_id, _DEALS.c.record).where(_DEALS.c.match_id.in_(chunk)))
        for row in rows.all():
            record = json.loads(row.record)
            players = record.get("players")
            if not isinstance(players, dict):
                continue
            theirs = names - others.get(row.match_id, set())
            seats = [s for s, p in players.items() if isinstance(p, dict) and p.get("name") in theirs]
            if not seats:
                continue
            for seat in seats:
                players[seat] = {**players[seat], "name": neutral}
            c.execute(update(_DEALS).where(_DEALS.c.id == row.id).values(record=dump_record(record)))
            changed += 1
    return changed


class Deleted(NamedTuple):
    """A deleted account's neutral name, and every name it had (the last one last)."""

    name: str
    names: list[str]


class AccountCare:
    """The changes a person makes to their own account, on an :class:`Identity` and its store."""

    def __init__(self, identity: Identity) -> None:
        self.identity = identity
        self.store = identity.store

    def _row(self, user_id: str) -> Row[Any]:
        with self.store.engine.connect() as c:
            row = c.execute(select(USERS).where(USERS.c.id == user_id)).first()
        if row is None:
            raise AccountError(401, Text.of("server.no_session"))
        return row

    async def verify(self, user_id: str, password: str) -> bool:
        """Whether ``password`` is the account's (argon2id, in a worker thread)."""
        stored = self._row(user_id).password_hash
        if stored is None:
            return False

        def check() -> bool:
            try:
                return self.identity.hasher.verify(stored, password)
            except (VerificationError, InvalidHashError):
                return False

        return await asyncio.to_thread(check)

    def sessions(self, user_id: str) -> int:
        """How many sessions ``user_id`` has open (the browsers signed in as them)."""
        with self.store.engine.connect() as c:
            return int(c.scalar(select(func.count()).select_from(SESSIONS).where(SESSIONS.c.user_id == user_id)) or 0)

    def end_others(self, request: HTTPConnection) -> int:
        """End every session of the request's account but the request's own; how many ended."""
        done = self.identity.end_others(request)
        if done is None:
            raise AccountError(401, Text.of("server.no_session"))
        return done[1]

    async def change_password(self, request: HTTPConnection, new: str) -> int:
        """The account's password becomes ``new`` (already checked), and every other session
        ends in the same transaction; how many ended."""
        hashed = await asyncio.to_thread(self.identity.hasher.hash, new)
        done = self.identity.end_others(request, password_hash=hashed)
        if done is None:
            raise AccountError(401, Text.of("server.no_session"))
        return done[1]

    def rename(self, user: User, name: str) -> User:
        """The account's name becomes ``name`` (the rules of :func:`check_name`; not the name it
        has; not twice in :data:`RENAME_DAYS` days; no other account's, nor one looking like
        another's, nor a name held, :func:`~gongzhu.server.identity.name_held`); the former name
        is kept in ``former_names`` (and held from now on), and the stored seats and the events
        take the new one.  :class:`AccountError` otherwise."""
        clean = check_name(name)
        row = self._row(user.id)
        if clean == row.name:
            raise AccountError(400, Text.of("account_care.name_same", name=clean))
        if row.renamed is not None:
            again = _when(row.renamed) + timedelta(days=RENAME_DAYS)
            if again > datetime.now(UTC):
                raise AccountError(409, Text.of("account_care.rename_wait",
                                                date=again.isoformat(timespec="minutes").replace("+00:00", " UTC")))
        key, look = name_key(clean), name_skeleton(clean)
        taken = AccountError(409, Text.of("server.account_name_taken", name=clean))
        with self.store.engine.connect() as c:
            holder = c.scalar(select(USERS.c.id).where(USERS.c.name_key == key))
            held = name_held(c, key, look, user.id)
        if (holder is not None and holder != user.id) or held:
            raise taken
        former = [n for n in (row.former_names or []) if n != row.name] + [row.name]
        try:
            with self.store.engine.begin() as c:
                other = other_name_like(c, look, user.id)  # checked again, one at a time
                if other is not None:
                    raise AccountError(409, Text.of("server.account_name_like", name=clean, other=other))
                if name_held(c, key, look, user.id):
                    raise taken
                done = c.execute(update(USERS).where(USERS.c.id == user.id, USERS.c.name == row.name,
                                                     USERS.c.password_hash.is_not(None))
                                 .values(name=clean, name_key=key, name_skeleton=look, renamed=_now(),
                                         former_names=former)).rowcount
                if done:
                    _rename_seats(c, user.id, clean)
                    # the events too: a name they showed is held a while, then anyone's
                    _rename_events(c, user.id, {row.name, *(row.former_names or [])}, clean)
        except IntegrityError:  # taken meanwhile: the unique name_key
            raise taken from None
        if not done:  # renamed or deleted meanwhile
            raise AccountError(409, Text.of("account_care.changed_meanwhile"))
        renamed = self.identity.user(user.id)
        assert renamed is not None
        return renamed

    def seated_at(self, user_id: str) -> str | None:
        """A table for people, not over, at which ``user_id`` sits (None: none)."""
        return self.store.seated_at(user_id)

    def delete(self, user_id: str) -> Deleted:
        """Delete the account: its row is kept, anonymised (a neutral name, ``deleted-`` and
        :data:`DELETED_DIGITS` hex digits, that is a guest's: no password, no lifetime, no
        place on any board), every session ends, its ratings, rating history, friendships and
        requests, blocks (either way), invitations and open reports it made go, and the
        records and stored seats that named it by any of its names name it by the neutral one —
        all in one transaction; returns the neutral name and every name it had (the last one
        last, for the open tables to forget: :attr:`Identity.on_deleted`).  Its names stay in ``former_names``,
        held (:data:`~gongzhu.server.identity.NAME_HELD`).  Refused (409) while the person sits at
        a table for people that is not over, looked at again here, in the transaction.  What
        stays: the matches with their records and every other person's totals and ratings
        (docs/accounts.md).  Safe in a worker
        thread; the caller then tells :attr:`Identity.on_ended` on the event loop, so that the
        person's open table connections close at once."""
        now = _now()
        for _ in range(20):
            neutral = DELETED_PREFIX + secrets.token_hex(DELETED_DIGITS // 2)
            try:
                with self.store.engine.begin() as c:
                    row = c.execute(select(USERS).where(USERS.c.id == user_id).with_for_update()).first()
                    if row is None or row.password_hash is None:
                        raise AccountError(409, Text.of("account_care.changed_meanwhile"))
                    names = {row.name, *(row.former_names or [])}
                    held = [n for n in (row.former_names or []) if n != row.name] + [row.name]
                    c.execute(update(USERS).where(USERS.c.id == user_id).values(
                        name=neutral, name_key=name_key(neutral), name_skeleton=None, password_hash=None, guest=True,
                        lifetime=0, deals=0, matches=0, pigs=0, practice=0, practice_deals=0, last_seen=None,
                        role=None, renamed=None, former_names=held, deleted=now, sign_in_failures=0,
                        sign_in_failed=None, session_epoch=USERS.c.session_epoch + 1))
                    # Seated meanwhile (since the route looked): refused.  Read after the row is
                    # written, so in its lock: a table's seat stored meanwhile is seen here, and
                    # one stored later finds the row deleted (Store.save_table).
                    seated = seated_rows(c, user_id, open_tables=True)
                    if seated:
                        raise AccountError(409, Text.of("account_care.delete_seated", table=str(seated[0].id)))
                    for statement in (
                        delete(SESSIONS).where(SESSIONS.c.user_id == user_id),
                        delete(KNOWN_DEVICES).where(KNOWN_DEVICES.c.user_id == user_id),
                        delete(USER_NETWORKS).where(USER_NETWORKS.c.user_id == user_id),
                        delete(RATINGS).where(RATINGS.c.user_id == user_id),
                        delete(RATING_HISTORY).where(RATING_HISTORY.c.user_id == user_id),
                        # (what others' scores counted with it is theirs: it ages out within the week)
                        delete(LIFETIME_WON).where(LIFETIME_WON.c.user_id == user_id),
                        delete(REVIEWS).where(REVIEWS.c.user_id == user_id),
                        delete(FRIENDS).where(or_(FRIENDS.c.user_id == user_id, FRIENDS.c.other_id == user_id)),
                        delete(BLOCKS).where(or_(BLOCKS.c.user_id == user_id, BLOCKS.c.blocked_id == user_id)),
                        delete(INVITATIONS).where(or_(INVITATIONS.c.to_user == user_id,
                                                      INVITATIONS.c.from_user == user_id)),
                        delete(REPORTS).where(REPORTS.c.reporter == user_id, REPORTS.c.handled.is_(None)),
                    ):
                        c.execute(statement)
                    _rename_records(c, user_id, names, neutral)
                    _rename_seats(c, user_id, neutral)
                    _rename_events(c, user_id, names, neutral)
            except IntegrityError:  # the neutral name is another's: another one
                continue
            return Deleted(neutral, held)
        raise RuntimeError("no free neutral name after 20 tries")

    def export(self, user_id: str) -> dict[str, Any]:
        """Everything stored about the person (``GET /api/account/export``; docs/accounts.md):
        never a password hash, a session's token, a browser's device token or its digest, or what
        others keep that the person does not see."""
        row = self._row(user_id)
        store = self.store
        with store.engine.connect() as c:
            def names(ids: Iterable[str]) -> dict[str, str]:
                wanted = sorted(set(ids))
                return {r.id: r.name for r in c.execute(select(USERS.c.id, USERS.c.name).where(USERS.c.id.in_(wanted)))}

            friends = c.execute(select(FRIENDS).where(or_(FRIENDS.c.user_id == user_id, FRIENDS.c.other_id == user_id))
                                .order_by(FRIENDS.c.created)).all()
            blocks = c.execute(select(BLOCKS).where(BLOCKS.c.user_id == user_id).order_by(BLOCKS.c.created)).all()
            reports = c.execute(select(REPORTS.c.reported, REPORTS.c.match_id, REPORTS.c.reason, REPORTS.c.created)
                                .where(REPORTS.c.reporter == user_id).order_by(REPORTS.c.created)).all()
            invitations = c.execute(select(INVITATIONS).where(or_(INVITATIONS.c.to_user == user_id,
                                                                  INVITATIONS.c.from_user == user_id))
                                    .order_by(INVITATIONS.c.created)).all()
            sanctions = c.execute(select(SANCTIONS.c.kind, SANCTIONS.c.reason, SANCTIONS.c.starts, SANCTIONS.c.ends,
                                         SANCTIONS.c.lifted).where(SANCTIONS.c.user_id == user_id)
                                  .order_by(SANCTIONS.c.id)).all()
            reviewed = c.execute(select(REVIEWS).where(REVIEWS.c.user_id == user_id)
                                 .order_by(REVIEWS.c.played, REVIEWS.c.match_id, REVIEWS.c.deal_index)).all()
            sessions = list(c.scalars(select(SESSIONS.c.created).where(SESSIONS.c.user_id == user_id)
                                      .order_by(SESSIONS.c.created)))
            browsers = c.execute(select(KNOWN_DEVICES.c.last_seen, KNOWN_DEVICES.c.since)
                                 .where(KNOWN_DEVICES.c.user_id == user_id).order_by(KNOWN_DEVICES.c.last_seen)).all()
            day = (datetime.now(UTC) - NETWORK_KEPT).isoformat(timespec="microseconds")
            networks = list(c.scalars(select(USER_NETWORKS.c.last_seen).where(USER_NETWORKS.c.user_id == user_id,
                                                                              USER_NETWORKS.c.last_seen >= day)
                                      .order_by(USER_NETWORKS.c.last_seen)))
            entered = c.execute(select(CHALLENGE_ENTRIES).where(CHALLENGE_ENTRIES.c.user_id == user_id)
                                .order_by(CHALLENGE_ENTRIES.c.entered)).all()
            history = c.execute(select(RATING_HISTORY).where(RATING_HISTORY.c.user_id == user_id)
                                .order_by(RATING_HISTORY.c.family, RATING_HISTORY.c.games)).all()
            results = c.execute(select(CHALLENGE_RESULTS, CHALLENGES.c.title)
                                .join(CHALLENGES, CHALLENGES.c.id == CHALLENGE_RESULTS.c.challenge_id)
                                .where(CHALLENGE_RESULTS.c.user_id == user_id)
                                .order_by(CHALLENGE_RESULTS.c.finished)).all()
            played = {r.match_id: r for r in c.execute(select(MATCH_PLAYERS).where(MATCH_PLAYERS.c.user_id == user_id))}
            counted = c.execute(select(LIFETIME_WON).where(LIFETIME_WON.c.user_id == user_id)
                                .order_by(LIFETIME_WON.c.day, LIFETIME_WON.c.other_id)).all()
            who = names([f.other_id for f in friends] + [f.user_id for f in friends] + [b.blocked_id for b in blocks]
                        + [r.reported for r in reports] + [i.to_user for i in invitations]
                        + [i.from_user for i in invitations] + [w.other_id for w in counted])
        friendship = []
        for f in friends:
            if f.user_id == user_id:
                friendship.append({"name": who.get(f.other_id), "state": f.state, "since": f.created})
            elif f.state == "asked":  # a request to the person
                friendship.append({"name": who.get(f.user_id), "state": "asking", "since": f.created})
        matches = []
        for info in reversed(store.matches(user_id)):  # oldest first, as GET /api/me/records.jsonl
            mine = played.get(info.match_id)
            matches.append({
                "id": info.match_id, "created": info.created, "preset": info.preset, "options": info.options,
                "solo": info.solo, "over": info.over, "deals": info.deals, "host": info.seating.host == user_id,
                "played": None if mine is None else {"deals": int(mine.deals), "total": int(mine.total),
                                                     "pig": bool(mine.pig), "seat": mine.seat, "last": mine.last,
                                                     "seats": mine.seat_deals},
                "records": [json.loads(line) for line in store.records(info.match_id)],
            })
        lifetime = int(row.lifetime)
        return {
            "format": EXPORT_FORMAT,
            "exported": _now(),
            "profile": {
                "id": row.id, "name": row.name, "former_names": list(row.former_names or []), "renamed": row.renamed,
                "created": row.created, "guest": bool(row.guest), "account": row.password_hash is not None,
                "lifetime": lifetime, "title": title_for(lifetime), "deals": int(row.deals),
                "matches": int(row.matches), "pigs": int(row.pigs),
                "practice": {"score": int(row.practice), "deals": int(row.practice_deals)}, "last_seen": row.last_seen,
            },
            "ratings": {family: skill.view() for family, skill in store.ratings([user_id]).get(user_id, {}).items()},
            "rating_history": {family: [_point(h) for h in history if h.family == family]
                               for family in sorted({h.family for h in history})},
            "sessions": [{"created": created} for created in sessions],
            # The browsers known to the account (when each first and last signed in, never its cookie) and the
            # failed sign-ins from others that the account counts (docs/web-protocol.md, Limits).
            "sign_ins": {"browsers": [{"last_signed_in": seen, "first_signed_in": since} for seen, since in browsers],
                         "failures": int(row.sign_in_failures), "last_failure": row.sign_in_failed,
                         # the networks table pages came from in the last day (when; never the address)
                         "networks": [{"last_seen": seen} for seen in networks]},
            # Each challenge entered: when, and whether as a guest (never from which browser).
            "challenges_entered": [{"challenge": e.challenge_id, "entered": e.entered, "guest": e.guest}
                                   for e in entered],
            # What the operators decided about the person, with their reasons (not who decided).
            "sanctions": [{"kind": x.kind, "reason": x.reason, "starts": x.starts, "ends": x.ends, "lifted": x.lifted}
                          for x in sanctions],
            "friends": friendship,
            "blocks": [{"name": who.get(b.blocked_id), "since": b.created} for b in blocks],
            "reports": [{"name": who.get(r.reported), "match_id": r.match_id, "reason": r.reason, "created": r.created}
                        for r in reports],
            "invitations": [{"from": who.get(i.from_user), "to": who.get(i.to_user), "match_id": i.match_id,
                             "url": i.url, "created": i.created, "dismissed": i.dismissed}
                            for i in invitations],
            "matches": matches,
            # What the lifetime score counted with each other person, net, a day, in the last seven days
            # (docs/ratings.md, Won from one person).
            "lifetime_counted": [{"with": who.get(w.other_id), "day": w.day, "net": int(w.won)} for w in counted],
            # The reviews kept for the person's accuracy (docs/review.md, Across many deals), whole.
            "reviews": [{"match_id": r.match_id, "deal": int(r.deal_index), "seat": r.seat, "played": r.played,
                         "reviewed": r.reviewed, "review": json.loads(r.review)} for r in reviewed],
            "challenges": [{"challenge": r.challenge_id, "title": r.title, "board": int(r.board),
                            "match_id": r.match_id, "deal": int(r.deal_index), "result": int(r.result),
                            "finished": r.finished} for r in results],
        }


def _point(h: Row[Any]) -> dict[str, Any]:
    """A row of ``rating_history`` as the export writes it."""
    skill = Skill(h.mu, h.sigma, h.games)
    return {"games": int(h.games), "at": h.at, "rating": skill.rating, "deviation": skill.deviation,
            "match_id": h.match_id, "deal": int(h.deal_index)}


# ---------------------------------------------------------------------- the routes


def _too_many(seconds: float) -> JSONResponse:
    wait = max(1, math.ceil(seconds))
    refusal = AccountError(429, Text.of("server.account_sign_in_wait", seconds=wait))
    return JSONResponse(refusal.json, status_code=429, headers={"Retry-After": str(wait), "Cache-Control": "no-store"})


def _refused(e: AccountError) -> Response:
    return personal_answer(e.json, status=e.status)


def routes(identity: Identity, failures: Tries) -> list[Route]:
    """The routes of account care on ``identity``; a password typed to them counts in ``failures``
    as a sign-in of the account's name does."""
    care = AccountCare(identity)

    def person(request: Request, *, account: bool = True) -> User:
        """The request's person: :class:`AccountError` without a session (401) or, with
        ``account``, for someone who has no account (403)."""
        user = identity.user_for(request)
        if user is None:
            raise AccountError(401, Text.of("server.no_session"))
        if account and not user.account:
            raise AccountError(403, Text.of("account_care.account_needed"))
        return user

    async def password_of(request: Request, user: User, password: str) -> Response | None:
        """None when ``password`` is the account's; else the refusal (a wrong one is a failed
        sign-in of the name from the address, and waits as one)."""
        key = (login_key(user.name)[:64], counted_address(request))
        wait = failures.start(key)
        if wait:
            return _too_many(wait)
        if not await care.verify(user.id, password):
            failures.failed(key)
            return _refused(AccountError(401, Text.of("account_care.wrong_password")))
        failures.succeeded(key)
        return None

    async def sessions(request: Request) -> Response:
        try:
            user = person(request)
        except AccountError as e:
            return _refused(e)
        return personal_answer({"sessions": care.sessions(user.id)})

    async def end_others(request: Request) -> Response:
        try:
            person(request)
            ended = care.end_others(request)
        except AccountError as e:
            return _refused(e)
        return personal_answer({"ended": ended, "sessions": 1})

    async def change_password(request: Request) -> Response:
        try:
            body = await typed_body(request, PasswordChangeBody)
        except BodyError as e:
            return plain_error(e.status, str(e))
        try:
            user = person(request)
            check_password(body.new)
            if body.new == body.current:
                raise AccountError(400, Text.of("account_care.password_same"))
        except AccountError as e:
            return _refused(e)
        if (refused := await password_of(request, user, body.current)) is not None:
            return refused
        try:
            ended = await care.change_password(request, body.new)
        except AccountError as e:
            return _refused(e)
        return personal_answer({"changed": True, "ended": ended})

    async def rename(request: Request) -> Response:
        try:
            body = await typed_body(request, RenameBody)
        except BodyError as e:
            return plain_error(e.status, str(e))
        try:
            user = person(request)
            check_name(body.name)  # refused before the password is checked
        except AccountError as e:
            return _refused(e)
        if (refused := await password_of(request, user, body.password)) is not None:
            return refused
        table = care.seated_at(user.id)
        if table is not None:  # the table keeps its people's names and would write the old one back
            return _refused(AccountError(409, Text.of("account_care.rename_seated", table=table)))
        try:
            renamed = care.rename(user, body.name)
        except AccountError as e:
            return _refused(e)
        # Its open connections, which know it by the old name, connect again under the new one.
        if care.identity.on_ended is not None:
            care.identity.on_ended(user.id)
        return personal_answer(renamed.to_json())

    async def export(request: Request) -> Response:
        try:
            user = person(request, account=False)
        except AccountError as e:
            return _refused(e)
        exported = await asyncio.to_thread(care.export, user.id)  # every record parsed: off the event loop
        text = json.dumps(exported, ensure_ascii=False, indent=1)
        return Response(text, media_type="application/json; charset=utf-8", headers={
            "Content-Disposition": f'attachment; filename="gongzhu-account-{user.id}.json"',
            "Cache-Control": "no-store"})

    async def delete_account(request: Request) -> Response:
        try:
            body = await typed_body(request, DeleteAccountBody)
        except BodyError as e:
            return plain_error(e.status, str(e))
        try:
            user = person(request)
            if login_key(body.confirm) != login_key(user.name):
                raise AccountError(400, Text.of("account_care.confirm_mismatch", name=user.name))
        except AccountError as e:
            return _refused(e)
        if (refused := await password_of(request, user, body.password)) is not None:
            return refused
        table = care.seated_at(user.id)
        if table is not None:
            return _refused(AccountError(409, Text.of("account_care.delete_seated", table=table)))
        try:
            # Off the event loop: every record of every match the person played is rewritten.
            neutral, names = await asyncio.to_thread(care.delete, user.id)
        except AccountError as e:
            return _refused(e)
        if identity.on_ended is not None:  # its table connections close at once (on the event loop)
            identity.on_ended(user.id)
        if identity.on_deleted is not None:  # and the open tables show none of its names any more
            identity.on_deleted(user.id, names, neutral)
        secure = request.url.scheme in ("https", "wss")
        return personal_answer({"deleted": True, "name": neutral}, identity.cleared_cookie(secure=secure))

    return [
        Route("/api/account/sessions", sessions),
        Route("/api/account/sessions/end-others", end_others, methods=["POST"]),
        Route("/api/account/password", change_password, methods=["POST"]),
        Route("/api/account/name", rename, methods=["POST"]),
        Route("/api/account/export", export),
        Route("/api/account/delete", delete_account, methods=["POST"]),
    ]
