"""R3 dealing: seeded, reproducible, unbiased, in play direction, hands in received order."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from gongzhu.rules import (
    ALL_CARDS,
    PRESETS,
    QS,
    Deal,
    DealError,
    Options,
    Seat,
    deal_hands,
    deal_seed,
    next_seat,
)
from gongzhu.rules.dealing import dealing_order, shuffle


def test_next_seat_directions() -> None:
    """R1: counter-clockwise N → W → S → E; clockwise N → E → S → W."""
    assert [next_seat(s, clockwise=False) for s in Seat] == [Seat.W, Seat.N, Seat.E, Seat.S]
    assert [next_seat(s, clockwise=True) for s in Seat] == [Seat.E, Seat.S, Seat.W, Seat.N]


@pytest.mark.parametrize(
    ("first", "clockwise", "order"),
    [
        (Seat.N, False, "NWSE"),
        (Seat.N, True, "NESW"),
        (Seat.E, False, "ENWS"),
        (Seat.E, True, "ESWN"),
        (Seat.S, False, "SENW"),
        (Seat.W, True, "WNES"),
    ],
)
def test_dealing_order(first: Seat, clockwise: bool, order: str) -> None:
    """R3: dealt one card at a time in play direction from the first receiver."""
    assert "".join(s.name for s in dealing_order(first, clockwise)) == order


@pytest.mark.parametrize("decks", [1, 2])
def test_seeded_and_reproducible(decks: int) -> None:
    """R3: the same seed gives the same deal; different seeds give different deals."""
    a = deal_hands(12345, decks)
    b = deal_hands(12345, decks)
    assert a == b
    assert deal_hands(12346, decks) != a
    assert deal_hands(random.Random(12345), decks) == a  # a generator is accepted too


@pytest.mark.parametrize("decks", [1, 2])
@pytest.mark.parametrize("seed", [0, 1, 2, 99, 2**40])
def test_every_card_dealt_once_or_twice(decks: int, seed: int) -> None:
    """R1/R3: one deck every card once, 13 each; two decks every card twice, 26 each."""
    hands = deal_hands(seed, decks)
    assert [len(h) for h in hands] == [13 * decks] * 4
    assert Counter(c for h in hands for c in h) == {c: decks for c in ALL_CARDS}


@pytest.mark.parametrize(
    ("first", "clockwise"),
    [(Seat.N, False), (Seat.N, True), (Seat.E, False), (Seat.W, True), (Seat.S, False)],
)
@pytest.mark.parametrize("decks", [1, 2])
def test_hands_in_received_order(first: Seat, clockwise: bool, decks: int) -> None:
    """R3/R11: the shuffled deck is dealt card by card in play direction; the first receiver gets
    cards 0, 4, 8 …, the next player in play direction 1, 5, 9 …; each hand keeps that order."""
    seed = 777
    deck = list(ALL_CARDS) * decks
    random.Random(seed).shuffle(deck)  # Fisher–Yates from the seed (R3)
    hands = deal_hands(seed, decks, first, clockwise)
    seat = first
    for k in range(4):
        assert hands[seat] == deck[k::4], (seat, k)
        seat = next_seat(seat, clockwise)


def test_direction_changes_only_who_gets_which_stream() -> None:
    """R3: ccw N W S E and cw N E S W receive the same card streams."""
    ccw = deal_hands(5, 1, Seat.N, clockwise=False)
    cw = deal_hands(5, 1, Seat.N, clockwise=True)
    assert ccw[Seat.N] == cw[Seat.N]
    assert ccw[Seat.S] == cw[Seat.S]
    assert ccw[Seat.W] == cw[Seat.E]
    assert ccw[Seat.E] == cw[Seat.W]


def test_deal_new_uses_the_dealing() -> None:
    """R3: Deal.new deals from the seed in the options' direction and keeps the dealt order."""
    opts = PRESETS["classic"]
    deal = Deal.new(opts, 42, first_receiver=Seat.E)
    assert [list(h) for h in deal.dealt] == deal_hands(42, 1, Seat.E, clockwise=True)
    assert deal.seed == 42
    assert deal.first_receiver == Seat.E


