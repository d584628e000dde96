"""What a learning player sees and does, as numbers: the observation and action encodings.

An :class:`~gongzhu.players.observation.Observation` (one seat's view, nothing hidden) is written
as one vector of :data:`OBS_SIZE` float32 values in the blocks of :data:`BLOCKS` (seats relative to
the observer in play order, card counts divided by the number of decks), and every decision — a
declaration step of the exposure phase (R4) or a play (R5), a two-deck play built card by card —
is one of :data:`N_ACTIONS` actions, the mask offering only what the rules accept
(:func:`gongzhu.rules.deal.check_declaration` for exposures).  The research environments, the
self-play data and the learned player all read and write these.  This module imports the rules
core and the players' observation (and numpy).  docs/env.md, Actions and Observation, is the
reference table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
import numpy.typing as npt

from gongzhu.players.observation import Observation
from gongzhu.rules.cards import ALL_CARDS, EXPOSABLE, Card, Seat
from gongzhu.rules.deal import Deal, Phase, check_declaration
from gongzhu.rules.errors import IllegalPlayError
from gongzhu.rules.model import Play
from gongzhu.rules.options import OPTION_CHOICES, Options
from gongzhu.rules.scoring import is_point_card

__all__ = [
    "ACTION_DONE",
    "ACTION_EXPOSE",
    "BLOCKS",
    "CARD_FEATURES",
    "DECLARABLE_KINDS",
    "N_ACTIONS",
    "OBS_SIZE",
    "OFFSET",
    "Block",
    "Building",
    "action_mask",
    "action_of_exposure",
    "actions_of_play",
    "block_of",
    "card_features",
    "declaration_actions",
    "encode",
    "exposure_of_action",
    "finished_play",
    "legal_actions",
    "play_actions",
    "relative_seats",
    "take_action",
]

#: Make the play or the declaration built so far; the first exposure action (module docstring).
ACTION_DONE = 52
ACTION_EXPOSE = 53
N_ACTIONS = 65
#: The declarable exposure kinds, in the order of the exposure actions (R4.4, R10).
DECLARABLE_KINDS = ("shown", "first", "hidden")

_SPECIAL_INDEX = {c: i for i, c in enumerate(EXPOSABLE)}
_POINT = np.array([1.0 if is_point_card(c) else 0.0 for c in ALL_CARDS], dtype=np.float32)

Mask = npt.NDArray[np.int8]
Vector = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Block:
    """One named part of the observation vector: ``size`` values from ``start``; ``rules`` the
    rule-book sections it encodes; ``meaning`` what each value is (docs/env.md)."""

    name: str
    start: int
    size: int
    rules: str
    meaning: str


def _layout(parts: Sequence[tuple[str, int, str, str]]) -> tuple[Block, ...]:
    out: list[Block] = []
    at = 0
    for name, size, rules, meaning in parts:
        out.append(Block(name, at, size, rules, meaning))
        at += size
    return tuple(out)


_OPTION_KEYS = ("exposure", "first_lead", "discard_color", "scoring")

#: The observation vector, block by block (docs/env.md prints this table).
BLOCKS: tuple[Block, ...] = _layout([
    ("hand", 52, "R1", "copies of each card in the observer's hand"),
    ("played", 4 * 52, "R5", "copies of each card played so far (finished tricks and the trick in progress), "
                             "one plane per relative seat"),
    ("trick", 4 * 52, "R5.2, R5.3", "the cards of the trick in progress, one plane per relative seat"),
    ("taken", 4 * 52, "R2, R5.2, R6", "point cards in the tricks each relative seat has taken (under "
                                      "discard_color=penalty, those the offender took)"),
    ("exposed", 4 * 52, "R4", "exposed cards each relative seat has shown (another seat's hidden exposure, "
                              "暗卖, only once it is played)"),
    ("chosen", 52, "R5.3", "two decks: the cards already chosen for the play being built"),
    ("unseen", 52, "R1", "copies of each card the observer has neither in hand nor seen played"),
    ("legal", 52, "R4.3, R5", "1 where playing that single card now is legal"),
    ("phase", 2, "R4, R5", "one-hot: exposure phase, play phase"),
    ("position", 4, "R5", "one-hot: how many plays the trick in progress already has (0 = leading)"),
    ("led", 4, "R5.2", "one-hot: the suit led in the trick in progress (♠ ♥ ♣ ♦; none when leading)"),
    ("pair_led", 1, "R5.3", "1 when the trick in progress was led with a pair (two decks)"),
    ("tricks_done", 1, "R5", "finished tricks / tricks in a deal"),
    ("cards_left", 4, "R5", "cards each relative seat still holds / cards dealt to a seat"),
    ("voids", 16, "R5.2, R5.3", "relative seat x suit: 1 where that seat is known to hold no card of the "
                                "suit (it did not follow; under discard_color=enforce also the suit of "
                                "the same colour)"),
    ("hidden", 4, "R4.4", "hidden exposures (暗卖) of each relative seat the observer cannot see yet / "
                        "(4 x decks)"),
    ("suits_led", 4, "R4.3, R5.2", "1 for each suit led in a finished trick"),
    ("must_lead_c2", 1, "R5.1", "1 when the observer must lead the ♣2"),
    ("declared", 12, "R4.4", "exposure phase: the declaration being built, special card (♠Q ♦J ♣10 ♥A) x "
                            "kind (shown, first, hidden)"),
    ("first_card", 4, "R4.4", "1 at the special card that was the observer's first dealt card (首明)"),
    ("decks", 1, "R10 decks", "1 with two decks"),
    ("direction", 1, "R10 direction", "1 when play goes clockwise"),
    ("heart_values", 1, "R10 heart_values", "1 with the book heart table"),
    ("exposure_rule", len(OPTION_CHOICES["exposure"]), "R10 exposure",
     "one-hot over " + ", ".join(OPTION_CHOICES["exposure"])),
    ("auto_fourth", 1, "R10 auto_expose_fourth", "1 when 逼明 applies"),
    ("exposed_discard", 1, "R10 exposed_discard_before_suit_led", "1 when an exposed card may be discarded "
                                                                   "before its suit is led"),
    ("first_lead", len(OPTION_CHOICES["first_lead"]), "R10 first_lead",
     "one-hot over " + ", ".join(OPTION_CHOICES["first_lead"])),
    ("discard_color", len(OPTION_CHOICES["discard_color"]), "R10 discard_color",
     "one-hot over " + ", ".join(OPTION_CHOICES["discard_color"])),
    ("self_catch", 1, "R10 self_catch", "1 when 自得 doubles a card its own holder takes"),
    ("scoring", len(OPTION_CHOICES["scoring"]), "R10 scoring", "one-hot over " + ", ".join(OPTION_CHOICES["scoring"])),
    ("double_pig", 1, "R10 double_pig", "1 when the pig counts double"),
])
#: Length of the observation vector.
OBS_SIZE = BLOCKS[-1].start + BLOCKS[-1].size
#: Where each :data:`BLOCKS` entry starts in the observation vector, by name.
OFFSET: Mapping[str, int] = MappingProxyType({b.name: b.start for b in BLOCKS})
_SIZE = {b.name: b.size for b in BLOCKS}


def relative_seats(options: Options, seat: Seat) -> tuple[Seat, Seat, Seat, Seat]:
    """The four seats as the observer sees them: itself, then the others in play order (R1)."""
    step = 1 if options.clockwise else -1
    return (Seat(seat), Seat((seat + step) % 4), Seat((seat + 2 * step) % 4), Seat((seat + 3 * step) % 4))


def _option_vector(options: Options) -> Vector:
    v = np.zeros(OBS_SIZE - OFFSET["decks"], dtype=np.float32)
    base = OFFSET["decks"]
    v[OFFSET["decks"] - base] = options.decks == 2
    v[OFFSET["direction"] - base] = options.clockwise
    v[OFFSET["heart_values"] - base] = options.heart_values == "book"
    v[OFFSET["auto_fourth"] - base] = options.auto_fourth_applies
    v[OFFSET["exposed_discard"] - base] = options.exposed_discard_before_suit_led
    v[OFFSET["self_catch"] - base] = options.self_catch
    v[OFFSET["double_pig"] - base] = options.double_pig
    for key, block in (("exposure", "exposure_rule"), ("first_lead", "first_lead"),
                       ("discard_color", "discard_color"), ("scoring", "scoring")):
        v[OFFSET[block] - base + OPTION_CHOICES[key].index(getattr(options, key))] = 1.0
    return v


_OPTION_CACHE: dict[Options, Vector] = {}


def _options_block(options: Options) -> Vector:
    v = _OPTION_CACHE.get(options)
    if v is None:
        if len(_OPTION_CACHE) > 256:
            _OPTION_CACHE.clear()
        v = _OPTION_CACHE[options] = _option_vector(options)
    return v


def encode(obs: Observation, declared: Sequence[tuple[Card, str]] = (), chosen: Sequence[Card] = (),
           out: Vector | None = None) -> Vector:
    """``obs`` as the observation vector (:data:`BLOCKS`).  ``declared`` is the declaration the
    seat is building in the exposure phase, ``chosen`` the cards of the play it is building (two
    decks).  Writes into ``out`` (zeroed first) when given."""
    v = np.zeros(OBS_SIZE, dtype=np.float32) if out is None else out
    if out is not None:
        v.fill(0.0)
    options = obs.options
    unit = 1.0 / options.decks
    rel = relative_seats(options, obs.seat)
    where = {s: r for r, s in enumerate(rel)}
    for c in obs.hand:
        v[c.index] += unit
    played_at, trick_at, taken_at, exposed_at = OFFSET["played"], OFFSET["trick"], OFFSET["taken"], OFFSET["exposed"]
    for t in obs.tricks:
        for s, p in t.plays:
            for c in p:
                v[played_at + 52 * where[s] + c.index] += unit
        taker = 52 * where[t.taker] + taken_at
        for c in t.cards:
            if _POINT[c.index]:
                v[taker + c.index] += unit
    for s, p in obs.trick:
        for c in p:
            v[played_at + 52 * where[s] + c.index] += unit
            v[trick_at + 52 * where[s] + c.index] += unit
    for e in obs.exposures:
        v[exposed_at + 52 * where[e.seat] + e.card.index] += unit
    unseen = OFFSET["unseen"]
    for c, n in obs.unseen().items():
        v[unseen + c.index] = n * unit
    legal = OFFSET["legal"]
    for p in obs.legal:
        if len(p) == 1:
            v[legal + p[0].index] = 1.0
    play = obs.phase is Phase.PLAY
    v[OFFSET["phase"] + (1 if play else 0)] = 1.0
    if play:
        v[OFFSET["position"] + len(obs.trick)] = 1.0
        if obs.trick:
            first = obs.trick[0][1]
            v[OFFSET["led"] + first[0].suit] = 1.0
            v[OFFSET["pair_led"]] = len(first) == 2
    per_seat = 13 * options.decks
    v[OFFSET["tricks_done"]] = len(obs.tricks) / per_seat
    for r, s in enumerate(rel):
        v[OFFSET["cards_left"] + r] = obs.cards_left(s) / per_seat
        v[OFFSET["hidden"] + r] = obs.hidden_counts[s] / (4 * options.decks)
    for s, suits in obs.voids().items():
        for u in suits:
            v[OFFSET["voids"] + 4 * where[s] + u] = 1.0
    suits_led = obs.suits_led_mask()
    for k in range(4):
        if suits_led >> k & 1:
            v[OFFSET["suits_led"] + k] = 1.0
    v[OFFSET["must_lead_c2"]] = obs.must_lead_c2 and play and not obs.tricks and not obs.trick
    for c in chosen:
        v[OFFSET["chosen"] + c.index] += unit
    for c, kind in declared:
        v[OFFSET["declared"] + 3 * _SPECIAL_INDEX[c] + DECLARABLE_KINDS.index(kind)] += unit
    if obs.first_card in _SPECIAL_INDEX:
        v[OFFSET["first_card"] + _SPECIAL_INDEX[obs.first_card]] = 1.0
    v[OFFSET["decks"]:] = _options_block(options)
    return v


# ---------------------------------------------------------------------- the cards' view

#: The per-card view of an observation vector (:func:`card_features`): name and meaning of each
#: value of a card's row (docs/env.md prints this table).  Counts of cards are in copies / decks.
CARD_FEATURES: tuple[tuple[str, str], ...] = (
    ("in_hand", "copies of the card in the observer's hand"),
    ("legal", "1 where playing the card alone now is legal"),
    ("rank", "(rank − 2) / 12"),
    ("pig", "1 for ♠Q (猪)"),
    ("sheep", "1 for ♦J (羊)"),
    ("transformer", "1 for ♣10 (变压器)"),
    ("heart", "1 for a heart"),
    ("follows", "1 when the card is of the suit led in the trick in progress"),
    ("wins_now", "1 when the card is of the suit led and no card of that suit in the trick is above it (with "
                 "one deck: played now, it would take the trick as it stands)"),
    ("pig_in_trick", "♠Q in the trick in progress"),
    ("sheep_in_trick", "♦J in the trick in progress"),
    ("transformer_in_trick", "♣10 in the trick in progress"),
    ("hearts_in_trick", "hearts in the trick in progress / 4"),
    ("unseen_higher", "unseen cards of the card's suit above it / 12"),
    ("unseen_lower", "unseen cards of the card's suit below it / 12"),
    ("unseen_suit", "unseen cards of the card's suit / 13"),
    ("own_higher", "cards of the suit above it in the observer's hand / 12"),
    ("own_lower", "cards of the suit below it in the observer's hand / 12"),
    ("own_suit", "cards of the suit in the observer's hand / 13"),
    ("pig_unseen", "copies of ♠Q unseen (another seat holds it)"),
    ("voids_after", "seats still to play in the trick known to hold none of the card's suit / 3"),
    ("voids_others", "other seats known to hold none of the card's suit / 3"),
    ("suit_led_before", "1 when the card's suit was led in a finished trick"),
    ("exposed", "copies of the card exposed (亮牌) by any seat"),
    ("to_play_after", "seats still to play in the trick after the observer / 3"),
    ("leading", "1 when the observer leads the trick"),
)

_SUITS = np.array([[1.0 if c.suit == u else 0.0 for c in ALL_CARDS] for u in range(4)], dtype=np.float32)
_RANKS = np.array([c.rank for c in ALL_CARDS], dtype=np.float32)
_SAME_SUIT = (_SUITS.T @ _SUITS) > 0
#: [c, d]: 1 where d is of c's suit and above it (below it).
_ABOVE = (_SAME_SUIT & (_RANKS[None, :] > _RANKS[:, None])).astype(np.float32).T.copy()
_BELOW = (_SAME_SUIT & (_RANKS[None, :] < _RANKS[:, None])).astype(np.float32).T.copy()
_SUIT_OF = _SUITS.T.copy()  # 52 x 4
_CONSTANT = np.zeros((52, 5), dtype=np.float32)  # rank, pig, sheep, transformer, heart
for _c in ALL_CARDS:
    _CONSTANT[_c.index] = ((_c.rank - 2) / 12, _c.code == "QS", _c.code == "JD", _c.code == "TC", _c.suit == 1)
_QS, _JD, _TC = (next(c.index for c in ALL_CARDS if c.code == k) for k in ("QS", "JD", "TC"))


def block_of(x: Vector, name: str) -> Vector:
    """The values of the :data:`BLOCKS` entry ``name`` in a batch of observation vectors
    (``B x OBS_SIZE``): ``B x`` its size, a view."""
    return x[:, OFFSET[name]:OFFSET[name] + _SIZE[name]]


def card_features(x: Vector) -> Vector:
    """Each card's row of :data:`CARD_FEATURES`, read from observation vectors (``B x OBS_SIZE``,
    or one vector): ``B x 52 x len(CARD_FEATURES)``.  Everything in it is in the observation
    already; the rows put side by side, for every card alike, what a play of that card turns on —
    the learned network's card head reads them (:mod:`gongzhu.players.network`)."""
    x = np.asarray(x, dtype=np.float32)
    if x.ndim == 1:
        x = x[None, :]
    n = x.shape[0]

    def block(name: str) -> Vector:
        return block_of(x, name)

    hand, unseen = block("hand"), block("unseen")
    trick = block("trick").reshape(n, 4, 52).sum(axis=1)
    voids = block("voids").reshape(n, 4, 4)
    position = block("position")
    after = position @ np.array([3.0, 2.0, 1.0, 0.0], dtype=np.float32)  # seats still to play after
    later = (np.arange(4, dtype=np.float32)[None, :] <= after[:, None]) & (np.arange(4)[None, :] > 0)
    follows = block("led") @ _SUITS
    out = np.empty((n, 52, len(CARD_FEATURES)), dtype=np.float32)
    columns = [
        hand, block("legal"), *(np.broadcast_to(_CONSTANT[:, k], (n, 52)) for k in range(5)),
        follows, follows * ((trick @ _ABOVE) == 0),
        *(np.broadcast_to(trick[:, k:k + 1], (n, 52)) for k in (_QS, _JD, _TC)),
        np.broadcast_to(trick[:, 13:26].sum(axis=1, keepdims=True) / 4, (n, 52)),
        unseen @ _ABOVE / 12, unseen @ _BELOW / 12, unseen @ _SUITS.T @ _SUITS / 13,
        hand @ _ABOVE / 12, hand @ _BELOW / 12, hand @ _SUITS.T @ _SUITS / 13,
        np.broadcast_to(unseen[:, _QS:_QS + 1], (n, 52)),
        (later[:, :, None] * voids).sum(axis=1) @ _SUITS / 3,
        voids[:, 1:, :].sum(axis=1) @ _SUITS / 3,
        block("suits_led") @ _SUITS,
        block("exposed").reshape(n, 4, 52).sum(axis=1),
        np.broadcast_to(after[:, None] / 3, (n, 52)),
        np.broadcast_to(position[:, :1], (n, 52)),
    ]
    for k, column in enumerate(columns):
        out[:, :, k] = column
    return out


