"""Hints: every legal play ranked by the expert's expected result, or at once by the learned
player's network (quick hints), with a reason in Chinese and English, within a hint button's
second — and a ranking even when the search or the network fails (R12)."""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import random
from pathlib import Path

import pytest

import gongzhu.players.expert as expert_module
import gongzhu.players.hints as hints_module
from gongzhu.players import observe
from gongzhu.players.hints import DEFAULT_HINT_THINK, hints
from gongzhu.players.intermediate import IntermediatePlayer, Table, reason_for
from gongzhu.players.learned import LearnedPlayer
from gongzhu.players.protocol import observation_from_request
from gongzhu.players.sampling import NoWorldError, sample_world
from gongzhu.rules import PRESETS, Deal, Seat
from helpers.clock import TickingClock, use_clock
from helpers.deals import declare_random_exposures


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


def test_hints_keep_to_their_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hints search for their budget (DEFAULT_HINT_THINK, 0.6 s) and then stop: on a clock that
    moves 1/32 s at each reading, after 20 worlds, the hints a budget of 20 worlds gives from the
    same seed (benchmarks/hints.py measures the real time)."""
    clock = TickingClock(1 / 32)
    use_clock(monkeypatch, expert_module, clock)
    worlds = math.ceil(DEFAULT_HINT_THINK / clock.step)
    assert worlds == 20
    for seed in range(3):
        deal = _position("online", 10 + seed, 5)
        turn = deal.turn
        assert turn is not None
        obs = observe(deal, turn)
        before = clock.readings
        timed = hints(obs, seed=seed)
        assert clock.readings - before == 1 + worlds  # the deadline, then a reading a world after the first
        assert timed == hints(obs, seed=seed, iterations=worlds)


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


# ---------------------------------------------------------------------- quick hints: the network


@pytest.mark.parametrize("preset", ["online", "partners", "online2", "tournament"])
def test_quick_hints_rank_every_legal_play_by_the_network(preset: str) -> None:
    """``quick=True``: the legal plays ranked by the learned player's network, its values rounded
    to 0.1, each with a reason in both languages."""
    deal = _position(preset, 5, 6)
    turn = deal.turn
    assert turn is not None
    obs = observe(deal, turn)
    ranked = hints(obs, quick=True)
    assert sorted((h.play for h in ranked), key=str) == sorted(deal.legal_plays(), key=str)
    assert [h.expected for h in ranked] == sorted((h.expected for h in ranked), reverse=True)
    network = dict(LearnedPlayer().evaluate(obs))
    assert {h.play: h.expected for h in ranked} == {p: round(v, 1) for p, v in network.items()}
    for h in ranked:
        assert h.reason("zh") and h.reason("en")
        assert any("\u4e00" <= ch <= "\u9fff" for ch in h.reason_zh)
        assert h.why == reason_for(obs, h.play)
    assert hints(obs, quick=True) == ranked  # the network is deterministic


def test_quick_hints_keep_one_network() -> None:
    deal = _position("online", 7, 3)
    turn = deal.turn
    assert turn is not None
    hints(observe(deal, turn), quick=True)
    network = hints_module._network
    assert isinstance(network, LearnedPlayer)
    hints(observe(deal, turn), quick=True)
    assert hints_module._network is network


def test_no_quick_hint_when_it_is_not_the_seats_turn() -> None:
    deal = _position("online", 4, 2)
    other = next(s for s in Seat if s != deal.turn)
    assert hints(observe(deal, other), quick=True) == []


class _BrokenNetwork:
    def evaluate(self, obs: object) -> list[tuple[object, float]]:
        raise RuntimeError("the network is broken")


def test_a_failing_network_still_gives_the_rules_ranking_and_logs_it(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Should the network fail, the quick hint ranks the plays by the intermediate player's rules
    instead, and the failure is logged; the expert's search is not asked."""
    deal = _position("online", 8, 5)
    turn = deal.turn
    assert turn is not None
    obs = observe(deal, turn)
    monkeypatch.setattr(hints_module, "_network", _BrokenNetwork())
    monkeypatch.setattr(hints_module, "ExpertPlayer", None)  # a quick hint never searches
    with caplog.at_level(logging.ERROR, logger="gongzhu"):
        ranked = hints(obs, quick=True)
    assert sorted(str(h.play) for h in ranked) == sorted(str(p) for p in obs.legal_plays())
    table = Table(obs)
    assert [h.expected for h in ranked] == sorted((round(table.evaluate(p), 1) for p in obs.legal_plays()),
                                                  reverse=True)
    assert all(h.reason_zh and h.reason_en for h in ranked)
    assert "the network failed" in caplog.text and "the network is broken" in caplog.text
