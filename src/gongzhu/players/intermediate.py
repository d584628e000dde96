"""The intermediate computer player: a rule-based player built on the strategy of R12, for one
deck and two decks and every preset of R9.

It looks at nothing but its :class:`~gongzhu.players.observation.Observation`: each decision reads
the table once (:class:`Table`) and scores every legal play with a few terms — the trick, the hand
left, tactics — each of them one of the sources' rules of thumb, in about a millisecond;
:func:`reason_for` says in R12's words why a play makes sense (for hints and ``explain``).  This
module imports the rules core, the message catalog and the players' base and observation.  The
terms in full: docs/players.md, The intermediate.
"""

from __future__ import annotations

import bisect
import math
import random
from collections import Counter
from collections.abc import Sequence

from gongzhu.messages import Text
from gongzhu.players.base import Player
from gongzhu.players.observation import Observation
from gongzhu.rules.cards import AH, JD, QS, TC, Card, Rank, Seat, Suit
from gongzhu.rules.deal import two_card_class
from gongzhu.rules.legal import SeatView, offends
from gongzhu.rules.model import Play
from gongzhu.rules.scoring import heart_value, raw_scores, results, value_factors

__all__ = ["IntermediatePlayer", "Table", "choose_exposures_by_rules", "play_key", "reason_for"]

_S, _H, _C, _D = Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS
_Q, _J, _K, _A, _T = Rank.QUEEN, Rank.JACK, Rank.KING, Rank.ACE, Rank.TEN
_SPECIAL = (QS, JD, TC, AH)

#: Key of a competing play: (pair-rank class, higher rank, lower rank); see :func:`play_key`.
Key = tuple[int, int, int]


def play_key(play: Sequence[Card], led: Suit, pair_trick: bool) -> Key | None:
    """How ``play`` ranks in a trick of suit ``led`` (R5.2, R5.3), or None when it cannot win
    (a discard, or a two-card answer not wholly in the led suit).  Keys compare as tuples; of
    two equal keys the one played first wins (identical copies, R5.3)."""
    if not pair_trick:
        c = play[0]
        return (0, c.rank, c.rank) if c.suit == led else None
    a, b = play[0], play[1]
    if a.suit != led or b.suit != led:
        return None
    return (two_card_class(a == b, led), max(a.rank, b.rank), min(a.rank, b.rank))  # R5.3


def _cards_text(cards: Sequence[Card]) -> str:
    return "".join(c.pretty for c in cards)


