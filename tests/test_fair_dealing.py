"""Fair dealing you can check: every match publishes, when it starts, a commitment to its cards
(SHA-256 of its seed and options); once it is over the seed is revealed, and ``gongzhu replay
--match-seed S --commitment C`` checks that every deal of its record file was dealt from that
seed, as committed to.  A seed or a commitment that does not match is refused, saying so."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from gongzhu.cli.main import main
from gongzhu.records import check_records
from gongzhu.records.format import RecordError
from gongzhu.rules import PRESETS, Match
from gongzhu.rules.dealing import canonical_json, match_commitment
from helpers.client import Browser, act, new_match

RANDOM = {"N": "random", "E": "random", "W": "random"}


def test_the_commitment_hashes_the_seed_and_every_option() -> None:
    options = PRESETS["online"]
    want = hashlib.sha256(json.dumps({"seed": 42, "options": options.to_dict()}, sort_keys=True,
                                     separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()
    assert match_commitment(42, options.to_dict()) == want == Match(options, seed=42).commitment
    assert canonical_json({"b": 1, "a": "猪"}) == '{"a":"猪","b":1}'.encode()
    others = {match_commitment(43, options.to_dict()), match_commitment(42, PRESETS["tournament"].to_dict())}
    assert want not in others and len(others) == 2


def play_match(client: TestClient) -> tuple[str, str, str, list[str]]:
    """A single-player match of two deals played to its end: its id, the commitment its first
    state showed (no seed then), the seed its last state revealed, and its record file's lines."""
    match_id = new_match(client, levels=RANDOM, options={"match_end": "deals:2"})
    rng = random.Random(1)
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        state = browser.settle()
        commitment = state["table"]["commitment"]
        assert state["table"]["seed"] is None
        early = client.get(f"/api/matches/{match_id}/verify").json()
        assert (early["commitment"], early["seed"], early["verified"]) == (commitment, None, None)
        while state["phase"] != "match-over":
            assert state["table"]["commitment"] == commitment and state["table"]["seed"] is None
            act(browser, rng)
            state = browser.settle()
        seed = state["table"]["seed"]
    lines = client.get(f"/api/matches/{match_id}/records.jsonl").text.splitlines()
    return match_id, commitment, seed, lines


def test_a_match_reveals_its_seed_at_the_end_and_its_records_check_against_it(
        client: TestClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    match_id, commitment, seed, lines = play_match(client)
    checked = client.get(f"/api/matches/{match_id}/verify").json()
    assert checked == {"match_id": match_id, "commitment": commitment, "seed": seed, "deals": 2, "verified": 2,
                       "problem": None}
    assert len(commitment) == 64 and seed.isdigit() and len(lines) == 2
    records = [json.loads(line) for line in lines]
    assert match_commitment(int(seed), records[0]["options"]) == commitment
    assert len(list(check_records(records, match_seed=int(seed), commitment=commitment))) == 2
    path = tmp_path / "match.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["replay", "--quiet", "--match-seed", seed, "--commitment", commitment, str(path)]) == 0
    # Another seed, or another commitment: refused, saying why.
    assert main(["replay", "--quiet", "--match-seed", str(int(seed) + 1), str(path)]) == 1
    assert "is not deal 0 of the match seed" in capsys.readouterr().err
    assert main(["replay", "--quiet", "--match-seed", seed, "--commitment", "0" * 64, str(path)]) == 1
    assert "do not hash to the commitment" in capsys.readouterr().err
    assert main(["replay", "--quiet", "--commitment", commitment, str(path)]) == 2  # which seed?
    with pytest.raises(RecordError, match="not deal 1"):
        list(check_records([records[0], {**records[1], "seed": records[0]["seed"]}], match_seed=int(seed)))
