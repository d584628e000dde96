"""Learning from the expert (gongzhu.learning) and the learned player (gongzhu.players.learned):
self-play data reproducible from its seed with the expert's values of every legal action, the
numpy runtime equal to the PyTorch network it was trained as, a short training run end to end,
and the learned player — the shipped network — playing legal, quick decisions under every
preset."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from gongzhu.learning import data as selfplay
from gongzhu.learning.average import average
from gongzhu.learning.average import main as average_main
from gongzhu.learning.data import load
from gongzhu.learning.train import Config, PolicyValueNet, _split, export, shape_of, train, write_curve
from gongzhu.learning.train import main as train_main
from gongzhu.players import features
from gongzhu.players.expert import ExpertPlayer
from gongzhu.players.features import ACTION_DONE, N_ACTIONS, OBS_SIZE
from gongzhu.players.learned import LearnedPlayer
from gongzhu.players.mixed import MixedPlayer, play_kind
from gongzhu.players.network import Network, NetworkError, default_network
from gongzhu.players.observation import observe
from gongzhu.players.registry import make_player
from gongzhu.rules.cards import Seat
from gongzhu.rules.deal import Deal
from gongzhu.rules.options import PRESETS


def test_continuation_values_take_the_best_option_still_open() -> None:
    # Two decks, leading from a pair of ♠5 (index 3): single 5, pair 5 5, or the single 7 (5).
    options = [([3], -10.0), ([3, 3], 20.0), ([5], 4.0)]
    first = selfplay.continuation_values(options, [], [3, 5])
    assert first[3] == 20.0 and first[5] == 4.0 and np.isnan(first[ACTION_DONE])
    second = selfplay.continuation_values(options, [3], [3, ACTION_DONE])
    assert second[3] == 20.0 and second[ACTION_DONE] == -10.0
    assert int(np.count_nonzero(~np.isnan(second))) == 2
    with pytest.raises(ValueError):
        selfplay.continuation_values(options, [], [7])


@pytest.mark.parametrize("preset", ["online", "online2", "tournament"])
def test_selfplay_is_reproducible_and_values_every_legal_action(preset: str) -> None:
    runs = [selfplay.play_deal(PRESETS[preset], 5, 2, iterations=4, explore=0.2) for _ in range(2)]
    a, b = runs
    assert a.seed == b.seed and a.actions == b.actions
    assert [d.action for d in a.decisions] == [d.action for d in b.decisions]
    for x, y in zip(a.decisions, b.decisions, strict=True):
        assert np.array_equal(x.observation, y.observation)
        assert np.array_equal(x.values, y.values, equal_nan=True)
    # Replaying the actions rebuilds the deal and every kept decision's observation.
    deal = Deal.new(PRESETS[preset], a.seed)
    building = features.Building()
    kept = {d.step: d for d in a.decisions}
    for step, action in enumerate(a.actions):
        seat = deal.undeclared[0] if deal.undeclared else deal.turn
        assert seat is not None
        obs = observe(deal, seat)
        mask = features.action_mask(obs, building.declared, building.chosen)
        assert mask[action]
        if step in kept:
            d = kept[step]
            assert d.seat == seat
            assert np.array_equal(features.encode(obs, building.declared, building.chosen), d.observation)
            assert np.array_equal(mask, d.mask)
            assert np.array_equal(~np.isnan(d.values), mask.astype(bool))  # a value for each legal action
        else:
            assert mask.sum() == 1  # only forced steps are left out
        features.take_action(deal, seat, action, building)
    assert deal.is_over
    raw = deal.score.raw
    for d in a.decisions:
        assert d.outcome == pytest.approx(raw[d.seat] - sum(r for s, r in enumerate(raw) if s != d.seat) / 3)


def test_shards_are_written_once_and_read_back(tmp_path: Path) -> None:
    out = tmp_path / "data"
    first = list(selfplay.run("online", 3, 2, out, iterations=3, shard=1))
    assert [n > 0 for _, n, _ in first] == [True, True]
    again = list(selfplay.run("online", 3, 2, out, iterations=3, shard=1))
    assert [n for _, n, _ in again] == [0, 0]  # kept: a run resumes where it stopped
    data = selfplay.read_shards(sorted(out.glob("*.npz")))
    total = sum(n for _, n, _ in first)
    assert data["observation"].shape == (total, OBS_SIZE) and data["values"].shape == (total, N_ACTIONS)
    assert set(np.unique(data["seat"]).tolist()) <= {0, 1, 2, 3}


def _random_model(seed: int = 0, card_hidden: int = 0) -> PolicyValueNet:
    torch.manual_seed(seed)
    return PolicyValueNet((32, 16), card_hidden=card_hidden)


@pytest.mark.parametrize("card_hidden", [0, 8])
def test_numpy_runtime_equals_the_torch_network(card_hidden: int) -> None:
    model = _random_model(card_hidden=card_hidden)
    network = export(model, {"value_scale": 100.0})
    assert network.meta["format"] == ("gongzhu-net/2" if card_hidden else "gongzhu-net/1")
    assert (network.cards is not None) == bool(card_hidden)
    x = torch.rand(17, OBS_SIZE)
    with torch.no_grad():
        logits, values = model(x, torch.from_numpy(features.card_features(x.numpy())) if card_hidden else None)
    got_logits, got_values = network.forward(x.numpy())
    assert np.allclose(got_logits, logits.numpy(), atol=1e-5)
    assert np.allclose(got_values, values.numpy() * 100.0, atol=1e-3)
    one_logits, one_values = network.forward(x.numpy()[3])
    assert one_logits.shape == (N_ACTIONS,) and np.allclose(one_logits, got_logits[3], atol=1e-5)
    assert np.allclose(one_values, got_values[3], atol=1e-3)
    assert network.parameters == sum(p.numel() for p in model.parameters())
    if card_hidden:
        with pytest.raises(ValueError, match="card rows"):
            model(x)
    # Written and read back, the same network.
    again = Network.from_arrays(network.to_arrays())
    assert np.array_equal(again.forward(x.numpy())[0], got_logits)


def test_weights_files_are_checked(tmp_path: Path) -> None:
    network = export(_random_model(), {"value_scale": 100.0})
    path = tmp_path / "net.npz"
    network.save(path)
    again = Network.load(path)
    assert np.array_equal(again.policy[0], network.policy[0]) and again.meta == network.meta
    arrays = network.to_arrays()
    broken = dict(arrays, meta=np.frombuffer(json.dumps({"format": "gongzhu-net/1", "obs_size": 5,
                                                         "n_actions": N_ACTIONS}).encode(), dtype=np.uint8))
    with pytest.raises(NetworkError, match="retrain it"):
        Network.from_arrays(broken)
    with pytest.raises(NetworkError, match=r"trunk\.1"):
        Network.from_arrays(dict(arrays, **{"trunk.1.weight": np.zeros((16, 7), dtype=np.float32)}))
    with pytest.raises(NetworkError, match="policy"):
        Network.from_arrays({k: v for k, v in arrays.items() if not k.startswith("policy")})
    cards = export(_random_model(card_hidden=4), {"value_scale": 100.0}).to_arrays()
    with pytest.raises(NetworkError, match="cards_trunk"):
        Network.from_arrays({k: v for k, v in cards.items() if k != "cards_trunk.weight"})
    with pytest.raises(NetworkError, match="card head"):
        Network.from_arrays(dict(cards, **{"cards_out.weight": np.zeros((2, 5), dtype=np.float32)}))
    meta = json.loads(bytes(cards["meta"]).decode())
    fewer = dict(cards, meta=np.frombuffer(json.dumps(dict(meta, card_features=3)).encode(), dtype=np.uint8))
    with pytest.raises(NetworkError, match="card features"):
        Network.from_arrays(fewer)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(NetworkError):
        Network.load(tmp_path / "junk.npz")


def test_networks_of_one_shape_average_weight_by_weight(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    nets = [export(_random_model(seed, card_hidden=4), {"value_scale": 100.0, "value_weight": 0.01,
                                                        "trained": {"seed": seed}}) for seed in (1, 2, 3)]
    mean = average(nets)
    for key, value in mean.to_arrays().items():
        if key != "meta":
            assert np.allclose(value, np.mean([n.to_arrays()[key] for n in nets], axis=0), atol=1e-7), key
    assert mean.parameters == nets[0].parameters and mean.value_weight == 0.01
    assert mean.meta["trained"] == {"averaged": [{"seed": 1}, {"seed": 2}, {"seed": 3}]}
    # One network averaged with itself is itself.
    assert np.array_equal(average([nets[0], nets[0]]).forward(np.ones(OBS_SIZE, dtype=np.float32))[0],
                          nets[0].forward(np.ones(OBS_SIZE, dtype=np.float32))[0])
    paths = []
    for k, n in enumerate(nets):
        paths.append(str(tmp_path / f"n{k}.npz"))
        n.save(paths[-1])
    assert average_main([*paths, "--out", str(tmp_path / "mean.npz")]) == 0
    assert "the mean of 3 networks" in capsys.readouterr().out
    again = Network.load(tmp_path / "mean.npz")
    assert np.array_equal(again.policy[0], mean.policy[0])
    # Other shapes, other value scales, fewer than two networks: refused, naming what differs.
    other = export(_random_model(card_hidden=8), {"value_scale": 100.0})
    with pytest.raises(NetworkError, match=r"cards_in\.weight"):
        average([nets[0], other])
    with pytest.raises(NetworkError, match="units of 400"):
        average([nets[0], export(_random_model(card_hidden=4), {"value_scale": 400.0})])
    other.save(tmp_path / "other.npz")
    never = str(tmp_path / "never.npz")
    for argv in ([paths[0], str(tmp_path / "other.npz"), "--out", never], [paths[0], "--out", never],
                 [paths[0], str(tmp_path / "missing.npz"), "--out", never],
                 [*paths, "--out", str(tmp_path / "no" / "such" / "folder.npz")]):
        with pytest.raises(SystemExit) as exit_:
            average_main(argv)
        assert exit_.value.code == 2
    assert not (tmp_path / "never.npz").exists()


@pytest.mark.parametrize("card_hidden", [0, 16])
def test_a_short_training_run_learns_and_exports(tmp_path: Path, card_hidden: int) -> None:
    out = tmp_path / "data"
    list(selfplay.run("online", 4, 6, out, iterations=3, shard=2))
    data = load([out])
    network, curve = train(data, Config(hidden=(64,), card_hidden=card_hidden, epochs=30, minutes=5, batch=64,
                                        lr=3e-3, dropout=0.0, threads=1))
    assert (network.cards is not None) == bool(card_hidden)
    assert len(curve) == 30
    assert curve[-1]["train_policy"] < 0.8 * curve[0]["train_policy"]  # it fits its data
    assert network.meta["trained"]["decisions"] + network.meta["trained"]["validation_decisions"] == len(
        data["action"])
    write_curve(curve, tmp_path / "curve.csv", tmp_path / "curve.png")
    assert (tmp_path / "curve.csv").read_text().startswith("epoch,minutes,")
    assert (tmp_path / "curve.png").stat().st_size > 1000
    player = LearnedPlayer(network=network)
    deal = Deal.new(PRESETS["online"], 77)
    for s in deal.undeclared:
        deal.declare(s, player.choose_exposures(observe(deal, s)))
    while (turn := deal.turn) is not None:
        deal.play(player.choose_play(observe(deal, turn)), turn)
    assert deal.is_over


def test_training_continues_from_a_network_of_the_same_shape(tmp_path: Path) -> None:
    """``--init``: training starts from a weights file's network.  At learning rate 0 it ends
    where it started, bit for bit, and says what it continued from; a network it does not fit, or
    a --hidden or --card-hidden narrower than the file's beside --init, is refused."""
    out = tmp_path / "data"
    list(selfplay.run("online", 2, 8, out, iterations=3, shard=2))
    data = load([out])
    config = Config(hidden=(32,), card_hidden=8, epochs=2, minutes=5, batch=64, dropout=0.0, threads=1)
    first, _ = train(data, config)
    assert shape_of(first) == ((32,), 8)
    again, _ = train(data, replace(config, lr=0.0), init=first)
    for name, array in first.to_arrays().items():
        if name != "meta":
            np.testing.assert_array_equal(again.to_arrays()[name], array, err_msg=name)
    assert again.meta["trained"]["continued_from"] == first.meta["trained"]
    moved, _ = train(data, config, init=first)
    assert not np.array_equal(moved.trunk[0][0], first.trunk[0][0])
    with pytest.raises(ValueError, match="does not fit"):
        train(data, replace(config, hidden=(16,)), init=first)
    with pytest.raises(ValueError, match="lacks"):
        train(data, replace(config, card_hidden=0), init=first)
    first.save(tmp_path / "first.npz")
    for narrower in (["--hidden", "16"], ["--hidden", "32,32"], ["--card-hidden", "4"], ["--card-hidden", "0"]):
        with pytest.raises(SystemExit):
            train_main(["--data", str(out), "--init", str(tmp_path / "first.npz"), *narrower])


