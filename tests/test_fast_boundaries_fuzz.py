"""The C fast paths' boundaries under random input: ``gongzhu.search.fast.encode_parts`` (one deck),
``gongzhu.search.fast2.encode_parts`` (two decks), the two-deck C module's own ``encode`` and the
position blobs of both.

Positions of real deals (R3–R5 played at random) must encode to the deal's own position; positions
no deal can reach (a card more often than the decks hold it, hands of sizes the trick does not
explain, a trick of the wrong shape, seats out of range, bound copies nobody exposed, exposures of
cards that cannot be exposed, a first lead of the ♣2 by a seat without it …) must be refused with a
``ValueError`` — or, where a boundary accepts one, give a well-formed position whose legal plays,
plays and playouts run (a position the C module is handed directly may raise ``ValueError`` there
too).  Never a crash:
the C writes no list longer than its array (a two-deck hand of 78 cards answering a pair lead has
780 two-card answers, more than the 400 the C keeps).  That case runs in a child process too, so
that a crash shows as its exit status rather than ending the test run.

Example counts follow the hypothesis profile (``scaled``); the long runs are marked ``slow``.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import gongzhu.rules._fastplay2 as _c2
from gongzhu.rules import ALL_CARDS, EXPOSABLE, PRESETS, Deal, Options, Phase, Seat
from gongzhu.rules.cards import Card, cards_in, hand_masks, parse_cards
from gongzhu.rules.model import Exposure
from gongzhu.rules.options import EXPOSURE_KINDS
from gongzhu.search import fast, fast2
from helpers.deals import declare_random_exposures, preset_option_sets
from helpers.fastpath import ONE_DECK_OPTION_SETS
from helpers.volume import scaled

TWO_DECK_OPTION_SETS = preset_option_sets(
    [{}, {"discard_color": "penalty"}, {"discard_color": "enforce", "direction": "cw"}, {"exposure": "all"},
     {"exposed_discard_before_suit_led": True}, {"first_lead": "club2_any"}],
    decks=2,
)
NON_SPADES = [c for c in ALL_CARDS if c.suit.letter != "S"]
NON_SPADES_MASK = sum(c.bit for c in NON_SPADES)
S2 = parse_cards("2S")[0]
C2 = parse_cards("2C")[0]


def played(options: Options, seed: int, n_plays: int) -> Deal:
    """A deal dealt from ``seed``, random exposures declared (R4), then ``n_plays`` random plays."""
    rng = random.Random(seed)
    deal = Deal.new(options, seed, deal_index=seed % 2,
                    previous_pig_taker=Seat(seed % 4) if seed % 2 else None)
    declare_random_exposures(deal, rng, 0.5)
    assert deal.phase == Phase.PLAY
    for _ in range(n_plays):
        if deal.is_over:
            break
        deal.play(rng.choice(list(deal.legal_plays())))
    return deal


# ---------------------------------------------------------------------- well-formed results


def _is_scores(v: object) -> bool:
    return isinstance(v, tuple) and len(v) == 4 and all(type(x) is int for x in v)


def refused_or(call: Callable[[], Any]) -> Any:
    """``call()``, or None when it raises ValueError (a refusal that says why)."""
    try:
        return call()
    except ValueError as e:
        assert str(e)
        return None


def check_two_deck(pos: fast2.FastPosition2, seed: int, *, reachable: bool,
                   held: tuple[int, int] | None = None) -> None:
    """A two-deck position is well-formed: its legal plays are one card or two, sorted, distinct,
    held by the mover (``held``: its cards held once, twice, where known), none once over and some
    while not (``reachable``: checked by ``encode_parts``); a play gives a position; playouts end
    within 104 plays with scores."""
    turn, over = _c2.turn(pos.blob)
    assert 0 <= turn <= 3 and over in (0, 1)
    assert _is_scores(pos.raw_scores())
    plays = refused_or(pos.legal_plays)
    if plays is None:
        assert not reachable, "a position encode_parts accepts has its legal plays"
        return
    assert isinstance(plays, tuple) and len(set(plays)) == len(plays) <= 400
    assert (plays == ()) == over or not reachable
    for p in plays:
        assert len(p) in (1, 2) and list(p) == sorted(p) and all(type(c) is int and 0 <= c < 52 for c in p)
        if held is not None:
            assert all(held[0] >> c & 1 for c in p) and (len(p) == 1 or p[0] != p[1] or held[1] >> p[0] & 1)
    if plays:
        after = pos.play(plays[seed % len(plays)])
        assert isinstance(after, fast2.FastPosition2)
    trace = refused_or(lambda: pos.playout_trace(seed, policy=seed % 2))
    if trace is not None:
        assert len(trace.plays) <= 104 and _is_scores(trace.raw)
        assert all(len(p) in (1, 2) and all(0 <= c < 52 for c in p) for p in trace.plays)
        assert pos.playout_sums(1, seed, policy=seed % 2) == trace.raw
    else:
        assert not reachable, "a position encode_parts accepts plays out"
    sums = refused_or(lambda: pos.playout_sums(3, seed))  # other streams may meet a dead end, or not
    assert sums is not None or not reachable
    assert sums is None or _is_scores(sums)


def check_one_deck(pos: fast.FastPosition, seed: int, *, reachable: bool) -> None:
    """A one-deck position is well-formed: its legal cards are the mover's, none once over and
    some while not (``reachable``: checked by ``encode_parts``); a legal card gives a position; a
    playout ends within 52 cards with scores (or, unless ``reachable``, is refused, ValueError)."""
    legal = pos.legal_mask()
    hands = pos.hands
    assert legal & ~hands[pos.turn] == 0
    assert legal == 0 or not pos.is_over
    assert (legal == 0) == pos.is_over or not reachable, "a position encode_parts accepts has its legal cards"
    assert _is_scores(pos.raw_scores())
    if legal:
        card = [c.index for c in cards_in(legal)][seed % legal.bit_count()]
        assert isinstance(pos.play(card), fast.FastPosition)
    trace = refused_or(lambda: pos.playout_trace(seed, policy=seed % 2))
    if trace is not None:
        assert len(trace.cards) <= 52 and _is_scores(trace.raw)
        assert pos.playout_sums(1, seed, policy=seed % 2) == trace.raw
    else:
        assert not reachable, "a position encode_parts accepts plays out"


# ---------------------------------------------------------------------- the parts of a deal's position


def two_deck_parts(deal: Deal) -> dict[str, Any]:
    """The keyword arguments of ``fast2.encode_parts`` for the deal's position."""
    pos = deal.position()
    bound = [[*cards_in(pos.restricted[s]), *cards_in(pos.restricted_twice[s])] for s in range(4)]
    return {
        "hands": [deal.hand(s) for s in Seat],
        "bound": bound,
        "captured": [list(c) for c in pos.captured],
        "exposures": list(deal.exposures),
        "trick": [list(p) for _, p in pos.trick],
        "leader": pos.leader,
        "turn": pos.turn,
        "offender": pos.offender,
        "suits_led": pos.suits_led,
        "must_lead_c2": pos.must_lead_c2,
    }


