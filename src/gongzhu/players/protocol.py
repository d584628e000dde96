"""The bot protocol ``gongzhu-bot/1``: any program can ask our players for a decision.

A request is one seat's view of a deal, written with the field names of the deal records (R11):
the options, the seat, its current hand, the exposures it can see and the tricks so far (the last
one possibly incomplete).  :func:`observation_from_request` checks it and turns it into the same
:class:`~gongzhu.players.observation.Observation` that :func:`~gongzhu.players.observation.observe`
builds from a :class:`~gongzhu.rules.Deal`; :func:`answer` asks a player and writes the answer;
:func:`handle_line` does one line of the ``gongzhu bot`` command (JSON in, JSON out, never
raising).  The protocol is documented in ``docs/bot-protocol.md``.

Everything a request says is checked against the rules as far as the seat can know them: the
trick structure and the play direction (R1, R5.2, R5.3), every finished trick's winner, the
first leader (R3, R5.1), card counts and copies (R1), suits a seat showed it lacks (R5.2), the
exposures (R4) and the seat's own earlier plays (R4.3, R5).  The request's shape
is declared in :mod:`gongzhu.formats.bot`.  A refusal is a :class:`RequestError` naming the field
by its path, e.g. ``$.tricks[2].winner: given E, but W wins ...``.
"""

from __future__ import annotations

import itertools
import json
import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from gongzhu import __version__
from gongzhu.formats import FormatError, typed
from gongzhu.formats.bot import REQUEST_TYPES, ClaimRequest, ExposeRequest, InfoRequest, Position, Request
from gongzhu.formats.bot import Exposure as ExposureFormat
from gongzhu.formats.bot import Trick as TrickFormat
from gongzhu.jsontext import JSONTextError, decode_utf8, describe, loads_strict, show
from gongzhu.players.base import Player
from gongzhu.players.claiming import sure_claim
from gongzhu.players.expert import ExpertPlayer
from gongzhu.players.guard import safe_exposures, safe_play
from gongzhu.players.hints import DEFAULT_HINT_THINK, Hint, hints
from gongzhu.players.observation import Observation
from gongzhu.rules.cards import EXPOSABLE, JD, Card, Seat, Suit, hand_size, parse_card, parse_cards, too_many_copies
from gongzhu.rules.deal import Phase, winner_of_trick
from gongzhu.rules.dealing import next_seat
from gongzhu.rules.errors import GongzhuError
from gongzhu.rules.legal import COLOR_MASKS, SeatView, bound_after, cascade
from gongzhu.rules.model import Exposure, Play, Trick
from gongzhu.rules.options import Options, resolve_options

__all__ = [
    "MAX_ERROR_CHARS",
    "MAX_LINE_BYTES",
    "PROTOCOL",
    "REQUEST_TYPES",
    "RequestError",
    "answer",
    "handle_line",
    "line_too_long",
    "observation_from_request",
    "parse_request_line",
    "reply_line",
    "trick_winner",
]

log = logging.getLogger("gongzhu.players")

#: The protocol name and version, as the ``info`` answer gives it.
PROTOCOL = "gongzhu-bot/1"
#: The longest request line read, in bytes of UTF-8 without the line end; a longer line is
#: answered with an error unread.
MAX_LINE_BYTES = 64 * 1024
#: The longest error message written (a message quotes at most a short excerpt of the request).
MAX_ERROR_CHARS = 500

_C2 = parse_card("2C")
_SEAT_CODES = "NESW"
_STAGE_REASONS = {
    "first_lead": "the first lead of the match must contain ♣2 (R5.1)",
    "follow": "it did not follow suit (R5.2, R5.3)",
    "exposure": "it played an exposed card in the first trick of its suit (R4.3)",
    "color": "it discarded a card of the wrong colour (R5.2 discard_color)",
}


class RequestError(ValueError):
    """A request that cannot be answered: malformed, or inconsistent with the rules.

    ``reason`` says what is wrong and ``field`` where (a path such as ``$.tricks[3].winner``, or
    None; a path given without the leading ``$.`` gets it); ``str()`` joins them as ``field: reason``.
    """

    def __init__(self, reason: str, field: str | None = None) -> None:
        self.reason = reason
        self.field = field if field is None or field.startswith("$") else f"$.{field}"
        super().__init__(f"{self.field}: {reason}" if self.field else reason)


