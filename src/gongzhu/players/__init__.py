"""Computer players.  They choose exposures and plays for one seat of a
:class:`gongzhu.rules.Deal`.

May import ``gongzhu.rules``; the rules core never imports this package.
"""

from gongzhu.players.base import Player
from gongzhu.players.random_player import RandomPlayer

__all__ = ["Player", "RandomPlayer"]
