"""One table: a match in progress between the person at South and three computer players.

The server is authoritative (``docs/web-protocol.md``): the rules core decides everything, a
:class:`Table` only drives it.  It

- validates every browser message (:meth:`Table.receive`): a malformed, out-of-turn or illegal
  one is answered with ``{"type": "error", "message": ...}`` (:func:`refusal`) — for a refused
  action the rules core's own explanation, with ``"message_zh"``, ``"code"`` and ``"params"``
  where it comes from the message catalog — and changes nothing;
- plays the computer players (:meth:`Table.kick` starts the driver task), each play taking the
  time the speed setting asks for (:data:`SPEEDS`, seconds per computer play; a search player's
  thinking counts towards it);
- builds the table as South sees it (:meth:`Table.view`) from :func:`~gongzhu.players.observe`
  of South plus public facts: never another seat's hand, never an unplayed hidden (暗卖)
  exposure of another seat; once a deal is over its ``deal_result`` shows every hand;
- stores every action before it is acknowledged — the play that ends a deal together with the
  deal's R11 record, in one transaction — and is rebuilt from the store after a restart
  (:class:`Tables` loads tables on demand and lets a table go once nobody is connected to it);
  should the store refuse an action, the table is dropped, its connections are told and closed,
  and the next connection rebuilds it from what was stored;
- bounds what a connection costs: each one's waiting messages (:class:`Outbox`), and hints, which
  run one at a time in a pool of their own, so that they never hold up the computer players.

All changes happen on the event loop's thread, each in one synchronous step (check, store,
apply, publish), so no lock is needed; only the computer players' choices and hints are
computed in worker threads, from an :class:`~gongzhu.players.Observation` taken before.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import random
import secrets
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import msgspec

from gongzhu.formats import FormatError, typed
from gongzhu.formats.web import (
    MAX_SEED,
    SPEED_NAMES,
    BrowserMessage,
    ExposeMessage,
    NewMatchBody,
    NextMessage,
    PlayMessage,
    SettingsMessage,
)
from gongzhu.jsontext import JSONTextError, loads_strict, show
from gongzhu.messages import Text
from gongzhu.players.base import Player
from gongzhu.players.guard import safe_exposures, safe_play
from gongzhu.players.observation import observe
from gongzhu.players.registry import LEVELS, make_player
from gongzhu.records.format import deal_to_record, dump_record
from gongzhu.records.replay import replay
from gongzhu.rules.cards import Card, Seat
from gongzhu.rules.deal import Deal, Phase
from gongzhu.rules.errors import GongzhuError
from gongzhu.rules.match import Match, title_for
from gongzhu.rules.model import Action, CardPlay, Play
from gongzhu.rules.options import Options, resolve_options
from gongzhu.server.policy import OUTBOX_LIMIT
from gongzhu.server.store import MatchInfo, Store

__all__ = [
    "COMPUTERS",
    "DEFAULT_LEVEL",
    "DEFAULT_SPEED",
    "MAX_SEED",
    "PERSON",
    "SPEEDS",
    "MessageError",
    "NewMatch",
    "Outbox",
    "Table",
    "Tables",
    "encode",
    "parse_new_match",
]

log = logging.getLogger("gongzhu.server")

#: The person's seat, and the computer players' seats.
PERSON = Seat.S
COMPUTERS = (Seat.N, Seat.E, Seat.W)
#: Speed setting -> seconds per computer play (a computer's exposure takes half of it).
SPEEDS: dict[str, float] = {"slow": 1.2, "normal": 0.6, "fast": 0.25, "instant": 0.0}
DEFAULT_SPEED = "normal"
DEFAULT_LEVEL = "intermediate"
assert tuple(SPEEDS) == SPEED_NAMES  # the speeds a message may name (gongzhu.formats.web)
#: Seeds are 0 … MAX_SEED − 1 (64 bits); the server draws its own from ``secrets``, so that no
#: finished deal's record (which shows that deal's own seed) leads back to the match's seed.
#: Server threads for the computer players' decisions, and for hints (one at a time).
PLAYER_THREADS = 4
HINT_THREADS = 1


class MessageError(ValueError):
    """A browser message or request body that is refused; the message says why."""


class StoreError(RuntimeError):
    """The store refused an action: it was not acknowledged, and the table is rebuilt from what
    was stored."""


def refusal(why: Text | str) -> dict[str, Any]:
    """An error message for the browser: ``message`` in English, and for a refusal of the message
    catalog its ``message_zh``, ``code`` and ``params`` (the page renders the code in its language;
    a plain text is English only)."""
    if isinstance(why, str):
        return {"type": "error", "message": why}
    return {"type": "error", "message": why.render("en"), "message_zh": why.render("zh"), **why.json}


def encode(message: Mapping[str, Any]) -> str:
    """A server message as JSON text (UTF-8 kept as is; a lone surrogate that cannot be sent as
    UTF-8 is written as its ``\\u`` escape)."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(message, ensure_ascii=True, separators=(",", ":"))
    return text


