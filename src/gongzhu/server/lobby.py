"""The lobby: the live list of the public tables not over that someone is at
(``docs/web-protocol.md``, The lobby).

:class:`Lobby` keeps the entries of the listed tables and the lobby's connections.  A table
tells it when something a lobby shows may have changed (:meth:`Lobby.changed`: seats, 托管,
status, spectators, deals played); it sends ``{"type": "table", "table": entry}`` to every lobby
connection when the entry differs from the one they have, and ``{"type": "gone", "id": ...}``
when a table stops being listed.  An entry is built from the open table when it is in memory
(:class:`Listed`, found by the ``lookup`` it is given), else from the store; the other servers'
lobbies hear of it through the bus.  An event's news (:meth:`Lobby.stage_begun`) goes as
``{"type": "event", "id": ..., "stage": n}`` to the lobby connections of the event's own people
(its players, organiser and referees: a connection is the person whose session opened it), on
every server, so that their pages read where they sit now at once; nobody else learns of it.

Imports the store, the bus, the wire and the rules core (and which computer level plays a seat, of thinking).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, Protocol

from gongzhu.ratings import DEFAULT, Skill
from gongzhu.rules.cards import Seat
from gongzhu.rules.match import Match, title_for
from gongzhu.rules.options import PRESETS, Options
from gongzhu.server.bus import Bus
from gongzhu.server.store import MatchInfo, Seating, Store
from gongzhu.server.thinking import computer_level
from gongzhu.server.wire import encode

__all__ = ["Listed", "Lobby", "entry"]


class Listed(Protocol):
    """What the lobby reads of an open table."""

    visibility: str
    status: str
    options: Options
    match: Match
    skills: dict[str, Skill]
    accounts: set[str]

    @property
    def rated(self) -> bool: ...

    def seating(self) -> Seating: ...

    def connected(self) -> set[str]: ...

    def seat_of(self, user: str) -> Seat | None: ...

    def computer_level(self, seat: Seat) -> str: ...


class Sink(Protocol):
    """A lobby connection's outbox."""

    def put(self, text: str) -> None: ...

    def close(self, code: int, reason: str) -> None: ...


def _changed_options(preset: str, options: dict[str, Any]) -> dict[str, Any]:
    base = PRESETS[preset].to_dict() if preset in PRESETS else Options().to_dict()
    return {k: v for k, v in options.items() if base.get(k) != v}


def entry(info: MatchInfo, people: dict[str, tuple[str, int]], *, spectators: int = 0,
          connected: set[str] | None = None, table: Listed | None = None) -> dict[str, Any]:
    """A table as the lobby lists it."""
    seating = table.seating() if table is not None else info.seating
    options = table.options.to_dict() if table is not None else info.options
    seats: dict[str, Any] = {}
    for i, s in enumerate("NESW"):
        occupant = seating.seats[i]
        # The level that plays the seat: a person's seat at a table for people, the stand-ins'.
        if table is not None:
            level = table.computer_level(Seat(i))
        else:
            level = computer_level(Seat(i), seating.levels, seating.seats, seating.dealt_to, in_deal=info.in_deal,
                                   solo=info.solo)
        if occupant is None:
            seats[s] = {"name": None, "title": None, "computer": level, "auto": False}
        else:
            lifetime = people.get(occupant[0], (occupant[1], 0))[1]
            seats[s] = {"name": occupant[1], "title": title_for(lifetime),
                        "computer": level if seating.auto[i] else None, "auto": seating.auto[i]}
            if table is not None and occupant[0] in table.accounts:  # an account's rating (docs/ratings.md)
                seats[s].update(table.skills.get(occupant[0], DEFAULT).shown())
    host = people.get(seating.host, (None, 0))[0] if seating.host is not None else None
    deals = len(table.match.deals) if table is not None else info.deals
    return {
        "id": info.match_id, "url": f"/table/{info.match_id}", "preset": info.preset,
        "changed": _changed_options(info.preset, options), "status": seating.status, "host": host,
        "seats": seats, "spectators": spectators, "turn_seconds": seating.turn_seconds,
        "expose_seconds": seating.expose_seconds, "deals_played": deals, "created": info.created,
        "seeded": info.seeded, "rated": table.rated if table is not None else False,
        "accounts_only": info.accounts_only,
    }


