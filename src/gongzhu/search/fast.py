"""The C fast path for one-deck deals: legal moves, random playouts and scoring in C.

The engine's :class:`~gongzhu.rules.deal.Deal` is the reference; this module is its fast copy
for search and benchmarks, and the tests (``tests/test_fast.py``) check it against the
reference play by play:

* :func:`encode` reads a one-deck deal in the play phase (through its public snapshot,
  :meth:`Deal.position <gongzhu.rules.deal.Deal.position>`) into a :class:`FastPosition`, an
  immutable 136-byte position (hands, exposed cards bound by R4.3, cards taken, the trick in
  progress, every one-deck option of R10 that changes play or scoring);
* legal moves are exactly ``Deal.legal_mask`` (R5.2 follow suit → R4.3 exposure → R5.2
  discard colour, each only if it leaves a card; the ``penalty`` offender takes the trick's
  point cards);
* raw scores are exactly :func:`gongzhu.rules.scoring.raw_scores` for one deck (R6, R6.1);
* :func:`playout_scores`, :func:`playout_trace` play to the end with a playout policy (uniformly
  random legal cards by default; xoshiro256++ with unbiased bounded choices); :func:`random_deals`
  deals, plays and scores fresh deals in C on several OS threads with the GIL released.

Randomness is a function of ``(seed, index)`` only: playout ``i`` of :func:`playout_scores`
and deal ``i`` of :func:`random_deals` each have their own stream, so results do not depend on
the number of threads, and ``playout_scores(deal, 1, seed)`` is the playout of
``playout_trace(deal, seed)``.

Playouts take a ``policy``: :data:`POLICY_UNIFORM` (0) plays uniformly random legal cards;
:data:`POLICY_HEURISTIC` (1) is a cheap rule-based player (follow low under the winner, dump the
♠Q and high hearts, keep and hunt the ♦J, flush the pig…, with about 10% random moves) for the
simulated continuations of a Monte-Carlo player.  A tuple of four ids gives each seat (N, E, S,
W) its own policy, e.g. ``policy=(POLICY_HEURISTIC, POLICY_UNIFORM, POLICY_UNIFORM,
POLICY_UNIFORM)``; four equal ids play exactly as the single id.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

import gongzhu.rules._fastplay as _c
from gongzhu.rules.cards import EXPOSABLE, Card
from gongzhu.rules.deal import Deal, Phase
from gongzhu.rules.model import Exposure
from gongzhu.rules.options import Options
from gongzhu.rules.scoring import value_factors
from gongzhu.search import POLICY_HEURISTIC, POLICY_UNIFORM, Policy

__all__ = [
    "POLICY_HEURISTIC",
    "POLICY_UNIFORM",
    "BlobPosition",
    "FastPosition",
    "PlayoutTrace",
    "Policy",
    "encode",
    "encode_parts",
    "playout_scores",
    "playout_trace",
    "random_deal_trace",
    "random_deals",
]

Scores = tuple[int, int, int, int]
_MASK64 = (1 << 64) - 1
_SPECIALS: tuple[Card, ...] = EXPOSABLE  # QS JD TC AH (R4.1): the C arrays factor[], dealt_to[]


def _scores(value: Sequence[int]) -> Scores:
    return (int(value[0]), int(value[1]), int(value[2]), int(value[3]))


class PlayoutTrace(NamedTuple):
    """One random playout: the cards played (indices, in order), the raw scores (R6) at the
    end, and the legal set (52-bit mask) before each play."""

    cards: list[int]
    raw: Scores
    legal: list[int]


class BlobPosition:
    """A position held as the C layout's bytes: equal bytes, equal positions (no padding)."""

    __slots__ = ("_blob",)

    def __init__(self, blob: bytes) -> None:
        self._blob = bytes(blob)

    @property
    def blob(self) -> bytes:
        return self._blob

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._blob == self._blob

    def __hash__(self) -> int:
        return hash(self._blob)


