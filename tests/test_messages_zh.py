"""Chinese versions of the rules core's refusals (``message(e, "zh")``, rendered from the message
catalog by the refusal's code and parameters; ``e.zh`` is the same): one representative of
each kind, checked to be Chinese, to name the same cards, seats and rule sections, and to leave
the English ``str(e)`` exactly as it was; then the browser game (``message_zh``) and the terminal
game (``--lang zh``) showing them."""

from __future__ import annotations

import io
import pickle
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from gongzhu.rules import Deal, IllegalPlayError, Options, Seat
from gongzhu.rules.errors import CardError, GongzhuError, message
from gongzhu.server import create_app
from gongzhu.server.registry import Tables
from helpers.cli import run_play
from helpers.client import Browser, deal_of, local_client, new_match
from helpers.deals import HANDS_A, HANDS_B, SOURCE_EXAMPLE, make_deal, play_seq, two_deck_deal

N, E, S, W = Seat.N, Seat.E, Seat.S, Seat.W
CHINESE = re.compile(r"[\u4e00-\u9fff]")
SPREAD = {"N": "QS 2S 3S", "E": "3C JD", "S": "TC 4S", "W": "AH 5S"}


def refusal(action: Callable[[], object]) -> IllegalPlayError:
    with pytest.raises(IllegalPlayError) as info:
        action()
    return info.value


def check(e: IllegalPlayError, english: str, words: list[str]) -> str:
    """``e`` keeps its English message, has a Chinese one naming ``words``; return the Chinese."""
    assert str(e) == english
    assert e.args == (english,)
    zh = e.zh
    assert isinstance(zh, str) and CHINESE.search(zh), zh
    for word in words:
        assert word in zh, (word, zh)
    assert message(e, "zh") == zh and message(e, "en") == english
    return zh


def exposure_deal(hands: dict[str, str] | None = None, **overrides: Any) -> Deal:
    return make_deal(Options(**overrides), hands if hands is not None else SPREAD, declare=False)


# ---------------------------------------------------------------------- the error class


def test_zh_is_kept_apart_from_the_english_message() -> None:
    e = IllegalPlayError("refusal.follow_suit", suit="C", legal="♣6, ♣J")
    english = "a club was led: you must follow suit with one of ♣6, ♣J (R5.2)"
    assert str(e) == english and e.args == (english,)
    assert e.code == "refusal.follow_suit" and e.params == {"suit": "C", "legal": "♣6, ♣J"}
    assert e.zh == message(e, "zh") == "首家出的是梅花：你必须跟同花色，可出 ♣6, ♣J (R5.2)"
    copy = pickle.loads(pickle.dumps(e))
    assert type(copy) is IllegalPlayError and str(copy) == str(e) and copy.zh == e.zh and copy.code == e.code
    plain = CardError("unknown card 'ZZ'")
    assert plain.zh is None and plain.code is None and message(plain, "zh") == "unknown card 'ZZ'"
    assert pickle.loads(pickle.dumps(plain)).args == plain.args
    assert isinstance(e, GongzhuError) and isinstance(e, ValueError)
    assert message(ValueError("boom"), "zh") == "boom"
    with pytest.raises(TypeError, match="not a key of the message catalog"):
        IllegalPlayError("a club was led", zh="首家出的是梅花")
    with pytest.raises(KeyError, match="legal"):
        IllegalPlayError("refusal.follow_suit", suit="C")


# ---------------------------------------------------------------------- play refusals


def test_follow_suit() -> None:
    deal = make_deal(Options(), HANDS_A, previous_pig_taker=N)
    deal.play("3S")
    e = refusal(lambda: deal.play("TC"))
    zh = check(e, "a spade was led: you must follow suit with one of ♠5, ♠9 (R5.2)",
               ["黑桃", "跟同花色", "♠5", "♠9", "R5.2"])
    assert "spade" not in zh


