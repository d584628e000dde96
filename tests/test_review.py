"""Deal review (gongzhu.review, ``gongzhu analyze``): per-decision losses from what the seat could
see, hindsight from the open-card solver, par, luck and the costliest moments (R6, R7, R11)."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gongzhu.cli.main import main
from gongzhu.players.expert import ExpertPlayer
from gongzhu.players.observation import observe
from gongzhu.records.format import RecordError, deal_to_record
from gongzhu.records.replay import replay_states
from gongzhu.review import MARKS, REVIEW_FORMAT, Budget, Reviewer, mark_for, review_record, weigh
from gongzhu.rules.cards import Seat
from gongzhu.rules.deal import Deal
from gongzhu.rules.options import Options
from gongzhu.search import fast, fast2
from gongzhu.search.solver import OpenSolver
from gongzhu.search.solver2 import FITS_CARDS, OpenSolver2

#: A small reproducible budget: fixed worlds, two par replays, the solver from a few tricks left.
SMALL = Budget(think=None, worlds=6, par_replays=2, par_worlds=4, exact_limit=300_000)


def played_record(options: Options, seed: int, *, worst_at: int | None = None) -> dict[str, Any]:
    """A deal played by experts of a few worlds (R11 record).  With ``worst_at``, South plays
    the card of lowest exact open-card value at that trick (1-based) instead of its own choice."""
    deal = Deal.new(options, seed)
    players = [ExpertPlayer(seed=seed * 4 + s, iterations=4) for s in range(4)]
    for s in list(deal.undeclared):
        deal.declare(s, players[s].choose_exposures(observe(deal, s)))
    while (turn := deal.turn) is not None:
        if turn == Seat.S and worst_at is not None and len(deal.tricks) + 1 == worst_at:
            values = OpenSolver(options, Seat.S).values(fast.encode(deal))
            assert values is not None
            deal.play(min(values, key=lambda c: values[c]), turn)
            continue
        deal.play(players[turn].choose_play(observe(deal, turn)), turn)
    return deal_to_record(deal, match_id=f"review-{seed}", preset=None)


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    return played_record(Options(), 11)


@pytest.fixture(scope="module")
def review(record: dict[str, Any]) -> dict[str, Any]:
    return review_record(record, Seat.S, budget=SMALL, seed=3)


def test_marks_follow_the_stated_thresholds() -> None:
    """R7 units: ?! from 10 expected points lost, ? from 25, ?? from 50."""
    assert dict(MARKS) == {"??": 50.0, "?": 25.0, "?!": 10.0}
    losses = (0, 9.99, 10, 24.9, 25, 49.9, 50, 300)
    assert [mark_for(x) for x in losses] == [None, None, "?!", "?!", "?", "?", "??", "??"]


def test_every_decision_of_the_seat_is_reviewed(record: dict[str, Any], review: dict[str, Any]) -> None:
    """R5, R7: one entry per play of the seat (13) and one for its declaration when it had one;
    the card made is the record's, the loss is best minus played, never negative, marked by it."""
    assert review["format"] == REVIEW_FORMAT and review["seat"] == "S"
    plays = [d for d in review["decisions"] if d["kind"] == "play"]
    assert len(plays) == 13
    south = [p["cards"] for t in record["tricks"] for p in t["plays"] if p["seat"] == "S"]
    assert [d["cards"] for d in plays] == south
    assert [d["trick"] for d in plays] == list(range(1, 14))
    for d in review["decisions"]:
        if d["forced"]:
            assert d["loss"] == 0 and d["mark"] is None and d["alternatives"] == []
            continue
        assert len(d["alternatives"]) >= 2
        values = [a["expected"] for a in d["alternatives"]]
        assert values == sorted(values, reverse=True)
        assert d["best_expected"] == max(values)
        assert d["expected"] in values
        assert d["loss"] == pytest.approx(max(0.0, d["best_expected"] - d["expected"]), abs=0.16)
        assert d["loss"] >= 0 and d["mark"] == mark_for(d["loss"])


