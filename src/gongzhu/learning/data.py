"""Self-play data from the expert: every decision with the expert's value of every legal action.

The expert (a fixed number of sampled worlds a decision, so that a run is reproducible) plays all
four seats of deal after deal — or, with ``--behaviour learned``, the shipped network plays and
the expert values — and every decision with a choice is kept: the seat's observation vector, its
action mask, the expert's value of every legal action, the action taken and the seat's result in
the deal (``--kinds``: only decisions of those :data:`KINDS`).  The same command writes the same
``.npz`` shards whatever the number of worker processes.  This module imports the rules core and
the players (the expert, the encodings, the network) and numpy.  The values, exploration, seeding
and shards: docs/learned.md, The data.
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing
import os
import random
import sys
import time
import zipfile
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from gongzhu.players import features
from gongzhu.players.expert import ExpertPlayer, objective_weights
from gongzhu.players.features import ACTION_DONE, CARD_FEATURES, N_ACTIONS, OBS_SIZE, Building, block_of, card_features
from gongzhu.players.learned import policy_scores
from gongzhu.players.mixed import DECISION_KINDS, decision_kinds
from gongzhu.players.network import Network, default_network
from gongzhu.players.observation import Observation, observe
from gongzhu.rules.cards import Seat
from gongzhu.rules.deal import Deal, Phase
from gongzhu.rules.dealing import deal_seed
from gongzhu.rules.options import PRESETS, Options

__all__ = ["BEHAVIOURS", "DEFAULT_ITERATIONS", "KINDS", "DataError", "DealPlayed", "Decision", "continuation_values",
           "kinds_of", "load", "main", "play_deal", "read_shards", "write_shard"]

#: Worlds the expert samples per decision (its values' noise falls with more).
DEFAULT_ITERATIONS = 100
#: Who chooses the actions played (the expert values every decision either way).
BEHAVIOURS = ("expert", "learned")
#: What a decision is: a step of a declaration (R4), a lead, a card of the suit led, a discard on
#: another suit (R5.2).
KINDS = DECISION_KINDS
#: What every shard holds, per decision.
_FIELDS = ("observation", "mask", "values", "action", "seat", "outcome", "deal")


class DataError(ValueError):
    """Shards that cannot be read: none found, or a file that is not a whole shard (the message
    names the file)."""


@dataclass(frozen=True)
class Decision:
    """One decision of a self-play deal (see the module docstring)."""

    observation: npt.NDArray[np.float32]
    mask: npt.NDArray[np.int8]
    values: npt.NDArray[np.float32]  # the expert's value of each legal action; NaN elsewhere
    action: int  # the action taken
    seat: int
    outcome: float  # the seat's result of the deal (the expert's objective, raw points)
    step: int  # how many actions of the deal came before it (:attr:`DealPlayed.actions`)


@dataclass(frozen=True)
class DealPlayed:
    """A self-play deal: its seed (``Deal.new(options, seed)``), every action taken in order
    (decisions and forced steps alike, so any encoding can be rebuilt by replaying them) and
    its kept decisions."""

    seed: int
    actions: list[int]
    decisions: list[Decision]


def kinds_of(observations: npt.NDArray[np.float32], chunk: int = 8192) -> npt.NDArray[np.int64]:
    """Each decision's index in :data:`KINDS`, read from its observation vector: the exposure
    phase; leading; a legal card of the suit led (a seat that holds the suit must follow it,
    R5.2); or none."""
    declare = block_of(observations, "phase")[:, 0] > 0.5
    leading = block_of(observations, "position")[:, 0] > 0.5
    follows = np.empty(len(observations), dtype=np.bool_)
    names = [name for name, _ in CARD_FEATURES]
    legal, of_led = names.index("legal"), names.index("follows")
    for start in range(0, len(observations), chunk):
        rows = card_features(observations[start:start + chunk])
        follows[start:start + chunk] = (rows[:, :, legal] * rows[:, :, of_led]).sum(axis=1) > 0
    kinds = np.where(declare, 0, np.where(leading, 1, np.where(follows, 2, 3)))
    return kinds.astype(np.int64)


def player_seed(seed: int, deal: int, seat: int) -> int:
    """The seed of the expert in ``seat`` for deal ``deal`` of a run seeded ``seed``."""
    digest = hashlib.sha256(f"gongzhu-selfplay:{seed}:{deal}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def continuation_values(options: Sequence[tuple[Sequence[int], float]], built: Sequence[int],
                        legal: Sequence[int]) -> npt.NDArray[np.float32]:
    """Per legal action, the best value among the complete ``options`` (each a multiset of
    actions with its value) that still contain ``built`` and that action;
    :data:`ACTION_DONE` is worth ``built`` itself.  NaN for actions not in ``legal``."""
    out = np.full(N_ACTIONS, np.nan, dtype=np.float32)
    have = Counter(built)
    for a in legal:
        if a == ACTION_DONE:
            want = have
            best = max((v for acts, v in options if Counter(acts) == want), default=None)
        else:
            want = have + Counter([a])
            best = max((v for acts, v in options if not want - Counter(acts)), default=None)
        if best is None:
            raise ValueError(f"action {a} leads to no option the expert valued")
        out[a] = best
    return out


def _play_options(obs: Observation, expert: ExpertPlayer) -> list[tuple[list[int], float]]:
    return [([c.index for c in v.play], v.value) for v in expert.evaluate(obs)]


def _declaration_options(obs: Observation, expert: ExpertPlayer) -> list[tuple[list[int], float]]:
    return [([features.action_of_exposure(c, k) for c, k in chosen], value)
            for chosen, value in expert.evaluate_exposures(obs)]


def _built(obs: Observation, building: Building) -> list[int]:
    if obs.phase is Phase.EXPOSE:
        return [features.action_of_exposure(c, k) for c, k in building.declared]
    return [c.index for c in building.chosen]


def _path_to(best: Sequence[int], built: Sequence[int], legal: Sequence[int]) -> int:
    """The next action toward the option ``best`` from ``built``: its smallest action still
    missing (the order cards of a play and exposures are added in), else ``ACTION_DONE``."""
    missing = Counter(best) - Counter(built)
    for a in sorted(missing.elements()):
        if a in legal:
            return a
    return ACTION_DONE


def _kind_indices(kinds: Sequence[str] | None, learned: bool) -> frozenset[int] | None:
    if kinds is None:
        return None
    chosen = decision_kinds(kinds)
    if not learned:
        raise ValueError("kinds needs the learned behaviour: the expert would value every decision to play it")
    return frozenset(KINDS.index(k) for k in chosen)


def _best_action(network: Network, vector: npt.NDArray[np.float32], legal: Sequence[int]) -> int:
    """The learned level's choice with ``network``: its best legal action by the policy, leaning
    on the values by the network's own weight."""
    score = policy_scores(*network.forward(vector), network.value_weight)
    return max(legal, key=lambda a: float(score[a]))


