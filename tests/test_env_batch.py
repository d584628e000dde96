"""The batched environment (``gongzhu.env.batch``, C ``_fastenv.h``) against the reference rules,
play by play: after every step of random legal actions, every deal's observation row, mask row
and seat to act equal what the Python rules give for the same position (a ``Deal`` rebuilt from
the deal's hands as dealt, the same actions applied as ``gongzhu.env.aec.GongzhuEnv`` applies
them, ``features.encode`` / ``features.action_mask`` of ``observe``), and a finished deal's
rewards are its R7 result.  Every one-deck preset (R9) and the option variants (R10) that change
the exposure phase (R4.4), play (R5.1, R5.2) or scoring (R2, R6, R7).  Also: threads and seeds
(R3 reproducible dealing), refusals."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from gongzhu.env import AGENTS
from gongzhu.env.batch import BatchEnv, IllegalActionError
from gongzhu.players import features
from gongzhu.players.features import ACTION_DONE, N_ACTIONS, OBS_SIZE
from gongzhu.players.observation import observe
from gongzhu.rules.cards import Seat
from gongzhu.rules.deal import C_BOARD, Deal, Phase
from gongzhu.rules.options import PRESETS

pytestmark = pytest.mark.skipif(not C_BOARD, reason="the batched environment runs on the C extension")

ONE_DECK = [name for name, options in PRESETS.items() if options.decks == 1]
CASES: list[tuple[str, dict[str, Any] | None]] = [
    *((name, None) for name in ONE_DECK),
    ("online", {"exposure": "hidden"}),
    ("online", {"exposure": "sell_x4_x2"}),
    ("online", {"exposure": "first_card"}),
    ("online", {"exposure": "all"}),
    ("online", {"exposure": "all_but_sheep"}),
    ("online", {"discard_color": "enforce"}),
    ("online", {"discard_color": "penalty"}),
    ("online", {"direction": "cw"}),
    ("online", {"heart_values": "book"}),
    ("online", {"double_pig": True}),
    ("online", {"first_lead": "spade3_any"}),
    ("tournament", {"exposure": "hidden", "discard_color": "enforce", "direction": "cw"}),
    ("partners", {"exposure": "first_card", "discard_color": "penalty", "self_catch": True}),
]


def case_id(case: tuple[str, dict[str, Any] | None]) -> str:
    preset, overrides = case
    return "-".join([preset, *(f"{k}={v}" for k, v in (overrides or {}).items())])


def reference_to_act(deal: Deal) -> Seat:
    """Who acts in the reference (as GongzhuEnv): the first seat still to declare, else the turn."""
    if deal.phase is Phase.EXPOSE:
        return deal.undeclared[0]
    turn = deal.turn
    assert turn is not None
    return turn


def random_actions(env: BatchEnv, rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """A random legal action for every deal, drawn from the masks: uniform, except that a
    declaration is made (ACTION_DONE) less often than an exposure is added, so that deals
    expose much and 逼明 comes often (R4.4)."""
    weights = rng.random(env.action_masks.shape) * env.action_masks
    weights[:, ACTION_DONE] *= 0.3
    actions: npt.NDArray[np.int64] = weights.argmax(axis=1).astype(np.int64)
    return actions


def check_against_reference(env: BatchEnv, rng: np.random.Generator, steps: int) -> Counter[str]:
    """Step ``env`` with random legal actions, holding every deal to the reference after every
    step; returns the number of deals finished (``"deals"``) and of the exposures of each kind
    in them."""
    refs = [Deal(env.rules, env.hands(i)) for i in range(env.n)]
    building = [features.Building() for _ in range(env.n)]
    seen: Counter[str] = Counter()
    for step in range(steps):
        for i, deal in enumerate(refs):
            seat = reference_to_act(deal)
            where = f"step {step}, deal {i} ({deal.phase.value}, {len(deal.tricks)} tricks)"
            assert env.to_act[i] == seat, where
            view = observe(deal, seat)
            expected = features.encode(view, building[i].declared, building[i].chosen)
            if not np.array_equal(env.observations[i], expected):
                wrong = np.flatnonzero(env.observations[i] != expected)
                blocks = sorted({b.name for b in features.BLOCKS for k in wrong if b.start <= k < b.start + b.size})
                pytest.fail(f"{where}: the observation differs in {blocks}")
            assert np.array_equal(env.action_masks[i], features.action_mask(view, building[i].declared)), where
        actions = random_actions(env, rng)
        ended = env.step(actions)
        assert ended == int(env.dones.sum())
        for i, action in enumerate(actions):
            features.take_action(refs[i], reference_to_act(refs[i]), int(action), building[i])
            deal = refs[i]
            if not deal.is_over:
                assert not env.dones[i]
                assert not env.rewards[i].any() and not env.raw[i].any() and tuple(env.takers[i]) == (-1, -1)
                continue
            assert env.dones[i], f"step {step}, deal {i}: the reference deal is over"
            score = deal.score
            assert tuple(env.rewards[i]) == score.result  # R7, before the one-deck factor
            assert tuple(env.raw[i]) == score.raw  # R6
            assert tuple(env.takers[i]) == (deal.pig_taker, deal.sheep_taker)
            seen["deals"] += 1
            seen.update(e.kind for e in deal.exposures)
            refs[i] = Deal(env.rules, env.hands(i))  # auto-reset: the slot's next deal
            building[i] = features.Building()
    assert env.deals_finished == seen["deals"]
    return seen


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_every_observation_mask_and_reward_is_the_reference(case: tuple[str, dict[str, Any] | None]) -> None:
    """R3–R7: three deals, each played past its end into the next, position by position, with
    exposures of every kind the options allow (R4.4)."""
    preset, overrides = case
    env = BatchEnv(3, preset, overrides, seed=2, threads=2)
    seen = check_against_reference(env, np.random.default_rng(5), 125)
    assert seen["deals"] >= 5
    assert set(seen) - {"deals"} == set(env.rules.recorded_kinds)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_every_observation_mask_and_reward_is_the_reference_at_volume(case: tuple[str, dict[str, Any] | None]) -> None:
    preset, overrides = case
    env = BatchEnv(16, preset, overrides, seed=23, threads=2)
    seen = check_against_reference(env, np.random.default_rng(7), 800)
    assert seen["deals"] >= 150
    assert set(seen) - {"deals"} == set(env.rules.recorded_kinds)


def test_the_aec_environment_agrees_action_by_action() -> None:
    """The AEC environment itself, given the same hands, sees and does exactly the same (R4, R5)."""
    pytest.importorskip("pettingzoo")
    from gongzhu.env.aec import GongzhuEnv

    for preset, overrides in [("online", None), ("tournament", {"exposure": "hidden"}), ("pig_sheep", None)]:
        env = BatchEnv(3, preset, overrides, seed=4)
        rng = np.random.default_rng(3)
        tables = []
        for i in range(env.n):
            table = GongzhuEnv(preset, overrides)
            table.reset(seed=0)
            table.deal = Deal(table.rules, env.hands(i))
            table.agent_selection = AGENTS[reference_to_act(table.deal)]
            tables.append(table)
        done = [False] * env.n
        while not all(done):
            for i, table in enumerate(tables):
                if done[i]:
                    continue
                agent = table.agent_selection
                assert AGENTS[env.to_act[i]] == agent
                seen = table.observe(agent)
                assert np.array_equal(seen["observation"], env.observations[i])
                assert np.array_equal(seen["action_mask"], env.action_masks[i])
            actions = random_actions(env, rng)
            env.step(actions)
            for i, table in enumerate(tables):
                if done[i]:
                    continue
                table.step(int(actions[i]))
                if table.terminations[AGENTS[0]]:
                    assert env.dones[i]
                    assert [table.rewards[a] for a in AGENTS] == list(env.rewards[i])
                    done[i] = True


def test_threads_do_not_change_anything() -> None:
    """Deal j of slot i depends on (seed, i, j) only; the threads split the deals (R3)."""
    envs = [BatchEnv(100, "tournament", {"exposure": "hidden"}, seed=3, threads=t) for t in (1, 2, 3)]
    rng = np.random.default_rng(1)
    for _ in range(150):
        actions = random_actions(envs[0], rng)
        for env in envs:
            env.step(actions)
        for env in envs[1:]:
            for name in ("observations", "action_masks", "to_act", "dones", "rewards", "raw", "takers"):
                assert np.array_equal(getattr(env, name), getattr(envs[0], name)), name
    assert len({env.deals_finished for env in envs}) == 1
    assert [env.hands(i) for i in range(0, 100, 7)] == [envs[2].hands(i) for i in range(0, 100, 7)]


def test_the_same_seed_deals_the_same_deals() -> None:
    """R3: dealing is reproducible from the seed; a slot's deal does not depend on n."""
    a, b, c = BatchEnv(6, seed=5), BatchEnv(6, seed=5), BatchEnv(3, seed=5)
    other = BatchEnv(6, seed=6)
    first = [a.hands(i) for i in range(6)]
    assert first == [b.hands(i) for i in range(6)]
    assert first[:3] == [c.hands(i) for i in range(3)]
    assert all(first[i] != other.hands(i) for i in range(6))
    assert len(set(first)) == 6
    for hands in first:
        assert sorted(card.index for hand in hands for card in hand) == list(range(52))
        assert all(len(hand) == 13 for hand in hands)
    rng = np.random.default_rng(0)
    for _ in range(120):
        a.step(random_actions(a, rng))
    assert a.deals_finished > 0 and max(a.deal_number(i) for i in range(6)) >= 1
    a.reset()  # the same seed again: deal 0 of every slot
    assert [a.hands(i) for i in range(6)] == first and a.deals_finished == 0
    assert [a.deal_number(i) for i in range(6)] == [0] * 6
    assert np.array_equal(a.observations, b.observations) and np.array_equal(a.action_masks, b.action_masks)
    a.reset(seed=6)
    assert [a.hands(i) for i in range(6)] == [other.hands(i) for i in range(6)] and a.seed == 6


