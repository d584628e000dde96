"""Checking a claim (声称, R5.4) by exact search: does it hold whatever the other seats play?

:func:`check_claim` answers for a :class:`~gongzhu.rules.claims.Claim` made in a deal, one deck
or two, with an AND-OR search over the deal's continuations, all seen open: at the claimer's turn
the claim holds if *some* legal play keeps it, at another seat's turn only if *every* legal play
does.  The search plays on a copy of the deal through its public API only (``copy``,
``legal_plays``, ``play``, ``undo``, ``position``, ``score``), so it follows the rules core's
every rule (R4.3 restrictions, R5.2 discard colour and its penalty, R5.3 pairs, R6 scoring).

What keeps it small:

- a claim is dropped the moment it is broken: ``all_tricks`` when another seat wins a trick,
  ``no_points`` when the claimer takes a point card;
- positions are decided without search where the rest cannot matter: ``all_tricks`` holds once
  the claimer is on lead holding only masters (no other hand holds a higher card of the suit: any
  single lead wins, and stays a master); ``no_points`` holds once no point card is left in a hand
  or the trick; ``score`` is bounded by the best and worst raw score (R6,
  :func:`~gongzhu.rules.scoring.seat_scores`) that the claimer's cards taken and any share of the
  point cards still out can give, where there are few enough such shares to list;
- positions are memoised on everything their outcome depends on: the hands, the trick in
  progress, whose turn, the suits led — from which the exposed cards still bound by R4.3 (one
  deck) and the discard-colour offender follow — with two decks the copies still bound (R4.5),
  and for ``score`` the claimer's point cards taken (the others' do not change its raw score).
  The search keeps these play by play rather than asking the deal for a whole snapshot at each
  position (after a claim the first-lead flag of R5.1 is always off);
- one deck: of several legal cards of one suit in the mover's hand with no card between them left
  in any hand or in the trick, none of them bound by R4.3 and alike for the claim (any two cards
  for ``all_tricks``; two point cards or two others for ``no_points``; for ``score`` two cards that
  score alike: not point cards, or hearts of one value other than ♥A), only one is searched: the
  deal after either is the same but for the two cards' names, which nothing later tells apart.
  With two decks (copies, pairs) no card stands for another.

A search stops after ``limit`` positions and then says the claim is undecided.  An ``all_tricks``
claim is as a rule decided in milliseconds even after the first trick of a one-deck deal (a loser
is found at once, masters end the search); ``no_points`` and ``score`` early in a deal may need
millions of positions (for ``score`` the open-card solver's own problem).

When the claim holds, the verdict's ``line`` plays the deal to its end keeping it: the claimer
plays, at each turn, the first play the search found to keep the claim; every other seat, whose
every play keeps it, plays (one deck, with the C search built) the card the open-card solver
(:class:`~gongzhu.search.solver.OpenSolver`) rates best for that seat's own objective when it
answers within a small limit, else its first legal play — so the line is a plausible way the
deal ends, not just any.  When the claim fails, the ``refutation`` is a line from the claim to
the play that breaks it (for ``score``: to the position where the claimer's best reachable score
is below the claim, at the latest the end of the deal; empty when that is so at the claim): the
claimer makes the play that holds out longest against the others' breaking plays the search
found, and they answer with the one of those that breaks the claim soonest.

With ``agreed`` (the others accepted a claim this search could not decide, under the tournament
preset) every position is an OR: the claim can come true when some line of all four seats keeps
it, and the line found is the one the deal is finished along.

May import :mod:`gongzhu.rules` and :mod:`gongzhu.search` (the open-card solver, optional).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import product
from typing import TYPE_CHECKING

from gongzhu.rules.cards import AH, ALL_CARDS, JD, POINT_CARDS_MASK, QS, SUIT_MASKS, TC, Card, Seat, Suit
from gongzhu.rules.claims import Claim, ClaimError, ClaimKind, verify_claim
from gongzhu.rules.deal import Deal
from gongzhu.rules.model import CardPlay, Play
from gongzhu.rules.scoring import heart_value, seat_scores
from gongzhu.search import AVAILABLE

if TYPE_CHECKING:
    from gongzhu.search.solver import OpenSolver

__all__ = ["ClaimVerdict", "PlayLine", "check_claim", "finish_by_claim"]

#: A line of play: ``(seat, cards)`` in playing order, ``cards`` one card or a two-deck pair.
PlayLine = tuple[tuple[Seat, Play], ...]

#: The most shares of the point cards still out that the ``score`` bound lists (else no bound).
_BOUND_SHARES = 256
#: The open-card solver's limit (positions) when it picks the other seats' plays of a line.
_SOLVER_LIMIT = 20_000
_SPECIAL = frozenset({QS.index, JD.index, TC.index, AH.index})
_HEARTS = Suit.HEARTS


@dataclass(frozen=True, slots=True)
class ClaimVerdict:
    """What :func:`check_claim` found about ``claim``.

    ``holds``: True when the claim holds whatever the other seats play, False when they can break
    it whatever the claimer plays, None when ``limit`` positions did not decide it (or, which
    the memo of the decision makes all but impossible, did not rebuild its line).  ``line``
    (when it holds): a continuation from the claim to the end of the deal that keeps it.
    ``refutation`` (when it fails): a line from the claim in which the claimer tries its longest
    resistance and the others break the claim, ending with the play that breaks it (for
    ``score``: where the claimer can no longer reach the claimed score, at the latest the last
    play).  Plays are ``(seat, cards)``.  ``nodes``: positions searched — the decision, then the
    line, each at most ``limit``."""

    claim: Claim
    holds: bool | None
    line: PlayLine = ()
    refutation: PlayLine = ()
    nodes: int = 0


class _Undecided(Exception):
    """The search reached its limit."""


def _point_class(c: int, heart_values: str) -> int:
    """For ``score``: cards with equal classes score alike, for any share of them (R2, R6.1)."""
    card = ALL_CARDS[c]
    if c in _SPECIAL:
        return 1000 + c
    if card.suit == _HEARTS:
        return heart_value(card.rank, heart_values)
    return -1000


class _Search:
    """One claim's search on its own copy of the deal, with its memo and node count.

    Besides the deal it keeps, play by play, what its memo keys and shortcuts read: the hands
    (cards held at least once, twice), the trick in progress, the suits led and the point cards
    the claimer took since the claim — so that it need not ask the deal for a whole snapshot at
    every position."""

    def __init__(self, deal: Deal, claim: Claim, limit: int, *, agreed: bool = False) -> None:
        self.deal = deal
        self.claim = claim
        self.seat = int(claim.seat)
        self.agreed = agreed  # every seat plays to keep the claim (an OR at every position)
        self.kind = claim.kind
        self.value = claim.value if claim.value is not None else 0
        self.limit = limit
        self.stop_at = limit
        self.nodes = 0
        self.memo: dict[tuple[object, ...], bool] = {}
        self.dist_memo: dict[tuple[object, ...], int] = {}
        self.bounds: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[int, int] | None] = {}
        options = deal.options
        self.one_deck = options.decks == 1
        kind = claim.kind
        self.merge_class: Callable[[int], int]
        if kind is ClaimKind.ALL_TRICKS:
            self.merge_class = lambda c: 0
        elif kind is ClaimKind.NO_POINTS:
            self.merge_class = lambda c: POINT_CARDS_MASK >> c & 1
        else:
            self.merge_class = lambda c: _point_class(c, options.heart_values)
        self.solvers: dict[int, OpenSolver] | None = {} if self.one_deck and AVAILABLE else None
        pos = deal.position()
        self.h1 = list(pos.hands)
        self.h2 = list(pos.hands_twice)
        self.bound_at_claim = pos.restricted  # one deck: a bound card stays bound until played
        self.trick = pos.trick
        self.suits_led = pos.suits_led
        self.taken = tuple(sorted(c.index for c in pos.captured[self.seat]))
        self.undo_stack: list[tuple[int, int, int, tuple[tuple[int, tuple[int, ...]], ...], int, tuple[int, ...]]] = []

    # ------------------------------------------------------------------ playing

    def budget(self) -> None:
        """Start a phase of the search with ``limit`` more positions (0: no limit)."""
        self.stop_at = self.nodes + self.limit

    def count(self) -> None:
        if self.limit and self.nodes >= self.stop_at:
            raise _Undecided
        self.nodes += 1

    def turn(self) -> int:
        turn = self.deal.turn
        assert turn is not None
        return int(turn)

    def play(self, play: Play) -> tuple[CardPlay, bool]:
        """Play ``play`` on the deal; return its record and whether it broke the claim."""
        deal = self.deal
        s = self.turn()
        record = deal.play(play)
        h1, h2 = self.h1[s], self.h2[s]
        self.undo_stack.append((s, h1, h2, self.trick, self.suits_led, self.taken))
        cards = tuple(c.index for c in play)
        for c in cards:
            if h2 >> c & 1:
                h2 ^= 1 << c
            else:
                h1 &= ~(1 << c)
        self.h1[s], self.h2[s] = h1, h2
        trick = (*self.trick, (s, cards))
        broke = False
        if len(trick) == 4:
            self.suits_led |= 1 << trick[0][1][0] // 13
            points = [c for _, p in trick for c in p if POINT_CARDS_MASK >> c & 1]
            if points or self.kind is ClaimKind.ALL_TRICKS:
                done = record.trick
                assert done is not None
                if self.kind is ClaimKind.ALL_TRICKS:
                    broke = int(done.winner) != self.seat
                if points and int(done.taker) == self.seat:
                    self.taken = tuple(sorted(self.taken + tuple(points)))
                    broke = broke or self.kind is ClaimKind.NO_POINTS
            trick = ()
        self.trick = trick
        return record, broke

    def undo(self) -> None:
        self.deal.undo()
        s, self.h1[s], self.h2[s], self.trick, self.suits_led, self.taken = self.undo_stack.pop()

    # ------------------------------------------------------------------ deciding without search

    def status(self) -> bool | None:
        """The claim's outcome where no search is needed (the claim not broken so far), else None."""
        deal = self.deal
        if deal.is_over:
            return self.kind is not ClaimKind.SCORE or deal.score.raw[self.seat] >= self.value
        if self.kind is ClaimKind.ALL_TRICKS:
            return True if not self.trick and self.turn() == self.seat and self.masters() else None
        if self.kind is ClaimKind.NO_POINTS:
            return None if self.points_left() else True
        bound = self.score_bound()
        if bound is None:
            return None
        low, high = bound
        if low >= self.value:
            return True
        if high < self.value:
            return False
        return None

    def masters(self) -> bool:
        """Whether every card the claimer holds is at least as high as every card of its suit in
        the other hands (with two decks an equal copy loses to the one led first, R5.3)."""
        mine = self.h1[self.seat]
        others = 0
        for s in range(4):
            if s != self.seat:
                others |= self.h1[s]
        for suit_mask in SUIT_MASKS:
            m = mine & suit_mask
            o = others & suit_mask
            if m and o and o.bit_length() > (m & -m).bit_length():
                return False
        return True

    def points_left(self) -> list[int]:
        """The point cards (R2) still in the hands or the trick, as indices, copies twice."""
        out: list[int] = []
        for m in (*self.h1, *self.h2):
            m &= POINT_CARDS_MASK
            while m:
                low = m & -m
                out.append(low.bit_length() - 1)
                m ^= low
        out += [c for _, play in self.trick for c in play if POINT_CARDS_MASK >> c & 1]
        return out

    def score_bound(self) -> tuple[int, int] | None:
        """The lowest and highest raw score (R6) the claimer can end with: its cards taken plus any
        share of the point cards still out; None where the shares are too many to list."""
        left = tuple(sorted(self.points_left()))
        key = (self.taken, left)
        if key in self.bounds:
            return self.bounds[key]
        groups: dict[int, list[Card]] = {}
        for c in left:
            groups.setdefault(self.merge_class(c), []).append(ALL_CARDS[c])
        sizes = [len(g) + 1 for g in groups.values()]
        shares = 1
        for n in sizes:
            shares *= n
        bound: tuple[int, int] | None = None
        if shares <= _BOUND_SHARES:
            deal = self.deal
            base = [ALL_CARDS[c] for c in self.taken]
            scores = []
            for counts in product(*(range(n) for n in sizes)):
                took = list(base)
                for group, k in zip(groups.values(), counts, strict=True):
                    took += group[:k]
                captured: list[list[Card]] = [[], [], [], []]
                captured[self.seat] = took
                parts, _ = seat_scores(deal.options, captured, deal.exposures, deal.dealt)
                scores.append(parts[self.seat].raw)
            bound = (min(scores), max(scores))
        self.bounds[key] = bound
        return bound

    # ------------------------------------------------------------------ the search

    def key(self) -> tuple[object, ...]:
        """Everything the claim's outcome depends on from here: the hands, the trick, whose turn,
        the suits led; with two decks which copies are still bound by R4.5 (path-dependent); for
        ``score`` the claimer's point cards taken.  (The discard-colour offender follows from the
        trick and the hands; one deck, the bound cards from the hands.)"""
        extra: tuple[object, ...] = self.taken if self.kind is ClaimKind.SCORE else ()
        if not self.one_deck:
            pos = self.deal.position()
            extra = (extra, pos.restricted, pos.restricted_twice)
        return (tuple(self.h1), tuple(self.h2), self.trick, self.turn(), self.suits_led, extra)

    def candidates(self) -> list[Play]:
        """The mover's legal plays, one of each set of equivalent cards (one deck), in the order
        the search tries them."""
        plays = list(self.deal.legal_plays())
        if self.one_deck and len(plays) > 1:
            plays = self.representatives(plays)
        if self.kind is ClaimKind.ALL_TRICKS:  # win with high cards, beat with high cards
            low_first = self.agreed and self.turn() != self.seat  # (or let the claimer win)
            plays.sort(key=lambda p: sum(c.rank for c in p) * (1 if low_first else -1))
        elif self.kind is ClaimKind.NO_POINTS:
            if self.turn() == self.seat or self.agreed:  # duck (everyone, where all keep the claim)
                plays.sort(key=lambda p: max(c.rank for c in p))
            else:  # hand the claimer point cards, let it win
                plays.sort(key=lambda p: (not any(POINT_CARDS_MASK >> c.index & 1 for c in p), max(c.rank for c in p)))
        return plays

    def representatives(self, plays: list[Play]) -> list[Play]:
        in_play = self.h1[0] | self.h1[1] | self.h1[2] | self.h1[3]
        for _, cards in self.trick:
            for c in cards:
                in_play |= 1 << c
        turn = self.turn()
        bound = self.bound_at_claim[turn] & self.h1[turn]
        kept: list[Play] = []
        prev = -1
        for play in sorted(plays, key=lambda p: p[0].index):
            c = play[0].index
            if (
                prev >= 0
                and prev // 13 == c // 13
                and not in_play & ((1 << c) - (1 << (prev + 1)))
                and not (bound >> c & 1 or bound >> prev & 1)
                and self.merge_class(c) == self.merge_class(prev)
            ):
                prev = c  # plays as the card before it: searched once
                continue
            kept.append(play)
            prev = c
        return kept

    def child(self, play: Play) -> bool:
        """Whether the claim holds after ``play`` (played and taken back)."""
        _, broke = self.play(play)
        try:
            return not broke and self.solve()
        finally:
            self.undo()

    def solve(self) -> bool:
        """Whether the claim holds from the deal's position (not broken so far)."""
        known = self.status()
        if known is not None:
            return known
        key = self.key()
        got = self.memo.get(key)
        if got is not None:
            return got
        self.count()
        mine = self.agreed or self.turn() == self.seat
        result = not mine
        for play in self.candidates():
            if self.child(play) == mine:  # a play that keeps it (claimer), or breaks it (others)
                result = mine
                break
        self.memo[key] = result
        return result

    # ------------------------------------------------------------------ the line that keeps it

    def keeping_line(self) -> PlayLine:
        """The continuation of a claim that holds (see the module docstring)."""
        self.budget()
        deal = self.deal
        line: list[tuple[Seat, Play]] = []
        try:
            while not deal.is_over:
                play = None
                if self.turn() != self.seat:
                    preferred = self.preferred()
                    try:
                        if self.child(preferred):
                            play = preferred
                    except _Undecided:
                        self.budget()
                if play is None:
                    play = next(p for p in self.candidates() if self.child(p))
                record, _ = self.play(play)
                line.append((record.seat, record.cards))
        finally:
            for _ in line:
                self.undo()
        return tuple(line)

    def preferred(self) -> Play:
        """Another seat's play in a line that keeps the claim: the open-card solver's best for its
        own objective (one deck, within a small limit), else the first legal play."""
        deal = self.deal
        plays = deal.legal_plays()
        if len(plays) == 1 or self.solvers is None:
            return plays[0]
        from gongzhu.search.fast import encode
        from gongzhu.search.solver import OpenSolver

        turn = self.turn()
        solver = self.solvers.get(turn)
        if solver is None:
            solver = self.solvers[turn] = OpenSolver(deal.options, Seat(turn), table_bits=16)
        values = solver.values(encode(deal), limit=_SOLVER_LIMIT)
        if not values:
            return plays[0]
        best = max(values.values())
        return next(p for p in plays if values.get(p[0]) == best)

    # ------------------------------------------------------------------ the line that breaks it

    def refuting_line(self) -> PlayLine:
        """The refutation of a claim that fails (see the module docstring)."""
        self.budget()
        longest = True
        line: list[tuple[Seat, Play]] = []
        try:
            while self.status() is not False:
                mine = self.turn() == self.seat
                choice: Play | None = None
                if longest:
                    try:
                        choice = self.resisting_play(mine)
                    except _Undecided:
                        longest = False
                        self.budget()
                if choice is None:  # the first play that fails (the claimer's) or breaks (others')
                    choice = next(p for p in self.candidates() if not self.child(p))
                record, broke = self.play(choice)
                line.append((record.seat, record.cards))
                if broke:
                    break
        finally:
            for _ in line:
                self.undo()
        return tuple(line)

    def resisting_play(self, mine: bool) -> Play:
        """The claimer's play that keeps the claim alive longest, or the other seats' play that
        breaks it soonest (counted in plays to the break, all on the search's memo)."""
        best: tuple[int, Play] | None = None
        for play in self.candidates():
            d = self.plies_to_break(play, mine)
            if d is None:
                continue
            if best is None or (d > best[0] if mine else d < best[0]):
                best = (d, play)
        assert best is not None, "a claim that fails has a play that fails it"
        return best[1]

    def plies_to_break(self, play: Play, mine: bool) -> int | None:
        """Plays from here to the break if ``play`` fails the claim, else None.  Another seat's
        play counts only where the search already knows it fails the claim (it looked at the
        others' plays only until one broke the claim)."""
        _, broke = self.play(play)
        try:
            if broke:
                return 1
            holds = self.status()
            if holds is None:
                holds = self.memo.get(self.key())
            if holds is None:
                if not mine:
                    return None
                holds = self.solve()
            return None if holds else 1 + self.distance()
        finally:
            self.undo()

    def distance(self) -> int:
        """Plays to the break from a position where the claim fails, under the longest resistance."""
        if self.status() is False:
            return 0
        key = self.key()
        got = self.dist_memo.get(key)
        if got is not None:
            return got
        self.count()
        mine = self.turn() == self.seat
        d = self.plies_to_break(self.resisting_play(mine), mine)
        assert d is not None
        self.dist_memo[key] = d
        return d


