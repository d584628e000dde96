"""The table's clock: whose time runs, its deadline, and the timer that fires when it passes
(``docs/web-protocol.md``, Timers and 托管).

With a turn timer, the person to play has ``turn_seconds``; with an exposure window, every
person yet to declare has ``expose_seconds`` from the deal (the window runs on while others
declare); between deals the next deal is dealt :data:`NEXT_DEAL_SECONDS` after a deal unless
someone asks sooner; the people asked to accept a claim have :data:`CLAIM_SECONDS`, at every
table.  Computer players are never timed.  When a deadline passes the clock hands
it to the table's ``expire`` (a stand-in acts, :mod:`gongzhu.server.thinking`).  ``now`` is the
wall clock the deadline is kept in (it is stored with the table and shown to the page).

Imports the rules core.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from gongzhu.rules.cards import Card, Seat
from gongzhu.rules.deal import Phase
from gongzhu.rules.match import Match

__all__ = ["CLAIM_SECONDS", "NEXT_DEAL_SECONDS", "Clock", "Due", "Timed", "report_failure"]

log = logging.getLogger("gongzhu.server")

#: With a turn timer, the next deal is dealt this many seconds after a deal unless someone asks sooner.
NEXT_DEAL_SECONDS = 10
#: The time the people asked to accept a claim have to answer (:mod:`gongzhu.server.claiming`),
#: at every table: no answer in time withdraws the claim.
CLAIM_SECONDS = 60

#: Whose time runs: (``"play"``, [the person to play]), (``"expose"``, [the persons yet to
#: declare]), (``"claim"``, [the persons yet to answer a claim]) or (``"next"``, []) between deals.
Due = tuple[str, list[Seat]]


class Timed(Protocol):
    """What the clock reads of a table."""

    status: str
    match: Match
    pending: dict[Seat, list[tuple[Card, str]]]
    turn_seconds: int | None
    expose_seconds: int | None
    broken: bool

    def is_computer(self, seat: Seat) -> bool: ...

    def claim_waiting(self) -> list[Seat] | None: ...


def report_failure(task: asyncio.Task[None]) -> None:
    """Log a table task that stopped with an error (a defect: the table goes on)."""
    if not task.cancelled() and task.exception() is not None:
        log.error("a table task stopped", exc_info=task.exception())


class Clock:
    """One table's deadline and timer (see the module docstring)."""

    def __init__(self, table: Timed, deadline: float | None,
                 expire: Callable[[float], Coroutine[Any, Any, None]], now: Callable[[], float] = time.time) -> None:
        self.table = table
        self.deadline = deadline
        self.expire = expire
        self.now = now
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[None] | None = None

    def due(self) -> Due | None:
        """Whose time runs now (see :data:`Due`), or None."""
        t = self.table
        deal = t.match.current
        if t.status != "playing":
            return None
        if deal is None:
            return None if t.match.is_over else ("next", [])
        if deal.phase is Phase.EXPOSE:
            seats = [s for s in deal.undeclared if s not in t.pending and not t.is_computer(s)]
            return ("expose", seats) if seats else None
        answering = t.claim_waiting()
        if answering is not None:
            return "claim", answering
        turn = deal.turn
        if turn is None or t.is_computer(turn):
            return None
        return "play", [turn]

    def _seconds(self, kind: str) -> int | None:
        t = self.table
        # With a turn timer and no exposure window, the exposures wait a turn's time: a table
        # that times its turns never waits forever for a person who will not declare.
        expose = t.expose_seconds if t.expose_seconds is not None else t.turn_seconds
        return {"play": t.turn_seconds, "expose": expose, "next": NEXT_DEAL_SECONDS,
                "claim": CLAIM_SECONDS}.get(kind)

    def arm(self) -> None:
        """Set the deadline after a change (the exposure window runs on while persons declare; a
        turn's timer restarts with each turn)."""
        due = self.due()
        kind = due[0] if due is not None else None
        seconds = self._seconds(kind or "") if kind != "next" or self.table.turn_seconds else None
        if due is None or not seconds:
            self.deadline = None
            return
        if kind in ("expose", "claim") and self.deadline is not None:
            return  # the window started when the deal was dealt, or the claim was put
        self.deadline = self.now() + seconds

    def view(self) -> dict[str, Any] | None:
        """The clock as the page shows it, or None when nobody's time runs."""
        due = self.due()
        if due is None or self.deadline is None:
            return None
        kind, seats = due
        return {"kind": kind, "seats": [s.name for s in seats], "total": self._seconds(kind),
                "remaining": round(max(0.0, self.deadline - self.now()), 1)}

    def schedule(self) -> None:
        """Run :meth:`expire` when the deadline passes (call on the event loop)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.deadline is None or self.table.broken:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        delay = max(0.0, self.deadline - self.now())
        self._timer = loop.call_later(delay, self._passed, self.deadline)

    def _passed(self, deadline: float) -> None:
        if self.table.broken or self.deadline != deadline:
            return
        loop = asyncio.get_running_loop()
        if self._task is not None and not self._task.done():
            # a timeout of a moment ago is still deciding (someone acted meanwhile): look again soon
            self._timer = loop.call_later(0.05, self._passed, deadline)
            return
        self._task = loop.create_task(self.expire(deadline))
        self._task.add_done_callback(report_failure)

    def halt(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def stop(self) -> None:
        self.halt()
        task = self._task
        if task is not None and not task.done() and task.get_loop() is asyncio.get_running_loop():
            with contextlib.suppress(asyncio.CancelledError):
                await task
