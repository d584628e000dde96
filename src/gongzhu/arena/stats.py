"""The statistics of an arena run: means with honest 95% confidence intervals, ranks, percentiles.

The unit of independence is the deal.  Under ``--duplicate`` the four rotations of one deal are
played on the same cards, so their results are strongly correlated; treating the 4 × 4 seat
results of a deal as 16 independent samples would make every interval far too narrow.  So each
figure is first averaged *within* a deal (over a player type's seats and rotations), and the mean
and confidence interval are computed *across* deals from those per-deal values: a t interval
(Student t critical values below 30 deals, the normal 1.96 from 30 on).  A head-to-head figure
is the per-deal difference of two types' per-deal means, which cancels the luck of the cards.

:class:`Tally` takes the games of one deal at a time (in deal order) and builds the report, the
same ``dict`` that ``gongzhu arena --json`` prints (docs/arena.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from gongzhu.arena.run import ArenaConfig, GameResult

__all__ = [
    "Z95",
    "Summary",
    "Tally",
    "confidence_critical",
    "percentile",
    "rank_shares",
    "summarize",
    "t_critical",
]

#: The two-sided 95% critical value of the standard normal distribution.
Z95 = 1.959963984540054

# Two-sided 95% critical values of Student's t for 1 … 30 degrees of freedom.
_T95 = (
    12.7062047, 4.3026527, 3.1824463, 2.7764451, 2.5705818, 2.4469119, 2.3646243, 2.3060041,
    2.2621572, 2.2281389, 2.2009852, 2.1788128, 2.1603687, 2.1447867, 2.1314495, 2.1199053,
    2.1098155, 2.1009220, 2.0930241, 2.0859634, 2.0796138, 2.0738731, 2.0686576, 2.0638986,
    2.0595386, 2.0555294, 2.0518305, 2.0484071, 2.0452296, 2.0422725,
)

#: From this many deals on, intervals use the normal critical value :data:`Z95`.
NORMAL_FROM = 30


def t_critical(df: int) -> float:
    """The two-sided 95% critical value of Student's t with ``df`` degrees of freedom: a table
    up to 30, the Cornish–Fisher expansion around :data:`Z95` beyond (error below 1e-5)."""
    if df < 1:
        raise ValueError(f"Student t needs at least 1 degree of freedom, not {df}")
    if df <= len(_T95):
        return _T95[df - 1]
    z = Z95
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    return z + g1 / df + g2 / df**2 + g3 / df**3


def confidence_critical(n: int) -> float:
    """The critical value for a 95% interval of a mean of ``n`` >= 2 values: Student t with
    n − 1 degrees of freedom below :data:`NORMAL_FROM` values, the normal approximation from it."""
    if n < 2:
        raise ValueError(f"a confidence interval needs at least 2 values, not {n}")
    return Z95 if n >= NORMAL_FROM else t_critical(n - 1)


@dataclass(frozen=True, slots=True)
class Summary:
    """Mean of ``n`` per-deal values with its 95% confidence interval.

    ``sd`` is the sample standard deviation (n − 1); ``half_width`` is critical × sd / √n, and
    ``low``/``high`` the interval.  With fewer than 2 values the spread is unknown (None); with
    none the mean is None too.
    """

    n: int
    mean: float | None
    sd: float | None
    half_width: float | None

    @property
    def low(self) -> float | None:
        return None if self.mean is None or self.half_width is None else self.mean - self.half_width

    @property
    def high(self) -> float | None:
        return None if self.mean is None or self.half_width is None else self.mean + self.half_width

    def excludes_zero(self) -> bool:
        """Whether the interval lies wholly on one side of 0 (the figure "A beats B" needs)."""
        lo, hi = self.low, self.high
        return lo is not None and hi is not None and (lo > 0 or hi < 0)

    def to_dict(self, digits: int = 4) -> dict[str, Any]:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, digits)

        return {"n": self.n, "mean": r(self.mean), "ci95": [r(self.low), r(self.high)]
                if self.half_width is not None else None,
                "half_width": r(self.half_width), "sd": r(self.sd)}


def summarize(values: Sequence[float]) -> Summary:
    """:class:`Summary` of per-deal values (mean, t-based 95% CI across them)."""
    n = len(values)
    if n == 0:
        return Summary(0, None, None, None)
    mean = math.fsum(values) / n
    if n == 1:
        return Summary(1, mean, None, None)
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    return Summary(n, mean, sd, confidence_critical(n) * sd / math.sqrt(n))


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0–100) by linear interpolation between order statistics (as
    numpy's default); None for no values."""
    if not 0 <= q <= 100:
        raise ValueError(f"a percentile is between 0 and 100, not {q}")
    if not values:
        return None
    s = sorted(values)
    pos = (len(s) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def rank_shares(scores: Sequence[float]) -> tuple[list[float], list[float]]:
    """Each seat's share of finishing first and last: the seats tied for the highest score
    split 1 between them, and so do the seats tied for the lowest (all tied: 1/4 each of both)."""
    top, bottom = max(scores), min(scores)
    n_top = sum(1 for s in scores if s == top)
    n_bottom = sum(1 for s in scores if s == bottom)
    first = [1 / n_top if s == top else 0.0 for s in scores]
    last = [1 / n_bottom if s == bottom else 0.0 for s in scores]
    return first, last


def _mean(xs: Sequence[float]) -> float:
    return math.fsum(xs) / len(xs)


def _ms(x: float | None) -> float | None:
    return None if x is None else round(1000 * x, 3)


def _head_to_head(a: Sequence[float], b: Sequence[float]) -> Summary:
    return summarize([x - y for x, y in zip(a, b, strict=True)])


class Tally:
    """Collects the games of an arena run, deal by deal, and builds its report.

    Player types are the distinct level names in order of first appearance in the players
    list.  For partnership scoring (``scoring=partners``) teams N–S and E–W are tallied too,
    by composition: the two levels of a team, in type order, joined by ``+``.
    """

    def __init__(self, config: ArenaConfig) -> None:
        self.config = config
        self.types: list[str] = list(dict.fromkeys(config.players))
        self.partners = config.options.partnership
        self.deals = 0
        self.games = 0
        # Per type: per-deal means of raw, final, first share, last share.
        self._per_deal: dict[str, dict[str, list[float]]] = {
            t: {"raw": [], "final": [], "first": [], "last": []} for t in self.types
        }
        self._seat_deals = dict.fromkeys(self.types, 0)
        self._think: dict[str, list[float]] = {t: [] for t in self.types}
        self._stand_ins = dict.fromkeys(self.types, 0)
        # Per team composition (first appearance order): the deals it played and per-deal means.
        self._teams: dict[str, dict[str, list[float]]] = {}
        self._team_deals: dict[str, list[int]] = {}
        self._team_games: dict[str, int] = {}

    def _team_key(self, a: str, b: str) -> str:
        pair = sorted((a, b), key=self.types.index)
        return "+".join(pair)

    def add(self, deal: int, games: Iterable[GameResult]) -> None:
        """Add the games (rotations) of one deal."""
        slots: dict[str, dict[str, list[float]]] = {t: {"raw": [], "final": [], "first": [], "last": []}
                                                     for t in self.types}
        teams: dict[str, dict[str, list[float]]] = {}
        n_games = 0
        for g in games:
            n_games += 1
            first, last = rank_shares(g.final)
            for s, level in enumerate(g.levels):
                slot = slots[level]
                slot["raw"].append(g.raw[s])
                slot["final"].append(g.final[s])
                slot["first"].append(first[s])
                slot["last"].append(last[s])
                self._think[level].extend(g.think[s])
                self._stand_ins[level] += g.stand_ins[s]
                self._seat_deals[level] += 1
            if self.partners:
                for a, b in ((0, 2), (1, 3)):
                    key = self._team_key(g.levels[a], g.levels[b])
                    t = teams.setdefault(key, {"raw": [], "final": []})
                    t["raw"].append(g.raw[a] + g.raw[b])
                    t["final"].append((g.final[a] + g.final[b]) / 2)
                    self._team_games[key] = self._team_games.get(key, 0) + 1
        if not n_games:
            raise ValueError(f"deal {deal} has no games")
        for level, slot in slots.items():
            for what, xs in slot.items():
                self._per_deal[level][what].append(_mean(xs))
        for key, t in teams.items():
            acc = self._teams.setdefault(key, {"raw": [], "final": []})
            self._team_deals.setdefault(key, []).append(deal)
            for what in ("raw", "final"):
                acc[what].append(_mean(t[what]))
        self.deals += 1
        self.games += n_games

    def report(self, elapsed_s: float | None = None, stopped: str | None = None) -> dict[str, Any]:
        """The report as a JSON-ready ``dict`` (schema in docs/arena.md): of the deals added so
        far, which are all of the run's unless ``complete`` is false; ``stopped`` says why a run
        ended early."""
        cfg = self.config
        types = []
        for t in self.types:
            d = self._per_deal[t]
            think = self._think[t]
            types.append({
                "level": t,
                "seats": cfg.players.count(t),
                "seat_deals": self._seat_deals[t],
                "raw": summarize(d["raw"]).to_dict(),
                "final": summarize(d["final"]).to_dict(),
                "first": summarize(d["first"]).to_dict(),
                "last": summarize(d["last"]).to_dict(),
                "think_ms": {
                    "decisions": len(think),
                    "mean": _ms(_mean(think)) if think else None,
                    "p50": _ms(percentile(think, 50)),
                    "p95": _ms(percentile(think, 95)),
                    "max": _ms(max(think)) if think else None,
                },
                "stand_ins": self._stand_ins[t],
            })
        a = self.types[0]
        h2h = [
            {
                "a": a,
                "b": b,
                "raw": _head_to_head(self._per_deal[a]["raw"], self._per_deal[b]["raw"]).to_dict(),
                "final": _head_to_head(self._per_deal[a]["final"], self._per_deal[b]["final"]).to_dict(),
            }
            for b in self.types[1:]
        ]
        out: dict[str, Any] = {
            "format": "gongzhu-arena/1",
            "config": cfg.to_dict(),
            "deals": self.deals,
            "games": self.games,
            "complete": self.deals == cfg.deals,
            "stopped": stopped,
            "types": types,
            "head_to_head": h2h,
            "teams": self._team_report() if self.partners else None,
            "elapsed_s": None if elapsed_s is None else round(elapsed_s, 3),
        }
        return out

    def _team_report(self) -> dict[str, Any]:
        keys = list(self._teams)
        compositions = [
            {
                "team": key.split("+"),
                "key": key,
                "team_deals": self._team_games[key],
                "raw": summarize(self._teams[key]["raw"]).to_dict(),
                "final": summarize(self._teams[key]["final"]).to_dict(),
            }
            for key in keys
        ]
        h2h = []
        if keys:
            a = keys[0]
            for b in keys[1:]:
                common = set(self._team_deals[a]) & set(self._team_deals[b])
                xa = [v for d, v in zip(self._team_deals[a], self._teams[a]["raw"], strict=True) if d in common]
                xb = [v for d, v in zip(self._team_deals[b], self._teams[b]["raw"], strict=True) if d in common]
                fa = [v for d, v in zip(self._team_deals[a], self._teams[a]["final"], strict=True) if d in common]
                fb = [v for d, v in zip(self._team_deals[b], self._teams[b]["final"], strict=True) if d in common]
                h2h.append({"a": a, "b": b, "raw": _head_to_head(xa, xb).to_dict(),
                            "final": _head_to_head(fa, fb).to_dict()})
        return {"compositions": compositions, "head_to_head": h2h}
