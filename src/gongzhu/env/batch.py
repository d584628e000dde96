"""Many one-deck deals stepped together on the C fast path, for reinforcement-learning code.

>>> import numpy as np
>>> from gongzhu.env.batch import BatchEnv
>>> env = BatchEnv(8, preset="online", seed=1)
>>> rng = np.random.default_rng(0)
>>> for _ in range(200):
...     legal = env.action_masks.astype(bool)
...     actions = (rng.random(legal.shape) * legal).argmax(axis=1)  # a random legal action each
...     finished = env.step(actions)
>>> env.deals_finished > 0
True

:class:`BatchEnv` holds ``n`` deals, each the first deal of a match under one preset (R9) with
options (R10) on top, steps them together in C (``gongzhu.rules._fastplay.Batch``) exactly as
:class:`gongzhu.env.aec.GongzhuEnv` plays them, and writes every deal's observation, action mask,
seat to act and, when it ends, its rewards, raw scores and takers into preallocated numpy arrays;
a deal that ends is replaced at once by the next of its slot.  One deck only, and the C extension
is needed.  This module imports the rules core, the search's error and the players' encodings
(and numpy).  The arrays, auto-reset, illegal actions, dealing and threads: docs/env.md, The
batched environment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gongzhu.players import features
from gongzhu.players.features import DECLARABLE_KINDS, N_ACTIONS, OBS_SIZE, OFFSET
from gongzhu.players.observation import observe
from gongzhu.rules.cards import ALL_CARDS, EXPOSABLE, Card, Seat
from gongzhu.rules.deal import Deal
from gongzhu.rules.options import Options, resolve_options
from gongzhu.rules.scoring import results
from gongzhu.search import SearchUnavailableError

if TYPE_CHECKING:
    from gongzhu.rules._fastplay import Batch

__all__ = ["BatchEnv", "IllegalActionError"]


def _batch_class() -> type[Batch] | None:
    try:
        from gongzhu.rules._fastplay import Batch
    except ImportError:  # an installation without the C extension
        return None
    return Batch


_BATCH = _batch_class()


def _error_class() -> type[ValueError]:
    try:
        from gongzhu.rules._fastplay import IllegalActionError
    except ImportError:  # an installation without the C extension: nothing can raise it
        return ValueError
    return IllegalActionError


#: An action of a step that the deal's mask does not allow (a ``ValueError``); nothing was
#: changed.  Its attributes: ``deal`` (the deal's index), ``seat``, ``action``, ``legal``.
IllegalActionError = _error_class()


_MASK64 = (1 << 64) - 1
_SEATS = (*Seat, None)  # by the C's seat number; -1: nobody
#: The observation blocks the C writes, in the order it takes their starts (``_fastenv.h``),
#: then the options block and the vector's length.
_LAYOUT = ("hand", "played", "trick", "taken", "exposed", "unseen", "legal", "phase", "position", "led",
           "tricks_done", "cards_left", "voids", "hidden", "suits_led", "must_lead_c2", "declared",
           "first_card", "decks")
#: The exposure kinds in the C's order: the declarable ones (their action order), then 逼明's.
_KINDS = (*DECLARABLE_KINDS, "auto")


def _c_options(rules: Options) -> tuple[Any, ...]:
    """The options as the C takes them (``_fastenv.h``, ``env_rules``)."""
    return (
        rules.clockwise,
        rules.exposed_discard_before_suit_led,
        rules.discard_color_code,
        rules.book_hearts,
        rules.self_catch,
        rules.first_lead_code,
        sum(1 << DECLARABLE_KINDS.index(k) for k in rules.declarable_kinds),  # R4.4
        sum(1 << i for i, k in enumerate(_KINDS) if Options.restricted_kind(k)),  # R4.3
        tuple(rules.exposure_factor(k) for k in _KINDS),  # R4.2, R10
        rules.auto_fourth_applies,  # 逼明
        sum(1 << k for k, c in enumerate(EXPOSABLE) if c in rules.mandatory_cards),  # R4.4
    )


def _options_block(rules: Options) -> npt.NDArray[np.float32]:
    """The observation's options block (constant for given options), as the encoding writes it."""
    vector = features.encode(observe(Deal.new(rules, 0), Seat.N))
    return np.ascontiguousarray(vector[OFFSET["decks"]:], dtype=np.float32)


