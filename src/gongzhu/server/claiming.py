"""Claims (声称, R5.4) at a table: checked by exact search, or put to the others
(``docs/tournaments.md``, Claims; ``docs/web-protocol.md``, Claims).

A claim is checked by :func:`gongzhu.search.claims.check_claim` on a thread of the hint pool,
off the event loop.  One that holds whatever the others play ends the deal along the search's
line; one they can break is refused, saying by which trick they can — not how: the line that
breaks it holds the other hands' cards, which nobody at the table may see.  The search sees every
hand, so each answer tells the claimer something of them: a seat claims once a deal (a claim is
spent as it is asked, whatever comes of it: refused, withdrawn, or overtaken by a play made while
the search ran, whose answer tells by its time what the search found).  One the search cannot decide
within its bound is refused as undecided — except under the tournament preset with people among
the claimer's opponents, where, as at a tournament table, **they** accept or contest it:

- the server first looks for a line of all four seats that makes the claim come true (an agreed
  search); a claim no line keeps is refused at once;
- while the people asked answer (within :data:`~gongzhu.server.clock.CLAIM_SECONDS`), the deal
  stands still: no play is taken, the computers wait, the clock runs for the answers only;
- every one of them accepting ends the deal along that line (each other seat playing, of the
  plays that keep the claim, its own best); one contesting, or the time running out, withdraws the
  claim and play goes on where it stood — at an event's table the claim goes to the referee, who
  rules on it from the solver's verdict once every table has played the board
  (:meth:`gongzhu.server.events.Events.rule`).

Computer players do not answer (they cannot judge what the search could not): the people
decide.  A partner (partnership scoring) is no opponent and is not asked.

Imports the rules core, the search, wire and the clock.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Protocol

from gongzhu.rules.cards import Seat
from gongzhu.rules.claims import Claim, ClaimError, ClaimKind, verify_claim
from gongzhu.rules.deal import Deal
from gongzhu.rules.model import Play
from gongzhu.rules.options import Options
from gongzhu.search.claims import PlayLine, check_claim
from gongzhu.server.clock import Clock
from gongzhu.server.wire import Refused, codes

__all__ = ["VOTING_PRESET", "ClaimVote", "Claims", "from_play", "play_line"]

#: The preset under which the people opposing a claim the search cannot decide accept or contest it.
VOTING_PRESET = "tournament"


def play_line(plays: Sequence[tuple[Seat, Play]]) -> list[dict[str, Any]]:
    """A line of play as events and records write plays: ``{"seat", "cards"}``."""
    return [{"seat": seat.name, "cards": codes(cards)} for seat, cards in plays]


def _breaks_by(deal: Deal, refutation: PlayLine) -> int:
    """The trick (1-based) by which the others' line breaks a claim: its last play's."""
    made = sum(len(t.plays) for t in deal.tricks) + len(deal.current_trick) + max(len(refutation), 1) - 1
    return made // 4 + 1


def from_play(deal: Deal) -> dict[str, int]:
    """Where the server takes a deal over to play it out: the trick the next play belongs to
    (1-based) and how many plays of the deal were made before it."""
    return {"from_trick": len(deal.tricks) + 1,
            "from_play": sum(len(t.plays) for t in deal.tricks) + len(deal.current_trick)}


@dataclass
class ClaimVote:
    """A claim put to the people opposing it: who is asked, who accepted so far, and the line the
    deal ends along if all of them accept (found at ``position``)."""

    claim: Claim
    said: dict[str, Any]
    line: PlayLine
    voters: tuple[Seat, ...]
    position: int
    accepted: set[Seat] = field(default_factory=set)

    def waiting(self) -> list[Seat]:
        return [s for s in self.voters if s not in self.accepted]

    def view(self) -> dict[str, Any]:
        """The claim as every seat and spectator sees it while it waits."""
        return {**self.said, "voters": [s.name for s in self.voters],
                "accepted": [s.name for s in self.voters if s in self.accepted]}


class Searching(Protocol):
    """Where a claim's search runs (:class:`gongzhu.server.thinking.Pools`), and its bound."""

    @property
    def hints(self) -> Executor: ...

    @property
    def claim_limit(self) -> int: ...


class Claimant(Protocol):
    """What the claims read of, and do to, their table."""

    preset: str
    options: Options
    position: int
    broken: bool
    auto: list[bool]
    clock: Clock

    @property
    def pools(self) -> Searching: ...

    @property
    def deal(self) -> Deal | None: ...

    def current(self) -> Deal: ...

    def holder(self, seat: Seat) -> str | None: ...

    def event(self, message: dict[str, Any]) -> None: ...

    def announce(self, message: dict[str, Any]) -> None: ...

    def play_out(self, line: list[tuple[Seat, Play]], ending: dict[str, Any]) -> None: ...

    def claim_spent(self, seat: Seat) -> None:
        """Keep with the deal in progress that ``seat`` spent its claim (a table loaded again, by
        this server or another, knows it)."""

    def contested(self, said: dict[str, Any], why: dict[str, Any]) -> None:
        """A claim put to the others was withdrawn (contested or unanswered) where play went on:
        at an event's table, it goes to the referee."""


