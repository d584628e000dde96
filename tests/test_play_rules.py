"""R4.3, R4.5, R5.1–R5.3: legal plays, trick winners, refusals, undo.

Hands are written out in full so every legal set can be checked by eye.  Play direction is
counter-clockwise unless said otherwise: N → W → S → E (R1).
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from gongzhu.rules import (
    JD,
    QS,
    TC,
    CardError,
    Deal,
    IllegalPlayError,
    Options,
    Phase,
    Seat,
    parse_cards,
)
from gongzhu.rules.options import Direction, ExposureRule, FirstLead
from helpers.deals import (
    HANDS_A,
    HANDS_B,
    SOURCE_EXAMPLE,
    TWO_DECK_OPTS,
    complete_hands,
    legal,
    make_deal,
    play_seq,
    snapshot,
    two_deck_deal,
)

N, E, S, W = Seat.N, Seat.E, Seat.S, Seat.W

def cards_text(text: str) -> set[str]:
    return {c.code for c in parse_cards(text)}


def hand_text(deal: Deal, seat: Seat) -> set[str]:
    return {c.code for c in deal.hand(seat)}


def refused(deal: Deal, play: Any, words: list[str], seat: Seat | None = None) -> str:
    """Assert that ``play`` is refused with a message containing ``words`` and that nothing
    changed; return the message."""
    before = snapshot(deal)
    assert not deal.can_play(play, seat)
    with pytest.raises(IllegalPlayError) as info:
        deal.play(play, seat)
    message = str(info.value)
    for word in words:
        assert word in message, message
    assert snapshot(deal) == before
    with pytest.raises(IllegalPlayError):
        deal.verify_play(play, seat)
    assert snapshot(deal) == before
    return message


# ----------------------------------------------------------------------------- R5.1 first lead


def test_first_lead_club2_must() -> None:
    """R5.1 club2_must: the holder of ♣2 leads, and must lead ♣2."""
    deal = make_deal(Options(), HANDS_A)
    assert deal.phase == Phase.PLAY
    assert deal.turn == N and deal.leader == N
    assert legal(deal) == {"2C"}
    refused(deal, "3C", ["first lead", "♣2", "R5.1"])
    deal.play("2C", N)
    assert deal.turn == W  # ccw: N → W
    assert legal(deal) == {"4C", "5C", "6C", "TC"}


@pytest.mark.parametrize("first_lead", ["club2_any", "spade3_any"])
def test_first_lead_any(first_lead: FirstLead) -> None:
    """R5.1 club2_any / spade3_any: the holder of ♣2 / ♠3 (here both North) leads anything."""
    deal = make_deal(Options(first_lead=first_lead), HANDS_A)
    assert deal.turn == N
    assert legal(deal) == cards_text(HANDS_A["N"])


def test_first_lead_spade3_holder() -> None:
    """R5.1 spade3_any: the holder of ♠3 leads, not the holder of ♣2."""
    deal = make_deal(Options(first_lead="spade3_any"), HANDS_B)
    assert deal.turn == N  # N holds ♠3 and ♣2
    hands = dict(HANDS_B)
    hands["N"], hands["W"] = HANDS_B["W"], HANDS_B["N"]
    deal = make_deal(Options(first_lead="spade3_any"), hands)
    assert deal.turn == W
    assert legal(deal) == cards_text(HANDS_B["N"])


@pytest.mark.parametrize("first_lead", ["club2_must", "club2_any", "spade3_any"])
def test_later_deals_led_by_previous_pig_taker(first_lead: FirstLead) -> None:
    """R5.1: in every later deal the previous pig taker leads, any card."""
    deal = make_deal(Options(first_lead=first_lead), HANDS_A, previous_pig_taker=E)
    assert deal.turn == E and deal.leader == E
    assert legal(deal) == cards_text(HANDS_A["E"])


@pytest.mark.parametrize(
    ("first_receiver", "direction", "n_pos", "s_pos", "leader"),
    [
        (N, "ccw", 0, 0, N),  # N's card 0 is dealt before S's card 0
        (S, "ccw", 0, 0, S),
        (N, "ccw", 1, 0, S),  # order N W S E: S's card 0 comes before N's card 1
        (N, "cw", 1, 0, S),
        (E, "ccw", 0, 0, N),  # order E N W S
        (W, "cw", 0, 0, N),  # order W N E S
        (W, "ccw", 0, 0, S),  # order W S E N
    ],
)
def test_two_decks_first_lead_goes_to_first_receiver_of_club2(
    first_receiver: Seat, direction: Direction, n_pos: int, s_pos: int, leader: Seat
) -> None:
    """R5.1 two decks: the player who *received* the first ♣2 in dealing order leads, and the
    lead must contain a ♣2."""
    n_hand = ["3C"] * n_pos + ["2C"]
    s_hand = ["4C"] * s_pos + ["2C"]
    hands = complete_hands({"N": " ".join(n_hand), "S": " ".join(s_hand)}, decks=2)
    opts = Options(decks=2, direction=direction, auto_expose_fourth=False)
    deal = Deal(opts, hands, first_receiver=first_receiver)
    for seat in Seat:
        deal.declare(seat)
    assert deal.turn == leader
    assert legal(deal) == {"2C"}
    other = next(c for c in deal.hand(leader) if c.code != "2C")
    refused(deal, other, ["must contain ♣2", "R5.1"])


def test_two_decks_club2_pair_may_lead() -> None:
    """R5.1: with both ♣2 the lead may be the single or the pair ♣2♣2."""
    deal = make_deal(Options(decks=2, auto_expose_fourth=False), {"W": "2C 2C 3C 3C"})
    assert deal.turn == W
    assert legal(deal) == {"2C", "2C 2C"}
    deal.play(["2C", "2C"])
    assert deal.current_trick == [(W, tuple(parse_cards("2C 2C")))]


# ----------------------------------------------------------------------------- R5.2 following


def test_follow_suit_and_discard() -> None:
    """R5.2: follow suit if you can; if you cannot, any card; the highest of the led suit wins;
    discards never win; the winner leads next."""
    deal = make_deal(Options(), HANDS_A, previous_pig_taker=N)
    assert legal(deal) == cards_text(HANDS_A["N"])
    deal.play("3S")
    assert deal.turn == W
    assert legal(deal) == {"5S", "9S"}
    refused(deal, "TC", ["spade was led", "follow suit", "♠5", "♠9", "R5.2"])
    deal.play("9S")
    assert deal.turn == S
    assert legal(deal) == cards_text(HANDS_A["S"])  # void in spades: anything
    deal.play("AC")  # a high club, discarded
    assert deal.turn == E
    assert legal(deal) == cards_text("2S 6S 7S 8S TS JS KS AS")
    deal.play("2S")
    (trick,) = deal.tricks
    assert trick.leader == N
    assert trick.winner == W and trick.taker == W
    assert [(s, [c.code for c in p]) for s, p in trick.plays] == [
        (N, ["3S"]), (W, ["9S"]), (S, ["AC"]), (E, ["2S"]),
    ]
    assert deal.turn == W and deal.leader == W
    assert deal.current_trick == []
    assert deal.suits_led == [parse_cards("2S")[0].suit]


def test_clockwise_order() -> None:
    """R1 direction=cw: N → E → S → W."""
    deal = make_deal(Options(direction="cw"), HANDS_A, previous_pig_taker=N)
    deal.play("3S")
    assert deal.turn == E
    deal.play("AS")
    assert deal.turn == S
    deal.play("7C")
    assert deal.turn == W
    deal.play("5S")
    assert deal.tricks[0].winner == E
    assert deal.turn == E


def test_point_cards_go_to_the_winner() -> None:
    """R5.2: the winner takes all point cards of the trick (including a discarded ♠Q)."""
    deal = make_deal(Options(), HANDS_A, previous_pig_taker=W)
    play_seq(deal, "4H JH 6H 2H")  # W, S, E, N: S wins with ♥J
    assert deal.tricks[0].winner == S
    assert {c.code for c in deal.captured(S)} == {"4H", "JH", "6H", "2H"}
    play_seq(deal, "KH TH 3H 5H")  # S leads ♥K; E, N, W follow
    assert deal.tricks[1].winner == S
    assert {c.code for c in deal.captured(S)} == {"4H", "JH", "6H", "2H", "KH", "TH", "3H", "5H"}
    play_seq(deal, "QH 9H AH")
    assert deal.turn == W  # void in hearts now: anything
    assert legal(deal) == {"5C", "4C", "6C", "TC", "5S", "9S", "7D", "8D", "9D", "TD", "JD"}


# ----------------------------------------------------------------------------- R4.3 exposure


def test_exposed_card_not_led_in_first_trick_of_its_suit() -> None:
    """R4.3: an exposed ♠Q may not be led before spades have been led."""
    deal = make_deal(Options(), HANDS_B, previous_pig_taker=N, exposures={"N": ["QS"]})
    assert legal(deal) == cards_text(HANDS_B["N"]) - {"QS"}
    refused(deal, "QS", ["♠Q was exposed", "first spade trick", "R4.3"])


def test_exposed_card_not_followed_in_first_trick_of_its_suit() -> None:
    """R4.3: following in the first spade trick, an exposed ♠Q is illegal while another spade is
    held; from the second spade trick on it is free."""
    deal = make_deal(Options(), HANDS_B, previous_pig_taker=S, exposures={"N": ["QS"]})
    play_seq(deal, "7S 6S")  # S leads, E follows
    assert deal.turn == N
    assert legal(deal) == {"3S", "4S"}
    refused(deal, "QS", ["♠Q was exposed", "first spade trick"])
    play_seq(deal, "3S 2S")  # N, W: S wins with ♠7
    assert deal.tricks[0].winner == S
    play_seq(deal, "8S 9S")  # S leads again, E follows
    assert legal(deal) == {"4S", "QS"}
    assert deal.restricted_copies(N, QS) == 1  # still exposed, no longer bound


def test_exposed_card_forced_when_only_card_of_suit() -> None:
    """R4.3: it must be played when it is the player's only card of the suit (following)."""
    hands = {"N": "QS 2C 3C 4C 5C 6C 7C 2D 3D 4D 5D 2H 3H"}  # E gets every other spade
    deal = make_deal(Options(), hands, previous_pig_taker=E, exposures={"N": ["QS"]})
    deal.play("2S")
    assert deal.turn == N
    assert legal(deal) == {"QS"}
    refused(deal, "2C", ["spade was led", "follow suit", "♠Q"])
    deal.play("QS")
    assert deal.hand(N)[0].code == "2H"


