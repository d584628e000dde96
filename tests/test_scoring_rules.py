"""R6, R6.1, R6.2, R7: scoring a deal and turning raw scores into results.

The scoring functions of ``gongzhu.rules.scoring`` are called directly with what each player
took, so every example of the rule book is checked on its own.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from gongzhu.rules import (
    ALL_CARDS,
    Card,
    Exposure,
    Options,
    Seat,
    parse_card,
    parse_cards,
)
from gongzhu.rules.options import ExposureRule
from gongzhu.rules.scoring import (
    heart_value,
    is_point_card,
    raw_scores,
    results,
    round_half_away,
    score_deal,
    seat_scores,
)
from helpers.deals import complete_hands

N, E, S, W = Seat.N, Seat.E, Seat.S, Seat.W
RAW = Options(scoring="raw")
RAW2 = Options(decks=2, auto_expose_fourth=False, scoring="raw")
ALL_HEARTS = " ".join(r + "H" for r in "23456789TJQKA")
ALL_POINTS = f"QS JD TC {ALL_HEARTS}"


def ex(*items: str) -> list[Exposure]:
    """Exposures written ``"E:AH:shown"``."""
    out = []
    for item in items:
        seat, card, kind = item.split(":")
        out.append(Exposure(Seat.parse(seat), parse_card(card), kind))
    return out


def raw_of(
    options: Options,
    took: str,
    exposures: Sequence[Exposure] = (),
    dealt: Sequence[Sequence[Card]] | None = None,
    seat: Seat = N,
) -> int:
    """R6 raw score of ``seat`` when it took ``took`` (and nobody else took anything)."""
    captured: list[list[Card]] = [[], [], [], []]
    captured[seat] = parse_cards(took)
    raw, _ = raw_scores(options, captured, exposures, dealt)
    return raw[seat]


def events_of(options: Options, took: str, exposures: Sequence[Exposure] = (),
              dealt: Sequence[Sequence[Card]] | None = None) -> list[str]:
    captured: list[list[Card]] = [parse_cards(took), [], [], []]
    _, events = raw_scores(options, captured, exposures, dealt)
    return [name for seat, name in events if seat == N]


# ----------------------------------------------------------------------------- R2 values


@pytest.mark.parametrize(
    ("rank", "standard", "book"),
    [("A", -50, -50), ("K", -40, -40), ("Q", -30, -30), ("J", -20, -20), ("T", -10, -10),
     ("9", -10, -9), ("8", -10, -8), ("7", -10, -7), ("6", -10, -6), ("5", -10, -5),
     ("4", 0, -10), ("3", 0, -3), ("2", 0, -2)],
)
def test_heart_values(rank: str, standard: int, book: int) -> None:
    """R2: the standard and the book heart tables (♥4 is −10 in the book)."""
    c = parse_card(rank + "H")
    assert heart_value(c.rank) == standard
    assert heart_value(c.rank, "standard") == standard
    assert heart_value(c.rank, "book") == book
    assert raw_of(RAW, rank + "H") == standard
    assert raw_of(RAW.replace(heart_values="book"), rank + "H") == book


@pytest.mark.parametrize("table", ["standard", "book"])
def test_all_hearts_total_200(table: str) -> None:
    """R2: all 13 hearts together are −200 (both tables)."""
    assert sum(heart_value(r, table) for r in range(2, 15)) == -200


def test_point_cards() -> None:
    """R2: ♠Q ♦J ♣10 and every heart, 16 cards."""
    points = [c.code for c in ALL_CARDS if is_point_card(c)]
    assert len(points) == 16
    assert {"QS", "JD", "TC", "AH", "2H"} <= set(points)
    assert raw_of(RAW, "AS KS AD KD AC 2C 3D") == 0  # non-point cards count for nothing


# ----------------------------------------------------------------------------- R6 one deck


def test_r6_worked_example_pig_hearts_transformer() -> None:
    """R6 example: ♠Q, hearts 6 8 10 J with ♥A exposed by someone, ♣10 not exposed:
    (−100 + (−20 × 3) + (−40)) × 2 = −400."""
    assert raw_of(RAW, "QS 6H 8H TH JH TC", ex("E:AH:shown")) == -400


def test_r6_worked_example_part_by_part() -> None:
    """The same example as the breakdown a player reads: hearts −30 − 20 doubled by the exposed
    ♥A, the pig, the transformer's ×2 on their sum; the exposed ♥A's factor is listed."""
    captured: list[list[Card]] = [parse_cards("QS 6H 8H TH JH TC"), [], parse_cards("JD"), parse_cards("2H")]
    parts, _ = seat_scores(RAW, captured, ex("E:AH:shown"))
    n = parts[N]
    assert (n.hearts, n.pig, n.sheep, n.transformers, n.multiplier, n.alone, n.raw) == (-100, -100, 0, 1, 2, 0, -400)
    assert (parts[S].sheep, parts[S].multiplier, parts[S].raw) == (100, 1, 100)
    assert parts[W].hearts == 0 and parts[W].raw == 0  # ♥2 is a point card worth 0
    score = score_deal(RAW, captured, ex("E:AH:shown"))
    assert score.parts == parts and score.factors == ((parse_card("AH"), 2),)
    alone, _ = seat_scores(RAW, [parse_cards("TC"), [], [], []], ex("N:TC:shown"))
    assert (alone[N].alone, alone[N].multiplier, alone[N].raw) == (100, 1, 100)  # exposed: +100 (R4.2)


def test_r6_worked_example_grand_slam_1600() -> None:
    """R6 example: grand slam with ♠Q exposed, ♥A exposed, ♦J self-caught (R6.1), ♣10 not
    exposed: (200 + 400 + 200) × 2 = +1600."""
    opts = Options(scoring="raw", self_catch=True)
    dealt = complete_hands({"N": "JD", "E": "QS AH", "S": "TC"})
    exposures = ex("E:QS:shown", "E:AH:shown")
    assert raw_of(opts, ALL_POINTS, exposures, dealt) == 1600
    assert set(events_of(opts, ALL_POINTS, exposures, dealt)) == {
        "all_hearts", "grand_slam", "self_catch:JD",
    }


@pytest.mark.parametrize(
    ("took", "score"),
    [
        ("QS", -100),
        ("JD", 100),
        ("QS JD", 0),
        ("TC", 50),  # transformer alone
        ("TC 2H 3H 4H", 0),  # other point cards summing to 0: × 2 = 0, not +50
        ("TC JD", 200),
        ("TC QS", -200),
        ("TC QS JD", 0),
        ("TC AH", -100),
        ("AH KH QH JH", -140),
        (ALL_HEARTS, 200),  # 满红
        (f"{ALL_HEARTS} TC", 400),
        (f"{ALL_HEARTS} QS", 100),
        (f"{ALL_HEARTS} JD", 300),
        (f"{ALL_HEARTS} QS JD", 200),  # not all point cards: the pig stays negative
        (ALL_POINTS, 800),  # 满贯: (100 + 100 + 200) × 2
        (f"QS JD {ALL_HEARTS.replace(' AH', '')}", -150),  # twelve hearts: −150, not 满红
        (f"TC {ALL_HEARTS.replace(' AH', '')}", -300),
    ],
)
def test_r6_plain(took: str, score: int) -> None:
    """R6 steps 1–7 with nothing exposed."""
    assert raw_of(RAW, took) == score


def test_r6_events() -> None:
    """R6: 满红, 满贯 and transformer-alone are reported as events."""
    assert events_of(RAW, "TC") == ["transformer_alone"]
    assert events_of(RAW, ALL_HEARTS) == ["all_hearts"]
    assert events_of(RAW, ALL_POINTS) == ["all_hearts", "grand_slam"]
    assert events_of(RAW, "TC 2H") == []


@pytest.mark.parametrize(
    ("exposure", "kind", "factor"),
    [
        ("standard", "shown", 2),
        ("standard", "auto", 2),  # the automatic fourth scores as shown
        ("first_card", "first", 4),
        ("first_card", "shown", 2),
        ("hidden", "hidden", 2),
        ("sell_x4_x2", "shown", 4),
        ("sell_x4_x2", "hidden", 2),
        ("sell_x4_x2", "auto", 4),
    ],
)
def test_every_exposure_factor(exposure: ExposureRule, kind: str, factor: int) -> None:
    """R4.2, R4.4, R10: with factor f, ♠Q = −100·f, ♦J = +100·f, ♥A multiplies every heart by f
    (满红 +200·f), ♣10 multiplies by 2·f and is worth 50·f alone."""
    opts = Options(exposure=exposure, scoring="raw", auto_expose_fourth=False)
    assert raw_of(opts, "QS", ex(f"E:QS:{kind}")) == -100 * factor
    assert raw_of(opts, "JD", ex(f"E:JD:{kind}")) == 100 * factor
    assert raw_of(opts, "KH 5H", ex(f"E:AH:{kind}")) == -50 * factor
    assert raw_of(opts, "AH", ex(f"S:AH:{kind}")) == -50 * factor
    assert raw_of(opts, ALL_HEARTS, ex(f"E:AH:{kind}")) == 200 * factor
    assert raw_of(opts, "TC", ex(f"E:TC:{kind}")) == 50 * factor
    assert raw_of(opts, "TC JD", ex(f"E:TC:{kind}")) == 100 * 2 * factor
    assert raw_of(opts, "TC 2H 3H", ex(f"E:TC:{kind}")) == 0
    # An exposure of one card does not change another card's value.
    assert raw_of(opts, "QS", ex(f"E:JD:{kind}")) == -100
    assert raw_of(opts, "TC QS", ex(f"E:AH:{kind}")) == -200


def test_exposures_combine() -> None:
    """R4.2: exposed ♠Q and exposed ♣10 together: −200 × 4 = −800; grand slam with everything
    shown: (200 + 200 + 400) × 4 = +3200."""
    every = ex("N:QS:shown", "E:JD:shown", "S:TC:shown", "W:AH:shown")
    assert raw_of(RAW, "QS TC", every) == -800
    assert raw_of(RAW, ALL_POINTS, every) == 3200
    assert raw_of(RAW, "JD AH TC", every) == (200 - 100) * 4


# ----------------------------------------------------------------------------- R6.1


@pytest.mark.parametrize(
    ("card", "took", "plain", "caught"),
    [
        ("QS", "QS", -100, -200),
        ("JD", "JD", 100, 200),
        ("TC", "TC", 50, 100),  # alone-value doubled
        ("TC", "TC JD", 200, 400),  # multiplier doubled: 100 × 4
        ("AH", "AH", -50, -100),  # ♥A's own value doubled only
        ("AH", "AH KH", -90, -140),
    ],
)
def test_self_catch(card: str, took: str, plain: int, caught: int) -> None:
    """R6.1 自得 [interpretation]: a special card dealt to the player and taken back scores × 2
    on top of its value; ♥A doubles its own value only, ♣10 doubles multiplier and alone-value."""
    opts = Options(scoring="raw", self_catch=True)
    own = complete_hands({"N": card})
    other = complete_hands({"E": card})
    assert raw_of(opts, took, dealt=own) == caught
    assert raw_of(opts, took, dealt=other) == plain  # taken from someone else: no bonus
    assert raw_of(RAW, took, dealt=own) == plain  # option off
    assert f"self_catch:{card}" in events_of(opts, took, dealt=own)
    assert events_of(opts, took, dealt=other) == [e for e in events_of(RAW, took)]


def test_self_catch_with_exposure() -> None:
    """R6.1: on top of the exposed (shown ×2, 首明 ×4) value."""
    opts = Options(scoring="raw", self_catch=True, exposure="first_card",
                   auto_expose_fourth=False)
    own = complete_hands({"N": "QS JD TC"})
    assert raw_of(opts, "QS", ex("N:QS:shown"), own) == -400
    assert raw_of(opts, "QS", ex("N:QS:first"), own) == -800
    assert raw_of(opts, "JD", ex("N:JD:first"), own) == 800
    assert raw_of(opts, "TC", ex("N:TC:first"), own) == 400


def test_self_catch_with_all_hearts_and_grand_slam() -> None:
    """R6.1 with R6 steps 4–5 [interpretation, the engine's choice]: the self-caught extra is
    added before the sign flips, so 满红 with a self-caught ♥A is +250 and a self-caught ♠Q in a
    grand slam counts +200."""
    opts = Options(scoring="raw", self_catch=True)
    own_ah = complete_hands({"N": "AH"})
    assert raw_of(opts, ALL_HEARTS, dealt=own_ah) == 250
    own_qs = complete_hands({"N": "QS"})
    assert raw_of(opts, ALL_POINTS, dealt=own_qs) == (200 + 100 + 200) * 2


def test_self_catch_needs_dealt_hands() -> None:
    """R6.1: self-catch scoring needs the dealt hands."""
    with pytest.raises(ValueError, match="self_catch"):
        raw_scores(Options(self_catch=True), [[], [], [], []], [])


# ----------------------------------------------------------------------------- R4.5 / R6.2


def test_r45_check_examples() -> None:
    """R4.5 check: both ♣10, both ♥A, both ♠Q exposed.  ♥A ♣10 ♣10 → (−50 × 4) × 16 = −3200;
    ♠Q ♠Q ♣10 ♣10 → (−400 × 2) × 16 = −12800."""
    exposures = ex("N:TC:shown", "E:TC:shown", "N:AH:shown", "S:AH:shown",
                   "W:QS:shown", "W:QS:shown")
    assert raw_of(RAW2, "AH TC TC", exposures) == -3200
    assert raw_of(RAW2, "QS QS TC TC", exposures) == -12800


@pytest.mark.parametrize(
    ("exposed", "taken", "mult", "alone"),
    [
        (0, 1, 2, 50), (0, 2, 4, 100),
        (1, 1, 4, 100), (1, 2, 8, 200),
        (2, 1, 4, 200), (2, 2, 16, 400),
    ],
)
def test_two_deck_transformer_table(exposed: int, taken: int, mult: int, alone: int) -> None:
    """R4.5: the ♣10 multiplier by (copies exposed, copies taken), and the alone value (+50 each,
    +100 each if one copy was exposed, +200 each if both)."""
    exposures = ex(*(["E:TC:shown"] * exposed))
    tcs = " ".join(["TC"] * taken)
    assert raw_of(RAW2, f"{tcs} JD", exposures) == 100 * mult
    assert raw_of(RAW2, f"{tcs} QS KH", exposures) == -140 * mult
    assert raw_of(RAW2, tcs, exposures) == alone


@pytest.mark.parametrize(
    ("card", "exposed", "one", "two"),
    [
        ("QS", 0, -100, -200), ("QS", 1, -200, -400), ("QS", 2, -400, -800),
        ("JD", 0, 100, 200), ("JD", 1, 200, 400), ("JD", 2, 400, 800),
    ],
)
def test_two_deck_pig_and_sheep(card: str, exposed: int, one: int, two: int) -> None:
    """R4.5: one copy exposed → each copy ×2; both exposed → each ×4."""
    exposures = ex(*([f"S:{card}:shown"] * exposed))
    assert raw_of(RAW2, card, exposures) == one
    assert raw_of(RAW2, f"{card} {card}", exposures) == two


@pytest.mark.parametrize(("exposed", "factor"), [(0, 1), (1, 2), (2, 4)])
def test_two_deck_hearts(exposed: int, factor: int) -> None:
    """R4.5/R6.2: ♥A one exposed → hearts ×2, both → ×4; all 26 hearts (−400 in all) give 满红
    +400, +800, +1600."""
    exposures = ex(*(["S:AH:shown"] * exposed))
    assert raw_of(RAW2, "AH KH 2H 9H", exposures) == -100 * factor
    assert raw_of(RAW2, ALL_HEARTS, exposures) == -200 * factor  # 13 of 26: no 满红
    assert raw_of(RAW2, f"{ALL_HEARTS} {ALL_HEARTS}", exposures) == 400 * factor


@pytest.mark.parametrize(
    ("exposures", "score"),
    [
        ((), 1600),  # R6.2 [interpretation]: (200 + 200 + 400) × 2
        (("N:TC:shown",), 3200),  # each exposed ♣10 doubles once more
        (("N:TC:shown", "E:TC:shown"), 6400),
        (("N:QS:shown",), (400 + 200 + 400) * 2),  # P, S, H exposure-adjusted
        (("N:AH:shown", "N:AH:shown"), (200 + 200 + 1600) * 2),
    ],
)
def test_two_deck_grand_slam(exposures: tuple[str, ...], score: int) -> None:
    """R6.2 [interpretation]: 满贯 with two decks = (P + S + H) × 2, P S H positive and
    exposure-adjusted; 1600 with nothing exposed."""
    took = f"{ALL_POINTS} {ALL_POINTS}"
    assert raw_of(RAW2, took, ex(*exposures)) == score
    assert "grand_slam" in events_of(RAW2, took, ex(*exposures))


def test_two_deck_missing_one_copy_is_not_a_slam() -> None:
    """R6.2: 满贯 needs all 32 point cards."""
    took = f"{ALL_POINTS} {ALL_HEARTS} QS JD"  # only one ♣10
    assert "grand_slam" not in events_of(RAW2, took)
    # 满红 +400, pig −200, sheep +200, one ♣10 unexposed ×2.
    assert raw_of(RAW2, took) == (400 - 200 + 200) * 2


# ----------------------------------------------------------------------------- R7


def test_round_half_away() -> None:
    """R10: every division in R7 rounds to the nearest integer, halves away from zero."""
    cases = {(5, 2): 3, (-5, 2): -3, (7, 2): 4, (-7, 2): -4, (1, 2): 1, (-1, 2): -1,
             (1, 3): 0, (2, 3): 1, (-1, 3): 0, (-2, 3): -1, (0, 3): 0, (6, 3): 2, (-6, 3): -2,
             (-880, 3): -293, (880, 3): 293}
    for (num, den), value in cases.items():
        assert round_half_away(num, den) == value, (num, den)


def test_r71_raw() -> None:
    """R7.1: raw results, no one-deck factor."""
    assert results(RAW, (-120, -280, 0, 160)) == ((-120, -280, 0, 160), (-120, -280, 0, 160))


def test_r72_source_example() -> None:
    """R7.2: raws −120 −280 0 160 → −80 −293 80 293 → × 12 → −960 −3516 960 3516 (rounding
    before × 12)."""
    result, final = results(Options(), (-120, -280, 0, 160))
    assert result == (-80, -293, 80, 293)
    assert final == (-960, -3516, 960, 3516)


def test_r72_two_decks_no_factor_and_factor_off() -> None:
    """R7.2: no × 12 with two decks, nor with one_deck_factor=1."""
    result, final = results(Options(decks=2, auto_expose_fourth=False), (-120, -280, 0, 160))
    assert result == final == (-80, -293, 80, 293)
    result, final = results(Options(one_deck_factor=1), (-120, -280, 0, 160))
    assert result == final == (-80, -293, 80, 293)


def test_r73_source_example() -> None:
    """R7.3: raws −190 50 −10 0 → N–S −125, E–W 125 → × 12 → −1500 1500 −1500 1500."""
    result, final = results(Options(scoring="partners"), (-190, 50, -10, 0))
    assert result == (-125, 125, -125, 125)
    assert final == (-1500, 1500, -1500, 1500)


def test_r73_second_example_no_pooled_all_hearts() -> None:
    """R7.3: East took ♥A 6 9 7 10 (−90), West took ♥2 3 4 5 8 J Q K and ♣10 (−220): the team
    scores −310, not 满红 — each player is scored on their own."""
    opts = Options(scoring="partners")
    captured = [[], parse_cards("AH 6H 9H 7H TH"), [],
                parse_cards("2H 3H 4H 5H 8H JH QH KH TC")]
    raw, events = raw_scores(opts, captured, [])
    assert raw == (0, -90, 0, -220)
    assert raw[E] + raw[W] == -310
    assert all(name != "all_hearts" for _, name in events)
    score = score_deal(opts, captured, [])
    assert score.result == (155, -155, 155, -155)
    assert score.final == (1860, -1860, 1860, -1860)


def test_r73_rounding_halves() -> None:
    """R7.3 with an odd team difference: halves away from zero on both sides."""
    result, _ = results(Options(scoring="partners"), (-15, 0, 0, 0))
    assert result == (-8, 8, -8, 8)


def test_r74_two_against_two() -> None:
    """R7.4 猪羊一家: pig taker and sheep taker form one team, scored as R7.3 (× 12)."""
    opts = Options(scoring="pig_sheep", exposure="none", auto_expose_fourth=False)
    result, final = results(opts, (-100, 100, -60, -140), pig_taker=N, sheep_taker=E)
    # T1 = N + E = 0, T2 = S + W = −200: (T1 − T2) / 2 = 100.
    assert result == (100, 100, -100, -100)
    assert final == (1200, 1200, -1200, -1200)
    # The same through score_deal, from the cards taken.
    captured = [parse_cards("QS"), parse_cards("JD"), parse_cards("KH 2H 9H"),
                parse_cards("AH QH JH 8H TH 7H 6H 5H")]
    score = score_deal(opts, captured, [])
    assert score.raw == (-100, 100, -50, -150)
    assert score.result == (100, 100, -100, -100)


def test_r74_one_against_three() -> None:
    """R7.4 [interpretation]: one player took both: they get T1 − T2, each of the three
    (T2 − T1) / 3, rounded as R7.2."""
    opts = Options(scoring="pig_sheep", exposure="none", auto_expose_fourth=False)
    result, final = results(opts, (0, -50, -40, -30), pig_taker=N, sheep_taker=N)
    assert result == (120, -40, -40, -40)
    assert final == (1440, -480, -480, -480)
    result, _ = results(opts, (0, -50, -40, -10), pig_taker=N, sheep_taker=N)
    assert result == (100, -33, -33, -33)  # −100 / 3 rounds to −33
    result, _ = results(opts, (-100, 0, 0, 50), pig_taker=W, sheep_taker=W)
    assert result == (-50, -50, -50, 150)  # T1 − T2 = 50 − (−100) = 150
