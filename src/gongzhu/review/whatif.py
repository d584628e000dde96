"""The what-if board of a finished deal: play on from any moment of its replay, as a chess
analysis board does (docs/review.md, What if).

:func:`what_if` takes a deal's R11 record, a seat and a *line* — the plays from the deal's first
lead, each a card code or, for a two-deck pair, codes joined by ``+`` (``"QS"``, ``"5H+5H"``) —
which may follow the record for a while and then leave it, every play legal where it stands
(the record's exposures hold throughout).  It plays the line, then the other seats' answers until
it is the seat's turn again (or the deal ends): as the record has them while the line still
follows it, else the expert's choice (:class:`~gongzhu.players.expert.ExpertPlayer` from that
seat's own view, with a fixed number of worlds and a seed drawn from the deal and the line, so
the same line always gets the same answers).  It answers the position reached and each legal
play of the seat with two values in the review's units (the seat's R7 objective): ``exact``, the
open-card solver's (:mod:`gongzhu.search.solver`, two decks :mod:`gongzhu.search.solver2`:
hindsight, within a node budget; null otherwise, saying why) and ``expected``, the expert's mean
over worlds sampled from what the seat could see (fixed worlds, reproducible).  A line that cannot be played raises
:class:`WhatIfError` with a catalog message saying where and why.

The answer shows every hand: it is computed only from a finished deal's record, which already
shows them to whoever may read it (the caller decides who may).  May import ``gongzhu.rules``,
``gongzhu.search``, ``gongzhu.players``, ``gongzhu.records``, ``gongzhu.jsontext`` and
``gongzhu.messages``; the server imports it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gongzhu import search
from gongzhu.jsontext import show
from gongzhu.messages import Text
from gongzhu.players.expert import ExpertPlayer, objective_weights
from gongzhu.players.observation import observe
from gongzhu.records.format import SEATS
from gongzhu.records.read import DealRecord, parse_record
from gongzhu.records.replay import replay_states
from gongzhu.rules.cards import Card, Seat, parse_card
from gongzhu.rules.deal import Deal, Phase
from gongzhu.rules.errors import GongzhuError
from gongzhu.rules.model import Play
from gongzhu.rules.scoring import is_point_card

__all__ = ["DEFAULT_WHATIF_BUDGET", "MAX_LINE", "WHATIF_FORMAT", "WhatIfBudget", "WhatIfError", "parse_line",
           "what_if"]

WHATIF_FORMAT = "gongzhu-whatif/1"
#: The most plays a line may hold: every card of two decks played one by one.
MAX_LINE = 104
#: The longest text of one play in a line (a pair: ``"10H+10H"`` is written ``"TH+TH"``).
_MAX_PLAY_TEXT = 16


@dataclass(frozen=True)
class WhatIfBudget:
    """How hard a what-if looks: ``worlds`` sampled worlds for the seat's expected values,
    ``answer_worlds`` for each answer of the expert in another seat, ``exact_limit`` positions
    the open-card solver may search (past it the exact values are null), ``table_bits`` the
    size of its transposition table (2**bits entries of 64 bytes); ``exact_limit_two_decks``
    positions the two-deck solver may search, where it is tried at all (no hand over
    :data:`~gongzhu.search.solver2.FITS_CARDS` cards): it searches some 250,000 positions a
    second against millions for one deck, so the default takes under a second."""

    worlds: int = 64
    answer_worlds: int = 24
    exact_limit: int = 2_000_000
    table_bits: int = 20
    exact_limit_two_decks: int = 200_000

    def __post_init__(self) -> None:
        if not 1 <= self.worlds <= 10_000 or not 1 <= self.answer_worlds <= 10_000:
            raise ValueError("worlds and answer_worlds must lie in 1..10000")
        if not 1 <= self.exact_limit <= 1_000_000_000 or not 1 <= self.exact_limit_two_decks <= 1_000_000_000:
            raise ValueError("exact_limit and exact_limit_two_decks must lie in 1..1000000000 (a what-if is always "
                             "bounded)")
        if not 10 <= self.table_bits <= 24:
            raise ValueError("table_bits must lie in 10..24")


DEFAULT_WHATIF_BUDGET = WhatIfBudget()


class WhatIfError(ValueError):
    """A line that cannot be played on the deal: ``text`` (a catalog message) says where and
    why; ``reason`` is the rules' own refusal of an illegal play, if that was it."""

    def __init__(self, text: Text, reason: Text | None = None) -> None:
        super().__init__(text.render("en"))
        self.text = text
        self.reason = reason