def test_exposed_card_in_the_first_trick_of_its_suit() -> None:
    deal = make_deal(Options(), HANDS_B, previous_pig_taker=S, exposures={"N": ["QS"]})
    play_seq(deal, "7S 6S")
    e = refusal(lambda: deal.play("QS"))
    check(e, "♠Q was exposed: it cannot be played in the first spade trick (R4.3)",
          ["♠Q", "亮过的牌", "黑桃", "首圈", "R4.3"])


def test_follow_suit_lists_only_the_legal_cards() -> None:
    """The follow-suit refusal lists the cards the player may play: not an exposed card that R4.3
    holds back in the first trick of its suit (the list is the legal plays, not the suit)."""
    deal = make_deal(Options(), HANDS_B, previous_pig_taker=S, exposures={"N": ["QS"]})
    play_seq(deal, "7S 6S")
    e = refusal(lambda: deal.play("2C"))
    check(e, "a spade was led: you must follow suit with one of ♠3, ♠4 (R5.2)", ["♠3", "♠4", "R5.2"])
    assert "♠Q" not in str(e) and "♠Q" not in (e.zh or "")


def test_exposed_card_discard_before_its_suit_was_led() -> None:
    opts = Options(exposed_discard_before_suit_led=True)
    deal = make_deal(opts, HANDS_B, previous_pig_taker=S, exposures={"N": ["QS"]})
    play_seq(deal, "9H 7D")
    e = refusal(lambda: deal.play("QS"))
    assert "cannot be discarded before spades have been led" in str(e)
    check(e, str(e), ["♠Q", "亮过的牌", "黑桃", "垫", "R4.3"])


def test_first_lead_must_be_club_two() -> None:
    deal = make_deal(Options(), HANDS_A)
    e = refusal(lambda: deal.play("3C"))
    check(e, "the first lead of the match must be ♣2 (R5.1)", ["♣2", "R5.1"])


def test_discard_colour_enforce() -> None:
    deal = make_deal(Options(discard_color="enforce"), HANDS_B, previous_pig_taker=S)
    deal.play("9H")
    e = refusal(lambda: deal.play("6S"))
    assert str(e).startswith("a red suit was led: discard a red card while you hold one, e.g. ")
    check(e, str(e), ["红", "垫", "♦7", "R5.2 discard_color"])


def test_pair_follow_with_two_decks() -> None:
    deal = two_deck_deal(SOURCE_EXAMPLE, N)
    deal.play(["4S", "4S"])
    e = refusal(lambda: deal.play(["QS", "8S"]))
    assert str(e).startswith("a spade pair was led and you hold a spade pair: play one of ♠9♠9")
    check(e, str(e), ["黑桃对子", "♠9♠9", "R5.3"])
    deal.play(["KS", "KS"])
    e = refusal(lambda: deal.play(["8S", "9C"]))
    check(e, "a spade pair was led: play your spades first (♠8♠Q) (R5.3)", ["黑桃对子", "♠8♠Q", "R5.3"])
    e = refusal(lambda: deal.play(["8S"]))
    check(e, "a pair was led: South must play two cards, not ♠8 (R5.3)", ["对子", "南家", "两张", "♠8"])


def test_two_deck_lead_that_is_not_a_pair() -> None:
    deal = two_deck_deal(SOURCE_EXAMPLE, N)
    e = refusal(lambda: deal.play(["4S", "5S"]))
    check(e, "♠4♠5 is not a pair: lead one card or two identical cards (R5.3)", ["♠4♠5", "对子", "R5.3"])
    e = refusal(lambda: deal.play([]))
    check(e, "lead one card or a pair, not nothing (R5.2, R5.3)", ["一张", "对子", "R5.2, R5.3"])


