"""The bot protocol gongzhu-bot/1 (docs/bot-protocol.md): a request written from what one seat may
know (R11 field names) gives the same observation as the engine's, the bot answers legal
exposures (R4) and plays (R5), and every malformed or inconsistent request is refused with a
precise message while the bot keeps serving."""

from __future__ import annotations

import copy
import dataclasses
import io
import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from gongzhu.cli.bot import serve
from gongzhu.players import RandomPlayer, make_player
from gongzhu.players.claiming import sure_claim
from gongzhu.players.observation import Observation, observe
from gongzhu.players.protocol import (
    MAX_ERROR_CHARS,
    MAX_LINE_BYTES,
    RequestError,
    answer,
    handle_line,
    observation_from_request,
    trick_winner,
)
from gongzhu.rules import PRESETS, Deal, Match, Options, Phase, Seat, deal_seed, parse_card, parse_cards
from gongzhu.rules.cards import hand_size, too_many_copies
from gongzhu.rules.claims import Claim
from gongzhu.search.claims import check_claim
from helpers.deals import make_deal
from helpers.volume import preset_variants, scaled

ROOT = Path(__file__).resolve().parent.parent
SEATS = "NESW"

#: Every preset, and option sets for the other exposure kinds and play restrictions.
VARIANTS: list[tuple[str, dict[str, Any]]] = [
    *((name, {}) for name in PRESETS),
    ("online", {"exposure": "hidden"}),
    ("online", {"exposure": "sell_x4_x2"}),
    ("online", {"exposure": "first_card"}),
    ("online", {"exposure": "all", "discard_color": "enforce"}),
    ("classic", {"discard_color": "penalty", "first_lead": "spade3_any"}),
    ("online", {"discard_color": "penalty", "first_lead": "club2_any"}),
    ("online2", {"exposure": "hidden"}),
    ("online2", {"exposure": "all_but_sheep", "direction": "cw"}),
    ("partners2", {"discard_color": "penalty"}),
]


# ---------------------------------------------------------------------------------- helpers


def deal_to_request(deal: Deal, seat: Seat, *, preset: str | None = None, first_card: bool = True,
                    rng: random.Random | None = None) -> dict[str, Any]:
    """The request for ``seat`` now, from what that seat may know only: its own hand (as dealt in
    the exposure phase), the exposures it can see (another seat's hidden exposure as a count until
    that seat plays the card, R4.4), the tricks and the options.  With ``preset`` the options are
    written as that preset plus the keys that differ; with ``rng`` the hand is shuffled."""
    expose = deal.phase is Phase.EXPOSE
    hand = [c.code for c in (deal.dealt[seat] if expose else deal.hand(seat))]
    if rng is not None and not expose:
        rng.shuffle(hand)
    played = Counter((s, c) for t in deal.tricks for s, p in t.plays for c in p)
    played += Counter((s, c) for s, p in deal.current_trick for c in p)
    exposures: list[dict[str, Any]] = []
    for e in deal.exposures:
        if e.kind == "hidden" and e.seat != seat:
            if played[(e.seat, e.card)] > 0:
                played[(e.seat, e.card)] -= 1
            else:
                exposures.append({"seat": SEATS[e.seat], "kind": "hidden"})
                continue
        exposures.append({"seat": SEATS[e.seat], "card": e.card.code, "kind": e.kind})
    tricks: list[dict[str, Any]] = []
    for t in deal.tricks:
        item: dict[str, Any] = {"leader": SEATS[t.leader],
                                "plays": [{"seat": SEATS[s], "cards": [c.code for c in p]} for s, p in t.plays],
                                "winner": SEATS[t.winner]}
        if t.taker != t.winner:
            item["taker"] = SEATS[t.taker]
        tricks.append(item)
    if deal.current_trick:
        leader = deal.current_trick[0][0]
        tricks.append({"leader": SEATS[leader],
                       "plays": [{"seat": SEATS[s], "cards": [c.code for c in p]} for s, p in deal.current_trick]})
    options = deal.options.to_dict()
    req: dict[str, Any] = {"type": "expose" if expose else "play", "seat": SEATS[seat]}
    if preset is not None:
        base = PRESETS[preset].to_dict()
        req["preset"] = preset
        options = {k: v for k, v in options.items() if base[k] != v}
    req.update(options=options, hand=hand, exposures=exposures, tricks=tricks,
               first_receiver=SEATS[deal.first_receiver], deal_index=deal.deal_index)
    if first_card and not expose:
        req["first_card"] = deal.dealt[seat][0].code
    return req


def _roundtrip(req: dict[str, Any]) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(json.dumps(req))
    return value


