"""Re-checking deal records by replaying them through the rules engine (R11).

:func:`replay` rebuilds a record's deal with :class:`~gongzhu.rules.deal.Deal`, declares its
exposures, plays every recorded play and compares every recorded fact (trick leaders, winners,
takers, raw and final scores) with what the engine computes; :func:`replay_states` does the
same step by step, for UIs.  :func:`check_records` also checks a file's sequence: the deals of
one match count up ``deal_index`` from 0, and each later deal is dealt first to, and led by,
the player who took the pig in the deal before (R3, R5.1).  A board of duplicate play
(``gongzhu-deal/2`` with ``board``, R8.1) is re-dealt counter-clockwise whatever the play
direction and led by its own first leader, as a first deal is; the boards of one match are not
linked to one another.

Every disagreement raises a :class:`~gongzhu.records.format.RecordError` naming the field
(``tricks[4].plays[2].cards``) and the reason, with the engine's own explanation of an illegal
play.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import IO, Any

from gongzhu.records.format import SEATS, RecordError
from gongzhu.records.read import DealRecord, load_records, locate, parse_record
from gongzhu.rules.cards import Card, Seat
from gongzhu.rules.deal import Deal, Phase
from gongzhu.rules.dealing import deal_hands, deal_seed, match_commitment
from gongzhu.rules.errors import GongzhuError, excerpt
from gongzhu.rules.match import match_over
from gongzhu.rules.model import Exposure, Trick
from gongzhu.rules.options import Options

__all__ = ["CheckedDeal", "check_file", "check_records", "replay", "replay_states"]


def _s(seat: Seat) -> str:
    return SEATS[seat]


def _exp_text(exposures: Iterable[Exposure]) -> str:
    items = [f"{_s(e.seat)} {e.card.code} {e.kind}" for e in exposures]
    return ", ".join(items) if items else "none"


def _play_text(cards: tuple[Card, ...]) -> str:
    return "".join(c.pretty for c in cards)


def _as_record(record: Mapping[str, Any] | DealRecord) -> DealRecord:
    return record if isinstance(record, DealRecord) else parse_record(record)


def _dealt_clockwise(rec: DealRecord) -> bool:
    """The direction the record's hands were dealt in: a board's counter-clockwise (R8.1), any
    other deal's in its play direction (R3)."""
    return False if rec.board is not None else rec.options.clockwise


def _check_match_seed(rec: DealRecord, match_seed: int, commitment: str | None) -> None:
    """A deal of the match whose seed was revealed: dealt from that seed, as committed to."""
    if commitment is not None and match_commitment(match_seed, rec.options.to_dict()) != commitment.lower():
        raise RecordError(f"the match seed {match_seed} and the record's options do not hash to the commitment "
                          f"{excerpt(commitment)}: not the cards committed to", field="options")
    want = deal_seed(match_seed, rec.deal_index)
    if rec.board is not None or rec.seed != want:
        raise RecordError(f"seed {rec.seed} is not deal {rec.deal_index} of the match seed {match_seed} "
                          f"(its seed is {want})", field="seed")


def _check_seed(rec: DealRecord) -> None:
    """A record with a seed must hold the hands that seed deals (R3, R8.1)."""
    if rec.seed is None:
        return
    opts = rec.options
    clockwise = _dealt_clockwise(rec)
    dealt = "dealt ccw, a board, R8.1" if rec.board is not None else f"direction {opts.direction}"
    expected = deal_hands(rec.seed, opts.decks, rec.first_receiver, clockwise)
    for s in range(4):
        for i, (got, want) in enumerate(zip(rec.hands[s], expected[s], strict=True)):
            if got != want:
                raise RecordError(
                    f"not the hands that seed {rec.seed} deals (R3, first card to "
                    f"{_s(rec.first_receiver)}, {dealt}): hands.{SEATS[s]}[{i}] "
                    f"is {got.code}, the seed deals {want.code}",
                    field="hands",
                )


