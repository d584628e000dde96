"""Live events the server runs for people (docs/tournaments.md, Events on the server): a team
match (计副制) of two teams of four, a Swiss of more teams, pairs on a Mitchell or a Howell
movement, individuals on the individual movement — on the store's ``events``, ``event_tables`` and
``event_log`` — and their routes.

- An organiser (any account) makes an event: its name, form, preset, boards a round (a team
  match's: a session), rounds, sessions (team forms), turn timer, grace, an optional start time and
  the entrants (teams of four, pairs of two, single players: account names).  The movement is
  checked then (:mod:`gongzhu.duplicate.movements`), and the board set made and committed
  (:func:`gongzhu.rules.boards.make_board_set`): the definition and the commitment are published,
  the seed kept until every board has been played at every table.
- An event is played in **stages**: each round's sessions in order (a team match's sessions; one
  stage a round in the other forms).  A stage's tables are made together, seated as the movement
  says (a Swiss round is paired when its first session begins, by the standings so far,
  :func:`gongzhu.duplicate.events.swiss_pairing`, and the pairing logged), each a private match
  whose deals are the stage's boards in order, with a turn timer (the next board is dealt by
  itself).  Without a start time the organiser begins each stage; with one the first stage begins
  at that time and each next one as soon as every table of the one before has finished.  One
  server alone begins a stage (a guarded update of ``events.stage``), whichever server saw it due,
  and stores its tables, their matches and its pairing in the same transaction.
- A match's ``challenge`` column names its event: the routes of the matches open its records to
  its own four players alone (:meth:`~gongzhu.server.challenges.Challenges.may_read`; everyone
  else reads them here), and the table (:class:`~gongzhu.server.table.Table`, through
  :meth:`Events.table_boards`) lets in its four players only — anyone else, spectators included,
  is refused with ``event.table_closed`` while the event runs.  Whoever has not come to their
  table :attr:`Event.grace_seconds` after its stage began (the events' clock) is played for by a
  computer (托管) until they take their seat back; who has come is kept with the table
  (``present``), so a restart forgets nobody, and each table's grace is seen to by the server that
  runs it (:meth:`Events.sweep`).
- A board's results show to a table's players once their table has played it; every other
  table's result, the rankings and the records once every table that plays the board has — to
  everyone else only then.
- The results are computed from the stored records (:func:`gongzhu.duplicate.events.table_result_of`,
  :func:`~gongzhu.duplicate.events.score_event`) with the referee's penalties (罚分) and score
  corrections in the order entered; the organiser publishes them (until then: provisional).
  Each server keeps the scores it last worked out for an event with what they came from (the
  entrants, every table's finished boards, the adjustments), read fresh on each look: a read
  that finds none of it changed gives them again.

Routes (docs/web-protocol.md, Events): ``GET /event/{id}`` (the page), ``GET /api/events`` (the
events of the person asking), ``POST /api/events``, ``GET /api/events/{id}``,
``POST /api/events/{id}/start``, ``POST /api/events/{id}/adjustments``,
``POST /api/events/{id}/publish``, ``GET /api/events/{id}/records.jsonl``,
``GET /api/events/{id}/rankings.csv``.

Imports the store, the table's protocol, the registry, the identity, the bodies, the wire, the
rules core, :mod:`gongzhu.duplicate`, :mod:`gongzhu.jsontext` and the message catalog.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import threading
import unicodedata
from collections.abc import Awaitable, Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.engine import Connection
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gongzhu.duplicate.events import (
    MOST_PENALTY,
    Adjustment,
    Correction,
    EntrantSpec,
    EventError,
    EventSpec,
    Penalty,
    PlayerSpec,
    TableResult,
    movement_of,
    partnership,
    penalty_fits,
    rankings_csv,
    score_event,
    swiss_pairing,
    swiss_sittings,
    table_result_of,
)
from gongzhu.duplicate.movements import SEATS, Movement, Sitting, max_rounds
from gongzhu.messages import Text
from gongzhu.records.format import dump_record
from gongzhu.records.replay import replay_states
from gongzhu.rules.boards import MAX_BOARDS as SET_MAX
from gongzhu.rules.boards import Board, make_board_set, verify_board_set
from gongzhu.rules.cards import Seat
from gongzhu.rules.claims import Claim, ClaimKind
from gongzhu.rules.deal import Phase
from gongzhu.rules.errors import GongzhuError
from gongzhu.rules.options import Options, resolve_options
from gongzhu.search.claims import check_claim, finish_by_claim
from gongzhu.server.bodies import DEFAULT_LEVEL, DEFAULT_SPEED, BodyError, json_body
from gongzhu.server.challenges import ParComputer
from gongzhu.server.identity import Identity, User, login_key
from gongzhu.server.names import MOST_MARKS, SCRIPTS, name_key, name_skeleton, reserved, stacked_marks
from gongzhu.server.registry import Tables
from gongzhu.server.rooms import Person
from gongzhu.server.store import (
    EVENT_ID,
    EVENT_LOG,
    EVENT_TABLES,
    EVENTS,
    MATCHES,
    USERS,
    Seating,
    Store,
    friends_among,
)
from gongzhu.server.wire import personal_answer, plain_error, refused_answer

__all__ = ["BOARDS", "FORMS", "GRACE", "MAX_BOARDS", "MAX_SESSIONS", "PRESETS", "TURN_SECONDS", "Event",
           "EventRefused", "Events", "routes"]

log = logging.getLogger("gongzhu.server")

#: The forms of an event on the server, with the players an entrant has and the most entrants.
FORMS = ("teams", "mitchell", "howell", "individual")
PLAYERS = {"teams": 4, "mitchell": 2, "howell": 2, "individual": 1}
MOST_ENTRANTS = {"teams": 16, "mitchell": 64, "howell": 32, "individual": 20}
#: The presets an event is played under: partnerships (teams, pairs) or each for themselves.
PRESETS = {"teams": ("partners", "tournament"), "mitchell": ("partners", "tournament"),
           "howell": ("partners", "tournament"), "individual": ("online", "tournament")}
#: Boards a round (a team match's: a session) by default and at most; sessions a round at most.
BOARDS, MAX_BOARDS, MAX_SESSIONS = 16, 16, 4
#: The turn timer by default, and its bounds (seconds).
TURN_SECONDS, MIN_TURN, MAX_TURN = 30, 5, 300
#: How long after a stage begins a computer takes the seat of whoever is absent, by default and
#: at most (seconds).
GRACE, MAX_GRACE = 300, 3600
#: How far ahead a start time may be set (seconds).
MAX_AHEAD = 30 * 24 * 3600
#: The longest reason the referee may give, and the largest penalty (points).
REASON_MAX, MAX_PENALTY = 500, MOST_PENALTY
#: How often a server looks at the events it watches: the absent, a stage due (seconds of the
#: event loop).
GRACE_RECHECK = 5.0

#: The most event tables whose records a server keeps parsed.
_MOST_READ = 4096
_BODY_KEYS = ("name", "form", "preset", "boards", "rounds", "sessions", "turn_seconds", "grace_seconds",
              "starts_at", "entry", "entrants", "referees")
#: The most referees an organiser names.
MAX_REFEREES = 8
#: How entrants come in: the organiser lists them; any account enters; those invited enter.
ENTRIES = ("list", "open", "invite")


class EventRefused(Exception):
    """A request about an event refused: the HTTP status and the catalog message."""

    def __init__(self, status: int, key: str, **params: Any) -> None:
        self.status = status
        self.text = Text.of(key, **params)
        super().__init__(self.text.render("en"))


@dataclass(frozen=True, slots=True)
class Event:
    """An event as stored: ``entrants`` are ``{"name", "players": [[user id, name], …]}`` in
    entrant order (a team's four: its first pair, then its second; a pair's two: N or E first);
    ``stage`` counts the stages begun; ``seed`` is secret until every board has been played."""

    id: str
    name: str
    created: str
    organiser: str
    form: str
    preset: str
    options: dict[str, Any]
    boards: int
    rounds: int
    sessions: int
    turn_seconds: int
    grace_seconds: int
    starts_at: float | None
    stage: int
    entrants: list[dict[str, Any]]
    seed: str
    definition: dict[str, Any]
    commitment: str
    published: str | None
    entry: str = "list"
    invite: str | None = None
    referees: list[list[str]] = field(default_factory=list)
    par: list[float | None] | None = None

    @property
    def names(self) -> list[str]:
        return [str(e["name"]) for e in self.entrants]

    @property
    def swiss(self) -> bool:
        """A Swiss of teams: its rounds are paired one by one."""
        return self.form == "teams" and len(self.entrants) > 2

    @property
    def per_round(self) -> int:
        """The stages of a round: a team form's sessions, else one."""
        return self.sessions if self.form == "teams" else 1

    @property
    def stages(self) -> int:
        return self.rounds * self.per_round

    def round_of(self, stage: int) -> tuple[int, int]:
        """The (round, session) of ``stage``."""
        return (stage - 1) // self.per_round + 1, (stage - 1) % self.per_round + 1

    def spec(self) -> EventSpec:
        """The event as :mod:`gongzhu.duplicate.events` knows events (its movement, its scoring)."""
        return EventSpec(
            event=self.id, form=self.form, preset=self.preset, options=Options.from_dict(self.options),
            seed=self.id, boards_per_round=self.boards, rounds=self.rounds, sessions=self.sessions,
            entrants=tuple(EntrantSpec(i + 1, str(e["name"]),
                                       tuple(PlayerSpec(str(p[1]), DEFAULT_LEVEL) for p in e["players"]))
                           for i, e in enumerate(self.entrants)))

    def occupant(self, sitting: Sitting, seat: int) -> tuple[str, str]:
        """The (user id, name) in ``seat`` of ``sitting``."""
        place = sitting.seats[seat]
        user, name = self.entrants[place.entrant - 1]["players"][place.member]
        return str(user), str(name)

    def seating(self, sitting: Sitting) -> dict[str, Any]:
        """The ``seating`` a record of ``sitting`` holds (as a club night's, docs/tournaments.md)."""
        names = self.names
        return {"form": self.form, "round": sitting.round, "session": sitting.session, "table": sitting.table,
                "match": sitting.match,
                "entrants": {SEATS[i]: names[p.entrant - 1] for i, p in enumerate(sitting.seats)}}