class Lobby:
    """The listed tables' entries and the lobby's connections (see the module docstring)."""

    def __init__(self, store: Store, bus: Callable[[], Bus], lookup: Callable[[str], Listed | None],
                 owned: Callable[[], list[str]]) -> None:
        """``lookup``: the open table of a match on this server, if any; ``owned``: the tables
        this server runs; ``bus``: the bus to the other servers' lobbies."""
        self.store = store
        self.bus = bus
        self.lookup = lookup
        self.owned = owned
        self.outboxes: set[Sink] = set()
        #: Whose session opened each lobby connection (an account's or a guest's id; none: nobody's).
        self.people: dict[Sink, str] = {}
        self._entries: dict[str, dict[str, Any]] | None = None  # loaded on first use

    def _load(self) -> dict[str, dict[str, Any]]:
        if self._entries is None:
            infos = self.store.listed()
            ids = {u for i in infos for u in [i.seating.host, *(o[0] for o in i.seating.seats if o)] if u}
            people = self.store.people(sorted(ids))
            self._entries = {}
            for info in infos:
                table = self.lookup(info.match_id)
                if table is not None and table.connected():
                    self._entries[info.match_id] = self._entry(info, people, table)
        return self._entries

    def _entry(self, info: MatchInfo, people: dict[str, tuple[str, int]], table: Listed | None) -> dict[str, Any]:
        if table is None:
            return entry(info, people)
        spectators = len({u for u in table.connected() if table.seat_of(u) is None})
        return entry(info, people, spectators=spectators, table=table)

    def listing(self) -> list[dict[str, Any]]:
        """Every listed table, oldest first."""
        return sorted(self._load().values(), key=lambda e: (e["created"], e["id"]))

    def snapshot(self) -> dict[str, Any]:
        return {"type": "lobby", "tables": self.listing()}

    def changed(self, match_id: str) -> None:
        """Something a lobby shows may have changed at table ``match_id``."""
        entries = self._load()
        table = self.lookup(match_id)
        # listed: a public table not over that someone is at (a table nobody is at waits for
        # them, and is listed again when one of them comes back); the store is read only then
        listed = table is not None and table.visibility == "public" and bool(table.connected()) \
            and table.status != "over"
        info = self.store.match(match_id) if listed else None
        if not listed or info is None:
            if entries.pop(match_id, None) is not None:
                self._send(encode({"type": "gone", "id": match_id}))
                self._share({"op": "gone", "id": match_id})
            return
        seating = table.seating() if table is not None else info.seating
        ids = sorted({u for u in [seating.host, *(o[0] for o in seating.seats if o)] if u})
        new = self._entry(info, self.store.people(ids), table)
        if entries.get(match_id) != new:
            entries[match_id] = new
            self._send(encode({"type": "table", "table": new}))
            self._share({"op": "table", "table": new})

    def stage_begun(self, event_id: str, stage: int, people: Collection[str]) -> None:
        """Stage ``stage`` of an event has begun (its tables are made): the lobby connections of
        ``people`` (the event's players, organiser and referees) are told ``{"type": "event",
        "id": ..., "stage": n}``, here and on the other servers, and their pages read the event
        again.  A slow connection whose outbox overflows may miss it: the pages also read the
        event on a timer."""
        self._tell(event_id, stage, set(people))
        self._share({"op": "event", "id": event_id, "stage": stage, "people": sorted(people)})

    def _tell(self, event_id: str, stage: int, people: set[str]) -> None:
        text = encode({"type": "event", "id": event_id, "stage": stage})
        for outbox, person in list(self.people.items()):
            if person in people and outbox in self.outboxes:
                outbox.put(text)

    def _share(self, payload: dict[str, Any]) -> None:
        """Tell the other servers' lobbies."""
        self.bus().to_lobby(payload)

    def remote(self, payload: dict[str, Any]) -> None:
        """Another server's lobby news: a table it runs changed or is gone, a stage of an event
        began (for the event's people), or a server that started asks for the tables this one
        runs."""
        entries = self._load()
        op = payload.get("op")
        if op == "table":
            entry = payload["table"]
            if entries.get(entry["id"]) != entry:
                entries[entry["id"]] = entry
                self._send(encode({"type": "table", "table": entry}))
        elif op == "gone":
            if entries.pop(payload["id"], None) is not None:
                self._send(encode({"type": "gone", "id": payload["id"]}))
        elif op == "event":
            self._tell(payload["id"], payload["stage"], set(payload.get("people", [])))
        elif op == "ask":
            for match_id in self.owned():
                if match_id in entries:
                    self._share({"op": "table", "table": entries[match_id]})

    def _send(self, text: str) -> None:
        for outbox in list(self.outboxes):
            outbox.put(text)

    def close(self) -> None:
        for outbox in list(self.outboxes):
            outbox.close(1001, "the server is stopping")
        self.outboxes.clear()
        self.people.clear()