def _declare_exposures(deal: Deal, rec: DealRecord) -> None:
    """Declare the record's chosen exposures seat by seat, then compare the automatic ones."""
    if not deal.options.players_declare:
        # The engine applied the mandatory exposures itself (R4.4); the record must list them.
        def key(e: Exposure) -> tuple[int, int, str]:
            return (e.seat, e.card.index, e.kind)

        if Counter(map(key, rec.exposures)) != Counter(map(key, deal.exposures)):
            engine = _exp_text(sorted(deal.exposures, key=key))
            raise RecordError(
                f"under exposure={deal.options.exposure} the engine exposes {engine} "
                f"(R4.4), but the record has {_exp_text(rec.exposures)}",
                field="exposures",
            )
        return
    by_seat: dict[Seat, list[tuple[int, Exposure]]] = {}
    for i, x in enumerate(rec.exposures):
        if x.kind != "auto":
            by_seat.setdefault(x.seat, []).append((i, x))
    order = list(by_seat) + [s for s in Seat if s not in by_seat]
    automatic: tuple[Exposure, ...] = ()  # set off by the fourth declaration (逼明)
    for seat in order:
        items = by_seat.get(seat, [])
        wanted = [(x.card, x.kind) for _, x in items]
        try:
            deal.verify_declare(seat, wanted)
        except GongzhuError:
            # Find the first exposure that makes the declaration fail, to name it.
            for k in range(1, len(items) + 1):
                try:
                    deal.verify_declare(seat, wanted[:k])
                except GongzhuError as e:
                    raise RecordError(str(e), field=f"exposures[{items[k - 1][0]}]") from None
            raise
        automatic = deal.declare(seat, wanted).automatic
    engine_auto = list(automatic)
    record_auto = [(i, x) for i, x in enumerate(rec.exposures) if x.kind == "auto"]
    if [x for _, x in record_auto] == engine_auto:
        return
    if not engine_auto:
        i, x = record_auto[0]
        raise RecordError(
            f"automatic exposure of {x.card.code} by {_s(x.seat)}, but the engine applies none: "
            "only when three of the four cards are exposed, with one deck and "
            "auto_expose_fourth=true (逼明, R4.4)",
            field=f"exposures[{i}]",
        )
    (auto,) = engine_auto
    if not record_auto:
        raise RecordError(
            f"three of the four cards are exposed, so the engine exposes {auto.card.code} for "
            f"{_s(auto.seat)} automatically (逼明, R4.4), but the record has no 'auto' exposure",
            field="exposures",
        )
    i, x = record_auto[0]
    raise RecordError(
        f"recorded {x.card.code} by {_s(x.seat)}, but the engine exposes {auto.card.code} for "
        f"{_s(auto.seat)} automatically (逼明, R4.4)",
        field=f"exposures[{i}]",
    )


def _leader_reason(rec: DealRecord, i: int, leader: Seat) -> str:
    """Why ``leader`` leads trick ``i`` (R5.1, R5.2)."""
    if i > 0:
        return f"the winner of tricks[{i - 1}] leads the next trick (R5.2)"
    if rec.board is not None:
        card = rec.options.first_lead_card.pretty
        holds = "received the first" if rec.options.decks == 2 else "holds"
        return (
            f"{_s(leader)} {holds} {card} of board {rec.board.number}, dealt counter-clockwise from "
            f"{_s(rec.first_receiver)}, and leads its first trick (R8.1, R5.1 first_lead={rec.options.first_lead})"
        )
    if rec.deal_index > 0:
        return ("in a later deal the previous deal's pig-taker, who is also the first_receiver, "
                "leads (R3, R5.1)")
    opt = rec.options.first_lead
    card = rec.options.first_lead_card.pretty
    holds = "received the first" if rec.options.decks == 2 else "holds"
    return (f"{_s(leader)} {holds} {card} and leads the first trick of the match "
            f"(R5.1 first_lead={opt})")


