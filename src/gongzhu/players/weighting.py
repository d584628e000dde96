"""How likely the other seats' plays are in a sampled world, under the learned network's policy.

The expert samples worlds (hands for the other seats) that fit every hard fact of the deal —
voids, exposures, hand sizes — but treats all of them as equally likely, although a world where
West held ♠A K Q and still threw the ♠2 on a spade lead explains West's play less well than one
where West held only small spades.  :class:`PlayLikelihood` scores a world by the network's
probability of the plays the other seats actually made, each seen from that seat's own view in
that world: the seat's hand then was its world hand plus the cards it has played since.

Only the last ``recent`` plays by other seats are scored (the latest are the most telling and
the cheapest), one deck only.  Each play's observation is the seat's view as
:func:`gongzhu.players.features.encode` writes it — the public part is built once per decision,
each world fills in the hand, what the seat has not seen, and its legal cards (R4.3, R5.2 through
the rules core's :func:`~gongzhu.rules.legal.cascade`).  What the scored seat cannot know the
observer cannot either, so the seat's first dealt card is left out and its own hidden exposures
are taken as the observer sees them.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gongzhu.players import features
from gongzhu.players.network import Network
from gongzhu.players.observation import Observation
from gongzhu.players.sampling import World
from gongzhu.rules.cards import Seat, mask_of
from gongzhu.rules.deal import Phase
from gongzhu.rules.exposure import visible_exposures
from gongzhu.rules.legal import SeatView, bits, cascade
from gongzhu.rules.model import Exposure, Trick
from gongzhu.rules.options import Options

__all__ = ["PlayLikelihood"]

_HAND, _UNSEEN, _LEGAL = features.OFFSET["hand"], features.OFFSET["unseen"], features.OFFSET["legal"]


class _Scored:
    """One play by another seat: the seat's view then without its hand, and what it played."""

    __slots__ = ("base", "card", "later", "restricted", "seat", "suits_led", "trick")

    def __init__(self, base: npt.NDArray[np.float32], seat: Seat, card: int, later: int, restricted: int,
                 trick: tuple[tuple[int, tuple[int, ...]], ...], suits_led: int) -> None:
        self.base = base
        self.seat = seat
        self.card = card
        self.later = later  # the cards the seat played from this play on (this one included)
        self.restricted = restricted  # its exposed cards bound by R4.3 (shown, auto)
        self.trick = trick
        self.suits_led = suits_led


