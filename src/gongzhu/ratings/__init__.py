"""Skill ratings of people (docs/ratings.md): a multiplayer Bayesian rating kept by the
``openskill`` library (Weng–Lin, Plackett–Luce), from the R7 results of deals between people —
each player alone, or partnerships as teams — per family of presets (one deck, two decks,
partners), shown on a 1500 scale with its uncertainty.

- :mod:`gongzhu.ratings.skill`  a person's rating, its families, and rating one deal (some of its
  sides placed last).

May import ``gongzhu.rules`` (options: which family a deal belongs to); nothing of the server.
"""

from gongzhu.ratings.skill import (
    DEFAULT,
    FAMILIES,
    PROVISIONAL_DEVIATION,
    Skill,
    family_of,
    placed_last,
    rate_deal,
)

__all__ = ["DEFAULT", "FAMILIES", "PROVISIONAL_DEVIATION", "Skill", "family_of", "placed_last", "rate_deal"]
