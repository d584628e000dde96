"""Hands and deals written as text, as the rule book writes them (docs/rules.md R1–R10).

Hands are one string per seat, so a test reads like the rule book: ``"QS 3S AH"``.
:func:`make_deal` builds a :class:`~gongzhu.rules.Deal` from such hands (completing any seat left
short with the unused cards, in card order), declares the wanted exposures and starts play.  The
rule book's tables and example hands (R5.3's source example, R10's option values) are here too.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gongzhu.rules import (
    ALL_CARDS,
    PRESETS,
    Card,
    Deal,
    OptionError,
    Options,
    Phase,
    Seat,
    parse_cards,
)

__all__ = [
    "HANDS_A",
    "HANDS_B",
    "R10_VALUES",
    "SOURCE_EXAMPLE",
    "TWO_DECK_OPTS",
    "ExposureItem",
    "codes",
    "complete_hands",
    "declare_random_exposures",
    "legal",
    "make_deal",
    "one_deck_option_sets",
    "phase",
    "play_codes",
    "play_first_legal",
    "play_seq",
    "preset_option_sets",
    "snapshot",
    "two_deck_deal",
]

ExposureItem = str | tuple[str, str]


def codes(cards: Iterable[Card]) -> list[str]:
    return [c.code for c in cards]


def play_codes(play: Sequence[Card]) -> str:
    """A play as text: ``"QS"``, or ``"QS QS"`` / ``"3S 4S"`` for a two-card play."""
    return " ".join(c.code for c in play)


def legal(deal: Deal) -> set[str]:
    """The legal plays of the player to move, as text."""
    return {play_codes(p) for p in deal.legal_plays()}


def complete_hands(
    partial: Mapping[str, str], decks: int = 1, keep_out: str = "", dump: str = "N"
) -> list[list[Card]]:
    """Four hands (N, E, S, W) from text; seats given fewer than ``13 * decks`` cards (or none)
    are topped up, in seat order N, E, S, W, with the cards nobody holds yet, lowest first.

    With ``keep_out`` (suit letters, e.g. ``"S"``) the seats other than ``dump`` are topped up
    without those suits, and ``dump`` gets what is left."""
    size = 13 * decks
    hands: list[list[Card]] = [[], [], [], []]
    for key, text in partial.items():
        hands[Seat.parse(key)] = parse_cards(text)
    used = Counter(c for h in hands for c in h)
    spare = [c for c in ALL_CARDS for _ in range(decks - used[c])]
    dump_seat = Seat.parse(dump)
    if keep_out:
        for seat in Seat:
            if seat != dump_seat:
                h = hands[seat]
                for c in [c for c in spare if c.suit.letter not in keep_out]:
                    if len(h) >= size:
                        break
                    h.append(c)
                    spare.remove(c)
    for h in hands:
        while len(h) < size and spare:
            h.append(spare.pop(0))
    return hands


def make_deal(
    options: Options,
    hands: Mapping[str, str],
    *,
    previous_pig_taker: Seat | None = None,
    first_receiver: Seat = Seat.N,
    exposures: Mapping[str, Sequence[ExposureItem]] | None = None,
    declare: bool = True,
    keep_out: str = "",
    dump: str = "N",
) -> Deal:
    """A deal from explicit hands (completed by :func:`complete_hands`); with ``declare`` every
    seat declares its ``exposures`` (none by default) so the deal is in the play phase."""
    deal = Deal(
        options,
        complete_hands(hands, options.decks, keep_out, dump),
        first_receiver=first_receiver,
        previous_pig_taker=previous_pig_taker,
    )
    if declare and deal.phase == Phase.EXPOSE:
        wanted = {Seat.parse(k): list(v) for k, v in (exposures or {}).items()}
        for seat in Seat:
            deal.declare(seat, wanted.get(seat, []))
    return deal


def phase(deal: Deal) -> Phase:
    """The deal's phase (a call, so that mypy does not narrow it across actions)."""
    return deal.phase


def play_seq(deal: Deal, plays: str) -> None:
    """Play a sequence written as ``"2C 3C 4C 5C / AS KS"``: plays separated by spaces, two-card
    plays joined with ``+`` (``"4S+4S"``); ``/`` is ignored and only helps the reader."""
    for token in plays.replace("/", " ").split():
        deal.play(token.split("+"))


def play_first_legal(deal: Deal, n: int) -> None:
    """Play the first legal play ``n`` times (a deterministic filler)."""
    for _ in range(n):
        deal.play(deal.legal_plays()[0])


def snapshot(deal: Deal) -> tuple[Any, ...]:
    """Everything a refused action must leave exactly as it was."""
    return (
        deal.phase,
        deal.turn,
        deal.leader,
        tuple(tuple(deal.hand(s)) for s in Seat),
        tuple(deal.current_trick),
        tuple(deal.tricks),
        tuple(deal.exposures),
        tuple(deal.undeclared),
        tuple(tuple(deal.captured(s)) for s in Seat),
        tuple(deal.legal_plays()),
        tuple(deal.suits_led),
        deal.pig_taker,
        tuple(deal.restricted_copies(s, c) for s in Seat for c in ALL_CARDS),
        tuple(tuple(deal.exposable(s)) for s in Seat),
    )


