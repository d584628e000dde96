"""The C fast path for two-deck deals (拱双猪): legal plays, playouts and scoring in C.

The engine's :class:`~gongzhu.rules.deal.Deal` is the reference; this module is its fast copy
for the expert's search, and ``tests/test_fast2.py`` checks it against the reference play by
play, under every two-deck option:

* :func:`encode` reads a two-deck deal in the play phase (its :meth:`Deal.position
  <gongzhu.rules.deal.Deal.position>`) into a :class:`FastPosition2`, an
  immutable 224-byte position: each hand as cards held at least once / twice, the exposed copies
  still bound by R4.3 (R4.5: a card is restricted only while every copy left is exposed), the
  point cards taken (copies counted), the trick in progress (singles or two-card plays) and the
  options that change two-deck play or scoring;
* legal plays are exactly :func:`gongzhu.rules.legal.cascade` (R5.3 shape and follow → R4.3/R4.5
  exposure → R5.2 discard colour, each only if it leaves a play), played as ``Deal`` plays them
  (which copy leaves the hand, R5.3 pair ranking, the ``penalty`` offender);
* raw scores are exactly :func:`gongzhu.rules.scoring.raw_scores` for two decks (R6.2, R4.5);
* playouts take a policy: :data:`POLICY_UNIFORM` (uniform over the legal plays, pairs and
  two-card answers included) or :data:`POLICY_HEURISTIC` (a cheap rule-based player, with about
  10% random choices), one id or four (one per seat).  Playout ``i`` of :meth:`playout_sums` has
  its own random stream, a function of ``(seed, i)``; :meth:`playout_trace` is playout 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import gongzhu.rules._fastplay2 as _c
from gongzhu.rules.cards import EXPOSABLE, Card, hand_masks
from gongzhu.rules.deal import Deal, Phase
from gongzhu.rules.model import Exposure
from gongzhu.rules.options import Options
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


def _masks4(hands: Sequence[Iterable[Card]], what: str) -> tuple[list[int], list[int]]:
    if len(hands) != 4:
        raise ValueError(f"{what}: expected four seats (N, E, S, W), got {len(hands)}")
    pairs = [hand_masks(h) for h in hands]
    return [m[0] for m in pairs], [m[1] for m in pairs]


def _exposed_copies(exposures: Iterable[Exposure]) -> tuple[int, int, int, int]:
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
    blob: bytes = _c.encode(
        held[0], held[1], bound[0], bound[1], captured[0], captured[1],
        _exposed_copies(exposures),
        tuple(tuple(c.index if isinstance(c, Card) else c for c in p) for p in trick),
        leader,
        turn,
        offender,
        suits_led,
        must_lead_c2,
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
    the trick in progress (plays in playing order) and who is to play."""
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
