"""Reading deal records (R11): JSON Lines in, strictly checked typed records out.

:func:`load_records` reads a file (or text, or an open stream) line by line into JSON objects;
:func:`parse_record` checks one object field by field and turns it into a :class:`DealRecord`.
Both refuse malformed input with a :class:`~gongzhu.records.format.RecordError` whose message
names the line and the field, e.g. ``line 3: not valid JSON: ...`` or
``hands.E[4]: '10C' is not a canonical card code: write 'TC'``.

This is the structural check only; whether the deal was played by the rules (every play legal,
every winner and score right) is checked by replaying it, :mod:`gongzhu.records.replay`.
"""

from __future__ import annotations

import codecs
import io
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import IO, Any

from gongzhu.jsontext import JSONTextError, decode_utf8, describe, loads_strict, show
from gongzhu.records.format import FIELDS, FORMAT, SEATS, RecordError
from gongzhu.rules.cards import ALL_CARDS, EXPOSABLE, Card, Seat, parse_card
from gongzhu.rules.errors import CardError, OptionError, excerpt
from gongzhu.rules.model import Exposure, Play, Trick
from gongzhu.rules.options import EXPOSURE_KINDS, OPTION_KEYS, Options

__all__ = ["MAX_LINE_BYTES", "DealRecord", "RecordTextError", "load_records", "parse_record", "read_records"]

#: The longest line read from a records file, in bytes (a record is a few kilobytes).
MAX_LINE_BYTES = 1 << 20

_BY_CODE: dict[str, Card] = {c.code: c for c in ALL_CARDS}
_SEAT_OF: dict[str, Seat] = {code: Seat(i) for i, code in enumerate(SEATS)}
_OPTION_DEFAULTS = Options().to_dict()


class RecordTextError(RecordError):
    """A line of a records source that is not text: not UTF-8, or longer than
    :data:`MAX_LINE_BYTES` (``gongzhu replay`` reports the file as unreadable)."""


