"""The deal record format ``gongzhu-deal/1`` (R11): writing a finished deal as one JSON object.

A deal dealt from a board of duplicate play (R8.1) is written as ``gongzhu-deal/2``, which adds
its ``board``; every other deal is written as ``gongzhu-deal/1``, as before.

A record is a plain ``dict`` of JSON values; a file of records is JSON Lines, one record a line
(:func:`dump_record` writes one line).  Reading and strict checking live in
:mod:`gongzhu.records.read`, re-checking by replay in :mod:`gongzhu.records.replay`; the format
itself is declared in :mod:`gongzhu.formats.record` (the key order written here is its field
order) and documented in ``docs/records.md``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from gongzhu.formats.common import SEAT_CODES
from gongzhu.formats.record import (
    BOARD_FIELDS,
    BOARD_FORMAT,
    EXPOSURE_FIELDS,
    FIELDS,
    FIELDS_V2,
    FORMAT,
    PLAY_FIELDS,
    TRICK_FIELDS,
)
from gongzhu.rules.boards import Board
from gongzhu.rules.cards import Card, Seat
from gongzhu.rules.deal import Deal
from gongzhu.rules.errors import excerpt
from gongzhu.rules.options import OPTION_KEYS

__all__ = [
    "BOARD_FORMAT",
    "EXPOSURE_FIELDS",
    "FIELDS",
    "FIELDS_V2",
    "FORMAT",
    "PLAY_FIELDS",
    "SEATS",
    "TRICK_FIELDS",
    "RecordError",
    "canonical_record",
    "deal_to_record",
    "dump_record",
]

#: Seat codes as written in records, in seat order (R1).
SEATS: tuple[str, str, str, str] = SEAT_CODES


class RecordError(ValueError):
    """A record that is not a valid, consistent ``gongzhu-deal/1`` (or ``/2``) deal.

    ``reason`` says what is wrong, ``field`` where inside the record (a path such as
    ``$.tricks[3].winner``, or None; a path given without the leading ``$.`` gets it), and
    ``line``/``match``/``deal_index`` which record, when
    known.  ``str()`` puts them together, e.g.
    ``line 4, match 'm1', deal_index 3: $.tricks[3].winner: recorded E, but ...``.
    """

    def __init__(
        self,
        reason: str,
        *,
        field: str | None = None,
        line: int | None = None,
        match: str | None = None,
        deal_index: int | None = None,
    ) -> None:
        self.reason = reason
        self.field = field if field is None or field.startswith("$") else f"$.{field}"
        self.line = line
        self.match = match
        self.deal_index = deal_index
        super().__init__(self._text())

    def _text(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.match is not None:
            where.append(f"match {excerpt(self.match)}")
        if self.deal_index is not None:
            where.append(f"deal_index {self.deal_index}")
        head = ", ".join(where)
        body = f"{self.field}: {self.reason}" if self.field else self.reason
        return f"{head}: {body}" if head else body

    def __str__(self) -> str:
        return self._text()

    def located(
        self, *, line: int | None = None, match: str | None = None, deal_index: int | None = None
    ) -> RecordError:
        """The same error, told which record it is about (known facts are kept)."""
        return RecordError(
            self.reason,
            field=self.field,
            line=self.line if self.line is not None else line,
            match=self.match if self.match is not None else match,
            deal_index=self.deal_index if self.deal_index is not None else deal_index,
        )


def _seat(seat: Seat) -> str:
    return SEATS[seat]


def _codes(cards: tuple[Card, ...] | list[Card]) -> list[str]:
    return [c.code for c in cards]


def _board_entry(deal: Deal, board: Board | int, event: str | None) -> dict[str, Any]:
    """The ``board`` object of a deal dealt from ``board`` (a :class:`Board` or its number),
    checked against the deal: a board is dealt counter-clockwise, first to its dealer, as
    ``deal_index`` number − 1, with no previous pig-taker (R8.1)."""
    number = board.number if isinstance(board, Board) else board
    if type(number) is not int or number < 1:
        raise RecordError(f"a board number is a whole number from 1, not {excerpt(number)} (R8.1)")
    if isinstance(board, Board) and board.hands != deal.dealt:
        raise RecordError(f"the deal's hands are not the hands of board {number} (R8.1)")
    dealer = Seat((number - 1) % 4)
    if deal.first_receiver != dealer:
        raise RecordError(
            f"board {number} is dealt first to {_seat(dealer)}, but the deal's first_receiver is "
            f"{_seat(deal.first_receiver)}: the dealer rotates N, E, S, W (R8.1)"
        )
    if deal.deal_index != number - 1:
        raise RecordError(f"board {number} is deal_index {number - 1}, not {deal.deal_index} (R8.1)")
    if deal.dealt_clockwise:
        raise RecordError(f"board {number} is dealt counter-clockwise, but the deal was dealt clockwise (R8.1)")
    if deal.previous_pig_taker is not None:
        raise RecordError(f"board {number} has no previous pig-taker: its first lead is its own (R8.1)")
    if event is not None and (not isinstance(event, str) or not 1 <= len(event) <= 200):
        raise RecordError(f"an event id is 1 to 200 characters of text, not {excerpt(event)}")
    return {"number": number, "event": event, "dealt": "ccw"}


def _check_match_deal(deal: Deal) -> None:
    """A deal of a match: dealt in its play direction, the first deal to North, a later one to
    the previous pig-taker (R3, R5.1)."""
    if deal.dealt_clockwise != deal.options.clockwise:
        raise RecordError("the deal was not dealt in its play direction (R3): only a board is (R8.1), give board=")
    if deal.deal_index == 0 and deal.first_receiver != Seat.N:
        raise RecordError("deal_index 0 is the first deal of a match: it is dealt first to North (R3)")
    if deal.deal_index == 0 and deal.previous_pig_taker is not None:
        raise RecordError("deal_index 0 is the first deal of a match: it has no previous pig-taker")
    if deal.deal_index > 0 and deal.previous_pig_taker != deal.first_receiver:
        raise RecordError(
            f"deal_index {deal.deal_index}: a later deal is dealt first to the previous "
            f"pig-taker (R3), but first_receiver is {_seat(deal.first_receiver)} and "
            f"previous_pig_taker is {deal.previous_pig_taker!r}"
        )


def deal_to_record(
    deal: Deal,
    *,
    match_id: str,
    preset: str | None,
    board: Board | int | None = None,
    event: str | None = None,
) -> dict[str, Any]:
    """The R11 record of a finished deal.

    ``options`` lists every key of R10 as resolved for the deal (``preset`` is only a note of
    where they came from); ``seed`` is the deal's own seed (``Deal.seed``, null when the hands
    did not come from a seed); ``hands`` are as dealt, each in the order received (R3);
    ``exposures`` in the order the engine applied them, with their kind (R10); each trick gives
    its ``leader``, its ``plays`` in playing order and its ``winner``, plus ``taker`` only when
    someone else took its point cards (``discard_color=penalty``, R5.2).

    A deal of a board of duplicate play (:meth:`gongzhu.rules.boards.Board.deal`) gives
    ``board`` (the :class:`~gongzhu.rules.boards.Board`, or its number) and the ``event`` id, if
    any: it is written as ``gongzhu-deal/2`` with ``"board": {"number", "event", "dealt": "ccw"}``
    (R8.1); every other deal as ``gongzhu-deal/1``.

    Raises :class:`RecordError` for a deal that is not over, and for one whose first receiver
    and leader contradict R3/R5.1 (a later deal must be dealt first to, and led by, the
    previous pig-taker; the first deal of a match is dealt first to North) or, for a board, R8.1
    (dealt counter-clockwise, first to the board's dealer, no previous pig-taker).
    """
    if not deal.is_over:
        raise RecordError(f"the deal is not over ({len(deal.tricks)} tricks played): "
                          "only a finished deal has a record (R11)")
    board_entry: dict[str, Any] | None = None
    if board is not None:
        board_entry = _board_entry(deal, board, event)
    elif event is not None:
        raise RecordError("an event is written with the board it names: give board= too (R8.1)")
    else:
        _check_match_deal(deal)
    score = deal.score
    tricks: list[dict[str, Any]] = []
    for trick in deal.tricks:
        entry: dict[str, Any] = {
            "leader": _seat(trick.leader),
            "plays": [{"seat": _seat(seat), "cards": _codes(play)} for seat, play in trick.plays],
            "winner": _seat(trick.winner),
        }
        if trick.taker != trick.winner:
            entry["taker"] = _seat(trick.taker)
        tricks.append(entry)
    record: dict[str, Any] = {
        "format": FORMAT if board is None else BOARD_FORMAT,
        "match": match_id,
        "deal_index": deal.deal_index,
    }
    if board_entry is not None:
        record["board"] = board_entry
    return record | {
        "preset": preset,
        "options": deal.options.to_dict(),
        "seed": deal.seed,
        "first_receiver": _seat(deal.first_receiver),
        "hands": {SEATS[s]: _codes(deal.dealt[s]) for s in range(4)},
        "exposures": [
            {"seat": _seat(e.seat), "card": e.card.code, "kind": e.kind} for e in deal.exposures
        ],
        "tricks": tricks,
        "raw": {SEATS[s]: score.raw[s] for s in range(4)},
        "final": {SEATS[s]: score.final[s] for s in range(4)},
    }


def _ordered(obj: Mapping[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    """Known keys in ``order``, then any others sorted by name."""
    out = {k: obj[k] for k in order if k in obj}
    out.update((k, obj[k]) for k in sorted(obj) if k not in out)
    return out


def canonical_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """The record with every object's keys in the written order (:data:`FIELDS`, or
    :data:`FIELDS_V2` for ``gongzhu-deal/2``, first, other
    top-level keys after them sorted; seats N, E, S, W; option keys in R10 order).  A
    ``gongzhu-deal/1`` record has no ``board`` field: a key of that name is one it does not know."""
    out = _ordered(record, FIELDS_V2 if record.get("format") == BOARD_FORMAT else FIELDS)
    if record.get("format") == BOARD_FORMAT and isinstance(out.get("board"), Mapping):
        out["board"] = _ordered(out["board"], BOARD_FIELDS)
    if isinstance(out.get("options"), Mapping):
        out["options"] = _ordered(out["options"], OPTION_KEYS)
    for key in ("hands", "raw", "final"):
        if isinstance(out.get(key), Mapping):
            out[key] = _ordered(out[key], SEATS)
    if isinstance(out.get("exposures"), list):
        out["exposures"] = [
            _ordered(e, EXPOSURE_FIELDS) if isinstance(e, Mapping) else e for e in out["exposures"]
        ]
    if isinstance(out.get("tricks"), list):
        tricks = []
        for trick in out["tricks"]:
            if isinstance(trick, Mapping):
                trick = _ordered(trick, TRICK_FIELDS)
                if isinstance(trick.get("plays"), list):
                    trick["plays"] = [
                        _ordered(p, PLAY_FIELDS) if isinstance(p, Mapping) else p
                        for p in trick["plays"]
                    ]
            tricks.append(trick)
        out["tricks"] = tricks
    return out


def dump_record(record: Mapping[str, Any]) -> str:
    """One record as one line of JSON, without a trailing newline.

    Deterministic: keys in the fixed order of :func:`canonical_record`, compact separators,
    UTF-8 text kept as is (``ensure_ascii=False``), so equal records give equal lines.
    """
    return json.dumps(canonical_record(record), ensure_ascii=False, separators=(",", ":"),
                      allow_nan=False)