def _play_code(play: Sequence[Card]) -> str:
    return "+".join(c.code for c in sorted(play, key=lambda c: c.index))


def parse_line(line: object) -> list[tuple[Card, ...]]:
    """The plays of a line as the request sends it: a list of at most :data:`MAX_LINE` texts,
    each one canonical card code (R11: ``"QS"``, ``"TC"``) or two joined by ``+``.  Raises
    :class:`WhatIfError` (``whatif.bad_line`` for anything but such a list, ``whatif.bad_play``
    naming the first text that is no play)."""
    if not isinstance(line, list) or len(line) > MAX_LINE:
        raise WhatIfError(Text.of("whatif.bad_line", most=MAX_LINE))
    plays: list[tuple[Card, ...]] = []
    for i, item in enumerate(line):
        try:
            if not isinstance(item, str) or len(item) > _MAX_PLAY_TEXT:
                raise ValueError(item)
            cards = [parse_card(p) for p in item.split("+")]
            if not 1 <= len(cards) <= 2 or "+".join(c.code for c in cards) != item:  # canonical codes only
                raise ValueError(item)
            plays.append(tuple(sorted(cards, key=lambda c: c.index)))
        except ValueError:
            raise WhatIfError(Text.of("whatif.bad_play", index=i + 1, play=show(item))) from None
    return plays


