"""Claims (声称, R5.4) and the deal that finishes by itself: ``gongzhu.rules.claims`` (when a claim
may be made, whether a finished deal kept it, :func:`settled`) and ``gongzhu.search.claims`` (the
exact search that decides a claim), against a brute force written here.

The brute force plays every legal play of every seat from an ending to the end of the deal, with
no memo and no pruning, and judges each finished deal with :func:`claim_met`: a claim holds when
the claimer has a play keeping it at each of its turns whatever the others play (an AND-OR tree
over every continuation); a ``score`` claim of N holds when the claimer's raw score, maximised by
the claimer and minimised by the others over the tree, is at least N.  It shares no code with the
search but the deal itself.

Endings are reached from seeded deals (one deck and two decks, first and later deals of a match)
with random exposures — steering leads away from the suits of exposed cards, so that R4.3 still
binds late — and random legal play, under several option sets (discard colour, its penalty, the
tournament's restrictions, self-catch, the book heart values, both directions).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gongzhu.rules import PRESETS, Card, CardError, Deal, Options, Phase, Seat, deal_hands
from gongzhu.rules.claims import (
    Claim,
    ClaimError,
    ClaimKind,
    Settlement,
    claim_met,
    finish_settled,
    may_claim,
    settled,
    verify_claim,
)
from gongzhu.rules.errors import IllegalPlayError
from gongzhu.rules.scoring import is_point_card
from gongzhu.search.claims import ClaimVerdict, _Search, check_claim, finish_by_claim
from helpers.deals import declare_random_exposures, make_deal, play_first_legal, snapshot
from helpers.volume import scaled

ALL_TRICKS, NO_POINTS, SCORE = ClaimKind.ALL_TRICKS, ClaimKind.NO_POINTS, ClaimKind.SCORE

ONE_DECK = [
    ("online", PRESETS["online"]),
    ("tournament", PRESETS["tournament"]),
    ("partners,penalty", PRESETS["partners"].replace(discard_color="penalty")),
    ("classic,enforce,book", PRESETS["classic"].replace(discard_color="enforce", heart_values="book")),
    (
        "online,restricted_discards,self_catch",
        PRESETS["online"].replace(exposed_discard_before_suit_led=True, self_catch=True),
    ),
    ("online,hidden", PRESETS["online"].replace(exposure="hidden")),
]
TWO_DECKS = [
    ("online2", PRESETS["online2"]),
    ("partners2,penalty", PRESETS["partners2"].replace(discard_color="penalty")),
    ("online2,cw,enforce", PRESETS["online2"].replace(direction="cw", discard_color="enforce")),
]


class PythonDeal(Deal):
    """A one-deck deal on the Python rules alone (no C board): the search reads either alike."""

    use_c_board = False


# --------------------------------------------------------------------------- endings


def mover(deal: Deal) -> Seat:
    turn = deal.turn
    assert turn is not None
    return turn


def cards_left(deal: Deal) -> int:
    return sum(len(deal.hand(s)) for s in Seat)


def pick(deal: Deal, rng: random.Random, dump_points: bool = False) -> tuple[Card, ...]:
    """A random legal play; a leader mostly avoids the suits of exposed cards still held (so R4.3
    binds late).  ``dump_points``: mostly play a point card where one is legal (endings with no
    point card left)."""
    plays = list(deal.legal_plays())
    if dump_points and rng.random() < 0.9:
        points = [p for p in plays if any(is_point_card(c) for c in p)]
        if points:
            return rng.choice(points)
    if not deal.current_trick and rng.random() < 0.9:
        held = set().union(*(deal.hand(s) for s in Seat))
        avoid = {e.card.suit for e in deal.exposures if e.card in held}
        calm = [p for p in plays if p[0].suit not in avoid]
        if calm:
            return rng.choice(calm)
    return rng.choice(plays)


def ending(options: Options, seed: int, left: int, *, python: bool = False, dump_points: bool = False) -> Deal:
    """A seeded deal (the first of a match, or a later one), random exposures (R4), random legal
    play until ``left`` cards are left in the hands (at least one card played)."""
    rng = random.Random(seed)
    later = rng.random() < 0.3
    previous = Seat(rng.randrange(4)) if later else None
    cls = PythonDeal if python else Deal
    deal = cls(
        options,
        deal_hands(seed, options.decks, Seat.N, options.clockwise),
        deal_index=1 if later else 0,
        previous_pig_taker=previous,
        seed=seed,
    )
    declare_random_exposures(deal, rng, 0.6)
    assert deal.phase == Phase.PLAY
    deal.play(pick(deal, rng, dump_points))
    while cards_left(deal) > left:
        deal.play(pick(deal, rng, dump_points))
    return deal


# --------------------------------------------------------------------------- the brute force


def children(deal: Deal) -> Iterator[Deal]:
    for play in deal.legal_plays():
        child = deal.copy()
        child.play(play)
        yield child


def finished_deals(deal: Deal) -> Iterator[Deal]:
    """Every finished continuation of ``deal``."""
    if deal.is_over:
        yield deal
        return
    for child in children(deal):
        yield from finished_deals(child)


@dataclass(frozen=True)
class Brute:
    """The brute force's answers for a position, per seat (N, E, S, W) as claimer: whether an
    ``all_tricks`` and a ``no_points`` claim hold, and the raw score a ``score`` claim can promise
    (maximised by the claimer, minimised by the others)."""

    all_tricks: tuple[bool, ...]
    no_points: tuple[bool, ...]
    score: tuple[int, ...]


def brute(deal: Deal, at: Deal) -> Brute:
    """The AND-OR values of every seat's claims made at ``at``, from ``deal`` (a continuation)."""
    if deal.is_over:
        return Brute(
            tuple(claim_met(at, deal, Claim(s, ALL_TRICKS)) for s in Seat),
            tuple(claim_met(at, deal, Claim(s, NO_POINTS)) for s in Seat),
            deal.score.raw,
        )
    kids = [brute(child, at) for child in children(deal)]
    turn = deal.turn

    def bools(values: list[tuple[bool, ...]]) -> tuple[bool, ...]:
        return tuple(any(v[s] for v in values) if s == turn else all(v[s] for v in values) for s in Seat)

    return Brute(
        bools([k.all_tricks for k in kids]),
        bools([k.no_points for k in kids]),
        tuple(max(k.score[s] for k in kids) if s == turn else min(k.score[s] for k in kids) for s in Seat),
    )


