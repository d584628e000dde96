"""Networks of one shape averaged, weight by weight, into one network of that shape.

Several networks trained further from the same network (each with its own ``--seed``: its own
held-out deals, order of the data and dropout) end near each other; the mean of their weights is a
network of the same size and speed that often ranks actions better than any one of them, where an
ensemble of them would cost a pass of each::

    python -m gongzhu.learning.average A.npz B.npz C.npz D.npz --out averaged.npz

The networks must have the same layers of the same shapes and their values the same scale. The
averaged network keeps the first one's metadata (its value weight among it), and records under
``trained`` what each of the averaged networks was trained on.

Imports numpy and the players' network module; no PyTorch.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gongzhu.players.network import Network, NetworkError

__all__ = ["average", "main"]


def average(networks: Sequence[Network]) -> Network:
    """The weight-by-weight mean of ``networks``; :class:`NetworkError` if they differ in shape
    or in the scale of their values."""
    if not networks:
        raise NetworkError("no networks to average")
    each = [n.to_arrays() for n in networks]
    shapes = {k: v.shape for k, v in each[0].items() if k != "meta"}
    for k, (other, arrays) in enumerate(zip(networks[1:], each[1:], strict=True), start=2):
        theirs = {key: v.shape for key, v in arrays.items() if key != "meta"}
        if theirs != shapes:
            differ = sorted(key for key in shapes.keys() | theirs.keys() if shapes.get(key) != theirs.get(key))
            raise NetworkError(f"network {k} is not the shape of the first: "
                               + ", ".join(f"{key} {theirs.get(key)} against {shapes.get(key)}" for key in differ))
        if other.value_scale != networks[0].value_scale:
            raise NetworkError(f"network {k}'s values are in units of {other.value_scale:g} points, "
                               f"the first's in {networks[0].value_scale:g}")
    mean: dict[str, npt.NDArray[Any]] = {
        key: np.mean([a[key].astype(np.float64) for a in each], axis=0).astype(np.float32) for key in shapes}
    mean["meta"] = each[0]["meta"]
    trained = {"averaged": [n.meta.get("trained", {}) for n in networks]}
    return replace(Network.from_arrays(mean), meta={**networks[0].meta, "trained": trained})


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m gongzhu.learning.average",
                                description="Average networks of one shape, weight by weight, into one.")
    p.add_argument("networks", type=Path, nargs="+", help="weights files (.npz) of networks of one shape")
    p.add_argument("--out", type=Path, required=True, help="the weights file to write")
    a = p.parse_args(argv)
    if len(a.networks) < 2:
        p.error("give at least two networks to average")
    try:
        networks = [Network.load(path) for path in a.networks]
        averaged = average(networks)
    except NetworkError as e:
        p.error(str(e))
    try:
        averaged.save(a.out)
    except OSError as e:
        p.error(f"--out: {e}")
    print(f"{averaged.parameters} parameters, the mean of {len(networks)} networks: {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