def play_deal(options: Options, seed: int, index: int, iterations: int, explore: float,
              behaviour: Network | None = None, kinds: Sequence[str] | None = None) -> DealPlayed:
    """Deal ``index`` of a run seeded ``seed``, played by the expert in every seat, or by
    ``behaviour`` (a network's best legal action) with the expert valuing each decision — or,
    given ``kinds`` (a subset of :data:`KINDS`, with a ``behaviour`` only), each decision of
    those kinds, the others played by the network unvalued and not kept."""
    keep = _kind_indices(kinds, behaviour is not None)
    dealt_from = deal_seed(seed, index)
    deal = Deal.new(options, dealt_from)
    taken: list[int] = []
    experts = [ExpertPlayer(seed=player_seed(seed, index, s), iterations=iterations) for s in range(4)]
    rng = random.Random(player_seed(seed, index, 4))
    kept: list[tuple[npt.NDArray[np.float32], npt.NDArray[np.int8], npt.NDArray[np.float32], int, int, int]] = []
    building = Building()
    cache: tuple[int, int, list[tuple[list[int], float]]] | None = None  # (seat, plays made, options)
    while not deal.is_over:
        seat = Seat(deal.undeclared[0]) if deal.phase is Phase.EXPOSE else deal.turn
        assert seat is not None
        obs = observe(deal, seat)
        legal = features.legal_actions(obs, building.declared, building.chosen)
        if len(legal) == 1:
            features.take_action(deal, seat, legal[0], building)
            taken.append(legal[0])
            continue
        vector = features.encode(obs, building.declared, building.chosen)
        explored = rng.random() < explore
        if keep is not None and int(kinds_of(vector[None, :])[0]) not in keep:
            assert behaviour is not None
            action = rng.choice(legal) if explored else _best_action(behaviour, vector, legal)
            features.take_action(deal, seat, action, building)
            taken.append(action)
            continue
        # A decision's options are valued once, however many steps build the chosen one.
        stamp = (int(seat), len(deal.actions))
        if cache is None or cache[:2] != stamp:
            if obs.phase is Phase.EXPOSE:
                cache = (*stamp, _declaration_options(obs, experts[seat]))
            else:
                cache = (*stamp, _play_options(obs, experts[seat]))
        options_valued = cache[2]
        built = _built(obs, building)
        values = continuation_values(options_valued, built, legal)
        if explored:
            action = rng.choice(legal)
        elif behaviour is not None:
            action = _best_action(behaviour, vector, legal)
        else:
            best = max(options_valued, key=lambda o: o[1])
            action = _path_to(best[0], built, legal)
            if action not in legal:
                action = max(legal, key=lambda a: float(values[a]))
        mask = features.action_mask(obs, building.declared, building.chosen)
        kept.append((vector, mask, values, action, int(seat), len(taken)))
        features.take_action(deal, seat, action, building)
        taken.append(action)
    raw = deal.score.raw
    outcome = [sum(w * r for w, r in zip(objective_weights(options, Seat(s)), raw, strict=True)) for s in range(4)]
    return DealPlayed(dealt_from, taken, [Decision(v, m, val, a, s, outcome[s], t) for v, m, val, a, s, t in kept])