@dataclass(frozen=True, slots=True)
class DealRecord:
    """One record, checked and typed.  Seat-indexed tuples are in seat order N, E, S, W.

    ``tricks`` use :class:`~gongzhu.rules.model.Trick`; a record without ``taker`` has
    ``taker == winner``.  ``extra`` holds top-level fields this version does not know (R11:
    "more may be added"); they are carried, not checked.
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


# ---------------------------------------------------------------------------------- reading


def _parse_line(text: str, line: int) -> dict[str, Any]:
    try:
        value = loads_strict(text)
    except JSONTextError as e:
        raise RecordError(f"not valid JSON: {e}", line=line) from None
    if not isinstance(value, dict):
        raise RecordError(f"a record is a JSON object, not {_kind(value)}", line=line)
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


_kind = describe
_show = show


def _type_error(path: str, wanted: str, value: Any) -> RecordError:
    return RecordError(f"must be {wanted}, not {_kind(value)} ({_show(value)})", field=path)


def _object(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _type_error(path, "an object", value)
    return value


def _array(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise _type_error(path, "an array", value)
    return value


def _int(value: Any, path: str) -> int:
    if type(value) is not int:
        raise _type_error(path, "an integer", value)
    return value


def _str(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise _type_error(path, "a string", value)
    return value


def _keys(
    obj: dict[str, Any], path: str, required: Iterable[str], optional: Iterable[str] = ()
) -> None:
    """Every required key present, no key outside required + optional."""
    required = tuple(required)
    for key in required:
        if key not in obj:
            raise RecordError(f"missing field {key!r}", field=path or None)
    allowed = set(required) | set(optional)
    for key in obj:
        if key not in allowed:
            known = ", ".join(repr(k) for k in (*required, *optional))
            raise RecordError(
                f"unknown field {excerpt(key)}: expected {known}",
                field=path or None,
            )


def _seat(value: Any, path: str) -> Seat:
    if isinstance(value, str) and value in _SEAT_OF:
        return _SEAT_OF[value]
    raise RecordError(f"{_show(value)} is not a seat: write one of N, E, S, W", field=path)


def _card(value: Any, path: str) -> Card:
    code = _str(value, path)
    if code in _BY_CODE:
        return _BY_CODE[code]
    try:
        c = parse_card(code)
    except CardError:
        raise RecordError(
            f"{_show(code)} is not a card: write rank 23456789TJQKA then suit SHCD, "
            "e.g. 'QS', 'TC'",
            field=path,
        ) from None
    raise RecordError(f"{_show(code)} is not a canonical card code: write {c.code!r}", field=path)


def _seat_map(value: Any, path: str) -> dict[str, Any]:
    obj = _object(value, path)
    _keys(obj, path, SEATS)
    return obj


def _scores(value: Any, path: str) -> tuple[int, int, int, int]:
    obj = _seat_map(value, path)
    n, e, s, w = (_int(obj[k], f"{path}.{k}") for k in SEATS)
    return n, e, s, w


def _options(value: Any) -> Options:
    obj = _object(value, "options")
    for key in obj:
        if key not in OPTION_KEYS:
            raise RecordError(f"unknown option {excerpt(key)}: known options are {', '.join(OPTION_KEYS)}",
                              field="options")
    for key in OPTION_KEYS:
        if key not in obj:
            raise RecordError(f"missing option {key!r}: a record lists every key of R10, resolved",
                              field="options")
    for key in OPTION_KEYS:
        default, given = _OPTION_DEFAULTS[key], obj[key]
        if type(given) is not type(default):
            wanted = {bool: "true or false", int: "an integer", str: "a string"}[type(default)]
            raise _type_error(f"options.{key}", wanted, given)
    try:
        return Options.from_dict(obj)
    except OptionError as e:
        raise RecordError(str(e), field="options") from None


def _hands(value: Any, options: Options) -> tuple[tuple[Card, ...], ...]:
    obj = _seat_map(value, "hands")
    size = 13 * options.decks
    hands: list[tuple[Card, ...]] = []
    where: dict[Card, list[str]] = {}
    for code in SEATS:
        path = f"hands.{code}"
        cards = _array(obj[code], path)
        hand = tuple(_card(c, f"{path}[{i}]") for i, c in enumerate(cards))
        if len(hand) != size:
            raise RecordError(
                f"{len(hand)} cards, but each hand has {size} with {options.decks} deck(s) (R1)",
                field=path,
            )
        for i, c in enumerate(hand):
            where.setdefault(c, []).append(f"{path}[{i}]")
        hands.append(hand)
    once = "once" if options.decks == 1 else "twice"
    for c, places in where.items():
        if len(places) > options.decks:
            raise RecordError(
                f"{c.code} is dealt {len(places)} times ({', '.join(places)}), but every card is "
                f"dealt exactly {once} with {options.decks} deck(s) (R1)",
                field="hands",
            )
    for c in ALL_CARDS:  # only reachable if a card is missing and the sizes were fixed up
        if len(where.get(c, ())) != options.decks:
            raise RecordError(f"{c.code} is dealt {len(where.get(c, ()))} times, but every card is "
                              f"dealt exactly {once} (R1)", field="hands")
    return tuple(hands)


def _exposures(value: Any) -> tuple[Exposure, ...]:
    out = []
    for i, item in enumerate(_array(value, "exposures")):
        path = f"exposures[{i}]"
        obj = _object(item, path)
        _keys(obj, path, ("seat", "card", "kind"))
        seat = _seat(obj["seat"], f"{path}.seat")
        c = _card(obj["card"], f"{path}.card")
        if c not in EXPOSABLE:
            raise RecordError(f"{c.code} cannot be exposed: only QS, JD, TC and AH can (R4.1)",
                              field=f"{path}.card")
        kind = _str(obj["kind"], f"{path}.kind")
        if kind not in EXPOSURE_KINDS:
            raise RecordError(
                f"unknown exposure kind {excerpt(kind)}: one of {', '.join(EXPOSURE_KINDS)} (R10)",
                field=f"{path}.kind",
            )
        out.append(Exposure(seat, c, kind))
    return tuple(out)


def _tricks(value: Any, options: Options) -> tuple[Trick, ...]:
    out = []
    for i, item in enumerate(_array(value, "tricks")):
        path = f"tricks[{i}]"
        obj = _object(item, path)
        _keys(obj, path, ("leader", "plays", "winner"), ("taker",))
        leader = _seat(obj["leader"], f"{path}.leader")
        plays_in = _array(obj["plays"], f"{path}.plays")
        if len(plays_in) != 4:
            raise RecordError(
                f"{len(plays_in)} plays, but every player plays once to a trick (R5.2)",
                field=f"{path}.plays",
            )
        plays: list[tuple[Seat, Play]] = []
        for j, p in enumerate(plays_in):
            ppath = f"{path}.plays[{j}]"
            pobj = _object(p, ppath)
            _keys(pobj, ppath, ("seat", "cards"))
            seat = _seat(pobj["seat"], f"{ppath}.seat")
            cards_in = _array(pobj["cards"], f"{ppath}.cards")
            if not 1 <= len(cards_in) <= options.decks:
                wanted = ("one card" if options.decks == 1
                          else "one card, or two in a pair trick (R5.3)")
                raise RecordError(f"{len(cards_in)} cards, but a play is {wanted}",
                                  field=f"{ppath}.cards")
            cards = tuple(_card(c, f"{ppath}.cards[{k}]") for k, c in enumerate(cards_in))
            plays.append((seat, cards))
        if plays[0][0] != leader:
            raise RecordError(
                f"{SEATS[plays[0][0]]}, but the trick's leader {SEATS[leader]} plays first",
                field=f"{path}.plays[0].seat",
            )
        winner = _seat(obj["winner"], f"{path}.winner")
        taker = _seat(obj["taker"], f"{path}.taker") if "taker" in obj else winner
        out.append(Trick(leader, tuple(plays), winner, taker))
    return tuple(out)


def parse_record(obj: Any) -> DealRecord:
    """Check one record object field by field (R11) and type it.

    Refuses, with a :class:`RecordError` naming the field: a missing field, a value of the
    wrong JSON type, another format version, an unknown or missing option key, a bad option
    value or combination (a record's ``options`` are authoritative; ``preset`` is only a note),
    a card that is not a canonical code such as ``QS``, a seat other than N/E/S/W, hands that
    are not a deal (R1), a non-exposable card in ``exposures``, a trick without four plays, a
    first deal of a match (``deal_index`` 0) not dealt first to North (R3).
    """
    if not isinstance(obj, dict):
        raise RecordError(f"a record is a JSON object, not {_kind(obj)}")
    if "format" not in obj:
        raise RecordError(f"missing field 'format' (expected {FORMAT!r}): not a deal record")
    fmt = _str(obj["format"], "format")
    if fmt != FORMAT:
        if fmt.startswith("gongzhu-deal/"):
            raise RecordError(f"unknown format version {excerpt(fmt)}: this reader knows {FORMAT!r}",
                              field="format")
        raise RecordError(f"{excerpt(fmt)} is not a deal record format: expected {FORMAT!r}",
                          field="format")
    for key in FIELDS:
        if key not in obj:
            raise RecordError(f"missing field {key!r}")
    match = _str(obj["match"], "match")
    if not match:
        raise RecordError("must not be empty", field="match")
    deal_index = _int(obj["deal_index"], "deal_index")
    if deal_index < 0:
        raise RecordError(f"{deal_index} is negative: deals count from 0", field="deal_index")
    preset = obj["preset"]
    if preset is not None:
        preset = _str(preset, "preset")
    options = _options(obj["options"])
    seed = obj["seed"]
    if seed is not None:
        seed = _int(seed, "seed")
    first_receiver = _seat(obj["first_receiver"], "first_receiver")
    if deal_index == 0 and first_receiver != Seat.N:
        raise RecordError(
            f"{SEATS[first_receiver]}, but the first deal of a match (deal_index 0) is dealt first "
            "to N (R3)",
            field="first_receiver",
        )
    hands = _hands(obj["hands"], options)
    exposures = _exposures(obj["exposures"])
    tricks = _tricks(obj["tricks"], options)
    raw = _scores(obj["raw"], "raw")
    final = _scores(obj["final"], "final")
    extra = tuple((k, obj[k]) for k in obj if k not in FIELDS)
    return DealRecord(
        match=match,
        deal_index=deal_index,
        preset=preset,
        options=options,
        seed=seed,
        first_receiver=first_receiver,
        hands=(hands[0], hands[1], hands[2], hands[3]),
        exposures=exposures,
        tricks=tricks,
        raw=raw,
        final=final,
        extra=extra,
    )

