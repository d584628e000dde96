"""``gongzhu selfplay``: random players play whole matches (R8) and write one deal record
(R11) per line; the same seed gives the same bytes."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from gongzhu.cli import selfplay
from gongzhu.records.replay import check_file
from gongzhu.rules import Options, match_over
from helpers.volume import scaled


def run_selfplay(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="gongzhu")
    selfplay.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["selfplay", *argv])
    code: int = args.run(args)
    return code


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_writes_n_records_and_a_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "a.jsonl"
    argv = ["--preset", "online", "--deals", "30", "--seed", "4", "--out", str(out)]
    assert run_selfplay(argv) == 0
    text = out.read_text(encoding="utf-8")
    assert text.endswith("\n") and text.count("\n") == 30
    recs = records(out)
    assert all(r["format"] == "gongzhu-deal/1" and r["preset"] == "online" for r in recs)
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "30 deals" in err and "matches" in err and " s" in err


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path: Path) -> None:
    paths = [tmp_path / f"{i}.jsonl" for i in range(3)]
    for path, seed in zip(paths, ["8", "8", "9"], strict=True):
        assert run_selfplay(["--deals", "12", "--seed", seed, "--out", str(path)]) == 0
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert paths[0].read_bytes() != paths[2].read_bytes()


@pytest.mark.parametrize("preset", ["online", "tournament", "online2"])
def test_matches_end_by_r8_and_deals_count_up(preset: str, tmp_path: Path) -> None:
    """A match ends exactly when R8 says (totals without the one-deck factor), the next one
    starts as "S-1", "S-2" …, and deal_index restarts at 0 in each."""
    out = tmp_path / "m.jsonl"
    argv = ["--preset", preset, "--deals", "60", "--seed", "21", "--out", str(out)]
    assert run_selfplay(argv) == 0
    recs = records(out)
    assert len(recs) == 60
    options = Options.from_dict(recs[0]["options"])
    one_deck = options.decks == 1 and options.scoring != "raw"  # R7.1 raw has no factor
    factor = options.one_deck_factor if one_deck else 1
    matches: dict[str, list[dict[str, Any]]] = {}
    for r in recs:
        matches.setdefault(r["match"], []).append(r)
    assert list(matches) == [f"21-{i}" for i in range(len(matches))]
    assert len(matches) >= 2
    for number, (_, deals) in enumerate(matches.items()):
        assert [r["deal_index"] for r in deals] == list(range(len(deals)))
        totals = [0, 0, 0, 0]
        for i, r in enumerate(deals):
            assert not match_over(options, totals, i)
            for s, seat in enumerate("NESW"):
                assert r["final"][seat] % factor == 0
                totals[s] += r["final"][seat] // factor
        if number < len(matches) - 1:  # the last match may be cut short by --deals
            assert match_over(options, totals, len(deals))
    # later deals of a match are dealt first to the previous pig-taker (R3)
    first_receivers = {r["first_receiver"] for r in recs if r["deal_index"] > 0}
    assert first_receivers <= set("NESW") and len(first_receivers) > 1


def test_set_overrides_the_preset(tmp_path: Path) -> None:
    out = tmp_path / "s.jsonl"
    argv = ["--preset", "online", "--set", "decks=2", "--set", "scoring=raw",
            "--set", "match_end=deals:3", "--deals", "7", "--seed", "2", "--out", str(out)]
    assert run_selfplay(argv) == 0
    recs = records(out)
    assert [(r["match"], r["deal_index"]) for r in recs] == [
        ("2-0", 0), ("2-0", 1), ("2-0", 2), ("2-1", 0), ("2-1", 1), ("2-1", 2), ("2-2", 0)]
    for r in recs:
        assert r["options"]["decks"] == 2 and r["options"]["scoring"] == "raw"
        assert all(len(hand) == 26 for hand in r["hands"].values())
        assert r["raw"] == r["final"]


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--preset", "nope"], ["unknown preset", "nope"]),
        (["--set", "decks=3"], ["decks", "3"]),
        (["--set", "colour=red"], ["unknown option", "colour"]),
        (["--set", "decks"], ["key=value"]),
        (["--set", "decks=2", "--set", "exposure=first_card"], ["first_card", "one deck"]),
        (["--preset", "pig_sheep", "--set", "exposure=standard"], ["pig_sheep", "exposure"]),
    ],
)
def test_bad_options_exit_2_with_a_clear_message(
    argv: list[str], words: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bad.jsonl"
    assert run_selfplay([*argv, "--deals", "2", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gongzhu selfplay: ") and "Traceback" not in err
    for word in words:
        assert word in err
    assert not out.exists()


def test_zero_deals_writes_an_empty_file(tmp_path: Path) -> None:
    out = tmp_path / "z.jsonl"
    assert run_selfplay(["--deals", "0", "--out", str(out)]) == 0
    assert out.read_bytes() == b""


@pytest.mark.parametrize(
    "argv",
    [
        ["--preset", "online"],
        ["--preset", "online2"],
        ["--preset", "tournament"],
        ["--preset", "pig_sheep"],
        ["--preset", "partners2", "--set", "exposure=hidden"],
        ["--preset", "classic", "--set", "discard_color=penalty", "--set", "exposure=sell_x4_x2"],
    ],
)
def test_selfplay_output_replays(argv: list[str], tmp_path: Path) -> None:
    """Every record re-checks by replay, and so does the match sequence (R3, R5.1, R8, R11)."""
    out = tmp_path / "r.jsonl"
    deals = scaled(25)
    assert run_selfplay([*argv, "--deals", str(deals), "--seed", "3", "--out", str(out)]) == 0
    checked = check_file(out)  # raises on the first record that does not check out
    assert len(checked) == deals


def test_through_the_gongzhu_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gongzhu.cli.main import main

    out = tmp_path / "c.jsonl"
    assert main(["selfplay", "--deals", "3", "--seed", "1", "--out", str(out)]) == 0
    assert len(records(out)) == 3
    assert main(["selfplay", "--set", "decks=9", "--deals", "3", "--out", str(out)]) == 2
    assert "decks" in capsys.readouterr().err