# ---------------------------------------------------------------------------------- small readers


def _s(seat: Seat) -> str:
    return _SEAT_CODES[seat]


def _codes(cards: Sequence[Card]) -> str:
    return " ".join(c.code for c in cards)


def _seat(value: str, path: str) -> Seat:
    try:
        return Seat.parse(value)
    except GongzhuError:
        raise RequestError(f"{show(value)} is not a seat: write one of N, E, S, W", path) from None


def _card(value: str, path: str) -> Card:
    try:
        return parse_card(value)
    except GongzhuError:
        raise RequestError(
            f"{show(value)} is not a card: write rank 23456789TJQKA then suit SHCD, e.g. \"QS\", \"TC\" "
            "(\"10C\", \"SQ\" and \"♠Q\" are read too)", path) from None


def _cards(value: list[str] | str, path: str) -> list[Card]:
    if isinstance(value, str):  # lenient: "QS 3S AH"
        try:
            return parse_cards(value)
        except GongzhuError as e:
            raise RequestError(str(e), path) from None
    return [_card(c, f"{path}[{i}]") for i, c in enumerate(value)]


def _sorted(cards: Sequence[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=lambda c: c.index))


# ---------------------------------------------------------------------------------- the trick rule


def trick_winner(plays: Sequence[tuple[Seat, Play]]) -> Seat:
    """Who wins a finished trick (R5.2, R5.3), by the engine's rule
    (:func:`~gongzhu.rules.deal.winner_of_trick`)."""
    return Seat(winner_of_trick([(int(s), tuple(c.index for c in p)) for s, p in plays]))


def _wrong_colour_makeup(play: Play, led: Suit) -> bool:
    """Whether a following play holds a card of neither the led suit nor its colour: only such a
    play can be the offence of ``discard_color=penalty`` (R5.2)."""
    same = COLOR_MASKS[led]
    return any(c.suit != led and not same >> c.index & 1 for c in play)


# ---------------------------------------------------------------------------------- request parts


def _options(req: Position) -> Options:
    try:
        return resolve_options(req.preset, req.options)
    except GongzhuError as e:
        raise RequestError(str(e), "options") from None


@dataclass(frozen=True, slots=True)
class _ExposureIn:
    path: str
    seat: Seat
    card: Card | None  # None: another seat's hidden exposure, seen as a count only
    kind: str


def _exposures(value: list[ExposureFormat]) -> list[_ExposureIn]:
    out = []
    for i, item in enumerate(value):
        path = f"exposures[{i}]"
        seat = _seat(item.seat, f"{path}.seat")
        if item.card is None:
            if item.kind != "hidden":
                raise RequestError(f"missing field 'card': only a hidden (暗卖) exposure may be given without "
                                   f"its card, not a {item.kind!r} one (R4.4)", path)
            out.append(_ExposureIn(path, seat, None, item.kind))
            continue
        c = _card(item.card, f"{path}.card")
        if c not in EXPOSABLE:
            raise RequestError(f"{c.code} cannot be exposed: only QS, JD, TC and AH can (R4.1)", f"{path}.card")
        out.append(_ExposureIn(path, seat, c, item.kind))
    return out


@dataclass(slots=True)
class _TrickIn:
    path: str
    leader: Seat
    plays: list[tuple[Seat, Play, str]]  # seat, cards (sorted), path of the play
    winner: Seat | None = None
    taker: Seat | None = None


