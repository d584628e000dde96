"""The C fast path for two-deck deals (拱双猪): legal plays, playouts and scoring in C.

The engine's :class:`~gongzhu.rules.deal.Deal` is the reference and this module its fast copy
for the expert's search, checked against it play by play under every two-deck option
(``tests/test_fast2.py``): :func:`encode` reads a deal in the play phase into a
:class:`FastPosition2` (:func:`encode_parts` builds one from its parts, and refuses with a
``ValueError`` every position no two-deck deal can reach), whose legal plays, raw scores and
playouts (:data:`POLICY_UNIFORM` or :data:`POLICY_HEURISTIC`, one id or one per seat, playout
``i`` on a random stream of its own) follow the rules engine.  The encoding, the rules it
follows and what it refuses: ``docs/benchmarks.md``, Two-deck playouts.  Imports
:mod:`gongzhu.rules` (its C extension ``_fastplay2`` included) and the policies and position
base of :mod:`gongzhu.search.fast`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import gongzhu.rules._fastplay2 as _c
from gongzhu.rules.cards import ALL_CARDS, EXPOSABLE, POINT_CARDS_MASK, Card, hand_masks
from gongzhu.rules.deal import Deal, Phase
from gongzhu.rules.model import Exposure
from gongzhu.rules.options import EXPOSURE_KINDS, Options
from gongzhu.search.fast import POLICY_HEURISTIC, POLICY_UNIFORM, BlobPosition, Policy

__all__ = [
    "POLICY_HEURISTIC",
    "POLICY_UNIFORM",
    "FastPosition2",
    "PlayoutTrace2",
    "encode",
    "encode_parts",
]

Scores = tuple[int, int, int, int]
#: A play as card indices: one card, or two (sorted; equal for a pair).
IndexPlay = tuple[int, ...]


class PlayoutTrace2(NamedTuple):
    """One playout: every play in order (card indices) and the raw scores at the end."""

    plays: tuple[IndexPlay, ...]
    raw: Scores


class FastPosition2(BlobPosition):
    """An immutable two-deck position (a 224-byte blob); every method leaves it unchanged."""

    __slots__ = ()

    def __init__(self, blob: bytes) -> None:
        if len(blob) != _c.POSITION_SIZE:
            raise ValueError(f"a two-deck position is {_c.POSITION_SIZE} bytes, not {len(blob)}")
        super().__init__(blob)

    def __repr__(self) -> str:
        turn, over = _c.turn(self._blob)
        return f"<FastPosition2 {'over' if over else f'turn={turn}'}>"

    @property
    def turn(self) -> int:
        return _c.turn(self._blob)[0]

    @property
    def is_over(self) -> bool:
        return bool(_c.turn(self._blob)[1])

    def legal_plays(self) -> tuple[IndexPlay, ...]:
        """The legal plays of the player to move, as sorted tuples of card indices."""
        return _c.legal_plays(self._blob)

    def play(self, play: Iterable[Card | int]) -> FastPosition2:
        """The position after ``play`` (one card, a pair or a two-card answer); a play that is
        not legal raises ``ValueError``."""
        return FastPosition2(_c.play(self._blob, tuple(c.index if isinstance(c, Card) else c for c in play)))

    def raw_scores(self) -> Scores:
        """R6.2 raw scores of the cards taken so far."""
        return _c.raw_scores(self._blob)

    def playout_sums(self, n: int, seed: int, *, policy: Policy = POLICY_UNIFORM) -> Scores:
        """Sums of the raw scores of ``n`` playouts to the end (the GIL is released)."""
        return _c.playout_sums(self._blob, n, seed, policy)

    def playout_trace(self, seed: int, *, policy: Policy = POLICY_UNIFORM) -> PlayoutTrace2:
        plays, raw = _c.playout_trace(self._blob, seed, policy)
        return PlayoutTrace2(plays, raw)


_SEATS = "NESW"
#: The cards dealt to each seat with two decks (R3).
_HAND_SIZE = 26
_EXPOSABLE_MASK = sum(c.bit for c in EXPOSABLE)
_CARD_C2 = next(c for c in ALL_CARDS if c.code == "2C")


def _masks4(hands: Sequence[Iterable[Card]], what: str) -> tuple[list[int], list[int]]:
    """Four seats' cards as masks: held at least once, held twice (no card three times)."""
    if len(hands) != 4:
        raise ValueError(f"{what}: expected four seats (N, E, S, W), got {len(hands)}")
    once: list[int] = []
    twice: list[int] = []
    for seat, held in enumerate(hands):
        cards = held if isinstance(held, list | tuple) else list(held)
        m1, m2 = hand_masks(cards)
        if len(cards) != m1.bit_count() + m2.bit_count():
            card, n = Counter(cards).most_common(1)[0]
            raise ValueError(f"{what}: {_SEATS[seat]} has {n} copies of {card.code}; two decks hold 2")
        once.append(m1)
        twice.append(m2)
    return once, twice


