"""The people one plays with (``docs/people.md``): friends, blocks, reports and invitations to a
table, on the store's tables ``friends``, ``blocks``, ``reports`` and ``invitations``.

- ``GET /api/people``: the caller's friends (online or not, and at which public table), the
  requests they made and received, whom they blocked, and the invitations waiting for them; it
  also marks the caller as there (the lobby asks it every 20 seconds: that is being online).
- ``POST /api/people/{name}/friend`` asks ``name`` to be friends, or accepts their request;
  ``DELETE`` cancels a request, declines one, or ends a friendship.  At most
  :data:`REQUESTS_WAITING` requests wait for one person's answer: past that a new one is refused
  (the asker asks again once some are answered), on every server sharing the database.
- ``POST /api/people/{name}/block``: the two never share a table again (the table refuses the
  one coming to the other's, gongzhu.server.table), a friendship or request between them ends,
  and the blocked person is not told: their request to the one who blocked them is taken as
  made and never shown.  ``DELETE`` lifts the block.
- ``POST /api/people/{name}/report`` ``{"reason", "match_id"}``: kept for the operator.
- ``POST /api/tables/{id}/invite`` ``{"name"}``: a friend is asked to the caller's table (shown
  in their lobby; asked again, it comes back to the top); ``DELETE /api/people/invitations/{n}``
  dismisses one, and its sender cannot send it again while it would have shown.  At most
  :data:`INVITATIONS_AT_ONCE` of one person's invitations show at a time.

Only accounts have friends (a guest's name is not theirs to keep): a guest is refused with a
catalog message.  Every refusal a player reads is one.

Imports the store, identity, bodies, wire and the registry's tables (for invitations).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, exists, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gongzhu.formats.web import InviteBody, ReportBody
from gongzhu.jsontext import show
from gongzhu.messages import Text
from gongzhu.server.bodies import BodyError, typed_body
from gongzhu.server.identity import NAME_HELD, AccountError, Identity, User, login_key
from gongzhu.server.store import BLOCKS, FRIENDS, INVITATIONS, MATCHES, REPORTS, USERS, Store, friends_among, hold
from gongzhu.server.wire import personal_answer, plain_error

__all__ = ["INVITATIONS_AT_ONCE", "INVITATION_MINUTES", "INVITE_AGAIN_SECONDS", "ONLINE_SECONDS", "REPORTS_A_DAY",
           "REPORTS_OF_ONE", "REQUESTS_WAITING", "People", "routes"]

#: Someone who asked for their people within this many seconds is online.
ONLINE_SECONDS = 60
#: An invitation is shown this long.
INVITATION_MINUTES = 30
#: How many invitations one person may have showing at once (sent within INVITATION_MINUTES).
INVITATIONS_AT_ONCE = 20
#: An invitation asked again sooner than this after the last stays as it was (not brought back
#: to the top of the list).
INVITE_AGAIN_SECONDS = 60
#: How many friends, requests and blocks a person may keep, each.
MOST = 500
#: How many friend requests may wait for one person's answer at once (asked of them, not yet
#: accepted or declined; a request from someone they blocked, which they never see, not counted).
#: Past that a new request is refused, whoever asks, until they answer some: many accounts
#: asking one person cannot bury the requests of the people they know, nor push them out.
REQUESTS_WAITING = 50
#: How many reports a person may make in a day, and how many of them about one person (the
#: operator reads each: twenty of one grievance would bury the others).
REPORTS_A_DAY, REPORTS_OF_ONE = 20, 3

_NUMBER = re.compile(r"[0-9]{1,12}")


def _now() -> datetime:
    return datetime.now(UTC)


class People:
    """Friends, blocks, reports and invitations (see the module docstring)."""

    def __init__(self, store: Store, now: Callable[[], datetime] = _now) -> None:
        self.store = store
        self.now = now

    def account(self, name: str, *, former: bool = False) -> tuple[str, str]:
        """The id and name of the account named ``name``; refused when there is none.  With
        ``former``, also the account that gave ``name`` up last and holds it still
        (:data:`~gongzhu.server.identity.NAME_HELD`): someone who said something under a name
        and changed it at once is blocked and reported by the name they were seen by — the
        answer names them by it, not by their new one."""
        key = login_key(name)
        with self.store.engine.connect() as c:
            row = c.execute(select(USERS.c.id, USERS.c.name).where(
                USERS.c.name_key == key, USERS.c.guest.is_(False),
                USERS.c.password_hash.is_not(None))).first()
            if row is None and former:
                cutoff = (datetime.now(UTC) - NAME_HELD).isoformat(timespec="microseconds")
                renamed = c.execute(select(USERS.c.id, USERS.c.former_names).where(
                    USERS.c.deleted.is_(None), USERS.c.former_names.is_not(None), USERS.c.renamed >= cutoff,
                    USERS.c.password_hash.is_not(None))).all()
                found = next((r for r in renamed if r.former_names and login_key(r.former_names[-1]) == key), None)
                if found is not None:
                    return str(found.id), str(found.former_names[-1])
        if row is None:
            raise AccountError(404, Text.of("server.account_unknown", name=show(name)))
        return row.id, row.name

    def _blocked_by(self, c: Any, user: str, other: str) -> bool:
        return c.execute(select(BLOCKS.c.user_id).where(BLOCKS.c.user_id == user,
                                                        BLOCKS.c.blocked_id == other)).first() is not None

    # ------------------------------------------------------------------ friends

    def befriend(self, me: str, other: str) -> str:
        """Ask ``other`` to be friends, or accept their request: the state now, ``asked`` or
        ``friends`` (as ``asked`` to someone who blocked ``me``: they are never shown it)."""
        if other == me:
            raise AccountError(400, Text.of("server.people_yourself"))
        try:
            return self._befriend(me, other)
        except IntegrityError:  # the two asked each other at the same moment: once more, settled
            return self._befriend(me, other)

    def _befriend(self, me: str, other: str) -> str:
        stamp = self.now().isoformat()
        with self.store.engine.begin() as c:
            if self._blocked_by(c, me, other):
                raise AccountError(409, Text.of("server.people_blocked_by_you"))
            theirs = c.execute(select(FRIENDS.c.state).where(FRIENDS.c.user_id == other,
                                                             FRIENDS.c.other_id == me)).scalar()
            mine = c.execute(select(FRIENDS.c.state).where(FRIENDS.c.user_id == me,
                                                           FRIENDS.c.other_id == other)).scalar()
            if mine == "friends":
                return "friends"
            if theirs == "asked" and not self._blocked_by(c, other, me):
                c.execute(update(FRIENDS).where(FRIENDS.c.user_id == other, FRIENDS.c.other_id == me)
                          .values(state="friends"))
                if mine is None:
                    c.execute(insert(FRIENDS).values(user_id=me, other_id=other, state="friends", created=stamp))
                else:
                    c.execute(update(FRIENDS).where(FRIENDS.c.user_id == me, FRIENDS.c.other_id == other)
                              .values(state="friends"))
                return "friends"
            if mine is None:
                kept = c.execute(select(FRIENDS.c.other_id).where(FRIENDS.c.user_id == me).limit(MOST)).all()
                if len(kept) >= MOST:
                    raise AccountError(409, Text.of("server.people_too_many", n=MOST))
                # Counted with the person asked held, so that requests made at one moment, on one
                # server or several, are counted one after another and never pass the bound.
                # Refused alike whether or not they blocked ``me``: the refusal tells ``me``
                # nothing of a block.
                if self._waiting(c, other) >= REQUESTS_WAITING:
                    raise AccountError(409, Text.of("server.people_requests_waiting", n=REQUESTS_WAITING))
                c.execute(insert(FRIENDS).values(user_id=me, other_id=other, state="asked", created=stamp))
            return "asked"

    @staticmethod
    def _waiting(c: Any, user: str) -> int:
        """How many friend requests wait for ``user``'s answer (up to :data:`REQUESTS_WAITING`),
        read in ``c``'s transaction once it holds the requests to ``user`` (:func:`hold`).  A
        request from someone ``user`` blocked is not counted: they never see it, and it cannot
        take the place of another."""
        hold(c, "friend requests " + user, user)
        hidden = exists().where(BLOCKS.c.user_id == user, BLOCKS.c.blocked_id == FRIENDS.c.user_id)
        waiting = select(FRIENDS.c.user_id).where(FRIENDS.c.other_id == user, FRIENDS.c.state == "asked", ~hidden)
        return len(c.execute(waiting.limit(REQUESTS_WAITING)).all())

    def unfriend(self, me: str, other: str) -> None:
        """Cancel a request, decline one, or end a friendship (nothing to end: nothing done)."""
        with self.store.engine.begin() as c:
            c.execute(delete(FRIENDS).where(((FRIENDS.c.user_id == me) & (FRIENDS.c.other_id == other))
                                            | ((FRIENDS.c.user_id == other) & (FRIENDS.c.other_id == me))))

    # ------------------------------------------------------------------ blocks and reports

    def block(self, me: str, other: str) -> None:
        if other == me:
            raise AccountError(400, Text.of("server.people_yourself"))
        with self.store.engine.begin() as c:
            c.execute(delete(FRIENDS).where(((FRIENDS.c.user_id == me) & (FRIENDS.c.other_id == other))
                                            | ((FRIENDS.c.user_id == other) & (FRIENDS.c.other_id == me))))
            c.execute(delete(INVITATIONS).where(  # either way: neither is asked to a table they cannot sit at
                ((INVITATIONS.c.to_user == me) & (INVITATIONS.c.from_user == other))
                | ((INVITATIONS.c.to_user == other) & (INVITATIONS.c.from_user == me))))
            if not self._blocked_by(c, me, other):
                kept = c.execute(select(BLOCKS.c.blocked_id).where(BLOCKS.c.user_id == me).limit(MOST)).all()
                if len(kept) >= MOST:
                    raise AccountError(409, Text.of("server.people_too_many", n=MOST))
                # (blocked at the same moment by another request: that block stands)
                with contextlib.suppress(IntegrityError), c.begin_nested():
                    c.execute(insert(BLOCKS).values(user_id=me, blocked_id=other, created=self.now().isoformat()))

    def unblock(self, me: str, other: str) -> None:
        with self.store.engine.begin() as c:
            c.execute(delete(BLOCKS).where(BLOCKS.c.user_id == me, BLOCKS.c.blocked_id == other))

    def report(self, me: str, other: str, reason: str, match_id: str | None) -> None:
        """``me`` reports ``other``: the reason, without the spaces around it, may not be empty,
        and the match named, if any, must be one (an operator follows its link)."""
        if other == me:
            raise AccountError(400, Text.of("server.people_yourself"))
        reason = reason.strip()
        if not reason:
            raise AccountError(400, Text.of("people.reportEmpty"))
        since = (self.now() - timedelta(days=1)).isoformat()
        with self.store.engine.begin() as c:
            if match_id is not None and c.scalar(select(MATCHES.c.id).where(MATCHES.c.id == match_id)) is None:
                raise AccountError(404, Text.of("server.unknown_table", table=show(match_id)))
            made = c.execute(select(REPORTS.c.reported).where(REPORTS.c.reporter == me, REPORTS.c.created >= since)
                             .limit(REPORTS_A_DAY)).all()
            if len(made) >= REPORTS_A_DAY:
                raise AccountError(429, Text.of("server.people_reports_a_day", n=REPORTS_A_DAY))
            if sum(1 for row in made if row.reported == other) >= REPORTS_OF_ONE:
                raise AccountError(429, Text.of("server.people_reports_of_one", n=REPORTS_OF_ONE))
            c.execute(insert(REPORTS).values(reporter=me, reported=other, match_id=match_id, reason=reason,
                                             created=self.now().isoformat()))

    # ------------------------------------------------------------------ invitations

    def invite(self, me: str, other: str, match_id: str, url: str) -> None:
        """Ask the friend ``other`` to the table ``match_id`` (its address ``url``): a new
        invitation, or the one already showing brought back to the top (unless it was asked less
        than :data:`INVITE_AGAIN_SECONDS` ago: it stays as it was).  Refused when ``other`` is no
        friend, dismissed an invitation from ``me`` to this table while it would still show, or
        when ``me`` has :data:`INVITATIONS_AT_ONCE` showing already."""
        now = self.now()
        shown_since = (now - timedelta(minutes=INVITATION_MINUTES)).isoformat()
        with self.store.engine.begin() as c:
            if other not in friends_among(c, me, [other]):
                raise AccountError(409, Text.of("server.people_not_friends"))
            # what the person asked was shown of this table, newest first
            earlier = c.execute(select(INVITATIONS.c.created, INVITATIONS.c.dismissed).where(
                INVITATIONS.c.to_user == other, INVITATIONS.c.from_user == me, INVITATIONS.c.match_id == match_id,
                INVITATIONS.c.created >= shown_since).order_by(INVITATIONS.c.created.desc())).first()
            if earlier is not None and earlier.dismissed is not None:
                raise AccountError(409, Text.of("server.people_invitation_dismissed", minutes=INVITATION_MINUTES))
            if earlier is not None and earlier.created >= (now - timedelta(seconds=INVITE_AGAIN_SECONDS)).isoformat():
                return
            showing = c.execute(select(func.count()).select_from(INVITATIONS).where(
                INVITATIONS.c.from_user == me, INVITATIONS.c.created >= shown_since,
                INVITATIONS.c.dismissed.is_(None),
                ~((INVITATIONS.c.to_user == other) & (INVITATIONS.c.match_id == match_id)))).scalar_one()
            if showing >= INVITATIONS_AT_ONCE:
                raise AccountError(429, Text.of("server.people_invitations_many", n=INVITATIONS_AT_ONCE,
                                                minutes=INVITATION_MINUTES))
            # the same table's earlier invitation goes, and so do the sender's that stopped showing
            # a day ago (kept until then: a dismissal holds while the invitation would show)
            c.execute(delete(INVITATIONS).where(INVITATIONS.c.from_user == me, or_(
                (INVITATIONS.c.to_user == other) & (INVITATIONS.c.match_id == match_id),
                INVITATIONS.c.created < (now - timedelta(days=1)).isoformat())))
            c.execute(insert(INVITATIONS).values(to_user=other, from_user=me, match_id=match_id, url=url,
                                                 created=now.isoformat()))

    def dismiss(self, me: str, invitation: int) -> None:
        """The person's invitation ``invitation`` shows no more; the same table is not offered
        again by its sender while it would have shown."""
        with self.store.engine.begin() as c:
            c.execute(update(INVITATIONS).where(INVITATIONS.c.id == invitation, INVITATIONS.c.to_user == me,
                                                INVITATIONS.c.dismissed.is_(None))
                      .values(dismissed=self.now().isoformat()))

    # ------------------------------------------------------------------ the list

    def listing(self, me: str) -> dict[str, Any]:
        """``GET /api/people`` (see the module docstring); marks ``me`` as there."""
        now = self.now()
        online_since = (now - timedelta(seconds=ONLINE_SECONDS)).isoformat()
        shown_since = (now - timedelta(minutes=INVITATION_MINUTES)).isoformat()
        with self.store.engine.begin() as c:
            c.execute(update(USERS).where(USERS.c.id == me).values(last_seen=now.isoformat()))
            blocked = {r.blocked_id: r.name for r in c.execute(
                select(BLOCKS.c.blocked_id, USERS.c.name).join(USERS, USERS.c.id == BLOCKS.c.blocked_id)
                .where(BLOCKS.c.user_id == me).order_by(USERS.c.name_key))}
            blockers = set(c.scalars(select(BLOCKS.c.user_id).where(BLOCKS.c.blocked_id == me)))
            mine = c.execute(select(FRIENDS.c.other_id, FRIENDS.c.state, USERS.c.name, USERS.c.last_seen)
                             .join(USERS, USERS.c.id == FRIENDS.c.other_id)
                             .where(FRIENDS.c.user_id == me).order_by(USERS.c.name_key)).all()
            asking = c.execute(select(FRIENDS.c.user_id, USERS.c.name).join(USERS, USERS.c.id == FRIENDS.c.user_id)
                               .where(FRIENDS.c.other_id == me, FRIENDS.c.state == "asked")
                               .order_by(USERS.c.name_key)).all()
            invitations = c.execute(
                select(INVITATIONS.c.id, INVITATIONS.c.url, INVITATIONS.c.created, USERS.c.name)
                .join(USERS, USERS.c.id == INVITATIONS.c.from_user)
                .where(INVITATIONS.c.to_user == me, INVITATIONS.c.created >= shown_since,
                       INVITATIONS.c.dismissed.is_(None))
                .order_by(INVITATIONS.c.created.desc())).all()
            friend_ids = [r.other_id for r in mine if r.state == "friends"]
            tables = self._tables(c, friend_ids)
        return {
            "friends": [{"name": r.name, "online": r.last_seen is not None and r.last_seen >= online_since,
                         "table": tables.get(r.other_id)} for r in mine if r.state == "friends"],
            "asked": [r.name for r in mine if r.state == "asked"],
            "asking": [r.name for r in asking if r.user_id not in blocked and r.user_id not in blockers],
            "blocked": list(blocked.values()),
            "invitations": [{"id": r.id, "from": r.name, "url": r.url, "created": r.created} for r in invitations
                            if r.name not in blocked.values()],
        }

    @staticmethod
    def _tables(c: Any, people: list[str]) -> dict[str, dict[str, str]]:
        """The public table each of ``people`` sits at now (waiting or playing), if any."""
        if not people:
            return {}
        rows = c.execute(select(MATCHES.c.id, MATCHES.c.seats, MATCHES.c.created).where(
            MATCHES.c.visibility == "public", MATCHES.c.status.in_(["waiting", "playing"]),
            MATCHES.c.solo.is_(False)).order_by(MATCHES.c.created.desc()).limit(2000)).all()
        wanted = set(people)
        out: dict[str, dict[str, str]] = {}
        for row in rows:
            for occupant in row.seats or []:  # as the store keeps them: {"user", "name"}
                user = occupant.get("user") if isinstance(occupant, dict) else None
                if user in wanted and user not in out:
                    out[user] = {"id": row.id, "url": f"/table/{row.id}"}
        return out


def routes(people: People, identity: Identity, table_url: Callable[[str, str], str | None],
           blocked: Callable[[str, str], None] = lambda _user, _other: None) -> list[Route]:
    """The routes of the people one plays with; ``table_url(match_id, user)``: the address of a
    table ``user`` sits at or hosts (with its invitation for a private one), None otherwise;
    ``blocked(user, other)``: a block was made (the tables whichever of the two is closed to now
    see them leave)."""

    def account_of(request: Request) -> User:
        user = identity.user_for(request)
        if user is None or not user.account:
            raise AccountError(403, Text.of("server.people_account_needed"))
        return user

    def refused(e: AccountError) -> Response:
        return personal_answer(e.json, status=e.status)

    async def listing(request: Request) -> Response:
        user = identity.user_for(request)
        if user is None or not user.account:
            return personal_answer({"friends": [], "asked": [], "asking": [], "blocked": [], "invitations": [],
                                    "account": False})
        return personal_answer({**people.listing(user.id), "account": True})

    async def friend(request: Request) -> Response:
        try:
            me = account_of(request)
            other, name = people.account(request.path_params["name"])
            if request.method == "DELETE":
                people.unfriend(me.id, other)
                return personal_answer({"name": name, "state": None})
            return personal_answer({"name": name, "state": people.befriend(me.id, other)})
        except AccountError as e:
            return refused(e)

    async def block(request: Request) -> Response:
        try:
            me = account_of(request)
            other, name = people.account(request.path_params["name"], former=True)
            if request.method == "DELETE":
                people.unblock(me.id, other)
                return personal_answer({"name": name, "blocked": False})
            people.block(me.id, other)
            blocked(me.id, other)
            return personal_answer({"name": name, "blocked": True})
        except AccountError as e:
            return refused(e)

    async def report(request: Request) -> Response:
        try:
            body = await typed_body(request, ReportBody)
        except BodyError as e:
            return plain_error(e.status, str(e))
        try:
            me = account_of(request)
            other, name = people.account(request.path_params["name"], former=True)
            people.report(me.id, other, body.reason, body.match_id)
        except AccountError as e:
            return refused(e)
        return personal_answer({"name": name, "reported": True}, status=201)

    async def invite(request: Request) -> Response:
        try:
            body = await typed_body(request, InviteBody)
        except BodyError as e:
            return plain_error(e.status, str(e))
        try:
            me = account_of(request)
            other, name = people.account(body.name)
            match_id = request.path_params["match_id"]
            url = table_url(match_id, me.id)
            if url is None:
                raise AccountError(409, Text.of("server.people_not_your_table"))
            people.invite(me.id, other, match_id, url)
        except AccountError as e:
            return refused(e)
        return personal_answer({"name": name, "invited": True}, status=201)

    async def dismiss(request: Request) -> Response:
        number = request.path_params["n"]
        try:
            me = account_of(request)
        except AccountError as e:
            return refused(e)
        if not _NUMBER.fullmatch(number):
            return plain_error(404, f"no invitation {show(number)}")
        people.dismiss(me.id, int(number))
        return personal_answer({"dismissed": True})

    return [
        Route("/api/people", listing),
        Route("/api/people/invitations/{n}", dismiss, methods=["DELETE"]),
        Route("/api/people/{name}/friend", friend, methods=["POST", "DELETE"]),
        Route("/api/people/{name}/block", block, methods=["POST", "DELETE"]),
        Route("/api/people/{name}/report", report, methods=["POST"]),
        Route("/api/tables/{match_id}/invite", invite, methods=["POST"]),
    ]