def test_result_is_luck_plus_skill_decision_by_decision(record: dict[str, Any], review: dict[str, Any]) -> None:
    """R7: the result is the seat's raw score minus the others' mean, and it is exactly the sum of
    the luck and the skill; each part is the sum of its steps along the deal: the deal's luck, the
    luck between the seat's decisions and the skill of each decision."""
    raw = record["raw"]
    assert review["result"] == pytest.approx(raw["S"] - (raw["N"] + raw["E"] + raw["W"]) / 3, abs=0.051)
    assert review["par_replays"] == SMALL.par_replays
    assert review["loss"] == pytest.approx(sum(d["loss"] for d in review["decisions"]), abs=0.051)
    # exactly as shown, to the decimal: nothing is lost to rounding
    assert round(review["luck"] + review["skill"], 1) == review["result"]
    weighed = [d for d in review["decisions"] if d["skill"] is not None]
    assert weighed, "a deal has decisions with a choice"
    assert round(sum(d["skill"] for d in weighed), 1) == review["skill"]
    assert review["luck_parts"]["deal"] == weighed[0]["luck"] == weighed[0]["before"]
    between = sum(d["luck"] for d in weighed[1:])
    ending = review["result"] - weighed[-1]["before"] - weighed[-1]["skill"]
    assert round(between + ending, 1) == review["luck_parts"]["play"]
    assert round(review["luck_parts"]["deal"] + review["luck_parts"]["play"], 1) == review["luck"]
    running = 0.0
    for d in weighed:  # the expected result after a decision is the one before it moved by its skill
        assert d["expected"] is not None and d["before"] is not None
        assert round(running + d["luck"], 1) == d["before"]
        running = round(d["before"] + d["skill"], 1)
        if d["kind"] == "play":
            assert d["loss_spread"] is not None and d["skill_spread"] is not None


def test_graph_and_trick_changes(record: dict[str, Any], review: dict[str, Any]) -> None:
    """The graph follows the decisions weighed, carries the running luck and skill, and ends at
    the result with the totals; the changes per trick add up to the result (R6 raw scores of the
    cards taken so far)."""
    graph = review["graph"]
    evaluated = [d for d in review["decisions"] if d["expected"] is not None]
    assert [g["decision"] for g in graph[:-1]] == [d["index"] for d in evaluated]
    assert graph[-1] == {"decision": None, "trick": 13, "before": None, "expected": review["result"],
                         "luck": review["luck"], "skill": review["skill"]}
    for g, d in zip(graph[:-1], evaluated, strict=True):
        assert round(g["luck"] + g["skill"], 1) == g["expected"] == round(d["before"] + d["skill"], 1)
    assert len(review["tricks"]) == 13
    assert sum(review["tricks"]) == pytest.approx(review["result"], abs=0.05 * 13 + 0.05)  # 13 roundings


def test_weighing_a_decision_from_its_worlds() -> None:
    """Loss against the best choice, skill against standard play, and their spreads over the
    worlds, on values small enough to check by hand."""
    worlds = [[10.0, 0.0, 4.0], [20.0, 10.0, 8.0], [0.0, -10.0, 6.0]]
    w = weigh([["AS"], ["2S"], ["KS"]], worlds, [5.0, 12.0, -2.0], ["2S"])
    assert w.best == 0 and w.played == 1
    assert w.loss == pytest.approx(10.0) and w.loss_spread == pytest.approx(0.0)
    assert w.before == pytest.approx(5.0) and w.skill == pytest.approx(0.0 - 5.0)
    # played − standard: -5, -2, -8 → mean -5, sample sd 3, standard error sqrt(3)
    assert w.skill_spread == pytest.approx(3 / 3 ** 0.5)
    best = weigh([["AS"], ["2S"], ["KS"]], worlds, None, ["AS"])  # a declaration: against the best
    assert best.loss == 0.0 and best.skill == 0.0 and best.before == pytest.approx(10.0)
    with pytest.raises(ValueError, match="not among"):
        weigh([["AS"]], [[1.0]], None, ["QS"])


def test_moments_are_the_costliest_and_say_where_points_landed(review: dict[str, Any]) -> None:
    """Up to three decisions, costliest first, each named once: where points landed, the trick
    is at or after the decision, made the seat's objective fall, and no other moment names it."""
    moments = review["moments"]
    losses = [m["loss"] for m in moments]
    assert losses == sorted(losses, reverse=True) and len(moments) <= 3
    assert len({m["decision"] for m in moments}) == len(moments)
    landed = [m["landed"]["trick"] for m in moments if m["landed"] is not None]
    assert len(set(landed)) == len(landed)
    costly = sorted((d for d in review["decisions"] if d["loss"] > 0), key=lambda d: (-d["loss"], d["index"]))
    if costly:
        assert moments[0]["decision"] == costly[0]["index"]
    for m in moments:
        if m["landed"] is not None:
            assert m["landed"]["trick"] >= (m["trick"] or 1)
            assert m["landed"]["change"] < 0
            assert review["tricks"][m["landed"]["trick"] - 1] == m["landed"]["change"]


