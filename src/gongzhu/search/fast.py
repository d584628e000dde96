"""The C fast path for one-deck deals: legal moves, random playouts and scoring in C.

The engine's :class:`~gongzhu.rules.deal.Deal` is the reference and this module its fast copy
for search and benchmarks, checked against it play by play (``tests/test_fast.py``):
:func:`encode` reads a deal in the play phase into a :class:`FastPosition`, whose legal moves
and raw scores are the rules engine's; :func:`playout_scores` and :func:`playout_trace` play it
to the end with a playout policy (:data:`POLICY_UNIFORM`, :data:`POLICY_HEURISTIC`, or one per
seat); :func:`random_deals` deals, plays and scores fresh deals on several OS threads with the
GIL released.  Randomness is a function of ``(seed, index)`` only.  The encoding, the random
streams and the policies: ``docs/benchmarks.md``, Why it is fast.  Imports :mod:`gongzhu.rules`
(its C extension ``_fastplay`` included) and the policy ids of :mod:`gongzhu.search`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import gongzhu.rules._fastplay as _c
from gongzhu.rules.cards import ALL_CARDS, EXPOSABLE, Card
from gongzhu.rules.deal import Deal, Phase
from gongzhu.rules.model import Exposure
from gongzhu.rules.options import EXPOSURE_KINDS, Options
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
_SEATS = "NESW"
_CARD_C2 = next(c for c in ALL_CARDS if c.code == "2C")


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


def _check_exposures(exposures: Sequence[Exposure]) -> None:
    """Raise ``ValueError`` unless each exposure is of an exposable card (R4.1), by a seat, in a
    kind of R10, and no card is exposed twice (one deck holds one copy)."""
    for e in exposures:
        if not 0 <= int(e.seat) <= 3:
            raise ValueError(f"exposures: {e.card.code} exposed by seat {int(e.seat)}, not a seat 0..3")
        if e.kind not in EXPOSURE_KINDS:
            raise ValueError(f"exposures: {e.card.code} exposed as {e.kind!r}, not a kind of {EXPOSURE_KINDS} (R10)")
    for card, count in Counter(e.card for e in exposures).items():
        if card not in EXPOSABLE:
            raise ValueError(f"exposures: {card.code} is not an exposable card (QS JD TC AH, R4.1)")
        if count > 1:
            raise ValueError(f"exposures: {card.code} exposed {count} times; one deck holds 1")


def _check_first_lead(hands: Sequence[int], trick: Sequence[int], leader: int) -> None:
    """Raise ``ValueError`` unless a ``must_lead_c2`` position is a first lead (R5.1): no card
    in the trick, and the leader holds the ♣2."""
    if trick:
        raise ValueError(f"must_lead_c2: only the first lead of the deal must be the ♣2 (R5.1), and the trick "
                         f"in progress has {len(trick)} card(s)")
    if 0 <= leader <= 3 and not int(hands[leader]) >> _CARD_C2.index & 1:  # else the C refuses the seat
        raise ValueError(f"must_lead_c2: the first lead must be the ♣2 (R5.1), and {_SEATS[leader]}, to lead, "
                         "holds none")


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
    Exposures no one-deck deal makes (a card that is not exposable, R4.1; a kind not of R10; a
    card exposed twice) and a ``must_lead_c2`` first lead (R5.1) that cannot be one raise
    ``ValueError``, as does any position the C refuses.
    """
    if options.decks != 1:
        raise ValueError("the C fast path is for one-deck deals only (decks=1)")
    exposures = list(exposures)
    _check_exposures(exposures)
    hands4 = _four(hands, "hands")
    if must_lead_c2:
        _check_first_lead(hands4, trick, int(leader))
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
        hands4,
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
