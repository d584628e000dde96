"""Tables: a match played by people and computer players, seat by seat.

The server is authoritative (``docs/web-protocol.md``): the rules core decides everything, a
:class:`Table` only drives it.  A table

- has four seats, each played by the person sitting there or by a computer player at the
  seat's level — a seat nobody sits in, or a person's seat in 托管 (two timeouts in a row, or the
  person asked for it); a host who starts the match; a turn timer and an exposure window, or none;
- validates every browser message (:meth:`Table.receive`): a malformed one, one from a person
  who may not send it (not seated, not their turn, not the host) or an illegal action is
  answered with ``{"type": "error", ...}`` (:func:`refusal`; the rules core's own explanation
  for a refused action) and changes nothing;
- keeps the exposure phase secret: declarations are stored as they come and revealed together
  once every seat has declared (or the window closed), applied in seat order (R4);
- sends each connection the table as its person may see it (:meth:`Table.view`): their own hand
  and public facts — no other hand, no unplayed hidden (暗卖) exposure of another seat, nothing of
  a hand to someone who sits at no seat — and, once a deal is over, its ``deal_result``;
- gives no person two seats' hands of one deal (:meth:`Table.holder`): during a deal a seat is
  taken back only by the person it was dealt to, anyone else sits there from the next deal on
  and sees the deal as a spectator does until then;
- numbers every change (``v``) and keeps the last :data:`HISTORY` changes' public messages, so
  that a connection that comes back says the last version it saw and gets what it missed;
- stores every action before it is acknowledged — the play that ends a deal together with the
  deal's R11 record and each person's lifetime score, in one transaction — and is rebuilt from
  the store after a restart (:class:`Tables` loads tables on demand and lets one go once nobody
  is connected to it); should the store refuse an action, the table is dropped, its connections
  are told and closed, and the next connection rebuilds it from what was stored;
- bounds what a connection costs: its waiting messages (:class:`Outbox`), its chat lines, and
  the expert's hints and computer players, which think in pools of threads of their own (a quick
  hint, the network's ranking, takes milliseconds: it is computed on the event loop, once a
  position).

All changes happen on the event loop's thread, each in one synchronous step (check, apply,
store, publish), so no lock is needed; only the computer players' choices and the expert's hints
are computed in worker threads, from an :class:`~gongzhu.players.Observation` taken before.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import json
import logging
import random
import secrets
import time
import unicodedata
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

from gongzhu.formats import FormatError, typed
from gongzhu.formats.web import (
    MAX_SEED,
    SPEED_NAMES,
    AgainMessage,
    AutoMessage,
    BrowserMessage,
    ChatMessage,
    ExposeMessage,
    HintMessage,
    NewMatchBody,
    NewTableBody,
    NextMessage,
    SettingsMessage,
    SitMessage,
    StandMessage,
    StartMessage,
    TakeBackMessage,
)
from gongzhu.jsontext import JSONTextError, loads_strict, show
from gongzhu.messages import Text, has
from gongzhu.players.base import Player
from gongzhu.players.guard import safe_exposures, safe_play
from gongzhu.players.observation import observe, visible_exposures
from gongzhu.players.registry import LEVELS, make_player
from gongzhu.records.format import deal_to_record, dump_record
from gongzhu.records.replay import replay
from gongzhu.rules.cards import Card, Seat, parse_card
from gongzhu.rules.deal import Deal, Phase
from gongzhu.rules.errors import GongzhuError
from gongzhu.rules.match import Match, match_goal, title_for
from gongzhu.rules.model import CardPlay, Play
from gongzhu.rules.options import Options, resolve_options
from gongzhu.rules.scoring import SeatScore, is_point_card, lifetime_factor, raw_scores
from gongzhu.server.policy import OUTBOX_LIMIT, RateLimiter
from gongzhu.server.store import Charge, MatchInfo, Seating, StaleTable, Store

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_SPEED",
    "HISTORY",
    "MAX_SEED",
    "PERSON",
    "SPEEDS",
    "Connection",
    "MessageError",
    "NewTable",
    "Outbox",
    "Person",
    "Presence",
    "Refused",
    "Room",
    "Table",
    "Tables",
    "encode",
    "parse_new_match",
    "parse_new_table",
    "refusal",
]

if TYPE_CHECKING:
    from gongzhu.server.cluster import Cluster

log = logging.getLogger("gongzhu.server")

#: The seat of the person who plays alone against three computer players (``POST /api/matches``).
PERSON = Seat.S
#: Speed setting -> seconds per computer play (a computer's exposure takes half of it).
SPEEDS: dict[str, float] = {"slow": 1.2, "normal": 0.6, "fast": 0.25, "instant": 0.0}
DEFAULT_SPEED = "normal"
DEFAULT_LEVEL = "intermediate"
assert tuple(SPEEDS) == SPEED_NAMES  # the speeds a message may name (gongzhu.formats.web)
#: Who plays for a person whose time ran out, and how many timeouts in a row put a seat into 托管.
TIMEOUT_LEVEL = "intermediate"
TIMEOUTS_TO_AUTO = 2
#: With a turn timer, the next deal is dealt this many seconds after a deal unless someone asks sooner.
NEXT_DEAL_SECONDS = 10
#: How many changes' messages a table keeps for connections that come back.
HISTORY = 200
#: Chat: lines per second on average and in a burst, per connection.
CHAT_RATE = 1.0
CHAT_BURST = 3
#: Chat: the most combining marks one character may carry (written languages stack two or three:
#: Vietnamese, Thai, Devanagari; more only draw outside the line).
CHAT_MARKS = 3
#: Server threads for the computer players' decisions, and for hints (one at a time).
PLAYER_THREADS = 4
HINT_THREADS = 1
#: The computer levels that search (their thinking takes a process of its own), how many such
#: processes a server keeps, and how much lower their scheduling priority is.
SEARCHING = frozenset({"expert", "flatmc"})
SEARCH_PROCESSES = 2
SEARCH_NICENESS = 10


class MessageError(ValueError):
    """A browser message or request body that is refused; the message says why."""


class StoreError(RuntimeError):
    """The store refused an action: it was not acknowledged, and the table is rebuilt from what
    was stored."""


class Refused(Exception):
    """A message refused with a catalog text (the page shows it in its language)."""

    def __init__(self, key: str, **params: Any) -> None:
        self.text = Text.of(key, **params)
        super().__init__(self.text.render("en"))


def refusal(why: Text | str) -> dict[str, Any]:
    """An error message for the browser: ``message`` in English, and for a refusal of the message
    catalog its ``message_zh``, ``code`` and ``params`` (the page renders the code in its language;
    a plain text is English only)."""
    if isinstance(why, str):
        return {"type": "error", "message": why}
    return {"type": "error", "message": why.render("en"), "message_zh": why.render("zh"), **why.json}


#: msgspec's encoder writes the same compact JSON text as ``json.dumps(..., ensure_ascii=False,
#: separators=(",", ":"))`` (floats aside: ``1e16`` for ``1e+16``) in a sixth of the time: every
#: change of a table encodes a state for each of its connections (docs/benchmarks.md, Online tables).
_ENCODER = msgspec.json.Encoder()


def encode(message: Mapping[str, Any]) -> str:
    """A server message as JSON text (UTF-8 kept as is; a lone surrogate that cannot be sent as
    UTF-8 is written as its ``\\u`` escape)."""
    try:
        return _ENCODER.encode(message).decode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(message, ensure_ascii=True, separators=(",", ":"))


def _codes(cards: Iterable[Card]) -> list[str]:
    return [c.code for c in cards]


def _parts(part: SeatScore) -> dict[str, Any]:
    """A seat's raw score part by part (R6), as the summary shows it."""
    return {"hearts": part.hearts, "pig": part.pig, "sheep": part.sheep, "transformers": part.transformers,
            "multiplier": part.multiplier, "alone": part.alone, "all_hearts": part.all_hearts,
            "grand_slam": part.grand_slam, "raw": part.raw}


def _goal(match: Match) -> dict[str, Any]:
    """How far the match is from its end (R8): its kind, its limit and each seat's distance."""
    goal = match_goal(match.options, match.totals, len(match.deals))
    return {"kind": goal.kind, "limit": goal.limit, "to_go": _seat_map(goal.to_go)}


def _seat_map(values: Any) -> dict[str, Any]:
    return {s.name: values[s] for s in Seat}


# ---------------------------------------------------------------------- people and new tables


@dataclass(frozen=True, slots=True)
class Person:
    """Someone using the server: a user id and the name the table shows."""

    id: str
    name: str


@dataclass(frozen=True, slots=True)
class NewTable:
    """A checked ``POST /api/tables`` or ``POST /api/matches`` body."""

    preset: str
    options: Options
    levels: dict[str, str]
    speed: str
    seed: int
    visibility: str = "private"
    turn_seconds: int | None = None
    expose_seconds: int | None = None
    seat: Seat = PERSON
    started: bool = True  # the match starts at once (one person and three computer players)
    seeded: bool = False  # the caller chose the seed: the deal was set in advance


def _options(preset: str | None, overrides: Mapping[str, Any] | None) -> tuple[str, Options]:
    name = preset or "online"
    try:
        return name, resolve_options(name, overrides or {})
    except GongzhuError as e:
        raise MessageError(f"$.options: {e}") from None


def _seed(seed: int | None) -> int:
    value = secrets.randbits(64) if seed is None else seed
    if value >= MAX_SEED:
        raise MessageError(f"$.seed: must be an integer from 0 to 2^64 - 1, not {show(value)}")
    return value