def _codes(cards: tuple[Card, ...] | list[Card]) -> list[str]:
    return [c.code for c in cards]


def _seat_map(values: Any) -> dict[str, Any]:
    return {s.name: values[s] for s in Seat}


# ---------------------------------------------------------------------- creating a match


@dataclass(frozen=True, slots=True)
class NewMatch:
    """A checked ``POST /api/matches`` body."""

    preset: str
    options: Options
    levels: dict[str, str]
    speed: str
    seed: int


def parse_new_match(body: Any) -> NewMatch:
    """Check a new-match body (``docs/web-protocol.md``, declared as
    :class:`gongzhu.formats.web.NewMatchBody`); raise :class:`MessageError` saying what is wrong.
    Missing keys take their defaults: preset ``online``, no option overrides, every level
    ``intermediate``, speed ``normal``, a random seed."""
    try:
        new = typed(body, NewMatchBody)
    except FormatError as e:
        raise MessageError(str(e)) from None
    preset = new.preset or "online"
    try:
        options = resolve_options(preset, new.options or {})
    except GongzhuError as e:
        raise MessageError(f"$.options: {e}") from None
    levels = {s.name: DEFAULT_LEVEL for s in COMPUTERS}
    for key, level in (new.levels or {}).items():
        if key not in levels:
            why = "South is you" if key == PERSON.name else f"{show(key)} is not a seat"
            raise MessageError(f"$.levels: {why}; the computer players sit N, E and W")
        if level not in LEVELS:
            raise MessageError(f"$.levels.{key}: {show(level)} is not a level: choose one of {', '.join(LEVELS)}")
        levels[key] = level
    seed = secrets.randbits(64) if new.seed is None else new.seed
    if seed >= MAX_SEED:
        raise MessageError(f"$.seed: must be an integer from 0 to 2^64 - 1, not {show(seed)}")
    return NewMatch(preset, options, levels, new.speed or DEFAULT_SPEED, seed)


# ---------------------------------------------------------------------- the tables


