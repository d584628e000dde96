"""Duplicate events (gongzhu.duplicate.events, ``gongzhu event``): scoring worked out by hand,
whole club nights played by computers and their results recomputed from the records alone,
the referee's adjustments, and event files refused."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gongzhu.cli.main import main
from gongzhu.duplicate.events import (
    Correction,
    EventError,
    Penalty,
    TableResult,
    parse_event,
    partnership,
    penalty_fits,
    rankings_csv,
    score_event,
)
from gongzhu.duplicate.scoring import shown, standings
from gongzhu.records import check_records, load_records
from gongzhu.rules.boards import verify_board_set

SEATS = ("N", "E", "S", "W")


def _half(n: int) -> int:
    """n / 2 rounded half away from zero (R10), written out for the test."""
    q = (abs(n) + 1) // 2
    return q if n >= 0 else -q


def tr(round_: int, table: int, board: int, names: tuple[str, str, str, str], raw: tuple[int, int, int, int],
       result: tuple[int, int, int, int] | None = None, session: int = 1, match: int | None = None) -> TableResult:
    return TableResult(round_, table, board, names, raw, result if result is not None else raw, session, match)


# ------------------------------------------------------------------------------ worked examples


def test_partnership_is_r7_3_of_the_raw_scores() -> None:
    """The source's example (R7.3): raws −190, 50, −10, 0 → N–S −125, E–W +125."""
    assert partnership((-190, 50, -10, 0)) == (-125, 125)
    assert partnership((-100, 0, 0, 0)) == (-50, 50)
    assert partnership((-5, 0, 0, 0)) == (-3, 3)  # halves away from zero (R10)


@given(st.tuples(*[st.integers(-3200, 1600)] * 4))
def test_partnership_is_zero_sum_and_follows_the_pairs_totals(raw: tuple[int, int, int, int]) -> None:
    ns, ew = partnership(raw)
    assert ns == -ew == _half(raw[0] + raw[2] - raw[1] - raw[3])


def test_a_team_board_is_the_difference_of_the_two_tables() -> None:
    """Board 1: at table 1 红 sits N–S and scores −190, 50, −10, 0 (N–S −125); at table 2 蓝 sits
    N–S and scores −100, 0, 0, 100 (N–S −100).  红 loses 25 on the board (−1 step of the scale),
    蓝 gains 25.  Board 2: 红 +50 at table 1, 蓝 −60 at table 2: 红 +110 (+4 steps).  Match:
    红 +85."""
    red, blue = "红", "蓝"
    results = [
        tr(1, 1, 1, (red, blue, red, blue), (-190, 50, -10, 0), match=1),
        tr(1, 2, 1, (blue, red, blue, red), (-100, 0, 0, 100), match=1),
        tr(1, 1, 2, (red, blue, red, blue), (100, 0, 0, 0), match=1),
        tr(1, 2, 2, (blue, red, blue, red), (-120, 0, 0, 0), match=1),
    ]
    out = score_event("teams", [red, blue], results)
    (match,) = out["matches"]
    assert [(b["board"], b["home"], b["away"], b["home_steps"]) for b in match["boards"]] == [
        (1, -25, 25, -1), (2, 110, -110, 4)]
    assert (match["home"], match["home_total"], match["away_total"], match["winner"]) == (red, 85, -85, red)
    rows = out["rankings"][0]["rows"]
    assert [(r["rank"], r["entrant"], r["match_points"], r["points"]) for r in rows] == [
        (1, red, 2, 85), (2, blue, 0, -85)]


def test_a_team_penalty_counts_in_its_match() -> None:
    """罚分 of −200 on 红 turns its +85 into −115, below 蓝's −85: 蓝 wins the match."""
    red, blue = "红", "蓝"
    results = [
        tr(1, 1, 1, (red, blue, red, blue), (-190, 50, -10, 0), match=1),
        tr(1, 2, 1, (blue, red, blue, red), (-100, 0, 0, 100), match=1),
        tr(1, 1, 2, (red, blue, red, blue), (100, 0, 0, 0), match=1),
        tr(1, 2, 2, (blue, red, blue, red), (-120, 0, 0, 0), match=1),
    ]
    out = score_event("teams", [red, blue], results, [Penalty(red, -200, "late for the second session")])
    (match,) = out["matches"]
    assert (match["home_total"], match["away_total"], match["winner"]) == (-115, -85, blue)
    assert out["adjustments"] == [{"n": 1, "type": "penalty", "entrant": red, "points": -200, "round": 1,
                                   "reason": "late for the second session"}]