def _check_request(deal: Deal, seat: Seat, rng: random.Random) -> Observation:
    preset = rng.choice([None, *PRESETS])
    first_card = rng.random() < 0.7
    req = _roundtrip(deal_to_request(deal, seat, preset=preset, first_card=first_card, rng=rng))
    obs = observation_from_request(req)
    expected = observe(deal, seat)
    if not first_card and deal.phase is Phase.PLAY and not any(
            e.seat == seat and e.kind == "first" for e in deal.exposures):
        expected = dataclasses.replace(expected, first_card=None)  # the seat did not say
    assert obs == expected
    assert obs.legal_plays() == expected.legal_plays()
    assert obs.hidden_counts == expected.hidden_counts
    return obs


def _error(req: Any) -> str:
    out = answer(RandomPlayer(0), req)
    assert set(out) <= {"error", "id"}, out
    message: str = out["error"]
    return message


# ---------------------------------------------------------------------------------- same view as the engine


@pytest.mark.parametrize(("preset", "overrides"), preset_variants(VARIANTS, fast={"online", "online2", "tournament"}),
                         ids=lambda v: str(v))
def test_requests_give_the_engines_observation_and_legal_answers(preset: str, overrides: dict[str, Any]) -> None:
    """R4, R5, R11: at every decision of random matches, the request written from what the seat
    knows gives observe(deal, seat), and the bot's answer is legal in the deal."""
    # Matches of three deals, so that later deals (led by the previous pig taker) come up.
    options = PRESETS[preset].replace(**overrides, match_end="deals:3")
    rng = random.Random(f"{preset}{overrides}")
    bot = RandomPlayer(3)
    match = Match(options, seed=rng.randrange(1 << 30))
    hidden_seen = later_deals = 0
    for _ in range(max(3, scaled(8 if options.decks == 1 else 5))):  # three deals: one is a later deal
        if match.is_over:
            match = Match(options, seed=rng.randrange(1 << 30))
        deal = match.new_deal()
        later_deals += deal.deal_index > 0
        seats = list(deal.undeclared)
        rng.shuffle(seats)
        for seat in seats:  # the exposure phase, seats declaring in a random order
            hidden_seen += sum(_check_request(deal, seat, rng).hidden_counts)
            reply = answer(bot, deal_to_request(deal, seat))
            assert set(reply) == {"expose", "kinds"}, reply
            deal.declare(seat, list(zip(reply["expose"], reply["kinds"], strict=True)))
        while (turn := deal.turn) is not None:
            hidden_seen += sum(_check_request(deal, turn, rng).hidden_counts)
            other = Seat(rng.choice([s for s in Seat if s != turn]))
            # A play request is for the mover.  (Two decks, before the first lead of a match: a seat
            # holding one ♣2 cannot know who received the first one, R5.1, so it is believed.)
            if deal.tricks or deal.current_trick or deal.deal_index or options.decks == 1:
                assert "turn" in answer(bot, deal_to_request(deal, other))["error"]
            req = deal_to_request(deal, turn, rng=rng)
            reply = answer(bot, _roundtrip(req))
            assert set(reply) == {"cards"}, reply
            assert all(c == parse_card(c).code for c in reply["cards"])  # canonical codes
            deal.play(reply["cards"], turn)
        for seat in Seat:  # the deal is over: no turn for anyone
            assert "error" in answer(bot, deal_to_request(deal, seat))
        match.finish_deal()
    assert later_deals > 0  # deals led by the previous pig taker (R5.1) were checked too
    assert (hidden_seen > 0) == (options.exposure in ("hidden", "sell_x4_x2"))


def test_other_seats_hidden_exposures_are_counts() -> None:
    """R4.4: another seat's 暗卖 is given without its card and becomes hidden_counts."""
    deal = make_deal(PRESETS["online"].replace(exposure="hidden"), {"E": "QS AH", "S": "2C"},
                     exposures={"E": ["QS", "AH"]})
    req = deal_to_request(deal, Seat.S)
    assert req["exposures"] == [{"seat": "E", "kind": "hidden"}, {"seat": "E", "kind": "hidden"}]
    obs = observation_from_request(req)
    assert obs.hidden_counts == (0, 2, 0, 0) and obs.exposures == ()
    assert obs == observe(deal, Seat.S)
    own = observation_from_request(deal_to_request(make_deal_turn(deal, Seat.E), Seat.E))
    assert own.hidden_counts == (0, 0, 0, 0) and len(own.exposures) == 2


def make_deal_turn(deal: Deal, seat: Seat) -> Deal:
    """Play the first legal plays until it is ``seat``'s turn (a deal in the play phase)."""
    while deal.turn != seat:
        deal.play(deal.legal_plays()[0])
    return deal


def test_a_pair_answer_and_lenient_card_forms() -> None:
    """R5.3, R1: a two-deck pair lead is answered with two cards; cards in any R1 notation are
    read, answers are canonical codes; the hand may be in any order."""
    deal = make_deal(PRESETS["online2"], {"N": "2C 2C 3C 3C", "W": "4C 4C 5C"}, keep_out="C", dump="S")
    deal.play(["2C", "2C"])
    req = deal_to_request(deal, Seat.W)
    req["hand"] = [c.replace("T", "10").lower() for c in reversed(req["hand"])]
    assert observation_from_request(req) == observe(deal, Seat.W)
    # W holds the club pair 4C 4C and 5C: after a club pair lead it must answer with its pair.
    assert answer(RandomPlayer(1), req) == {"cards": ["4C", "4C"]}


