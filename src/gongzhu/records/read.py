"""Reading deal records (R11): JSON Lines in, strictly checked typed records out.

:func:`load_records` reads a file (or text, or an open stream) line by line into JSON objects;
:func:`parse_record` checks one object field by field and turns it into a :class:`DealRecord`.
Both refuse malformed input with a :class:`~gongzhu.records.format.RecordError` whose message
names the line and the field, e.g. ``line 3: not valid JSON: ...`` or
``hands.E[4]: '10C' is not a canonical card code: write 'TC'``.

Both versions are read: ``gongzhu-deal/1``, and ``gongzhu-deal/2``, whose optional ``board``
names the board of duplicate play the deal was dealt from (R8.1, :class:`RecordedBoard`).

This is the structural check only; whether the deal was played by the rules (every play legal,
every winner and score right) is checked by replaying it, :mod:`gongzhu.records.replay`.
"""

from __future__ import annotations

import codecs
import io
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import IO, Any

import msgspec

from gongzhu.formats import FormatError, typed
from gongzhu.formats.record import (
    BOARD_FORMAT,
    FIELDS,
    FIELDS_V2,
    FORMATS,
    Record,
    SeatCards,
    SeatScores,
    options_dict,
)
from gongzhu.formats.record import Exposure as RecordExposure
from gongzhu.formats.record import Trick as RecordTrick
from gongzhu.jsontext import JSONTextError, decode_utf8, describe, loads_strict
from gongzhu.records.format import SEATS, RecordError
from gongzhu.rules.cards import ALL_CARDS, EXPOSABLE, Card, Seat, hand_size, too_many_copies
from gongzhu.rules.errors import OptionError, excerpt
from gongzhu.rules.model import Exposure, Play, Trick
from gongzhu.rules.options import Options

__all__ = [
    "MAX_LINE_BYTES",
    "DealRecord",
    "RecordTextError",
    "RecordedBoard",
    "load_records",
    "parse_record",
    "read_records",
]

#: The longest line read from a records file, in bytes (a record is a few kilobytes).
MAX_LINE_BYTES = 1 << 20

_BY_CODE: dict[str, Card] = {c.code: c for c in ALL_CARDS}
_SEAT_OF: dict[str, Seat] = {code: Seat(i) for i, code in enumerate(SEATS)}


class RecordTextError(RecordError):
    """A line of a records source that is not text: not UTF-8, or longer than
    :data:`MAX_LINE_BYTES` (``gongzhu replay`` reports the file as unreadable)."""


@dataclass(frozen=True, slots=True)
class RecordedBoard:
    """The board of duplicate play a record's deal was dealt from (``gongzhu-deal/2``, R8.1):
    its ``number`` and the ``event`` id (or None).  A board is dealt counter-clockwise, first to
    ``Seat((number - 1) % 4)``, as ``deal_index`` ``number - 1``, and its first lead is its own."""

    number: int
    event: str | None


@dataclass(frozen=True, slots=True)
class DealRecord:
    """One record, checked and typed.  Seat-indexed tuples are in seat order N, E, S, W.

    ``tricks`` use :class:`~gongzhu.rules.model.Trick`; a record without ``taker`` has
    ``taker == winner``.  ``extra`` holds top-level fields this version does not know (R11:
    "more may be added"); they are carried, not checked.  ``board`` is the board the deal was
    dealt from (``gongzhu-deal/2``), None for a deal of a match.
    """

    match: str
    deal_index: int
    preset: str | None
    options: Options
    seed: int | None
    first_receiver: Seat
    hands: tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]
    exposures: tuple[Exposure, ...]
    tricks: tuple[Trick, ...]
    raw: tuple[int, int, int, int]
    final: tuple[int, int, int, int]
    extra: tuple[tuple[str, Any], ...] = ()
    board: RecordedBoard | None = None


# ---------------------------------------------------------------------------------- reading


def _parse_line(text: str, line: int) -> dict[str, Any]:
    try:
        value = loads_strict(text)
    except JSONTextError as e:
        raise RecordError(f"not valid JSON: {e}", line=line) from None
    if not isinstance(value, dict):
        raise RecordError(f"a record is a JSON object, not {describe(value)}", line=line)
    return value


def _stream_lines(stream: IO[bytes] | IO[str]) -> Iterator[str]:
    """The lines of a stream, each read up to MAX_LINE_BYTES (characters for a text stream);
    bytes are read as UTF-8, a byte-order mark before the first line is skipped."""
    number = 0
    while True:
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_BYTES and raw[-1:] not in (b"\n", "\n"):
            raise RecordTextError(f"the line is longer than {MAX_LINE_BYTES} bytes: a record is one line of a "
                                  "few kilobytes", line=number)
        if isinstance(raw, bytes):
            try:
                text = decode_utf8(raw[3:] if number == 1 and raw.startswith(codecs.BOM_UTF8) else raw)
            except JSONTextError as e:
                raise RecordTextError(str(e), line=number) from None
        else:
            text = raw[1:] if number == 1 and raw.startswith("\ufeff") else raw
        yield text


