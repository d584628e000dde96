"""``gongzhu score``: the scorekeeper for a deal played with real cards at a real table.

The table writes down who took which point cards (分牌, R2) and what was exposed (亮牌, R4); this
command checks that record and scores it with :func:`gongzhu.rules.scoring.score_deal` — the
same code that scores deals played in the engine, so there is one scoring rule (R6, R6.1, R6.2,
R7).  :func:`score_input` does the work on a plain ``dict`` (the JSON input) and returns a plain
``dict`` (the ``--json`` output); :func:`run` adds reading, printing and exit codes.

Input (JSON on stdin or ``--file F``)::

    {"preset": "online", "options": {"self_catch": true},
     "captured": {"N": ["QS", "AH"], "E": [], "S": ["JD"], "W": ["TC", "..."]},
     "exposures": [{"seat": "N", "card": "QS", "kind": "shown"}],
     "hands": {"N": ["..."], "E": [], "S": [], "W": []}}

Every refusal is a :class:`ScoreInputError` whose message names the problem and the rule; the
command prints it on stderr and exits with status 2.  See ``docs/score.md``.
"""

from __future__ import annotations

import argparse
import codecs
import json
import sys
import unicodedata
from collections import Counter
from collections.abc import Mapping
from typing import Any

import msgspec

from gongzhu.cli.text import LANGS, cards_text, event_text, kind_text, seat_text, t
from gongzhu.formats import FormatError, typed
from gongzhu.formats.score import INPUT_KEYS, ScoreExposure, ScoreInput
from gongzhu.jsontext import JSONTextError, decode_utf8, loads_strict, show
from gongzhu.messages import render
from gongzhu.rules.cards import ALL_CARDS, EXPOSABLE, JD, QS, TC, Card, Seat, hand_size, parse_cards, too_many_copies
from gongzhu.rules.deal import check_declaration
from gongzhu.rules.errors import GongzhuError, excerpt
from gongzhu.rules.model import Exposure
from gongzhu.rules.options import Options, resolve_options
from gongzhu.rules.scoring import is_point_card, score_deal

__all__ = ["INPUT_KEYS", "ScoreInputError", "format_table", "register", "run", "score_input"]


#: Display order of point cards: pig, sheep, transformer, then hearts from the ace down.
_ORDER = {QS: 0, JD: 1, TC: 2}


class ScoreInputError(GongzhuError):
    """A score input that cannot be scored; the message says what is wrong and where."""


def _once(decks: int) -> str:
    return "once" if decks == 1 else "twice"


def _deck_words(decks: int) -> str:
    return "one deck" if decks == 1 else "two decks"


def _point_key(c: Card) -> tuple[int, int]:
    return (_ORDER.get(c, 3), -int(c.rank))


def _cards_of(where: str, value: str | list[str]) -> list[Card]:
    """Cards from a list of card strings (or one space-separated string), any R1 form."""
    try:
        return parse_cards(value)
    except GongzhuError as e:
        raise ScoreInputError(f"{where}: {e}") from None


def _seat_map(where: str, value: Mapping[str, str | list[str]], *, all_four: bool) -> dict[Seat, list[Card]]:
    """``{"N": [...], ...}`` -> cards per seat; seats are N, E, S, W (R1)."""
    out: dict[Seat, list[Card]] = {}
    for key, cards in value.items():
        try:
            seat = Seat.parse(key)
        except GongzhuError:
            raise ScoreInputError(
                f"{where}: unknown seat {excerpt(key)}: the seats are N, E, S, W (R1)"
            ) from None
        if seat in out:
            raise ScoreInputError(f"{where}: seat {seat.name} is given twice")
        out[seat] = _cards_of(f"{where}.{seat.name}", cards)
    if all_four:
        missing = [s.name for s in Seat if s not in out]
        if missing:
            raise ScoreInputError(
                f"{where}: missing seat(s) {', '.join(missing)}: give all four hands"
            )
    return out