def test_the_trick_rule_is_the_engines() -> None:
    """R5.2, R5.3: trick_winner agrees with the engine on every finished trick."""
    for name in ("online", "online2", "partners2"):
        for i in range(15):
            deal = Deal.new(PRESETS[name], deal_seed(11, i))
            rng = random.Random(i)
            for seat in deal.undeclared:
                deal.declare(seat, [])
            while not deal.is_over:
                deal.play(rng.choice(deal.legal_plays()))
            for t in deal.tricks:
                assert trick_winner(t.plays) == t.winner


def test_winner_and_taker_may_be_left_out() -> None:
    """R11: a finished trick's winner is computed when missing; taker defaults to the winner."""
    deal, turn = _mid_deal(tricks=4, extra=2)
    req = deal_to_request(deal, turn)
    for t in req["tricks"]:
        t.pop("winner", None)
        t.pop("taker", None)
    assert observation_from_request(req) == observe(deal, turn)


def test_an_empty_trick_names_the_leader() -> None:
    """R5.1: with two decks a seat holding one ♣2 cannot tell who leads the first trick; a last
    trick with no plays yet names the leader, and a play request for anyone else is refused."""
    deal = Deal.new(PRESETS["online2"], 21)
    for seat in Seat:
        deal.declare(seat, [])
    leader = deal.turn
    assert leader is not None
    for seat in Seat:
        req = deal_to_request(deal, seat)
        req["tricks"] = [{"leader": SEATS[leader], "plays": []}]
        if seat == leader:
            assert observation_from_request(req) == observe(deal, seat)
        else:
            message = _error(req)
            assert message.startswith((f"$.seat: it is not {SEATS[seat]}'s turn but {SEATS[leader]}'s",
                                       f"$.tricks[0].leader: {SEATS[leader]}, but the holder of ♣2 leads")), message


# ---------------------------------------------------------------------------------- refusals


def _mid_deal(preset: str = "online", seed: int = 4, tricks: int = 3, extra: int = 1) -> tuple[Deal, Seat]:
    deal = Deal.new(PRESETS[preset], seed)
    for seat in Seat:
        if deal.phase is Phase.EXPOSE:
            deal.declare(seat, [])
    while len(deal.tricks) < tricks:
        deal.play(deal.legal_plays()[0])
    for _ in range(extra):
        deal.play(deal.legal_plays()[0])
    turn = deal.turn
    assert turn is not None
    return deal, turn


def test_malformed_requests_are_refused_precisely() -> None:
    deal, turn = _mid_deal()
    good = deal_to_request(deal, turn)
    assert "cards" in answer(RandomPlayer(0), good)

    def changed(**edits: Any) -> dict[str, Any]:
        req = copy.deepcopy(good)
        req.update(edits)
        return req

    assert _error([1, 2]) == "a request is a JSON object, not an array"
    assert _error({k: v for k, v in good.items() if k != "hand"}) == "$: missing field 'hand'"
    assert _error({k: v for k, v in good.items() if k != "type"}).startswith(
        "$: missing field 'type': one of \"info\", \"expose\", \"play\", \"hint\", \"claim\"")
    assert _error(changed(type="bid"))== '$.type: must be one of "info", "expose", "play", "hint", "claim", not "bid"'
    assert _error(changed(seat="X")) == "$.seat: \"X\" is not a seat: write one of N, E, S, W"
    bad_card = changed()
    bad_card["hand"][2] = "ZZ"
    assert _error(bad_card).startswith("$.hand[2]: \"ZZ\" is not a card")
    assert _error(changed(options={"decks": 3})).startswith("$.options: option decks cannot be 3")
    assert _error(changed(options={"colour": "x"})).startswith("$.options: unknown option 'colour'")
    assert _error(changed(preset="home")).startswith('$.preset: must be a preset of R9: online, online2, ')
    assert _error(changed(deal_index=-1)).startswith("$.deal_index: must be a deal number")
    # Not this seat's turn.
    other = Seat((turn + 1) % 4)
    msg = _error(deal_to_request(deal, other))
    assert msg == f"$.seat: it is not {SEATS[other]}'s turn but {SEATS[turn]}'s (after the tricks given, R5.2)"
    # Counts: a card missing from the hand.
    short = changed(hand=good["hand"][1:])
    n, k = len(short["hand"]), 13 - len(good["hand"])
    assert _error(short) == (f"$.hand: {n} cards in hand and {k} played by {SEATS[turn]}: together they are the 13 "
                             "cards dealt with 1 deck(s) (R1)")
    # A duplicated card: one of the hand's cards also in a trick.
    dup = copy.deepcopy(good)
    played = dup["tricks"][0]["plays"][0]["cards"][0]
    dup["hand"][0] = played
    assert _error(dup).startswith(f"{played} appears 2 times (hand[0], tricks[0].plays[0].cards), but there is "
                                  "only one with 1 deck(s) (R1)")


