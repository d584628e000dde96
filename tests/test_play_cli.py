"""``gongzhu play``: a match in the terminal, driven here through its input function and stdin.

The person's moves are always computed from the engine's legal plays (or read back from the
``Legal:`` line the game printed), so the tests do not depend on which cards are dealt."""

from __future__ import annotations

import builtins
import io
import re
import sys
from collections.abc import Callable

import pytest

from gongzhu.cli.play import TerminalGame
from gongzhu.players import Player, RandomPlayer
from gongzhu.players.observation import Observation
from gongzhu.rules import (
    EXPOSABLE,
    PRESETS,
    Card,
    Deal,
    IllegalPlayError,
    Options,
    Play,
    Seat,
    parse_card,
    parse_cards,
)
from helpers.cli import run_play


def scripted_game(
    options: Options,
    *,
    seed: int = 1,
    seat: Seat = Seat.S,
    lang: str = "en",
    expose: Callable[[Deal], str] = lambda deal: "",
    choose: Callable[[Deal], str] | None = None,
    players: dict[Seat, Player] | None = None,
) -> tuple[TerminalGame, list[str], list[str]]:
    """A game whose person answers exposure prompts with ``expose(deal)`` and plays with
    ``choose(deal)`` (default: the last legal play, typed as codes).  Returns the game, the
    printed lines and the prompts."""
    lines: list[str] = []
    prompts: list[str] = []
    holder: list[TerminalGame] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        deal = holder[0].deal
        assert deal is not None
        if deal.turn is None:
            return expose(deal)
        if choose is not None:
            return choose(deal)
        return " ".join(c.code for c in deal.legal_plays()[-1])

    game = TerminalGame(options, seed=seed, seat=seat, lang=lang, read=read, write=lines.append,
                        players=players)
    holder.append(game)
    return game, lines, prompts


def scores_line(lines: list[str], label: str, occurrence: int = 0) -> list[int]:
    """The four numbers of the ``occurrence``-th line starting with ``label:``."""
    found = [ln for ln in lines if ln.startswith(label + ":")]
    return [int(n) for n in re.findall(r"-?\d+", found[occurrence])]


def test_a_whole_short_match_prints_the_engines_scores() -> None:
    options = PRESETS["online"].replace(match_end="deals:2")
    game, lines, prompts = scripted_game(options, seed=5)
    assert game.run() == 0
    match = game.match
    assert match.is_over and len(match.deals) == 2
    assert len([p for p in prompts if p.startswith("Your card")]) == 26  # one prompt per own play
    totals = [0, 0, 0, 0]
    for i, deal in enumerate(match.deals):
        score = deal.score
        assert scores_line(lines, "Raw", i) == list(score.raw)
        assert scores_line(lines, "Result", i) == list(score.result)
        assert scores_line(lines, "Final", i) == list(score.final)
        totals = [a + b for a, b in zip(totals, score.result, strict=True)]
        assert scores_line(lines, "Total", i) == totals
    outcome = match.outcome()
    assert scores_line(lines, "Total", 2) == list(outcome.totals)
    text = "\n".join(lines)
    assert "Match over" in text
    winners = next(ln for ln in lines if ln.startswith("Winner:"))
    pigs = next(ln for ln in lines if ln.startswith("Pig:"))
    for s in outcome.winners:
        assert s.english in winners
    for s in outcome.pigs:
        assert s.english in pigs
    # each finished trick names its winner; the point cards taken are listed per player
    assert sum(1 for ln in lines if ln.endswith("wins the trick")) == 26
    for s in Seat:
        taken = " ".join(c.pretty for c in match.deals[-1].captured(s)) or "—"
        assert any(ln.strip().startswith(s.english) and ln.endswith(": " + taken) for ln in lines)


def test_the_screen_shows_hand_table_and_legal_cards() -> None:
    options = PRESETS["online"].replace(match_end="deals:1")
    game, lines, _ = scripted_game(options, seed=2)
    game.run()
    hands = [ln for ln in lines if ln.startswith("Hand:")]
    # 13 cards, grouped by suit in the order ♠ ♥ ♣ ♦
    symbols = [ch for ch in hands[0] if ch in "♠♥♣♦"]
    assert len(symbols) == 13
    assert symbols == sorted(symbols, key="♠♥♣♦".index)
    assert any(ln.startswith("Legal: ") for ln in lines)
    table = [ln for ln in lines if ln.startswith("On the table:")]
    assert table or any("you lead" in ln for ln in lines)


def test_an_illegal_card_is_explained_and_asked_again() -> None:
    """A refused card gets the engine's IllegalPlayError message; nothing changes."""
    options = PRESETS["online"].replace(match_end="deals:1")
    refused: list[str] = []

    def choose(deal: Deal) -> str:
        legal = deal.legal_plays()
        if not refused:
            hand = deal.hand(Seat.S)
            bad = next((c for c in hand if (c,) not in legal), None)
            if bad is None:  # everything in hand is legal: a card not held
                bad = next(c for c in map(parse_card, ["AS", "2C", "AH", "KD"]) if c not in hand)
            with pytest.raises(IllegalPlayError) as err:
                deal.verify_play([bad], Seat.S)
            refused.append(str(err.value))
            return bad.code
        return legal[0][0].code

    game, lines, _ = scripted_game(options, seed=3, choose=choose)
    assert game.run() == 0
    assert refused and f"Not allowed: {refused[0]}" in lines
    assert game.match.is_over and len(game.match.deals[0].tricks) == 13


