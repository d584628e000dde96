"""Bad input never crashes the command line: ``gongzhu bot`` answers an error line and goes on
with the next request (docs/bot-protocol.md, Limits); ``gongzhu replay`` (docs/records.md, R11),
``gongzhu analyze`` (docs/review.md; the replay corpus) and ``gongzhu score`` (docs/score.md, R6,
R7) exit non-zero with one line on stderr.  Never a
Python traceback, never an input file changed.

Inputs: every file of the corpus ``tests/data/fuzz/{bot,replay,score}/`` (inputs that once
crashed a command or echoed too much of themselves; each file name says what it holds),
systematic malformed variants of valid inputs (``malformed.py``: every value of every wrong kind,
every key removed, truncations, bytes that are not UTF-8, NUL bytes, byte-order marks, CRLF, lone
surrogates, deep nesting, huge integers), and hypothesis-generated JSON values and byte strings.
Most run in-process through ``gongzhu.cli.main.main`` with standard streams that encode strictly
as UTF-8, as a real terminal or pipe does; a few run as real processes.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gongzhu.cli.bot import serve
from gongzhu.cli.main import CLOSED_OUTPUT, main
from gongzhu.players import make_player
from gongzhu.players.protocol import (
    MAX_ERROR_CHARS,
    MAX_LINE_BYTES,
    handle_line,
    observation_from_request,
    reply_line,
)
from malformed import HOSTILE, byte_variants, json_variants, paths, replaced

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "fuzz"
GOLDEN = ROOT / "tests" / "data" / "golden.jsonl"
GOLDEN_LINES = GOLDEN.read_text(encoding="utf-8").splitlines()

#: East to play in the third trick (the documented session's request), answered with a play.
PLAY: dict[str, Any] = {
    "type": "play", "seat": "E", "preset": "online",
    "hand": ["8S", "TS", "QS", "KS", "3H", "5H", "9H", "JH", "2D", "9D", "AD"],
    "exposures": [{"seat": "N", "card": "AH", "kind": "shown"}, {"seat": "W", "card": "JD", "kind": "shown"}],
    "tricks": [
        {"leader": "W", "plays": [{"seat": "W", "cards": ["2C"]}, {"seat": "S", "cards": ["QC"]},
                                  {"seat": "E", "cards": ["6C"]}, {"seat": "N", "cards": ["JC"]}], "winner": "S"},
        {"leader": "S", "plays": [{"seat": "S", "cards": ["8C"]}, {"seat": "E", "cards": ["3C"]},
                                  {"seat": "N", "cards": ["4C"]}, {"seat": "W", "cards": ["AC"]}], "winner": "W"},
        {"leader": "W", "plays": [{"seat": "W", "cards": ["3S"]}, {"seat": "S", "cards": ["9S"]}]},
    ],
    "deal_index": 0,
}
EXPOSE: dict[str, Any] = {"type": "expose", "seat": "S", "preset": "online",
                          "hand": ["KC", "8H", "5C", "QH", "3D", "8C", "TC", "7H", "2S", "8D", "4D", "9S", "QC"]}
NEXT = json.dumps({**PLAY, "id": "next"}).encode()
LEGAL = {tuple(c.code for c in p) for p in observation_from_request(PLAY).legal_plays()}

#: A score input of R7.2 (docs/score.md), and one with the hands as dealt (golden deal 1).
SCORE: dict[str, Any] = {
    "preset": "online",
    "captured": {"N": ["AH", "KH", "QH"], "E": ["QS", "10C", "JH", "TH", "9H"], "S": ["4H", "3H", "2H"],
                 "W": ["JD", "8H", "7H", "6H", "5H"]},
    "exposures": [{"seat": "W", "card": "JD", "kind": "shown"}],
}
SCORE_WITH_HANDS: dict[str, Any] = {**SCORE, "options": {"self_catch": True},
                                    "hands": json.loads(GOLDEN_LINES[0])["hands"], "exposures": []}


def corpus(kind: str) -> list[Path]:
    return sorted(p for p in (CORPUS / kind).iterdir() if not p.name.startswith("."))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------------------------- in-process runs


@contextmanager
def _stdio(stdin: bytes) -> Iterator[tuple[io.BytesIO, io.BytesIO]]:
    """Standard streams as a process has them: bytes underneath, stdout strict UTF-8, stderr
    with backslash escapes (Python's own choice for stderr)."""
    out, err = io.BytesIO(), io.BytesIO()
    saved = sys.stdin, sys.stdout, sys.stderr
    stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    stderr = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True)
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    sys.stdout, sys.stderr = stdout, stderr
    try:
        yield out, err
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        stdout.detach()  # keep the bytes readable
        stderr.detach()