def replay(deal: Deal, line: tuple[tuple[Seat, tuple[Card, ...]], ...]) -> Deal:
    """``deal`` with ``line`` played on a copy, each play checked legal for its seat."""
    out = deal.copy()
    for seat, cards in line:
        assert out.turn == seat, f"{seat.name} plays out of turn"
        assert cards in out.legal_plays(), f"{seat.name}'s {cards} is not legal"
        out.play(cards, seat)
    return out


def check(deal: Deal, claim: Claim, want: bool) -> ClaimVerdict:
    """``check_claim`` says ``want`` (the brute force's answer); an accepted claim's line is legal,
    plays the deal to its end and meets the claim; a refused claim's refutation is legal, its last
    play breaks the claim (``all_tricks``: a trick won by another seat; ``no_points``: a point card
    taken by the claimer) after no earlier one did, and no continuation from its end meets it."""
    before = snapshot(deal)
    verdict = check_claim(deal, claim, limit=0)
    assert snapshot(deal) == before, "check_claim changed the deal"
    assert verdict.claim == claim
    assert verdict.holds is want, f"{claim}: the search says {verdict.holds}, the brute force {want}"
    if want:
        assert verdict.refutation == ()
        end = replay(deal, verdict.line)
        assert end.is_over and claim_met(deal, end, claim)
        return verdict
    assert verdict.line == ()
    end = deal.copy()
    breaking = []
    for seat, cards in verdict.refutation:
        assert end.turn == seat and cards in end.legal_plays()
        trick = end.play(cards, seat).trick
        if claim.kind is ALL_TRICKS:
            breaking.append(trick is not None and trick.winner != claim.seat)
        elif claim.kind is NO_POINTS:
            breaking.append(
                trick is not None and trick.taker == claim.seat and any(is_point_card(c) for c in trick.cards)
            )
    if claim.kind is not SCORE:
        assert breaking and breaking[-1] and not any(breaking[:-1]), "the refutation does not end at the break"
    assert not any(claim_met(deal, done, claim) for done in finished_deals(end)), "the refutation does not break it"
    return verdict


def check_every_claim(deal: Deal) -> None:
    """Every seat's claims of each kind (``score``: the most the seat can promise, and one more)
    against the brute force."""
    want = brute(deal, deal)
    for s in Seat:
        check(deal, Claim(s, ALL_TRICKS), want.all_tricks[s])
        check(deal, Claim(s, NO_POINTS), want.no_points[s])
        check(deal, Claim(s, SCORE, want.score[s]), True)
        check(deal, Claim(s, SCORE, want.score[s] + 1), False)


