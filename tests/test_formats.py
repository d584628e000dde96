"""The wire formats of gongzhu.formats: documented and golden examples decode, every kind of bad
field is refused with its $.path and the value found there, and docs/schemas is what the
declarations give."""

from __future__ import annotations

import copy
import json
import re
import typing
from pathlib import Path
from typing import Any

import msgspec
import pytest

from gongzhu.formats import FormatError, typed
from gongzhu.formats.bot import ExposeRequest, InfoRequest, PlayRequest, Request
from gongzhu.formats.record import FIELDS, Record
from gongzhu.formats.schemas import DOCUMENTS, main, render
from gongzhu.formats.score import ScoreInput
from gongzhu.formats.web import BrowserMessage, HintMessage, NewMatchBody, PlayMessage, SettingsMessage
from gongzhu.jsontext import loads_strict
from gongzhu.records.format import dump_record

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "data" / "golden.jsonl"


def _golden() -> list[dict[str, Any]]:
    return [loads_strict(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line.strip()]


def _refusal(value: Any, kind: Any) -> str:
    with pytest.raises(FormatError) as info:
        typed(value, kind)
    assert str(info.value) == f"{info.value.path}: {info.value.reason}"
    return str(info.value)


# ---------------------------------------------------------------------------------- records


def test_golden_records_decode_and_keep_their_key_order() -> None:
    records = _golden()
    assert records
    for obj in records:
        record = typed(obj, Record)
        assert record.match == obj["match"] and len(record.tricks) == len(obj["tricks"])
        assert tuple(obj)[: len(FIELDS)] == FIELDS  # the writer's order is the declaration's
        assert dump_record(obj) == json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize(("edit", "message"), [
    (lambda r: r["tricks"][3].__setitem__("winner", "X"),
     '$.tricks[3].winner: must be a seat: N, E, S or W, not "X"'),
    (lambda r: r["tricks"][3].__setitem__("winner", 2), "$.tricks[3].winner: must be a seat: N, E, S or W, "
     "not an integer (2)"),
    (lambda r: r["hands"]["E"].__setitem__(4, "10C"),
     '$.hands.E[4]: must be a card code: rank 23456789TJQKA then suit SHCD, e.g. "QS", "TC", not "10C"'),
    (lambda r: r.pop("seed"), "$: missing field 'seed'"),
    (lambda r: r["tricks"][0].__setitem__("note", 1), "$.tricks[0]: unknown field 'note': expected 'leader', "
     "'plays', 'winner', 'taker'"),
    (lambda r: r["options"].__setitem__("decks", 3), "$.options.decks: must be one of 1, 2, not 3"),
    (lambda r: r["options"].__setitem__("self_catch", "no"),
     '$.options.self_catch: must be true or false, not a string ("no")'),
    (lambda r: r.__setitem__("raw", []), "$.raw: must be an object, not an array ([])"),
    (lambda r: r["final"].__setitem__("W", 1.5), "$.final.W: must be an integer, not a number with a fraction (1.5)"),
    (lambda r: r["tricks"][1]["plays"][2].__setitem__("cards", []),
     "$.tricks[1].plays[2].cards: must be one card, or two in a two-deck pair trick (R5.3), not an array of 0 ([])"),
    (lambda r: r.__setitem__("format", None),
     '$.format: must be "gongzhu-deal/1", or "gongzhu-deal/2" (which may name a board), not null'),
])
def test_record_refusals_name_the_path_and_the_value(edit: Any, message: str) -> None:
    record = copy.deepcopy(_golden()[0])
    edit(record)
    assert _refusal(record, Record) == message


def test_unknown_top_level_fields_of_a_record_are_carried() -> None:
    record = {**_golden()[0], "note": {"anything": [1, 2]}}
    assert typed(record, Record).match == record["match"]


# ---------------------------------------------------------------------------------- bot requests


def _documented_requests() -> list[dict[str, Any]]:
    text = (ROOT / "docs" / "bot-protocol.md").read_text(encoding="utf-8")
    out = []
    for line in text.splitlines():
        if line.startswith("> {"):
            try:
                out.append(json.loads(line[2:]))
            except json.JSONDecodeError:  # the session's broken line
                continue
    return out


def test_documented_bot_requests_decode() -> None:
    requests = _documented_requests()
    kinds = {type(typed(r, Request)) for r in requests}
    assert {InfoRequest, ExposeRequest, PlayRequest} <= kinds


@pytest.mark.parametrize(("request_", "message"), [
    ({"seat": "N"}, "$: missing field 'type': one of \"info\", \"expose\", \"play\", \"hint\", \"claim\""),
    ({"type": "bid"}, '$.type: must be one of "info", "expose", "play", "hint", "claim", not "bid"'),
    ({"type": "play", "hand": []}, "$: missing field 'seat'"),
    ({"type": "play", "seat": "N", "hand": [], "deal_index": -2},
     "$.deal_index: must be a deal number 0, 1, 2 ..., not -2"),
    ({"type": "play", "seat": "N", "hand": 7},
     "$.hand: must be a string or an array, not an integer (7)"),
    ({"type": "play", "seat": "N", "hand": [], "tricks": [{"plays": [{"seat": "N", "cards": [True]}]}]},
     '$.tricks[0].plays[0].cards[0]: must be a card such as "QS" (also read: "10C", "SQ", "♠Q", any case), '
     "not a boolean (true)"),
    ({"type": "play", "seat": "N", "hand": [], "exposures": [{"seat": "E", "kind": "sold"}]},
     '$.exposures[0].kind: must be an exposure kind: shown, first, hidden or auto (R10), not "sold"'),
    ({"type": "play", "seat": "N", "hand": [], "options": [1]},
     "$.options: must be an object, not an array ([1])"),
])
def test_bot_refusals_name_the_path_and_the_value(request_: dict[str, Any], message: str) -> None:
    assert _refusal(request_, Request) == message


def test_bot_requests_ignore_fields_the_protocol_does_not_use() -> None:
    request = {"type": "play", "seat": "N", "hand": "QS 3S", "raw": {"N": 0}, "id": [1]}
    typed_request = typed(request, Request)
    assert isinstance(typed_request, PlayRequest) and typed_request.hand == "QS 3S"


# ---------------------------------------------------------------------------------- browser messages


def test_documented_browser_messages_decode() -> None:
    text = (ROOT / "docs" / "web-protocol.md").read_text(encoding="utf-8")
    section = text.split("### Browser → server", 1)[1].split("### Server → browser", 1)[0]
    messages = [json.loads(m) for m in re.findall(r"`(\{\"type\": [^`]*\})`", section)]
    kinds = {type(typed(m, BrowserMessage)) for m in messages}
    assert kinds == set(typing.get_args(BrowserMessage))  # every kind of message is documented
    assert {PlayMessage, HintMessage, SettingsMessage} <= kinds


@pytest.mark.parametrize(("message", "refusal"), [
    ({"type": "play", "cards": []},
     "$.cards: must be one card, or two for a two-deck pair (R5.2, R5.3), not an array of 0 ([])"),
    ({"type": "play", "cards": ["QS", 3]},
     '$.cards[1]: must be a card such as "QS" (also read: "10C", "SQ", "♠Q", any case), not an integer (3)'),
    ({"type": "expose", "cards": [], "kinds": None},
     "$.kinds: must be an array, not null"),
    ({"type": "next", "now": True}, "$: unknown field 'now': a next message has no other field"),
    ({"type": "settings", "speed": "warp"}, '$.speed: must be a speed: slow, normal, fast or instant, not "warp"'),
])
def test_browser_message_refusals(message: dict[str, Any], refusal: str) -> None:
    assert _refusal(message, BrowserMessage) == refusal


def test_new_match_bodies() -> None:
    assert typed({}, NewMatchBody) == NewMatchBody()
    body = typed({"preset": "classic", "levels": {"N": "expert"}, "seed": 2**64 - 1}, NewMatchBody)
    assert body.preset == "classic" and body.seed == 2**64 - 1
    assert _refusal({"levels": {"N": 3}}, NewMatchBody) == "$.levels.N: must be a string, not an integer (3)"
    # A value of the right kind out of range is shown as it is, not named as a kind it already is.
    assert _refusal({"seed": -1}, NewMatchBody) == "$.seed: must be an integer from 0 to 2^64 - 1 or null, not -1"
    assert _refusal({"seed": 1.5}, NewMatchBody) == (
        "$.seed: must be an integer from 0 to 2^64 - 1 or null, not a number with a fraction (1.5)")


# ---------------------------------------------------------------------------------- score input


def test_documented_score_input_decodes() -> None:
    text = (ROOT / "docs" / "score.md").read_text(encoding="utf-8")
    first = json.loads(text.split("```json", 1)[1].split("```", 1)[0])
    assert typed(first, ScoreInput).preset == first.get("preset", "online")


@pytest.mark.parametrize(("data", "message"), [
    ({"captured": {"N": ["QS"], "E": {"x": 1}}},
     '$.captured.E: must be a string or an array, not an object ({"x": 1})'),
    ({"captured": {}, "exposures": [{"seat": "N", "card": "QS", "kind": 1}]},
     "$.exposures[0].kind: must be an exposure kind: shown, first, hidden or auto (R10), not an integer (1)"),
    ({"captured": {}, "exposure": []},
     "$: unknown field 'exposure': expected 'captured', 'preset', 'options', 'exposures', 'hands'"),
])
def test_score_refusals(data: dict[str, Any], message: str) -> None:
    assert _refusal(data, ScoreInput) == message


# ---------------------------------------------------------------------------------- schemas


def test_docs_schemas_are_what_the_declarations_give() -> None:
    folder = ROOT / "docs" / "schemas"
    files = render()
    assert sorted(files) == sorted(p.name for p in folder.glob("*.json"))
    for name, text in files.items():
        assert (folder / name).read_text(encoding="utf-8") == text, (
            f"docs/schemas/{name} is stale: run python -m gongzhu.formats.schemas --write")
    assert main(["--check", "--dir", str(folder)]) == 0


def test_the_schema_check_sees_a_stale_file(tmp_path: Path) -> None:
    assert main(["--write", "--dir", str(tmp_path)]) == 0
    assert main(["--check", "--dir", str(tmp_path)]) == 0
    name = next(iter(DOCUMENTS))
    (tmp_path / name).write_text("{}\n", encoding="utf-8")
    assert main(["--check", "--dir", str(tmp_path)]) == 1


def test_each_schema_describes_its_declared_type() -> None:
    for name, (_, _, kind) in DOCUMENTS.items():
        schema = json.loads(render()[name])
        assert {k: v for k, v in schema.items() if k not in ("$schema", "title", "description")} \
            == msgspec.json.schema(kind)


def test_a_long_key_is_named_by_an_excerpt() -> None:
    """A bad value under a key of 300 characters: the path names the key by a short excerpt, so
    the error stays short (a plain short key is written as it is)."""
    from gongzhu.formats.web import NewMatchBody

    with pytest.raises(FormatError) as long_key:
        typed({"levels": {"0" * 300: None}}, NewMatchBody)
    assert len(str(long_key.value)) < 300 and "0" * 100 not in str(long_key.value)
    with pytest.raises(FormatError) as short_key:
        typed({"levels": {"N": None}}, NewMatchBody)
    assert "$.levels.N" in str(short_key.value)