class Tables:
    """The open tables of one server, loaded from the store on demand and let go when their last
    connection leaves, and the local player's lifetime score.  ``pace`` (seconds per computer
    play) overrides every table's speed setting (tests use 0); ``hint_think`` is the expert's
    search time per hint."""

    def __init__(self, store: Store, *, pace: float | None = None, hint_think: float | None = None) -> None:
        self.store = store
        self.pace = pace
        self.hint_think = hint_think
        self._tables: dict[str, Table] = {}
        self.lifetime = store.profile().lifetime
        self.player_pool = ThreadPoolExecutor(PLAYER_THREADS, thread_name_prefix="gongzhu-player")
        self.hint_pool = ThreadPoolExecutor(HINT_THREADS, thread_name_prefix="gongzhu-hint")

    @property
    def open_tables(self) -> int:
        """How many tables are in memory now."""
        return len(self._tables)

    def create(self, new: NewMatch) -> MatchInfo:
        """Store a new match; its table deals the first deal when it is opened."""
        match_id = "m-" + secrets.token_hex(6)
        return self.store.create_match(match_id=match_id, preset=new.preset, options=new.options.to_dict(),
                                       levels=new.levels, speed=new.speed, seed=new.seed)

    def get(self, match_id: str) -> Table | None:
        """The table of a match, rebuilt from the store if it is not open yet (None if unknown)."""
        table = self._tables.get(match_id)
        if table is None:
            info = self.store.match(match_id)
            if info is None:
                return None
            table = self._tables[match_id] = Table(self, info)
        return table

    def release(self, table: Table) -> None:
        """Let a table go (its connections are gone, or it is broken): it stops, and the next
        connection rebuilds it from the store."""
        if self._tables.get(table.match_id) is table:
            del self._tables[table.match_id]
        table.halt()

    async def close(self) -> None:
        """Stop every table's computer players (the store keeps where each match stands)."""
        for table in self._tables.values():
            await table.stop()
        self._tables.clear()
        self.player_pool.shutdown(wait=False, cancel_futures=True)
        self.hint_pool.shutdown(wait=False, cancel_futures=True)


class Outbox:
    """One connection's messages waiting to be sent.  At most ``limit`` wait: past that (a client
    that does not read), the waiting ones are dropped and the next message sent is the table's
    current state, which says everything they said.  :meth:`close` ends the connection after
    the messages already waiting."""

    def __init__(self, table: Table, limit: int = OUTBOX_LIMIT) -> None:
        self.table = table
        self.limit = limit
        self._items: deque[str] = deque()
        self._ready = asyncio.Event()
        self._resync = False
        self.closing: tuple[int, str] | None = None

    def put(self, text: str) -> None:
        if self.closing is not None:
            return
        if len(self._items) >= self.limit:
            self._items.clear()
            self._resync = True
        else:
            self._items.append(text)
        self._ready.set()

    def close(self, code: int, reason: str) -> None:
        if self.closing is None:
            self.closing = (code, reason)
        self._ready.set()

    def __len__(self) -> int:
        return len(self._items)

    async def get(self) -> str | None:
        """The next message to send, or None when the connection is to be closed."""
        while True:
            if self._resync:
                self._resync = False
                return encode(self.table.state_message())
            if self._items:
                return self._items.popleft()
            if self.closing is not None:
                return None
            self._ready.clear()
            await self._ready.wait()


