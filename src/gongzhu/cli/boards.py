"""``gongzhu boards``: the boards of duplicate play (复式, R8.1), made and checked from a seed.

``gongzhu boards make`` makes a set of boards for a preset (and ``--set`` overrides) and prints
its definition and commitment, which an organiser publishes before play; the seed, which deals
every board, stays secret until every table has played (``--seed-out FILE`` keeps a fresh one in
a new file, ``--reveal`` prints it).  ``gongzhu boards verify`` takes the published definition and
commitment and the revealed seed, checks that they agree and prints every board: its hands and
its first leader.

Exit statuses: 0 when it is done (verify: the commitment matches); 1 when the commitment does not
match; 2 on malformed input (an unknown preset or option, a bad count, seed, definition or
commitment, a file that cannot be read).  See :mod:`gongzhu.rules.boards`.
"""

from __future__ import annotations

import argparse
import codecs
import json
import os
import sys
from typing import Any

from gongzhu.jsontext import JSONTextError, decode_utf8, loads_strict
from gongzhu.rules.boards import BoardSet, make_board_set, verify_board_set
from gongzhu.rules.cards import Card, Seat
from gongzhu.rules.errors import BoardError, CommitmentError, GongzhuError
from gongzhu.rules.options import parse_option_assignment, resolve_options

__all__ = ["MAX_DEFINITION_BYTES", "board_set_json", "boards_text", "register", "run"]

#: The largest definition read, in bytes (a definition is a few hundred bytes).
MAX_DEFINITION_BYTES = 1 << 16


class _InputError(Exception):
    """Input that cannot be read: the message says why (exit status 2)."""


def register(subparsers: Any) -> None:
    """Add the ``boards`` sub-command to the ``gongzhu`` parser (cli/main.py)."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "boards",
        help="make and verify the boards of duplicate play (复式), dealt from a secret seed",
        description="Boards of duplicate play (R8.1): numbered deals that give every table the same "
        "hands and first leader. 'make' prints a set's definition and commitment, to publish before "
        "play; 'verify' checks the revealed seed against them and prints every board.",
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    make = actions.add_parser(
        "make",
        help="make a set of boards: print its definition and commitment",
        description="Make COUNT boards numbered from FIRST for a preset (R9) and options (R10); print "
        "the definition and the commitment (SHA-256 of the seed and the definition) to publish before "
        "play. The seed deals every board: keep it secret until every table has played.",
    )
    make.add_argument("--preset", default="online", help="rule preset (R9), default online")
    make.add_argument(
        "--set",
        dest="set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one option of R10 on top of the preset (repeatable)",
    )
    make.add_argument("--count", type=int, default=16, help="how many boards (1 to 64, default 16: one 盘)")
    make.add_argument("--first", type=int, default=1, help="the first board's number (default 1)")
    make.add_argument("--event", default=None, help="the event's id, written into the definition")
    make.add_argument(
        "--seed", default=None, help="the secret seed (1 to 128 of A-Z a-z 0-9 . _ -; default: 128 fresh random bits)"
    )
    make.add_argument(
        "--seed-out", default=None, metavar="FILE", help="write the seed into FILE, a new file only you can read"
    )
    make.add_argument(
        "--reveal", action="store_true", help="print the seed too: publishing it reveals every board's hands"
    )
    make.add_argument("--json", action="store_true", help="print the set as JSON")
    make.set_defaults(run=run)
    verify = actions.add_parser(
        "verify",
        help="check a revealed seed against the published definition and commitment; print the boards",
        description="Check that SEED and the definition give the published commitment, then print every "
        "board's hands and first leader. Exit 0 when it matches, 1 when it does not, 2 on malformed input.",
    )
    verify.add_argument("--seed", required=True, help="the revealed seed")
    verify.add_argument("--commitment", required=True, help="the published commitment (64 hexadecimal digits)")
    source = verify.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--definition",
        metavar="FILE",
        help="the published definition, a JSON file ('-' = stdin); the output of make --json also",
    )
    source.add_argument("--definition-json", metavar="TEXT", help="the published definition as JSON text")
    verify.add_argument("--ascii", action="store_true", help="write cards as QS, TC instead of ♠Q, ♣10")
    verify.add_argument("--json", action="store_true", help="print the boards as JSON")
    verify.set_defaults(run=run)


# ---------------------------------------------------------------------------------- output


def _sorted(cards: tuple[Card, ...]) -> list[Card]:
    """A hand as it is read: by suit (♠ ♥ ♣ ♦), high cards first."""
    return sorted(cards, key=lambda c: (c.suit, -c.rank))


def board_set_json(boards: BoardSet, *, with_boards: bool) -> dict[str, Any]:
    """The set as JSON: its definition and commitment, and with ``with_boards`` its seed and every
    board (number, first receiver, first leader, its own seed, the hands in the order received)."""
    out: dict[str, Any] = {"definition": boards.definition, "commitment": boards.commitment}
    if with_boards:
        options = boards.options
        out["seed"] = boards.seed
        out["boards"] = [
            {
                "number": b.number,
                "first_receiver": b.first_receiver.name,
                "leader": b.first_leader(options).name,
                "seed": b.seed,
                "hands": {seat.name: [c.code for c in b.hands[seat]] for seat in Seat},
            }
            for b in boards.boards
        ]
    return out


def _summary(boards: BoardSet) -> str:
    d = boards.definition
    last = d["first"] + d["count"] - 1
    numbers = f"board {d['first']}" if d["count"] == 1 else f"boards {d['first']}–{last}"
    parts = [numbers, "one deck" if d["decks"] == 1 else "two decks"]
    if d["event"] is not None:
        parts.insert(0, f"event {d['event']}")
    if d["preset"] is not None:
        parts.append(f"preset {d['preset']}")
    return ", ".join(parts)


def boards_text(boards: BoardSet, *, ascii_cards: bool = False) -> str:
    """Every board of the set as text: number, first receiver, first leader and the four hands."""
    options = boards.options
    lead = options.first_lead_card
    lines = []
    for b in boards.boards:
        leader = b.first_leader(options)
        how = "received the first" if b.decks == 2 else "holds"
        card = lead.code if ascii_cards else lead.pretty
        lines.append(
            f"Board {b.number} (第{b.number}副牌): dealt counter-clockwise from "
            f"{b.first_receiver.english}; {leader.english} {how} {card} and leads"
        )
        for seat in Seat:
            cards = " ".join(c.code if ascii_cards else c.pretty for c in _sorted(b.hands[seat]))
            lines.append(f"  {seat.name}  {cards}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------- make


def _write_seed(path: str, seed: str) -> None:
    """The seed into a new file that only its owner may read."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise _InputError(f"--seed-out {path}: the file exists; the seed goes into a new file") from None
    except OSError as e:
        raise _InputError(f"--seed-out {path}: {e.strerror or e}") from None
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(seed + "\n")