# --------------------------------------------------------------------------- claims against the brute force


@pytest.mark.parametrize(("label", "options"), ONE_DECK, ids=[lb for lb, _ in ONE_DECK])
def test_claims_match_brute_force_one_deck(label: str, options: Options) -> None:
    """R5.4 (R4.3, R5.2, R6, R6.1): every seat's claims of every kind on one-deck endings of two
    and three tricks, and inside them, on the C board and on the Python rules."""
    for k, left in enumerate((8, 12, 10, 7, 11)):
        seed = 100 * k + sum(map(ord, label))
        check_every_claim(ending(options, seed, left, python=k == 3))


@pytest.mark.parametrize(("label", "options"), TWO_DECKS, ids=[lb for lb, _ in TWO_DECKS])
def test_claims_match_brute_force_two_decks(label: str, options: Options) -> None:
    """R5.4 (R4.5, R5.3, R6.2): every seat's claims on two-deck endings (singles and pairs)."""
    for k, left in enumerate((8, 6, 7)):
        check_every_claim(ending(options, 300 + 17 * k + len(label), left))


#: Endings where a search that merged a point card with a plain one for ``no_points``, or that
#: memoised a ``score`` claim's positions without the claimer's cards taken (two ways of reaching
#: the same hands with different cards taken), would answer wrongly: (option set, seed, cards left).
DELICATE = [
    ("tournament", 85, 7),
    ("online,hidden", 131, 11),
    ("online,hidden", 167, 12),
    ("online,restricted_discards,self_catch", 202, 12),
]


@pytest.mark.parametrize(("label", "seed", "left"), DELICATE, ids=[f"{lb}-{seed}" for lb, seed, _ in DELICATE])
def test_claims_match_brute_force_on_delicate_endings(label: str, seed: int, left: int) -> None:
    """R5.4, R2, R6: cards alike for one claim but not for another, and transposed positions."""
    check_every_claim(ending(dict(ONE_DECK)[label], seed, left))


@settings(max_examples=scaled(40), deadline=None)
@given(
    index=st.integers(0, len(ONE_DECK) + len(TWO_DECKS) - 1),
    seed=st.integers(0, 2**32),
    left=st.integers(1, 10),
    dump_points=st.booleans(),
)
def test_claims_match_brute_force_hypothesis(index: int, seed: int, left: int, dump_points: bool) -> None:
    """R5.4: random endings of random option sets, one deck and two."""
    options = (ONE_DECK + TWO_DECKS)[index][1]
    check_every_claim(ending(options, seed, left if options.decks == 1 else min(left, 8), dump_points=dump_points))


@pytest.mark.slow
@pytest.mark.parametrize(("label", "options"), ONE_DECK + TWO_DECKS, ids=[lb for lb, _ in ONE_DECK + TWO_DECKS])
def test_claims_match_brute_force_four_tricks(label: str, options: Options) -> None:
    """R5.4: the same on longer endings: three tricks and a half (one deck), ten cards (two decks)."""
    for k in range(3):
        left = 14 - k if options.decks == 1 else 10
        check_every_claim(ending(options, 900 + 31 * k + len(label), left))


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(
    index=st.integers(0, len(ONE_DECK) + len(TWO_DECKS) - 1),
    seed=st.integers(0, 2**32),
    left=st.integers(1, 13),
    dump_points=st.booleans(),
)
def test_claims_match_brute_force_at_length(index: int, seed: int, left: int, dump_points: bool) -> None:
    """R5.4: many more random endings, up to three tricks and a card (one deck), nine cards (two)."""
    options = (ONE_DECK + TWO_DECKS)[index][1]
    deal = ending(options, seed, left if options.decks == 1 else min(left, 9), dump_points=dump_points)
    assume(not deal.is_over)  # two decks: a pair trick may take the last cards at once
    check_every_claim(deal)


# --------------------------------------------------------------------------- claims the others accepted


def brute_agreed(deal: Deal, at: Deal) -> Brute:
    """Per seat as claimer, over every finished continuation of ``deal``: whether *some* keeps an
    ``all_tricks`` and a ``no_points`` claim made at ``at``, and the best raw score one reaches."""
    ends = list(finished_deals(deal))
    return Brute(
        tuple(any(claim_met(at, end, Claim(s, ALL_TRICKS)) for end in ends) for s in Seat),
        tuple(any(claim_met(at, end, Claim(s, NO_POINTS)) for end in ends) for s in Seat),
        tuple(max(end.score.raw[s] for end in ends) for s in Seat),
    )