# ---------------------------------------------------------------------- actions


def _key(play: Sequence[Card]) -> tuple[int, ...]:
    return tuple(sorted(c.index for c in play))


def _continuations(legal: Iterable[Play], chosen: Sequence[Card]) -> tuple[int, set[int], Play | None]:
    """How many cards ``chosen`` holds, the cards that some ``legal`` play has next after them,
    and the legal play made of ``chosen`` exactly (None if none is)."""
    have = _key(chosen)
    n = len(have)
    nexts: set[int] = set()
    exact = None
    for p in legal:
        k = _key(p)
        if k[:n] != have:
            continue
        if len(k) > n:
            nexts.add(k[n])
        else:
            exact = p
    return n, nexts, exact


def play_actions(legal: Iterable[Play], chosen: Sequence[Card] = ()) -> list[int]:
    """The actions that go on with the play being built among the ``legal`` plays (an
    observation's ``legal``, or a deal's ``legal_plays()``), ``chosen`` holding its cards so far:
    each card that some legal play has next (cards in index order), and :data:`ACTION_DONE`
    when ``chosen`` is itself a legal play that another extends."""
    n, nexts, exact = _continuations(legal, chosen)
    out = sorted(nexts)
    if n and exact is not None and out:
        out.append(ACTION_DONE)
    return out


