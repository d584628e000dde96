"""The rules core: cards, options, dealing, exposure, play, scoring and matches (R1–R10).

Pure computation, no I/O.  This package imports nothing from the rest of ``gongzhu`` but the
message catalog (``gongzhu.messages``, whose keys its refusals carry; it reads its own package
files); every other layer (records, players, search, command line, servers) builds on it and
none re-implements a rule.

One state per deal.  The Python rules in :mod:`gongzhu.rules.deal` are the readable reference.
A one-deck :class:`Deal` plays on a C board (``_fastplay.Board``, built from ``_fastplay.c``):
the board is its state and the Python fields are its readable mirror, pulled when a slow path
reads them.  A two-deck deal plays on the Python fields.  Outer layers read a deal only through
its public API, never its private fields:

- ``deal.position()`` — a frozen :class:`Position` (hands, exposed cards still restricted, the
  trick, leader, turn, led suit, penalty offender, suits led, the ♣2 first-lead flag, cards
  taken), which the search (:mod:`gongzhu.search`) encodes;
- ``deal.declare(...)`` and ``deal.play(...)`` return action records, :class:`Declaration` and
  :class:`CardPlay` (the play that completes a trick carries the :class:`Trick`, with its winner
  and taker); ``deal.actions`` lists them in order, and ``deal.undo()`` keeps it consistent;
- ``deal.legal_plays()`` — :class:`LegalPlays`, a tuple of plays that also answers
  ``"QS" in deal.legal_plays()`` (a :class:`Card`, ``("QS", "QS")``, ``"QS QS"``);
- ``deal.copy()`` — an independent deal at the same position.

The C extensions (``_fastplay.c`` for one deck, ``_fastplay2.c`` for two, sharing
``_fastcommon.h``) are built here by ``setup.py`` and are optional: without them
(:data:`C_BOARD` is False; a ``RuntimeWarning`` says so once) every deal plays on the Python
rules — the same deals, records and scores, only slower — and the search is unavailable.  The
search code that runs on them (encoding, playouts, playout policies) lives in
:mod:`gongzhu.search`; the tests hold the C copies to the Python rules play by play.
``rules.md`` is the rule book itself, shipped with the package (in the repository a link to
``docs/rules.md``, its one copy).
"""

from gongzhu.rules.cards import (
    AH,
    ALL_CARDS,
    EXPOSABLE,
    JD,
    QS,
    TC,
    Card,
    Rank,
    Seat,
    Suit,
    parse_card,
    parse_cards,
)
from gongzhu.rules.deal import C_BOARD, Deal, Phase
from gongzhu.rules.dealing import deal_hands, deal_seed, next_seat
from gongzhu.rules.errors import CardError, DealError, GongzhuError, IllegalPlayError, OptionError
from gongzhu.rules.match import TITLES, Match, MatchGoal, MatchOutcome, match_goal, match_over, title_for
from gongzhu.rules.model import Action, CardPlay, Declaration, Exposure, LegalPlays, Play, Position, Trick
from gongzhu.rules.options import OPTION_KEYS, PRESETS, Options, parse_option_assignment, resolve_options
from gongzhu.rules.scoring import DealScore, SeatScore, raw_scores, results, score_deal, seat_scores

__all__ = [
    "AH", "ALL_CARDS", "C_BOARD", "EXPOSABLE", "JD", "OPTION_KEYS", "PRESETS", "QS", "TC", "TITLES",
    "Action", "Card", "CardError", "CardPlay", "Deal", "DealError", "DealScore", "Declaration", "Exposure",
    "GongzhuError", "IllegalPlayError", "LegalPlays", "Match", "MatchGoal", "MatchOutcome", "OptionError", "Options",
    "Phase", "Play", "Position", "Rank",
    "Seat", "SeatScore", "Suit", "Trick", "deal_hands", "deal_seed", "match_goal", "match_over", "next_seat",
    "parse_card", "parse_cards", "parse_option_assignment", "raw_scores", "resolve_options", "results",
    "score_deal", "seat_scores", "title_for",
]