def test_exposed_card_may_be_discarded() -> None:
    """R4.3: an exposed card may be discarded on another suit's trick at any time."""
    deal = make_deal(Options(), HANDS_B, previous_pig_taker=S, exposures={"N": ["QS"]})
    play_seq(deal, "9H 7D")  # S leads a heart, E (void) discards
    assert deal.turn == N
    assert legal(deal) == cards_text(HANDS_B["N"])  # void in hearts: ♠Q included
    deal.play("QS")
    deal.play("2H")
    assert deal.tricks[0].winner == S
    assert {c.code for c in deal.captured(S)} == {"9H", "QS", "2H"}


def test_exposed_discard_before_suit_led_option() -> None:
    """R4.3 exposed_discard_before_suit_led: no discard of an exposed card before its suit has
    been led; once spades have been led it may be discarded."""
    opts = Options(exposed_discard_before_suit_led=True)
    deal = make_deal(opts, HANDS_B, previous_pig_taker=S, exposures={"N": ["QS"]})
    play_seq(deal, "9H 7D")
    assert legal(deal) == cards_text(HANDS_B["N"]) - {"QS"}
    refused(deal, "QS", ["♠Q was exposed", "cannot be discarded before spades have been led",
                         "R4.3"])
    # After a spade trick the discard is allowed.
    deal = make_deal(opts, HANDS_B, previous_pig_taker=S, exposures={"N": ["QS"]})
    play_seq(deal, "7S 6S 3S 2S")  # S wins the first spade trick
    play_seq(deal, "9H 7D")
    assert legal(deal) == cards_text(HANDS_B["N"]) - {"3S"}