def _levels(given: Mapping[str, str] | None, seats: Sequence[str], why_not: Callable[[str], str]) -> dict[str, str]:
    levels = {s.name: DEFAULT_LEVEL for s in Seat}
    for key, level in (given or {}).items():
        if key not in seats:
            raise MessageError(f"$.levels: {why_not(key)}")
        if level not in LEVELS:
            raise MessageError(f"$.levels.{key}: {show(level)} is not a level: choose one of {', '.join(LEVELS)}")
        levels[key] = level
    return levels


def parse_new_match(body: Any) -> NewTable:
    """Check a new-match body (one person at South against three computer players,
    ``docs/web-protocol.md``, declared as :class:`gongzhu.formats.web.NewMatchBody`); raise
    :class:`MessageError` saying what is wrong.  Missing keys take their defaults: preset
    ``online``, no option overrides, every level ``intermediate``, speed ``normal``, a random seed."""
    try:
        new = typed(body, NewMatchBody)
    except FormatError as e:
        raise MessageError(str(e)) from None
    preset, options = _options(new.preset, new.options)

    def why_not(key: str) -> str:
        why = "South is you" if key == PERSON.name else f"{show(key)} is not a seat"
        return f"{why}; the computer players sit N, E and W"

    levels = _levels(new.levels, ("N", "E", "W"), why_not)
    return NewTable(preset, options, levels, new.speed or DEFAULT_SPEED, _seed(new.seed), seeded=new.seed is not None)


def parse_new_table(body: Any) -> NewTable:
    """Check a new-table body (:class:`gongzhu.formats.web.NewTableBody`): a table that waits for
    people until its host starts it.  A chosen seed is :class:`Refused` at a public table (its host
    would know every hand) and marks a private one as set in advance."""
    try:
        new = typed(body, NewTableBody)
    except FormatError as e:
        raise MessageError(str(e)) from None
    if new.seed is not None and new.visibility == "public":
        # Whoever chose the seed knows every hand: nobody else at a public table would.
        raise Refused("server.seed_public")
    preset, options = _options(new.preset, new.options)
    levels = _levels(new.levels, ("N", "E", "S", "W"), lambda key: f"{show(key)} is not a seat: N, E, S or W")
    return NewTable(preset, options, levels, new.speed or DEFAULT_SPEED, _seed(new.seed), visibility=new.visibility,
                    turn_seconds=new.turn_seconds, expose_seconds=new.expose_seconds, seat=Seat.parse(new.seat),
                    started=False, seeded=new.seed is not None)


# ---------------------------------------------------------------------- the tables


class Tables:
    """The open tables of one server, loaded from the store on demand and let go when their last
    connection leaves, and the lobby that lists the public ones.  ``pace`` (seconds per computer
    play) overrides every table's speed setting (tests use 0); ``hint_think`` is the expert's
    search time per hint."""

    def __init__(self, store: Store, *, pace: float | None = None, hint_think: float | None = None) -> None:
        from gongzhu.server.lobby import Lobby

        self.store = store
        self.pace = pace
        self.hint_think = hint_think
        #: This server among several (its node id), and the numbers of its connections.
        self.node = secrets.token_hex(6)
        self.cids = itertools.count(1)
        self._tables: dict[str, Table] = {}  # the tables this server runs (owns)
        self.rooms: dict[str, Room] = {}  # the tables this server has connections to
        self.local: dict[int, Connection] = {}  # this server's table connections, by number
        #: The other servers, when there are several (``gongzhu serve --redis``).
        self.cluster: Cluster | None = None
        self.lobby = Lobby(self)
        self.player_pool = ThreadPoolExecutor(PLAYER_THREADS, thread_name_prefix="gongzhu-player")
        self.hint_pool = ThreadPoolExecutor(HINT_THREADS, thread_name_prefix="gongzhu-hint")
        self._search_pool: ProcessPoolExecutor | None = None

    def search_pool(self) -> ProcessPoolExecutor:
        """The processes the searching computer players think in, made on first use: their
        search (most of it holding Python's lock) and their CPU stay out of the server's event
        loop, at a lower priority, so that they never hold up another table."""
        if self._search_pool is None:
            import multiprocessing

            self._search_pool = ProcessPoolExecutor(SEARCH_PROCESSES, mp_context=multiprocessing.get_context("spawn"),
                                                    initializer=_lower_priority)
        return self._search_pool

    @property
    def open_tables(self) -> int:
        """How many tables are in memory now."""
        return len(self._tables)

    def loaded(self, match_id: str) -> Table | None:
        return self._tables.get(match_id)

    def create(self, new: NewTable, host: Person, others: Sequence[tuple[str, str] | None] = ()) -> MatchInfo:
        """Store a new table with ``host`` at ``new.seat`` (and ``others``, seat by seat, where
        they are people); a started one deals its first deal when it is opened."""
        match_id = "m-" + secrets.token_hex(6)
        seats: list[tuple[str, str] | None] = list(others) if others else [None] * 4
        seats[new.seat] = (host.id, host.name)
        seating = Seating(
            host=host.id, seats=tuple(seats), levels=dict(new.levels), visibility=new.visibility,
            invite=secrets.token_urlsafe(12), turn_seconds=new.turn_seconds, expose_seconds=new.expose_seconds,
            status="playing" if new.started else "waiting", version=0, auto=(False,) * 4, timeouts=(0,) * 4,
            deadline=None, dealt_to=tuple(s[0] if s else None for s in seats) if new.started else (None,) * 4,
        )
        info = self.store.create_match(match_id=match_id, preset=new.preset, options=new.options.to_dict(),
                                       speed=new.speed, seed=new.seed, seating=seating, seeded=new.seeded)
        self.lobby.changed(info.match_id)
        return info

    def get(self, match_id: str) -> Table | None:
        """The table of a match, rebuilt from the store if it is not open yet (None if unknown)."""
        table = self._tables.get(match_id)
        if table is None:
            info = self.store.match(match_id)
            if info is None:
                return None
            table = self._tables[match_id] = Table(self, info)
        return table

    def play_now(self, person: Person) -> str:
        """A seat for ``person`` at a public table waiting for players (where they sit already,
        or the oldest with a free seat whose host is there to start it), or a new public table
        with them at South."""
        for info in self.store.listed():
            if info.seating.status != "waiting":
                continue
            # with several servers, only a table this one runs (another's is not for it to load)
            table = self.get(info.match_id) if self.cluster is None else self._tables.get(info.match_id)
            if table is None:
                continue
            host_here = any(c.person.id == table.host for c in table.connections)
            chosen = table.status == "waiting" and (table.seat_of(person.id) is not None or (
                host_here and any(o is None for o in table.seats)))
            if chosen and table.seat_of(person.id) is None:
                table.sit(person, next(s for s in Seat if table.seats[s] is None))
            if not table.connections:
                self.release(table)  # stored: the person's connection loads it again
            if chosen:
                return table.match_id
        new = NewTable("online", resolve_options("online", {}), {s.name: DEFAULT_LEVEL for s in Seat},
                       DEFAULT_SPEED, secrets.randbits(64), visibility="public", turn_seconds=30,
                       expose_seconds=20, started=False)
        return self.create(new, person).match_id

    def lifetimes_changed(self, source: Table, lifetimes: Mapping[str, int]) -> None:
        """A deal finished at ``source`` changed these people's lifetime scores: every open table
        shows them (``source`` with the deal's own change)."""
        source.lifetimes.update(lifetimes)
        for table in list(self._tables.values()):
            if table is not source:
                table.lifetime_changed(lifetimes)

    # ------------------------------------------------------------------ connections and rooms

    def owned(self) -> list[str]:
        """The tables this server runs."""
        return list(self._tables)

    async def open_room(self, match_id: str) -> Room | None:
        """The room of a table on this server (None for an unknown table).  With one server the
        table is loaded here; with several (:mod:`gongzhu.server.cluster`) it is claimed here when
        no other server runs it.  Raises :class:`~gongzhu.server.cluster.ClusterUnavailable` when
        the table runs elsewhere and the others cannot be reached."""
        room = self.rooms.get(match_id)
        if room is not None:
            return room
        owner: str | None = self.node
        if match_id not in self._tables:
            if self.store.match(match_id) is None:
                return None
            if self.cluster is not None:

                owner = await self.cluster.owner(match_id)
                if owner is None and await self.cluster.claim(match_id):
                    owner = self.node
                elif owner is None:
                    owner = await self.cluster.owner(match_id)
            if owner == self.node and self.get(match_id) is None:
                return None
        room = self.rooms.get(match_id)  # made meanwhile by another connection
        if room is None:
            room = self.rooms[match_id] = Room(self, match_id)
            room.owner = owner
            if self.cluster is not None:
                await self.cluster.listen(match_id)  # subscribed before anyone is introduced
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
        cluster = self.cluster
        owner = await self._owner(connection.room)
        if cluster is None or owner is None:
            self._unavailable(connection.ref, close=not admitted)
            return
        from gongzhu.server.cluster import node_channel

        # (a hello nobody got is sent again: :meth:`knock_again`)
        cluster.post(node_channel(owner), {
            "op": "hello", "t": table_id, "ref": list(connection.ref),
            "person": [connection.person.id, connection.person.name], "invite": invite, "admitted": admitted})

    async def knock_again(self, after: float) -> None:
        """Introduce again the connections here that the table's owner has not let in for
        ``after`` seconds (their hello was lost: the owner was changing, or Redis was away)."""
        now = asyncio.get_running_loop().time()
        for room in list(self.rooms.values()):
            for connection in list(room.connections.values()):
                if not connection.admitted and now - connection.knocked >= after:
                    if room.table_id not in self._tables:
                        room.owner = None  # asked of Redis again
                    await self.hello(connection, connection.invite)

    async def _owner(self, room: Room) -> str | None:
        """The server that runs a room's table, asked of Redis when the room does not know."""
        if room.owner is None and self.cluster is not None:
            from gongzhu.server.cluster import ClusterUnavailable

            with contextlib.suppress(ClusterUnavailable):
                room.owner = await self.cluster.owner(room.table_id)
        return room.owner

    async def message(self, connection: Connection, text: str | None, *, again: bool = False) -> None:
        """A browser message of ``connection``, for the table's owner (``again``: sent again
        after the owner asked for the connection to be introduced again)."""
        table_id = connection.room.table_id
        table = self._tables.get(table_id)
        reply = functools.partial(self._reply, connection.ref)
        if table is None and self.cluster is not None:
            owner = await self._owner(connection.room)
            if owner is None or owner == self.node:
                self._unavailable(connection.ref)
                return
            from gongzhu.server.cluster import node_channel

            self.cluster.post(node_channel(owner), {"op": "msg", "t": table_id, "ref": list(connection.ref),
                                                    "text": text, "again": again},
                              failed=functools.partial(self._unavailable, connection.ref))
            return
        if table is None or table.broken:
            reply(refusal(Text.of("server.store_failed")))
            return
        presence = table.presences.get(connection.ref)
        if presence is None:
            reply(refusal(Text.of("server.no_session")))
            return
        await table.receive(presence, text, reply)

    def bye(self, connection: Connection) -> None:
        """A connection is gone."""
        room = connection.room
        room.disconnect(connection)
        if not room.connections and self.rooms.get(room.table_id) is room:
            del self.rooms[room.table_id]
            if self.cluster is not None:
                self.cluster.unlisten(room.table_id)
        table = self._tables.get(room.table_id)
        if table is not None:
            table.leave(connection.ref)
        elif self.cluster is not None and room.owner is not None and self.cluster.up:
            from gongzhu.server.cluster import node_channel

            self.cluster.post(node_channel(room.owner), {"op": "bye", "t": room.table_id,
                                                         "ref": list(connection.ref)})

    # the owner's side of other servers' connections

    def remote_hello(self, payload: Mapping[str, Any]) -> None:
        ref: Ref = (payload["ref"][0], payload["ref"][1])
        table = self._tables.get(payload["t"])
        if table is None:  # not (or no longer) this server's: the connection's server asks again
            self.send(ref, encode(refusal(Text.of("server.cluster_unavailable"))))
            return
        person = Person(*payload["person"])
        table.join(Presence(ref, person), payload.get("invite"), admitted=bool(payload.get("admitted")))

    async def remote_message(self, payload: Mapping[str, Any]) -> None:
        ref: Ref = (payload["ref"][0], payload["ref"][1])
        table = self._tables.get(payload["t"])
        presence = table.presences.get(ref) if table is not None else None
        if table is not None and presence is None and not table.broken and not payload.get("again") \
                and self.cluster is not None:
            # a connection this server does not know (its server was thought gone, or this one
            # took the table over meanwhile): its server introduces it again and resends
            from gongzhu.server.cluster import node_channel

            self.cluster.post(node_channel(ref[0]), {"op": "rejoin", "cid": ref[1], "text": payload.get("text")})
            return
        if table is None or presence is None or table.broken:
            self.send(ref, encode(refusal(Text.of("server.cluster_unavailable"))))
            return
        await table.receive(presence, payload.get("text"), functools.partial(self._reply, ref))

    async def rejoin(self, cid: int, text: str | None) -> None:
        """The table's owner did not know a connection here that sent ``text``: introduce it
        again and send the message again (once)."""
        connection = self.local.get(cid)
        if connection is not None:
            await self.hello(connection, connection.invite, admitted=connection.admitted)
            await self.message(connection, text, again=True)

    def remote_bye(self, payload: Mapping[str, Any]) -> None:
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
        if self.cluster is not None:
            from gongzhu.server.cluster import table_channel

            self.cluster.post(table_channel(match_id), {"op": "owned", "from": self.node})
        await self.reintroduce(match_id)

    def version_of(self, match_id: str) -> int | None:
        table = self._tables.get(match_id)
        return table.version if table is not None else None

    def republish(self, match_id: str) -> None:
        """Send every room of a table this server runs its current state again."""
        table = self._tables.get(match_id)
        if table is not None and not table.broken:
            table._bump()
            table._changed([], position=False)

    async def reintroduce(self, match_id: str) -> None:
        """Introduce this server's connections to the table's owner again (a new owner knows
        nobody yet)."""
        room = self.rooms.get(match_id)
        if room is None:
            return
        if match_id not in self._tables and self.cluster is not None:
            try:
                room.owner = await self.cluster.owner(match_id)
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
        if self.cluster is not None:
            from gongzhu.server.cluster import table_channel

            self.cluster.post(table_channel(match_id), {"op": "change", "from": self.node, "change": change})

    def deliver_here(self, match_id: str, change: Mapping[str, Any]) -> None:
        room = self.rooms.get(match_id)
        if room is not None:
            room.deliver(change)

    def _reply(self, ref: Ref, message: Mapping[str, Any]) -> None:
        self.send(ref, encode(message))

    def send(self, ref: Ref, text: str | None, *, close: tuple[int, str] | None = None, admit: bool = False,
             v: int | None = None) -> None:
        """A message for one connection (and its admission, or its end), on whichever server;
        ``v``: the table's version the message shows (its room is up to date with it)."""
        node, cid = ref
        if node != self.node:
            if self.cluster is not None:
                from gongzhu.server.cluster import node_channel

                self.cluster.post(node_channel(node), {"op": "send", "cid": cid, "text": text,
                                                       "close": list(close) if close else None, "admit": admit,
                                                       "v": v})
            return
        connection = self.local.get(cid)
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
            if self.cluster is not None:
                self.cluster.release(table.match_id)
        table.halt()

    async def close(self) -> None:
        """Stop every table's computer players and timers (the store keeps where each match stands)."""
        for table in self._tables.values():
            await table.stop()
        self._tables.clear()
        self.lobby.close()
        self.player_pool.shutdown(wait=False, cancel_futures=True)
        self.hint_pool.shutdown(wait=False, cancel_futures=True)
        if self._search_pool is not None:
            self._search_pool.shutdown(wait=False, cancel_futures=True)


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


