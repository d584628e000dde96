"""The learned player's policy/value network, run with numpy alone.

A small multilayer perceptron over the observation vector of :mod:`gongzhu.players.features`:
policy logits and action values (in raw points of the seat's objective) over the
:data:`N_ACTIONS` actions, and in format ``gongzhu-net/2`` a card head shared by all cards;
illegal actions are the caller's to mask.  The weights are trained with PyTorch by
:mod:`gongzhu.learning.train` and shipped as ``players/weights/learned.npz``.  This module imports
the players' encodings (and numpy and threadpoolctl).  The layers, the heads and the weights
file's arrays and metadata: docs/learned.md, The network.
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from threadpoolctl import ThreadpoolController

from gongzhu.players.features import CARD_FEATURES, N_ACTIONS, OBS_SIZE, card_features

__all__ = ["NETWORK_FORMAT", "NETWORK_FORMAT_CARDS", "Network", "NetworkError", "default_network"]

NETWORK_FORMAT = "gongzhu-net/1"
#: The format of a network with a card head.
NETWORK_FORMAT_CARDS = "gongzhu-net/2"

Array = npt.NDArray[np.float32]


class NetworkError(ValueError):
    """A weights file that is not a network of this observation and action encoding."""


@dataclass(frozen=True)
class Network:
    """The network's arrays (see the module docstring) and its metadata."""

    trunk: tuple[tuple[Array, Array], ...]
    policy: tuple[Array, Array]
    values: tuple[Array, Array]
    meta: dict[str, Any]
    #: The card head, when there is one: ``cards_in`` (weight, bias), ``cards_trunk`` (weight),
    #: ``cards_out`` (weight, bias).
    cards: tuple[tuple[Array, Array], Array, tuple[Array, Array]] | None = None

    @property
    def value_scale(self) -> float:
        return float(self.meta.get("value_scale", 100.0))

    @property
    def value_weight(self) -> float:
        """What a raw point of an action's value adds to its policy logit when the learned
        player ranks actions (0 where the network has none)."""
        return float(self.meta.get("value_weight", 0.0))

    @property
    def parameters(self) -> int:
        layers = [*self.trunk, self.policy, self.values]
        n = sum(w.size + b.size for w, b in layers)
        if self.cards is not None:
            (wi, bi), wt, (wo, bo) = self.cards
            n += wi.size + bi.size + wt.size + wo.size + bo.size
        return n

    def forward(self, x: Array) -> tuple[Array, Array]:
        """Policy logits and action values (raw points) for a batch of observation vectors
        (``B x OBS_SIZE``, or one vector).  The matrix products run on one thread: the network
        is small, and a player runs beside other players and searches, where BLAS threads
        only wait for each other."""
        x = np.asarray(x, dtype=np.float32)
        one = x.ndim == 1
        batch = x[None, :] if one else x
        with _one_blas_thread():
            h = self._hidden(batch, None)
            logits = h @ self.policy[0].T + self.policy[1]
            values = h @ self.values[0].T + self.values[1]
            if self.cards is not None:
                extra = self._card_head(batch, h)
                logits[:, :52] += extra[:, :, 0]
                values[:, :52] += extra[:, :, 1]
            values *= np.float32(self.value_scale)
        return (logits[0], values[0]) if one else (logits, values)

    def first_layer(self, x: Array) -> Array:
        """The first layer's input to its ReLU for observation vectors ``x`` (``B x OBS_SIZE``):
        linear in ``x``, so a caller that changes a few of its values may update it column by
        column (:meth:`card_logits` takes it back)."""
        w, b = self.trunk[0]
        with _one_blas_thread():
            out: Array = np.asarray(x, dtype=np.float32) @ w.T + b
        return out

    def first_columns(self, start: int, stop: int) -> Array:
        """The first layer's weights of observation values ``start`` to ``stop``, as a
        ``(stop - start) x width`` array: what one of them at 1 adds to :meth:`first_layer`."""
        return np.ascontiguousarray(self.trunk[0][0][:, start:stop].T)

    def card_logits(self, x: Array, first: Array | None, rows: npt.NDArray[np.intp],
                    cards: npt.NDArray[np.intp]) -> Array:
        """The policy logits of card ``cards[i]`` in observation ``rows[i]`` of the batch ``x``
        (``B x OBS_SIZE``), and nothing else: the trunk runs once a row, the heads once a pair.
        ``first``, when given, is :meth:`first_layer` of ``x``, computed by the caller for less."""
        batch = np.asarray(x, dtype=np.float32)
        w, b = self.policy
        with _one_blas_thread():
            h = self._hidden(batch, first)
            out: Array = np.einsum("ij,ij->i", h[rows], w[cards]) + b[cards]
            if self.cards is not None:
                (wi, bi), wt, (wo, bo) = self.cards
                z = card_features(batch)[rows, cards] @ wi.T + bi + (h @ wt.T)[rows]
                np.maximum(z, 0.0, out=z)
                out += z @ wo[0] + bo[0]
        return out

    def _hidden(self, batch: Array, first: Array | None) -> Array:
        h = batch
        for k, (w, b) in enumerate(self.trunk):
            h = first.copy() if k == 0 and first is not None else h @ w.T + b
            np.maximum(h, 0.0, out=h)
        return h

    def _card_head(self, batch: Array, h: Array) -> Array:
        """What the card head adds to each card's policy logit and value: ``B x 52 x 2``."""
        assert self.cards is not None
        (wi, bi), wt, (wo, bo) = self.cards
        n, width = len(batch), wi.shape[0]
        # One matrix product over every card of every row, not one per row.
        z: Array = (card_features(batch).reshape(n * 52, -1) @ wi.T + bi).reshape(n, 52, width)
        z += (h @ wt.T)[:, None, :]
        np.maximum(z, 0.0, out=z)
        extra: Array = (z.reshape(n * 52, width) @ wo.T + bo).reshape(n, 52, 2)
        return extra

    # ------------------------------------------------------------------ files

    @classmethod
    def from_arrays(cls, arrays: dict[str, npt.NDArray[Any]]) -> Network:
        try:
            meta = json.loads(bytes(np.asarray(arrays["meta"]).tobytes()).decode("utf-8"))
        except (KeyError, ValueError, UnicodeDecodeError) as e:
            raise NetworkError(f"no readable meta entry: {e}") from e
        if not isinstance(meta, dict) or meta.get("format") not in (NETWORK_FORMAT, NETWORK_FORMAT_CARDS):
            raise NetworkError(f"not a {NETWORK_FORMAT} or {NETWORK_FORMAT_CARDS} network")
        weight = meta.get("value_weight", 0.0)
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not weight >= 0.0:
            raise NetworkError(f"value_weight must be a number of at least 0, not {weight!r}")
        if meta.get("obs_size") != OBS_SIZE or meta.get("n_actions") != N_ACTIONS:
            raise NetworkError(f"made for {meta.get('obs_size')} observation values and {meta.get('n_actions')} "
                               f"actions, not {OBS_SIZE} and {N_ACTIONS}: retrain it for this encoding")

        def layer(name: str) -> tuple[Array, Array]:
            try:
                w = np.ascontiguousarray(arrays[f"{name}.weight"], dtype=np.float32)
                b = np.ascontiguousarray(arrays[f"{name}.bias"], dtype=np.float32)
            except KeyError as e:
                raise NetworkError(f"missing array {e}") from e
            if w.ndim != 2 or b.shape != (w.shape[0],):
                raise NetworkError(f"{name}: weight {w.shape} and bias {b.shape} do not fit")
            return w, b

        trunk = []
        k = 0
        while f"trunk.{k}.weight" in arrays:
            trunk.append(layer(f"trunk.{k}"))
            k += 1
        policy, values = layer("policy"), layer("values")
        width = OBS_SIZE
        for k, (w, _) in enumerate(trunk):
            if w.shape[1] != width:
                raise NetworkError(f"trunk.{k} takes {w.shape[1]} inputs where {width} come")
            width = w.shape[0]
        for name, (w, _) in (("policy", policy), ("values", values)):
            if w.shape != (N_ACTIONS, width):
                raise NetworkError(f"{name} is {w.shape[0]} x {w.shape[1]}: it must give {N_ACTIONS} actions "
                                   f"from {width} values")
        cards = None
        if meta["format"] == NETWORK_FORMAT_CARDS:
            if meta.get("card_features") != len(CARD_FEATURES):
                raise NetworkError(f"made for {meta.get('card_features')} card features, not {len(CARD_FEATURES)}: "
                                   f"retrain it for this encoding")
            into, out = layer("cards_in"), layer("cards_out")
            try:
                from_trunk = np.ascontiguousarray(arrays["cards_trunk.weight"], dtype=np.float32)
            except KeyError as e:
                raise NetworkError(f"missing array {e}") from e
            hidden = into[0].shape[0]
            if (into[0].shape[1] != len(CARD_FEATURES) or from_trunk.shape != (hidden, width)
                    or out[0].shape != (2, hidden)):
                raise NetworkError(f"the card head's layers do not fit: cards_in {into[0].shape}, cards_trunk "
                                   f"{from_trunk.shape}, cards_out {out[0].shape}")
            cards = (into, from_trunk, out)
        return cls(tuple(trunk), policy, values, meta, cards)

    def to_arrays(self) -> dict[str, npt.NDArray[Any]]:
        out: dict[str, npt.NDArray[Any]] = {}
        for k, (w, b) in enumerate(self.trunk):
            out[f"trunk.{k}.weight"], out[f"trunk.{k}.bias"] = w, b
        out["policy.weight"], out["policy.bias"] = self.policy
        out["values.weight"], out["values.bias"] = self.values
        if self.cards is not None:
            (out["cards_in.weight"], out["cards_in.bias"]), out["cards_trunk.weight"], \
                (out["cards_out.weight"], out["cards_out.bias"]) = self.cards
        out["meta"] = np.frombuffer(json.dumps(self.meta, sort_keys=True).encode("utf-8"), dtype=np.uint8)
        return out

    @classmethod
    def load(cls, path: Path | str) -> Network:
        try:
            with np.load(path, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
        except (OSError, ValueError) as e:
            raise NetworkError(f"{path}: {e}") from e
        return cls.from_arrays(arrays)

    def save(self, path: Path | str) -> None:
        np.savez(path, **self.to_arrays())  # type: ignore[arg-type]


_DEFAULT: Network | None = None
_CONTROLLER: ThreadpoolController | None = None


def _one_blas_thread() -> AbstractContextManager[Any]:
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    limiter: AbstractContextManager[Any] = _CONTROLLER.limit(limits=1, user_api="blas")
    return limiter


def default_network() -> Network:
    """The network shipped with gongzhu (``players/weights/learned.npz``), loaded once."""
    global _DEFAULT
    if _DEFAULT is None:
        ref = resources.files("gongzhu.players").joinpath("weights/learned.npz")
        with resources.as_file(ref) as path:
            _DEFAULT = Network.load(path)
    return _DEFAULT
