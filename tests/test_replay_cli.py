"""``gongzhu replay FILE`` (R11): re-checks deal records and shows them trick by trick.

Exit status 0 when every record checks out, 1 at the first bad record (line, match, deal_index
and reason on stderr), 2 when the file cannot be read.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gongzhu.cli.main import main
from gongzhu.records import dump_record

GOLDEN = Path(__file__).parent / "data" / "golden.jsonl"
SUMMARY_EN = "7 deals in 5 matches: all records check out"


def golden() -> list[dict[str, Any]]:
    return [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]


def write(tmp_path: Path, records: list[dict[str, Any]], name: str = "records.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(dump_record(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_replay_prints_every_deal_in_english(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(GOLDEN)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert lines[0] == "Deal 1 (match golden-online, line 1, preset online)"
    assert lines[1] == "  North: ♠7 ♠2 ♥K ♥8 ♥5 ♥4 ♣8 ♣6 ♣5 ♦A ♦9 ♦4 ♦2"
    assert "  Exposures: East ♥A (shown), East ♦J (shown), South ♠Q (shown), South ♣10 (shown)" in lines
    assert ("  Trick 1: South leads — South ♣2, East ♣K, North ♣5, West ♣3 → East wins the trick"
            in lines)
    assert "  Raw: North +40  East -240  South -800  West 0" in lines
    assert "  Final: North +4644  East +156  South -8796  West +3996" in lines
    assert "Deal 2 (match golden-online, line 2, preset online)" in lines
    assert any("North ♥A (automatic)" in line for line in lines)  # 逼明, R4.4
    assert any("takes the point cards (penalty)" in line for line in lines)  # R5.2
    assert any("(first card)" in line for line in lines)  # 首明
    assert "  Events: West all hearts" in lines
    assert lines[-1] == SUMMARY_EN
    assert sum(line.startswith("  Trick ") for line in lines) == sum(len(r["tricks"]) for r in golden())


def test_a_records_text_reaches_the_terminal_without_its_control_characters(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A record's match name with escape sequences (recolouring the terminal, retitling its
    window) or a bidi override is printed with those characters written out, not sent."""
    record = golden()[0] | {"match": "\x1b[31mRED\x1b[0m\x1b]0;title\x07 \u202eabc 张"}
    assert main(["replay", str(write(tmp_path, [record]))]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == "Deal 1 (match \\x1b[31mRED\\x1b[0m\\x1b]0;title\\x07 \\u202eabc 张, line 1, preset online)"
    assert not any(ord(ch) < 32 or ch == "\u202e" for ch in first)


def test_replay_in_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--lang", "zh", str(GOLDEN)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "第1副（对局 golden-online，第1行，预设 online）"
    assert "  第1圈：南出牌 — 南 ♣2，东 ♣K，北 ♣5，西 ♣3 → 东赢得本圈" in lines
    assert "  原始分：北 +40  东 -240  南 -800  西 0" in lines
    assert any("北 ♥A (逼明)" in line for line in lines)
    assert any("收分（罚）" in line for line in lines)
    assert "  特殊：西 满红" in lines
    assert lines[-1] == "共 7 副、5 局：全部记录核对无误"


def test_quiet_prints_only_the_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--quiet", str(GOLDEN)]) == 0
    assert capsys.readouterr() == (SUMMARY_EN + "\n", "")


def test_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(GOLDEN.read_text(encoding="utf-8")))
    assert main(["replay", "-", "--quiet"]) == 0
    assert capsys.readouterr().out == SUMMARY_EN + "\n"


@pytest.mark.parametrize("text", ["", "\n\n  \n", "\ufeff"])
def test_a_file_without_records_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> None:
    path = tmp_path / "records.jsonl"
    path.write_text(text, encoding="utf-8")
    assert main(["replay", str(path)]) == 1
    assert capsys.readouterr() == ("", f"gongzhu replay: no deal records in {path}\n")