#: A connection anywhere: the server it is on (its node) and its number there.
Ref = tuple[str, int]


@dataclass(eq=False)
class Presence:
    """A connection at a table as the table's owner knows it: whose it is, where it is, and its
    chat budget.  The connection itself (its socket, its outbox) is in a :class:`Room` of the
    server it is on — this one or, with several servers, another."""

    ref: Ref
    person: Person
    chat: RateLimiter = field(default_factory=lambda: RateLimiter(rate=CHAT_RATE, burst=CHAT_BURST))


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
        return (self.room.hub.node, self.cid)

    @property
    def seat(self) -> Seat | None:
        return self.room.seat_of(self.person.id)

    def _resync(self) -> str:
        text = self.room.render(self)
        return text if text is not None else encode(refusal(Text.of("server.table_loading")))


class Room:
    """A table's connections on this server.  The table's owner (this server or another) sends it
    each change (:meth:`deliver`): the change's public messages and the views of the seats its
    people see it from; the room sends every admitted connection those messages and its own state
    (the view of its seat, with who it is and its lifetime score).  It keeps the last
    :data:`HISTORY` changes' public messages for connections that come back (:meth:`admit`)."""

    def __init__(self, hub: Tables, table_id: str) -> None:
        self.hub = hub
        self.table_id = table_id
        self.connections: dict[int, Connection] = {}
        self.history: deque[tuple[int, list[str]]] = deque(maxlen=HISTORY)
        self.last: dict[str, Any] | None = None  # the last change with views
        self.owner: str | None = None  # the server that runs the table (its node)
        self.seen = 0  # the newest version the room has had
        self.caught_up = 0.0  # when the room last asked the owner for what it missed (event-loop time)

    def seat_of(self, user: str) -> Seat | None:
        if self.last is None:
            return None
        for s, occupant in zip(Seat, self.last["seats"], strict=True):
            if occupant == user:
                return s
        return None

    def connect(self, person: Person, since: int | None) -> Connection:
        connection = Connection(self, person, next(self.hub.cids), since)
        self.connections[connection.cid] = connection
        self.hub.local[connection.cid] = connection
        return connection

    def admit(self, connection: Connection) -> None:
        """The owner let the connection in: it gets what it missed since the version it saw (if
        the room still has those messages); its state comes with the change its arrival makes."""
        connection.admitted = True
        connection.ready.set()
        since = connection.since
        if since is None or not self.history:
            return
        oldest, newest = self.history[0][0], self.history[-1][0]
        if oldest - 1 <= since <= newest:
            for v, texts in self.history:
                if v > since:
                    for text in texts:
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
        waiting = next((s.name for s, u in zip(Seat, later, strict=True) if u == person.id), None)
        lifetime = change["lifetimes"].get(person.id, 0)
        state = dict(view)
        state["you"] = {"id": person.id, "name": person.name, "host": person.id == change["host"],
                        "seat": seat.name if seat is not None else None,
                        "auto": seat is not None and bool(change["auto"][seat]), "next_deal_seat": waiting}
        state["lifetime"] = {"score": lifetime, "title": title_for(lifetime)}
        return encode({"type": "state", "v": change["v"], "state": state})

    def deliver(self, change: Mapping[str, Any]) -> None:
        texts: list[str] = change["public"]
        self.seen = max(self.seen, change["v"])
        self.history.append((change["v"], texts))
        if change.get("views") is not None:
            self.last = dict(change)
        for connection in list(self.connections.values()):
            if not connection.admitted:
                continue
            for text in texts:
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
        self.hub.local.pop(connection.cid, None)