class Table:
    """What one seat knows at one decision, read once from the observation: the unseen cards,
    voids, likely holders of the special cards, point values under the exposures made, the
    trick so far and who still plays after this seat."""

    #: Weight of the hand-left terms against the trick's points (tuned by duplicate play).
    hand_weight = 1.0
    #: Chance that a player still to play overtakes a clean trick by choice (to shed a card).
    vol_clean = 0.3
    #: 破红: hearts one opponent must have taken (all of them so far) to count as going for
    #: 满红, and how fast the threat grows with each heart.
    threat_min = 4
    threat_rate = 0.08
    #: Share of the 破红 value lost by giving our own hearts to the player going for 满红.
    feed_penalty = 0.5
    #: Chance of being stuck with the pig on ♠A/♠K, by the number of small spades kept.
    stuck: tuple[float, ...] = (0.25, 0.15, 0.08, 0.04)
    #: Share of the negative points still out that a trick won later may collect.
    discard_danger = 0.06
    #: Hearts the others follow with, in a heart trick won later.
    heart_danger = 1.0
    #: Chance of taking back one's own heart.
    own_heart = 0.3
    #: Value of keeping the lowest card of a suit as an exit (出口), before burdens.
    exit_base = 5.0
    #: 拱猪 bonus, as a share of the pig's value.
    chase_pig = 0.2
    #: Scale of the chance of keeping the pig to the end.
    pig_risk = 1.0

    def __init__(self, obs: Observation) -> None:
        self.obs = obs
        o = obs.options
        self.options = o
        self.me = obs.seat
        self.decks = o.decks
        self.partner: Seat | None = obs.seat.partner if o.partnership else None
        self.hand = obs.hand
        self.mine: Counter[Card] = Counter(obs.hand)
        self.by_suit: list[list[Card]] = [[], [], [], []]
        for c in obs.hand:  # the hand is sorted: each suit from low to high
            self.by_suit[c.suit].append(c)
        self.unseen: Counter[Card] = obs.unseen()
        self.unseen_ranks: list[list[int]] = [[], [], [], []]
        for c, n in self.unseen.items():
            self.unseen_ranks[c.suit].extend([int(c.rank)] * n)
        for r in self.unseen_ranks:
            r.sort()
        self.n_unseen = sum(len(r) for r in self.unseen_ranks)
        self.voids = obs.voids()
        self.known = obs.known_holdings()
        self.cards_left = [obs.cards_left(s) for s in Seat]
        self.captured: list[list[Card]] = [obs.captured(s) for s in Seat]
        self.score_options = o.replace(self_catch=False) if o.self_catch else o
        self.raw = obs.raw_so_far()
        self.others = [s for s in Seat if s != self.me]

        # Values of the point cards under the exposures this seat can see (R4.2, R4.5, R10).
        factor = value_factors(o, obs.exposures)
        self.pig_val = -100 * factor[QS]
        self.sheep_val = 100 * factor[JD]
        self.heart_mult = factor[AH]
        self.tc_mult = 2 * factor[TC]
        self.heart_vals = {r: heart_value(r, o.heart_values) * self.heart_mult for r in range(2, 15)}

        # The trick so far.
        self.trick = obs.trick
        self.leading = not obs.trick
        self.led: Suit | None = obs.trick[0][1][0].suit if obs.trick else None
        self.pair_trick = bool(obs.trick) and len(obs.trick[0][1]) == 2
        self.best_seat: Seat | None = None
        self.best_key: Key | None = None
        if self.led is not None:
            for s, p in obs.trick:
                k = play_key(p, self.led, self.pair_trick)
                if k is not None and (self.best_key is None or k > self.best_key):
                    self.best_seat, self.best_key = s, k
        self.trick_points = tuple(c for _, p in obs.trick for c in p if _is_point(c))
        self.after: list[Seat] = []
        s = self.me
        for _ in range(3 - len(obs.trick)):
            s = obs.next_seat(s)
            self.after.append(s)

        # Remaining danger: negative point cards not yet taken (the pig, hearts), not ours.
        self.rem_neg = sum(-self.value(c) * n for c, n in self.unseen.items() if self.value(c) < 0)
        hearts = [self.heart_vals[r] for r in self.unseen_ranks[_H]]
        self.avg_heart = sum(hearts) / len(hearts) if hearts else 0.0
        top = sorted(hearts)[:3]
        self.top_heart = sum(top) / len(top) if top else 0.0

        self._holders: dict[Card, dict[Seat, float]] = {}
        self._void_p: dict[tuple[Seat, Suit], float] = {}
        self._transfer: dict[tuple[int, tuple[int, ...]], float] = {}
        self._suit_liab: dict[tuple[int, tuple[Card, ...]], float] = {}
        self._shoot: bool | None = None
        self._threat: tuple[Seat, float] | None = None
        self._threat_done = False
        self._view: SeatView | None = None
        self._offences: dict[Play, bool] = {}

    # ------------------------------------------------------------------ values and scoring

    def value(self, c: Card) -> int:
        """A point card's value to its taker, ignoring the transformer (R2, R4)."""
        if c.suit == _H:
            return self.heart_vals[c.rank]
        if c == QS:
            return self.pig_val
        if c == JD:
            return self.sheep_val
        return 0

    def ally(self, a: Seat, b: Seat) -> bool:
        """Same side (the seat itself, or its partner under ``partners`` scoring, R7.3)."""
        return a == b or (self.options.partnership and (a - b) % 4 == 2)

    def scale(self, seat: Seat) -> float:
        """How much one raw point of ``seat`` moves this seat's result (R7), linearised."""
        if self.options.partnership:
            return 0.5 if self.ally(seat, self.me) else -0.5
        if self.options.pig_sheep:
            return 0.75 if seat == self.me else -0.25
        return 1.0 if seat == self.me else -1.0 / 3.0

    def _utility(self, raws: Sequence[int], caps: Sequence[Sequence[Card]]) -> float:
        if self.options.pig_sheep:
            pig = next((Seat(s) for s in range(4) if QS in caps[s]), None)
            sheep = next((Seat(s) for s in range(4) if JD in caps[s]), None)
            if pig is not None and sheep is not None:
                res, _ = results(self.options, raws, pig, sheep)
                return float(res[self.me])
        if self.options.partnership:
            team = raws[self.me] + raws[self.me.partner]
            return (team - (sum(raws) - team)) / 2
        return raws[self.me] - (sum(raws) - raws[self.me]) / 3

    def transfer(self, taker: Seat, points: Sequence[Card]) -> float:
        """Change of this seat's result if ``taker`` takes ``points`` now (exact R6/R7 on the
        cards taken so far), plus the transformer's likely future: whoever takes ♣10 will
        probably take more negative points later, which it doubles."""
        if not points:
            return 0.0
        key = (int(taker), tuple(sorted(c.index for c in points)))
        got = self._transfer.get(key)
        if got is not None:
            return got
        caps = [list(c) for c in self.captured]
        caps[taker].extend(points)
        raws, _ = raw_scores(self.score_options, caps, self.obs.exposures)
        value = self._utility(raws, caps) - self._utility(self.raw, caps)
        if TC in points and self.rem_neg > 0:
            future = -0.2 * self.rem_neg  # negative points the taker may still take
            if all(c == TC for c in caps[taker]):  # alone for now: it will hardly stay alone
                extra = 0.5 * self.tc_mult * future - 0.6 * raws[taker]
            else:
                extra = (self.tc_mult - 1) * future
            value += self.scale(taker) * extra
        if self.options.self_catch and taker == self.me:
            # R6.1 自得: our own special cards taken back count twice (values as exposed).
            for c in points:
                if c in _SPECIAL and c in self.mine:
                    value += self.scale(self.me) * (self.value(c) if c != TC else 0)
        threat = self.threat()
        if threat is not None and taker != threat[0] and any(c.suit == _H for c in points):
            value += self.break_value(threat)
        if self.shooting() and any(c.suit == _H for c in points):
            hearts = sum(-self.value(c) for c in points if c.suit == _H)
            value += 1.5 * hearts if taker == self.me else -0.6 * 200 * self.heart_mult * self.decks
        self._transfer[key] = value
        return value

    # ------------------------------------------------------------------ who holds what

    def holders(self, c: Card) -> dict[Seat, float]:
        """Expected number of copies of ``c`` each other seat holds."""
        got = self._holders.get(c)
        if got is not None:
            return got
        n = float(self.unseen[c])
        out = {s: 0.0 for s in self.others}
        for s in self.others:
            k = self.known[s][c]
            out[s] += k
            n -= k
        if n > 0:
            cands = [s for s in self.others if c.suit not in self.voids[s] and self.cards_left[s] > 0]
            total = sum(self.cards_left[s] for s in cands)
            for s in cands:
                out[s] += n * self.cards_left[s] / total
        self._holders[c] = out
        return out

    def p_void(self, s: Seat, suit: Suit) -> float:
        """Probability that ``s`` holds no card of ``suit``."""
        key = (s, suit)
        got = self._void_p.get(key)
        if got is not None:
            return got
        n = len(self.unseen_ranks[suit])
        if suit in self.voids[s] or n == 0 or self.cards_left[s] == 0:
            p = 1.0
        else:
            others = [x for x in self.others if suit not in self.voids[x]]
            p = 0.0 if len(others) == 1 else max(0.0, 1.0 - n / max(1, self.n_unseen)) ** self.cards_left[s]
        self._void_p[key] = p
        return p

    def share(self, s: Seat, suit: Suit) -> float:
        """Share of the unseen cards of ``suit`` that ``s`` probably holds."""
        cands = [x for x in self.others if suit not in self.voids[x] and self.cards_left[x] > 0]
        if s not in cands:
            return 0.0
        return self.cards_left[s] / sum(self.cards_left[x] for x in cands)

    def count_above(self, suit: Suit, rank: int) -> int:
        r = self.unseen_ranks[suit]
        return len(r) - bisect.bisect_right(r, rank)

    def count_below(self, suit: Suit, rank: int) -> int:
        return bisect.bisect_left(self.unseen_ranks[suit], rank)

    # ------------------------------------------------------------------ 满红 (all hearts)

    def threat(self) -> tuple[Seat, float] | None:
        """An opponent who has taken every heart so far, with enough of them to be going for
        满红 (R6 step 4), and how likely it now looks."""
        if self._threat_done:
            return self._threat
        self._threat_done = True
        counts = [sum(1 for c in caps if c.suit == _H) for caps in self.captured]
        total = sum(counts)
        found: tuple[Seat, float] | None = None
        if total >= self.threat_min * self.decks:
            x = Seat(max(range(4), key=lambda s: counts[s]))
            if counts[x] == total and not self.ally(x, self.me):
                found = (x, min(0.85, self.threat_rate * total / self.decks))
        self._threat = found
        return found

    def break_value(self, threat: tuple[Seat, float]) -> float:
        x, p = threat
        taken = sum(-self.value(c) for c in self.captured[x] if c.suit == _H)
        swing = 200 * self.heart_mult * self.decks + taken
        return p * swing * abs(self.scale(x))

    def shooting(self) -> bool:
        """收全红: we have taken every heart so far and hold so many of the rest, with ♥A, that
        only a few hearts are elsewhere (a very strong heart hand, R12)."""
        if self._shoot is None:
            taken = [sum(1 for c in caps if c.suit == _H) for caps in self.captured]
            mine = len(self.by_suit[_H]) + taken[self.me]
            ace = AH in self.mine or AH in self.captured[self.me]
            elsewhere = 13 * self.decks - mine
            self._shoot = (sum(taken) == taken[self.me] and ace and elsewhere <= (3 if self.decks == 1 else 5)
                           and not self.options.pig_sheep)
        return self._shoot

    # ------------------------------------------------------------------ the trick

    def offends(self, play: Play) -> bool:
        """Under ``discard_color=penalty`` (R5.2), whether ``play`` is an off-colour discard that
        makes this seat take the trick's point cards, as the rules core judges it
        (:func:`~gongzhu.rules.legal.offends`)."""
        known = self._offences.get(play)
        if known is None:
            if self._view is None:
                self._view = self.obs.seat_view()
            known = self._offences[play] = offends(self._view, tuple(c.index for c in play))
        return known

    def p_beat(self, s: Seat, led: Suit, key: Key, pair_trick: bool, clean: bool, sheep_in: bool) -> float:
        """Probability that ``s``, still to play, overtakes a play of key ``key``: it must hold
        something higher, and plays it when forced or, rarely, by choice."""
        if led in self.voids[s]:
            return 0.0
        known_high = any(c.suit == led and c.rank > key[1] for c in self.known[s])
        f = self.share(s, led)
        lower = self.count_below(led, key[1])
        vol = 0.9 if sheep_in else (self.vol_clean if clean else 0.04)
        if not pair_trick:
            higher = self.count_above(led, key[1])
            if higher == 0 and not known_high:
                return 0.0
            has = 1.0 if known_high else 1.0 - (1.0 - f) ** higher
            no_lower = (1.0 - f) ** lower
            return has * (no_lower + (1.0 - no_lower) * vol)
        m = len(self.unseen_ranks[led]) * f
        two = max(0.0, 1.0 - (1.0 + m) * math.exp(-m))  # holds two or more (Poisson)
        if led != _D:
            if key[0] == 0:  # a pair: two non-pair cards beat it
                return 0.6 * two
            higher = self.count_above(led, key[1])
            return two * (1.0 - (1.0 - f) ** higher) * (0.5 + 0.5 * vol)
        ranks = self.unseen_ranks[led]
        pairs = [r for r in set(ranks) if ranks.count(r) == 2]
        if key[0] == 1:  # a diamond pair: only a higher pair beats it
            return min(1.0, sum(1 for r in pairs if r > key[1]) * f * f) * 0.8
        any_pairs = len(pairs)
        return min(1.0, any_pairs * f * f + two * (1.0 - (1.0 - f) ** self.count_above(led, key[1])) * 0.5)

    def outcome(self, play: Play) -> tuple[dict[Seat, float], Suit, Key]:
        """Who takes the trick after ``play``, as probabilities; the led suit; the key to beat."""
        if self.leading:
            led = play[0].suit
            pair = len(play) == 2
            key = play_key(play, led, pair)
            assert key is not None
            best_seat, best_key = self.me, key
        else:
            assert self.led is not None and self.best_key is not None and self.best_seat is not None
            led, pair = self.led, self.pair_trick
            best_seat, best_key = self.best_seat, self.best_key
            k = play_key(play, led, pair)
            if k is not None and k > best_key:
                best_seat, best_key = self.me, k
        if self.offends(play):
            return {self.me: 1.0}, led, best_key
        pts = list(self.trick_points) + [c for c in play if _is_point(c)]
        clean = not any(self.value(c) < 0 for c in pts)
        sheep_in = JD in pts
        if pair:
            probs = [self.p_beat(s, led, best_key, pair, clean, sheep_in) * (1.0 - self.p_void(s, led))
                     for s in self.after]
            hold = 1.0
            for p in probs:
                hold *= 1.0 - p
        else:
            hold, probs = self._single_overtakes(led, best_key, clean, sheep_in)
        dist = {best_seat: hold}
        total = sum(probs)
        if total > 0:
            for s, p in zip(self.after, probs, strict=True):
                dist[s] = dist.get(s, 0.0) + (1.0 - hold) * p / total
        return dist, led, best_key

    def _single_overtakes(self, led: Suit, key: Key, clean: bool, sheep_in: bool) -> tuple[float, list[float]]:
        """One-card trick: the chance that nobody still to play overtakes ``key``, and each
        one's weight as the overtaker.  The higher unseen cards lie with the players still to
        play in proportion to their share; one who holds one plays it when it has no lower card,
        or by choice (mostly to catch the sheep)."""
        higher = self.count_above(led, key[1])
        lower = self.count_below(led, key[1])
        vol = 0.9 if sheep_in else (self.vol_clean if clean else 0.04)
        weights: list[float] = []
        share_after = 0.0
        known = 0.0
        for s in self.after:
            if led in self.voids[s]:
                weights.append(0.0)
                continue
            f = self.share(s, led) * (1.0 - self.p_void(s, led))
            no_lower = (1.0 - f) ** lower
            will = no_lower + (1.0 - no_lower) * vol
            if any(c.suit == led and c.rank > key[1] for c in self.known[s]):
                known = max(known, will)
                weights.append(will)
            else:
                weights.append(f * will)
            share_after += f
        if known == 0.0 and higher == 0:
            return 1.0, [0.0] * len(self.after)
        total = sum(weights)
        if total <= 0:
            return 1.0, weights
        mean_will = sum(weights) / share_after if share_after > 0 else known
        beaten = max(known, (1.0 - (1.0 - min(1.0, share_after)) ** higher) * min(1.0, mean_will))
        return 1.0 - beaten, weights

    def thrown_in(self, s: Seat, led: Suit, key: Key, pair_trick: bool) -> float:
        """Raw points that ``s``, still to play, probably adds to the trick: a void player
        dumps the pig or a big heart; a follower adds a heart, ♠Q under ♠A/♠K, or (rarely,
        forced) the sheep under a catcher."""
        n = 2 if pair_trick else 1
        pv = self.p_void(s, led)
        pig = min(1.0, self.holders(QS)[s]) if self.unseen[QS] else 0.0
        hearts = len(self.unseen_ranks[_H])
        has_heart = 0.0 if _H in self.voids[s] or hearts == 0 else 1.0 - (1.0 - self.share(s, _H)) ** hearts
        # A player void in the led suit holds none of its cards: no pig in a spade trick, no
        # heart in a heart trick.
        dump_pig = 0.0 if led == _S else pig
        dump_heart = 0.0 if led == _H else has_heart * self.top_heart
        dump = dump_pig * self.pig_val + (1.0 - dump_pig) * dump_heart
        follow = 0.0
        if led == _H:
            follow = n * self.avg_heart
        elif led == _S and key[1] > _Q and self.unseen[QS]:
            follow = 0.9 * pig * self.pig_val
        elif led == _D and key[1] > _J and self.unseen[JD]:
            follow = 0.25 * min(1.0, self.holders(JD)[s]) * self.sheep_val
        return pv * dump + (1.0 - pv) * follow

    # ------------------------------------------------------------------ the hand left

    def exit_value(self) -> float:
        burden = 0.0
        if self.mine[QS]:
            burden += 8
        if self.unseen[QS]:
            burden += 4 * (self.mine[Card(_S, _A)] + self.mine[Card(_S, _K)])
        burden += 2 * sum(1 for c in self.by_suit[_H] if c.rank >= _J)
        return min(20.0, self.exit_base + burden)

    def danger(self, suit: Suit) -> float:
        """Points at stake when winning a trick of ``suit``: later discards, and in hearts the
        hearts the others follow with."""
        d = self.discard_danger * self.rem_neg
        if suit == _H:
            d += self.heart_danger * -self.avg_heart
        return d

    def suit_liability(self, suit: Suit, cards: tuple[Card, ...]) -> float:
        """How much holding ``cards`` (of one suit, low to high) is a burden (positive) or an
        asset (negative), in points."""
        key = (int(suit), cards)
        got = self._suit_liab.get(key)
        if got is not None:
            return got
        total = 0.0
        if cards:
            d = self.danger(suit)
            pig_out = suit == _S and self.unseen[QS] > 0
            for c in cards:
                if pig_out and c.rank > _Q:
                    continue  # 猪圈 while the pig is out: see _spade_liability
                above = self.count_above(suit, c.rank)
                below = self.count_below(suit, c.rank)
                wp = below / (above + below) if above + below else 1.0
                total += wp ** 3 * d
                if suit == _H:
                    own = self.own_heart * wp * wp * -self.heart_vals[c.rank]
                    total += -own if self.shooting() else own
            above = self.count_above(suit, cards[0].rank)
            if above > 0:  # 出口: the lower the card, the surer it gives up the lead
                total -= self.exit_value() * above / (above + self.count_below(suit, cards[0].rank))
            if suit == _S:
                total += self._spade_liability(cards)
            elif suit == _D:
                total += self._diamond_liability(cards)
            elif suit == _C and TC in cards:
                above = self.count_above(_C, _T)
                below = self.count_below(_C, _T)
                wp = below / (above + below) if above + below else 1.0
                total += wp * wp * (15 + 0.5 * max(0, -self.raw[self.me]))
        self._suit_liab[key] = total
        return total

    def _spade_liability(self, cards: tuple[Card, ...]) -> float:
        low = sum(1 for c in cards if c.rank < _Q)
        pig = abs(self.pig_val)
        total = 0.0
        n_pig = sum(1 for c in cards if c == QS)
        if n_pig:
            above = self.count_above(_S, _Q)
            table = (0.6, 0.45, 0.32, 0.22, 0.15) if above else (0.9, 0.75, 0.6, 0.45, 0.35)
            p = table[min(low, 4)]
            if any(not self.by_suit[s] and self.unseen_ranks[s] for s in (_H, _C, _D)):
                p *= 0.75
            total += n_pig * (p * self.pig_risk + 0.1) * pig
        if self.unseen[QS]:
            stuck = self.stuck[min(low, 3)]
            share = self.unseen[QS] / self.decks
            total += sum(1 for c in cards if c.rank > _Q) * stuck * pig * share
        elif n_pig:
            total += sum(1 for c in cards if c.rank > _Q) * 0.05 * pig
        return total

    def _diamond_liability(self, cards: tuple[Card, ...]) -> float:
        total = 0.0
        sheep = self.sheep_val * (2 if self.options.self_catch else 1)
        n_sheep = sum(1 for c in cards if c == JD)
        if n_sheep:
            above = self.count_above(_D, _J)
            p = 0.85 if above == 0 else max(0.2, 0.45 - 0.1 * above)
            total -= n_sheep * p * sheep
        if self.unseen[JD]:
            total -= sum(1 for c in cards if c.rank > _J) * 0.1 * self.sheep_val * self.unseen[JD] / self.decks
        return total

    def burden(self) -> float:
        """The burdens we would like to discard: the pig, ♠A/♠K while the pig is out, hearts."""
        total = 0.0
        if self.by_suit[_S]:
            total += max(0.0, self._spade_liability(tuple(self.by_suit[_S])))
        for c in self.by_suit[_H]:
            total += 0.4 * -self.heart_vals[c.rank] * (1.0 if c.rank >= 10 else 0.3)
        return total

    # ------------------------------------------------------------------ scoring a play

    def evaluate(self, play: Play) -> float:
        """The play's score: the trick, the hand left, and the tactics of R12."""
        dist, led, key = self.outcome(play)
        pair = len(play) == 2 if self.leading else self.pair_trick
        pts = list(self.trick_points) + [c for c in play if _is_point(c)]
        adds = {s: self.thrown_in(s, led, key, pair) for s in self.after}
        value = 0.0
        threat = self.threat()
        feeds = threat is not None and any(c.suit == _H for c in play)
        for taker, p in dist.items():
            if p <= 0:
                continue
            extra = sum(a for s, a in adds.items() if s != taker and not self.ally(s, taker))
            mult = self.tc_mult if TC in self.captured[taker] else 1
            value += p * (self.transfer(taker, pts) + self.scale(taker) * extra * mult)
            if feeds and threat is not None and taker == threat[0]:
                # Our hearts are what can still break 满红: do not hand them to its taker.
                value -= p * self.feed_penalty * self.break_value(threat)
        # The hand left (in raw points of this seat, turned into its result like a transfer).
        hand_value = 0.0
        removed = Counter(play)
        for suit in {c.suit for c in play}:
            before = tuple(self.by_suit[suit])
            after_list = list(before)
            for c, n in removed.items():
                if c.suit == suit:
                    for _ in range(n):
                        after_list.remove(c)
            after = tuple(after_list)
            hand_value += self.suit_liability(suit, before) - self.suit_liability(suit, after)
            if not after and self.unseen_ranks[suit]:
                hand_value += min(50.0, 0.25 * self.burden())  # 断门: void, so we can discard later
            elif self.leading and len(after) == 1:
                hand_value += min(15.0, 0.08 * self.burden())  # one step from 断门
        hand_value += self._tactics(play, led, key, dist)
        return value + self.scale(self.me) * self.hand_weight * hand_value

    def _tactics(self, play: Play, led: Suit, key: Key, dist: dict[Seat, float]) -> float:
        bonus = 0.0
        top = max(c.rank for c in play)
        safe_chase = not self.mine[QS] and not any(c.rank > _Q for c in self.by_suit[_S])
        if self.leading and led == _S and top < _Q and self.unseen[QS] and safe_chase:
            # 拱猪: small spades flush out the pig, safe when we hold no pig-catcher.
            bonus += self.chase_pig * abs(self.pig_val) * self.unseen[QS] / self.decks
        if (not self.leading and led == _D and self.unseen[JD] and not self.mine[JD] and top > _J
                and self.best_key is not None and self.best_key[1] < _J and dist.get(self.me, 0.0) > 0.5):
            # 援助: a catcher now keeps the sheep's holder, still to play, from catching it.
            holders = self.holders(JD)
            late = sum(min(1.0, holders[s]) for s in self.after)
            sheep = self.sheep_val * (2 if self.options.self_catch else 1)
            bonus += 0.4 * late * sheep / 3
        return bonus