def _make(args: argparse.Namespace) -> int:
    options = resolve_options(args.preset, dict(parse_option_assignment(s) for s in args.set))
    # the boards' own checks (--count, --first) first: each refusal names what is wrong
    boards = make_board_set(options, args.count, seed=args.seed, first=args.first, event=args.event, preset=args.preset)
    if args.seed is None and args.seed_out is None and not args.reveal:
        raise _InputError(
            "a fresh seed must be kept to open the commitment later: give --seed-out FILE "
            "(kept secret), --reveal (printed) or --seed S (your own)"
        )
    if args.seed_out is not None:
        _write_seed(args.seed_out, boards.seed)
    if args.json:
        out = board_set_json(boards, with_boards=False)
        if args.reveal:
            out["seed"] = boards.seed
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    print(_summary(boards))
    print(f"definition: {json.dumps(boards.definition, ensure_ascii=False, sort_keys=True, separators=(',', ':'))}")
    print(f"commitment: {boards.commitment}")
    if args.reveal:
        print(f"seed: {boards.seed}")
        print("Publishing the seed reveals every board's hands: publish it only after every table has played.")
    else:
        kept = f" (kept in {args.seed_out})" if args.seed_out is not None else ""
        print(
            f"Publish the definition and the commitment before play; keep the seed{kept} secret until every "
            "table has played, then publish it for gongzhu boards verify."
        )
    return 0


# ---------------------------------------------------------------------------------- verify


def _read_definition(args: argparse.Namespace) -> Any:
    """The definition as a JSON value, from --definition-json or --definition FILE."""
    if args.definition_json is not None:
        text, name = args.definition_json, "--definition-json"
    else:
        name = "stdin" if args.definition == "-" else args.definition
        try:
            if args.definition == "-":
                if sys.stdin is None:
                    raise _InputError("cannot read stdin: standard input is closed")
                data = getattr(sys.stdin, "buffer", sys.stdin).read(MAX_DEFINITION_BYTES + 1)
            else:
                with open(args.definition, "rb") as f:
                    data = f.read(MAX_DEFINITION_BYTES + 1)
        except OSError as e:
            raise _InputError(f"cannot read {name}: {e.strerror or e}") from None
        if len(data) > MAX_DEFINITION_BYTES:
            raise _InputError(f"{name} has more than {MAX_DEFINITION_BYTES} bytes: a definition is a few hundred")
        if isinstance(data, bytes):
            try:
                text = decode_utf8(data.removeprefix(codecs.BOM_UTF8))
            except JSONTextError as e:
                raise _InputError(f"{name}: {e}") from None
        else:
            text = data.removeprefix("\ufeff")
    try:
        value = loads_strict(text)
    except JSONTextError as e:
        raise _InputError(f"{name} is not valid JSON: {e}") from None
    if isinstance(value, dict) and "format" not in value and "definition" in value:
        return value["definition"]  # the output of gongzhu boards make --json
    return value


def _verify(args: argparse.Namespace) -> int:
    definition = _read_definition(args)
    if not isinstance(definition, dict):
        raise BoardError("a board set's definition is a JSON object")
    boards = verify_board_set(args.seed, definition, args.commitment)
    if args.json:
        print(json.dumps({"match": True, **board_set_json(boards, with_boards=True)}, ensure_ascii=False, indent=2))
        return 0
    print(f"The commitment matches: {boards.commitment}")
    print(_summary(boards))
    print(boards_text(boards, ascii_cards=args.ascii))
    return 0


def run(args: argparse.Namespace) -> int:
    """``make`` or ``verify``; the exit status (0 done, 1 the commitment does not match, 2 malformed input)."""
    name = f"gongzhu boards {args.action}"
    try:
        return _make(args) if args.action == "make" else _verify(args)
    except CommitmentError as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 1
    except (GongzhuError, _InputError) as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 2