def test_deal_seed_is_stable() -> None:
    """R3: a match seed gives each deal its own reproducible seed."""
    assert deal_seed(1, 0) == deal_seed(1, 0)
    seeds = {deal_seed(1, i) for i in range(100)} | {deal_seed(2, i) for i in range(100)}
    assert len(seeds) == 200
    assert all(0 <= s < 2**63 for s in seeds)


def _chi_square(counts: list[int]) -> float:
    expected = sum(counts) / len(counts)
    return sum((c - expected) ** 2 / expected for c in counts)


def test_unbiased_pig_holder() -> None:
    """R3: unbiased dealing: over 4000 seeds each seat receives ♠Q about a quarter of the time
    (chi-square with 3 degrees of freedom; 20 is far beyond the 0.1 % point, 16.3)."""
    counts = [0, 0, 0, 0]
    for seed in range(4000):
        hands = deal_hands(seed)
        for s in range(4):
            if QS in hands[s]:
                counts[s] += 1
    assert sum(counts) == 4000
    assert _chi_square(counts) < 20, counts
    assert all(850 < c < 1150 for c in counts), counts


def test_unbiased_position_in_hand() -> None:
    """R3: ♠Q's position within its hand (0–12) is uniform too (12 degrees of freedom; the
    0.1 % point is 32.9)."""
    counts = [0] * 13
    for seed in range(2600):
        for h in deal_hands(seed):
            if QS in h:
                counts[h.index(QS)] += 1
    assert sum(counts) == 2600
    assert _chi_square(counts) < 40, counts


def test_unbiased_two_decks_pair_holding() -> None:
    """R3, two decks: the chance that one seat gets both ♠Q is 25/103 (≈ 0.243)."""
    both = sum(
        1 for seed in range(3000) if any(h.count(QS) == 2 for h in deal_hands(seed, 2))
    )
    assert abs(both / 3000 - 25 / 103) < 0.04, both


def test_bad_hands_are_refused() -> None:
    """R1: a deal is four hands of 13 (26) cards holding every card once (twice)."""
    hands = deal_hands(3)
    with pytest.raises(DealError, match="four hands"):
        Deal(Options(), hands[:3])
    short = [list(h) for h in hands]
    short[1] = short[1][:12]
    with pytest.raises(DealError, match="East's hand has 12 cards"):
        Deal(Options(), short)
    twice = [list(h) for h in hands]
    twice[0][0] = twice[2][0]
    with pytest.raises(DealError, match=f"{twice[2][0].code} is dealt 2 times"):
        Deal(Options(), twice)
    with pytest.raises(DealError, match="26"):
        Deal(Options(decks=2, auto_expose_fourth=False), hands)
    one_deck_twice = [list(h) + list(h) for h in hands]
    assert Deal(Options(decks=2, auto_expose_fourth=False), one_deck_twice).dealt[0][:13] == (
        tuple(hands[0]))


def test_a_seed_deals_the_same_hands_on_every_python() -> None:
    """R3: the shuffle is the project's own Fisher–Yates over the Mersenne Twister's bits, so a
    seed's hands are fixed here, whatever random.shuffle does in another Python."""
    north = [c.code for c in deal_hands(20261201)[0]]
    assert north == ["4C", "KH", "KD", "JH", "2H", "2S", "8C", "QC", "5H", "8H", "4S", "7S", "3H"]
    south = [c.code for c in deal_hands(7, decks=2)[2]][:13]
    assert south == ["7D", "6S", "KH", "JH", "9C", "QC", "4S", "9S", "QH", "2H", "JS", "TC", "3D"]


def test_the_shuffle_is_a_permutation_and_leaves_short_lists_alone() -> None:
    cards = list(ALL_CARDS) * 2
    shuffled = list(cards)
    shuffle(shuffled, random.Random(3))
    assert Counter(shuffled) == Counter(cards) and shuffled != cards
    for short in ([], [ALL_CARDS[0]]):
        copy = list(short)
        shuffle(copy, random.Random(1))
        assert copy == short