class BatchEnv:
    """``n`` one-deck deals under ``preset`` (R9) with ``options`` (R10 keys) overridden, dealt
    from ``seed`` and stepped on ``threads`` OS threads (see the module docstring)."""

    def __init__(self, n: int, preset: str = "online", options: dict[str, Any] | None = None, seed: int = 0,
                 threads: int = 1) -> None:
        rules = resolve_options(preset, options)
        if rules.decks != 1:
            raise ValueError(
                "BatchEnv steps one-deck deals on the C fast path: decks=2 is not supported here "
                "(gongzhu.env.aec.GongzhuEnv plays two-deck deals)"
            )
        if _BATCH is None:
            raise SearchUnavailableError(
                "gongzhu.env.batch.BatchEnv needs gongzhu's C extension gongzhu.rules._fastplay, which is "
                "not built in this installation: reinstall gongzhu where a C compiler is present "
                "(e.g. pip install --force-reinstall --no-binary gongzhu gongzhu, or pip install -e . "
                "in a checkout); gongzhu.env.aec.GongzhuEnv runs without it"
            )
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n (the number of deals) must be a positive integer, not {n!r}")
        self.rules: Options = rules
        self.preset = preset
        self.n = n
        self.observations = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self.action_masks = np.zeros((n, N_ACTIONS), dtype=np.int8)
        self.to_act = np.zeros(n, dtype=np.int8)
        self.dones = np.zeros(n, dtype=np.bool_)
        self.rewards = np.zeros((n, 4), dtype=np.float32)
        self.raw = np.zeros((n, 4), dtype=np.int64)
        self.takers = np.full((n, 2), -1, dtype=np.int8)
        layout = (*(OFFSET[name] for name in _LAYOUT), OBS_SIZE)
        self._batch = _BATCH(n, seed & _MASK64, threads, _c_options(rules), layout, _options_block(rules),
                             self.observations, self.action_masks, self.to_act, self.dones, self.raw, self.takers)

    # ------------------------------------------------------------------ stepping

    def reset(self, seed: int | None = None) -> None:
        """Deal a fresh deal into every slot: deal 0 of each from ``seed`` (the last seed when
        None), and write the arrays."""
        self._batch.reset((self.seed if seed is None else seed) & _MASK64)
        self.rewards.fill(0.0)

    def step(self, actions: npt.ArrayLike, *, observe: bool = True) -> int:
        """Take one action in every deal (``actions``: ``n`` ints, each legal by its row of
        ``action_masks``); returns how many deals ended (``dones``, ``rewards``).  With
        ``observe=False`` the observations are not written (the masks, seats to act, dones and
        rewards are)."""
        a = np.asarray(actions)
        if a.dtype.kind not in "iu":
            raise TypeError(f"actions: expected integers (action indices), not {a.dtype}")
        a = np.ascontiguousarray(a, dtype=np.int64)
        if a.shape != (self.n,):
            raise ValueError(f"actions: expected {self.n} actions (one per deal), got shape {a.shape}")
        ended = self._batch.step(a, observe)
        self.rewards.fill(0.0)
        if ended:
            done = np.flatnonzero(self.dones)
            self.rewards[done] = [self._result(raw, pig, sheep)
                                  for raw, (pig, sheep) in zip(self.raw[done].tolist(), self.takers[done].tolist(),
                                                               strict=True)]
        return ended

    def _result(self, raw: list[int], pig: int, sheep: int) -> tuple[int, int, int, int]:
        """R7 of a finished deal, from its raw scores (R6) and who took the pig and the sheep."""
        result, _ = results(self.rules, raw, _SEATS[pig], _SEATS[sheep])
        return result

    # ------------------------------------------------------------------ reading

    @property
    def seed(self) -> int:
        """The seed of the deals dealt since the last reset."""
        return self._batch.seed

    @property
    def threads(self) -> int:
        """The OS threads a step runs on (1..256; the results do not depend on it)."""
        return self._batch.threads

    @threads.setter
    def threads(self, value: int) -> None:
        self._batch.threads = value

    @property
    def deals_finished(self) -> int:
        """Deals finished (in all slots) since the last reset."""
        return self._batch.finished

    def deal_number(self, i: int) -> int:
        """``j``: slot ``i`` holds its deal ``j`` (0 after a reset, one more per finished deal)."""
        return self._batch.deal_number(i)

    def hands(self, i: int) -> tuple[tuple[Card, ...], ...]:
        """The four hands (N, E, S, W) of the deal in slot ``i`` as dealt, each in the order its
        cards were received (R3): ``Deal(env.rules, env.hands(i))`` is that deal at its start."""
        return tuple(tuple(ALL_CARDS[c] for c in hand) for hand in self._batch.dealt(i))

    def legal_actions(self, i: int) -> list[int]:
        """The legal actions of the seat to act in slot ``i`` (its mask's ones)."""
        return self._batch.legal_actions(i)

    def __repr__(self) -> str:
        return f"<BatchEnv n={self.n} preset={self.preset!r} threads={self.threads} finished={self.deals_finished}>"