def run_cli(argv: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    """``gongzhu ARGV`` in this process: exit status, stdout, stderr.  An exception escaping
    ``main`` fails the test — that would be a traceback."""
    with _stdio(stdin) as (out, err):
        code = main(argv)
    return code, out.getvalue().decode("utf-8"), err.getvalue().decode("utf-8")


def assert_one_line_error(command: str, code: int, out: str, err: str, codes: tuple[int, ...]) -> None:
    assert code in codes, (code, err)
    assert "Traceback" not in out and "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith(f"gongzhu {command}: ") and len(err) < 800, err


def replay_file(path: Path, *extra: str) -> tuple[int, str, str]:
    before = _digest(path)
    result = run_cli(["replay", *extra, str(path)])
    assert _digest(path) == before
    return result


def score_file(path: Path, *extra: str) -> tuple[int, str, str]:
    before = _digest(path)
    result = run_cli(["score", *extra, "--file", str(path)])
    assert _digest(path) == before
    return result


# ---------------------------------------------------------------------------------- the bot


def bot_answers(data: bytes) -> list[dict[str, Any]]:
    """The bot's answers to ``data`` then the NEXT request, from one bot; every answer is one
    line of JSON in UTF-8 and the last one, NEXT's, is a legal play."""
    out = io.StringIO()
    assert serve(make_player("random", seed=1), io.BytesIO(data.rstrip(b"\n") + b"\n" + NEXT + b"\n"), out) == 0
    text = out.getvalue()
    text.encode("utf-8")
    answers = [json.loads(line) for line in text.splitlines()]
    last = answers[-1]
    assert last["id"] == "next" and tuple(last["cards"]) in LEGAL, last
    return answers[:-1]


def assert_bot_error(reply: dict[str, Any] | None) -> None:
    assert reply is not None and set(reply) <= {"id", "error"}, reply
    assert not reply["error"].startswith("internal error"), reply
    assert 0 < len(reply["error"]) <= MAX_ERROR_CHARS
    reply_line(reply).encode("utf-8")


@pytest.mark.parametrize("path", corpus("bot"), ids=lambda p: p.name)
def test_bot_corpus(path: Path) -> None:
    data = path.read_bytes()
    answers = bot_answers(data)
    assert answers and len(answers) == data.rstrip(b"\n").count(b"\n") + 1
    for reply in answers:
        assert_bot_error(reply)
        assert "Q" * 50 not in reply["error"] and "QS" * 25 not in reply["error"]  # a short excerpt only


def test_bot_corpus_as_a_process() -> None:
    """All corpus files, each followed by a good request, to one real ``gongzhu bot`` process:
    one answer a line, nothing on stderr, the good requests all answered."""
    stdin = b"".join(p.read_bytes().rstrip(b"\n") + b"\n" + NEXT + b"\n" for p in corpus("bot"))
    done = subprocess.run([sys.executable, "-m", "gongzhu.cli.main", "bot", "--level", "random", "--seed", "3"],
                          input=stdin, capture_output=True, timeout=120, check=False)
    assert done.returncode == 0 and done.stderr == b""
    answers = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert len(answers) == stdin.count(b"\n")
    good = [a for a in answers if a.get("id") == "next"]
    assert len(good) == len(corpus("bot")) and all(tuple(a["cards"]) in LEGAL for a in good)
    assert all("error" in a for a in answers if a.get("id") != "next")


@pytest.mark.parametrize("name", [name for name, _ in HOSTILE])
def test_bot_hostile_text(name: str) -> None:
    text = dict(HOSTILE)[name]
    lines = [line for line in text.splitlines() if line.strip()]
    answers = bot_answers(text.encode())
    assert len(answers) == len(lines)
    for reply in answers:
        assert_bot_error(reply)


def test_bot_lines_over_the_limit() -> None:
    padded = b'{"type": "info", "pad": "' + b"x" * 2 * MAX_LINE_BYTES + b'"}'
    answers = bot_answers(padded + b"\n" + b"[" * (MAX_LINE_BYTES + 1) + b"\n" + "北".encode() * MAX_LINE_BYTES)
    assert len(answers) == 3
    for reply in answers:
        assert_bot_error(reply)
        assert f"at most {MAX_LINE_BYTES} bytes" in reply["error"]


@pytest.mark.parametrize("request_", [PLAY, EXPOSE], ids=["play", "expose"])
def test_bot_malformed_requests(request_: dict[str, Any]) -> None:
    """Every value of the request replaced by a value of each wrong kind, every key removed,
    truncations: each is answered (most with an error), never an internal error."""
    player = make_player("random", seed=2)
    count = 0
    for name, text in json_variants(request_):
        reply = handle_line(player, text)
        count += 1
        if reply is None:
            assert not text.strip(), name
            continue
        reply_line(reply).encode("utf-8")
        if "error" in reply:
            assert_bot_error(reply)
        else:
            assert set(reply) & {"cards", "expose", "protocol"}, (name, reply)
    assert count > 500
    assert handle_line(player, NEXT) is not None


@pytest.mark.parametrize("request_", [PLAY, EXPOSE], ids=["play", "expose"])
def test_bot_request_bytes(request_: dict[str, Any]) -> None:
    for name, data in byte_variants(json.dumps(request_)):
        answers = bot_answers(data)
        for reply in answers:
            if "error" in reply:
                assert_bot_error(reply)
            else:
                assert name in ("crlf", "cr_only"), (name, reply)


json_scalars = (st.none() | st.booleans() | st.integers(min_value=-(10**45), max_value=10**45)
                | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8))