def test_wrong_winner_exits_1_naming_the_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = golden()
    records[1]["tricks"][0]["winner"] = "S"
    path = write(tmp_path, records)
    assert main(["replay", str(path)]) == 1
    out, err = capsys.readouterr()
    assert err == (
        f"gongzhu replay: {path}: line 2, match 'golden-online', deal_index 1: $.tricks[0].winner: "
        "recorded S, but N wins the trick with ♦K (R5.2)\n"
    )
    assert out.startswith("Deal 1 (match golden-online, line 1")  # the good deal before it
    assert "Deal 2" not in out and SUMMARY_EN not in out


def test_illegal_play_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = golden()
    records[0]["tricks"][0]["plays"][1]["cards"] = ["JS"]  # East holds clubs (R5.2)
    path = write(tmp_path, records)
    assert main(["replay", "--quiet", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(
        f"gongzhu replay: {path}: line 1, match 'golden-online', deal_index 0: "
        "$.tricks[0].plays[1].cards: E cannot play ♠J: "
    )
    assert "follow suit" in err


@pytest.mark.parametrize(("line", "mutate", "message"), [
    (2, lambda r: r.__setitem__("first_receiver", "E"),
     "$.first_receiver: recorded E, but S took the pig in deal_index 0 of this match (line 1): a "
     "later deal is dealt first to the previous pig-taker (R3), who leads (R5.1)"),
    (3, lambda r: r.__setitem__("deal_index", 5),
     "$.deal_index: expected 2 after deal_index 1 of this match (line 2), got 5: the deals of a "
     "match count up by 1 (R11)"),
    (1, lambda r: r["raw"].__setitem__("S", -400), "$.raw.S: recorded -400, but S scores -800 (R6)"),
    (4, lambda r: r.pop("hands"), "$: missing field 'hands'"),
    (1, lambda r: r["hands"]["E"].__setitem__(0, "1S"),
     '$.hands.E[0]: must be a card code: rank 23456789TJQKA then suit SHCD, e.g. "QS", "TC", not "1S"'),
])
def test_bad_records_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: int, mutate: Any, message: str
) -> None:
    records = golden()
    mutate(records[line - 1])
    path = write(tmp_path, records)
    assert main(["replay", "--quiet", str(path)]) == 1
    bad = records[line - 1]
    where = f"line {line}, match {bad['match']!r}, deal_index {bad['deal_index']}"
    assert capsys.readouterr().err == f"gongzhu replay: {path}: {where}: {message}\n"


def test_bad_json_exits_1_with_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = GOLDEN.read_text(encoding="utf-8").splitlines()
    lines.insert(3, "{not json")
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["replay", "--quiet", str(path)]) == 1
    assert capsys.readouterr().err == (
        f"gongzhu replay: {path}: line 4: not valid JSON: Expecting property name enclosed in "
        "double quotes (column 2)\n"
    )


@pytest.mark.parametrize("kind", ["missing", "directory", "not_utf8"])
def test_unreadable_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    path = tmp_path / "x.jsonl"
    if kind == "directory":
        path.mkdir()
    elif kind == "not_utf8":
        path.write_bytes(b'{"format": "\xff\xfe"}\n')
    assert main(["replay", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"gongzhu replay: cannot read {path}: ")


def _gongzhu() -> list[str]:
    script = Path(sys.executable).with_name("gongzhu")
    return [str(script)] if script.exists() else [sys.executable, "-m", "gongzhu.cli.main"]


def test_console_script_subprocess(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    ok = subprocess.run([*_gongzhu(), "replay", "--quiet", str(GOLDEN)], capture_output=True,
                        text=True, encoding="utf-8", env=env, check=False)
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, SUMMARY_EN + "\n", "")
    records = golden()
    records[2]["deal_index"] = 7
    bad = subprocess.run([*_gongzhu(), "replay", "-"], input="".join(dump_record(r) + "\n" for r in records),
                         capture_output=True, text=True, encoding="utf-8", env=env, check=False)
    assert bad.returncode == 1
    assert bad.stderr.startswith("gongzhu replay: stdin: line 3, match 'golden-online', deal_index 7: ")
    missing = subprocess.run([*_gongzhu(), "replay", str(tmp_path / "none.jsonl")],
                             capture_output=True, text=True, encoding="utf-8", env=env, check=False)
    assert missing.returncode == 2


def test_help_mentions_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["replay", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "--quiet" in out and "--lang" in out and "Exit 0" in out