@pytest.mark.parametrize("flag,value", [("--hidden", "abc"), ("--hidden", "64,0"), ("--hidden", ""),
                                        ("--card-hidden", "-1"), ("--card-hidden", "x")])
def test_training_refuses_widths_that_are_not_widths(flag: str, value: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A width that is not a whole number, or a trunk layer of no units, is a usage error that
    names the value, before any data is read (the data folder does not even exist)."""
    with pytest.raises(SystemExit) as e:
        train_main(["--data", str(tmp_path / "none"), flag, value])
    assert e.value.code == 2
    assert repr(value) in capsys.readouterr().err


def test_training_can_widen_the_network_it_continues_from(tmp_path: Path) -> None:
    """``--init`` with ``--hidden``/``--card-hidden`` wider than the file's network: the widened
    network starts computing exactly what the file's did (new units send nothing out), and then
    trains its new units too."""
    out = tmp_path / "data"
    list(selfplay.run("online", 2, 8, out, iterations=3, shard=2))
    data = load([out])
    config = Config(hidden=(32, 16), card_hidden=8, epochs=2, minutes=5, batch=64, dropout=0.0, threads=1)
    first, _ = train(data, config)
    wide = replace(config, hidden=(48, 24), card_hidden=12)
    start, _ = train(data, replace(wide, lr=0.0), init=first)
    assert shape_of(start) == ((48, 24), 12)
    assert start.parameters > first.parameters
    x = np.asarray(data["observation"][:50], dtype=np.float32)
    for got, want in zip(start.forward(x), first.forward(x), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
    # the new units are there, with weights in, and none out yet
    assert np.any(start.trunk[1][0][16:, :] != 0) and not np.any(start.trunk[1][0][:16, 32:])
    grown, _ = train(data, wide, init=first)
    assert np.any(grown.to_arrays()["policy.weight"][:, 16:] != 0)  # trained, the new units count
    first.save(tmp_path / "first.npz")
    train_main(["--data", str(out), "--init", str(tmp_path / "first.npz"), "--hidden", "48,24", "--card-hidden", "12",
                "--epochs", "1", "--threads", "1", "--out", str(tmp_path / "wide.npz")])
    assert shape_of(Network.load(tmp_path / "wide.npz")) == ((48, 24), 12)


def test_the_curve_reports_the_policys_expected_regret_and_training_can_weigh_it(tmp_path: Path) -> None:
    """``val_regret``: the raw points the policy's softmax gives up against the expert's best legal
    action on the held-out decisions, by the expert's values — at learning rate 0, what the
    starting network's own softmax gives up there.  ``regret_weight`` adds it to the loss."""
    out = tmp_path / "data"
    list(selfplay.run("online", 3, 8, out, iterations=3, shard=2))
    data = load([out])
    config = Config(hidden=(32,), card_hidden=8, epochs=2, minutes=5, batch=64, dropout=0.0, threads=1)
    first, _ = train(data, config)
    _, curve = train(data, replace(config, lr=0.0), init=first)
    _, held_out = _split(data, config.validation, config.seed)
    values = np.asarray(data["values"][held_out], dtype=np.float64)
    logits, _ = first.forward(np.asarray(data["observation"][held_out], dtype=np.float32))
    logits = np.where(np.isnan(values), -np.inf, logits.astype(np.float64))
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    gives_up = np.nan_to_num(np.nanmax(values, axis=1, keepdims=True) - values, nan=0.0)
    expected = float((p * gives_up).sum(axis=1).mean())
    assert expected > 0
    assert curve[0]["val_regret"] == pytest.approx(expected, rel=1e-3)
    weighed, weighed_curve = train(data, replace(config, regret_weight=5.0, epochs=20, lr=3e-3), init=first)
    assert weighed.meta["trained"]["regret_weight"] == 5.0
    assert weighed_curve[-1]["train_regret"] < 0.8 * weighed_curve[0]["train_regret"]


def test_the_shipped_network_is_small_and_trained() -> None:
    network = default_network()
    assert network.parameters < 1_000_000
    trained = network.meta["trained"]
    assert trained["decisions"] > 10_000 and trained["val_agreement"] > 0.5


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_learned_level_plays_whole_deals(preset: str) -> None:
    player = make_player("learned")
    assert isinstance(player, LearnedPlayer)
    deal = Deal.new(PRESETS[preset], 31)
    for s in deal.undeclared:
        exposures = player.choose_exposures(observe(deal, s))
        assert deal.can_declare(s, exposures)
        deal.declare(s, exposures)
    while (turn := deal.turn) is not None:
        obs = observe(deal, turn)
        play = player.choose_play(obs)
        assert play in obs.legal_plays()
        ranked = player.evaluate(obs)
        assert [p for p, _ in ranked] == list(obs.legal_plays())
        deal.play(play, turn)
    assert deal.is_over


def test_the_learned_player_ranks_by_values_too() -> None:
    by_values = LearnedPlayer(rank="values")
    deal = Deal.new(PRESETS["online"], 8)
    for s in deal.undeclared:
        deal.declare(s)
    obs = observe(deal, deal.turn)  # type: ignore[arg-type]
    ranked = by_values.evaluate(obs)
    best = max(ranked, key=lambda pv: pv[1])[0]
    if len(obs.legal) > 1:
        assert by_values.choose_play(obs) == best
    with pytest.raises(ValueError):
        LearnedPlayer(rank="coin")  # type: ignore[arg-type]


def test_the_learned_policy_leans_on_the_values_by_the_networks_weight() -> None:
    """Ranking by the policy, each action scores its logit plus value_weight times its value:
    the shipped network's own weight by default, none for ``learned-policy``."""
    network = default_network()
    assert network.value_weight > 0.0
    deal = Deal.new(PRESETS["online"], 8)
    for s in deal.undeclared:
        deal.declare(s)
    plain, leaning, heavy = (LearnedPlayer(value_weight=w) for w in (0.0, None, 1e6))
    assert leaning.value_weight == network.value_weight
    assert isinstance(make_player("learned-policy"), LearnedPlayer)
    assert make_player("learned-policy").value_weight == 0.0  # type: ignore[attr-defined]
    by_values = LearnedPlayer(rank="values")
    differ = 0
    while (turn := deal.turn) is not None:
        obs = observe(deal, turn)
        if len(obs.legal) > 1:
            x = features.encode(obs)
            logits, values = network.forward(x)
            legal = [c.index for c, in obs.legal]
            score = {a: float(logits[a]) + network.value_weight * float(values[a]) for a in legal}
            assert leaning.choose_play(obs)[0].index == max(legal, key=score.__getitem__)
            assert plain.choose_play(obs)[0].index == max(legal, key=lambda a: float(logits[a]))
            assert heavy.choose_play(obs) == by_values.choose_play(obs)
            differ += plain.choose_play(obs) != leaning.choose_play(obs)
        deal.play(leaning.choose_play(obs), turn)
    assert differ > 0  # the weight moves some choices of a whole deal
    with pytest.raises(ValueError):
        LearnedPlayer(value_weight=-1.0)
    arrays = network.to_arrays()
    arrays["meta"] = np.frombuffer(json.dumps({**network.meta, "value_weight": "much"}).encode(), dtype=np.uint8)
    with pytest.raises(NetworkError, match="value_weight"):
        Network.from_arrays(arrays)


@pytest.mark.parametrize("preset", ["online", "online2"])
def test_the_learned_level_can_hand_one_kind_of_decision_to_the_expert(preset: str) -> None:
    """learned-expert-KIND: the expert takes the decisions of that kind, the network the rest
    (the declaration of R4 included); the kind of a play — a lead, a card of the suit led (R5.2),
    a discard — is the one the learned level's data gives its observation."""
    mixed = make_player("learned-expert-lead", seed=3, iterations=4)
    assert isinstance(mixed, MixedPlayer) and mixed.kinds == {"lead"}
    expert, learned = ExpertPlayer(3, None, 4), LearnedPlayer()
    deal = Deal.new(PRESETS[preset], 12)
    for s in deal.undeclared:
        exposures = mixed.choose_exposures(observe(deal, s))
        assert exposures == learned.choose_exposures(observe(deal, s))
        deal.declare(s, exposures)
    seen, differ = set(), 0
    while (turn := deal.turn) is not None:
        obs = observe(deal, turn)
        kind = play_kind(obs)
        seen.add(kind)
        if deal.options.decks == 1:  # the data reads a follow from the single cards a seat may play
            assert selfplay.KINDS[int(selfplay.kinds_of(features.encode(obs)[None, :])[0])] == kind
        play = mixed.choose_play(obs)
        if kind == "lead":
            want = expert.choose_play(obs)
            differ += want != learned.choose_play(obs)
        else:
            want = learned.choose_play(obs)
        assert play == want
        deal.play(play, turn)
    assert seen == {"lead", "follow", "discard"} and differ > 0
    for kinds in (("trump",), ()):
        with pytest.raises(ValueError, match="kinds must be"):
            MixedPlayer(learned, expert, kinds)


def test_world_weighting_scores_the_other_seats_plays() -> None:
    """The expert's world weighting (ExpertPlayer(weighting=...)): each world's weight is the
    network's probability of the other seats' recent plays seen from their own view in it."""
    from gongzhu.players.expert import ExpertPlayer, _weighted_means
    from gongzhu.players.sampling import sample_world
    from gongzhu.players.weighting import PlayLikelihood

    network = default_network()
    deal = Deal.new(PRESETS["online"], 12)
    for s in deal.undeclared:
        deal.declare(s)
    rng = __import__("random").Random(3)
    while len(deal.tricks) < 5:
        deal.play(rng.choice(list(deal.legal_plays())))
    obs = observe(deal, deal.turn)  # type: ignore[arg-type]
    likelihood = PlayLikelihood(network, obs, recent=6, temper=1.0)
    assert len(likelihood.scored) == 6 and all(sc.seat != obs.seat for sc in likelihood.scored)
    worlds = [sample_world(obs, rng) for _ in range(20)]
    weights = likelihood.log_weights(worlds)
    assert len(weights) == 20 and all(w <= 0.0 for w in weights) and len(set(weights)) > 1
    # The true hands are a world too: scored as one batch or alone, the same.
    assert likelihood.log_weights(worlds[:3]) == pytest.approx(weights[:3], abs=1e-4)
    flat = PlayLikelihood(network, obs, recent=6, temper=0.0)
    assert flat.log_weights(worlds) == [0.0] * 20
    # Weighted means: equal weights give the plain mean; a dominant world gives its own values.
    assert _weighted_means([[1.0, 2.0], [3.0, 6.0]], [0.0, 0.0], 2) == [2.0, 4.0]
    assert _weighted_means([[1.0, 2.0], [3.0, 6.0]], [0.0, -50.0], 2) == pytest.approx([1.0, 2.0])
    player = ExpertPlayer(seed=1, iterations=20, weighting=network)
    assert player.choose_play(obs) in obs.legal_plays()
    # Every world sampled is weighed, the last ones included.
    assert len(player.evaluate(obs)) == len(obs.legal_plays())
    two = Deal.new(PRESETS["online2"], 3)
    for s in two.undeclared:
        two.declare(s)
    assert PlayLikelihood(network, observe(two, two.turn)).scored == []  # type: ignore[arg-type]


def test_world_weights_are_the_networks_full_pass_on_each_seats_view() -> None:
    """The weighting's shortcuts (the first layer updated by the cards that differ, the logits
    of the playable cards alone) give what the whole network gives on each row built in full."""
    from gongzhu.players.expert import ExpertPlayer
    from gongzhu.players.sampling import sample_world
    from gongzhu.players.weighting import PlayLikelihood

    network = default_network()
    rng = __import__("random").Random(5)
    checked = 0
    for seed in (21, 22):
        deal = Deal.new(PRESETS["online"], seed)
        for s in deal.undeclared:
            deal.declare(s, observe(deal, s).exposable()[:1])
        while (turn := deal.turn) is not None:
            obs = observe(deal, turn)
            likelihood = PlayLikelihood(network, obs, temper=1.0)
            if len(deal.tricks) % 3 == 1 and likelihood.scored:
                worlds = [sample_world(obs, rng) for _ in range(5)]
                expected = likelihood.reference_log_weights(worlds)
                assert likelihood.log_weights(worlds) == pytest.approx(expected, abs=1e-3)
                checked += 1
            deal.play(rng.choice(list(obs.legal_plays())), turn)
    assert checked >= 6
    # The pairs' logits are the whole pass's, with or without the first layer given.
    x = np.stack([features.encode(observe(Deal.new(PRESETS["online"], k), Seat.N)) for k in range(3)])
    rows, cards = np.array([0, 1, 2, 2]), np.array([5, 17, 0, 51])
    full = network.forward(x)[0]
    assert network.card_logits(x, None, rows, cards) == pytest.approx(full[rows, cards], abs=1e-4)
    assert network.card_logits(x, network.first_layer(x), rows, cards) == pytest.approx(full[rows, cards], abs=1e-4)
    soft = make_player("expert-weighted-soft")
    assert isinstance(soft, ExpertPlayer) and soft.weighting is network and soft.temper == 0.2
    with pytest.raises(ValueError, match="temper"):
        ExpertPlayer(weighting=network, temper=1.5)


def test_weighing_is_paid_for_inside_the_think_budget() -> None:
    """With a think budget the expert stops sampling early enough for the worlds still waiting
    to be weighed, at the rate measured so far in the decision."""
    from gongzhu.players.expert import _Weighing

    weighing = _Weighing()
    assert weighing.stop_by(10.0, 5) == 10.0  # nothing measured yet
    weighing.seconds, weighing.worlds = 0.004, 4  # 1 ms a world
    assert weighing.stop_by(10.0, 0) == 10.0
    assert weighing.stop_by(10.0, 12) == pytest.approx(9.988)
    assert weighing.stop_by(None, 12) is None  # an iteration budget has no deadline


def test_selfplay_can_follow_the_learned_network_while_the_expert_values(tmp_path: Path) -> None:
    """--behaviour learned: the seats play the learned level's choice (the network's best legal
    action by the policy leaning on the values), the expert still values every decision; such
    shards have their own names."""
    network = default_network()
    played = selfplay.play_deal(PRESETS["online"], 5, 1, iterations=3, explore=0.0, behaviour=network)
    assert played.decisions
    for d in played.decisions:
        logits, values = network.forward(d.observation)
        legal = np.flatnonzero(d.mask)
        score = logits + network.value_weight * values
        assert d.action == legal[np.argmax(score[legal])]
        assert np.array_equal(~np.isnan(d.values), d.mask.astype(bool))
    names = [name for name, _, _ in selfplay.run("online", 5, 1, tmp_path, iterations=3, behaviour="learned")]
    assert names == ["online-s5-learned-d0000000.npz"]
    with pytest.raises(ValueError, match="behaviour"):
        list(selfplay.run("online", 5, 1, tmp_path, behaviour="random"))


def test_selfplay_can_keep_only_some_kinds_of_decision(tmp_path: Path) -> None:
    """--kinds: the expert values and the shard keeps only those kinds of decision; the network
    plays the others, so the deal goes as it would with every decision valued."""
    network = default_network()
    every = selfplay.play_deal(PRESETS["online"], 5, 2, iterations=3, explore=0.0, behaviour=network)
    leads = selfplay.play_deal(PRESETS["online"], 5, 2, iterations=3, explore=0.0, behaviour=network,
                               kinds=["lead"])
    assert leads.actions == every.actions
    kinds = selfplay.kinds_of(np.array([d.observation for d in every.decisions]))
    want = [d for d, k in zip(every.decisions, kinds, strict=True) if selfplay.KINDS[k] == "lead"]
    assert 0 < len(leads.decisions) == len(want) < len(every.decisions)
    for got, d in zip(leads.decisions, want, strict=True):
        assert np.array_equal(got.observation, d.observation) and got.step == d.step
        assert np.array_equal(~np.isnan(got.values), got.mask.astype(bool))
    names = [n for n, _, _ in selfplay.run("online", 5, 1, tmp_path, iterations=3, behaviour="learned",
                                           kinds=["discard", "lead"])]
    assert names == ["online-s5-learned-lead-discard-d0000000.npz"]
    with pytest.raises(ValueError, match="learned behaviour"):
        selfplay.play_deal(PRESETS["online"], 5, 2, iterations=3, explore=0.0, kinds=["lead"])
    with pytest.raises(ValueError, match="not trump"):
        list(selfplay.run("online", 5, 1, tmp_path, behaviour="learned", kinds=["trump"]))
    with pytest.raises(SystemExit):
        selfplay.main(["--out", str(tmp_path), "--kinds", "lead"])
