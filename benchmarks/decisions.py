"""The decisions of seeded deals, for the benchmarks that measure players on positions.

:func:`decisions` plays one deal with the given players (exposures, then every play) and stops at
each decision with a choice, handing over the deal as it stands and the seat's observation before
the seat plays: ``benchmarks/expert.py``, ``weighting.py`` and ``true_world.py`` take their
positions from it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from gongzhu.players.base import Player
from gongzhu.players.observation import Observation, observe
from gongzhu.rules import Deal, Options


def decisions(options: Options, seed: int, players: Sequence[Player]) -> Iterator[tuple[Deal, Observation]]:
    """Deal ``seed`` under ``options`` played by ``players`` (one a seat, N E S W): at every play
    with more than one legal choice, the deal (not to be changed) and the seat's observation."""
    deal = Deal.new(options, seed)
    for s in deal.undeclared:
        deal.declare(s, players[s].choose_exposures(observe(deal, s)))
    while (turn := deal.turn) is not None:
        obs = observe(deal, turn)
        if len(obs.legal) > 1:
            yield deal, obs
        deal.play(players[turn].choose_play(obs), turn)
