"""Views: what one recipient may see of a table — the one place the server's no-leak rule lives
(``docs/web-protocol.md``, The state).

A seat's view holds its own hand and choices and what every seat sees alike: the table, the
cards played, captured point cards, the exposures it may see (R4.4) and, once a deal is over,
its result with every hand.  A spectator's view (seat None) holds no hand at all.  The functions
here read a table's state (:class:`TableState`) and change nothing; :class:`Views` keeps the
views of one version, built once for every connection that shows it.

Imports the rules core, the players' observation rule of exposures and the wire.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from gongzhu.ratings import DEFAULT, Skill
from gongzhu.rules.cards import Card, Seat
from gongzhu.rules.deal import Deal, Phase
from gongzhu.rules.exposure import visible_exposures
from gongzhu.rules.match import Match, match_goal, title_for
from gongzhu.rules.options import Options
from gongzhu.rules.scoring import SeatScore, is_point_card, lifetime_factor, raw_scores
from gongzhu.server.wire import codes, seat_map

__all__ = ["TableState", "Views", "deal_seat_view", "personal", "played", "public_exposures"]


class TableState(Protocol):
    """What the views read of a table."""

    version: int
    match_id: str
    preset: str
    speed: str
    options: Options
    levels: dict[str, str]
    match: Match
    pending: dict[Seat, list[tuple[Card, str]]]
    seats: list[tuple[str, str] | None]
    lifetimes: dict[str, int]
    auto: list[bool]
    timeouts: list[int]
    status: str
    visibility: str
    invite: str | None
    host_name: str | None
    seeded: bool
    challenge: str | None
    event_seating: dict[str, Any] | None  # at a live event's table (its challenge names the event)
    turn_seconds: int | None
    expose_seconds: int | None
    skills: dict[str, Skill]
    accounts: set[str]
    accounts_only: bool

    @property
    def rated(self) -> bool: ...

    @property
    def practice(self) -> bool: ...

    @property
    def practice_ahead(self) -> bool: ...

    @property
    def ranked(self) -> bool: ...

    @property
    def deal(self) -> Deal | None: ...

    @property
    def phase(self) -> str: ...

    def connected(self) -> set[str]: ...

    def seat_of(self, user: str) -> Seat | None: ...

    def computer_level(self, seat: Seat) -> str: ...

    def next_deal(self, seat: Seat) -> bool: ...

    def clock_view(self) -> dict[str, Any] | None: ...

    def claim_view(self) -> dict[str, Any] | None: ...


def played(deal: Deal) -> list[tuple[Seat, Card]]:
    """Every card played so far in the deal, with its seat."""
    trick = deal.current_trick
    return [(s, c) for t in deal.tricks for s, p in t.plays for c in p] + [(s, c) for s, p in trick for c in p]


def _exposure(e: Any) -> dict[str, str]:
    return {"seat": e.seat.name, "card": e.card.code, "kind": e.kind}


def public_exposures(deal: Deal) -> list[dict[str, str]]:
    """The exposures everyone may see now (R4.4: a secret one once its card is played)."""
    shown, _hidden = visible_exposures(deal.exposures, None, played(deal))
    return [_exposure(e) for e in shown]


def personal(view: Mapping[str, Any], user: str, name: str, *, host: bool, seat: Seat | None, auto: bool,
             waiting: Seat | None, lifetime: int, withheld: int = 0) -> dict[str, Any]:
    """A seat's view as one person is shown it: who they are (``you``) and their lifetime score,
    with what it did not count of their last deal here (``withheld``)."""
    state = dict(view)
    state["you"] = {"id": user, "name": name, "host": host, "seat": seat.name if seat is not None else None,
                    "auto": auto, "next_deal_seat": waiting.name if waiting is not None else None}
    state["lifetime"] = {"score": lifetime, "title": title_for(lifetime), "withheld": withheld}
    return state


def _parts(part: SeatScore) -> dict[str, Any]:
    """A seat's raw score part by part (R6), as the summary shows it."""
    return {"hearts": part.hearts, "pig": part.pig, "sheep": part.sheep, "transformers": part.transformers,
            "multiplier": part.multiplier, "alone": part.alone, "all_hearts": part.all_hearts,
            "grand_slam": part.grand_slam, "raw": part.raw}


def _goal(match: Match) -> dict[str, Any]:
    """How far the match is from its end (R8): its kind, its limit and each seat's distance."""
    goal = match_goal(match.options, match.totals, len(match.deals))
    return {"kind": goal.kind, "limit": goal.limit, "to_go": seat_map(goal.to_go)}


