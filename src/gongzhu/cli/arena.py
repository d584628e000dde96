"""``gongzhu arena``: computer players play seeded deals against each other and are measured.

Four level names sit at N, E, S, W; with ``--duplicate`` each deal is played in all four seat
rotations.  The report gives per player type the mean raw (R6) and final (R7) points per deal
with 95% confidence intervals across deals, first/last rates and think times, then the
head-to-head difference of the first listed type against each other type (and per team for
partnership scoring).  docs/arena.md describes the method and the ``--json`` schema.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import IO, Any

from gongzhu.arena.run import ArenaConfig, ArenaError, run_arena
from gongzhu.arena.stats import Tally
from gongzhu.players.registry import LEVELS, RESEARCH_LEVELS, arena_levels
from gongzhu.records.format import dump_record
from gongzhu.rules.errors import GongzhuError
from gongzhu.rules.options import parse_option_assignment, resolve_options

__all__ = ["Progress", "format_report", "parse_players", "register", "run"]


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "arena",
        help="computer players play seeded deals against each other; means with 95%% CIs",
        description="Four computer players (level names, seats N,E,S,W on the first deal, one seat on "
        "with each deal after) play seeded deals; "
        "the report gives per player type the mean raw and final points per deal with 95% "
        "confidence intervals across deals, first/last rates, think times, and head-to-head "
        "differences. --duplicate plays every deal in all four seat rotations.",
    )
    p.add_argument("--players", required=True, metavar="L,L,L,L",
                   help=f"four level names, e.g. random,random,random,random; they sit N,E,S,W on deal 0 "
                   f"and move one seat on with each deal (deal i: the k-th listed sits in seat (k + i) mod 4; "
                   f"--duplicate: every rotation of every deal), so every level plays every seat "
                   f"(levels: {', '.join(LEVELS)}; research variants: "
                   f"{', '.join(RESEARCH_LEVELS)})")
    p.add_argument("--preset", default="online", help="rule preset (R9), default online")
    p.add_argument("--set", dest="set", action="append", default=[], metavar="KEY=VALUE",
                   help="override one option of R10 on top of the preset (repeatable)")
    p.add_argument("--deals", type=int, required=True, help="number of deals")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and the players")
    p.add_argument("--duplicate", action="store_true",
                   help="play every deal in all four seat rotations (same cards, every seat)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--think", type=float, default=None, metavar="SECONDS",
                   help="think time per decision for searching levels, at most 60 (default: the level's own)")
    p.add_argument("--iterations", type=int, default=None, metavar="K",
                   help="fixed search budget per decision for searching levels (reproducible results)")
    p.add_argument("--out", default=None, metavar="FILE.jsonl",
                   help="also write every game as a deal record (R11), one per line")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress line on stderr")
    p.set_defaults(run=run)


def parse_players(text: str) -> tuple[str, str, str, str]:
    """``"a,b,c,d"`` as four known level names; raises :class:`ArenaError` saying what is wrong."""
    names = [n.strip() for n in text.split(",")]
    if len(names) != 4 or not all(names):
        raise ArenaError(f"--players needs exactly four level names separated by commas "
                         f"(N,E,S,W), got {text!r}")
    known = arena_levels()
    for n in names:
        if n not in known:
            raise ArenaError(f"unknown level {n!r}: choose one of {', '.join(known)}")
    return names[0], names[1], names[2], names[3]


class Progress:
    """A progress line on a stream: rewritten in place on a terminal, else a line now and
    then (every ``every`` seconds) and one at the end."""

    def __init__(self, total: int, stream: IO[str], *, enabled: bool = True, every: float = 10.0) -> None:
        self.total = total
        self.stream = stream
        self.enabled = enabled
        self.tty = enabled and stream.isatty()
        self.every = every
        self.start = time.perf_counter()
        self._last = self.start

    def line(self, done: int) -> str:
        elapsed = time.perf_counter() - self.start
        text = f"arena: {done}/{self.total} deals, {_duration(elapsed)} elapsed"
        if 0 < done < self.total:
            text += f", ETA {_duration(elapsed / done * (self.total - done))}"
        return text

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if self.tty:
            if done == self.total or now - self._last >= 0.1:
                self.stream.write("\r" + self.line(done) + "\x1b[K")
                self.stream.flush()
                self._last = now
        elif done == self.total or now - self._last >= self.every:
            self.stream.write(self.line(done) + "\n")
            self.stream.flush()
            self._last = now

    def close(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    m, s = divmod(int(seconds + 0.5), 60)
    if m < 60:
        return f"{m}m{s:02d}s"
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m"


def _num(x: float | None, digits: int = 1, sign: bool = False) -> str:
    if x is None:
        return "n/a"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def _pm(stat: dict[str, Any], digits: int = 1) -> str:
    hw = stat["half_width"]
    return f"{_num(stat['mean'], digits, sign=True)} ± {_num(hw, digits) if hw is not None else 'n/a'}"


def _ci(stat: dict[str, Any], unit: str, digits: int = 1) -> str:
    ci = stat["ci95"]
    interval = "95% CI n/a" if ci is None else f"95% CI {_num(ci[0], digits, True)} … {_num(ci[1], digits, True)}"
    return f"{_num(stat['mean'], digits, sign=True)} {unit} ({interval})"


def _verdict(h: dict[str, Any]) -> str:
    """Whether the raw head-to-head interval excludes zero, and on which side."""
    ci = h["raw"]["ci95"]
    if ci is None:
        return ""
    if ci[0] > 0:
        return f"  [{h['a']} ahead]"
    if ci[1] < 0:
        return f"  [{h['b']} ahead]"
    return "  [no clear difference]"


def format_report(report: dict[str, Any]) -> str:
    """The readable report of :meth:`Tally.report`."""
    cfg = report["config"]
    mode = "duplicate, 4 rotations" if cfg["duplicate"] else "1 rotation each"
    budget = []
    if cfg["iterations"] is not None:
        budget.append(f"iterations {cfg['iterations']}")
    if cfg["think"] is not None:
        budget.append(f"think {cfg['think']} s")
    lines = [
        f"arena: {','.join(cfg['players'])} (N,E,S,W) · preset {cfg['preset']} · "
        f"scoring {cfg['options']['scoring']} · seed {cfg['seed']}"
        + (f" · {', '.join(budget)}" if budget else ""),
        f"{report['deals']} deals ({mode}), {report['games']} games; means per deal, ± 95% CI "
        f"half-width across deals",
    ]
    if not report["complete"]:
        why = f": {report['stopped']}" if report["stopped"] else ""
        lines.append(f"INCOMPLETE: stopped after {report['deals']} of {cfg['deals']} deals{why}")
    lines.append("")
    width = max(5, *(len(t["level"]) for t in report["types"]))
    header = (f"{'level':<{width}} {'n':>6} {'raw/deal':>17} {'final/deal':>19} {'first%':>7} {'last%':>7}"
              f"   think ms p50/p95/max")
    lines += [header, "-" * len(header)]
    for t in report["types"]:
        th = t["think_ms"]
        think = "/".join(_num(th[k], 3 if th[k] is not None and th[k] < 1 else 1) for k in ("p50", "p95", "max"))
        first = 100 * t["first"]["mean"] if t["first"]["mean"] is not None else None
        last = 100 * t["last"]["mean"] if t["last"]["mean"] is not None else None
        lines.append(f"{t['level']:<{width}} {t['seat_deals']:>6} {_pm(t['raw']):>17} {_pm(t['final']):>19} "
                     f"{_num(first):>7} {_num(last):>7}   {think}")
    for t in report["types"]:
        if t["stand_ins"]:
            lines.append(f"{t['level']}: {t['stand_ins']} of {t['think_ms']['decisions']} decisions made by a stand-in "
                         "(the player failed or answered something illegal; see the log)")
    if report["head_to_head"]:
        lines.append("")
        for h in report["head_to_head"]:
            lines.append(f"{h['a']} − {h['b']}: {_ci(h['raw'], 'raw/deal')}, {_ci(h['final'], 'final/deal')}, "
                         f"n={h['raw']['n']} deals{_verdict(h)}")
    teams = report.get("teams")
    if teams:
        lines += ["", "teams (N–S and E–W; raw = the two members' raws added, final = each member's final)"]
        tw = max(4, *(len(c["key"]) for c in teams["compositions"]))
        lines.append(f"{'team':<{tw}} {'n':>6} {'raw/deal':>17} {'final/deal':>19}")
        for c in teams["compositions"]:
            lines.append(f"{c['key']:<{tw}} {c['team_deals']:>6} {_pm(c['raw']):>17} {_pm(c['final']):>19}")
        for h in teams["head_to_head"]:
            lines.append(f"{h['a']} − {h['b']}: {_ci(h['raw'], 'raw/deal')}, {_ci(h['final'], 'final/deal')}, "
                         f"n={h['raw']['n']} deals{_verdict(h)}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    try:
        players = parse_players(args.players)
        options = resolve_options(args.preset, dict(parse_option_assignment(s) for s in args.set))
        if args.jobs < 1:
            raise ArenaError(f"--jobs must be 1 or more, not {args.jobs}")
        config = ArenaConfig(players, options, args.deals, args.seed, args.duplicate, args.think,
                             args.iterations, args.preset, records=args.out is not None)
    except (ArenaError, GongzhuError) as e:
        print(f"gongzhu arena: {e}", file=sys.stderr)
        return 2
    out: IO[str] | None = None
    if args.out is not None:
        try:
            out = open(args.out, "w", encoding="utf-8", newline="\n")  # noqa: SIM115 - closed below
        except OSError as e:
            print(f"gongzhu arena: cannot write {args.out}: {e.strerror}", file=sys.stderr)
            return 2
    tally = Tally(config)
    progress = Progress(config.deals, sys.stderr, enabled=args.progress)
    start = time.perf_counter()
    stopped: str | None = None
    code = 0
    try:
        for i, games in enumerate(run_arena(config, args.jobs)):
            tally.add(i, games)
            progress.update(i + 1)
            if out is not None:
                try:
                    for g in games:
                        out.write(dump_record(g.record or {}) + "\n")
                except OSError as e:
                    stopped, code = f"cannot write {args.out}: {e.strerror}", 2
                    break
    except KeyboardInterrupt:
        stopped, code = "interrupted", 130
    except ArenaError as e:
        stopped, code = str(e), 1
    except Exception as e:  # anything else that stops the run: the finished deals are still reported
        stopped, code = f"{type(e).__name__}: {e}", 1
    finally:
        progress.close()
        if out is not None:
            try:
                out.close()
            except OSError as e:
                if stopped is None:
                    stopped, code = f"cannot write {args.out}: {e.strerror}", 2
    report = tally.report(time.perf_counter() - start, stopped)
    if stopped is not None:
        print(f"gongzhu arena: {stopped}", file=sys.stderr)
        print(f"gongzhu arena: stopped after {tally.deals} of {config.deals} deals"
              + (" (the report covers those)" if tally.deals else ""), file=sys.stderr)
        if not tally.deals:
            return code
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        print(format_report(report))
    return code
