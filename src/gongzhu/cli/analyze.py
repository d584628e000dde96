"""``gongzhu analyze FILE``: review a seat's decisions in each deal of a file of R11 records.

Every record is first re-checked by replaying it (as ``gongzhu replay`` does), so a deal played
elsewhere and typed in is reviewed only once its plays are legal and its scores right.  For each
deal, :mod:`gongzhu.review` gives each decision of the seat (default South) its expected value
against the best alternative from what the seat could see, a mark (?! ≥ 10, ? ≥ 25, ?? ≥ 50
expected points), the exact open-card values in hindsight, the par of the deal, the result
split into luck and skill, and the three costliest moments.  ``--json`` writes one
``gongzhu-review/2`` object per deal as JSON Lines (docs/review.md).

Exit status: 0 when every deal was reviewed, 1 at a bad record or when the file holds none, 2
when the file cannot be read.  Progress goes to stderr when it is a terminal.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from gongzhu.cli.records import no_records, read_failure, records_source
from gongzhu.cli.text import LANGS, card_text, kind_text, plain, seat_text, t
from gongzhu.messages import render
from gongzhu.records.format import SEATS, RecordError
from gongzhu.records.read import load_records
from gongzhu.records.replay import CheckedDeal, check_records
from gongzhu.review import DEFAULT_BUDGET, Budget, Reviewer
from gongzhu.rules.cards import Seat, parse_card

__all__ = ["format_review", "register", "run"]


def _w(key: str, lang: str, **fields: object) -> str:
    """The catalog's phrase ``term.analyze.<key>`` in ``lang``."""
    return render(f"term.analyze.{key}", lang, fields)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "analyze",
        help="review a seat's decisions in each deal of a file of deal records",
        description="Review the decisions of one seat in every gongzhu-deal/1 record (R11) of FILE: "
        "the expected value of each alternative from what the seat could see (the expert's "
        "sampling), marks ?! ?, ??, exact open-card values in hindsight, the par of the deal, luck "
        "and the costliest moments. The records are re-checked first. Exit 0 if every deal was "
        "reviewed, 1 at a bad record or if FILE holds none, 2 if FILE cannot be read.",
    )
    p.add_argument("file", metavar="FILE", help="JSON Lines file of deal records; - reads stdin")
    p.add_argument("--seat", choices=SEATS, default="S", help="the seat to review (default S)")
    p.add_argument("--json", action="store_true", help="write one gongzhu-review/2 object per deal (JSON Lines)")
    p.add_argument("--lang", choices=LANGS, default="en", help="language of the account (default en)")
    budget = p.add_mutually_exclusive_group()  # a time or a number of worlds, not both
    budget.add_argument("--think", type=float, default=DEFAULT_BUDGET.think, metavar="SECONDS",
                   help=f"the expert's search time per decision, at most 60 (default {DEFAULT_BUDGET.think})")
    budget.add_argument("--worlds", type=int, default=None, metavar="N",
                   help="a fixed number of sampled worlds per decision instead of --think (reproducible with --seed)")
    p.add_argument("--par-replays", type=int, default=DEFAULT_BUDGET.par_replays, metavar="N",
                   help=f"expert replays of the deal that give its par (default {DEFAULT_BUDGET.par_replays}; 0: none)")
    p.add_argument("--exact-limit", type=int, default=DEFAULT_BUDGET.exact_limit, metavar="N",
                   help="positions the open-card solver may search per decision (default "
                   f"{DEFAULT_BUDGET.exact_limit}; 0: no limit, an early position may take minutes)")
    p.add_argument("--workers", type=int, default=2, metavar="N",
                   help="worker processes (default 2; 0 reviews in this process)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sampling (default 0)")
    p.set_defaults(run=run)


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:+.1f}"


def _cards(codes: list[Any], lang: str) -> str:
    """Played cards ("QS") or declared exposures (["AH", "shown"])."""
    if not codes:
        return _w("nothing", lang)
    out = []
    for c in codes:
        if isinstance(c, list):
            out.append(f"{card_text(parse_card(c[0]), lang)} ({kind_text(c[1], lang)})")
        else:
            out.append(card_text(parse_card(c), lang))
    return " ".join(out)


def _where(d: dict[str, Any], lang: str) -> str:
    return _w("at_exposure", lang) if d["trick"] is None else t("trick", lang, n=d["trick"])