def _resolve(data: ScoreInput) -> Options:
    try:
        return resolve_options(data.preset, data.options)
    except GongzhuError as e:
        raise ScoreInputError(f"$.options: {e}") from None


def _check_hands(options: Options, hands: dict[Seat, list[Card]]) -> None:
    """The hands must be a whole deal: 13 (26) cards each, every card exactly once (twice) (R1)."""
    size = hand_size(options.decks)
    for seat in Seat:
        if len(hands[seat]) != size:
            raise ScoreInputError(
                f"$.hands.{seat.name} has {len(hands[seat])} cards: with "
                f"{_deck_words(options.decks)} each hand has {size} (R1)"
            )
    extra = too_many_copies(((c, seat) for seat in Seat for c in hands[seat]), options.decks)
    if extra is not None:  # with the sizes right, no card too often is every card exactly so often
        c, places = extra
        raise ScoreInputError(
            f"$.hands: {c.code} is dealt {len(places)} times: with {_deck_words(options.decks)} "
            f"every card is dealt exactly {_once(options.decks)} (R1)"
        )


def _check_captured(options: Options, captured: dict[Seat, list[Card]]) -> None:
    """No card taken more often than it exists; every point card taken (R2, R6)."""
    decks = options.decks
    extra = too_many_copies(((c, s.name) for s in Seat for c in captured[s]), decks)
    if extra is not None:
        c, who = extra
        raise ScoreInputError(
            f"{c.code} is captured {len(who)} times (by {', '.join(who)}): with {_deck_words(decks)} "
            f"each card exists {_once(decks)} (R1)"
        )
    counts = Counter(c for cards in captured.values() for c in cards)
    missing = [c for c in ALL_CARDS if is_point_card(c) for _ in range(decks - counts[c])]
    if missing:
        missing.sort(key=_point_key)
        raise ScoreInputError(
            f"point cards missing from captured: {' '.join(c.code for c in missing)}: a deal "
            f"scores all {16 * decks} point cards (R2, R6), so say who took each of them"
        )


def _check_consistent(options: Options, captured: dict[Seat, list[Card]],
                      hands: dict[Seat, list[Card]]) -> None:
    """One deck: every trick holds one card of each hand and its point cards go to one player
    (R5.2), so a player who took k point cards dealt to the same hand took the point cards of at
    least k tricks; those tricks are different for different players and there are 13."""
    if options.decks != 1:
        return  # identical copies hide which hand a card came from
    holder = {c: s for s, h in hands.items() for c in h}
    bound: dict[Seat, int] = {}
    for seat in Seat:
        per_hand = Counter(holder[c] for c in captured[seat] if is_point_card(c))
        bound[seat] = max(per_hand.values(), default=0)
    if sum(bound.values()) > 13:
        detail = ", ".join(f"{s.name} at least {n}" for s, n in bound.items() if n)
        raise ScoreInputError(
            "captured is not consistent with hands: each trick has one card from each hand, so "
            f"the point cards taken need more than 13 tricks ({detail}; R5.2)"
        )


def _exposure(i: int, item: ScoreExposure, options: Options) -> tuple[Seat, Card, str]:
    where = f"$.exposures[{i}]"
    try:
        seat = Seat.parse(item.seat)
    except GongzhuError:
        raise ScoreInputError(
            f"{where}.seat: unknown seat {excerpt(item.seat)}: the seats are N, E, S, W (R1)"
        ) from None
    cards = _cards_of(f"{where}.card", item.card)
    if len(cards) != 1:
        raise ScoreInputError(f"{where}.card must be one card, not {show(item.card)}")
    (c,) = cards
    kind = options.usual_kind if isinstance(item.kind, msgspec.UnsetType) else item.kind
    return seat, c, kind