class FastPosition(BlobPosition):
    """An immutable one-deck position in the C layout (build it with :func:`encode`)."""

    __slots__ = ()

    def __init__(self, blob: bytes) -> None:
        _c.legal_mask(blob)  # validates the blob
        super().__init__(blob)

    def __repr__(self) -> str:
        return f"<FastPosition turn={self.turn} over={self.is_over}>"

    @property
    def hands(self) -> Scores:
        """The cards each seat holds, as 52-bit masks."""
        hands: Scores = _c.state(self._blob)[0]
        return hands

    @property
    def captured(self) -> Scores:
        """The point cards each seat has taken, as 52-bit masks."""
        captured: Scores = _c.state(self._blob)[2]
        return captured

    @property
    def restricted(self) -> Scores:
        """Exposed cards in each hand still bound by the play restriction of R4.3."""
        restricted: Scores = _c.state(self._blob)[1]
        return restricted

    @property
    def factors(self) -> Scores:
        """Exposure value factors of ♠Q ♦J ♣10 ♥A (1 when not exposed, R10)."""
        factors: Scores = _c.state(self._blob)[11]
        return factors

    @property
    def dealt_to(self) -> Scores:
        """The seats that were dealt ♠Q ♦J ♣10 ♥A (for self-catch, R6.1)."""
        dealt_to: Scores = _c.state(self._blob)[12]
        return dealt_to

    @property
    def turn(self) -> int:
        turn: int = _c.state(self._blob)[5]
        return turn

    @property
    def is_over(self) -> bool:
        over: int = _c.state(self._blob)[10]
        return bool(over)

    def legal_mask(self) -> int:
        """The legal cards of the player to move (0 once the deal is over)."""
        mask: int = _c.legal_mask(self._blob)
        return mask

    def play(self, c: Card | int) -> FastPosition:
        """The position after the player to move plays ``c`` (ValueError if it is illegal)."""
        index = c.index if isinstance(c, Card) else c
        blob: bytes = _c.play(self._blob, index)
        return FastPosition(blob)

    def raw_scores(self) -> Scores:
        """R6 raw scores of the cards taken so far (the deal's raw scores once it is over)."""
        return _scores(_c.raw_scores(self._blob))

    def playout_sums(self, n: int, seed: int, *, policy: Policy = POLICY_UNIFORM) -> Scores:
        """Raw scores summed over ``n`` playouts (playout ``i`` uses the stream ``(seed, i)``)."""
        return _scores(_c.playout_sums(self._blob, n, seed & _MASK64, policy))

    def playout_trace(self, seed: int, *, policy: Policy = POLICY_UNIFORM) -> PlayoutTrace:
        """One playout with the stream ``(seed, 0)``."""
        cards, legal, raw = _c.playout_trace(self._blob, seed & _MASK64, policy)
        return PlayoutTrace([int(c) for c in cards], _scores(raw), [int(m) for m in legal])