def check_agreed(deal: Deal, claim: Claim, want: bool) -> None:
    """``check_claim(agreed=True)`` says ``want``; where the claim can come true its line is
    legal, plays the deal to its end and meets the claim; where it cannot there is no line."""
    before = snapshot(deal)
    verdict = check_claim(deal, claim, limit=0, agreed=True)
    assert snapshot(deal) == before, "check_claim changed the deal"
    assert verdict.holds is want, f"{claim}: the agreed search says {verdict.holds}, the brute force {want}"
    assert verdict.refutation == ()
    if want:
        end = replay(deal, verdict.line)
        assert end.is_over and claim_met(deal, end, claim)
    else:
        assert verdict.line == ()


@pytest.mark.parametrize(("label", "options"), ONE_DECK[:3] + TWO_DECKS[:1],
                         ids=[lb for lb, _ in ONE_DECK[:3] + TWO_DECKS[:1]])
def test_agreed_claims_match_brute_force(label: str, options: Options) -> None:
    """R5.4, the others having accepted a claim: it can come true exactly when some continuation
    of every seat's plays keeps it, and the deal then ends along one that does."""
    differs = 0
    for k, left in enumerate((8, 11, 12) if options.decks == 1 else (8, 6)):
        deal = ending(options, 700 + 31 * k + len(label), left)
        want, against_all = brute_agreed(deal, deal), brute(deal, deal)
        for s in Seat:
            check_agreed(deal, Claim(s, ALL_TRICKS), want.all_tricks[s])
            check_agreed(deal, Claim(s, NO_POINTS), want.no_points[s])
            check_agreed(deal, Claim(s, SCORE, want.score[s]), True)
            check_agreed(deal, Claim(s, SCORE, want.score[s] + 1), False)
            differs += (want.all_tricks[s], want.no_points[s], want.score[s]) != (
                against_all.all_tricks[s], against_all.no_points[s], against_all.score[s])
    assert differs, "no ending where agreeing makes a difference: the test shows nothing"


def test_limit_leaves_a_claim_undecided() -> None:
    """R5.4: a search stopped at its limit says neither yes nor no, and gives no line."""
    searched = 0
    for seed in range(40):
        deal = ending(PRESETS["online"], 5000 + seed, 12)
        claim = Claim(mover(deal), NO_POINTS)
        full = check_claim(deal, claim, limit=0)
        assert full.holds is not None
        if full.nodes > 2:
            cut = check_claim(deal, claim, limit=1)
            assert cut == ClaimVerdict(claim, None, nodes=1)
            searched += 1
    assert searched >= 5
    with pytest.raises(ValueError, match="limit"):
        check_claim(deal, claim, limit=-1)


def test_the_search_follows_the_deal() -> None:
    """R4.3, R4.5, R5.2: what the claim search keeps play by play to key its memo — the hands, the
    trick, the suits led, the point cards the claimer took, the cards still bound by R4.3 (one
    deck) — is the deal's own at every position of random walks with take-backs, one deck and two."""
    for k, (label, options) in enumerate(ONE_DECK[:3] + TWO_DECKS[:2]):
        for seed in range(3):
            deal = ending(options, 60 + 7 * seed + k, 13 * options.decks * 4 - 9)
            seat = Seat((seed + k) % 4)
            search = _Search(deal.copy(), Claim(seat, SCORE, 0), 0)
            rng = random.Random(seed)
            depth = 0
            while True:
                pos = search.deal.position()
                assert (tuple(search.h1), tuple(search.h2)) == (pos.hands, pos.hands_twice), label
                assert (search.trick, search.suits_led) == (pos.trick, pos.suits_led), label
                assert search.taken == tuple(sorted(c.index for c in pos.captured[seat])), label
                if options.decks == 1:
                    assert tuple(search.bound_at_claim[s] & search.h1[s] for s in range(4)) == pos.restricted
                if search.deal.is_over:
                    break
                if depth and rng.random() < 0.25:
                    search.undo()
                    depth -= 1
                else:
                    search.play(rng.choice(search.deal.legal_plays()))
                    depth += 1


# --------------------------------------------------------------------------- a claim after the first trick


