"""The C fast path's test grid and its checks against the reference rules (``gongzhu.search.fast``):
every one-deck preset under a set of option variants, deals played at random to a point, and a
C playout replayed step by step through :class:`~gongzhu.rules.Deal`."""

from __future__ import annotations

import random
from typing import Any

from gongzhu.rules import ALL_CARDS, EXPOSABLE, Deal, Options, Phase, Seat
from gongzhu.search.fast import FastPosition, PlayoutTrace, encode

from .deals import declare_random_exposures, one_deck_option_sets

__all__ = ["ONE_DECK_OPTION_SETS", "ONE_DECK_OVERRIDES", "played_deal", "python_deal", "replay_playout"]

ONE_DECK_OVERRIDES: list[dict[str, Any]] = [
    {},
    {"discard_color": "enforce"},
    {"discard_color": "penalty"},
    {"exposed_discard_before_suit_led": True},
    {"heart_values": "book"},
    {"self_catch": True},
    {"direction": "cw"},
    {"direction": "ccw"},
    {"exposure": "hidden"},
    {"exposure": "sell_x4_x2"},
    {"exposure": "first_card"},
    {"exposure": "all"},
    {"exposure": "all_but_sheep"},
    {"first_lead": "club2_any"},
    {"first_lead": "spade3_any"},
    {"auto_expose_fourth": True},
    {"discard_color": "penalty", "exposed_discard_before_suit_led": True, "self_catch": True},
    {"discard_color": "enforce", "heart_values": "book", "direction": "cw"},
]

#: Every one-deck preset under each of :data:`ONE_DECK_OVERRIDES` (the C fast path's test grid).
ONE_DECK_OPTION_SETS = one_deck_option_sets(ONE_DECK_OVERRIDES)


def played_deal(
    options: Options, seed: int, n_plays: int, expose_p: float = 0.5, later: bool = False
) -> Deal:
    """A deal dealt from ``seed``, random exposures declared (R4), ``n_plays`` random plays."""
    rng = random.Random(seed * 7919 + 17)
    prev = Seat(rng.randrange(4)) if later else None
    deal = Deal.new(options, seed, deal_index=1 if later else 0, previous_pig_taker=prev)
    declare_random_exposures(deal, rng, expose_p)
    assert deal.phase == Phase.PLAY
    for _ in range(n_plays):
        if deal.is_over:
            break
        deal.play(rng.choice(deal.legal_plays())[0])
    return deal


def python_deal(options: Options, pos: FastPosition) -> Deal:
    """The deal of ``random_deal_trace``'s position built through the reference ``Deal``."""
    hands = [[c for c in ALL_CARDS if pos.hands[s] >> c.index & 1] for s in range(4)]
    deal = Deal(options, hands)
    if deal.phase == Phase.EXPOSE:
        kind = "hidden" if options.exposure == "hidden" else "shown"
        for seat in Seat:
            # Under hidden, a restricted exposed card can only be the automatic fourth (R4.4),
            # which Deal applies itself.
            mine = [(c, kind) for k, c in enumerate(EXPOSABLE)
                    if pos.factors[k] > 1 and pos.dealt_to[k] == seat
                    and not (kind == "hidden" and pos.restricted[seat] >> c.index & 1)]
            deal.declare(seat, mine)
    assert deal.phase == Phase.PLAY
    assert encode(deal) == pos
    return deal


def replay_playout(deal: Deal, start: FastPosition, trace: PlayoutTrace) -> None:
    """Replay a C playout through Deal.play, checking every step against the reference."""
    pos = start
    assert len(trace.cards) == len(trace.legal)
    for c, legal in zip(trace.cards, trace.legal, strict=True):
        assert not deal.is_over
        assert encode(deal) == pos, "C position differs from the encoded Python position"
        assert deal.legal_mask() == legal == pos.legal_mask()
        assert legal >> c & 1, f"C played {ALL_CARDS[c]}, not legal"
        deal.play(ALL_CARDS[c])
        pos = pos.play(c)
    assert deal.is_over and pos.is_over
    assert pos.legal_mask() == 0
    assert deal.score.raw == trace.raw == pos.raw_scores()
    hands_empty: tuple[int, int, int, int] = (0, 0, 0, 0)
    assert pos.hands == hands_empty
    for s in range(4):
        assert pos.captured[s] == sum(1 << c.index for c in deal.captured(Seat(s)))
