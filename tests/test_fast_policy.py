"""Playout policy 1 (``POLICY_HEURISTIC``) and per-seat policies of the C fast path.

Every heuristic playout is replayed through ``Deal.play`` as in ``tests/test_fast.py``: each card
must be in ``Deal.legal_mask`` (R5.2 → R4.3 → discard colour) and the final raw scores must equal
the reference (R6).  Hand-made positions check the rules of the policy (docs/rules.md R12 and the
"拱猪技巧" of the sources), and duplicate deals check that it is much stronger than random play.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gongzhu.rules import ALL_CARDS, EXPOSABLE, Options, Seat
from gongzhu.rules.cards import Card, parse_cards
from gongzhu.rules.options import DiscardColor
from gongzhu.search.fast import (
    POLICY_HEURISTIC,
    POLICY_UNIFORM,
    FastPosition,
    Policy,
    encode,
    encode_parts,
    playout_scores,
    playout_trace,
    random_deal_trace,
    random_deals,
)
from helpers.fastpath import ONE_DECK_OPTION_SETS as OPTION_SETS
from helpers.fastpath import played_deal, python_deal, replay_playout
from helpers.volume import scaled

H, U = POLICY_HEURISTIC, POLICY_UNIFORM
POLICIES: list[Policy] = [H, (H, U, U, U), (U, H, H, U), (H, H, H, U), (U, U, U, H)]


def test_policy_ids() -> None:
    assert (POLICY_UNIFORM, POLICY_HEURISTIC) == (0, 1)
    import gongzhu.rules._fastplay as c

    assert c.POLICY_HEURISTIC == 1 and c.N_POLICIES == 2


# --------------------------------------------------------------------------- legal plays only


@pytest.mark.parametrize(("label", "options"), OPTION_SETS, ids=[lb for lb, _ in OPTION_SETS])
def test_heuristic_deals_replay_in_python(label: str, options: Options) -> None:
    """Fresh C deals played by policy 1 (alone or mixed with 0) under every one-deck option set:
    every card is legal in the reference and the scores agree; random_deals sums exactly them."""
    seed = 7 + len(label)
    for policy in POLICIES[:3]:
        totals = [0, 0, 0, 0]
        n = scaled(4)
        for i in range(n):
            pos, trace = random_deal_trace(options, seed, i, expose_prob=0.5, policy=policy)
            replay_playout(python_deal(options, pos), pos, trace)
            totals = [t + r for t, r in zip(totals, trace.raw, strict=True)]
        assert random_deals(options, n, seed, threads=2, expose_prob=0.5, policy=policy) == tuple(totals)


@settings(max_examples=scaled(300), deadline=None)
@given(
    index=st.integers(0, len(OPTION_SETS) - 1),
    seed=st.integers(0, 2**40),
    n_plays=st.integers(0, 51),
    expose_p=st.sampled_from([0.0, 0.5, 1.0]),
    later=st.booleans(),
    policy=st.sampled_from(POLICIES),
)
def test_heuristic_traces_replay_hypothesis(
    index: int, seed: int, n_plays: int, expose_p: float, later: bool, policy: Policy
) -> None:
    """From any position of a deal (random exposures, random plays so far)."""
    deal = played_deal(OPTION_SETS[index][1], seed, n_plays, expose_p, later)
    if deal.is_over:
        return
    pos = encode(deal)
    trace = playout_trace(deal, seed, policy=policy)
    assert playout_trace(deal, seed, policy=policy) == trace  # determinism
    assert playout_scores(deal, 1, seed, policy=policy) == tuple(float(x) for x in trace.raw)
    replay_playout(deal, pos, trace)


@pytest.mark.parametrize("discard_color", ["off", "enforce", "penalty"])
def test_heuristic_with_restrictions(discard_color: DiscardColor) -> None:
    """Exposed cards (R4.3, with the tournament discard rule) and the discard colour (R5.2)."""
    options = Options(discard_color=discard_color, exposed_discard_before_suit_led=True, self_catch=True)
    for seed in range(30):
        deal = played_deal(options, seed, 0, expose_p=0.8)
        trace = playout_trace(deal, seed, policy=H)
        replay_playout(deal, encode(played_deal(options, seed, 0, expose_p=0.8)), trace)


# --------------------------------------------------------------------------- determinism, API


def test_determinism_and_threads() -> None:
    options = Options()
    for policy in POLICIES:
        a = random_deals(options, 2000, 3, threads=1, policy=policy)
        assert a == random_deals(options, 2000, 3, threads=2, policy=policy)
        assert a == random_deals(options, 2000, 3, threads=7, policy=policy)
        assert a != random_deals(options, 2000, 4, threads=2, policy=policy)
    pos = encode(played_deal(options, 5, 9))
    assert pos.playout_sums(300, 1, policy=H) == pos.playout_sums(300, 1, policy=H)
    assert pos.playout_sums(300, 1, policy=H) != pos.playout_sums(300, 2, policy=H)
    assert pos.playout_sums(300, 1, policy=H) != pos.playout_sums(300, 1, policy=U)
    # The randomness of policy 1 makes playouts from one position differ.
    assert len({tuple(pos.playout_trace(s, policy=H).cards) for s in range(30)}) > 10


def test_four_equal_ids_are_the_single_id() -> None:
    options = Options(exposure="all")
    pos = encode(played_deal(Options(), 6, 13))
    for p in (U, H):
        assert random_deals(options, 500, 9, policy=(p, p, p, p)) == random_deals(options, 500, 9, policy=p)
        assert pos.playout_sums(200, 4, policy=(p, p, p, p)) == pos.playout_sums(200, 4, policy=p)
        assert pos.playout_trace(4, policy=(p, p, p, p)) == pos.playout_trace(4, policy=p)
    assert random_deals(options, 500, 9) == random_deals(options, 500, 9, policy=(U, U, U, U))
    assert random_deals(options, 500, 9, policy=(H, U, U, U)) != random_deals(options, 500, 9, policy=H)


def test_bad_policies() -> None:
    pos = encode(played_deal(Options(), 5, 2))
    for bad in (2, -1, 2**70, (H, U, U, 5)):
        with pytest.raises(ValueError, match="policy"):
            pos.playout_sums(1, 1, policy=bad)
        with pytest.raises(ValueError, match="policy"):
            random_deals(Options(), 1, 1, policy=bad)
    with pytest.raises(ValueError, match="four"):
        pos.playout_trace(1, policy=(H, U, U))  # type: ignore[arg-type]
    for wrong in ("1", 1.0, True, [H, U, U, U]):
        with pytest.raises(TypeError, match="policy"):
            pos.playout_trace(1, policy=wrong)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="policy"):
            random_deal_trace(Options(), 1, 0, policy=wrong)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- its rules


def position(hands: Mapping[str, str], trick: str, turn: str, options: Options | None = None) -> FastPosition:
    """A hand-made position: ``hands`` after the plays of ``trick`` (in playing order), ``turn``
    to play next; cards nobody holds count as played in earlier tricks (suits_led: all)."""
    options = options or Options()
    step = 1 if options.clockwise else 3
    plays = parse_cards(trick)
    mover = Seat.parse(turn)
    leader = (mover - step * len(plays)) % 4
    masks = [0, 0, 0, 0]
    dealt: list[list[Card]] = [[], [], [], []]
    for key, text in hands.items():
        seat = Seat.parse(key)
        for c in parse_cards(text):
            masks[seat] |= 1 << c.index
            dealt[seat].append(c)
    for i, c in enumerate(plays):
        dealt[(leader + step * i) % 4].append(c)
    held = {c for h in dealt for c in h}
    for special in EXPOSABLE:  # played earlier: say North had it
        if special not in held:
            dealt[0].append(special)
    return encode_parts(
        options, hands=masks, restricted=(0, 0, 0, 0), captured=([], [], [], []), exposures=[],
        dealt=dealt, trick=[c.index for c in plays], leader=leader, turn=int(mover),
        led=int(plays[0].suit) if plays else -1, suits_led=0b1111,
    )


def choices(pos: FastPosition, n: int = 300) -> Counter[str]:
    """How often policy 1 plays each card first, over ``n`` seeds."""
    return Counter(ALL_CARDS[pos.playout_trace(seed, policy=H).cards[0]].code for seed in range(n))


def mostly(pos: FastPosition, code: str, share: float = 0.85) -> None:
    counts = choices(pos)
    assert counts[code] >= share * sum(counts.values()), counts


# The positions below are for the default direction (counter-clockwise: N, W, S, E, R1).
# Three cards of the trick played, North (the mover) last; E, S and W are left with two cards.
_REST = {"E": "2D 3D", "S": "4D 5D", "W": "6D 7D"}


def test_discards_the_pig_then_high_hearts() -> None:
    mostly(position({"N": "QS 9D AH", **_REST}, "5C 9C KC", "N"), "QS")
    mostly(position({"N": "2S 9D AH", **_REST}, "5C 9C KC", "N"), "AH")
    # ♠A/♠K while the pig is out, before the middle hearts; the ♦J is kept.
    mostly(position({"N": "AS 8H JD", "E": "QS 3D", "S": "4D 5D", "W": "6D 7D"}, "5C 9C KC", "N"), "AS")
    mostly(position({"N": "9S JD 8D", **_REST}, "5C 9C KC", "N"), "9S")


def test_ducks_under_the_winner() -> None:
    # S led ♠3, E played ♠A: North drops the pig under it (E takes it); W plays last.
    mostly(position({"N": "QS 4S 9D", "S": "2D 3D", "E": "4D 5D", "W": "6D 7D 8D"}, "3S AS", "N"), "QS")
    # E led ♣9: just under it, keeping the ♣2 as an exit (自然跟牌法).
    hands = {"N": "2C 5C 8C JC", "E": "3D 4D 5D", "S": "6D 7D 8D TD", "W": "9D QD KD AD"}
    mostly(position(hands, "9C", "N"), "8C")
    mostly(position({"N": "2C 6C KC", **_REST}, "5C QS 7C", "N"), "6C")  # the pig is in it: duck


def test_takes_clean_and_sheep_tricks_last() -> None:
    mostly(position({"N": "2C 9C KC", **_REST}, "3C 5C 4C", "N"), "KC")
    mostly(position({"N": "3D AD 4S", "E": "2S 3S", "S": "5S 6S", "W": "7S 8S"}, "2D JD 5D", "N"), "AD")


def test_leads() -> None:
    # Never the pig while another card will do; the ♦J back when no higher diamond is out.
    rest = {"E": "3S 4D TD", "S": "5S 6D 3C", "W": "7S 8D 4C"}
    counts = choices(position({"N": "QS 2C 9H", **rest}, "", "N"))
    assert counts["QS"] <= 0.06 * sum(counts.values()), counts
    assert counts["2C"] >= 0.85 * sum(counts.values()), counts  # the lowest club: safe
    mostly(position({"N": "JD 2C 9H", **rest}, "", "N"), "JD")


# --------------------------------------------------------------------------- strength


@pytest.mark.strength
@pytest.mark.parametrize("options", [Options(), Options(exposure="all", discard_color="penalty")])
def test_heuristic_seat_beats_random_seats(options: Options) -> None:
    """3000 C deals per seat: the policy-1 seat scores far better than the three random seats,
    and better than a random player in its place on the same deals (duplicate)."""
    n = 3000
    for seat in range(4):
        ids = [U, U, U, U]
        ids[seat] = H
        policy: Policy = (ids[0], ids[1], ids[2], ids[3])
        mixed = random_deals(options, n, 100 + seat, threads=2, policy=policy)
        mine = mixed[seat] / n
        others = (sum(mixed) - mixed[seat]) / (3 * n)
        assert mine > others + 30, (seat, mine, others)
        plain = random_deals(options, n, 100 + seat, threads=2)
        assert (mixed[seat] - plain[seat]) / n > 20, (seat, mixed[seat] / n, plain[seat] / n)
