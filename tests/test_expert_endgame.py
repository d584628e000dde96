"""The expert with its endgame solved exactly (``ExpertPlayer(endgame=k)``): once at most ``k``
tricks are left each sampled world is valued by the open-card solver instead of playouts.  It
still plays only what the rules allow (R4, R5), falls back to playouts where it cannot solve (two
decks, a search past its limit), and in an ending whose world it knows its values are the exact
minimax values of R6 scored as R7 asks, checked against a brute force over the Python rules."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from gongzhu.arena.run import ArenaConfig, play_game
from gongzhu.players import LEVELS, make_player, observe
from gongzhu.players import expert as expert_module
from gongzhu.players.expert import ExpertPlayer
from gongzhu.players.observation import Observation
from gongzhu.players.registry import RESEARCH_LEVELS, arena_levels
from gongzhu.players.sampling import World
from gongzhu.rules import PRESETS, Card, Deal, Options, Position, Seat, parse_card, parse_cards
from helpers.deals import play_seq

ITERATIONS = 4


def _play_to(options: Options, seed: int, left: int) -> Deal:
    """A seeded deal, no exposures, random legal play until the player to move holds ``left``
    cards and leads or follows in a trick."""
    rng = random.Random(seed)
    deal = Deal.new(options, seed)
    for seat in deal.undeclared:
        deal.declare(seat, [])
    while (turn := deal.turn) is not None and len(deal.hand(turn)) > left * options.decks:
        deal.play(rng.choice(deal.legal_plays()))
    return deal


def _obs(deal: Deal) -> Observation:
    turn = deal.turn
    assert turn is not None
    return observe(deal, turn)


@pytest.mark.parametrize("preset", ["online", "partners", "tournament"])
def test_the_endgame_expert_plays_only_legal_cards(preset: str) -> None:
    """R4, R5: whole deals with every seat an expert that solves its last four tricks, under
    individual (R7.2 zero-sum, R7.1 raw) and partnership scoring (R7.3)."""
    options = PRESETS[preset]
    for seed in (1, 2):
        deal = Deal.new(options, seed)
        players = {s: ExpertPlayer(seed=int(s), iterations=2, endgame=4) for s in Seat}
        for seat in deal.undeclared:
            deal.declare(seat, players[seat].choose_exposures(observe(deal, seat)))
        while (turn := deal.turn) is not None:
            play = players[turn].choose_play(observe(deal, turn))
            assert play in deal.legal_plays()
            deal.play(play, turn)
        assert deal.is_over


@pytest.mark.parametrize("preset", ["online", "partners"])
def test_worlds_are_solved_only_near_the_end(preset: str) -> None:
    """R5: with four tricks or fewer left, the current one included, every world is solved (one
    continuation each); with five left, every world is played out (24 playouts per world)."""
    late = _obs(_play_to(PRESETS[preset], 3, 4))
    ranked = ExpertPlayer(seed=1, iterations=ITERATIONS, endgame=4).evaluate(late)
    assert [v.play for v in ranked] == list(late.legal_plays())
    assert all(v.samples == ITERATIONS for v in ranked)
    early = _obs(_play_to(PRESETS[preset], 3, 5))
    ranked = ExpertPlayer(seed=1, iterations=ITERATIONS, endgame=4).evaluate(early)
    assert all(v.samples == ITERATIONS * 24 for v in ranked)


def test_the_endgame_expert_is_reproducible_with_an_iteration_budget() -> None:
    """R5: the same seed and budget give the same values in a solved ending."""
    obs = _obs(_play_to(PRESETS["online"], 8, 4))
    a = ExpertPlayer(seed=7, iterations=ITERATIONS, endgame=4).evaluate(obs)
    b = ExpertPlayer(seed=7, iterations=ITERATIONS, endgame=4).evaluate(obs)
    assert a == b


@pytest.mark.parametrize("preset", ["online2", "partners2"])
def test_two_decks_fall_back_to_playouts(preset: str) -> None:
    """R5.3: the solver is for one deck; with two decks every world is played out, and the
    choice is a legal play."""
    deal = _play_to(PRESETS[preset], 4, 3)
    obs = _obs(deal)
    player = ExpertPlayer(seed=2, iterations=ITERATIONS, endgame=13)
    ranked = player.evaluate(obs)
    assert [v.play for v in ranked] == list(obs.legal_plays())
    assert all(v.samples == ITERATIONS * 24 for v in ranked)
    assert player.choose_play(obs) in deal.legal_plays()


def test_a_world_past_the_search_limit_is_played_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """R5: a world whose exact search passes the limit of positions is valued by playouts
    instead, and the choice is still legal."""
    monkeypatch.setattr(expert_module, "ENDGAME_LIMIT", 1)
    deal = _play_to(PRESETS["online"], 5, 4)
    obs = _obs(deal)
    player = ExpertPlayer(seed=3, iterations=ITERATIONS, endgame=4)
    ranked = player.evaluate(obs)
    assert all(v.samples == ITERATIONS * 24 for v in ranked)
    assert player.choose_play(obs) in deal.legal_plays()


def test_endgame_must_not_be_negative() -> None:
    """R5: the endgame is a number of tricks still to play, 0 for none; below that is refused."""
    with pytest.raises(ValueError, match="endgame"):
        ExpertPlayer(iterations=1, endgame=-1)


# ------------------------------------------------------------------ an ending with a known answer

#: A deal (plays go counter-clockwise under ``online`` and ``partners``, R9): after ten tricks West leads with
#: ♥8 ♦J ♦Q.  Only South still holds a diamond (♦5); North has taken ♣10 (the transformer) and four
#: hearts, East the pig and ♥9, South ♥K ♥7 ♥A ♥10; ♥5 ♥4 ♥J ♥8 are still out.
HANDS = {
    "N": "3S 7S TS AS 5H 9H QH KH KC 3D 4D 6D AD",
    "E": "5S 6S 8S QS 2H 4H TH 2C 7C 8C 9C 2D TD",
    "S": "9S JS KS 3H JH AH 3C 4C 5C QC 5D 8D 9D",
    "W": "2S 4S 6H 7H 8H 6C TC JC AC 7D JD QD KD",
}
TEN_TRICKS = ("2C KC TC QC / KH 7H AH TH / 3C 8C 4D JC / 6H 3H 2H QH / 6D 7D 8D 2D / "
              "JS 6S 7S 2S / 9S QS TS 4S / 9C 9H 6C 4C / TD 3D KD 9D / AC 5C 7C AD")


class PythonDeal(Deal):
    """The deal on the Python rules alone, for the brute force."""

    use_c_board = False


def _ending(cls: type[Deal], options: Options) -> Deal:
    deal = cls(options, [parse_cards(HANDS[k]) for k in "NESW"])
    for seat in Seat:
        deal.declare(seat, [])
    play_seq(deal, TEN_TRICKS)
    return deal


def _brute(deal: Deal, weights: tuple[int, ...], seat: Seat, memo: dict[Position, int]) -> int:
    """Best play by everyone to the end: ``seat``'s side maximises the weighted R6 raw scores,
    the others minimise them (the paranoid value under individual scoring, the two-team value
    under ``partners``)."""
    if deal.is_over:
        return sum(w * r for w, r in zip(weights, deal.score.raw, strict=True))
    key = deal.position()
    if key not in memo:
        values = []
        for play in deal.legal_plays():
            child = deal.copy()
            child.play(play)
            values.append(_brute(child, weights, seat, memo))
        turn = deal.turn
        assert turn is not None
        mine = turn == seat or (deal.options.partnership and (turn - seat) % 2 == 0)
        memo[key] = max(values) if mine else min(values)
    return memo[key]


def _exact_values(deal: Deal, seat: Seat) -> dict[Card, float]:
    """R7 as the expert counts it: own raw minus the others' mean (R7.2), or half the team's
    margin (R7.3)."""
    if deal.options.partnership:
        weights, divisor = tuple(1 if (s - seat) % 2 == 0 else -1 for s in range(4)), 2
    else:
        weights, divisor = tuple(3 if s == seat else -1 for s in range(4)), 3
    out: dict[Card, float] = {}
    memo: dict[Position, int] = {}
    for play in deal.legal_plays():
        child = deal.copy()
        child.play(play)
        out[play[0]] = _brute(child, weights, seat, memo) / divisor
    return out


@pytest.mark.parametrize(("preset", "best"), [("online", "JD"), ("partners", "8H")])
def test_given_the_true_world_the_exactly_best_card_is_ranked_first(
        preset: str, best: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """R5.2, R6, R7.2, R7.3: every world the expert looks at is the true one, so its values are
    the exact ones — equal to a brute force over the Python rules — and it plays the one best
    card: under ``online`` ♦J (West's objective +200 against ♦Q +160 and ♥8 +80), under
    ``partners`` ♥8 (+110 against ♦J +100 and ♦Q +70)."""
    deal = _ending(Deal, PRESETS[preset])
    assert deal.turn == Seat.W and len(deal.hand(Seat.W)) == 3
    obs = observe(deal, Seat.W)
    true = World({s: Counter(deal.hand(s)) for s in Seat}, tuple(deal.exposures))
    player = ExpertPlayer(seed=1, iterations=ITERATIONS, endgame=3)
    monkeypatch.setattr(player, "_worlds", lambda _obs: lambda: true)
    exact = _exact_values(_ending(PythonDeal, PRESETS[preset]), Seat.W)
    assert [c for c, v in exact.items() if v == max(exact.values())] == [parse_card(best)]
    ranked = player.evaluate(obs)
    assert {v.play[0]: v.value for v in ranked} == pytest.approx(exact)
    assert max(ranked, key=lambda v: v.value).play == (parse_card(best),)
    assert player.choose_play(obs) == (parse_card(best),)


# ------------------------------------------------------------------ the arena's research levels


def test_research_levels_are_the_arena_s_only() -> None:
    """R5: the arena plays ``expert-endgameK`` (docs/strength.md), the expert solving its last K
    tricks; the game, the server and the bot offer only :data:`LEVELS`."""
    assert all(name not in LEVELS for name in RESEARCH_LEVELS)
    assert arena_levels() == [*LEVELS, *RESEARCH_LEVELS]
    player = make_player("expert-endgame4", seed=1, iterations=3)
    assert isinstance(player, ExpertPlayer) and player.endgame == 4 and player.iterations == 3
    assert make_player("expert", iterations=1).endgame == 0  # type: ignore[attr-defined]


def test_the_arena_plays_a_research_level() -> None:
    """R5, R6: one arena game of the endgame expert against the plain one, to the end."""
    config = ArenaConfig(players=("expert-endgame4", "expert", "expert-endgame4", "expert"),
                         options=PRESETS["online"], deals=1, seed=5, duplicate=True, iterations=2)
    result = play_game(config, 0, 1)
    assert result.levels == ("expert", "expert-endgame4", "expert", "expert-endgame4")
    assert sum(len(t) for t in result.think) >= 48
