"""Asking a computer player for a decision without letting its failure stop a game.

Every place that runs players for others — the arena, the bot protocol, the server's tables,
hints — goes through :func:`safe_play` and :func:`safe_exposures`.  A player that raises, or
answers a play that is not one of the seat's legal plays, is logged (with the traceback) and
replaced for that one decision: first by the rule-based intermediate player, and should that
fail too, by the first legal play (or no exposure).  The game goes on either way.

May import ``gongzhu.rules`` and the rest of ``gongzhu.players``.
"""

from __future__ import annotations

import logging

from gongzhu.players.base import Player
from gongzhu.players.observation import Observation
from gongzhu.rules.cards import Card
from gongzhu.rules.model import Play

__all__ = ["safe_exposures", "safe_play"]

log = logging.getLogger("gongzhu.players")


def _stand_in() -> Player:
    from gongzhu.players.intermediate import IntermediatePlayer

    return IntermediatePlayer(seed=0)


def _legal(play: object, legal: tuple[Play, ...]) -> Play | None:
    """``play`` as one of ``legal`` (the order of a pair's cards does not matter), else None."""
    if not isinstance(play, tuple | list) or not all(isinstance(c, Card) for c in play):
        return None
    wanted = sorted(c.index for c in play)
    for candidate in legal:
        if sorted(c.index for c in candidate) == wanted:
            return candidate
    return None


def safe_play(player: Player, obs: Observation, *, where: str = "") -> Play:
    """``player``'s play for ``obs`` — always one of ``obs.legal_plays()`` (see the module
    docstring).  ``where`` names the game for the log (a match id, an arena deal)."""
    legal = obs.legal_plays()
    if not legal:
        raise ValueError(f"{obs.seat.english} has no play to make: it is not their turn")
    try:
        chosen = _legal(player.choose_play(obs), legal)
        if chosen is not None:
            return chosen
        log.error("%s: the %s player for %s answered a play that is not legal; the intermediate player "
                  "plays instead", where or "game", player.level, obs.seat.name)
    except Exception:
        log.exception("%s: the %s player for %s failed; the intermediate player plays instead",
                      where or "game", player.level, obs.seat.name)
    try:
        chosen = _legal(_stand_in().choose_play(obs), legal)
        if chosen is not None:
            return chosen
    except Exception:
        log.exception("%s: the intermediate player failed too; playing the first legal play", where or "game")
    return legal[0]


def safe_exposures(player: Player, obs: Observation, *, where: str = "") -> list[tuple[Card, str]]:
    """``player``'s exposures for ``obs``; on a failure the intermediate player's, or none.
    The caller still checks the declaration against the deal (``Deal.verify_declare``)."""
    try:
        return list(player.choose_exposures(obs))
    except Exception:
        log.exception("%s: the %s player for %s failed to declare; the intermediate player declares instead",
                      where or "game", player.level, obs.seat.name)
    try:
        return list(_stand_in().choose_exposures(obs))
    except Exception:
        log.exception("%s: the intermediate player failed too; declaring no exposure", where or "game")
    return []