def table_view(t: TableState) -> dict[str, Any]:
    """The table's seats and settings as everyone sees them (the invitation is added for the
    seated by :meth:`Views.seat`)."""
    connected = t.connected()
    spectators = {u for u in connected if t.seat_of(u) is None}
    seats: dict[str, Any] = {}
    for s in Seat:
        occupant = t.seats[s]
        if occupant is None:
            seats[s.name] = {"name": None, "title": None, "computer": t.computer_level(s), "auto": False,
                             "connected": False, "timeouts": 0}
        else:
            waiting = t.next_deal(s)  # a computer player plays the seat until the next deal
            seats[s.name] = {"name": occupant[1], "title": title_for(t.lifetimes.get(occupant[0], 0)),
                             "computer": t.computer_level(s) if t.auto[s] or waiting else None,
                             "auto": t.auto[s], "connected": occupant[0] in connected, "timeouts": t.timeouts[s]}
            if occupant[0] in t.accounts:  # a guest has no rating
                seats[s.name].update(t.skills.get(occupant[0], DEFAULT).shown())
            if waiting:
                seats[s.name]["next_deal"] = True
    # Fair dealing: the commitment to the match's cards from its start, the seed once it is over (a
    # challenge's boards have their own commitment, its seed revealed when the challenge closes).
    fair = t.challenge is None
    # A seed the host chose is shown only once the match is over, and so is its commitment:
    # chosen by a person, the seed may be one of few, and anyone could find it from the hash.
    # Over means played to its end: a table an operator closed mid-deal keeps its seed, which
    # would show the hands of the deal left unfinished.
    played_out = t.match.is_over
    committed = fair and (not t.seeded or played_out)
    return {"id": t.match_id, "status": t.status, "visibility": t.visibility, "host": t.host_name, "invite": None,
            "commitment": t.match.commitment if committed else None,
            "seed": str(t.match.seed) if fair and played_out else None,
            "seeded": t.seeded, "rated": t.rated, "practice": t.practice_ahead, "turn_seconds": t.turn_seconds,
            "expose_seconds": t.expose_seconds,
            "accounts_only": t.accounts_only,
            "seats": seats, "spectators": len(spectators),
            "challenge": None if t.challenge is None else {
                "id": t.challenge, "url": f"/{'event' if t.event_seating is not None else 'challenge'}/{t.challenge}"}}


def deal_result(match_id: str, deal: Deal, *, practice: bool = False) -> dict[str, Any]:
    """A finished deal: every card is public now (``practice``: it counts as practice, apart from
    the lifetime score — where it counts toward either; docs/ratings.md)."""
    score = deal.score
    return {
        "raw": seat_map(score.raw),
        "result": seat_map(score.result),
        "final": seat_map(score.final),
        "events": [{"seat": s.name, "event": e} for s, e in score.events],
        # The R6 breakdown of each raw score and the R7 factor to 生涯计分: what the page shows.
        "parts": {s.name: _parts(score.parts[s]) for s in Seat},
        "factors": [{"card": c.code, "factor": f} for c, f in score.factors],
        "lifetime_factor": lifetime_factor(deal.options),
        "practice": practice,
        "hands": {s.name: codes(deal.dealt[s]) for s in Seat},
        "exposures": [_exposure(e) for e in deal.exposures],
        "record_url": f"/api/matches/{match_id}/deals/{deal.deal_index}",
    }


def _points(deal: Deal, cards_played: list[tuple[Seat, Card]]) -> dict[str, int]:
    """Each seat's raw score (R6) if the deal ended now, from the cards taken so far and the
    exposures everyone sees (a secret exposure counts once its card is played)."""
    captured: list[list[Card]] = [[], [], [], []]
    for t in deal.tricks:
        captured[t.taker].extend(t.cards)
    exposures, _hidden = visible_exposures(deal.exposures, None, cards_played)
    raw, _events = raw_scores(deal.options, captured, exposures, deal.dealt)
    return seat_map(raw)


def deal_shared_view(t: TableState, deal: Deal, cards_played: list[tuple[Seat, Card]]) -> dict[str, Any]:
    """What every seat sees alike of the deal."""
    over = deal.is_over
    turn = deal.turn
    tricks = deal.tricks
    trick = deal.current_trick
    last = tricks[-1] if tricks else None
    leader = deal.leader if deal.phase is not Phase.EXPOSE else None
    taken: dict[Seat, list[str]] = {s: [] for s in Seat}
    for tr in tricks:
        taken[tr.taker].extend(c.code for c in tr.cards if is_point_card(c))  # point cards (R6)
    cards_left = {s.name: len(deal.dealt[s]) for s in Seat}
    for s, _c in cards_played:
        cards_left[s.name] -= 1
    return {
        "deal_index": deal.deal_index,
        "turn": turn.name if turn is not None else None,
        "undeclared": [s.name for s in deal.undeclared if s not in t.pending],
        "declared": [s.name for s in deal.undeclared if s in t.pending],
        "trick": {
            "leader": leader.name if leader is not None and not over else None,
            "plays": [{"seat": s.name, "cards": codes(p)} for s, p in trick],
        },
        "last_trick": None if last is None else {
            "leader": last.leader.name,
            "plays": [{"seat": s.name, "cards": codes(p)} for s, p in last.plays],
            "winner": last.winner.name,
            "taker": last.taker.name,
        },
        "tricks_played": len(tricks),
        "captured": {s.name: taken[s] for s in Seat},
        "points": _points(deal, cards_played),
        "cards_left": cards_left,
        # (practice where it was added up as practice: a deal set in advance counts toward neither)
        "deal_result": deal_result(t.match_id, deal, practice=t.practice and t.ranked) if over else None,
    }