def check_claim(deal: Deal, claim: Claim, *, limit: int = 200_000, agreed: bool = False) -> ClaimVerdict:
    """Whether ``claim`` (R5.4), made now in ``deal``, holds whatever the other seats play: an exact
    search of the continuations (see the module docstring) of at most ``limit`` positions per
    phase (0: no limit).  ``deal`` is left as it is.  Raises
    :class:`~gongzhu.rules.claims.ClaimError` when the claim may not be made now.

    ``agreed``: whether the claim *can* come true with every seat playing to keep it (the others
    having accepted it): an OR search at every position.  Its ``line`` then has each other seat
    play, of the plays that still let the claim come true, the one the open-card solver rates best
    for itself; when no line keeps it the verdict is False with no refutation."""
    verify_claim(deal, claim)
    if limit < 0:
        raise ValueError(f"limit must be >= 0 (0: no limit), not {limit}")
    search = _Search(deal.copy(), claim, limit, agreed=agreed)
    try:
        search.budget()
        holds = search.solve()
        if holds:
            return ClaimVerdict(claim, True, line=search.keeping_line(), nodes=search.nodes)
        if agreed:
            return ClaimVerdict(claim, False, nodes=search.nodes)
        return ClaimVerdict(claim, False, refutation=search.refuting_line(), nodes=search.nodes)
    except _Undecided:
        return ClaimVerdict(claim, None, nodes=search.nodes)


def finish_by_claim(deal: Deal, verdict: ClaimVerdict) -> list[CardPlay]:
    """Play the deal to its end along the line of a claim that holds (``verdict`` from
    :func:`check_claim` on this deal at this position) and return the plays made.  Raises
    :class:`~gongzhu.rules.claims.ClaimError`, leaving the deal as it is, when the claim did not
    hold or its line does not continue the deal from here to its end."""
    if verdict.holds is not True:
        raise ClaimError(f"{verdict.claim} does not hold: only a claim that holds finishes the deal (R5.4)")
    verify_claim(deal, verdict.claim)
    trial = deal.copy()
    try:
        for seat, cards in verdict.line:
            trial.play(cards, seat)
    except ValueError as e:  # IllegalPlayError, CardError: the line is not this deal's
        raise ClaimError(f"the claim's line does not continue this deal: {e}") from None
    if not trial.is_over:
        raise ClaimError("the claim's line does not play this deal to its end")
    return [deal.play(cards, seat) for seat, cards in verdict.line]
