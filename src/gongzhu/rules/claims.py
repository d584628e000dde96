"""Claims (声称, R5.4) and the deal that finishes by itself.

A claim is a seat's statement about the rest of a deal (:class:`Claim`, of a :class:`ClaimKind`):
``all_tricks`` — every trick still to be completed is won by the claimer; ``no_points`` — the
claimer takes no further point card (R2); ``score`` — the claimer's raw R6 score for the deal will
be at least ``value``.  Here are the rules of claiming, pure and without search: when a claim may
be made (:func:`verify_claim`, :func:`may_claim`), and whether a finished continuation of the deal
kept it (:func:`claim_met`).  Whether a claim holds against every defence is a search over the
deal's continuations: :mod:`gongzhu.search.claims`.

R5.4 also lets the software finish a deal once nothing left can change the score:
:func:`settled` says when (every remaining play forced, or no point card left to take) and
:func:`finish_settled` plays the rest.

Part of the rules core: imports the rest of :mod:`gongzhu.rules` only.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from gongzhu.rules.cards import POINT_CARDS_MASK, Seat
from gongzhu.rules.deal import Deal, Phase
from gongzhu.rules.errors import CardError, IllegalPlayError, excerpt
from gongzhu.rules.model import CardPlay

__all__ = [
    "Claim",
    "ClaimError",
    "ClaimKind",
    "Settlement",
    "claim_met",
    "finish_settled",
    "may_claim",
    "settled",
    "verify_claim",
]


class ClaimKind(StrEnum):
    """What a claim (R5.4) says about the rest of the deal."""

    #: "The rest of the tricks are mine": every trick completed after the claim is won by the
    #: claimer (won: the highest card of the led suit, R5.2/R5.3, even where a discard-colour
    #: offender takes its point cards).
    ALL_TRICKS = "all_tricks"
    #: "I take no more point cards": the claimer takes no point card (R2: ♠Q, ♦J, ♣10 and every
    #: heart) after the claim — neither as a trick's winner nor as a discard-colour offender.
    NO_POINTS = "no_points"
    #: "My raw score for this deal will be at least N": the claimer's R6 raw score at the end of
    #: the deal is at least the claim's ``value``.
    SCORE = "score"


class ClaimError(IllegalPlayError):
    """A claim (R5.4) that says nothing (an unknown kind, a missing or needless value), one made
    when the rules allow none, or a continuation that does not continue the claim's deal."""


@dataclass(frozen=True, slots=True)
class Claim:
    """``seat`` claims ``kind`` (R5.4); ``value`` is the score a ``score`` claim promises (an
    integer, required) and None for the other kinds.  ``seat`` may be given as a :class:`Seat`,
    its number 0–3 or its text (``"N"``, 北), ``kind`` as a :class:`ClaimKind` or its value."""

    seat: Seat
    kind: ClaimKind
    value: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "seat", _seat(self.seat))
        try:
            kind = ClaimKind(self.kind)
        except ValueError:
            raise ClaimError(
                f"unknown claim kind {excerpt(self.kind)}: expected one of {', '.join(k.value for k in ClaimKind)}"
            ) from None
        object.__setattr__(self, "kind", kind)
        if kind is ClaimKind.SCORE:
            if type(self.value) is not int:
                raise ClaimError(f"a score claim needs the score it promises, an integer, not {excerpt(self.value)}")
        elif self.value is not None:
            raise ClaimError(f"a {kind.value} claim takes no value, not {excerpt(self.value)}")

    def __str__(self) -> str:
        tail = f" {self.value}" if self.kind is ClaimKind.SCORE else ""
        return f"{self.seat.name} claims {self.kind.value}{tail}"


def _seat(seat: object) -> Seat:
    if isinstance(seat, Seat):
        return seat
    if type(seat) is int and 0 <= seat < 4:
        return Seat(seat)
    return Seat.parse(seat)  # raises CardError, naming the seats


def _cards_played(deal: Deal) -> bool:
    """Whether any card of the deal has been played (the first lead is made)."""
    size = 13 * deal.options.decks
    return any(len(deal.hand(s)) < size for s in Seat)


