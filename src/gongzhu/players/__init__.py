"""Computer players.  They choose exposures and plays for one seat, from an
:class:`~gongzhu.players.observation.Observation` of a :class:`gongzhu.rules.Deal`: the seat's
own hand and what is public, never the other hands.

May import ``gongzhu.rules``, ``gongzhu.formats`` and ``gongzhu.jsontext``; the rules core never imports
this package.
"""

from gongzhu.players.base import Player
from gongzhu.players.observation import Observation, observe
from gongzhu.players.random_player import RandomPlayer
from gongzhu.players.registry import LEVELS, make_player

__all__ = ["LEVELS", "Observation", "Player", "RandomPlayer", "make_player", "observe"]