def _tricks(items: list[TrickFormat], options: Options) -> list[_TrickIn]:
    out: list[_TrickIn] = []
    decks = options.decks
    for i, item in enumerate(items):
        path = f"tricks[{i}]"
        plays_in = item.plays
        if not isinstance(item.leader, msgspec.UnsetType):
            leader = _seat(item.leader, f"{path}.leader")
        elif plays_in:
            leader = _seat(plays_in[0].seat, f"{path}.plays[0].seat")
        else:
            raise RequestError("missing field 'leader': a trick with no plays yet names its leader", path)
        if len(plays_in) > 4:
            raise RequestError(f"{len(plays_in)} plays, but every player plays once to a trick (R5.2)",
                               f"{path}.plays")
        if len(plays_in) < 4 and i != len(items) - 1:
            raise RequestError(f"{len(plays_in)} plays: only the last trick may be incomplete, every "
                               "earlier one has 4 plays (R5.2)", f"{path}.plays")
        trick = _TrickIn(path, leader, [])
        expected = leader
        for j, p in enumerate(plays_in):
            ppath = f"{path}.plays[{j}]"
            seat = _seat(p.seat, f"{ppath}.seat")
            if seat != expected:
                why = (f"the leader {_s(leader)} plays first" if j == 0 else
                       f"after {_s(trick.plays[-1][0])} comes {_s(expected)} in play direction "
                       f"(direction={options.direction}, R1)")
                raise RequestError(f"{_s(seat)}, but {why}", f"{ppath}.seat")
            cards = _cards(p.cards, f"{ppath}.cards")
            size = len(cards)
            if not 1 <= size <= decks:
                wanted = "one card" if decks == 1 else "one card, or two in a pair trick (R5.3)"
                raise RequestError(f"{size} cards, but a play is {wanted}", f"{ppath}.cards")
            if j == 0 and size == 2 and cards[0] != cards[1]:
                raise RequestError(f"{_codes(cards)} is not a pair: a lead is one card or two identical "
                                   "cards (R5.3)", f"{ppath}.cards")
            if j > 0 and size != len(trick.plays[0][1]):
                lead = len(trick.plays[0][1])
                raise RequestError(
                    f"{size} card(s), but the lead was {'a pair' if lead == 2 else 'a single card'}: every "
                    f"play of the trick has {lead} (R5.3)", f"{ppath}.cards")
            trick.plays.append((seat, _sorted(cards), ppath))
            expected = next_seat(seat, options.clockwise)
        finished = len(trick.plays) == 4
        given_winner = not isinstance(item.winner, msgspec.UnsetType)
        if not isinstance(item.winner, msgspec.UnsetType):
            given = _seat(item.winner, f"{path}.winner")
            if not finished:
                raise RequestError(f"{_s(given)}, but the trick has {len(trick.plays)} plays: an unfinished "
                                   "trick has no winner yet", f"{path}.winner")
        if finished:
            winner = trick_winner([(s, p) for s, p, _ in trick.plays])
            if given_winner and given != winner:
                play = next(p for s, p, _ in trick.plays if s == winner)
                raise RequestError(f"given {_s(given)}, but {_s(winner)} wins the trick with {_codes(play)} "
                                   "(R5.2, R5.3)", f"{path}.winner")
            trick.winner = trick.taker = winner
            if item.taker is not None:
                taker = _seat(item.taker, f"{path}.taker")
                if taker != winner:
                    if not options.discard_penalty:
                        raise RequestError(f"{_s(taker)}, but the winner {_s(winner)} takes the trick's point "
                                           "cards unless discard_color=penalty (R5.2)", f"{path}.taker")
                    led = trick.plays[0][1][0].suit
                    play = next(p for s, p, _ in trick.plays if s == taker)
                    if taker == leader or not _wrong_colour_makeup(play, led):
                        raise RequestError(
                            f"{_s(taker)}, but {_s(taker)} played {_codes(play)}, not a discard of the wrong "
                            f"colour: only the winner {_s(winner)} or an offender takes the points "
                            "(R5.2 discard_color=penalty)", f"{path}.taker")
                trick.taker = taker
        elif item.taker is not None:
            raise RequestError("an unfinished trick has no taker yet", f"{path}.taker")
        out.append(trick)
    return out


# ---------------------------------------------------------------------------------- checking


def _check_leaders(tricks: list[_TrickIn]) -> None:
    for prev, trick in itertools.pairwise(tricks):
        if trick.leader != prev.winner:
            winner = _s(prev.winner) if prev.winner is not None else "?"
            raise RequestError(f"{_s(trick.leader)}, but the winner of {prev.path}, {winner}, leads the next "
                               "trick (R5.2)", f"{trick.path}.leader")