def _chat_text(text: str) -> str:
    """A chat line as it is shown: control characters out, spaces at the ends trimmed.  A line
    with a run of more than :data:`CHAT_MARKS` combining marks on one character (marks stacked
    so high that they draw over the lines around it) is refused."""
    kept = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C" or ch == " ")
    run = 0
    for ch in unicodedata.normalize("NFC", kept):
        run = run + 1 if unicodedata.category(ch).startswith("M") else 0
        if run > CHAT_MARKS:
            raise Refused("server.chat_marks", limit=CHAT_MARKS)
    return " ".join(kept.split())


class Table:
    """One table and its match (see the module docstring)."""

    def __init__(self, hub: Tables, info: MatchInfo) -> None:
        self.hub = hub
        self.match_id = info.match_id
        self.created = info.created
        self.preset = info.preset
        self.options = Options.from_dict(info.options)
        self.speed = info.speed
        #: The host chose the seed: everyone here is shown the deal was set in advance; at a table
        #: for people its deals count toward nobody's lifetime score, and a single-player match
        #: seats nobody else.
        self.seeded = info.seeded
        self.solo = info.solo
        self.match = Match(self.options, seed=info.seed, match_id=info.match_id)
        seating = info.seating
        self.host = seating.host
        self.seats: list[tuple[str, str] | None] = list(seating.seats)
        self.levels = dict(seating.levels)
        self.visibility = seating.visibility
        self.invite = seating.invite
        self.turn_seconds = seating.turn_seconds
        self.expose_seconds = seating.expose_seconds
        self.status = seating.status
        self.auto = list(seating.auto)
        self.timeouts = list(seating.timeouts)
        self.deadline = seating.deadline
        self.dealt_to: list[str | None] = list(seating.dealt_to)
        rng = random.Random(info.seed)
        self.players: dict[Seat, Player] = {s: make_player(self.levels[s.name], seed=rng.getrandbits(63)) for s in Seat}
        self.stand_ins: dict[Seat, Player] = {s: make_player(TIMEOUT_LEVEL, seed=rng.getrandbits(63)) for s in Seat}
        #: The event version (every change raises it) and the position (every change of the game).
        self.version = seating.version
        #: The version the store holds: every write is made from it (``Store``'s fencing).
        self.stored = seating.version
        self.position = 0
        self._seq = 0  # actions of the current deal so far
        #: Declarations of the exposure phase not revealed yet (R4: every seat declares unseen).
        self.pending: dict[Seat, list[tuple[Card, str]]] = {}
        self.presences: dict[Ref, Presence] = {}
        self.lifetimes: dict[str, int] = {}
        self._driver: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timeout_task: asyncio.Task[None] | None = None
        self._hint: tuple[int, Seat, asyncio.Future[dict[str, Any]]] | None = None
        self._quick_hint: tuple[int, Seat, dict[str, Any]] | None = None  # the network's, of one position
        self._hint_tasks: set[asyncio.Task[None]] = set()
        self._states: dict[Seat | None, dict[str, Any]] = {}  # this version's views, by seat
        self._shared: dict[Any, Any] | None = None  # what every seat sees alike at this version
        self._shared_played: list[tuple[Seat, Card]] = []  # and the cards played so far, with their seats
        self._options = self.options.to_dict()
        #: Set once the store refused an action: the table is dropped and rebuilt from the store.
        self.broken = False
        #: The table of the next match (再来一局), once someone asked for it.
        self.again: str | None = None
        self.again_url = ""
        self._restore(info)
        self._refresh_people()
        hosts = self.hub.store.people([self.host]) if self.host is not None else {}
        self.host_name = hosts[self.host][0] if self.host in hosts else None

    # ------------------------------------------------------------------ the store

    def seating(self) -> Seating:
        return Seating(
            host=self.host, seats=tuple(self.seats), levels=dict(self.levels), visibility=self.visibility,
            invite=self.invite, turn_seconds=self.turn_seconds, expose_seconds=self.expose_seconds,
            status=self.status, version=self.version, auto=tuple(self.auto), timeouts=tuple(self.timeouts),
            deadline=self.deadline, dealt_to=tuple(self.dealt_to),
        )

    def _restore(self, info: MatchInfo) -> None:
        """Rebuild the match: finished deals from their records, then the deal in progress
        from the seed and its stored actions (a started match deals its first deal here)."""
        store = self.hub.store
        for line in store.records(self.match_id):
            self.match.current = replay(json.loads(line))
            self.match.finish_deal()
        if info.in_deal and self.status == "playing":
            deal = self.match.new_deal()
            for action in store.actions(self.match_id, deal.deal_index):
                self._apply(deal, action)
                self._seq += 1
            if deal.is_over:
                # Every play was stored but not the deal's record (a store from before the last
                # play and the record were one transaction): complete the deal now.
                log.warning("%s: deal %d was played out but not stored; storing it now", self.match_id,
                            deal.deal_index)
                self._finish(deal)

    def _apply(self, deal: Deal, action: Mapping[str, Any]) -> CardPlay | list[Any] | None:
        """Apply a stored action: a declaration waits until every seat has declared (then all are
        applied, in seat order); a play is applied at once."""
        seat = Seat.parse(action["seat"])
        if action["type"] == "declare":
            self.pending[seat] = [(parse_card(c), k) for c, k in action["items"]]
            if len(self.pending) < len(deal.undeclared):
                return None
            pending, self.pending = self.pending, {}
            return [deal.declare(s, pending[s]) for s in sorted(pending)]
        return deal.play(action["cards"], seat)

    def _commit(self, seat: Seat, action: dict[str, Any], *, timed_out: bool = False) -> None:
        """Apply an action already checked legal, store it, and publish what changed.  The action
        that ends a deal is stored with the deal's record, in one transaction.  If the store
        refuses, the action is not acknowledged: raises :class:`StoreError` after dropping the
        table (see :meth:`_break`)."""
        deal = self.match.current
        assert deal is not None
        entry = {"seat": seat.name, **action}
        # Only turns count toward 托管: a person's play, their own or the timer's, not a declaration
        # (the exposure window running out is not a missed turn).
        if action["type"] == "play" and not self.is_computer(seat):
            self.timeouts[seat] = self.timeouts[seat] + 1 if timed_out else 0
            if self.timeouts[seat] >= TIMEOUTS_TO_AUTO:
                self.auto[seat] = True
        try:
            done = self._apply(deal, entry)  # checked legal before: the rules accept it
            self.version += 1
            if deal.is_over:
                self._finish(deal)  # the deal's record holds this last play
            else:
                self._arm_deadline()
                self.hub.store.add_action(self.match_id, deal.deal_index, self._seq, entry, self.seating(),
                                          expected=self.stored)
                self.stored = self.version
                self._seq += 1
        except Exception as e:
            self._break(e)
            raise StoreError("the server could not save this action, so it did not happen; "
                             "reconnect and try again") from None
        out: list[dict[str, Any]] = []
        if isinstance(done, CardPlay):
            out.append({"type": "played", "seat": seat.name, "cards": action["cards"]})
            if done.trick is not None:
                out.append({"type": "trick", "winner": done.trick.winner.name, "taker": done.trick.taker.name})
        elif isinstance(done, list):
            out.append({"type": "revealed", "exposures": self._public_exposures(deal)})
        self._changed(out, position=True)
        if deal.is_over:
            self.hub.lobby.changed(self.match_id)

    def _save(self, lobby: bool = True, **match: Any) -> None:
        """Store the seating after a change of the table (not of the game), then publish it."""
        self.version += 1
        try:
            self.hub.store.save_table(self.match_id, self.seating(), expected=self.stored, **match)
            self.stored = self.version
        except Exception as e:
            self._break(e)
            raise StoreError("the server could not save this change, so it did not happen; "
                             "reconnect and try again") from None
        self._changed([], position=True)
        if lobby:
            self.hub.lobby.changed(self.match_id)

    def _break(self, error: Exception) -> None:
        """The store refused an action: this table's state may be ahead of what was stored, so it
        is dropped — its connections are told and closed (the page reconnects), and the next
        connection rebuilds the table from the store."""
        log.error("%s: the store refused an action; dropping the table", self.match_id, exc_info=error)
        self.broken = True
        self.hub.deliver(self.match_id, {
            "t": self.match_id, "v": self.version, "public": [], "views": None,
            "close": [1011, "the table is reloaded from the store", encode(refusal(Text.of("server.store_failed")))],
        })
        self.hub.release(self)

    def _finish(self, deal: Deal) -> None:
        record = deal_to_record(deal, match_id=self.match_id, preset=self.preset)
        record["players"] = self._players_record()
        self.match.finish_deal()
        over = self.match.is_over
        outcome = self.match.outcome() if over else None
        pigs = set(outcome.pigs) if outcome else set()
        charges = [Charge(user, deal.score.final[s], s in pigs, result=deal.score.result[s], seat=s.name)
                   for s in Seat if (user := self.dealt_to[s]) is not None]
        if over:
            self.status = "over"
        self._arm_deadline()  # between deals: the next deal's timer, if the table has one
        self.hub.lifetimes_changed(self, self.hub.store.finish_deal(
            self.match_id, deal.deal_index, record_line=dump_record(record),
            south_final=deal.score.final[PERSON], totals=list(self.match.totals), over=over,
            winners=[s.name for s in outcome.winners] if outcome else [],
            pigs=[s.name for s in outcome.pigs] if outcome else [], charges=charges, seating=self.seating(),
            expected=self.stored, ranked=self.solo or not self.seeded,
        ))
        self.stored = self.version
        self._seq = 0

    def _players_record(self) -> dict[str, Any]:
        """Who played each seat of the deal: the person dealt it (name, and whether 托管 played for
        them at the end) or the computer player's level."""
        people = self.hub.store.people([u for u in self.dealt_to if u is not None])
        out: dict[str, Any] = {}
        for s in Seat:
            user = self.dealt_to[s]
            if user is not None and user in people:
                out[s.name] = {"name": people[user][0], "computer": None, "auto": self.auto[s]}
            else:
                out[s.name] = {"name": None, "computer": self.levels[s.name], "auto": False}
        return out

    # ------------------------------------------------------------------ seats and people

    def seat_of(self, user: str) -> Seat | None:
        """The seat ``user`` sits in: one whose hand they hold, or one they sit in from the next
        deal on (:meth:`holder`)."""
        for s in Seat:
            occupant = self.seats[s]
            if occupant is not None and occupant[0] == user:
                return s
        return None

    @property
    def in_deal(self) -> bool:
        """Whether a deal is being played (dealt and not over)."""
        return self.status == "playing" and self.match.current is not None

    def holder(self, seat: Seat) -> str | None:
        """The person who holds ``seat``'s hand now: the person sitting there, except while a deal
        is being played that was dealt to someone else — then nobody does (a computer player plays
        the seat) and the person sitting there gets the seat's hand from the next deal on.  So no
        person ever holds two seats' hands of one deal: a seat is taken back during a deal only by
        the person it was dealt to."""
        occupant = self.seats[seat]
        if occupant is None or (self.in_deal and self.dealt_to[seat] != occupant[0]):
            return None
        return occupant[0]

    def holds(self, user: str) -> Seat | None:
        """The seat whose hand ``user`` holds now (see :meth:`holder`), or None."""
        seat = self.seat_of(user)
        return seat if seat is not None and self.holder(seat) == user else None

    def next_deal(self, seat: Seat) -> bool:
        """Whether the person sitting at ``seat`` sits there from the next deal on."""
        return self.seats[seat] is not None and self.holder(seat) is None

    def may_enter(self, person: Person, invite: str | None) -> bool:
        """Whether ``person`` may watch (and sit at) this table: a public one, or a private one
        they host, sit at or were dealt a deal at, or hold the invite of."""
        if self.visibility == "public" or person.id == self.host or person.id in self.dealt_to:
            return True
        if self.seat_of(person.id) is not None:
            return True
        return invite is not None and self.invite is not None and secrets.compare_digest(invite, self.invite)

    def is_computer(self, seat: Seat) -> bool:
        """Whether a computer player plays ``seat`` now (nobody sits there, or 托管)."""
        return self.holder(seat) is None or self.auto[seat]

    def _refresh_people(self) -> None:
        ids = [s[0] for s in self.seats if s is not None]
        for user, (_name, lifetime) in self.hub.store.people(ids).items():
            self.lifetimes[user] = lifetime

    def sit(self, person: Person, seat: Seat) -> None:
        if self.status == "over":
            raise Refused("server.table_over")
        if self.seeded and self.solo and person.id != self.host:
            # a single-player match on a seed its player chose: nobody else plays its known hands
            raise Refused("server.seeded_alone")
        mine = self.seat_of(person.id)
        if mine is not None:
            raise Refused("server.already_seated", seat=mine.name)
        # During a deal the seat is taken back by the person it was dealt to — from someone who sat
        # down there meanwhile too, who sits nowhere then; anyone else sits from the next deal on
        # (holder): a computer player goes on playing the seat's hand.
        taking_back = self.in_deal and self.dealt_to[seat] == person.id and self.next_deal(seat)
        if self.seats[seat] is not None and not taking_back:
            raise Refused("server.seat_taken", seat=seat.name)
        self.seats[seat] = (person.id, person.name)
        self.auto[seat] = False
        self.timeouts[seat] = 0
        self._refresh_people()
        self._arm_deadline()
        self._save()
        self.kick()

    def stand(self, person: Person) -> None:
        seat = self.seat_of(person.id)
        if seat is None:
            raise Refused("server.not_seated")
        self.seats[seat] = None
        self.auto[seat] = False
        self.timeouts[seat] = 0
        self._arm_deadline()
        self._save()
        self.kick()

    def _seated(self, person: Person) -> Seat:
        """The seat whose hand ``person`` holds, to act for: refused to someone not seated, and to
        someone who sits from the next deal on."""
        seat = self.seat_of(person.id)
        if seat is None:
            raise Refused("server.not_seated")
        if self.holder(seat) != person.id:
            raise Refused("server.next_deal_seat", seat=seat.name)
        return seat

    def start(self, person: Person) -> None:
        """The host starts the match; when the host has left the table, any seated person may."""
        host_here = any(c.person.id == self.host for c in self.connections)
        if person.id != self.host and (host_here or self.seat_of(person.id) is None):
            raise Refused("server.host_only")
        if self.status != "waiting":
            raise Refused("server.already_started")
        self.status = "playing"
        self.dealt_to = [s[0] if s is not None else None for s in self.seats]
        self.match.new_deal()
        self._seq = 0
        self._arm_deadline()
        self._save(in_deal=True)
        self.kick()

    def set_auto(self, person: Person, on: bool) -> None:
        seat = self._seated(person)
        if self.auto[seat] == on:
            return
        self.auto[seat] = on
        self.timeouts[seat] = 0
        self._arm_deadline()
        self._save()
        self.kick()

    # ------------------------------------------------------------------ what each seat sees

    @property
    def deal(self) -> Deal | None:
        """The deal in progress, or the last finished one between deals (None before the start)."""
        current = self.match.current
        if current is not None:
            return current
        return self.match.deals[-1] if self.match.deals else None

    @property
    def phase(self) -> str:
        deal = self.deal
        if self.status == "waiting" or deal is None:
            return "waiting"
        if not deal.is_over:
            return deal.phase.value
        return "match-over" if self.match.is_over else "deal-over"

    def _public_exposures(self, deal: Deal) -> list[dict[str, str]]:
        played = [(s, c) for t in deal.tricks for s, p in t.plays for c in p]
        played += [(s, c) for s, p in deal.current_trick for c in p]
        shown, _hidden = visible_exposures(deal.exposures, None, played)
        return [{"seat": e.seat.name, "card": e.card.code, "kind": e.kind} for e in shown]

    def _seat_view(self, seat: Seat | None) -> dict[str, Any]:
        """The table as ``seat`` sees it (None: someone who sits at no seat), without what depends
        on the person (``you``, ``lifetime``): shared by every connection of that seat, and built
        on what every seat sees alike (:meth:`_shared_view`)."""
        cached = self._states.get(seat)
        if cached is not None and cached["v"] == self.version:
            return cached
        shared = self._shared_view()
        state = dict(shared)
        state["seat"] = seat.name if seat is not None else None
        if seat is not None and self.visibility == "private":  # the invitation: for the seated only
            state["table"] = {**shared["table"], "invite": self.invite}
        deal = self.deal
        if deal is None:
            state.update({"hand": [], "legal": [], "exposable": [], "exposures": [],
                          "hidden_counts": dict.fromkeys("NESW", 0), "my_declaration": None})
        else:
            state.update(self._deal_seat_view(deal, seat, self._shared_played))
        self._states[seat] = state
        return state

    def _shared_view(self) -> dict[str, Any]:
        """What every seat and spectator sees alike at this version (built once a version)."""
        shared = self._shared
        if shared is not None and shared["v"] == self.version:
            return shared
        deal = self.deal
        shared = {
            "v": self.version, "match_id": self.match_id, "phase": self.phase, "options": self._options,
            "preset": self.preset, "levels": dict(self.levels), "speed": self.speed,
            "table": self._table_view(), "clock": self._clock(), "totals": _seat_map(self.match.totals),
            "deals_played": len(self.match.deals), "match_result": None,
            "goal": _goal(self.match),
        }
        self._shared_played = self._played(deal) if deal is not None else []
        if deal is None:
            shared.update({
                "deal_index": 0, "turn": None, "undeclared": [], "declared": [],
                "trick": {"leader": None, "plays": []}, "last_trick": None, "tricks_played": 0,
                "captured": {s.name: [] for s in Seat}, "cards_left": dict.fromkeys("NESW", 0),
                "points": dict.fromkeys("NESW", 0), "deal_result": None,
            })
        else:
            shared.update(self._deal_shared_view(deal, self._shared_played))
        if self.match.is_over:
            outcome = self.match.outcome()
            shared["match_result"] = {"winners": [s.name for s in outcome.winners],
                                      "pigs": [s.name for s in outcome.pigs]}
        self._shared = shared
        return shared

    def _played(self, deal: Deal) -> list[tuple[Seat, Card]]:
        """Every card played so far in the deal, with its seat."""
        trick = deal.current_trick
        return [(s, c) for t in deal.tricks for s, p in t.plays for c in p] + [(s, c) for s, p in trick for c in p]

    def _deal_shared_view(self, deal: Deal, played: list[tuple[Seat, Card]]) -> dict[str, Any]:
        over = deal.is_over
        turn = deal.turn
        tricks = deal.tricks
        trick = deal.current_trick
        last = tricks[-1] if tricks else None
        leader = deal.leader if deal.phase is not Phase.EXPOSE else None
        taken: dict[Seat, list[str]] = {s: [] for s in Seat}
        for t in tricks:
            taken[t.taker].extend(c.code for c in t.cards if is_point_card(c))  # point cards (R6)
        cards_left = {s.name: len(deal.dealt[s]) for s in Seat}
        for s, _c in played:
            cards_left[s.name] -= 1
        return {
            "deal_index": deal.deal_index,
            "turn": turn.name if turn is not None else None,
            "undeclared": [s.name for s in deal.undeclared if s not in self.pending],
            "declared": [s.name for s in deal.undeclared if s in self.pending],
            "trick": {
                "leader": leader.name if leader is not None and not over else None,
                "plays": [{"seat": s.name, "cards": _codes(p)} for s, p in trick],
            },
            "last_trick": None if last is None else {
                "leader": last.leader.name,
                "plays": [{"seat": s.name, "cards": _codes(p)} for s, p in last.plays],
                "winner": last.winner.name,
                "taker": last.taker.name,
            },
            "tricks_played": len(tricks),
            "captured": {s.name: taken[s] for s in Seat},
            "points": self._points(deal, played),
            "cards_left": cards_left,
            "deal_result": self._deal_result(deal) if over else None,
        }

    def _points(self, deal: Deal, played: list[tuple[Seat, Card]]) -> dict[str, int]:
        """Each seat's raw score (R6) if the deal ended now, from the cards taken so far and the
        exposures everyone sees (a secret exposure counts once its card is played)."""
        captured: list[list[Card]] = [[], [], [], []]
        for t in deal.tricks:
            captured[t.taker].extend(t.cards)
        exposures, _hidden = visible_exposures(deal.exposures, None, played)
        raw, _events = raw_scores(deal.options, captured, exposures, deal.dealt)
        return _seat_map(raw)

    def _deal_seat_view(self, deal: Deal, seat: Seat | None, played: list[tuple[Seat, Card]]) -> dict[str, Any]:
        """What only ``seat`` sees of the deal (``played``: every card played so far, with its
        seat): its hand, its choices, the exposures it may see."""
        exposures, hidden = visible_exposures(deal.exposures, seat, played)
        mine = seat is not None and seat in deal.undeclared and seat not in self.pending
        return {
            "hand": _codes(deal.hand(seat)) if seat is not None else [],
            "legal": [_codes(p) for p in deal.legal_plays()] if deal.turn == seat and seat is not None else [],
            "exposable": [{"card": c.code, "kinds": list(deal.exposure_kinds(seat, c))}
                          for c in deal.exposable(seat)] if mine and seat is not None else [],
            "exposures": [{"seat": e.seat.name, "card": e.card.code, "kind": e.kind} for e in exposures],
            "hidden_counts": _seat_map(hidden),
            "my_declaration": ([{"card": c.code, "kind": k} for c, k in self.pending[seat]]
                               if seat is not None and seat in self.pending else None),
        }

    def _table_view(self) -> dict[str, Any]:
        """The table's seats and settings as everyone sees them (the invitation is added for
        the seated by :meth:`_seat_view`)."""
        connected = {c.person.id for c in self.presences.values()}
        spectators = {u for u in connected if self.seat_of(u) is None}
        seats: dict[str, Any] = {}
        for s in Seat:
            occupant = self.seats[s]
            if occupant is None:
                seats[s.name] = {"name": None, "title": None, "computer": self.levels[s.name], "auto": False,
                                 "connected": False, "timeouts": 0}
            else:
                waiting = self.next_deal(s)  # a computer player plays the seat until the next deal
                seats[s.name] = {"name": occupant[1], "title": title_for(self.lifetimes.get(occupant[0], 0)),
                                 "computer": self.levels[s.name] if self.auto[s] or waiting else None,
                                 "auto": self.auto[s], "connected": occupant[0] in connected,
                                 "timeouts": self.timeouts[s]}
                if waiting:
                    seats[s.name]["next_deal"] = True
        return {"id": self.match_id, "status": self.status, "visibility": self.visibility,
                "host": self.host_name, "invite": None, "seeded": self.seeded,
                "turn_seconds": self.turn_seconds, "expose_seconds": self.expose_seconds, "seats": seats,
                "spectators": len(spectators)}

    def _deal_result(self, deal: Deal) -> dict[str, Any]:
        """A finished deal: every card is public now."""
        score = deal.score
        return {
            "raw": _seat_map(score.raw),
            "result": _seat_map(score.result),
            "final": _seat_map(score.final),
            "events": [{"seat": s.name, "event": e} for s, e in score.events],
            # The R6 breakdown of each raw score and the R7 factor to 生涯计分: what the page shows.
            "parts": {s.name: _parts(score.parts[s]) for s in Seat},
            "factors": [{"card": c.code, "factor": f} for c, f in score.factors],
            "lifetime_factor": lifetime_factor(deal.options),
            "hands": {s.name: _codes(deal.dealt[s]) for s in Seat},
            "exposures": [{"seat": e.seat.name, "card": e.card.code, "kind": e.kind} for e in deal.exposures],
            "record_url": f"/api/matches/{self.match_id}/deals/{deal.deal_index}",
        }

    @property
    def connections(self) -> list[Presence]:
        """The table's connections, on every server."""
        return list(self.presences.values())

    def view(self, connection: Presence | Connection | None = None, seat: Seat | None = None) -> dict[str, Any]:
        """The table as a connection's person sees it (``docs/web-protocol.md``, The state); without
        a connection, as ``seat`` sees it."""
        waiting = None
        if connection is not None:
            seat = self.holds(connection.person.id)
            sits = self.seat_of(connection.person.id)
            waiting = sits if sits is not None and sits != seat else None
        state = dict(self._seat_view(seat))
        if connection is not None:
            person = connection.person
            lifetime = self.lifetimes.get(person.id, 0)
            state["you"] = {"id": person.id, "name": person.name, "host": person.id == self.host,
                            "seat": seat.name if seat is not None else None,
                            "auto": seat is not None and self.auto[seat],
                            "next_deal_seat": waiting.name if waiting is not None else None}
            state["lifetime"] = {"score": lifetime, "title": title_for(lifetime)}
        else:
            state["you"] = None
            state["lifetime"] = {"score": 0, "title": title_for(0)}
        return state

    def state_message(self, connection: Presence | Connection | None = None) -> dict[str, Any]:
        return {"type": "state", "v": self.version, "state": self.view(connection)}

    # ------------------------------------------------------------------ connections

    def join(self, presence: Presence, invite: str | None, *, admitted: bool = False) -> bool:
        """A connection of ``presence.person`` arrives (``admitted``: it was let in before, by an
        owner of the table before this one).  A person who may not enter is told so and the
        connection closed (False); else the connection is let in — it catches up on what it
        missed — and gets its state with the change its arrival makes."""
        if not admitted and not self.may_enter(presence.person, invite):
            self.hub.send(presence.ref, encode(refusal(Text.of("server.private_table"))),
                          close=(4403, "a private table"))
            if not self.presences:
                self.hub.release(self)
            return False
        person = presence.person
        if person.id not in self.lifetimes:
            for user, (_name, lifetime) in self.hub.store.people([person.id]).items():
                self.lifetimes[user] = lifetime
        first = not any(c.person.id == person.id for c in self.presences.values())
        self.presences[presence.ref] = presence
        self.hub.send(presence.ref, None, admit=True)
        if first:
            self._presence()  # the seats' connected flags and the spectators change
        else:  # another tab of someone already here: nothing changes but this connection's view
            self.hub.send(presence.ref, encode(self.state_message(presence)), v=self.version)
        self.resume()
        return True

    def leave(self, ref: Ref) -> None:
        """A connection is gone; the last one to go lets the table go (it stops; the store keeps
        where the match stands)."""
        presence = self.presences.pop(ref, None)
        if presence is None:
            return
        if not self.presences:
            self.hub.release(self)
            self.hub.lobby.changed(self.match_id)
        elif not any(c.person.id == presence.person.id for c in self.presences.values()):
            self._presence()

    def _presence(self) -> None:
        """Someone came or went: the seats' ``connected`` and the spectator count change."""
        self._bump()
        self._changed([], position=False)
        self.hub.lobby.changed(self.match_id)

    def _bump(self) -> None:
        """A change that is not stored otherwise (presence, chat, a lifetime score): its version
        is, so that a reloaded table never numbers two changes alike."""
        self.version += 1
        try:
            self.hub.store.set_version(self.match_id, self.version, expected=self.stored)
            self.stored = self.version
        except StaleTable as e:  # another server runs the table now: this one lets it go
            self._break(e)
        except Exception:  # the state that follows every catch-up keeps pages right meanwhile
            log.exception("%s: could not store version %d", self.match_id, self.version)

    def lifetime_changed(self, lifetimes: Mapping[str, int]) -> None:
        """People's lifetime scores changed at another table: show the new ones here."""
        here = {c.person.id for c in self.presences.values()} | {o[0] for o in self.seats if o is not None}
        new = {u: v for u, v in lifetimes.items() if u in here and self.lifetimes.get(u) != v}
        if new and not self.broken:
            self.lifetimes.update(new)
            self._bump()
            self._changed([], position=False)
            self.hub.lobby.changed(self.match_id)

    def _changed(self, public: list[dict[str, Any]], *, position: bool) -> None:
        """Publish a change: its public messages, then the views of the seats its connections
        see it from (each room adds who each connection is)."""
        if position:
            self.position += 1
        self._states.clear()
        self._shared = None
        present = {c.person.id for c in self.presences.values()}
        audiences = {self.holds(u) for u in present}
        views = {(s.name if s is not None else "-"): self._seat_view(s) for s in audiences}
        # "seats": who holds each seat's hand (and sees its view); "next_deal": who sits at a seat
        # from the next deal on (sees what a spectator sees until then).
        self.hub.deliver(self.match_id, {
            "t": self.match_id, "v": self.version, "public": [encode({**m, "v": self.version}) for m in public],
            "views": views, "seats": [self.holder(s) for s in Seat], "host": self.host,
            "next_deal": [o[0] if o is not None and self.next_deal(s) else None for s, o in zip(Seat, self.seats,
                                                                                              strict=True)],
            "auto": list(self.auto), "lifetimes": {u: self.lifetimes.get(u, 0) for u in present},
        })
        self._schedule_deadline()

    def _event(self, message: dict[str, Any]) -> None:
        """A change that is only a message (chat): numbered, kept, sent; no new state."""
        self._bump()
        self.hub.deliver(self.match_id, {"t": self.match_id, "v": self.version,
                                         "public": [encode({**message, "v": self.version})], "views": None})

    # ------------------------------------------------------------------ browser messages

    async def receive(self, connection: Presence, text: str | None,
                      reply: Callable[[dict[str, Any]], None]) -> None:
        """Handle one browser message (``text`` None for a binary frame).  A refused message is
        answered with an error by ``reply`` and changes nothing; a change is published to every
        connection of the table."""
        person = connection.person
        try:
            message = self._parse(text)
            if isinstance(message, HintMessage):
                self._ask_hint(self._seated(person), reply, quick=message.quick)
                return
            if isinstance(message, ChatMessage):
                self._chat(connection, message)
            elif isinstance(message, SitMessage):
                self.sit(person, Seat.parse(message.seat))
            elif isinstance(message, StandMessage):
                self.stand(person)
            elif isinstance(message, StartMessage):
                self.start(person)
            elif isinstance(message, TakeBackMessage | AutoMessage):
                self.set_auto(person, isinstance(message, AutoMessage))
            elif isinstance(message, SettingsMessage):
                self._settings(person, message.speed)
            elif isinstance(message, NextMessage):
                self._seated(person)
                self._next()
            elif isinstance(message, AgainMessage):
                self._again(person)
            elif isinstance(message, ExposeMessage):
                kinds = None if isinstance(message.kinds, msgspec.UnsetType) else message.kinds
                self._expose(self._seated(person), message.cards, kinds)
            else:
                self._play(self._seated(person), message.cards)
        except Refused as e:
            reply(refusal(e.text))
            return
        except StoreError:
            reply(refusal(Text.of("server.store_failed")))
            return
        except (MessageError, GongzhuError) as e:
            reply(refusal(e.text if isinstance(e, GongzhuError) and e.text is not None else str(e)))
            return
        self.kick()

    @staticmethod
    def _parse(text: str | None) -> BrowserMessage:
        """A browser message, typed as declared in :mod:`gongzhu.formats.web`."""
        if text is None:
            raise MessageError("messages are JSON text, not binary frames")
        try:
            message: BrowserMessage = typed(loads_strict(text), BrowserMessage)
        except JSONTextError as e:
            raise MessageError(f"not a JSON message: {e}") from None
        except FormatError as e:
            raise MessageError(str(e)) from None
        return message

    def _current(self) -> Deal:
        deal = self.match.current
        if self.status == "waiting" or deal is None:
            if self.status == "waiting":
                raise Refused("server.not_started")
            raise Refused("server.match_over" if self.match.is_over else "server.deal_over")
        return deal

    def _expose(self, seat: Seat, cards: list[str], kinds: Sequence[str] | None) -> None:
        """A seat's exposure declaration (R4), possibly empty; kept secret until every seat has
        declared."""
        deal = self._current()
        items: list[Card | str | tuple[Card | str, str]]
        if kinds is None:
            items = list(cards)
        else:
            if len(kinds) != len(cards):
                raise MessageError(f"\"kinds\" has {len(kinds)} entries for {len(cards)} cards: one kind per card")
            items = list(zip(cards, kinds, strict=True))
        if seat in self.pending:
            raise GongzhuError("refusal.already_declared", seat=seat)
        if self.auto[seat]:
            raise Refused("server.in_auto")
        checked = deal.verify_declare(seat, items)  # raises, saying why
        self._commit(seat, {"type": "declare", "items": [[c.code, k] for c, k in checked]})

    def _play(self, seat: Seat, cards: list[str]) -> None:
        deal = self._current()
        if self.auto[seat] and deal.turn == seat:
            raise Refused("server.in_auto")
        play = deal.verify_play(cards, seat)  # raises, saying why
        self._commit(seat, {"type": "play", "cards": _codes(play)})

    def _next(self) -> None:
        if self.status == "waiting":
            raise Refused("server.not_started")
        if self.match.current is not None:
            raise Refused("server.deal_not_over")
        if self.match.is_over:
            raise Refused("server.match_over")
        self.match.new_deal()
        self.dealt_to = [s[0] if s is not None else None for s in self.seats]
        self._seq = 0
        self.pending = {}
        self.deadline = None
        self._arm_deadline()
        self._save(lobby=False, in_deal=True)

    def _again(self, person: Person) -> None:
        """再来一局: a new table with this one's settings, the same people in the same seats and
        ``person`` its host, waiting to be started; everyone here is told where it is."""
        seat = self._seated(person)
        if self.status != "over":
            raise Refused("server.not_over")
        if self.again is None:
            new = NewTable(self.preset, self.options, dict(self.levels), self.speed, secrets.randbits(64),
                           visibility=self.visibility, turn_seconds=self.turn_seconds,
                           expose_seconds=self.expose_seconds, seat=seat, started=False)
            info = self.hub.create(new, person, others=self.seats)
            self.again = info.match_id
            url = f"/table/{info.match_id}"
            if info.seating.visibility == "private":
                url += f"?invite={info.seating.invite}"
            self.again_url = url
        self._event({"type": "again", "url": self.again_url, "by": person.name})

    def _settings(self, person: Person, speed: str) -> None:
        if person.id != self.host:
            raise Refused("server.host_only")
        if speed == self.speed:
            return  # nothing changes: nothing to store or send
        self.speed = speed  # not a change of position: a computer player's pending choice stands
        self.version += 1
        try:
            self.hub.store.save_table(self.match_id, self.seating(), expected=self.stored, speed=speed)
        except Exception as e:
            self._break(e)
            raise StoreError("the server could not save this change, so it did not happen; "
                             "reconnect and try again") from None
        self.stored = self.version
        self._changed([], position=False)

    def _chat(self, connection: Presence, message: ChatMessage) -> None:
        if isinstance(message.quick, str):
            if not has(message.quick):
                raise MessageError(f"$.quick: {show(message.quick)} is not a quick phrase")
            body: dict[str, Any] = {"quick": message.quick}
        elif isinstance(message.text, str):
            text = _chat_text(message.text)
            if not text:
                raise MessageError("$.text: the line is empty")
            body = {"text": text}
        else:
            raise MessageError("a chat message has a \"text\" or a \"quick\" phrase")
        if not connection.chat.allow(time.monotonic()):
            raise Refused("server.chat_too_fast")
        seat = self.seat_of(connection.person.id)
        self._event({"type": "chat", "from": {"name": connection.person.name,
                                              "seat": seat.name if seat is not None else None}, **body})

    # ------------------------------------------------------------------ hints

    def _ask_hint(self, seat: Seat, reply: Callable[[dict[str, Any]], None], *, quick: bool = False) -> None:
        """Answer a hint request: a quick one at once with the network's ranking, a search one when
        the expert's ranking is ready, without holding up the connection's next messages (a play
        may overtake it: the hint names the position it ranks, by deal and the seat's hand size,
        so that the page can drop a late one)."""
        deal = self._current()
        others = {u for u in (*self.dealt_to, *(o[0] for o in self.seats if o is not None)) if u is not None}
        occupant = self.seats[seat]
        if others - {occupant[0] if occupant is not None else None}:
            raise Refused("server.no_hints_with_people")  # fair play: hints are for games against computers
        if deal.turn != seat:
            if deal.phase is not Phase.PLAY:
                raise Refused("server.hint_not_now")
            assert deal.turn is not None
            raise Refused("server.hint_not_your_turn", turn=deal.turn)
        if quick:
            # The network answers in milliseconds: on the event loop, at once, so that no search
            # in the hint pool can hold it up; once per position, every connection asking shares it.
            known = self._quick_hint
            if known is not None and known[0] == self.position and known[1] == seat:
                reply(known[2])
                return
            try:
                message = self._rank(observe(deal, seat), quick=True)
            except Exception:
                log.exception("%s: a quick hint failed", self.match_id)
                reply(refusal(Text.of("server.hint_failed")))
                return
            self._quick_hint = (self.position, seat, message)
            reply(message)
            return
        # One ranking per position: every connection asking for it shares it, and it is computed
        # in the hint pool, one at a time, beside the computer players' pool.
        hint = self._hint
        ranking = hint[2] if hint is not None and hint[0] == self.position and hint[1] == seat else None
        if ranking is None or (ranking.done() and (ranking.cancelled() or ranking.exception() is not None)):
            loop = asyncio.get_running_loop()
            ranking = loop.run_in_executor(self.hub.hint_pool, self._rank, observe(deal, seat))
            self._hint = (self.position, seat, ranking)
        task = asyncio.get_running_loop().create_task(self._send_hint(ranking, reply))
        self._hint_tasks.add(task)
        task.add_done_callback(self._hint_tasks.discard)

    async def _send_hint(self, ranking: asyncio.Future[dict[str, Any]],
                         reply: Callable[[dict[str, Any]], None]) -> None:
        try:
            message = await asyncio.shield(ranking)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if not ranking.cancelled() or (task is not None and task.cancelling()):
                raise
            reply(refusal(Text.of("server.hint_called_off")))
            return
        except Exception:
            log.exception("%s: a hint failed", self.match_id)
            reply(refusal(Text.of("server.hint_failed")))
            return
        reply(message)

    def _rank(self, obs: Any, quick: bool = False) -> dict[str, Any]:
        """The hint message of a position: the network's ranking (``quick``) or the expert's."""
        from gongzhu.players.hints import DEFAULT_HINT_THINK, hints

        think = self.hub.hint_think if self.hub.hint_think is not None else DEFAULT_HINT_THINK
        ranked = hints(obs, quick=quick, think=think)
        return {"type": "hint", "deal_index": obs.deal_index, "hand_size": len(obs.hand),
                "source": "network" if quick else "search", "hints": [
            {"cards": _codes(h.play), "expected": h.expected, "reason": {"zh": h.reason_zh, "en": h.reason_en}}
            for h in ranked
        ]}

    # ------------------------------------------------------------------ the clock

    def _persons_to_act(self) -> tuple[str, list[Seat]] | None:
        """Whose time runs now: (``"play"``, [the person to play]), (``"expose"``, [the persons
        yet to declare]), (``"next"``, []) between deals, or None."""
        deal = self.match.current
        if self.status != "playing":
            return None
        if deal is None:
            return None if self.match.is_over else ("next", [])
        if deal.phase is Phase.EXPOSE:
            seats = [s for s in deal.undeclared if s not in self.pending and not self.is_computer(s)]
            return ("expose", seats) if seats else None
        turn = deal.turn
        if turn is None or self.is_computer(turn):
            return None
        return "play", [turn]

    def _arm_deadline(self) -> None:
        """Set the running timer's deadline after a change (the exposure window runs on while
        persons declare; a turn's timer restarts with each turn)."""
        due = self._persons_to_act()
        kind = due[0] if due is not None else None
        seconds = {"play": self.turn_seconds, "expose": self.expose_seconds,
                   "next": NEXT_DEAL_SECONDS if self.turn_seconds else None}.get(kind or "")
        if due is None or not seconds:
            self.deadline = None
            return
        if kind == "expose" and self.deadline is not None and self._clock_kind == "expose":
            return  # the window started when the deal was dealt
        self.deadline = time.time() + seconds

    @property
    def _clock_kind(self) -> str | None:
        due = self._persons_to_act()
        return due[0] if due is not None else None

    def _clock(self) -> dict[str, Any] | None:
        due = self._persons_to_act()
        if due is None or self.deadline is None:
            return None
        kind, seats = due
        total = {"play": self.turn_seconds, "expose": self.expose_seconds, "next": NEXT_DEAL_SECONDS}[kind]
        return {"kind": kind, "seats": [s.name for s in seats], "total": total,
                "remaining": round(max(0.0, self.deadline - time.time()), 1)}

    def _schedule_deadline(self) -> None:
        """Run :meth:`_on_deadline` when the deadline passes (call on the event loop)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.deadline is None or self.broken:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        delay = max(0.0, self.deadline - time.time())
        self._timer = loop.call_later(delay, self._on_deadline, self.deadline)

    def _on_deadline(self, deadline: float) -> None:
        if self.broken or self.deadline != deadline:
            return
        loop = asyncio.get_running_loop()
        if self._timeout_task is not None and not self._timeout_task.done():
            # a timeout of a moment ago is still deciding (someone acted meanwhile): look again soon
            self._timer = loop.call_later(0.05, self._on_deadline, deadline)
            return
        self._timeout_task = loop.create_task(self._timeout(deadline))
        self._timeout_task.add_done_callback(_report_failure)

    async def _timeout(self, deadline: float) -> None:
        """The time ran out: the intermediate player acts for each person who had to (a second
        timeout in a row puts the seat into 托管); between deals, the next deal is dealt."""
        due = self._persons_to_act()
        if due is None:
            return
        kind, seats = due
        if kind == "next":
            with contextlib.suppress(MessageError, Refused, StoreError):
                self._next()
            self.kick()
            return
        deal = self.match.current
        assert deal is not None
        loop = asyncio.get_running_loop()
        position = self.position
        where = f"match {self.match_id} (timeout)"
        choices: list[tuple[Seat, Any]] = []
        for seat in seats:
            obs = observe(deal, seat)
            player = self.stand_ins[seat]
            choice: Any
            if kind == "expose":
                choice = await loop.run_in_executor(self.hub.player_pool,
                                                    functools.partial(safe_exposures, player, obs, where=where))
            else:
                choice = await loop.run_in_executor(self.hub.player_pool,
                                                    functools.partial(safe_play, player, obs, where=where))
            choices.append((seat, choice))
        if self.position != position or self.deadline != deadline or self.broken:
            return  # someone acted meanwhile
        try:
            for seat, choice in choices:
                if kind == "expose":
                    self._computer_declare(deal, seat, choice)
                else:
                    self._computer_play(deal, seat, choice, timed_out=True)
        except StoreError:
            return
        self.kick()

    # ------------------------------------------------------------------ computer players

    @property
    def pace(self) -> float:
        """Seconds per computer play: the server's override, else the speed setting."""
        return self.hub.pace if self.hub.pace is not None else SPEEDS.get(self.speed, SPEEDS[DEFAULT_SPEED])

    def _computer_step(self) -> tuple[Seat, str] | None:
        """The computer player to act now and how (``declare``/``play``), or None when the
        table waits for a person (or the deal is over)."""
        deal = self.match.current
        if self.status != "playing" or deal is None or deal.is_over:
            return None
        if deal.phase is Phase.EXPOSE:
            for seat in deal.undeclared:
                if seat not in self.pending and self.is_computer(seat):
                    return seat, "declare"
            return None
        turn = deal.turn
        return (turn, "play") if turn is not None and self.is_computer(turn) else None

    def kick(self) -> None:
        """Start the computer players if one of them is to act (call on the event loop)."""
        if self.broken or self._computer_step() is None:
            return
        driver = self._driver
        loop = asyncio.get_running_loop()
        if driver is not None and not driver.done() and driver.get_loop() is loop:
            return
        self._driver = loop.create_task(self._drive())
        self._driver.add_done_callback(_report_failure)

    async def _drive(self) -> None:
        loop = asyncio.get_running_loop()
        pool = self.hub.player_pool
        where = f"match {self.match_id}"
        while not self.broken and (step := self._computer_step()) is not None:
            seat, kind = step
            deal = self.match.current
            assert deal is not None
            position = self.position
            obs = observe(deal, seat)
            player = self.players[seat]
            started = loop.time()
            choice: Any
            level = self.levels[seat.name]
            # A player that fails is logged and stood in for (players.guard): the table goes on.
            apart = None
            if level in SEARCHING:  # a searching player thinks in a process of its own (below)
                seed = random.Random(f"{self.match.seed}:{deal.deal_index}:{len(deal.actions)}:{seat.name}")
                try:
                    apart = await loop.run_in_executor(self.hub.search_pool(), functools.partial(
                        decide_apart, kind, level, seed.getrandbits(63), obs, where))
                except asyncio.CancelledError:
                    raise
                except Exception:  # no process to think in: think here, as the other levels do
                    log.exception("%s: the search processes failed; thinking in a thread", self.match_id)
            if apart is not None:
                choice = apart
                delay = self.pace / 2 if kind == "declare" else self.pace
            elif kind == "declare":
                choice = await loop.run_in_executor(pool, functools.partial(safe_exposures, player, obs, where=where))
                delay = self.pace / 2
            else:
                choice = await loop.run_in_executor(pool, functools.partial(safe_play, player, obs, where=where))
                delay = self.pace
            wait = delay - (loop.time() - started)
            await asyncio.sleep(max(0.0, wait))
            if self.position != position or self.broken or self._computer_step() != step:
                continue  # the position changed meanwhile: think again
            try:
                if kind == "declare":
                    self._computer_declare(deal, seat, choice)
                else:
                    self._computer_play(deal, seat, choice)
            except StoreError:
                return  # the table is dropped; the next connection rebuilds it

    def _computer_declare(self, deal: Deal, seat: Seat, choice: list[tuple[Card, str]]) -> None:
        try:
            checked = deal.verify_declare(seat, choice)
        except GongzhuError as e:
            log.error("%s: %s's exposures %r refused (%s): declaring none", self.match_id, seat.name, choice, e)
            checked = []
        self._commit(seat, {"type": "declare", "items": [[c.code, k] for c, k in checked]})

    def _computer_play(self, deal: Deal, seat: Seat, choice: Play, *, timed_out: bool = False) -> None:
        try:
            play = deal.verify_play(choice, seat)
        except GongzhuError as e:
            log.error("%s: %s's play %r refused (%s): playing the first legal play", self.match_id,
                      seat.name, choice, e)
            play = deal.legal_plays()[0]
        self._commit(seat, {"type": "play", "cards": _codes(play)}, timed_out=timed_out)

    def halt(self) -> None:
        """Stop the computer players and the clock now, and a hint nobody waits for any more
        unless it has started (the table is being let go)."""
        driver, self._driver = self._driver, None
        if driver is not None and not driver.done():
            driver.cancel()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._timeout_task is not None and not self._timeout_task.done():
            self._timeout_task.cancel()
        if self._hint is not None and not self._hint[2].done():
            self._hint[2].cancel()
        for task in list(self._hint_tasks):
            task.cancel()

    async def stop(self) -> None:
        self.halt()
        for task in (self._driver, self._timeout_task):
            if task is None or task.done() or task.get_loop() is not asyncio.get_running_loop():
                continue
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def resume(self) -> None:
        """Start what runs by itself: the computer players and the clock (call on the event loop)."""
        self._schedule_deadline()
        self.kick()


def _lower_priority() -> None:
    import contextlib as _contextlib
    import os

    with _contextlib.suppress(OSError, AttributeError):
        os.nice(SEARCH_NICENESS)


def decide_apart(kind: str, level: str, seed: int, obs: Any, where: str) -> Any:
    """A searching computer player's decision, in a process of :meth:`Tables.search_pool`: the
    player is made for this decision from a seed of the position (the same position, the same
    decision, whichever server asks)."""
    player = make_player(level, seed=seed)
    if kind == "declare":
        return safe_exposures(player, obs, where=where)
    return safe_play(player, obs, where=where)


def _report_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("a table task stopped", exc_info=task.exception())