request_keys = st.sampled_from(["type", "seat", "hand", "preset", "options", "exposures", "tricks", "deal_index",
                                "first_receiver", "first_card", "id", "cards", "leader", "plays", "winner",
                                "taker", "kind", "card", "decks", "exposure"]) | st.text(max_size=4)
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=5)
                           | st.dictionaries(request_keys, inner, max_size=5), max_leaves=25)






PLAY_PATHS = list(paths(PLAY))
BOT_PLAYER = make_player("random", seed=5)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(PLAY_PATHS), value=json_values)
def test_bot_any_value_anywhere(path: tuple[Any, ...], value: Any) -> None:
    reply = handle_line(BOT_PLAYER, json.dumps(replaced(PLAY, path, value)))
    assert reply is not None
    if "error" in reply:
        assert_bot_error(reply)
    else:
        assert tuple(reply["cards"]) in {tuple(c.code for c in p) for p in
                                         observation_from_request(replaced(PLAY, path, value)).legal_plays()}
    again = handle_line(BOT_PLAYER, NEXT)
    assert again is not None and tuple(again["cards"]) in LEGAL


@settings(max_examples=150, deadline=None)
@given(value=json_values, kind=st.sampled_from(["play", "expose", "info", None]))
def test_bot_any_request(value: Any, kind: str | None) -> None:
    request_ = {"type": kind, **value} if isinstance(value, dict) and kind else value
    if isinstance(request_, dict) and request_.get("type") == "hint":
        request_["type"] = "play"
    reply = handle_line(BOT_PLAYER, json.dumps(request_))
    assert reply is not None
    if "error" in reply:
        assert_bot_error(reply)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_bot_any_bytes(data: bytes) -> None:
    for line in data.split(b"\n"):
        reply = handle_line(BOT_PLAYER, line)
        if reply is not None and "error" in reply:
            assert_bot_error(reply)
    again = handle_line(BOT_PLAYER, NEXT)
    assert again is not None and tuple(again["cards"]) in LEGAL


# ---------------------------------------------------------------------------------- replay


@pytest.mark.parametrize("path", corpus("replay"), ids=lambda p: p.name)
def test_replay_corpus(path: Path) -> None:
    code, out, err = replay_file(path)
    assert_one_line_error("replay", code, out, err, (1, 2))
    assert "m" * 50 not in err
    if path.name.startswith("invalid_utf8"):
        assert code == 2 and "not valid UTF-8: byte 0x" in err
    if path.name in ("empty.jsonl", "blank_lines_only.jsonl", "bom_only.jsonl"):
        assert err == f"gongzhu replay: no deal records in {path}\n"


