"""The C play-phase core ``gongzhu.rules._fastplay.Board`` against the reference rules.

For random one-deck deals under every one-deck preset (and overrides of every option that
changes play), a Board is built from the deal right after the exposure phase and random legal
cards are played through the Board, the :class:`~gongzhu.rules.Deal` and an independent
transcription of R4.3 / R5.1 / R5.2 written here (:class:`_Ref`).  At every step the legal set,
the return code of ``play``, the trick in progress, the finished tricks (winner, taker), the
cards taken and the pig taker must agree; an illegal card must change nothing; undo must restore
every earlier position; ``copy()`` must be independent.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gongzhu.rules import ALL_CARDS, PRESETS, Deal, Options, Phase, Seat
from gongzhu.rules._fastplay import Board
from gongzhu.rules.cards import Card, parse_card
from helpers.deals import declare_random_exposures, one_deck_option_sets
from helpers.volume import scaled

C2 = parse_card("2C").index
S3 = parse_card("3S").index
QS = parse_card("QS").index
SUIT = [0x1FFF << 13 * s for s in range(4)]
BLACK = SUIT[0] | SUIT[2]
RED = SUIT[1] | SUIT[3]
COLOUR = (BLACK, RED, BLACK, RED)  # by suit: the cards of the same colour
POINTS = SUIT[1] | 1 << QS | 1 << parse_card("JD").index | 1 << parse_card("TC").index
DISCARD_COLOR = {"off": 0, "enforce": 1, "penalty": 2}

Four = tuple[int, int, int, int]

# --------------------------------------------------------------------------- option sets

_OVERRIDES: list[dict[str, Any]] = [
    {},
    {"discard_color": "enforce"},
    {"discard_color": "penalty"},
    {"exposed_discard_before_suit_led": True},
    {"direction": "cw"},
    {"direction": "ccw"},
    {"first_lead": "club2_any"},
    {"first_lead": "spade3_any"},
    {"exposure": "hidden"},
    {"exposure": "sell_x4_x2"},
    {"exposure": "first_card"},
    {"exposure": "all"},
    {"exposure": "all_but_sheep"},
    {"discard_color": "penalty", "exposed_discard_before_suit_led": True, "direction": "cw"},
    {"discard_color": "enforce", "exposed_discard_before_suit_led": True, "first_lead": "spade3_any"},
]


OPTION_SETS = one_deck_option_sets(_OVERRIDES)


@pytest.fixture(autouse=True)
def _python_reference_deal(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Where Deal can run its play phase in Python, use that as the reference (no-op otherwise)."""
    monkeypatch.setattr(Deal, "use_c_board", False, raising=False)
    yield


def test_every_one_deck_preset_is_covered() -> None:
    names = {label.split(",")[0] for label, _ in OPTION_SETS}
    assert names == {name for name, o in PRESETS.items() if o.decks == 1}
    assert len(OPTION_SETS) > 40


# --------------------------------------------------------------------------- helpers


def mask(cards: Any) -> int:
    m = 0
    for c in cards:
        m |= 1 << (c.index if isinstance(c, Card) else c[0].index)
    return m


def bits(m: int) -> list[int]:
    return [i for i in range(52) if m >> i & 1]


def start_deal(options: Options, seed: int, expose_p: float, later: bool) -> Deal:
    """A deal from ``seed`` with random exposures declared (R4): the play phase has started."""
    rng = random.Random(seed * 7919 + 5)
    prev = Seat(rng.randrange(4)) if later else None
    deal = Deal.new(options, seed, deal_index=1 if later else 0, previous_pig_taker=prev)
    declare_random_exposures(deal, rng, expose_p)
    assert deal.phase == Phase.PLAY
    return deal


def board_args(deal: Deal) -> tuple[list[int], list[int], int, bool, bool, bool, int]:
    """The Board arguments of a deal whose play phase just started, from its public API."""
    o = deal.options
    hands = [mask(deal.hand(s)) for s in Seat]
    restricted = [0, 0, 0, 0]
    for e in deal.exposures:
        if Options.restricted_kind(e.kind):
            restricted[e.seat] |= 1 << e.card.index
    assert deal.turn is not None
    leader = int(deal.turn)
    must_c2 = deal.previous_pig_taker is None and o.first_lead == "club2_must"
    # The private fields, where the Deal still has them, say the same.
    for name, value in (("_h1", hands), ("_r1", restricted), ("_turn", leader), ("_must_lead_c2", must_c2)):
        if hasattr(deal, name):
            private = getattr(deal, name)
            assert (list(private) if isinstance(private, list) else private) == value, name
    return hands, restricted, leader, must_c2, o.clockwise, o.exposed_discard_before_suit_led, DISCARD_COLOR[
        o.discard_color
    ]


