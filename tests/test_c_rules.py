"""The C fast paths keep their own copies of some rules for speed; these tests hold each copy to
the one function of ``gongzhu.rules`` that states the rule, on every case of a small universe of
cards that can be enumerated (the play-by-play comparisons of whole deals are in test_fast.py):

* legal plays (R4.3, R4.5, R5.1–R5.3, R5.2 ``discard_color``) — ``rules.legal.cascade``;
* who wins a trick (R5.2, R5.3, the two-card classes) — ``rules.deal.winner_of_trick``;
* who takes the point cards under ``discard_color=penalty`` (R5.2) — ``rules.legal.offends``;
* which copy of an exposed card stays bound after one is played (R4.5) — ``rules.legal.bound_after``;
* raw scores with exposure value factors (R4.2, R4.5, R6, R6.1, R10) — ``rules.scoring.raw_scores``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

import pytest

import gongzhu.rules._fastplay2 as _fastplay2
from gongzhu.rules.cards import ALL_CARDS, EXPOSABLE, Card, Seat, parse_card
from gongzhu.rules.deal import winner_of_trick
from gongzhu.rules.legal import SeatView, bound_after, cascade, offends
from gongzhu.rules.model import Exposure
from gongzhu.rules.options import PRESETS, Options
from gongzhu.rules.scoring import raw_scores
from gongzhu.search import fast

HEARTS = [c for c in ALL_CARDS if c.suit.name == "HEARTS"]
QS, JD, TC, AH = EXPOSABLE
#: Who was dealt each special card (R6.1 self-catch needs to know).
DEALT = [[QS], [JD], [TC], [AH]]


def _idx(codes: str) -> list[int]:
    return [parse_card(c).index for c in codes.split()]


def _mask(cards: Sequence[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _fill(hands: list[int], sizes: Sequence[int], used: int) -> list[int]:
    """Give each seat besides the ones set up filler cards (never played, not in ``used``) up to
    ``sizes``: the one-deck C path checks that every seat holds as many cards as it must."""
    pool = [c for c in range(52) if not used >> c & 1 and not any(h >> c & 1 for h in hands)]
    out = list(hands)
    for s in range(4):
        while out[s].bit_count() < sizes[s]:
            out[s] |= 1 << pool.pop()
    return out


def _order(leader: int, options: Options) -> list[int]:
    step = 1 if options.clockwise else 3
    return [(leader + k * step) % 4 for k in range(4)]


# ---------------------------------------------------------------------------- legal plays, one deck

#: The mover's cards come from here; the other cards of a trick in progress from OTHERS.
ONE_DECK_HAND = _idx("2S QS 5H AH 3C TC JD")
OTHERS = {suit: _idx(codes) for suit, codes in enumerate(("9S", "9H", "9C", "9D"))}


def _one_deck_cases() -> Iterator[tuple[Options, SeatView]]:
    bases = [PRESETS["online"], PRESETS["tournament"],
             PRESETS["online"].replace(discard_color="enforce"),
             PRESETS["online"].replace(discard_color="penalty", exposed_discard_before_suit_led=True)]
    for options in bases:
        for size in (1, 2, 3, 4):
            for hand in itertools.combinations(ONE_DECK_HAND, size):
                exposable = [c for c in hand if ALL_CARDS[c] in EXPOSABLE]
                for n_bound in range(len(exposable) + 1):
                    for bound in itertools.combinations(exposable, n_bound):
                        for led in (-1, 0, 1, 2, 3):
                            trick = () if led < 0 else ((1, (OTHERS[led][0],)),)
                            for suits_led in (0, 0b1111 & ~(1 << max(led, 0))):
                                yield options, SeatView(options, _mask(hand), 0, _mask(bound), 0, trick,
                                                        suits_led, False)
                # the first lead of a club2_must match (R5.1): the leader holds the ♣2
                if 0 in hand:
                    yield options, SeatView(options, _mask(hand) | 1 << _idx("2C")[0], 0, 0, 0, (), 0, True)


def test_one_deck_c_legal_cards_are_the_cascade() -> None:
    """R4.3, R5.1, R5.2: the C board's legal cards equal rules.legal.cascade on every small hand,
    exposed subset, trick lead and suits-led set."""
    checked = 0
    for options, view in _one_deck_cases():
        mover = 2
        hands = [0, 0, 0, 0]
        hands[mover] = view.h1
        n = view.h1.bit_count()
        before = {(mover + (1 if not options.clockwise else 3) * k) % 4 for k in range(1, len(view.trick) + 1)}
        used = _mask(ONE_DECK_HAND) | _mask([c for cards in OTHERS.values() for c in cards])
        hands = _fill(hands, [n - 1 if s in before else n for s in range(4)], used)
        restricted = [0, 0, 0, 0]
        restricted[mover] = view.r1
        trick = [p[0] for _, p in view.trick]
        leader = (mover + (1 if not options.clockwise else 3) * len(trick)) % 4 if trick else mover
        pos = fast.encode_parts(options, hands=hands, restricted=restricted, captured=[[], [], [], []],
                                exposures=[], dealt=DEALT, trick=trick, leader=leader,
                                turn=mover, led=view.led, suits_led=view.suits_led,
                                must_lead_c2=view.must_lead_c2)
        expected = _mask([p[0] for p in cascade(view)[-1][1]])
        assert pos.legal_mask() == expected, (options, view)
        checked += 1
    assert checked > 5000


# ---------------------------------------------------------------------------- legal plays, two decks

TWO_DECK_HAND = _idx("2S 2S AS 5H 5H QS 3C JD")


def _two_deck_cases() -> Iterator[tuple[Options, SeatView]]:
    bases = [PRESETS["online2"], PRESETS["online2"].replace(discard_color="enforce"),
             PRESETS["online2"].replace(exposed_discard_before_suit_led=True)]
    leads: list[tuple[int, ...]] = [(), *((c,) for c in _idx("9S 9H 9C")), *((c, c) for c in _idx("9S 9H 9D"))]
    for options in bases:
        for size in (2, 3, 4):
            for hand in sorted(set(itertools.combinations(TWO_DECK_HAND, size))):
                h1 = _mask(hand)
                h2 = _mask([c for c in set(hand) if hand.count(c) == 2])
                exposed = sorted({c for c in hand if ALL_CARDS[c] in EXPOSABLE})
                for bound in ([], exposed):
                    r1 = _mask(bound)
                    for lead in leads:
                        trick = ((1, lead),) if lead else ()
                        for suits_led in (0, 0b1110):
                            yield options, SeatView(options, h1, h2, r1, 0, trick, suits_led, False)


def test_two_deck_c_legal_plays_are_the_cascade() -> None:
    """R4.3, R4.5, R5.2, R5.3: the two-deck C path's legal plays (singles, pairs, two-card
    answers) equal rules.legal.cascade on every small two-deck hand and trick lead."""
    checked = 0
    for options, view in _two_deck_cases():
        mover = 2
        h1, h2, r1, r2 = [0] * 4, [0] * 4, [0] * 4, [0] * 4
        h1[mover], h2[mover], r1[mover], r2[mover] = view.h1, view.h2, view.r1, view.r2
        trick = [p for _, p in view.trick]
        leader = (mover + 3 * len(trick)) % 4 if not options.clockwise else (mover + len(trick)) % 4
        blob = _fastplay2.encode(h1, h2, r1, r2, [0] * 4, [0] * 4, (0, 0, 0, 0), trick, leader, mover, -1,
                               view.suits_led, False, options.clockwise, options.exposed_discard_before_suit_led,
                               options.discard_color_code, options.heart_values == "book")
        assert sorted(_fastplay2.legal_plays(blob)) == sorted(cascade(view)[-1][1]), (options, view)
        checked += 1
    assert checked > 1000


# ---------------------------------------------------------------------------- winners and takers

def _follower_plays(universe: Sequence[int], pair: bool) -> list[tuple[int, ...]]:
    if pair:
        return sorted(set(itertools.combinations_with_replacement(universe, 2)))
    return [(c,) for c in universe]


@pytest.mark.parametrize("led_suit", ["S", "D"])
def test_two_deck_c_trick_winner_is_winner_of_trick(led_suit: str) -> None:
    """R5.2, R5.3: for every lead (a single or a pair) and every three answers from a universe
    of three led-suit ranks and two other suits, the two-deck C path gives the lead of the next
    trick to rules.deal.winner_of_trick's winner (in ♦ a pair beats two odd cards, elsewhere
    the other way round; identical answers: the first played)."""
    options = PRESETS["online2"]
    universe = _idx(f"2{led_suit} 9{led_suit} A{led_suit} 5C 5H")
    order = _order(0, options)
    checked = 0
    for lead_rank in ("2", "9", "A"):
        lead_card = parse_card(lead_rank + led_suit).index
        for pair in (False, True):
            lead = (lead_card, lead_card) if pair else (lead_card,)
            answers = _follower_plays(universe, pair)
            for a1, a2, a3 in itertools.product(answers, repeat=3):
                plays = list(zip(order, (lead, a1, a2, a3), strict=True))
                h1, h2 = [0] * 4, [0] * 4
                last = order[3]
                h1[last] = _mask(a3)
                h2[last] = _mask([a3[0]]) if len(a3) == 2 and a3[0] == a3[1] else 0
                for s in order[:3]:
                    h1[s] = 1 << parse_card("3C").index  # every hand keeps a card: the deal goes on
                h1[last] |= 1 << parse_card("3C").index
                blob = _fastplay2.encode(h1, h2, [0] * 4, [0] * 4, [0] * 4, [0] * 4, (0, 0, 0, 0),
                                       [lead, a1, a2], 0, last, -1, 0, False, options.clockwise,
                                       options.exposed_discard_before_suit_led, options.discard_color_code,
                                       False)
                if a3 not in _fastplay2.legal_plays(blob):
                    continue  # the last answer is not legal from that hand (it holds 3C too)
                after = _fastplay2.play(blob, a3)
                assert _fastplay2.turn(after)[0] == winner_of_trick(plays), plays
                checked += 1
    assert checked > 1000


@pytest.mark.parametrize("decks", [1, 2])
def test_c_penalty_taker_is_the_first_offender(decks: int) -> None:
    """R5.2 ``discard_color=penalty``: for every legal last answer of the mover's small hands,
    after a heart lead answered by an offender or not, the C path gives the trick's points to the
    first offender as rules.legal.offends judges it, else to the winner."""
    base = PRESETS["online"] if decks == 1 else PRESETS["online2"]
    options = base.replace(discard_color="penalty")
    order = _order(0, options)
    lead = parse_card("5H").index
    earlier = [parse_card(c).index for c in ("7H", "KH")]
    mover_universe = _idx("2H 4D 8D 3C QS") if decks == 1 else _idx("2H 4D 4D 3C QS")
    checked = 0
    for second in (parse_card("6D").index, parse_card("7S").index, earlier[0]):
        for size in (1, 2, 3):
            for hand in sorted(set(itertools.combinations(mover_universe, size))):
                mover = order[3]
                # the other seats keep a club each (two decks: no card more than twice)
                h1 = [1 << parse_card(c).index for c in ("2C", "2C", "4C", "4C")]
                h1[mover] = _mask(hand) | (1 << parse_card("2C").index if decks == 1 else 0)
                if decks == 1:
                    n = h1[mover].bit_count()
                    used = _mask([*mover_universe, lead, second, *earlier])
                    h1 = _fill([h if s == mover else 0 for s, h in enumerate(h1)],
                               [n if s == mover else n - 1 for s in range(4)], used)
                h2 = [0] * 4
                h2[mover] = _mask([c for c in set(hand) if hand.count(c) == 2])
                # the second seat may itself have offended (R5.2: the first offender takes)
                second_view = SeatView(options, _mask([second, earlier[1]]), 0, 0, 0,
                                       ((order[0], (lead,)),), 0, False)
                first_offender = order[1] if offends(second_view, (second,)) else -1
                trick_plays = [(order[0], (lead,)), (order[1], (second,)), (order[2], (earlier[1],))]
                view = SeatView(options, h1[mover], h2[mover], 0, 0, tuple(trick_plays), 0, False)
                for play in cascade(view)[-1][1]:
                    if decks == 1:
                        pos = fast.encode_parts(options, hands=h1, restricted=[0] * 4, captured=[[], [], [], []],
                                                exposures=[], dealt=DEALT,
                                                trick=[p[0] for _, p in trick_plays], leader=order[0],
                                                turn=mover, led=1, offender=first_offender)
                        raw = pos.play(play[0]).raw_scores()
                    else:
                        blob = _fastplay2.encode(h1, h2, [0] * 4, [0] * 4, [0] * 4, [0] * 4, (0, 0, 0, 0),
                                               [p for _, p in trick_plays], order[0], mover, first_offender,
                                               0, False, options.clockwise, False, options.discard_color_code,
                                               False)
                        raw = _fastplay2.raw_scores(_fastplay2.play(blob, play))
                    plays = [*trick_plays, (mover, play)]
                    taker = first_offender
                    if taker < 0 and offends(view, play):
                        taker = mover
                    if taker < 0:
                        taker = winner_of_trick(plays)
                    takers = [s for s in range(4) if raw[s] != 0]
                    assert takers == [taker], (hand, second, play, raw)
                    checked += 1
    assert checked > 20


# ---------------------------------------------------------------------------- scoring

def _heart_patterns() -> list[list[int]]:
    """Who takes each heart (2H … AH in order): all to one seat (满红), ♥A apart, spread."""
    patterns = [[s] * 13 for s in range(4)]
    patterns = [patterns[0], patterns[3], [1] * 12 + [2], [k % 4 for k in range(13)], [-1] * 13]
    return patterns


def _captured(hearts: list[int], specials: dict[Card, int], extra: int = 0) -> list[list[Card]]:
    taken: list[list[Card]] = [[], [], [], []]
    for h, s in zip(HEARTS, hearts, strict=True):
        if s >= 0:
            taken[s].append(h)
    for c, s in specials.items():
        if s >= 0:
            taken[s].append(c)
    return taken


@pytest.mark.parametrize("preset", ["online", "tournament", pytest.param("pig_sheep", marks=pytest.mark.slow),
                                    pytest.param("classic", marks=pytest.mark.slow)])
def test_one_deck_c_raw_scores_are_rules_raw_scores(preset: str) -> None:
    """R4.2, R6, R6.1, R10: the C path's raw scores equal rules.scoring.raw_scores for every taker
    of ♠Q ♦J ♣10 (or none), heart patterns with and without 满红, and every set of exposed
    special cards in the preset's kind (self-catch where the preset has it)."""
    options = PRESETS[preset]
    kind = options.usual_kind if options.players_declare else "shown"
    checked = 0
    for q, j, t in itertools.product(range(-1, 4), repeat=3):
        for hearts in _heart_patterns():
            captured = _captured(hearts, {QS: q, JD: j, TC: t})
            for n in range(5):
                for shown in itertools.combinations(EXPOSABLE, n):
                    exposures = [Exposure(Seat(k % 4), c, kind) for k, c in enumerate(shown)]
                    pos = fast.encode_parts(options, hands=[0] * 4, restricted=[0] * 4, captured=captured,
                                            exposures=exposures, dealt=DEALT, leader=0, turn=0)
                    assert pos.raw_scores() == raw_scores(options, captured, exposures, DEALT)[0]
                    checked += 1
    assert checked == 5 ** 3 * len(_heart_patterns()) * 16


