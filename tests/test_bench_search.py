"""``benchmarks/expert.py``, ``benchmarks/true_world.py`` and ``benchmarks/weighting.py`` keep
working: run in tiny configurations, the expert values every position alike whether its worlds
share their work or not, scored in the true world the expert's decisions give up less than
random ones, and the network as a playout policy is timed on as many positions as a world's
playouts would take it.  No timing is asserted: the scripts report numbers (docs/benchmarks.md,
docs/strength.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gongzhu import search

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not search.AVAILABLE, reason="the expert needs the C extensions")]


def run(script: str, *args: str, timeout: float = 300) -> dict[str, Any]:
    done = subprocess.run([sys.executable, str(BENCHMARKS / script), "--json", *args], capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-2000:]
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def test_the_expert_values_alike_with_its_worlds_sharing_their_work_or_not() -> None:
    report = run("expert.py", "--deals", "1", "--worlds", "4", "--think", "0.01")
    for preset in ("online", "online2"):
        result = report["presets"][preset]
        assert result["positions"] > 0
        assert result["same_values"] == result["positions"]
        assert result["worlds_a_decision"]["shared"]["median"] >= 1


def test_true_world_regret_tells_the_expert_from_random_play() -> None:
    report = run("true_world.py", "--levels", "expert,random", "--deals", "2", "--iterations", "20",
                 "--playouts", "50")
    assert report["decisions"] > 0
    regret = report["regret_a_deal"]
    assert regret["expert"]["n"] == regret["random"]["n"] == 2
    assert 0 <= regret["expert"]["mean"] < regret["random"]["mean"]
    gain = report["less_regret_than_first_a_deal"]["random"]["mean"]
    assert gain == pytest.approx(regret["expert"]["mean"] - regret["random"]["mean"], abs=0.01)
    assert 0 < report["decisions_chosen_differently"]["random"] <= report["decisions"]


def test_true_world_refuses_a_level_named_twice() -> None:
    done = subprocess.run([sys.executable, str(BENCHMARKS / "true_world.py"), "--levels", "expert,expert"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "names a level twice" in done.stderr


def test_weighting_times_every_way_and_counts_the_network_playouts_positions() -> None:
    report = run("weighting.py", "--deals", "1", "--worlds", "2", "--think", "0.01")
    assert report["positions"] > 0 and report["worlds"] == 2
    assert set(report["ms_a_world"]) == {"weighed", "weighed in full (baseline)", "searched",
                                         "network playouts (lower bound)",
                                         "greedy network playouts (lower bound)"}
    # A world's playouts with the network choosing: every candidate 24 times, one position a play
    # left after the candidate's; from the second trick on at most 13 candidates and 47 plays left.
    positions = report["network_positions_a_world"]
    assert 2 * 24 * 1 <= positions["median"] <= positions["max"] <= 13 * 24 * 47
    assert 0 < report["effective_share_of_100_worlds"]["min"] <= 100
