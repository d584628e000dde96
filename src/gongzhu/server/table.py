"""A table: one match played by people and computer players, seat by seat — its state, its seats,
and how a change is stored and published (``docs/architecture.md``, The game server).

The rules core decides everything; :mod:`gongzhu.server.dispatch` turns what people send into the
table's actions, which it commits to the store before they are acknowledged and publishes,
numbered, to its rooms with the view of each seat its people see it from
(:mod:`gongzhu.server.views`).  During a deal a person holds only the hand of a seat dealt to them
(:meth:`Table.holder`).  Its clock and its computer players are :mod:`gongzhu.server.clock` and
:mod:`gongzhu.server.thinking`; what it needs of its server is a :class:`Hub`.  All changes happen
on the event loop, each in one synchronous step (check, apply, store, publish), so no lock is
needed.

Imports the rules core, records, the store, wire, bodies, rooms, views, clock, thinking, claiming and
metrics.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Protocol

from gongzhu.messages import Text
from gongzhu.players.registry import LEVELS
from gongzhu.ratings import Skill, family_of, placed_last
from gongzhu.records.format import deal_to_record, dump_record
from gongzhu.records.replay import replay
from gongzhu.rules.boards import Board
from gongzhu.rules.cards import Card, Seat, parse_card
from gongzhu.rules.claims import finish_settled, settled
from gongzhu.rules.deal import Deal
from gongzhu.rules.errors import GongzhuError
from gongzhu.rules.match import Match, title_for
from gongzhu.rules.model import CardPlay, Play
from gongzhu.rules.options import PRESETS, Options
from gongzhu.server.bodies import DEFAULT_LEVEL, PERSON, NewTable, check_for_people
from gongzhu.server.challenges import Challenges
from gongzhu.server.claiming import Claims, from_play
from gongzhu.server.clock import Clock
from gongzhu.server.metrics import Metrics
from gongzhu.server.rooms import ChatBlocks, ChatBudgets, Person, Presence, Ref
from gongzhu.server.store import Charge, DeletedSitter, MatchInfo, Rated, SeatedElsewhere, Seating, StaleTable, Store
from gongzhu.server.thinking import Pools, Thinking, computer_level
from gongzhu.server.views import Views, personal, public_exposures
from gongzhu.server.wire import MessageError, Refused, codes, encode, refusal

__all__ = ["TIMEOUTS_TO_AUTO", "Hub", "StoreError", "Table"]

log = logging.getLogger("gongzhu.server")

#: How many timeouts in a row put a seat into 托管.
TIMEOUTS_TO_AUTO = 2
#: The options a host may change from a preset's and still play for the lifetime score: how
#: the match ends, which way the play goes, the first lead, discarding an exposed card before its
#: suit is led — none of them changes what a deal scores.  Any other (the factor, the exposures,
#: the forced fourth, the hearts' values, self-catching, the scoring …) makes a deal practice,
#: apart from the lifetime score (docs/ratings.md): else a host could multiply it.
NEUTRAL_OPTIONS = frozenset({"match_end", "match_limit", "direction", "first_lead", "exposed_discard_before_suit_led"})
#: The computer levels weaker than the one that stands in for people (``intermediate``): a deal
#: that one of them is dealt is practice, apart from the lifetime score (docs/ratings.md) — else
#: a person's two accounts, people apart by every link, would pile up a score against them (as
#: against a guest, a deal dealt to one being practice too).
PRACTICE_LEVELS = frozenset(tuple(LEVELS)[:tuple(LEVELS).index(DEFAULT_LEVEL)])
#: How old a reading of whether two accounts sitting at a table are linked may be, in seconds, as
#: the table says between deals whether the next one is rated and practice (a link made meanwhile
#: shows that long after; the deal itself reads them as it is dealt).
SEATED_LINKS_SECONDS = 30.0
#: How long a table loaded anew waits for the connections let in before to be introduced to it
#: again before it is let go when the first of them is refused (:meth:`Table.join`), in seconds.
INTRODUCED_WITHIN = 5.0


class StoreError(RuntimeError):
    """The store refused an action: it was not acknowledged, and the table is rebuilt from what
    was stored."""

    def __init__(self) -> None:
        super().__init__("the server could not save this change, so it did not happen; reconnect and try again")


class EventTables(Protocol):
    """What a table of a live event asks of the events (:mod:`gongzhu.server.events`)."""

    def table_boards(self, match_id: str) -> tuple[tuple[Board, ...], dict[str, Any], tuple[str, ...]] | None:
        """The boards the match plays, the ``seating`` its records hold and the player the
        movement seats in each seat (None: no event's)."""

    def arrived(self, match_id: str, user: str) -> None:
        """A player of the event's table came to it (kept across restarts, for the grace)."""

    def board_finished(self, match_id: str, deal_index: int, auto: dict[str, str]) -> None:
        """The event's table finished a board (the next stage may be due); ``auto``: the seats a
        computer finished it for (托管), with their players' names, for the referee's log."""

    async def resume(self) -> None:
        """The server starts: it watches the events not over."""

    def claim_contested(self, match_id: str, deal_index: int, said: dict[str, Any], why: dict[str, Any]) -> None:
        """A claim at the event's table was contested (or left unanswered): the referee rules on it."""


class Hub(Protocol):
    """What a table needs of its server (:class:`~gongzhu.server.registry.Tables`)."""

    store: Store
    pools: Pools
    challenges: Challenges | None
    #: The live events whose tables this server may run (set by gongzhu.server.events), or None.
    events: EventTables | None
    #: Why a person's chat is refused now (a mute, gongzhu.server.moderation), or None.
    muted: Callable[[str], Text | None]
    metrics: Metrics

    def send(self, ref: Ref, text: str | None, *, close: tuple[int, str] | None = None, admit: bool = False,
             v: int | None = None) -> None: ...

    def deliver(self, match_id: str, change: Mapping[str, Any]) -> None: ...

    def release(self, table: Table) -> None: ...

    def let_go(self, table: Table) -> bool: ...

    def listing_changed(self, match_id: str) -> None: ...

    def create(self, new: NewTable, host: Person, others: Sequence[tuple[str, str] | None] = ()) -> MatchInfo: ...

    def lifetimes_changed(self, source: Table, lifetimes: Mapping[str, int]) -> None: ...


class Table:
    """One table and its match (see the module docstring)."""

    def __init__(self, hub: Hub, info: MatchInfo) -> None:
        self.hub = hub
        self.match_id = info.match_id
        self.created = info.created
        self.preset = info.preset
        self.options = Options.from_dict(info.options)
        self.speed = info.speed
        #: The host chose the seed: everyone here is shown the deal was set in advance; at a table
        #: for people its deals count toward nobody's lifetime score, and a single-player match
        #: seats nobody else.
        self.seeded = info.seeded
        self.solo = info.solo
        #: The challenge whose boards this single-player match plays (docs/tournaments.md): no
        #: hints, nobody else at the table, each finished board's result counted there.
        self.challenge = info.challenge
        #: At a table of a live event (its ``challenge`` names the event, gongzhu.server.events):
        #: the ``seating`` each record holds (docs/tournaments.md); only its own people enter it.
        self.event_seating: dict[str, Any] | None = None
        #: At an event's table, the player the movement seats in each seat (N E S W): nobody sits
        #: anywhere else there (an opponent playing a team's hand, say).
        self.event_players: tuple[str, ...] | None = None
        self.accounts_only = info.accounts_only
        self.match = Match(self.options, seed=info.seed, match_id=info.match_id, boards=self._boards())
        seating = info.seating
        self.host = seating.host
        self.seats: list[tuple[str, str] | None] = list(seating.seats)
        self.levels = dict(seating.levels)
        self.visibility = seating.visibility
        self.invite = seating.invite
        self.turn_seconds = seating.turn_seconds
        self.expose_seconds = seating.expose_seconds
        self.status = seating.status
        self.auto = list(seating.auto)
        self.timeouts = list(seating.timeouts)
        self.dealt_to: list[str | None] = list(seating.dealt_to)
        #: The event version (every change but a spent claim raises it) and the position (every change
        #: of the game).
        self.version = seating.version
        #: The version the store holds: every write is made from it (``Store``'s fencing).
        self.stored = seating.version
        self.position = 0
        self._seq = 0  # actions of the current deal so far
        #: Declarations of the exposure phase not revealed yet (R4: every seat declares unseen).
        self.pending: dict[Seat, list[tuple[Card, str]]] = {}
        self.presences: dict[Ref, Presence] = {}
        #: The people seated for them while the table waits (its host as it was made, those 再来一局
        #: seated before their pages arrive) who have not come yet (a connection let in, or a seat
        #: taken themselves): the start deals none of them in (:meth:`start`).  Stored with the
        #: seats, so that a table loaded again (a restart, another server) knows who came before.
        self.awaited: set[str] = set(seating.awaited)
        self.chat_budgets = ChatBudgets()
        self.chat_blocks = ChatBlocks()
        self.lifetimes: dict[str, int] = {}
        # what the lifetime score did not count of each person's final of the deal last finished
        # here (docs/ratings.md, Won from one person), until the next is dealt
        self.withheld: dict[str, int] = {}
        #: The family of presets the table's deals are rated in, and the ratings there of the
        #: people who sit at it; which of them have an account (only accounts are rated).
        self.family = family_of(self.options)
        self.skills: dict[str, Skill] = {}
        self.accounts: set[str] = set()
        #: Which of the people the deal in progress (or the last one) was dealt to had an account
        #: when it was dealt: whether it is rated, and practice, goes by them (docs/ratings.md) —
        #: an account deleted or a guest's sign-up before its end changes neither.  A table loaded
        #: again reads them from the store, an account deleted since counting as the one it was.
        self.dealt_accounts: set[str] = set()
        #: How many people those accounts are, those linked (a browser or a network shared:
        #: :meth:`Store.linked_to`) counted as one: a deal is rated, and counts for the lifetime
        #: score, only among accounts that are people apart (docs/ratings.md).
        self.dealt_people = 0
        #: Which of those accounts were settled here when it was dealt: the lifetime score counts
        #: shares of finals between them (docs/ratings.md, Won from one person).
        self.dealt_settled: set[str] = set()
        #: The accounts sitting when their links were read last, whether two were linked, and
        #: when (:meth:`_seated_linked`: the header's practice, and rated, between deals).
        self._seated_links: tuple[frozenset[str], bool, float] | None = None
        #: Whom the host had leave a seat before the start: they do not sit here again (stored
        #: with the seating: a table loaded again, after a restart or on another server, keeps it).
        self.removed: set[str] = set(seating.removed)
        #: Set once the store refused an action: the table is dropped and rebuilt from the store.
        self.broken = False
        #: Set when the refusal said another server runs the table now, and this one let it go
        #: there (:meth:`_break`): what it was asked meanwhile is for that server.
        self.handed_over = False
        #: How the deal being played out ends, while a claim or a settled deal is played to its end.
        self.ending: dict[str, Any] | None = None
        self._played_out: list[dict[str, Any]] = []  # what those plays changed, published at the end
        #: The table of the next match (再来一局), once someone asked for it.
        self.again: str | None = None
        self.again_url = ""
        self.claims = Claims(self)
        self.thinking = Thinking(self, hub.pools, info.seed)
        self.clock = Clock(self, seating.deadline, self.thinking.timeout)
        self.views = Views(self)
        self._restore(info)
        self._refresh_people()
        hosts = self.hub.store.people([self.host]) if self.host is not None else {}
        self.host_name = hosts[self.host][0] if self.host in hosts else None

    def _boards(self) -> tuple[Board, ...] | None:
        if self.challenge is None:
            return None
        found = self.hub.events.table_boards(self.match_id) if self.hub.events is not None else None
        if found is not None:
            boards, self.event_seating, self.event_players = found
            return boards
        if self.hub.challenges is None:
            raise StoreError()  # a challenge's match on a server without challenges: not to be opened
        return self.hub.challenges.boards_of(self.challenge)

    # ------------------------------------------------------------------ the store

    def seating(self) -> Seating:
        return Seating(
            host=self.host, seats=tuple(self.seats), levels=dict(self.levels), visibility=self.visibility,
            invite=self.invite, turn_seconds=self.turn_seconds, expose_seconds=self.expose_seconds,
            status=self.status, version=self.version, auto=tuple(self.auto), timeouts=tuple(self.timeouts),
            deadline=self.clock.deadline, dealt_to=tuple(self.dealt_to), removed=tuple(sorted(self.removed)),
            awaited=tuple(sorted(self.awaited)), dealt_accounts=tuple(sorted(self.dealt_accounts)),
            dealt_people=self.dealt_people, dealt_settled=tuple(sorted(self.dealt_settled)),
        )

    def _restore(self, info: MatchInfo) -> None:
        """Rebuild the match: finished deals from their records, then the deal in progress
        from the seed and its stored actions (a started match deals its first deal here)."""
        store = self.hub.store
        for line in store.records(self.match_id):
            self.match.current = replay(json.loads(line))
            self.match.finish_deal()
        kept = info.seating
        if kept.dealt_accounts is not None and kept.dealt_people is not None:
            # As the deal was dealt: a guest's sign-up, or a link made since, changes nothing of
            # whether it is rated or practice (its people gone and back, a restart, a hand-over).
            self.dealt_accounts, self.dealt_people = set(kept.dealt_accounts), kept.dealt_people
        else:  # (a deal dealt before these were kept)
            self.dealt_accounts = store.accounts([u for u in self.dealt_to if u is not None], deleted=True)
            self.dealt_people = store.people_apart(sorted(self.dealt_accounts))
        # (likewise who of them were settled; a deal dealt before that was kept: as things are now)
        self.dealt_settled = (set(kept.dealt_settled) if kept.dealt_settled is not None
                              else store.settled(sorted(self.dealt_accounts)))
        if info.in_deal and self.status == "playing":
            deal = self.match.new_deal()
            for action in store.actions(self.match_id, deal.deal_index):
                self._apply(deal, action)
                self._seq += 1
            if deal.is_over:
                # Every play was stored but not the deal's record (a store from before the last
                # play and the record were one transaction): complete the deal now.
                log.warning("%s: deal %d was played out but not stored; storing it now", self.match_id,
                            deal.deal_index)
                self._finish(deal)

    def _apply(self, deal: Deal, action: Mapping[str, Any]) -> CardPlay | list[Any] | None:
        """Apply a stored action: a declaration waits until every seat has declared (then all are
        applied, in seat order); a play is applied at once."""
        seat = Seat.parse(action["seat"])
        if action["type"] == "claim":  # a claim spent (Claims.spend)
            self.claims.spend(seat, deal, store=False)
            return None
        if action["type"] == "declare":
            self.pending[seat] = [(parse_card(c), k) for c, k in action["items"]]
            if len(self.pending) < len(deal.undeclared):
                return None
            pending, self.pending = self.pending, {}
            return [deal.declare(s, pending[s]) for s in sorted(pending)]
        return deal.play(action["cards"], seat)

    def claim_spent(self, seat: Seat) -> None:
        """Store with the deal in progress that ``seat`` spent its claim (an action of its own,
        read again by :meth:`_restore`): a table loaded again does not give it a second one.  It
        is no change the others see, and raises no version: a gap in the versions they get would
        tell them that someone asked a claim nobody was told of (one undecided, or overtaken)."""
        deal = self.current()
        try:  # fenced as every change, at the version it is at: a server that no longer runs the table stores nothing
            self.hub.store.add_action(self.match_id, deal.deal_index, self._seq, {"seat": seat.name, "type": "claim"},
                                      self.seating(), expected=self.stored)
            self.stored = self.version  # (one a version stored late, _bump, is stored now)
            self._seq += 1
        except Exception as e:
            self._break(e)
            raise StoreError from None

    def _commit(self, seat: Seat, action: dict[str, Any], *, timed_out: bool = False) -> None:
        """Apply an action already checked legal, store it, and publish what changed.  The action
        that ends a deal is stored with the deal's record, in one transaction.  If the store
        refuses, the action is not acknowledged: raises :class:`StoreError` after dropping the
        table (see :meth:`_break`)."""
        deal = self.match.current
        assert deal is not None
        entry = {"seat": seat.name, **action}
        # Only turns count toward 托管: a person's play, their own or the timer's, not a declaration
        # (the exposure window running out is not a missed turn).
        if action["type"] == "play" and not self.is_computer(seat):
            self.timeouts[seat] = self.timeouts[seat] + 1 if timed_out else 0
            if self.timeouts[seat] >= TIMEOUTS_TO_AUTO:
                self.auto[seat] = True
        try:
            done = self._apply(deal, entry)  # checked legal before: the rules accept it
            self.version += 1
            if deal.is_over:
                self._finish(deal)  # the deal's record holds this last play
            else:
                self.clock.arm()
                self.hub.store.add_action(self.match_id, deal.deal_index, self._seq, entry, self.seating(),
                                          expected=self.stored)
                self.stored = self.version
                self._seq += 1
        except Exception as e:
            self._break(e)
            raise StoreError from None
        out: list[dict[str, Any]] = []
        if isinstance(done, CardPlay):
            out.append({"type": "played", "seat": seat.name, "cards": action["cards"]})
            if done.trick is not None:
                out.append({"type": "trick", "winner": done.trick.winner.name, "taker": done.trick.taker.name})
        elif isinstance(done, list):
            out.append({"type": "revealed", "exposures": public_exposures(deal)})
        if self.ending is not None:  # a deal played out: published once, at its end
            self._played_out.extend(out)
            return
        if action["type"] == "play" and self._settle(deal, out):
            return  # this play and the rest of the deal were published together
        self._changed(out, position=True)
        if deal.is_over:
            self.hub.listing_changed(self.match_id)

    def _save(self, *, position: bool = True, lobby: bool = True, **match: Any) -> None:
        """Store the seating after a change of the table (not of the game: ``match`` columns
        such as the speed), then publish it."""
        self._store_seating(**match)
        self._changed([], position=position)
        if lobby:
            self.hub.listing_changed(self.match_id)

    def _store_seating(self, undo: Callable[[], None] | None = None, **match: Any) -> None:
        """Store the seating after a change of the table (see :meth:`_save`).  With ``undo``, a
        seating the store refuses for whom it seats — an account deleted meanwhile
        (:class:`DeletedSitter`), someone dealt in at another table under way meanwhile
        (:class:`SeatedElsewhere`) — raises that refusal once ``undo`` has put the table back as
        it was: nothing was stored, nothing changed, nobody reloads (else, as any refusal of the
        store, it drops the table: :meth:`_break`)."""
        self.version += 1
        try:
            self.hub.store.save_table(self.match_id, self.seating(), expected=self.stored, **match)
        except (DeletedSitter, SeatedElsewhere) as e:
            if undo is None:
                self._break(e)
                raise StoreError from None
            self.version -= 1
            undo()
            raise
        except Exception as e:
            self._break(e)
            raise StoreError from None
        self.stored = self.version

    def _break(self, error: Exception) -> None:
        """The store refused an action: this table's state may be ahead of what was stored, so it
        is dropped — its connections are told and closed (the page reconnects), and the next
        connection rebuilds the table from the store.  When the refusal says that another server
        runs the table now (:class:`StaleTable`: this one lost its lease, say while it stood
        still), that server's people are left alone and this one's are introduced to it."""
        self.broken = True
        if isinstance(error, StaleTable) and self.hub.let_go(self):
            self.handed_over = True
            log.warning("%s: another server runs the table now; letting it go here", self.match_id)
            return
        log.error("%s: the store refused an action; dropping the table", self.match_id, exc_info=error)
        self.hub.deliver(self.match_id, {
            "t": self.match_id, "v": self.version, "public": [], "views": None,
            "close": [1011, "the table is reloaded from the store", encode(refusal(Text.of("server.store_failed")))],
        })
        self.hub.release(self)

    def _finish(self, deal: Deal) -> None:
        boards = self.match.boards
        ending = self.ending
        record = deal_to_record(deal, match_id=self.match_id, preset=self.preset,
                                board=boards[len(self.match.deals)] if boards is not None else None,
                                event=self.challenge)
        record["players"] = self._players_record()
        if self.event_seating is not None:
            record["seating"] = dict(self.event_seating)
        if ending is not None:
            record["end"] = dict(ending)
        self.match.finish_deal()
        over = self.match.is_over
        outcome = self.match.outcome() if over else None
        dealt = [u for u in self.dealt_to if u is not None]
        charges = [Charge(user, deal.score.final[s], result=deal.score.result[s], seat=s.name,
                          others=tuple(u for u in dealt if u != user))
                   for s in Seat if (user := self.dealt_to[s]) is not None]
        if over:
            self.status = "over"
        self.clock.arm()  # between deals: the next deal's timer, if the table has one
        rated = self._rated(deal, self._linked_since_dealt())
        counted = self.hub.store.finish_deal(
            self.match_id, deal.deal_index, record_line=dump_record(record),
            south_final=deal.score.final[PERSON], totals=list(self.match.totals), over=over,
            winners=[s.name for s in outcome.winners] if outcome else [],
            pigs=[s.name for s in outcome.pigs] if outcome else [], charges=charges, seating=self.seating(),
            expected=self.stored, ranked=self.ranked, rated=rated,
            practice=self.practice, deals=len(self.match.deals), settled=self.dealt_settled,
        )
        self.withheld = counted.withheld
        self.hub.lifetimes_changed(self, counted.lifetimes)
        self.stored = self.version
        if rated is not None:
            self._learn_ratings([p for members, _ in rated.sides for p in members])
        self._seq = 0
        entrant = self.dealt_to[PERSON]
        if (self.challenge is not None and self.event_seating is None and self.hub.challenges is not None
                and entrant is not None):
            self.hub.challenges.board_finished(self.challenge, entrant, self.match_id, deal.deal_index,
                                               deal.score.result[PERSON])
        if self.event_seating is not None and self.hub.events is not None:
            self.hub.events.board_finished(self.match_id, deal.deal_index, {
                seat: str(player["name"]) for seat, player in record["players"].items() if player.get("auto")})

    def _players_record(self) -> dict[str, Any]:
        """Who played each seat of the deal: the person dealt it (name, and whether 托管 played for
        them at the end) or the computer player's level."""
        people = self.hub.store.people([u for u in self.dealt_to if u is not None])
        out: dict[str, Any] = {}
        for s in Seat:
            user = self.dealt_to[s]
            if user is not None and user in people:  # (a computer played for them: 托管, or they left the seat)
                out[s.name] = {"name": people[user][0], "computer": None,
                               "auto": self.auto[s] or self.holder(s) != user}
            else:
                out[s.name] = {"name": None, "computer": self.levels[s.name], "auto": False}
        return out

    # ------------------------------------------------------------------ seats and people

    def seat_of(self, user: str) -> Seat | None:
        """The seat ``user`` sits in: one whose hand they hold, or one they sit in from the next
        deal on (:meth:`holder`)."""
        for s in Seat:
            occupant = self.seats[s]
            if occupant is not None and occupant[0] == user:
                return s
        return None

    @property
    def in_deal(self) -> bool:
        """Whether a deal is being played (dealt and not over)."""
        return self.status == "playing" and self.match.current is not None

    def holder(self, seat: Seat) -> str | None:
        """The person who holds ``seat``'s hand now: the person sitting there, except while a deal
        is being played that was dealt to someone else — then nobody does (a computer player plays
        the seat) and the person sitting there gets the seat's hand from the next deal on.  So no
        person ever holds two seats' hands of one deal: a seat is taken back during a deal only by
        the person it was dealt to."""
        occupant = self.seats[seat]
        if occupant is None or (self.in_deal and self.dealt_to[seat] != occupant[0]):
            return None
        return occupant[0]

    def holds(self, user: str) -> Seat | None:
        """The seat whose hand ``user`` holds now (see :meth:`holder`), or None."""
        seat = self.seat_of(user)
        return seat if seat is not None and self.holder(seat) == user else None

    def next_deal(self, seat: Seat) -> bool:
        """Whether the person sitting at ``seat`` sits there from the next deal on."""
        return self.seats[seat] is not None and self.holder(seat) is None

    def may_enter(self, person: Person, invite: str | None) -> bool:
        """Whether ``person`` may watch (and sit at) this table: a public one, or a private one
        they host, sit at or were dealt a deal at, or hold the invite of.  A challenge's match is
        its entrant's alone: nobody watches the boards being played; an event's table its four
        players' (dealt a deal there, or seated)."""
        if self.event_seating is not None:
            return self.seat_of(person.id) is not None or person.id in self.dealt_to
        if self.challenge is not None:
            return person.id == self.host
        if self.visibility == "public" or person.id == self.host or person.id in self.dealt_to:
            return True
        if self.seat_of(person.id) is not None:
            return True
        return invite is not None and self.invite is not None and secrets.compare_digest(invite, self.invite)

    def computer_level(self, seat: Seat) -> str:
        """The level of the computer player that plays ``seat`` when one does (the stand-ins' for a
        person's seat: :func:`~gongzhu.server.thinking.computer_level`)."""
        return computer_level(seat, self.levels, self.seats, self.dealt_to, in_deal=self.in_deal, solo=self.solo)

    def is_computer(self, seat: Seat) -> bool:
        """Whether a computer player plays ``seat`` now (nobody sits there, or 托管)."""
        return self.holder(seat) is None or self.auto[seat]

    def connected(self) -> set[str]:
        """The people with a connection to the table, on any server."""
        return {c.person.id for c in self.presences.values()}

    def _refresh_people(self) -> None:
        self._learn([s[0] for s in self.seats if s is not None])

    def _learn(self, ids: list[str]) -> None:
        """Read these people's lifetime scores, whether they are accounts, and their ratings in
        the table's family."""
        store = self.hub.store
        for user, (_name, lifetime) in store.people(ids).items():
            self.lifetimes[user] = lifetime
        self.accounts |= store.accounts(ids)
        self._learn_ratings(ids)

    def _learn_ratings(self, ids: list[str]) -> None:
        self.skills.update({u: by[self.family] for u, by in self.hub.store.ratings(ids, self.family).items()})

    @property
    def ranked(self) -> bool:
        """Whether the table's deals count toward the lifetime score (or practice), deals, matches
        and pigs of the people dealt them: not where the host chose the seed, nor an event's or a
        challenge's (those counters are public and move as each deal finishes, so they would tell
        a board's result to an entrant who has not played it yet)."""
        return (self.solo or not self.seeded) and self.challenge is None

    @property
    def _rates_deals(self) -> bool:
        """Whether the table's settings let its deals move ratings: a public table for people (at
        a private one the people are chosen by invitation: one's own second account, say), not a
        challenge's, its deals not set in advance, with a turn timer, and one computer level for
        every seat, those people hold too (a seat a person leaves is played at its level; a host
        who gave their own partner an expert and a rival's a 新手 would choose the result of a
        partnership, and at any table whom the weak computer feeds)."""
        return (not self.solo and self.challenge is None and not self.seeded and self.turn_seconds is not None
                and self.visibility == "public" and len(set(self.levels.values())) == 1)

    @property
    def rated(self) -> bool:
        """Whether the table's deals move ratings (docs/ratings.md): its settings let them, and
        everyone sitting at it is an account — and, during a deal, everyone it was dealt to was
        one when it was dealt (:attr:`dealt_accounts`).  (Each deal is rated among the people it
        was dealt to, two at least.)"""
        if not self._rates_deals or not all(o[0] in self.accounts for o in self.seats if o is not None):
            return False
        if not self.in_deal:  # (two linked since they sat down: the next deal is rated for nobody)
            return not self._seated_linked()
        return (all(u in self.dealt_accounts for u in self.dealt_to if u is not None)
                and not self._linked_when_dealt)

    @property
    def practice(self) -> bool:
        """Whether the deal in progress (or the last one) is practice, apart from the lifetime score
        (docs/ratings.md, Practice apart): dealt to fewer than two accounts that are people apart
        (:attr:`dealt_people`) — one person alone against computers, as a single-player match is
        —, or to two accounts linked to one another (one person's two, or a household, seeing two
        hands against the others), or to a guest (a throwaway name: one's own second browser,
        losing on purpose), or to a computer weaker than the stand-ins (:data:`PRACTICE_LEVELS`),
        or played under options that score otherwise than any preset's (:data:`NEUTRAL_OPTIONS`
        apart)."""
        guest = any(u is not None and u not in self.dealt_accounts for u in self.dealt_to)
        weak = any(self.dealt_to[s] is None and self.levels[s.name] in PRACTICE_LEVELS for s in Seat)
        return self.dealt_people < 2 or self._linked_when_dealt or guest or weak or self._scored_otherwise

    @property
    def _linked_when_dealt(self) -> bool:
        """Whether two of the accounts the deal was dealt to were linked to one another then
        (fewer people apart than accounts, :attr:`dealt_people`): it is rated for nobody, and
        practice."""
        return self.dealt_people < len(self.dealt_accounts)

    @property
    def _scored_otherwise(self) -> bool:
        """Whether the table's options score a deal otherwise than every preset's do
        (:data:`NEUTRAL_OPTIONS` apart; ``online`` made to score by partnerships scores as
        ``partners`` does): every deal of it is practice."""
        mine = self.options.to_dict()
        return not any(all(mine[k] == theirs.get(k) for k in mine if k not in NEUTRAL_OPTIONS)
                       for theirs in (preset.to_dict() for preset in PRESETS.values()))

    @property
    def practice_ahead(self) -> bool:
        """What a table for people tells its people, in its header: that the deal in progress is
        practice (:attr:`practice`) or, between deals, that the next one will be as things stand —
        its options score otherwise than any preset's, a guest sits at it, two accounts linked to
        one another sit at it, or a seat nobody sits at is a weak computer's (unless people take
        those seats).  False at a single-player match, a challenge's or an event's, and a table
        whose deals were set in advance: each says otherwise what counts."""
        if self.solo or self.challenge is not None or self.seeded:
            return False
        if self.in_deal:
            return self.practice
        return (self._scored_otherwise or any(o is not None and o[0] not in self.accounts for o in self.seats)
                or any(self.seats[s] is None and self.levels[s.name] in PRACTICE_LEVELS for s in Seat)
                or self._seated_linked())

    def _seated_linked(self) -> bool:
        """Whether two of the accounts sitting at the table are linked to one another (a browser
        or a network shared: :meth:`Store.people_apart`), read again once who sits changes, a
        deal is dealt, or the last reading is :data:`SEATED_LINKS_SECONDS` old (a link made, or
        a network forgotten, meanwhile)."""
        seated = frozenset(o[0] for o in self.seats if o is not None and o[0] in self.accounts)
        if len(seated) < 2:
            return False
        now, kept = time.monotonic(), self._seated_links
        if kept is None or kept[0] != seated or now - kept[2] >= SEATED_LINKS_SECONDS:
            kept = self._seated_links = (seated, self.hub.store.people_apart(sorted(seated)) < len(seated), now)
        return kept[1]

    def _linked_since_dealt(self) -> set[str]:
        """Of the accounts dealt the deal that were people apart when it was dealt and are linked
        by a browser now (signed in to both), those who made the link — signed in there after
        the other (:meth:`Store.link_makers`) —, every one of them where that cannot be told.  A
        link by a network alone moves nobody: a network is anyone's to reach (a café's, a
        carrier's shared address), and whose page came from it first or last tells nobody apart
        — the deal is rated as it was played, as it was dealt."""
        if self._linked_when_dealt:  # the deal is rated for nobody
            return set()
        store = self.hub.store
        linked = [people for people in store.people_of(sorted(self.dealt_accounts), networks=False) if len(people) > 1]
        makers = store.link_makers(sorted(set().union(*linked))) if linked else set()
        return {u for people in linked for u in (people & makers or people)}

    def _rated(self, deal: Deal, linked: Collection[str] = ()) -> Rated | None:
        """The finished ``deal`` as it moves ratings: its people, each alone or, under partnership
        scoring, with their partner, ordered by their R7 results; None when it moves none.  A side
        holding one of ``linked`` (accounts that linked themselves by a browser to another since
        the deal was dealt) is placed below every side holding none, those sides in the order of
        their results: linking two accounts during a deal can cost the account that made the link
        (every account of it where that cannot be told), never spare anyone (docs/ratings.md)."""
        people = {s: u for s in Seat if (u := self.dealt_to[s]) is not None}
        # (whom the deal was dealt to, not who sits now: sitting down as a guest at the end
        # unrates nothing)
        if not self._rates_deals or len(people) < 2:
            return None
        # (who were accounts when it was dealt: a guest's sign-up since rates nothing, and an
        # account deleted since unrates nothing — the store writes nothing of it, rates the rest)
        if set(people.values()) - self.dealt_accounts:
            return None
        if self._linked_when_dealt:  # one person, or a household
            return None
        result = deal.score.result
        if self.options.partnership:
            pairs = ((Seat.N, Seat.S), (Seat.E, Seat.W))
            sides = [(tuple(people[s] for s in pair if s in people), result[pair[0]]) for pair in pairs]
            sides = [side for side in sides if side[0]]
        else:
            sides = [((user,), result[s]) for s, user in people.items()]
        return Rated(self.family, placed_last(sides, linked)) if len(sides) >= 2 else None

    def _seat_change(self) -> None:
        """Store and publish a change of who sits where or who plays for them, and wake the
        computer players."""
        self.clock.arm()
        self._save()
        self.kick()

    def closed_to(self, person: Person) -> bool:
        """Whether ``person`` may not come to this table because of a block (docs/people.md): they
        blocked someone who sits at it or hosts it, or was dealt a deal of it, or that someone
        blocked them.  A person who sits at it or was dealt a deal of it may always come back."""
        if self.solo or self.seat_of(person.id) is not None or person.id in self.dealt_to:
            return False  # (a single-player match is its person's alone)
        others = {o[0] for o in self.seats if o is not None} | {u for u in self.dealt_to if u is not None}
        if self.host is not None:
            others.add(self.host)
        return self.hub.store.blocked_among(person.id, sorted(others))

    def sit(self, person: Person, seat: Seat) -> None:
        if self.status == "over":
            raise Refused("server.table_over")
        if self.closed_to(person) or person.id in self.removed:
            raise Refused("server.table_closed")
        if self.accounts_only and not self.hub.store.accounts([person.id]):
            raise Refused("server.accounts_only")
        if self.solo and person.id != self.host:
            # a single-player match is its player's alone: nobody else is dealt its hands (on a
            # seed its player chose, that player knows them; and a seat in 托管 there is played at
            # the levels that player chose, 新手 too, not by the stand-ins)
            raise Refused("server.seeded_alone" if self.seeded else "server.solo_alone")
        mine = self.seat_of(person.id)
        if mine is not None:
            raise Refused("server.already_seated", seat=mine.name)
        if self.event_players is not None and self.event_players[seat] != person.id:
            theirs = next((s.name for s in Seat if self.event_players[s] == person.id), None)
            raise Refused("event.not_your_seat", seat=seat.name, yours=theirs or "—")
        # During a deal the seat is taken back by the person it was dealt to — from someone who sat
        # down there meanwhile too, who sits nowhere then; anyone else sits from the next deal on
        # (holder): a computer player goes on playing the seat's hand.
        taking_back = self.in_deal and self.dealt_to[seat] == person.id and self.next_deal(seat)
        if self.seats[seat] is not None and not taking_back:
            raise Refused("server.seat_taken", seat=seat.name)
        # A rated table seats one player per browser and per network: not a second account of
        # someone there, nor someone of their household, who could see each other's cards.  (Where
        # a guest sits, or sits down, nothing is rated: no link is looked for.)
        if self._rates_deals and not taking_back:
            others = {o[0] for o in self.seats if o is not None} | {u for u in self.dealt_to if u is not None}
            others.discard(person.id)
            store, everyone = self.hub.store, {person.id, *others}
            if others and store.accounts(list(everyone)) == everyone and store.linked(person.id, others):
                raise Refused("server.linked_at_table")
        # One table at a time: a seat at a table under way is no second seat of someone who sits
        # at another one (the store checks it again as it stores the seat: on another server too).
        elsewhere = self.hub.store.playing_at(person.id, besides=self.match_id) if self._deals_in else None
        if elsewhere is not None:
            raise Refused("server.seated_elsewhere", table=elsewhere)
        before = (self.seats[seat], self.auto[seat], self.timeouts[seat], person.id in self.awaited,
                  self.clock.deadline)

        def undo() -> None:
            self.seats[seat], self.auto[seat], self.timeouts[seat], awaited, self.clock.deadline = before
            if awaited:
                self.awaited.add(person.id)

        self.seats[seat] = (person.id, person.name)
        self.auto[seat] = False
        self.timeouts[seat] = 0
        self.awaited.discard(person.id)
        self.clock.arm()
        try:
            self._store_seating(undo)
        except DeletedSitter:  # (the account deleted as its page, not closed yet, asked for the seat)
            raise Refused("server.account_deleted") from None
        except SeatedElsewhere as e:  # (seated at a table under way on another server meanwhile)
            raise Refused("server.seated_elsewhere", table=e.match_id) from None
        self._refresh_people()
        self._shut_out({u for u in self.connected() if u != person.id and self.seat_of(u) is None  # (watching)
                        and u not in self.dealt_to and self.hub.store.blocked_among(u, [person.id])})
        self._changed([], position=True)
        self.hub.listing_changed(self.match_id)
        self.kick()

    @property
    def _deals_in(self) -> bool:
        """Whether a seat taken here now deals its person in: a table for people under way (a
        single-player match's holds nobody up: nobody else is ever dealt in there)."""
        return self.status == "playing" and not self.solo

    def remove(self, host: Person, seat: Seat) -> None:
        """The host has the person sitting at ``seat`` leave it, before the table starts; they may
        watch on but not sit at this table again."""
        if host.id != self.host:
            raise Refused("server.host_only")
        if self.status != "waiting":
            raise Refused("server.already_started")
        occupant = self.seats[seat]
        if occupant is None or occupant[0] == host.id:
            raise Refused("server.remove_nobody", seat=seat)
        self.removed.add(occupant[0])
        self.awaited.discard(occupant[0])
        self.seats[seat] = None
        self.auto[seat] = False
        self.timeouts[seat] = 0
        self._seat_change()

    def stand(self, person: Person) -> None:
        seat = self.seat_of(person.id)
        if seat is None:
            raise Refused("server.not_seated")
        self.seats[seat] = None
        self.auto[seat] = False
        self.timeouts[seat] = 0
        self._seat_change()

    def seated(self, person: Person) -> Seat:
        """The seat whose hand ``person`` holds, to act for: refused to someone not seated, and to
        someone who sits from the next deal on."""
        seat = self.seat_of(person.id)
        if seat is None:
            raise Refused("server.not_seated")
        if self.holder(seat) != person.id:
            raise Refused("server.next_deal_seat", seat=seat.name)
        return seat

    def start(self, person: Person) -> None:
        """The host starts the match; when the host has left the table, any seated person may."""
        host_here = self.host in self.connected()
        if person.id != self.host and (host_here or self.seat_of(person.id) is None):
            raise Refused("server.host_only")
        if self.status != "waiting":
            raise Refused("server.already_started")
        # Not dealt in: a person seated who never came (再来一局 seated them, their page went
        # elsewhere), and one who sits at another table under way (one table at a time) — unless
        # it is who starts, who is told to stand up there first.
        left_out = set(self.awaited)
        for occupant in self.seats:
            if occupant is not None and occupant[0] not in left_out:
                elsewhere = self.hub.store.playing_at(occupant[0], besides=self.match_id)
                if elsewhere is not None and occupant[0] == person.id:
                    raise Refused("server.seated_elsewhere", table=elsewhere)
                if elsewhere is not None:
                    left_out.add(occupant[0])
        while True:
            try:
                self._deal_first(left_out)
                break
            except SeatedElsewhere as e:  # (dealt in at a table under way on another server meanwhile)
                if e.user_id == person.id or e.user_id in left_out:
                    raise Refused("server.seated_elsewhere", table=e.match_id) from None
                left_out.add(e.user_id)
            except DeletedSitter as e:  # (nobody is seated anew by a start: the store is not as read)
                self._break(e)
                raise StoreError from None
        self._changed([], position=True)
        self.hub.listing_changed(self.match_id)
        self.kick()

    def _deal_first(self, left_out: Collection[str]) -> None:
        """Start the match, dealing in everyone seated but ``left_out`` (their seats left free, to
        their computer players), and store it; a start the store refuses
        (:meth:`_store_seating`) leaves the table waiting as it was."""
        before = (list(self.seats), list(self.auto), list(self.timeouts), list(self.dealt_to),
                  set(self.dealt_accounts), self.dealt_people, set(self.dealt_settled), set(self.awaited),
                  self.clock.deadline)

        def undo() -> None:
            (self.seats, self.auto, self.timeouts, self.dealt_to, self.dealt_accounts, self.dealt_people,
             self.dealt_settled, self.awaited, self.clock.deadline) = before
            self.status = "waiting"
            self.match.current = None

        for s in Seat:
            occupant = self.seats[s]
            if occupant is not None and occupant[0] in left_out:
                self.seats[s] = None
                self.auto[s] = False
                self.timeouts[s] = 0
        self.awaited = set()
        self.status = "playing"
        self._deal_in()
        self.match.new_deal()
        self._seq = 0
        self.clock.arm()
        self._store_seating(undo, in_deal=True)

    def _deal_in(self) -> None:
        """A deal is dealt to the people sitting now: who of them are accounts is fixed with it."""
        self.dealt_to = [s[0] if s is not None else None for s in self.seats]
        self.dealt_accounts = self.hub.store.accounts([u for u in self.dealt_to if u is not None])
        self.dealt_people = self.hub.store.people_apart(sorted(self.dealt_accounts))
        self.dealt_settled = self.hub.store.settled(sorted(self.dealt_accounts))
        self.accounts |= self.dealt_accounts
        self._seated_links = None  # (read again between deals: links made meanwhile)
        self.withheld = {}

    def set_auto(self, person: Person, on: bool) -> None:
        seat = self.seated(person)
        if self.auto[seat] == on:
            return
        self.auto[seat] = on
        self.timeouts[seat] = 0
        self._seat_change()

    # ------------------------------------------------------------------ what each connection sees

    @property
    def deal(self) -> Deal | None:
        """The deal in progress, or the last finished one between deals (None before the start)."""
        current = self.match.current
        if current is not None:
            return current
        return self.match.deals[-1] if self.match.deals else None

    @property
    def phase(self) -> str:
        deal = self.deal
        if self.status == "waiting" or deal is None:
            return "waiting"
        if not deal.is_over:
            return deal.phase.value
        return "match-over" if self.match.is_over else "deal-over"

    def clock_view(self) -> dict[str, Any] | None:
        return self.clock.view()

    @property
    def connections(self) -> list[Presence]:
        """The table's connections, on every server."""
        return list(self.presences.values())

    def view(self, connection: Presence | None = None, seat: Seat | None = None) -> dict[str, Any]:
        """The table as a connection's person sees it (``docs/web-protocol.md``, The state); without
        a connection, as ``seat`` sees it."""
        if connection is None:
            state = dict(self.views.seat(seat))
            state["you"] = None
            state["lifetime"] = {"score": 0, "title": title_for(0), "withheld": 0}
            return state
        person = connection.person
        seat = self.holds(person.id)
        sits = self.seat_of(person.id)
        return personal(self.views.seat(seat), person.id, person.name, host=person.id == self.host, seat=seat,
                        auto=seat is not None and self.auto[seat], waiting=sits if sits != seat else None,
                        lifetime=self.lifetimes.get(person.id, 0), withheld=self.withheld.get(person.id, 0))

    def state_message(self, connection: Presence | None = None) -> dict[str, Any]:
        return {"type": "state", "v": self.version, "state": self.view(connection)}

    # ------------------------------------------------------------------ connections and changes

    def join(self, presence: Presence, invite: str | None, *, admitted: bool = False) -> bool:
        """A connection of ``presence.person`` arrives (``admitted``: it was let in before, by an
        owner of the table before this one, or by this one before it lost track of it).  A person
        who may not enter is told so and the connection closed (False); else the connection is let
        in — it catches up on what it missed — and gets its state with the change its arrival
        makes.  A connection let in before is checked again as a new one is, unless this table let
        it in already: a table loaded anew (a restart of its owner, another server taking it over)
        goes by what is stored now — a block made since closes the table to its person as it
        would to a new page — while anyone still welcome goes on without a word."""
        if not admitted or presence.ref not in self.presences:
            if not self.may_enter(presence.person, invite):
                closed = "event.table_closed" if self.event_seating is not None else "server.private_table"
                self._refuse(presence.ref, Text.of(closed), "a private table", admitted=admitted)
                return False
            if self.closed_to(presence.person):
                self._refuse(presence.ref, Text.of("server.table_closed"), "a table closed to this person",
                             admitted=admitted)
                return False
        person = presence.person
        if person.id not in self.lifetimes:
            self._learn([person.id])
        if self.event_seating is not None and self.hub.events is not None and self.seat_of(person.id) is not None:
            self.hub.events.arrived(self.match_id, person.id)
        first = person.id not in self.connected()
        came = person.id in self.awaited  # (seated for them: stored with the seats that they came)
        self.awaited.discard(person.id)
        self.presences[presence.ref] = presence
        self.hub.send(presence.ref, None, admit=True)
        if first or came:
            self._presence(seating=came)  # the seats' connected flags and the spectators change
        else:  # another tab of someone already here: nothing changes but this connection's view
            if not self._still_mine():  # (a copy another server took over sends nothing)
                return False
            self.hub.send(presence.ref, encode(self.state_message(presence)), v=self.version)
        self.resume()
        return True

    def _refuse(self, ref: Ref, text: Text, reason: str, *, admitted: bool) -> None:
        """Tell a connection it may not enter, and close it (4403).  A table nobody is at is let
        go — but where the connection was let in before (the table was loaded anew, and the other
        connections of its owner before are being introduced to it), only if nobody has come
        after :data:`INTRODUCED_WITHIN` seconds."""
        self.hub.send(ref, encode(refusal(text)), close=(4403, reason))
        if self.presences:
            return
        if admitted:
            with contextlib.suppress(RuntimeError):  # (no event loop: let go at once)
                asyncio.get_running_loop().call_later(INTRODUCED_WITHIN, self._let_go_if_alone)
                return
        self.hub.release(self)

    def _let_go_if_alone(self) -> None:
        if not self.presences:
            self.hub.release(self)  # (nothing, if it was let go or loaded anew meanwhile)

    def _shut_out(self, users: Collection[str]) -> bool:
        """``users``, whom the table is closed to now (a block was made, or someone they blocked
        or who blocked them sat down: :meth:`closed_to`), leave it: each of their connections is
        told so and closed as :meth:`join` refuses one (4403).  Whether anyone left."""
        shut = set(users)
        for ref, presence in list(self.presences.items()):
            if presence.person.id in shut:
                del self.presences[ref]
                self.hub.send(ref, encode(refusal(Text.of("server.table_closed"))),
                              close=(4403, "a table closed to this person"))
        return bool(shut)

    def blocked(self, users: Collection[str]) -> None:
        """A block was made between ``users``: whoever of them the table is closed to now leaves
        it (:meth:`_shut_out`), and the others see them go; their chat reads their blocks again."""
        self.chat_blocks.forget(users)
        if self.broken or not self._shut_out({u for u in users if u in self.connected()
                                              and self.closed_to(Person(u, ""))}):
            return
        if not self.presences:
            self.hub.release(self)
            self.hub.listing_changed(self.match_id)
        else:
            self._presence()

    def leave(self, ref: Ref) -> None:
        """A connection is gone; the last one to go lets the table go (it stops; the store keeps
        where the match stands)."""
        presence = self.presences.pop(ref, None)
        if presence is None:
            return
        if not self.presences:
            self.hub.release(self)
            self.hub.listing_changed(self.match_id)
        elif presence.person.id not in self.connected():
            self._presence()

    def _presence(self, *, seating: bool = False) -> None:
        """Someone came or went: the seats' ``connected`` and the spectator count change (with
        ``seating``, someone awaited came: stored with the seats, :meth:`_bump`)."""
        self.republish(seating=seating)
        self.hub.listing_changed(self.match_id)

    def republish(self, *, seating: bool = False) -> None:
        """Publish the table again as a change that is not a change of the game (presence, a
        lifetime score, or for rooms that may have missed one)."""
        self._bump(seating=seating)
        self._changed([], position=False)

    def _bump(self, *, seating: bool = False) -> None:
        """A change that is not stored otherwise (presence, chat, a lifetime score): its version
        is, so that a reloaded table never numbers two changes alike — with ``seating``, the
        seating too (who of the people awaited came: :attr:`awaited`)."""
        self.version += 1
        try:
            if seating:
                self.hub.store.save_table(self.match_id, self.seating(), expected=self.stored)
            else:
                self.hub.store.set_version(self.match_id, self.version, expected=self.stored)
            self.stored = self.version
        except StaleTable as e:  # another server runs the table now: this one lets it go (and
            self._break(e)  # publishes nothing more: _changed, event)
        except Exception:  # the state that follows every catch-up keeps pages right meanwhile
            log.exception("%s: could not store version %d", self.match_id, self.version)

    def _still_mine(self) -> bool:
        """Whether the store still holds this table at the version last stored here (a fenced
        write of that same version: nothing changes); if not, another server runs it now and this
        one lets it go (:meth:`_break`)."""
        try:
            self.hub.store.set_version(self.match_id, self.stored, expected=self.stored)
        except StaleTable as e:
            self._break(e)
            return False
        except Exception:  # (the store away: what this table shows is still its best)
            log.exception("%s: could not check version %d", self.match_id, self.stored)
        return True

    def lifetime_changed(self, lifetimes: Mapping[str, int]) -> None:
        """People's lifetime scores changed at another table: show the new ones here."""
        here = self.connected() | {o[0] for o in self.seats if o is not None}
        new = {u: v for u, v in lifetimes.items() if u in here and self.lifetimes.get(u) != v}
        if new and not self.broken:
            self.lifetimes.update(new)
            self._presence()

    def _changed(self, public: list[dict[str, Any]], *, position: bool) -> None:
        """Publish a change: its public messages, then the views of the seats its connections
        see it from (each room adds who each connection is).  Nothing once the table was handed
        over to another server (:meth:`_break`): its state here is behind that server's."""
        if self.handed_over:
            return
        if position:
            self.position += 1
        self.views.clear()
        present = self.connected()
        audiences = {self.holds(u) for u in present}
        views = {(s.name if s is not None else "-"): self.views.seat(s) for s in audiences}
        # "seats": who holds each seat's hand (and sees its view); "next_deal": who sits at a seat
        # from the next deal on (sees what a spectator sees until then).
        self.hub.deliver(self.match_id, {
            "t": self.match_id, "v": self.version, "public": [encode({**m, "v": self.version}) for m in public],
            "views": views, "seats": [self.holder(s) for s in Seat], "host": self.host,
            "next_deal": [o[0] if o is not None and self.next_deal(s) else None
                          for s, o in zip(Seat, self.seats, strict=True)],
            "auto": list(self.auto), "lifetimes": {u: self.lifetimes.get(u, 0) for u in present},
            "withheld": {u: self.withheld[u] for u in present if self.withheld.get(u)},
        })
        self.clock.schedule()

    def event(self, message: dict[str, Any], *, not_to: Collection[str] = ()) -> None:
        """A change that is only a message (chat, 再来一局): numbered, kept, sent — to everyone but
        the people ``not_to``; no new state."""
        self._bump()
        if self.handed_over:  # (what asked for it goes to the server that runs the table now)
            return
        self.hub.deliver(self.match_id, {"t": self.match_id, "v": self.version,
                                         "public": [encode({**message, "v": self.version})], "views": None,
                                         **({"not_to": sorted(not_to)} if not_to else {})})

    # ------------------------------------------------------------------ what people do (gongzhu.server.dispatch)

    def current(self) -> Deal:
        """The deal being played; :class:`Refused` when none is."""
        deal = self.match.current
        if self.status == "waiting" or deal is None:
            if self.status == "waiting":
                raise Refused("server.not_started")
            raise Refused("server.match_over" if self.match.is_over else "server.deal_over")
        return deal

    # ------------------------------------------------------------------ claims (R5.4)

    @property
    def pools(self) -> Pools:
        return self.hub.pools

    def claim_waiting(self) -> list[Seat] | None:
        """The seats yet to answer a claim put to them (:mod:`gongzhu.server.claiming`), or None."""
        return self.claims.waiting()

    def claim_view(self) -> dict[str, Any] | None:
        return self.claims.view()

    def claim_unanswered(self) -> None:
        self.claims.unanswered()

    def announce(self, message: dict[str, Any]) -> None:
        """A change of the table that is no play (a claim put to the others, an answer): numbered,
        published with every seat's view."""
        self._bump()
        self._changed([message], position=False)

    def contested(self, said: dict[str, Any], why: dict[str, Any]) -> None:
        """A claim put to the others was withdrawn and play goes on: at an event's table the
        referee is told (:class:`EventTables`)."""
        deal = self.deal
        if self.event_seating is not None and self.hub.events is not None and deal is not None:
            self.hub.events.claim_contested(self.match_id, deal.deal_index, said, why)

    def play_out(self, line: list[tuple[Seat, Play]], ending: dict[str, Any],
                  before: Sequence[dict[str, Any]] = ()) -> None:
        """Play the rest of the deal along ``line`` (each play stored as any other, what changed
        published once, at the end, after ``before``: what the play that settled the deal
        changed), the deal's record noting how it ended (``ending``: a claim, or a deal that
        finished by itself)."""
        self.ending = ending
        self._played_out = list(before)
        try:
            for seat, cards in line:
                self._commit(seat, {"type": "play", "cards": codes(cards)})
                self.hub.metrics.played("played_out")
        finally:
            out, self._played_out = self._played_out, []
            self.ending = None
        self._changed(out, position=True)
        self.hub.listing_changed(self.match_id)

    def _settle(self, deal: Deal, out: Sequence[dict[str, Any]]) -> bool:
        """After a play (``out``: what it changed, not published yet): a deal in which no card
        left can change any score finishes by itself (R5.4) — every remaining play forced, or no
        point card left in play — published with that play in one change, so nobody is shown a
        turn that is not theirs to take.  True when it did."""
        if self.ending is not None or deal.is_over:
            return False
        how = settled(deal)
        if how is None:
            return False
        plays = finish_settled(deal.copy())
        self.play_out([(p.seat, p.cards) for p in plays],
                       {"type": "settled", "reason": how.value, **from_play(deal)}, out)
        return True

    def act(self, seat: Seat, action: dict[str, Any]) -> None:
        """A person's declaration or play, already checked by the rules core: stored and published
        (refused while a claim waits for the others' answers)."""
        self.claims.check_open()
        self._commit(seat, action)
        if action["type"] == "play":
            self.hub.metrics.played("person")
            self.hub.metrics.play_done()  # timed from its message's arrival

    def deal_next(self) -> None:
        """Deal the next deal of the match (refused before the start, during a deal and after the
        last one)."""
        if self.status == "waiting":
            raise Refused("server.not_started")
        if self.status == "over" and not self.match.is_over:  # (a table an operator closed between deals)
            raise Refused("server.table_over")
        if self.match.current is not None:
            raise Refused("server.deal_not_over")
        if self.match.is_over:
            raise Refused("server.match_over")
        duplicate = self.hub.challenges
        if (self.challenge is not None and self.event_seating is None and duplicate is not None
                and duplicate.closed(self.challenge)):
            raise Refused("server.challenge_closed", challenge=self.challenge)
        self.match.new_deal()
        self._deal_in()
        self._seq = 0
        self.pending = {}
        self.clock.deadline = None
        self.clock.arm()
        self._save(lobby=False, in_deal=True)

    def deal_next_on_time(self) -> None:
        """The time between deals ran out: the next deal is dealt (unless someone dealt it)."""
        with contextlib.suppress(MessageError, Refused, StoreError):
            self.deal_next()

    def again_for(self, person: Person, seat: Seat) -> None:
        """再来一局: a new table with this one's settings, ``person`` (at ``seat``) its host, waiting
        to be started, and in their seats the people sitting here who are here now — but nobody
        who blocked, or is blocked by, the host or someone seated before them; everyone here is
        told where it is, but whoever that table is closed to (:meth:`_closed_at_again`)."""
        if self.status != "over" or not self.match.is_over:  # (not a table an operator closed)
            raise Refused("server.not_over")
        if self.challenge is not None:
            raise Refused("server.challenge_once")  # a challenge's boards are played once
        check_for_people(self.options)  # (the next table is for people, a single-player match's too)
        present = self.connected()
        if self.again is None:
            if not self._still_mine():  # (else the new table is the other server's to make)
                return
            new = NewTable(self.preset, self.options, dict(self.levels), self.speed, secrets.randbits(64),
                           visibility=self.visibility, turn_seconds=self.turn_seconds,
                           expose_seconds=self.expose_seconds, seat=seat, started=False,
                           accounts_only=self.accounts_only)
            others: list[tuple[str, str] | None] = [None] * 4
            coming = [person.id]
            for s in Seat:
                occupant = self.seats[s]
                if (s != seat and occupant is not None and occupant[0] in present
                        and not self.hub.store.blocked_among(occupant[0], coming)):
                    others[s] = occupant
                    coming.append(occupant[0])
            info = self.hub.create(new, person, others=others)
            self.again = info.match_id
            url = f"/table/{info.match_id}"
            if info.seating.visibility == "private":
                url += f"?invite={info.seating.invite}"
            self.again_url = url
        not_to = self._closed_at_again(present)
        if person.id in not_to:
            raise Refused("server.table_closed")
        self.event({"type": "again", "url": self.again_url, "by": person.name}, not_to=not_to)

    def _closed_at_again(self, present: Collection[str]) -> set[str]:
        """Those of ``present`` whom the table of the next match is closed to (a block between
        them and someone seated there, or its host): their pages are not sent there."""
        info = self.hub.store.match(self.again) if self.again is not None else None
        if info is None:
            return set()
        seating = info.seating
        there = {o[0] for o in seating.seats if o is not None} | {u for u in seating.dealt_to if u is not None}
        if seating.host is not None:
            there.add(seating.host)
        return {u for u in present if u not in there and self.hub.store.blocked_among(u, sorted(there))}

    def set_speed(self, speed: str) -> None:
        """The computer players' speed setting (not a change of position: a computer player's
        pending choice stands)."""
        if speed != self.speed:  # else nothing changes: nothing to store or send
            self.speed = speed
            self._save(position=False, lobby=False, speed=speed)

    # ------------------------------------------------------------------ computer players

    def declare_for(self, deal: Deal, seat: Seat, choice: list[tuple[Card, str]]) -> None:
        """A computer player's (or a stand-in's) declaration, checked again: one the rules refuse
        is logged and none is declared."""
        try:
            checked = deal.verify_declare(seat, choice)
        except GongzhuError as e:
            # No card in the line: the hand is hidden, in logs too (docs/operations.md, Logs).
            log.error("%s: %s's exposures refused (%s): declaring none", self.match_id, seat.name, type(e).__name__)
            checked = []
        self._commit(seat, {"type": "declare", "items": [[c.code, k] for c, k in checked]})

    def play_for(self, deal: Deal, seat: Seat, choice: Play, *, timed_out: bool = False) -> None:
        """A computer player's (or a stand-in's, ``timed_out``) play, checked again: one the rules
        refuse is logged and the first legal play is played."""
        try:
            play = deal.verify_play(choice, seat)
        except GongzhuError as e:
            log.error("%s: %s's play refused (%s): playing the first legal play", self.match_id, seat.name,
                      type(e).__name__)  # no card in the line: the hand is hidden, in logs too
            play = deal.legal_plays()[0]
        self._commit(seat, {"type": "play", "cards": codes(play)}, timed_out=timed_out)
        self.hub.metrics.played("timeout" if timed_out else "computer")

    def close_down(self, text: Text) -> None:
        """An operator closed the table (gongzhu.server.moderation): it is over where it stands —
        no deal is played on or dealt — its people are told ``text``, their connections closed
        with 4404 (the page does not come back), and the table is let go."""
        self.halt()
        self.status = "over"
        self._save(in_deal=False)
        self.hub.deliver(self.match_id, {"t": self.match_id, "v": self.version, "public": [], "views": None,
                                         "close": [4404, "the table was closed", encode(refusal(text))]})
        self.hub.release(self)

    def kick(self) -> None:
        """Start the computer players if one of them is to act (call on the event loop)."""
        self.thinking.kick()

    def halt(self) -> None:
        """Stop the computer players and the clock now, and a hint nobody waits for any more
        unless it has started (the table is being let go)."""
        self.thinking.halt()
        self.clock.halt()

    async def stop(self) -> None:
        self.thinking.halt()
        await self.clock.stop()

    def resume(self) -> None:
        """Start what runs by itself: the computer players and the clock (call on the event loop)."""
        self.clock.schedule()
        self.kick()