def _pairs_board() -> list[TableResult]:
    """Board 1 at three tables: N–S results +50 (A), −20 (B), +50 (C) — E–W the opposite."""
    return [
        tr(1, 1, 1, ("A", "X", "A", "X"), (100, 0, 0, 0)),
        tr(1, 2, 1, ("B", "Y", "B", "Y"), (-40, 0, 0, 0)),
        tr(1, 3, 1, ("C", "Z", "C", "Z"), (0, 0, 100, 0)),
    ]


def test_pairs_matchpoints_worked_example() -> None:
    """N–S: +50 beats −20 and ties +50: 2 + 1 = 3 of a top of 4 (75%); −20 beats nobody (0%).
    E–W: −50, +20, −50: +20 scores 4 (100%), each −50 1 (25%).  The datum of N–S is +50: A and
    C score 0 steps, B −70 → −3."""
    out = score_event("howell", ["A", "B", "C", "X", "Y", "Z"], _pairs_board())
    (traveller,) = out["travellers"]
    assert [(r["ns"], r["ns_result"], r["ns_matchpoints"], r["ns_percent"], r["ns_steps"],
             r["ew"], r["ew_matchpoints"], r["ew_percent"]) for r in traveller["rows"]] == [
        ("A", 50, 3, 75.0, 0, "X", 1, 25.0),
        ("B", -20, 0, 0.0, -3, "Y", 4, 100.0),
        ("C", 50, 3, 75.0, 0, "Z", 1, 25.0),
    ]
    rows = out["rankings"][0]["rows"]
    assert [(r["rank"], r["entrant"], r["percent"]) for r in rows] == [
        (1, "Y", 100.0), (2, "A", 75.0), (2, "C", 75.0), (4, "X", 25.0), (4, "Z", 25.0), (6, "B", 0.0)]


def test_entrants_level_in_matchpoints_share_a_rank_whatever_the_rounding() -> None:
    """X scores 1/3, 1/3 and 1 of its boards' tops (6 of 18), Y 1/3 three times (6 of 18): both
    33.33% and level on the scale, so they share third place, though rounding each board to two
    decimals first made X 33.34% and Y 33.33%.  Shown percentages round the exact mean (Q: 650/9
    is 72.22, not the 72.23 of its rounded boards)."""
    boards: dict[int, dict[str, int]] = {1: {"X": 0, "Z": 0, "Q": 10, "R": 20}, 2: {"X": 0, "Z": 0, "Q": 10, "R": 20},
                                         3: {"X": 10, "Z": 0, "Q": 20, "R": 5}}
    boards.update({k: {"Y": 0, "Z": -10, "Q": 10, "R": 20} for k in (4, 5, 6)})
    rows = {s.entrant: s for s in standings(boards)}
    assert (rows["X"].rank, rows["X"].percent, rows["X"].exact) == (3, 33.33, Fraction(100, 3))
    assert (rows["Y"].rank, rows["Y"].percent) == (3, 33.33) and rows["Z"].rank == 5
    assert (rows["Q"].percent, rows["R"].percent) == (72.22, 88.89)
    assert shown(Fraction(1, 6) * 100) == 16.67 and shown(Fraction(-1, 8)) == -0.13