def _lines(source: str | os.PathLike[str] | IO[str] | IO[bytes]) -> Iterator[str]:
    is_text = isinstance(source, str) and (
        not source or "\n" in source or source.lstrip().startswith("{")
    )
    if isinstance(source, str) and is_text:
        yield from _stream_lines(io.StringIO(source))
    elif isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as f:
            yield from _stream_lines(f)
    else:
        yield from _stream_lines(source)


def load_records(source: str | os.PathLike[str] | IO[str] | IO[bytes]) -> Iterator[tuple[int, dict[str, Any]]]:
    """The JSON objects of a JSON Lines source as ``(line_number, object)``, lines counted
    from 1; blank lines are skipped.

    ``source`` is a path (``os.PathLike``, or a ``str`` holding no newline that does not start
    with ``{``), the text itself (a ``str`` with a newline or starting with ``{``), or an open
    stream such as ``sys.stdin.buffer`` (bytes, read as UTF-8) or ``sys.stdin``.  A byte-order
    mark before the first line is skipped.  Lazy: the file is opened and read as the iterator is
    consumed, so :class:`OSError` comes from iterating.  A line that is not UTF-8 or longer than
    :data:`MAX_LINE_BYTES` raises :class:`RecordTextError`, a line that is not a JSON object
    :class:`RecordError`, each with its line number.
    """
    for number, text in enumerate(_lines(source), start=1):
        if text.strip():
            yield number, _parse_line(text.rstrip("\r\n"), number)


def read_records(source: str | os.PathLike[str] | IO[str] | IO[bytes]) -> Iterator[tuple[int, DealRecord]]:
    """:func:`load_records` then :func:`parse_record` on each, errors located by line."""
    for number, obj in load_records(source):
        try:
            yield number, parse_record(obj)
        except RecordError as e:
            raise locate(e, number, obj) from None


def locate(error: RecordError, line: int | None, obj: Mapping[str, Any]) -> RecordError:
    """``error`` told its line and, when readable from ``obj``, its match and deal_index."""
    match = obj.get("match")
    index = obj.get("deal_index")
    return error.located(
        line=line,
        match=match if isinstance(match, str) else None,
        deal_index=index if type(index) is int else None,
    )


# ---------------------------------------------------------------------------------- checking


def _card(code: str) -> Card:
    return _BY_CODE[code]  # a CardCode of the format is one of the 52 codes


def _seat(code: str) -> Seat:
    return _SEAT_OF[code]


def _scores(value: SeatScores) -> tuple[int, int, int, int]:
    return value.N, value.E, value.S, value.W


def _options(value: Any) -> Options:
    try:
        return Options.from_dict(options_dict(value))
    except OptionError as e:
        raise RecordError(str(e), field="$.options") from None


def _hands(value: SeatCards, options: Options) -> tuple[tuple[Card, ...], ...]:
    size = hand_size(options.decks)
    hands: list[tuple[Card, ...]] = []
    for code in SEATS:
        path = f"$.hands.{code}"
        hand = tuple(_card(c) for c in getattr(value, code))
        if len(hand) != size:
            raise RecordError(
                f"{len(hand)} cards, but each hand has {size} with {options.decks} deck(s) (R1)",
                field=path,
            )
        hands.append(hand)
    extra = too_many_copies(((c, f"$.hands.{code}[{i}]") for code, hand in zip(SEATS, hands, strict=True)
                             for i, c in enumerate(hand)), options.decks)
    if extra is not None:
        c, places = extra
        once = "once" if options.decks == 1 else "twice"
        raise RecordError(
            f"{c.code} is dealt {len(places)} times ({', '.join(places)}), but every card is "
            f"dealt exactly {once} with {options.decks} deck(s) (R1)",
            field="$.hands",
        )
    return tuple(hands)  # the sizes and counts together: every card is dealt as often as decks


def _exposures(value: list[RecordExposure]) -> tuple[Exposure, ...]:
    out = []
    for i, e in enumerate(value):
        c = _card(e.card)
        if c not in EXPOSABLE:
            raise RecordError(f"{c.code} cannot be exposed: only QS, JD, TC and AH can (R4.1)",
                              field=f"$.exposures[{i}].card")
        out.append(Exposure(_seat(e.seat), c, e.kind))
    return tuple(out)


