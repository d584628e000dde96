"""``gongzhu selfplay``: random players play whole matches; one deal record per line (R11).

Matches follow R8: each ends by ``match_end`` and the next one starts, until the requested number
of deals has been played.  The same seed writes a byte-identical file.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from collections.abc import Iterator
from typing import Any

from gongzhu.players.guard import safe_exposures, safe_play
from gongzhu.players.observation import observe
from gongzhu.players.random_player import RandomPlayer
from gongzhu.records.format import deal_to_record, dump_record
from gongzhu.rules.errors import GongzhuError
from gongzhu.rules.match import Match
from gongzhu.rules.options import Options, parse_option_assignment, resolve_options

__all__ = ["match_seed", "play_deals", "register", "resolve_cli_options", "run", "sub_seed"]


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "selfplay",
        help="random players play matches and write deal records (JSON Lines)",
        description="Four random players play whole matches (R8); every deal is written as one "
        "gongzhu-deal/1 record (R11). The same seed gives the same file.",
    )
    p.add_argument("--preset", default="online", help="rule preset (R9), default online")
    p.add_argument("--set", dest="set", action="append", default=[], metavar="KEY=VALUE",
                   help="override one option of R10 on top of the preset (repeatable)")
    p.add_argument("--deals", type=int, required=True, help="number of deals to play in all")
    p.add_argument("--seed", type=int, default=0, help="seed of the matches and the players")
    p.add_argument("--out", required=True, help="output file (.jsonl)")
    p.set_defaults(run=run)


def resolve_cli_options(preset: str | None, assignments: list[str]) -> Options:
    """``--preset`` and ``--set key=value`` options as one :class:`Options` (R9, R10); raises
    :class:`~gongzhu.rules.errors.OptionError` with the reason."""
    return resolve_options(preset, dict(parse_option_assignment(s) for s in assignments))


def play_deals(
    options: Options, deals: int, seed: int, preset: str | None = None
) -> Iterator[dict[str, Any]]:
    """Play ``deals`` deals in consecutive matches ``"{seed}-0"``, ``"{seed}-1"`` … (each ended
    by R8 ``match_end``), yielding each deal's record (R11) as soon as it is finished.  Every
    decision goes through :mod:`gongzhu.players.guard`, so a failing player is logged and stood
    in for rather than ending the run."""
    players = [RandomPlayer(sub_seed(seed, "player", s)) for s in range(4)]
    matches = 0
    match: Match | None = None
    for _ in range(deals):
        if match is None or match.is_over:
            match = Match(options, seed=match_seed(seed, matches), match_id=f"{seed}-{matches}")
            matches += 1
        deal = match.new_deal()
        where = f"selfplay match {match.match_id} deal {deal.deal_index}"
        for seat in deal.undeclared:
            deal.declare(seat, safe_exposures(players[seat], observe(deal, seat), where=where))
        while (turn := deal.turn) is not None:
            deal.play(safe_play(players[turn], observe(deal, turn), where=where), turn)
        match.finish_deal()
        yield deal_to_record(deal, match_id=match.match_id, preset=preset)


def sub_seed(seed: int, what: str, number: int) -> int:
    """A 63-bit seed derived from the run's seed, for the ``number``-th match or player."""
    digest = hashlib.sha256(f"gongzhu-selfplay:{seed}:{what}:{number}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def match_seed(seed: int, match_number: int) -> int:
    """The seed of one match of a run: the first match is seeded with the run's seed itself, so
    its deals are those of ``Match(options, seed)``; later matches get their own deals."""
    return seed if match_number == 0 else sub_seed(seed, "match", match_number)


def run(args: argparse.Namespace) -> int:
    if args.deals < 0:
        print("gongzhu selfplay: --deals must be 0 or more", file=sys.stderr)
        return 2
    try:
        options = resolve_cli_options(args.preset, args.set)
    except GongzhuError as e:
        print(f"gongzhu selfplay: {e}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    written = 0
    match_ids: set[str] = set()
    try:
        with open(args.out, "w", encoding="utf-8", newline="\n") as f:
            for record in play_deals(options, args.deals, args.seed, args.preset):
                f.write(dump_record(record) + "\n")
                written += 1
                match_ids.add(record["match"])
    except OSError as e:
        print(f"gongzhu selfplay: cannot write {args.out}: {e.strerror}", file=sys.stderr)
        return 2
    seconds = time.perf_counter() - start
    print(f"selfplay: {written} deals, {len(match_ids)} matches, {seconds:.2f} s -> {args.out}",
          file=sys.stderr)
    return 0
