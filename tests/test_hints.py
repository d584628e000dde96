"""Hints: every legal play ranked by the expert's expected result, with a reason in Chinese and
English, within a hint button's second — and a ranking even when the search fails (R12)."""

from __future__ import annotations

import dataclasses
import json
import logging
import random
import statistics
import time
from pathlib import Path

import pytest

from conftest import declare_random_exposures
from gongzhu.players import observe
from gongzhu.players.hints import DEFAULT_HINT_THINK, hints
from gongzhu.players.intermediate import IntermediatePlayer, Table
from gongzhu.players.protocol import observation_from_request
from gongzhu.players.sampling import NoWorldError, sample_world
from gongzhu.rules import PRESETS, Deal, Seat


def _position(preset: str, seed: int, plays: int) -> Deal:
    rng = random.Random(seed)
    deal = Deal.new(PRESETS[preset], seed)
    declare_random_exposures(deal, rng)
    for _ in range(plays):
        deal.play(rng.choice(deal.legal_plays()))
    return deal


@pytest.mark.parametrize("preset", ["online", "partners", "online2", "tournament"])
def test_hints_rank_every_legal_play_with_reasons(preset: str) -> None:
    deal = _position(preset, 3, 7)
    turn = deal.turn
    assert turn is not None
    obs = observe(deal, turn)
    ranked = hints(obs, seed=1, iterations=30)
    assert sorted((h.play for h in ranked), key=str) == sorted(deal.legal_plays(), key=str)
    assert [h.expected for h in ranked] == sorted((h.expected for h in ranked), reverse=True)
    for h in ranked:
        assert h.reason("zh") and h.reason("en")
        assert any("\u4e00" <= ch <= "\u9fff" for ch in h.reason_zh)  # Chinese text
    assert hints(obs, seed=1, iterations=30) == ranked  # reproducible with an iteration budget


def test_no_hint_when_it_is_not_the_seats_turn() -> None:
    deal = _position("online", 4, 2)
    other = next(s for s in Seat if s != deal.turn)
    assert hints(observe(deal, other)) == []


def test_hints_keep_to_their_budget() -> None:
    """Hints search for their budget (DEFAULT_HINT_THINK, 0.6 s) and then stop: the median is
    far from unbounded (a margin a busy machine cannot break; benchmarks measure the real time)."""
    times = []
    for seed in range(5):
        deal = _position("online", 10 + seed, 5)
        turn = deal.turn
        assert turn is not None
        obs = observe(deal, turn)
        start = time.perf_counter()
        hints(obs, seed=seed)
        times.append(time.perf_counter() - start)
    assert statistics.median(times) <= 5 * DEFAULT_HINT_THINK, times


def test_hints_for_a_position_whose_worlds_need_backtracking(caplog: pytest.LogCaptureFixture) -> None:
    """West's hint request in a constrained one-deck position (voids in every other hand, R5.2):
    most worlds come from the sampler's backtracking search, and the expert's own ranking comes
    back, every time, with nothing logged."""
    path = Path(__file__).parent / "data" / "hint-one-deck-backtracking.json"
    obs = observation_from_request(json.loads(path.read_text(encoding="utf-8")))
    with caplog.at_level(logging.WARNING, logger="gongzhu"):
        for seed in range(36, 70):
            ranked = hints(obs, seed=seed, iterations=10)
            assert sorted(str(h.play) for h in ranked) == sorted(str(p) for p in obs.legal_plays())
    assert caplog.records == []


def test_a_failing_search_still_gives_the_rules_ranking_and_logs_it(caplog: pytest.LogCaptureFixture) -> None:
    """A view no hands fit (the next seat claims more hidden exposures, R4.4, than there are
    unseen exposable cards: a buggy client's request) makes the expert's search fail; the hint
    ranks the plays by the intermediate player's rules instead, and the failure is logged."""
    deal = Deal.new(PRESETS["online"].replace(exposure="hidden"), 6)
    declare_random_exposures(deal, random.Random(6))
    rng = random.Random(6)
    while deal.turn is not None and len(deal.legal_plays()) < 3:
        deal.play(rng.choice(deal.legal_plays()))
    turn = deal.turn
    assert turn is not None
    obs = observe(deal, turn)
    counts = [5 if s == (turn + 1) % 4 else 0 for s in range(4)]
    broken = dataclasses.replace(obs, hidden_counts=(counts[0], counts[1], counts[2], counts[3]))
    with pytest.raises(NoWorldError):
        sample_world(broken, random.Random(1))
    with caplog.at_level(logging.ERROR, logger="gongzhu"):
        ranked = hints(broken, seed=1, iterations=5)
    assert sorted(str(h.play) for h in ranked) == sorted(str(p) for p in broken.legal_plays())
    table = Table(broken)
    assert [h.expected for h in ranked] == sorted((round(table.evaluate(p), 1) for p in broken.legal_plays()),
                                                  reverse=True)
    assert ranked[0].play == IntermediatePlayer(seed=1).choose_play(broken) or ranked[0].expected == ranked[1].expected
    assert all(h.reason_zh and h.reason_en for h in ranked)
    assert "the expert's search failed" in caplog.text and "NoWorldError" in caplog.text
