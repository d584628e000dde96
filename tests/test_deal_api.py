"""The public reading API of a deal: the :class:`Position` snapshot, the action records that
``declare`` / ``play`` return and ``Deal.actions`` lists, ``Deal.copy`` and ``in`` on the legal
plays — on the C board, on the Python rules, with one deck and with two."""

from __future__ import annotations

import pickle
import random

import pytest

from gongzhu.rules import (
    ALL_CARDS,
    EXPOSABLE,
    Action,
    CardPlay,
    Deal,
    Declaration,
    Exposure,
    IllegalPlayError,
    LegalPlays,
    Options,
    Phase,
    Position,
    Seat,
    parse_card,
)
from gongzhu.rules.cards import cards_in
from helpers.deals import declare_random_exposures, snapshot


class PythonDeal(Deal):
    """The same rules with no C board: one-deck play on the Python fields."""

    __slots__ = ()
    use_c_board = False


OPTIONS = [
    pytest.param(Options(), id="online"),
    pytest.param(Options(discard_color="penalty", exposure="all"), id="penalty,all"),
    pytest.param(Options(direction="cw", first_lead="spade3_any"), id="cw,spade3"),
    pytest.param(Options(decks=2, discard_color="penalty"), id="two-decks,penalty"),
]


def random_deal(cls: type[Deal], options: Options, seed: int) -> tuple[Deal, random.Random]:
    rng = random.Random(seed)
    deal = cls.new(options, seed)
    declare_random_exposures(deal, rng)
    return deal, rng


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_play_records_what_happened(options: Options, seed: int) -> None:
    deal, rng = random_deal(Deal, options, seed)
    declarations = [a for a in deal.actions if isinstance(a, Declaration)]
    assert len(declarations) == (4 if options.players_declare else 0)
    returned: list[Action] = list(declarations)
    while not deal.is_over:
        turn, n_tricks = deal.turn, len(deal.tricks)
        play = rng.choice(deal.legal_plays())
        record = deal.play(play)
        returned.append(record)
        assert isinstance(record, CardPlay)
        assert (record.seat, record.cards) == (turn, play)
        if len(deal.tricks) > n_tricks:
            assert record.trick == deal.tricks[-1]
            assert record.trick.plays[-1] == (turn, play)
        else:
            assert record.trick is None
        assert deal.actions == returned
    assert len(returned) - len(declarations) == sum(len(t.plays) for t in deal.tricks)
    assert [a.trick for a in returned if isinstance(a, CardPlay) and a.trick is not None] == deal.tricks
    # undo takes plays back off the actions, and replaying gives the same records
    for k in range(1, 7):
        deal.undo()
        assert deal.actions == returned[:-k]
    for again in returned[-6:]:
        assert isinstance(again, CardPlay)
        assert deal.play(again.cards, again.seat) == again
    assert deal.actions == returned


def test_declaration_records_the_automatic_fourth() -> None:
    """Three exposable cards declared: the fourth is exposed automatically (逼明, R4.4), on the
    fourth declaration's record."""
    options = Options()
    assert options.auto_fourth_applies
    deal = Deal.new(options, 5)
    holders = {c: next(s for s in Seat if c in deal.hand(s)) for c in EXPOSABLE}
    *chosen, fourth = EXPOSABLE
    records = []
    for seat in Seat:
        mine = [c for c in chosen if holders[c] == seat]
        records.append(deal.declare(seat, mine))
        assert records[-1].exposures == tuple(Exposure(seat, c, "shown") for c in mine)
    assert [r.automatic for r in records[:3]] == [(), (), ()]
    assert records[3].automatic == (Exposure(holders[fourth], fourth, "auto"),)
    assert deal.actions == records
    assert deal.phase == Phase.PLAY
    with pytest.raises(IllegalPlayError):
        deal.declare(Seat.N, [])
    assert deal.actions == records


def test_card_play_is_an_immutable_value() -> None:
    deal, rng = random_deal(Deal, Options(), 9)
    for _ in range(4):
        record = deal.play(rng.choice(deal.legal_plays()))
    assert record.trick is not None
    built = deal.actions[-1]
    assert built == record and hash(built) == hash(record)
    assert pickle.loads(pickle.dumps(record)) == record
    with pytest.raises(AttributeError):
        record.seat = Seat.N  # type: ignore[misc]
    with pytest.raises(AttributeError):
        record.trick = None  # type: ignore[misc]
    assert record != CardPlay(record.seat, record.cards)
    assert "CardPlay(seat=" in repr(record)