@pytest.mark.parametrize("preset", ["online", "online2"])
def test_card_counts_are_refused_as_the_rules_core_counts(preset: str) -> None:
    """R1: whichever card of the hand or the tricks takes the place of a card in hand, the request
    is refused where the rules core's count (``too_many_copies``) finds a card too often, naming
    that card and each of its places, and a whole hand has the core's hand size."""
    deal, turn = _mid_deal(preset)
    good = deal_to_request(deal, turn, first_card=False)
    decks = deal.options.decks
    played = [(c, f"tricks[{t}].plays[{i}].cards") for t, trick in enumerate(good["tricks"])
              for i, p in enumerate(trick["plays"]) for c in p["cards"]]
    refused = 0
    for k in range(len(good["hand"])):
        for card in sorted({*good["hand"], *(c for c, _ in played)}):
            req = copy.deepcopy(good)
            req["hand"][k] = card
            found = too_many_copies([*((parse_card(c), f"hand[{i}]") for i, c in enumerate(req["hand"])),
                                     *((parse_card(c), where) for c, where in played)], decks)
            if found is None:
                continue  # two decks: a second copy is no fault of R1
            c, places = found
            copies = "is only one" if decks == 1 else "are only two"
            assert _error(req) == (f"{c.code} appears {len(places)} times ({', '.join(places)}), but there {copies} "
                                   f"with {decks} deck(s) (R1)")
            refused += 1
    assert refused > 0
    expose = deal_to_request(Deal.new(PRESETS[preset], 1), Seat.S)
    expose["hand"].pop()
    assert _error(expose) == (f"$.hand: {hand_size(decks) - 1} cards, but an expose request gives the whole hand "
                              f"as dealt: {hand_size(decks)} cards with {decks} deck(s) (R1)")


def test_inconsistent_tricks_are_refused_precisely() -> None:
    deal, turn = _mid_deal()
    good = deal_to_request(deal, turn)
    t0 = good["tricks"][0]
    right = t0["winner"]
    wrong = copy.deepcopy(good)
    wrong["tricks"][0]["winner"] = next(s for s in SEATS if s != right)
    assert _error(wrong).startswith(f"$.tricks[0].winner: given {wrong['tricks'][0]['winner']}, but {right} wins "
                                    "the trick with ")
    size = copy.deepcopy(good)
    del size["tricks"][1]["plays"][3]
    assert _error(size) == ("$.tricks[1].plays: 3 plays: only the last trick may be incomplete, every earlier one "
                            "has 4 plays (R5.2)")
    two = copy.deepcopy(good)
    two["tricks"][1]["plays"][1]["cards"].append("2S")
    assert _error(two) == "$.tricks[1].plays[1].cards: 2 cards, but a play is one card"
    order = copy.deepcopy(good)
    p = order["tricks"][1]["plays"]
    p[1], p[2] = p[2], p[1]
    assert _error(order).startswith(f"$.tricks[1].plays[1].seat: {p[1]['seat']}, but after {p[0]['seat']} comes ")
    leader = copy.deepcopy(good)
    leader["tricks"][2]["leader"] = next(s for s in SEATS if s != good["tricks"][2]["leader"])
    assert _error(leader).startswith("$.tricks[2]")
    taker = copy.deepcopy(good)
    taker["tricks"][0]["taker"] = next(s for s in SEATS if s != right)
    assert _error(taker).startswith("$.tricks[0].taker: ")
    assert "unless discard_color=penalty" in _error(taker)
    unfinished = copy.deepcopy(good)
    unfinished["tricks"][-1]["winner"] = "N"
    assert "an unfinished trick has no winner yet" in _error(unfinished)


def _crafted(**edits: Any) -> dict[str, Any]:
    """North's request after trick 0 (N 2C, W 3C, S 4C, E 5H: South wins, East shows no clubs)
    and South 6C, East 7C in trick 1 — a revoke by East unless the test edits it."""
    req: dict[str, Any] = {
        "type": "play", "seat": "N", "hand": codes_of("AS KS QS JS TS 9S 8S AD KD QD JD TD"),
        "tricks": [
            {"leader": "N", "plays": [{"seat": "N", "cards": ["2C"]}, {"seat": "W", "cards": ["3C"]},
                                      {"seat": "S", "cards": ["4C"]}, {"seat": "E", "cards": ["5H"]}],
             "winner": "S"},
            {"leader": "S", "plays": [{"seat": "S", "cards": ["6C"]}, {"seat": "E", "cards": ["7C"]}]},
        ],
    }
    req.update(edits)
    return req