def test_a_board_left_unfinished_is_a_last_place_worked_example() -> None:
    """R8.1: B tops board 1 (+50 against −20 and 0: 100%, +2 steps over the datum 0) and leaves
    board 2, on which A (+100) beats C (−100).  Ranked over the boards played alone, B's one
    board would put it first with 100%.  Held to board 2 it scores 0 of its top (2) and the
    scale's bottom there, −24 steps: 50% and −22, level with A's 50% (0% and 100%) on the
    percentage and behind it on the scale (−1 + 4 = +3).  A and C score as if B had never been
    on board 2."""
    boards = {1: {"A": -20, "B": 50, "C": 0}, 2: {"A": 100, "C": -100}}
    loose = {s.entrant: s for s in standings(boards)}
    assert (loose["B"].rank, loose["B"].percent) == (1, 100.0)
    rows = {s.entrant: s for s in standings(boards, unfinished={2: ["B"]})}
    assert [(rows[e].rank, rows[e].percent, rows[e].steps, rows[e].boards, rows[e].unfinished)
            for e in "ABC"] == [(1, 50.0, 3, 2, 0), (2, 50.0, -22, 1, 1), (3, 25.0, -4, 2, 0)]
    assert (rows["B"].matchpoints, rows["B"].top) == (4, 4 + 2)
    for e in "AC":
        assert (rows[e].exact, rows[e].steps, rows[e].top) == (loose[e].exact, loose[e].steps, loose[e].top)
    # A board nobody finished still holds those who left it: B alone there scores 0%, not nothing.
    alone = {s.entrant: s for s in standings({1: {"B": 50}}, unfinished={2: ["B"]})}
    assert (alone["B"].percent, alone["B"].unfinished) == (25.0, 1)


_RESULTS = st.dictionaries(st.sampled_from("ABCDE"), st.integers(-300, 300), min_size=1, max_size=5)


@given(st.dictionaries(st.integers(1, 3), _RESULTS, min_size=1, max_size=3), st.data())
def test_leaving_a_board_never_does_better_than_finishing_it(boards: dict[int, dict[str, int]],
                                                             data: st.DataObject) -> None:
    """Whatever the results, an entrant who leaves a board (held to it unfinished) scores no more
    than with any result finished there, on the percentage and on the scale, and everyone else
    scores exactly as without that entrant's result on the board; guests alike."""
    number = data.draw(st.sampled_from(sorted(boards)))
    who = data.draw(st.sampled_from(sorted(boards[number])))
    guests = data.draw(st.sets(st.sampled_from("ABCDE")))
    left = {n: {e: r for e, r in results.items() if (n, e) != (number, who)} for n, results in boards.items()}
    finished = {s.entrant: s for s in standings(boards, guests)}
    held = {s.entrant: s for s in standings(left, guests, unfinished={number: [who]})}
    without = {s.entrant: s for s in standings(left, guests)}
    assert held[who].exact <= finished[who].exact and held[who].steps <= finished[who].steps
    assert held[who].unfinished == 1 and held[who].boards == finished[who].boards - 1
    for entrant, row in without.items():
        if entrant != who:
            mine = held[entrant]
            assert (mine.exact, mine.steps, mine.matchpoints, mine.top) == (row.exact, row.steps, row.matchpoints,
                                                                            row.top)


@pytest.mark.parametrize(("form", "points", "fits"), [
    ("howell", -5, True), ("howell", -0.25, True), ("howell", -0.1, True), ("howell", -1e-9, False),
    ("howell", -0.005, False), ("howell", 0, False), ("howell", -10001, False), ("howell", True, False),
    ("teams", -200, True), ("teams", -0.5, False), ("teams", -1e-9, False), ("teams", float("nan"), False),
])
def test_a_penalty_is_whole_points_for_teams_and_hundredths_for_pairs(form: str, points: object, fits: bool) -> None:
    """No crumb of a penalty too small to show may still decide a tie."""
    assert penalty_fits(points, form) is fits


def test_a_mitchell_ranks_each_direction_apart() -> None:
    out = score_event("mitchell", ["A", "B", "C", "X", "Y", "Z"], _pairs_board())
    assert [r["field"] for r in out["rankings"]] == ["N–S", "E–W"]
    assert [r["entrant"] for r in out["rankings"][0]["rows"]] == ["A", "C", "B"]
    assert [r["entrant"] for r in out["rankings"][1]["rows"]] == ["Y", "X", "Z"]