def _event(row: Mapping[str, Any]) -> Event:
    return Event(
        id=row["id"], name=row["name"], created=row["created"], organiser=row["organiser"], form=row["form"],
        preset=row["preset"], options=dict(row["options"]), boards=int(row["boards"]), rounds=int(row["rounds"]),
        sessions=int(row["sessions"]), turn_seconds=int(row["turn_seconds"]),
        grace_seconds=int(row["grace_seconds"]),
        starts_at=None if row["starts_at"] is None else float(row["starts_at"]), stage=int(row["stage"]),
        entrants=list(row["entrants"]), seed=row["seed"], definition=dict(row["definition"]),
        commitment=row["commitment"], published=row["published"], entry=row["entry"], invite=row["invite"],
        referees=[list(r) for r in row["referees"] or []],
        par=None if row["par"] is None else [None if v is None else float(v) for v in row["par"]],
    )


def _stamp(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).isoformat(timespec="seconds")


def _people(event: Event) -> set[str]:
    """The event's own people: its players, organiser and referees (their user ids)."""
    return ({str(p[0]) for e in event.entrants for p in e["players"]} | {event.organiser}
            | {str(r[0]) for r in event.referees})


def _whole(body: Mapping[str, Any], key: str, default: int, low: int, high: int, refusal: str,
           **params: Any) -> int:
    value = body.get(key, default)
    if type(value) is not int or not low <= value <= high:
        raise EventRefused(400, refusal, **params)
    return value


def _text(value: object, limit: int) -> str | None:
    """``value`` as a name or a reason: each run of spaces one space, 1 to ``limit`` characters
    once trimmed, no control, format (invisible, bidi) or unassigned characters (None otherwise):
    one name cannot look like another by what it hides.  (Written as typed: a Chinese text keeps
    its full-width punctuation.)"""
    if not isinstance(value, str):
        return None
    if any(unicodedata.category(ch).startswith("C") for ch in value):  # a line break is one too
        return None
    if stacked_marks(value) > MOST_MARKS:  # marks stacked so high that they draw over their neighbours
        return None
    text = " ".join(value.split())
    return text if 1 <= len(text) <= limit else None


def _same_name(one: str, other: str) -> bool:
    """Whether two entrants' names are one, whatever their letters' case or width (NFKC)."""
    def key(name: str) -> str:
        return unicodedata.normalize("NFKC", name).casefold()

    return key(one) == key(other)


def _moment(value: object) -> float | None:
    """An ISO 8601 time with its offset (``2026-12-24T19:30:00+08:00``) in seconds since the
    epoch; None if it is not one."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return None
    return None if when.tzinfo is None else when.timestamp()


@dataclass(frozen=True, slots=True)
class _Table:
    """A table of an event as stored: its stage and number, match, when its stage began, whether
    its absent were seen to, who has come, and the boards its match has finished."""

    stage: int
    table: int
    match_id: str
    started: float
    graced: bool
    present: frozenset[str]
    finished: int


@dataclass(frozen=True, slots=True)
class _Played:
    """Where an event stands: its tables by (stage, table), the sittings of every stage begun,
    and (read on demand) each table's records, parsed."""

    tables: dict[tuple[int, int], _Table]
    sittings: dict[int, tuple[Sitting, ...]]

    def finished(self, key: tuple[int, int]) -> int:
        found = self.tables.get(key)
        return found.finished if found is not None else 0

    def stage_over(self, stage: int) -> bool:
        """Every table of a begun ``stage`` has played all its boards."""
        return stage in self.sittings and all(self.finished((stage, s.table)) >= len(s.boards)
                                              for s in self.sittings[stage])

    def where_played(self) -> dict[int, list[tuple[int, Sitting, int]]]:
        """For each board of the stages begun: (stage, sitting, index of the board there)."""
        out: dict[int, list[tuple[int, Sitting, int]]] = {}
        for stage, sittings in self.sittings.items():
            for sitting in sittings:
                for k, board in enumerate(sitting.boards):
                    out.setdefault(board, []).append((stage, sitting, k))
        return out