def _is_point(c: Card) -> bool:
    return c.suit == _H or c in (QS, JD, TC)


# ---------------------------------------------------------------------- exposures (R4)


def choose_exposures_by_rules(obs: Observation, strict: bool = False) -> list[tuple[Card, str]]:
    """Exposures by the sources' rules of thumb (R4, 拱猪技巧 3, 4, 17): expose what the hand can
    defend, never more than two cards.

    * ♠Q (卖猪) with long spades: five or more, four of them below ♠Q, and not both ♠A and ♠K;
    * ♦J (明羊) with many diamonds and sheep-catchers of our own (few diamonds: never);
    * ♣10 with long small clubs and no pig or big hearts to catch;
    * ♥A with a 满红 hand (♥A K Q and seven hearts) or with many small hearts and a void to
      shed ♥A on.

    Kinds: 首明 (``first``, ×4) only for the first card dealt and a clearly strong holding; under
    ``hidden`` the hidden kind; under ``sell_x4_x2`` hidden (×2) unless the holding is strong.
    Two decks (R4.5): one copy at most, with longer holdings.  ``strict`` asks for the strong
    holding for every card (the beginner's "trivially safe" exposures)."""
    hand = obs.hand
    if not obs.exposable():
        return []
    decks = obs.options.decks
    suits: list[list[Card]] = [[c for c in hand if c.suit == s] for s in Suit]
    n = [len(x) for x in suits]
    spades = suits[_S]
    low_s = sum(1 for c in spades if c.rank < _Q)
    ak = sum(1 for c in spades if c.rank > _Q)
    catchers = sum(1 for c in suits[_D] if c.rank > _J)
    low_c = sum(1 for c in suits[_C] if c.rank < _T)
    big_h = sum(1 for c in suits[_H] if c.rank >= _Q)
    low_h = sum(1 for c in suits[_H] if c.rank <= 6)
    shortest = min(n[s] for s in (_S, _C, _D))
    has_pig = QS in hand
    scores: list[tuple[int, Card, bool]] = []  # (priority, card, strong holding)
    if decks == 1:
        if has_pig and n[_S] >= 5 and low_s >= 4 and ak < 2:
            scores.append((3, QS, n[_S] >= 6 and low_s >= 5 and ak == 0))
        if JD in hand and ((n[_D] >= 5 and catchers >= 2) or (catchers == 3 and n[_D] >= 4)):
            scores.append((2, JD, catchers == 3))
        if TC in hand and n[_C] >= 5 and low_c >= 3 and not has_pig and big_h <= 1:
            scores.append((1, TC, n[_C] >= 6 and low_c >= 4 and big_h == 0))
        if AH in hand:
            shoot = n[_H] >= 7 and all(Card(_H, r) in hand for r in (_A, _K, _Q))
            if shoot or (n[_H] >= 6 and low_h >= 4 and shortest <= 1 and not has_pig):
                scores.append((0, AH, shoot and n[_H] >= 8))
    else:
        if has_pig and n[_S] >= 10 and low_s >= 7 and ak <= 1:
            scores.append((3, QS, n[_S] >= 12 and ak == 0))
        if JD in hand and n[_D] >= 9 and catchers >= 4:
            scores.append((2, JD, catchers >= 5))
        if TC in hand and n[_C] >= 10 and low_c >= 6 and not has_pig and big_h <= 1:
            scores.append((1, TC, False))
    if strict:
        scores = [x for x in scores if x[2]]
    scores.sort(key=lambda x: -x[0])
    chosen: list[tuple[Card, str]] = []
    for _, c, strong in scores[:2]:
        kinds = obs.exposure_kinds(c)
        if not kinds:
            continue
        if "first" in kinds and strong and obs.first_card == c:
            kind = "first"
        elif "hidden" in kinds and not (strong and "shown" in kinds and obs.options.shown_x4):
            kind = "hidden"
        elif "shown" in kinds:
            kind = "shown"
        else:
            kind = kinds[0]
        chosen.append((c, kind))
    return chosen