class Table:
    """One match in progress (see the module docstring)."""

    def __init__(self, hub: Tables, info: MatchInfo) -> None:
        self.hub = hub
        self.match_id = info.match_id
        self.preset = info.preset
        self.options = Options.from_dict(info.options)
        self.levels = dict(info.levels)
        self.speed = info.speed
        self.match = Match(self.options, seed=info.seed, match_id=info.match_id)
        rng = random.Random(info.seed)
        self.players: dict[Seat, Player] = {
            s: make_player(self.levels[s.name], seed=rng.getrandbits(63)) for s in COMPUTERS
        }
        #: Counts changes, so that a computer player's choice made for an older position is dropped.
        self.version = 0
        self._seq = 0  # actions of the current deal so far
        self._outboxes: set[Outbox] = set()
        self._driver: asyncio.Task[None] | None = None
        self._hint: tuple[int, asyncio.Future[dict[str, Any]]] | None = None  # (version, the ranking)
        self._hint_tasks: set[asyncio.Task[None]] = set()  # hint answers on their way
        #: Set once the store refused an action: the table is dropped and rebuilt from the store.
        self.broken = False
        self._restore(info)

    # ------------------------------------------------------------------ the store

    def _restore(self, info: MatchInfo) -> None:
        """Rebuild the match: finished deals from their records, then the deal in progress
        from the seed and its stored actions (a new match deals its first deal here)."""
        store = self.hub.store
        for line in store.records(self.match_id):
            self.match.current = replay(json.loads(line))
            self.match.finish_deal()
        if info.in_deal:
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

    @staticmethod
    def _apply(deal: Deal, action: Mapping[str, Any]) -> Action:
        seat = Seat.parse(action["seat"])
        if action["type"] == "declare":
            return deal.declare(seat, [(c, k) for c, k in action["items"]])
        return deal.play(action["cards"], seat)

    def _commit(self, seat: Seat, action: dict[str, Any]) -> None:
        """Store an action already checked legal, apply it, and publish what changed.  The action
        that ends a deal is stored with the deal's record, in one transaction.  If the store
        refuses, the action is not acknowledged: raises :class:`StoreError` after dropping the
        table (see :meth:`_break`)."""
        deal = self.match.current
        assert deal is not None
        entry = {"seat": seat.name, **action}
        try:
            done = self._apply(deal, entry)  # checked legal before: the rules accept it
            if deal.is_over:
                self._finish(deal)  # the deal's record holds this last play
            else:
                self.hub.store.add_action(self.match_id, deal.deal_index, self._seq, entry)
                self._seq += 1
        except Exception as e:
            self._break(e)
            raise StoreError("the server could not save this action, so it did not happen; "
                             "reconnect and try again") from None
        self.version += 1
        out: list[dict[str, Any]] = []
        if action["type"] == "play":
            out.append({"type": "played", "seat": seat.name, "cards": action["cards"]})
            trick = done.trick if isinstance(done, CardPlay) else None
            if trick is not None:
                out.append({"type": "trick", "winner": trick.winner.name, "taker": trick.taker.name})
        out.append(self.state_message())
        self._publish(out)

    def _break(self, error: Exception) -> None:
        """The store refused an action: this table's state may be ahead of what was stored, so it
        is dropped — its connections are told and closed (the page reconnects), and the next
        connection rebuilds the table from the store."""
        log.error("%s: the store refused an action; dropping the table", self.match_id, exc_info=error)
        self.broken = True
        for outbox in list(self._outboxes):
            outbox.put(encode(refusal(Text.of("server.store_failed"))))
            outbox.close(1011, "the table is reloaded from the store")
        self.hub.release(self)

    def _finish(self, deal: Deal) -> None:
        record = deal_to_record(deal, match_id=self.match_id, preset=self.preset)
        self.match.finish_deal()
        over = self.match.is_over
        outcome = self.match.outcome() if over else None
        self.hub.lifetime = self.hub.store.finish_deal(
            self.match_id, deal.deal_index, record_line=dump_record(record),
            south_final=deal.score.final[PERSON], totals=list(self.match.totals), over=over,
            winners=[s.name for s in outcome.winners] if outcome else [],
            pigs=[s.name for s in outcome.pigs] if outcome else [],
        )
        self._seq = 0

    # ------------------------------------------------------------------ what South sees

    @property
    def deal(self) -> Deal:
        """The deal in progress, or the last finished one between deals."""
        current = self.match.current
        return current if current is not None else self.match.deals[-1]

    @property
    def phase(self) -> str:
        deal = self.deal
        if not deal.is_over:
            return deal.phase.value
        return "match-over" if self.match.is_over else "deal-over"

    def view(self) -> dict[str, Any]:
        """The table as South sees it (``docs/web-protocol.md``, The state)."""
        deal = self.deal
        obs = observe(deal, PERSON)
        over = deal.is_over
        turn = deal.turn
        tricks = obs.tricks
        last = tricks[-1] if tricks else None
        leader = deal.leader if deal.phase is not Phase.EXPOSE else None
        state: dict[str, Any] = {
            "match_id": self.match_id,
            "phase": self.phase,
            "options": self.options.to_dict(),
            "preset": self.preset,
            "levels": dict(self.levels),
            "speed": self.speed,
            "deal_index": deal.deal_index,
            "deals_played": len(self.match.deals),
            "seat": PERSON.name,
            "turn": turn.name if turn is not None else None,
            "hand": _codes(obs.hand),
            "legal": [_codes(p) for p in deal.legal_plays()] if turn == PERSON else [],
            "exposable": [{"card": c.code, "kinds": list(deal.exposure_kinds(PERSON, c))}
                          for c in deal.exposable(PERSON)],
            "exposures": [{"seat": e.seat.name, "card": e.card.code, "kind": e.kind} for e in obs.exposures],
            "hidden_counts": _seat_map(obs.hidden_counts),
            "undeclared": [s.name for s in deal.undeclared],
            "trick": {
                "leader": leader.name if leader is not None and not over else None,
                "plays": [{"seat": s.name, "cards": _codes(p)} for s, p in obs.trick],
            },
            "last_trick": None if last is None else {
                "leader": last.leader.name,
                "plays": [{"seat": s.name, "cards": _codes(p)} for s, p in last.plays],
                "winner": last.winner.name,
                "taker": last.taker.name,
            },
            "tricks_played": len(tricks),
            "captured": {s.name: _codes(obs.captured(s)) for s in Seat},
            "cards_left": {s.name: obs.cards_left(s) for s in Seat},
            "deal_result": self._deal_result(deal) if over else None,
            "totals": _seat_map(self.match.totals),
            "lifetime": {"score": self.hub.lifetime, "title": title_for(self.hub.lifetime)},
            "match_result": None,
        }
        if self.match.is_over:
            outcome = self.match.outcome()
            state["match_result"] = {"winners": [s.name for s in outcome.winners],
                                     "pigs": [s.name for s in outcome.pigs]}
        return state

    def _deal_result(self, deal: Deal) -> dict[str, Any]:
        """A finished deal: every card is public now."""
        score = deal.score
        return {
            "raw": _seat_map(score.raw),
            "result": _seat_map(score.result),
            "final": _seat_map(score.final),
            "events": [{"seat": s.name, "event": e} for s, e in score.events],
            "hands": {s.name: _codes(deal.dealt[s]) for s in Seat},
            "exposures": [{"seat": e.seat.name, "card": e.card.code, "kind": e.kind} for e in deal.exposures],
            "record_url": f"/api/matches/{self.match_id}/deals/{deal.deal_index}",
        }

    def state_message(self) -> dict[str, Any]:
        return {"type": "state", "state": self.view()}

    # ------------------------------------------------------------------ connections

    def subscribe(self) -> Outbox:
        """A new connection's outbox; it gets the current state first."""
        outbox = Outbox(self)
        self._outboxes.add(outbox)
        outbox.put(encode(self.state_message()))
        return outbox

    def unsubscribe(self, outbox: Outbox) -> None:
        """A connection is gone; the last one to go lets the table go (it stops; the store keeps
        where the match stands)."""
        self._outboxes.discard(outbox)
        if not self._outboxes:
            self.hub.release(self)

    def _publish(self, messages: list[dict[str, Any]]) -> None:
        texts = [encode(m) for m in messages]
        for outbox in self._outboxes:
            for text in texts:
                outbox.put(text)

    # ------------------------------------------------------------------ browser messages

    async def receive(self, text: str | None, reply: Callable[[dict[str, Any]], None]) -> None:
        """Handle one browser message (``text`` None for a binary frame).  A refused message is
        answered with an error by ``reply`` and changes nothing; a change is published to every
        connection of the table."""
        try:
            message = self._parse(text)
            if isinstance(message, ExposeMessage):
                self._expose(message.cards, None if isinstance(message.kinds, msgspec.UnsetType) else message.kinds)
            elif isinstance(message, PlayMessage):
                self._play(message.cards)
            elif isinstance(message, NextMessage):
                self._next()
            elif isinstance(message, SettingsMessage):
                self._settings(message.speed)
            else:
                self._ask_hint(reply)
                return
        except (MessageError, GongzhuError, StoreError) as e:
            reply(refusal(e.text if isinstance(e, GongzhuError) and e.text is not None else str(e)))
            return
        self.kick()

    @staticmethod
    def _parse(text: str | None) -> BrowserMessage:
        """A browser message, typed as declared in :mod:`gongzhu.formats.web`."""
        if text is None:
            raise MessageError("messages are JSON text, not binary frames")
        try:
            message: BrowserMessage = typed(loads_strict(text), BrowserMessage)
        except JSONTextError as e:
            raise MessageError(f"not a JSON message: {e}") from None
        except FormatError as e:
            raise MessageError(str(e)) from None
        return message

    def _expose(self, cards: list[str], kinds: Sequence[str] | None) -> None:
        """South's exposure declaration (R4), possibly empty."""
        items: list[Card | str | tuple[Card | str, str]]
        if kinds is None:
            items = list(cards)
        else:
            if len(kinds) != len(cards):
                raise MessageError(f"\"kinds\" has {len(kinds)} entries for {len(cards)} cards: one kind per card")
            items = list(zip(cards, kinds, strict=True))
        checked = self.deal.verify_declare(PERSON, items)  # raises, saying why
        self._commit(PERSON, {"type": "declare", "items": [[c.code, k] for c, k in checked]})

    def _play(self, cards: list[str]) -> None:
        play = self.deal.verify_play(cards, PERSON)  # raises, saying why
        self._commit(PERSON, {"type": "play", "cards": _codes(play)})

    def _next(self) -> None:
        if self.match.current is not None:
            raise MessageError("the deal is not over yet: the next deal comes after it")
        if self.match.is_over:
            raise MessageError("the match is over: start a new match")
        self.match.new_deal()
        self.hub.store.start_deal(self.match_id)
        self._seq = 0
        self.version += 1
        self._publish([self.state_message()])

    def _settings(self, speed: str) -> None:
        if speed == self.speed:
            return  # nothing changes: nothing to store or send
        self.speed = speed  # not a change of position: a computer player's pending choice stands
        self.hub.store.set_speed(self.match_id, speed)
        self._publish([self.state_message()])

    def _ask_hint(self, reply: Callable[[dict[str, Any]], None]) -> None:
        """Answer a hint request when its ranking is ready, without holding up the connection's
        next messages (a play may overtake it: the hint names the position it ranks, by deal and
        South's hand size, so that the page can drop a late one)."""
        deal = self.deal
        if deal.turn != PERSON:
            if deal.phase is not Phase.PLAY:
                raise MessageError("a hint is for your turn to play: no card is being played now")
            assert deal.turn is not None
            raise MessageError(f"a hint is for your turn to play: it is {deal.turn.english}'s turn")
        # One ranking per position: every connection of the table asking for it shares it, and
        # it is computed in the hint pool, one at a time, beside the computer players' pool.
        ranking = self._hint[1] if self._hint is not None and self._hint[0] == self.version else None
        if ranking is None or (ranking.done() and (ranking.cancelled() or ranking.exception() is not None)):
            # None for this position yet, or it failed or was called off: ask again, keep no failure
            loop = asyncio.get_running_loop()
            ranking = loop.run_in_executor(self.hub.hint_pool, self._rank, observe(deal, PERSON))
            self._hint = (self.version, ranking)
        task = asyncio.get_running_loop().create_task(self._send_hint(ranking, reply))
        self._hint_tasks.add(task)
        task.add_done_callback(self._hint_tasks.discard)

    async def _send_hint(self, ranking: asyncio.Future[dict[str, Any]],
                         reply: Callable[[dict[str, Any]], None]) -> None:
        try:
            message = await asyncio.shield(ranking)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if not ranking.cancelled() or (task is not None and task.cancelling()):
                raise
            reply(refusal(Text.of("server.hint_called_off")))
            return
        except Exception:
            log.exception("%s: a hint failed", self.match_id)
            reply(refusal(Text.of("server.hint_failed")))
            return
        reply(message)

    def _rank(self, obs: Any) -> dict[str, Any]:
        from gongzhu.players.hints import DEFAULT_HINT_THINK, hints

        think = self.hub.hint_think if self.hub.hint_think is not None else DEFAULT_HINT_THINK
        ranked = hints(obs, think=think)
        return {"type": "hint", "deal_index": obs.deal_index, "hand_size": len(obs.hand), "hints": [
            {"cards": _codes(h.play), "expected": h.expected, "reason": {"zh": h.reason_zh, "en": h.reason_en}}
            for h in ranked
        ]}

    # ------------------------------------------------------------------ computer players

    @property
    def pace(self) -> float:
        """Seconds per computer play: the server's override, else the speed setting."""
        return self.hub.pace if self.hub.pace is not None else SPEEDS.get(self.speed, SPEEDS[DEFAULT_SPEED])

    def _computer_step(self) -> tuple[Seat, str] | None:
        """The computer player to act now and how (``declare``/``play``), or None when the
        table waits for South (or the deal is over)."""
        deal = self.match.current
        if deal is None or deal.is_over:
            return None
        if deal.phase is Phase.EXPOSE:
            undeclared = deal.undeclared
            if PERSON in undeclared:
                return None  # South declares first, then the computer players (as at the terminal)
            return (undeclared[0], "declare") if undeclared else None
        turn = deal.turn
        return (turn, "play") if turn is not None and turn != PERSON else None

    def kick(self) -> None:
        """Start the computer players if one of them is to act (call on the event loop)."""
        if self.broken or self._computer_step() is None:
            return
        driver = self._driver
        loop = asyncio.get_running_loop()
        if driver is not None and not driver.done() and driver.get_loop() is loop:
            return
        self._driver = loop.create_task(self._drive())
        self._driver.add_done_callback(_report_failure)

    async def _drive(self) -> None:
        loop = asyncio.get_running_loop()
        pool = self.hub.player_pool
        where = f"match {self.match_id}"
        while not self.broken and (step := self._computer_step()) is not None:
            seat, kind = step
            deal = self.match.current
            assert deal is not None
            version = self.version
            obs = observe(deal, seat)
            player = self.players[seat]
            started = loop.time()
            choice: Any
            # A player that fails is logged and stood in for (players.guard): the table goes on.
            if kind == "declare":
                choice = await loop.run_in_executor(pool, functools.partial(safe_exposures, player, obs, where=where))
                delay = self.pace / 2
            else:
                choice = await loop.run_in_executor(pool, functools.partial(safe_play, player, obs, where=where))
                delay = self.pace
            wait = delay - (loop.time() - started)
            await asyncio.sleep(max(0.0, wait))
            if self.version != version or self.broken:
                continue  # the position changed meanwhile: think again
            try:
                if kind == "declare":
                    self._computer_declare(deal, seat, choice)
                else:
                    self._computer_play(deal, seat, choice)
            except StoreError:
                return  # the table is dropped; the next connection rebuilds it

    def _computer_declare(self, deal: Deal, seat: Seat, choice: list[tuple[Card, str]]) -> None:
        try:
            checked = deal.verify_declare(seat, choice)
        except GongzhuError as e:
            log.error("%s: %s's exposures %r refused (%s): declaring none", self.match_id, seat.name, choice, e)
            checked = []
        self._commit(seat, {"type": "declare", "items": [[c.code, k] for c, k in checked]})

    def _computer_play(self, deal: Deal, seat: Seat, choice: Play) -> None:
        try:
            play = deal.verify_play(choice, seat)
        except GongzhuError as e:
            log.error("%s: %s's play %r refused (%s): playing the first legal play", self.match_id,
                      seat.name, choice, e)
            play = deal.legal_plays()[0]
        self._commit(seat, {"type": "play", "cards": _codes(play)})

    def halt(self) -> None:
        """Stop the computer players now, and a hint nobody waits for any more unless it has
        started (the table is being let go)."""
        driver, self._driver = self._driver, None
        if driver is not None and not driver.done():
            driver.cancel()
        if self._hint is not None and not self._hint[1].done():
            self._hint[1].cancel()
        for task in list(self._hint_tasks):
            task.cancel()

    async def stop(self) -> None:
        driver, self._driver = self._driver, None
        if driver is None or driver.done() or driver.get_loop() is not asyncio.get_running_loop():
            return  # nothing running here (a task of a finished event loop is gone with it)
        driver.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await driver


def _report_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("computer players stopped", exc_info=task.exception())