def _check_first_leader(
    tricks: list[_TrickIn], options: Options, seat: Seat, deal_index: int, first_receiver: Seat,
    own_held: Counter[Card],
) -> None:
    """R3, R5.1, as far as the seat can tell who leads the first trick."""
    if not tricks:
        return
    first = tricks[0]
    lead = first.leader
    if deal_index > 0:
        if lead != first_receiver:
            raise RequestError(
                f"{_s(lead)}, but in a later deal (deal_index {deal_index}) the previous deal's pig taker "
                f"leads, who is also the first receiver, {_s(first_receiver)} (R3, R5.1)", f"{first.path}.leader")
        return
    target = options.first_lead_card
    if seat == lead:
        if own_held[target] == 0:
            raise RequestError(f"{_s(lead)}, but the holder of {target.pretty} leads the first trick of the match "
                               f"(R5.1) and {_s(seat)} does not hold it", f"{first.path}.leader")
    else:
        elsewhere = own_held[target] + sum(
            p.count(target) for t in tricks for s, p, _ in t.plays if s not in (lead, seat))
        if elsewhere >= options.decks:
            raise RequestError(f"{_s(lead)}, but the holder of {target.pretty} leads the first trick of the match "
                               f"(R5.1) and {_s(lead)} did not hold it", f"{first.path}.leader")
    if options.must_lead_club2 and first.plays and _C2 not in first.plays[0][1]:
        raise RequestError(f"{_codes(first.plays[0][1])}, but the first lead of the match must contain ♣2 (R5.1)",
                           f"{first.plays[0][2]}.cards")


def _check_copies(hand: Sequence[Card], tricks: list[_TrickIn], decks: int) -> None:
    placed = [(c, f"hand[{i}]") for i, c in enumerate(hand)]
    placed += [(c, f"{path}.cards") for t in tricks for _, p, path in t.plays for c in p]
    extra = too_many_copies(placed, decks)
    if extra is not None:
        c, places = extra
        copies = "one" if decks == 1 else "two"
        raise RequestError(f"{c.code} appears {len(places)} times ({', '.join(places)}), but there "
                           f"{'is' if decks == 1 else 'are'} only {copies} with {decks} deck(s) (R1)")


def _check_voids(seat: Seat, hand: Sequence[Card], tricks: list[_TrickIn]) -> None:
    """A seat that did not follow suit had no more of it (R5.2, R5.3): it never plays it again."""
    void: dict[tuple[Seat, Suit], str] = {}
    for t in tricks:
        if not t.plays:
            continue
        for s, p, path in t.plays:
            for c in p:
                shown = void.get((s, c.suit))
                if shown is not None:
                    raise RequestError(f"{_s(s)} plays {c.code}, but showed no {c.suit.name.lower()} in {shown} "
                                       "(did not follow suit, R5.2)", f"{path}.cards")
        led = t.plays[0][1][0].suit
        need = len(t.plays[0][1])
        for s, p, _ in t.plays[1:]:
            if sum(1 for c in p if c.suit == led) < need:
                void.setdefault((s, led), t.path)
    for i, c in enumerate(hand):
        shown = void.get((seat, c.suit))
        if shown is not None:
            raise RequestError(f"{c.code} in hand, but {_s(seat)} showed no {c.suit.name.lower()} in {shown} "
                               "(did not follow suit, R5.2)", f"hand[{i}]")


