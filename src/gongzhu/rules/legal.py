"""Legal plays (R4.3, R4.5, R5.1–R5.3) from what the player to move holds and sees.

Legality depends only on the mover's own hand, its exposed cards still bound by R4.3, the trick
in progress, the suits led so far and the options — never on the other hands.  So the rule is a
function of a :class:`SeatView`, which both a :class:`~gongzhu.rules.deal.Deal` and a player's
observation (``gongzhu.players``) can build: one rule, whoever asks.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from gongzhu.rules.cards import SUIT_MASKS, Suit, parse_card
from gongzhu.rules.options import Options

__all__ = [
    "COLOR_MASKS", "SeatView", "bits", "bound_after", "cascade", "offends", "restricted_context",
    "same_color_makeups", "uses_restricted",
]

_C2 = parse_card("2C").index
_SUIT_OF = [i // 13 for i in range(52)]
_RED = SUIT_MASKS[Suit.HEARTS] | SUIT_MASKS[Suit.DIAMONDS]
_BLACK = SUIT_MASKS[Suit.SPADES] | SUIT_MASKS[Suit.CLUBS]
#: By led suit: the cards of the same colour (R5.2 ``discard_color``).
COLOR_MASKS = (_BLACK, _RED, _BLACK, _RED)

#: One stage of the restriction order and the candidate plays left after it.
Stage = tuple[str, list[tuple[int, ...]]]


def bits(mask: int) -> list[int]:
    """The indices of the set bits, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


@dataclass(frozen=True, slots=True)
class SeatView:
    """What decides the legality of the mover's plays.

    ``h1``/``h2``: cards held at least once / twice (two decks); ``r1``/``r2``: exposed copies
    in hand bound by R4.3 (kinds ``shown``/``auto``); ``trick``: the trick in progress as
    ``(seat, card indices)``; ``suits_led``: bit per suit led in a finished trick;
    ``must_lead_c2``: this lead is the first of a ``club2_must`` match (R5.1).
    """

    options: Options
    h1: int
    h2: int
    r1: int
    r2: int
    trick: tuple[tuple[int, tuple[int, ...]], ...]
    suits_led: int
    must_lead_c2: bool

    @property
    def led(self) -> int:
        return _SUIT_OF[self.trick[0][1][0]] if self.trick else -1

    @property
    def pair(self) -> bool:
        return bool(self.trick) and len(self.trick[0][1]) == 2


def restricted_context(v: SeatView, c: int) -> bool:
    """Whether card ``c`` played now falls under R4.3: in the first trick of its suit, or
    (tournament option) discarded before its suit was led."""
    suit = _SUIT_OF[c]
    if v.suits_led >> suit & 1:
        return False
    if not v.trick or suit == v.led:
        return True
    return v.options.exposed_discard_before_suit_led


def bound_after(v: SeatView, c: int, bound: int, held_after: int, played: int) -> int:
    """How many of the seat's exposed copies of card ``c`` stay bound by R4.3 after it plays
    ``played`` copies of ``c`` in the position ``v``, holding ``held_after`` copies then (two
    decks, R4.5): where the restriction binds, the free copy leaves first; elsewhere the exposed
    one does.  The rules engine, a player's view and the bot protocol all follow this."""
    return min(bound, held_after) if restricted_context(v, c) else max(0, bound - played)


def offends(v: SeatView, play: tuple[int, ...]) -> bool:
    """Whether ``play``, made in the position ``v``, is an offence against the discard colour:
    under ``discard_color=penalty`` (R5.2, else never), an answer to a lead that discards fewer
    cards of the led suit's colour than a play the earlier stages allow could.  The first such
    player of a trick takes its point cards.  The rules engine, the intermediate player and the
    expert's worlds all judge it here."""
    if not v.options.discard_penalty or not v.trick:
        return False
    led = v.led
    if all(_SUIT_OF[c] == led for c in play):
        return False  # the led suit itself: nothing discarded
    allowed = cascade(v)[-1][1]
    return same_color_makeups(v, play) < max(same_color_makeups(v, p) for p in allowed)


def uses_restricted(v: SeatView, play: tuple[int, ...]) -> bool:
    """Whether ``play`` needs an exposed copy where R4.3 binds (R4.5: a card is restricted
    only when every copy of it left in hand is exposed)."""
    for c in set(play):
        if restricted_context(v, c):
            held = (v.h1 >> c & 1) + (v.h2 >> c & 1)
            bound = (v.r1 >> c & 1) + (v.r2 >> c & 1)
            if play.count(c) > held - bound:
                return True
    return False


def same_color_makeups(v: SeatView, play: tuple[int, ...]) -> int:
    """How many cards of a following play are not of the led suit but of its colour."""
    mask = COLOR_MASKS[v.led] & ~SUIT_MASKS[v.led]
    return sum(1 for c in play if mask >> c & 1)


def cascade(v: SeatView) -> list[Stage]:
    """The candidate plays after each stage of R5.2's restriction order, as
    ``[(stage, plays), ...]``; the last entry holds the legal plays.  Plays are sorted tuples
    of card indices.  Follow suit (R5.2, R5.3), then exposure (R4.3), then discard colour, each
    only if it leaves at least one play (R5.2 [interpretation])."""
    h1, h2 = v.h1, v.h2
    led = v.led
    stages: list[Stage] = []
    cand: list[tuple[int, ...]]
    if not v.trick:
        cand = [(c,) for c in bits(h1)] + [(c, c) for c in bits(h2)]
        stages.append(("shape", cand))
        if v.must_lead_c2:
            cand = [p for p in cand if p[0] == _C2]
            stages.append(("first_lead", cand))
    elif not v.pair:
        cand = [(c,) for c in bits(h1)]
        stages.append(("shape", cand))
        follow = [p for p in cand if _SUIT_OF[p[0]] == led]
        if follow:
            cand = follow
        stages.append(("follow", cand))
    else:
        x = SUIT_MASKS[led]
        multiset = sorted(bits(h1) + bits(h2))
        cand = sorted(set(itertools.combinations(multiset, 2)))
        stages.append(("shape", cand))
        if h2 & x:  # a pair in the led suit: answer with a pair of it (R5.3)
            cand = [p for p in cand if p[0] == p[1] and _SUIT_OF[p[0]] == led]
        elif (h1 & x).bit_count() >= 2:  # two cards of the led suit
            cand = [p for p in cand if _SUIT_OF[p[0]] == _SUIT_OF[p[1]] == led]
        else:  # every card of the led suit, made up with anything
            own = bits(h1 & x)
            cand = [p for p in cand if all(o in p for o in own)]
        stages.append(("follow", cand))
    free = [p for p in cand if not uses_restricted(v, p)] if v.r1 | v.r2 else cand
    if free:
        cand = free
    stages.append(("exposure", cand))
    if v.trick and v.options.discard_enforced:
        best = max(same_color_makeups(v, p) for p in cand)
        cand = [p for p in cand if same_color_makeups(v, p) == best]
        stages.append(("color", cand))
    return stages
