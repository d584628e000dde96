"""Research environments: Gongzhu for reinforcement-learning and game-theory code.

- :mod:`gongzhu.env.aec` — a PettingZoo AEC environment for every preset (R9) and any options
  (R10): one deal per episode, the exposure phase (R4) and the play (R5) as turns, the
  observation and action encodings of :mod:`gongzhu.players.features` (docs/env.md).  Needs the
  ``env`` extra (``pip install 'gongzhu[env]'``: PettingZoo, Gymnasium).
- :mod:`gongzhu.env.batch` — many one-deck deals stepped together on the C fast path, their
  observations written into preallocated numpy arrays.

This package imports the rules core, the search's C fast path and the players' encodings (and
numpy; the AEC environment PettingZoo and Gymnasium), nothing from the outer layers.
"""

from __future__ import annotations

__all__ = ["AGENTS"]

#: The agents, one per seat (N, E, S, W), as the environments name them.
AGENTS = ("N", "E", "S", "W")