def test_what_the_seat_can_check_of_the_others_is_checked() -> None:
    """R5.2 (revoke), R4 (exposure copies and hidden counts), R5.2 penalty taker, R5.1, R5.3."""
    assert _error(_crafted()) == ("$.tricks[1].plays[1].cards: E plays 7C, but showed no clubs in tricks[0] (did "
                                  "not follow suit, R5.2)")
    fine = _crafted()
    fine["tricks"][1]["plays"][1]["cards"] = ["7H"]
    assert "cards" in answer(RandomPlayer(0), fine)  # North has no club: any card
    mine = _crafted(exposures=[{"seat": "E", "card": "QS", "kind": "shown"}])
    mine["tricks"][1]["plays"][1]["cards"] = ["7H"]
    assert _error(mine).startswith("$.exposures: QS is exposed by another seat, but it is also in your hand")
    many = copy.deepcopy(fine)
    many["options"] = {"exposure": "hidden"}
    many["exposures"] = [{"seat": "E", "kind": "hidden"}] * 3
    assert _error(many) == ("$.exposures: 3 hidden exposures of other seats, but only 2 exposable card(s) are "
                            "neither in your hand, nor played, nor exposed visibly (R4.4)")
    penalty = copy.deepcopy(fine)
    penalty["options"] = {"discard_color": "penalty"}
    penalty["tricks"][0]["taker"] = "E"  # East discarded a red card on a club: it may be the offender
    assert "cards" in answer(RandomPlayer(0), penalty)
    assert observation_from_request(penalty).tricks[0].taker == Seat.E
    penalty["tricks"][0]["taker"] = "W"
    assert _error(penalty).startswith("$.tricks[0].taker: W, but W played 3C, not a discard of the wrong colour")
    twice = copy.deepcopy(fine)
    twice["hand"][-1] = "AS"
    assert _error(twice) == "AS appears 2 times (hand[0], hand[11]), but there is only one with 1 deck(s) (R1)"
    west: dict[str, Any] = {"type": "play", "seat": "W", "hand": codes_of("AS KS QS JS TS 9S 8S AD KD QD JD TD 3C"),
            "tricks": [{"leader": "N", "plays": [{"seat": "N", "cards": ["9C"]}]}]}
    assert _error(west) == "$.tricks[0].plays[0].cards: 9C, but the first lead of the match must contain ♣2 (R5.1)"
    west["hand"][-1] = "2C"
    assert _error(west) == ("$.tricks[0].leader: N, but the holder of ♣2 leads the first trick of the match (R5.1) "
                            "and N did not hold it")
    west["hand"][-1] = "3C"
    west["tricks"][0]["plays"][0]["cards"] = ["2C"]
    assert answer(RandomPlayer(0), west) == {"cards": ["3C"]}  # W must follow with its only club


def test_own_earlier_plays_must_have_been_legal() -> None:
    """R4.3: North exposed QS and played it in the first spade trick while holding other spades."""
    req = _crafted(exposures=[{"seat": "N", "card": "QS", "kind": "shown"}])
    req["tricks"][1] = {"leader": "S", "plays": [{"seat": "S", "cards": ["3S"]}, {"seat": "E", "cards": ["4S"]},
                                                 {"seat": "N", "cards": ["QS"]}, {"seat": "W", "cards": ["5S"]}]}
    req["hand"].remove("QS")
    assert _error(req) == ("$.tricks[1].plays[2].cards: N's own play QS was not legal there: it played an exposed "
                           "card in the first trick of its suit (R4.3)")
    req["exposures"] = []
    assert "cards" in answer(RandomPlayer(0), req)


def test_two_deck_trick_shapes() -> None:
    """R5.3: a two-card lead is a pair; every play of a pair trick has two cards."""
    deal = make_deal(PRESETS["online2"], {"N": "2C 2C 3C 3C", "W": "4C 4C 5C"}, keep_out="C", dump="S")
    deal.play(["2C", "2C"])
    deal.play(["4C", "4C"])
    req = deal_to_request(deal, deal.turn or Seat.N)
    assert "cards" in answer(RandomPlayer(0), req)
    bad = copy.deepcopy(req)
    bad["tricks"][0]["plays"][1]["cards"] = ["4C"]
    assert _error(bad) == ("$.tricks[0].plays[1].cards: 1 card(s), but the lead was a pair: every play of the "
                           "trick has 2 (R5.3)")
    bad = copy.deepcopy(req)
    bad["tricks"][0]["plays"][0]["cards"] = ["2C", "3C"]
    assert _error(bad) == "$.tricks[0].plays[0].cards: 2C 3C is not a pair: a lead is one card or two identical " \
                          "cards (R5.3)"