class PlayLikelihood:
    """Scores worlds for one decision of ``obs``'s seat (see the module docstring); ``temper``
    scales the log-likelihood (1: the network's probabilities as they are; less: flatter)."""

    def __init__(self, network: Network, obs: Observation, *, recent: int = 8, temper: float = 0.5) -> None:
        self.network = network
        self.options = obs.options
        self.temper = temper
        self.scored: list[_Scored] = [] if obs.options.decks != 1 else self._scored(obs, recent)
        if self.scored:
            self._bases = np.stack([sc.base for sc in self.scored])
            self._unseen = self._bases[:, _UNSEEN:_UNSEEN + 52].copy()
            self._first = network.first_layer(self._bases)
            self._columns = np.concatenate([network.first_columns(_HAND, _HAND + 52),
                                            network.first_columns(_UNSEEN, _UNSEEN + 52),
                                            network.first_columns(_LEGAL, _LEGAL + 52)])
            self._cards = np.array([sc.card for sc in self.scored])
            self._seats = {sc.seat for sc in self.scored}

    def _scored(self, obs: Observation, recent: int) -> list[_Scored]:
        tricks = list(obs.tricks)
        plays: list[tuple[int, int, Seat, int]] = []  # (trick, position, seat, card)
        for k, t in enumerate([*tricks, None]):
            seq = t.plays if t is not None else obs.trick
            for i, (s, p) in enumerate(seq):
                plays.append((k, i, s, p[0].index))
        others = [j for j, (_, _, s, _) in enumerate(plays) if s != obs.seat][-recent:]
        out = []
        for j in others:
            k, i, s, card = plays[j]
            later = 0
            for _, _, s2, c2 in plays[j:]:
                if s2 == s:
                    later |= 1 << c2
            view = _view_of(obs, tricks, k, i, s)
            base = features.encode(view)
            bound = mask_of(e.card for e in obs.exposures if e.seat == s and Options.restricted_kind(e.kind))
            seq = tricks[k].plays if k < len(tricks) else obs.trick
            trick = tuple((int(x), tuple(c.index for c in q)) for x, q in seq[:i])
            out.append(_Scored(base, s, card, later, bound, trick, view.suits_led_mask()))
        return out

    def log_weights(self, worlds: list[World]) -> list[float]:
        """The tempered log-probability of the scored plays in each world (0 with none), the
        network run once for all of them.

        Only the seat's hand, what it has not seen and its legal cards differ from world to
        world, so each row's first layer is the scored play's own (computed once) plus the
        columns of those cards, and the policy logits of the cards it could play are all that is
        computed after it."""
        k = len(self.scored)
        if not k or not worlds:
            return [0.0] * len(worlds)
        n = k * len(worlds)
        hands = np.empty(n, dtype=np.uint64)
        legal_rows: list[int] = []
        legal_cards: list[int] = []
        r = 0
        for world in worlds:
            held_now = {s: mask_of(world.hands[s].elements()) for s in self._seats}
            for sc in self.scored:
                hand = held_now[sc.seat] | sc.later
                hands[r] = hand
                for c in self._legal(sc, hand):
                    legal_rows.append(r)
                    legal_cards.append(c)
                r += 1
        which = np.tile(np.arange(k), len(worlds))
        held = ((hands[:, None] >> np.arange(52, dtype=np.uint64)[None, :]) & np.uint64(1)).astype(np.float32)
        legal = np.zeros((n, 52), dtype=np.float32)
        legal[legal_rows, legal_cards] = 1.0
        unseen_then = self._unseen[which]
        no_longer_unseen = held * unseen_then
        rows = self._bases[which]
        rows[:, _HAND:_HAND + 52] = held
        rows[:, _UNSEEN:_UNSEEN + 52] = unseen_then - no_longer_unseen
        rows[:, _LEGAL:_LEGAL + 52] = legal
        changes = np.concatenate([held, -no_longer_unseen, legal], axis=1)
        first = self._first[which] + changes @ self._columns
        # The logits of each row's legal cards and of the card played, nothing more.
        cards = self._cards[which]
        masks = legal > 0
        masks[np.arange(n), cards] = True  # it was played: legal in every world the sampler gives
        pair_rows, pair_cards = np.nonzero(masks)
        logits = np.full((n, 52), -np.inf, dtype=np.float32)
        logits[pair_rows, pair_cards] = self.network.card_logits(rows, first, pair_rows, pair_cards)
        top = logits.max(axis=1, keepdims=True)
        log_z = top[:, 0] + np.log(np.exp(logits - top).sum(axis=1))
        chosen = logits[np.arange(n), cards]
        per_row = (chosen - log_z).reshape(len(worlds), k)
        return [float(self.temper * x) for x in per_row.sum(axis=1)]

    def _legal(self, sc: _Scored, hand: int) -> list[int]:
        """The cards ``sc``'s seat could have played holding ``hand`` (R4.3, R5.2)."""
        view = SeatView(self.options, hand, 0, sc.restricted & hand, 0, sc.trick, sc.suits_led, False)
        return [p[0] for p in cascade(view)[-1][1]]

    def reference_log_weights(self, worlds: list[World]) -> list[float]:
        """What :meth:`log_weights` computes, the slow way: every row built in full and the
        whole network run on it — the check of its shortcuts and the baseline of
        ``benchmarks/weighting.py``."""
        out = []
        for world in worlds:
            total = 0.0
            for sc in self.scored:
                hand = mask_of(world.hands[sc.seat].elements()) | sc.later
                row = sc.base.copy()
                cards = bits(hand)
                row[[_HAND + c for c in cards]] = 1.0
                row[[_UNSEEN + c for c in cards]] = 0.0
                legal = self._legal(sc, hand)
                row[[_LEGAL + c for c in legal]] = 1.0
                logits = self.network.forward(row)[0][:52].astype(np.float64)
                allowed = sorted({*legal, sc.card})
                top = logits[allowed].max()
                total += logits[sc.card] - top - float(np.log(np.exp(logits[allowed] - top).sum()))
            out.append(float(self.temper * total))
        return out


def _view_of(obs: Observation, tricks: list[Trick], k: int, i: int, seat: Seat) -> Observation:
    """``seat``'s view when it made play ``i`` of trick ``k``, its hand left empty."""
    done = tuple(tricks[:k])
    seq = tricks[k].plays if k < len(tricks) else obs.trick
    before = tuple(seq[:i])
    played = [(s, c) for t in done for s, p in t.plays for c in p] + [(s, c) for s, p in before for c in p]
    # What the observer knows of the exposures, as ``seat`` would see it then (the observer's own
    # hidden exposures only once played; ``seat``'s own hidden ones as the observer sees them).
    known: list[Exposure] = list(obs.exposures)
    visible, hidden = visible_exposures(known, seat, played)
    return Observation(
        options=obs.options,
        seat=seat,
        phase=Phase.PLAY,
        hand=(),
        first_card=None,
        exposures=visible,
        hidden_counts=hidden,
        tricks=done,
        trick=before,
        turn=None,  # no legal plays from an empty hand: the world fills them in
        deal_index=obs.deal_index,
        first_receiver=obs.first_receiver,
        must_lead_c2=False,
        pig_taker_leads=obs.pig_taker_leads,
    )
