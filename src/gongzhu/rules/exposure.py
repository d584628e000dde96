"""What each seat sees of the exposures (亮牌, R4.4).

Shown, first-card and automatic exposures are public.  A hidden exposure (暗卖) is known to its
own seat; every other seat, and someone who sits at no seat, sees only that the seat made one,
until it plays that card: then it is public too.  With two decks each play of the card reveals
one hidden copy (R4.5).  A player's observation and the game server's views of a table both
ask :func:`visible_exposures`.

Imports :mod:`gongzhu.rules.cards` and :mod:`gongzhu.rules.model` only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from gongzhu.rules.cards import Card, Seat
from gongzhu.rules.model import Exposure

__all__ = ["visible_exposures"]


def visible_exposures(exposures: Sequence[Exposure], seat: Seat | None, played: Iterable[tuple[Seat, Card]]
                      ) -> tuple[tuple[Exposure, ...], tuple[int, int, int, int]]:
    """The exposures ``seat`` sees (None: someone who sits at no seat), in declaration order, and
    the hidden ones it does not, counted per seat.  ``played`` is every card played so far with
    who played it: another seat's hidden exposure (暗卖) shows as a count until that seat has
    played the card (R4.4), one copy per play with two decks."""
    plays_by = Counter(played)
    visible: list[Exposure] = []
    hidden = [0, 0, 0, 0]
    for e in exposures:
        if e.kind == "hidden" and e.seat != seat:
            if plays_by[(e.seat, e.card)] > 0:
                plays_by[(e.seat, e.card)] -= 1
                visible.append(e)
            else:
                hidden[e.seat] += 1
            continue
        visible.append(e)
    return tuple(visible), (hidden[0], hidden[1], hidden[2], hidden[3])