@pytest.mark.parametrize("name", [name for name, _ in HOSTILE])
def test_replay_hostile_text(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.jsonl"
    path.write_text(dict(HOSTILE)[name], encoding="utf-8")
    assert_one_line_error("replay", *replay_file(path, "--quiet"), codes=(1,))


def test_replay_malformed_records(tmp_path: Path) -> None:
    """Golden record 1 with every value of each wrong kind, every key removed, truncations, as
    the first line of a file; the second golden record after it."""
    path = tmp_path / "records.jsonl"
    seen = 0
    for name, text in json_variants(json.loads(GOLDEN_LINES[0]), every=3, cuts=30):
        path.write_text(text + "\n" + GOLDEN_LINES[1] + "\n", encoding="utf-8")
        code, out, err = replay_file(path, "--quiet")
        seen += 1
        if code == 0:  # a change the format allows (a seed, a match name, the preset note)
            assert err == "" and out.endswith("all records check out\n"), name
        else:
            assert_one_line_error("replay", code, out, err, (1,))
    assert seen > 400


def test_replay_bytes(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    for name, data in byte_variants("\n".join(GOLDEN_LINES[:3]) + "\n"):
        path.write_bytes(data)
        code, out, err = replay_file(path, "--quiet")
        if name in ("bom", "crlf"):
            assert code == 0, (name, err)
        else:
            assert_one_line_error("replay", code, out, err, (1, 2))


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_replay_unreadable_files(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    if kind == "directory":
        path.mkdir()
    code, out, err = run_cli(["replay", str(path)])
    assert_one_line_error("replay", code, out, err, (2,))
    assert err.startswith(f"gongzhu replay: cannot read {path}: ")


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_replay_any_bytes(data: bytes) -> None:
    code, out, err = run_cli(["replay", "--quiet", "-"], stdin=data)
    assert_one_line_error("replay", code, out, err, (1, 2))


# ---------------------------------------------------------------------------------- analyze
# ``gongzhu analyze`` reads records as ``gongzhu replay`` does and reviews nothing until every
# record of the file has checked out.


@pytest.mark.parametrize("path", corpus("replay"), ids=lambda p: p.name)
def test_analyze_corpus(path: Path) -> None:
    before = _digest(path)
    code, out, err = run_cli(["analyze", "--workers", "0", str(path)])
    assert _digest(path) == before
    assert_one_line_error("analyze", code, out, err, (1, 2))
    assert out == ""


@pytest.mark.parametrize("name", [name for name, _ in HOSTILE])
def test_analyze_hostile_text(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.jsonl"
    path.write_text(dict(HOSTILE)[name], encoding="utf-8")
    assert_one_line_error("analyze", *run_cli(["analyze", "--workers", "0", str(path)]), codes=(1,))


def test_analyze_reviews_nothing_before_every_record_checks_out(tmp_path: Path) -> None:
    """A good record followed by a broken one: exit 1 naming the line, no review printed."""
    path = tmp_path / "records.jsonl"
    path.write_text(GOLDEN_LINES[0] + "\n" + GOLDEN_LINES[1][:-20] + "\n", encoding="utf-8")
    code, out, err = run_cli(["analyze", "--workers", "0", "--worlds", "2", str(path)])
    assert_one_line_error("analyze", code, out, err, (1,))
    assert out == "" and "line 2" in err


@settings(max_examples=50, deadline=None)
@given(st.binary(max_size=300))
def test_analyze_any_bytes(data: bytes) -> None:
    code, out, err = run_cli(["analyze", "--workers", "0", "-"], stdin=data)
    assert_one_line_error("analyze", code, out, err, (1, 2))


GOLDEN_PATHS = list(paths(json.loads(GOLDEN_LINES[0])))


@settings(max_examples=100, deadline=None)
@given(path=st.sampled_from(GOLDEN_PATHS), value=json_values)
def test_replay_any_value_anywhere(path: tuple[Any, ...], value: Any) -> None:
    text = json.dumps(replaced(json.loads(GOLDEN_LINES[0]), path, value))
    code, out, err = run_cli(["replay", "--quiet", "-"], stdin=text.encode())
    if code != 0:
        assert_one_line_error("replay", code, out, err, (1,))


# ---------------------------------------------------------------------------------- score


@pytest.mark.parametrize("path", corpus("score"), ids=lambda p: p.name)
def test_score_corpus(path: Path) -> None:
    for extra in ([], ["--json"]):
        code, out, err = score_file(path, *extra)
        assert_one_line_error("score", code, out, err, (2,))
        assert "QS" * 25 not in err and "k" * 50 not in err and "o" * 50 not in err  # a short excerpt only
        if path.name.startswith("invalid_utf8"):
            assert f"{path}: not valid UTF-8: byte 0x" in err


@pytest.mark.parametrize("name", [name for name, _ in HOSTILE])
def test_score_hostile_text(name: str) -> None:
    assert_one_line_error("score", *run_cli(["score"], stdin=dict(HOSTILE)[name].encode()), codes=(2,))


@pytest.mark.parametrize("data", [SCORE, SCORE_WITH_HANDS], ids=["captured", "with_hands"])
def test_score_malformed_inputs(data: dict[str, Any]) -> None:
    seen = 0
    for name, text in json_variants(data, every=2):
        for extra in ([], ["--json"]):
            code, out, err = run_cli(["score", *extra], stdin=text.encode())
            seen += 1
            if code == 0:  # a change the input allows (a card that scores nothing, a seat name)
                assert err == "" and out, name
            else:
                assert_one_line_error("score", code, out, err, (2,))
    assert seen > 500


def test_score_bytes() -> None:
    for name, data in byte_variants(json.dumps(SCORE, indent=1)):
        code, out, err = run_cli(["score", "--json"], stdin=data)
        if name in ("bom", "crlf", "cr_only"):
            assert code == 0 and json.loads(out)["raw"] == {"N": -120, "E": -280, "S": 0, "W": 160}, name
        else:
            assert_one_line_error("score", code, out, err, (2,))


def test_score_input_over_one_mib() -> None:
    data = b'{"captured": {"N": ["' + b"2C " * 400_000 + b'"]}}'
    code, out, err = run_cli(["score"], stdin=data)
    assert_one_line_error("score", code, out, err, (2,))
    assert "more than 1048576 bytes" in err


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_score_unreadable_files(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "deal.json"
    if kind == "directory":
        path.mkdir()
    code, out, err = run_cli(["score", "--file", str(path)])
    assert_one_line_error("score", code, out, err, (2,))
    assert err.startswith(f"gongzhu score: error: cannot read {path}: ")


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_score_any_bytes(data: bytes) -> None:
    code, out, err = run_cli(["score"], stdin=data)
    assert_one_line_error("score", code, out, err, (2,))


SCORE_PATHS = list(paths(SCORE_WITH_HANDS))


@settings(max_examples=150, deadline=None)
@given(path=st.sampled_from(SCORE_PATHS), value=json_values, as_json=st.booleans())
def test_score_any_value_anywhere(path: tuple[Any, ...], value: Any, as_json: bool) -> None:
    text = json.dumps(replaced(SCORE_WITH_HANDS, path, value))
    code, out, err = run_cli(["score", *(["--json"] if as_json else [])], stdin=text.encode())
    if code != 0:
        assert_one_line_error("score", code, out, err, (2,))


# ---------------------------------------------------------------------------------- real processes


def _gongzhu(*args: str) -> list[str]:
    return [sys.executable, "-m", "gongzhu.cli.main", *args]


def test_processes_refuse_with_one_line() -> None:
    cases = [
        (["replay", str(CORPUS / "replay" / "lone_surrogate_match.jsonl")], b"", 1),
        (["replay", str(CORPUS / "replay" / "nesting_5000_in_hands.jsonl")], b"", 1),
        (["replay", "-"], (CORPUS / "replay" / "invalid_utf8_third_line.jsonl").read_bytes(), 2),
        (["score", "--json"], (CORPUS / "score" / "int_4301_digits_one_deck_factor.json").read_bytes(), 2),
        (["score", "--file", str(CORPUS / "score" / "invalid_utf8_byte_ff_first.json")], b"", 2),
    ]
    for args, stdin, status in cases:
        done = subprocess.run(_gongzhu(*args), input=stdin, capture_output=True, timeout=120, check=False)
        assert done.returncode == status, (args, done.stderr)
        err = done.stderr.decode("utf-8")
        assert "Traceback" not in err and err.count("\n") == 1 and err.startswith(f"gongzhu {args[0]}: "), err


@pytest.mark.parametrize("args", [["score", "--json", "--file", "DEAL"], ["replay", str(GOLDEN)],
                                  ["replay", "--quiet", str(GOLDEN)]], ids=["score", "replay", "replay_quiet"])
def test_a_closed_output_ends_quietly(args: list[str], tmp_path: Path) -> None:
    """``gongzhu score --json … | head -c1``: the reader is gone before the command writes; it
    stops with status 141 (as if by SIGPIPE) and nothing on stderr."""
    deal = tmp_path / "deal.json"
    deal.write_text(json.dumps(SCORE), encoding="utf-8")
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody will read: every write fails with EPIPE
    try:
        done = subprocess.run(_gongzhu(*[str(deal) if a == "DEAL" else a for a in args]), stdout=write_end,
                              stderr=subprocess.PIPE, timeout=120, check=False)
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (CLOSED_OUTPUT, b"")


@pytest.mark.parametrize("args", [["score"], ["replay", "-"]], ids=["score", "replay"])
def test_a_closed_input_is_one_line(args: list[str]) -> None:
    done = subprocess.run(["sh", "-c", 'exec "$@" <&-', "sh", *_gongzhu(*args)], capture_output=True,
                          timeout=120, check=False)
    assert done.returncode == 2
    assert done.stderr.decode().endswith("cannot read stdin: standard input is closed\n")
    assert done.stderr.count(b"\n") == 1