def test_an_illegal_action_is_refused_and_nothing_changes() -> None:
    env, twin = BatchEnv(5, seed=2), BatchEnv(5, seed=2)
    rng = np.random.default_rng(4)
    for _ in range(30):
        actions = random_actions(env, rng)
        env.step(actions)
        twin.step(actions)
    names = ("observations", "action_masks", "to_act", "dones", "rewards", "raw", "takers")
    before = {name: getattr(env, name).copy() for name in names}
    hands = [env.hands(i) for i in range(5)]
    actions = random_actions(env, rng)
    legal = env.legal_actions(3)
    bad = next(a for a in range(N_ACTIONS) if a not in legal)
    for wrong in (bad, N_ACTIONS, -1):
        attempt = actions.copy()
        attempt[3] = wrong
        with pytest.raises(IllegalActionError) as refused:
            env.step(attempt)
        error: Any = refused.value
        assert (error.deal, error.action, error.legal, error.seat) == (3, wrong, legal, env.to_act[3])
        assert isinstance(error, ValueError)
        text = str(error)
        assert "deal 3" in text and f"action {wrong}" in text and str(legal) in text
        for name in names:
            assert np.array_equal(getattr(env, name), before[name]), name
        assert [env.hands(i) for i in range(5)] == hands
    with pytest.raises(TypeError, match="integers"):
        env.step(actions.astype(np.float64))
    with pytest.raises(ValueError, match="5 actions"):
        env.step(actions[:4])
    env.step(actions)  # and it goes on exactly as an environment that was never refused
    twin.step(actions)
    for name in names:
        assert np.array_equal(getattr(env, name), getattr(twin, name)), name