def test_two_deck_c_raw_scores_are_rules_raw_scores() -> None:
    """R4.5, R6 with two decks: the C path's raw scores equal rules.scoring.raw_scores for every
    taker of each copy of ♠Q, ♣10 copies together or apart, the ♦J, heart patterns, and every
    number of exposed copies (0, 1, 2) of ♠Q and ♥A (values ×2 per exposed copy)."""
    options = PRESETS["online2"]
    checked = 0
    for (q1, q2), (t1, t2) in itertools.product(itertools.product(range(4), repeat=2), ((0, 0), (1, 2), (3, 3))):
        for j in (-1, 0, 2):
            for hearts in _heart_patterns()[:4]:
                captured = _captured(hearts, {QS: q1, JD: j, TC: t1})
                captured[q2].append(QS)
                captured[t2].append(TC)
                for n_qs, n_ah in itertools.product(range(3), repeat=2):
                    exposures = [Exposure(Seat(k), QS, "shown") for k in range(n_qs)]
                    exposures += [Exposure(Seat(k), AH, "shown") for k in range(n_ah)]
                    c1 = [_mask([c.index for c in cards]) for cards in captured]
                    c2 = [_mask([c.index for c in set(cards) if cards.count(c) == 2]) for cards in captured]
                    blob = _fastplay2.encode([0] * 4, [0] * 4, [0] * 4, [0] * 4, c1, c2, (n_qs, 0, 0, n_ah), [],
                                           0, 0, -1, 0, False, options.clockwise, False,
                                           options.discard_color_code, options.heart_values == "book")
                    assert _fastplay2.raw_scores(blob) == raw_scores(options, captured, exposures)[0]
                    checked += 1
    assert checked == 16 * 3 * 3 * 4 * 9


