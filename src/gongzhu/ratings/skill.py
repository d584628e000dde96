"""A person's skill rating and how one deal moves it (docs/ratings.md).

The rating is ``openskill``'s Plackett–Luce model (Weng and Lin's Bayesian approximation, the
multiplayer relative of TrueSkill): each person has a mean skill ``mu`` and an uncertainty
``sigma``; a deal between people orders its sides by their R7 results (ties allowed) and moves
every side's ``mu`` and lowers its ``sigma`` by how surprising that order was.  A side is one
person, or under partnership scoring the people of one partnership.  Computers do not take part:
only the people at a table are ordered among themselves.

Shown on a 1500 scale: ``rating = 1500 + 40 (mu - 25)``, ``deviation = 40 sigma`` (a new person
1500 ± 333).  A rating is *provisional* while its deviation is above :data:`PROVISIONAL_DEVIATION`
(as lichess does with Glicko-2's).  Ratings are kept apart per family of presets
(:data:`FAMILIES`): one deck, two decks, partners.

May import the rules core (options).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from gongzhu.rules.options import Options

__all__ = ["DEFAULT", "FAMILIES", "PROVISIONAL_DEVIATION", "SCALE", "Skill", "family_of", "placed_last", "rate_deal"]

#: The families of presets a person is rated in, apart.
FAMILIES = ("one_deck", "two_decks", "partners")
#: Points of the shown rating per unit of the model's skill.
SCALE = 40.0
#: A rating is provisional while its deviation (shown scale) is above this.
PROVISIONAL_DEVIATION = 110

_MODEL = PlackettLuce()


@dataclass(frozen=True, slots=True)
class Skill:
    """One person's rating in one family: the model's ``mu`` and ``sigma``, and the deals rated."""

    mu: float
    sigma: float
    games: int = 0

    @property
    def rating(self) -> int:
        """The rating shown: 1500 for a new person."""
        return round(1500 + SCALE * (self.mu - _MODEL.mu))

    @property
    def deviation(self) -> int:
        """Its uncertainty on the shown scale (one standard deviation)."""
        return round(SCALE * self.sigma)

    @property
    def provisional(self) -> bool:
        return self.deviation > PROVISIONAL_DEVIATION

    @property
    def ordinal(self) -> float:
        """A cautious estimate (the rating less three deviations): a sort key that a lucky few
        deals cannot push up."""
        return self.rating - 3 * SCALE * self.sigma

    def shown(self) -> dict[str, object]:
        """As a seat plate shows it: rating, deviation, provisional."""
        return {"rating": self.rating, "deviation": self.deviation, "provisional": self.provisional}

    def view(self) -> dict[str, object]:
        """As the profile and the API show it: :meth:`shown` and the deals rated."""
        return {**self.shown(), "games": self.games}


#: A person never rated.
DEFAULT = Skill(_MODEL.mu, _MODEL.sigma, 0)


def family_of(options: Options) -> str:
    """The family of presets a deal under ``options`` is rated in."""
    if options.partnership:
        return "partners"
    return "two_decks" if options.decks == 2 else "one_deck"


def placed_last(sides: Sequence[tuple[tuple[str, ...], int]],
                last: Collection[str]) -> tuple[tuple[tuple[str, ...], int], ...]:
    """``sides`` with every side holding one of ``last`` placed below every other side, those
    placed last in the order of their results (level where level): :func:`rate_deal` reads only
    the order of the results, so theirs are moved down by the spread of all of them."""
    if not sides:
        return ()
    below = max(r for _, r in sides) - min(r for _, r in sides) + 1
    return tuple((members, r - below if set(members) & set(last) else r) for members, r in sides)


def rate_deal(skills: Mapping[str, Skill], sides: Sequence[tuple[Sequence[str], int]]) -> dict[str, Skill]:
    """The new skills of the people of one deal: ``sides`` are the deal's sides, each its people
    (ids) and its R7 result (a partnership's: its members' common result), at least two sides;
    ``skills`` their skills before (a person missing is new).  Each person's ``games`` goes up by
    one.  Raises ValueError for fewer than two sides, an empty side or a person on two sides."""
    if len(sides) < 2:
        raise ValueError(f"a rated deal has at least two sides, not {len(sides)}")
    people = [p for members, _ in sides for p in members]
    if any(not members for members, _ in sides) or len(set(people)) != len(people):
        raise ValueError("each side of a rated deal is one or more people, each on one side")
    teams = [[_MODEL.rating(mu=skills.get(p, DEFAULT).mu, sigma=skills.get(p, DEFAULT).sigma) for p in members]
             for members, _ in sides]
    rated = _MODEL.rate(teams, scores=[float(result) for _, result in sides])
    out: dict[str, Skill] = {}
    for (members, _), team in zip(sides, rated, strict=True):
        for person, after in zip(members, team, strict=True):
            out[person] = Skill(after.mu, after.sigma, skills.get(person, DEFAULT).games + 1)
    return out