def test_claim_after_the_first_trick() -> None:
    """R5.4: North, leading every trick with the top cards, claims the rest after the first trick;
    a claim that holds finishes the deal along its line; East's claim of every trick fails at
    once (North wins the next trick)."""
    options = PRESETS["online"]
    deal = make_deal(options, {"N": "AS KS QS JS TS AH KH QH JH TH AD KD QD"}, previous_pig_taker=Seat.N)
    deal.play("AS")
    play_first_legal(deal, 3)
    assert deal.turn == Seat.N and len(deal.tricks) == 1
    claim = Claim(Seat.N, ALL_TRICKS)
    verdict = check_claim(deal, claim)
    assert verdict.holds is True
    at_claim = deal.copy()
    plays = finish_by_claim(deal, verdict)
    assert deal.is_over and len(plays) == 48
    assert [(p.seat, p.cards) for p in plays] == list(verdict.line)
    assert claim_met(at_claim, deal, claim)
    assert all(t.winner == Seat.N for t in deal.tricks)

    refuted = check_claim(at_claim, Claim(Seat.E, ALL_TRICKS))
    assert refuted.holds is False and len(refuted.refutation) == 4
    assert replay(at_claim, refuted.refutation).tricks[-1].winner == Seat.N
    with pytest.raises(ClaimError, match="does not hold"):
        finish_by_claim(at_claim, refuted)


def test_finish_by_claim_refuses_a_line_of_another_position() -> None:
    """R5.4: a claim's line finishes only the deal and position it was found for."""
    deal = ending(PRESETS["online"], 77, 8)
    verdict = next(v for s in Seat if (v := check_claim(deal, Claim(s, SCORE, -10_000))).holds)
    moved = deal.copy()
    moved.play(moved.legal_plays()[0])
    before = snapshot(moved)
    with pytest.raises(ClaimError, match="does not continue"):
        finish_by_claim(moved, verdict)
    assert snapshot(moved) == before


# --------------------------------------------------------------------------- when a claim may be made


def test_claims_only_after_the_first_lead_and_before_the_end() -> None:
    """R5.4: no claim while exposures are declared, none before the first lead, any seat's claim
    (its turn or not) once a card is played, none once the deal is over."""
    options = PRESETS["online"]
    deal = make_deal(options, {}, declare=False)
    assert deal.phase == Phase.EXPOSE
    for s in Seat:
        assert not may_claim(deal, s)
    with pytest.raises(ClaimError, match="exposures"):
        check_claim(deal, Claim(Seat.N, ALL_TRICKS))
    for s in Seat:
        deal.declare(s, [])
    with pytest.raises(ClaimError, match="before the first lead"):
        verify_claim(deal, Claim(Seat.S, NO_POINTS))
    with pytest.raises(ClaimError, match="before the first lead"):
        check_claim(deal, Claim(Seat.S, SCORE, 0))
    assert not any(may_claim(deal, s) for s in Seat)
    deal.play(deal.legal_plays()[0])
    assert all(may_claim(deal, s) for s in Seat)
    verify_claim(deal, Seat.W)
    while not deal.is_over:
        deal.play(deal.legal_plays()[0])
    for s in Seat:
        assert not may_claim(deal, s)
    with pytest.raises(ClaimError, match="over"):
        check_claim(deal, Claim(Seat.E, ALL_TRICKS))
    assert not may_claim(deal, 7)  # type: ignore[arg-type]


def test_a_claim_says_what_it_claims() -> None:
    """R5.4: a score claim names an integer score, the other kinds none; kinds and seats are read
    from their names."""
    assert Claim("S", "score", -50) == Claim(Seat.S, SCORE, -50)  # type: ignore[arg-type]
    assert Claim(1, "all_tricks").seat == Seat.E  # type: ignore[arg-type]
    assert str(Claim(Seat.W, SCORE, 100)) == "W claims score 100"
    with pytest.raises(ClaimError, match="integer"):
        Claim(Seat.N, SCORE)
    with pytest.raises(ClaimError, match="integer"):
        Claim(Seat.N, SCORE, True)
    with pytest.raises(ClaimError, match="integer"):
        Claim(Seat.N, SCORE, 1.5)  # type: ignore[arg-type]
    with pytest.raises(ClaimError, match="no value"):
        Claim(Seat.N, NO_POINTS, 0)
    with pytest.raises(ClaimError, match="unknown claim kind"):
        Claim(Seat.N, "everything")  # type: ignore[arg-type]
    with pytest.raises(CardError, match="unknown seat"):
        Claim("X", ALL_TRICKS)  # type: ignore[arg-type]
    assert issubclass(ClaimError, IllegalPlayError)