# ---------------------------------------------------------------------------- R4.5, two decks

@pytest.mark.parametrize("edbsl", [False, True])
@pytest.mark.parametrize("exposed", ["QS", "TC", "JD"])
@pytest.mark.parametrize("bound", [1, 2])
def test_two_deck_c_keeps_the_copy_bound_after_says(edbsl: bool, exposed: str, bound: int) -> None:
    """R4.5: East holds both copies of an exposed card, ``bound`` of them bound by R4.3, and
    discards one on a heart trick before the card's suit was led (a restricted play only under
    ``exposed_discard_before_suit_led``).  When that suit is then led, the C path lets East play
    the copy left exactly when rules.legal.bound_after says it is no longer bound."""
    options = PRESETS["online2"].replace(exposed_discard_before_suit_led=edbsl)
    x = parse_card(exposed).index
    suit = ALL_CARDS[x].suit.name[0]
    low, lead = parse_card(f"2{suit}").index, parse_card(f"9{suit}").index
    n, e, s, w = 0, 1, 2, 3  # counter-clockwise: N leads, then W, S, E
    h1 = [1 << parse_card("3C").index, (1 << x) | (1 << low), 1 << lead, 1 << parse_card("4C").index]
    if suit == "C":
        h1[n], h1[w] = 1 << parse_card("3D").index, 1 << parse_card("4D").index
    h2 = [0, 1 << x, 0, 0]
    r1 = [0, 1 << x, 0, 0]
    r2 = [0, (1 << x) if bound == 2 else 0, 0, 0]
    trick = [(parse_card("5H").index,), (parse_card("7H").index,), (parse_card("AH").index,)]
    blob = _fastplay2.encode(h1, h2, r1, r2, [0] * 4, [0] * 4, (0, 0, 0, 0), trick, n, e, -1, 0, False,
                             options.clockwise, edbsl, options.discard_color_code, False)
    view = SeatView(options, h1[e], h2[e], r1[e], r2[e], tuple(zip((n, w, s), trick, strict=True)), 0, False)
    if (x,) not in cascade(view)[-1][1]:
        assert (x,) not in _fastplay2.legal_plays(blob)  # both copies bound where R4.3 binds
        return
    after = _fastplay2.play(blob, (x,))  # South's ♥A wins and leads the card's suit
    assert _fastplay2.turn(after)[0] == s
    after = _fastplay2.play(after, (lead,))
    assert _fastplay2.turn(after)[0] == e
    left_bound = bound_after(view, x, bound, 1, 1)
    follow = SeatView(options, (1 << x) | (1 << low), 0, (1 << x) if left_bound else 0, 0, ((s, (lead,)),),
                      1 << 1, False)
    assert sorted(_fastplay2.legal_plays(after)) == sorted(cascade(follow)[-1][1])
    assert ((x,) in _fastplay2.legal_plays(after)) == (left_bound == 0)