def format_review(review: dict[str, Any], lang: str = "en") -> list[str]:
    """A readable account of one review (``gongzhu-review/2``)."""
    seat = seat_text(Seat[review["seat"]], lang)
    out = [_w("header", lang, deal=t("deal", lang, n=review["deal_index"] + 1), match=plain(review["match"]),
              seat=seat)]
    parts = {"result": _num(review["result"]), "luck": _num(review["luck"]), "skill": _num(review["skill"]),
             "deal": _num(review["luck_parts"]["deal"]), "play": _num(review["luck_parts"]["play"]),
             "loss": f"{review['loss']:.1f}"}
    if review["par"] is None:
        out.append("  " + _w("summary_no_par", lang, **parts))
    else:
        out.append("  " + _w("summary", lang, par=_num(review["par"]), replays=review["par_replays"], **parts))
    out.append("  " + _w("marks", lang))
    for d in review["decisions"]:
        where = _where(d, lang)
        cards = _cards(d["cards"], lang)
        if d["forced"]:
            line = _w("forced", lang, where=where, cards=cards)
        else:
            mark = d["mark"] or ""
            if mark and d["uncertain"]:
                mark = f"({mark})"  # inside the search's noise
            spread = "?" if d["loss_spread"] is None else f"{d['loss_spread']:.1f}"
            line = _w("decision", lang, where=where, cards=cards, mark=mark,
                      expected=_num(d["expected"]), best=_cards(d["best"], lang),
                      best_expected=_num(d["best_expected"]), loss=f"{d['loss']:.1f}", spread=spread,
                      luck=_num(d["luck"]), skill=_num(d["skill"]))
        if d["exact"] is not None:
            line += " · " + _w("hindsight", lang, exact=_num(d["exact"]), best=_num(d["exact_best"]))
            if d["hindsight_differs"] and review["hindsight"]["meaning"] == "worst_case":
                line += " · " + _w("differs_worst", lang)
            elif d["hindsight_differs"]:
                line += " · " + _w("differs", lang)
        out.append("  " + line)
    if review["moments"]:
        out.append("  " + _w("moments", lang))
        for m in review["moments"]:
            avoidable = _w("avoidable", lang, where=_where(m, lang), cards=_cards(m["cards"], lang),
                           best=_cards(m["best"], lang), loss=f"{m['loss']:.1f}")
            landed = m["landed"]
            if landed is None:
                out.append("    " + _w("moment_unlanded", lang, avoidable=avoidable))
            else:
                taken = _w("landed", lang, cards=_cards(landed["cards"], lang),
                           seat=seat_text(Seat[landed["taker"]], lang), n=landed["trick"])
                out.append("    " + _w("moment", lang, landed=taken, avoidable=avoidable))
    line = review["hindsight"]["line"]
    if line is not None:
        raw = "  ".join(f"{seat_text(Seat(i), lang)} {v:+d}" if v else f"{seat_text(Seat(i), lang)} 0"
                        for i, v in enumerate(line["raw"]))
        out.append("  " + _w("line", lang, n=line["from_trick"], raw=raw))
    else:
        out.append("  " + _w("no_line", lang))
    return out


def run(args: argparse.Namespace) -> int:
    lang: str = args.lang
    name: str = args.file
    try:
        budget = Budget(think=None if args.worlds is not None else args.think, worlds=args.worlds,
                        par_replays=args.par_replays, exact_limit=args.exact_limit)
    except ValueError as e:
        print(f"gongzhu analyze: {e}", file=sys.stderr)
        return 2
    if args.workers < 0 or args.workers > 64:
        print("gongzhu analyze: --workers must lie in 0..64", file=sys.stderr)
        return 2
    source = records_source("analyze", name)
    if source is None:
        return 2
    try:  # every record is checked before any is reviewed
        checked_deals: list[CheckedDeal] = list(check_records(load_records(source)))
    except (RecordError, OSError) as e:
        return read_failure("analyze", name, e)
    if not checked_deals:
        return no_records("analyze", name)
    seat = Seat[args.seat]
    reviewer = Reviewer(args.workers)
    tty = sys.stderr is not None and sys.stderr.isatty()
    try:
        for checked in checked_deals:
            label = t("deal", lang, n=checked.record.deal_index + 1)

            def progress(done: int, total: int, label: str = label) -> None:
                if tty:
                    print(f"\r{_w('progress', lang, deal=label, done=done, total=total)}", end="", file=sys.stderr,
                          flush=True)

            review = reviewer.review(checked.record, seat, budget=budget, seed=args.seed, progress=progress)
            if tty:
                print(file=sys.stderr)
            if args.json:
                print(json.dumps(review, ensure_ascii=False, separators=(",", ":")))
            else:
                print("\n".join(format_review(review, lang)))
                print()
    except OSError as e:  # writing the reviews failed (a closed standard output: gongzhu.cli.main)
        if isinstance(e, BrokenPipeError):
            raise
        print(f"gongzhu analyze: cannot write the reviews: {e.strerror or e}", file=sys.stderr)
        return 2
    finally:
        reviewer.close()
    return 0
