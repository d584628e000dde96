"""``gongzhu event FILE``: a club night of duplicate play, run from a file.

The file (JSON, or TOML when its name ends in ``.toml``; docs/tournaments.md, The club night
file) names the form (Mitchell, Howell, individual, teams), the preset and options, the board
seed, the boards a round, the rounds and the entrants; computers play every seat (a player's
``level``, else the entrant's, else the file's, else intermediate).  The command deals the boards
from the seed (:mod:`gongzhu.rules.boards`), seats every round (:mod:`gongzhu.duplicate.movements`;
a Swiss of teams pairs each round by the standings so far), plays every board at every table,
writes each deal's record (R11 ``gongzhu-deal/2`` with ``players`` and ``seating``) and prints
the results: rankings, travellers or matches, and the referee's adjustments in order (``--json``:
all of it as JSON; ``--csv``: the rankings as CSV).  The
results are computed from the records written (:func:`gongzhu.duplicate.events.table_result_of`),
so the records and the file's adjustments determine them; ``--score RECORDS`` scores an event
again from its records (each re-checked by replay) without playing, for instance after the
referee adds a correction or a penalty to the file.

Exit statuses: 0 done; 2 a bad file or option (one line on standard error; nothing is written).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gongzhu.duplicate.events import (
    EventError,
    EventSpec,
    TableResult,
    movement_of,
    parse_event,
    rankings_csv,
    score_event,
    swiss_pairing,
    swiss_sittings,
    table_result_of,
)
from gongzhu.duplicate.movements import SEATS, Sitting
from gongzhu.jsontext import JSONTextError, decode_utf8, loads_strict
from gongzhu.players.guard import safe_exposures, safe_play
from gongzhu.players.observation import observe
from gongzhu.players.registry import LEVELS, make_player
from gongzhu.records import check_records, deal_to_record, dump_record, load_records
from gongzhu.records.format import RecordError
from gongzhu.rules.boards import BoardSet, make_board_set
from gongzhu.rules.errors import GongzhuError

__all__ = ["MAX_EVENT_BYTES", "play_event", "read_event", "register", "run"]

#: The largest event file read, in bytes.
MAX_EVENT_BYTES = 1 << 20


class _InputError(Exception):
    """A file that cannot be read or written: the message says why (exit status 2)."""


def register(subparsers: Any) -> None:
    """Add the ``event`` sub-command to the ``gongzhu`` parser (cli/main.py)."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "event",
        help="run a club night of duplicate play from a file: seat, play, record and rank",
        description="Run a duplicate event (Mitchell, Howell, individual or teams) described by FILE "
        "(JSON, or TOML for a .toml name): computers play every seat, every deal is written as a record "
        "and the results are printed. See docs/tournaments.md, The club night file.",
    )
    p.add_argument("file", metavar="FILE", help="the event file")
    p.add_argument("--records", metavar="PATH", default=None,
                   help="where the records go (default: FILE with .records.jsonl for its suffix); a new file")
    p.add_argument("--score", metavar="RECORDS", default=None,
                   help="do not play: score the event again from these records (checked by replay)")
    shape = p.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="print the results as JSON")
    shape.add_argument("--csv", action="store_true",
                       help="print only the rankings, as CSV (a row an entrant; the records' file is named on "
                            "standard error)")
    p.set_defaults(run=run)


# ------------------------------------------------------------------------------ reading