def _check_exposures(
    exposures: list[_ExposureIn], options: Options, seat: Seat, expose: bool, hand: Sequence[Card],
    tricks: list[_TrickIn], own_held: Counter[Card], first_card: Card | None,
) -> None:
    allowed = options.recorded_kinds
    decks = options.decks
    per_seat: Counter[tuple[Seat, Card]] = Counter()
    firsts: set[Seat] = set()
    autos = 0
    for e in exposures:
        if e.kind not in allowed:
            if not allowed:
                raise RequestError(f"exposure={options.exposure}: nothing is exposed (R4.4)", e.path)
            raise RequestError(f"kind {e.kind!r} is not used under exposure={options.exposure}"
                               f"{'' if options.auto_fourth_applies else ' with no automatic fourth'}: "
                               f"use {' or '.join(allowed)} (R4.4, R10)", f"{e.path}.kind")
        if expose and e.kind == "auto":
            raise RequestError("an automatic (auto) exposure in an expose request: it is applied after every "
                               "seat has declared (R4.4)", e.path)
        if expose and e.seat == seat:
            raise RequestError(f"{_s(seat)} has already declared its exposures: an expose request is for a "
                               "seat that has not", e.path)
        if e.card is None:
            if e.seat == seat:
                raise RequestError(f"{_s(seat)}'s own hidden exposure is given without its card: the seat "
                                   "knows which card it exposed", e.path)
            continue
        if e.kind == "first":
            if e.seat in firsts:
                raise RequestError(f"a second 首明 exposure for {_s(e.seat)}: only the first card dealt can be "
                                   "首明 (R4.4)", e.path)
            firsts.add(e.seat)
            if e.seat == seat and first_card is not None and e.card != first_card:
                raise RequestError(f"{e.card.code}, but {_s(seat)}'s first dealt card is {first_card.code}: only "
                                   "that card can be 首明 (R4.4)", f"{e.path}.card")
        if e.kind == "auto":
            autos += 1
            if autos > 1:
                raise RequestError("a second automatic (auto) exposure: only the fourth card is exposed "
                                   "automatically (R4.4)", e.path)
        if options.exposure == "all_but_sheep" and e.card == JD:
            raise RequestError("JD is never exposed under exposure=all_but_sheep (R4.4)", f"{e.path}.card")
        per_seat[(e.seat, e.card)] += 1
        if e.seat == seat and per_seat[(seat, e.card)] > own_held[e.card]:
            raise RequestError(f"{_s(seat)} exposes {e.card.code} {per_seat[(seat, e.card)]} time(s) but holds "
                               f"{own_held[e.card]} (its hand and its plays): only your own cards can be exposed",
                               f"{e.path}.card")
    for c in options.mandatory_cards:
        if per_seat[(seat, c)] != own_held[c]:
            raise RequestError(f"{_s(seat)} holds {c.code} but it is not in 'exposures': under "
                               f"exposure={options.exposure} it is exposed (R4.4)", "exposures")
    # Copies (R1): cards in hand, played, and exposed by another seat that has not played them yet.
    played_by: Counter[tuple[Seat, Card]] = Counter(
        (s, c) for t in tricks for s, p, _ in t.plays for c in p)
    known: Counter[Card] = Counter(hand) + Counter(c for (_, c) in played_by.elements())
    for (s, c), n in per_seat.items():
        if n > decks:
            raise RequestError(f"{_s(s)} exposes {c.code} {n} times, but there {'is' if decks == 1 else 'are'} only "
                               f"{decks} with {decks} deck(s) (R1, R4.5)", "exposures")
        if s != seat:
            known[c] += max(0, n - played_by[(s, c)])
    for c in EXPOSABLE:
        if known[c] > decks:
            raise RequestError(f"{c.code} is exposed by another seat, but it is also in your hand or was "
                               f"played by someone else: there {'is' if decks == 1 else 'are'} only {decks} with "
                               f"{decks} deck(s) (R1)", "exposures")
    hidden = sum(1 for e in exposures if e.card is None)
    free = sum(decks - known[c] for c in EXPOSABLE)
    if hidden > free:
        raise RequestError(f"{hidden} hidden exposures of other seats, but only {free} exposable card(s) are "
                           "neither in your hand, nor played, nor exposed visibly (R4.4)", "exposures")


def _check_own_plays(
    seat: Seat, options: Options, hand: Sequence[Card], exposures: list[_ExposureIn], tricks: list[_TrickIn],
    must_lead_c2: bool,
) -> None:
    """Re-play the seat's own plays from what it held then (its hand and later plays): each was
    legal (R4.3, R4.5, R5), as :meth:`Observation.restricted_in_hand` re-runs them."""
    held: Counter[Card] = Counter(hand) + Counter(c for t in tricks for s, p, _ in t.plays if s == seat for c in p)
    bound: Counter[Card] = Counter(e.card for e in exposures
                                   if e.seat == seat and e.card is not None and Options.restricted_kind(e.kind))
    suits_led = 0
    first_play = True
    for t in tricks:
        before: list[tuple[int, tuple[int, ...]]] = []
        for s, p, path in t.plays:
            if s == seat:
                h1 = sum(1 << c.index for c, n in held.items() if n >= 1)
                h2 = sum(1 << c.index for c, n in held.items() if n >= 2)
                r1 = sum(1 << c.index for c, n in bound.items() if n >= 1)
                r2 = sum(1 << c.index for c, n in bound.items() if n >= 2)
                view = SeatView(options, h1, h2, r1, r2, tuple(before), suits_led, must_lead_c2 and first_play)
                stages = cascade(view)
                indices = tuple(c.index for c in p)
                if indices not in stages[-1][1]:
                    reason = next((_STAGE_REASONS.get(name, "") for (_, a), (name, b) in itertools.pairwise(stages)
                                   if indices in a and indices not in b), "")
                    raise RequestError(f"{_s(seat)}'s own play {_codes(p)} was not legal there"
                                       f"{': ' + reason if reason else ''}", f"{path}.cards")
                for c in set(p):
                    k = p.count(c)
                    held[c] -= k
                    b = bound[c]
                    bound[c] = bound_after(view, c.index, b, held[c], k)
            before.append((int(s), tuple(c.index for c in p)))
            first_play = False
        if len(t.plays) == 4:
            suits_led |= 1 << t.plays[0][1][0].suit