@pytest.mark.parametrize("options", OPTIONS)
def test_position_is_the_same_on_the_c_board_and_on_python(options: Options) -> None:
    c_deal, rng = random_deal(Deal, options, 4)
    py_deal, _ = random_deal(PythonDeal, options, 4)
    while True:
        pos = c_deal.position()
        assert isinstance(pos, Position)
        assert pos == py_deal.position()
        assert pos.decks == options.decks
        turn = c_deal.turn
        assert pos.turn == (turn if turn is not None else pos.turn)
        assert pos.leader == c_deal.leader
        assert [(Seat(s), tuple(ALL_CARDS[c] for c in p)) for s, p in pos.trick] == c_deal.current_trick
        assert pos.led == (-1 if not pos.trick else ALL_CARDS[pos.trick[0][1][0]].suit)
        for s in Seat:
            held = sorted([*cards_in(pos.hands[s]), *cards_in(pos.hands_twice[s])], key=lambda c: c.index)
            assert held == c_deal.hand(s)
            assert list(pos.captured[s]) == c_deal.captured(s)
        assert pos.suits_led == sum(1 << u for u in c_deal.suits_led)
        assert pos.pig_taker == (-1 if c_deal.pig_taker is None else c_deal.pig_taker)
        if options.decks == 1:
            assert pos.hands_twice == pos.restricted_twice == (0, 0, 0, 0)
        if c_deal.is_over:
            break
        play = rng.choice(c_deal.legal_plays())
        assert c_deal.play(play) == py_deal.play(play)
    with pytest.raises(AttributeError):
        pos.turn = 0  # type: ignore[misc]


def test_position_knows_the_first_lead() -> None:
    deal = Deal.new(Options(), 2)  # online: club2_must (R5.1)
    for seat in Seat:
        deal.declare(seat)
    assert deal.position().must_lead_c2
    deal.play("2C")
    assert not deal.position().must_lead_c2
    deal.undo()
    assert deal.position().must_lead_c2


@pytest.mark.parametrize("cls", [Deal, PythonDeal])
@pytest.mark.parametrize("options", OPTIONS)
def test_copy_is_independent(cls: type[Deal], options: Options) -> None:
    deal, rng = random_deal(cls, options, 6)
    for _ in range(10):
        deal.play(rng.choice(deal.legal_plays()))
    before, actions, position = snapshot(deal), deal.actions, deal.position()
    twin = deal.copy()
    assert type(twin) is cls
    assert snapshot(twin) == before and twin.actions == actions and twin.position() == position
    while not twin.is_over:
        twin.play(rng.choice(twin.legal_plays()))
    twin.score  # noqa: B018 - scoring reads the copy's captured cards
    played_out = len(twin.actions)
    for _ in range(15):
        twin.undo()
    assert snapshot(deal) == before and deal.actions == actions and deal.position() == position
    deal.play(deal.legal_plays()[-1])
    assert len(deal.actions) == len(actions) + 1
    assert len(twin.actions) == played_out - 15


def test_copy_in_the_exposure_phase() -> None:
    deal = Deal.new(Options(), 8)
    twin = deal.copy()
    for seat in Seat:
        twin.declare(seat)
    assert deal.phase == Phase.EXPOSE and deal.undeclared == list(Seat) and deal.actions == []
    assert twin.phase == Phase.PLAY and len(twin.actions) == 4


def test_in_legal_plays_one_deck() -> None:
    deal = Deal.new(Options(), 2)
    for seat in Seat:
        deal.declare(seat)
    plays = deal.legal_plays()
    assert isinstance(plays, LegalPlays) and isinstance(plays, tuple)
    assert plays == ((parse_card("2C"),),)  # club2_must: the first lead is ♣2 (R5.1)
    # (typed as object: strict type checkers take a tuple of plays to hold plays only)
    ways: tuple[object, ...] = ("2C", "2c", "♣2", parse_card("2C"), (parse_card("2C"),), ("2C",), ["2C"], " 2C ")
    for way in ways:
        assert way in plays
    not_ways: tuple[object, ...] = ("3C", "2C 2C", ("2C", "2C"), "", (), "no card", 2, None, ("2C", 5))
    for way in not_ways:
        assert way not in plays
    deal.play("2C")
    plays = deal.legal_plays()
    held = [c for c in deal.hand(deal.turn or Seat.N)]
    for c in held:
        code: object = c.code
        assert (code in plays) == ((c,) in plays)


def test_in_legal_plays_two_decks() -> None:
    rng = random.Random(3)
    for seed in range(40):
        deal = Deal.new(Options(decks=2), seed)
        for seat in Seat:
            deal.declare(seat)
        while not deal.is_over:
            plays = deal.legal_plays()
            pairs = [p for p in plays if len(p) == 2 and p[0] == p[1]]
            if pairs:
                c = pairs[0][0]
                ways: tuple[object, ...] = ((c.code, c.code), f"{c.code} {c.code}", f"{c.code},{c.code}", (c, c),
                                            [c, c.code], c.code, c)
                for way in ways:
                    assert way in plays
                return
            deal.play(rng.choice(plays))
    raise AssertionError("no pair lead was met")