def test_the_rankings_as_csv_are_the_rankings_row_by_row() -> None:
    """Every field in order, a row an entrant with its players and figures as shown; a name a
    spreadsheet would take for a formula is kept as text."""
    adjustments = [Penalty("A", -2.5, "late")]
    out = score_event("mitchell", ["A", "B", "C", "X", "Y", "Z"], _pairs_board(), adjustments)
    players = {"A": ["=cmd()", "Ann"], "B": ["Bo", "+1"], "Y": ["@y", "-y"]}
    text = rankings_csv(out, players)
    assert text.endswith("\r\n") and text.count("\r\n") == 7
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == ["field", "rank", "entrant", "players", "boards", "matchpoints", "top", "percent",
                             "steps", "penalty"]
    expected = [(ranking["field"], r) for ranking in out["rankings"] for r in ranking["rows"]]
    assert [(row["field"], row["entrant"]) for row in rows] == [(f, r["entrant"]) for f, r in expected]
    for row, (_, r) in zip(rows, expected, strict=True):
        assert (int(row["rank"]), int(row["matchpoints"]), int(row["top"]), int(row["steps"])) == (
            r["rank"], r["matchpoints"], r["top"], r["steps"])
        assert row["percent"] == f"{r['percent']:.2f}"
    a = next(row for row in rows if row["entrant"] == "A")
    assert (a["players"], a["penalty"]) == ("'=cmd() / Ann", "-2.50")
    assert next(row for row in rows if row["entrant"] == "B")["players"] == "Bo / +1"
    assert next(row for row in rows if row["entrant"] == "Y")["players"] == "'@y / -y"
    assert next(row for row in rows if row["entrant"] == "C")["players"] == ""


def test_a_team_events_rankings_as_csv() -> None:
    out = score_event("teams", ["=Red", "Blue"], [
        tr(1, 1, 1, ("=Red", "Blue", "=Red", "Blue"), (-100, 0, 0, 100), match=1),
        tr(1, 2, 1, ("Blue", "=Red", "Blue", "=Red"), (0, 0, 0, 0), match=1)])
    rows = list(csv.reader(io.StringIO(rankings_csv(out, {"=Red": ["a", "b", "c", "d"]}))))
    assert rows == [["field", "rank", "entrant", "players", "matches", "match_points", "points", "byes"],
                    ["teams", "1", "Blue", "", "1", "2", "100", "0"],
                    ["teams", "2", "'=Red", "a / b / c / d", "1", "0", "-100", "0"]]


def test_a_pairs_penalty_and_a_correction_in_order() -> None:
    """The referee corrects table 2 (B had −40 written for what was +140: N–S +70, now the top)
    and takes 10 percentage points off A: C 25% ahead of A 15%."""
    adjustments: list[Correction | Penalty] = [
        Correction(1, 2, 1, (140, 0, 0, 0), "score written wrongly"),
        Penalty("A", -10, "slow play"),
    ]
    out = score_event("mitchell", ["A", "B", "C", "X", "Y", "Z"], _pairs_board(), adjustments)
    ns = out["rankings"][0]["rows"]
    assert [(r["rank"], r["entrant"], r["percent"], r["penalty"]) for r in ns] == [
        (1, "B", 100.0, 0), (2, "C", 25.0, 0), (3, "A", 15.0, -10)]
    assert [a["type"] for a in out["adjustments"]] == ["correction", "penalty"]
    assert out["adjustments"][0]["raw"] == {"N": 140, "E": 0, "S": 0, "W": 0}


def test_a_correction_must_name_a_result() -> None:
    with pytest.raises(EventError, match="no result of board 1 at table 4 in round 1"):
        score_event("howell", ["A", "B", "C", "X", "Y", "Z"], _pairs_board(), [Correction(1, 4, 1, (0,) * 4, "x")])