# ---------------------------------------------------------------------------------- the request


def _known(seat: Seat | None) -> Seat:
    if seat is None:  # a finished trick always has its winner and taker
        raise AssertionError("a finished trick without a winner")
    return seat


def _turn(
    current: _TrickIn | None, finished: list[_TrickIn], options: Options, seat: Seat, deal_index: int,
    first_receiver: Seat, own_held: Counter[Card],
) -> Seat:
    """Who plays next: after the last play of the trick in progress, its leader, the last winner,
    or the first leader (R5.1) — the seat itself when it may be and the seat cannot tell."""
    if current is not None and current.plays:
        return next_seat(current.plays[-1][0], options.clockwise)
    if current is not None:
        return current.leader
    if finished:
        return _known(finished[-1].winner)
    if deal_index > 0:
        return first_receiver
    target = options.first_lead_card
    if own_held[target] == 0:
        raise RequestError(f"it is not {_s(seat)}'s turn: the holder of {target.pretty} leads the first trick of "
                           f"the match (R5.1) and {_s(seat)} does not hold it", "seat")
    return seat  # two decks: whoever received the first ♣2 leads, which the seat cannot check


def observation_from_request(req: dict[str, Any]) -> Observation:
    """The :class:`Observation` an ``expose`` or ``play`` request describes (see the module
    docstring and ``docs/bot-protocol.md``); raises :class:`RequestError` saying what is wrong."""
    if not isinstance(req, dict):
        raise RequestError(f"a request is a JSON object, not {describe(req)}")
    try:
        position: Request = typed(req, Request)
    except FormatError as error:
        raise RequestError(error.reason, error.path) from None
    if isinstance(position, InfoRequest):
        raise RequestError("an info request describes no position", "type")
    expose = isinstance(position, ExposeRequest)
    options = _options(position)
    decks = options.decks
    size = hand_size(decks)
    seat = _seat(position.seat, "seat")
    deal_index = position.deal_index
    board = position.board
    # The deal is led as the first of a match: a first deal, or any board of duplicate play (R8.1).
    first_deal = deal_index == 0 or board is not None
    dealer = Seat.N if board is None else Seat((board - 1) % 4)
    if position.first_receiver is not None:
        first_receiver = _seat(position.first_receiver, "first_receiver")
        if first_deal and first_receiver != dealer:
            where = "the first deal of a match (deal_index 0)" if board is None else f"board {board} (R8.1)"
            raise RequestError(f"{_s(first_receiver)}, but {where} is dealt first to {_s(dealer)} (R3)",
                               "first_receiver")
    elif first_deal:
        first_receiver = dealer
    else:
        raise RequestError("missing field 'first_receiver': in a later deal (deal_index > 0) it names the "
                           "previous deal's pig taker, who was dealt to first and leads (R3, R5.1)")
    hand = _cards(position.hand, "hand")
    tricks = _tricks(position.tricks, options)
    exposures = _exposures(position.exposures)
    if expose:
        if not options.players_declare:
            raise RequestError(f"exposure={options.exposure}: players do not choose exposures, there is no "
                               "expose request (R4.4)", "type")
        if tricks:
            raise RequestError("an expose request comes before the first lead: no tricks yet", "tricks")
        if len(hand) != size:
            raise RequestError(f"{len(hand)} cards, but an expose request gives the whole hand as dealt: "
                               f"{size} cards with {decks} deck(s) (R1)", "hand")
    own_played = [c for t in tricks for s, p, _ in t.plays if s == seat for c in p]
    if not expose and len(hand) + len(own_played) != size:
        raise RequestError(f"{len(hand)} cards in hand and {len(own_played)} played by {_s(seat)}: together "
                           f"they are the {size} cards dealt with {decks} deck(s) (R1)", "hand")
    own_held = Counter(hand) + Counter(own_played)
    first_card: Card | None = None
    if expose:
        first_card = hand[0]
    elif position.first_card is not None:
        first_card = _card(position.first_card, "first_card")
        if own_held[first_card] == 0:
            raise RequestError(f"{first_card.code} is neither in {_s(seat)}'s hand nor among its plays",
                               "first_card")
    else:
        own_first = [e.card for e in exposures if e.seat == seat and e.kind == "first"]
        first_card = own_first[0] if own_first else None
    _check_copies(hand, tricks, decks)
    _check_leaders(tricks)
    led_as = 0 if first_deal else deal_index  # the deal index whose first-lead rule applies (R5.1)
    _check_first_leader(tricks, options, seat, led_as, first_receiver, own_held)
    _check_voids(seat, hand, tricks)
    _check_exposures(exposures, options, seat, expose, hand, tricks, own_held, first_card)
    must_lead_c2 = options.must_lead_club2 and first_deal
    _check_own_plays(seat, options, hand, exposures, tricks, must_lead_c2)

    finished = [t for t in tricks if len(t.plays) == 4]
    current = tricks[-1] if tricks and len(tricks[-1].plays) < 4 else None
    turn: Seat | None = None
    if not expose:
        if not hand and current is None:
            raise RequestError(f"all {size} tricks' cards are played: the deal is over", "tricks")
        turn = _turn(current, finished, options, seat, led_as, first_receiver, own_held)
        if turn != seat and not isinstance(position, ClaimRequest):  # a claim is made at any turn
            raise RequestError(f"it is not {_s(seat)}'s turn but {_s(turn)}'s (after the tricks given, R5.2)",
                               "seat")
    visible = tuple(Exposure(e.seat, e.card, e.kind) for e in exposures if e.card is not None)
    hidden = [0, 0, 0, 0]
    for e in exposures:
        if e.card is None:
            hidden[e.seat] += 1
    trick_objects = tuple(
        Trick(t.leader, tuple((s, p) for s, p, _ in t.plays), _known(t.winner), _known(t.taker))
        for t in finished)
    return Observation(
        options=options,
        seat=seat,
        phase=Phase.EXPOSE if expose else Phase.PLAY,
        hand=_sorted(hand),
        first_card=first_card,
        exposures=visible,
        hidden_counts=(hidden[0], hidden[1], hidden[2], hidden[3]),
        tricks=trick_objects,
        trick=tuple((s, p) for s, p, _ in current.plays) if current is not None else (),
        turn=turn,
        deal_index=deal_index,
        first_receiver=first_receiver,
        must_lead_c2=must_lead_c2 and not any(t.plays for t in tricks),
        pig_taker_leads=not first_deal,
    )