def verify_claim(deal: Deal, claim: Claim | Seat) -> None:
    """Raise :class:`ClaimError` saying why ``claim`` (or any claim by that seat) may not be made
    now: a claim is made in the play phase, after the first lead of the deal (at least one card
    played) and before its end, by one of the four seats (R5.4).  Whose turn it is does not matter."""
    seat = claim.seat if isinstance(claim, Claim) else _seat(claim)
    if deal.phase is Phase.EXPOSE:
        raise ClaimError(f"{seat.english} may not claim yet: the exposures (R4) are still being declared (R5.4)")
    if deal.phase is Phase.OVER:
        raise ClaimError(f"{seat.english} may not claim: the deal is over, nothing is left to claim (R5.4)")
    if not _cards_played(deal):
        raise ClaimError(f"{seat.english} may not claim before the first lead of the deal (R5.4)")


def may_claim(deal: Deal, seat: Seat) -> bool:
    """Whether ``seat`` may make a claim now (see :func:`verify_claim`)."""
    try:
        verify_claim(deal, seat)
    except (ClaimError, CardError):
        return False
    return True


def claim_met(deal_at_claim: Deal, finished: Deal, claim: Claim) -> bool:
    """Whether ``finished``, a deal played to its end from ``deal_at_claim`` (the deal as it was
    when ``claim`` was made), kept the claim (:class:`ClaimKind`).  Tricks "after the claim" are
    those completed after it: the trick in progress at the claim is one of them.  Raises
    :class:`ClaimError` when the claim could not be made at ``deal_at_claim`` or ``finished`` is
    not a finished continuation of it."""
    verify_claim(deal_at_claim, claim)
    if not finished.is_over:
        raise ClaimError("a claim is judged on a finished deal: this one is not over")
    before = deal_at_claim.tricks
    after = finished.tricks
    trick = deal_at_claim.current_trick
    if (
        finished.dealt != deal_at_claim.dealt
        or finished.options != deal_at_claim.options
        or finished.exposures != deal_at_claim.exposures
        or after[: len(before)] != before
        or len(after) <= len(before)
        or list(after[len(before)].plays[: len(trick)]) != trick
    ):
        raise ClaimError("the finished deal does not continue the deal the claim was made in")
    seat = claim.seat
    if claim.kind is ClaimKind.ALL_TRICKS:
        return all(t.winner == seat for t in after[len(before) :])
    if claim.kind is ClaimKind.NO_POINTS:
        return len(finished.captured(seat)) == len(deal_at_claim.captured(seat))
    assert claim.value is not None
    return finished.score.raw[seat] >= claim.value


class Settlement(StrEnum):
    """Why a deal finishes by itself (R5.4): nothing left to play can change any score."""

    #: No point card (R2) is left in any hand or in the trick in progress: whoever takes the
    #: rest takes nothing that scores.
    NOTHING_SCORES = "nothing_scores"
    #: Every remaining play of every seat, to the end of the deal, is forced (one legal play).
    FORCED = "forced"


def settled(deal: Deal) -> Settlement | None:
    """Whether the deal in play finishes by itself (R5.4): :attr:`Settlement.NOTHING_SCORES` when
    no point card is left in a hand or in the trick in progress, else :attr:`Settlement.FORCED`
    when every play from here to the end has exactly one legal choice, else None.  Either way every
    continuation gives the same scores.  None outside the play phase (a deal that is over has
    nothing left to finish).  ``deal`` is left as it is."""
    if deal.phase is not Phase.PLAY:
        return None
    pos = deal.position()
    left = pos.hands[0] | pos.hands[1] | pos.hands[2] | pos.hands[3]
    for _, play in pos.trick:
        for c in play:
            left |= 1 << c
    if not left & POINT_CARDS_MASK:
        return Settlement.NOTHING_SCORES
    ahead = deal.copy()
    while not ahead.is_over:
        plays = ahead.legal_plays()
        if len(plays) != 1:
            return None
        ahead.play(plays[0])
    return Settlement.FORCED


def finish_settled(deal: Deal) -> list[CardPlay]:
    """Play a settled deal (:func:`settled`) to its end on ``deal`` itself — the forced plays, or
    with nothing left that scores each seat's first legal play — and return the plays made.
    Raises :class:`ClaimError` (leaving the deal as it is) when the deal is not settled."""
    if settled(deal) is None:
        raise ClaimError("the deal does not finish by itself: a play left to make can still change a score (R5.4)")
    made: list[CardPlay] = []
    while not deal.is_over:
        made.append(deal.play(deal.legal_plays()[0]))
    return made
