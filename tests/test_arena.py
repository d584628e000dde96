"""``gongzhu arena``: the statistics (hand-computed), seat rotations, reproducibility, the
per-team report for partnership scoring (R7.3), records (R11) and the command line.

Only the ``random`` level is assumed to exist; tests that need two distinct player types add
throw-away levels to the registry (in this process only: ``--jobs`` workers would not see them).
"""

from __future__ import annotations

import io
import itertools
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gongzhu.arena import stats
from gongzhu.arena.run import (
    ArenaConfig,
    ArenaError,
    GameResult,
    match_id,
    play_deal,
    play_game,
    player_seed,
    rotations,
    run_arena,
    seating,
)
from gongzhu.arena.stats import Tally, percentile, rank_shares, summarize, t_critical
from gongzhu.cli import arena as cli
from gongzhu.cli.main import main
from gongzhu.players import registry
from gongzhu.players.base import Player
from gongzhu.players.observation import Observation
from gongzhu.records.replay import check_file
from gongzhu.rules import Card, Play, resolve_options

RANDOM4 = ("random", "random", "random", "random")


class FirstLegal(Player):
    """Always the first legal play, never an exposure: a second, deterministic player type."""

    level = "first"

    def choose_exposures(self, obs: Observation) -> list[tuple[Card, str]]:
        return []

    def choose_play(self, obs: Observation) -> Play:
        return obs.legal_plays()[0]


class Cheat(FirstLegal):
    """Plays a card it does not hold."""

    level = "cheat"

    def choose_play(self, obs: Observation) -> Play:
        held = set(obs.hand)
        return next((c,) for c in obs.unseen() if c not in held)


def _first(seed: int | None, think: float | None, iterations: int | None) -> Player:
    return FirstLegal()


def _cheat(seed: int | None, think: float | None, iterations: int | None) -> Player:
    return Cheat()


