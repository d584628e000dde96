"""Rooms: a table's connections on one server, and what each is sent (``docs/architecture.md``,
The game server).

A :class:`Room` is told each change of its table by the table's owner — this server or, with
several, another — as one versioned event: the change's public messages and the views of the
seats its people see it from.  It sends every admitted connection those messages and its own
state, and keeps the last :data:`HISTORY` events so that a connection that comes back with the
version it saw gets what it missed.  A :class:`Connection` holds one WebSocket's
:class:`Outbox`; a :class:`Presence` is a connection as the table's owner knows it.

Imports the wire, the views' personal part, the bus's connection reference and the policy's bounds.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Set
from dataclasses import dataclass, field
from typing import Any

from gongzhu.messages import Text
from gongzhu.rules.cards import Seat
from gongzhu.server.bus import Ref
from gongzhu.server.policy import OUTBOX_LIMIT, RateLimiter
from gongzhu.server.views import personal
from gongzhu.server.wire import encode, refusal

__all__ = ["CHAT_BLOCKS_SECONDS", "CHAT_BURST", "CHAT_RATE", "HISTORY", "ChatBlocks", "ChatBudgets", "Connection",
           "Outbox", "Person", "Presence", "Ref", "Room", "Switchboard"]

#: How many changes' messages a room keeps for connections that come back.
HISTORY = 200
#: Chat: lines per second on average and in a burst, per person at a table.
CHAT_RATE = 1.0
CHAT_BURST = 3
#: Past this many people's chat budgets, a table forgets those that have filled up again.
CHAT_BUDGETS_KEPT = 64
#: How long a table trusts what it read of a person's blocks for chat (seconds).  A block made is
#: told to every table at once (Table.blocked), which reads it again: this only delays the end of
#: a block lifted, keeping lines apart a little longer, never delivering one too soon.
CHAT_BLOCKS_SECONDS = 30.0

def _chat_line(text: str) -> dict[str, Any] | None:
    """The chat line a public message of the room is, if it is one."""
    if '"chat"' not in text:
        return None
    message = json.loads(text)
    return message if isinstance(message, dict) and message.get("type") == "chat" else None


@dataclass(frozen=True, slots=True)
class Person:
    """Someone using the server: a user id and the name the table shows — and, on a table
    connection, the other accounts signed in from its browser (a mute of one of them holds its
    chat: gongzhu.server.dispatch), which no comparison of two persons looks at."""

    id: str
    name: str
    same_browser: tuple[str, ...] = field(default=(), compare=False)

    def to_json(self) -> dict[str, Any]:
        """The person as a forwarded message names it (:meth:`of`): ``person``, the id and the
        name, as every version of the server has read it, and ``same_browser`` beside it (a
        server of an earlier version, serving beside this one during an upgrade, passes it by)."""
        return {"person": [self.id, self.name], "same_browser": list(self.same_browser)}

    @classmethod
    def of(cls, payload: Mapping[str, Any]) -> Person:
        """The person a forwarded message names (:meth:`to_json`; ``same_browser`` may be missing)."""
        user, name = payload["person"]
        return cls(str(user), str(name), tuple(str(u) for u in payload.get("same_browser") or ()))


class Outbox:
    """One connection's messages waiting to be sent.  At most ``limit`` wait: past that (a client
    that does not read), the waiting ones are dropped and the next message sent is ``resync()``
    (the table's current state, which says everything they said).  :meth:`close` ends the
    connection after the messages already waiting."""

    def __init__(self, resync: Callable[[], str], limit: int = OUTBOX_LIMIT, name: str = "") -> None:
        self.name = name
        self.limit = limit
        self._resync_text = resync
        self._items: deque[str] = deque()
        self._ready = asyncio.Event()
        self._resync = False
        self.closing: tuple[int, str] | None = None

    def put(self, text: str) -> None:
        if self.closing is not None:
            return
        if len(self._items) >= self.limit:
            self._items.clear()
            self._resync = True
        else:
            self._items.append(text)
        self._ready.set()

    def close(self, code: int, reason: str) -> None:
        if self.closing is None:
            self.closing = (code, reason)
        self._ready.set()

    def __len__(self) -> int:
        return len(self._items)

    async def get(self) -> str | None:
        """The next message to send, or None when the connection is to be closed."""
        while True:
            if self._resync:
                self._resync = False
                return self._resync_text()
            if self._items:
                return self._items.popleft()
            if self.closing is not None:
                return None
            self._ready.clear()
            await self._ready.wait()


@dataclass(eq=False)
class Presence:
    """A connection at a table as the table's owner knows it: whose it is and where it is.  The
    connection itself (its socket, its outbox) is in a :class:`Room` of the server it is on —
    this one or, with several servers, another."""

    ref: Ref
    person: Person


class ChatBudgets:
    """The chat budget of each person at a table (:data:`CHAT_RATE` lines a second, bursts of
    :data:`CHAT_BURST`), kept by the table's owner: by person, not by connection, so that more
    tabs, more servers or connecting again buy no more lines."""

    def __init__(self) -> None:
        self._budgets: dict[str, RateLimiter] = {}

    def __len__(self) -> int:
        """How many people's budgets are kept."""
        return len(self._budgets)

    def allow(self, person_id: str, now: float) -> bool:
        """Whether ``person_id`` may say one more line at ``now`` (counted if so)."""
        budget = self._budgets.get(person_id)
        if budget is None:
            if len(self._budgets) >= CHAT_BUDGETS_KEPT:  # a full budget is as good as a new one
                full = now - CHAT_BURST / CHAT_RATE
                self._budgets = {k: b for k, b in self._budgets.items() if b.last is not None and b.last > full}
            budget = self._budgets[person_id] = RateLimiter(rate=CHAT_RATE, burst=CHAT_BURST)
        return budget.allow(now)


class ChatBlocks:
    """Whom each person who chats at a table is kept apart from (everyone in a block with them,
    either way), read from the store at most every :data:`CHAT_BLOCKS_SECONDS` per person rather
    than at every line, for :data:`CHAT_BUDGETS_KEPT` people at most."""

    def __init__(self) -> None:
        self._read: dict[str, tuple[float, frozenset[str]]] = {}

    def of(self, person_id: str, now: float, read: Callable[[str], Set[str]]) -> frozenset[str]:
        """The people ``person_id``'s chat line goes to none of, ``read`` again when it is old."""
        kept = self._read.get(person_id)
        if kept is not None and now - kept[0] < CHAT_BLOCKS_SECONDS:
            return kept[1]
        if len(self._read) >= CHAT_BUDGETS_KEPT:  # the old ones go; all, if none is old (read again)
            self._read = {k: v for k, v in self._read.items() if now - v[0] < CHAT_BLOCKS_SECONDS}
            if len(self._read) >= CHAT_BUDGETS_KEPT:
                self._read.clear()
        found = frozenset(read(person_id))
        self._read[person_id] = (now, found)
        return found

    def forget(self, people: Iterable[str]) -> None:
        """A block was made between ``people``: what was read of theirs is read again."""
        for person in people:
            self._read.pop(person, None)


class Switchboard:
    """This server's table connections, by number, and its node id among several servers."""

    def __init__(self, node: str) -> None:
        self.node = node
        self.cids = itertools.count(1)
        self.local: dict[int, Connection] = {}


@dataclass(eq=False)
class Connection:
    """One WebSocket at a table on this server: whose it is, its outbox, what it last saw."""

    room: Room
    person: Person
    cid: int
    since: int | None = None
    invite: str | None = None
    admitted: bool = False
    knocked: float = 0.0  # when it was last introduced to the table's owner (event-loop time)
    outbox: Outbox = field(init=False)

    def __post_init__(self) -> None:
        self.outbox = Outbox(self._resync, name=self.room.table_id)
        self.ready = asyncio.Event()  # set when the table's owner lets the connection in

    @property
    def ref(self) -> Ref:
        return (self.room.board.node, self.cid)

    @property
    def seat(self) -> Seat | None:
        return self.room.seat_of(self.person.id)

    def _resync(self) -> str:
        text = self.room.render(self)
        return text if text is not None else encode(refusal(Text.of("server.table_loading")))


class Room:
    """A table's connections on this server (see the module docstring)."""

    def __init__(self, board: Switchboard, table_id: str) -> None:
        self.board = board
        self.table_id = table_id
        self.connections: dict[int, Connection] = {}
        self.history: deque[tuple[int, list[str]]] = deque(maxlen=HISTORY)
        #: The versions of the history whose messages are not for some people (``not_to``), and whose.
        self.not_to: dict[int, frozenset[str]] = {}
        self.last: dict[str, Any] | None = None  # the last change with views
        self.owner: str | None = None  # the server that runs the table (its node)
        self.seen = 0  # the newest version the room has had
        self.caught_up = 0.0  # when the room last asked the owner for what it missed (event-loop time)

    def forget_chat(self, names: Set[str]) -> None:
        """Drop the chat lines said under any of ``names`` from what the room keeps to send a page
        that comes back (a deleted account's: none of its names is shown to anybody again)."""
        def said(text: str) -> bool:
            line = _chat_line(text)
            return line is not None and (line.get("from") or {}).get("name") in names

        for i, (version, texts) in enumerate(self.history):
            kept = [t for t in texts if not said(t)]
            if len(kept) != len(texts):
                self.history[i] = (version, kept)

    def seat_of(self, user: str) -> Seat | None:
        if self.last is None:
            return None
        for s, occupant in zip(Seat, self.last["seats"], strict=True):
            if occupant == user:
                return s
        return None

    def connect(self, person: Person, since: int | None) -> Connection:
        connection = Connection(self, person, next(self.board.cids), since)
        self.connections[connection.cid] = connection
        self.board.local[connection.cid] = connection
        return connection

    def admit(self, connection: Connection) -> None:
        """The owner let the connection in: it gets what it missed since the version it saw (if
        the room still has those messages); its state comes with the change its arrival makes.
        A connection let in again (its table changed hands) has had every message of the room
        already: it gets none twice."""
        again = connection.admitted
        connection.admitted = True
        connection.ready.set()
        if again:
            return
        since = connection.since
        if not self.history:
            return
        oldest, newest = self.history[0][0], self.history[-1][0]
        # Every message missed, when the room still has them all; else (a page opened anew, or
        # away longer than the room remembers) the chat lines it kept that the page has not had:
        # the state says everything else, but not what was said.
        every = since is not None and oldest - 1 <= since <= newest
        for v, texts in self.history:
            if (since is None or v > since) and connection.person.id not in self.not_to.get(v, ()):
                for text in texts:
                    if every or _chat_line(text) is not None:
                        connection.outbox.put(text)

    def render(self, connection: Connection, change: Mapping[str, Any] | None = None) -> str | None:
        """The state message of ``connection`` for ``change`` (the last one), or None when the
        change holds no view for its seat."""
        change = change if change is not None else self.last
        if change is None or change.get("views") is None:
            return None
        person = connection.person
        seat = None
        for s, occupant in zip(Seat, change["seats"], strict=True):
            if occupant == person.id:
                seat = s
        view = change["views"].get(seat.name if seat is not None else "-")
        if view is None:
            return None
        later = change.get("next_deal") or [None] * 4  # (a change from a server before it had them)
        waiting = next((s for s, u in zip(Seat, later, strict=True) if u == person.id), None)
        state = personal(view, person.id, person.name, host=person.id == change["host"], seat=seat,
                         auto=seat is not None and bool(change["auto"][seat]), waiting=waiting,
                         lifetime=change["lifetimes"].get(person.id, 0),
                         withheld=change.get("withheld", {}).get(person.id, 0))
        return encode({"type": "state", "v": change["v"], "state": state})

    def deliver(self, change: Mapping[str, Any]) -> None:
        texts: list[str] = change["public"]
        self.seen = max(self.seen, change["v"])
        self.history.append((change["v"], texts))
        not_to = frozenset(change.get("not_to") or ())
        if not_to:
            self.not_to[change["v"]] = not_to
        if self.not_to:
            self.not_to = {v: u for v, u in self.not_to.items() if v >= self.history[0][0]}
        if change.get("views") is not None:
            self.last = dict(change)
        for connection in list(self.connections.values()):
            if not connection.admitted:
                continue
            for text in texts if connection.person.id not in not_to else ():
                connection.outbox.put(text)
            if change.get("views") is not None:
                state = self.render(connection, change)
                if state is not None:
                    connection.outbox.put(state)
        close = change.get("close")
        if close is not None:
            code, reason, error = close
            for connection in list(self.connections.values()):
                connection.outbox.put(error)
                connection.outbox.close(code, reason)

    def disconnect(self, connection: Connection) -> None:
        self.connections.pop(connection.cid, None)
        self.board.local.pop(connection.cid, None)