def _seed(rec: DealRecord, purpose: str, seat: Seat, plays: Sequence[Sequence[Card]]) -> int:
    """A seed drawn from the deal, what it is for, the seat and the line so far: the same line
    gets the same answers and values, whoever asks and whenever."""
    text = "|".join([rec.match, str(rec.deal_index), purpose, SEATS[seat], ",".join(_play_code(p) for p in plays)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def _start(rec: DealRecord) -> Deal:
    """The deal at its first lead, the record's exposures declared."""
    for deal in replay_states(rec):
        if deal.phase is Phase.PLAY:
            return deal.copy()
    raise ValueError("the record never reaches its first lead")


def _objective(rec: DealRecord, seat: Seat, raw: Sequence[int]) -> float:
    return sum(w * r for w, r in zip(objective_weights(rec.options, seat), raw, strict=True))


def _plays_json(plays: Sequence[tuple[Seat, Play]]) -> list[dict[str, Any]]:
    return [{"seat": SEATS[s], "cards": [c.code for c in p]} for s, p in plays]


def _position(rec: DealRecord, deal: Deal) -> dict[str, Any]:
    """Where the deal stands: whose turn, the trick in progress, the last trick finished, every
    hand (the record shows them all), the point cards each seat has taken, the raw scores and
    the seat results once it is over."""
    tricks = deal.tricks
    last = tricks[-1] if tricks else None
    over = deal.phase is Phase.OVER
    turn = deal.turn
    return {
        "turn": None if turn is None else SEATS[turn],
        "over": over,
        "trick": len(tricks) + (0 if over else 1),
        "current": _plays_json(deal.current_trick),
        "last": None if last is None else {"plays": _plays_json(last.plays), "leader": SEATS[last.leader],
                                           "winner": SEATS[last.winner], "taker": SEATS[last.taker]},
        "counts": {SEATS[s]: len(deal.hand(s)) for s in Seat},
        "hands": {SEATS[s]: [c.code for c in deal.hand(s)] for s in Seat},
        "taken": {SEATS[s]: [c.code for c in deal.captured(s) if is_point_card(c)] for s in Seat},
        "raw": list(deal.score.raw) if over else None,
        "results": {SEATS[s]: round(_objective(rec, s, deal.score.raw), 1) for s in Seat} if over else None,
    }


def _exact(rec: DealRecord, deal: Deal, seat: Seat, budget: WhatIfBudget) -> tuple[dict[str, float] | None, str | None]:
    """The open-card value of each legal play of the seat (by play code), or None and why not:
    ``limit`` (not solved within the budget; with two decks also a position with more than
    :data:`~gongzhu.search.solver2.FITS_CARDS` cards in a hand, which is not tried)."""
    if rec.options.decks == 2:
        from gongzhu.search import fast2
        from gongzhu.search.solver2 import OpenSolver2, fits

        pos = fast2.encode(deal)
        got2 = OpenSolver2(rec.options, seat).values(pos, limit=budget.exact_limit_two_decks) if fits(pos) else None
        if got2 is None:
            return None, "limit"
        return {_play_code(p): v for p, v in got2.items()}, None
    from gongzhu.search import fast
    from gongzhu.search.solver import OpenSolver

    solver = OpenSolver(rec.options, seat, table_bits=budget.table_bits)
    got = solver.values(fast.encode(deal), limit=budget.exact_limit)
    if got is None:
        return None, "limit"
    return {c.code: v for c, v in got.items()}, None


def _best(values: Mapping[str, float | None]) -> set[str]:
    known = {k: v for k, v in values.items() if v is not None}
    if not known:
        return set()
    top = max(known.values())
    return {k for k, v in known.items() if v == top}


def what_if(record: Mapping[str, Any] | DealRecord, seat: Seat, line: Sequence[object], *,
            budget: WhatIfBudget = DEFAULT_WHATIF_BUDGET) -> dict[str, Any]:
    """The what-if board of ``seat`` after ``line`` in the finished deal of ``record`` (see the
    module docstring and docs/review.md, What if, for the object it returns).  ``line`` is as a
    request sends it (texts, :func:`parse_line`).  Raises :class:`WhatIfError`
    when the line cannot be played, and a ``SearchUnavailableError`` without the C search."""
    search.require("a what-if board")
    rec = record if isinstance(record, DealRecord) else parse_record(record)
    texts = list(line)
    plays = parse_line(texts)  # each text is one or two canonical codes: a refusal quotes it as sent
    actual = [(s, tuple(sorted(p, key=lambda c: c.index))) for t in rec.tricks for s, p in t.plays]
    deal = _start(rec)
    diverged: int | None = None
    seats: list[Seat] = []  # who made each play of the line
    for i, play in enumerate(plays):
        turn = deal.turn
        if turn is None:
            raise WhatIfError(Text.of("whatif.after_end", index=i + 1, play=texts[i]))
        try:
            deal.verify_play(play, turn)
        except GongzhuError as e:
            raise WhatIfError(Text.of("whatif.illegal", index=i + 1, play=texts[i], seat=turn), e.text) from None
        if diverged is None and (i >= len(actual) or actual[i][1] != play):
            diverged = i
        deal.play(play, turn)
        seats.append(turn)
    done: list[tuple[Card, ...]] = list(plays)
    answers: list[dict[str, Any]] = []
    while (turn := deal.turn) is not None and turn != seat:
        i = len(done)
        if diverged is None and i < len(actual):
            play, by = actual[i][1], "record"
        else:
            player = ExpertPlayer(seed=_seed(rec, "answer", turn, done), iterations=budget.answer_worlds)
            play, by = tuple(sorted(player.choose_play(observe(deal, turn)), key=lambda c: c.index)), "expert"
        deal.play(play, turn)
        done.append(play)
        seats.append(turn)
        answers.append({"seat": SEATS[turn], "cards": [c.code for c in play], "by": by})
    answer: dict[str, Any] = {
        "format": WHATIF_FORMAT, "match": rec.match, "deal_index": rec.deal_index, "seat": SEATS[seat],
        "scoring": "partners" if rec.options.partnership else "individual",
        "line": [_play_code(p) for p in done], "seats": [SEATS[s] for s in seats], "given": len(plays),
        "diverged": diverged,
        "answers": answers, "position": _position(rec, deal),
        "values": [], "best": {"exact": None, "expected": None},
        "exact": {"solver": "two teams" if rec.options.partnership else "paranoid",
                  "meaning": "two_teams" if rec.options.partnership else "worst_case",
                  "solved": False, "why": "over",
                  "limit": budget.exact_limit_two_decks if rec.options.decks == 2 else budget.exact_limit},
        "expected": {"worlds": budget.worlds},
    }
    if turn is None:
        return answer
    obs = observe(deal, seat)
    evaluated = ExpertPlayer(seed=_seed(rec, "values", seat, done), iterations=budget.worlds).evaluate(obs)
    expected = {_play_code(v.play): round(v.value, 1) for v in evaluated}
    exact_values, why = _exact(rec, deal, seat, budget)
    exact: dict[str, float | None] = {k: None if exact_values is None else round(exact_values[k], 1) for k in expected}
    best_exact, best_expected = _best(exact), _best(expected)
    here = actual[len(done)][1] if diverged is None and len(done) < len(actual) else None
    order = sorted(expected, key=lambda k: (-expected[k], k))
    answer["values"] = [
        {"cards": k.split("+"), "exact": exact[k], "expected": expected[k], "best_exact": k in best_exact,
         "best_expected": k in best_expected, "actual": here is not None and _play_code(here) == k}
        for k in order
    ]
    answer["best"] = {"exact": next((k.split("+") for k in order if k in best_exact), None),
                      "expected": order[0].split("+")}
    answer["exact"].update(solved=exact_values is not None, why=why)
    return answer