def _check_trick(deal: Deal, done: Trick, recorded: Trick, i: int) -> None:
    """Compare the recorded trick ``i`` with the trick ``done`` as the engine completed it."""
    path = f"tricks[{i}]"
    if recorded.winner != done.winner:
        play = dict(done.plays)[done.winner]
        raise RecordError(
            f"recorded {_s(recorded.winner)}, but {_s(done.winner)} wins the trick with "
            f"{_play_text(play)} (R5.{3 if deal.options.decks == 2 else 2})",
            field=f"{path}.winner",
        )
    if recorded.taker == done.taker:
        return
    if done.taker == done.winner:
        raise RecordError(
            f"recorded {_s(recorded.taker)}, but nobody broke the discard colour rule: the "
            f"winner {_s(done.winner)} takes the point cards (R5.2)",
            field=f"{path}.taker",
        )
    if recorded.taker == recorded.winner:
        raise RecordError(
            f"no taker recorded, but {_s(done.taker)} broke the discard colour rule first and "
            "takes the point cards (R5.2 discard_color=penalty)",
            field=path,
        )
    raise RecordError(
        f"recorded {_s(recorded.taker)}, but {_s(done.taker)} broke the discard colour rule first "
        "and takes the point cards (R5.2 discard_color=penalty)",
        field=f"{path}.taker",
    )


def _check_scores(deal: Deal, rec: DealRecord) -> None:
    score = deal.score
    for name, recorded, computed, rule in (
        ("raw", rec.raw, score.raw, "R6"),
        ("final", rec.final, score.final, f"R7, scoring={rec.options.scoring}"),
    ):
        for s in range(4):
            if recorded[s] != computed[s]:
                raise RecordError(
                    f"recorded {recorded[s]}, but {SEATS[s]} scores {computed[s]} ({rule})",
                    field=f"{name}.{SEATS[s]}",
                )


def replay_states(record: Mapping[str, Any] | DealRecord, *, check_seed: bool = False) -> Iterator[Deal]:
    """Replay a record step by step, checking as it goes.

    Yields the deal right after dealing (exposure phase, or play phase when ``exposure`` is
    none/all/all_but_sheep and the engine has applied the mandatory exposures itself), then
    after the exposures are declared (if there was an exposure phase), then after every play.
    It is **the same** :class:`Deal` object each time, changed in place: read what you need
    (``deal.current_trick``, ``deal.tricks``, ``deal.hand(seat)`` …) before advancing, or keep
    your own copies.  After the last play the scores are compared, so a consumer that stops
    early skips the later checks.  Raises :class:`RecordError` at the first disagreement.

    The previous pig-taker of a later deal (``deal_index`` > 0) is taken to be its
    ``first_receiver`` (R3); :func:`check_records` checks that against the deal before.  A
    board (R8.1) has none: it is dealt counter-clockwise and led by its own first leader.

    With ``check_seed`` a record's non-null ``seed`` must deal its hands with this engine's
    dealer (R3); off by default, since another program's seed means its own shuffle.
    """
    rec = _as_record(record)
    if check_seed:
        _check_seed(rec)
    previous = rec.first_receiver if rec.deal_index > 0 and rec.board is None else None
    try:
        deal = Deal(
            rec.options,
            rec.hands,
            first_receiver=rec.first_receiver,
            deal_index=rec.deal_index,
            previous_pig_taker=previous,
            seed=rec.seed,
            dealt_clockwise=_dealt_clockwise(rec),
        )
    except GongzhuError as e:  # parse_record has checked the hands: should not happen
        raise RecordError(str(e), field="hands") from None
    yield deal
    if deal.phase == Phase.EXPOSE:
        _declare_exposures(deal, rec)
        yield deal
    else:
        _declare_exposures(deal, rec)
    for i, trick in enumerate(rec.tricks):
        path = f"tricks[{i}]"
        if deal.is_over:
            raise RecordError(
                f"the deal is already over after {i} tricks: every card has been played",
                field=path,
            )
        if trick.leader != deal.turn:
            assert deal.turn is not None
            raise RecordError(
                f"recorded {_s(trick.leader)}, but {_s(deal.turn)} leads: "
                + _leader_reason(rec, i, deal.turn),
                field=f"{path}.leader",
            )
        completed: Trick | None = None
        for j, (seat, cards) in enumerate(trick.plays):
            ppath = f"{path}.plays[{j}]"
            turn = deal.turn
            assert turn is not None
            if seat != turn:
                order = "N → E → S → W" if rec.options.clockwise else "N → W → S → E"
                raise RecordError(
                    f"recorded {_s(seat)}, but it is {_s(turn)}'s turn (direction "
                    f"{rec.options.direction}: {order}, R1)",
                    field=f"{ppath}.seat",
                )
            try:
                completed = deal.play(cards, seat=seat).trick
            except GongzhuError as e:
                raise RecordError(f"{_s(seat)} cannot play {_play_text(cards)}: {e}",
                                  field=f"{ppath}.cards") from None
            yield deal
        assert completed is not None  # a record's trick has four plays (parse_record)
        _check_trick(deal, completed, trick, i)
    if not deal.is_over:
        left = sum(len(deal.hand(s)) for s in Seat)
        raise RecordError(
            f"the record ends after {len(rec.tricks)} tricks, but the deal is not over: "
            f"{left} cards are still in hand",
            field="tricks",
        )
    _check_scores(deal, rec)