def _check_exposures(
    options: Options, items: list[tuple[Seat, Card, str]], hands: dict[Seat, list[Card]] | None
) -> list[tuple[Seat | None, Card, str]]:
    """Check the exposures against the options (R4.4, R4.5, R10) and the hands; return them with
    the automatic fourth (逼明) added when it applies and is not listed."""
    mode = options.exposure
    decks = options.decks
    if mode == "none" and items:
        raise ScoreInputError(
            "exposure=none: nothing can be exposed under these options (R4.4"
            + (", 猪羊一家 R7.4)" if options.pig_sheep else ")")
        )
    copies: Counter[Card] = Counter()
    declared: dict[Seat, list[tuple[Card, str]]] = {}
    for i, (seat, c, kind) in enumerate(items):
        where = f"$.exposures[{i}]"
        if kind != "auto" and options.players_declare:
            # A declaration (R4.1, R4.4): the rules core's own check, seat by seat, with the
            # hands when given (else any card up to the decks' copies, 首明 believed).
            mine = [*declared.get(seat, []), (c, kind)]
            first: Card | None
            if hands is not None:
                held, first = hands[seat].count, hands[seat][0]
            else:
                first = next((d for d, k in mine if k == "first"), None)

                def held(_: Card) -> int:
                    return decks
            try:
                check_declaration(options, seat, mine, held, first)
            except GongzhuError as e:
                raise ScoreInputError(f"{where}: {e}") from None
            declared[seat] = mine
        elif c not in EXPOSABLE:
            raise ScoreInputError(f"{where}.card: {c.code} cannot be exposed: only QS JD TC AH can (R4.1)")
        elif kind != "auto" and kind != "shown":
            raise ScoreInputError(
                f"{where}.kind: exposure kind {kind!r} ({seat.name} {c.code}) is not used under "
                f"exposure={mode}: the mandatory exposures are shown (R4.4, R10)"
            )
        copies[c] += 1
        if copies[c] > decks:
            raise ScoreInputError(
                f"{c.code} is exposed {copies[c]} times: with {_deck_words(decks)} it exists "
                f"{_once(decks)} (R4.5)"
            )

    # 逼明 (R4.4): the fourth exposable card, when three others were exposed.
    autos = [(seat, c) for seat, c, kind in items if kind == "auto"]
    chosen = {c for _, c, kind in items if kind != "auto"}
    fourth = options.auto_fourth(chosen)
    if autos:
        seat, c = autos[0]
        if not options.auto_fourth_applies:
            raise ScoreInputError(
                f"exposure kind 'auto' ({seat.name} {c.code}): the automatic fourth exposure "
                "does not apply under these options (auto_expose_fourth="
                f"{str(options.auto_expose_fourth).lower()}, decks={decks}, exposure={mode}; R4.4)"
            )
        if len(autos) > 1 or fourth is None:
            raise ScoreInputError(
                f"exposure kind 'auto' ({seat.name} {c.code}): only the fourth card is exposed "
                f"automatically, after the three others were exposed ({len(chosen)} were; R4.4)"
            )
    out: list[tuple[Seat | None, Card, str]] = [(s, c, k) for s, c, k in items]
    if not autos and fourth is not None:
        holder = None if hands is None else next(s for s in Seat if fourth in hands[s])
        out.append((holder, fourth, "auto"))

    # 分牌全明 / 除羊全明 (R4.4): mandatory exposures, every copy.
    if options.mandatory_exposure:
        for c in EXPOSABLE:
            if c not in options.mandatory_cards:
                if copies[c]:
                    raise ScoreInputError(
                        "exposure=all_but_sheep (除羊全明): JD must not be exposed (R4.4)"
                    )
            elif copies[c] != decks:
                must = "every copy of each of QS TC AH" if mode == "all_but_sheep" else \
                    "every copy of each of QS JD TC AH"
                raise ScoreInputError(
                    f"exposure={mode}: {c.code} must be exposed ({must} is exposed, R4.4), "
                    f"but it is exposed {copies[c]} time(s)"
                )

    if hands is not None:
        # The engine's exposures (mandatory, 逼明) are the holder's own cards too (R4.1).
        by_seat = Counter((s, c) for s, c, k in items if k == "auto" or not options.players_declare)
        for (who, card), n in by_seat.items():
            held_n = hands[who].count(card)
            if held_n < n:
                have = "did not hold it" if held_n == 0 else f"held only {held_n} copy"
                raise ScoreInputError(
                    f"{who.name} exposed {card.code}{'' if n == 1 else f' {n} times'} but {have} "
                    "per hands: only your own cards can be exposed (R4.1)"
                )
    return out