# ---------------------------------------------------------------------------------- answering


def _checked_exposures(player: Player, obs: Observation) -> list[tuple[Card, str]]:
    """The player's declaration; players.guard stands in for one the rules would refuse."""
    return safe_exposures(player, obs, where="bot")


def _checked_play(player: Player, obs: Observation) -> Play:
    """The player's play, one of the legal plays (players.guard stands in for any other)."""
    return _sorted(safe_play(player, obs, where="bot"))


def answer(player: Player, req: Any) -> dict[str, Any]:
    """The answer to one request: ``{"cards": [...]}`` for ``play``, ``{"expose": [...],
    "kinds": [...]}`` for ``expose``, ``{"hints": [...]}`` (the legal plays ranked by the
    expert, with expected result and reason) for ``hint``, the bot's description for ``info``, or
    ``{"error": "..."}`` for a request that cannot be answered.  A request's ``id`` (any JSON
    value) is echoed.  Raises only for unexpected failures inside the player."""
    out: dict[str, Any] = {}
    if isinstance(req, dict) and "id" in req:
        out["id"] = req["id"]
    try:
        if isinstance(req, dict) and req.get("type") == "info":
            out.update(protocol=PROTOCOL, name="gongzhu", version=__version__, level=player.level,
                       types=list(REQUEST_TYPES))
            return out
        obs = observation_from_request(req)
        if obs.phase is Phase.EXPOSE:
            chosen = _checked_exposures(player, obs)
            out["expose"] = [c.code for c, _ in chosen]
            out["kinds"] = [k for _, k in chosen]
        elif req.get("type") == "claim":
            if not obs.tricks and not obs.trick:
                raise RequestError("a claim comes after the first lead (R5.4): no card is played yet", "tricks")
            claim = sure_claim(obs)
            out["claim"] = None if claim is None else {"kind": claim.value}
        elif req.get("type") == "hint":
            out["hints"] = [
                {"cards": [c.code for c in h.play], "expected": h.expected,
                 "reason": {"zh": h.reason_zh, "en": h.reason_en}}
                for h in _hints(player, obs)
            ]
        else:
            out["cards"] = [c.code for c in _checked_play(player, obs)]
    except RequestError as e:
        out["error"] = str(e)
    return out


