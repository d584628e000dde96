"""Search over deals: the C fast paths that the expert player's Monte-Carlo search and the
benchmarks run on — encoding a position, legal plays, playouts with playout policies, scoring.

- :mod:`gongzhu.search.fast` — one deck (``gongzhu.rules._fastplay``);
- :mod:`gongzhu.search.fast2` — two decks (``gongzhu.rules._fastplay2``);
- :mod:`gongzhu.search.solver` — the exact open-card solver of one-deck positions
  (``_fastsolve.h`` in ``gongzhu.rules._fastplay``), for deal review and endgames;
- :mod:`gongzhu.search.solver2` — the exact open-card solver of two-deck positions from 6 cards a
  hand (a search in Python over :mod:`~gongzhu.search.fast2`'s moves and scores).

They are fast copies of the reference rules in :mod:`gongzhu.rules.deal`, held to them play by
play by the tests (``tests/test_fast.py``, ``tests/test_fast2.py``).  They read a deal only
through its public snapshot, :meth:`Deal.position <gongzhu.rules.deal.Deal.position>`.

The C sources stay in ``src/gongzhu/rules/`` (``_fastplay.c``, ``_fastplay2.c``,
``_fastcommon.h``), built by ``setup.py`` as ``gongzhu.rules._fastplay`` / ``_fastplay2``:
``_fastplay.Board`` is also the state of a one-deck :class:`~gongzhu.rules.deal.Deal`, and
both extensions share one header.  They are optional: without a C compiler gongzhu installs
and plays on the Python rules, :data:`AVAILABLE` is False, and :func:`require` (called by
players that search) raises :class:`SearchUnavailableError` saying so.

May import ``gongzhu.rules`` (its public modules and the two C extensions); the rules core never
imports this package, and players import it.
"""

from __future__ import annotations

from typing import Final, TypeAlias

__all__ = ["AVAILABLE", "POLICY_HEURISTIC", "POLICY_UNIFORM", "Policy", "SearchUnavailableError", "require"]

#: Playout policy: uniform over the legal plays at every step.
POLICY_UNIFORM: Final = 0
#: Playout policy: a cheap heuristic player (``policy_heuristic`` in ``_fastplay.c``, and its
#: two-deck counterpart).  It plays like a sensible human from what the mover may know (its
#: hand, the trick, the cards still out, the cards taken, the exposures): follow with the highest
#: card under the trick's winner; win a clean trick last with a high card; dump ♠Q, then ♥A K Q J,
#: then ♠A/♠K while ♠Q is out; keep the ♦J and take tricks worth taking (the sheep); lead low in
#: the safest suit, low spades to flush the pig when holding none of ♠Q ♠K ♠A.  About 10% of its
#: choices are uniformly random (and lead ties break at random), so playouts from one position
#: differ.
POLICY_HEURISTIC: Final = 1
#: A playout policy id, or four ids: one per seat (N, E, S, W).
Policy: TypeAlias = int | tuple[int, int, int, int]


def _available() -> bool:
    try:
        import gongzhu.rules._fastplay
        import gongzhu.rules._fastplay2  # noqa: F401
    except ImportError:
        return False
    return True


#: Whether the C extensions are built (so :mod:`gongzhu.search.fast` and ``fast2`` import).
AVAILABLE: Final = _available()


class SearchUnavailableError(RuntimeError):
    """The C search extensions are not built in this installation."""


def require(what: str) -> None:
    """Raise :class:`SearchUnavailableError` naming ``what`` needs the search when the C
    extensions are not built."""
    if not AVAILABLE:
        raise SearchUnavailableError(
            f"{what} needs gongzhu's C search extensions (gongzhu.rules._fastplay, _fastplay2), "
            "which are not built in this installation: reinstall gongzhu where a C compiler is "
            "present (e.g. pip install --force-reinstall --no-binary gongzhu gongzhu, or "
            "pip install -e . in a checkout)"
        )
