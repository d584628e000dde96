"""``gongzhu replay FILE``: re-check a file of deal records (R11) and show them trick by trick.

Every record is replayed through the rules engine (:mod:`gongzhu.records.replay`): every play
must be legal, every trick winner and every score right, and every later deal of a match must be
dealt first to and led by the previous deal's pig-taker (R3, R5.1).  Exit status: 0 when all
records check out, 1 at the first bad record (its line, match and deal_index and the reason go to
stderr) or when there is no record at all, 2 when the file cannot be read (missing, a directory,
unreadable, a line that is not UTF-8 or longer than 1 MiB).  Every error is one line on stderr.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gongzhu.cli.records import no_records, read_failure, records_source
from gongzhu.cli.text import LANGS, cards_text, event_text, kind_text, plain, seat_text, t
from gongzhu.messages import render
from gongzhu.records.format import RecordError
from gongzhu.records.read import load_records
from gongzhu.records.replay import CheckedDeal, check_records
from gongzhu.rules.cards import Card, Seat

__all__ = ["format_deal", "register", "run"]

def _w(key: str, lang: str, **fields: object) -> str:
    """The catalog's phrase ``term.replay.<key>`` in ``lang``."""
    return render(f"term.replay.{key}", lang, fields)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "replay",
        help="re-check a file of deal records (JSON Lines) and show it trick by trick",
        description="Replay every gongzhu-deal/1 record (R11) of FILE through the rules: every "
        "play legal, every winner and score right, every later deal led by the previous "
        "pig-taker. Exit 0 if all records check out, 1 at the first bad record or if FILE holds "
        "none, 2 if FILE cannot be read (missing, not UTF-8, a line over 1 MiB).",
    )
    p.add_argument("file", metavar="FILE", help="JSON Lines file of deal records; - reads stdin")
    p.add_argument("--lang", choices=LANGS, default="en",
                   help="language of the account (default en)")
    p.add_argument("--quiet", action="store_true", help="print only the summary")
    p.add_argument("--check-seed", action="store_true",
                   help="also check that each record's seed deals its hands with this engine's dealer (R3)")
    p.add_argument("--match-seed", type=int, metavar="S",
                   help="the match's seed, revealed when it ended: each deal's seed must be the one S gives it "
                        "(implies --check-seed)")
    p.add_argument("--commitment", metavar="HEX",
                   help="the commitment published when the match started: S and the records' options must "
                        "hash to it (needs --match-seed)")
    p.set_defaults(run=run)


def _sorted_hand(cards: tuple[Card, ...]) -> list[Card]:
    """Grouped by suit (♠ ♥ ♣ ♦), high to low."""
    return sorted(cards, key=lambda c: (c.suit, -c.rank))


def _seat_scores(values: tuple[int, int, int, int], lang: str) -> str:
    return "  ".join(f"{seat_text(s, lang)} {values[s]:+d}" if values[s] else
                     f"{seat_text(s, lang)} 0" for s in Seat)


def format_deal(checked: CheckedDeal, lang: str = "en") -> list[str]:
    """A readable account of one checked deal: hands, exposures, every trick, scores."""
    rec, deal = checked.record, checked.deal
    sep = "：" if lang == "zh" else ": "
    comma = "，" if lang == "zh" else ", "
    out = [_w("header", lang, deal=t("deal", lang, n=rec.deal_index + 1), match=plain(rec.match),
              line=checked.line, preset=plain(rec.preset) if rec.preset is not None else "-")]
    for s in Seat:
        out.append(f"  {seat_text(s, lang)}{sep}{cards_text(_sorted_hand(rec.hands[s]), lang)}")
    if deal.exposures:
        shown = comma.join(
            f"{seat_text(e.seat, lang)} {e.card.pretty} ({kind_text(e.kind, lang)})"
            for e in deal.exposures
        )
    else:
        shown = t("no_exposures", lang)
    out.append(f"  {t('exposures', lang)}{sep}{shown}")
    for i, trick in enumerate(deal.tricks, start=1):
        plays = comma.join(f"{seat_text(s, lang)} {cards_text(p, lang)}" for s, p in trick.plays)
        leads = t("leads", lang, seat=seat_text(trick.leader, lang))
        wins = t("wins", lang, seat=seat_text(trick.winner, lang))
        line = f"  {t('trick', lang, n=i)}{sep}{leads} — {plays} → {wins}"
        if trick.taker != trick.winner:
            line += f"{comma}{t('takes', lang, seat=seat_text(trick.taker, lang))}"
        out.append(line)
    score = deal.score
    taken = comma.join(
        f"{seat_text(s, lang)} {cards_text(_sorted_hand(tuple(deal.captured(s))), lang)}"
        for s in Seat
    )
    out.append(f"  {t('captured', lang)}{sep}{taken}")
    out.append(f"  {t('raw', lang)}{sep}{_seat_scores(score.raw, lang)}")
    out.append(f"  {t('final', lang)}{sep}{_seat_scores(score.final, lang)}")
    events = comma.join(f"{seat_text(s, lang)} {event_text(e, lang)}" for s, e in score.events)
    out.append(f"  {_w('events', lang)}{sep}{events or _w('none', lang)}")
    return out


def run(args: argparse.Namespace) -> int:
    lang: str = args.lang
    name: str = args.file
    source = records_source("replay", name)
    if source is None:
        return 2
    if args.commitment is not None and args.match_seed is None:
        print("gongzhu replay: --commitment needs --match-seed, the seed it commits to", file=sys.stderr)
        return 2
    deals = 0
    matches: set[str] = set()
    try:
        for checked in check_records(load_records(source), check_seed=args.check_seed, match_seed=args.match_seed,
                                     commitment=args.commitment):
            deals += 1
            matches.add(checked.record.match)
            if not args.quiet:
                print("\n".join(format_deal(checked, lang)))
                print()
    except (RecordError, OSError) as e:
        return read_failure("replay", name, e)
    if deals == 0:
        return no_records("replay", name)
    print(_w("summary", lang, deals=deals, matches=len(matches), ok=t("ok", lang)))
    return 0