def test_stepping_without_observations_writes_everything_else() -> None:
    env, twin = BatchEnv(8, "classic", seed=1), BatchEnv(8, "classic", seed=1)
    rng = np.random.default_rng(2)
    stale = env.observations.copy()
    for _ in range(70):
        actions = random_actions(env, rng)
        env.step(actions, observe=False)
        twin.step(actions)
        for name in ("action_masks", "to_act", "dones", "rewards"):
            assert np.array_equal(getattr(env, name), getattr(twin, name)), name
    assert np.array_equal(env.observations, stale)
    actions = random_actions(env, rng)
    env.step(actions)
    twin.step(actions)
    assert np.array_equal(env.observations, twin.observations)


def test_the_arrays_and_their_shapes() -> None:
    env = BatchEnv(3, "partners", threads=2)
    assert env.observations.shape == (3, OBS_SIZE) and env.observations.dtype == np.float32
    assert env.action_masks.shape == (3, N_ACTIONS) and env.action_masks.dtype == np.int8
    assert env.to_act.dtype == np.int8 and env.dones.dtype == np.bool_ and env.rewards.shape == (3, 4)
    assert env.threads == 2
    env.threads = 1
    assert env.threads == 1
    with pytest.raises(ValueError, match="threads"):
        env.threads = 0
    with pytest.raises(ValueError, match="threads"):
        BatchEnv(3, threads=300)
    with pytest.raises(ValueError, match="positive"):
        BatchEnv(0)
    with pytest.raises(IndexError):
        env.hands(3)
    assert "BatchEnv n=3" in repr(env)


@pytest.mark.parametrize(("preset", "overrides"), [("online2", None), ("partners2", None), ("online", {"decks": 2})])
def test_two_decks_are_refused(preset: str, overrides: dict[str, Any] | None) -> None:
    with pytest.raises(ValueError, match=r"decks=2 is not supported.*gongzhu\.env\.aec"):
        BatchEnv(2, preset, overrides)


def test_without_the_c_extension_it_says_so() -> None:
    script = (
        "import sys\n"
        "sys.modules['gongzhu.rules._fastplay'] = None\n"
        "sys.modules['gongzhu.rules._fastplay2'] = None\n"
        "from gongzhu.env.batch import BatchEnv\n"
        "from gongzhu.search import SearchUnavailableError\n"
        "try:\n"
        "    BatchEnv(2)\n"
        "except SearchUnavailableError as e:\n"
        "    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", script], capture_output=True, text=True, check=True)
    assert "needs gongzhu's C extension gongzhu.rules._fastplay" in done.stdout
    assert "gongzhu.env.aec.GongzhuEnv runs without it" in done.stdout