def replay(record: Mapping[str, Any] | DealRecord, *, check_seed: bool = False) -> Deal:
    """Replay a record (an object as read from JSON, or a parsed :class:`DealRecord`) and return
    the finished :class:`Deal`; raise :class:`RecordError` at the first disagreement between
    the record and the rules.  ``deal_to_record(replay(r), ...)`` gives back ``r`` for every
    record the engine wrote."""
    last: Deal | None = None
    for state in replay_states(record, check_seed=check_seed):
        last = state
    assert last is not None
    return last


@dataclass(frozen=True, slots=True)
class CheckedDeal:
    """One record that checked out: where it was, what it says, and the replayed deal."""

    line: int
    record: DealRecord
    deal: Deal


@dataclass(slots=True)
class _MatchState:
    line: int
    deal_index: int
    options: Options
    pig_taker: Seat | None
    totals: list[int] | None  # None when the file starts mid-match: totals are unknown
    first_line: int
    boards: dict[int, int] | None = None  # a match of boards (R8.1): board number -> line
    event: str | None = None


def _check_boards(rec: DealRecord, state: _MatchState) -> None:
    """A board of a match of boards (R8.1): each board played once, all of one event."""
    assert rec.board is not None and state.boards is not None
    number = rec.board.number
    if number in state.boards:
        raise RecordError(
            f"board {number} was already played in this match (line {state.boards[number]}): a table plays "
            "each board once (R8.1)",
            field="board.number",
        )
    if rec.board.event != state.event:
        raise RecordError(
            f"event {excerpt(rec.board.event)}, but the match's earlier boards (line {state.first_line}) are "
            f"of event {excerpt(state.event)}: one match plays the boards of one event (R8.1)",
            field="board.event",
        )


def _option_difference(a: Options, b: Options) -> str:
    da, db = a.to_dict(), b.to_dict()
    return ", ".join(f"{k} {da[k]!r} vs {db[k]!r}" for k in da if da[k] != db[k])


def _check_sequence(rec: DealRecord, state: _MatchState | None) -> None:
    if state is None:
        return  # the first record of this match in the file (deal 0, or a fragment)
    if (rec.board is None) != (state.boards is None):
        kind, earlier = (
            ("a board", "deals that follow one another")
            if rec.board
            else ("a deal that follows the one before", "boards")
        )
        raise RecordError(
            f"{kind}, but the match's earlier records (line {state.first_line}) are {earlier}: a match "
            "is played either as deals dealt to the previous pig-taker (R3) or as boards (R8.1)",
            field="board" if rec.board else "format",
        )
    if rec.board is not None:
        if rec.options != state.options:
            raise RecordError(
                f"differ from the match's earlier boards (line {state.first_line}): "
                f"{_option_difference(rec.options, state.options)}; one match is played under one "
                "set of options (R8)",
                field="options",
            )
        _check_boards(rec, state)
        return
    expected = state.deal_index + 1
    if rec.deal_index != expected:
        raise RecordError(
            f"expected {expected} after deal_index {state.deal_index} of this match "
            f"(line {state.line}), got {rec.deal_index}: the deals of a match count up by 1 (R11)",
            field="deal_index",
        )
    if rec.options != state.options:
        raise RecordError(
            f"differ from the match's earlier deals (line {state.first_line}): "
            f"{_option_difference(rec.options, state.options)}; one match is played under one "
            "set of options (R8)",
            field="options",
        )
    if state.totals is not None and match_over(rec.options, state.totals, rec.deal_index):
        totals = ", ".join(f"{SEATS[s]} {state.totals[s]}" for s in range(4))
        raise RecordError(
            f"the match was already over after deal_index {state.deal_index} (totals {totals}; "
            f"R8 match_end={rec.options.match_end}, match_limit={rec.options.match_limit}): "
            "no further deal belongs to it",
            field="deal_index",
        )
    if rec.first_receiver != state.pig_taker:
        taker = _s(state.pig_taker) if state.pig_taker is not None else "nobody"
        raise RecordError(
            f"recorded {_s(rec.first_receiver)}, but {taker} took the pig in deal_index "
            f"{state.deal_index} of this match (line {state.line}): a later deal is dealt first "
            "to the previous pig-taker (R3), who leads (R5.1)",
            field="first_receiver",
        )