def test_hindsight_is_the_exact_open_card_value(record: dict[str, Any], review: dict[str, Any]) -> None:
    """R6, R7: the hindsight values of a late decision are the solver's on the true hands, and the
    line of best play ends with the raw scores it promises."""
    solved = [d for d in review["decisions"] if d["exact"] is not None]
    assert solved, "the last tricks are always within the budget"
    assert solved[-1]["trick"] == 13
    last = solved[0]
    deal = next(state.copy() for state in replay_states(record)
                if state.turn == Seat.S and len(state.tricks) + 1 == last["trick"])
    values = OpenSolver(Options(), Seat.S).values(fast.encode(deal))
    assert values is not None
    assert last["exact_best"] == pytest.approx(max(values.values()), abs=0.051)
    assert last["exact"] == pytest.approx(values[next(c for c in values if c.code == last["cards"][0])], abs=0.051)
    line = review["hindsight"]["line"]
    assert line is not None and line["from_trick"] == review["hindsight"]["from_trick"] == last["trick"]
    value = (3 * line["raw"][2] - line["raw"][0] - line["raw"][1] - line["raw"][3]) / 3
    assert value == pytest.approx(last["exact_best"], abs=0.051)


def test_a_play_that_throws_points_away_shows_in_hindsight() -> None:
    """R6: South plays the card of lowest open-card value at trick 11; hindsight says so."""
    for seed in range(20):
        rec = played_record(Options(), seed, worst_at=11)
        review = review_record(rec, Seat.S, budget=SMALL, seed=1)
        d = next(d for d in review["decisions"] if d["trick"] == 11)
        if d["exact_best"] is not None and d["exact_best"] > d["exact"]:
            assert d["exact_loss"] == pytest.approx(d["exact_best"] - d["exact"], abs=0.11)
            return
    pytest.fail("no deal in 20 where the worst card at trick 11 cost anything")


def test_review_is_reproducible_from_its_seed_and_the_pool_agrees(record: dict[str, Any],
                                                                  review: dict[str, Any]) -> None:
    """The same seed and a fixed number of worlds give the same review, in this process and on
    worker processes."""
    again = review_record(record, Seat.S, budget=SMALL, seed=3)
    assert again == review
    reviewer = Reviewer(workers=1)
    seen: list[tuple[int, int]] = []
    try:
        pooled = reviewer.review(record, Seat.S, budget=SMALL, seed=3, progress=lambda d, t: seen.append((d, t)))
    finally:
        reviewer.close()
    assert pooled == review
    total = seen[0][1]
    assert seen[0] == (0, total) and seen[-1] == (total, total)
    assert [d for d, _ in seen] == list(range(total + 1))


def test_partners_and_two_decks() -> None:
    """R7 partners: values are half the team's margin; two decks (R4.5, R5.3, R6.2): reviewed from
    what the seat saw, with hindsight from the two-deck open-card solver late in the deal (no
    hand over ``FITS_CARDS`` cards) and none before."""
    partners = Options(scoring="partners")
    rec = played_record(partners, 5)
    review = review_record(rec, Seat.S, budget=SMALL, seed=2)
    raw = rec["raw"]
    assert review["scoring"] == "partners"
    assert review["result"] == pytest.approx((raw["S"] + raw["N"] - raw["E"] - raw["W"]) / 2, abs=0.051)
    assert review["hindsight"]["solver"] == "two teams"
    two = Options(decks=2)
    rec2 = played_record(two, 6)
    review2 = review_record(rec2, Seat.E, budget=SMALL, seed=2)
    assert sum(len(d["cards"]) for d in review2["decisions"] if d["kind"] == "play") == 26  # pairs count twice
    plays = [d for d in review2["decisions"] if d["kind"] == "play"]
    solved = [d for d in plays if d["exact"] is not None]
    assert solved and solved[-1] is plays[-1], "the last plays are always within the budget"
    assert all(d["exact"] is not None for d in plays[plays.index(solved[0]):])
    first = solved[0]
    states = [state.copy() for state in replay_states(rec2) if state.turn == Seat.E]
    deal = next(state for state in states
                if len(state.tricks) + 1 == first["trick"] and len(state.current_trick) == first["order"])
    assert max(len(deal.hand(s)) for s in Seat) <= FITS_CARDS
    earlier = next(state for state in states if len(state.tricks) + 1 == plays[plays.index(first) - 1]["trick"])
    assert max(len(earlier.hand(s)) for s in Seat) > FITS_CARDS or plays.index(first) == 0
    values = OpenSolver2(two, Seat.E).values(fast2.encode(deal))
    assert values is not None
    exact = {"+".join(c.code for c in p): v for p, v in values.items()}
    assert first["exact_best"] == pytest.approx(max(exact.values()), abs=0.051)
    assert first["exact"] == pytest.approx(exact["+".join(first["cards"])], abs=0.051)
    if first["alternatives"]:
        assert {"+".join(a["cards"]): a["exact"] for a in first["alternatives"]} == \
            {k: round(v, 1) for k, v in exact.items()}
    line = review2["hindsight"]["line"]
    assert line is not None and line["from_trick"] == review2["hindsight"]["from_trick"] == first["trick"]
    assert all(p["card"] for p in line["plays"])  # a card, or a pair / two cards joined by +
    value = (3 * line["raw"][1] - line["raw"][0] - line["raw"][2] - line["raw"][3]) / 3
    assert value == pytest.approx(first["exact_best"], abs=0.051)