def _tricks(value: list[RecordTrick], options: Options) -> tuple[Trick, ...]:
    out = []
    for i, t in enumerate(value):
        path = f"$.tricks[{i}]"
        plays: list[tuple[Seat, Play]] = []
        for j, p in enumerate(t.plays):
            if len(p.cards) > options.decks:
                raise RecordError(f"{len(p.cards)} cards, but a play is one card with one deck (R5.3)",
                                  field=f"{path}.plays[{j}].cards")
            plays.append((_seat(p.seat), tuple(_card(c) for c in p.cards)))
        leader = _seat(t.leader)
        if plays[0][0] != leader:
            raise RecordError(
                f"{SEATS[plays[0][0]]}, but the trick's leader {SEATS[leader]} plays first",
                field=f"{path}.plays[0].seat",
            )
        winner = _seat(t.winner)
        taker = winner if isinstance(t.taker, msgspec.UnsetType) else _seat(t.taker)
        out.append(Trick(leader, tuple(plays), winner, taker))
    return tuple(out)


def _board(record: Record, first_receiver: Seat) -> RecordedBoard | None:
    """The record's board (R8.1), checked against its first receiver and deal_index."""
    if isinstance(record.board, msgspec.UnsetType):
        return None
    number = record.board.number
    dealer = Seat((number - 1) % 4)
    if first_receiver != dealer:
        raise RecordError(
            f"{SEATS[first_receiver]}, but board {number} is dealt first to {SEATS[dealer]}: the dealer "
            "rotates N, E, S, W from board 1 (R8.1)",
            field="$.first_receiver",
        )
    if record.deal_index != number - 1:
        raise RecordError(
            f"{record.deal_index}, but board {number} is deal_index {number - 1}: a board's "
            "deal_index is its number − 1 (R8.1)",
            field="$.deal_index",
        )
    return RecordedBoard(number, record.board.event)


def parse_record(obj: Any) -> DealRecord:
    """Check one record object (R11) and type it: its shape by the declared format
    (:class:`gongzhu.formats.record.Record`), then what the format cannot say.

    Refuses, with a :class:`RecordError` naming the field by its path (``$.tricks[3].winner``):
    a missing field, a value of the wrong JSON type, another format version, an unknown or
    missing option key, a bad option value or combination (a record's ``options`` are
    authoritative; ``preset`` is only a note), a card that is not a canonical code such as
    ``QS``, a seat other than N/E/S/W, hands that are not a deal (R1), a non-exposable card in
    ``exposures``, a trick without four plays, a first deal of a match (``deal_index`` 0) not
    dealt first to North (R3), a board (``gongzhu-deal/2``) not dealt first to its dealer or whose
    ``deal_index`` is not its number − 1 (R8.1).
    """
    if not isinstance(obj, dict):
        raise RecordError(f"a record is a JSON object, not {describe(obj)}")
    known = " or ".join(repr(f) for f in FORMATS)
    if "format" not in obj:
        raise RecordError(f"missing field 'format' (expected {known}): not a deal record")
    fmt = obj["format"]
    if isinstance(fmt, str) and fmt not in FORMATS:
        if fmt.startswith("gongzhu-deal/"):
            raise RecordError(f"unknown format version {excerpt(fmt)}: this reader knows {known}", field="$.format")
        raise RecordError(f"{excerpt(fmt)} is not a deal record format: expected {known}", field="$.format")
    fields = FIELDS_V2 if fmt == BOARD_FORMAT else FIELDS
    try:
        # Version 1 has no board: a key of that name is one it does not know, carried in extra.
        body = obj if fmt == BOARD_FORMAT or "board" not in obj else {k: v for k, v in obj.items() if k != "board"}
        record = typed(body, Record)
    except FormatError as e:
        raise RecordError(e.reason, field=e.path) from None
    options = _options(record.options)
    first_receiver = _seat(record.first_receiver)
    board = _board(record, first_receiver)
    if record.deal_index == 0 and first_receiver != Seat.N:
        raise RecordError(
            f"{SEATS[first_receiver]}, but the first deal of a match (deal_index 0) is dealt first "
            "to N (R3)",
            field="$.first_receiver",
        )
    hands = _hands(record.hands, options)
    extra = tuple((k, obj[k]) for k in obj if k not in fields)
    return DealRecord(
        match=record.match,
        deal_index=record.deal_index,
        preset=record.preset,
        options=options,
        seed=record.seed,
        first_receiver=first_receiver,
        hands=(hands[0], hands[1], hands[2], hands[3]),
        exposures=_exposures(record.exposures),
        tricks=_tricks(record.tricks, options),
        raw=_scores(record.raw),
        final=_scores(record.final),
        extra=extra,
        board=board,
    )