def test_claim_met_reads_a_finished_continuation() -> None:
    """R5.4: claim_met judges only a finished deal that continues the claim's deal."""
    deal = ending(PRESETS["online"], 12, 8)
    claim = Claim(mover(deal), ALL_TRICKS)
    with pytest.raises(ClaimError, match="not over"):
        claim_met(deal, deal, claim)
    done = next(finished_deals(deal))
    assert claim_met(deal, done, claim) == all(t.winner == claim.seat for t in done.tricks[len(deal.tricks) :])
    other = next(finished_deals(ending(PRESETS["online"], 13, 8)))
    with pytest.raises(ClaimError, match="does not continue"):
        claim_met(deal, other, claim)
    first, last = deal.legal_plays()[0], deal.legal_plays()[-1]
    assert first != last
    later, branch = deal.copy(), deal.copy()
    later.play(last)
    branch.play(first)
    with pytest.raises(ClaimError, match="does not continue"):
        claim_met(later, next(finished_deals(branch)), claim)
    earlier = deal.copy()
    earlier.undo()
    won = [t.winner for t in done.tricks[len(earlier.tricks) :]]
    assert claim_met(earlier, done, claim) == all(w == claim.seat for w in won)


# --------------------------------------------------------------------------- the deal that finishes by itself


def expected_settlement(deal: Deal) -> Settlement | None:
    """Written again from R5.4: nothing left scores when no point card (R2) is in a hand or the
    trick; forced when the deal has one continuation only."""
    left = [c for s in Seat for c in deal.hand(s)] + [c for _, p in deal.current_trick for c in p]
    if not any(is_point_card(c) for c in left):
        return Settlement.NOTHING_SCORES
    return Settlement.FORCED if sum(1 for _ in finished_deals(deal)) == 1 else None


def check_settled(deal: Deal) -> Settlement | None:
    """settled() against the brute force; when settled, every continuation scores alike and
    finish_settled plays to that score (else it refuses, leaving the deal as it is)."""
    want = expected_settlement(deal)
    assert settled(deal) == want
    if want is None:
        before = snapshot(deal)
        with pytest.raises(ClaimError, match="does not finish by itself"):
            finish_settled(deal)
        assert snapshot(deal) == before
        return None
    outcomes = {(d.score.raw, d.score.final) for d in finished_deals(deal)}
    assert len(outcomes) == 1, f"{want}: continuations score differently: {outcomes}"
    done = deal.copy()
    made = finish_settled(done)
    assert done.is_over and (done.score.raw, done.score.final) in outcomes
    assert len(made) == len(done.actions) - len(deal.actions)
    return want


@pytest.mark.parametrize(("label", "options"), ONE_DECK + TWO_DECKS, ids=[lb for lb, _ in ONE_DECK + TWO_DECKS])
def test_settled_matches_brute_force(label: str, options: Options) -> None:
    """R5.4: settled() is NOTHING_SCORES exactly when no point card is left to take, else FORCED
    exactly when one continuation is left; then every continuation gives the same scores, which
    finish_settled reaches.  Endings with the point cards played early give the first case."""
    found: set[Settlement | None] = set()
    limit = 10 if options.decks == 1 else 7
    for k in range(8):
        deal = ending(options, 700 + 13 * k + len(label), limit - k % 4, dump_points=k % 2 == 1)
        while not deal.is_over:
            found.add(check_settled(deal))
            deal.play(deal.legal_plays()[-1])
    assert {Settlement.NOTHING_SCORES, Settlement.FORCED, None} <= found


@pytest.mark.parametrize(("label", "options"), ONE_DECK + TWO_DECKS, ids=[lb for lb, _ in ONE_DECK + TWO_DECKS])
def test_the_last_trick_is_settled(label: str, options: Options) -> None:
    """R5.4: once the last trick is led (one deck: from its start) every play left is forced or
    takes nothing; a deal not in play has nothing to settle."""
    for seed in range(6):
        deal = ending(options, 40 + seed, 13 * options.decks * 4 - 1)
        while not deal.is_over:
            one_deck_last = options.decks == 1 and cards_left(deal) <= 4
            led_last = bool(deal.current_trick) and all(
                len(deal.hand(s))
                == (0 if any(s == p for p, _ in deal.current_trick) else len(deal.current_trick[0][1]))
                for s in Seat
            )
            if one_deck_last or led_last:
                assert settled(deal) is not None
            deal.play(pick(deal, random.Random(seed)))
        assert settled(deal) is None
    assert settled(make_deal(options, {}, declare=False)) is None
