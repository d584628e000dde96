"""The rules core: cards, options, dealing, exposure, play, scoring, matches and boards (R1–R10).

Pure computation, no I/O.  This package imports nothing from the rest of ``gongzhu`` but the
message catalog (``gongzhu.messages``, whose keys its refusals carry; it reads its own package
files); every other layer builds on it and none re-implements a rule.  A one-deck :class:`Deal`
plays on an optional C board, a two-deck one on the Python rules, and outer layers read a deal
only through its public API (``position()``, ``declare``/``play`` and the action records they
return, ``legal_plays()``, ``copy()``); ``rules.md`` is the rule book, shipped with the package.
The state, the API and the C extensions: docs/architecture.md, One state per deal.
"""

from gongzhu.rules.boards import Board, BoardSet, deal_board, make_board_set, verify_board_set
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
from gongzhu.rules.errors import (
    BoardError,
    CardError,
    CommitmentError,
    DealError,
    GongzhuError,
    IllegalPlayError,
    OptionError,
)
from gongzhu.rules.match import TITLES, Match, MatchGoal, MatchOutcome, match_goal, match_over, title_for
from gongzhu.rules.model import Action, CardPlay, Declaration, Exposure, LegalPlays, Play, Position, Trick
from gongzhu.rules.options import OPTION_KEYS, PRESETS, Options, parse_option_assignment, resolve_options
from gongzhu.rules.scoring import DealScore, SeatScore, raw_scores, results, score_deal, seat_scores

__all__ = [
    "AH",
    "ALL_CARDS",
    "C_BOARD",
    "EXPOSABLE",
    "JD",
    "OPTION_KEYS",
    "PRESETS",
    "QS",
    "TC",
    "TITLES",
    "Action",
    "Board",
    "BoardError",
    "BoardSet",
    "Card",
    "CardError",
    "CardPlay",
    "CommitmentError",
    "Deal",
    "DealError",
    "DealScore",
    "Declaration",
    "Exposure",
    "GongzhuError",
    "IllegalPlayError",
    "LegalPlays",
    "Match",
    "MatchGoal",
    "MatchOutcome",
    "OptionError",
    "Options",
    "Phase",
    "Play",
    "Position",
    "Rank",
    "Seat",
    "SeatScore",
    "Suit",
    "Trick",
    "deal_board",
    "deal_hands",
    "deal_seed",
    "make_board_set",
    "match_goal",
    "match_over",
    "next_seat",
    "parse_card",
    "parse_cards",
    "parse_option_assignment",
    "raw_scores",
    "resolve_options",
    "results",
    "score_deal",
    "seat_scores",
    "title_for",
    "verify_board_set",
]