def test_individuals_compare_each_seat_with_the_same_seat() -> None:
    """Two tables: N scores +10 and −30, E −20 and −20 …; N at table 1 beats N at table 2."""
    results = [
        tr(1, 1, 1, ("a", "b", "c", "d"), (10, -20, 0, 10), (10, -20, 0, 10)),
        tr(1, 2, 1, ("e", "f", "g", "h"), (-30, -20, 40, 10), (-30, -20, 40, 10)),
    ]
    out = score_event("individual", list("abcdefgh"), results)
    seats = [row["seats"] for row in out["travellers"][0]["rows"]]
    assert [(s["N"]["player"], s["N"]["matchpoints"], s["E"]["matchpoints"], s["S"]["matchpoints"]) for s in seats] == [
        ("a", 2, 1, 0), ("e", 0, 1, 2)]
    rows = {r["entrant"]: r for r in out["rankings"][0]["rows"]}
    assert rows["a"]["rank"] == 1 and rows["b"]["percent"] == rows["f"]["percent"] == 50.0


# ------------------------------------------------------------------------------ club nights


def _pairs(n: int) -> list[dict[str, Any]]:
    return [{"name": f"Pair {i}", "players": [f"p{i}a", f"p{i}b"]} for i in range(1, n + 1)]


def _teams(n: int) -> list[dict[str, Any]]:
    return [{"name": f"队{i}", "players": [f"t{i}{c}" for c in "abcd"]} for i in range(1, n + 1)]


EVENTS: dict[str, dict[str, Any]] = {
    "mitchell": {"form": "mitchell", "entrants": _pairs(5), "boards_per_round": 1},
    "howell": {"form": "howell", "entrants": _pairs(4), "boards_per_round": 1, "rounds": 2},
    "individual": {"form": "individual", "entrants": [f"pl{i}" for i in range(8)], "boards_per_round": 1,
                   "rounds": 2},
    "teams": {"form": "teams", "entrants": _teams(2), "boards_per_round": 1, "sessions": 2},
    "swiss": {"form": "teams", "entrants": _teams(3), "boards_per_round": 1, "rounds": 2},
}


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], event: dict[str, Any],
         *extra: str) -> tuple[int, dict[str, Any], Path, str]:
    path = tmp_path / "night.json"
    path.write_text(json.dumps({"event": "club-night", "seed": "night-1", "level": "intermediate", **event}),
                    encoding="utf-8")
    records = tmp_path / "night.jsonl"
    code = main(["event", str(path), "--json", "--records", str(records), *extra])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else {}), records, err


def _records(path: Path) -> list[dict[str, Any]]:
    return [obj for _, obj in load_records(str(path))]


def _mp(results: dict[str, int]) -> dict[str, int]:
    return {who: sum(2 if r > other else 1 if r == other else 0 for w2, other in results.items() if w2 != who)
            for who, r in results.items()}