def test_wrong_number_of_cards() -> None:
    deal = make_deal(Options(), HANDS_A, previous_pig_taker=N)
    e = refusal(lambda: deal.play(["3S", "4S"]))
    zh = check(e, "lead one card, not ♠3♠4 (R5.2, R5.3)", ["一张", "♠3♠4", "R5.2, R5.3"])
    assert "对子" not in zh
    deal.play("3S")
    e = refusal(lambda: deal.play(["5S", "9S"]))
    check(e, "a single card was led: West must play one card, not ♠5♠9 (R5.2, R5.3)",
          ["单张", "西家", "一张", "♠5♠9"])


def test_not_your_turn() -> None:
    deal = make_deal(Options(), HANDS_A)
    e = refusal(lambda: deal.play("2C", W))
    check(e, "it is North's turn, not West's", ["北家", "西家"])


def test_card_not_held() -> None:
    deal = make_deal(Options(), HANDS_A, previous_pig_taker=N)
    e = refusal(lambda: deal.play("AS"))
    check(e, "North does not hold ♠A", ["北家", "没有", "♠A"])


def test_deal_over_undo_and_score() -> None:
    deal = make_deal(Options(), HANDS_A, previous_pig_taker=N)
    e = refusal(lambda: deal.score)
    check(e, "the deal is not over yet: it has no score", ["没有打完", "得分"])
    while not deal.is_over:
        deal.play(deal.legal_plays()[0])
    e = refusal(lambda: deal.play("2C"))
    check(e, "the deal is over: no more cards can be played", ["打完", "出牌"])
    fresh = make_deal(Options(), HANDS_A, previous_pig_taker=N)
    e = refusal(fresh.undo)
    check(e, "there is no play to take back", ["收回"])


# ---------------------------------------------------------------------- exposure refusals


def test_play_during_the_exposure_phase() -> None:
    deal = exposure_deal({"S": "2C TC"})
    deal.declare(N)
    e = refusal(lambda: deal.play("2C"))
    check(e, "the exposure phase (亮牌) is not over: waiting for East, South, West", ["亮牌", "东家", "南家", "西家"])


def test_exposure_of_a_card_that_cannot_be_exposed() -> None:
    e = refusal(lambda: exposure_deal().declare(N, ["2S"]))
    check(e, "♠2 cannot be exposed: only ♠Q ♦J ♣10 ♥A can (R4.1)", ["♠2", "♠Q ♦J ♣10 ♥A", "R4.1"])


def test_exposure_of_a_card_not_held() -> None:
    e = refusal(lambda: exposure_deal().declare(N, ["JD"]))
    check(e, "North does not hold ♦J: only your own cards can be exposed", ["北家", "没有", "♦J"])
    hands = {"N": "QS QS AH", "E": "JD", "S": "TC TC JD", "W": "AH"}
    deal = make_deal(Options(decks=2, auto_expose_fourth=False), hands, declare=False)
    e = refusal(lambda: deal.declare(S, ["TC", "TC", "TC"]))
    check(e, "South does not hold another ♣10: only your own cards can be exposed", ["南家", "第二张", "♣10"])


def test_exposure_kind_not_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    e = refusal(lambda: exposure_deal().declare(N, [("QS", "hidden")]))
    check(e, "exposure kind 'hidden' (暗卖) is not allowed under exposure=standard: use shown (R4.4, R10)",
          ["暗卖", "exposure=standard", "明（shown）", "R4.4, R10"])
    # A card with no declarable kind at all (a safeguard no option reaches today).
    deal = exposure_deal()
    monkeypatch.setattr(Options, "exposure_kinds", lambda self, c, first_dealt: ())
    e = refusal(lambda: deal.declare(N, ["QS"]))
    check(e, "exposure=standard: players do not choose exposures (R4.4)", ["exposure=standard", "R4.4"])