def _mask(cards: Iterable[Card]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c.index
    return m


def _four(values: Sequence[int], what: str) -> Scores:
    if len(values) != 4:
        raise ValueError(f"{what}: expected four values (N, E, S, W), got {len(values)}")
    return (int(values[0]), int(values[1]), int(values[2]), int(values[3]))


def encode_parts(
    options: Options,
    *,
    hands: Sequence[int],
    restricted: Sequence[int],
    captured: Sequence[Iterable[Card]],
    exposures: Iterable[Exposure],
    dealt: Sequence[Iterable[Card]],
    trick: Sequence[int] = (),
    leader: int,
    turn: int,
    led: int = -1,
    offender: int = -1,
    suits_led: int = 0,
    must_lead_c2: bool = False,
) -> FastPosition:
    """Build a position from its parts: hands and R4.3-restricted cards as 52-bit masks, the
    cards each seat took, the exposures (for their R10 value factors), the hands as dealt (for
    R6.1 self-catch), the trick in progress (card indices in playing order) and who is to play.
    """
    if options.decks != 1:
        raise ValueError("the C fast path is for one-deck deals only (decks=1)")
    exposures = list(exposures)
    by_card = value_factors(options, exposures)  # R4.2, R10: one function for every reader
    factors = [by_card[special] for special in _SPECIALS]
    dealt_sets = [set(h) for h in dealt]
    dealt_to = []
    for special in _SPECIALS:
        holders = [s for s, h in enumerate(dealt_sets) if special in h]
        if len(holders) != 1:
            raise ValueError(f"{special.code} must be dealt to exactly one seat")
        dealt_to.append(holders[0])
    blob: bytes = _c.encode(
        _four(hands, "hands"),
        _four(restricted, "restricted"),
        _four([_mask(c) for c in captured], "captured"),
        tuple(factors),
        tuple(dealt_to),
        tuple(trick),
        leader,
        turn,
        led,
        offender,
        suits_led,
        must_lead_c2,
        options.clockwise,
        options.exposed_discard_before_suit_led,
        options.discard_color_code,
        options.book_hearts,
        options.self_catch,
    )
    return FastPosition(blob)


def encode(deal: Deal) -> FastPosition:
    """The C position of a one-deck deal in the play phase (the deal is only read)."""
    if deal.options.decks != 1:
        raise ValueError("the C fast path is for one-deck deals only: this deal has decks=2")
    if deal.phase != Phase.PLAY:
        raise ValueError(
            f"the C fast path needs a deal in the play phase, not in phase {deal.phase.value!r}"
        )
    pos = deal.position()
    return encode_parts(
        deal.options,
        hands=pos.hands,
        restricted=pos.restricted,
        captured=pos.captured,
        exposures=deal.exposures,
        dealt=deal.dealt,
        trick=[play[0] for _, play in pos.trick],
        leader=pos.leader,
        turn=pos.turn,
        led=pos.led,
        offender=pos.offender,
        suits_led=pos.suits_led,
        must_lead_c2=pos.must_lead_c2,
    )


def _position(deal: Deal | FastPosition) -> FastPosition:
    return deal if isinstance(deal, FastPosition) else encode(deal)


def playout_scores(
    deal: Deal | FastPosition, n: int, seed: int, *, policy: Policy = POLICY_UNIFORM
) -> tuple[float, float, float, float]:
    """Mean raw scores (R6) per seat over ``n`` random playouts from the current position; the
    deal is not changed.  The GIL is released while C plays."""
    if n < 1:
        raise ValueError(f"n must be at least 1, not {n}")
    sums = _position(deal).playout_sums(n, seed, policy=policy)
    return (sums[0] / n, sums[1] / n, sums[2] / n, sums[3] / n)


def playout_trace(
    deal: Deal | FastPosition, seed: int, *, policy: Policy = POLICY_UNIFORM
) -> PlayoutTrace:
    """One random playout from the current position: ``(cards, raw, legal)``; the deal is not
    changed.  Its scores equal ``playout_scores(deal, 1, seed)``."""
    return _position(deal).playout_trace(seed, policy=policy)


def _deal_params(options: Options, expose_prob: float) -> tuple[object, ...]:
    """The C parameters of fresh random deals under ``options`` (see :func:`random_deals`)."""
    if options.decks != 1:
        raise ValueError("the C fast path is for one-deck deals only (decks=1)")
    if not 0.0 <= expose_prob <= 1.0:
        raise ValueError(f"expose_prob must be between 0 and 1, not {expose_prob}")
    mandatory = sum(1 << k for k, c in enumerate(_SPECIALS) if c in options.mandatory_cards)  # R4.4
    chosen = options.players_declare
    kind = options.usual_kind
    return (
        options.clockwise,
        options.exposed_discard_before_suit_led,
        options.discard_color_code,
        options.book_hearts,
        options.self_catch,
        options.first_lead_code,
        mandatory,
        float(expose_prob) if chosen else 0.0,
        options.exposure_factor(kind),
        Options.restricted_kind(kind),
        options.exposure_factor("shown"),  # mandatory (shown) and automatic (auto) exposures
        options.auto_fourth_applies,
    )


def random_deals(
    options: Options,
    n: int,
    seed: int,
    threads: int = 2,
    *,
    expose_prob: float = 0.0,
    policy: Policy = POLICY_UNIFORM,
) -> Scores:
    """Deal ``n`` fresh one-deck deals in C (Fisher–Yates, R3; the first deal of a match, so the
    first lead follows ``first_lead``, R5.1), play each to the end with ``policy`` (one id, or
    one per seat) and return the per-seat sums of their raw scores (R6).

    Exposures (R4.4): the mandatory ones under ``exposure=all`` / ``all_but_sheep``; under the
    exposure kinds that leave a choice, each exposable card is exposed with probability
    ``expose_prob`` in the option's usual kind (``hidden`` under ``hidden``, else ``shown``),
    then the automatic fourth (逼明) where it applies.  The work is split over ``threads`` OS
    threads with the GIL released; deal ``i`` uses the stream ``(seed, i)``, so the result does
    not depend on ``threads`` and equals the sum of ``random_deal_trace(options, seed, i).raw``.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, not {n}")
    if not 1 <= threads <= 256:
        raise ValueError(f"threads must be between 1 and 256, not {threads}")
    params = _deal_params(options, expose_prob)
    result = _c.random_deals(n, seed & _MASK64, threads, params, policy)
    return _scores(result[:4])


def random_deal_trace(
    options: Options,
    seed: int,
    index: int,
    *,
    expose_prob: float = 0.0,
    policy: Policy = POLICY_UNIFORM,
) -> tuple[FastPosition, PlayoutTrace]:
    """Deal number ``index`` of ``random_deals(options, n, seed, ...)``: the position after
    dealing and exposures, and its playout, exactly as :func:`random_deals` plays it."""
    if index < 0:
        raise ValueError(f"index must be >= 0, not {index}")
    params = _deal_params(options, expose_prob)
    blob, (cards, legal, raw) = _c.random_deal_trace(index, seed & _MASK64, params, policy)
    return FastPosition(blob), PlayoutTrace(
        [int(c) for c in cards], _scores(raw), [int(m) for m in legal]
    )
