"""Asking a player for a decision without letting its failure stop the game
(:mod:`gongzhu.players.guard`): a player that raises, or answers an exposure declaration (R4) or
a play (R5) the rules refuse, is logged and stood in for by the intermediate player, and the deal
is played to the end."""

from __future__ import annotations

import logging
import random

import pytest

from gongzhu.players.base import Player
from gongzhu.players.guard import safe_exposures, safe_play
from gongzhu.players.intermediate import IntermediatePlayer
from gongzhu.players.observation import Observation, observe
from gongzhu.players.random_player import RandomPlayer
from gongzhu.rules import ALL_CARDS, EXPOSABLE, PRESETS, Card, Deal, Options, Phase, Play, Seat, parse_card


class Raising(Player):
    """Fails at every decision."""

    level = "raising"

    def choose_exposures(self, obs: Observation) -> list[tuple[Card, str]]:
        raise RuntimeError("no exposures today")

    def choose_play(self, obs: Observation) -> Play:
        raise RuntimeError("no play today")


class Illegal(Player):
    """Declares all four exposable cards whether it holds them or not (R4.1), and plays a card
    it does not hold (R5)."""

    level = "illegal"

    def choose_exposures(self, obs: Observation) -> list[tuple[Card, str]]:
        return [(c, "shown") for c in EXPOSABLE]

    def choose_play(self, obs: Observation) -> Play:
        held = set(obs.hand)
        return (next(c for c in ALL_CARDS if c not in held),)


class Interrupting(Raising):
    def choose_play(self, obs: Observation) -> Play:
        raise KeyboardInterrupt


def _play_deal(options: Options, seed: int, odd: Player, seat: Seat) -> tuple[Deal, list[str], list[Play]]:
    """One deal with ``odd`` at ``seat`` and random players elsewhere, every decision through
    the guard; also the stand-in lines and, for ``seat``, the intermediate player's own plays."""
    players: dict[Seat, Player] = {s: RandomPlayer(seed + s) for s in Seat}
    players[seat] = odd
    deal = Deal.new(options, seed)
    stand_ins: list[str] = []
    expected: list[Play] = []
    for s in deal.undeclared:
        deal.declare(s, safe_exposures(players[s], observe(deal, s), where=f"test {seed}", stand_ins=stand_ins))
    while (turn := deal.turn) is not None:
        obs = observe(deal, turn)
        play = safe_play(players[turn], obs, where=f"test {seed}", stand_ins=stand_ins)
        if turn == seat:
            expected.append(IntermediatePlayer(seed=0).choose_play(obs))
            assert play == expected[-1]
        deal.play(play, turn)
    return deal, stand_ins, expected


@pytest.mark.parametrize("preset", ["online", "tournament", "online2"])
def test_a_player_that_raises_is_stood_in_for_and_the_deal_ends(
        preset: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="gongzhu.players"):
        deal, stand_ins, plays = _play_deal(PRESETS[preset], 3, Raising(), Seat.E)
    assert deal.is_over
    assert len(plays) == 13 * PRESETS[preset].decks or any(len(p) == 2 for p in plays)  # pairs: fewer plays
    assert stand_ins[0] == "E exposures: the raising player failed (RuntimeError: no exposures today)"
    assert stand_ins[1:] == ["E play: the raising player failed (RuntimeError: no play today)"] * len(plays)
    assert "test 3: the raising player for E failed to choose exposures; the intermediate player stands in" \
        in caplog.text
    assert "test 3: the raising player for E failed to choose a play; the intermediate player stands in" in caplog.text
    assert "Traceback" in caplog.text and "RuntimeError: no play today" in caplog.text  # with the traceback
    assert all(r.levelno == logging.ERROR for r in caplog.records)


@pytest.mark.parametrize("preset", ["online", "tournament", "online2"])
def test_a_player_answering_illegally_is_stood_in_for_and_the_deal_ends(
        preset: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="gongzhu.players"):
        deal, stand_ins, plays = _play_deal(PRESETS[preset], 8, Illegal(), Seat.W)
    assert deal.is_over
    # W's exposures are the intermediate player's, not all four cards (W cannot hold them all).
    assert {e.card for e in deal.exposures if e.seat == Seat.W} < set(EXPOSABLE)
    assert stand_ins == (["W exposures: the illegal player answered exposures the rules do not allow"]
                         + ["W play: the illegal player answered a play the rules do not allow"] * len(plays))
    assert "test 8: the illegal player for W answered exposures the rules do not allow" in caplog.text
    assert "test 8: the illegal player for W answered a play the rules do not allow" in caplog.text


def _exposure_view(preset: str, seed: int, seat: Seat = Seat.N) -> Observation:
    """``seat``'s view in the exposure phase of a deal where it holds an exposable card."""
    deal = Deal.new(PRESETS[preset], seed)
    obs = observe(deal, seat)
    assert obs.phase is Phase.EXPOSE
    return obs


class Answers(Player):
    """Declares what it is given (any object); plays what it is given, else the first legal play."""

    level = "answers"

    def __init__(self, declaration: object, play: Play | None = None) -> None:
        self.declaration = declaration
        self.play = play

    def choose_exposures(self, obs: Observation) -> list[tuple[Card, str]]:
        return self.declaration  # type: ignore[return-value]

    def choose_play(self, obs: Observation) -> Play:
        return self.play if self.play is not None else obs.legal_plays()[0]