def test_first_card_exposure_of_a_card_not_dealt_first(monkeypatch: pytest.MonkeyPatch) -> None:
    hands = {"N": "2S QS AH", "E": "JD", "S": "TC", "W": "3S"}
    deal = exposure_deal(hands, exposure="first_card", auto_expose_fourth=False)
    e = refusal(lambda: deal.declare(N, [("QS", "first")]))
    assert "first dealt card" in str(e)
    check(e, str(e), ["♠Q", "北家", "首明", "第一张", "R4.4"])
    # Two 首明 cards in one declaration (a safeguard: the kinds offered never allow it today).
    monkeypatch.setattr(Options, "exposure_kinds", lambda self, c, first_dealt: ("shown", "first"))
    e = refusal(lambda: deal.declare(N, [("QS", "first"), ("AH", "first")]))
    check(e, "only one card, the first one dealt, can be 首明 (R4.4)", ["首明", "一张", "R4.4"])


def test_declaring_twice_and_after_the_phase() -> None:
    deal = exposure_deal()
    deal.declare(N, ["QS"])
    e = refusal(lambda: deal.declare(N, []))
    check(e, "North has already declared exposures for this deal", ["北家", "亮牌"])
    for seat in (E, S, W):
        deal.declare(seat)
    e = refusal(lambda: deal.declare(E, []))
    check(e, "the exposure phase (亮牌) is over: cards can no longer be exposed", ["亮牌", "结束"])


# ---------------------------------------------------------------------- the browser game


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite:///{tmp_path / 'gongzhu.db'}", pace=0, hint_think=0.05,
                     static_dir=tmp_path / "no-static")
    with local_client(app) as c:
        yield c


def test_an_illegal_websocket_play_gets_message_and_message_zh(client: TestClient) -> None:
    match_id = new_match(client, seed=7)
    tables: Tables = client.app.state.tables  # type: ignore[attr-defined]
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        browser.settle()
        table = tables.get(match_id)
        assert table is not None
        # A malformed message has no Chinese version: only "message".
        browser.send({"type": "dance"})
        reply = browser.receive()
        assert reply["type"] == "error" and "message_zh" not in reply
        # A play in the exposure phase: the rules core's refusal, in both languages.
        browser.send({"type": "play", "cards": [browser.state["hand"][0]]})
        reply = browser.receive()
        assert reply["type"] == "error"
        assert "exposure phase" in reply["message"] and "亮牌阶段" in reply["message_zh"]
        browser.send({"type": "expose", "cards": []})
        state = browser.settle()
        assert state["phase"] == "play" and state["turn"] == "S"
        held = {c.code for s in (N, E, W) for c in deal_of(table).hand(s)}
        stranger = sorted(held - set(state["hand"]))[0]
        with pytest.raises(IllegalPlayError) as info:
            deal_of(table).verify_play([stranger], S)
        browser.send({"type": "play", "cards": [stranger]})
        reply = browser.receive()
        assert reply == {"type": "error", "message": str(info.value), "message_zh": info.value.zh,
                         "code": info.value.code, "params": info.value.params}
        assert reply["message"].startswith("South does not hold ")
        assert reply["message_zh"].startswith("南家手里没有 ")


# ---------------------------------------------------------------------- the terminal game


def test_play_cli_lang_zh_prints_the_chinese_refusal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Three cards are never a play with one deck, whoever leads (R5.2, R5.3).
    monkeypatch.setattr(sys, "stdin", io.StringIO("2S 3S 4S\nquit\n"))
    argv = ["--seed", "1", "--set", "exposure=none", "--set", "match_end=deals:1"]
    assert run_play([*argv, "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    refused = [ln for ln in out.splitlines() if "不行：" in ln]
    assert len(refused) == 1, out
    assert "♠2♠3♠4" in refused[0] and "一张" in refused[0] and "R5.2, R5.3" in refused[0]
    assert "not" not in refused[0] and "Not allowed" not in out
    # The same game in English prints the English refusal.
    monkeypatch.setattr(sys, "stdin", io.StringIO("2S 3S 4S\nquit\n"))
    assert run_play(argv) == 0
    out = capsys.readouterr().out
    assert "Not allowed: lead one card, not ♠2♠3♠4 (R5.2, R5.3)" in out, out
