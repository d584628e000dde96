"""What one seat may know: the only input a computer player receives.

An :class:`Observation` holds the seat's own hand, the exposures it can see (another player's
暗卖 hidden exposure only as a count until the card is played, R4.4), every card played so far
and by whom, the tricks with their winners and takers, and the options.  It never holds another
player's hand: :func:`observe` copies the public part of a :class:`~gongzhu.rules.Deal` and the
seat's own cards, and the bot protocol builds the same object from a request.  Which exposures a
seat sees is the rules core's :func:`~gongzhu.rules.exposure.visible_exposures` (importable from
here as well); legal plays are computed from the observation itself with the rules core's
:func:`~gongzhu.rules.legal.cascade`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from gongzhu.rules.cards import ALL_CARDS, Card, Seat, Suit, hand_masks, hand_size
from gongzhu.rules.deal import Deal, Phase
from gongzhu.rules.dealing import next_seat
from gongzhu.rules.exposure import visible_exposures
from gongzhu.rules.legal import SeatView, bound_after, cascade
from gongzhu.rules.model import Exposure, Play, Trick
from gongzhu.rules.options import Options
from gongzhu.rules.scoring import is_point_card, raw_scores

__all__ = ["Observation", "observe", "visible_exposures"]


@dataclass(frozen=True)
class Observation:
    """One seat's view of a deal (see the module docstring).

    ``hand`` is the seat's current hand (sorted; two decks: copies twice); ``first_card`` its
    first dealt card (for 首明, R4.4); ``exposures`` the exposures it can see, in declaration
    order; ``hidden_counts[s]`` how many of seat ``s``'s hidden exposures it cannot see;
    ``tricks`` the finished tricks; ``trick`` the trick in progress; ``turn`` who plays next
    (None in the exposure phase).
    """

    options: Options
    seat: Seat
    phase: Phase
    hand: tuple[Card, ...]
    first_card: Card | None
    exposures: tuple[Exposure, ...]
    hidden_counts: tuple[int, int, int, int]
    tricks: tuple[Trick, ...]
    trick: tuple[tuple[Seat, Play], ...]
    turn: Seat | None
    deal_index: int = 0
    first_receiver: Seat = Seat.N
    must_lead_c2: bool = False
    #: Whether the previous deal's pig-taker (the first receiver) leads the first trick (R5.1):
    #: None reads it from ``deal_index`` (a later deal of a match); a board of duplicate play
    #: (R8.1) is led as a first deal whatever its index.
    pig_taker_leads: bool | None = None
    legal: tuple[Play, ...] = field(init=False)

    @property
    def led_by_pig_taker(self) -> bool:
        """Whether the first trick is led by the previous deal's pig-taker (R5.1)."""
        return self.deal_index > 0 if self.pig_taker_leads is None else self.pig_taker_leads

    def __post_init__(self) -> None:
        legal: tuple[Play, ...] = ()
        if self.phase is Phase.PLAY and self.turn == self.seat:
            view = self.seat_view()
            legal = tuple(tuple(ALL_CARDS[c] for c in p) for p in cascade(view)[-1][1])
        object.__setattr__(self, "legal", legal)

    # ------------------------------------------------------------------ the rules, seen from here

    def legal_plays(self) -> tuple[Play, ...]:
        """The seat's legal plays (empty unless it is the seat's turn)."""
        return self.legal

    def exposure_kinds(self, c: Card) -> tuple[str, ...]:
        """The kinds in which the seat may declare ``c`` (R4.4), as :meth:`Deal.exposure_kinds`."""
        if self.phase is not Phase.EXPOSE:
            return ()
        return self.options.exposure_kinds(c, self.first_card)

    def exposable(self) -> list[Card]:
        """The cards the seat may choose to expose (copies twice with two decks)."""
        return [c for c in self.hand if self.exposure_kinds(c)]

    def seat_view(self) -> SeatView:
        """What decides the legality of this seat's plays now (R4.3, R5)."""
        h1, h2 = hand_masks(self.hand)
        r1, r2 = hand_masks(self.restricted_in_hand())
        trick = tuple((int(s), tuple(c.index for c in p)) for s, p in self.trick)
        return SeatView(self.options, h1, h2, r1, r2, trick, self.suits_led_mask(), self.must_lead_c2)

    def restricted_in_hand(self) -> list[Card]:
        """The seat's exposed copies still in hand and bound by R4.3 (kinds shown/auto)."""
        return self.bound_in_hand(self.seat, self.hand)

    def bound_in_hand(self, seat: Seat, hand: Iterable[Card]) -> list[Card]:
        """``seat``'s exposed copies still in hand and bound by R4.3 (kinds shown/auto), given
        its current ``hand`` (the seat's own, or one a search player sampled for another seat):
        the seat's plays are re-run so that, with two decks, the right copy left each time
        (R4.5).  Only public facts are used besides ``hand``."""
        bound = Counter(e.card for e in self.exposures if e.seat == seat and Options.restricted_kind(e.kind))
        if not bound:
            return []
        held = Counter(hand) + Counter(c for s, p in self._all_plays() if s == seat for c in p)
        suits_led = 0
        for trick in [*self.tricks, None]:
            plays = list(trick.plays) if trick is not None else list(self.trick)
            for i, (s, p) in enumerate(plays):
                if s != seat:
                    continue
                view = SeatView(self.options, 0, 0, 0, 0, tuple((int(x), tuple(c.index for c in q))
                                                              for x, q in plays[:i]), suits_led, False)
                for c in set(p):
                    k = p.count(c)
                    held[c] -= k
                    b = bound[c]
                    bound[c] = bound_after(view, c.index, b, held[c], k)
            if trick is not None:
                suits_led |= 1 << trick.plays[0][1][0].suit
        return sorted((c for c, n in bound.items() for _ in range(n)), key=lambda c: c.index)

    # ------------------------------------------------------------------ public facts

    def _all_plays(self) -> list[tuple[Seat, Play]]:
        return [sp for t in self.tricks for sp in t.plays] + list(self.trick)

    def played(self) -> list[tuple[Seat, Card]]:
        """Every card played so far, in order, with who played it."""
        return [(s, c) for s, p in self._all_plays() for c in p]

    def suits_led_mask(self) -> int:
        return sum({1 << t.plays[0][1][0].suit for t in self.tricks})

    def next_seat(self, seat: Seat) -> Seat:
        return next_seat(seat, self.options.clockwise)

    def captured(self, seat: Seat) -> list[Card]:
        """Point cards ``seat`` has taken so far (public: every trick's cards and taker)."""
        return [c for t in self.tricks if t.taker == seat for c in t.cards if is_point_card(c)]

    def cards_left(self, seat: Seat) -> int:
        """How many cards ``seat`` still holds."""
        played = sum(len(p) for s, p in self._all_plays() if s == seat)
        return hand_size(self.options.decks) - played

    def unseen(self) -> Counter[Card]:
        """Cards this seat has not seen: not in its hand and not played (copies counted)."""
        left = Counter({c: self.options.decks for c in ALL_CARDS})
        left.subtract(self.hand)
        left.subtract(c for _, c in self.played())
        return +left

    def known_holdings(self) -> dict[Seat, Counter[Card]]:
        """Cards known to be in another seat's hand: exposed (visibly) and not yet played."""
        out: dict[Seat, Counter[Card]] = {s: Counter() for s in Seat if s != self.seat}
        for e in self.exposures:
            if e.seat != self.seat:
                out[e.seat][e.card] += 1
        for s, c in self.played():
            if s != self.seat and out[s][c] > 0:
                out[s][c] -= 1
        return {s: +h for s, h in out.items()}

    def voids(self) -> dict[Seat, set[Suit]]:
        """Suits each seat is known to hold no more of: it did not follow a led suit (R5.2), or
        answered a pair lead with fewer than two cards of the suit (R5.3); under
        ``discard_color=enforce`` a discard of the other colour shows it had none of the led
        colour either (R5.2)."""
        out: dict[Seat, set[Suit]] = {s: set() for s in Seat}
        enforce = self.options.discard_enforced
        for t in [*self.tricks, None]:
            plays = t.plays if t is not None else self.trick
            if not plays:
                continue
            led = plays[0][1][0].suit
            need = len(plays[0][1])
            sister = Suit(led ^ 2)  # the other suit of the same colour: ♠♣, ♥♦
            for s, p in plays[1:]:
                followed = sum(1 for c in p if c.suit == led)
                if followed < need:
                    out[s].add(led)
                    if enforce and sum(1 for c in p if c.suit == sister) < need - followed:
                        out[s].add(sister)
        return out

    def no_pairs(self) -> dict[Seat, dict[Suit, set[Card]]]:
        """Two decks: a seat that answered a pair lead with two different cards of the suit had
        no pair of that suit then (R5.3).  So it holds no two identical cards of that suit now,
        nor a copy of any card of the suit it played then or since.  Returns, per seat, those suits
        with the cards it cannot hold."""
        out: dict[Seat, dict[Suit, set[Card]]] = {s: {} for s in Seat}
        plays = [(i, s, p) for i, t in enumerate([*self.tricks, None])
                 for s, p in (t.plays if t is not None else self.trick)]
        tricks = [*(t.plays for t in self.tricks), self.trick]
        for i, trick in enumerate(tricks):
            if not trick or len(trick[0][1]) != 2:
                continue
            led = trick[0][1][0].suit
            for s, p in trick[1:]:
                if p[0].suit == p[1].suit == led and p[0] != p[1]:
                    later = {c for j, x, q in plays if j >= i and x == s for c in q if c.suit == led}
                    out[s].setdefault(led, set()).update(later)
        return out

    def raw_so_far(self) -> tuple[int, int, int, int]:
        """Each seat's raw score (R6) if the deal ended now, from the visible exposures."""
        raw, _ = raw_scores(self.options.replace(self_catch=False), [self.captured(s) for s in Seat],
                            self.exposures)
        return raw


def observe(deal: Deal, seat: Seat) -> Observation:
    """``seat``'s observation of ``deal``: its own hand and what is public, nothing else."""
    seat = Seat(seat)
    tricks = tuple(deal.tricks)
    trick = tuple(deal.current_trick)
    played = [(s, c) for t in tricks for s, p in t.plays for c in p] + [(s, c) for s, p in trick for c in p]
    exposures, hidden = visible_exposures(deal.exposures, seat, played)
    phase = Phase.PLAY if deal.phase is Phase.OVER else deal.phase
    hand = tuple(deal.hand(seat))
    must = (deal.options.must_lead_club2 and deal.previous_pig_taker is None and not tricks
            and not trick)
    return Observation(
        options=deal.options,
        seat=seat,
        phase=phase,
        hand=hand,
        first_card=deal.dealt[seat][0],
        exposures=exposures,
        hidden_counts=hidden,
        tricks=tricks,
        trick=trick,
        turn=deal.turn,
        deal_index=deal.deal_index,
        first_receiver=deal.first_receiver,
        must_lead_c2=must,
        pig_taker_leads=deal.previous_pig_taker is not None,
    )