def read_event(path: str) -> EventSpec:
    """The event of ``path`` (JSON, or TOML for a ``.toml`` name), checked."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_EVENT_BYTES + 1)
    except OSError as e:
        raise _InputError(f"cannot read {path}: {e.strerror or e}") from None
    if len(data) > MAX_EVENT_BYTES:
        raise _InputError(f"{path} has more than {MAX_EVENT_BYTES} bytes: an event file is a few kilobytes")
    try:
        text = decode_utf8(data.removeprefix(b"\xef\xbb\xbf"))
    except JSONTextError as e:
        raise _InputError(f"{path}: {e}") from None
    if path.endswith(".toml"):
        try:
            value: Any = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise _InputError(f"{path} is not valid TOML: {e}") from None
    else:
        try:
            value = loads_strict(text)
        except JSONTextError as e:
            raise _InputError(f"{path} is not valid JSON: {e}") from None
    try:
        return parse_event(value, levels=tuple(LEVELS))
    except EventError as e:
        raise _InputError(f"{path}: {e}") from None


# ------------------------------------------------------------------------------ playing


def _player_seed(spec: EventSpec, sitting: Sitting, board: int, seat: int) -> int:
    key = f"gongzhu-event:{spec.seed}:{sitting.round}:{sitting.session}:{sitting.table}:{board}:{seat}"
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") >> 1


def _play(spec: EventSpec, boards: BoardSet, sitting: Sitting, number: int) -> dict[str, Any]:
    """Board ``number`` played at ``sitting`` by the computers of its players; its record."""
    entrants = {e.number: e for e in spec.entrants}
    who = [entrants[p.entrant].players[p.member] for p in sitting.seats]
    players = [make_player(w.level, seed=_player_seed(spec, sitting, number, s)) for s, w in enumerate(who)]
    board = boards.board(number)
    deal = board.deal(spec.options)
    where = f"{spec.event} round {sitting.round} table {sitting.table} board {number}"
    for seat in deal.undeclared:
        deal.declare(seat, safe_exposures(players[seat], observe(deal, seat), where=where))
    while (turn := deal.turn) is not None:
        deal.play(safe_play(players[turn], observe(deal, turn), where=where), turn)
    record = deal_to_record(deal, match_id=f"{spec.event}/r{sitting.round}/t{sitting.table}", preset=spec.preset,
                            board=board, event=spec.event)
    record["players"] = {SEATS[s]: {"name": w.name, "computer": w.level, "auto": True} for s, w in enumerate(who)}
    record["seating"] = {
        "form": spec.form, "round": sitting.round, "session": sitting.session, "table": sitting.table,
        "match": sitting.match,
        "entrants": {SEATS[s]: entrants[p.entrant].name for s, p in enumerate(sitting.seats)},
    }
    return record


def _swiss_round(spec: EventSpec, round_: int, records: Sequence[dict[str, Any]]) -> list[Sitting]:
    """The sittings of round ``round_`` of a Swiss of teams, paired by the standings so far."""
    matches, _ = swiss_pairing(spec, round_, [table_result_of(r) for r in records], spec.adjustments)
    return swiss_sittings(spec, round_, matches)


def play_event(spec: EventSpec) -> tuple[BoardSet, list[dict[str, Any]]]:
    """Every board of the event played at every table, in order of round, session and table;
    the board set and the records."""
    boards = make_board_set(spec.options, spec.board_count, seed=spec.seed, event=spec.event, preset=spec.preset)
    records: list[dict[str, Any]] = []
    if spec.form == "teams" and len(spec.entrants) > 2:
        for round_ in range(1, spec.rounds + 1):
            for sitting in _swiss_round(spec, round_, records):
                records += [_play(spec, boards, sitting, n) for n in sitting.boards]
        return boards, records
    for sitting in movement_of(spec).sittings:
        records += [_play(spec, boards, sitting, n) for n in sitting.boards]
    return boards, records


def _write(path: Path, records: Sequence[dict[str, Any]]) -> None:
    """The records into a new file at ``path``, whole or not at all."""
    fd, tmp = tempfile.mkstemp(prefix=".event-", suffix=".jsonl", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.writelines(dump_record(r) + "\n" for r in records)
        os.link(tmp, path)  # fails if the file appeared meanwhile: never overwrite
    except FileExistsError:
        raise _InputError(f"{path} exists: the records go into a new file (--records PATH)") from None
    except OSError as e:
        raise _InputError(f"cannot write {path}: {e.strerror or e}") from None
    finally:
        os.unlink(tmp)


def _read_records(path: str) -> list[dict[str, Any]]:
    try:
        records = [obj for _, obj in load_records(path)]
        for _ in check_records(records, check_seed=True):
            pass
    except OSError as e:
        raise _InputError(f"cannot read {path}: {e.strerror or e}") from None
    except RecordError as e:
        raise _InputError(f"{path}: {e}") from None
    if not records:
        raise _InputError(f"no deal records in {path}")
    return records


# ------------------------------------------------------------------------------ output


def _pct(value: float) -> str:
    return f"{value:.2f}%"


def _signed(value: float) -> str:
    return f"{value:+g}"


def results_text(spec: EventSpec, results: dict[str, Any]) -> str:
    """The results as text: the rankings, then the matches or travellers, then the adjustments."""
    lines = [f"{spec.event}: {spec.form}, {len(spec.entrants)} entrants, {spec.rounds} round(s), "
             f"{spec.boards_per_round} board(s) a round, preset {spec.preset}"]
    for ranking in results["rankings"]:
        lines += ["", f"Ranking ({ranking['field']})"]
        for row in ranking["rows"]:
            penalty = f"  penalty {_signed(row['penalty'])}" if row.get("penalty") else ""
            if spec.form == "teams":
                lines.append(f"  {row['rank']:>2}  {row['entrant']:<20} {row['match_points']:>3} match points  "
                             f"points {_signed(row['points'])}  byes {row['byes']}")
            else:
                lines.append(f"  {row['rank']:>2}  {row['entrant']:<20} {_pct(row['percent']):>8}  "
                             f"{row['matchpoints']}/{row['top']} mp  scale {_signed(row['steps'])}  "
                             f"{row['boards']} board(s){penalty}")
    for match in results.get("matches", []):
        lines += ["", f"Round {match['round']} match {match['match']}: {match['home']} {_signed(match['home_total'])} "
                  f"– {match['away']} {_signed(match['away_total'])}"
                  f" ({'drawn' if match['winner'] is None else match['winner'] + ' wins'})"]
        for b in match["boards"]:
            tables = "; ".join(f"table {t['table']} N–S {t['ns']} {_signed(t['ns_result'])}" for t in b["tables"])
            lines.append(f"  board {b['board']:>2} (session {b['session']}): {tables}  →  {match['home']} "
                         f"{_signed(b['home'])}, scale {_signed(b['home_steps'])}")
        for team in ("home", "away"):
            if match[f"{team}_penalty"]:
                lines.append(f"  penalty {match[team]} {_signed(match[f'{team}_penalty'])}")
    for traveller in results.get("travellers", []):
        lines += ["", f"Board {traveller['board']}"]
        for row in traveller["rows"]:
            if "seats" in row:
                seats = "  ".join(f"{s} {v['player']} {_signed(v['result'])} {v['matchpoints']}/{v['top']}"
                                  for s, v in row["seats"].items())
                lines.append(f"  round {row['round']} table {row['table']}: {seats}")
            else:
                raw = " ".join(f"{s}{_signed(v)}" for s, v in row["raw"].items())
                lines.append(f"  round {row['round']} table {row['table']}: N–S {row['ns']} "
                             f"{_signed(row['ns_result'])} {row['ns_matchpoints']}/{row['top']}, E–W {row['ew']} "
                             f"{_signed(row['ew_result'])} {row['ew_matchpoints']}/{row['top']}  (raw {raw})")
    if results["adjustments"]:
        lines += ["", "Adjustments"]
        for a in results["adjustments"]:
            if a["type"] == "penalty":
                lines.append(f"  {a['n']}. penalty (罚分) {a['entrant']} {_signed(a['points'])} in round {a['round']}: "
                             f"{a['reason']}")
            else:
                raw = " ".join(f"{s}{_signed(v)}" for s, v in a["raw"].items())
                lines.append(f"  {a['n']}. correction, round {a['round']} table {a['table']} board {a['board']}: "
                             f"raw {raw}: {a['reason']}")
    return "\n".join(lines)


def _sittings_of(spec: EventSpec, records: Sequence[dict[str, Any]]) -> list[Sitting]:
    """Every sitting of the event: its movement's, or a Swiss of teams' round by round, paired by
    the ``records`` of the rounds before."""
    if not (spec.form == "teams" and len(spec.entrants) > 2):
        return list(movement_of(spec).sittings)
    out: list[Sitting] = []
    for round_ in range(1, spec.rounds + 1):
        out += _swiss_round(spec, round_, [r for r in records if table_result_of(r).round < round_])
    return out


def _score_given(spec: EventSpec, records: Sequence[dict[str, Any]], table_results: list[TableResult]) -> Any:
    """:func:`score_event` on records read from a file (``--score``, checked by replay already):
    the whole event of the file — every board at every table of its movement, each once — or
    :class:`EventError` saying the records are not that."""
    try:
        wanted = sorted((s.round, s.session, s.table, n) for s in _sittings_of(spec, records) for n in s.boards)
    except (KeyError, ValueError, StopIteration) as e:
        raise EventError(f"the records are not a whole event of this file ({e.__class__.__name__}: {e})") from None
    given = sorted((r.round, r.session, r.table, r.board) for r in table_results)
    if given != wanted:
        missing, extra = sorted(set(wanted) - set(given)), sorted(set(given) - set(wanted))
        twice = len(given) - len(set(given))

        def where(keys: list[tuple[int, int, int, int]]) -> str:
            shown = ", ".join(f"round {r} table {t} board {b}" + (f" (session {s})" if s != 1 else "")
                              for r, s, t, b in keys[:3])
            return shown + (f" and {len(keys) - 3} more" if len(keys) > 3 else "")

        said = [f"missing {where(missing)}" if missing else "", f"not of this event: {where(extra)}" if extra else "",
                f"{twice} given twice" if twice else ""]
        raise EventError(f"the records are not a whole event of this file: {'; '.join(s for s in said if s)}")
    try:
        return score_event(spec.form, [e.name for e in spec.entrants], table_results, spec.adjustments,
                           spec.options)
    except (KeyError, ValueError, StopIteration) as e:
        raise EventError(f"the records are not a whole event of this file ({e.__class__.__name__}: {e})") from None


def run(args: argparse.Namespace) -> int:
    """Play (or score again) the event of ``args.file``; the exit status."""
    try:
        spec = read_event(args.file)
        if args.score is not None:
            records = _read_records(args.score)
            target = None
            boards = None
        else:
            target = Path(args.records if args.records is not None
                          else str(Path(args.file).with_suffix("")) + ".records.jsonl")
            if target.exists():
                raise _InputError(f"{target} exists: the records go into a new file (--records PATH)")
            if not target.parent.is_dir():
                raise _InputError(f"cannot write {target}: no such directory")
            boards, records = play_event(spec)
        table_results: list[TableResult] = [table_result_of(r) for r in records]
        if args.score is not None:
            results = _score_given(spec, records, table_results)
        else:
            results = score_event(spec.form, [e.name for e in spec.entrants], table_results, spec.adjustments,
                                  spec.options)
        if target is not None:
            _write(target, records)
    except (_InputError, EventError, GongzhuError) as e:
        print(f"gongzhu event: {e}", file=sys.stderr)
        return 2
    out: dict[str, Any] = {"event": spec.event, "preset": spec.preset, "seed": spec.seed, **results}
    if boards is not None:
        out["boards"] = {"definition": boards.definition, "commitment": boards.commitment}
    if target is not None:
        out["records"] = str(target)
    if args.json:
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    written = (f"{len(records)} deal records in {target}; board set commitment {out['boards']['commitment']}"
               if target is not None else None)
    if args.csv:
        sys.stdout.write(rankings_csv(results, {e.name: [p.name for p in e.players] for e in spec.entrants}))
        if written is not None:
            print(written, file=sys.stderr)
        return 0
    print(results_text(spec, results))
    if written is not None:
        print(f"\n{written}")
    return 0