def test_first_lead_and_expose_requests_are_checked() -> None:
    """R3, R5.1, R4: who leads the first trick, and what an expose request holds."""
    deal = Deal.new(PRESETS["online"], 9)
    for seat in Seat:
        deal.declare(seat, [])
    leader = deal.turn
    assert leader is not None
    other = Seat((leader + 1) % 4)
    assert _error(deal_to_request(deal, other)) == (
        f"$.seat: it is not {SEATS[other]}'s turn: the holder of ♣2 leads the first trick of the match (R5.1) "
        f"and {SEATS[other]} does not hold it")
    req = deal_to_request(deal, leader)
    req["first_receiver"] = "E"
    assert _error(req).startswith("$.first_receiver: E, but the first deal of a match (deal_index 0) is dealt")
    later = deal_to_request(deal, leader)
    later["deal_index"] = 2
    del later["first_receiver"]
    assert _error(later).startswith("missing field 'first_receiver': in a later deal")
    fresh = Deal.new(PRESETS["online"], 9)
    exp = deal_to_request(fresh, Seat.S)
    assert exp["type"] == "expose" and len(exp["hand"]) == 13
    short = copy.deepcopy(exp)
    short["hand"].pop()
    assert _error(short).startswith("$.hand: 12 cards, but an expose request gives the whole hand as dealt")
    none = copy.deepcopy(exp)
    none["options"] = {"exposure": "none", "auto_expose_fourth": False}
    assert _error(none).startswith("$.type: exposure=none: players do not choose exposures")
    own = copy.deepcopy(exp)
    own["exposures"] = [{"seat": "S", "card": "QS", "kind": "shown"}]
    assert _error(own).startswith("$.exposures[0]: S has already declared its exposures")
    kind = copy.deepcopy(exp)
    kind["exposures"] = [{"seat": "E", "kind": "hidden"}]
    assert _error(kind).startswith("$.exposures[0].kind: kind 'hidden' is not used under exposure=standard")


def test_expose_answers_name_kinds() -> None:
    """R4.4, R10: the answer lists cards and, in parallel, their kinds (首明 first, 暗卖 hidden)."""
    hands = "QS 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"
    req = {"type": "expose", "preset": "tournament", "seat": "N", "hand": hands.split()}
    seen: set[tuple[str, str]] = set()
    for seed in range(40):
        reply = answer(RandomPlayer(seed), req)
        assert set(reply) == {"expose", "kinds"} and len(reply["expose"]) == len(reply["kinds"])
        seen |= set(zip(reply["expose"], reply["kinds"], strict=True))
    assert seen == {("QS", "first"), ("QS", "shown"), ("TC", "shown")}
    assert answer(RandomPlayer(0), {**req, "id": "x7"})["id"] == "x7"


def test_bad_json_and_internal_errors_never_stop_the_bot(caplog: pytest.LogCaptureFixture) -> None:
    player = RandomPlayer(0)
    assert handle_line(player, "   \n") is None
    assert handle_line(player, "{") == {"error": "not valid JSON: Expecting property name enclosed in double "
                                                 "quotes (column 2)"}
    assert handle_line(player, '{"a": 1, "a": 2}') == {"error": "not valid JSON: duplicate key 'a'"}
    assert handle_line(player, '{"x": NaN}') == {"error": "not valid JSON: NaN is not a JSON number"}
    assert handle_line(player, "[]") == {"error": "a request is a JSON object, not an array"}

    class Unnamed(RandomPlayer):
        @property
        def level(self) -> str:  # type: ignore[override]
            raise ZeroDivisionError("oops")

    assert handle_line(Unnamed(0), '{"id": 5, "type": "info"}') == {
        "id": 5, "error": "internal error: ZeroDivisionError: oops"}
    assert "bot: a request failed" in caplog.text


def test_a_failing_player_is_replaced_for_the_decision(caplog: pytest.LogCaptureFixture) -> None:
    """A player that raises is logged and the intermediate player answers instead (players.guard):
    the bot gives a legal play, not an error."""

    class Broken(RandomPlayer):
        def choose_play(self, obs: Any) -> Any:
            raise ZeroDivisionError("oops")

        def choose_exposures(self, obs: Any) -> Any:
            raise ZeroDivisionError("oops")

    deal, turn = _mid_deal()
    reply = handle_line(Broken(0), json.dumps({**deal_to_request(deal, turn), "id": 5}))
    assert reply is not None and reply["id"] == 5
    assert tuple(parse_card(c) for c in reply["cards"]) in deal.legal_plays()
    assert "ZeroDivisionError: oops" in caplog.text and "the intermediate player stands in" in caplog.text
    expose = {"type": "expose", "seat": "N", "hand": codes_of("AH 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC")}
    reply = handle_line(Broken(0), json.dumps(expose))
    assert reply is not None and set(reply) == {"expose", "kinds"}


def test_bytes_that_are_not_utf8_and_lone_surrogates_are_refused() -> None:
    player = RandomPlayer(0)
    assert handle_line(player, b"\xff\n") == {"error": "not valid UTF-8: byte 0xff at offset 0 (invalid start byte)"}
    assert handle_line(player, b'{"type": "info"}') is not None
    for line, half in [('{"id": "\\ud800", "type": "info"}', "d800"),
                       ('{"type": "play", "seat": "N", "hand": ["\\ud800"]}', "d800"), ('{"\\udfff": 1}', "dfff")]:
        assert handle_line(player, line) == {
            "error": f"not valid JSON: a string holds the lone surrogate \\u{half}, which is not a character"}