# ---------------------------------------------------------------------- the player


class IntermediatePlayer(Player):
    """Rule-based play after R12 and the sources' 拱猪技巧 (see the module docstring).
    Deterministic for a seed: the random generator only breaks exact ties."""

    level = "intermediate"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def choose_exposures(self, obs: Observation) -> list[tuple[Card, str]]:
        return choose_exposures_by_rules(obs)

    def choose_play(self, obs: Observation) -> Play:
        plays = obs.legal_plays()
        if not plays:
            raise ValueError(f"{obs.seat.english} has no legal play: it is not their turn")
        if len(plays) == 1:
            return plays[0]
        table = Table(obs)
        scored = [(table.evaluate(p), p) for p in plays]
        best = max(v for v, _ in scored)
        top = [p for v, p in scored if v >= best - 1e-9]
        return top[0] if len(top) == 1 else self.rng.choice(top)

    def explain(self, obs: Observation, play: Play) -> Text:
        """Why ``play``, in the words of R12 (a catalog entry to render in either language)."""
        return reason_for(obs, play)

    def __repr__(self) -> str:
        return f"IntermediatePlayer(seed={self.seed!r})"


# ---------------------------------------------------------------------- reasons (hints)


def reason_for(obs: Observation, play: Play) -> Text:
    """A one-line reason for a legal ``play`` (a ``hint.reason.*`` entry of the message catalog,
    to render in either language), using R12's terms:
    forced, 送猪/垫猪 (dump the pig), 垫红桃 (dump hearts), 拱猪 lead, 断门, 捉羊 / 自得羊, 援助,
    破红, 收全红, 自然跟牌 (duck just under the winner), 出口 (exit card), 跑圈, 分红, 牵羊/放羊,
    攻变, winning a trick, and two-deck pair plays (R5.3)."""
    t = Table(obs)
    text = _cards_text(play)
    legal = obs.legal_plays()
    if len(legal) == 1:
        return _reason("forced", cards=text)
    if t.leading:
        return _lead_reason(t, play, text)
    assert t.led is not None and t.best_key is not None and t.best_seat is not None
    led = t.led
    key = play_key(play, led, t.pair_trick)
    following = any(c.suit == led for c in play)
    winner = t.best_seat
    threat = t.threat()
    if key is not None and key > t.best_key:
        last = not t.after
        pts = list(t.trick_points) + [c for c in play if _is_point(c)]
        best_key = t.best_key
        can_duck = any((k := play_key(p, led, t.pair_trick)) is None or k <= best_key for p in legal)
        if JD in pts and last:
            if JD in play:
                return _reason("self_catch_last", cards=text)
            return _reason("capture_sheep", cards=text)
        if JD in play:
            return _reason("play_sheep", cards=text)
        if JD in pts:
            return _reason("go_for_sheep", cards=text)
        if led == _D and t.unseen[JD] and not t.mine[JD] and max(c.rank for c in play) > _J and t.after:
            return _reason("cover", cards=text)
        if threat is not None and any(c.suit == _H for c in pts):
            return _reason("break_hearts_win", seat=threat[0], cards=text)
        if t.shooting() and led == _H:
            return _reason("collect_hearts", cards=text)
        if QS in pts and not can_duck:
            return _reason("forced_pig", cards=text, who=winner)
        if t.pair_trick and play[0] == play[1] and led == _D:
            return _reason("diamond_pair_wins", cards=text)
        if not can_duck:
            if last:
                return _reason("last_highest", cards=text)
            return _reason("over_no_duck", cards=text, who=winner)
        if last:
            return _reason("last_few_points", cards=text)
        return _reason("shed_high", cards=text)
    if not following:
        return _discard_reason(t, play, text)
    # Following suit without winning.
    if QS in play:
        return _reason("give_pig", who=winner)
    hearts = [c for c in play if c.suit == _H]
    if hearts and not t.ally(winner, t.me):
        return _reason("duck_hearts", cards=text, who=winner)
    if TC in play:
        if t.ally(winner, t.me):
            return _reason("transformer_to_partner", cards=text)
        return _reason("transformer_to", cards=text, who=winner)
    if JD in play:
        if t.ally(winner, t.me):
            return _reason("sheep_to_partner", cards=text)
        return _reason("sheep_goes", cards=text)
    own = sorted(c.rank for c in t.by_suit[led])
    lowest = own[0] if own else 0
    best_rank = t.best_key[1]
    below = [r for r in own if r < best_rank]
    if t.pair_trick and play[0] == play[1] and led != _D:
        return _reason("pair_ducks", suit=led.letter, cards=text)
    if below and max(c.rank for c in play) == max(below) and (len(own) == 1 or min(c.rank for c in play) > lowest):
        return _reason("natural", cards=text, who=winner)
    if min(c.rank for c in play) == lowest:
        return _reason("duck_lowest", cards=text)
    return _reason("duck_under", cards=text, who=winner)