def deal_seat_view(deal: Deal, seat: Seat | None, pending: Mapping[Seat, list[tuple[Card, str]]],
                   cards_played: list[tuple[Seat, Card]]) -> dict[str, Any]:
    """What only ``seat`` sees of the deal (``cards_played``: every card played so far, with its
    seat; ``pending``: the declarations not revealed yet): its hand, its choices, the exposures it
    may see.  A spectator (None) sees no hand, no choice and no secret exposure."""
    exposures, hidden = visible_exposures(deal.exposures, seat, cards_played)
    mine = seat is not None and seat in deal.undeclared and seat not in pending
    return {
        "hand": codes(deal.hand(seat)) if seat is not None else [],
        "legal": [codes(p) for p in deal.legal_plays()] if deal.turn == seat and seat is not None else [],
        "exposable": [{"card": c.code, "kinds": list(deal.exposure_kinds(seat, c))}
                      for c in deal.exposable(seat)] if mine and seat is not None else [],
        "exposures": [_exposure(e) for e in exposures],
        "hidden_counts": seat_map(hidden),
        "my_declaration": ([{"card": c.code, "kind": k} for c, k in pending[seat]]
                           if seat is not None and seat in pending else None),
    }


class Views:
    """A table's views at its current version, each built once (:meth:`clear` after a change)."""

    def __init__(self, table: TableState) -> None:
        self.table = table
        self.options = table.options.to_dict()
        self._states: dict[Seat | None, dict[str, Any]] = {}  # this version's views, by seat
        self._shared: dict[str, Any] | None = None  # what every seat sees alike at this version
        self._played: list[tuple[Seat, Card]] = []  # and the cards played so far, with their seats

    def clear(self) -> None:
        self._states.clear()
        self._shared = None

    def seat(self, seat: Seat | None) -> dict[str, Any]:
        """The table as ``seat`` sees it (None: someone who sits at no seat), without what depends
        on the person (:func:`personal`): shared by every connection of that seat."""
        t = self.table
        cached = self._states.get(seat)
        if cached is not None and cached["v"] == t.version:
            return cached
        shared = self.shared()
        state = dict(shared)
        state["seat"] = seat.name if seat is not None else None
        if seat is not None and t.visibility == "private":  # the invitation: for the seated only
            state["table"] = {**shared["table"], "invite": t.invite}
        deal = t.deal
        if deal is None:
            state.update({"hand": [], "legal": [], "exposable": [], "exposures": [],
                          "hidden_counts": dict.fromkeys("NESW", 0), "my_declaration": None})
        else:
            state.update(deal_seat_view(deal, seat, t.pending, self._played))
        self._states[seat] = state
        return state

    def shared(self) -> dict[str, Any]:
        """What every seat and spectator sees alike at this version."""
        t = self.table
        shared = self._shared
        if shared is not None and shared["v"] == t.version:
            return shared
        deal = t.deal
        shared = {
            "v": t.version, "match_id": t.match_id, "phase": t.phase, "options": self.options,
            "preset": t.preset, "levels": dict(t.levels), "speed": t.speed,
            "table": table_view(t), "clock": t.clock_view(), "claim": t.claim_view(),
            "totals": seat_map(t.match.totals),
            "deals_played": len(t.match.deals), "match_result": None,
            "goal": _goal(t.match),
        }
        self._played = played(deal) if deal is not None else []
        if deal is None:
            shared.update({
                "deal_index": 0, "turn": None, "undeclared": [], "declared": [],
                "trick": {"leader": None, "plays": []}, "last_trick": None, "tricks_played": 0,
                "captured": {s.name: [] for s in Seat}, "cards_left": dict.fromkeys("NESW", 0),
                "points": dict.fromkeys("NESW", 0), "deal_result": None,
            })
        else:
            shared.update(deal_shared_view(t, deal, self._played))
        if t.match.is_over:
            outcome = t.match.outcome()
            shared["match_result"] = {"winners": [s.name for s in outcome.winners],
                                      "pigs": [s.name for s in outcome.pigs]}
        self._shared = shared
        return shared
