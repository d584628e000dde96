"""The regret report (gongzhu.learning.regret): what each decision is, read from its observation
vector, agrees with the deal it came from; a decision's regret is the expert's value of its best
legal action minus its value of the network's choice; the report's lines add up."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from gongzhu.learning import data as selfplay
from gongzhu.learning.regret import KINDS, PARTS, kinds_of, main, parts_of, regret, report
from gongzhu.learning.train import main as train_main
from gongzhu.players import features
from gongzhu.players.network import default_network
from gongzhu.players.observation import observe
from gongzhu.players.random_player import RandomPlayer
from gongzhu.rules.deal import Deal
from gongzhu.rules.options import PRESETS


def test_kinds_are_read_from_the_observation() -> None:
    """Every decision of random deals: exposure phase, lead, following the suit led, discard."""
    seen = set()
    for seed in range(6):
        deal = Deal.new(PRESETS["online"], 300 + seed)
        player = RandomPlayer(seed)
        for seat in deal.undeclared:
            obs = observe(deal, seat)
            assert KINDS[kinds_of(features.encode(obs)[None, :])[0]] == "declare"
            seen.add("declare")
            deal.declare(seat, player.choose_exposures(obs))
        while (turn := deal.turn) is not None:
            obs = observe(deal, turn)
            if not obs.trick:
                want = "lead"
            else:
                led = obs.trick[0][1][0].suit
                want = "follow" if any(c.suit == led for c in obs.hand) else "discard"
            assert KINDS[kinds_of(features.encode(obs)[None, :])[0]] == want
            seen.add(want)
            deal.play(player.choose_play(obs), turn)
    assert seen == set(KINDS)


@pytest.mark.parametrize("preset", ["online", "online2"])
def test_parts_of_the_deal_are_read_from_the_observation(preset: str) -> None:
    """The opening is tricks 1-4 of 13 (1-8 of 26 with two decks), the middle 5-9 (9-18), the end
    the rest."""
    deal = Deal.new(PRESETS[preset], 5)
    player = RandomPlayer(5)
    for seat in deal.undeclared:
        deal.declare(seat, player.choose_exposures(observe(deal, seat)))
    tricks = 13 * PRESETS[preset].decks
    seen = []
    while (turn := deal.turn) is not None:
        obs = observe(deal, turn)
        t = len(obs.tricks) + 1
        want = 0 if t <= tricks * 4 // 13 else 1 if t <= tricks * 9 // 13 else 2
        assert PARTS[parts_of(features.encode(obs)[None, :])[0]][0] == PARTS[want][0], t
        seen.append(want)
        deal.play(player.choose_play(obs), turn)
    assert set(seen) == {0, 1, 2}


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("regret")
    list(selfplay.run("online", 9, 4, out, iterations=3, shard=2))
    return out


def test_regret_is_the_value_given_up(shards: Path) -> None:
    data = selfplay.load([shards])
    obs = np.asarray(data["observation"], dtype=np.float32)
    values = np.asarray(data["values"], dtype=np.float32)
    loss, same = regret(default_network(), obs, data["mask"], values, batch=7)  # batches of any size
    # The network's choice is the learned level's: the logit plus the network's value weight
    # times the value.
    network = default_network()
    logits, net_values = network.forward(obs)
    score = logits + network.value_weight * net_values
    for i in range(len(obs)):
        legal = np.flatnonzero(data["mask"][i])
        choice = legal[np.argmax(score[i, legal])]
        best = np.nanmax(values[i])
        assert loss[i] == pytest.approx(best - values[i, choice], abs=1e-4)
        assert loss[i] >= 0
        assert same[i] == (choice == legal[np.argmax(values[i, legal])])
    assert same.any() and (~same).any()


def test_the_report_adds_up(shards: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = selfplay.load([shards])
    lines = report(default_network(), data)
    total = lines[-1]
    assert (total.kind, total.part, total.decisions) == ("all", "all", len(data["action"]))
    whole = [g for g in lines if g.part == "all" and g.kind != "all"]
    assert sum(g.decisions for g in whole) == total.decisions
    assert sum(g.per_seat_deal for g in whole) == pytest.approx(total.per_seat_deal)
    for kind in ("lead", "follow", "discard"):
        parts = [g for g in lines if g.kind == kind and g.part != "all"]
        assert sum(g.decisions for g in parts) == next(g.decisions for g in whole if g.kind == kind)
    # 4 deals, 4 seats: the regret a seat gives up in a deal is the total over 16 seat-deals.
    regrets, _ = regret(default_network(), np.asarray(data["observation"], dtype=np.float32), data["mask"],
                        np.asarray(data["values"], dtype=np.float32))
    assert total.per_seat_deal == pytest.approx(regrets.sum() / 16)
    assert main(["--data", str(shards)]) == 0
    table = capsys.readouterr().out
    assert table.startswith("| decision | part |") and f"| all | all | {total.decisions:,} |" in table


def test_broken_shards_are_named_not_tracebacks(shards: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A truncated shard, a file that is no archive, an archive without the decisions' fields and
    a folder without shards: load names the file; the regret and training commands exit with
    argparse's status 2 and that one line, no traceback."""
    whole = sorted(shards.glob("*.npz"))[0]
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    text = tmp_path / "text.npz"
    text.write_text("not a shard\n")
    other = tmp_path / "other.npz"
    np.savez(other, weights=np.zeros(3))
    empty = tmp_path / "empty"
    empty.mkdir()
    for bad, says in ((truncated, "not a readable shard"), (text, "not a readable shard"),
                      (other, "not a shard of decisions (no observation"), (empty, "no .npz shards")):
        with pytest.raises(selfplay.DataError, match=re.escape(says)):
            selfplay.load([bad])
        for command in (main, train_main):
            with pytest.raises(SystemExit) as exit_:
                command(["--data", str(bad), "--out", str(tmp_path / "n.npz")] if command is train_main
                        else ["--data", str(bad)])
            assert exit_.value.code == 2
            err = capsys.readouterr().err
            assert str(bad) in err and says in err and "Traceback" not in err