class _Ref:
    """An independent transcription of one-deck play: R5.1 first lead, R5.2 follow suit, R4.3
    exposed cards, the discard colour variant and its penalty, trick winners and point cards."""

    def __init__(self, hands: list[int], restricted: list[int], leader: int, must_c2: bool, clockwise: bool,
                 edbsl: bool, colour: int) -> None:
        self.hands, self.restricted = list(hands), list(restricted)
        self.leader = self.turn = leader
        self.must_c2, self.step, self.edbsl, self.colour = must_c2, 1 if clockwise else 3, edbsl, colour
        self.trick: list[tuple[int, int]] = []
        self.suits_led = 0
        self.offender = -1
        self.captured = [0, 0, 0, 0]
        self.history: list[tuple[int, tuple[tuple[int, int], ...], int, int]] = []

    @property
    def over(self) -> bool:
        return not self.trick and self.hands[self.turn] == 0

    def _first_trick_of(self, c: int) -> bool:
        return not self.suits_led >> (c // 13) & 1

    def legal(self) -> int:
        if self.over:
            return 0
        s = self.turn
        hand, bound = self.hands[s], self.restricted[s]

        def narrow(cand: int, keep: Any) -> int:  # a restriction applies only if it leaves a card
            kept = sum(1 << c for c in bits(cand) if keep(c))
            return kept or cand

        if not self.trick:
            if self.must_c2:
                return 1 << C2
            return narrow(hand, lambda c: not (bound >> c & 1 and self._first_trick_of(c)))
        led = self.trick[0][1] // 13
        follow = hand & SUIT[led]
        if follow:
            return narrow(follow, lambda c: not (bound >> c & 1 and self._first_trick_of(c)))
        cand = hand
        if self.edbsl:
            cand = narrow(cand, lambda c: not (bound >> c & 1 and self._first_trick_of(c)))
        if self.colour == 1:
            cand = narrow(cand, lambda c: COLOUR[led] >> c & 1)
        return cand

    def play(self, c: int) -> int:
        s = self.turn
        legal = self.legal()
        assert legal >> c & 1
        if self.trick and self.colour == 2 and self.offender < 0:
            led = self.trick[0][1] // 13
            if c // 13 != led and not COLOUR[led] >> c & 1 and legal & COLOUR[led]:
                self.offender = s
        if not self.trick:
            self.leader = s
            self.must_c2 = False
        self.hands[s] &= ~(1 << c)
        self.restricted[s] &= ~(1 << c)
        self.trick.append((s, c))
        if len(self.trick) < 4:
            self.turn = (s + self.step) % 4
            return 0
        led = self.trick[0][1] // 13
        winner = max((p for p in self.trick if p[1] // 13 == led), key=lambda p: p[1])[0]
        taker = self.offender if self.offender >= 0 else winner
        for _, card in self.trick:
            if POINTS >> card & 1:
                self.captured[taker] |= 1 << card
        self.history.append((self.leader, tuple(self.trick), winner, taker))
        self.suits_led |= 1 << led
        self.trick = []
        self.offender = -1
        self.leader = self.turn = winner
        return 2 if self.over else 1


def view(b: Board) -> tuple[Any, ...]:
    """Everything a Board shows."""
    return (
        b.hands(), b.restricted(), b.captured(), b.trick(), b.history(), b.legal_mask(), b.turn, b.leader,
        b.led, b.suits_led, b.offender, b.pig_taker, b.n_plays, b.over,
    )


def check_against(b: Board, ref: _Ref, deal: Deal) -> None:
    assert b.legal_mask() == ref.legal() == mask(deal.legal_plays())
    assert b.over == ref.over == deal.is_over
    assert b.hands() == tuple(ref.hands) == tuple(mask(deal.hand(s)) for s in Seat)
    assert b.restricted() == tuple(ref.restricted)
    for s in Seat:
        for c in bits(b.hands()[s]):
            assert deal.restricted_copies(s, ALL_CARDS[c]) == b.restricted()[s] >> c & 1
    assert b.captured() == tuple(ref.captured) == tuple(mask(deal.captured(s)) for s in Seat)
    assert b.trick() == tuple(ref.trick) == tuple((int(s), p[0].index) for s, p in deal.current_trick)
    history = tuple(
        (int(t.leader), tuple((int(s), p[0].index) for s, p in t.plays), int(t.winner), int(t.taker))
        for t in deal.tricks
    )
    assert b.history() == tuple(ref.history) == history
    assert b.pig_taker == (-1 if deal.pig_taker is None else int(deal.pig_taker))
    assert b.offender == ref.offender
    assert b.suits_led == ref.suits_led == sum(1 << s for s in deal.suits_led)
    assert b.led == (ref.trick[0][1] // 13 if ref.trick else -1)
    assert b.leader == ref.leader
    if deal.leader is not None:
        assert b.leader == int(deal.leader)
    if not b.over:
        assert b.turn == ref.turn == deal.turn
    assert b.n_plays == 4 * len(ref.history) + len(ref.trick)


def run_deal(options: Options, seed: int, expose_p: float = 0.5, later: bool = False) -> None:
    rng = random.Random(seed)
    deal = start_deal(options, seed, expose_p, later)
    args = board_args(deal)
    b = Board(*args)
    ref = _Ref(*args)
    views = [view(b)]
    versions = [b.version]
    while True:
        check_against(b, ref, deal)
        legal = b.legal_mask()
        if b.over:
            break
        # An illegal card (here: not legal now, possibly not even held) changes nothing.
        illegal = [c for c in range(52) if not legal >> c & 1]
        if illegal:
            before, version = view(b), b.version
            assert b.play(rng.choice(illegal)) == -1
            assert view(b) == before and b.version == version
        # Now and then: a copy goes its own way.
        if rng.random() < 0.15:
            other = b.copy()
            assert view(other) == view(b) and other.version == b.version
            assert other.play(rng.choice(bits(legal))) >= 0
            assert other.n_plays == b.n_plays + 1 and view(b) == views[-1]
            assert other.undo() and view(other) == view(b)
        c = rng.choice(bits(legal))
        code = b.play(c)
        assert code == ref.play(c)
        deal.play(ALL_CARDS[c])
        assert code == (2 if deal.is_over else 1 if not deal.current_trick else 0)
        assert b.version > versions[-1]
        views.append(view(b))
        versions.append(b.version)
    assert b.n_plays == 52 and len(b.history()) == 13
    assert b.hands() == (0, 0, 0, 0) and b.legal_mask() == 0
    assert sum(bin(m).count("1") for m in b.captured()) == bin(POINTS).count("1")
    assert b.pig_taker >= 0 and b.captured()[b.pig_taker] >> QS & 1
    assert all(b.play(c) == -1 for c in range(52)), "no card is legal once the deal is over"
    assert view(b) == views[-1] and b.version == versions[-1]
    # A copy of the finished deal undoes on its own.
    done = b.copy()
    # Undo back to the start: every earlier position comes back; version keeps increasing.
    last = b.version
    for i in range(len(views) - 2, -1, -1):
        assert b.undo()
        assert b.version > last
        last = b.version
        assert view(b) == views[i]
    assert not b.undo() and b.version == last
    assert b.n_plays == 0 and b.history() == () and b.hands() == tuple(args[0])
    assert view(done) == views[-1] and done.over
    # And forward again, the same way.
    for i, t in enumerate(views[-1][4]):
        for k, (_, c) in enumerate(t[1]):
            assert b.play(c) == (0 if k < 3 else 2 if i == 12 else 1)
    assert view(b) == views[-1]


# --------------------------------------------------------------------------- tests


@pytest.mark.parametrize(("label", "options"), OPTION_SETS, ids=[label for label, _ in OPTION_SETS])
def test_board_matches_reference(label: str, options: Options) -> None:
    for seed in range(3):
        run_deal(options, 1000 * seed + len(label), expose_p=(0.3, 0.7, 1.0)[seed])
    run_deal(options, 77 + len(label), expose_p=0.5, later=True)


@settings(max_examples=scaled(150), deadline=None)
@given(
    which=st.integers(0, len(OPTION_SETS) - 1),
    seed=st.integers(0, 2**32 - 1),
    expose_p=st.sampled_from([0.0, 0.5, 1.0]),
    later=st.booleans(),
)
def test_board_random_deals(which: int, seed: int, expose_p: float, later: bool) -> None:
    run_deal(OPTION_SETS[which][1], seed, expose_p, later)


def fresh() -> Board:
    deal = start_deal(PRESETS["online"], 3, 0.0, False)
    return Board(*board_args(deal))


def test_first_lead_club2_must() -> None:
    b = fresh()
    assert b.legal_mask() == 1 << C2
    assert b.hands()[b.turn] >> C2 & 1 and b.led == -1 and b.leader == b.turn
    assert b.play(C2) == 0
    assert b.led == 2 and b.trick() == ((b.leader, C2),)


def test_legal_mask_is_cached_and_version_counts() -> None:
    b = fresh()
    v0 = b.version
    m = b.legal_mask()
    assert b.legal_mask() == m and b.version == v0
    assert b.play(C2) == 0 and b.version == v0 + 1
    assert b.undo() and b.version == v0 + 2
    assert b.legal_mask() == m
    assert not b.undo() and b.version == v0 + 2


def test_copy_is_independent() -> None:
    b = fresh()
    b.play(C2)
    c = b.copy()
    for other in (copy.copy(b), copy.deepcopy(b)):
        assert view(other) == view(b) and other is not b
    c.play(bits(c.legal_mask())[0])
    assert c.n_plays == 2 and b.n_plays == 1
    assert b.undo() and b.n_plays == 0
    assert c.n_plays == 2 and c.undo() and c.undo() and not c.undo()
    assert view(c) == view(b)


def test_small_board_by_hand() -> None:
    # N: AS 2H, E: KS 3H, S: 2S 4H, W: 3S AH; N leads, counter-clockwise (N W S E).
    h = [parse_card(x).index for x in ("AS", "2H", "KS", "3H", "2S", "4H", "3S", "AH")]
    hands = [1 << h[0] | 1 << h[1], 1 << h[2] | 1 << h[3], 1 << h[4] | 1 << h[5], 1 << h[6] | 1 << h[7]]
    b = Board(hands, [0, 0, 0, 1 << h[7]], 0, False, False, False, 0)
    assert b.turn == 0 and b.legal_mask() == hands[0]
    assert b.play(h[1]) == 0  # N leads 2H
    assert b.turn == 3 and b.legal_mask() == 1 << h[7]  # W must follow with the exposed AH
    assert b.play(h[7]) == 0
    assert b.play(h[5]) == 0 and b.play(h[3]) == 1
    assert b.history() == ((0, ((0, h[1]), (3, h[7]), (2, h[5]), (1, h[3])), 3, 3),)
    assert b.captured()[3] == 1 << h[1] | 1 << h[7] | 1 << h[5] | 1 << h[3]
    assert b.suits_led == 0b10 and b.turn == b.leader == 3 and b.led == -1 and b.pig_taker == -1
    assert b.play(h[6]) == 0 and b.play(h[4]) == 0 and b.play(h[2]) == 0 and b.play(h[0]) == 2
    assert b.over and b.history()[-1][2:] == (0, 0) and b.legal_mask() == 0
    assert Board([0, 0, 0, 0], [0, 0, 0, 0], 1, True, True, True, 2).over


def test_penalty_offender_takes_the_points() -> None:
    # Clockwise N E S W; spades led; E holds no spade but a club (black) and discards a heart.
    cards = {s: [parse_card(x).index for x in hand.split()] for s, hand in
             enumerate(["AS KS", "2H 3C", "2S 3S", "4S 5S"])}
    hands = [sum(1 << c for c in cards[s]) for s in range(4)]
    for colour, legal_e, offender in ((0, hands[1], 1), (1, 1 << cards[1][1], -1), (2, hands[1], 1)):
        b = Board(hands, [0] * 4, 0, False, True, False, colour)
        assert b.play(cards[0][0]) == 0
        assert b.legal_mask() == legal_e
        if colour == 1:
            assert b.play(cards[1][0]) == -1
            continue
        assert b.play(cards[1][0]) == 0
        assert b.offender == (offender if colour == 2 else -1)
        b.play(cards[2][0])
        assert b.play(cards[3][0]) == 1
        taker = 1 if colour == 2 else 0
        assert b.history()[0][2:] == (0, taker)
        assert b.captured()[taker] == 1 << cards[1][0] and b.offender == -1


def test_play_argument_errors() -> None:
    b = fresh()
    v = b.version
    for play in (b.play, b.play_packed):
        for bad in ("2C", 1.0, None, True, ALL_CARDS[C2]):
            with pytest.raises(TypeError):
                play(bad)  # type: ignore[arg-type]
        for out_of_range in (-1, 52, 2**70, -(2**70)):
            with pytest.raises(ValueError):
                play(out_of_range)
    assert b.version == v and b.n_plays == 0


@pytest.mark.parametrize("options", [Options(), Options(direction="cw", discard_color="penalty")])
@pytest.mark.parametrize("seed", [1, 2])
def test_play_packed_says_who_played_and_which_trick_it_finished(options: Options, seed: int) -> None:
    deal = start_deal(options, seed, 0.5, False)
    packed, plain = Board(*board_args(deal)), Board(*board_args(deal))
    rng = random.Random(seed)
    while not plain.over:
        legal = bits(plain.legal_mask())
        illegal = [c for c in range(52) if c not in legal]
        if illegal:
            assert packed.play_packed(rng.choice(illegal)) == -1
        c = rng.choice(legal)
        seat = plain.turn
        done = plain.play(c)
        code = packed.play_packed(c)
        assert view(packed) == view(plain)
        if done == 0:
            assert code == seat
            continue
        leader, plays, winner, taker = plain.history()[-1]
        step = code >> 6 & 3
        assert (code & 3, code >> 2 & 3, code >> 4 & 3) == (leader, winner, taker)
        assert [((leader + i * step) & 3, code >> 8 + 6 * i & 63) for i in range(4)] == list(plays)
        assert (code >> 32 & 1, code >> 33) == (done == 2, seat)


def test_constructor_errors() -> None:
    deal = start_deal(OPTION_SETS[0][1], 11, 0.0, False)
    hands, restricted, leader, must, cw, edbsl, colour = board_args(deal)
    Board(hands, restricted, leader, must, cw, edbsl, colour)
    Board(hands=tuple(hands), restricted=restricted, leader=leader, must_lead_c2=must, clockwise=cw,
          exposed_discard_before_suit_led=edbsl, discard_color=colour)
    bad_type: list[tuple[Any, ...]] = [
        (5, restricted, leader, must, cw, edbsl, colour),
        ("abcd", restricted, leader, must, cw, edbsl, colour),
        ([*hands[:3], "x"], restricted, leader, must, cw, edbsl, colour),
        ([*hands[:3], 1.5], restricted, leader, must, cw, edbsl, colour),
        (hands, None, leader, must, cw, edbsl, colour),
        (hands, restricted, "N", must, cw, edbsl, colour),
        (hands, restricted, 1.0, must, cw, edbsl, colour),
        (hands, restricted, leader, must, cw, edbsl, "penalty"),
        (hands, restricted, leader, must, cw, edbsl),
    ]
    for args in bad_type:
        with pytest.raises(TypeError):
            Board(*args)
    other = (leader + 1) % 4
    bad_value: list[tuple[Any, ...]] = [
        (hands[:3], restricted, leader, must, cw, edbsl, colour),
        ([*hands, 0], restricted, leader, must, cw, edbsl, colour),
        ([*hands[:3], -1], restricted, leader, must, cw, edbsl, colour),
        ([*hands[:3], 1 << 52], restricted, leader, must, cw, edbsl, colour),
        ([*hands[:3], 1 << 80], restricted, leader, must, cw, edbsl, colour),
        ([hands[0], hands[0], hands[2], hands[3]], restricted, leader, must, cw, edbsl, colour),
        ([hands[0] | hands[1], 0, hands[2], hands[3]], restricted, leader, must, cw, edbsl, colour),
        (hands, [hands[1], 0, 0, 0], leader, must, cw, edbsl, colour),
        (hands, restricted, 4, must, cw, edbsl, colour),
        (hands, restricted, -1, must, cw, edbsl, colour),
        (hands, restricted, leader, must, cw, edbsl, 3),
        (hands, restricted, leader, must, cw, edbsl, -1),
        (hands, restricted, other, True, cw, edbsl, colour),  # must lead ♣2 without holding it
    ]
    for args in bad_value:
        with pytest.raises(ValueError):
            Board(*args)
    assert Board(hands, restricted, other, False, cw, edbsl, colour).turn == other  # any card leads
    with pytest.raises(TypeError):
        type("Sub", (Board,), {})


def test_hands_of_fewer_cards() -> None:
    # Four hands of one card each: one trick, then over.
    hands = [1 << S3, 1 << C2, 1 << QS, 1 << parse_card("AH").index]
    b = Board(hands, [0, 0, 0, 0], 1, True, True, False, 0)
    assert b.legal_mask() == 1 << C2
    assert b.play(C2) == 0 and b.play(QS) == 0 and b.play(parse_card("AH").index) == 0
    assert b.play(S3) == 2 and b.over
    assert b.pig_taker == 1 and b.captured()[1] == 1 << QS | 1 << parse_card("AH").index
    assert repr(b).startswith("<Board")