def one_deck_parts(deal: Deal) -> dict[str, Any]:
    """The keyword arguments of ``fast.encode_parts`` for the deal's position."""
    pos = deal.position()
    return {
        "hands": list(pos.hands),
        "restricted": list(pos.restricted),
        "captured": [list(c) for c in pos.captured],
        "exposures": list(deal.exposures),
        "dealt": [list(h) for h in deal.dealt],
        "trick": [p[0] for _, p in pos.trick],
        "leader": pos.leader,
        "turn": pos.turn,
        "led": pos.led,
        "offender": pos.offender,
        "suits_led": pos.suits_led,
        "must_lead_c2": pos.must_lead_c2,
    }


# ---------------------------------------------------------------------- the reproduction

#: Four hands of every card but the spades, twice (78 cards each, a card eight times in all),
#: answering a ♠2 pair: through fast2.encode_parts, and through the C module's encode, which does
#: not check hand sizes and whose legal plays would be 780 two-card answers.
REPRODUCTION = """
import gongzhu.rules._fastplay2 as c
from gongzhu.rules.cards import ALL_CARDS, parse_cards
from gongzhu.rules.options import PRESETS
from gongzhu.search.fast2 import encode_parts
hand = [card for card in ALL_CARDS if card.suit.letter != "S"] * 2
s2 = parse_cards("2S")[0]
try:
    encode_parts(PRESETS["online2"], hands=[hand] * 4, bound=[[]] * 4, captured=[[]] * 4, exposures=[],
                 trick=[(s2, s2)], leader=0, turn=1)
    print("encode_parts: accepted")
except ValueError as e:
    print("encode_parts: ValueError:", e)
mask = sum(1 << card.index for card in set(hand))
blob = c.encode([mask] * 4, [mask] * 4, [0] * 4, [0] * 4, [0] * 4, [0] * 4, (0, 0, 0, 0), [(s2.index, s2.index)],
                0, 1, -1, 0, False, True, False, 0, False)
for name, call in [("legal_plays", lambda: c.legal_plays(blob)), ("play", lambda: c.play(blob, (13, 14))),
                   ("playout_sums", lambda: c.playout_sums(blob, 3, 1)),
                   ("playout_trace", lambda: c.playout_trace(blob, 1, 1))]:
    try:
        call()
        print(name + ": returned")
    except ValueError as e:
        print(name + ": ValueError:", e)
"""