def test_a_broken_record_is_refused(record: dict[str, Any]) -> None:
    """R11: the record is re-checked; an illegal play is a RecordError naming the field."""
    bad = json.loads(json.dumps(record))
    bad["tricks"][0]["winner"] = "N" if bad["tricks"][0]["winner"] != "N" else "E"
    with pytest.raises(RecordError, match=r"tricks\[0\]"):
        review_record(bad, Seat.S, budget=SMALL)


def test_budget_is_checked() -> None:
    with pytest.raises(ValueError, match="think"):
        Budget(think=0)
    with pytest.raises(ValueError, match="needs"):
        Budget(think=None, worlds=None)
    with pytest.raises(ValueError, match="exact_limit"):
        Budget(exact_limit=-1)


# ---------------------------------------------------------------------- gongzhu analyze


@pytest.fixture(scope="module")
def records_file(record: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("analyze") / "deal.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path


ANALYZE = ["--worlds", "6", "--par-replays", "1", "--workers", "0", "--exact-limit", "200000"]


def test_analyze_prints_a_review(records_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``gongzhu analyze FILE``: every decision of South, marks explained, in English and Chinese."""
    assert main(["analyze", str(records_file), *ANALYZE]) == 0
    out = capsys.readouterr().out
    assert "review of South" in out and "Trick 13" in out and "?! lost 10 or more" in out
    assert main(["analyze", str(records_file), *ANALYZE, "--lang", "zh", "--seat", "W"]) == 0
    zh = capsys.readouterr().out
    assert "西的复盘" in zh and "第13圈" in zh and "{" not in zh


def test_analyze_json_lines(records_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(records_file), *ANALYZE, "--json", "--seat", "N"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    review = json.loads(lines[0])
    assert review["format"] == REVIEW_FORMAT and review["seat"] == "N" and len(review["decisions"]) >= 13
    assert all(math.isfinite(d["loss"]) for d in review["decisions"])


def test_analyze_refuses_bad_input(records_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 2 for a file that cannot be read or a bad budget, 1 for a bad record or none: one line
    on stderr, no traceback."""
    assert main(["analyze", str(tmp_path / "missing.jsonl"), *ANALYZE]) == 2
    assert main(["analyze", str(records_file), "--think", "0"]) == 2
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    assert main(["analyze", str(empty), *ANALYZE]) == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "gongzhu-deal/1"}\n', encoding="utf-8")
    assert main(["analyze", str(bad), *ANALYZE]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("gongzhu analyze:") == 4
    with pytest.raises(SystemExit) as stop:  # a time or a number of worlds, not both
        main(["analyze", str(records_file), "--think", "1", "--worlds", "5"])
    assert stop.value.code == 2 and "not allowed with argument --think" in capsys.readouterr().err


@pytest.mark.slow
def test_analyze_on_worker_processes(records_file: Path) -> None:
    """The default: two worker processes, the default budget, as a user runs it."""
    done = subprocess.run([sys.executable, "-m", "gongzhu.cli.main", "analyze", str(records_file), "--json"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    review = json.loads(done.stdout)
    assert review["par_replays"] == 8 and review["budget"]["think"] == 0.4


def test_random_records_review_without_error() -> None:
    """Deals of several option sets (R10) all review, for every seat."""
    rng = random.Random(7)
    for options in (Options(self_catch=True), Options(heart_values="book"), Options(discard_color="penalty")):
        rec = played_record(options, rng.randrange(1000))
        for seat in Seat:
            review = review_record(rec, seat, budget=Budget(think=None, worlds=2, par_replays=0, exact_limit=20_000))
            assert review["par"] is None
            assert round(review["luck"] + review["skill"], 1) == review["result"]
            assert len([d for d in review["decisions"] if d["kind"] == "play"]) == 13
