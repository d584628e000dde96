"""Where a network loses points against the expert: its regret, decision by decision, on data.

For every decision of self-play shards (:mod:`gongzhu.learning.data`) the network's choice, ranked
as the learned level plays, is compared with the expert's values of the legal actions: its regret
is the expert's value of its best action minus its value of the network's, in raw points.  The
report groups the decisions by kind and by part of the deal
(``python -m gongzhu.learning.regret --data DIR [--network FILE] [--json]``).  This module imports
numpy, the players' features, network and learned ranking, and the data module; no PyTorch.  The
groups, the columns and what the figures mean: docs/learned.md, Where it gives up points.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gongzhu.learning.data import KINDS, DataError, kinds_of, load
from gongzhu.players.features import block_of
from gongzhu.players.learned import policy_scores
from gongzhu.players.network import Network, NetworkError, default_network

__all__ = ["KINDS", "PARTS", "Group", "kinds_of", "main", "parts_of", "regret", "report"]

#: The parts of a deal, in the order of the report, each to the share of the deal's tricks
#: finished before its last trick: 4, 9 and 13 tricks of 13.
PARTS = (("opening", 4 / 13), ("middle", 9 / 13), ("end", 1.0))


def parts_of(observations: npt.NDArray[np.float32]) -> npt.NDArray[np.int64]:
    """Each decision's index in :data:`PARTS`, from the share of the deal's tricks finished."""
    done = block_of(observations, "tricks_done")[:, 0]
    # Trick t of 13 has (t - 1) / 13 done, trick t of 26 (t - 1) / 26: the opening's last tricks
    # (4 of 13, 8 of 26) have 3 / 13 and 3.5 / 13, the middle's first 4 / 13.
    bounds = np.array([end - 0.25 / 13 for _, end in PARTS[:-1]], dtype=np.float32)
    return np.searchsorted(bounds, done).astype(np.int64)


def regret(network: Network, observations: npt.NDArray[np.float32], masks: npt.NDArray[Any],
           values: npt.NDArray[np.float32], batch: int = 4096) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """Per decision: the expert's value of its best legal action minus its value of the
    network's choice (raw points), and whether the two are the same action."""
    out = np.empty(len(observations), dtype=np.float64)
    same = np.empty(len(observations), dtype=np.bool_)
    legal_values = np.where(np.isnan(values), -np.inf, values)
    best = legal_values.max(axis=1)
    expert = legal_values.argmax(axis=1)
    for start in range(0, len(observations), batch):
        stop = start + batch
        score = policy_scores(*network.forward(observations[start:stop]), network.value_weight)
        score = np.where(masks[start:stop] > 0, score, -np.inf)
        choice = score.argmax(axis=1)
        rows = np.arange(start, min(stop, len(observations)))
        out[rows] = best[rows] - legal_values[rows, choice]
        same[rows] = choice == expert[rows]
    return out, same


@dataclass(frozen=True)
class Group:
    """One line of the report."""

    kind: str
    part: str
    decisions: int
    agreement: float
    mean_regret: float
    per_seat_deal: float


def report(network: Network, data: dict[str, npt.NDArray[Any]]) -> list[Group]:
    """The report's lines for ``data`` (:func:`gongzhu.learning.data.load`): every kind by part
    of the deal, each kind over the whole deal, and all decisions (part and kind ``"all"``)."""
    observations = np.ascontiguousarray(data["observation"], dtype=np.float32)
    values = np.asarray(data["values"], dtype=np.float32)
    loss, same = regret(network, observations, data["mask"], values)
    kinds = kinds_of(observations)
    part_of = parts_of(observations)
    seat_deals = max(1, len(np.unique(data["deal_key"] * 4 + data["seat"])))
    lines = []

    def line(kind: str, part: str, rows: npt.NDArray[np.bool_]) -> None:
        n = int(rows.sum())
        if n:
            lines.append(Group(kind, part, n, float(same[rows].mean()), float(loss[rows].mean()),
                               float(loss[rows].sum() / seat_deals)))

    for k, kind in enumerate(KINDS):
        if kind == "declare":
            line(kind, "all", kinds == k)
            continue
        for i, (part, _) in enumerate(PARTS):
            line(kind, part, (kinds == k) & (part_of == i))
        line(kind, "all", kinds == k)
    line("all", "all", np.ones(len(loss), dtype=np.bool_))
    return lines


def _table(lines: Sequence[Group]) -> str:
    rows = ["| decision | part | decisions | agreement | mean regret | regret per seat and deal |",
            "| --- | --- | ---: | ---: | ---: | ---: |"]
    for g in lines:
        rows.append(f"| {g.kind} | {g.part} | {g.decisions:,} | {g.agreement:.3f} | {g.mean_regret:.2f} | "
                    f"{g.per_seat_deal:.2f} |")
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m gongzhu.learning.regret",
                                description="A network's regret against the expert's values, by kind of decision.")
    p.add_argument("--data", type=Path, nargs="+", required=True, help="folders (or files) of .npz shards")
    p.add_argument("--network", type=Path, default=None, help="a weights file (default: the shipped network)")
    p.add_argument("--json", action="store_true", help="print the lines as JSON")
    a = p.parse_args(argv)
    try:
        network = default_network() if a.network is None else Network.load(a.network)
    except NetworkError as e:
        p.error(f"--network: {e}")
    try:
        data = load(a.data)
    except DataError as e:
        p.error(f"--data: {e}")
    lines = report(network, data)
    if a.json:
        print(json.dumps([asdict(g) for g in lines], indent=1))
    else:
        print(_table(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