@pytest.fixture
def levels(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Levels ``first``, ``cheat`` and ``a``…``d`` (random players under other names)."""
    monkeypatch.setitem(registry.LEVELS, "first", _first)
    monkeypatch.setitem(registry.LEVELS, "cheat", _cheat)
    for name in "abcd":
        monkeypatch.setitem(registry.LEVELS, name, registry.LEVELS["random"])
    yield


def arena(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["arena", "--no-progress", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def arena_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, err = arena([*argv, "--json"], capsys)
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def without_timing(report: dict[str, Any]) -> dict[str, Any]:
    r = json.loads(json.dumps(report))
    r.pop("elapsed_s")
    for t in r["types"]:
        t.pop("think_ms")
    out: dict[str, Any] = r
    return out


# ---------------------------------------------------------------------------------- statistics


def test_t_critical_values() -> None:
    assert t_critical(1) == pytest.approx(12.706, abs=1e-3)
    assert t_critical(2) == pytest.approx(4.303, abs=1e-3)
    assert t_critical(10) == pytest.approx(2.228, abs=1e-3)
    assert t_critical(30) == pytest.approx(2.042, abs=1e-3)
    # Beyond the table: the Cornish-Fisher expansion (t(40) = 2.02108, t(100) = 1.98397).
    assert t_critical(40) == pytest.approx(2.02108, abs=1e-4)
    assert t_critical(100) == pytest.approx(1.98397, abs=1e-4)
    values = [t_critical(df) for df in range(1, 300)]
    assert all(a > b for a, b in itertools.pairwise(values))
    assert values[-1] > stats.Z95 and t_critical(10**6) == pytest.approx(stats.Z95, abs=1e-5)
    with pytest.raises(ValueError):
        t_critical(0)


def test_critical_value_is_student_t_below_30_values_normal_from_30() -> None:
    assert stats.confidence_critical(2) == t_critical(1)
    assert stats.confidence_critical(29) == t_critical(28)
    assert stats.confidence_critical(30) == stats.Z95
    with pytest.raises(ValueError):
        stats.confidence_critical(1)


def test_summarize_small_sample_uses_t() -> None:
    s = summarize([1, 2, 3, 4])
    assert s.n == 4 and s.mean == 2.5
    assert s.sd == pytest.approx(math.sqrt(5 / 3))
    # t(3) = 3.1824463; sd / sqrt(4) = 0.6454972
    assert s.half_width == pytest.approx(2.054260, abs=1e-6)
    assert s.low == pytest.approx(2.5 - 2.054260, abs=1e-6) and s.high == pytest.approx(4.554260, abs=1e-6)
    assert s.excludes_zero()
    assert not summarize([-1.0, 1.0, 2.0]).excludes_zero()
    assert summarize([-1.0, -1.5, -2.0]).excludes_zero()


def test_summarize_large_sample_uses_normal() -> None:
    s = summarize([float(x) for x in range(30)])
    assert s.mean == 14.5
    assert s.sd == pytest.approx(math.sqrt(77.5))  # sd of 0..29 = sqrt(n (n + 1) / 12)
    assert s.half_width == pytest.approx(1.959964 * math.sqrt(77.5) / math.sqrt(30), abs=1e-5)


def test_summarize_degenerate_samples() -> None:
    assert summarize([]) == stats.Summary(0, None, None, None)
    one = summarize([5.0])
    assert one.mean == 5.0 and one.half_width is None and one.low is None
    assert one.to_dict()["ci95"] is None
    const = summarize([3.0] * 5)
    assert const.sd == 0 and const.half_width == 0 and const.to_dict()["ci95"] == [3.0, 3.0]


def test_percentile_interpolates() -> None:
    xs = [4.0, 1.0, 3.0, 2.0]
    assert percentile(xs, 50) == 2.5
    assert percentile(xs, 95) == pytest.approx(3.85)
    assert percentile(xs, 0) == 1.0 and percentile(xs, 100) == 4.0
    assert percentile([7.0], 95) == 7.0
    assert percentile([], 50) is None
    with pytest.raises(ValueError):
        percentile(xs, 101)


def test_rank_shares_split_ties() -> None:
    assert rank_shares([10, 10, -5, 0]) == ([0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0])
    assert rank_shares([3, -1, -1, 3]) == ([0.5, 0.0, 0.0, 0.5], [0.0, 0.5, 0.5, 0.0])
    assert rank_shares([0, 0, 0, 0]) == ([0.25] * 4, [0.25] * 4)
    assert rank_shares([1, 2, 3, 4]) == ([0, 0, 0, 1.0], [1.0, 0, 0, 0])


# ---------------------------------------------------------------------------------- rotations


def test_seating_shifts_the_players_round_the_table() -> None:
    players = ("a", "b", "c", "d")
    assert seating(players, 0) == players
    assert seating(players, 1) == ("d", "a", "b", "c")  # listed player k sits in seat k + 1
    for level in players:
        assert sorted(seating(players, r).index(level) for r in range(4)) == [0, 1, 2, 3]


def test_duplicate_puts_each_type_in_each_seat_once_on_the_same_cards(levels: None) -> None:
    options = resolve_options("online")
    config = ArenaConfig(("a", "b", "c", "d"), options, 3, seed=5, duplicate=True, records=True)
    for i in range(3):
        games = play_deal(config, i)
        assert [g.rotation for g in games] == [0, 1, 2, 3]
        for level in "abcd":
            assert sorted(g.levels.index(level) for g in games) == [0, 1, 2, 3]
        hands = {json.dumps(g.record["hands"]) for g in games if g.record is not None}
        assert len(hands) == 1  # the same deal in every rotation
    other = play_deal(config, 1)[0].record
    assert other is not None and json.dumps(other["hands"]) not in hands


def test_without_duplicate_one_rotation_per_deal() -> None:
    config = ArenaConfig(RANDOM4, resolve_options("online"), 6, seed=1)
    assert [rotations(config, i) for i in range(6)] == [(0,), (1,), (2,), (3,), (0,), (1,)]
    assert [len(games) for games in run_arena(config)] == [1] * 6


def test_player_seeds_differ_by_deal_rotation_and_seat() -> None:
    seeds = {player_seed(7, d, r, s) for d in range(3) for r in range(4) for s in range(4)}
    assert len(seeds) == 48 and all(0 <= x < 2**63 for x in seeds)


def test_think_times_cover_every_decision() -> None:
    config = ArenaConfig(RANDOM4, resolve_options("online"), 1, seed=2)
    g = play_game(config, 0, 0)
    # One exposure decision per seat (standard exposure) and 13 plays.
    assert [len(t) for t in g.think] == [14, 14, 14, 14]
    assert all(x >= 0 for t in g.think for x in t)


def test_zero_sum_finals_add_up_to_about_zero() -> None:
    # R7.2: each result is rounded (error at most 1/3) before x 12, so 4 results add to 0 or ±1.
    config = ArenaConfig(RANDOM4, resolve_options("online"), 8, seed=3, duplicate=True)
    for games in run_arena(config):
        for g in games:
            assert abs(sum(g.final)) <= 12
            assert all(f % 12 == 0 for f in g.final)


# ---------------------------------------------------------------------------------- reports


def test_one_type_report(capsys: pytest.CaptureFixture[str]) -> None:
    r = arena_json(["--players", "random,random,random,random", "--deals", "3", "--seed", "1",
                    "--duplicate"], capsys)
    assert r["format"] == "gongzhu-arena/1"
    assert set(r) == {"format", "config", "deals", "games", "complete", "stopped", "types", "head_to_head",
                      "teams", "elapsed_s"}
    assert r["complete"] is True and r["stopped"] is None
    assert r["config"] == {
        "players": list(RANDOM4), "preset": "online", "options": resolve_options("online").to_dict(),
        "deals": 3, "seed": 1, "duplicate": True, "rotations": 4, "think": None, "iterations": None,
    }
    assert (r["deals"], r["games"], r["head_to_head"], r["teams"]) == (3, 12, [], None)
    [t] = r["types"]
    assert set(t) == {"level", "seats", "seat_deals", "raw", "final", "first", "last", "think_ms", "stand_ins"}
    assert (t["level"], t["seats"], t["seat_deals"], t["stand_ins"]) == ("random", 4, 48, 0)
    for key in ("raw", "final", "first", "last"):
        assert set(t[key]) == {"n", "mean", "ci95", "half_width", "sd"} and t[key]["n"] == 3
    # One type holds every seat: it finishes first (and last) exactly a quarter of the time.
    assert t["first"]["mean"] == 0.25 and t["last"]["mean"] == 0.25 and t["first"]["half_width"] == 0
    assert abs(t["final"]["mean"]) <= 3  # zero-sum up to rounding
    assert set(t["think_ms"]) == {"decisions", "mean", "p50", "p95", "max"}
    assert t["think_ms"]["decisions"] == 48 * 14
    assert t["think_ms"]["p50"] <= t["think_ms"]["p95"] <= t["think_ms"]["max"]


def test_tally_against_hand_computed_values(levels: None) -> None:
    config = ArenaConfig(("a", "b", "a", "b"), resolve_options("partners"), 2, duplicate=True)
    none: tuple[float, ...] = ()
    tally = Tally(config)
    tally.add(0, [
        GameResult(0, 0, ("a", "b", "a", "b"), (10, 20, 30, 40), (1, 2, 3, 4),
                   ((0.001,), (0.002,), (0.003,), (0.004,))),
        GameResult(0, 1, ("b", "a", "b", "a"), (0, 0, 0, 0), (0, 0, 0, 0), (none, none, none, none)),
    ])
    tally.add(1, [GameResult(1, 0, ("a", "b", "a", "b"), (-10, -20, -30, -40), (-1, -2, -3, -4),
                             (none, none, none, none))])
    r = tally.report()
    a, b = r["types"]
    assert (a["seat_deals"], r["deals"], r["games"]) == (6, 2, 3)
    # Per deal a's raw is the mean over its seats and rotations: deal 0 (10+30+0+0)/4 = 10, deal 1 -20.
    assert a["raw"] == {"n": 2, "mean": -5.0, "sd": round(15 * math.sqrt(2), 4),
                        "half_width": round(t_critical(1) * 15, 4),
                        "ci95": [round(-5 - t_critical(1) * 15, 4), round(-5 + t_critical(1) * 15, 4)]}
    assert b["raw"]["mean"] == -7.5  # deal 0: (20+40+0+0)/4 = 15, deal 1: -30
    # First/last by final, per deal over a's 4 and 2 seats; all tied in game 2 of deal 0: 1/4 each.
    assert a["first"]["mean"] == pytest.approx((0.125 + 0.5) / 2)  # deal 1: N first
    assert b["first"]["mean"] == pytest.approx((0.375 + 0) / 2)  # deal 0: W first
    assert a["last"]["mean"] == pytest.approx((0.375 + 0) / 2)
    assert b["last"]["mean"] == pytest.approx((0.125 + 0.5) / 2)
    assert a["think_ms"] == {"decisions": 2, "mean": 2.0, "p50": 2.0, "p95": 2.9, "max": 3.0}
    [h] = r["head_to_head"]
    assert h["raw"]["mean"] == 2.5 and h["raw"]["half_width"] == round(t_critical(1) * 7.5, 4)  # -5, +10
    aa, bb = r["teams"]["compositions"]
    assert (aa["key"], aa["team_deals"], bb["key"], bb["team_deals"]) == ("a+a", 3, "b+b", 3)
    assert aa["raw"]["mean"] == -10 and bb["raw"]["mean"] == -15  # a+a: deal 0 (40+0)/2, deal 1 -40
    assert aa["final"]["mean"] == pytest.approx((1 - 2) / 2)  # each member's final: (1+3)/2, then 0
    [th] = r["teams"]["head_to_head"]
    assert th["raw"]["mean"] == 5.0
    text = cli.format_report(r)
    assert "a − b: +2.5 raw/deal (95% CI " in text and "[no clear difference]" in text
    h["raw"]["ci95"] = [1.0, 4.0]
    assert "n=2 deals  [a ahead]" in cli.format_report(r)
    h["raw"]["ci95"] = [-4.0, -1.0]
    assert "n=2 deals  [b ahead]" in cli.format_report(r)


def test_head_to_head_is_the_mean_of_per_deal_differences(levels: None) -> None:
    options = resolve_options("online")
    config = ArenaConfig(("first", "random", "random", "first"), options, 5, seed=9, duplicate=True)
    tally = Tally(config)
    per_deal: list[float] = []
    for i, games in enumerate(run_arena(config)):
        tally.add(i, games)
        f = [g.raw[s] for g in games for s in range(4) if g.levels[s] == "first"]
        r = [g.raw[s] for g in games for s in range(4) if g.levels[s] == "random"]
        assert len(f) == len(r) == 8
        per_deal.append(sum(f) / 8 - sum(r) / 8)
    report = tally.report()
    [h] = report["head_to_head"]
    assert (h["a"], h["b"]) == ("first", "random")
    expect = summarize(per_deal)
    assert h["raw"]["n"] == 5
    assert h["raw"]["mean"] == pytest.approx(expect.mean, abs=1e-4)
    assert h["raw"]["half_width"] == pytest.approx(expect.half_width, abs=1e-4)
    # The head-to-head interval is on per-deal differences: t with 4 degrees of freedom.
    assert expect.half_width == pytest.approx(t_critical(4) * (expect.sd or 0) / math.sqrt(5))
    first, random_ = report["types"]
    assert first["raw"]["mean"] - random_["raw"]["mean"] == pytest.approx(h["raw"]["mean"], abs=1e-3)
    # Rank shares of the two types add to one per deal.
    assert first["first"]["mean"] + random_["first"]["mean"] == pytest.approx(0.5)


def test_partnership_report_per_team(levels: None, capsys: pytest.CaptureFixture[str]) -> None:
    # first on N-S in rotation 0, on E-W in rotation 1 …: teams first+first against random+random.
    r = arena_json(["--players", "first,random,first,random", "--preset", "partners", "--deals", "4",
                    "--seed", "2", "--duplicate"], capsys)
    teams = r["teams"]
    assert [c["key"] for c in teams["compositions"]] == ["first+first", "random+random"]
    ff, rr = teams["compositions"]
    assert ff["team"] == ["first", "first"] and ff["team_deals"] == rr["team_deals"] == 16
    # R7.3: each member gets (T1 - T2) / 2, the other team the opposite.
    assert ff["final"]["mean"] == pytest.approx(-rr["final"]["mean"])
    # A team of one type: its raw is the two members' raws added.
    types = {t["level"]: t for t in r["types"]}
    assert ff["raw"]["mean"] == pytest.approx(2 * types["first"]["raw"]["mean"], abs=1e-3)
    assert ff["final"]["mean"] == pytest.approx(types["first"]["final"]["mean"], abs=1e-3)
    [h] = teams["head_to_head"]
    assert (h["a"], h["b"], h["raw"]["n"]) == ("first+first", "random+random", 4)
    assert h["final"]["mean"] == pytest.approx(2 * ff["final"]["mean"], abs=1e-3)


def test_partnership_mixed_teams_and_no_teams_for_other_scorings(capsys: pytest.CaptureFixture[str]) -> None:
    r = arena_json(["--players", "random,random,random,random", "--preset", "partners2", "--deals", "2"], capsys)
    assert [c["key"] for c in r["teams"]["compositions"]] == ["random+random"]
    assert r["teams"]["head_to_head"] == []
    r = arena_json(["--players", "random,random,random,random", "--preset", "online", "--set",
                    "scoring=partners", "--deals", "2"], capsys)
    assert r["teams"] is not None
    r = arena_json(["--players", "random,random,random,random", "--preset", "tournament", "--deals", "2"], capsys)
    assert r["teams"] is None


def test_same_seed_same_results(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--players", "random,random,random,random", "--deals", "4", "--seed", "11", "--duplicate"]
    a, b = arena_json(argv, capsys), arena_json(argv, capsys)
    assert without_timing(a) == without_timing(b)
    c = arena_json([*argv[:-2], "12", "--duplicate"], capsys)
    assert without_timing(c)["types"] != without_timing(a)["types"]


def test_jobs_give_the_same_results(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    argv = ["--players", "random,random,random,random", "--preset", "partners", "--deals", "5", "--seed",
            "4", "--duplicate"]
    one = arena_json([*argv, "--out", str(tmp_path / "1.jsonl")], capsys)
    two = arena_json([*argv, "--jobs", "2", "--out", str(tmp_path / "2.jsonl")], capsys)
    assert without_timing(one) == without_timing(two)
    assert (tmp_path / "1.jsonl").read_bytes() == (tmp_path / "2.jsonl").read_bytes()


def test_out_writes_every_game_as_a_record(levels: None, capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    code, _, err = arena(["--players", "first,random,random,random", "--deals", "2", "--seed", "3",
                          "--duplicate", "--out", str(out)], capsys)
    assert code == 0, err
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["match"] for r in records] == [match_id(3, d, r) for d in range(2) for r in range(4)]
    assert [r["match"] for r in records][:2] == ["arena-3-0-r0", "arena-3-0-r1"]
    assert records[1]["players"] == {"N": "random", "E": "first", "S": "random", "W": "random"}
    assert all(r["deal_index"] == 0 and r["first_receiver"] == "N" and r["preset"] == "online" for r in records)
    checked = check_file(out, check_seed=True)  # every record replays by the rules (R11)
    assert len(checked) == 8


# ---------------------------------------------------------------------------------- command line


def test_text_report(levels: None, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = arena(["--players", "first,random,random,random", "--deals", "3", "--seed", "1"], capsys)
    assert code == 0
    assert "level" in out and "raw/deal" in out and "think ms p50/p95/max" in out
    assert "first − random: " in out and "raw/deal (95% CI " in out and "n=3 deals" in out
    code, out, _ = arena(["--players", "first,random,first,random", "--preset", "partners", "--deals", "2"],
                         capsys)
    assert code == 0 and "first+first − random+random: " in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "random,random,random,wizard"], "unknown level 'wizard'"),
        (["--players", "random,random,random"], "exactly four level names"),
        (["--players", "random,random,random,random,random"], "exactly four level names"),
        (["--players", "random,,random,random"], "exactly four level names"),
        (["--players", "random,random,random,random", "--preset", "nope"], "unknown preset 'nope'"),
        (["--players", "random,random,random,random", "--set", "decks=3"], "option decks cannot be 3"),
        (["--players", "random,random,random,random", "--set", "colour=red"], "unknown option 'colour'"),
        (["--players", "random,random,random,random", "--deals", "0"], "deals must be 1 or more"),
        (["--players", "random,random,random,random", "--jobs", "0"], "--jobs must be 1 or more"),
        (["--players", "random,random,random,random", "--iterations", "0"], "iterations budget"),
        (["--players", "random,random,random,random", "--think", "-1"], "think must lie in (0, 60] seconds"),
        (["--players", "random,random,random,random", "--think", "inf"], "think must lie in (0, 60] seconds, not inf"),
        (["--players", "random,random,random,random", "--think", "nan"], "think must lie in (0, 60] seconds"),
    ],
)
def test_bad_arguments_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    if "--deals" not in argv:
        argv = [*argv, "--deals", "1"]
    code, out, err = arena(argv, capsys)
    assert code == 2 and out == ""
    assert err.startswith("gongzhu arena: ") and message in err


def test_unwritable_out_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = arena(["--players", "random,random,random,random", "--deals", "1", "--out",
                          str(tmp_path / "no" / "such.jsonl")], capsys)
    assert code == 2 and "cannot write" in err


def test_a_player_breaking_the_rules_is_stood_in_for_counted_and_logged(
        levels: None, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    """Every play of ``cheat`` (a card it does not hold) is refused and made by the intermediate
    player instead (R5): the game is played to the end, the report says how many of the level's
    decisions were not its own, and the log says which game and seat."""
    code, out, err = arena(["--players", "random,cheat,random,random", "--deals", "2", "--seed", "1"], capsys)
    assert code == 0, err
    assert "cheat: 26 of 28 decisions made by a stand-in" in out  # all 13 plays of each deal, not the declarations
    assert "random: " not in out  # no stand-in line for the random players
    assert "arena deal 0 rotation 0: the cheat player for E answered a play the rules do not allow" in caplog.text
    assert "arena deal 1 rotation 1: the cheat player for S answered a play the rules do not allow" in caplog.text
    result = play_game(ArenaConfig(("random", "cheat", "random", "random"), resolve_options("online"), 1), 0, 0)
    assert result.stand_ins == (0, 13, 0, 0)
    with pytest.raises(ArenaError, match="unknown level"):
        ArenaConfig(("random", "random", "random", "x"), resolve_options("online"), 1)


class Interrupting(FirstLegal):
    """Stands for a person pressing Ctrl-C during the deal it plays in: nothing can stand in for
    that, the run itself must stop."""

    level = "interrupting"

    def choose_play(self, obs: Observation) -> Play:
        raise KeyboardInterrupt


def interrupted_arena(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """:func:`arena`, failing the test (rather than stopping pytest itself) if the interrupt
    escapes the command."""
    try:
        return arena(argv, capsys)
    except KeyboardInterrupt:
        pytest.fail("the interrupt escaped gongzhu arena: the finished deals were lost")


@pytest.fixture
def interrupted_at_deal_2(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Level ``stop``: the first legal play in deals 0 and 1, interrupted in deal 2 (one game per
    deal: no ``--duplicate``)."""
    made = itertools.count()

    def factory(seed: int | None, think: float | None, iterations: int | None) -> Player:
        return Interrupting() if next(made) == 2 else FirstLegal()

    monkeypatch.setitem(registry.LEVELS, "stop", factory)
    yield


def test_an_interrupted_run_still_reports_and_keeps_the_finished_deals(
        interrupted_at_deal_2: None, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    code, text, err = interrupted_arena(["--players", "random,random,random,stop", "--deals", "5", "--seed", "2",
                                         "--out", str(out)], capsys)
    assert code == 130
    assert "gongzhu arena: interrupted" in err and "stopped after 2 of 5 deals (the report covers those)" in err
    assert "2 deals (1 rotation each), 2 games" in text
    assert "INCOMPLETE: stopped after 2 of 5 deals: interrupted" in text
    assert "random − stop: " in text and "n=2 deals" in text
    assert len(check_file(out, check_seed=True)) == 2  # the finished games' records, complete and valid


def test_an_interrupted_run_gives_the_json_report_of_the_finished_deals(
        interrupted_at_deal_2: None, capsys: pytest.CaptureFixture[str]) -> None:
    code, text, _ = interrupted_arena(["--players", "random,stop,random,random", "--deals", "4", "--seed", "2",
                                       "--json"], capsys)
    report = json.loads(text)
    assert code == 130
    assert (report["deals"], report["games"], report["complete"], report["stopped"]) == (2, 2, False, "interrupted")
    assert [t["raw"]["n"] for t in report["types"]] == [2, 2]


def test_a_run_interrupted_in_its_first_deal_has_nothing_to_report(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(registry.LEVELS, "stop", lambda seed, think, iterations: Interrupting())
    code, text, err = interrupted_arena(["--players", "random,stop,random,random", "--deals", "3"], capsys)
    assert (code, text) == (130, "")
    assert "stopped after 0 of 3 deals" in err


def test_progress_lines() -> None:
    stream = io.StringIO()
    p = cli.Progress(3, stream, every=3600)
    for done in (1, 2, 3):
        p.update(done)
    p.close()
    assert stream.getvalue() == f"{p.line(3)}\n" and p.line(3).startswith("arena: 3/3 deals, ")
    assert "ETA" in p.line(1)
    quiet = io.StringIO()
    q = cli.Progress(3, quiet, enabled=False)
    q.update(3)
    q.close()
    assert quiet.getvalue() == ""


def test_progress_goes_to_stderr_and_json_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["arena", "--players", "random,random,random,random", "--deals", "2", "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and json.loads(out)["deals"] == 2
    assert "arena: 2/2 deals" in err
