"""The learned level with the expert taking one kind of decision: where its gap to the expert is.

A research player for the arena (``learned-expert-KIND``): :class:`MixedPlayer` hands the
decisions of the kinds it is given to the expert and plays every other one as the learned level
does.  Played against the intermediate on the same deals as the learned level, what it gains is
what the network's decisions of that kind cost in whole deals, the arena's measure, where the
regret report (:mod:`gongzhu.learning.regret`) gives the expert's estimate of each decision alone.

The kinds are those of the learned level's data (:data:`DECISION_KINDS`): the declaration of
exposures (R4), a lead, a card of the suit led (a seat that holds it must follow it, R5.2) and a
discard on another suit.  With one deck :func:`play_kind` is what the data reads from an
observation vector (``gongzhu.learning.data.kinds_of``); with two, a pair led and answered with
cards of its suit (R5.3) is a follow here, where the vector, which marks the single cards a seat
may play, cannot tell it from a discard.
"""

from __future__ import annotations

from collections.abc import Iterable

from gongzhu.players.base import Player
from gongzhu.players.observation import Observation
from gongzhu.rules.cards import Card
from gongzhu.rules.model import Play

__all__ = ["DECISION_KINDS", "MixedPlayer", "decision_kinds", "play_kind"]

#: What a decision is: a declaration, a lead, a card of the suit led, a discard on another suit.
DECISION_KINDS = ("declare", "lead", "follow", "discard")


def decision_kinds(kinds: Iterable[str]) -> frozenset[str]:
    """``kinds`` as a set, checked: at least one, each of :data:`DECISION_KINDS`."""
    chosen = frozenset(kinds)
    unknown = sorted(chosen - set(DECISION_KINDS))
    if unknown or not chosen:
        raise ValueError(f"kinds must be some of {', '.join(DECISION_KINDS)}, not {', '.join(unknown) or 'none'}")
    return chosen


def play_kind(obs: Observation) -> str:
    """``lead``, ``follow`` or ``discard``: the kind of the play ``obs`` asks for — the first
    of its trick; one where a legal play holds a card of the suit led; or another."""
    if not obs.trick:
        return "lead"
    led = obs.trick[0][1][0].suit
    return "follow" if any(c.suit == led for play in obs.legal for c in play) else "discard"


class MixedPlayer(Player):
    """Plays as ``learned`` except for the decisions of ``kinds``, which ``expert`` takes (see
    the module docstring)."""

    level = "learned-expert"

    def __init__(self, learned: Player, expert: Player, kinds: Iterable[str]) -> None:
        self.learned = learned
        self.expert = expert
        self.kinds = decision_kinds(kinds)

    def choose_exposures(self, obs: Observation) -> list[tuple[Card, str]]:
        chooser = self.expert if "declare" in self.kinds else self.learned
        return chooser.choose_exposures(obs)

    def choose_play(self, obs: Observation) -> Play:
        chooser = self.expert if play_kind(obs) in self.kinds else self.learned
        return chooser.choose_play(obs)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(kinds={sorted(self.kinds)!r})"
