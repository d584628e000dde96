"""The PettingZoo AEC environment (gongzhu.env.aec): PettingZoo's own API and seed tests under
every preset (R9), seeded determinism, the exposure phase (R4.4) and two-deck plays (R5.3) as
turns, rewards equal to the deal's R7 result, refusals that change nothing, and no card of
another hand in any observation."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from gongzhu.env.aec import GongzhuEnv, IllegalActionError, env, raw_env
from gongzhu.players import features
from gongzhu.players.features import ACTION_DONE, ACTION_EXPOSE, BLOCKS
from gongzhu.players.observation import observe
from gongzhu.rules.cards import EXPOSABLE, Seat, parse_card
from gongzhu.rules.deal import Deal, Phase
from gongzhu.rules.options import PRESETS

AT = {b.name: b for b in BLOCKS}


def plane(vector: np.ndarray, name: str, k: int = 0) -> np.ndarray:
    b = AT[name]
    return vector[b.start + 52 * k:b.start + 52 * (k + 1)]


def play_out(table: Any, rng: random.Random, record: list[Any] | None = None) -> dict[str, float]:
    """Random legal actions to the end of the deal; returns the rewards each agent got."""
    total: dict[str, float] = {}
    for agent in table.agent_iter():
        observation, reward, termination, truncation, _ = table.last()
        total[agent] = total.get(agent, 0.0) + reward
        if record is not None:
            record.append((agent, observation["observation"].tobytes(), observation["action_mask"].tobytes(), reward))
        if termination or truncation:
            table.step(None)
            continue
        table.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
    return total


# The agents are the seats of the rule book (N E S W), not PettingZoo's suggested "player_0" names;
# observations are dicts with the action mask, as in PettingZoo's own card games.
@pytest.mark.filterwarnings("ignore:We recommend agents to be named", "ignore:Observation is not a NumPy array")
@pytest.mark.parametrize("preset", list(PRESETS))
def test_pettingzoo_api_test_passes(preset: str) -> None:
    api_test(env(preset=preset), num_cycles=300, verbose_progress=False)


@pytest.mark.parametrize("preset", ["online", "online2", "tournament"])
def test_pettingzoo_seed_test_passes(preset: str) -> None:
    seed_test(lambda: env(preset=preset), num_cycles=200)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_same_seed_same_game_and_rewards_are_the_deal_result(preset: str) -> None:
    runs = []
    for _ in range(2):
        table = raw_env(preset)
        table.reset(seed=11)
        record: list[Any] = []
        rewards = play_out(table, random.Random(5), record)
        deal = table.deal
        assert deal is not None and deal.is_over
        assert rewards == {a: float(r) for a, r in zip("NESW", deal.score.result, strict=True)}
        runs.append(record)
    assert runs[0] == runs[1]
    other = raw_env(preset)
    other.reset(seed=12)
    first = other.observe(other.agent_selection)["observation"]
    assert first.tobytes() != runs[0][0][1]


def test_deal_seed_deals_the_records_deal() -> None:
    table = raw_env("online")
    table.reset(options={"deal_seed": 424242})
    assert table.deal is not None
    assert table.deal.dealt == Deal.new(PRESETS["online"], 424242).dealt
    with pytest.raises(ValueError, match="deal_seed"):
        table.reset(options={"deal_seed": -1})


def test_exposure_phase_is_the_first_turns_in_seat_order() -> None:
    table = raw_env("online")
    table.reset(options={"deal_seed": 7})
    deal = table.deal
    assert deal is not None
    order = []
    while deal.phase is Phase.EXPOSE:
        agent = table.agent_selection
        order.append(agent)
        seat = Seat("NESW".index(agent))
        mask = table.observe(agent)["action_mask"]
        held = [c for c in EXPOSABLE if c in deal.hand(seat)]
        # shown is the one kind of the online preset (R4.4): one action per held special card, and done.
        expected = sorted([features.action_of_exposure(c, "shown") for c in held] + [ACTION_DONE])
        assert np.flatnonzero(mask).tolist() == expected
        for other in "NESW":
            if other != agent:
                assert not table.observe(other)["action_mask"].any()
        if held:  # expose the first, then declare: the mask no longer offers it
            table.step(features.action_of_exposure(held[0], "shown"))
            assert table.agent_selection == agent
            assert table.building[0] == ((held[0], "shown"),)
            assert not table.observe(agent)["action_mask"][features.action_of_exposure(held[0], "shown")]
        table.step(ACTION_DONE)
    assert order == ["N", "E", "S", "W"]
    declared = {(e.seat, e.card) for e in deal.exposures if e.kind == "shown"}
    assert declared == {(s, next(c for c in EXPOSABLE if c in deal.dealt[s])) for s in Seat
                        if any(c in deal.dealt[s] for c in EXPOSABLE)}
    assert all(e.kind in ("shown", "auto") for e in deal.exposures)  # 逼明 may add the fourth


def test_first_card_kind_only_for_the_first_dealt_card() -> None:
    table = raw_env("tournament")  # exposure=first_card: shown, or 首明 for the first dealt card
    for deal_seed in range(200):
        table.reset(options={"deal_seed": deal_seed})
        deal = table.deal
        assert deal is not None
        first = deal.dealt[Seat.N][0]
        if first in EXPOSABLE:
            break
    else:
        pytest.fail("no deal in 200 gives North a special card first")
    mask = table.observe("N")["action_mask"]
    for c in EXPOSABLE:
        first_action = features.action_of_exposure(c, "first")
        assert mask[first_action] == (c == first)
    table.step(features.action_of_exposure(first, "first"))
    mask = table.observe("N")["action_mask"]
    assert not any(mask[features.action_of_exposure(c, "first")] for c in EXPOSABLE)  # one 首明 at most


def test_presets_without_declarations_start_with_the_first_lead() -> None:
    table = raw_env("pig_sheep")
    table.reset(seed=3)
    deal = table.deal
    assert deal is not None and deal.phase is Phase.PLAY
    assert table.agent_selection == "NESW"[deal.turn]  # type: ignore[index]
    assert not table.observe(table.agent_selection)["action_mask"][ACTION_EXPOSE:].any()


def test_two_deck_leads_build_a_single_or_a_pair() -> None:
    table = raw_env("online2")
    rng = random.Random(2)
    seen_choice = False
    for deal_seed in range(30):
        table.reset(options={"deal_seed": deal_seed})
        for agent in table.agent_iter():
            observation, _, termination, truncation, _ = table.last()
            if termination or truncation:
                table.step(None)
                continue
            mask = observation["action_mask"]
            deal = table.deal
            assert deal is not None
            seat = Seat("NESW".index(agent))
            if deal.phase is Phase.PLAY and not deal.current_trick and not table.building[1]:
                legal = deal.legal_plays()
                pairs = [c for c in sorted(set(deal.hand(seat)), key=lambda c: c.index)
                         if (c, c) in legal and (c,) in legal]
                if pairs:  # lead one of a pair: the next step offers the second copy or done
                    c = pairs[0]
                    table.step(c.index)
                    assert table.agent_selection == agent and table.building[1] == (c,)
                    nxt = np.flatnonzero(table.observe(agent)["action_mask"]).tolist()
                    assert nxt == [c.index, ACTION_DONE]
                    assert plane(table.observe(agent)["observation"], "chosen")[c.index] == 0.5
                    before = len(deal.current_trick)
                    table.step(rng.choice(nxt))
                    assert len(deal.current_trick) == before + 1
                    seen_choice = True
                    continue
            table.step(rng.choice(np.flatnonzero(mask).tolist()))
        assert table.deal is not None and table.deal.is_over
    assert seen_choice


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    table = raw_env("online")
    table.reset(seed=4)
    while table.deal is not None and table.deal.phase is Phase.EXPOSE:
        table.step(ACTION_DONE)
    agent = table.agent_selection
    before = {a: table.observe(a)["observation"].copy() for a in "NESW"}
    mask = table.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    for bad in (illegal, -1, 65, 3.5, "QS", True, ACTION_DONE):
        with pytest.raises(IllegalActionError, match=f"{agent} may not take action"):
            table.step(bad)  # type: ignore[arg-type]
        assert table.agent_selection == agent
        for a in "NESW":
            assert np.array_equal(table.observe(a)["observation"], before[a])
    table.step(int(np.flatnonzero(mask)[0]))  # the game goes on
    assert table.agent_selection != agent


@pytest.mark.parametrize("preset", ["online", "online2", "partners"])
def test_observations_hold_no_card_of_another_hand(preset: str) -> None:
    """Two deals that differ only in how East's and West's cards lie give North the same
    observation at every step while North cannot tell them apart (same plays)."""
    options = PRESETS[preset]
    first = Deal.new(options, 99)
    east, west = list(first.dealt[Seat.E]), list(first.dealt[Seat.W])
    # Swap one card East holds for one West holds, of no special card (no exposure differs).
    e = next(c for c in east if c not in EXPOSABLE and c not in west)
    w = next(c for c in west if c not in EXPOSABLE and c not in east and c.suit == e.suit)
    hands = [list(h) for h in first.dealt]
    hands[Seat.E][east.index(e)] = w
    hands[Seat.W][west.index(w)] = e
    deals = [first, Deal(options, hands)]
    for d in deals:
        for s in d.undeclared:
            d.declare(s)
    steps = 0
    while not deals[0].is_over:
        views = [features.encode(observe(d, Seat.N)) for d in deals]
        assert np.array_equal(views[0], views[1])
        seat = deals[0].turn
        assert seat is not None
        shared = [p for p in deals[0].legal_plays() if p in deals[1].legal_plays() and e not in p and w not in p]
        if not shared:
            break  # the seats' plays must differ now: North may tell the deals apart from here
        for d in deals:
            d.play(shared[0], seat)
        steps += 1
    assert steps >= 4


def test_every_observation_is_one_seats_view() -> None:
    """On every step of whole deals: the hand plane is the agent's own hand, and what it sees
    of a card adds up: in hand, seen played, or unseen (R1)."""
    rng = random.Random(8)
    for preset in ("online", "online2"):
        table = raw_env(preset)
        table.reset(seed=1)
        decks = PRESETS[preset].decks
        for _agent in table.agent_iter():
            observation, _, termination, truncation, _ = table.last()
            deal = table.deal
            assert deal is not None
            for a in "NESW":
                v = table.observe(a)["observation"]
                hand = plane(v, "hand")
                for c in deal.hand(Seat("NESW".index(a))):
                    assert hand[c.index] > 0
                assert hand.sum() * decks == len(deal.hand(Seat("NESW".index(a))))
                played = sum(plane(v, "played", k) for k in range(4))
                assert np.allclose(hand + played + plane(v, "unseen"), 1.0)
                assert v.min() >= 0.0 and v.max() <= 1.0
            if termination or truncation:
                table.step(None)
                continue
            table.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))


def test_render_shows_the_table() -> None:
    table = GongzhuEnv("online", render_mode="ansi")
    table.reset(seed=3)
    text = table.render()
    assert text is not None and "N: " in text and "declares" in text
    with pytest.raises(ValueError, match="render_mode"):
        GongzhuEnv("online", render_mode="rgb_array")
    assert GongzhuEnv("online").render() is None


def test_unknown_preset_and_options_are_refused() -> None:
    with pytest.raises(ValueError):
        raw_env("nonesuch")
    with pytest.raises(ValueError):
        raw_env("online", {"decks": 3})
    table = raw_env("online", {"exposure": "hidden", "discard_color": "enforce"})
    table.reset(seed=2)
    assert parse_card("QS") in EXPOSABLE and table.rules.exposure == "hidden"