def finished_play(legal: Iterable[Play], chosen: Sequence[Card]) -> Play | None:
    """The play ``chosen`` makes once no ``legal`` play extends it (None while one does)."""
    n, nexts, exact = _continuations(legal, chosen)
    return exact if n and not nexts else None


def actions_of_play(legal: Sequence[Play], play: Sequence[Card]) -> list[int]:
    """The actions that make ``play`` (one of the ``legal`` plays): its cards in index order, and
    :data:`ACTION_DONE` where a longer legal play starts with them."""
    if _key(play) not in {_key(p) for p in legal}:
        raise ValueError(f"{' '.join(c.code for c in play)} is not a legal play now")
    cards = sorted(play, key=lambda c: c.index)
    out = [c.index for c in cards]
    if finished_play(legal, cards) is None:
        out.append(ACTION_DONE)
    return out


def action_of_exposure(card: Card, kind: str) -> int:
    """The action that adds ``card`` in ``kind`` to the declaration being built."""
    if card not in _SPECIAL_INDEX or kind not in DECLARABLE_KINDS:
        raise ValueError(f"{card.code} {kind} is no declarable exposure (R4.1, R4.4)")
    return ACTION_EXPOSE + 3 * _SPECIAL_INDEX[card] + DECLARABLE_KINDS.index(kind)