def recompute_matches(records: list[dict[str, Any]]) -> dict[tuple[int, int], dict[str, int]]:
    """Each match's points for each team, from the records alone (without the scoring module)."""
    tables: dict[tuple[int, int, int], dict[str, Any]] = {}
    for rec in records:
        s = rec["seating"]
        tables[(s["round"], s["match"], rec["board"]["number"])] = tables.get(
            (s["round"], s["match"], rec["board"]["number"]), {}) | {s["entrants"]["N"]: rec["raw"]}
    points: dict[tuple[int, int], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for (round_, match, _), by_ns in tables.items():
        (a, raw_a), (b, raw_b) = by_ns.items()
        ns = {t: _half(r["N"] + r["S"] - r["E"] - r["W"]) for t, r in ((a, raw_a), (b, raw_b))}
        points[(round_, match)][a] += ns[a] - ns[b]
        points[(round_, match)][b] += ns[b] - ns[a]
    return {k: dict(v) for k, v in points.items()}


def recompute_fields(form: str, records: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """Each entrant's matchpoints and top, from the records alone (without the scoring module)."""
    fields: dict[tuple[int, str], dict[str, int]] = defaultdict(dict)
    for rec in records:
        names, raw, board = rec["seating"]["entrants"], rec["raw"], rec["board"]["number"]
        if form == "individual":
            factor = rec["options"]["one_deck_factor"] if rec["options"]["scoring"] != "raw" else 1
            for seat in SEATS:
                fields[(board, seat)][names[seat]] = rec["final"][seat] // factor
        else:
            ns = _half(raw["N"] + raw["S"] - raw["E"] - raw["W"])
            fields[(board, "NS")][names["N"]] = ns
            fields[(board, "EW")][names["E"]] = -ns
    totals: dict[str, tuple[int, int]] = defaultdict(lambda: (0, 0))
    for field in fields.values():
        for who, mp in _mp(field).items():
            totals[who] = (totals[who][0] + mp, totals[who][1] + 2 * (len(field) - 1))
    return dict(totals)


@pytest.mark.parametrize("name", sorted(EVENTS))
def test_a_club_night_played_by_computers_checks_out_from_its_records(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    event = EVENTS[name]
    code, out, path, _ = _run(tmp_path, capsys, event)
    assert code == 0
    records = _records(path)
    assert len(list(check_records(records, check_seed=True))) == len(records)
    boards = verify_board_set("night-1", out["boards"]["definition"], out["boards"]["commitment"])
    for rec in records:
        assert rec["format"] == "gongzhu-deal/2" and rec["board"]["event"] == "club-night"
        hands = boards.board(rec["board"]["number"]).hands
        assert rec["hands"] == {s: [c.code for c in hands[i]] for i, s in enumerate(SEATS)}
        assert {p["computer"] for p in rec["players"].values()} == {"intermediate"}
    if event["form"] == "teams":
        by_match = {(m["round"], m["match"]): {m["home"]: m["home_points"], m["away"]: m["away_points"]}
                    for m in out["matches"]}
        assert by_match == recompute_matches(records)
        if name == "swiss":  # three teams, two rounds: a bye each round, no rematch
            pairs = [frozenset((m["home"], m["away"])) for m in out["matches"]]
            assert len(pairs) == len(set(pairs)) == 2
            assert sum(r["byes"] for r in out["rankings"][0]["rows"]) == 2
        return
    got = {r["entrant"]: (r["matchpoints"], r["top"]) for ranking in out["rankings"] for r in ranking["rows"]}
    assert got == recompute_fields(event["form"], records)
    played = {len(t["rows"]) for t in out["travellers"]}
    assert min(played) >= 2, "every board compared at two tables at least"


def test_the_referee_scores_the_night_again_from_its_records(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Play, then add a correction and a penalty to the file and score it from the records
    (--score): the correction's table changes, the log lists both in order, nothing is played."""
    code, first, path, _ = _run(tmp_path, capsys, EVENTS["howell"])
    assert code == 0
    row = first["travellers"][0]["rows"][0]
    adjustments = [
        {"type": "correction", "round": row["round"], "table": row["table"], "board": first["travellers"][0]["board"],
         "raw": {"N": 800, "E": 0, "S": 0, "W": 0}, "reason": "满贯 not written"},
        {"type": "penalty", "entrant": "Pair 2", "points": -12.5, "reason": "phone at the table"},
    ]
    event = dict(EVENTS["howell"], adjustments=adjustments)
    file = tmp_path / "night.json"
    file.write_text(json.dumps({"event": "club-night", "seed": "night-1", **event}), encoding="utf-8")
    assert main(["event", str(file), "--json", "--score", str(path)]) == 0
    again = json.loads(capsys.readouterr().out)
    fixed = again["travellers"][0]["rows"][0]
    assert fixed["ns_result"] == 400 and fixed["ns_percent"] == 100.0
    assert [a["n"] for a in again["adjustments"]] == [1, 2]
    pair2 = next(r for r in again["rankings"][0]["rows"] if r["entrant"] == "Pair 2")
    assert pair2["penalty"] == -12.5
    assert main(["event", str(file), "--score", str(path)]) == 0
    text = capsys.readouterr().out
    assert "1. correction, round" in text and "满贯 not written" in text and "2. penalty (罚分) Pair 2 -12.5" in text
    assert main(["event", str(file), "--csv", "--score", str(path)]) == 0
    printed = capsys.readouterr()
    rows = list(csv.DictReader(io.StringIO(printed.out)))
    assert [(r["rank"], r["entrant"], r["percent"], r["penalty"]) for r in rows] == [
        (str(r["rank"]), r["entrant"], f"{r['percent']:.2f}", f"{r['penalty']:.2f}")
        for r in again["rankings"][0]["rows"]]
    assert next(r for r in rows if r["entrant"] == "Pair 2")["players"] and printed.err == ""


@pytest.mark.parametrize("kind", list(EVENTS))
def test_scoring_from_records_takes_the_whole_event_only(
        kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--score on the night's whole records gives the night's results again; on a part of them
    (the first three tables' boards) it is refused in one line naming a board missing — a part of
    an event is not ranked as if it were all of it."""
    code, played, path, _ = _run(tmp_path, capsys, EVENTS[kind])
    assert code == 0
    file = tmp_path / "night.json"
    assert main(["event", str(file), "--json", "--score", str(path)]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again == {k: v for k, v in played.items() if k not in ("boards", "records")}
    part = tmp_path / "part.jsonl"
    part.write_text("".join(line + "\n" for line in path.read_text(encoding="utf-8").splitlines()[:3]),
                    encoding="utf-8")
    assert main(["event", str(file), "--score", str(part)]) == 2
    err = capsys.readouterr().err
    assert "not a whole event of this file: missing round" in err and err.count("\n") == 1


def test_scoring_broken_records_says_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--score on records that are not a whole event of the file: one line naming what is wrong,
    exit 2, no traceback (a record without its round, a board twice, a team match's table missing)."""
    code, _, path, _ = _run(tmp_path, capsys, EVENTS["howell"])
    assert code == 0
    file = tmp_path / "night.json"
    lines = path.read_text(encoding="utf-8").splitlines()
    broken = tmp_path / "broken.jsonl"

    def score(records: list[str]) -> str:
        broken.write_text("".join(line + "\n" for line in records), encoding="utf-8")
        assert main(["event", str(file), "--score", str(broken)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
        return err

    first = json.loads(lines[0])
    del first["seating"]["round"]
    assert "seating.round" in score([json.dumps(first, ensure_ascii=False), *lines[1:]])
    assert "already played" in score([lines[0], *lines])  # the replay's own check (R8.1)
    (tmp_path / "teams").mkdir()
    code, _, teams, _ = _run(tmp_path / "teams", capsys, EVENTS["teams"])
    assert code == 0
    teams_file = tmp_path / "teams" / "night.json"
    table_two = [line for line in teams.read_text(encoding="utf-8").splitlines()
                 if json.loads(line)["seating"]["table"] != 1]
    broken.write_text("".join(line + "\n" for line in table_two), encoding="utf-8")
    assert main(["event", str(teams_file), "--score", str(broken)]) == 2
    assert "not a whole event" in capsys.readouterr().err


def test_a_toml_file_runs_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "night.toml"
    path.write_text('event = "toml-night"\nform = "howell"\nseed = "s1"\nrounds = 1\nboards_per_round = 1\n'
                    'level = "beginner"\n'
                    'entrants = [{name = "甲", players = ["a", {name = "b", level = "random"}]},\n'
                    '  {name = "乙", players = ["c", "d"]}, {name = "丙", players = ["e", "f"]},\n'
                    '  {name = "丁", players = ["g", "h"]}]\n', encoding="utf-8")
    assert main(["event", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Ranking (all)" in out and "Board 1" in out
    records = _records(tmp_path / "night.records.jsonl")
    levels = {p["name"]: p["computer"] for r in records for p in r["players"].values()}
    assert levels["b"] == "random" and levels["a"] == "beginner"


# ------------------------------------------------------------------------------ refused files


BAD: list[tuple[dict[str, Any], str]] = [
    ({"form": "bridge", "entrants": _pairs(4)}, "form: one of mitchell, howell, individual, teams, not 'bridge'"),
    ({"form": "mitchell", "entrants": _pairs(4)}, "entrants: a mitchell event has 5 to 128 pairs, not 4"),
    ({"form": "howell", "entrants": _pairs(4), "rounds": 4}, "rounds: a whole number from 1 to 3, not 4"),
    ({"form": "individual", "entrants": [f"x{i}" for i in range(9)]},
     "entrants: an individual event seats a multiple of four players, not 9"),
    ({"form": "teams", "entrants": [{"name": "A", "players": ["a", "b", "c"]}, *_teams(1)]},
     "entrants[0].players: a team has 4 players, not 3"),
    ({"form": "howell", "entrants": [*_pairs(3), {"name": "Pair 1", "players": ["q", "r"]}]},
     "entrants: two entrants are named 'Pair 1'"),
    ({"form": "howell", "entrants": _pairs(4), "level": "grandmaster"}, "level: a computer level: one of"),
    ({"form": "howell", "entrants": _pairs(4), "preset": "bridge"}, "preset"),
    ({"form": "howell", "entrants": _pairs(4), "options": {"decks": 3}}, "options:"),
    ({"form": "howell", "entrants": _pairs(4), "boards_per_round": 30},
     "boards_per_round: the event would deal 90 boards, more than a board set's 64"),
    ({"form": "howell", "entrants": _pairs(4), "adjustments": [{"type": "penalty", "entrant": "Nobody",
                                                                "points": -5, "reason": "r"}]},
     "adjustments[0].entrant: no entrant is named 'Nobody'"),
    ({"form": "howell", "entrants": _pairs(4), "adjustments": [{"type": "penalty", "entrant": "Pair 1",
                                                                "points": 5, "reason": "r"}]},
     "adjustments[0].points: a penalty takes percentage points (to the hundredth) off"),
    ({"form": "howell", "entrants": _pairs(4), "adjustments": [{"type": "penalty", "entrant": "Pair 1",
                                                                "points": -1e-9, "reason": "r"}]},
     "adjustments[0].points: a penalty takes percentage points (to the hundredth) off"),
    ({"form": "howell", "entrants": _pairs(4), "adjustments": [
        {"type": "correction", "round": 1, "table": 3, "board": 1, "raw": {"N": 0, "E": 0, "S": 0, "W": 0},
         "reason": "r"}]}, "adjustments[0]: no table 3 plays in round 1"),
    ({"form": "howell", "entrants": _pairs(4), "adjustments": [
        {"type": "correction", "round": 1, "table": 1, "board": 3, "raw": {"N": 0, "E": 0, "S": 0, "W": 0},
         "reason": "r"}]}, "adjustments[0]: table 1 does not play board 3 in round 1"),
    ({"form": "howell", "entrants": _pairs(4), "colour": "red"}, "the event file: unknown key 'colour'"),
    ({"form": "mitchell", "entrants": _pairs(5), "sessions": 2}, "sessions: only a team match is played in sessions"),
]


@pytest.mark.parametrize(("event", "message"), BAD, ids=[m[:40] for _, m in BAD])
def test_a_bad_event_file_is_refused_in_one_line_and_nothing_is_written(
        event: dict[str, Any], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, records, err = _run(tmp_path, capsys, event)
    assert code == 2
    assert err.startswith("gongzhu event: ") and message in err and err.count("\n") == 1
    assert not records.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["night.json"]


@pytest.mark.parametrize(("event", "message"), BAD, ids=[m[:40] for _, m in BAD])
def test_the_refusal_says_what_is_wrong(event: dict[str, Any], message: str) -> None:
    with pytest.raises(EventError) as e:
        parse_event({"event": "club-night", "seed": "night-1", **event}, levels=("beginner", "intermediate"))
    assert message in str(e.value) and "\n" not in str(e.value)


def test_unreadable_files_and_existing_records_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["event", str(tmp_path / "missing.json")]) == 2
    assert capsys.readouterr().err.startswith("gongzhu event: cannot read")
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    assert main(["event", str(broken)]) == 2
    assert "is not valid JSON" in capsys.readouterr().err
    code, _, records, _ = _run(tmp_path, capsys, EVENTS["howell"])
    assert code == 0
    before = records.read_bytes()
    code, _, _, err = _run(tmp_path, capsys, EVENTS["howell"])
    assert code == 2 and "exists: the records go into a new file" in err
    assert records.read_bytes() == before
