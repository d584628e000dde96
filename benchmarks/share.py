"""One level's margin over an opponent as a share of another level's, on the same deals.

    python benchmarks/share.py A.jsonl B.jsonl [--opponent intermediate] [--target 0.9] [--json]

A.jsonl and B.jsonl are the deal records of two duplicate arena runs on the same deals (the same
``--seed``, ``--preset`` and number of deals; ``gongzhu arena ... --duplicate --out FILE.jsonl``),
each with one level against three seats of the opponent: say the learned level in A, the expert in
B. A deal is its seed and its hands, whatever its rotation. Per deal, a level's margin is its mean
raw points (R6) over the deal's rotations minus the opponent seats' mean, as the arena's
head-to-head figure counts it. On the deals both runs played:

- each level's mean margin with its 95% confidence interval (the arena's own figures);
- the share, A's mean margin over B's, with a 95% interval by the delta method (the two margins
  are measured on the same deals, so their covariance counts);
- A's margin minus ``--target`` times B's, per deal, with its 95% interval: where the interval
  lies above zero, A reaches that share of B's margin on these deals; where it holds zero, the
  deals cannot tell.

This is arithmetic on finished runs, not a timing: it reports numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

from gongzhu.arena.stats import confidence_critical, summarize
from gongzhu.records.read import load_records


def deal_key(record: dict[str, Any]) -> str:
    """What makes two records the same deal: the deal's seed and the hands it dealt."""
    return json.dumps([record.get("seed"), record["hands"]], sort_keys=True)


def margins(path: Path, opponent: str) -> tuple[str, dict[str, float]]:
    """The level other than ``opponent`` in the run's records, and its margin per deal."""
    seats: dict[str, dict[str, list[float]]] = defaultdict(lambda: {"level": [], "opponent": []})
    levels: set[str] = set()
    for _, record in load_records(path):
        players, raw, slot = record["players"], record["raw"], seats[deal_key(record)]
        for seat, level in players.items():
            if level == opponent:
                slot["opponent"].append(raw[seat])
            else:
                levels.add(level)
                slot["level"].append(raw[seat])
    if len(levels) != 1:
        raise SystemExit(f"{path}: expected one level against {opponent!r}, found {sorted(levels) or 'none'}")
    out = {}
    for deal, s in seats.items():
        if not s["level"] or not s["opponent"]:
            raise SystemExit(f"{path}: deal {deal} lacks the level or the opponent")
        out[deal] = math.fsum(s["level"]) / len(s["level"]) - math.fsum(s["opponent"]) / len(s["opponent"])
    return levels.pop(), out


def share(a: list[float], b: list[float]) -> tuple[float, float, float]:
    """mean(a) / mean(b) and its 95% interval by the delta method (paired samples)."""
    n = len(a)
    ma, mb = math.fsum(a) / n, math.fsum(b) / n
    r = ma / mb
    va = math.fsum((x - ma) ** 2 for x in a) / (n - 1)
    vb = math.fsum((y - mb) ** 2 for y in b) / (n - 1)
    cov = math.fsum((x - ma) * (y - mb) for x, y in zip(a, b, strict=True)) / (n - 1)
    se = math.sqrt(max(va - 2 * r * cov + r * r * vb, 0.0) / n) / abs(mb)
    half = confidence_critical(n) * se
    return r, r - half, r + half


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", type=Path, help="deal records of the run whose share is asked (A)")
    ap.add_argument("b", type=Path, help="deal records of the run it is a share of (B), on the same deals")
    ap.add_argument("--opponent", default="intermediate", help="the level both runs played against")
    ap.add_argument("--target", type=float, default=0.9, help="the share to test A's margin against")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    level_a, ma = margins(args.a, args.opponent)
    level_b, mb = margins(args.b, args.opponent)
    deals = [d for d in ma if d in mb]
    if len(deals) < 2:
        raise SystemExit("the two runs share fewer than two deals: run them with the same seed and preset")
    a, b = [ma[d] for d in deals], [mb[d] for d in deals]
    r, lo, hi = share(a, b)
    gap = summarize([x - args.target * y for x, y in zip(a, b, strict=True)])
    report = {
        "deals": len(deals), "opponent": args.opponent,
        "a": {"level": level_a, "margin": summarize(a).to_dict()},
        "b": {"level": level_b, "margin": summarize(b).to_dict()},
        "share": {"mean": round(r, 4), "ci95": [round(lo, 4), round(hi, 4)]},
        "target": args.target,
        "a_minus_target_b": gap.to_dict(),
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    sa, sb = report["a"]["margin"], report["b"]["margin"]
    print(f"{len(deals)} deals, each level against three {args.opponent} seats, raw points a deal (95% CI)")
    print(f"  {level_a:<14} {sa['mean']:+.1f} ({sa['ci95'][0]:+.1f} … {sa['ci95'][1]:+.1f})")
    print(f"  {level_b:<14} {sb['mean']:+.1f} ({sb['ci95'][0]:+.1f} … {sb['ci95'][1]:+.1f})")
    print(f"  share {level_a} / {level_b}: {r:.1%} ({lo:.1%} … {hi:.1%})")
    g = report["a_minus_target_b"]
    print(f"  {level_a} − {args.target:g} × {level_b}: {g['mean']:+.1f} ({g['ci95'][0]:+.1f} … {g['ci95'][1]:+.1f})")


if __name__ == "__main__":
    main()
