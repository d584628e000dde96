"""Perft (python-chess style): exact counts of legal play sequences from fixed positions.

Each count is computed twice — by the engine (``legal_plays`` / ``play`` / ``undo``) and by
:class:`Reference`, a deliberately naive list-of-strings transcription of docs/rules.md R4.3, R4.5,
R5.1–R5.3 written for this file — and both must equal the hard-coded number, so a change to
either side is caught.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass, field

import pytest

from gongzhu.rules import Card, Deal, Options, Seat, deal_hands

RANKS = "23456789TJQKA"
RED = "HD"


def suit(card: str) -> str:
    return card[1]


def rank(card: str) -> int:
    return RANKS.index(card[0])


@dataclass
class Reference:
    """R4.3/R4.5/R5 from the rule book, written for clarity, not speed.

    ``hands`` are lists of codes (copies twice with two decks); ``bound`` counts, per seat, the
    exposed ``shown`` copies still in hand (bound by R4.3)."""

    decks: int
    hands: list[list[str]]
    turn: int
    clockwise: bool = False
    club2_first: bool = False
    exposed_discard_rule: bool = False
    discard_color: str = "off"
    bound: list[Counter[str]] = field(default_factory=lambda: [Counter() for _ in range(4)])
    trick: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
    suits_led: set[str] = field(default_factory=set)
    tricks_done: int = 0

    # -- the legality of R4.3 (one card, in the current context)
    def restricted_here(self, card: str) -> bool:
        """Whether an exposed copy of ``card`` may not be played now (R4.3)."""
        if suit(card) in self.suits_led:
            return False
        if not self.trick:
            return True  # leading it makes this the first trick of its suit
        led = suit(self.trick[0][1][0])
        if suit(card) == led:
            return True  # the first trick of its suit
        return self.exposed_discard_rule  # a discard before its suit was led (tournament)

    def uses_bound_copy(self, seat: int, play: tuple[str, ...]) -> bool:
        hand = Counter(self.hands[seat])
        for card, k in Counter(play).items():
            free = hand[card] - self.bound[seat][card]
            if self.restricted_here(card) and k > free:
                return True
        return False

    def legal(self) -> list[tuple[str, ...]]:
        seat = self.turn
        hand = self.hands[seat]
        distinct = sorted(set(hand))
        plays: list[tuple[str, ...]]
        # Shape and R5.1 / R5.2 / R5.3 following.
        if not self.trick:
            plays = [(c,) for c in distinct]
            plays += [(c, c) for c in distinct if hand.count(c) >= 2]
            if self.club2_first and self.tricks_done == 0:
                plays = [p for p in plays if "2C" in p]
            following = False
        else:
            following = True
            lead = self.trick[0][1]
            led = suit(lead[0])
            mine = [c for c in hand if suit(c) == led]
            if len(lead) == 1:
                plays = [(c,) for c in sorted(set(mine))] or [(c,) for c in distinct]
            else:
                every_two = {tuple(sorted(p)) for p in itertools.combinations(hand, 2)}
                pairs = [c for c in set(mine) if mine.count(c) >= 2]
                if pairs:
                    plays = [(c, c) for c in sorted(pairs)]
                elif len(mine) >= 2:
                    plays = sorted(p for p in every_two if suit(p[0]) == suit(p[1]) == led)
                else:
                    plays = sorted(p for p in every_two if all(m in p for m in mine))
        # R4.3 exposure, only if it leaves a play.
        free = [p for p in plays if not self.uses_bound_copy(seat, p)]
        plays = free or plays
        # R5.2 discard colour (one-card plays), only if it leaves a play.
        if following and self.discard_color == "enforce":
            led = suit(self.trick[0][1][0])
            colour = RED if led in RED else "SC"
            if all(suit(p[0]) != led for p in plays):
                same = [p for p in plays if suit(p[0]) in colour]
                plays = same or plays
        return plays

    def play(self, play: tuple[str, ...]) -> None:
        seat = self.turn
        for card, k in Counter(play).items():
            restricted = self.restricted_here(card)
            for _ in range(k):
                self.hands[seat].remove(card)
            held = self.hands[seat].count(card)
            bound = self.bound[seat][card]
            # R4.5: where the restriction binds the free copy leaves; elsewhere the exposed one.
            self.bound[seat][card] = min(bound, held) if restricted else max(0, bound - k)
        self.trick.append((seat, play))
        if len(self.trick) < 4:
            self.turn = (seat + 1) % 4 if self.clockwise else (seat + 3) % 4
            return
        lead = self.trick[0][1]
        led = suit(lead[0])
        best_seat, best_key = self.trick[0][0], self.key(lead, led)
        for s, p in self.trick[1:]:
            strength = self.key(p, led)
            if strength is not None and best_key is not None and strength > best_key:
                best_seat, best_key = s, strength
        self.suits_led.add(led)
        self.trick = []
        self.tricks_done += 1
        self.turn = best_seat

    @staticmethod
    def key(play: tuple[str, ...], led: str) -> tuple[int, int, int] | None:
        """R5.2/R5.3 strength of a play in a trick led in ``led``; None for a discard."""
        if any(suit(c) != led for c in play):
            return None
        if len(play) == 1:
            return (0, rank(play[0]), 0)
        hi, lo = max(rank(c) for c in play), min(rank(c) for c in play)
        is_pair = play[0] == play[1]
        # In ♠ ♥ ♣ two non-pair cards beat any pair; in ♦ any pair beats two non-pair cards.
        top = int(is_pair) if led == "D" else int(not is_pair)
        return (top, hi, lo)

    def over(self) -> bool:
        return not self.hands[self.turn]

    def perft(self, depth: int) -> int:
        if depth == 0 or self.over():
            return 1
        total = 0
        for p in self.legal():
            saved = (
                [list(h) for h in self.hands], self.turn, [Counter(b) for b in self.bound],
                list(self.trick), set(self.suits_led), self.tricks_done,
            )
            self.play(p)
            total += self.perft(depth - 1)
            (self.hands, self.turn, self.bound, self.trick, self.suits_led,
             self.tricks_done) = saved
        return total


def engine_perft(deal: Deal, depth: int) -> int:
    if depth == 0 or deal.is_over:
        return 1
    total = 0
    for p in list(deal.legal_plays()):
        deal.play(p)
        total += engine_perft(deal, depth - 1)
        deal.undo()
    return total


@dataclass(frozen=True)
class Position:
    name: str
    options: Options
    seed: int
    leader: Seat | None  # previous pig taker; None: first deal (R5.1 first_lead)
    exposures: tuple[str, ...]  # shown exposures, each by the first seat (N E S W) holding it
    prefix: tuple[str, ...]  # plays made before counting, "+"-joined for pairs
    counts: tuple[int, ...]  # perft(1), perft(2), …


ONE = Options(auto_expose_fourth=False)
TWO = Options(decks=2, auto_expose_fourth=False)

POSITIONS = [
    Position("one deck, first lead ♣2", ONE, 1, None, (), (),
             (1, 5, 10, 30, 360, 1035, 3130, 9840)),
    Position("one deck, later deal, ♠Q and ♥A shown, tournament discard rule, colour enforced",
             ONE.replace(exposed_discard_before_suit_led=True, discard_color="enforce"),
             7, Seat.E, ("QS", "AH"), (),
             (13, 40, 82, 232, 2685, 7987, 18071)),
    Position("one deck, mid-deal after 8 tricks, ♣10 shown, cw", ONE.replace(direction="cw"),
             3, Seat.S, ("TC",), ("*",) * 32,
             (5, 11, 31, 112, 422, 860, 1728, 3472, 9792, 16472)),
    Position("two decks, later deal, pair leads", TWO, 5, Seat.N, (), (),
             (26, 160, 718, 3221)),
    Position("two decks, first deal: the lead must contain ♣2", TWO, 8, None, (), (),
             (1, 6, 30, 120, 3000)),
    Position("two decks, first deal: ♣2 or ♣2♣2", TWO, 4, None, (), (),
             (2, 3, 13, 97, 2424)),
    Position("two decks, leader holds both ♠Q, one shown", TWO, 3, Seat.W, ("QS",), (),
             (25, 172, 1224, 8776)),
]


def first_leader(hands: list[list[Card]], pos: Position, first: Seat) -> int:
    """R5.1: the previous pig taker; else who received the first ♣2 (♠3) in dealing order."""
    if pos.leader is not None:
        return int(pos.leader)
    target = "3S" if pos.options.first_lead == "spade3_any" else "2C"
    order = [int(first)]
    for _ in range(3):
        order.append((order[-1] + (1 if pos.options.clockwise else 3)) % 4)
    for j in range(13 * pos.options.decks):
        for seat in order:
            if hands[seat][j].code == target:
                return seat
    raise AssertionError(target)


def build(pos: Position) -> tuple[Deal, Reference]:
    opts = pos.options
    first = pos.leader if pos.leader is not None else Seat.N
    hands = deal_hands(pos.seed, opts.decks, first, opts.clockwise)
    deal = Deal(opts, hands, first_receiver=first, previous_pig_taker=pos.leader)
    wanted: dict[Seat, list[str]] = {}
    holders = []
    for code in pos.exposures:
        seat = next(s for s in Seat if any(c.code == code for c in hands[s]))
        wanted.setdefault(seat, []).append(code)
        holders.append((seat, code))
    for seat in Seat:
        deal.declare(seat, wanted.get(seat, []))
    ref = Reference(
        decks=opts.decks,
        hands=[[c.code for c in h] for h in hands],
        turn=first_leader(hands, pos, first),
        clockwise=opts.clockwise,
        club2_first=pos.leader is None and opts.first_lead == "club2_must",
        exposed_discard_rule=opts.exposed_discard_before_suit_led,
        discard_color=opts.discard_color,
    )
    for seat, code in holders:
        ref.bound[seat][code] += 1
    assert deal.turn == ref.turn
    # The prefix: "*" plays the engine's first legal play; the reference must find it legal.
    for token in pos.prefix:
        play = deal.legal_plays()[0] if token == "*" else tuple(token.split("+"))
        codes = tuple(sorted(c if isinstance(c, str) else c.code for c in play))
        assert codes in [tuple(sorted(p)) for p in ref.legal()], codes
        deal.play(list(codes))
        ref.play(codes)
    return deal, ref


#: Each position counted to every depth but its last, and (marked ``slow``: it costs several
#: times all the others together) to its last depth.
DEPTHS = [
    param
    for pos in POSITIONS
    for param in (
        pytest.param(pos, range(1, len(pos.counts)), id=pos.name),
        pytest.param(pos, range(len(pos.counts), len(pos.counts) + 1), id=f"{pos.name}, depth {len(pos.counts)}",
                     marks=pytest.mark.slow),
    )
]


@pytest.mark.parametrize(("pos", "depths"), DEPTHS)
def test_perft(pos: Position, depths: range) -> None:
    """R4.3, R4.5, R5.1–R5.3: the engine and the reference agree on every count, which are also
    hard-coded."""
    deal, ref = build(pos)
    start = [tuple(c.code for c in p) for p in deal.legal_plays()]
    if pos.options.decks == 2 and pos.leader is not None:
        assert any(len(p) == 2 for p in start)  # pair leads are counted
    engine = [engine_perft(deal, d) for d in depths]
    reference = [ref.perft(d) for d in depths]
    assert engine == reference
    assert tuple(engine) == pos.counts[depths.start - 1:depths.stop - 1]
    # perft leaves the position as it found it.
    assert [tuple(c.code for c in p) for p in deal.legal_plays()] == start


@pytest.mark.parametrize("pos", POSITIONS, ids=[p.name for p in POSITIONS])
def test_legal_sets_agree_along_a_line(pos: Position) -> None:
    """R4.3, R4.5, R5.1–R5.3: The reference and the engine give the same legal sets at every step of one whole deal
    (always taking the last legal play)."""
    deal, ref = build(pos)
    while not deal.is_over:
        engine = sorted(tuple(sorted(c.code for c in p)) for p in deal.legal_plays())
        assert engine == sorted(tuple(sorted(p)) for p in ref.legal())
        assert deal.turn == ref.turn
        play = engine[-1]
        deal.play(list(play))
        ref.play(play)
    assert ref.over()