def _reason(name: str, **params: object) -> Text:
    return Text.of(f"hint.reason.{name}", **params)


def _lead_reason(t: Table, play: Play, text: str) -> Text:
    c = play[0]
    suit = c.suit
    n_suit = len(t.by_suit[suit])
    if len(play) == 2:
        if suit == _D:
            return _reason("lead_diamond_pair", cards=text)
        return _reason("lead_pair", cards=text, suit=suit.letter)
    if c == JD and t.count_above(_D, _J) == 0:
        return _reason("lead_self_catch", cards=text)
    if c == QS:
        if t.count_above(_S, _Q) > 0:
            return _reason("lead_pig_to_catchers", cards=text)
        return _reason("lead_pig", cards=text)
    if suit == _S and c.rank < _Q and t.unseen[QS]:
        return _reason("chase_pig", cards=text)
    if suit == _S and c.rank > _Q and t.unseen[QS]:
        return _reason("run_catcher", cards=text)
    if suit == _H:
        if t.shooting():
            return _reason("draw_hearts", cards=text)
        return _reason("spread_hearts", cards=text)
    if suit == _D and t.unseen[JD]:
        if c.rank > _J:
            return _reason("lead_sheep_catcher", cards=text)
        if t.mine[JD]:
            return _reason("release_sheep", cards=text)
    if suit == _C and t.unseen[TC] and c.rank < _T:
        return _reason("attack_transformer", cards=text)
    if n_suit <= 2 and t.unseen_ranks[suit]:
        return _reason("lead_short", suit=suit.letter, cards=text)
    if t.count_above(suit, c.rank) > 0 and c == t.by_suit[suit][0]:
        return _reason("exit_card", cards=text)
    return _reason("lead_safe", cards=text)


