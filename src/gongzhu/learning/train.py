"""Train the learned player's policy/value network on expert self-play data (PyTorch, CPU).

On each kept decision of :mod:`gongzhu.learning.data` the policy learns the expert's preferences
(cross-entropy against the softmax of its values at ``--temperature``, and with
``--regret-weight`` its expected regret) and the values learn the expert's values; decisions are
split into training and held-out by deal, and the weights with the best held-out loss are written
for the numpy runtime (``--out``), with the learning curve (``--curve``).  This module imports
PyTorch (the ``train`` extra: ``pip install 'gongzhu[train]'``), numpy, the players' encodings and
network and the data module.  The losses, the optimiser and widening a network with ``--init``:
docs/learned.md, The network.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from gongzhu.learning.data import DataError, load
from gongzhu.players.features import CARD_FEATURES, N_ACTIONS, OBS_SIZE, card_features
from gongzhu.players.network import NETWORK_FORMAT, NETWORK_FORMAT_CARDS, Network, NetworkError

__all__ = ["Config", "PolicyValueNet", "export", "main", "shape_of", "train"]

PACKAGE_WEIGHTS = Path(__file__).resolve().parent.parent / "players" / "weights" / "learned.npz"


@dataclass(frozen=True)
class Config:
    """Training settings (the command's options)."""

    hidden: tuple[int, ...] = (256, 256)
    #: Width of the card head's hidden layer (0: no card head, gongzhu-net/1).
    card_hidden: int = 0
    epochs: int = 1000
    minutes: float = 60.0
    batch: int = 512
    lr: float = 1e-3
    weight_decay: float = 1e-3
    dropout: float = 0.2
    temperature: float = 10.0
    value_scale: float = 400.0
    value_weight: float = 1.0
    regret_weight: float = 0.0
    validation: float = 0.05
    seed: int = 1
    threads: int = 2


class PolicyValueNet(nn.Module):
    """The trunk, the two heads and the card head (``card_hidden`` > 0), in the layout
    :class:`gongzhu.players.network.Network` reads."""

    def __init__(self, hidden: Sequence[int], dropout: float = 0.0, card_hidden: int = 0) -> None:
        super().__init__()
        self.dropout = nn.Dropout(dropout)  # training only: the numpy runtime has no dropout
        layers: list[nn.Module] = []
        width = OBS_SIZE
        for h in hidden:
            layers.append(nn.Linear(width, h))
            width = h
        self.trunk = nn.ModuleList(layers)
        self.policy = nn.Linear(width, N_ACTIONS)
        self.values = nn.Linear(width, N_ACTIONS)
        self.card_hidden = card_hidden
        if card_hidden:
            self.cards_in = nn.Linear(len(CARD_FEATURES), card_hidden)
            self.cards_trunk = nn.Linear(width, card_hidden, bias=False)
            self.cards_out = nn.Linear(card_hidden, 2)

    def forward(self, x: torch.Tensor, cards: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """``cards``: the rows of :func:`~gongzhu.players.features.card_features` of ``x``, for
        the card head."""
        for layer in self.trunk:
            x = self.dropout(torch.relu(layer(x)))
        logits, values = self.policy(x), self.values(x)
        if self.card_hidden:
            if cards is None:
                raise ValueError("the card head needs the card rows (features.card_features of x)")
            z = torch.relu(self.cards_in(cards) + self.cards_trunk(x)[:, None, :])
            extra = nn.functional.pad(self.cards_out(z), (0, 0, 0, N_ACTIONS - 52))
            logits, values = logits + extra[:, :, 0], values + extra[:, :, 1]
        return logits, values


def export(model: PolicyValueNet, meta: dict[str, Any]) -> Network:
    """The trained model as the numpy runtime's :class:`Network`."""
    state = {k: v.detach().cpu().numpy().astype(np.float32) for k, v in model.state_dict().items()}
    arrays: dict[str, npt.NDArray[Any]] = dict(state)
    full = {"format": NETWORK_FORMAT, "obs_size": OBS_SIZE, "n_actions": N_ACTIONS, **meta}
    if model.card_hidden:
        full.update(format=NETWORK_FORMAT_CARDS, card_features=len(CARD_FEATURES))
    arrays["meta"] = np.frombuffer(json.dumps(full, sort_keys=True).encode("utf-8"), dtype=np.uint8)
    return Network.from_arrays(arrays)


def _split(data: dict[str, npt.NDArray[Any]], share: float, seed: int) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """Row indices of training and validation decisions, split by deal."""
    deal_key = data["deal_key"]
    keys = np.unique(deal_key)
    rng = np.random.default_rng(seed)
    held = set(rng.choice(keys, size=max(1, round(len(keys) * share)), replace=False).tolist())
    is_val = np.array([k in held for k in deal_key.tolist()])
    return np.flatnonzero(~is_val), np.flatnonzero(is_val)


def _targets(values: npt.NDArray[np.float32], temperature: float) -> npt.NDArray[np.float32]:
    legal = ~np.isnan(values)
    v = np.where(legal, values, -np.inf)
    v = (v - v.max(axis=1, keepdims=True)) / max(temperature, 1e-6)
    e = np.exp(v)
    e[~legal] = 0.0
    out: npt.NDArray[np.float32] = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    return out


def _card_rows(observations: npt.NDArray[np.float32], chunk: int = 8192) -> npt.NDArray[np.float16]:
    """The card head's rows of every decision (:func:`card_features`), computed once for the whole
    run and kept as float16 (half the memory; every card feature is a count or a fraction whose
    rounding there is below a thousandth)."""
    out = np.empty((len(observations), 52, len(CARD_FEATURES)), dtype=np.float16)
    for start in range(0, len(observations), chunk):
        out[start:start + chunk] = card_features(observations[start:start + chunk])
    return out


def _state_of(network: Network, model: PolicyValueNet) -> dict[str, torch.Tensor]:
    """``network``'s arrays as a state of ``model``, which must have its shape or be wider.

    A wider model is the network widened: each of the network's units keeps its weights in and
    out, and each new unit keeps ``model``'s random weights in and gets weights of zero out (the
    columns of its output in every later layer and head), so that the widened network computes
    exactly what the network did, and training grows the new units from there."""
    arrays = network.to_arrays()
    own = model.state_dict()
    state = {}
    for name, tensor in own.items():
        got = arrays[name].shape if name in arrays else None
        if got is None or len(got) != tensor.dim() or any(g > w for g, w in zip(got, tensor.shape, strict=True)):
            raise ValueError(f"the starting network does not fit: {name} is {tuple(tensor.shape)} here, "
                             f"{got or 'nothing'} there")
        wide = tensor.detach().clone()
        if wide.dim() == 2:
            wide[: got[0], got[1]:] = 0.0  # new inputs feed none of the old units
        wide[tuple(slice(0, g) for g in got)] = torch.from_numpy(np.array(arrays[name], dtype=np.float32))
        state[name] = wide
    extra = sorted(set(arrays) - set(own) - {"meta"})
    if extra:
        raise ValueError(f"the starting network has layers this one lacks: {', '.join(extra)}")
    return state


def shape_of(network: Network) -> tuple[tuple[int, ...], int]:
    """The trunk's widths and the card head's width (0: none) of ``network``."""
    hidden = tuple(int(w.shape[0]) for w, _ in network.trunk)
    return hidden, 0 if network.cards is None else int(network.cards[0][0].shape[0])


def train(data: dict[str, npt.NDArray[Any]], config: Config, *, init: Network | None = None,
          log: Any = None) -> tuple[Network, list[dict[str, float]]]:
    """Train on ``data`` (:func:`load`); returns the best network and the learning curve.
    ``init``: a network of the same shape whose weights training continues from (its value
    scale must be ``config.value_scale``)."""
    if init is not None and init.value_scale != config.value_scale:
        raise ValueError(f"the starting network's values are in units of {init.value_scale:g} points, "
                         f"not {config.value_scale:g}")
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.threads)
    train_rows, val_rows = _split(data, config.validation, config.seed)
    observations = np.ascontiguousarray(data["observation"], dtype=np.float32)
    x = torch.from_numpy(observations)
    card_rows = _card_rows(observations) if config.card_hidden else None
    values = np.asarray(data["values"], dtype=np.float32)
    legal = torch.from_numpy(~np.isnan(values))
    target_p = torch.from_numpy(_targets(values, config.temperature))
    target_v = torch.from_numpy(np.nan_to_num(values / config.value_scale, nan=0.0))
    legal_values = np.where(np.isnan(values), -np.inf, values)
    best_a = torch.from_numpy(legal_values.argmax(axis=1))
    # What each legal action gives up against the expert's best, in raw points (0 where illegal).
    gives_up = torch.from_numpy(np.nan_to_num(legal_values.max(axis=1, keepdims=True) - values, nan=0.0))
    model = PolicyValueNet(config.hidden, config.dropout, config.card_hidden)
    if init is not None:
        model.load_state_dict(_state_of(init, model))
    opt = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    total_steps = max(1, config.epochs * math.ceil(len(train_rows) / config.batch))
    budget = config.minutes * 60
    curve: list[dict[str, float]] = []
    best_loss, best_state = math.inf, None
    rng = np.random.default_rng(config.seed)
    t0 = time.monotonic()
    step = 0

    def progress() -> float:
        """How far training is, by steps or by time, whichever is further (0 … 1)."""
        return min(1.0, max(step / total_steps, (time.monotonic() - t0) / budget))

    def losses(rows: npt.NDArray[Any]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        idx = torch.from_numpy(rows)
        cards = None if card_rows is None else torch.from_numpy(card_rows[rows].astype(np.float32))
        logits, v = model(x[idx], cards)
        mask = legal[idx]
        logits = logits.masked_fill(~mask, -1e9)
        policy_loss = -(target_p[idx] * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
        value_loss = (((v - target_v[idx]) ** 2) * mask).sum() / mask.sum()
        agree = (logits.argmax(dim=1) == best_a[idx]).float().mean()
        expected_regret = (torch.softmax(logits, dim=1) * gives_up[idx]).sum(dim=1).mean()
        return policy_loss, value_loss, agree, expected_regret

    regret_coef = config.regret_weight / config.temperature

    def held_out_loss(point: dict[str, float]) -> float:
        """The loss trained on, on the held-out decisions, of a point of the curve."""
        return point["val_policy"] + config.value_weight * point["val_values"] + regret_coef * point["val_regret"]

    for epoch in range(config.epochs):
        model.train()
        order = rng.permutation(train_rows)
        sums = [0.0, 0.0, 0.0, 0.0]
        batches = 0
        for start in range(0, len(order), config.batch):
            rows = order[start:start + config.batch]
            p_loss, v_loss, agree, e_regret = losses(rows)
            loss = p_loss + config.value_weight * v_loss + regret_coef * e_regret
            # A short warm-up, then a cosine decay to zero over the steps or the time allowed.
            done = progress()
            warm = min(200, max(1, total_steps // 10))
            for group in opt.param_groups:
                group["lr"] = config.lr * min(1.0, (step + 1) / warm) * 0.5 * (1 + math.cos(math.pi * done))
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            opt.step()
            step += 1
            sums[0] += p_loss.item()
            sums[1] += v_loss.item()
            sums[2] += agree.item()
            sums[3] += e_regret.item()
            batches += 1
        model.eval()
        with torch.no_grad():
            vp, vv, va, vr = [], [], [], []
            for start in range(0, len(val_rows), 4096):
                p_loss, v_loss, agree, e_regret = losses(val_rows[start:start + 4096])
                n = len(val_rows[start:start + 4096])
                vp.append(float(p_loss) * n)
                vv.append(float(v_loss) * n)
                va.append(float(agree) * n)
                vr.append(float(e_regret) * n)
        n_val = max(len(val_rows), 1)
        point = {
            "epoch": epoch + 1,
            "minutes": (time.monotonic() - t0) / 60,
            "train_policy": sums[0] / batches,
            "train_values": sums[1] / batches,
            "train_agreement": sums[2] / batches,
            "train_regret": sums[3] / batches,
            "val_policy": sum(vp) / n_val,
            "val_values": sum(vv) / n_val,
            "val_agreement": sum(va) / n_val,
            "val_regret": sum(vr) / n_val,
        }
        curve.append(point)
        if log is not None:
            print(" ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in point.items()),
                  file=log, flush=True)
        val_loss = held_out_loss(point)
        if val_loss < best_loss:
            best_loss = val_loss
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
        if progress() >= 1.0:
            break
    if best_state is not None:
        model.load_state_dict(best_state)
    best = min(curve, key=held_out_loss)
    meta = {
        "value_scale": config.value_scale,
        "hidden": list(config.hidden),
        "card_hidden": config.card_hidden,
        "trained": {
            "decisions": len(train_rows),
            "validation_decisions": len(val_rows),
            "epochs": len(curve),
            "best_epoch": int(best["epoch"]),
            "val_agreement": round(best["val_agreement"], 4),
            "temperature": config.temperature,
            "regret_weight": config.regret_weight,
            "dropout": config.dropout,
            "weight_decay": config.weight_decay,
            "seed": config.seed,
        },
    }
    if init is not None:
        meta["trained"]["continued_from"] = init.meta.get("trained", {})  # type: ignore[index]
    return export(model, meta), curve


def write_curve(curve: Sequence[dict[str, float]], csv_path: Path, plot_path: Path | None,
                value_scale: float = Config.value_scale) -> None:
    """The learning curve as CSV and, when Matplotlib is there, as a PNG plot."""
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    with csv_path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(curve[0]))
        w.writeheader()
        for p in curve:
            w.writerow({k: round(v, 5) for k, v in p.items()})
    if plot_path is None:
        return
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot", file=sys.stderr)
        return
    minutes = [p["minutes"] for p in curve]
    fig, axes = plt.subplots(1, 4, figsize=(17, 3.6))
    for ax, key, title in ((axes[0], "policy", "policy loss (cross-entropy)"),
                           (axes[1], "values", f"value loss (MSE, units of {value_scale:g} points)"),
                           (axes[2], "agreement", "best action = expert's"),
                           (axes[3], "regret", "policy's expected regret (raw points)")):
        ax.plot(minutes, [p[f"train_{key}"] for p in curve], label="training")
        ax.plot(minutes, [p[f"val_{key}"] for p in curve], label="validation")
        ax.set_title(title)
        ax.set_xlabel("minutes")
        ax.grid(alpha=0.3)
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(plot_path, dpi=110)
    plt.close(fig)


def _widths(text: str) -> tuple[int, ...]:
    """``--hidden``: the trunk's widths, comma-separated positive whole numbers."""
    try:
        widths = tuple(int(w) for w in text.split(","))
    except ValueError:
        widths = ()
    if not widths or min(widths) < 1:
        raise argparse.ArgumentTypeError(f"widths are positive whole numbers, comma-separated, not {text!r}")
    return widths


def _width(text: str) -> int:
    """``--card-hidden``: a whole number of at least 0."""
    try:
        width = int(text)
    except ValueError:
        width = -1
    if width < 0:
        raise argparse.ArgumentTypeError(f"a width is a whole number of at least 0, not {text!r}")
    return width


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m gongzhu.learning.train",
                                description="Train the learned player's network on expert self-play data.")
    p.add_argument("--data", type=Path, nargs="+", required=True, help="folders (or files) of .npz shards")
    p.add_argument("--out", type=Path, default=PACKAGE_WEIGHTS, help="the weights file to write")
    p.add_argument("--curve", type=Path, default=None, help="learning curve CSV (a .png beside it is the plot)")
    p.add_argument("--minutes", type=float, default=Config.minutes,
                   help="time allowed: the learning rate decays to zero over it (or over --epochs, if shorter)")
    p.add_argument("--epochs", type=int, default=Config.epochs)
    p.add_argument("--hidden", type=_widths, default=None, help="widths of the trunk's layers (default 256,256)")
    p.add_argument("--card-hidden", type=_width, default=None,
                   help="width of the card head's hidden layer (default 0: no card head)")
    p.add_argument("--init", type=Path, default=None,
                   help="a weights file to continue training from (it gives the network's shape, "
                        "unless --hidden or --card-hidden widen it: the widened network starts as "
                        "the file's)")
    p.add_argument("--batch", type=int, default=Config.batch)
    p.add_argument("--lr", type=float, default=Config.lr)
    p.add_argument("--temperature", type=float, default=Config.temperature)
    p.add_argument("--regret-weight", type=float, default=Config.regret_weight,
                   help="weight of the policy's expected regret (points given up against the expert's "
                        "best action, in units of the temperature) beside its cross-entropy")
    p.add_argument("--dropout", type=float, default=Config.dropout)
    p.add_argument("--weight-decay", type=float, default=Config.weight_decay)
    p.add_argument("--seed", type=int, default=Config.seed)
    p.add_argument("--threads", type=int, default=Config.threads)
    a = p.parse_args(argv)
    init = None
    hidden: tuple[int, ...] = a.hidden or Config.hidden
    card_hidden: int = a.card_hidden or Config.card_hidden
    if a.init is not None:
        try:
            init = Network.load(a.init)
        except NetworkError as e:
            p.error(f"--init: {e}")
        init_hidden, init_card = shape_of(init)
        hidden = init_hidden if a.hidden is None else hidden
        card_hidden = init_card if a.card_hidden is None else card_hidden
        if (len(hidden) != len(init_hidden) or any(h < g for h, g in zip(hidden, init_hidden, strict=True))
                or card_hidden < init_card or (init_card == 0) != (card_hidden == 0)):
            p.error(f"--init: a network of {','.join(map(str, init_hidden))} (card head {init_card}) can be "
                    f"widened, not made {','.join(map(str, hidden))} (card head {card_hidden})")
    config = Config(hidden=hidden, card_hidden=card_hidden,
                    epochs=a.epochs, minutes=a.minutes,
                    batch=a.batch, lr=a.lr, temperature=a.temperature, dropout=a.dropout,
                    regret_weight=a.regret_weight,
                    weight_decay=a.weight_decay, seed=a.seed, threads=a.threads)
    try:
        data = load(a.data)
    except DataError as e:
        p.error(f"--data: {e}")
    print(f"{len(data['action'])} decisions", file=sys.stderr)
    network, curve = train(data, config, init=init, log=sys.stderr)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    network.save(a.out)
    print(f"{network.parameters} parameters, best epoch {network.meta['trained']['best_epoch']}, "
          f"validation agreement {network.meta['trained']['val_agreement']:.3f}: {a.out}", file=sys.stderr)
    if a.curve is not None:
        write_curve(curve, a.curve, a.curve.with_suffix(".png"), config.value_scale)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
