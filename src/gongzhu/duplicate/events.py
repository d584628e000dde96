"""Live duplicate events: what a club night is (its file), and scoring it from the tables' results.

An event file (a JSON object; docs/tournaments.md, The club night file) names the form
(:data:`~gongzhu.duplicate.movements.FORMS`), the preset and options of the boards, the board
seed, the boards a round, the rounds, the entrants with their players (a computer level for
whoever is absent) and the referee's adjustments.  :func:`parse_event` checks it and returns an
:class:`EventSpec`, or raises :class:`EventError` with one line saying what is wrong;
:func:`movement_of` seats the event (the team form with more than two teams is seated round by
round, :func:`~gongzhu.duplicate.movements.swiss_pairings`).

Scoring (:func:`score_event`) starts from each table's result on each board (a
:class:`TableResult`: who sat where, the R6 raw scores and the R7 results; read back from a deal
record by :func:`table_result_of`), applies the referee's adjustments in order and gives the
results as JSON:

- **pairs** (Mitchell, Howell): a pair's result on a board is its partnership result (R7.3,
  computed from the four raw scores, before the one-deck factor); matchpoints and the 拱猪
  scale (:mod:`gongzhu.duplicate.scoring`) against the pairs who played the board in the same
  direction.  A Mitchell ranks its N–S and its E–W pairs apart; a Howell ranks them together.
- **individuals**: each seat's R7 result against the same seat at the other tables.
- **teams** (计副制): a team's result on a board is its N–S pair's partnership result at the
  table where it sits N–S less the other team's N–S pair's at the other table, the raw difference
  (the source texts give no conversion scale); the match adds its boards; a win is 2 match
  points, a draw 1, a bye 2.
- **adjustments**: a penalty (罚分) takes points off an entrant's score (a team's match points
  total in that round's match, a pair's or player's percentage), a correction replaces one
  table's raw scores on a board; both keep their reason, and the results list them in order.

:func:`rankings_csv` writes the rankings as a spreadsheet reads them (CSV, one row an entrant).

May import the rules core (``gongzhu.rules``) and this package; no players, no records module:
a deal record is read here as the JSON object it is.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final

from gongzhu.duplicate.movements import (
    FORMS,
    SEATS,
    WHIST_STARTS,
    Movement,
    MovementError,
    Sitting,
    howell,
    individual,
    max_rounds,
    mitchell,
    swiss_pairings,
    team_match,
    team_round,
)
from gongzhu.duplicate.scoring import scale_of, score_board, shown, standings
from gongzhu.rules.boards import MAX_BOARDS
from gongzhu.rules.cards import Seat
from gongzhu.rules.errors import GongzhuError, excerpt
from gongzhu.rules.options import Options, resolve_options
from gongzhu.rules.scoring import lifetime_factor, results

__all__ = [
    "EVENT_KEYS",
    "MOST_PENALTY",
    "Correction",
    "EntrantSpec",
    "EventError",
    "EventSpec",
    "Penalty",
    "PlayerSpec",
    "TableResult",
    "movement_of",
    "parse_event",
    "partnership",
    "penalty_fits",
    "rankings_csv",
    "score_event",
    "swiss_pairing",
    "swiss_sittings",
    "table_result_of",
]

#: The keys of an event file; ``event``, ``form``, ``seed`` and ``entrants`` are required.
EVENT_KEYS: Final = ("event", "form", "preset", "options", "seed", "boards_per_round", "rounds", "sessions",
                     "level", "entrants", "adjustments")
#: The computer level that plays for an absent player unless the file says otherwise.
DEFAULT_LEVEL: Final = "intermediate"
#: The largest penalty, in points (teams) or percentage points.
MOST_PENALTY: Final = 10000
#: Match points of a team match: a win, a draw, a loss, a bye.
WIN, DRAW, LOSS, BYE = 2, 1, 0, 2

_SEED = re.compile(r"[0-9A-Za-z._-]{1,128}")
_PARTNERS = Options(scoring="partners")


class EventError(ValueError):
    """An event file that is not one, or an adjustment that names no result: the message is one
    line saying where and what."""


@dataclass(frozen=True, slots=True)
class PlayerSpec:
    """A player of an entrant: ``name``, and the computer ``level`` that plays for them when they
    are absent."""

    name: str
    level: str


@dataclass(frozen=True, slots=True)
class EntrantSpec:
    """An entrant (numbered from 1 in file order): a pair's two players (N or E first), a team's
    four (its first pair, then its second) or one player."""

    number: int
    name: str
    players: tuple[PlayerSpec, ...]


@dataclass(frozen=True, slots=True)
class Penalty:
    """罚分: ``points`` (negative) added to ``entrant``'s score: to a team's points in its match of
    ``round``, to a pair's or player's percentage."""

    entrant: str
    points: float
    reason: str
    round: int = 1


@dataclass(frozen=True, slots=True)
class Correction:
    """A score correction: the raw scores (R6, N E S W) of ``board`` at ``table`` in ``round``
    become ``raw``; under pig-and-sheep scoring (R7.4) ``pig`` and ``sheep`` name the seats that
    took them."""

    round: int
    table: int
    board: int
    raw: tuple[int, int, int, int]
    reason: str
    pig: int | None = None
    sheep: int | None = None


Adjustment = Penalty | Correction


@dataclass(frozen=True, slots=True)
class EventSpec:
    """A checked event file (:func:`parse_event`)."""

    event: str
    form: str
    preset: str
    options: Options
    seed: str
    boards_per_round: int
    rounds: int
    sessions: int
    entrants: tuple[EntrantSpec, ...]
    adjustments: tuple[Adjustment, ...] = field(default=())

    @property
    def board_count(self) -> int:
        """How many boards the event deals."""
        groups = self.rounds * self.sessions if self.form == "teams" else _groups(self)
        return groups * self.boards_per_round

    def entrant(self, name: str) -> EntrantSpec | None:
        return next((e for e in self.entrants if e.name == name), None)


def _groups(spec: EventSpec) -> int:
    """The board groups of a pairs or individual movement (a Mitchell's groups are its tables)."""
    if spec.form == "mitchell":
        return (len(spec.entrants) + 1) // 2
    return spec.rounds


# ------------------------------------------------------------------------------ the event file


def _fail(where: str, what: str) -> EventError:
    return EventError(f"{where}: {what}")


def _text(where: str, value: object, limit: int = 200) -> str:
    if (not isinstance(value, str) or not 1 <= len(value.strip()) <= limit
            or any(unicodedata.category(ch) in ("Cc", "Cs") for ch in value)):
        raise _fail(where, f"1 to {limit} characters of text, not {excerpt(value)}")
    return value.strip()


def _whole(where: str, value: object, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise _fail(where, f"a whole number from {low} to {high}, not {excerpt(value)}")
    return value


def _keys(where: str, value: object, allowed: Sequence[str], required: Sequence[str]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _fail(where, f"an object, not {excerpt(value)}")
    for key in value:
        if key not in allowed:
            raise _fail(where, f"unknown key {excerpt(key)}: the keys are {', '.join(allowed)}")
    for key in required:
        if key not in value:
            raise _fail(where, f"{key!r} is missing")
    return value


def _player(where: str, value: object, level: str, levels: Sequence[str] | None) -> PlayerSpec:
    if isinstance(value, str):
        return PlayerSpec(_text(where, value, 40), level)
    obj = _keys(where, value, ("name", "level"), ("name",))
    name = _text(f"{where}.name", obj["name"], 40)
    return PlayerSpec(name, _level(f"{where}.level", obj.get("level", level), levels))


def _level(where: str, value: object, levels: Sequence[str] | None) -> str:
    if not isinstance(value, str) or (levels is not None and value not in levels):
        known = f": one of {', '.join(levels)}" if levels is not None else ""
        raise _fail(where, f"a computer level{known}, not {excerpt(value)}")
    return value


_SIZES = {"mitchell": 2, "howell": 2, "individual": 1, "teams": 4}
_LIMITS = {"mitchell": (5, 128), "howell": (4, 64), "individual": (8, 4 * max(WHIST_STARTS)), "teams": (2, 16)}


def _entrants(value: object, form: str, level: str, levels: Sequence[str] | None) -> tuple[EntrantSpec, ...]:
    low, high = _LIMITS[form]
    kind = {"mitchell": "pairs", "howell": "pairs", "individual": "players", "teams": "teams"}[form]
    if not isinstance(value, list) or not low <= len(value) <= high:
        count = len(value) if isinstance(value, list) else excerpt(value)
        raise _fail("entrants", f"a {form} event has {low} to {high} {kind}, not {count}")
    if form == "individual" and len(value) % 4:
        raise _fail("entrants", f"an individual event seats a multiple of four players, not {len(value)}")
    out: list[EntrantSpec] = []
    size = _SIZES[form]
    for i, item in enumerate(value):
        where = f"entrants[{i}]"
        if size == 1:
            p = _player(where, item, level, levels)
            out.append(EntrantSpec(i + 1, p.name, (p,)))
            continue
        obj = _keys(where, item, ("name", "players", "level"), ("name", "players"))
        own = _level(f"{where}.level", obj.get("level", level), levels)
        players = obj["players"]
        if not isinstance(players, list) or len(players) != size:
            raise _fail(f"{where}.players", f"{'a pair' if size == 2 else 'a team'} has {size} players, "
                        f"not {len(players) if isinstance(players, list) else excerpt(players)}")
        out.append(EntrantSpec(i + 1, _text(f"{where}.name", obj["name"], 40),
                               tuple(_player(f"{where}.players[{j}]", p, own, levels) for j, p in enumerate(players))))
    seen: set[str] = set()
    for e in out:
        if e.name in seen:
            raise _fail("entrants", f"two entrants are named {e.name!r}: each name is one entrant's")
        seen.add(e.name)
    names = [p.name for e in out for p in e.players]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice is not None:
        raise _fail("entrants", f"{twice!r} plays for two places: each player is named once")
    return tuple(out)


def _seat(where: str, value: object) -> int:
    if value not in SEATS:
        raise _fail(where, f"a seat N, E, S or W, not {excerpt(value)}")
    return SEATS.index(str(value))


def penalty_fits(points: object, form: str) -> bool:
    """Whether ``points`` is a penalty the event's ``form`` takes: below 0, down to
    -:data:`MOST_PENALTY`, in whole points for teams (their scores are whole points) and in
    hundredths of a percentage point for pairs and players (as percentages are shown) — no
    crumb too small to show that would still decide a tie."""
    if isinstance(points, bool) or not isinstance(points, int | float) or not -MOST_PENALTY <= points < 0:
        return False
    scaled = points if form == "teams" else points * 100
    return abs(scaled - round(scaled)) < 1e-9


def _adjustment(where: str, value: object, entrants: Sequence[EntrantSpec], form: str, rounds: int) -> Adjustment:
    obj = _keys(where, value, ("type", "entrant", "points", "round", "table", "board", "raw", "pig", "sheep",
                               "reason"), ("type", "reason"))
    reason = _text(f"{where}.reason", obj["reason"])
    kind = obj["type"]
    if kind == "penalty":
        _keys(where, obj, ("type", "entrant", "points", "round", "reason"), ("entrant", "points"))
        name = obj["entrant"]
        if name not in {e.name for e in entrants}:
            raise _fail(f"{where}.entrant", f"no entrant is named {excerpt(name)}")
        points = obj["points"]
        if not penalty_fits(points, form):
            unit = "whole points" if form == "teams" else "percentage points (to the hundredth)"
            raise _fail(f"{where}.points", f"a penalty takes {unit} off: a number below 0 (down to "
                        f"-{MOST_PENALTY}), not {excerpt(points)}")
        return Penalty(str(name), points, reason, _whole(f"{where}.round", obj.get("round", 1), 1, rounds))
    if kind == "correction":
        _keys(where, obj, ("type", "round", "table", "board", "raw", "pig", "sheep", "reason"),
              ("round", "table", "board", "raw"))
        raw = _keys(f"{where}.raw", obj["raw"], SEATS, SEATS)
        scores = tuple(_whole(f"{where}.raw.{s}", raw[s], -1_000_000, 1_000_000) for s in SEATS)
        return Correction(
            _whole(f"{where}.round", obj["round"], 1, rounds), _whole(f"{where}.table", obj["table"], 1, 256),
            _whole(f"{where}.board", obj["board"], 1, 1_000_000), (scores[0], scores[1], scores[2], scores[3]),
            reason,
            None if "pig" not in obj else _seat(f"{where}.pig", obj["pig"]),
            None if "sheep" not in obj else _seat(f"{where}.sheep", obj["sheep"]),
        )
    raise _fail(f"{where}.type", f"'penalty' or 'correction', not {excerpt(kind)}")


def parse_event(data: object, levels: Sequence[str] | None = None) -> EventSpec:
    """The event a file describes (a JSON object, docs/tournaments.md); ``levels`` are the
    computer levels there are (None: any name).  Raises :class:`EventError` with one line."""
    obj = _keys("the event file", data, EVENT_KEYS, ("event", "form", "seed", "entrants"))
    event = _text("event", obj["event"])
    form = obj["form"]
    if form not in FORMS:
        raise _fail("form", f"one of {', '.join(FORMS)}, not {excerpt(form)}")
    preset = obj.get("preset", "online" if form == "individual" else "partners")
    overrides = obj.get("options", {})
    if not isinstance(overrides, Mapping):
        raise _fail("options", f"an object of R10 keys, not {excerpt(overrides)}")
    try:
        options = resolve_options(preset, overrides)
    except GongzhuError as e:
        raise _fail("options" if isinstance(preset, str) else "preset", str(e)) from None
    seed = obj["seed"]
    if not isinstance(seed, str) or not _SEED.fullmatch(seed):
        raise _fail("seed", f"1 to 128 characters among A-Z a-z 0-9 . _ -, not {excerpt(seed)}")
    level = _level("level", obj.get("level", DEFAULT_LEVEL), levels)
    entrants = _entrants(obj["entrants"], form, level, levels)
    per_round = _whole("boards_per_round", obj.get("boards_per_round", 16 if form == "teams" else 2), 1, MAX_BOARDS)
    if form == "teams":  # two teams play one match (more of it: sessions); more teams, a Swiss of rounds
        most = len(entrants) - 1 + len(entrants) % 2 if len(entrants) > 2 else 1
        rounds = _whole("rounds", obj.get("rounds", 1), 1, most)
        sessions = _whole("sessions", obj.get("sessions", 1), 1, MAX_BOARDS)
    else:
        if "sessions" in obj:
            raise _fail("sessions", "only a team match is played in sessions (节)")
        most = max_rounds(form, len(entrants))
        rounds = _whole("rounds", obj.get("rounds", most), 1, most)
        sessions = 1
    raw_adjustments = obj.get("adjustments", [])
    if not isinstance(raw_adjustments, list):
        raise _fail("adjustments", f"a list, not {excerpt(raw_adjustments)}")
    adjustments = tuple(_adjustment(f"adjustments[{i}]", a, entrants, form, rounds)
                        for i, a in enumerate(raw_adjustments))
    spec = EventSpec(event, form, str(preset), options, seed, per_round, rounds, sessions, entrants, adjustments)
    if spec.board_count > MAX_BOARDS:
        raise _fail("boards_per_round", f"the event would deal {spec.board_count} boards, more than a board set's "
                    f"{MAX_BOARDS}: fewer boards a round or fewer rounds")
    for i, a in enumerate(adjustments):
        if isinstance(a, Correction) and options.scoring == "pig_sheep" and (a.pig is None or a.sheep is None):
            raise _fail(f"adjustments[{i}]", "under pig-and-sheep scoring (R7.4) a correction names the pig and "
                        "sheep seats")
        if isinstance(a, Correction):
            _check_correction(f"adjustments[{i}]", a, spec)
    return spec


def _check_correction(where: str, c: Correction, spec: EventSpec) -> None:
    if spec.form == "teams" and len(spec.entrants) > 2:  # seated round by round: tables and boards known
        k, per = len(spec.entrants) // 2, spec.sessions * spec.boards_per_round
        tables: list[tuple[int, ...]] = [tuple(range((c.round - 1) * per + 1, c.round * per + 1))] * (c.table <= 2 * k)
        plays = any(c.board in b for b in tables)
    else:
        movement = movement_of(spec)
        sittings = [s for s in movement.sittings if s.round == c.round and s.table == c.table]
        tables = [s.boards for s in sittings]
        plays = any(c.board in b for b in tables)
    if not tables:
        raise _fail(where, f"no table {c.table} plays in round {c.round}")
    if not plays:
        raise _fail(where, f"table {c.table} does not play board {c.board} in round {c.round}")


def movement_of(spec: EventSpec) -> Movement:
    """The event's movement (a team event of two teams: their match; more teams are seated round
    by round)."""
    n = len(spec.entrants)
    try:
        if spec.form == "mitchell":
            return mitchell(n, spec.rounds, spec.boards_per_round)
        if spec.form == "howell":
            return howell(n, spec.rounds, spec.boards_per_round)
        if spec.form == "individual":
            return individual(n, spec.rounds, spec.boards_per_round)
        if n == 2:
            return team_match(spec.sessions, spec.boards_per_round)
    except MovementError as e:
        raise EventError(str(e)) from None
    raise EventError("a Swiss event of more than two teams is seated round by round")


def swiss_pairing(spec: EventSpec, round_: int, done: Sequence[TableResult],
                  adjustments: Sequence[Adjustment] = ()) -> tuple[list[tuple[int, int]], int | None]:
    """The matches (home, away: entrant numbers) of round ``round_`` of a Swiss of teams and the
    team with a bye, paired by the standings after the earlier rounds: their table results
    ``done`` with the ``adjustments`` of those rounds (:func:`swiss_pairings`)."""
    names = [e.name for e in spec.entrants]
    number = {e.name: e.number for e in spec.entrants}
    earlier = [a for a in adjustments if a.round < round_]
    ranking = score_event("teams", names, done, earlier, spec.options)["rankings"][0]["rows"]
    played = {(number[m.entrants[0]], number[m.entrants[1]]) for m in done}
    byes = [number[n] for r in range(1, round_) for n in names
            if n not in {x for t in done if t.round == r for x in t.entrants}]
    return swiss_pairings([number[row["entrant"]] for row in ranking], played, byes)


def swiss_sittings(spec: EventSpec, round_: int, matches: Sequence[tuple[int, int]]) -> list[Sitting]:
    """The tables of round ``round_`` of a Swiss of teams playing ``matches``: each session of
    the round plays its own group of boards (:func:`team_round`)."""
    per = spec.sessions
    return team_round(matches, round_, per, spec.boards_per_round, (round_ - 1) * per + 1)


# ------------------------------------------------------------------------------ table results


@dataclass(frozen=True, slots=True)
class TableResult:
    """One table's result on one board: where (``round``, ``session``, ``table``, ``match``),
    the entrant's name in each seat N, E, S, W, the raw scores (R6) and the results (R7, before
    the one-deck factor)."""

    round: int
    table: int
    board: int
    entrants: tuple[str, str, str, str]
    raw: tuple[int, int, int, int]
    result: tuple[int, int, int, int]
    session: int = 1
    match: int | None = None


def _four(value: object, where: str) -> tuple[int, int, int, int]:
    if not isinstance(value, Mapping) or any(type(value.get(s)) is not int for s in SEATS):
        raise EventError(f"{where}: an object of N, E, S, W integers")
    return (value["N"], value["E"], value["S"], value["W"])


#: The largest round, table, session, match or board number a record of an event may name.
_MOST = 1_000_000


def table_result_of(record: Mapping[str, Any]) -> TableResult:
    """The table result a deal record of an event holds: its ``board``, its ``seating`` (the
    round, session, table, match and each seat's entrant, docs/tournaments.md), ``raw`` and
    ``final`` (the R7 result times the one-deck factor of its ``options``)."""
    board, seating = record.get("board"), record.get("seating")
    if not isinstance(board, Mapping) or not isinstance(seating, Mapping):
        raise EventError("a record of an event has 'board' and 'seating'")
    names = seating.get("entrants")
    if not isinstance(names, Mapping) or any(not isinstance(names.get(s), str) for s in SEATS):
        raise EventError("a record's seating.entrants names the entrant in N, E, S and W")
    try:
        factor = lifetime_factor(Options.from_dict(record["options"]))
        final = _four(record.get("final"), "final")
        return TableResult(
            _whole("seating.round", seating.get("round"), 1, _MOST),
            _whole("seating.table", seating.get("table"), 1, _MOST),
            _whole("board.number", board.get("number"), 1, _MOST),
            (names["N"], names["E"], names["S"], names["W"]),
            _four(record.get("raw"), "raw"),
            (final[0] // factor, final[1] // factor, final[2] // factor, final[3] // factor),
            _whole("seating.session", seating.get("session", 1), 1, _MOST),
            None if seating.get("match") is None else _whole("seating.match", seating.get("match"), 1, _MOST),
        )
    except (KeyError, TypeError, ValueError) as e:
        raise EventError(f"a record of an event has no valid options ({e})") from None



def partnership(raw: Sequence[int]) -> tuple[int, int]:
    """The N–S and E–W partnership results (R7.3) of a board's raw scores, before the one-deck
    factor: each member's (T1 − T2) / 2."""
    result, _ = results(_PARTNERS, raw)
    return result[0], result[1]


def _apply_corrections(table_results: Sequence[TableResult], adjustments: Iterable[Adjustment],
                       options: Options) -> list[TableResult]:
    out = list(table_results)
    for i, a in enumerate(adjustments):
        if not isinstance(a, Correction):
            continue
        at = [k for k, r in enumerate(out) if (r.round, r.table, r.board) == (a.round, a.table, a.board)]
        if not at:
            raise EventError(f"adjustments[{i}]: no result of board {a.board} at table {a.table} in round {a.round}")
        old = out[at[0]]
        result, _ = results(options, a.raw, None if a.pig is None else Seat(a.pig),
                            None if a.sheep is None else Seat(a.sheep))
        out[at[0]] = TableResult(old.round, old.table, old.board, old.entrants, a.raw, result, old.session, old.match)
    return out


def _adjustment_json(a: Adjustment) -> dict[str, Any]:
    if isinstance(a, Penalty):
        return {"type": "penalty", "entrant": a.entrant, "points": a.points, "round": a.round, "reason": a.reason}
    out: dict[str, Any] = {"type": "correction", "round": a.round, "table": a.table, "board": a.board,
                           "raw": dict(zip(SEATS, a.raw, strict=True)), "reason": a.reason}
    if a.pig is not None:
        out["pig"], out["sheep"] = SEATS[a.pig], SEATS[a.sheep if a.sheep is not None else a.pig]
    return out


def _ranked(rows: list[dict[str, Any]],
            key: Callable[[dict[str, Any]], tuple[float | Fraction, ...]]) -> list[dict[str, Any]]:
    """``rows`` best first by ``key`` (higher is better), with ``rank``: rows level on the key
    share the best rank among them."""
    ordered = sorted(rows, key=lambda r: (tuple(-k for k in key(r)), r["entrant"]))
    for i, row in enumerate(ordered):
        level = i > 0 and key(ordered[i - 1]) == key(row)
        row["rank"] = ordered[i - 1]["rank"] if level else i + 1
    return [{"rank": r.pop("rank"), **r} for r in ordered]


# ------------------------------------------------------------------------------ pairs, individuals


def _field_rankings(fields: dict[int, dict[str, int]], penalties: Mapping[str, float]) -> list[dict[str, Any]]:
    """The field's ranking: by the exact mean percentage less the penalties (hundredths of a
    percentage point, :func:`_adjustment`), then the scale; shown to two decimals."""
    rows, exact = [], {}
    for s in standings(fields):
        off = penalties.get(s.entrant, 0)
        exact[s.entrant] = s.exact + Fraction(round(off * 100), 100)
        rows.append({"entrant": s.entrant, "boards": s.boards, "matchpoints": s.matchpoints, "top": s.top,
                     "percent": shown(exact[s.entrant]), "steps": s.steps, "penalty": off})
    return _ranked(rows, lambda r: (exact[r["entrant"]], r["steps"]))


def _penalties(adjustments: Iterable[Adjustment]) -> dict[str, float]:
    out: dict[str, float] = {}
    for a in adjustments:
        if isinstance(a, Penalty):
            out[a.entrant] = round(out.get(a.entrant, 0) + a.points, 2)
    return out


def _score_pairs(form: str, table_results: Sequence[TableResult], penalties: Mapping[str, float]) -> dict[str, Any]:
    fields: dict[int, dict[str, int]] = {}
    for r in table_results:
        ns, ew = partnership(r.raw)
        fields.setdefault(2 * r.board, {})[r.entrants[0]] = ns
        fields.setdefault(2 * r.board + 1, {})[r.entrants[1]] = ew
    scores = {key: score_board(field) for key, field in fields.items()}
    travellers = []
    for board in sorted({r.board for r in table_results}):
        rows = []
        for r in sorted((r for r in table_results if r.board == board), key=lambda r: (r.round, r.table)):
            a, b = scores[2 * board][r.entrants[0]], scores[2 * board + 1][r.entrants[1]]
            rows.append({"round": r.round, "table": r.table, "ns": r.entrants[0], "ew": r.entrants[1],
                         "raw": dict(zip(SEATS, r.raw, strict=True)),
                         "ns_result": a.result, "ew_result": b.result,
                         "ns_matchpoints": a.matchpoints, "ew_matchpoints": b.matchpoints, "top": a.top,
                         "ns_percent": a.percent, "ew_percent": b.percent,
                         "ns_steps": a.steps, "ew_steps": b.steps})
        travellers.append({"board": board, "rows": rows})
    if form == "mitchell":
        rankings = [
            {"field": "N–S", "rows": _field_rankings({k: f for k, f in fields.items() if k % 2 == 0}, penalties)},
            {"field": "E–W", "rows": _field_rankings({k: f for k, f in fields.items() if k % 2 == 1}, penalties)},
        ]
    else:
        rankings = [{"field": "all", "rows": _field_rankings(fields, penalties)}]
    return {"rankings": rankings, "travellers": travellers}


def _score_individuals(table_results: Sequence[TableResult], penalties: Mapping[str, float]) -> dict[str, Any]:
    fields: dict[int, dict[str, int]] = {}
    for r in table_results:
        for seat in range(4):
            fields.setdefault(4 * r.board + seat, {})[r.entrants[seat]] = r.result[seat]
    scores = {key: score_board(field) for key, field in fields.items()}
    travellers = []
    for board in sorted({r.board for r in table_results}):
        rows = []
        for r in sorted((r for r in table_results if r.board == board), key=lambda r: (r.round, r.table)):
            seats = {}
            for seat in range(4):
                s = scores[4 * board + seat][r.entrants[seat]]
                seats[SEATS[seat]] = {"player": r.entrants[seat], "raw": r.raw[seat], "result": s.result,
                                      "matchpoints": s.matchpoints, "top": s.top, "percent": s.percent,
                                      "steps": s.steps}
            rows.append({"round": r.round, "table": r.table, "seats": seats})
        travellers.append({"board": board, "rows": rows})
    return {"rankings": [{"field": "all", "rows": _field_rankings(fields, penalties)}], "travellers": travellers}


# ------------------------------------------------------------------------------ teams


def _score_teams(entrants: Sequence[str], table_results: Sequence[TableResult],
                 adjustments: Sequence[Adjustment]) -> dict[str, Any]:
    by_match: dict[tuple[int, int], list[TableResult]] = {}
    for r in table_results:
        if r.match is None:
            raise EventError(f"round {r.round} table {r.table}: a team event's result names its match")
        by_match.setdefault((r.round, r.match), []).append(r)
    totals: dict[str, dict[str, Any]] = {
        name: {"entrant": name, "matches": 0, "match_points": 0, "points": 0.0, "byes": 0}
        for name in entrants
    }
    matches = []
    applied: set[int] = set()
    for (round_, match), rows in sorted(by_match.items()):
        first = 2 * match - 1
        opening = min((r for r in rows if r.table == first), key=lambda r: (r.session, r.board))
        home = opening.entrants[0] if opening.session % 2 else opening.entrants[1]
        away = opening.entrants[1] if home == opening.entrants[0] else opening.entrants[0]
        boards = []
        home_points = away_points = 0.0
        steps = 0
        for board in sorted({r.board for r in rows}):
            pair = [r for r in rows if r.board == board]
            if len(pair) != 2:
                continue
            home_ns = next(r for r in pair if r.entrants[0] == home)
            away_ns = next(r for r in pair if r.entrants[0] == away)
            points = partnership(home_ns.raw)[0] - partnership(away_ns.raw)[0]
            home_points += points
            away_points -= points
            steps += scale_of(points)
            boards.append({"board": board, "session": home_ns.session,
                           "tables": [{"table": r.table, "ns": r.entrants[0], "ew": r.entrants[1],
                                       "raw": dict(zip(SEATS, r.raw, strict=True)), "ns_result": partnership(r.raw)[0]}
                                      for r in sorted(pair, key=lambda r: r.table)],
                           "home": points, "away": -points, "home_steps": scale_of(points)})
        penalties = {home: 0.0, away: 0.0}
        for i, a in enumerate(adjustments):
            if isinstance(a, Penalty) and a.round == round_ and a.entrant in penalties:
                penalties[a.entrant] += a.points
                applied.add(i)
        scored = {home: home_points + penalties[home], away: away_points + penalties[away]}
        outcome = "draw" if scored[home] == scored[away] else ("home" if scored[home] > scored[away] else "away")
        for team, other in ((home, away), (away, home)):
            t = totals[team]
            t["matches"] += 1
            t["match_points"] += DRAW if outcome == "draw" else (WIN if scored[team] > scored[other] else LOSS)
            t["points"] += scored[team]
        matches.append({"round": round_, "match": match, "home": home, "away": away, "boards": boards,
                        "home_points": home_points, "away_points": away_points,
                        "home_penalty": penalties[home], "away_penalty": penalties[away],
                        "home_total": scored[home], "away_total": scored[away], "home_steps": steps,
                        "winner": None if outcome == "draw" else (home if outcome == "home" else away)})
    for round_ in sorted({r.round for r in table_results}):
        present = {n for r in table_results if r.round == round_ for n in r.entrants}
        for name in entrants:
            if name not in present and len(entrants) > 2:
                totals[name]["byes"] += 1
                totals[name]["match_points"] += BYE
    for i, a in enumerate(adjustments):  # a penalty in a round without a match (a bye) counts in the totals
        if isinstance(a, Penalty) and i not in applied:
            totals[a.entrant]["points"] += a.points
    ranking = _ranked(list(totals.values()), lambda r: (r["match_points"], r["points"]))
    return {"rankings": [{"field": "teams", "rows": ranking}], "matches": matches}


# ------------------------------------------------------------------------------ the event


def score_event(
    form: str,
    entrants: Sequence[str],
    table_results: Sequence[TableResult],
    adjustments: Sequence[Adjustment] = (),
    options: Options | None = None,
) -> dict[str, Any]:
    """The results of an event as JSON: ``rankings`` (each a ``field`` and its ranked rows),
    ``travellers`` (pairs, individuals) or ``matches`` (teams), and ``adjustments`` in the order
    applied.  ``options`` (the boards') turn a correction's raw scores into results (R7)."""
    corrected = _apply_corrections(table_results, adjustments, options or _PARTNERS)
    penalties = _penalties(adjustments)
    for a in adjustments:
        if isinstance(a, Penalty) and a.entrant not in entrants:
            raise EventError(f"a penalty names {a.entrant!r}, who is no entrant")
    if form in ("mitchell", "howell"):
        out = _score_pairs(form, corrected, penalties)
    elif form == "individual":
        out = _score_individuals(corrected, penalties)
    elif form == "teams":
        out = _score_teams(entrants, corrected, adjustments)
    else:
        raise EventError(f"the form is one of {', '.join(FORMS)}, not {form!r}")
    log = [{"n": i + 1, **_adjustment_json(a)} for i, a in enumerate(adjustments)]
    return {"form": form, **out, "adjustments": log}


# ------------------------------------------------------------------------------ the rankings as CSV

#: The columns of :func:`rankings_csv`: a team event's, and a pairs or individual event's.
TEAM_COLUMNS: Final = ("field", "rank", "entrant", "players", "matches", "match_points", "points", "byes")
FIELD_COLUMNS: Final = ("field", "rank", "entrant", "players", "boards", "matchpoints", "top", "percent", "steps",
                        "penalty")


def _cell(value: object, hundredths: bool = False) -> str:
    """A value as a spreadsheet cell: a number as written (``hundredths``: to two decimals, as a
    percentage is shown; else whole points without ``.0``), text that a spreadsheet would read as
    a formula (``=``, ``+``, ``-``, ``@``, a tab or a line break first) behind an apostrophe."""
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if hundredths:
            return f"{value:.2f}"
        return str(int(value)) if float(value).is_integer() else f"{value:.2f}".rstrip("0")
    text = str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r", "\n") else text


def rankings_csv(scored: Mapping[str, Any], players: Mapping[str, Sequence[str]] | None = None) -> str:
    r"""The rankings of :func:`score_event`'s ``scored`` as CSV text (RFC 4180, CRLF line ends):
    a header row, then one row an entrant in each field's order (a Mitchell's N–S field, then
    its E–W).  ``players`` names each entrant's players (joined with `` / ``); a percentage and
    a pair's or player's penalty (percentage points) have two decimals, as shown.

    >>> rankings_csv({"form": "teams", "rankings": [{"field": "teams", "rows": [
    ...     {"rank": 1, "entrant": "=Reds", "matches": 1, "match_points": 2, "points": 40.0, "byes": 0}]}]},
    ...     {"=Reds": ["Ann", "Bo", "Cy", "Di"]}).split("\r\n")
    ['field,rank,entrant,players,matches,match_points,points,byes', "teams,1,'=Reds,Ann / Bo / Cy / Di,1,2,40,0", '']
    """
    columns = TEAM_COLUMNS if scored.get("form") == "teams" else FIELD_COLUMNS
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(columns)
    for ranking in scored["rankings"]:
        for row in ranking["rows"]:
            values = {"field": ranking["field"], "players": " / ".join((players or {}).get(row["entrant"], ())), **row}
            writer.writerow([_cell(values.get(c), c in ("percent", "penalty")) for c in columns])
    return out.getvalue()