class Claims:
    """One table's claims: checking them, and the claim waiting for the others' answers."""

    def __init__(self, table: Claimant) -> None:
        self.table = table
        self.vote: ClaimVote | None = None
        #: The deal in which each seat spent its claim (one a deal: a refused, undecided or
        #: withdrawn one; stored with the deal, see :meth:`spend`), and the seats whose claim is
        #: being checked now (one at a time: a second connection of the same person may not ask
        #: the search a second question meanwhile).
        self.spent: dict[Seat, Deal] = {}
        self.checking: set[Seat] = set()

    def spend(self, seat: Seat, deal: Deal, *, store: bool = True) -> None:
        """``seat`` has spent its claim of ``deal``: kept here and, unless it comes from the store
        (``store`` False), stored with the deal."""
        self.spent[seat] = deal
        if store:
            self.table.claim_spent(seat)

    def waiting(self) -> list[Seat] | None:
        """The seats yet to answer the claim put to them, or None when no claim waits."""
        return self.vote.waiting() if self.vote is not None else None

    def view(self) -> dict[str, Any] | None:
        return self.vote.view() if self.vote is not None else None

    def check_open(self) -> None:
        """Refuse an action that would move the deal while a claim waits for answers."""
        if self.vote is not None:
            raise Refused("server.claim_waiting", seat=self.vote.claim.seat)

    def voters(self, claimer: Seat) -> tuple[Seat, ...]:
        """The people asked to accept ``claimer``'s claim: the other seats held by people who play
        them now (not 托管), but a partner; none but under :data:`VOTING_PRESET`."""
        t = self.table
        if t.preset != VOTING_PRESET:
            return ()
        partner = Seat((claimer + 2) % 4) if t.options.partnership else None
        return tuple(s for s in Seat if s not in (claimer, partner) and t.holder(s) is not None and not t.auto[s])

    async def claim(self, seat: Seat, kind: str, value: int | None) -> None:
        """A claim of the person at ``seat`` (see the module docstring)."""
        t = self.table
        deal = t.current()
        self.check_open()
        try:
            claim = Claim(seat, ClaimKind(kind), value)
            verify_claim(deal, claim)
        except ClaimError:
            raise Refused("server.claim_not_now") from None
        if t.auto[seat]:
            raise Refused("server.in_auto")
        if self.spent.get(seat) is deal or seat in self.checking:
            raise Refused("server.claim_used")
        said = {"type": "claim", "seat": seat.name, "kind": kind, "value": value}
        # Spent as it is asked, whatever comes of it: each answer of the search — an undecided
        # one, and one overtaken by a play, by how long it took — tells of the others' hands.
        self.spend(seat, deal)
        self.checking.add(seat)
        try:
            verdict = await self._search(deal, claim, agreed=False)
            if verdict.holds is None:
                voters = self.voters(seat)
                if not voters:
                    raise Refused("server.claim_undecided")
                await self._put(deal, claim, said, voters)
                return
        finally:
            self.checking.discard(seat)
        if not verdict.holds:
            t.event({**said, "accepted": False})
            raise Refused("server.claim_refused", trick=_breaks_by(deal, verdict.refutation))
        t.event({**said, "accepted": True})
        t.play_out(list(verdict.line), {**said, **from_play(deal), "line": play_line(verdict.line)})

    async def _search(self, deal: Deal, claim: Claim, *, agreed: bool) -> Any:
        """The search's verdict on ``claim`` (on a thread of the hint pool); :class:`Refused` when
        the deal moved on meanwhile."""
        t = self.table
        position = t.position
        pools = t.pools
        verdict = await asyncio.get_running_loop().run_in_executor(pools.hints, functools.partial(
            check_claim, deal.copy(), claim, limit=pools.claim_limit, agreed=agreed))
        if t.position != position or t.deal is not deal or t.broken or self.vote is not None:
            raise Refused("server.claim_overtaken")
        return verdict

    async def _put(self, deal: Deal, claim: Claim, said: dict[str, Any], voters: tuple[Seat, ...]) -> None:
        """Put a claim the search could not decide to ``voters``, once a line that keeps it is found."""
        t = self.table
        agreed = await self._search(deal, claim, agreed=True)
        if agreed.holds is None:
            raise Refused("server.claim_undecided")
        if not agreed.holds:
            t.event({**said, "accepted": False})
            raise Refused("server.claim_impossible")
        self.vote = ClaimVote(claim, said, agreed.line, voters, t.position)
        t.clock.deadline = None  # the answers' own time, from now
        t.clock.arm()
        t.announce({**said, "vote": [s.name for s in voters]})

    def answer(self, seat: Seat, accept: bool) -> None:
        """The answer of the person at ``seat`` to the claim put to them."""
        vote = self.vote
        if vote is None:
            raise Refused("server.no_claim_waiting")
        if seat not in vote.voters:
            raise Refused("server.claim_not_asked", seat=vote.claim.seat)
        if seat in vote.accepted:
            raise Refused("server.claim_answered")
        if not accept:
            self._withdraw({"contested": seat.name})
            return
        vote.accepted.add(seat)
        if vote.waiting():
            self.table.announce({**vote.said, "accepted_by": seat.name})
            return
        t = self.table
        deal = t.current()
        self._end()
        t.event({**vote.said, "accepted": True, "agreed": True})
        t.play_out(list(vote.line), {**vote.said, **from_play(deal), "line": play_line(vote.line), "agreed": True})

    def unanswered(self) -> None:
        """The time for the answers ran out: the claim is withdrawn, as if contested."""
        vote = self.vote
        if vote is not None:
            self._withdraw({"unanswered": [s.name for s in vote.waiting()]})

    def _withdraw(self, why: dict[str, Any]) -> None:
        vote = self.vote
        assert vote is not None
        deal = self.table.current()  # (the claim was spent when it was put to the vote)
        self._end()
        self.table.announce({**vote.said, "accepted": False, **why})
        self.table.contested({**vote.said, **from_play(deal)}, why)

    def _end(self) -> None:
        self.vote = None
        clock = self.table.clock
        clock.deadline = None  # the turn's time starts again
        clock.arm()
