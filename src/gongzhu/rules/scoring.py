"""Scoring a deal (R6, R6.1, R6.2) and turning raw scores into results (R7.1–R7.4).

Everything here is a pure function of what each player took, what was exposed and (for 自得,
self-catch) who was dealt what; the played deal (:class:`gongzhu.rules.deal.Deal`) and the
table scorekeeper (``gongzhu score``) both call it, so there is one scoring rule in the code.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gongzhu.rules.cards import AH, ALL_CARDS, JD, POINT_CARDS_MASK, QS, TC, Card, Seat, Suit
from gongzhu.rules.model import Exposure
from gongzhu.rules.options import Options

__all__ = [
    "POINT_CARDS",
    "DealScore",
    "SeatScore",
    "heart_value",
    "is_point_card",
    "lifetime_factor",
    "raw_scores",
    "results",
    "round_half_away",
    "score_deal",
    "seat_scores",
    "value_factors",
]

#: R2: hearts, standard table and the ``book`` table (♥4 = −10, as the source stresses).
_HEARTS_STANDARD = {14: -50, 13: -40, 12: -30, 11: -20, 10: -10, 9: -10, 8: -10, 7: -10, 6: -10,
                    5: -10, 4: 0, 3: 0, 2: 0}
_HEARTS_BOOK = _HEARTS_STANDARD | {9: -9, 8: -8, 7: -7, 6: -6, 5: -5, 4: -10, 3: -3, 2: -2}

#: R4.5: the transformer's multiplier with two decks, by (copies exposed, copies taken).
_TC_MULT_TWO_DECKS = {(0, 1): 2, (0, 2): 4, (1, 1): 4, (1, 2): 8, (2, 1): 4, (2, 2): 16}


_QS, _JD, _TC, _AH = QS.index, JD.index, TC.index, AH.index
_HEART_BY_INDEX = {
    name: [table[c.rank] if c.suit == Suit.HEARTS else 0 for c in ALL_CARDS]
    for name, table in (("standard", _HEARTS_STANDARD), ("book", _HEARTS_BOOK))
}


def heart_value(rank: int, table: str = "standard") -> int:
    """Base value of a heart (R2)."""
    return (_HEARTS_BOOK if table == "book" else _HEARTS_STANDARD)[rank]


def is_point_card(c: Card) -> bool:
    """分牌: ♠Q, ♦J, ♣10 and every heart (R2, :data:`~gongzhu.rules.cards.POINT_CARDS_MASK`)."""
    return bool(POINT_CARDS_MASK >> c.index & 1)


#: Every point card (R2), in card order: the set the browser pages are given, since they cannot
#: ask :func:`is_point_card`.
POINT_CARDS: tuple[Card, ...] = tuple(c for c in ALL_CARDS if is_point_card(c))


@dataclass(frozen=True, slots=True)
class SeatScore:
    """One seat's R6 raw score, part by part, as :func:`raw_scores` adds it up.

    ``hearts``, ``pig`` and ``sheep`` are the values of those cards taken, with their exposure
    factors (R4.2, R4.5), 自得 (R6.1) and the signs of 满红 / 满贯 (R6 steps 4, 5) applied;
    ``transformers`` the ♣10 copies taken; ``multiplier`` the transformer's factor on their sum
    (1 without a ♣10, R6 step 6, R6.2); ``alone`` the value of a transformer taken without any
    other point card (R6 step 7, else 0).  ``raw`` is ``(hearts + pig + sheep) * multiplier``,
    or ``alone``.
    """

    hearts: int
    pig: int
    sheep: int
    transformers: int
    multiplier: int
    alone: int
    all_hearts: bool
    grand_slam: bool
    raw: int


@dataclass(frozen=True, slots=True)
class DealScore:
    """The outcome of one deal.

    ``raw`` is R6 per seat (N, E, S, W); ``result`` is R7 before any one-deck factor (what match
    totals add, R8/R10); ``final`` is R7 with the one-deck factor (records, lifetime scores).
    ``events`` lists ``(seat, name)`` for 满红 ``all_hearts``, 满贯 ``grand_slam``,
    ``transformer_alone`` and 自得 ``self_catch:<card>``.  ``parts`` is each seat's raw score
    part by part, and ``factors`` the value factor of each exposed card (R4.2, R4.5): the
    breakdown a player reads after the deal.
    """

    raw: tuple[int, int, int, int]
    result: tuple[int, int, int, int]
    final: tuple[int, int, int, int]
    events: tuple[tuple[Seat, str], ...]
    parts: tuple[SeatScore, ...] = ()
    factors: tuple[tuple[Card, int], ...] = ()


def round_half_away(numerator: int, denominator: int) -> int:
    """Integer division rounded to the nearest integer, halves away from zero (R10)."""
    q, r = divmod(abs(numerator), denominator)
    if 2 * r >= denominator:
        q += 1
    return q if numerator >= 0 else -q


def value_factors(options: Options, exposures: Iterable[Exposure]) -> dict[Card, int]:
    """The value factor of each special card (♠Q ♦J ♣10 ♥A) under ``exposures`` (R4.2): one deck,
    the exposure kind's factor f (R10: 2 for 明, 4 for 首明 …); two decks, 2**e for e exposed
    copies (R4.5); 1 for a card not exposed.  Scoring and every player's estimate use this."""
    factor = {QS: 1, JD: 1, TC: 1, AH: 1}
    copies = {QS: 0, JD: 0, TC: 0, AH: 0}
    for e in exposures:
        copies[e.card] += 1
        factor[e.card] = options.exposure_factor(e.kind) if options.decks == 1 else 2 ** copies[e.card]
    return factor