def _code(index: int) -> str:
    return ALL_CARDS[index].code


def _lowest(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _copies(m1: int, m2: int, c: int) -> int:
    return (m1 >> c & 1) + (m2 >> c & 1)


def _trick_plays(trick: Sequence[Sequence[Card | int]]) -> list[tuple[int, ...]]:
    """The trick in progress as sorted tuples of card indices, checked to be shaped as R5.3
    shapes a trick: a lead of one card or a pair, answers of as many cards, at most three plays."""
    if len(trick) > 3:
        raise ValueError(f"trick: at most three plays are in progress (the fourth ends the trick), not {len(trick)}")
    plays: list[tuple[int, ...]] = []
    for i, play in enumerate(trick, 1):
        cards = [c.index if isinstance(c, Card) else c for c in play]
        if not 1 <= len(cards) <= 2:
            raise ValueError(f"trick: play {i} has {len(cards)} cards; a play is one card or two")
        for c in cards:
            if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < 52:
                raise ValueError(f"trick: play {i} has {c!r}, which is no card (a Card or an index 0..51)")
        plays.append(tuple(sorted(cards)))
    if plays:
        lead = plays[0]
        if len(lead) == 2 and lead[0] != lead[1]:
            raise ValueError(f"trick: the lead {_code(lead[0])} {_code(lead[1])} is neither one card nor a pair "
                             "(two copies of one card, R5.3)")
        for i, p in enumerate(plays[1:], 2):
            if len(p) != len(lead):
                raise ValueError(f"trick: play {i} has {len(p)} card(s) and the lead {len(lead)}; every answer "
                                 "has as many cards as the lead (R5.3)")
    return plays


def _check(options: Options, held: _Masks, bound: _Masks, captured: _Masks, exposures: Sequence[Exposure],
           plays: Sequence[tuple[int, ...]], leader: int, turn: int, offender: int, suits_led: int,
           must_lead_c2: bool) -> None:
    """Raise ``ValueError`` unless a two-deck deal can reach the position (docs/benchmarks.md,
    Two-deck playouts)."""
    for what, value, least in (("leader", leader, 0), ("turn", turn, 0), ("offender", offender, -1)):
        if not least <= value <= 3:
            none = ", or -1 for none" if least < 0 else ""
            raise ValueError(f"{what} must be a seat 0..3 (N E S W){none}, not {value}")
    if not 0 <= suits_led <= 15:
        raise ValueError(f"suits_led is a set of suits, a mask 0..15, not {suits_led}")
    # Copies: no card more than twice among the hands, the trick and the point cards taken.
    ge1 = ge2 = ge3 = 0
    for m in (*held[0], *held[1], *captured[0], *captured[1], *(1 << c for p in plays for c in p)):
        ge3 |= ge2 & m
        ge2 |= ge1 & m
        ge1 |= m
    if ge3:
        c = _lowest(ge3)
        in_hands = sum(_copies(held[0][s], held[1][s], c) for s in range(4))
        in_trick = sum(p.count(c) for p in plays)
        taken = sum(_copies(captured[0][s], captured[1][s], c) for s in range(4))
        raise ValueError(f"{_code(c)}: {in_hands + in_trick + taken} copies, and two decks hold 2 ({in_hands} in "
                         f"the hands, {in_trick} in the trick, {taken} taken)")
    for s in range(4):
        if captured[0][s] & ~POINT_CARDS_MASK:
            raise ValueError(f"captured: {_SEATS[s]} took {_code(_lowest(captured[0][s] & ~POINT_CARDS_MASK))}, "
                             "which is no point card (the cards taken are the point cards, R6)")
    # Whose turn it is, and the hand sizes the trick in progress leaves.
    step = 1 if options.clockwise else 3
    n = len(plays)
    if turn != (leader + n * step) % 4:
        raise ValueError(f"turn: with {n} play(s) in the trick led by {_SEATS[leader]}, "
                         f"{_SEATS[(leader + n * step) % 4]} is to play, not {_SEATS[turn]}")
    sizes = [held[0][s].bit_count() + held[1][s].bit_count() for s in range(4)]
    k = len(plays[0]) if plays else 0
    if sizes[turn] < k:
        raise ValueError(f"hands: {_SEATS[turn]}, to answer a lead of {k} cards, holds {sizes[turn]}")
    answered = {(leader + i * step) % 4 for i in range(n)}
    before = [sizes[s] + k if s in answered else sizes[s] for s in range(4)]  # before this trick
    full = max(before)
    if full > _HAND_SIZE:
        s = before.index(full)
        played = f" and played {k} to the trick in progress" if s in answered else ""
        raise ValueError(f"hands: {_SEATS[s]} holds {sizes[s]} cards{played}; a two-deck hand holds at most "
                         f"{_HAND_SIZE}")
    expected = [full - k if s in answered else full for s in range(4)]
    if sizes != expected:
        def text(v: Sequence[int]) -> str:
            return ", ".join(f"{_SEATS[s]} {v[s]}" for s in range(4))

        raise ValueError(f"hands: the seats hold {text(sizes)} cards; each holds as many as the others less what it "
                         f"played to the trick in progress, so {text(expected)}")
    if suits_led.bit_count() > _HAND_SIZE - full:
        raise ValueError(f"suits_led: {suits_led.bit_count()} suits led in finished tricks, in which each seat has "
                         f"played {_HAND_SIZE - full} card(s)")
    if must_lead_c2:
        if n or full != _HAND_SIZE:
            raise ValueError("must_lead_c2: only the first lead of the deal must contain a ♣2 (R5.1), and cards "
                             "have been played")
        if not held[0][turn] >> _CARD_C2.index & 1:
            raise ValueError(f"must_lead_c2: the first lead must contain a ♣2 (R5.1), and {_SEATS[turn]}, to lead, "
                             "holds none")
    if offender >= 0:
        if not options.discard_penalty:
            raise ValueError(f"offender: only discard_color=penalty has one (R5.2), not {options.discard_color}")
        if offender not in {(leader + i * step) % 4 for i in range(1, n)}:
            raise ValueError(f"offender: {_SEATS[offender]} has not answered the lead of the trick in progress, "
                             "where an offender discarded (R5.2)")
    # Exposures and the exposed copies they bind (R4.1, R4.3, R4.5).
    if exposures:
        for e in exposures:
            if not 0 <= int(e.seat) <= 3:
                raise ValueError(f"exposures: {e.card.code} exposed by seat {int(e.seat)}, not a seat 0..3")
            if e.kind not in EXPOSURE_KINDS:
                raise ValueError(f"exposures: {e.card.code} exposed as {e.kind!r}, not a kind of "
                                 f"{EXPOSURE_KINDS} (R10)")
        for card, count in Counter(e.card for e in exposures).items():
            if card not in EXPOSABLE:
                raise ValueError(f"exposures: {card.code} is not an exposable card (QS JD TC AH, R4.1)")
            if count > 2:
                raise ValueError(f"exposures: {count} copies of {card.code} exposed; two decks hold 2")
    if not any(bound[0]):
        return
    binding = Counter((int(e.seat), e.card.index) for e in exposures if Options.restricted_kind(e.kind))
    for s in range(4):
        b1, b2 = bound[0][s], bound[1][s]
        if b1 & ~_EXPOSABLE_MASK:
            raise ValueError(f"bound: {_code(_lowest(b1 & ~_EXPOSABLE_MASK))} is not an exposable card "
                             "(QS JD TC AH, R4.1)")
        for c in (card.index for card in EXPOSABLE if b1 & card.bit):
            nb = _copies(b1, b2, c)
            if nb > _copies(held[0][s], held[1][s], c):
                raise ValueError(f"bound: {_SEATS[s]} has {nb} bound copies of {_code(c)} and holds "
                                 f"{_copies(held[0][s], held[1][s], c)}")
            if nb > binding[s, c]:
                raise ValueError(f"bound: {_SEATS[s]} has {nb} bound copies of {_code(c)} and exposed "
                                 f"{binding[s, c]} in a kind that binds (shown, auto; R4.3)")


def _exposed_copies(exposures: Sequence[Exposure]) -> tuple[int, int, int, int]:
    """Copies exposed of ♠Q ♦J ♣10 ♥A (R4.5: the values depend on how many)."""
    n = Counter(e.card for e in exposures)
    return (n[EXPOSABLE[0]], n[EXPOSABLE[1]], n[EXPOSABLE[2]], n[EXPOSABLE[3]])


#: Four seats' cards as two masks each: held at least once, held twice.
_Masks = tuple[Sequence[int], Sequence[int]]


def _encode(options: Options, held: _Masks, bound: _Masks, captured: _Masks, exposures: Iterable[Exposure],
            trick: Sequence[Sequence[Card | int]], leader: int, turn: int, offender: int, suits_led: int,
            must_lead_c2: bool) -> FastPosition2:
    if options.decks != 2:
        raise ValueError("the two-deck C fast path is for decks=2 only")
    exposures = list(exposures)
    plays = _trick_plays(trick)
    leader, turn, offender, suits_led = int(leader), int(turn), int(offender), int(suits_led)
    _check(options, held, bound, captured, exposures, plays, leader, turn, offender, suits_led, must_lead_c2)
    blob: bytes = _c.encode(
        held[0], held[1], bound[0], bound[1], captured[0], captured[1],
        _exposed_copies(exposures),
        plays,
        leader,
        turn,
        offender,
        suits_led,
        bool(must_lead_c2),
        options.clockwise,
        options.exposed_discard_before_suit_led,
        options.discard_color_code,
        options.book_hearts,
    )
    return FastPosition2(blob)


def encode_parts(
    options: Options,
    *,
    hands: Sequence[Iterable[Card]],
    bound: Sequence[Iterable[Card]],
    captured: Sequence[Iterable[Card]],
    exposures: Iterable[Exposure],
    trick: Sequence[Sequence[Card | int]] = (),
    leader: int,
    turn: int,
    offender: int = -1,
    suits_led: int = 0,
    must_lead_c2: bool = False,
) -> FastPosition2:
    """Build a two-deck position from its parts: each seat's hand and its exposed copies still
    bound by R4.3 (copies twice), the point cards each seat took, the exposures (R4.5 values),
    the trick in progress (plays in playing order) and who is to play.  A position no two-deck
    deal can reach raises ``ValueError`` (docs/benchmarks.md, Two-deck playouts)."""
    return _encode(options, _masks4(hands, "hands"), _masks4(bound, "bound"), _masks4(captured, "captured"),
                   exposures, trick, leader, turn, offender, suits_led, must_lead_c2)


def encode(deal: Deal) -> FastPosition2:
    """The C position of a two-deck deal in the play phase (the deal is only read)."""
    if deal.options.decks != 2:
        raise ValueError("the two-deck C fast path is for decks=2 only: this deal has decks=1")
    if deal.phase != Phase.PLAY:
        raise ValueError(f"the C fast path needs a deal in the play phase, not in phase {deal.phase.value!r}")
    pos = deal.position()
    return _encode(deal.options, (pos.hands, pos.hands_twice), (pos.restricted, pos.restricted_twice),
                   _masks4(pos.captured, "captured"), deal.exposures, [p for _, p in pos.trick], pos.leader,
                   pos.turn, pos.offender, pos.suits_led, pos.must_lead_c2)