class Events:
    """The live events of a server (see the module docstring).  ``now``: the events' clock
    (seconds since the epoch), which times the grace and the start."""

    def __init__(self, store: Store, tables: Tables, now: Callable[[], float], par: ParComputer | None = None) -> None:
        self.store = store
        self.tables = tables
        self.now = now
        #: How each board's par is computed, in a thread of its own, for an event whose boards
        #: are scored by partnership (None: not computed).
        self.par = par
        self._threads: list[threading.Thread] = []
        self._boards: dict[str, tuple[Board, ...]] = {}
        self._pairings: dict[tuple[str, int], list[tuple[int, int]]] = {}
        self._movements: dict[tuple[str, int, int], Movement] = {}
        #: Each event table's records read so far (a record never changes once written).
        self._read: dict[str, list[dict[str, Any]]] = {}
        #: Each record's table result, by (match, deal index): worked out once.
        self._results: dict[tuple[str, int], TableResult] = {}
        #: Each event's scores as last worked out here, with what they were worked out from: the
        #: entrants, every table's finished boards and the adjustments (read fresh each time, so
        #: a board finished on another server, or an adjustment made there, is never missed).
        self._scored: dict[str, tuple[Hashable, dict[str, Any]]] = {}
        self._watching: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        #: The claims whose ruling is being searched here: (event, entry in its log).
        self._ruling: set[tuple[str, int]] = set()

    # ------------------------------------------------------------------ reading

    def get(self, event_id: str) -> Event:
        row = None
        if EVENT_ID.fullmatch(event_id):
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

    def _pairing(self, event: Event, round_: int) -> list[tuple[int, int]]:
        """The matches of a begun round of a Swiss, as logged when it was paired."""
        key = (event.id, round_)
        if key not in self._pairings:
            with self.store.engine.connect() as c:
                rows = c.execute(select(EVENT_LOG.c.details).where(EVENT_LOG.c.event_id == event.id,
                                                                   EVENT_LOG.c.action == "pairing")).all()
            for (details,) in rows:
                self._pairings[(event.id, int(details["round"]))] = [(int(h), int(a)) for h, a in details["matches"]]
        return self._pairings[key]

    def sittings(self, event: Event, stage: int,
                 pairing: Sequence[tuple[int, int]] | None = None) -> tuple[Sitting, ...]:
        """The tables of a begun ``stage`` (of any stage, but a Swiss round not paired yet, unless
        its ``pairing`` is given)."""
        round_, session = event.round_of(stage)
        if event.swiss:
            if pairing is None:
                pairing = self._pairing(event, round_)
            made = swiss_sittings(event.spec(), round_, pairing)
            return tuple(s for s in made if s.session == session)
        return self._movement(event).in_round(round_, session)

    def _movement(self, event: Event) -> Movement:
        """The movement of an event seated in advance (every form but the Swiss)."""
        key = (event.id, len(event.entrants), event.rounds)
        made = self._movements.get(key)
        if made is None:
            made = self._movements[key] = movement_of(event.spec())
        return made

    def table_boards(self, match_id: str) -> tuple[tuple[Board, ...], dict[str, Any], tuple[str, ...]] | None:
        """The boards an event's match plays, the ``seating`` its records hold and the player the
        movement seats in each seat (user ids, N E S W); None for a match of no event
        (:class:`~gongzhu.server.table.EventTables`)."""
        with self.store.engine.connect() as c:
            row = c.execute(select(EVENT_TABLES).where(EVENT_TABLES.c.match_id == match_id)).first()
        if row is None:
            return None
        event = self.get(row.event_id)
        self._watch(event.id, GRACE_RECHECK)  # a table opened here (after a restart, or on another
        #                                       server): its grace and the stages are watched here too
        sitting = next(s for s in self.sittings(event, int(row.stage)) if s.table == int(row.table_no))
        boards = self.boards_of(event)
        return (tuple(boards[n - 1] for n in sitting.boards), event.seating(sitting),
                tuple(event.occupant(sitting, i)[0] for i in range(4)))

    def arrived(self, match_id: str, user: str) -> None:
        """``user`` came to an event's table: kept, so that the grace passes them by even after
        a restart (:class:`~gongzhu.server.table.EventTables`)."""
        with self.store.engine.begin() as c:
            row = c.execute(select(EVENT_TABLES.c.present).where(EVENT_TABLES.c.match_id == match_id)).first()
            if row is None or user in (row.present or []):
                return
            c.execute(update(EVENT_TABLES).where(EVENT_TABLES.c.match_id == match_id)
                      .values(present=sorted({*(row.present or []), user})))

    def board_finished(self, match_id: str, deal_index: int, auto: Mapping[str, str]) -> None:
        """A table of an event finished a board: a seat a computer finished it for (托管: a player
        who left, or missed their turns) is noted at the referee's desk as a stand-in, with the
        board, unless it was noted at that table in this stage already (as absent, or on an
        earlier board); the next stage may be due at once
        (:class:`~gongzhu.server.table.EventTables`)."""
        with self.store.engine.connect() as c:
            row = c.execute(select(EVENT_TABLES).where(EVENT_TABLES.c.match_id == match_id)).first()
        if row is None:
            return
        if auto:
            event = self.get(row.event_id)
            sitting = next(s for s in self.sittings(event, int(row.stage)) if s.table == int(row.table_no))
            noted = {e["details"]["seat"] for e in self._log(event) if e["action"] == "stand_in"
                     and e["details"].get("stage") == int(row.stage) and e["details"]["table"] == int(row.table_no)}
            for seat in SEATS:
                if seat in auto and seat not in noted:
                    self._write(event, None, "stand_in", {
                        "stage": int(row.stage), "round": sitting.round, "session": sitting.session,
                        "table": int(row.table_no), "seat": seat, "player": auto[seat],
                        "board": deal_index + 1})  # a board's deal is numbered as the board
        self._soon(str(row.event_id))

    def claim_contested(self, match_id: str, deal_index: int, said: dict[str, Any], why: dict[str, Any]) -> None:
        """A claim at an event's table was contested or left unanswered and play went on: noted
        for the referee, who rules on it once every table has played the board (a board's deal
        has ``deal_index`` its number − 1; :class:`~gongzhu.server.table.EventTables`)."""
        with self.store.engine.connect() as c:
            row = c.execute(select(EVENT_TABLES).where(EVENT_TABLES.c.match_id == match_id)).first()
        if row is None:
            return
        event = self.get(row.event_id)
        sitting = next(s for s in self.sittings(event, int(row.stage)) if s.table == int(row.table_no))
        self._write(event, None, "claim", {
            "stage": int(row.stage), "round": sitting.round, "table": int(row.table_no),
            "board": deal_index + 1, "seat": said["seat"], "kind": said["kind"], "value": said["value"],
            "from_play": said["from_play"], "from_trick": said["from_trick"], **why})

    def _played(self, event: Event) -> _Played:
        with self.store.engine.connect() as c:
            rows = c.execute(select(EVENT_TABLES, MATCHES.c.deals)
                             .join(MATCHES, MATCHES.c.id == EVENT_TABLES.c.match_id)
                             .where(EVENT_TABLES.c.event_id == event.id)).all()
        tables = {(int(r.stage), int(r.table_no)): _Table(int(r.stage), int(r.table_no), str(r.match_id),
                                                          float(r.started), bool(r.graced),
                                                          frozenset(r.present or ()), int(r.deals))
                  for r in rows}
        sittings = {stage: self.sittings(event, stage) for stage in sorted({s for s, _ in tables})}
        return _Played(tables, sittings)

    def _records(self, played: _Played) -> dict[tuple[int, int], list[dict[str, Any]]]:
        out = {}
        for key, t in played.tables.items():
            known = self._read.get(t.match_id)
            if known is None or len(known) < t.finished:
                if len(self._read) >= _MOST_READ:
                    self._read.clear()  # bounded: read again from the store when asked
                known = self._read[t.match_id] = [json.loads(line) for line in self.store.records(t.match_id)]
            out[key] = known[:t.finished]
        return out

    def _result(self, played: _Played, key: tuple[int, int], k: int, record: Mapping[str, Any]) -> TableResult:
        """The table result of ``record``, board ``k`` of table ``key``, worked out once."""
        at = (played.tables[key].match_id, k)
        found = self._results.get(at)
        if found is None:
            if len(self._results) >= _MOST_READ * 16:
                self._results.clear()  # bounded: worked out again when asked
            found = self._results[at] = table_result_of(record)
        return found

    def _log(self, event: Event) -> list[dict[str, Any]]:
        with self.store.engine.connect() as c:
            rows = c.execute(select(EVENT_LOG, USERS.c.name).outerjoin(USERS, USERS.c.id == EVENT_LOG.c.actor)
                             .where(EVENT_LOG.c.event_id == event.id).order_by(EVENT_LOG.c.id)).all()
        return [{"n": i + 1, "at": r.at, "by": r.name, "action": r.action, "details": r.details, "reason": r.reason}
                for i, r in enumerate(rows)]

    @staticmethod
    def _adjustments(log_entries: Sequence[Mapping[str, Any]]) -> list[Adjustment]:
        out: list[Adjustment] = []
        for entry in log_entries:
            d = entry["details"]
            if entry["action"] == "penalty":
                out.append(Penalty(d["entrant"], float(d["points"]), entry["reason"], int(d.get("round", 1))))
            elif entry["action"] == "correction":
                out.append(_correction(d, entry["reason"]))
        return out

    def _write(self, event: Event, actor: str | None, action: str, details: Mapping[str, Any] | None,
               reason: str | None = None, *, connection: Connection | None = None) -> None:
        """Add an entry to the event's log (in ``connection``'s transaction when given)."""
        entry = insert(EVENT_LOG).values(event_id=event.id, at=_stamp(self.now()), actor=actor, action=action,
                                         details=dict(details) if details is not None else None, reason=reason)
        if connection is not None:
            connection.execute(entry)
            return
        with self.store.engine.begin() as c:
            c.execute(entry)

    # ------------------------------------------------------------------ making one

    def _player(self, name: object) -> tuple[str, str]:
        text = _text(name, 40)
        if text is None:
            raise EventRefused(400, "event.bad_entrants")
        with self.store.engine.connect() as c:
            row = c.execute(select(USERS.c.id, USERS.c.name, USERS.c.guest, USERS.c.password_hash, USERS.c.deleted)
                            .where(USERS.c.name_key == login_key(text))).first()
        if row is None or row.deleted is not None:
            raise EventRefused(404, "event.unknown_player", name=text)
        if row.guest or row.password_hash is None:
            raise EventRefused(409, "event.guest_player", name=row.name)
        return str(row.id), str(row.name)

    def _entrant(self, form: str, raw: object, taken: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """One entrant ``{"name", "players"}`` of a body, beside the entrants ``taken`` (a pair's or
        a player's name may be left out: their players' names make it)."""
        size = PLAYERS[form]
        if (not isinstance(raw, Mapping) or not set(raw) <= {"name", "players"}
                or not isinstance(raw.get("players"), list) or len(raw["players"]) != size):
            raise EventRefused(400, "event.bad_entrants_for", form=form, players=size, most=MOST_ENTRANTS[form])
        seen = {p[0] for e in taken for p in e["players"]}
        players = []
        for player in raw["players"]:
            user, shown = self._player(player)
            if user in seen:
                raise EventRefused(400, "event.player_twice", name=shown)
            seen.add(user)
            players.append([user, shown])
        if "name" in raw or form == "teams":
            name = _text(raw.get("name"), 40)
            if name is None:
                raise EventRefused(400, "event.bad_entrant_name")
            self._no_pretence(name, {p[0] for p in players})
        else:
            name = " & ".join(p[1] for p in players)
        if any(_same_name(o["name"], name) for o in taken):
            raise EventRefused(400, "event.same_entrant_names", name=name)
        return {"name": name, "players": players}

    def _no_pretence(self, name: str, players: Collection[str] | None = None) -> None:
        """Refused (400) when ``name`` — an event's, or (with its ``players``) an entrant's own —
        would pass for someone it is not: the game's staff, a guest, a computer player or a
        deleted player (``event.name_kept``, as an account's name would be: letters of scripts
        that do not go together are let be, an event's name being no one's), or an account that
        is not among the entrant's players (``event.entrant_name_taken``: else an entrant could
        take another person's name, and keep them from entering under it)."""
        why = reserved(name)
        if why is not None and why != SCRIPTS:
            raise EventRefused(400, "event.name_kept", name=name)
        if players is None:
            return
        with self.store.engine.connect() as c:
            owners = set(c.scalars(select(USERS.c.id).where(
                (USERS.c.name_key == name_key(name)) | (USERS.c.name_skeleton == name_skeleton(name)))))
        if owners - set(players):
            raise EventRefused(400, "event.entrant_name_taken", name=name)

    def _apart(self, entrants: Sequence[Mapping[str, Any]], new: int = 0) -> None:
        """Refused (409) when a player of one of ``entrants[new:]`` (all of them, by default)
        shares a browser with a player of another entrant (one was signed in where the other was):
        one person's two accounts, or a household's, would play the same boards at two tables, each
        knowing the other's cards.  Links among the entrants before ``new`` are not looked at: the
        desk hears of those (:meth:`_note_links`), and one entering is told nothing of them, nor
        kept out by them.  Networks are not looked at: a club night's players share one."""
        if any(max(group) >= new for group in self._linked(entrants)):
            raise EventRefused(409, "event.linked_entrants")

    def _linked(self, entrants: Sequence[Mapping[str, Any]]) -> list[set[int]]:
        """The groups (of two or more) of ``entrants``, by index, whose players were signed in
        from one browser, one to another (networks aside)."""
        owner = {str(p[0]): i for i, e in enumerate(entrants) for p in e["players"]}
        groups = ({owner[u] for u in people} for people in self.store.people_of(sorted(owner), networks=False))
        return [group for group in groups if len(group) > 1]

    def _entrants(self, form: str, raw: object, least: int) -> list[dict[str, Any]]:
        """The entrants of a ``POST /api/events`` body: ``least`` to the form's most."""
        if not isinstance(raw, list) or not least <= len(raw) <= MOST_ENTRANTS[form]:
            raise EventRefused(400, "event.bad_entrants_for", form=form, players=PLAYERS[form],
                               most=MOST_ENTRANTS[form])
        out: list[dict[str, Any]] = []
        for e in raw:
            out.append(self._entrant(form, e, out))
        return out

    @staticmethod
    def _fit(event: Event, asked: int | None) -> Event:
        """``event`` with its rounds settled for its entrants (``asked``, or the movement's most),
        its movement checked (refused if it cannot seat them, or would deal too many boards)."""
        n = len(event.entrants)
        if n < 2:  # no movement seats one entrant (an open event begun with one, say)
            raise EventRefused(400, "event.bad_movement", form=event.form, entrants=n)
        if event.form == "teams":
            most = n - 1 + n % 2 if n > 2 else 1
        else:
            try:
                most = max_rounds(event.form, n)
            except ValueError:
                most = 1
        rounds = asked if asked is not None else most
        if not 1 <= rounds <= most:
            raise EventRefused(400, "event.bad_rounds", max=most)
        fitted = replace(event, rounds=rounds)
        spec = fitted.spec()
        try:
            if not fitted.swiss:
                movement_of(spec)
        except EventError:
            raise EventRefused(400, "event.bad_movement", form=event.form, entrants=n) from None
        if spec.board_count > SET_MAX:
            raise EventRefused(400, "event.too_many_boards", boards=spec.board_count, max=SET_MAX)
        return fitted

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
        self._no_pretence(name)
        form = body.get("form", "teams")
        if form not in FORMS:
            raise EventRefused(400, "event.bad_form", form=str(form)[:40], forms=", ".join(FORMS))
        preset = body.get("preset", PRESETS[form][0])
        if preset not in PRESETS[form]:
            raise EventRefused(400, "event.bad_preset", preset=str(preset)[:40], presets=", ".join(PRESETS[form]))
        boards = _whole(body, "boards", BOARDS if form == "teams" else 2, 1, MAX_BOARDS, "event.bad_boards",
                        max=MAX_BOARDS)
        teams = form == "teams"
        if not teams and "sessions" in body:
            raise EventRefused(400, "event.sessions_teams_only")
        sessions = _whole(body, "sessions", 1, 1, MAX_SESSIONS, "event.bad_sessions", max=MAX_SESSIONS)
        turn = _whole(body, "turn_seconds", TURN_SECONDS, MIN_TURN, MAX_TURN, "event.bad_timer", min=MIN_TURN,
                      max=MAX_TURN)
        grace = _whole(body, "grace_seconds", GRACE, 0, MAX_GRACE, "event.bad_grace", max=MAX_GRACE)
        starts_at = None
        if body.get("starts_at") is not None:
            starts_at = _moment(body["starts_at"])
            if starts_at is None or not self.now() < starts_at <= self.now() + MAX_AHEAD:
                raise EventRefused(400, "event.bad_start", days=MAX_AHEAD // 86400)
        entry = body.get("entry", "list")
        if entry not in ENTRIES:
            raise EventRefused(400, "event.bad_entry", entry=str(entry)[:40], entries=", ".join(ENTRIES))
        listed = entry == "list"
        entrants = self._entrants(str(form), body.get("entrants", None if listed else []), 2 if listed else 0)
        raw_referees = body.get("referees", [])
        if not isinstance(raw_referees, list) or len(raw_referees) > MAX_REFEREES:
            raise EventRefused(400, "event.bad_referees", most=MAX_REFEREES)
        referees: list[list[str]] = []
        playing = {p[0] for e in entrants for p in e["players"]}
        if organiser.id in playing:  # the desk judges the tables: nobody at it plays
            raise EventRefused(400, "event.organiser_plays")
        for named in raw_referees:
            user, shown = self._player(named)
            if user in playing:
                raise EventRefused(400, "event.referee_plays", name=shown)
            if user != organiser.id and all(r[0] != user for r in referees):
                referees.append([user, shown])
        self._friends_named(organiser, [p for e in entrants for p in e["players"]] + referees)
        self._apart(entrants)  # (after: it tells of browsers shared, which only friends may learn)
        asked = body.get("rounds")
        if asked is not None and (type(asked) is not int or not 1 <= asked <= 64):
            raise EventRefused(400, "event.bad_rounds", max=64)
        event_id = "e-" + secrets.token_hex(6)
        options = resolve_options(str(preset), {"match_end": f"deals:{boards}"})
        draft = Event(id=event_id, name=name, created=_stamp(self.now()), organiser=organiser.id, form=str(form),
                      preset=str(preset), options=options.to_dict(), boards=boards, rounds=asked or 0,
                      sessions=sessions, turn_seconds=turn, grace_seconds=grace, starts_at=starts_at, stage=0,
                      entrants=entrants, seed="", definition={}, commitment="", published=None, entry=str(entry),
                      invite=secrets.token_urlsafe(12) if entry == "invite" else None, referees=referees)
        if listed:  # seated now; an event entered by its players is seated when it begins
            draft = self._fit(draft, asked)
        count = draft.spec().board_count if listed else SET_MAX
        made = make_board_set(options, count, event=event_id, preset=str(preset))
        row = {"id": event_id, "name": name, "created": draft.created, "organiser": organiser.id, "form": form,
               "preset": preset, "options": draft.options, "boards": boards, "rounds": draft.rounds,
               "sessions": sessions, "turn_seconds": turn, "grace_seconds": grace, "starts_at": starts_at,
               "stage": 0, "entry": entry, "invite": draft.invite, "referees": referees, "entrants": entrants,
               "seed": made.seed,
               "definition": dict(made.definition), "commitment": made.commitment, "published": None, "par": None}
        with self.store.engine.begin() as c:
            c.execute(insert(EVENTS).values(**row))
        self._boards[event_id] = tuple(made.boards)
        event = _event(row)
        self._write(event, organiser.id, "create", {"form": form, "entry": entry,
                                                    "entrants": [e["name"] for e in entrants]})
        if starts_at is not None:
            self._watch(event_id, GRACE_RECHECK)
        self._start_par(event)
        return event

    def _friends_named(self, organiser: User, named: Sequence[Sequence[str]]) -> None:
        """Refused (403, ``event.player_not_friend``) unless everyone ``named`` (``[id, name]``:
        the players an organiser lists, the referees they name) has accepted ``organiser`` as a
        friend: nobody is put in an event, at its tables or its desk, by someone whose friend
        request they did not accept, nor by someone they blocked (a block ends a friendship, and
        the refusal is the same as for anyone else not a friend, so it tells of no block)."""
        with self.store.engine.connect() as c:
            stranger = _stranger(c, organiser.id, named)
        if stranger is not None:
            raise EventRefused(403, "event.player_not_friend", name=stranger)

    def _start_par(self, event: Event) -> None:
        """Compute each board's par in a thread of its own: the N–S partnership result four experts
        average on it (:func:`gongzhu.review.board_pars`, South's result under partnership
        scoring), for an event whose boards are scored by partnership."""
        par = self.par
        if par is None or not Options.from_dict(event.options).partnership:
            return

        def compute() -> None:
            try:
                values = par(event.seed, event.definition, event.commitment, Seat.S)
                with self.store.engine.begin() as c:
                    c.execute(update(EVENTS).where(EVENTS.c.id == event.id).values(par=values))
            except Exception:  # logged: the results go without a par
                log.exception("%s: the par of its boards failed", event.id)

        thread = threading.Thread(target=compute, name=f"gongzhu-par-{event.id}", daemon=True)
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the par computations started here (tests, and a server that stops)."""
        for thread in list(self._threads):
            thread.join(timeout)

    # ------------------------------------------------------------------ entries

    def enter(self, event_id: str, user: User | None, body: object) -> dict[str, Any]:
        """``user`` enters an event open to entries (with its invitation's token where it takes
        one): ``{"name", "players", "invite"}``, the caller among the players."""
        event = self.get(event_id)
        if user is None or user.guest or not user.account:
            raise EventRefused(403, "event.accounts_only")
        if event.entry == "list":
            raise EventRefused(403, "event.entry_listed")
        if not isinstance(body, Mapping):
            raise EventRefused(400, "event.bad_body")
        if event.entry == "invite":
            token = body.get("invite")
            if not isinstance(token, str) or event.invite is None or not secrets.compare_digest(token, event.invite):
                raise EventRefused(403, "event.bad_invite")
        raw = {k: v for k, v in body.items() if k != "invite"}
        with self.store.engine.begin() as c:
            taken = self._entrants_while_open(c, event)
            if len(taken) >= MOST_ENTRANTS[event.form]:
                raise EventRefused(409, "event.entry_full", most=MOST_ENTRANTS[event.form])
            entrant = self._entrant(event.form, raw, taken)
            if all(p[0] != user.id for p in entrant["players"]):
                raise EventRefused(400, "event.enter_yourself")
            judge = next((p[1] for p in entrant["players"] if any(r[0] == p[0] for r in event.referees)), None)
            if judge is not None:
                raise EventRefused(400, "event.referee_plays", name=judge)
            if any(p[0] == event.organiser for p in entrant["players"]):
                raise EventRefused(400, "event.organiser_plays")
            # Partners are the caller's friends: nobody is entered by someone they did not accept
            # as a friend (a block ends a friendship: nor by someone they blocked).  Asked before
            # the browsers are: whether a partner shares one with an entrant is for friends to learn.
            stranger = _stranger(c, user.id, [p for p in entrant["players"] if p[0] != user.id])
            if stranger is not None:
                raise EventRefused(403, "event.partner_not_friend", name=stranger)
            self._apart([*taken, entrant], new=len(taken))
            c.execute(update(EVENTS).where(EVENTS.c.id == event.id).values(entrants=[*taken, entrant]))
        self._write(event, user.id, "entry",
                    {"entrant": entrant["name"], "players": [p[1] for p in entrant["players"]]})
        return self.summary(event_id, user.id)

    @staticmethod
    def _entrants_while_open(c: Connection, event: Event) -> list[dict[str, Any]]:
        """The event's entrants, its row locked until ``c``'s transaction ends; refused once the
        event has begun (its entries are closed)."""
        row = c.execute(select(EVENTS.c.stage, EVENTS.c.entrants).where(EVENTS.c.id == event.id)
                        .with_for_update()).first()
        assert row is not None
        if int(row.stage) > 0:
            raise EventRefused(409, "event.entry_closed")
        return list(row.entrants)

    def withdraw(self, event_id: str, user: User | None, body: object) -> dict[str, Any]:
        """Before the event begins, a player withdraws their entrant (``{}``), or the organiser
        one they name (``{"entrant"}``) — from a listed event as :meth:`_withdraw_listed` says.
        Once it has begun, the desk withdraws one it names (:meth:`_withdraw_begun`)."""
        event = self.get(event_id)
        if user is None:
            raise EventRefused(403, "event.accounts_only")
        if not isinstance(body, Mapping):
            raise EventRefused(400, "event.bad_body")
        if event.stage > 0:
            return self._withdraw_begun(event, user, body)
        if event.entry == "list":  # seated, and its boards made, when it was made
            return self._withdraw_listed(event, user, body)
        with self.store.engine.begin() as c:
            taken = self._entrants_while_open(c, event)
            named = body.get("entrant")
            if named is not None:
                self._organiser(event, user)
            gone = self._leaving(taken, user, named)
            left = [e for e in taken if e is not gone]
            c.execute(update(EVENTS).where(EVENTS.c.id == event.id).values(entrants=left))
        self._write(event, user.id, "withdraw", {"entrant": gone["name"]})
        return self.summary(event_id, user.id)

    @staticmethod
    def _leaving(entrants: Sequence[dict[str, Any]], user: User, named: object) -> dict[str, Any]:
        """The entrant a withdrawal takes out of ``entrants``: the one ``named`` (the desk's), else
        the caller's own."""
        if named is not None:
            gone = next((e for e in entrants if e["name"] == named), None)
            if gone is None:
                raise EventRefused(400, "event.unknown_entrant", entrant=str(named)[:40],
                                   entrants=", ".join(e["name"] for e in entrants))
            return gone
        mine = next((e for e in entrants if any(p[0] == user.id for p in e["players"])), None)
        if mine is None:
            raise EventRefused(409, "event.not_entered")
        return mine

    def _withdraw_listed(self, event: Event, user: User, body: Mapping[str, Any]) -> dict[str, Any]:
        """Before a listed event begins, a player withdraws their entrant (``{}``), or the desk
        one it names (``{"entrant"}``): nobody is listed in an event they cannot leave.  Its
        tables and boards were made with it, so it stays in the movement — the others still meet
        its seats, and its results count — and a computer plays its seats from the first round
        on, without waiting for its players' grace, as for an entrant the desk withdraws under
        way (:meth:`_withdraw_begun`); a player who comes all the same may take their seat back
        (取消托管)."""
        named = body.get("entrant")
        if named is not None:
            self._organiser(event, user)
        with self.store.engine.begin() as c:
            row = c.execute(select(EVENTS.c.stage, EVENTS.c.entrants).where(EVENTS.c.id == event.id)
                            .with_for_update()).first()
            assert row is not None
            if int(row.stage) > 0:  # begun meanwhile: the desk withdraws whoever must leave
                raise EventRefused(409, "event.entry_closed")
            entrants = [dict(e) for e in row.entrants]
            gone = self._leaving(entrants, user, named)
            if gone.get("withdrawn"):
                raise EventRefused(409, "event.withdrawn_already", entrant=gone["name"])
            gone["withdrawn"] = 1  # (from the first stage on)
            c.execute(update(EVENTS).where(EVENTS.c.id == event.id).values(entrants=entrants))
            self._write(event, user.id, "withdraw", {"entrant": gone["name"], "listed": True}, connection=c)
        return self.summary(event.id, user.id)

    def _withdraw_begun(self, event: Event, user: User, body: Mapping[str, Any]) -> dict[str, Any]:
        """The desk withdraws an entrant from an event under way (``{"entrant"}``): it stays in
        the movement — the other entrants still meet its seats and its results still count — but
        from now on a computer plays for its players without waiting for their grace, at every
        table of theirs still in its grace and in every stage to come (:meth:`sweep`); a player
        who comes back may take their seat again (取消托管).  A player's own ``{}`` is refused: the
        entries are closed, and the desk withdraws whoever must leave."""
        if body.get("entrant") is None:
            raise EventRefused(409, "event.entry_closed")
        self._organiser(event, user)
        if self._over(event, self._played(event)):
            raise EventRefused(409, "event.withdraw_over")
        named = body.get("entrant")
        with self.store.engine.begin() as c:
            row = c.execute(select(EVENTS.c.stage, EVENTS.c.entrants).where(EVENTS.c.id == event.id)
                            .with_for_update()).first()
            assert row is not None
            entrants = [dict(e) for e in row.entrants]
            gone = next((e for e in entrants if e["name"] == named), None)
            if gone is None:
                raise EventRefused(400, "event.unknown_entrant", entrant=str(named)[:40],
                                   entrants=", ".join(e["name"] for e in entrants))
            if gone.get("withdrawn"):
                raise EventRefused(409, "event.withdrawn_already", entrant=gone["name"])
            gone["withdrawn"] = int(row.stage)
            c.execute(update(EVENTS).where(EVENTS.c.id == event.id).values(entrants=entrants))
            round_, session = event.round_of(int(row.stage))
            self._write(event, user.id, "withdraw", {"entrant": gone["name"], "stage": int(row.stage), "round": round_,
                                                     "session": session}, connection=c)
        self._soon(event.id)
        return self.summary(event.id, user.id)

    # ------------------------------------------------------------------ running it

    def _organiser(self, event: Event, user: User | None) -> User:
        """``user`` if they sit at the referee's desk (the organiser, or a referee they named)."""
        if user is None or (user.id != event.organiser and all(r[0] != user.id for r in event.referees)):
            raise EventRefused(403, "event.organiser_only")
        return user

    def start(self, event_id: str, user: User | None) -> int:
        """The organiser begins the next stage (once every table of the one before has finished):
        its tables are made, their players seated, and the first board dealt.  Returns the
        stage's number."""
        event = self.get(event_id)
        self._organiser(event, user)
        if event.stage and event.stage >= event.stages:
            raise EventRefused(409, "event.no_stage_left", stages=event.stages)
        played = self._played(event)
        if event.stage and not played.stage_over(event.stage):
            round_, session = event.round_of(event.stage)
            raise EventRefused(409, "event.stage_running", round=round_, session=session)
        if not self._begin(event, event.stage + 1, played, user.id if user is not None else None):
            raise EventRefused(409, "event.stage_begun")
        return event.stage + 1

    def _begin(self, event: Event, stage: int, played: _Played, actor: str | None) -> bool:
        """Begin ``stage`` (the one after ``event.stage``, whose stage before is over): False if
        another server (or request) began it first.  One transaction raises ``events.stage`` and
        stores the stage's tables, its matches and (Swiss) its pairing: a server that stops half way
        leaves the stage not begun, for the next look to begin.  What the pairing depends on is read
        before it (the transaction reads nothing through another connection)."""
        done: list[TableResult] = []
        adjustments: list[Adjustment] = []
        known: list[tuple[int, int]] | None = None  # a Swiss round's pairing, made at its first session
        round_, session = event.round_of(stage)
        if event.form == "teams" and session == 1:  # (a Swiss, or one once its entries are in)
            records = self._records(played)
            done = [self._result(played, key, k, r) for key in sorted(records) for k, r in enumerate(records[key])]
            adjustments = self._adjustments(self._log(event))
        elif event.swiss:
            known = self._pairing(event, round_)
        with self.store.engine.begin() as c:
            row = c.execute(select(EVENTS).where(EVENTS.c.id == event.id).with_for_update()).mappings().first()
            if row is None or int(row["stage"]) != stage - 1:
                return False
            event = _event(dict(row))
            values: dict[str, Any] = {"stage": stage}
            if stage == 1 and event.entry != "list":  # entered by the players: seated now (or refused)
                event = self._fit(event, event.rounds or None)
                values["rounds"] = event.rounds
            won = c.execute(update(EVENTS).where(EVENTS.c.id == event.id, EVENTS.c.stage == stage - 1)
                            .values(**values)).rowcount
            if won != 1:
                return False
            event = replace(event, stage=stage)
            pairing = known
            if event.swiss and session == 1:
                matches, bye = swiss_pairing(event.spec(), round_, done, adjustments)
                pairing = matches
                self._write(event, None, "pairing", {"round": round_, "matches": [list(m) for m in matches],
                                                     "bye": bye}, connection=c)
            options = Options.from_dict(event.options)
            now = self.now()
            for sitting in self.sittings(event, stage, pairing):
                seats = tuple(event.occupant(sitting, s) for s in range(4))
                seating = Seating(
                    host=None, seats=seats, levels={s: DEFAULT_LEVEL for s in SEATS}, visibility="private",
                    invite=None, turn_seconds=event.turn_seconds, expose_seconds=event.turn_seconds,
                    status="playing", version=0, auto=(False,) * 4, timeouts=(0,) * 4, deadline=None,
                    dealt_to=tuple(u for u, _ in seats))
                match_id = "m-" + secrets.token_hex(6)
                self.store.create_match(match_id=match_id, preset=event.preset, options=options.to_dict(),
                                        speed=DEFAULT_SPEED, seed=secrets.randbits(64), seating=seating,
                                        challenge=event.id, connection=c)
                c.execute(insert(EVENT_TABLES).values(event_id=event.id, stage=stage, table_no=sitting.table,
                                                      match_id=match_id, started=now, graced=False, present=[]))
            self._write(event, actor, "start", {"stage": stage, "round": round_, "session": session}, connection=c)
        if pairing is not None:
            self._pairings[(event.id, round_)] = pairing
        try:
            self._note_links(event)
        except Exception:  # logged: the stage has begun all the same, and the next one notes them
            log.exception("%s: the links between entrants could not be looked for", event.id)
        self.tables.lobby.stage_begun(event.id, stage, _people(event))  # their pages read where they sit now
        self._watch(event.id, float(event.grace_seconds) if event.grace_seconds else GRACE_RECHECK)
        return True

    def _note_links(self, event: Event) -> None:
        """Tell the desk, in its log, of entrants still in the event whose players have been signed
        in from one browser since they were listed or entered (refused then: :meth:`_apart`) — one
        person may be playing for both.  Each such group once (not again once one of it is
        withdrawn); the desk alone sees it (it tells of browsers), and the desk rules (withdraws
        one, or lets both play)."""
        playing = [e for e in event.entrants if not e.get("withdrawn")]
        noted = [set(e["details"]["entrants"]) for e in self._log(event) if e["action"] == "linked"]
        for group in self._linked(playing):  # (a group told already, or within one told — one withdrawn since — is not)
            names = sorted(playing[i]["name"] for i in group)
            if not any(set(names) <= told for told in noted):
                self._write(event, None, "linked", {"entrants": names})

    async def resume(self) -> None:
        """At a server's start: watch every event not over (a start time to keep, a stage under
        way, tables whose absent were not seen to)."""
        with self.store.engine.connect() as c:
            ids = c.execute(select(EVENTS.c.id).where(EVENTS.c.published.is_(None))).scalars().all()
        for event_id in ids:
            if not self._over_quick(str(event_id)):
                self._watch(str(event_id), GRACE_RECHECK)

    def _over_quick(self, event_id: str) -> bool:
        event = self.get(event_id)
        if event.stage < event.stages:
            return False
        played = self._played(event)
        return played.stage_over(event.stages) and all(t.graced for t in played.tables.values())

    def _watch(self, event_id: str, delay: float) -> None:
        """Look at the event after ``delay`` seconds of the event loop (the absent, a stage due),
        and again every :data:`GRACE_RECHECK` while it is not over."""
        if event_id in self._watching:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._watching.add(event_id)

        def due() -> None:
            self._spawn(event_id, rewatch=True)

        loop.call_later(max(min(delay, GRACE_RECHECK), 0.0), due)

    def _soon(self, event_id: str) -> None:
        """Look at the event now (a table finished a board)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        self._spawn(event_id, rewatch=False)

    def _spawn(self, event_id: str, *, rewatch: bool) -> None:
        async def look() -> None:
            if rewatch:
                self._watching.discard(event_id)
            try:
                if await self.tick(event_id) and rewatch:
                    self._watch(event_id, GRACE_RECHECK)
            except Exception:  # a defect: logged; the next look (or the event's page) tries again
                log.exception("%s: looking at the event failed", event_id)
                if rewatch:
                    self._watch(event_id, GRACE_RECHECK)

        task = asyncio.get_running_loop().create_task(look())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def tick(self, event_id: str) -> bool:
        """See to the event now: the absent past their grace, then the next stage if it is due
        (an event with a start time).  True while there is more to look for."""
        waiting = await self.sweep(event_id)
        event = self.get(event_id)
        if event.starts_at is not None and (event.stage == 0 or event.stage < event.stages) \
                and self.now() >= event.starts_at:
            played = self._played(event)
            if event.stage == 0 or played.stage_over(event.stage):
                try:
                    self._begin(event, event.stage + 1, played, None)
                except EventRefused as e:  # entries that cannot be seated: said once; the
                    if not any(x["action"] == "start_refused" for x in self._log(event)):  # organiser
                        self._write(event, None, "start_refused", {"code": e.text.key})  # may fix them
            return True
        return waiting or event.stage == 0 or event.stage < event.stages or not self._over_quick(event_id)

    async def sweep(self, event_id: str) -> bool:
        """Put into 托管 every seat of the event's tables run here whose player has not come once
        the grace has passed since their stage began (noted at the referee's desk).  True while
        a table is still within its grace, or run by another server."""
        event = self.get(event_id)
        with self.store.engine.connect() as c:
            rows = c.execute(select(EVENT_TABLES).where(EVENT_TABLES.c.event_id == event.id,
                                                        EVENT_TABLES.c.graced.is_(False))).all()
        waiting = False
        # the players of the entrants the desk withdrew: no grace is waited for them
        withdrawn = {p[0] for e in event.entrants if e.get("withdrawn") for p in e["players"]}
        for r in rows:
            within = self.now() < float(r.started) + event.grace_seconds
            if within:
                waiting = True
                sitting = next(s for s in self.sittings(event, int(r.stage)) if s.table == int(r.table_no))
                if not any(event.occupant(sitting, seat)[0] in withdrawn for seat in range(4)):
                    continue
            table = self.tables.loaded(r.match_id)
            if table is None:
                owner = await self.tables.bus.owner(r.match_id)
                if owner is None and await self.tables.bus.claim(r.match_id):
                    owner = self.tables.node
                if owner != self.tables.node:
                    waiting = True  # another server runs it: that server sees to it
                    continue
                table = self.tables.get(r.match_id)
            if table is None:
                continue
            came = table.connected() | set(r.present or ())
            round_, session = event.round_of(int(r.stage))
            for seat in Seat:
                occupant = table.seats[seat]
                if occupant is None or table.auto[seat] or table.holder(seat) is None:
                    continue
                gone = occupant[0] in withdrawn and occupant[0] not in table.connected()
                if not gone and (within or occupant[0] in came):
                    continue
                table.set_auto(Person(occupant[0], occupant[1]), True)
                self._write(event, None, "stand_in", {"stage": int(r.stage), "round": round_, "session": session,
                                                      "table": int(r.table_no), "seat": seat.name,
                                                      "player": occupant[1], **({"withdrawn": True} if gone else {})})
            if within:
                continue  # (the others' grace still runs)
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
        current = event.round_of(event.stage)[0] if event.stage else 1
        if kind == "penalty":
            if set(body) - {"type", "entrant", "points", "round", "reason"}:
                raise EventRefused(400, "event.bad_penalty", max=MAX_PENALTY)
            entrant, points = body.get("entrant"), body.get("points")
            if entrant not in event.names:
                raise EventRefused(400, "event.unknown_entrant", entrant=str(entrant)[:40],
                                   entrants=", ".join(event.names))
            if not penalty_fits(points, event.form):
                raise EventRefused(400, "event.bad_penalty", max=MAX_PENALTY)
            round_ = body.get("round", current)
            if type(round_) is not int or not 1 <= round_ <= event.rounds:
                raise EventRefused(400, "event.bad_round", rounds=event.rounds)
            details: dict[str, Any] = {"entrant": entrant, "points": points, "round": round_}
        elif kind == "correction":
            if set(body) - {"type", "table", "board", "raw", "pig", "sheep", "reason"}:
                raise EventRefused(400, "event.bad_correction")
            table, board, raw = body.get("table"), body.get("board"), body.get("raw")
            count = len(self.boards_of(event))
            if type(board) is not int or not 1 <= board <= count:
                raise EventRefused(400, "event.bad_board", boards=count)
            played = self._played(event)
            at = [(stage, sitting, k) for stage, sitting, k in played.where_played().get(board, [])
                  if sitting.table == table and type(table) is int]
            if not at:
                raise EventRefused(400, "event.bad_table", board=board)
            if (not isinstance(raw, Mapping) or set(raw) != set(SEATS)
                    or any(type(raw[s]) is not int or not -1_000_000 <= raw[s] <= 1_000_000 for s in SEATS)):
                raise EventRefused(400, "event.bad_correction")
            stage, sitting, k = at[0]
            if played.finished((stage, sitting.table)) <= k or not self._complete_boards(event, played).get(board):
                raise EventRefused(409, "event.board_not_finished", board=board)
            details = {"round": sitting.round, "table": table, "board": board, "raw": {s: raw[s] for s in SEATS}}
            for key in ("pig", "sheep"):
                if key in body:
                    if body[key] not in SEATS:
                        raise EventRefused(400, "event.bad_correction")
                    details[key] = body[key]
            try:
                self._score(event, played, self._records(played),
                            [*self._adjustments(self._log(event)), _correction(details, reason)])
            except (EventError, GongzhuError, ValueError):
                raise EventRefused(400, "event.bad_correction") from None
        else:
            raise EventRefused(400, "event.bad_adjustment")
        self._write(event, user.id, str(kind), details, reason)
        return self.summary(event_id, user.id)

    def rule(self, event_id: str, user: User | None, body: object) -> dict[str, Any]:
        """The referee rules on a contested claim (``{"claim": its entry in the log, "reason"}``)
        from the solver's verdict, once every table has played its board: the claim is searched
        again, in the background, from where it was made with a far larger bound than at the table;
        if it holds whatever the others play, the table's raw scores on the board become those of
        the deal finished along it (a correction); if they can break it, or the search cannot
        decide, the result stands.  The ruling is logged either way; until then the claim shows
        as being searched."""
        event = self.get(event_id)
        self._organiser(event, user)
        assert user is not None
        if event.published is not None:
            raise EventRefused(409, "event.published")
        if not isinstance(body, Mapping) or set(body) - {"claim", "reason"}:
            raise EventRefused(400, "event.bad_body")
        reason = _text(body.get("reason"), REASON_MAX)
        if reason is None:
            raise EventRefused(400, "event.bad_reason", max=REASON_MAX)
        log_entries = self._log(event)
        number = body.get("claim")
        entry = (log_entries[number - 1] if type(number) is int and 1 <= number <= len(log_entries) else None)
        if entry is None or entry["action"] != "claim":
            raise EventRefused(400, "event.unknown_claim")
        number = int(entry["n"])
        if (event.id, number) in self._ruling or any(
                e["action"] == "ruling" and e["details"]["claim"] == number for e in log_entries):
            raise EventRefused(409, "event.claim_ruled")
        d = entry["details"]
        played = self._played(event)
        if not self._complete_boards(event, played).get(int(d["board"])):
            # Not shown at the desk yet (it would tell the other tables something of the board):
            # answered as no claim at all, so that asking for numbers finds nothing out.
            raise EventRefused(400, "event.unknown_claim")
        sitting = next(s for s in played.sittings[int(d["stage"])] if s.table == int(d["table"]))
        record = self._records(played)[(int(d["stage"]), int(d["table"]))][sitting.boards.index(int(d["board"]))]
        key = (event.id, number)
        self._ruling.add(key)

        async def search() -> None:
            try:
                verdict, finished = await asyncio.to_thread(_search_claim, record, d)
                if any(e["action"] == "ruling" and e["details"]["claim"] == number for e in self._log(event)):
                    return  # another server ruled meanwhile
                if finished is not None:
                    raw, pig, sheep = finished
                    correction: dict[str, Any] = {"round": int(d["round"]), "table": int(d["table"]),
                                                  "board": int(d["board"]), "raw": dict(zip(SEATS, raw, strict=True))}
                    if Options.from_dict(event.options).scoring == "pig_sheep":
                        correction.update(pig=pig, sheep=sheep)
                    self._write(event, user.id, "correction", correction, reason)
                self._write(event, user.id, "ruling", {"claim": number, "verdict": verdict}, reason)
            except Exception:  # a defect: logged; the referee may ask again
                log.exception("%s: ruling on claim %s failed", event.id, number)
            finally:
                self._ruling.discard(key)

        task = asyncio.get_running_loop().create_task(search())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return self.summary(event_id, user.id)

    def publish(self, event_id: str, user: User | None) -> dict[str, Any]:
        """The organiser publishes the results (once every board has been played at every table)."""
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
        return event.stage >= event.stages and played.stage_over(event.stages)

    def _plays(self, event: Event, played: _Played) -> dict[int, list[tuple[int, int, int]]]:
        """For each board: every (stage, table, index there) that plays it — in the whole movement
        where it is known in advance, in the stages begun for a Swiss (a board is played in one
        stage only there)."""
        if not event.stage:
            return {}
        if event.swiss:
            return {b: [(stage, s.table, k) for stage, s, k in at] for b, at in played.where_played().items()}
        out: dict[int, list[tuple[int, int, int]]] = {}
        per = event.per_round
        for s in self._movement(event).sittings:
            for k, board in enumerate(s.boards):
                out.setdefault(board, []).append(((s.round - 1) * per + s.session, s.table, k))
        return out

    def _complete_boards(self, event: Event, played: _Played) -> dict[int, bool]:
        """Whether every table that plays each board has played it."""
        return {b: all(played.finished((stage, t)) > k for stage, t, k in at)
                for b, at in self._plays(event, played).items()}

    def _complete_at(self, event: Event, played: _Played) -> list[tuple[tuple[int, int], int]]:
        """Where the boards every table that plays them has played lie: (stage, table) and the
        board's index at that table, by board, then stage and table."""
        complete = self._complete_boards(event, played)
        plays = self._plays(event, played)
        return [((stage, t), k) for b in sorted(plays) if complete[b] for stage, t, k in sorted(plays[b])]

    def _complete(self, event: Event, played: _Played) -> list[dict[str, Any]]:
        """The records of the boards every table that plays them has played (:meth:`_complete_at`)."""
        records = self._records(played)
        return [records[key][k] for key, k in self._complete_at(event, played)]

    def _score(self, event: Event, played: _Played, records: dict[tuple[int, int], list[dict[str, Any]]],
               adjustments: Sequence[Adjustment]) -> dict[str, Any]:
        """The event's scores (:func:`gongzhu.duplicate.events.score_event`) from its complete
        boards and ``adjustments``; kept, and given again while none of what they come from has
        changed (the answer is shared: callers only read it)."""
        basis = (tuple(event.names), tuple(sorted((key, t.match_id, t.finished) for key, t in played.tables.items())),
                 tuple(adjustments))
        kept = self._scored.get(event.id)
        if kept is not None and kept[0] == basis:
            return kept[1]
        results = [self._result(played, key, k, records[key][k]) for key, k in self._complete_at(event, played)]
        scored = score_event(event.form, event.names, results, adjustments, Options.from_dict(event.options))
        if len(self._scored) >= _MOST_READ:
            self._scored.clear()
        self._scored[event.id] = (basis, scored)
        return scored

    def records(self, event_id: str) -> list[dict[str, Any]]:
        """The records of the boards every table has played (to anyone)."""
        event = self.get(event_id)
        return self._complete(event, self._played(event))

    def rankings_csv(self, event_id: str) -> tuple[str, bool]:
        """The rankings over the boards every table has played as CSV text (to anyone, as the
        summary shows them), and whether they are published (False: provisional)."""
        event = self.get(event_id)
        played = self._played(event)
        scored = self._score(event, played, self._records(played), self._adjustments(self._log(event)))
        players = {e["name"]: [p[1] for p in e["players"]] for e in event.entrants}
        return rankings_csv(scored, players), event.published is not None

    def mine(self, user: User | None) -> list[dict[str, Any]]:
        """The events ``user`` organises or plays in and not published yet, newest first, with
        where they sit now (``GET /api/events``: the lobby's list)."""
        if user is None:
            return []
        with self.store.engine.connect() as c:
            rows = c.execute(select(EVENTS).where(EVENTS.c.published.is_(None))
                             .order_by(EVENTS.c.created.desc()).limit(200)).mappings().all()
        out = []
        for row in rows:
            event = _event(dict(row))
            entrant = next((e["name"] for e in event.entrants if any(p[0] == user.id for p in e["players"])), None)
            if entrant is None and event.organiser != user.id:
                continue
            seat = self._seat_now(event, user.id)
            out.append({"id": event.id, "name": event.name, "url": f"/event/{event.id}", "form": event.form,
                        "entrant": entrant, "organiser": event.organiser == user.id,
                        "starts_at": None if event.starts_at is None else _stamp(event.starts_at),
                        "stage": event.stage, "stages": event.stages, "now": seat})
            if len(out) >= 20:
                break
        return out

    def _seat_now(self, event: Event, user: str) -> dict[str, Any] | None:
        """Where ``user`` sits in the event's latest stage (its round, session, table, seat and
        the table's address), or None (not begun, or sitting out)."""
        if not event.stage:
            return None
        round_, session = event.round_of(event.stage)
        for sitting in self.sittings(event, event.stage):
            for seat in range(4):
                if event.occupant(sitting, seat)[0] == user:
                    with self.store.engine.connect() as c:
                        match_id = c.execute(select(EVENT_TABLES.c.match_id).where(
                            EVENT_TABLES.c.event_id == event.id, EVENT_TABLES.c.stage == event.stage,
                            EVENT_TABLES.c.table_no == sitting.table)).scalar()
                    return {"stage": event.stage, "round": round_, "session": session, "table": sitting.table,
                            "seat": SEATS[seat], "url": f"/table/{match_id}" if match_id else None}
        return {"stage": event.stage, "round": round_, "session": session, "table": None, "seat": None,
                "url": None}

    def summary(self, event_id: str, user: str | None) -> dict[str, Any]:
        """The event as ``user`` may see it (``GET /api/events/{id}``)."""
        event = self.get(event_id)
        played = self._played(event)
        records = self._records(played)
        log_entries = self._log(event)
        adjustments = self._adjustments(log_entries)
        # a table's raw scores on a board as the referee last corrected them (else as played)
        corrected = {(a.round, a.table, a.board): a.raw for a in adjustments if isinstance(a, Correction)}
        complete_boards = self._complete_boards(event, played)
        scored = self._score(event, played, records, adjustments)
        over = self._over(event, played)
        stand_ins = [e["details"] for e in log_entries if e["action"] == "stand_in"]
        tables = []
        mine: set[tuple[int, int]] = set()
        for (stage, number), row in sorted(played.tables.items()):
            sitting = next(s for s in played.sittings[stage] if s.table == number)
            seats = {SEATS[s]: event.occupant(sitting, s) for s in range(4)}
            sits = user is not None and any(u == user for u, _ in seats.values())
            if sits:
                mine.add((stage, number))
            entrants = event.seating(sitting)["entrants"]
            tables.append({"stage": stage, "round": sitting.round, "session": sitting.session, "table": number,
                           "match": sitting.match, "entrants": entrants, "ns": entrants["N"], "ew": entrants["E"],
                           "seats": {s: name for s, (_, name) in seats.items()},
                           "played": row.finished, "boards": list(sitting.boards),
                           "url": f"/table/{row.match_id}" if sits else None,
                           "stand_ins": [d["seat"] for d in stand_ins
                                         if d.get("stage", d.get("session")) == stage and d["table"] == number]})
        board_rows = []
        travellers = {t["board"]: t for t in scored.get("travellers", [])}
        team_boards: dict[int, list[dict[str, Any]]] = {}
        for m in scored.get("matches", []):
            for b in m["boards"]:
                team_boards.setdefault(b["board"], []).append({
                    "round": m["round"], "match": m["match"], "home": m["home"], "away": m["away"],
                    "points": {m["home"]: b["home"], m["away"]: b["away"]},
                    "steps": {m["home"]: b["home_steps"], m["away"]: -b["home_steps"]}})
        for board, at in sorted(self._plays(event, played).items()):
            complete = complete_boards[board]
            cells = []
            for stage, number, k in sorted(at):
                if stage > event.stage or stage not in played.sittings:
                    continue  # (a stage begun since the event was read here: read on the next look)
                sitting = next(s for s in played.sittings[stage] if s.table == number)
                done = played.finished((stage, number)) > k
                entrants = event.seating(sitting)["entrants"]
                cell: dict[str, Any] = {"stage": stage, "round": sitting.round, "session": sitting.session,
                                        "table": number, "ns": entrants["N"], "ew": entrants["E"],
                                        "played": done, "raw": None, "ns_result": None}
                if done and (complete or (stage, number) in mine):
                    record = records[(stage, number)][k]
                    raw = corrected.get((sitting.round, number, board),
                                        self._result(played, (stage, number), k, record).raw)
                    cell.update(raw=dict(zip(SEATS, raw, strict=True)), ns_result=partnership(raw)[0])
                cells.append(cell)
            if not cells:
                continue
            par = event.par[board - 1] if complete and event.par and board <= len(event.par) else None
            board_rows.append({"board": board, "complete": complete, "tables": cells, "par": par,
                               "traveller": travellers.get(board) if complete else None,
                               "teams": team_boards.get(board) if complete and event.form == "teams" else None})
        current = event.round_of(event.stage) if event.stage else (0, 0)
        status = "over" if over else ("playing" if event.stage else "waiting")
        me_entrant = next((e["name"] for e in event.entrants if any(p[0] == user for p in e["players"])), None)
        now = self._seat_now(event, user) if user is not None and me_entrant is not None else None
        desk = user is not None and (user == event.organiser or any(r[0] == user for r in event.referees))
        out: dict[str, Any] = {
            "id": event.id, "name": event.name, "url": f"/event/{event.id}", "created": event.created,
            "organiser": self._name(event.organiser), "form": event.form, "swiss": event.swiss,
            "preset": event.preset, "boards": event.boards, "rounds": event.rounds, "sessions": event.sessions,
            "stages": event.stages, "turn_seconds": event.turn_seconds, "grace_seconds": event.grace_seconds,
            "starts_at": None if event.starts_at is None else _stamp(event.starts_at),
            "entrants": [{"name": e["name"], "players": [p[1] for p in e["players"]],
                          "withdrawn": bool(e.get("withdrawn"))} for e in event.entrants],
            "definition": event.definition, "commitment": event.commitment, "seed": event.seed if over else None,
            "entry": event.entry,
            "referees": [r[1] for r in event.referees],
            "invite_url": (f"/event/{event.id}?invite={event.invite}"
                           if event.invite is not None and desk else None),
            "status": status, "stage": event.stage, "round": current[0], "session": current[1],
            "stage_over": bool(event.stage) and played.stage_over(event.stage),
            "published": event.published is not None, "provisional": event.published is None,
            "tables": tables, "board_results": board_rows,
            "rankings": scored["rankings"], "matches": scored.get("matches", []),
            "sit_outs": self._sit_outs(event, played),
            "adjustments": scored["adjustments"],
            **self._shown_log(event, log_entries, complete_boards, desk),
            "records_url": f"/api/events/{event.id}/records.jsonl",
            "rankings_url": f"/api/events/{event.id}/rankings.csv",
            "me": {"organiser": user == event.organiser, "referee": desk, "entrant": me_entrant, "now": now,
                   "table": now["url"] if now is not None else None},
        }
        return out

    def _shown_log(self, event: Event, log_entries: list[dict[str, Any]], complete_boards: Mapping[int, Any],
                   desk: bool) -> dict[str, list[dict[str, Any]]]:
        """The log and the contested claims with their rulings as the caller may see them: a
        contested claim once every table has played its board.  To the desk the entries keep
        their numbers (a ruling names its claim by it); to everyone else they are numbered as
        shown, so that no gap tells of a claim not shown yet."""
        log = [e for e in log_entries
               if (e["action"] != "claim" or complete_boards.get(int(e["details"]["board"])))
               and (e["action"] != "linked" or desk)]
        claims = [{"n": e["n"], **e["details"],
                   "ruling": next((r["details"]["verdict"] for r in log_entries
                                   if r["action"] == "ruling" and r["details"]["claim"] == e["n"]),
                                  "searching" if (event.id, e["n"]) in self._ruling else None)}
                  for e in log if e["action"] == "claim"]
        if not desk:
            number = {e["n"]: i + 1 for i, e in enumerate(log)}
            log = [{**e, "n": number[e["n"]],
                    "details": {**e["details"], "claim": number.get(e["details"]["claim"])}
                    if e["action"] == "ruling" else e["details"]} for e in log]
            claims = [{**c, "n": number[c["n"]]} for c in claims]
        return {"log": log, "claims": claims}

    def _sit_outs(self, event: Event, played: _Played) -> list[dict[str, Any]]:
        """The entrants who sit out each round begun (a phantom's opponents, a Swiss bye)."""
        out = []
        for round_ in sorted({event.round_of(stage)[0] for stage in played.sittings}):
            stage = (round_ - 1) * event.per_round + 1
            seated = {p.entrant for s in played.sittings.get(stage, ()) for p in s.seats}
            idle = [event.names[i] for i in range(len(event.entrants)) if i + 1 not in seated]
            if idle:
                out.append({"round": round_, "entrants": idle})
        return out

    def _name(self, user: str) -> str | None:
        found = self.store.people([user])
        return found[user][0] if user in found else None


#: The positions a referee's ruling may search (the table's own bound is far smaller).
RULING_LIMIT = 2_000_000


def _stranger(c: Connection, user: str, named: Sequence[Sequence[str]]) -> str | None:
    """The name of the first of ``named`` (``[id, name]``) who is not ``user``'s friend (read in
    ``c``'s transaction), or None."""
    friends = friends_among(c, user, [p[0] for p in named])
    return next((p[1] for p in named if p[0] not in friends), None)


def _search_claim(record: Mapping[str, Any], claimed: Mapping[str, Any]) -> tuple[str, tuple[
        tuple[int, int, int, int], str | None, str | None] | None]:
    """The solver's verdict on a claim of a record's deal made before play ``from_play``
    (``holds``, ``broken`` or ``undecided``) and, when it holds, the raw scores of the deal
    finished along it with the seats that took ♠Q and ♦J."""
    deal = None
    for state in replay_states(record):
        if state.phase is Phase.PLAY and sum(len(t.plays) for t in state.tricks) + len(state.current_trick) \
                == int(claimed["from_play"]):
            deal = state.copy()
            break
    if deal is None:
        return "undecided", None
    claim = Claim(Seat[str(claimed["seat"])], ClaimKind(str(claimed["kind"])), claimed["value"])
    verdict = check_claim(deal, claim, limit=RULING_LIMIT)
    if verdict.holds is not True:
        return ("broken" if verdict.holds is False else "undecided"), None
    finish_by_claim(deal, verdict)
    taker = {c.code: SEATS[s] for s in Seat for c in deal.captured(s)}
    raw = deal.score.raw
    return "holds", ((raw[0], raw[1], raw[2], raw[3]), taker.get("QS"), taker.get("JD"))


def _correction(details: Mapping[str, Any], reason: str) -> Correction:
    raw = details["raw"]
    pig, sheep = details.get("pig"), details.get("sheep")
    return Correction(int(details.get("round", 1)), int(details["table"]), int(details["board"]),
                      (raw["N"], raw["E"], raw["S"], raw["W"]), reason,
                      None if pig is None else SEATS.index(pig), None if sheep is None else SEATS.index(sheep))


# ---------------------------------------------------------------------- routes


def routes(store: Store, tables: Tables, identity: Identity, page: Callable[[Request, Path, str], Response],
           static: Path, now: Callable[[], float], par: ParComputer | None = None) -> list[Route]:
    """The event routes (the module docstring); the events' tables are opened by ``tables``,
    whose tables ask the events for their boards from now on."""
    events = Events(store, tables, now, par)
    tables.events = events

    def viewer(request: Request) -> User | None:
        return identity.user_for(request)

    async def one_page(request: Request) -> Response:
        return page(request, static / "event.html", "event")

    async def body_of(request: Request) -> Any:
        return await json_body(request)

    def refused(e: EventRefused) -> Response:
        return refused_answer(e.status, e.text)

    async def mine(request: Request) -> Response:
        return personal_answer({"events": events.mine(viewer(request))})

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
            await events.tick(events.get(event_id).id)
            user = viewer(request)
            return personal_answer(events.summary(event_id, user.id if user is not None else None))
        except EventRefused as e:
            return refused(e)

    Desk = Callable[[str, User | None, Any], dict[str, Any]]

    def posted(act: Desk, status: int = 200) -> Callable[[Request], Awaitable[Response]]:
        """A route that reads a JSON body and answers the summary ``act`` returns (for the
        event of the address, the person asking, the body), or the refusal."""
        async def route(request: Request) -> Response:
            try:
                body = await body_of(request)
            except BodyError as e:
                return plain_error(e.status, str(e))
            try:
                return personal_answer(act(request.path_params["event_id"], viewer(request), body), status=status)
            except EventRefused as e:
                return refused(e)
        return route

    def start(event_id: str, user: User | None, _body: Any) -> dict[str, Any]:
        events.start(event_id, user)
        return events.summary(event_id, user.id if user else None)

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

    async def rankings(request: Request) -> Response:
        event_id = request.path_params["event_id"]
        try:
            text, published = events.rankings_csv(event_id)
        except EventRefused as e:
            return refused(e)
        name = f"gongzhu-{event_id}-rankings{'' if published else '-provisional'}.csv"
        # (a byte-order mark first, so that a spreadsheet reads the names as UTF-8)
        return Response("\ufeff" + text, media_type="text/csv; charset=utf-8; header=present",
                        headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"})

    return [
        Route("/event/{event_id}", one_page),
        Route("/api/events", mine, methods=["GET"]),
        Route("/api/events", create, methods=["POST"]),
        Route("/api/events/{event_id}", summary),
        Route("/api/events/{event_id}/start", posted(start), methods=["POST"]),
        Route("/api/events/{event_id}/entries", posted(events.enter), methods=["POST"]),
        Route("/api/events/{event_id}/withdraw", posted(events.withdraw), methods=["POST"]),
        Route("/api/events/{event_id}/adjustments", posted(events.adjust), methods=["POST"]),
        Route("/api/events/{event_id}/rulings", posted(events.rule, 202), methods=["POST"]),
        Route("/api/events/{event_id}/publish", posted(lambda e, u, _b: events.publish(e, u)), methods=["POST"]),
        Route("/api/events/{event_id}/records.jsonl", records),
        Route("/api/events/{event_id}/rankings.csv", rankings),
    ]