# ---------------------------------------------------------------------- shards


def write_shard(path: Path, played: Sequence[DealPlayed]) -> None:
    """Write deals' decisions as one compressed ``.npz`` (written to a temporary name, then
    renamed): per decision its arrays and ``deal`` (its deal's place in the shard); per deal its
    seed and its actions (``deal_actions`` flattened, ``deal_offsets`` where each deal's start)."""
    tmp = path.with_name(path.name + ".tmp.npz")
    decisions = [d for p in played for d in p.decisions]
    offsets = np.cumsum([0, *(len(p.actions) for p in played)])
    np.savez_compressed(
        tmp,
        observation=np.array([d.observation for d in decisions], dtype=np.float16).reshape(-1, OBS_SIZE),
        mask=np.array([d.mask for d in decisions], dtype=np.int8).reshape(-1, N_ACTIONS),
        values=np.array([d.values for d in decisions], dtype=np.float32).reshape(-1, N_ACTIONS),
        action=np.array([d.action for d in decisions], dtype=np.int16),
        seat=np.array([d.seat for d in decisions], dtype=np.int8),
        outcome=np.array([d.outcome for d in decisions], dtype=np.float32),
        step=np.array([d.step for d in decisions], dtype=np.int16),
        deal=np.array([i for i, p in enumerate(played) for _ in p.decisions], dtype=np.int32),
        deal_seeds=np.array([p.seed for p in played], dtype=np.int64),
        deal_actions=np.array([a for p in played for a in p.actions], dtype=np.int8),
        deal_offsets=offsets.astype(np.int64),
    )
    os.replace(tmp, path)


def read_shards(paths: Sequence[Path]) -> dict[str, npt.NDArray[np.generic]]:
    """The decisions of several shards, concatenated (observations as float32), each with the
    index of its deal in its run (``deal``)."""
    parts: dict[str, list[npt.NDArray[np.generic]]] = {}
    for p in paths:
        try:
            with np.load(p, allow_pickle=False) as z:
                read = {k: z[k] for k in _FIELDS if k in z.files}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as e:
            raise DataError(f"{p}: not a readable shard ({e})") from e
        missing = [k for k in _FIELDS if k not in read]
        if missing:
            raise DataError(f"{p}: not a shard of decisions (no {', '.join(missing)})")
        n = len(read["action"])
        if any(len(v) != n for v in read.values()):
            raise DataError(f"{p}: its fields hold different numbers of decisions")
        for k, v in read.items():
            parts.setdefault(k, []).append(v)
    out = {k: np.concatenate(v) for k, v in parts.items()}
    out["observation"] = out["observation"].astype(np.float32)
    return out


def load(paths: Sequence[Path]) -> dict[str, npt.NDArray[np.generic]]:
    """Every decision of the shards under ``paths`` (folders or files), each with ``deal_key``:
    its deal's key, the same for no two deals of the shards read (training splits by it)."""
    files: list[Path] = []
    for p in paths:
        files += sorted(p.glob("*.npz")) if p.is_dir() else [p]
    files = [f for f in files if not f.name.endswith(".tmp.npz")]
    if not files:
        raise DataError(f"no .npz shards under {', '.join(map(str, paths))}")
    parts = []
    for i, f in enumerate(files):
        d = read_shards([f])
        d["deal_key"] = d["deal"].astype(np.int64) + (i << 20)
        parts.append(d)
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def _shard_name(preset: str, seed: int, first: int, behaviour: str = "expert",
                kinds: Sequence[str] | None = None) -> str:
    by = "" if behaviour == "expert" else f"-{behaviour}"
    only = "" if kinds is None else "-" + "-".join(k for k in KINDS if k in kinds)
    return f"{preset}-s{seed}{by}{only}-d{first:07d}.npz"


