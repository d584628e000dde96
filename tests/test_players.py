"""Computer players (gongzhu.players): the random player only ever chooses what the rules allow
(R4 exposures, R5 plays) under every preset of R9, and is reproducible from its seed."""

from __future__ import annotations

from collections import Counter

import pytest

from gongzhu.players import Player, RandomPlayer
from gongzhu.players.observation import observe
from gongzhu.rules import PRESETS, Deal, Options, Play, Seat, deal_seed
from helpers.volume import scaled

#: Every preset, plus option sets that exercise the other exposure kinds and play restrictions.
OPTION_SETS: dict[str, Options] = {
    **PRESETS,
    "hidden": PRESETS["online"].replace(exposure="hidden"),
    "hidden2": PRESETS["online2"].replace(exposure="hidden"),
    "sell": PRESETS["online"].replace(exposure="sell_x4_x2"),
    "all": PRESETS["online"].replace(exposure="all", discard_color="enforce"),
    "all_but_sheep2": PRESETS["partners2"].replace(exposure="all_but_sheep"),
    "penalty": PRESETS["classic"].replace(discard_color="penalty", first_lead="spade3_any"),
}


def play_checked(deal: Deal, players: list[RandomPlayer]) -> list[Play]:
    """Let the players finish ``deal``, checking every choice against the engine; return the
    plays."""
    for seat in deal.undeclared:
        chosen = players[seat].choose_exposures(observe(deal, seat))
        assert deal.verify_declare(seat, chosen) == chosen  # legal, and already (card, kind) pairs
        deal.declare(seat, chosen)
    plays: list[Play] = []
    while (turn := deal.turn) is not None:
        legal = deal.legal_plays()
        play = players[turn].choose_play(observe(deal, turn))
        assert play in legal
        assert deal.can_play(play, turn)
        deal.play(play, turn)
        plays.append(play)
    return plays


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_random_player_chooses_only_legal_exposures_and_plays(name: str) -> None:
    options = OPTION_SETS[name]
    players = [RandomPlayer(100 + s) for s in range(4)]
    deals = scaled(30 if options.decks == 2 else 60)
    for i in range(deals):
        deal = Deal.new(options, deal_seed(7, i))
        plays = play_checked(deal, players)
        assert deal.is_over
        assert sum(len(p) for p in plays) == 52 * options.decks


def test_random_player_picks_uniformly_among_legal_plays() -> None:
    deal = Deal.new(PRESETS["online"].replace(first_lead="club2_any"), 5)
    for seat in Seat:
        deal.declare(seat, [])
    turn = deal.turn
    assert turn is not None
    player = RandomPlayer(1)
    counts = Counter(player.choose_play(observe(deal, turn)) for _ in range(1300))
    assert set(counts) == set(deal.legal_plays()) and len(counts) == 13
    assert min(counts.values()) > 50


def test_random_player_is_a_player() -> None:
    assert isinstance(RandomPlayer(0), Player)
    with pytest.raises(TypeError):
        Player()  # type: ignore[abstract]


def _run(options: Options, seed: int, deals: int = 5) -> list[object]:
    players = [RandomPlayer(seed * 10 + s) for s in range(4)]
    out: list[object] = []
    for i in range(deals):
        deal = Deal.new(options, deal_seed(1, i))
        out.append(play_checked(deal, players))
        out.append(tuple(deal.exposures))
    return out


@pytest.mark.parametrize("name", ["online", "online2", "tournament"])
def test_random_player_is_reproducible_by_seed(name: str) -> None:
    options = PRESETS[name]
    assert _run(options, 3) == _run(options, 3)
    assert _run(options, 3) != _run(options, 4)


def test_random_player_uses_every_kind_allowed() -> None:
    """Over many deals each allowed kind appears (R4.4): ``first`` under first_card, both kinds
    under sell_x4_x2; an exposed card is exposed about half the time."""
    seen: dict[str, Counter[str]] = {}
    offered = exposed = 0
    for name in ("tournament", "sell", "hidden"):
        options = OPTION_SETS[name]
        player = RandomPlayer(5)
        kinds: Counter[str] = Counter()
        for i in range(80):
            deal = Deal.new(options, deal_seed(11, i))
            for seat in Seat:
                offered += len(deal.exposable(seat))
                chosen = player.choose_exposures(observe(deal, seat))
                exposed += len(chosen)
                kinds.update(k for _, k in chosen)
                deal.declare(seat, chosen)
        seen[name] = kinds
    assert set(seen["tournament"]) == {"shown", "first"}
    assert set(seen["sell"]) == {"shown", "hidden"}
    assert set(seen["hidden"]) == {"hidden"}
    assert 0.4 < exposed / offered < 0.6


def test_random_player_decides_each_copy_on_its_own_with_two_decks() -> None:
    """R4.5: a player holding both copies of an exposable card may expose one or both."""
    options = PRESETS["online2"]
    counts: Counter[int] = Counter()
    player = RandomPlayer(9)
    for i in range(150):
        deal = Deal.new(options, deal_seed(13, i))
        for seat in Seat:
            chosen = player.choose_exposures(observe(deal, seat))
            for c in {c for c, _ in chosen}:
                if deal.copies_held(seat, c) == 2:
                    counts[sum(1 for d, _ in chosen if d == c)] += 1
            deal.declare(seat, chosen)
    assert counts[1] > 0 and counts[2] > 0


def test_random_player_refuses_when_it_is_not_to_move() -> None:
    deal = Deal.new(PRESETS["online"], 1)
    with pytest.raises(ValueError, match="no legal play"):
        RandomPlayer(0).choose_play(observe(deal, Seat.N))  # still in the exposure phase