def check_records(
    records: Iterable[tuple[int, Mapping[str, Any]] | Mapping[str, Any]],
    *,
    check_seed: bool = False,
    match_seed: int | None = None,
    commitment: str | None = None,
) -> Iterator[CheckedDeal]:
    """Check ``(line_number, record)`` pairs (as :func:`load_records` gives them; bare record
    objects are numbered 1, 2, … by position), one by one:
    each record's structure (:func:`parse_record`), its sequence within its match, and its play
    (:func:`replay`).  Yields each record that checks out; raises :class:`RecordError` for the
    first that does not, located by line, match and deal_index.

    Sequences (R3, R5.1, R8, R11): records of several matches may be consecutive or
    interleaved; within a match (same ``match``) ``deal_index`` counts up by 1 from the first
    record seen, under the same options; a later deal's ``first_receiver`` (and so, by replay,
    its first leader) is the pig-taker of the deal before, and no deal follows the end of the
    match (R8 ``match_end``).  A match whose first record in the file has ``deal_index`` k > 0
    is a fragment: it is accepted, its first deal is led by its own ``first_receiver`` (the
    previous pig-taker cannot be checked), and the match end is not checked since the totals
    before it are unknown.

    Boards (R8.1): the records of one match are all boards or none; its boards, each played once,
    are of one event and under the same options, in any order, each dealt and led on its own.

    A match's seed revealed (``match_seed``; with ``check_seed``): each deal's seed must be the one
    that match seed gives it (:func:`~gongzhu.rules.dealing.deal_seed`), so every hand was dealt
    from it; with the ``commitment`` published when the match started, that seed and the records'
    options must hash to it (:func:`~gongzhu.rules.dealing.match_commitment`).
    """
    states: dict[str, _MatchState] = {}
    for position, item in enumerate(records, start=1):
        line, obj = item if isinstance(item, tuple) else (position, item)
        try:
            rec = parse_record(obj)
            state = states.get(rec.match)
            _check_sequence(rec, state)
            if match_seed is not None:
                _check_match_seed(rec, match_seed, commitment)
            deal = replay(rec, check_seed=check_seed or match_seed is not None)
        except RecordError as e:
            raise locate(e, line, obj) from None
        if rec.board is not None:  # boards are compared board by board, not added up (R8.1)
            boards = dict(state.boards or {}) if state is not None else {}
            boards[rec.board.number] = line
            states[rec.match] = _MatchState(
                line=line,
                deal_index=rec.deal_index,
                options=rec.options,
                pig_taker=None,
                totals=None,
                first_line=line if state is None else state.first_line,
                boards=boards,
                event=rec.board.event,
            )
            yield CheckedDeal(line, rec, deal)
            continue
        totals: list[int] | None = None
        if state is not None and state.totals is not None:
            totals = state.totals
        elif state is None and rec.deal_index == 0:
            totals = [0, 0, 0, 0]
        if totals is not None:
            totals = [t + r for t, r in zip(totals, deal.score.result, strict=True)]
        states[rec.match] = _MatchState(
            line=line,
            deal_index=rec.deal_index,
            options=rec.options,
            pig_taker=deal.pig_taker,
            totals=totals,
            first_line=line if state is None else state.first_line,
        )
        yield CheckedDeal(line, rec, deal)


def check_file(source: str | os.PathLike[str] | IO[str] | IO[bytes], *,
               check_seed: bool = False) -> list[CheckedDeal]:
    """Every record of a JSON Lines file (or text, or stream; see :func:`load_records`) checked
    by :func:`check_records`."""
    return list(check_records(load_records(source), check_seed=check_seed))
