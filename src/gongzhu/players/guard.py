"""Asking a computer player for a decision without letting its failure stop a game.

Every place that runs players for others — the arena, the bot protocol, the server's tables,
hints — goes through :func:`safe_play` and :func:`safe_exposures`.  A player that raises, or
answers a play that is not one of the seat's legal plays (a declaration the rules refuse, R4),
is logged (with the traceback) and replaced for that one decision: first by the rule-based
intermediate player, and should that fail too, by the first legal play (or no exposure).  The
game goes on either way.  A caller that wants to know how often that happened passes a list as
``stand_ins``: one line is appended to it per decision made by a stand-in.

Only :class:`Exception` is caught: ``KeyboardInterrupt`` and ``SystemExit`` go through.

May import ``gongzhu.rules`` and the rest of ``gongzhu.players``.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from typing import TypeVar

from gongzhu.players.base import Player
from gongzhu.players.observation import Observation
from gongzhu.rules.cards import Card
from gongzhu.rules.deal import check_declaration
from gongzhu.rules.errors import GongzhuError
from gongzhu.rules.model import Play

__all__ = ["safe_exposures", "safe_play"]

log = logging.getLogger("gongzhu.players")
T = TypeVar("T")


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


def _declaration(answer: object, obs: Observation) -> list[tuple[Card, str]] | None:
    """``answer`` as ``(card, kind)`` pairs the rules accept from the seat now (R4.1, R4.4, as
    :func:`~gongzhu.rules.deal.check_declaration` checks it for :meth:`Deal.verify_declare`),
    else None."""
    if not isinstance(answer, list | tuple) or not all(
            isinstance(item, Card) or (isinstance(item, tuple | list) and len(item) == 2
                                       and isinstance(item[0], Card) and isinstance(item[1], str))
            for item in answer):
        return None
    held = Counter(obs.hand)
    items = [item if isinstance(item, Card) else (item[0], item[1]) for item in answer]
    try:
        return check_declaration(obs.options, obs.seat, items, lambda c: held[c], obs.first_card)
    except GongzhuError:
        return None


def _note(stand_ins: list[str] | None, line: str) -> None:
    if stand_ins is not None:
        stand_ins.append(line)


def _decide(label: str, what: str, player: Player, obs: Observation, ask: Callable[[Player], object],
            check: Callable[[object], T | None], last: T, *, where: str, stand_ins: list[str] | None) -> T:
    """``check(ask(player))``; should the player fail or answer what ``check`` refuses (None),
    the intermediate player's answer, and should that fail too, ``last``.  ``label`` names the
    decision in ``stand_ins`` (``play``), ``what`` in the log (``a play``)."""
    game = where or "game"
    try:
        chosen = check(ask(player))
        if chosen is not None:
            return chosen
        log.error("%s: the %s player for %s answered %s the rules do not allow; the intermediate player "
                  "stands in", game, player.level, obs.seat.name, what)
        _note(stand_ins, f"{obs.seat.name} {label}: the {player.level} player answered {what} the rules do not allow")
    except Exception as e:
        log.exception("%s: the %s player for %s failed to choose %s; the intermediate player stands in",
                      game, player.level, obs.seat.name, what)
        _note(stand_ins, f"{obs.seat.name} {label}: the {player.level} player failed ({type(e).__name__}: {e})")
    try:
        chosen = check(ask(_stand_in()))
        if chosen is not None:
            return chosen
        log.error("%s: the intermediate player's answer was not allowed either; taking the first legal one", game)
    except Exception:
        log.exception("%s: the intermediate player failed too; taking the first legal one", game)
    return last


def safe_play(player: Player, obs: Observation, *, where: str = "", stand_ins: list[str] | None = None) -> Play:
    """``player``'s play for ``obs`` — always one of ``obs.legal_plays()`` (see the module
    docstring); the first legal play if even the stand-in fails.  ``where`` names the game for
    the log (a match id, an arena deal); a decision made by a stand-in adds a line to
    ``stand_ins`` when it is given."""
    legal = obs.legal_plays()
    if not legal:
        raise ValueError(f"{obs.seat.english} has no play to make: it is not their turn")
    return _decide("play", "a play", player, obs, lambda p: p.choose_play(obs), lambda answer: _legal(answer, legal),
                   legal[0], where=where, stand_ins=stand_ins)


def safe_exposures(player: Player, obs: Observation, *, where: str = "",
                   stand_ins: list[str] | None = None) -> list[tuple[Card, str]]:
    """``player``'s exposures for ``obs`` as ``(card, kind)`` pairs the rules accept from the
    seat (``Deal.declare`` takes them); on a failure or a declaration the rules refuse, the
    intermediate player's, or none.  ``where`` and ``stand_ins`` as for :func:`safe_play`."""
    return _decide("exposures", "exposures", player, obs, lambda p: p.choose_exposures(obs),
                   lambda answer: _declaration(answer, obs), [], where=where, stand_ins=stand_ins)