def exposure_of_action(action: int) -> tuple[Card, str]:
    """The ``(card, kind)`` an exposure action adds."""
    if not ACTION_EXPOSE <= action < N_ACTIONS:
        raise ValueError(f"action {action} is no exposure: exposures are {ACTION_EXPOSE}..{N_ACTIONS - 1}")
    i, k = divmod(action - ACTION_EXPOSE, 3)
    return EXPOSABLE[i], DECLARABLE_KINDS[k]


def declaration_actions(obs: Observation, declared: Sequence[tuple[Card, str]] = ()) -> list[int]:
    """The actions that go on with the declaration being built, ``declared`` holding what it has
    so far: each exposure the rules accept together with it (R4.1, R4.4), then
    :data:`ACTION_DONE`."""
    out: list[int] = []
    held = {c: obs.hand.count(c) for c in EXPOSABLE}
    for c in EXPOSABLE:
        if not held[c]:
            continue
        for kind in obs.exposure_kinds(c):
            try:
                check_declaration(obs.options, obs.seat, [*declared, (c, kind)], held.__getitem__, obs.first_card)
            except IllegalPlayError:
                continue
            out.append(action_of_exposure(c, kind))
    out.append(ACTION_DONE)
    return out


def legal_actions(obs: Observation, declared: Sequence[tuple[Card, str]] = (),
                  chosen: Sequence[Card] = ()) -> list[int]:
    """The actions the seat may take now (none when it has nothing to decide): the declaration
    steps in the exposure phase, the play steps in the play phase."""
    if obs.phase is Phase.EXPOSE:
        return declaration_actions(obs, declared)
    return play_actions(obs.legal, chosen)


