"""Live events the server runs for people (docs/tournaments.md, Team matches on the server): the
team match (计副制) of two teams of four, on the store's ``events``, ``event_tables`` and
``event_log``, and its routes.

- An organiser (any account) makes an event: its name, preset (``partners`` or ``tournament``),
  boards a session, sessions, turn timer, grace and the two teams (four account names each).  Its
  board set is made and committed at once (:func:`gongzhu.rules.boards.make_board_set`): the
  definition and the commitment are published, the seed kept until every board has been played
  at both tables.
- The organiser starts each session: the server makes its two tables, seated as
  :func:`gongzhu.duplicate.movements.team_match` says (team A N–S at table 1 and E–W at table 2,
  team B the other way round), each a private match whose deals are the session's boards in
  order, with a turn timer (the next board is dealt by itself).  A match's ``challenge`` column
  names its event: no route of the matches opens its records to anyone (they are served here),
  and the table (:class:`~gongzhu.server.table.Table`, through :meth:`Events.table_boards`) lets
  in its four players only — anyone else is refused with ``event.table_closed``.  Whoever is not
  at their table :attr:`Event.grace_seconds` after the start (the events' clock) is played for by
  a computer (托管) until they take their seat back; the referee's desk notes it.
- A board's results show to a table's players once their table has played it; the other table's
  result, the team result and the records once both tables have — to everyone else only then.
- The results are computed from the stored records (:func:`gongzhu.duplicate.events.table_result_of`,
  :func:`~gongzhu.duplicate.events.score_event`) with the referee's penalties (罚分) and score
  corrections in the order entered; the organiser publishes them (until then: provisional).

Routes (docs/web-protocol.md, Events): ``GET /event/{id}`` (the page), ``POST /api/events``,
``GET /api/events/{id}``, ``POST /api/events/{id}/start``, ``POST /api/events/{id}/adjustments``,
``POST /api/events/{id}/publish``, ``GET /api/events/{id}/records.jsonl``.

Imports the store, the table's protocol, the registry, the identity, the bodies, the wire, the
rules core, :mod:`gongzhu.duplicate`, :mod:`gongzhu.jsontext` and the message catalog.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select, update
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gongzhu.duplicate.events import (
    Adjustment,
    Correction,
    EventError,
    Penalty,
    partnership,
    score_event,
    table_result_of,
)
from gongzhu.duplicate.movements import SEATS, Sitting, team_match
from gongzhu.messages import Text
from gongzhu.records.format import dump_record
from gongzhu.rules.boards import Board, make_board_set, verify_board_set
from gongzhu.rules.cards import Seat
from gongzhu.rules.errors import GongzhuError
from gongzhu.rules.options import Options, resolve_options
from gongzhu.server.bodies import DEFAULT_LEVEL, DEFAULT_SPEED, BodyError, json_body
from gongzhu.server.identity import Identity, User, login_key
from gongzhu.server.registry import Tables
from gongzhu.server.rooms import Person
from gongzhu.server.store import EVENT_LOG, EVENT_TABLES, EVENTS, USERS, Seating, Store
from gongzhu.server.wire import personal_answer, plain_error, refused_answer

__all__ = ["BOARDS", "GRACE", "MAX_BOARDS", "MAX_SESSIONS", "PRESETS", "TURN_SECONDS", "Event", "EventRefused",
           "Events", "routes"]

log = logging.getLogger("gongzhu.server")

#: The presets an event is played under (pairs play as partners at both).
PRESETS = ("partners", "tournament")
#: Boards a session by default (one 盘) and at most; sessions at most.
BOARDS, MAX_BOARDS, MAX_SESSIONS = 16, 16, 4
#: The turn timer by default, and its bounds (seconds).
TURN_SECONDS, MIN_TURN, MAX_TURN = 30, 5, 300
#: How long after a session starts a computer takes the seat of whoever is absent, by default and
#: at most (seconds).
GRACE, MAX_GRACE = 300, 3600
#: The longest reason the referee may give, and the largest penalty (points).
REASON_MAX, MAX_PENALTY = 500, 10000
#: How often the server looks for the absent of a started session (seconds of the event loop).
GRACE_RECHECK = 5.0

_EVENT_ID = re.compile(r"e-[0-9a-f]{12}")
_BODY_KEYS = ("name", "preset", "boards", "sessions", "turn_seconds", "grace_seconds", "teams")


class EventRefused(Exception):
    """A request about an event refused: the HTTP status and the catalog message."""

    def __init__(self, status: int, key: str, **params: Any) -> None:
        self.status = status
        self.text = Text.of(key, **params)
        super().__init__(self.text.render("en"))


@dataclass(frozen=True, slots=True)
class Event:
    """An event as stored: ``teams`` are two ``{"name", "players": [[user id, name] × 4]}`` (the
    first pair, then the second); ``seed`` is secret until every board has been played."""

    id: str
    name: str
    created: str
    organiser: str
    preset: str
    options: dict[str, Any]
    boards: int
    sessions: int
    turn_seconds: int
    grace_seconds: int
    teams: list[dict[str, Any]]
    seed: str
    definition: dict[str, Any]
    commitment: str
    published: str | None

    @property
    def team_names(self) -> list[str]:
        return [str(t["name"]) for t in self.teams]

    def sitting(self, session: int, table: int) -> Sitting:
        """Who sits where at ``table`` of ``session``, and its boards."""
        return next(s for s in team_match(self.sessions, self.boards).sittings
                    if s.session == session and s.table == table)

    def occupant(self, sitting: Sitting, seat: int) -> tuple[str, str]:
        """The (user id, name) in ``seat`` of ``sitting``."""
        place = sitting.seats[seat]
        user, name = self.teams[place.entrant - 1]["players"][place.member]
        return str(user), str(name)

    def seating(self, sitting: Sitting) -> dict[str, Any]:
        """The ``seating`` a record of ``sitting`` holds (as a club night's, docs/tournaments.md)."""
        return {"form": "teams", "round": sitting.round, "session": sitting.session, "table": sitting.table,
                "match": sitting.match,
                "entrants": {SEATS[i]: self.team_names[p.entrant - 1] for i, p in enumerate(sitting.seats)}}


def _event(row: Mapping[str, Any]) -> Event:
    return Event(
        id=row["id"], name=row["name"], created=row["created"], organiser=row["organiser"], preset=row["preset"],
        options=dict(row["options"]), boards=int(row["boards"]), sessions=int(row["sessions"]),
        turn_seconds=int(row["turn_seconds"]), grace_seconds=int(row["grace_seconds"]), teams=list(row["teams"]),
        seed=row["seed"], definition=dict(row["definition"]), commitment=row["commitment"],
        published=row["published"],
    )


def _stamp(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).isoformat(timespec="seconds")


def _whole(body: Mapping[str, Any], key: str, default: int, low: int, high: int, refusal: str,
           **params: Any) -> int:
    value = body.get(key, default)
    if type(value) is not int or not low <= value <= high:
        raise EventRefused(400, refusal, **params)
    return value


def _text(value: object, limit: int) -> str | None:
    """``value`` as a name or a reason: 1 to ``limit`` characters once trimmed, no control
    characters (None otherwise)."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not 1 <= len(text) <= limit or any(unicodedata.category(ch) in ("Cc", "Cs") for ch in text):
        return None
    return text


@dataclass(frozen=True, slots=True)
class _Played:
    """What the tables of an event have played: each table's match and records (parsed), by
    (session, table)."""

    matches: dict[tuple[int, int], str]
    started: dict[tuple[int, int], float]
    records: dict[tuple[int, int], list[dict[str, Any]]]

    def finished(self, key: tuple[int, int]) -> int:
        return len(self.records.get(key, []))


class Events:
    """The live events of a server (see the module docstring).  ``now``: the events' clock
    (seconds since the epoch), which times the grace."""

    def __init__(self, store: Store, tables: Tables, now: Callable[[], float]) -> None:
        self.store = store
        self.tables = tables
        self.now = now
        self._boards: dict[str, tuple[Board, ...]] = {}
        self._watching: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ reading

    def get(self, event_id: str) -> Event:
        row = None
        if _EVENT_ID.fullmatch(event_id):
            with self.store.engine.connect() as c:
                row = c.execute(select(EVENTS).where(EVENTS.c.id == event_id)).mappings().first()
        if row is None:
            raise EventRefused(404, "event.unknown", event=event_id[:40])
        return _event(dict(row))

    def boards_of(self, event: Event) -> tuple[Board, ...]:
        """Every board of the event, from its stored seed (checked against its commitment)."""
        boards = self._boards.get(event.id)
        if boards is None:
            made = verify_board_set(event.seed, event.definition, event.commitment)
            boards = self._boards[event.id] = tuple(made.boards)
        return boards

    def table_boards(self, match_id: str) -> tuple[tuple[Board, ...], dict[str, Any]] | None:
        """The boards an event's match plays and the ``seating`` its records hold; None for a
        match of no event (:class:`~gongzhu.server.table.EventTables`)."""
        with self.store.engine.connect() as c:
            row = c.execute(select(EVENT_TABLES).where(EVENT_TABLES.c.match_id == match_id)).first()
        if row is None:
            return None
        event = self.get(row.event_id)
        if not row.graced:  # a table opened after a restart: its grace is watched again (its
            self._watch(event.id, GRACE_RECHECK)  # players having that long to come back first)
        sitting = event.sitting(int(row.session), int(row.table_no))
        boards = self.boards_of(event)
        return tuple(boards[n - 1] for n in sitting.boards), event.seating(sitting)

    def _played(self, event: Event) -> _Played:
        with self.store.engine.connect() as c:
            rows = c.execute(select(EVENT_TABLES).where(EVENT_TABLES.c.event_id == event.id)).all()
        matches = {(int(r.session), int(r.table_no)): str(r.match_id) for r in rows}
        started = {(int(r.session), int(r.table_no)): float(r.started) for r in rows}
        records = {key: [json.loads(line) for line in self.store.records(m)] for key, m in matches.items()}
        return _Played(matches, started, records)

    def _log(self, event: Event) -> list[dict[str, Any]]:
        with self.store.engine.connect() as c:
            rows = c.execute(select(EVENT_LOG, USERS.c.name).outerjoin(USERS, USERS.c.id == EVENT_LOG.c.actor)
                             .where(EVENT_LOG.c.event_id == event.id).order_by(EVENT_LOG.c.id)).all()
        return [{"n": i + 1, "at": r.at, "by": r.name, "action": r.action, "details": r.details, "reason": r.reason}
                for i, r in enumerate(rows)]

    @staticmethod
    def _adjustments(log: Sequence[Mapping[str, Any]]) -> list[Adjustment]:
        out: list[Adjustment] = []
        for entry in log:
            d = entry["details"]
            if entry["action"] == "penalty":
                out.append(Penalty(d["team"], float(d["points"]), entry["reason"], 1))
            elif entry["action"] == "correction":
                out.append(_correction(d, entry["reason"]))
        return out

    def _write(self, event: Event, actor: str | None, action: str, details: Mapping[str, Any] | None,
               reason: str | None = None) -> None:
        with self.store.engine.begin() as c:
            c.execute(insert(EVENT_LOG).values(event_id=event.id, at=_stamp(self.now()), actor=actor, action=action,
                                               details=dict(details) if details is not None else None, reason=reason))

    # ------------------------------------------------------------------ making one

    def _player(self, name: object) -> tuple[str, str]:
        text = _text(name, 40)
        if text is None:
            raise EventRefused(400, "event.bad_teams")
        with self.store.engine.connect() as c:
            row = c.execute(select(USERS.c.id, USERS.c.name, USERS.c.guest, USERS.c.password_hash, USERS.c.deleted)
                            .where(USERS.c.name_key == login_key(text))).first()
        if row is None or row.deleted is not None:
            raise EventRefused(404, "event.unknown_player", name=text)
        if row.guest or row.password_hash is None:
            raise EventRefused(409, "event.guest_player", name=row.name)
        return str(row.id), str(row.name)

    def create(self, organiser: User, body: Mapping[str, Any]) -> Event:
        """An event made by ``organiser`` from a ``POST /api/events`` body (refused with the
        field at fault; nothing is stored then)."""
        if organiser.guest or not organiser.account:
            raise EventRefused(403, "event.accounts_only")
        if not isinstance(body, Mapping):
            raise EventRefused(400, "event.bad_body")
        unknown = next((k for k in body if k not in _BODY_KEYS), None)
        if unknown is not None:
            raise EventRefused(400, "event.bad_field", field=str(unknown)[:40], fields=", ".join(_BODY_KEYS))
        name = _text(body.get("name"), 64)
        if name is None:
            raise EventRefused(400, "event.bad_name")
        preset = body.get("preset", "partners")
        if preset not in PRESETS:
            raise EventRefused(400, "event.bad_preset", preset=str(preset)[:40], presets=", ".join(PRESETS))
        boards = _whole(body, "boards", BOARDS, 1, MAX_BOARDS, "event.bad_boards", max=MAX_BOARDS)
        sessions = _whole(body, "sessions", 1, 1, MAX_SESSIONS, "event.bad_sessions", max=MAX_SESSIONS)
        turn = _whole(body, "turn_seconds", TURN_SECONDS, MIN_TURN, MAX_TURN, "event.bad_timer", min=MIN_TURN,
                      max=MAX_TURN)
        grace = _whole(body, "grace_seconds", GRACE, 0, MAX_GRACE, "event.bad_grace", max=MAX_GRACE)
        raw_teams = body.get("teams")
        if (not isinstance(raw_teams, list) or len(raw_teams) != 2
                or any(not isinstance(t, Mapping) or set(t) != {"name", "players"}
                       or not isinstance(t["players"], list) or len(t["players"]) != 4 for t in raw_teams)):
            raise EventRefused(400, "event.bad_teams")
        teams: list[dict[str, Any]] = []
        seen: set[str] = set()
        for t in raw_teams:
            team_name = _text(t["name"], 40)
            if team_name is None:
                raise EventRefused(400, "event.bad_teams")
            if teams and teams[0]["name"] == team_name:
                raise EventRefused(400, "event.same_team_names", team=team_name)
            players = []
            for player in t["players"]:
                user, shown = self._player(player)
                if user in seen:
                    raise EventRefused(400, "event.player_twice", name=shown)
                seen.add(user)
                players.append([user, shown])
            teams.append({"name": team_name, "players": players})
        event_id = "e-" + secrets.token_hex(6)
        options = resolve_options(str(preset), {"match_end": f"deals:{boards}"})
        made = make_board_set(options, boards * sessions, event=event_id, preset=str(preset))
        row = {"id": event_id, "name": name, "created": _stamp(self.now()), "organiser": organiser.id,
               "preset": preset, "options": options.to_dict(), "boards": boards, "sessions": sessions,
               "turn_seconds": turn, "grace_seconds": grace, "teams": teams, "seed": made.seed,
               "definition": dict(made.definition), "commitment": made.commitment, "published": None}
        with self.store.engine.begin() as c:
            c.execute(insert(EVENTS).values(**row))
        self._boards[event_id] = tuple(made.boards)
        event = _event(row)
        self._write(event, organiser.id, "create", {"teams": [t["name"] for t in teams]})
        return event

    # ------------------------------------------------------------------ running it

    def _organiser(self, event: Event, user: User | None) -> User:
        if user is None or user.id != event.organiser:
            raise EventRefused(403, "event.organiser_only")
        return user

    def start(self, event_id: str, user: User | None) -> int:
        """The organiser starts the next session: its two tables are made, their players seated,
        and the first board dealt.  Returns the session's number."""
        event = self.get(event_id)
        self._organiser(event, user)
        played = self._played(event)
        begun = max((s for s, _ in played.matches), default=0)
        if begun >= event.sessions:
            raise EventRefused(409, "event.no_session_left", sessions=event.sessions)
        if begun and any(played.finished((begun, t)) < event.boards for t in (1, 2)):
            raise EventRefused(409, "event.session_running", session=begun)
        session = begun + 1
        options = Options.from_dict(event.options)
        now = self.now()
        for table in (1, 2):
            sitting = event.sitting(session, table)
            seats = tuple(event.occupant(sitting, s) for s in range(4))
            seating = Seating(
                host=None, seats=seats, levels={s: DEFAULT_LEVEL for s in SEATS}, visibility="private", invite=None,
                turn_seconds=event.turn_seconds, expose_seconds=event.turn_seconds, status="playing", version=0,
                auto=(False,) * 4, timeouts=(0,) * 4, deadline=None, dealt_to=tuple(u for u, _ in seats))
            match_id = "m-" + secrets.token_hex(6)
            self.store.create_match(match_id=match_id, preset=event.preset, options=options.to_dict(),
                                    speed=DEFAULT_SPEED, seed=secrets.randbits(64), seating=seating,
                                    challenge=event.id)
            with self.store.engine.begin() as c:
                c.execute(insert(EVENT_TABLES).values(event_id=event.id, session=session, table_no=table,
                                                      match_id=match_id, started=now, graced=False))
        self._write(event, event.organiser, "start", {"session": session})
        self._watch(event.id, float(event.grace_seconds))
        return session

    def _watch(self, event_id: str, delay: float) -> None:
        """Look for the absent of the event's started session after ``delay`` seconds of the event
        loop, and again every :data:`GRACE_RECHECK` until every table has been seen to."""
        if event_id in self._watching:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._watching.add(event_id)

        def due() -> None:
            async def look() -> None:
                self._watching.discard(event_id)
                try:
                    if await self.sweep(event_id):
                        self._watch(event_id, GRACE_RECHECK)
                except Exception:  # a defect: logged; the event's page asks again
                    log.exception("%s: looking for the absent failed", event_id)

            task = loop.create_task(look())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        loop.call_later(max(delay, 0.0), due)

    async def sweep(self, event_id: str) -> bool:
        """Put into 托管 every seat of the event's tables whose player has not come once the grace
        has passed since their session started (noted at the referee's desk).  True while a table
        is still within its grace."""
        event = self.get(event_id)
        with self.store.engine.connect() as c:
            rows = c.execute(select(EVENT_TABLES).where(EVENT_TABLES.c.event_id == event.id,
                                                        EVENT_TABLES.c.graced.is_(False))).all()
        waiting = False
        for r in rows:
            if self.now() < float(r.started) + event.grace_seconds:
                waiting = True
                continue
            table = self.tables.loaded(r.match_id)
            if table is None:
                owner = await self.tables.bus.owner(r.match_id)
                if owner is None and await self.tables.bus.claim(r.match_id):
                    owner = self.tables.node
                if owner != self.tables.node:
                    waiting = True  # another server runs it: looked at again later
                    continue
                table = self.tables.get(r.match_id)
            if table is None:
                continue
            here = table.connected()
            for seat in Seat:
                occupant = table.seats[seat]
                if occupant is None or occupant[0] in here or table.auto[seat] or table.holder(seat) is None:
                    continue
                table.set_auto(Person(occupant[0], occupant[1]), True)
                self._write(event, None, "stand_in", {"session": int(r.session), "table": int(r.table_no),
                                                      "seat": seat.name, "player": occupant[1]})
            with self.store.engine.begin() as c:
                c.execute(update(EVENT_TABLES).where(EVENT_TABLES.c.match_id == r.match_id).values(graced=True))
        return waiting

    # ------------------------------------------------------------------ the referee's desk

    def adjust(self, event_id: str, user: User | None, body: object) -> dict[str, Any]:
        """A penalty or a score correction by the organiser (the referee), with its reason."""
        event = self.get(event_id)
        self._organiser(event, user)
        assert user is not None
        if event.published is not None:
            raise EventRefused(409, "event.published")
        if not isinstance(body, Mapping):
            raise EventRefused(400, "event.bad_body")
        reason = _text(body.get("reason"), REASON_MAX)
        if reason is None:
            raise EventRefused(400, "event.bad_reason", max=REASON_MAX)
        kind = body.get("type")
        if kind == "penalty":
            if set(body) - {"type", "team", "points", "reason"}:
                raise EventRefused(400, "event.bad_penalty", max=MAX_PENALTY)
            team, points = body.get("team"), body.get("points")
            if team not in event.team_names:
                raise EventRefused(400, "event.unknown_team", team=str(team)[:40], teams=", ".join(event.team_names))
            if (isinstance(points, bool) or not isinstance(points, int | float) or points != points
                    or not -MAX_PENALTY <= points < 0):
                raise EventRefused(400, "event.bad_penalty", max=MAX_PENALTY)
            details: dict[str, Any] = {"team": team, "points": points}
        elif kind == "correction":
            if set(body) - {"type", "table", "board", "raw", "pig", "sheep", "reason"}:
                raise EventRefused(400, "event.bad_correction")
            table, board, raw = body.get("table"), body.get("board"), body.get("raw")
            count = event.boards * event.sessions
            if type(board) is not int or not 1 <= board <= count:
                raise EventRefused(400, "event.bad_board", boards=count)
            if table not in (1, 2) or type(table) is not int:
                raise EventRefused(400, "event.bad_table")
            if (not isinstance(raw, Mapping) or set(raw) != set(SEATS)
                    or any(type(raw[s]) is not int or not -1_000_000 <= raw[s] <= 1_000_000 for s in SEATS)):
                raise EventRefused(400, "event.bad_correction")
            details = {"table": table, "board": board, "raw": {s: raw[s] for s in SEATS}}
            for key in ("pig", "sheep"):
                if key in body:
                    if body[key] not in SEATS:
                        raise EventRefused(400, "event.bad_correction")
                    details[key] = body[key]
            session = (board - 1) // event.boards + 1
            played = self._played(event)
            first = event.sitting(session, 1).boards[0]
            if any(played.finished((session, t)) <= board - first for t in (1, 2)):
                raise EventRefused(409, "event.board_not_finished", board=board)
            try:
                self._score(event, played, [*self._adjustments(self._log(event)), _correction(details, reason)])
            except (EventError, GongzhuError, ValueError):
                raise EventRefused(400, "event.bad_correction") from None
        else:
            raise EventRefused(400, "event.bad_adjustment")
        self._write(event, user.id, str(kind), details, reason)
        return self.summary(event_id, user.id)

    def publish(self, event_id: str, user: User | None) -> dict[str, Any]:
        """The organiser publishes the results (once every board has been played at both tables)."""
        event = self.get(event_id)
        self._organiser(event, user)
        assert user is not None
        if event.published is None:
            if not self._over(event, self._played(event)):
                raise EventRefused(409, "event.not_over")
            with self.store.engine.begin() as c:
                c.execute(update(EVENTS).where(EVENTS.c.id == event.id).values(published=_stamp(self.now())))
            self._write(event, user.id, "publish", None)
        return self.summary(event_id, user.id)

    # ------------------------------------------------------------------ the results

    @staticmethod
    def _over(event: Event, played: _Played) -> bool:
        return all(played.finished((s, t)) >= event.boards for s in range(1, event.sessions + 1) for t in (1, 2))

    @staticmethod
    def _complete(event: Event, played: _Played) -> list[dict[str, Any]]:
        """The records of the boards both tables of their session have played, by board, then table."""
        out = []
        for s in range(1, event.sessions + 1):
            done = min(played.finished((s, 1)), played.finished((s, 2)))
            for k in range(done):
                out += [played.records[(s, t)][k] for t in (1, 2)]
        return out

    def _score(self, event: Event, played: _Played, adjustments: Sequence[Adjustment]) -> dict[str, Any]:
        results = [table_result_of(r) for r in self._complete(event, played)]
        return score_event("teams", event.team_names, results, adjustments, Options.from_dict(event.options))

    def records(self, event_id: str) -> list[dict[str, Any]]:
        """The records of the boards both tables have played (to anyone)."""
        event = self.get(event_id)
        return self._complete(event, self._played(event))

    def summary(self, event_id: str, user: str | None) -> dict[str, Any]:
        """The event as ``user`` may see it (``GET /api/events/{id}``)."""
        event = self.get(event_id)
        played = self._played(event)
        log_entries = self._log(event)
        adjustments = self._adjustments(log_entries)
        scored = self._score(event, played, adjustments)
        over = self._over(event, played)
        names = event.team_names
        boards_by_number = {b["board"]: b for m in scored["matches"] for b in m["boards"]}
        home = scored["matches"][0]["home"] if scored["matches"] else names[0]
        stand_ins = [e["details"] for e in log_entries if e["action"] == "stand_in"]
        tables = []
        board_rows = []
        mine: dict[int, int] = {}
        for (session, number), match_id in sorted(played.matches.items()):
            sitting = event.sitting(session, number)
            seats = {SEATS[s]: event.occupant(sitting, s) for s in range(4)}
            sits = user is not None and any(u == user for u, _ in seats.values())
            if sits:
                mine[session] = number
            entrants = event.seating(sitting)["entrants"]
            tables.append({"session": session, "table": number, "ns": entrants["N"], "ew": entrants["E"],
                           "seats": {s: name for s, (_, name) in seats.items()},
                           "played": played.finished((session, number)), "boards": len(sitting.boards),
                           "url": f"/table/{match_id}" if sits else None,
                           "stand_ins": [d["seat"] for d in stand_ins
                                         if d["session"] == session and d["table"] == number]})
        for session in sorted({s for s, _ in played.matches}):
            for k, board in enumerate(event.sitting(session, 1).boards):
                both = all(played.finished((session, t)) > k for t in (1, 2))
                row: dict[str, Any] = {"board": board, "session": session, "complete": both, "tables": [],
                                       "teams": None}
                scored_board = boards_by_number.get(board) if both else None
                for number in (1, 2):
                    done = played.finished((session, number)) > k
                    entrants = event.seating(event.sitting(session, number))["entrants"]
                    cell: dict[str, Any] = {"table": number, "ns": entrants["N"], "ew": entrants["E"], "played": done,
                                            "raw": None, "ns_result": None}
                    if scored_board is not None:
                        shown = next(t for t in scored_board["tables"] if t["table"] == number)
                        cell.update(raw=shown["raw"], ns_result=shown["ns_result"])
                    elif done and mine.get(session) == number:
                        record = played.records[(session, number)][k]
                        cell.update(raw=record["raw"], ns_result=partnership([record["raw"][s] for s in SEATS])[0])
                    row["tables"].append(cell)
                if scored_board is not None:
                    away = names[1] if home == names[0] else names[0]
                    row["teams"] = {home: scored_board["home"], away: scored_board["away"],
                                    "steps": {home: scored_board["home_steps"], away: -scored_board["home_steps"]}}
                board_rows.append(row)
        totals = {r["entrant"]: {"team": r["entrant"], "points": r["points"], "match_points": r["match_points"],
                                 "rank": r["rank"]}
                  for r in scored["rankings"][0]["rows"]}
        match = scored["matches"][0] if scored["matches"] else None
        penalties = {n: sum(float(a.points) for a in adjustments if isinstance(a, Penalty) and a.entrant == n)
                     for n in names}
        current = max((s for s, _ in played.matches), default=0)
        return {
            "id": event.id, "name": event.name, "url": f"/event/{event.id}", "created": event.created,
            "organiser": self._name(event.organiser), "preset": event.preset, "boards": event.boards,
            "sessions": event.sessions, "turn_seconds": event.turn_seconds, "grace_seconds": event.grace_seconds,
            "teams": [{"name": t["name"], "players": [p[1] for p in t["players"]]} for t in event.teams],
            "definition": event.definition, "commitment": event.commitment, "seed": event.seed if over else None,
            "status": "over" if over else ("playing" if current else "waiting"), "session": current,
            "published": event.published is not None, "provisional": event.published is None,
            "tables": tables, "board_results": board_rows,
            "totals": [totals[n] for n in names],
            "match": None if match is None else {
                "boards": len(match["boards"]),
                "points": {match["home"]: match["home_points"], match["away"]: match["away_points"]},
                "penalties": penalties,
                "totals": {match["home"]: match["home_total"], match["away"]: match["away_total"]},
                "winner": match["winner"]},
            "adjustments": scored["adjustments"], "log": log_entries,
            "records_url": f"/api/events/{event.id}/records.jsonl",
            "me": {"organiser": user == event.organiser,
                   "team": next((t["name"] for t in event.teams if any(p[0] == user for p in t["players"])), None),
                   "table": next((t["url"] for t in tables if t["url"] and t["session"] == current), None)},
        }

    def _name(self, user: str) -> str | None:
        found = self.store.people([user])
        return found[user][0] if user in found else None


def _correction(details: Mapping[str, Any], reason: str) -> Correction:
    raw = details["raw"]
    pig, sheep = details.get("pig"), details.get("sheep")
    return Correction(1, int(details["table"]), int(details["board"]), (raw["N"], raw["E"], raw["S"], raw["W"]),
                      reason, None if pig is None else SEATS.index(pig), None if sheep is None else SEATS.index(sheep))


# ---------------------------------------------------------------------- routes


def routes(store: Store, tables: Tables, identity: Identity, page: Callable[[Request, Path, str], Response],
           static: Path, now: Callable[[], float]) -> list[Route]:
    """The event routes (the module docstring); the events' tables are opened by ``tables``,
    whose tables ask the events for their boards from now on."""
    events = Events(store, tables, now)
    tables.events = events

    def viewer(request: Request) -> User | None:
        return identity.user_for(request)

    async def one_page(request: Request) -> Response:
        return page(request, static / "event.html", "event")

    async def body_of(request: Request) -> Any:
        return await json_body(request)

    def refused(e: EventRefused) -> Response:
        return refused_answer(e.status, e.text)

    async def create(request: Request) -> Response:
        try:
            body = await body_of(request)
        except BodyError as e:
            return plain_error(e.status, str(e))
        user = viewer(request)
        if user is None:
            return refused(EventRefused(403, "event.accounts_only"))
        try:
            made = events.create(user, body)
        except EventRefused as e:
            return refused(e)
        return personal_answer({"id": made.id, "url": f"/event/{made.id}"}, status=201)

    async def summary(request: Request) -> Response:
        event_id = request.path_params["event_id"]
        try:
            await events.sweep(events.get(event_id).id)
            user = viewer(request)
            return personal_answer(events.summary(event_id, user.id if user is not None else None))
        except EventRefused as e:
            return refused(e)

    async def start(request: Request) -> Response:
        try:
            await body_of(request)
        except BodyError as e:
            return plain_error(e.status, str(e))
        try:
            user = viewer(request)
            events.start(request.path_params["event_id"], user)
            return personal_answer(events.summary(request.path_params["event_id"], user.id if user else None))
        except EventRefused as e:
            return refused(e)

    async def adjust(request: Request) -> Response:
        try:
            body = await body_of(request)
        except BodyError as e:
            return plain_error(e.status, str(e))
        try:
            return personal_answer(events.adjust(request.path_params["event_id"], viewer(request), body))
        except EventRefused as e:
            return refused(e)

    async def publish(request: Request) -> Response:
        try:
            await body_of(request)
        except BodyError as e:
            return plain_error(e.status, str(e))
        try:
            return personal_answer(events.publish(request.path_params["event_id"], viewer(request)))
        except EventRefused as e:
            return refused(e)

    async def records(request: Request) -> Response:
        event_id = request.path_params["event_id"]
        try:
            lines = events.records(event_id)
        except EventRefused as e:
            return refused(e)
        text = "".join(dump_record(r) + "\n" for r in lines)
        return Response(text, media_type="application/x-ndjson; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="gongzhu-{event_id}.jsonl"',
                                 "Cache-Control": "no-store"})

    return [
        Route("/event/{event_id}", one_page),
        Route("/api/events", create, methods=["POST"]),
        Route("/api/events/{event_id}", summary),
        Route("/api/events/{event_id}/start", start, methods=["POST"]),
        Route("/api/events/{event_id}/adjustments", adjust, methods=["POST"]),
        Route("/api/events/{event_id}/publish", publish, methods=["POST"]),
        Route("/api/events/{event_id}/records.jsonl", records),
    ]
