"""Hints: every legal play ranked by the expert's expected result, with a reason in Chinese and
English, within a hint button's second (issue 3)."""

from __future__ import annotations

import random
import statistics
import time

import pytest

from conftest import declare_random_exposures
from gongzhu.players import observe
from gongzhu.players.hints import hints
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


def test_hints_answer_within_a_second() -> None:
    """The hint button (issue 3: ≤ 1 s) at the default budget."""
    times = []
    for seed in range(5):
        deal = _position("online", 10 + seed, 5)
        turn = deal.turn
        assert turn is not None
        obs = observe(deal, turn)
        start = time.perf_counter()
        hints(obs, seed=seed)
        times.append(time.perf_counter() - start)
    assert statistics.median(times) <= 1.0, times