def raw_scores(
    options: Options,
    captured: Sequence[Iterable[Card]],
    exposures: Iterable[Exposure],
    dealt: Sequence[Sequence[Card]] | None = None,
) -> tuple[tuple[int, int, int, int], tuple[tuple[Seat, str], ...]]:
    """R6 raw score of each seat from the cards it took (only point cards matter).

    ``dealt`` (the hands as dealt) is needed only with ``self_catch`` (R6.1).
    """
    parts, events = seat_scores(options, captured, exposures, dealt)
    return (parts[0].raw, parts[1].raw, parts[2].raw, parts[3].raw), events


def seat_scores(
    options: Options,
    captured: Sequence[Iterable[Card]],
    exposures: Iterable[Exposure],
    dealt: Sequence[Sequence[Card]] | None = None,
) -> tuple[tuple[SeatScore, SeatScore, SeatScore, SeatScore], tuple[tuple[Seat, str], ...]]:
    """R6 for each seat, part by part (:class:`SeatScore`), and the deal's events: the one
    place the raw score is computed."""
    decks = options.decks
    exposures = list(exposures)
    factor = {c.index: f for c, f in value_factors(options, exposures).items()}
    copies_exposed = {_QS: 0, _JD: 0, _TC: 0, _AH: 0}
    for e in exposures:
        copies_exposed[e.card.index] += 1
    heart_mult = factor[_AH]
    hearts_table = _HEART_BY_INDEX[options.heart_values]
    dealt_to: dict[int, int] = {}
    if options.self_catch:
        if dealt is None:
            raise ValueError("self_catch scoring (R6.1) needs the hands as dealt")
        dealt_to = {c.index: s for s, hand in enumerate(dealt) for c in hand if c.index in factor}

    parts: list[SeatScore] = []
    events: list[tuple[Seat, str]] = []
    for s in range(4):
        seat = Seat(s)
        n_hearts = heart_sum = n_pig = n_sheep = t = 0
        for c in captured[s]:
            i = c.index
            if 13 <= i < 26:
                n_hearts += 1
                heart_sum += hearts_table[i]
            elif i == _QS:
                n_pig += 1
            elif i == _JD:
                n_sheep += 1
            elif i == _TC:
                t += 1
        took = {_QS: n_pig, _JD: n_sheep, _TC: t, _AH: 0}
        caught = set()
        if dealt_to:
            took[_AH] = sum(1 for c in captured[s] if c.index == _AH)
            caught = {i for i in (_QS, _JD, _TC, _AH) if took[i] and dealt_to[i] == s}
            events += [(seat, f"self_catch:{ALL_CARDS[i].code}") for i in (_QS, _JD, _TC, _AH) if i in caught]
        h = heart_mult * heart_sum
        if _AH in caught:  # R6.1 [interpretation]: doubles ♥A's own value only
            h += heart_mult * hearts_table[_AH]
        p = -100 * factor[_QS] * n_pig * (2 if _QS in caught else 1)
        sheep = 100 * factor[_JD] * n_sheep * (2 if _JD in caught else 1)
        all_hearts = n_hearts == 13 * decks
        if all_hearts:  # 满红: the hearts part counts positive (R6 step 4)
            h = -h
            events.append((seat, "all_hearts"))
        grand_slam = all_hearts and n_pig == decks and n_sheep == decks and t == decks
        if grand_slam:  # 满贯: the pig counts positive too (R6 step 5)
            p = -p
            events.append((seat, "grand_slam"))
        if not t:
            parts.append(SeatScore(h, p, sheep, 0, 1, 0, all_hearts, grand_slam, h + p + sheep))
            continue
        tc_self = 2 if _TC in caught else 1
        if not n_hearts and not n_pig and not n_sheep:  # transformer alone (R6 step 7)
            alone = 50 * t * factor[_TC] * tc_self
            parts.append(SeatScore(0, 0, 0, t, 1, alone, False, False, alone))
            events.append((seat, "transformer_alone"))
            continue
        if decks == 1:
            mult = 2 * factor[_TC] * tc_self
        elif grand_slam:  # R6.2 [interpretation]: ×2, doubled once more per exposed ♣10
            mult = 2 * factor[_TC]
        else:
            mult = _TC_MULT_TWO_DECKS[(copies_exposed[_TC], t)]
        parts.append(SeatScore(h, p, sheep, t, mult, 0, all_hearts, grand_slam, (h + p + sheep) * mult))
    return (parts[0], parts[1], parts[2], parts[3]), tuple(events)