def test_text_that_is_not_a_card_is_refused_and_help_and_hand_answer() -> None:
    options = PRESETS["online"].replace(match_end="deals:1")
    answers = iter(["help", "hand", "xyz"])

    def choose(deal: Deal) -> str:
        return next(answers, None) or deal.legal_plays()[0][0].code

    game, lines, _ = scripted_game(options, seed=4, choose=choose)
    assert game.run() == 0
    text = "\n".join(lines)
    assert "Commands: help" in text
    assert any("cannot read 'xyz' as a card" in ln for ln in lines)
    assert game.match.is_over


def _pick_first_legal_from_screen(
    capsys: pytest.CaptureFixture[str], seen: list[str]
) -> Callable[[str], str]:
    """An ``input`` that reads the game's own screen (kept in ``seen``): the first card of the
    last Legal line, nothing to expose."""

    def fake_input(prompt: str = "") -> str:
        seen.append(capsys.readouterr().out)
        if "Expose" in prompt:
            return ""
        legal = [ln for ln in "".join(seen).splitlines() if ln.startswith("Legal: ")][-1]
        return legal.removeprefix("Legal: ").split()[0]

    return fake_input


def test_run_end_to_end_through_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[str] = []
    monkeypatch.setattr(builtins, "input", _pick_first_legal_from_screen(capsys, seen))
    assert run_play(["--seed", "11", "--set", "match_end=deals:1", "--preset", "partners"]) == 0
    lines = ("".join(seen) + capsys.readouterr().out).splitlines()
    assert sum(1 for ln in lines if ln.startswith("Legal: ")) == 13
    assert sum(1 for ln in lines if ln.endswith("wins the trick")) == 13
    final = scores_line(lines, "Final")
    assert sum(final) == 0 and final[0] == final[2] and final[1] == final[3]  # R7.3 partners
    assert scores_line(lines, "Total") == [f // 12 for f in final]
    assert "== Match over ==" in lines


def test_end_of_input_quits_cleanly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert run_play(["--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "End of input: quitting." in out
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert run_play(["--seed", "1"]) == 0
    assert "Goodbye." in capsys.readouterr().out


def test_lang_zh_shows_chinese(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("帮助\n"))
    assert run_play(["--seed", "1", "--lang", "zh", "--seat", "N"]) == 0
    out = capsys.readouterr().out
    for word in ("拱猪", "你坐北", "第1副", "手牌", "命令", "输入结束"):
        assert word in out
    assert "Deal 1" not in out and "Hand:" not in out


def test_zh_deal_end_uses_chinese_words() -> None:
    options = PRESETS["online"].replace(match_end="deals:1")
    game, lines, _ = scripted_game(options, seed=6, lang="zh")
    game.run()
    text = "\n".join(lines)
    for word in ("原始分", "本副结果", "最终", "累计", "本局结束", "赢家", "当猪", "赢得本圈"):
        assert word in text
    assert "Raw" not in text


def first_dealt_exposable(options: Options) -> tuple[int, Card]:
    """A match seed whose first deal gives South an exposable card first (首明 may name it), and
    that card."""
    for seed in range(200):
        deal = TerminalGame(options, seed=seed, write=lambda _: None).match.new_deal()
        if deal.dealt[Seat.S][0] in EXPOSABLE:
            return seed, deal.dealt[Seat.S][0]
    raise AssertionError("no seed of 200 deals South an exposable card first")


def test_zh_refusals_and_exposure_kinds_are_chinese() -> None:
    """In Chinese, a text that is no card is refused in Chinese, and the cards one may expose are
    offered with their kinds as one types them in Chinese (明, 首明, 暗卖)."""
    options = PRESETS["tournament"].replace(match_end="deals:1")
    seed, first = first_dealt_exposable(options)
    answers = iter(["zz"])

    def choose(deal: Deal) -> str:
        return next(answers, None) or deal.legal_plays()[0][0].code

    game, lines, _ = scripted_game(options, seed=seed, lang="zh", choose=choose,
                                   expose=lambda d: f"{first.code}:首明")
    game.run()
    assert any("看不懂 'zz'" in ln for ln in lines) and not any("cannot read" in ln for ln in lines)
    assert any(f"{first.pretty}[明/首明" in ln for ln in lines)
    assert (Seat.S, first, "first") in [(e.seat, e.card, e.kind) for e in game.match.deals[0].exposures]


def test_bad_options_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_play(["--preset", "nope"]) == 2
    assert "unknown preset" in capsys.readouterr().err
    assert run_play(["--set", "decks=2", "--set", "self_catch=true"]) == 2
    assert "self_catch" in capsys.readouterr().err
    assert run_play(["--seat", "X"]) == 2
    assert "seat" in capsys.readouterr().err


class _ExposeAll(Player):
    """Exposes every exposable card in its first allowed kind, then plays at random."""

    def __init__(self, seed: int) -> None:
        self.random = RandomPlayer(seed)

    def choose_exposures(self, obs: Observation) -> list[tuple[Card, str]]:
        return [(c, obs.exposure_kinds(c)[0]) for c in obs.exposable()]

    def choose_play(self, obs: Observation) -> Play:
        return self.random.choose_play(obs)


def test_hidden_exposures_of_others_show_only_as_a_count() -> None:
    """R4.4 暗卖: others see how many cards a player exposed, not which (until played)."""
    options = PRESETS["online"].replace(exposure="hidden", match_end="deals:1")
    players: dict[Seat, Player] = {s: _ExposeAll(s) for s in Seat if s != Seat.S}
    game, lines, _ = scripted_game(options, seed=8, players=players)
    game.run()
    deal = game.match.deals[0]
    others = [e for e in deal.exposures if e.seat != Seat.S]
    assert others
    first = next(ln for ln in lines if ln.startswith("Exposures:"))
    for e in others:
        assert e.card.pretty not in first
    count = sum(1 for e in others if e.seat == others[0].seat)
    assert f"{others[0].seat.english} {count} hidden" in first
    last = [ln for ln in lines if ln.startswith("Exposures:")][-1]  # at the deal's end: all shown
    for e in others:
        assert f"{e.card.pretty}(hidden)" in last


def test_the_person_exposes_cards_with_kinds() -> None:
    """Under 首明 the person can choose the kind (``QS:first``); a bad kind is refused."""
    options = PRESETS["tournament"].replace(match_end="deals:1")
    seed, first = first_dealt_exposable(options)
    answers = iter([f"{first.code}:bogus", f"{first.code}:first"])
    game, lines, _ = scripted_game(options, seed=seed, expose=lambda d: next(answers))
    game.run()
    assert any("unknown exposure kind 'bogus'" in ln for ln in lines)
    exposed = [(e.seat, e.card, e.kind) for e in game.match.deals[0].exposures]
    assert (Seat.S, first, "first") in exposed
    assert any(f"{first.pretty}[shown/first]" in ln for ln in lines)


def test_two_decks_pairs_are_typed_as_two_cards() -> None:
    options = PRESETS["online2"].replace(match_end="deals:1")

    def choose(deal: Deal) -> str:
        plays = deal.legal_plays()
        play = max(plays, key=len)  # a pair whenever one may be played
        return " ".join(c.code for c in play)

    game, lines, _ = scripted_game(options, seed=12, choose=choose)
    assert game.run() == 0
    # a two-card play is listed as it is typed, its two cards apart (a pair ♠J ♠J, not ♠J♠J)
    listed = [ln.removeprefix("Legal: ") for ln in lines if ln.startswith("Legal: ") and "," in ln]
    plays = [parse_cards(play) for ln in listed for play in ln.split(", ")]
    assert any(len(p) == 2 and p[0] == p[1] for p in plays) and all(1 <= len(p) <= 2 for p in plays)
    deal = game.match.deals[0]
    own = [p for t in deal.tricks for s, p in t.plays if s == Seat.S]
    assert sum(len(p) for p in own) == 26 and any(len(p) == 2 for p in own)
    assert scores_line(lines, "Raw") == list(deal.score.raw)
    assert parse_cards("QS QS") == [parse_card("QS")] * 2


@pytest.mark.parametrize("preset", list(PRESETS))
def test_one_deal_under_every_preset(preset: str) -> None:
    options = PRESETS[preset].replace(match_end="deals:1")

    def expose_all(deal: Deal) -> str:
        return " ".join(c.code for c in deal.exposable(Seat.W))

    game, lines, _ = scripted_game(options, seed=21, seat=Seat.W, expose=expose_all)
    assert game.run() == 0
    deal = game.match.deals[0]
    assert scores_line(lines, "Raw") == list(deal.score.raw)
    assert scores_line(lines, "Final") == list(deal.score.final)
    events = next(ln for ln in lines if ln.startswith("Events:"))
    assert (events == "Events: none") == (not deal.score.events)
    if any(e.seat == Seat.W for e in deal.exposures if e.kind != "auto"):
        assert any(ln.startswith("You may expose: ") for ln in lines)


def test_through_the_gongzhu_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from gongzhu.cli.main import main

    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "--seed", "2", "--preset", "classic"]) == 0
    assert "Goodbye." in capsys.readouterr().out


def test_hint_command_shows_the_experts_ranking(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``hint`` at the play prompt ranks the legal plays with reasons; the game goes on."""
    lines = iter(["", "hint", "quit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines))
    assert run_play(["--seed", "3", "--level", "beginner", "--set", "exposure=none"]) == 0
    out = capsys.readouterr().out
    assert "Hint (the expert's ranking, best first):" in out
    hint_lines = [line for line in out.splitlines() if line.startswith("  ") and ": expected " in line]
    assert hint_lines, out


def test_unknown_level_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_play(["--level", "grandmaster"]) == 2
    assert "unknown level 'grandmaster'" in capsys.readouterr().err
