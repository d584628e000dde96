"""The message catalog (gongzhu.messages): both languages have the same keys and parameters, every
key the Python code names exists and every refusal, hint reason and terminal phrase is used,
templates render typed parameters and plurals in each language (a count with its noun is plural
alike in both), and the server serves the catalog and sends refusals with their code and parameters."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from gongzhu.messages import LANGS, Text, catalog, catalog_bytes, has, params_of, plural_types, render
from gongzhu.rules import Deal, Options, Seat
from gongzhu.rules.errors import IllegalPlayError, message
from gongzhu.server.app import create_app
from helpers.client import local_client

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "gongzhu"
PREFIXES = ("refusal.", "hint.reason.", "term.", "server.")
#: A template's field: ``{name}``, ``{name!r}``, ``{name:type}`` (as gongzhu.messages reads them).
FIELD = re.compile(r"\{(\w+)(![rs])?(?::([^{}]*))?\}")
#: Helpers that take a key without its prefix: name -> the prefix they add (``_w``: per command).
SHORT = {"_reason": "hint.reason.", "t": "term.", "phrase": "term.play.", "_w": "term.{command}."}


def python_keys() -> set[str]:
    """Every catalog key the Python sources name: literal keys, and helper calls with a short key."""
    used: set[str] = set()
    for path in SRC.rglob("*.py"):
        if "messages" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith(PREFIXES) \
                    and not node.value.endswith("."):  # an f-string's prefix
                used.add(node.value)
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in SHORT
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                used.add(SHORT[node.func.id].format(command=path.stem) + node.args[0].value)
    return used


def test_both_languages_have_the_same_keys_and_parameters() -> None:
    zh, en = catalog("zh"), catalog("en")
    assert set(zh) == set(en)
    for key in zh:
        assert params_of(zh[key]) == params_of(en[key]), key
    assert LANGS == ("zh", "en")


def test_every_key_python_names_exists_and_every_entry_is_used() -> None:
    used = python_keys()
    assert len(used) > 100
    assert sorted(k for k in used if not has(k)) == []
    # term.event.* and term.kind.* are looked up by the event's / kind's name.
    dynamic = ("term.event.", "term.kind.")
    unused = sorted(k for k in catalog("en") if k.startswith(PREFIXES) and not k.startswith(dynamic) and k not in used)
    assert unused == []


def test_typed_parameters_render_in_each_language() -> None:
    assert render("refusal.not_your_turn", "zh", {"turn": "W", "seat": "S"}) == "现在轮到西家出牌，不是南家"
    assert render("refusal.not_your_turn", "en", {"turn": "W", "seat": "S"}) == "it is West's turn, not South's"
    waiting = Text.of("refusal.exposure_not_over", waiting=[Seat.N, Seat.E])
    assert waiting.params == {"waiting": ["N", "E"]}
    assert waiting.render("zh") == "亮牌阶段还没有结束：正在等北家、东家亮牌"
    assert waiting.render("en") == "the exposure phase (亮牌) is not over: waiting for North, East"
    assert render("refusal.pair_led", "zh", {"seat": "N", "cards": "none"}).endswith("不能出 不出牌 (R5.3)")
    # A value with no entry of its type is shown as it is; a spec that is no type is a format spec.
    assert render("refusal.not_legal", "en", {"cards": "♠Q"}) == "♠Q is not a legal play now"
    assert render("term.play.hint_line", "en", {"cards": "♠Q", "expected": 7.6, "reason": "r"}) == \
        "  ♠Q: expected +8, r"
    assert render("term.play.unknown_kind", "en", {"kind": "x", "kinds": "a"}) == "unknown exposure kind 'x': use a"
    with pytest.raises(KeyError, match="legal"):
        render("refusal.follow_suit", "en", {"suit": "C"})
    assert render("btn.close", "fr") == "Close"  # a language the catalog does not have: English


def test_plurals_count_in_each_language() -> None:
    """``{deals:deals}``: a number takes its plural category's entry, ``#`` the number (English
    says 1 deal, 2 deals; Chinese has one form); a numeric string counts alike; what is no number
    is shown as it is."""
    params = {"score": 5, "title": "猪小弟", "matches": 1, "deals": 1}
    assert render("history.profile", "en", params) == "Lifetime 5 · title 猪小弟 · 1 match · 1 deal"
    assert render("history.profile", "zh", params) == "生涯积分 5 · 称号 猪小弟 · 1 局 · 1 副"
    params.update(matches=2, deals=0)
    assert render("history.profile", "en", params) == "Lifetime 5 · title 猪小弟 · 2 matches · 0 deals"
    assert render("history.profile", "zh", params) == "生涯积分 5 · 称号 猪小弟 · 2 局 · 0 副"
    summary = {"deals": 1, "matches": 1, "ok": "ok"}
    assert render("term.replay.summary", "en", summary) == "1 deal in 1 match: ok"
    assert render("term.replay.summary", "en", {**summary, "deals": 7, "matches": 5}) == "7 deals in 5 matches: ok"
    assert render("term.replay.summary", "zh", {**summary, "deals": 7}) == "共 7 副、1 局：ok"
    cards = [render("seat.cards", "en", {"n": n}) for n in (13, 1, 0, -1)]
    assert cards == ["13 cards", "1 card", "0 cards", "-1 card"]
    assert render("val.match_end.deals", "en", {"n": "1"}) == "1 deal"  # as the page passes it: digits
    assert render("val.match_end.deals", "en", {"n": "12"}) == "12 deals"
    assert render("lobby.deals", "en", {"n": 1}) == "1 deal played"
    assert render("lobby.deals", "fr", {"n": 1}) == "1 deal played"  # a language it does not have: English
    assert render("seat.cards", "en", {"n": "a few"}) == "a few"  # no number: as it is
    assert render("seat.cards", "en", {"n": True}) == "True"  # nor is a truth value


def plural_fields(template: str) -> list[tuple[str, str]]:
    """The fields of ``template`` whose type is a plural type: (parameter, type)."""
    kinds = plural_types("en") | plural_types("zh")
    return sorted((m.group(1), m.group(3)) for m in FIELD.finditer(template) if m.group(3) in kinds)


def test_counts_are_plural_alike_in_both_languages() -> None:
    """Every plural type has its ``one`` and ``other`` forms, with the number ``#``, in both
    languages; a key counts the same parameters with the same types in both; and no English text
    says "deal(s)" or puts a plain number before a plural noun."""
    zh, en = catalog("zh"), catalog("en")
    kinds = plural_types("en")
    assert kinds == plural_types("zh") and {"deals", "matches", "cards"} <= kinds
    for kind in kinds:
        for table in (zh, en):
            assert {k for k in table if k.startswith(f"{kind}.")} == {f"{kind}.one", f"{kind}.other"}, kind
            assert table[f"{kind}.one"].count("#") == 1 and table[f"{kind}.other"].count("#") == 1, kind
    used = set()
    for key in en:
        assert plural_fields(en[key]) == plural_fields(zh[key]), key
        used |= {kind for _name, kind in plural_fields(en[key])}
        assert not re.search(r"\((s|es)\)", en[key]), key
        assert not re.search(r"\{\w+\} (deals|matches|cards|tricks|points|players|games|times)\b", en[key]), key
    assert used == kinds  # every plural type is used


def test_chinese_terms_of_the_rule_book() -> None:
    zh = catalog("zh")
    assert [zh[f"who.{s}"] for s in "NESW"] == ["北家", "东家", "南家", "西家"]
    assert [zh[f"term.kind.{k}"] for k in ("shown", "first", "hidden", "auto")] == ["明", "首明", "暗卖", "逼明"]
    assert (zh["term.event.all_hearts"], zh["term.event.grand_slam"]) == ("满红", "满贯")
    assert "逼明" in zh["kind.auto"] and "亮牌" in zh["refusal.exposure_over"]


def test_a_refusal_keeps_its_code_and_renders_in_any_language() -> None:
    deal = Deal(Options(), [["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC"],
                            ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD", "AD"],
                            ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH", "AH"],
                            ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS"]])
    with pytest.raises(IllegalPlayError) as info:
        deal.verify_play("2C")
    e = info.value
    assert e.code == "refusal.exposure_not_over" and e.params == {"waiting": ["N", "E", "S", "W"]}
    assert str(e) == "the exposure phase (亮牌) is not over: waiting for North, East, South, West"
    assert message(e, "zh") == "亮牌阶段还没有结束：正在等北家、东家、南家、西家亮牌"
    json.dumps(e.params)  # parameters are plain JSON


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with local_client(create_app(f"sqlite:///{tmp_path / 'g.db'}", pace=0, static_dir=tmp_path / "none")) as c:
        yield c


def test_the_server_serves_the_catalog(client: TestClient) -> None:
    for lang in LANGS:
        r = client.get(f"/messages/{lang}.json")
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
        assert r.content == catalog_bytes(lang) and r.json()["btn.close"] in ("关闭", "Close")
        assert "content-security-policy" in r.headers
    r = client.get("/messages/fr.json")
    assert r.status_code == 404 and re.search(r"fr", r.json()["error"])


def test_a_refused_play_comes_with_code_and_params(client: TestClient) -> None:
    match_id = client.post("/api/matches", json={"seed": 7}).json()["match_id"]
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        while ws.receive_json()["type"] != "state":
            pass
        ws.send_json({"type": "play", "cards": ["2C"]})  # in the exposure phase
        while (reply := ws.receive_json())["type"] != "error":
            pass
    assert reply["code"] == "refusal.exposure_not_over"
    assert reply["message"] == render(reply["code"], "en", reply["params"])
    assert reply["message_zh"] == render(reply["code"], "zh", reply["params"])
