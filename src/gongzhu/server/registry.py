"""The registry: one server's open tables, its rooms, its lobby and its bus to the other servers
(``docs/architecture.md``, The game server).

:class:`Tables` loads a table from the store when a connection asks for it and lets it go when its
last connection leaves; it makes a room for each table this server has connections to, and
carries each connection's hello, messages and bye to the table's owner — a table here, or through
the bus (:mod:`gongzhu.server.bus`) one on another server — and each change of a table here to
every room of it, on every server.

Each browser message a table here handles is timed from its arrival (a play's latency, the
metrics) and logged as one line, its table, person, action and outcome (the logs).

Imports the table and its dispatch, rooms, thinking, lobby, bus, store, wire, metrics and logs.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import re
import secrets
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from gongzhu.messages import Text
from gongzhu.ratings import DEFAULT
from gongzhu.rules.cards import Seat
from gongzhu.server.bodies import NewTable, plays_as_quick, quick_public_table
from gongzhu.server.bus import Bus, ClusterUnavailable, LocalBus
from gongzhu.server.challenges import Challenges
from gongzhu.server.clock import report_failure
from gongzhu.server.dispatch import receive
from gongzhu.server.lobby import Lobby
from gongzhu.server.logs import about, context
from gongzhu.server.matchmaking import QUICK_START_SECONDS, Waiting, choose, gap
from gongzhu.server.metrics import ARRIVED, Metrics
from gongzhu.server.rooms import Connection, Person, Presence, Ref, Room, Switchboard
from gongzhu.server.store import MatchInfo, Seating, StaleTable, Store
from gongzhu.server.table import EventTables, StoreError, Table
from gongzhu.server.thinking import Pools
from gongzhu.server.wire import Refused, encode, refusal

__all__ = ["Tables"]

#: One line per browser message a table handles: its table, person, action and outcome.
actions = logging.getLogger("gongzhu.server.actions")
log = logging.getLogger("gongzhu.server")

#: A message's type as logged (anything else is logged as ``other``).
_ACTION = re.compile(r"[a-z_]{1,24}")


def _action(text: str | None) -> str:
    """The type of a browser message, for its log line (never its cards or its text)."""
    try:
        kind = json.loads(text).get("type") if text is not None else None
    except (ValueError, AttributeError):
        return "malformed"
    return kind if isinstance(kind, str) and _ACTION.fullmatch(kind) else "other"


def _when(created: str) -> datetime:
    moment = datetime.fromisoformat(created)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _never_muted(_user: str) -> Text | None:
    return None


#: The pauses between asking the bus again who runs a table (:meth:`Tables._owner`), or whether
#: the table this server has just claimed is loaded yet (:meth:`Tables._put_off`).
OWNER_RETRIES = (0.1, 0.2, 0.3, 0.4, 0.0)
#: How many times a server about to run a table tries to move its stored version on while the
#: server that ran it before keeps storing changes (:meth:`Tables._fence`).
FENCE_TRIES = 5
#: At most how often a room whose connections the table's owner does not count present has them
#: introduced again (:meth:`Tables.deliver_here`), in seconds.
INTRODUCE_AGAIN_EVERY = 1.5


class Tables:
    """The open tables of one server, loaded from the store on demand and let go when their last
    connection leaves, and the lobby that lists the public ones.  ``pace`` (seconds per computer
    play) overrides every table's speed setting (tests use 0); ``hint_think`` is the expert's
    search time per hint.  The server is on its own (:class:`~gongzhu.server.bus.LocalBus`) until
    :meth:`use` gives it another bus."""

    def __init__(self, store: Store, *, pace: float | None = None, hint_think: float | None = None,
                 metrics: Metrics | None = None) -> None:
        self.store = store
        #: What this server's tables count and time (:mod:`gongzhu.server.metrics`).
        self.metrics = metrics if metrics is not None else Metrics()
        self.board = Switchboard(secrets.token_hex(6))
        self.node = self.board.node
        self._tables: dict[str, Table] = {}  # the tables this server runs (owns)
        self._quick: set[str] = set()  # the waiting tables Play now made here (they start by themselves)
        self.rooms: dict[str, Room] = {}  # the tables this server has connections to
        self._handing: dict[str, asyncio.Task[None]] = {}  # tables being handed over (let_go)
        self._later: dict[str, asyncio.Task[None]] = {}  # the last turn of what is put off (_put_off)
        #: Another server's news of a person's sanction (the application's moderation hears it).
        self.moderated: Callable[[Mapping[str, Any]], None] = lambda _payload: None
        self.bus: Bus = LocalBus(self.node)
        self.pools = Pools(pace=pace, hint_think=hint_think, metrics=self.metrics)
        self.lobby = Lobby(store, lambda: self.bus, self.loaded, self.owned)
        #: The challenges whose boards single-player matches may play (set by the application).
        self.challenges: Challenges | None = None
        #: The live events whose tables this server runs (set by gongzhu.server.events).
        self.events: EventTables | None = None
        #: Why a person's chat is refused now (set by the application: gongzhu.server.moderation).
        self.muted: Callable[[str], Text | None] = _never_muted

    def use(self, bus: Bus) -> None:
        """Share the tables with other servers through ``bus`` (before any table is opened)."""
        self.bus = bus

    @property
    def open_tables(self) -> int:
        """How many tables are in memory now."""
        return len(self._tables)

    def loaded(self, match_id: str) -> Table | None:
        return self._tables.get(match_id)

    def create(self, new: NewTable, host: Person, others: Sequence[tuple[str, str] | None] = ()) -> MatchInfo:
        """Store a new table with ``host`` at ``new.seat`` (and ``others``, seat by seat, where
        they are people); a started one deals its first deal when it is opened.  At one that waits
        to be started, everyone seated is awaited until they come (:attr:`Table.awaited`)."""
        match_id = "m-" + secrets.token_hex(6)
        seats: list[tuple[str, str] | None] = list(others) if others else [None] * 4
        seats[new.seat] = (host.id, host.name)
        seating = Seating(
            host=host.id, seats=tuple(seats), levels=dict(new.levels), visibility=new.visibility,
            invite=secrets.token_urlsafe(12), turn_seconds=new.turn_seconds, expose_seconds=new.expose_seconds,
            status="playing" if new.started else "waiting", version=0, auto=(False,) * 4, timeouts=(0,) * 4,
            deadline=None, dealt_to=tuple(s[0] if s else None for s in seats) if new.started else (None,) * 4,
            awaited=() if new.started else tuple(s[0] for s in seats if s is not None),
        )
        info = self.store.create_match(match_id=match_id, preset=new.preset, options=new.options.to_dict(),
                                       speed=new.speed, seed=new.seed, seating=seating, seeded=new.seeded,
                                       challenge=new.challenge, accounts_only=new.accounts_only)
        self.lobby.changed(info.match_id)
        return info

    def get(self, match_id: str) -> Table | None:
        """The table of a match, rebuilt from the store if it is not open yet (None if unknown);
        with other servers, the store is fenced first (:meth:`_fence`)."""
        table = self._tables.get(match_id)
        if table is None:
            if self.bus.shared:
                self._fence(match_id)
            info = self.store.match(match_id)
            if info is None:
                return None
            table = self._tables[match_id] = Table(self, info)
        return table

    def _fence(self, match_id: str) -> None:
        """Move a table's stored version on by one before this server loads the table to run it.
        Every change of a table is stored only while the stored version is the one its server
        loaded or last stored (:class:`~gongzhu.server.store.StaleTable`), so from here on the
        server that ran the table before stores nothing more — one that stood still past its
        lease, say, and runs again before it has found out — and what it stored before is in
        what is loaded here.  Without this, such a server could store a change after this one had
        loaded the table and before this one's first write: a change this copy never saw, so
        that its first write is refused and the new owner must let the table go and load it
        again, while the other servers introduce their connections to it."""
        for _ in range(FENCE_TRIES):
            info = self.store.match(match_id)
            if info is None:
                return
            version = info.seating.version
            try:
                self.store.set_version(match_id, version + 1, expected=version)
                return
            except StaleTable:
                continue  # (the server that ran it stored a change meanwhile: read again)

    def play_now(self, person: Person, now: datetime | None = None, preset: str | None = None,
                 ranked: bool = False) -> str:
        """A seat for ``person`` at a public table waiting for players: where they sit already —
        any table for people not over, whatever its preset, whether rated or playing (Play now
        seats nobody at a second table) — else the one with a free seat whose host is there to
        start it that :func:`~gongzhu.server.matchmaking.choose` chooses (the people nearest their rating,
        :meth:`match_gap`), or a new public table with them at South, which starts by itself
        after :data:`~gongzhu.server.matchmaking.QUICK_START_SECONDS`.  A table whose last seat
        this fills starts at once.  Only a table that plays as Play now's own would
        (:func:`~gongzhu.server.bodies.plays_as_quick`: a host's computers, options or timers of
        their choosing seat no stranger).  With ``preset``, only a table of that preset (and a new
        table of it); ``ranked`` (an account's), only a table where only accounts sit (and a new
        one so), whose deals are rated; without it, never such a table."""
        now = now or datetime.now(UTC)
        sitting = self.store.seated_at(person.id)
        if sitting is not None:
            return sitting
        candidates: list[tuple[Waiting, Table]] = []
        for info in self.store.listed():
            if (info.seating.status != "waiting" or (preset is not None and info.preset != preset)
                    or info.accounts_only != ranked):
                continue
            # with several servers, only a table this one runs (another's is not for it to load)
            table = self._tables.get(info.match_id) if self.bus.shared else self.get(info.match_id)
            if table is None:
                continue
            if table.status == "waiting" and table.seat_of(person.id) is not None:
                if not table.connected():
                    self.release(table)  # stored: the person's connection loads it again
                return table.match_id
            host_here = table.host in table.connected()
            if (table.status == "waiting" and host_here and any(o is None for o in table.seats)
                    and person.id not in table.removed and not table.closed_to(person)
                    and plays_as_quick(table.preset, table.options, table.levels, table.turn_seconds,
                                       table.expose_seconds)):
                waiting = Waiting(self.match_gap(table, person), (now - _when(info.created)).total_seconds(),
                                  info.created)
                candidates.append((waiting, table))
            elif not table.connected():
                self.release(table)  # stored: a connection loads it again
        chosen = choose([w for w, _ in candidates])
        if chosen is not None:
            table = candidates[chosen][1]
            try:
                table.sit(person, next(s for s in Seat if table.seats[s] is None))
            except (Refused, StoreError):
                pass  # (taken or refused at the last moment: a table of their own instead)
            else:
                if all(o is not None for o in table.seats) and table.host is not None and table.match_id in self._quick:
                    self._start_quick(table.match_id, table.host)  # Play now's table, full: it starts at once
                return table.match_id
        made = self.create(quick_public_table(preset or "online", accounts_only=ranked), person).match_id
        self._quick.add(made)
        with contextlib.suppress(RuntimeError):  # (no event loop: nothing to start it later)
            asyncio.get_running_loop().call_later(QUICK_START_SECONDS, self._start_quick, made, person.id)
        return made

    def _start_quick(self, match_id: str, host: str) -> None:
        """Start a table "Play now" made, if it still waits (computers in its empty seats)."""
        table = self._tables.get(match_id)
        if table is None or table.status != "waiting" or table.host != host or table.broken:
            self._quick.discard(match_id)
            return
        self._quick.discard(match_id)
        with contextlib.suppress(Refused, StoreError):
            table.start(Person(host, table.host_name or ""))

    def match_gap(self, table: Table, person: Person) -> float:
        """How far ``person``'s rating is from the mean rating of the people sitting at ``table``,
        in the table's family (a person never rated: 1500)."""
        people = [o[0] for o in table.seats if o is not None]
        ratings = self.store.ratings([*people, person.id], table.family)
        rating = {u: by[table.family].rating for u, by in ratings.items()}
        return gap(rating.get(person.id, DEFAULT.rating), [rating.get(u, DEFAULT.rating) for u in people])

    def lifetimes_changed(self, source: Table, lifetimes: Mapping[str, int]) -> None:
        """A deal finished at ``source`` changed these people's lifetime scores: every open table
        shows them (``source`` with the deal's own change)."""
        source.lifetimes.update(lifetimes)
        for table in list(self._tables.values()):
            if table is not source:
                table.lifetime_changed(lifetimes)

    def listing_changed(self, match_id: str) -> None:
        """Something the lobby shows may have changed at a table."""
        self.lobby.changed(match_id)

    def remote_close(self, payload: Mapping[str, Any]) -> None:
        """An operator on another server closed a table this server runs
        (:meth:`~gongzhu.server.moderation.Moderation.close_table`)."""
        table = self._tables.get(payload["t"])
        said = payload.get("text")
        if table is None or not isinstance(said, list) or len(said) != 2:
            log.warning("a close of table %s came here, which does not run it", payload.get("t"))
            return
        table.close_down(Text(str(said[0]), dict(said[1])))

    def forget(self, user_id: str, names: Sequence[str], neutral: str, *, share: bool = True) -> None:
        """A person deleted their account: the tables run here that they host show the neutral
        name, and no room here sends the chat lines said under any of their ``names`` (the one
        they had last and those they gave up) to a page that comes back — on every server
        (``share``: the others are told through the bus)."""
        for table in list(self._tables.values()):
            if table.host == user_id and table.host_name != neutral:
                table.host_name = neutral
                table.republish()
        for room in self.rooms.values():
            room.forget_chat(set(names))
        if share and self.bus.shared:
            # (``name``, the last one, as servers of an earlier version read it during an upgrade)
            self.bus.to_lobby({"op": "forget", "user": user_id, "name": names[-1] if names else "",
                               "names": list(names), "as": neutral})

    def blocked(self, user: str, other: str, *, share: bool = True) -> None:
        """``user`` blocked ``other``: at each table run here, whichever of the two it is closed
        to now leaves it (:meth:`Table.blocked`) — on every server (``share``: the others are told
        through the bus)."""
        for table in list(self._tables.values()):
            table.blocked((user, other))
        if share and self.bus.shared:
            self.bus.to_lobby({"op": "blocked", "users": [user, other]})

    def lobby_news(self, payload: dict[str, Any]) -> None:
        """What another server says to them all: its lobby's news, a person's sanction
        (``moderated``: for :attr:`moderated`, which the application sets), a person who
        deleted their account (``forget``), or a block made (``blocked``)."""
        if payload.get("op") == "moderated":
            self.moderated(payload)
            return
        if payload.get("op") == "blocked":
            user, other = payload["users"]
            self.blocked(str(user), str(other), share=False)
            return
        if payload.get("op") == "forget":
            names = payload.get("names") or [payload["name"]]  # (an earlier version's names the last one)
            self.forget(str(payload["user"]), [str(n) for n in names], str(payload["as"]), share=False)
            return
        self.lobby.remote(payload)

    # ------------------------------------------------------------------ connections and rooms

    def owned(self) -> list[str]:
        """The tables this server runs."""
        return list(self._tables)

    def open_rooms(self) -> list[str]:
        """The tables this server has connections to."""
        return list(self.rooms)

    async def open_room(self, match_id: str) -> Room | None:
        """The room of a table on this server (None for an unknown table).  The table is loaded
        here when no other server runs it (claimed through the bus).  Raises
        :class:`~gongzhu.server.bus.ClusterUnavailable` when the table runs elsewhere and the
        others cannot be reached."""
        room = self.rooms.get(match_id)
        if room is not None:
            return room
        owner: str | None = self.node
        if match_id not in self._tables:
            if self.store.match(match_id) is None:
                return None
            owner = await self.bus.owner(match_id)
            if owner is None and await self.bus.claim(match_id):
                owner = self.node
            elif owner is None:
                owner = await self.bus.owner(match_id)
            if owner == self.node and self.get(match_id) is None:
                return None
        room = self.rooms.get(match_id)  # made meanwhile by another connection
        if room is None:
            room = self.rooms[match_id] = Room(self.board, match_id)
            room.owner = owner
            await self.bus.listen(match_id)  # subscribed before anyone is introduced
        return room

    def _unavailable(self, ref: Ref, close: bool = False) -> None:
        self.send(ref, encode(refusal(Text.of("server.cluster_unavailable"))),
                  close=(1013, "try again later") if close else None)

    async def hello(self, connection: Connection, invite: str | None, *, admitted: bool = False) -> None:
        """Introduce a connection to its table's owner (see :meth:`Table.join`)."""
        connection.invite = invite
        connection.knocked = asyncio.get_running_loop().time()
        table_id = connection.room.table_id
        table = self._tables.get(table_id)
        if table is not None:
            table.join(Presence(connection.ref, connection.person), invite, admitted=admitted)
            return
        owner = await self._owner(connection.room)
        table = self._tables.get(table_id)
        if table is not None:  # (handed over to this server meanwhile)
            table.join(Presence(connection.ref, connection.person), invite, admitted=admitted)
            return
        if owner is None or (owner == self.node and not self.bus.shared):
            self._unavailable(connection.ref, close=not admitted)
            return
        # (a hello nobody got is sent again: :meth:`knock_again`)
        self.bus.to_node(owner, {
            "op": "hello", "t": table_id, "ref": list(connection.ref),
            **connection.person.to_json(), "invite": invite, "admitted": admitted})

    async def knock_again(self, after: float) -> None:
        """Introduce again the connections here that the table's owner has not let in for
        ``after`` seconds (their hello was lost: the owner was changing, or the bus was away)."""
        now = asyncio.get_running_loop().time()
        for room in list(self.rooms.values()):
            for connection in list(room.connections.values()):
                if not connection.admitted and now - connection.knocked >= after:
                    if room.table_id not in self._tables:
                        room.owner = None  # asked of the bus again
                    await self.hello(connection, connection.invite)

    async def _owner(self, room: Room) -> str | None:
        """The server that runs a room's table, asked of the bus when the room does not know —
        a few times over about a second while nobody else is found to run it (the table changing
        hands, or the bus not answering for a moment after this server stood still), so that a
        message sent meanwhile reaches the new owner rather than failing."""
        for pause in OWNER_RETRIES if self.bus.shared else (0.0,):  # (alone, this server is the owner)
            if room.owner is not None and room.owner != self.node:
                break
            with contextlib.suppress(ClusterUnavailable):
                room.owner = await self.bus.owner(room.table_id)
            if room.owner is not None and (room.owner != self.node or room.table_id in self._tables):
                break
            await asyncio.sleep(pause)
        return room.owner

    async def message(self, connection: Connection, text: str | None, *, again: bool = False) -> None:
        """A browser message of ``connection``, for the table's owner (``again``: sent again
        after the owner asked for the connection to be introduced again)."""
        table_id = connection.room.table_id
        table = self._tables.get(table_id)
        reply = functools.partial(self._reply, connection.ref)
        if table is None:
            owner = await self._owner(connection.room)
            table = self._tables.get(table_id)  # (handed over to this server meanwhile)
            if table is None and self.bus.shared and (owner is None or owner == self.node):
                self._unavailable(connection.ref)
                return
            if table is None and owner is not None and owner != self.node:
                # (who sent it, so that an owner that does not know the connection yet introduces it)
                self.bus.to_node(owner, {"op": "msg", "t": table_id, "ref": list(connection.ref), "text": text,
                                         "again": again, **connection.person.to_json(),
                                         "invite": connection.invite, "admitted": connection.admitted,
                                         "rid": context().get("request_id")},
                                 failed=functools.partial(self._unavailable, connection.ref))
                return
        if table is None or table.broken:
            reply(refusal(Text.of("server.store_failed")))
            return
        presence = table.presences.get(connection.ref)
        if presence is None:
            reply(refusal(Text.of("server.no_session")))
            return
        await self._receive(table, presence, text, self._answered_here(table, reply))
        if table.handed_over:  # another server ran the table all along: the message is for it
            await self._handed(table_id)
            if again and table_id in self._tables:  # (refused by a copy here twice: not a third time)
                self._unavailable(connection.ref)
                return
            await self.message(connection, text, again=True)

    @staticmethod
    async def _receive(table: Table, presence: Presence, text: str | None,
                       reply: Callable[[dict[str, Any]], None]) -> None:
        """A browser message for a table here (:func:`~gongzhu.server.dispatch.receive`), timed
        from now (:data:`~gongzhu.server.metrics.ARRIVED`), the lines logged meanwhile about its
        table and person, and one more saying what it asked and how that went: ``ok``, or
        ``refused`` and the refusal's code."""
        refused: list[str] = []

        def answer(message: dict[str, Any]) -> None:
            if message.get("type") == "error" and not refused:
                refused.append(str(message.get("code") or ""))
            reply(message)

        arrived = ARRIVED.set(time.perf_counter())
        try:
            with about(table=table.match_id, person=presence.person.id):
                await receive(table, presence, text, answer)
                if actions.isEnabledFor(logging.INFO):
                    action = _action(text)
                    actions.info("%s: %s", action, "refused" if refused else "ok", extra={
                        "action": action, "outcome": "refused" if refused else "ok",
                        "code": refused[0] or None if refused else None})
        finally:
            ARRIVED.reset(arrived)

    def bye(self, connection: Connection) -> None:
        """A connection is gone."""
        room = connection.room
        room.disconnect(connection)
        if not room.connections and self.rooms.get(room.table_id) is room:
            del self.rooms[room.table_id]
            self.bus.unlisten(room.table_id)
        table = self._tables.get(room.table_id)
        if table is not None:
            table.leave(connection.ref)
        elif room.owner is not None and room.owner != self.node and self.bus.up:
            self.bus.to_node(room.owner, {"op": "bye", "t": room.table_id, "ref": list(connection.ref)})

    # the owner's side of other servers' connections

    def remote_hello(self, payload: Mapping[str, Any]) -> None:
        self._in_turn(payload["t"], functools.partial(self._remote_hello, payload))

    def _remote_hello(self, payload: Mapping[str, Any]) -> None:
        ref: Ref = (payload["ref"][0], payload["ref"][1])
        table = self._tables.get(payload["t"])
        if table is None:  # not (or no longer) this server's: the connection's server asks again
            self.send(ref, encode(refusal(Text.of("server.cluster_unavailable"))))
            return
        person = Person.of(payload)
        table.join(Presence(ref, person), payload.get("invite"), admitted=bool(payload.get("admitted")))

    def remote_message(self, payload: Mapping[str, Any]) -> None:
        """A browser message another server forwards: whom it is from is settled in the order the
        bus brought it (a connection's bye that follows it never goes before it); what it asks
        is then done by a task."""
        self._in_turn(payload["t"], functools.partial(self._remote_message, payload))

    def _remote_message(self, payload: Mapping[str, Any]) -> None:
        ref: Ref = (payload["ref"][0], payload["ref"][1])
        again = bool(payload.get("again"))
        text = payload.get("text")
        table = self._tables.get(payload["t"])
        presence = table.presences.get(ref) if table is not None else None
        if (table is not None and presence is None and not table.broken and payload.get("admitted")
                and payload.get("person")):
            # a connection let in before that this server does not know (it took the table over
            # since, or its server was thought gone for a while): introduced as its server would
            # introduce it again, from what its message says of it — checked again as a new
            # connection is (Table.join): one refused is told so and closed, and its message dropped
            table.join(Presence(ref, Person.of(payload)), payload.get("invite"), admitted=True)
            presence = table.presences.get(ref)
            if presence is None:
                return
        if table is None or table.handed_over:  # not (or no longer) this server's
            self._task(self._not_here(payload["t"], ref, text, again))
        elif presence is None and not table.broken and not again:
            # a connection this server does not know (from a server that does not say whose it
            # is): its server introduces it again and resends
            self.bus.to_node(ref[0], {"op": "rejoin", "cid": ref[1], "text": text})
        elif presence is None or table.broken:
            self.send(ref, encode(refusal(Text.of("server.cluster_unavailable"))))
        else:
            self._task(self._answer(table, presence, ref, text, again, payload.get("rid")))

    async def _answer(self, table: Table, presence: Presence, ref: Ref, text: str | None, again: bool,
                      request_id: str | None = None) -> None:
        """Answer a message another server forwarded, at a table here (its lines logged with the
        id of the connection's request on its server, ``request_id``)."""
        with about(**({"request_id": request_id} if isinstance(request_id, str) else {})):
            await self._receive(table, presence, text,
                                self._answered_here(table, functools.partial(self._reply, ref)))
        if table.handed_over:  # the message is for the server that runs the table
            await self._not_here(table.match_id, ref, text, again)

    async def _not_here(self, match_id: str, ref: Ref, text: str | None, again: bool) -> None:
        """A message forwarded here for a table another server runs: once this server has handed
        it over (if it is), the connection's server asks who runs it and sends the message
        there — once (``again``: it was sent once more already, and is refused)."""
        await self._handed(match_id)
        if again:
            self.send(ref, encode(refusal(Text.of("server.cluster_unavailable"))))
        else:
            self.bus.to_node(ref[0], {"op": "rejoin", "cid": ref[1], "text": text})

    @staticmethod
    def _task(work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        task.add_done_callback(report_failure)

    @staticmethod
    def _answered_here(table: Table, reply: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
        """``reply``, silent once ``table`` is handed over (the server that runs it answers)."""
        def answer(message: dict[str, Any]) -> None:
            if not table.handed_over:
                reply(message)
        return answer

    def _put_off(self, match_id: str, *, ask: bool = True) -> asyncio.Task[None] | None:
        """What another server asks of a table that does not run here (a connection's hello,
        message or bye) waits while the table may be about to run here: while this server hands
        it over (:meth:`let_go`: it may load it again), and, with ``ask``, for about a second
        while the bus says this server runs it (it claimed the table and is loading it) — and
        whatever comes for the table meanwhile waits behind it, so that each is done in the order
        it came.  A task done when its turn comes, or None when it goes ahead now."""
        before = self._later.get(match_id)
        if before is None and (match_id in self._tables or not self.bus.shared
                               or (not ask and match_id not in self._handing)):
            return None

        async def turn() -> None:
            if before is not None:
                await asyncio.wait({before})
            while match_id not in self._tables and (handing := self._handing.get(match_id)) is not None:
                await asyncio.wait({handing})
            for pause in OWNER_RETRIES if ask else ():
                if match_id in self._tables:
                    return
                try:
                    if await self.bus.owner(match_id) != self.node:
                        return
                except ClusterUnavailable:
                    return
                await asyncio.sleep(pause)

        task = asyncio.get_running_loop().create_task(turn())
        self._later[match_id] = task
        task.add_done_callback(functools.partial(self._turned, match_id))
        return task

    def _turned(self, match_id: str, task: asyncio.Task[None]) -> None:
        if self._later.get(match_id) is task:
            del self._later[match_id]

    def _in_turn(self, match_id: str, step: Callable[[], None], *, ask: bool = True) -> None:
        """Do ``step`` — what another server asked of a table — now, or when its turn comes
        (:meth:`_put_off`)."""
        turn = self._put_off(match_id, ask=ask)
        if turn is None:
            step()
        else:
            turn.add_done_callback(lambda done: None if done.cancelled() else step())

    async def _handed(self, match_id: str) -> None:
        """Wait until a table this server let go (:meth:`let_go`) is handed over, if it is being."""
        handing = self._handing.get(match_id)
        if handing is not None:
            await asyncio.shield(handing)

    async def rejoin(self, cid: int, text: str | None) -> None:
        """The table's owner did not know a connection here that sent ``text``: introduce it
        again and send the message again (once)."""
        connection = self.board.local.get(cid)
        if connection is not None:
            if connection.room.table_id not in self._tables:
                connection.room.owner = None  # asked of the bus again (the table may have moved)
            await self.hello(connection, connection.invite, admitted=connection.admitted)
            if connection.outbox.closing is None:  # (else refused as a new connection would be)
                await self.message(connection, text, again=True)

    def remote_bye(self, payload: Mapping[str, Any]) -> None:
        self._in_turn(payload["t"], functools.partial(self._remote_bye, payload), ask=False)

    def _remote_bye(self, payload: Mapping[str, Any]) -> None:
        table = self._tables.get(payload["t"])
        if table is not None:
            table.leave((payload["ref"][0], payload["ref"][1]))

    def remote_nodes(self) -> list[str]:
        """The other servers with connections to the tables this one runs."""
        return sorted({ref[0] for t in self._tables.values() for ref in t.presences if ref[0] != self.node})

    def node_gone(self, node: str) -> None:
        """A server died: its connections are gone from the tables this one runs."""
        for table in list(self._tables.values()):
            for ref in [r for r in table.presences if r[0] == node]:
                table.leave(ref)

    def lost(self, match_id: str) -> None:
        """Another server runs this table now: stop running it here (its connections here stay,
        introduced to the new owner when it says so)."""
        table = self._tables.pop(match_id, None)
        if table is not None:
            table.halt()
        room = self.rooms.get(match_id)
        if room is not None and room.owner == self.node:
            room.owner = None

    async def took_over(self, match_id: str) -> None:
        """This server claimed a table whose owner died: rebuild it from the store, say so, and
        introduce the connections here to it (the other servers introduce theirs)."""
        if self.get(match_id) is None:
            return
        room = self.rooms.get(match_id)
        if room is not None:
            room.owner = self.node
        self.bus.to_table(match_id, {"op": "owned", "from": self.node})
        await self.reintroduce(match_id)

    def owned_by(self, match_id: str, node: str) -> None:
        room = self.rooms.get(match_id)
        if room is not None:
            room.owner = node
            asyncio.get_running_loop().create_task(self.reintroduce(match_id))

    def beat(self, match_id: str, version: int, every: float) -> None:
        room = self.rooms.get(match_id)
        now = asyncio.get_running_loop().time()
        # a change was missed: catch up (and again while the room stays behind, since the asking
        # or the answer may be lost too)
        if room is not None and version > room.seen and now - room.caught_up >= every:
            room.caught_up = now
            asyncio.get_running_loop().create_task(self.reintroduce(match_id))

    def version_of(self, match_id: str) -> int | None:
        table = self._tables.get(match_id)
        return table.version if table is not None else None

    def republish(self, match_id: str) -> None:
        """Send every room of a table this server runs its current state again."""
        table = self._tables.get(match_id)
        if table is not None and not table.broken:
            table.republish()

    async def reintroduce(self, match_id: str) -> None:
        """Introduce this server's connections to the table's owner again (a new owner knows
        nobody yet)."""
        room = self.rooms.get(match_id)
        if room is None:
            return
        if match_id not in self._tables:
            try:
                room.owner = await self.bus.owner(match_id)
            except Exception:
                return
        for connection in list(room.connections.values()):  # let in before, or still waiting
            await self.hello(connection, connection.invite, admitted=connection.admitted)

    def resume(self, match_id: str) -> None:
        """Start what runs by itself at a table this server runs (its computer players, its clock)."""
        table = self._tables.get(match_id)
        if table is not None:
            table.resume()

    def deliver(self, match_id: str, change: Mapping[str, Any]) -> None:
        """A table's change, for every room of the table (on every server)."""
        self.deliver_here(match_id, change)
        self.bus.to_table(match_id, {"op": "change", "from": self.node, "change": change})

    def deliver_here(self, match_id: str, change: Mapping[str, Any]) -> None:
        room = self.rooms.get(match_id)
        if room is not None:
            room.deliver(change)
            if match_id not in self._tables and change.get("views") is not None and self._unknown(room, change):
                now = asyncio.get_running_loop().time()
                if now - room.caught_up >= INTRODUCE_AGAIN_EVERY:
                    room.caught_up = now
                    self._task(self.reintroduce(match_id))

    @staticmethod
    def _unknown(room: Room, change: Mapping[str, Any]) -> bool:
        """Whether a change of the table's owner has no view for a connection of ``room`` it let
        in: the owner does not count that connection present (it counted this server gone while
        this one stood still, say), so the connection would be shown no more of its own state —
        not even that it is its turn — and would wait for ever; its server introduces it again."""
        views = change["views"]
        for connection in room.connections.values():
            if connection.admitted:
                seat = next((s for s, u in zip(Seat, change["seats"], strict=True) if u == connection.person.id),
                            None)
                if (seat.name if seat is not None else "-") not in views:
                    return True
        return False

    def _reply(self, ref: Ref, message: Mapping[str, Any]) -> None:
        self.send(ref, encode(message))

    def send(self, ref: Ref, text: str | None, *, close: tuple[int, str] | None = None, admit: bool = False,
             v: int | None = None) -> None:
        """A message for one connection (and its admission, or its end), on whichever server;
        ``v``: the table's version the message shows (its room is up to date with it)."""
        node, cid = ref
        if node != self.node:
            self.bus.to_node(node, {"op": "send", "cid": cid, "text": text, "close": list(close) if close else None,
                                    "admit": admit, "v": v})
            return
        connection = self.board.local.get(cid)
        if connection is None:
            return  # gone meanwhile
        if v is not None:
            connection.room.seen = max(connection.room.seen, v)
        if admit:
            connection.room.admit(connection)
        if text is not None:
            connection.outbox.put(text)
        if close is not None:
            connection.outbox.close(*close)

    def release(self, table: Table) -> None:
        """Let a table go (its connections are gone, or it is broken): it stops, and the next
        connection rebuilds it from the store."""
        if self._tables.get(table.match_id) is table:
            del self._tables[table.match_id]
            self.bus.release(table.match_id)
        table.halt()

    def let_go(self, table: Table) -> bool:
        """The store refused a change of ``table`` as stale: another server runs it now.  With
        several servers, stop it here and introduce this server's connections to the owner (as
        :meth:`lost`, without waiting to be told; nothing is said to the other servers' rooms,
        which the owner serves): True.  Alone (no other server can run it), False: the table is
        broken and dropped."""
        if not self.bus.shared:
            return False
        if table.handed_over:
            return True  # (let go already)
        match_id = table.match_id
        table.halt()
        if self._tables.get(match_id) not in (table, None):
            return True  # (an old copy: the table rebuilt here since runs it)
        self.lost(match_id)
        if match_id not in self._handing:
            task = asyncio.get_running_loop().create_task(self._hand_over(match_id))
            self._handing[match_id] = task
            task.add_done_callback(lambda _: self._handing.pop(match_id, None))
            task.add_done_callback(report_failure)
        return True

    async def _hand_over(self, match_id: str) -> None:
        """After :meth:`let_go`: introduce this server's connections to the table's owner; if the
        lease is still this server's, or nobody's (the table here was behind what another server
        stored while this one stood still), claim it and rebuild the table from the store here,
        as a new owner does."""
        with contextlib.suppress(ClusterUnavailable):
            owner = await self.bus.owner(match_id)
            if owner is None and await self.bus.claim(match_id):  # (nobody runs it: this one does)
                owner = self.node
            if owner == self.node:
                await self.took_over(match_id)
                return
        await self.reintroduce(match_id)

    async def close(self) -> None:
        """Stop every table's computer players and timers (the store keeps where each match stands)."""
        for table in self._tables.values():
            await table.stop()
        self._tables.clear()
        self.lobby.close()
        self.pools.close()