def _discard_reason(t: Table, play: Play, text: str) -> Text:
    assert t.best_seat is not None and t.led is not None
    winner = t.best_seat
    if QS in play:
        if t.ally(winner, t.me):
            return _reason("pig_to_partner", cards=text)
        return _reason("dump_pig", suit=t.led.letter, who=winner)
    if JD in play and t.ally(winner, t.me):
        return _reason("discard_sheep_to_partner")
    if TC in play:
        if t.raw[winner] < 0 and not t.ally(winner, t.me):
            return _reason("transformer_to_negative", who=winner)
        return _reason("discard_transformer", cards=text)
    hearts = [c for c in play if c.suit == _H]
    threat = t.threat()
    if hearts:
        if threat is not None and threat[0] != winner:
            return _reason("break_hearts_discard", who=winner, seat=threat[0])
        return _reason("dump_hearts", cards=text, who=winner)
    for c in play:
        if len(t.by_suit[c.suit]) == sum(1 for d in play if d == c or d.suit == c.suit) and t.unseen_ranks[c.suit]:
            return _reason("get_void", suit=c.suit.letter, card=c.pretty)
    c = max(play, key=lambda x: x.rank)
    if c.rank < _T:
        return _reason("discard_low", cards=text)
    if c.suit == _S and c.rank > _Q and t.unseen[QS]:
        return _reason("discard_catcher", card=c.pretty)
    return _reason("discard_high", cards=text)
