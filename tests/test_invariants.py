"""Hypothesis invariants over random deals, random presets with random valid overrides, random
exposures and random legal plays (R1, R3–R7)."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gongzhu.rules import (
    ALL_CARDS,
    JD,
    PRESETS,
    QS,
    Card,
    Deal,
    IllegalPlayError,
    OptionError,
    Options,
    Phase,
    Play,
    Seat,
    resolve_options,
)
from gongzhu.rules.scoring import is_point_card
from helpers.deals import R10_VALUES, snapshot
from helpers.volume import scaled

# The R10 keys that change dealing, exposure, play or scoring (not the match keys of R8).
RULE_VALUES: dict[str, list[Any]] = {
    k: v for k, v in R10_VALUES.items() if k not in ("match_limit", "match_end", "double_pig")
}

SETTINGS = settings(max_examples=scaled(100), deadline=None,
                    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])


@st.composite
def option_sets(draw: st.DrawFn) -> Options:
    """A preset (R9) with up to four random overrides (R10), kept only if defined."""
    name = draw(st.sampled_from(sorted(PRESETS)))
    keys = draw(st.lists(st.sampled_from(sorted(RULE_VALUES)), max_size=4, unique=True))
    overrides = {k: draw(st.sampled_from(RULE_VALUES[k])) for k in keys}
    try:
        return resolve_options(name, overrides)
    except OptionError:
        assume(False)
        raise


seeds = st.integers(min_value=0, max_value=2**63 - 1)
leaders = st.sampled_from([None, *Seat])

Action = tuple[str, Seat, Any]


def new_deal(opts: Options, seed: int, leader: Seat | None) -> Deal:
    return Deal.new(opts, seed, first_receiver=leader if leader is not None else Seat.N,
                    previous_pig_taker=leader)


def random_declarations(deal: Deal, rng: random.Random) -> list[Action]:
    actions: list[Action] = []
    if deal.phase != Phase.EXPOSE:
        return actions
    order = list(Seat)
    rng.shuffle(order)
    for seat in order:
        items: list[tuple[Card, str]] = []
        for c in deal.exposable(seat):
            if rng.random() < 0.5:
                kinds = [k for k in deal.exposure_kinds(seat, c)
                         if k != "first" or all(k2 != "first" for _, k2 in items)]
                items.append((c, rng.choice(kinds)))
        deal.declare(seat, items)
        actions.append(("declare", seat, items))
    return actions


def random_play(deal: Deal, rng: random.Random, n: int | None = None) -> list[Action]:
    actions: list[Action] = []
    while not deal.is_over and (n is None or len(actions) < n):
        plays = deal.legal_plays()
        assert len(plays) > 0
        p = rng.choice(list(plays))
        seat = deal.turn
        assert seat is not None
        deal.play(p, seat)
        actions.append(("play", seat, p))
    return actions


def replay(opts: Options, seed: int, leader: Seat | None, actions: list[Action]) -> Deal:
    deal = new_deal(opts, seed, leader)
    for kind, seat, arg in actions:
        if kind == "declare":
            deal.declare(seat, arg)
        else:
            deal.play(arg, seat)
    return deal


@SETTINGS
@given(opts=option_sets(), seed=seeds, leader=leaders)
def test_every_card_dealt_exactly_once_or_twice(
    opts: Options, seed: int, leader: Seat | None
) -> None:
    """R1/R3: 13 (26) cards each; every card once (twice with two decks); reproducible."""
    deal = new_deal(opts, seed, leader)
    assert [len(h) for h in deal.dealt] == [13 * opts.decks] * 4
    assert Counter(c for h in deal.dealt for c in h) == {c: opts.decks for c in ALL_CARDS}
    assert new_deal(opts, seed, leader).dealt == deal.dealt
    for seat in Seat:
        assert Counter(deal.hand(seat)) == Counter(deal.dealt[seat])


def check_finished(deal: Deal) -> None:
    opts = deal.options
    assert deal.phase == Phase.OVER
    n_pairs = sum(1 for t in deal.tricks if len(t.plays[0][1]) == 2)
    assert len(deal.tricks) == 13 * opts.decks - n_pairs  # a pair trick takes two cards each
    assert n_pairs == 0 or opts.decks == 2
    assert all(deal.hand(s) == [] for s in Seat)
    played = Counter(c for t in deal.tricks for c in t.cards)
    assert played == {c: opts.decks for c in ALL_CARDS}
    taken = Counter(c for s in Seat for c in deal.captured(s))
    assert taken == {c: opts.decks for c in ALL_CARDS if is_point_card(c)}
    for i, trick in enumerate(deal.tricks):
        assert len(trick.plays) == 4
        assert len({len(p) for _, p in trick.plays}) == 1  # all singles or all two-card plays
        assert trick.plays[0][0] == trick.leader
        if i:
            assert trick.leader == deal.tricks[i - 1].winner  # R5.2: the winner leads next
        led = trick.plays[0][1][0].suit
        winning = dict(trick.plays)[trick.winner]
        assert all(c.suit == led for c in winning)  # a discard never wins
        if opts.discard_color != "penalty":
            assert trick.taker == trick.winner
    first_pig = next(t.taker for t in deal.tricks if QS in t.cards)
    assert deal.pig_taker == first_pig


def check_results(deal: Deal) -> None:
    """R7: raw, result and final; zero-sum where R7 makes it so (after rounding: exactly 0 for
    the halves of R7.3, at most 1 off for the thirds of R7.2 and R7.4 one-against-three)."""
    opts = deal.options
    score = deal.score
    factor = opts.one_deck_factor if opts.decks == 1 and opts.scoring != "raw" else 1
    assert score.final == tuple(factor * r for r in score.result)
    total = sum(score.result)
    if opts.scoring == "raw":
        assert score.result == score.raw
    elif opts.scoring == "zero_sum":
        assert abs(total) <= 1
        t = sum(score.raw)
        for r, res in zip(score.raw, score.result, strict=True):
            assert abs(3 * res - (4 * r - t)) <= 1  # nearest integer to (4r − T) / 3
    elif opts.scoring == "partners":
        assert total == 0
        assert score.result[0] == score.result[2] == -score.result[1] == -score.result[3]
    else:
        pig = next(s for s in Seat if QS in deal.captured(s))
        sheep = deal.sheep_taker
        assert sheep is not None
        if pig == sheep:
            assert abs(total) <= 1
        else:
            assert total == 0
            assert score.result[pig] == score.result[sheep]


@SETTINGS
@given(opts=option_sets(), seed=seeds, leader=leaders, choice=seeds)
def test_random_deal_completes_and_replays(
    opts: Options, seed: int, leader: Seat | None, choice: int
) -> None:
    """Random exposures and random legal plays always finish the deal (R4, R5); the same choices
    on a fresh deal give identical tricks and scores (R3 reproducibility); results obey R7."""
    rng = random.Random(choice)
    deal = new_deal(opts, seed, leader)
    actions = random_declarations(deal, rng)
    assert deal.phase == Phase.PLAY
    if leader is not None:
        assert deal.turn == leader
    actions += random_play(deal, rng)
    check_finished(deal)
    check_results(deal)
    again = replay(opts, seed, leader, actions)
    assert again.exposures == deal.exposures
    assert again.tricks == deal.tricks
    assert again.score == deal.score
    assert [again.captured(s) for s in Seat] == [deal.captured(s) for s in Seat]


def illegal_candidates(deal: Deal) -> list[Play]:
    turn = deal.turn
    assert turn is not None
    legal = {tuple(sorted(c.index for c in p)) for p in deal.legal_plays()}
    out: list[Play] = []
    for c in ALL_CARDS:
        if (c.index,) not in legal:
            out.append((c,))
    hand = deal.hand(turn)
    for a, b in itertools.pairwise(hand):
        if tuple(sorted((a.index, b.index))) not in legal:
            out.append((a, b))
    return out


@SETTINGS
@given(opts=option_sets(), seed=seeds, leader=leaders, choice=seeds,
       stop=st.integers(min_value=0, max_value=103))
def test_illegal_play_refused_state_unchanged(
    opts: Options, seed: int, leader: Seat | None, choice: int, stop: int
) -> None:
    """R4/R5 python-chess style: any illegal play (or a legal one by the wrong seat) at a random
    point is refused with IllegalPlayError, and the state is exactly as before."""
    rng = random.Random(choice)
    deal = new_deal(opts, seed, leader)
    random_declarations(deal, rng)
    random_play(deal, rng, n=stop % (52 * opts.decks))
    if deal.is_over:  # two decks with pair tricks end in fewer plays
        deal.undo()
    before = snapshot(deal)
    candidates = illegal_candidates(deal)
    for play in rng.sample(candidates, min(8, len(candidates))):
        assert not deal.can_play(play)
        try:
            deal.play(play)
        except IllegalPlayError as err:
            assert str(err)
        else:
            raise AssertionError(f"{play} was accepted")
        assert snapshot(deal) == before
    turn = deal.turn
    assert turn is not None
    wrong = Seat((turn + 1) % 4)
    legal_play = deal.legal_plays()[0]
    try:
        deal.play(legal_play, wrong)
    except IllegalPlayError as err:
        assert "turn" in str(err)
    else:
        raise AssertionError("a play by the wrong seat was accepted")
    assert snapshot(deal) == before
    deal.play(legal_play, turn)  # and the legal play is still accepted


@SETTINGS
@given(opts=option_sets(), seed=seeds, leader=leaders, choice=seeds,
       stop=st.integers(min_value=1, max_value=104))
def test_undo_back_to_the_start(
    opts: Options, seed: int, leader: Seat | None, choice: int, stop: int
) -> None:
    """R5 (python-chess style undo): Undo back to the start restores the initial legal plays and the whole state."""
    rng = random.Random(choice)
    deal = new_deal(opts, seed, leader)
    random_declarations(deal, rng)
    start = snapshot(deal)
    start_legal = list(deal.legal_plays())
    plays = random_play(deal, rng, n=stop)
    end = snapshot(deal)
    for _ in plays:
        deal.undo()
    assert list(deal.legal_plays()) == start_legal
    assert snapshot(deal) == start
    # Playing the same plays again reaches the same state.
    for _, seat, p in plays:
        deal.play(p, seat)
    assert snapshot(deal) == end


@SETTINGS
@given(opts=option_sets(), seed=seeds, leader=leaders, choice=seeds,
       back=st.integers(min_value=1, max_value=30))
def test_undo_and_diverge_matches_a_fresh_replay(
    opts: Options, seed: int, leader: Seat | None, choice: int, back: int
) -> None:
    """R3/R5/R6: After finishing a deal (and reading its tricks and score), undoing some plays and playing
    on differently gives exactly what a fresh deal replaying the final line gives."""
    rng = random.Random(choice)
    deal = new_deal(opts, seed, leader)
    actions = random_declarations(deal, rng)
    plays = random_play(deal, rng)
    _ = deal.tricks, deal.score, [deal.captured(s) for s in Seat]  # read (and cache) them
    back = min(back, len(plays))
    for _ in range(back):
        deal.undo()
        _ = deal.tricks, [deal.captured(s) for s in Seat]
    kept = plays[: len(plays) - back]
    line = actions + kept + random_play(deal, rng)
    check_finished(deal)
    fresh = replay(opts, seed, leader, line)
    assert fresh.tricks == deal.tricks
    assert [fresh.captured(s) for s in Seat] == [deal.captured(s) for s in Seat]
    assert fresh.score == deal.score
    assert fresh.pig_taker == deal.pig_taker


@SETTINGS
@given(seed=seeds, choice=seeds)
def test_pig_sheep_teams(seed: int, choice: int) -> None:
    """R7.4: the pig and sheep takers' results are equal (same team), the others' too."""
    opts = PRESETS["pig_sheep"]
    deal = new_deal(opts, seed, None)
    random_play(deal, random.Random(choice))
    score = deal.score
    pig = next(s for s in Seat if QS in deal.captured(s))
    sheep = next(s for s in Seat if JD in deal.captured(s))
    team = {pig, sheep}
    others = [s for s in Seat if s not in team]
    assert len({score.result[s] for s in team}) == 1
    assert len({score.result[s] for s in others}) == 1