def _work(job: tuple[str, int, int, int, int, float, str, str, tuple[str, ...] | None]) -> tuple[str, int, float]:
    preset, seed, first, count, iterations, explore, out, behaviour, kinds = job
    path = Path(out) / _shard_name(preset, seed, first, behaviour, kinds)
    if path.exists():
        return path.name, 0, 0.0
    t0 = time.perf_counter()
    network = default_network() if behaviour == "learned" else None
    played = [play_deal(PRESETS[preset], seed, i, iterations, explore, network, kinds)
              for i in range(first, first + count)]
    write_shard(path, played)
    return path.name, sum(len(p.decisions) for p in played), time.perf_counter() - t0


def _init_worker(niceness: int) -> None:
    if niceness and hasattr(os, "nice"):
        os.nice(niceness)


def run(preset: str, seed: int, deals: int, out: Path, *, iterations: int = DEFAULT_ITERATIONS,
        explore: float = 0.05, shard: int = 20, workers: int = 1, niceness: int = 0,
        first: int = 0, behaviour: str = "expert",
        kinds: Sequence[str] | None = None) -> Iterator[tuple[str, int, float]]:
    """Play deals ``first .. first + deals - 1`` and write their shards; yields each shard's
    name, number of decisions and seconds as it is written (0 decisions: it was already there).
    ``kinds``: keep only decisions of those :data:`KINDS` (see :func:`play_deal`)."""
    if behaviour not in BEHAVIOURS:
        raise ValueError(f"behaviour must be one of {', '.join(BEHAVIOURS)}, not {behaviour!r}")
    _kind_indices(kinds, behaviour != "expert")
    only = None if kinds is None else tuple(k for k in KINDS if k in kinds)
    out.mkdir(parents=True, exist_ok=True)
    jobs = [(preset, seed, s, min(shard, first + deals - s), iterations, explore, str(out), behaviour, only)
            for s in range(first, first + deals, shard)]
    if workers <= 1:
        _init_worker(niceness)
        for job in jobs:
            yield _work(job)
        return
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(workers, initializer=_init_worker, initargs=(niceness,)) as pool:
        yield from pool.imap(_work, jobs)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m gongzhu.learning.data",
                                description="Expert self-play decisions with the expert's value of every legal action.")
    p.add_argument("--out", type=Path, required=True, help="folder for the .npz shards")
    p.add_argument("--preset", default="online", choices=sorted(PRESETS))
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--first", type=int, default=0, help="index of the first deal (to extend a run)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS, help="worlds the expert samples a decision")
    p.add_argument("--explore", type=float, default=0.05, help="share of random legal actions")
    p.add_argument("--behaviour", default="expert", choices=BEHAVIOURS,
                   help="who plays: the expert, or the shipped learned network (the expert values every decision)")
    p.add_argument("--kinds", default=None,
                   help=f"keep only these kinds of decision, comma-separated ({', '.join(KINDS)}; "
                        "with --behaviour learned, which plays the others unvalued)")
    p.add_argument("--shard", type=int, default=20, help="deals per shard file")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--nice", type=int, default=0, help="lower the workers' priority by this much")
    a = p.parse_args(argv)
    if a.deals < 1 or a.shard < 1 or a.workers < 1 or a.iterations < 1 or not 0 <= a.explore <= 1 or a.first < 0:
        p.error("--deals, --shard, --workers, --iterations must be positive, --first >= 0, --explore in [0, 1]")
    kinds = None if a.kinds is None else [k.strip() for k in a.kinds.split(",") if k.strip()]
    try:
        _kind_indices(kinds, a.behaviour != "expert")
    except ValueError as e:
        p.error(f"--kinds: {e}")
    total = 0
    t0 = time.perf_counter()
    for name, n, seconds in run(a.preset, a.seed, a.deals, a.out, iterations=a.iterations, explore=a.explore,
                                shard=a.shard, workers=a.workers, niceness=a.nice, first=a.first,
                                behaviour=a.behaviour, kinds=kinds):
        total += n
        state = "kept" if n == 0 else f"{n} decisions in {seconds:.0f} s"
        print(f"{name}: {state}", flush=True)
    print(f"{total} decisions written in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