def test_the_reproduction_is_refused_and_does_not_crash() -> None:
    """R3, R5.3: a deal gives each seat 26 cards: 78-card hands are refused by encode_parts before
    the C sees them, and the C module refuses to list more legal plays than it keeps (ValueError)
    rather than writing past its array — in a child process, which must exit cleanly."""
    done = subprocess.run([sys.executable, "-c", REPRODUCTION], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"exit status {done.returncode}\n{done.stdout}{done.stderr}"
    lines = done.stdout.splitlines()
    assert lines[0] == "encode_parts: ValueError: 2H: 8 copies, and two decks hold 2 (8 in the hands, 0 in the " \
                       "trick, 0 taken)", lines
    for name in ("legal_plays", "play", "playout_sums", "playout_trace"):
        line = next(x for x in lines if x.startswith(name + ":"))
        assert "ValueError: impossible position: the player to move has more than 400 legal plays" in line, line


def test_the_reproduction_is_refused_in_process() -> None:
    """The same hands through encode_parts here (refused in Python: the C never sees them)."""
    with pytest.raises(ValueError, match=r"^2H: 8 copies, and two decks hold 2"):
        fast2.encode_parts(PRESETS["online2"], hands=[NON_SPADES * 2] * 4, bound=[[]] * 4, captured=[[]] * 4,
                           exposures=[], trick=[(S2, S2)], leader=0, turn=1)


# ---------------------------------------------------------------------- precise refusals, two decks


def _first_lead() -> dict[str, Any]:
    deal = Deal.new(PRESETS["online2"], 11)
    for s in Seat:
        deal.declare(s, [])
    return two_deck_parts(deal)


def _moved(parts: dict[str, Any], src: int, dst: int) -> dict[str, Any]:
    hands = [list(h) for h in parts["hands"]]
    hands[dst].append(hands[src].pop())
    return {**parts, "hands": hands}


def _dropped(parts: dict[str, Any], seat: int) -> dict[str, Any]:
    hands = [list(h) for h in parts["hands"]]
    hands[seat].pop()
    return {**parts, "hands": hands}


def _led_and_dropped(parts: dict[str, Any]) -> dict[str, Any]:
    """N leads a card and the next seat, to answer, holds one card too few."""
    hands = [list(h) for h in parts["hands"]]
    lead = hands[0].pop()
    answer = 1 if PRESETS["online2"].clockwise else 3
    hands[answer].pop()
    return {**parts, "hands": hands, "trick": [[lead]], "leader": 0, "turn": answer, "must_lead_c2": False}


def _tripled(parts: dict[str, Any]) -> dict[str, Any]:
    hands = [list(h) for h in parts["hands"]]
    hands[0] += [hands[0][0]] * 2
    return {**parts, "hands": hands}


def _bound_unexposed(parts: dict[str, Any]) -> dict[str, Any]:
    seat = next(s for s in range(4) if EXPOSABLE[0] in parts["hands"][s])
    bound: list[list[Card]] = [[], [], [], []]
    bound[seat] = [EXPOSABLE[0]]
    return {**parts, "bound": bound}


def _leader_without_c2(parts: dict[str, Any]) -> dict[str, Any]:
    other = next(s for s in range(4) if parse_cards("2C")[0] not in parts["hands"][s])
    return {**parts, "leader": other, "turn": other, "must_lead_c2": True}


def _moved_to_captured(parts: dict[str, Any]) -> dict[str, Any]:
    hands = [list(h) for h in parts["hands"]]
    card = next(c for c in hands[0] if c.suit.letter == "C")
    hands[0].remove(card)
    return {**parts, "hands": hands, "captured": [[card], [], [], []]}


REFUSALS: list[tuple[str, Callable[[dict[str, Any]], dict[str, Any]], str]] = [
    ("a card three times in a hand", _tripled, r"hands: N has [34] copies of \w+; two decks hold 2"),
    ("27 and 25 cards", lambda p: _moved(p, 1, 0), r"hands: N holds 27 cards; a two-deck hand holds at most 26"),
    ("a card short during a trick", _led_and_dropped,
     r"hands: the seats hold N 25, (E 25, S 26, W 26|E 26, S 26, W 25) cards; each holds as many as the others "
     r"less what it played to the trick in progress, so N 25, E 26, S 26, W 26"),
    ("a card short at the first lead", lambda p: _dropped(p, 1),
     r"hands: the seats hold N 26, E 25, S 26, W 26 cards; each holds as many as the others less what it "
     r"played to the trick in progress, so N 26, E 26, S 26, W 26"),
    ("a card three times taken", lambda p: {**p, "captured": [list(parse_cards("AH AH AH")), [], [], []]},
     r"captured: N has 3 copies of AH; two decks hold 2"),
    ("a card five times", lambda p: {**p, "captured": [list(parse_cards("AH")), list(parse_cards("AH AH")), [], []]},
     r"AH: 5 copies, and two decks hold 2 \(2 in the hands, 0 in the trick, 3 taken\)"),
    ("a turn out of order", lambda p: {**p, "turn": (p["leader"] + 2) % 4}, r"turn: with 0 play\(s\) in the trick"),
    ("a seat out of range", lambda p: {**p, "leader": 4}, r"leader must be a seat 0\.\.3"),
    ("suits led before any trick", lambda p: {**p, "suits_led": 3}, r"suits_led: 2 suits led in finished tricks"),
    ("a taken card that scores nothing", _moved_to_captured, r"captured: N took \w+, which is no point"),
    ("a lead of two cards", lambda p: {**p, "trick": [parse_cards("3S 4S")]}, r"trick: the lead 3S 4S is neither"),
    ("a card index out of range", lambda p: {**p, "trick": [[52]]}, r"trick: play 1 has 52, which is no card"),
    ("an offender without the penalty rule", lambda p: {**p, "offender": 1}, r"offender: only discard_color=penalty"),
    ("a bound copy nobody exposed", _bound_unexposed, r"bound: \w has 1 bound copies of QS and exposed 0"),
    ("a bound card that is not exposable", lambda p: {**p, "bound": [[p["hands"][0][0]], [], [], []]},
     r"bound: \w+ is not an exposable card"),
    ("an unknown exposure kind", lambda p: {**p, "exposures": [Exposure(Seat.N, EXPOSABLE[0], "sold")]},
     r"exposures: QS exposed as 'sold', not a kind of"),
    ("an exposed card that is not exposable", lambda p: {**p, "exposures": [Exposure(Seat.N, parse_cards("5C")[0],
                                                                                     "shown")]},
     r"exposures: 5C is not an exposable card"),
    ("a first lead by a seat without a ♣2", _leader_without_c2, r"must_lead_c2: .* holds none"),
]


@pytest.mark.parametrize(("what", "change", "message"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_impossible_two_deck_positions_are_refused_precisely(
        what: str, change: Callable[[dict[str, Any]], dict[str, Any]], message: str) -> None:
    """R3–R5: each impossible two-deck position is refused by encode_parts, saying what is wrong."""
    parts = _first_lead()
    fast2.encode_parts(PRESETS["online2"], **parts)  # the position as dealt is accepted
    with pytest.raises(ValueError, match=message):
        fast2.encode_parts(PRESETS["online2"], **change(parts))


# ---------------------------------------------------------------------- precise refusals, one deck


def _one_deck_first_lead() -> dict[str, Any]:
    deal = Deal.new(PRESETS["online"], 11)
    for s in Seat:
        deal.declare(s, [])
    return one_deck_parts(deal)


def _one_deck_without_c2(parts: dict[str, Any]) -> dict[str, Any]:
    other = next(s for s in range(4) if not parts["hands"][s] >> C2.index & 1)
    return {**parts, "leader": other, "turn": other}


def _one_deck_c2_led(parts: dict[str, Any]) -> dict[str, Any]:
    """The leader has led the ♣2 and the next seat is to answer, still under ``must_lead_c2``."""
    hands = list(parts["hands"])
    leader = parts["leader"]
    hands[leader] &= ~C2.bit
    step = 1 if PRESETS["online"].clockwise else 3
    return {**parts, "hands": hands, "trick": [C2.index], "led": int(C2.suit), "turn": (leader + step) % 4}


ONE_DECK_REFUSALS: list[tuple[str, Callable[[dict[str, Any]], dict[str, Any]], str]] = [
    ("an exposed card that is not exposable", lambda p: {**p, "exposures": [Exposure(Seat.N, C2, "shown")]},
     "exposures: 2C is not an exposable card (QS JD TC AH, R4.1)"),
    ("an unknown exposure kind", lambda p: {**p, "exposures": [Exposure(Seat.N, EXPOSABLE[0], "sold")]},
     f"exposures: QS exposed as 'sold', not a kind of {EXPOSURE_KINDS} (R10)"),
    ("a card exposed twice", lambda p: {**p, "exposures": [Exposure(Seat.N, EXPOSABLE[1], "shown"),
                                                           Exposure(Seat.E, EXPOSABLE[1], "hidden")]},
     "exposures: JD exposed 2 times; one deck holds 1"),
    ("a first lead by a seat without the ♣2", _one_deck_without_c2,
     "must_lead_c2: the first lead must be the ♣2 (R5.1), and {seat}, to lead, holds none"),
    ("a first lead with a trick in progress", _one_deck_c2_led,
     "must_lead_c2: only the first lead of the deal must be the ♣2 (R5.1), and the trick in progress has 1 "
     "card(s)"),
]


@pytest.mark.parametrize(("what", "change", "message"), ONE_DECK_REFUSALS, ids=[r[0] for r in ONE_DECK_REFUSALS])
def test_impossible_one_deck_positions_are_refused_precisely(
        what: str, change: Callable[[dict[str, Any]], dict[str, Any]], message: str) -> None:
    """R4.1, R5.1, R10: each impossible one-deck position is refused by encode_parts with exactly
    this message (not a KeyError, nor a position whose playouts fail later)."""
    options = PRESETS["online"]
    parts = _one_deck_first_lead()
    assert parts["must_lead_c2"]
    fast.encode_parts(options, **parts)  # the position as dealt is accepted
    changed = change(parts)
    expected = message.format(seat="NESW"[changed["leader"]])
    with pytest.raises(ValueError, match=f"^{re.escape(expected)}$"):
        fast.encode_parts(options, **changed)


# ---------------------------------------------------------------------- positions of real deals


def _two_deck_real(index: int, seed: int, n_plays: int) -> None:
    options = TWO_DECK_OPTION_SETS[index][1]
    deal = played(options, seed, n_plays)
    if deal.is_over:
        return
    parts = two_deck_parts(deal)
    pos = fast2.encode_parts(options, **parts)
    assert pos == fast2.encode(deal)
    check_two_deck(pos, seed, reachable=True, held=hand_masks(parts["hands"][pos.turn]))


def _one_deck_real(index: int, seed: int, n_plays: int) -> None:
    options = ONE_DECK_OPTION_SETS[index][1]
    deal = played(options, seed, n_plays)
    if deal.is_over:
        return
    pos = fast.encode_parts(options, **one_deck_parts(deal))
    assert pos == fast.encode(deal)
    check_one_deck(pos, seed, reachable=True)


@settings(max_examples=scaled(60), deadline=None)
@given(index=st.integers(0, len(TWO_DECK_OPTION_SETS) - 1), seed=st.integers(0, 2**32),
       n_plays=st.integers(0, 110))
def test_two_deck_positions_of_deals_encode_as_the_deal(index: int, seed: int, n_plays: int) -> None:
    """R3–R5: any position of a two-deck deal passes fast2.encode_parts and is the deal's own."""
    _two_deck_real(index, seed, n_plays)


@settings(max_examples=scaled(60), deadline=None)
@given(index=st.integers(0, len(ONE_DECK_OPTION_SETS) - 1), seed=st.integers(0, 2**32),
       n_plays=st.integers(0, 55))
def test_one_deck_positions_of_deals_encode_as_the_deal(index: int, seed: int, n_plays: int) -> None:
    """R3–R5: any position of a one-deck deal passes fast.encode_parts and is the deal's own."""
    _one_deck_real(index, seed, n_plays)


# ---------------------------------------------------------------------- impossible positions


def _random_card(rng: random.Random) -> Card:
    return ALL_CARDS[rng.randrange(52)]


def _mutate_two_deck(parts: dict[str, Any], rng: random.Random) -> None:
    """One random change of the parts, most of which no deal can reach."""
    hands: list[list[Card]] = parts["hands"]
    kind = rng.randrange(16)
    seat = rng.randrange(4)
    if kind == 0:
        hands[seat].append(_random_card(rng))
    elif kind == 1 and hands[seat]:
        hands[seat].pop(rng.randrange(len(hands[seat])))
    elif kind == 2 and hands[seat]:
        hands[(seat + 1) % 4].append(hands[seat].pop())
    elif kind == 3 and hands[seat]:
        hands[seat] += [rng.choice(hands[seat])] * rng.randint(1, 3)
    elif kind == 4:
        parts[rng.choice(["turn", "leader"])] = rng.randint(-1, 4)
    elif kind == 5:
        parts["offender"] = rng.randint(-2, 4)
    elif kind == 6:
        parts["suits_led"] = rng.randint(-1, 17)
    elif kind == 7:
        play: list[Card | int] = [_random_card(rng) for _ in range(rng.randint(1, 2))]
        parts["trick"] = [*parts["trick"], play]
    elif kind == 8:
        parts["trick"] = parts["trick"][:rng.randrange(len(parts["trick"]) + 1)]
    elif kind == 9 and parts["trick"]:
        i = rng.randrange(len(parts["trick"]))
        changed = list(parts["trick"][i])
        changed[rng.randrange(len(changed))] = rng.choice([rng.randint(-2, 55), _random_card(rng)])
        parts["trick"] = [*parts["trick"][:i], changed, *parts["trick"][i + 1:]]
    elif kind == 10:
        parts["bound"][seat].append(rng.choice([*EXPOSABLE, _random_card(rng)]))
    elif kind == 11:
        parts["captured"][seat].append(_random_card(rng))
    elif kind == 12:
        parts["exposures"].append(Exposure(Seat(seat), rng.choice([*EXPOSABLE, _random_card(rng)]),
                                           rng.choice([*EXPOSURE_KINDS, "sold"])))
    elif kind == 13:
        parts["must_lead_c2"] = not parts["must_lead_c2"]
    elif kind == 14:  # any hands at all, up to every card but one suit twice
        for s in range(4):
            pool = [c for c in ALL_CARDS if rng.random() < 0.8] * 2
            hands[s] = rng.sample(pool, rng.randint(0, len(pool)))
    else:  # the reproduction's shape: every card of three suits twice, and a pair lead of the fourth
        led = rng.randrange(4)
        for s in range(4):
            hands[s] = [c for c in ALL_CARDS if c.suit != led] * 2
        lead = ALL_CARDS[13 * led + rng.randrange(13)]
        parts["trick"] = [[lead, lead]]
        parts["turn"] = (parts["leader"] + (1 if rng.random() < 0.5 else 3)) % 4


def _mutate_one_deck(parts: dict[str, Any], rng: random.Random) -> None:
    kind = rng.randrange(12)
    seat = rng.randrange(4)
    hands: list[int] = parts["hands"]
    if kind == 0:
        hands[seat] ^= 1 << rng.randrange(56)
    elif kind == 1 and hands[seat]:
        low = hands[seat] & -hands[seat]
        hands[seat] ^= low
        hands[(seat + 1) % 4] |= low
    elif kind == 2:
        parts["restricted"][seat] ^= 1 << rng.randrange(52)
    elif kind == 3:
        parts["captured"][seat].append(_random_card(rng))
    elif kind == 4:
        parts["trick"] = [*parts["trick"], rng.randint(-2, 55)][: rng.randint(0, 4)]
    elif kind == 5:
        parts[rng.choice(["turn", "leader", "led", "offender"])] = rng.randint(-2, 4)
    elif kind == 6:
        parts["suits_led"] = rng.randint(-1, 17)
    elif kind == 7:
        special = rng.choice(EXPOSABLE)
        for h in parts["dealt"]:
            if special in h:
                h.remove(special)
        if rng.random() < 0.7:
            parts["dealt"][seat].append(special)
        if rng.random() < 0.3:
            parts["dealt"][(seat + 1) % 4].append(special)
    elif kind == 8:
        parts["must_lead_c2"] = not parts["must_lead_c2"]
    elif kind == 9:  # exposures of any card, in any kind or none of R10
        parts["exposures"].append(Exposure(Seat(seat), rng.choice([*EXPOSABLE, _random_card(rng)]),
                                           rng.choice([*EXPOSURE_KINDS, "sold"])))
    elif kind == 10:
        parts["hands"] = [rng.getrandbits(52) for _ in range(4)]
    else:
        parts["hands"] = [(1 << 52) - 1] * 4


def _two_deck_impossible(index: int, seed: int, n_plays: int, changes: int) -> None:
    options = TWO_DECK_OPTION_SETS[index][1]
    deal = played(options, seed, n_plays)
    parts = two_deck_parts(deal)
    rng = random.Random(seed ^ changes)
    for _ in range(changes):
        _mutate_two_deck(parts, rng)
    pos = refused_or(lambda: fast2.encode_parts(options, **parts))
    if pos is not None:
        check_two_deck(pos, seed, reachable=True, held=hand_masks(parts["hands"][pos.turn]))


def _one_deck_impossible(index: int, seed: int, n_plays: int, changes: int) -> None:
    options = ONE_DECK_OPTION_SETS[index][1]
    deal = played(options, seed, n_plays)
    parts = one_deck_parts(deal)
    rng = random.Random(seed ^ changes)
    for _ in range(changes):
        _mutate_one_deck(parts, rng)
    pos = refused_or(lambda: fast.encode_parts(options, **parts))
    if pos is not None:
        check_one_deck(pos, seed, reachable=True)


_TWO_DECK_IMPOSSIBLE = given(index=st.integers(0, len(TWO_DECK_OPTION_SETS) - 1), seed=st.integers(0, 2**32),
                             n_plays=st.integers(0, 104), changes=st.integers(1, 3))
_ONE_DECK_IMPOSSIBLE = given(index=st.integers(0, len(ONE_DECK_OPTION_SETS) - 1), seed=st.integers(0, 2**32),
                             n_plays=st.integers(0, 52), changes=st.integers(1, 3))


@settings(max_examples=scaled(150), deadline=None)
@_TWO_DECK_IMPOSSIBLE
def test_impossible_two_deck_positions_are_refused(index: int, seed: int, n_plays: int, changes: int) -> None:
    """Changed parts of a two-deck deal's position: refused (ValueError), or a well-formed
    position whose legal plays and playouts run."""
    _two_deck_impossible(index, seed, n_plays, changes)


@settings(max_examples=scaled(150), deadline=None)
@_ONE_DECK_IMPOSSIBLE
def test_impossible_one_deck_positions_are_refused(index: int, seed: int, n_plays: int, changes: int) -> None:
    """Changed parts of a one-deck deal's position: refused (ValueError), or a well-formed position."""
    _one_deck_impossible(index, seed, n_plays, changes)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@_TWO_DECK_IMPOSSIBLE
def test_impossible_two_deck_positions_at_length(index: int, seed: int, n_plays: int, changes: int) -> None:
    _two_deck_impossible(index, seed, n_plays, changes)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@_ONE_DECK_IMPOSSIBLE
def test_impossible_one_deck_positions_at_length(index: int, seed: int, n_plays: int, changes: int) -> None:
    _one_deck_impossible(index, seed, n_plays, changes)


# ---------------------------------------------------------------------- the C module's own input


def _c2_masks(draw: Callable[[int], int], seed: int) -> tuple[list[int], ...]:
    rng = random.Random(seed)
    h1 = [draw(s) for s in range(4)]
    h2 = [m & rng.getrandbits(52) for m in h1]
    r1 = [m & rng.getrandbits(52) for m in h1]
    r2 = [r & m & rng.getrandbits(52) for r, m in zip(r1, h2, strict=True)]
    c1 = [rng.getrandbits(52) & ~m for m in h1]
    c2 = [m & rng.getrandbits(52) for m in c1]
    return h1, h2, r1, r2, c1, c2


@settings(max_examples=scaled(150), deadline=None)
@given(seed=st.integers(0, 2**32), density=st.sampled_from([0.05, 0.3, 0.9, 1.0]),
       trick=st.lists(st.lists(st.integers(0, 51), min_size=1, max_size=2), max_size=3),
       leader=st.integers(0, 3), turn=st.integers(0, 3), offender=st.integers(-1, 3),
       suits_led=st.integers(0, 15), must_c2=st.booleans(), clockwise=st.booleans(),
       discard_color=st.integers(0, 2))
@example(seed=0, density=1.0, trick=[[0, 0]], leader=0, turn=1, offender=-1, suits_led=0, must_c2=False,
         clockwise=True, discard_color=0)
def test_the_two_deck_c_module_writes_no_list_past_its_end(
        seed: int, density: float, trick: list[list[int]], leader: int, turn: int, offender: int, suits_led: int,
        must_c2: bool, clockwise: bool, discard_color: int) -> None:
    """The C module's encode checks shapes and ranges only (the hand sizes are encode_parts'
    business): on any masks its legal plays, plays and playouts are well-formed or refused, the
    780 answers of the densest hands included (density 1.0 against a spade pair: every card but the
    spades twice)."""
    rng = random.Random(seed)

    def draw(_seat: int) -> int:
        if density == 1.0:
            return NON_SPADES_MASK if trick and trick[0][0] < 13 else (1 << 52) - 1
        return sum(1 << c for c in range(52) if rng.random() < density)

    h1, h2, r1, r2, c1, c2 = _c2_masks(draw, seed)
    if density == 1.0:
        h2 = list(h1)
    exposed = (rng.randint(0, 2), rng.randint(0, 2), rng.randint(0, 2), rng.randint(0, 2))
    blob = refused_or(lambda: _c2.encode(h1, h2, r1, r2, c1, c2, exposed, trick, leader, turn, offender,
                                         suits_led, must_c2, clockwise, False, discard_color, False))
    if blob is not None:
        check_two_deck(fast2.FastPosition2(blob), seed, reachable=False, held=(h1[turn], h2[turn]))


def _mutated_blob(blob: bytes, seed: int, flips: int) -> bytes:
    rng = random.Random(seed)
    data = bytearray(blob)
    for _ in range(flips):
        data[rng.randrange(len(data))] = rng.choice([0, 1, 2, 3, 0x7F, 0x80, 0xFF, rng.randrange(256)])
    return bytes(data)


@settings(max_examples=scaled(150), deadline=None)
@given(seed=st.integers(0, 2**32), n_plays=st.integers(0, 100), flips=st.integers(1, 4))
def test_changed_position_blobs_are_refused_or_play(seed: int, n_plays: int, flips: int) -> None:
    """A position blob with bytes changed (a seat, a trick slot, a mask, an option): each C module
    refuses it (ValueError) or plays it without writing past an array."""
    two = played(PRESETS["online2"], seed, n_plays)
    if not two.is_over:
        blob2 = _mutated_blob(fast2.encode(two).blob, seed, flips)
        pos2 = refused_or(lambda: fast2.FastPosition2(blob2))
        if pos2 is not None and refused_or(pos2.raw_scores) is not None:
            check_two_deck(pos2, seed, reachable=False)
    one = played(PRESETS["online"], seed, n_plays // 2)
    if not one.is_over:
        blob1 = _mutated_blob(fast.encode(one).blob, seed, flips)
        pos1 = refused_or(lambda: fast.FastPosition(blob1))
        if pos1 is not None:
            check_one_deck(pos1, seed, reachable=False)


def test_every_boundary_is_exercised() -> None:
    """The fuzzers above reach both outcomes: refusals and accepted positions, for both decks."""
    refused: dict[int, set[bool]] = {1: set(), 2: set()}
    for seed in range(60):
        two = TWO_DECK_OPTION_SETS[seed % len(TWO_DECK_OPTION_SETS)][1]
        parts = two_deck_parts(played(two, seed, seed % 40))
        _mutate_two_deck(parts, random.Random(seed))
        try:
            fast2.encode_parts(two, **parts)
            refused[2].add(False)
        except ValueError:
            refused[2].add(True)
        one = ONE_DECK_OPTION_SETS[seed % len(ONE_DECK_OPTION_SETS)][1]
        parts = one_deck_parts(played(one, seed, seed % 40))
        _mutate_one_deck(parts, random.Random(seed))
        try:
            fast.encode_parts(one, **parts)
            refused[1].add(False)
        except ValueError:
            refused[1].add(True)
    assert refused == {1: {True, False}, 2: {True, False}}