def test_declarations_are_checked_as_the_rules_check_them(caplog: pytest.LogCaptureFixture) -> None:
    """R4.4: only held exposable cards, each copy once, in a kind the option allows, 首明 only
    for the first dealt card and only once; a bare card means the option's usual kind."""
    seed = next(s for s in range(2000) if Deal.new(PRESETS["tournament"], s).dealt[Seat.N][0] in EXPOSABLE
                and sum(c in EXPOSABLE for c in Deal.new(PRESETS["tournament"], s).hand(Seat.N)) >= 2)
    obs = _exposure_view("tournament", seed)  # exposure=first_card: kinds shown and first
    first = obs.first_card
    assert first is not None and first in EXPOSABLE
    held = [c for c in obs.hand if c in EXPOSABLE]
    not_held = next(c for c in EXPOSABLE if c not in obs.hand)
    rules = IntermediatePlayer(seed=0).choose_exposures(obs)

    def answer(declaration: object) -> tuple[list[tuple[Card, str]], list[str]]:
        lines: list[str] = []
        return safe_exposures(Answers(declaration), obs, stand_ins=lines), lines

    assert answer([]) == ([], [])
    assert answer([(first, "first")]) == ([(first, "first")], [])
    assert answer([first]) == ([(first, "shown")], [])  # a bare card: the usual kind
    assert answer(tuple((c, "shown") for c in held)) == ([(c, "shown") for c in held], [])
    for refused in (
        [(not_held, "shown")],                   # not in the hand
        [(first, "shown"), (first, "shown")],    # one deck: one copy
        [(first, "hidden")],                     # not a kind of first_card
        [(first, "first"), (first, "first")],    # twice, and two 首明
        [(parse_card("2C"), "shown")],           # not exposable (R4.1)
        None, "QS", [("QS", "shown")], [(first,)],
    ):
        chosen, lines = answer(refused)
        assert chosen == rules
        assert lines == ["N exposures: the answers player answered exposures the rules do not allow"]
    other = next(c for c in held if c != first)
    assert answer([(other, "first")])[0] == rules  # 首明 only for the first dealt card
    assert "answered exposures the rules do not allow" in caplog.text


def test_hidden_exposures_and_options_where_nobody_chooses() -> None:
    """``exposure=hidden`` (暗卖): the kind is ``hidden``, a bare card means it; under
    ``exposure=none`` players declare nothing, so a card is refused (R4.4)."""
    options = PRESETS["online"].replace(exposure="hidden")
    seed = next(s for s in range(200) if any(c in EXPOSABLE for c in Deal.new(options, s).hand(Seat.S)))
    obs = observe(Deal.new(options, seed), Seat.S)
    card = next(c for c in obs.hand if c in EXPOSABLE)
    rules = IntermediatePlayer(seed=0).choose_exposures(obs)
    assert safe_exposures(Answers([(card, "hidden")]), obs) == [(card, "hidden")]
    assert safe_exposures(Answers([card]), obs) == [(card, "hidden")]
    assert safe_exposures(Answers([(card, "shown")]), obs) == rules
    none = observe(Deal.new(PRESETS["pig_sheep"], 2), Seat.S)
    assert none.phase is Phase.PLAY
    assert safe_exposures(Answers([(card, "shown")]), none) == []
    assert safe_exposures(Answers([]), none) == []


def test_a_legal_answer_passes_unchanged_and_a_pair_in_either_order() -> None:
    deal = Deal.new(PRESETS["online2"], 12)
    for s in deal.undeclared:
        deal.declare(s, [])
    rng = random.Random(12)
    lines: list[str] = []
    while (turn := deal.turn) is not None:
        obs = observe(deal, turn)
        play = rng.choice(obs.legal_plays())
        assert safe_play(Answers([]), obs, stand_ins=lines) == obs.legal_plays()[0]
        assert safe_play(Answers([], tuple(reversed(play))), obs, stand_ins=lines) == play
        deal.play(play, turn)
    assert lines == []


def test_an_interrupt_is_not_a_player_failure() -> None:
    """Ctrl-C (``KeyboardInterrupt``) is not caught: it stops whatever runs the game."""
    deal = Deal.new(PRESETS["online"], 1)
    for s in deal.undeclared:
        deal.declare(s, [])
    turn = deal.turn
    assert turn is not None
    with pytest.raises(KeyboardInterrupt):
        safe_play(Interrupting(), observe(deal, turn))


def test_asking_a_seat_that_is_not_to_play_is_the_callers_mistake() -> None:
    deal = Deal.new(PRESETS["online"], 1)
    with pytest.raises(ValueError, match="not their turn"):
        safe_play(RandomPlayer(1), observe(deal, Seat.N))


def test_the_terminal_game_goes_on_past_failing_computer_players(caplog: pytest.LogCaptureFixture) -> None:
    """``gongzhu play``: East raises at every decision and West answers illegally; both are stood
    in for, so the person (South, here always the first legal play) finishes the match."""
    from gongzhu.cli.play import TerminalGame

    lines: list[str] = []
    holder: list[TerminalGame] = []

    def read(prompt: str) -> str:
        deal = holder[0].deal
        assert deal is not None
        return "" if deal.turn is None else " ".join(c.code for c in deal.legal_plays()[0])

    game = TerminalGame(PRESETS["online"].replace(match_end="deals:1"), seed=4, read=read, write=lines.append,
                        players={Seat.E: Raising(), Seat.W: Illegal()})
    holder.append(game)
    with caplog.at_level(logging.ERROR, logger="gongzhu.players"):
        assert game.run() == 0
    assert game.match.is_over and "== Match over ==" in lines
    assert "gongzhu play play-4: the raising player for E failed" in caplog.text
    assert "gongzhu play play-4: the illegal player for W answered a play the rules do not allow" in caplog.text