def _hints(player: Player, obs: Observation) -> list[Hint]:
    """The expert's ranking of the legal plays, with the bot's seed and search budget when the
    bot is itself a search player, else the hint defaults."""
    if not obs.legal_plays():
        raise RequestError("it is not this seat's turn: there is nothing to hint", "tricks")
    if isinstance(player, ExpertPlayer):
        if player.iterations is not None:
            return hints(obs, seed=player.seed, iterations=player.iterations)
        return hints(obs, seed=player.seed, think=player.think or DEFAULT_HINT_THINK)
    return hints(obs)


def parse_request_line(text: str) -> dict[str, Any]:
    """One request line as a JSON object; raises :class:`RequestError` for anything else."""
    try:
        value = loads_strict(text)
    except JSONTextError as e:
        raise RequestError(f"not valid JSON: {e}") from None
    if not isinstance(value, dict):
        raise RequestError(f"a request is a JSON object, not {describe(value)}")
    return value


def _short(message: str) -> str:
    return message if len(message) <= MAX_ERROR_CHARS else message[: MAX_ERROR_CHARS - 3] + "..."


def line_too_long(size: int | None = None) -> dict[str, Any]:
    """The answer to a request line longer than :data:`MAX_LINE_BYTES` (``size`` bytes, when
    known)."""
    has = f"{size} bytes" if size is not None else f"more than {MAX_LINE_BYTES} bytes"
    return {"error": f"the request line has {has}: a request is at most {MAX_LINE_BYTES} bytes of UTF-8 on one line"}


def handle_line(player: Player, line: str | bytes) -> dict[str, Any] | None:
    """One line of the ``gongzhu bot`` loop (text, or bytes to be read as UTF-8): None for a
    blank line, else the answer.  Never raises: a line longer than :data:`MAX_LINE_BYTES`, bytes
    that are not UTF-8 and any failure, even a bug in the player (logged with its traceback),
    become ``{"error": ...}``."""
    if isinstance(line, bytes):
        if len(line.rstrip(b"\r\n")) > MAX_LINE_BYTES:
            return line_too_long(len(line.rstrip(b"\r\n")))
        try:
            line = decode_utf8(line)
        except JSONTextError as e:
            return {"error": str(e)}
    elif len(line) * 4 > MAX_LINE_BYTES:  # only then can the UTF-8 be too long
        size = len(line.rstrip("\r\n").encode("utf-8", "surrogatepass"))
        if size > MAX_LINE_BYTES:
            return line_too_long(size)
    if not line.strip():
        return None
    req: dict[str, Any] | None = None
    try:
        req = parse_request_line(line.strip())
        out = answer(player, req)
    except RequestError as e:
        out = {"error": str(e)}
    except Exception as e:  # the bot keeps serving whatever happens
        log.exception("bot: a request failed (a bug)")
        out = {"id": req["id"]} if req is not None and "id" in req else {}
        out["error"] = f"internal error: {type(e).__name__}: {e}"
    if "error" in out:
        out["error"] = _short(out["error"])
    return out


def reply_line(reply: dict[str, Any]) -> str:
    """An answer as one line of JSON (without the newline) that can always be written as UTF-8:
    non-ASCII text as is, unless the answer holds a lone surrogate, then everything escaped.
    Never raises: an answer that is not JSON (a bug) is written as an internal error."""
    try:
        text = json.dumps(reply, ensure_ascii=False)
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(reply)
    except (TypeError, ValueError, RecursionError) as e:
        log.exception("bot: an answer could not be written as JSON (a bug)")
        out: dict[str, Any] = {"error": _short(f"internal error: the answer is not JSON: {type(e).__name__}: {e}")}
        ident = reply.get("id")
        return json.dumps({"id": ident, **out} if "id" in reply and _is_json(ident) else out)
    return text


def _is_json(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        return False
    return True