def declare_random_exposures(deal: Deal, rng: random.Random, p: float = 0.5) -> None:
    """The exposure phase (R4) with random choices: the seats declare in a random order, each
    exposing each card it may with probability ``p``, in a random allowed kind."""
    seats = list(deal.undeclared)
    rng.shuffle(seats)
    for seat in seats:
        chosen = [(c, rng.choice(deal.exposure_kinds(seat, c))) for c in deal.exposable(seat) if rng.random() < p]
        deal.declare(seat, chosen)


def one_deck_option_sets(overrides: Sequence[Mapping[str, Any]]) -> list[tuple[str, Options]]:
    """Every one-deck preset (R9) with each set of overrides on top (R10)."""
    return preset_option_sets(overrides, decks=1)


def preset_option_sets(overrides: Sequence[Mapping[str, Any]], decks: int) -> list[tuple[str, Options]]:
    """Every preset (R9) with ``decks`` decks, with each set of overrides on top (R10), labelled
    ``preset,key=value…``; combinations the options refuse (e.g. exposure on pig_sheep, R7.4)
    are left out."""
    out: list[tuple[str, Options]] = []
    for name, preset in PRESETS.items():
        if preset.decks != decks:
            continue
        for over in overrides:
            try:
                opts = preset.replace(**over)
            except OptionError:
                continue
            out.append((name + "".join(f",{k}={v}" for k, v in over.items()), opts))
    return out


# ---------------------------------------------------------------------- rule-book tables and hands

# R10 table: every key and the values it takes (integers and deals:N by example).
R10_VALUES: dict[str, list[Any]] = {
    "decks": [1, 2],
    "direction": ["ccw", "cw"],
    "heart_values": ["standard", "book"],
    "exposure": ["standard", "first_card", "hidden", "sell_x4_x2", "all_but_sheep", "all", "none"],
    "auto_expose_fourth": [True, False],
    "exposed_discard_before_suit_led": [True, False],
    "first_lead": ["club2_must", "club2_any", "spade3_any"],
    "discard_color": ["off", "enforce", "penalty"],
    "self_catch": [True, False],
    "scoring": ["raw", "zero_sum", "partners", "pig_sheep"],
    "one_deck_factor": [12, 1, 7],
    "match_limit": [1000, 800, 1],
    "match_end": ["loser", "either", "deals:16", "deals:1"],
    "double_pig": [True, False],
}

# Hand set A: no one holds anything odd; S is void in spades, N in nothing.
HANDS_A = {
    "N": "3S 4S QS 2H 3H AH 2C 3C 2D 3D 4D 5D 6D",
    "E": "2S 6S 7S 8S TS JS KS AS 6H 7H 8H 9H TH",
    "S": "JH QH KH 7C 8C 9C JC QC KC AC QD KD AD",
    "W": "5S 9S 4H 5H 4C 5C 6C TC 7D 8D 9D TD JD",
}
# Hand set B: N holds ♠Q with two small spades and no hearts; W and S hold the hearts.
HANDS_B = {
    "N": "QS 3S 4S 2C 3C 4C 5C 6C 7C 2D 3D 4D 5D",
    "W": "2H 3H 4H 5H 6H 7H 8H 2S 5S 8C 9C TC JC",
    "S": "9H TH JH QH KH AH AS 7S 8S QC KC AC 6D",
    "E": "6S 9S TS JS KS 7D 8D 9D TD JD QD KD AD",
}


TWO_DECK_OPTS = Options(decks=2, auto_expose_fourth=False)
# R5.3 source example: A = N plays ♠4♠4, B = W ♠K♠K, C = S ♠Q♠8, D = E discards.
SOURCE_EXAMPLE = {
    "N": "4S 4S 2S 2S 3S 3S 5S 5S 6S 6S 7S 7S 2H 2H 3H 3H 4H 4H 5H 5H 6H 6H 7H 7H 8H 8H",
    "E": "9H 9H TH TH JH JH QH QH KH KH AH AH 2C 2C 3C 3C 4C 4C 5C 5C 6C 6C 7C 7C 8C 8C",
    "S": "QS 8S 9C 9C TC TC JC JC QC QC KC KC AC AC 2D 2D 3D 3D 4D 4D 5D 5D 6D 6D 7D 7D",
    "W": "KS KS AS AS QS 8S 9S 9S TS TS JS JS 8D 8D 9D 9D TD TD JD JD QD QD KD KD AD AD",
}


def two_deck_deal(
    hands: dict[str, str], leader: Seat, keep_out: str = "", **overrides: Any
) -> Deal:
    opts = TWO_DECK_OPTS.replace(**overrides) if overrides else TWO_DECK_OPTS
    return make_deal(opts, hands, previous_pig_taker=leader, keep_out=keep_out,
                     dump=leader.name)


def finished_record(seed: int) -> str:
    """The R11 record of a deal played to its end by random legal plays."""
    from gongzhu.records.format import deal_to_record
    from gongzhu.rules import Deal, Options

    rng = random.Random(seed)
    deal = Deal.new(Options(), seed)
    for seat in list(deal.undeclared):
        deal.declare(seat, [])
    while (turn := deal.turn) is not None:
        deal.play(rng.choice(deal.legal_plays()), turn)
    return json.dumps(deal_to_record(deal, match_id="m-test", preset="online"))