def score_input(data: Any) -> dict[str, Any]:
    """Check one table deal and score it (R6, R7) with :func:`~gongzhu.rules.scoring.score_deal`.

    Returns ``raw`` (R6), ``result`` (R7 before the one-deck factor: what match totals add, R10),
    ``final`` (R7 with the one-deck factor), ``events`` (满红 ``all_hearts``, 满贯
    ``grand_slam``, ``transformer_alone``, 自得 ``self_catch:<card>``), ``options`` (resolved, R10),
    and for display ``preset``, ``exposures`` (with the automatic fourth, seat ``None`` when
    no hands say who held it) and ``captured`` (the point cards each seat took).
    Raises :class:`ScoreInputError` for anything that is not a valid deal.
    """
    try:
        given_input = typed(data, ScoreInput)
    except FormatError as e:
        raise ScoreInputError(str(e)) from None
    options = _resolve(given_input)
    preset = given_input.preset
    given = _seat_map("$.captured", given_input.captured, all_four=False)
    captured = {s: given.get(s, []) for s in Seat}  # a seat left out took nothing
    _check_captured(options, captured)

    hands: dict[Seat, list[Card]] | None = None
    if not isinstance(given_input.hands, msgspec.UnsetType):
        hands = _seat_map("$.hands", given_input.hands, all_four=True)
        _check_hands(options, hands)
        _check_consistent(options, captured, hands)
    elif options.self_catch:
        raise ScoreInputError(
            "self_catch (自得, R6.1) needs the hands as dealt: "
            "add \"hands\" with each seat's 13 cards"
        )

    items = [_exposure(i, item, options) for i, item in enumerate(given_input.exposures)]
    exposures = _check_exposures(options, items, hands)

    # Scoring reads only the card and kind of an exposure (R6, R10); the seat of an automatic
    # fourth exposure is unknown without hands, so any seat serves there.
    score = score_deal(
        options,
        [captured[s] for s in Seat],
        [Exposure(s if s is not None else Seat.N, c, k) for s, c, k in exposures],
        None if hands is None else [hands[s] for s in Seat],
    )
    return {
        "raw": {s.name: score.raw[s] for s in Seat},
        "final": {s.name: score.final[s] for s in Seat},
        "result": {s.name: score.result[s] for s in Seat},
        "events": [{"seat": s.name, "event": e} for s, e in score.events],
        "options": options.to_dict(),
        "preset": preset,
        "exposures": [
            {"seat": None if s is None else s.name, "card": c.code, "kind": k}
            for s, c, k in exposures
        ],
        "captured": {
            s.name: [c.code for c in sorted(filter(is_point_card, captured[s]), key=_point_key)]
            for s in Seat
        },
    }


# ---------------------------------------------------------------------------- text output

def _w(key: str, lang: str) -> str:
    """The catalog's word ``term.score.<key>`` in ``lang``."""
    return render(f"term.score.{key}", lang)


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def _pad(text: str, width: int, right: bool = False) -> str:
    gap = " " * (width - _width(text))
    return gap + text if right else text + gap