def test_exposed_cards_legal_when_nothing_else_is() -> None:
    """R4.3 [interpretation]: a card illegal only by the exposure rule becomes legal when the
    player has no other legal card — here North must lead with only exposed ♠Q and ♥A left,
    neither suit having been led."""
    hands = {
        "N": "AC KC QC JC TC 9C 8C 7C 6C 5C 4C QS AH",
        "E": "2C 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
        "S": "3C AD AS KS JS TS 9S 8S 7S 6S 5S 4S 3S",
        "W": "2S KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H",
    }
    deal = make_deal(Options(), hands, previous_pig_taker=N, exposures={"N": ["QS", "AH"]})
    assert legal(deal) == cards_text("AC KC QC JC TC 9C 8C 7C 6C 5C 4C")
    for _ in range(11):  # North leads a club and wins, eleven times
        assert deal.turn == N
        deal.play(deal.legal_plays()[0])
        for _ in range(3):
            deal.play(deal.legal_plays()[0])
        assert deal.tricks[-1].winner == N
    assert deal.suits_led == [parse_cards("2C")[0].suit]
    assert legal(deal) == {"QS", "AH"}
    assert deal.restricted_copies(N, QS) == 1


def test_exposed_discard_forced_when_nothing_else() -> None:
    """R4.3 [interpretation] with exposed_discard_before_suit_led: the last card, an exposed ♠Q,
    is a legal discard although spades were never led."""
    hands = {
        "N": "QS 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
        "E": "2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS AD",
        "S": "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
        "W": "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    }
    opts = Options(exposed_discard_before_suit_led=True)
    deal = make_deal(opts, hands, previous_pig_taker=S, exposures={"N": ["QS"]})
    for trick in range(13):  # S leads clubs and wins every trick
        assert deal.turn == S
        deal.play(deal.legal_plays()[-1])
        deal.play(deal.legal_plays()[0])  # E
        if trick < 12:
            assert "QS" not in legal(deal)
        else:
            assert legal(deal) == {"QS"}
        deal.play(deal.legal_plays()[0])  # N
        deal.play(deal.legal_plays()[0])  # W
    assert deal.is_over
    assert deal.suits_led == [parse_cards("2C")[0].suit]
    assert deal.tricks[-1].winner == S


@pytest.mark.parametrize(
    ("exposure", "kind"), [("first_card", "first"), ("hidden", "hidden"), ("sell_x4_x2", "hidden")]
)
def test_first_and_hidden_exposures_unrestricted(exposure: ExposureRule, kind: str) -> None:
    """R4.4: 首明 and 暗卖 cards are exempt from the play restriction of R4.3."""
    opts = Options(exposure=exposure, auto_expose_fourth=False,
                   exposed_discard_before_suit_led=True)
    deal = make_deal(opts, HANDS_B, previous_pig_taker=N, exposures={"N": [("QS", kind)]})
    assert deal.exposures[0].kind == kind
    assert legal(deal) == cards_text(HANDS_B["N"])
    deal = make_deal(opts, HANDS_B, previous_pig_taker=S, exposures={"N": [("QS", kind)]})
    play_seq(deal, "7S 6S")
    assert legal(deal) == {"3S", "4S", "QS"}


def test_sell_x4_x2_shown_is_restricted() -> None:
    """R4.4 sell_x4_x2: a shown (明卖) card is restricted by R4.3."""
    opts = Options(exposure="sell_x4_x2", auto_expose_fourth=False)
    deal = make_deal(opts, HANDS_B, previous_pig_taker=N, exposures={"N": [("QS", "shown")]})
    assert "QS" not in legal(deal)


def test_auto_exposed_fourth_is_restricted() -> None:
    """R10: ``auto`` plays as ``shown`` (restricted by R4.3)."""
    deal = make_deal(Options(), HANDS_B, previous_pig_taker=N,
                     exposures={"S": ["AH"], "W": ["TC"], "E": ["JD"]})
    assert deal.exposures[-1].card == QS and deal.exposures[-1].kind == "auto"
    assert "QS" not in legal(deal)


# ----------------------------------------------------------------------------- R5.2 colour


def test_discard_color_off_allows_any_discard() -> None:
    """R5.2 discard_color=off: any discard."""
    deal = make_deal(Options(), HANDS_B, previous_pig_taker=S)
    play_seq(deal, "9H")
    assert legal(deal) == cards_text(HANDS_B["E"])


def test_discard_color_enforce() -> None:
    """R5.2 enforce: a red suit led → discard red while you hold a red card; black led → black."""
    deal = make_deal(Options(discard_color="enforce"), HANDS_B, previous_pig_taker=S)
    deal.play("9H")
    assert legal(deal) == cards_text("7D 8D 9D TD JD QD KD AD")  # E
    refused(deal, "6S", ["red suit was led", "discard a red card", "R5.2"])
    deal.play("7D")
    assert legal(deal) == cards_text("2D 3D 4D 5D")  # N
    deal.play("2D")
    deal.play("2H")  # W follows
    # A black suit led: S leads ♣A; E is void in clubs and holds black spades.
    assert deal.turn == S
    deal.play("AC")
    assert legal(deal) == cards_text("6S 9S TS JS KS")
    refused(deal, "8D", ["black suit was led", "discard a black card"])


def test_discard_color_enforce_without_the_colour() -> None:
    """R5.2 enforce: a player with no card of the led colour discards anything."""
    hands = {
        "N": "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
        "E": "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
        "S": "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
        "W": "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    }
    deal = make_deal(Options(discard_color="enforce"), hands, previous_pig_taker=E)
    deal.play("2H")
    assert legal(deal) == cards_text(hands["N"])  # N holds no red card
    deal.play("2S")
    assert legal(deal) == cards_text(hands["W"])  # W holds only red: all legal
    deal.play("2D")
    assert legal(deal) == cards_text(hands["S"])


def test_discard_color_penalty() -> None:
    """R5.2 penalty: an off-colour discard is allowed, but the (first) offender takes the trick's
    point cards; the winner still leads the next trick."""
    deal = make_deal(Options(discard_color="penalty"), HANDS_B, previous_pig_taker=S)
    deal.play("9H")
    assert legal(deal) == cards_text(HANDS_B["E"])  # nothing refused
    play_seq(deal, "6S QS 2H")  # E: black while holding red (offender); N too (second)
    (trick,) = deal.tricks
    assert trick.winner == S
    assert trick.taker == E
    assert {c.code for c in deal.captured(E)} == {"9H", "QS", "2H"}
    assert deal.captured(S) == []
    assert deal.captured(N) == []
    assert deal.turn == S and deal.leader == S
    assert deal.pig_taker == E


def test_discard_color_penalty_second_player_offends() -> None:
    """R5.2 penalty: a later offender takes the trick when the earlier players did not offend."""
    deal = make_deal(Options(discard_color="penalty"), HANDS_B, previous_pig_taker=S)
    play_seq(deal, "9H 7D QS 2H")  # E discards red (fine), N black while holding ♦ (offender)
    (trick,) = deal.tricks
    assert (trick.winner, trick.taker) == (S, N)
    assert {c.code for c in deal.captured(N)} == {"9H", "QS", "2H"}
    assert deal.turn == S


def test_discard_color_penalty_no_offence() -> None:
    """R5.2 penalty: no offence, the winner takes the point cards."""
    deal = make_deal(Options(discard_color="penalty"), HANDS_B, previous_pig_taker=S)
    play_seq(deal, "9H 7D 2D 2H")
    (trick,) = deal.tricks
    assert (trick.winner, trick.taker) == (S, S)
    assert {c.code for c in deal.captured(S)} == {"9H", "2H"}


def test_penalty_undo_restores_taker() -> None:
    """R5.2 penalty with undo: the offender is forgotten with the plays."""
    deal = make_deal(Options(discard_color="penalty"), HANDS_B, previous_pig_taker=S)
    start = snapshot(deal)
    play_seq(deal, "9H 6S QS 2H")
    for _ in range(4):
        deal.undo()
    assert snapshot(deal) == start
    play_seq(deal, "9H 7D 2D 2H")
    assert deal.tricks[0].taker == S


# ----------------------------------------------------------------------------- R5.2 order

ORDER_HANDS = {
    "N": "JD 2S 3S 4S 5S 6S 7S 2C 3C 4C 5C 6C 7C",  # ♦J is North's only red card
    "E": "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    "S": "8S 9S TS JS QS KS AS 8C 9C TC JC QC KC",
    "W": "AC 2D 3D 4D 5D 6D 7D 8D 9D TD QD KD AD",
}


def test_restriction_order_exposure_before_colour() -> None:
    """R5.2 [interpretation] order: follow suit, then exposure, then discard colour, each only
    if it leaves a card.  North, void in hearts, holds one red card, the exposed ♦J, which may
    not be discarded before diamonds are led (tournament rule): the exposure stage removes it,
    the colour stage then finds no red card and leaves every black card."""
    opts = Options(discard_color="enforce", exposed_discard_before_suit_led=True)
    deal = make_deal(opts, ORDER_HANDS, previous_pig_taker=E, exposures={"N": ["JD"]})
    deal.play("2H")
    assert deal.turn == N
    assert legal(deal) == cards_text(ORDER_HANDS["N"]) - {"JD"}
    refused(deal, "JD", ["♦J was exposed", "cannot be discarded before diamonds"])


def test_restriction_order_without_exposure_rule() -> None:
    """R5.2 [interpretation] order: Same hands without the tournament rule: the colour stage forces the exposed ♦J."""
    opts = Options(discard_color="enforce")
    deal = make_deal(opts, ORDER_HANDS, previous_pig_taker=E, exposures={"N": ["JD"]})
    deal.play("2H")
    assert legal(deal) == {"JD"}


def test_penalty_judged_after_exposure_stage() -> None:
    """R5.2 [interpretation]: under penalty, a black discard is no offence when the only red card
    was removed by the exposure stage."""
    opts = Options(discard_color="penalty", exposed_discard_before_suit_led=True)
    deal = make_deal(opts, ORDER_HANDS, previous_pig_taker=E, exposures={"N": ["JD"]})
    play_seq(deal, "2H 2S 2D 8S")  # E, N (black: allowed, no offence), W red, S black
    # W's ♦2 is red; S holds no red card; E's ♥2 is the only heart and wins.
    (trick,) = deal.tricks
    assert (trick.winner, trick.taker) == (E, E)


def test_follow_suit_before_exposure() -> None:
    """R5.2 [interpretation]: the exposure stage never lets a player leave the led suit."""
    hands = {"N": "QS 2C 3C 4C 5C 6C 7C 2D 3D 4D 5D 2H 3H"}
    deal = make_deal(Options(), hands, previous_pig_taker=E, exposures={"N": ["QS"]})
    deal.play("AS")
    assert legal(deal) == {"QS"}


# ----------------------------------------------------------------------------- R5.3 two decks

def pairs_of(text: str) -> set[str]:
    return {f"{c} {c}" for c in text.split()}


def test_two_deck_leads_are_singles_and_pairs() -> None:
    """R5.3: the leader may lead a single or a pair (two identical cards)."""
    deal = two_deck_deal(SOURCE_EXAMPLE, N)
    singles = set(SOURCE_EXAMPLE["N"].split())
    assert legal(deal) == singles | pairs_of(" ".join(sorted(singles)))
    assert len(deal.legal_plays()) == 13 + 13
    refused(deal, ["4S", "5S"], ["not a pair", "R5.3"])
    refused(deal, ["4S", "4S", "4S"], ["one card or a pair"])
    refused(deal, ["8S"], ["does not hold ♠8"])
    refused(deal, [], ["lead one card or a pair, not nothing"])


def test_r53_source_example() -> None:
    """R5.3 source example: A ♠4♠4, B ♠K♠K, C ♠Q♠8, D discards → C wins (two singles beat pairs);
    follow obligations: B must play a spade pair, C two spades, D any two cards."""
    deal = two_deck_deal(SOURCE_EXAMPLE, N)
    deal.play(["4S", "4S"])
    assert deal.turn == W
    assert legal(deal) == pairs_of("9S TS JS KS AS")
    refused(deal, ["QS", "8S"], ["spade pair was led", "you hold a spade pair", "R5.3"])
    refused(deal, ["KS"], ["pair was led", "must play two cards"])
    deal.play(["KS", "KS"])
    assert legal(deal) == {"8S QS"}
    refused(deal, ["8S", "9C"], ["spade pair was led", "play your spades first"])
    deal.play(["QS", "8S"])
    e_cards = SOURCE_EXAMPLE["E"].split()
    assert len(legal(deal)) == 13 * 12 // 2 + 13  # any two of 13 distinct cards held twice
    assert "9H 9H" in legal(deal) and "AH 2C" in legal(deal)
    assert len(set(e_cards)) == 13
    deal.play(["AH", "AH"])
    (trick,) = deal.tricks
    assert trick.winner == S
    assert [c.code for c in deal.captured(S)] == ["QS", "AH", "AH"]
    assert deal.turn == S


def test_pair_beats_lower_pair_and_discards() -> None:
    """R5.3: pairs compare by rank (B's ♠K♠K beats A's ♠4♠4) when no two-single play competes;
    a play with another suit in it is a discard and loses."""
    # As the source example, but South holds a single spade (♠8; W has both ♠Q and one ♦A).
    hands = dict(SOURCE_EXAMPLE)
    hands["S"] = "8S 9C 9C TC TC JC JC QC KC KC AC AC 2D 2D 3D 3D 4D 4D 5D 5D 6D 6D 7D 7D AD QC"
    hands["W"] = "KS KS AS AS QS QS 9S 9S TS TS JS JS 8D 8D 9D 9D TD TD JD JD QD QD KD KD 8S AD"
    deal = two_deck_deal(hands, N)
    deal.play(["4S", "4S"])
    deal.play(["KS", "KS"])
    assert all("8S" in p.split() for p in legal(deal))
    assert len(legal(deal)) == len(set(hands["S"].split())) - 1
    deal.play(["8S", "AD"])
    deal.play(["9H", "9H"])
    assert deal.tricks[0].winner == W


@pytest.mark.parametrize(
    ("lead", "plays", "winner"),
    [
        # ♠ ♥ ♣: any two non-pair cards beat any pair.
        ("2S 2S", ["AS KS", "3S 3S", "5S 4S"], W),
        ("2S 2S", ["4S 4S", "3S 3S", "6S 5S"], E),
        ("2S 2S", ["4S 4S", "3S 3S", "2C 2C"], W),  # E is void: a discard loses
        ("AH AH", ["2H 3H", "KH KH", "4H 5H"], E),  # 5-4 beats 3-2 (higher card)
        ("AH AH", ["2H 5H", "KH KH", "4H 5H"], E),  # equal high card: 4 > 2 (lower card)
        ("AH AH", ["2H 6H", "KH KH", "4H 5H"], W),  # higher card first: 6 > 5
        ("3C 3C", ["2C 5C", "KC KC", "2C 5C"], W),  # fully equal: earlier wins
        ("3C 3C", ["4C 4C", "2C 2C", "5C 5C"], E),  # pairs by rank
        ("3C 3C", ["4C 4C", "2C 2C", "AD AD"], W),
        # ♦: any pair beats any two non-pair cards.
        ("2D 2D", ["AD KD", "3D 3D", "QD JD"], S),
        ("2D 2D", ["AD KD", "QD JD", "AD QD"], N),
        ("5D 5D", ["AD KD", "4D 4D", "AD KD"], N),  # the lower pair 4-4 loses to 5-5
        ("5D 5D", ["6D 6D", "4D 4D", "AD KD"], W),
        ("5D 5D", ["2D 3D", "AD KD", "AD QD"], N),  # 2-3, A-K, A-Q all lose to the pair
        ("5D 5D", ["2D 3D", "AD KD", "AS AS"], N),
    ],
)
def test_pair_trick_ranking(lead: str, plays: list[str], winner: Seat) -> None:
    """R5.3 ranking of two-card plays after a pair lead (W, S, E each hold exactly the cards
    of the led suit they play, so each play is the forced one)."""
    suit = lead[1]
    hands = {"N": lead, "W": plays[0], "S": plays[1], "E": plays[2]}
    deal = two_deck_deal(hands, N, keep_out=suit)
    deal.play(lead.split())
    for text in plays:
        assert sorted(text.split()) in legal_sorted(deal), (text, legal(deal))
        deal.play(text.split())
    assert deal.tricks[0].winner == winner


def test_pair_follow_obligations() -> None:
    """R5.3: pair if you have one (any pair of the suit); else two cards of the suit; else all
    your cards of the suit made up with anything."""
    hands = {
        "N": "2H 2H",
        "W": "3H 3H 9H 9H 4H KH",  # two heart pairs and two singles
        "S": "5H 6H 7H",  # three hearts, no pair
        "E": "8H",  # one heart
    }
    deal = two_deck_deal(hands, N, keep_out="H")
    deal.play(["2H", "2H"])
    assert legal(deal) == {"3H 3H", "9H 9H"}
    refused(deal, ["4H", "KH"], ["heart pair was led", "you hold a heart pair"])
    deal.play(["9H", "9H"])
    assert legal(deal) == {"5H 6H", "5H 7H", "6H 7H"}
    s_other = next(c.code for c in deal.hand(S) if c.suit.letter != "H")
    refused(deal, ["5H", s_other], ["heart pair was led", "play your hearts first"])
    deal.play(["5H", "7H"])
    e_hand = [c.code for c in deal.hand(E)]
    assert [c for c in e_hand if c.endswith("H")] == ["8H"]
    assert legal(deal) == {" ".join(sorted(["8H", c], key=index_of)) for c in set(e_hand) - {"8H"}}
    e_other = next(c for c in e_hand if c != "8H")
    refused(deal, [e_other, e_other], ["heart pair was led", "play your hearts first"])
    deal.play(["8H", e_other])
    assert deal.tricks[0].winner == S  # 7-5 beats the pairs in hearts


def test_pair_follow_void() -> None:
    """R5.3: with no card of the led suit, any two cards (a pair of another suit included)."""
    deal = two_deck_deal({"N": "2H 2H"}, N, keep_out="H")
    deal.play(["2H", "2H"])
    w = [c.code for c in deal.hand(W)]
    distinct = sorted(set(w), key=index_of)
    doubled = {c for c in distinct if w.count(c) == 2}
    expected = {f"{a} {b}" for a, b in itertools.combinations(distinct, 2)}
    expected |= {f"{c} {c}" for c in doubled}
    assert legal(deal) == expected


def index_of(code: str) -> int:
    return parse_cards(code)[0].index


def legal_sorted(deal: Deal) -> list[list[str]]:
    """Legal plays as lists of codes, each sorted as text (order-free comparison)."""
    return sorted(sorted(c.code for c in p) for p in deal.legal_plays())


def test_single_lead_two_decks_first_identical_wins() -> None:
    """R5.3: after a single lead follow suit with a single; of two identical cards the one played
    first wins."""
    hands = {"N": "KS KS", "W": "AS 3S", "S": "AS", "E": "2S 2S"}
    deal = two_deck_deal(hands, N, keep_out="S")
    deal.play("KS")
    assert legal(deal) == {"AS", "3S"}
    play_seq(deal, "AS")
    assert legal(deal) == {"AS"}
    play_seq(deal, "AS")
    assert legal(deal) == {"2S"}
    play_seq(deal, "2S")
    assert deal.tricks[0].winner == W


def test_two_deck_first_pig_taker() -> None:
    """R5.1 two decks: the next deal's leader is who took the *first* pig captured."""
    hands = {"N": "2S QS", "W": "AS 5S", "S": "3S", "E": "4S QS"}
    deal = two_deck_deal(hands, N, keep_out="S")
    play_seq(deal, "QS AS 3S 4S")  # W takes the first pig
    assert deal.pig_taker == W
    deal.play("5S")
    deal.play(deal.legal_plays()[0])  # S is void in spades
    play_seq(deal, "QS AS")  # E must give the second pig; N takes it
    assert deal.tricks[1].winner == N
    assert QS in deal.captured(N) and QS in deal.captured(W)
    assert deal.pig_taker == W


def test_two_decks_spade3_any() -> None:
    """R5.1 spade3_any, two decks: who received the first ♠3 leads, anything."""
    hands = complete_hands({"N": "2C 3S", "E": "3S"}, decks=2)  # order N W S E: E's ♠3 first
    opts = Options(decks=2, auto_expose_fourth=False, first_lead="spade3_any")
    deal = Deal(opts, hands)
    for seat in Seat:
        deal.declare(seat)
    assert deal.turn == E
    assert len(deal.legal_plays()) == len(set(hands[E])) + sum(
        1 for c in set(hands[E]) if hands[E].count(c) == 2)


def test_two_deck_penalty() -> None:
    """R5.2 penalty with two decks: the first off-colour discarder takes the point cards."""
    hands = {"N": "9H", "W": "2S", "S": "2H", "E": "3D"}
    deal = two_deck_deal(hands, N, keep_out="H", discard_color="penalty")
    deal.play("9H")
    assert any(c.suit.is_red for c in deal.hand(W))  # W holds diamonds, void in hearts
    deal.play("2S")  # black: offence
    deal.play("2H")
    deal.play("3D")
    (trick,) = deal.tricks
    assert (trick.winner, trick.taker) == (N, W)
    assert [c.code for c in deal.captured(W)] == ["9H", "2H"]


def test_two_deck_enforce_colour_in_pair_trick() -> None:
    """R5.2 enforce in a pair trick [the engine's reading]: the made-up card(s) must be of the
    led colour as far as the hand allows (as many same-colour cards as possible)."""
    diamonds = [r + "D" for r in "23456789TJQKA" for _ in range(2)]
    for c in ("QD", "KD", "AD"):
        diamonds.remove(c)
    hands = {"N": "2H 2H", "W": "3H QD", "S": "KD AD", "E": "4H 5H " + " ".join(diamonds)}
    deal = two_deck_deal(hands, N, keep_out="HD", discard_color="enforce")
    assert [c for c in deal.hand(W) if c.suit.is_red] == parse_cards("3H QD")
    assert [c for c in deal.hand(S) if c.suit.is_red] == parse_cards("KD AD")
    deal.play(["2H", "2H"])
    assert legal(deal) == {"3H QD"}  # the one heart, made up with the only diamond
    deal.play(["3H", "QD"])
    assert legal(deal) == {"KD AD"}  # no heart: both cards red
    refused(deal, ["KD", next(c.code for c in deal.hand(S) if not c.suit.is_red)],
            ["red suit was led", "discard a red card"])


# ----------------------------------------------------------------------------- R4.5 copies


def test_two_deck_exposure_one_of_two_copies() -> None:
    """R4.5: with one exposed and one unexposed ♠Q, the unexposed copy is free in the first spade
    trick (and is the one that leaves); the pair is restricted."""
    hands = {"N": "QS QS 2S", "E": "3S", "S": "4S", "W": "5S"}
    opts = TWO_DECK_OPTS
    deal = make_deal(opts, hands, previous_pig_taker=N, exposures={"N": ["QS"]})
    assert deal.restricted_copies(N, QS) == 1 and deal.copies_held(N, QS) == 2
    lead = legal(deal)
    assert "QS" in lead  # the free copy
    assert "QS QS" not in lead  # would play the exposed one in the first spade trick
    assert "2S" in lead
    refused(deal, ["QS", "QS"], ["♠Q was exposed", "first spade trick", "R4.3"])
    deal.play("QS")
    assert deal.copies_held(N, QS) == 1
    assert deal.restricted_copies(N, QS) == 1  # the exposed copy stayed


def test_two_deck_exposure_both_copies_exposed() -> None:
    """R4.5: with both copies exposed neither may be led in the first spade trick."""
    hands = {"N": "QS QS 2S", "E": "3S", "S": "4S", "W": "5S"}
    deal = make_deal(TWO_DECK_OPTS, hands, previous_pig_taker=N, exposures={"N": ["QS", "QS"]})
    assert deal.restricted_copies(N, QS) == 2
    lead = legal(deal)
    assert "QS" not in lead and "QS QS" not in lead and "2S" in lead


def test_two_deck_exposed_copy_leaves_when_discarded() -> None:
    """R4.5: playing the card anywhere else (a discard on another suit) the exposed copy leaves."""
    hands = {
        "N": "2D 2D 3D 3D 4D 4D 5D 5D 6D 6D 7D 7D 8D 8D 9D 9D TD TD JD JD QD QD KD KD AD AD",
        "W": "QS QS 2S 2S 3S 3S 4S 4S 5S 5S 6S 6S 7S 7S 8S 8S 9S 9S TS TS JS JS KS KS AS AS",
    }
    deal = make_deal(TWO_DECK_OPTS, hands, previous_pig_taker=N, exposures={"W": ["QS"]})
    deal.play("2D")
    assert "QS" in legal(deal)  # a discard: free
    deal.play("QS")
    assert deal.copies_held(W, QS) == 1
    assert deal.restricted_copies(W, QS) == 0  # the exposed copy left


def test_two_deck_pair_follow_with_restricted_copy() -> None:
    """R4.3/R4.5 in a pair trick: a player whose only spade pair includes an exposed ♠Q must
    still answer with a pair if it is the only pair; another pair is preferred."""
    hands = {"N": "2S 2S", "W": "QS QS 3S 3S", "S": "4S 4S", "E": "5S 5S"}
    deal = make_deal(TWO_DECK_OPTS, hands, previous_pig_taker=N, exposures={"W": ["QS"]},
                     keep_out="S")
    deal.play(["2S", "2S"])
    assert legal(deal) == {"3S 3S"}
    refused(deal, ["QS", "QS"], ["♠Q was exposed"])
    hands2 = {"N": "2S 2S", "W": "QS QS", "S": "4S 4S", "E": "5S 5S"}
    deal = make_deal(TWO_DECK_OPTS, hands2, previous_pig_taker=N, exposures={"W": ["QS"]},
                     keep_out="S")
    deal.play(["2S", "2S"])
    assert legal(deal) == {"QS QS"}  # forced: only pair, only spades


# ----------------------------------------------------------------------------- refusals, undo


def test_two_cards_after_single_lead_message_says_why() -> None:
    """R5.3: after a single lead, follow with a single; the refusal should say so."""
    deal = two_deck_deal({"N": "KS KS", "W": "AS 3S"}, N, keep_out="S")
    deal.play("KS")
    message = refused(deal, ["AS", "3S"], [])
    assert "a single card was led: West must play one card" in message


def test_two_cards_led_with_one_deck_says_one_card() -> None:
    """R5.2: with one deck a lead is one card; the refusal does not talk about pairs."""
    deal = make_deal(Options(), HANDS_A, previous_pig_taker=N)
    lead = [c.code for c in deal.hand(N)[:2]]
    message = refused(deal, lead, ["lead one card, not"])
    assert "pair" not in message


def test_wrong_seat_is_refused() -> None:
    """R5.2: plays go in play direction; another seat is refused."""
    deal = make_deal(Options(), HANDS_A)
    refused(deal, "2C", ["North's turn", "not West's"], seat=W)
    deal.play("2C", seat=N)
    assert deal.turn == W


def test_card_not_held_is_refused() -> None:
    """R5: a card not held is refused, saying so."""
    deal = make_deal(Options(), HANDS_A, previous_pig_taker=N)
    refused(deal, "AS", ["North does not hold ♠A"])


def test_bad_text_is_refused_unchanged() -> None:
    """R1/R5: unreadable text is refused (CardError), nothing changes."""
    deal = make_deal(Options(), HANDS_A, previous_pig_taker=N)
    before = snapshot(deal)
    with pytest.raises(CardError):
        deal.play("XX")
    assert snapshot(deal) == before
    assert not deal.can_play("XX")


def test_two_cards_one_deck_refused() -> None:
    """R5.2: one card per player per trick with one deck."""
    deal = make_deal(Options(), HANDS_A, previous_pig_taker=N)
    refused(deal, ["3S", "4S"], ["lead one card"])


def test_play_after_the_end_is_refused() -> None:
    """R5.2: 13 tricks per deal, then nothing more."""
    deal = make_deal(Options(), HANDS_A, previous_pig_taker=N)
    while not deal.is_over:
        deal.play(deal.legal_plays()[0])
    assert len(deal.tricks) == 13
    assert list(deal.legal_plays()) == []
    assert deal.turn is None
    with pytest.raises(IllegalPlayError, match="deal is over"):
        deal.play("2C")


def test_undo_restores_exactly() -> None:
    """R4.3/R5 with undo: python-chess style undo: every play taken back restores the exact state."""
    deal = make_deal(Options(), HANDS_B, previous_pig_taker=S, exposures={"N": ["QS"]})
    states = [snapshot(deal)]
    for _ in range(30):
        deal.play(deal.legal_plays()[len(deal.legal_plays()) // 2])
        states.append(snapshot(deal))
    for expected in reversed(states[:-1]):
        deal.undo()
        assert snapshot(deal) == expected
    with pytest.raises(IllegalPlayError, match="no play to take back"):
        deal.undo()


def test_undo_two_decks_restores_exposure_copies() -> None:
    """R4.5 with undo: exposed copies come back as they were."""
    hands = {"N": "QS QS 2S", "E": "3S", "S": "4S", "W": "5S"}
    deal = make_deal(TWO_DECK_OPTS, hands, previous_pig_taker=N, exposures={"N": ["QS"]})
    states = [snapshot(deal)]
    for _ in range(12):
        deal.play(deal.legal_plays()[0])
        states.append(snapshot(deal))
    for expected in reversed(states[:-1]):
        deal.undo()
        assert snapshot(deal) == expected


def test_undo_then_a_different_trick() -> None:
    """R5.2 with undo: Undo, then a different line: tricks, captured cards and turn follow the new line."""
    deal = make_deal(Options(), HANDS_A, previous_pig_taker=W)
    play_seq(deal, "4H JH 6H 2H")
    assert deal.tricks[0].winner == S
    assert len(deal.captured(S)) == 4
    for _ in range(4):
        deal.undo()
    assert deal.tricks == []
    assert deal.captured(S) == []
    play_seq(deal, "5H KH TH AH")  # W, S, E, N: N wins with ♥A
    (trick,) = deal.tricks
    assert trick.winner == N
    assert [c.code for c in trick.cards] == ["5H", "KH", "TH", "AH"]
    assert {c.code for c in deal.captured(N)} == {"5H", "KH", "TH", "AH"}
    assert deal.captured(S) == []
    assert deal.turn == N


def test_undo_over_the_end() -> None:
    """R6 with undo: the score goes away with the last play and comes back with it."""
    deal = make_deal(Options(), HANDS_A, previous_pig_taker=N)
    while not deal.is_over:
        deal.play(deal.legal_plays()[-1])
    raw = deal.score.raw
    deal.undo()
    assert deal.phase == Phase.PLAY
    with pytest.raises(IllegalPlayError, match="not over"):
        _ = deal.score
    deal.play(deal.legal_plays()[-1])
    assert deal.score.raw == raw


def test_every_refusal_kind_leaves_legal_plays_intact() -> None:
    """R4.3/R5: State unchanged after refusals: try every card of every hand at each step of a deal."""
    deal = make_deal(Options(exposed_discard_before_suit_led=True), HANDS_B,
                     previous_pig_taker=S, exposures={"N": ["QS"], "W": ["TC"]})
    while not deal.is_over:
        ok = legal(deal)
        before = snapshot(deal)
        for seat, c in itertools.product(Seat, sorted({c for s in Seat for c in deal.hand(s)},
                                                        key=lambda c: c.index)):
            if c.code not in ok and seat == deal.turn:
                with pytest.raises(IllegalPlayError):
                    deal.play(c)
        assert snapshot(deal) == before
        deal.play(deal.legal_plays()[-1])


def test_sheep_and_transformer_taken() -> None:
    """R5.2: the point cards ♦J and ♣10 go to the trick winner."""
    deal = make_deal(Options(), HANDS_A, previous_pig_taker=W)
    play_seq(deal, "JD QD 2S 2D")  # W leads ♦J, S ♦Q, E discards, N ♦2
    assert deal.tricks[0].winner == S
    assert deal.sheep_taker == S
    assert JD in deal.captured(S)
    assert TC not in deal.captured(S)