def results(
    options: Options,
    raw: Sequence[int],
    pig_taker: Seat | None = None,
    sheep_taker: Seat | None = None,
) -> tuple[tuple[int, int, int, int], tuple[int, int, int, int]]:
    """R7: ``(result, final)`` from raw scores — ``result`` before and ``final`` after the
    one-deck factor.  ``pig_sheep`` scoring needs who took the pig and the sheep (R7.4)."""
    scoring = options.scoring
    if scoring == "raw":  # R7.1
        res = list(raw)
    elif scoring == "zero_sum":  # R7.2
        total = sum(raw)
        res = [round_half_away(3 * r - (total - r), 3) for r in raw]
    elif scoring == "partners":  # R7.3
        team = [raw[0] + raw[2], raw[1] + raw[3]]
        res = [round_half_away(team[s % 2] - team[1 - s % 2], 2) for s in range(4)]
    else:  # R7.4 pig_sheep
        if pig_taker is None or sheep_taker is None:
            raise ValueError("pig_sheep scoring (R7.4) needs who took the pig and the sheep")
        members = {int(pig_taker), int(sheep_taker)}
        t1 = sum(raw[s] for s in members)
        t2 = sum(raw) - t1
        res = [
            round_half_away(t1 - t2, len(members)) if s in members
            else round_half_away(t2 - t1, 4 - len(members))
            for s in range(4)
        ]
    f = lifetime_factor(options)
    final = [r * f for r in res]
    return (res[0], res[1], res[2], res[3]), (final[0], final[1], final[2], final[3])


def lifetime_factor(options: Options) -> int:
    """The factor from a deal's result to its lifetime-scored (生涯计分) ``final`` (R7, R10): the
    one-deck factor for the online scorings (R7.2, R7.3, R7.4 "scored as R7.3"), else 1."""
    return options.one_deck_factor if options.decks == 1 and options.scoring != "raw" else 1


def score_deal(
    options: Options,
    captured: Sequence[Iterable[Card]],
    exposures: Iterable[Exposure],
    dealt: Sequence[Sequence[Card]] | None = None,
) -> DealScore:
    """R6 then R7 for one deal, from the cards each seat took."""
    captured = [list(c) for c in captured]
    exposures = list(exposures)
    parts, events = seat_scores(options, captured, exposures, dealt)
    raw = (parts[0].raw, parts[1].raw, parts[2].raw, parts[3].raw)
    pig = next((Seat(s) for s in range(4) if QS in captured[s]), None)
    sheep = next((Seat(s) for s in range(4) if JD in captured[s]), None)
    result, final = results(options, raw, pig, sheep)
    exposed = {e.card for e in exposures}
    factors = tuple((c, f) for c, f in value_factors(options, exposures).items() if c in exposed)
    return DealScore(raw, result, final, events, parts, factors)