def format_table(out: Mapping[str, Any], lang: str = "en") -> str:
    """The output of :func:`score_input` as a readable table in ``lang`` (``zh`` or ``en``)."""
    opts = out["options"]
    lines = [
        f"{_w('preset', lang)}: {out['preset']} (decks={opts['decks']}, "
        f"exposure={opts['exposure']}, scoring={opts['scoring']}, "
        f"one_deck_factor={opts['one_deck_factor']})"
    ]
    if out["exposures"]:
        shown = []
        for e in out["exposures"]:
            who = seat_text(Seat[e["seat"]], lang) if e["seat"] else _w("unknown_seat", lang) + "?"
            card = parse_cards([e["card"]])[0]
            shown.append(f"{who} {card.pretty} {kind_text(e['kind'], lang)}")
        lines.append(f"{t('exposures', lang)}: " + ("；" if lang == "zh" else "; ").join(shown))
    else:
        lines.append(t("no_exposures", lang))
    events: dict[str, list[str]] = {s.name: [] for s in Seat}
    for e in out["events"]:
        events[e["seat"]].append(event_text(e["event"], lang))
    sep = "、" if lang == "zh" else ", "
    header = [_w("seat", lang), t("raw", lang), t("result", lang), t("final", lang),
              _w("events", lang), t("captured", lang)]
    rows = [header] + [
        [
            seat_text(s, lang),
            str(out["raw"][s.name]),
            str(out["result"][s.name]),
            str(out["final"][s.name]),
            sep.join(events[s.name]) or "—",
            cards_text(parse_cards(out["captured"][s.name]), lang),
        ]
        for s in Seat
    ]
    widths = [max(_width(r[i]) for r in rows) for i in range(len(header))]
    numeric = (1, 2, 3)
    for r in rows:
        cells = [_pad(cell, widths[i], right=i in numeric and r is not header)
                 for i, cell in enumerate(r)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


# ---------------------------------------------------------------------------- command line


#: The largest input read, in bytes (a deal's score input is a few kilobytes).
MAX_INPUT_BYTES = 1 << 20


def _read(path: str | None) -> Any:
    """The JSON value of the input: bytes read as UTF-8 (a byte-order mark first is skipped),
    at most MAX_INPUT_BYTES; every problem is a one-line ScoreInputError."""
    data: bytes | str
    if path is None or path == "-":
        name = "stdin"
        if sys.stdin is None:
            raise ScoreInputError("cannot read stdin: standard input is closed")
        try:
            data = getattr(sys.stdin, "buffer", sys.stdin).read(MAX_INPUT_BYTES + 1)
        except OSError as e:
            raise ScoreInputError(f"cannot read stdin: {e.strerror or e}") from None
    else:
        name = path
        try:
            with open(path, "rb") as f:
                data = f.read(MAX_INPUT_BYTES + 1)
        except OSError as e:
            raise ScoreInputError(f"cannot read {path}: {e.strerror or e}") from None
    if len(data) > MAX_INPUT_BYTES:
        raise ScoreInputError(f"{name} has more than {MAX_INPUT_BYTES} bytes: a deal's score input is a few "
                              "kilobytes (see docs/score.md)")
    if isinstance(data, bytes):
        try:
            text = decode_utf8(data.removeprefix(codecs.BOM_UTF8))
        except JSONTextError as e:
            raise ScoreInputError(f"{name}: {e}") from None
    else:
        text = data.removeprefix("\ufeff")
    if not text.strip():
        raise ScoreInputError(
            f"no input on {name}: give the deal as a JSON object (see docs/score.md)"
        )
    try:
        return loads_strict(text, with_line=True)
    except JSONTextError as e:
        raise ScoreInputError(f"{name} is not valid JSON: {e}") from None


def register(subparsers: Any) -> None:
    """Add the ``score`` sub-command to the ``gongzhu`` parser (cli/main.py)."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "score",
        help="score a deal played with real cards (point cards taken, exposures)",
        description="Score one deal played at a real table: read JSON (captured point cards, "
        "exposures, optional hands) on stdin or from --file, check it, print the scores "
        "(docs/rules.md R6, R7). Errors exit with status 2.",
    )
    p.add_argument("--file", "-f", metavar="F",
                   help="read the JSON from F instead of stdin ('-' = stdin)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--lang", choices=LANGS, default="en", help="language of the table (default en)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Read, check, score and print one deal; 0 on success, 2 on any input error."""
    try:
        out = score_input(_read(args.file))
    except GongzhuError as e:
        print(f"gongzhu score: error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(out, ensure_ascii=False, indent=2))
    else:
        print(format_table(out, args.lang))
    return 0