def test_a_request_line_is_at_most_64_kib() -> None:
    player = RandomPlayer(0)
    padded = '{"type": "info", "x": "' + "a" * (MAX_LINE_BYTES - 30) + '"}'
    assert len(padded) <= MAX_LINE_BYTES and "protocol" in (handle_line(player, padded) or {})
    too_long = '{"type": "info", "x": "' + "a" * MAX_LINE_BYTES + '"}'
    message = f"a request is at most {MAX_LINE_BYTES} bytes of UTF-8 on one line"
    for line in (too_long, too_long.encode(), '{"x": "' + "北" * (MAX_LINE_BYTES // 3) + '"}'):
        reply = handle_line(player, line)
        assert reply is not None and message in reply["error"] and len(reply["error"]) < 200


def test_error_messages_quote_a_short_excerpt() -> None:
    player = RandomPlayer(0)
    deal, turn = _mid_deal()
    good = deal_to_request(deal, turn)
    long = "QS" * 20_000
    edits: list[dict[str, Any]] = [
        {"preset": long}, {"options": {"decks": long}}, {"options": {long: 1}}, {"hand": long}, {"hand": [long]},
        {"seat": long}, {"type": long}, {"exposures": [{"seat": "N", "kind": long}]}]
    for edit in edits:
        reply = handle_line(player, json.dumps({**good, **edit}))
        assert reply is not None and "QS" * 30 not in reply["error"] and len(reply["error"]) <= MAX_ERROR_CHARS


def test_serve_answers_one_line_per_request() -> None:
    deal, turn = _mid_deal()
    lines = ['{"type": "info"}', "", "nonsense", json.dumps(deal_to_request(deal, turn)),
             json.dumps({"type": "play"}), json.dumps(deal_to_request(deal, turn))]
    out = io.StringIO()
    assert serve(make_player("random", seed=1), io.StringIO("\n".join(lines) + "\n"), out) == 0
    answers = [json.loads(x) for x in out.getvalue().splitlines()]
    assert len(answers) == 5
    assert answers[0]["protocol"] == "gongzhu-bot/1"
    assert "error" in answers[1] and "cards" in answers[2] and "error" in answers[3] and "cards" in answers[4]


def test_serve_reads_bytes_and_goes_on_after_a_bad_line() -> None:
    info = b'{"id": 1, "type": "info"}\n'
    stdin = (b"\xff\n" + info + b'{"id": "\\ud800", "type": "info"}\n' + info + b"x" * (3 * MAX_LINE_BYTES) + b"\n"
             + info + b"\xef\xbb\xbf" + info + b'{"id": 2, "type": "info"}')
    out = io.StringIO()
    assert serve(RandomPlayer(0), io.BytesIO(stdin), out) == 0
    answers = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [sorted(a)[0] for a in answers] == ["error", "id", "error", "id", "error", "id", "error", "id"]
    assert answers[0]["error"] == "not valid UTF-8: byte 0xff at offset 0 (invalid start byte)"
    assert "lone surrogate" in answers[2]["error"]
    assert answers[4]["error"].startswith(f"the request line has more than {MAX_LINE_BYTES} bytes")
    assert "BOM" in answers[6]["error"]
    assert answers[-1]["id"] == 2 and answers[-1]["protocol"] == "gongzhu-bot/1"


# ---------------------------------------------------------------------------------- the command


def _bot(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gongzhu.cli.main", "bot", *args], input=stdin,
                          capture_output=True, text=True, encoding="utf-8", timeout=60, check=False)


def test_the_command_serves_until_end_of_input() -> None:
    deal, turn = _mid_deal("online2", seed=3, tricks=2, extra=2)
    request = deal_to_request(deal, turn)
    expose = {"type": "expose", "seat": "N", "hand": codes_of("AH 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC")}
    lines = [json.dumps(request), "", "{bad", json.dumps({**request, "seat": SEATS[(turn + 1) % 4]}),
             json.dumps(expose), json.dumps(request)]
    done = _bot("--level", "random", "--seed", "1", stdin="\n".join(lines) + "\n")
    assert done.returncode == 0, done.stderr
    answers = [json.loads(x) for x in done.stdout.splitlines()]
    assert len(answers) == 5  # one per request line, none for the blank line
    assert [sorted(a) for a in answers] == [["cards"], ["error"], ["error"], ["expose", "kinds"], ["cards"]]
    assert tuple(parse_card(c) for c in answers[0]["cards"]) in deal.legal_plays()
    again = _bot("--level", "random", "--seed", "1", stdin="\n".join(lines) + "\n")
    assert again.stdout == done.stdout  # reproducible from the seed


def test_the_command_goes_on_after_bad_bytes() -> None:
    stdin = (b'\xff\n{"id": 1, "type": "info"}\n{"id": "\\ud800", "type": "info"}\n'
             b'{"type": "play", "seat": "N", "hand": ["\\ud800"]}\n' + b"[" * 100_000 + b"\n"
             + b"9" * 5000 + b"\n" + b"{" * (2 * MAX_LINE_BYTES) + b'\n{"id": 2, "type": "info"}\n')
    done = subprocess.run([sys.executable, "-m", "gongzhu.cli.main", "bot", "--level", "random"], input=stdin,
                          capture_output=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stderr == b""
    answers = [json.loads(x) for x in done.stdout.decode("utf-8").splitlines()]
    assert [a.get("id") for a in answers] == [None, 1, None, None, None, None, None, 2]
    assert all("error" in a for i, a in enumerate(answers) if i not in (1, 7))
    assert "protocol" in answers[1] and "protocol" in answers[7]


def test_the_command_ends_quietly_on_a_closed_input() -> None:
    done = subprocess.run(["sh", "-c", 'exec "$@" <&-', "sh", sys.executable, "-m", "gongzhu.cli.main", "bot",
                           "--level", "random"], capture_output=True, timeout=60, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def codes_of(text: str) -> list[str]:
    return [c.code for c in parse_cards(text)]


def test_the_command_refuses_an_unknown_level() -> None:
    done = _bot("--level", "grandmaster", stdin="")
    assert done.returncode == 2
    assert "unknown level 'grandmaster'" in done.stderr
    assert _bot("--level", "random", stdin="").returncode == 0
    for think in ("inf", "1e309", "nan", "0", "61"):  # no think time that never ends, nor none
        done = _bot("--level", "expert", "--think", think, stdin="")
        assert done.returncode == 2 and "think must lie in (0, 60] seconds" in done.stderr, (think, done.stderr)


def test_the_documented_session_is_what_the_bot_answers() -> None:
    """docs/bot-protocol.md: every ``>`` request of the example session, sent to the bot started
    as the page says, gets exactly the ``<`` answer printed below it."""
    text = (ROOT / "docs" / "bot-protocol.md").read_text(encoding="utf-8")
    session = text.split("<!-- session:", 1)[1]
    command, body = session.split("-->", 1)
    body = body.split("<!-- end session -->", 1)[0]
    requests = [line[2:] for line in body.splitlines() if line.startswith("> ")]
    expected = [line[2:] for line in body.splitlines() if line.startswith("< ")]
    assert len(requests) == len(expected) >= 4
    args = command.split()
    assert args[:2] == ["gongzhu", "bot"]
    done = _bot(*args[2:], stdin="\n".join(requests) + "\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == expected


def test_request_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match=r"^\$\.seat: "):
        observation_from_request({"type": "play", "seat": 3, "hand": []})
    assert issubclass(RequestError, ValueError)
    assert Options() == PRESETS["online"]


@pytest.mark.parametrize("preset", ["online", "online2"])
def test_the_learned_level_answers_through_the_bot_protocol(preset: str) -> None:
    """The learned player is an ordinary level: the bot command offers it, one and two decks."""
    deal, turn = _mid_deal(preset, seed=5, tricks=3, extra=1)
    request = deal_to_request(deal, turn)
    expose = {"type": "expose", "seat": "N", "hand": codes_of("AH 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC")}
    done = _bot("--level", "learned", stdin=json.dumps(request) + "\n" + json.dumps(expose) + "\n")
    assert done.returncode == 0, done.stderr
    play, exposed = (json.loads(x) for x in done.stdout.splitlines())
    assert tuple(parse_card(c) for c in play["cards"]) in deal.legal_plays()
    assert set(exposed["expose"]) <= {"AH", "TC"} and len(exposed["kinds"]) == len(exposed["expose"])


def test_a_claim_request_claims_only_what_holds_whatever_the_hidden_hands_hold() -> None:
    """R5.4: the bot claims the rest of the tricks when on lead with masters only, no more point
    cards when none is left to take, else nothing; whatever it claims holds at the deal itself
    (the exact search, every hand in view); a claim request before the first lead is refused."""
    player = make_player("random", seed=1)
    claimed = {"all_tricks": 0, "no_points": 0}
    for seed in range(60):
        deal = Deal.new(Options(), seed)
        for s in list(deal.undeclared):
            deal.declare(s, [])
        rng = random.Random(seed)
        while not deal.is_over:
            for seat in Seat:
                if not deal.tricks and not deal.current_trick:
                    continue
                kind = sure_claim(observe(deal, seat))
                req = {**deal_to_request(deal, seat), "type": "claim"}
                got = answer(player, req)
                assert got == {"claim": None if kind is None else {"kind": kind.value}}, got
                if kind is not None:
                    claimed[kind.value] += 1
                    assert check_claim(deal, Claim(seat, kind), limit=0).holds is True
            deal.play(rng.choice(deal.legal_plays()))
    assert claimed["all_tricks"] and claimed["no_points"], claimed
    first = Deal.new(Options(), 1)
    for s in list(first.undeclared):
        first.declare(s, [])
    leader = first.turn
    assert leader is not None
    assert "first lead" in answer(player, {**deal_to_request(first, leader), "type": "claim"})["error"]