def action_mask(obs: Observation, declared: Sequence[tuple[Card, str]] = (), chosen: Sequence[Card] = (),
                out: Mask | None = None) -> Mask:
    """:func:`legal_actions` as a 0/1 vector of :data:`N_ACTIONS`."""
    m = np.zeros(N_ACTIONS, dtype=np.int8) if out is None else out
    if out is not None:
        m.fill(0)
    m[legal_actions(obs, declared, chosen)] = 1
    return m


@dataclass
class Building:
    """What the seat to act has built so far: the declaration (exposure phase) and the cards
    of the play (two decks)."""

    declared: list[tuple[Card, str]] = field(default_factory=list)
    chosen: list[Card] = field(default_factory=list)


def take_action(deal: Deal, seat: Seat, action: int, building: Building) -> None:
    """Take ``action`` for ``seat`` on ``deal``: add to what ``building`` holds, or make the
    declaration or the play once it is complete (the module docstring).  The caller has checked
    the action against the mask; the deal refuses anything illegal itself (its errors)."""
    if deal.phase is Phase.EXPOSE:
        if action == ACTION_DONE:
            deal.declare(seat, building.declared)
            building.declared = []
        else:
            building.declared = [*building.declared, exposure_of_action(action)]
        return
    if action == ACTION_DONE:
        deal.play(building.chosen, seat)
        building.chosen = []
        return
    chosen = [*building.chosen, ALL_CARDS[action]]
    play = finished_play(deal.legal_plays(), chosen)
    if play is None:
        building.chosen = chosen
    else:
        deal.play(play, seat)
        building.chosen = []

