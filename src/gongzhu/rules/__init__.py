"""The rules core: cards, options, dealing, exposure, play, scoring and matches (R1–R10).

Pure computation, no I/O.  This package imports nothing from the rest of ``gongzhu``; every
other layer (records, players, command line, servers) builds on it and none re-implements a rule.
Besides the reference rules in Python it holds their fast copies in C for search: ``fast``
(``_fastplay.c``: one deck, also the board under ``Deal``) and ``fast2`` (``_fastplay2.c``: two
decks), sharing ``_fastcommon.h``; the tests check them play by play against the reference.
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
from gongzhu.rules.deal import Deal, Phase
from gongzhu.rules.dealing import deal_hands, deal_seed, next_seat
from gongzhu.rules.errors import CardError, DealError, GongzhuError, IllegalPlayError, OptionError
from gongzhu.rules.match import TITLES, Match, MatchOutcome, match_over, title_for
from gongzhu.rules.model import Exposure, Play, Trick
from gongzhu.rules.options import OPTION_KEYS, PRESETS, Options, parse_option_assignment, resolve_options
from gongzhu.rules.scoring import DealScore, raw_scores, results, score_deal

__all__ = [
    "AH", "ALL_CARDS", "EXPOSABLE", "JD", "OPTION_KEYS", "PRESETS", "QS", "TC", "TITLES",
    "Card", "CardError", "Deal", "DealError", "DealScore", "Exposure", "GongzhuError",
    "IllegalPlayError", "Match", "MatchOutcome", "OptionError", "Options", "Phase", "Play", "Rank",
    "Seat", "Suit", "Trick", "deal_hands", "deal_seed", "match_over", "next_seat", "parse_card",
    "parse_cards", "parse_option_assignment", "raw_scores", "resolve_options", "results",
    "score_deal", "title_for",
]
