"""Reviews of finished deals on the server: what each decision of one seat cost, as
:mod:`gongzhu.review` computes it.

:class:`Reviews` keeps the jobs asked for with ``POST /api/matches/{id}/deals/{k}/review`` and
read with ``GET``: each runs on the worker processes of one :class:`~gongzhu.review.Reviewer`
at the computer players' search priority, driven from a thread of its own, so the event loop
only reads its progress; a few run at once, a bounded line waits (each person, and each client
address, holding a bounded share of it), and the most recent are kept.  A pool whose worker
process died is replaced by the reviewer (:class:`~gongzhu.review.Reviewer`), so one dead process
fails no later review.  Only a finished deal is reviewed, from its stored R11 record, so a review
shows nobody a card they could not see.  The jobs: ``docs/web-protocol.md``, Reviews; what a review says:
``docs/review.md``.  Imports :mod:`gongzhu.review` (on the first review),
:mod:`gongzhu.server.thinking` (the search processes' priority), :mod:`gongzhu.messages`,
:mod:`gongzhu.jsontext` and :mod:`gongzhu.rules`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gongzhu.jsontext import show
from gongzhu.messages import Text
from gongzhu.rules.cards import Seat
from gongzhu.server.thinking import SEARCH_NICENESS

if TYPE_CHECKING:  # imported on the first review: the server starts without the search
    from gongzhu.review import Budget, Reviewer

__all__ = [
    "AT_ONCE", "KEEP", "PER_ADDRESS", "PER_PERSON", "WAITING", "WORKERS", "Asker", "ReviewJob", "ReviewRefused",
    "Reviews", "in_daemon_thread", "numbered", "parse_seat",
]

log = logging.getLogger("gongzhu.server")

#: The worker processes of the reviews, by default (``gongzhu serve --review-workers``).
WORKERS = 2
#: Reviews running at the same time.
AT_ONCE = 1
#: Reviews waiting for their turn, at most; past that a new one is refused until some finish.
WAITING = 16
#: One person's reviews in line (waiting or running) at most, and one client address's: half the
#: line, so that one person (or one client making a new guest for each request) leaves room for
#: everyone else's reviews.
PER_PERSON = WAITING // 2
PER_ADDRESS = WAITING // 2
#: Finished (or failed) reviews kept, the most recently asked for.
KEEP = 64
#: How long the server, stopping, waits for the reviews it stops (seconds): the tasks their
#: worker processes are on finish first (a decision takes well under a second).
STOP_WAIT = 30.0

#: The seats a review may be of, by their letters.
SEATS = ("N", "E", "S", "W")


class _Stopped(Exception):
    """Raised in a reviewing thread, at its next progress, when the server stops."""


def numbered(text: Text) -> Text:
    """A message that names a deal by its index (``deal``, from 0, as the routes and records
    count) with the deal as players count it too (``number``, from 1: 第 N 副, deal N), which the
    message shows; a deal given as the text that was sent (no number) is shown as sent."""
    deal = text.params.get("deal")
    if deal is None or "number" in text.params:
        return text
    number = deal + 1 if isinstance(deal, int) and not isinstance(deal, bool) else deal
    return Text(text.key, {**text.params, "number": number})


class ReviewRefused(Exception):
    """A review request refused: the HTTP status and the catalog message (nothing changed); a
    deal it names is also numbered as players count (:func:`numbered`)."""

    def __init__(self, status: int, text: Text) -> None:
        text = numbered(text)
        super().__init__(text.render("en"))
        self.status = status
        self.text = text


def parse_seat(value: object) -> Seat:
    """A seat as a review request names it: exactly ``"N"``, ``"E"``, ``"S"`` or ``"W"``."""
    if isinstance(value, str) and value in SEATS:
        return Seat[value]
    raise ReviewRefused(400, Text.of("server.review_bad_seat", seat=show(value)))


def parse_body(body: object) -> Seat:
    """The seat of a ``POST`` body ``{"seat": "S"}`` (no other key)."""
    if not isinstance(body, dict) or set(body) != {"seat"}:
        raise ReviewRefused(400, Text.of("server.review_bad_body"))
    return parse_seat(body["seat"])


Key = tuple[str, int, Seat]


@dataclass(frozen=True, slots=True)
class Asker:
    """Who asks for a review: the person (their user id; None for a caller with no session yet)
    and the client address the server counts them by
    (:func:`~gongzhu.server.policy.counted_address`; None where there is none)."""

    person: str | None = None
    address: str | None = None


@dataclass(eq=False)
class ReviewJob:
    """One review: of ``seat`` in deal ``deal`` (0-based) of ``match_id``.  ``status`` is
    ``queued``, ``running``, ``done`` or ``failed``; ``done`` of ``total`` tasks have finished
    (``total`` is None until the review has counted them); ``review`` is the finished review."""

    match_id: str
    deal: int
    seat: Seat
    record: dict[str, Any] | None
    status: str = "queued"
    done: int = 0
    total: int | None = None
    review: dict[str, Any] | None = None
    unavailable: bool = False
    #: Set by the loop when the server stops: the reviewing thread stops at its next progress.
    stopping: bool = False
    #: Who started it (their share of the line): None for a review nobody in particular asked.
    asker: Asker | None = None

    @property
    def key(self) -> Key:
        return (self.match_id, self.deal, self.seat)

    def progress(self, done: int, total: int) -> None:
        """Called by the reviewing thread as tasks finish (two plain writes the loop reads)."""
        self.total = total
        self.done = done
        if self.stopping:
            raise _Stopped


class Reviews:
    """The reviews of one server (docs/web-protocol.md, Reviews).  ``budget`` is how hard each
    review looks (:class:`~gongzhu.review.Budget`, by default ``DEFAULT_BUDGET``; tests use a
    small one).  One person has at most ``per_person`` reviews in line (waiting or running), one
    client address ``per_address``.  :mod:`gongzhu.review` is imported by the first review, not
    before."""

    def __init__(self, *, workers: int = WORKERS, budget: Budget | None = None, at_once: int = AT_ONCE,
                 waiting: int = WAITING, keep: int = KEEP, per_person: int = PER_PERSON,
                 per_address: int = PER_ADDRESS) -> None:
        if workers < 0 or at_once < 1 or waiting < 0 or keep < 1 or per_person < 1 or per_address < 1:
            raise ValueError("reviews need workers >= 0, at_once >= 1, waiting >= 0, keep >= 1, per_person >= 1 "
                             "and per_address >= 1")
        self.workers = workers
        self.budget = budget
        self.reviewer: Reviewer | None = None
        self.at_once = at_once
        self.waiting = waiting
        self.keep = keep
        self.per_person = per_person
        self.per_address = per_address
        self._jobs: OrderedDict[Key, ReviewJob] = OrderedDict()  # every job, least recently asked first
        self._queue: deque[ReviewJob] = deque()
        self._running: dict[ReviewJob, asyncio.Task[None]] = {}
        self._making = threading.Lock()
        self._closed = False
        #: Told of each review that finishes, and asked for a review kept elsewhere when none is
        #: here (:mod:`gongzhu.server.accuracy` keeps them for the people who played the seats).
        self.finished: Callable[[ReviewJob], None] | None = None
        self.kept: Callable[[str, int, Seat], dict[str, Any] | None] | None = None

    # ------------------------------------------------------------------ asking

    def find(self, match_id: str, deal: int, seat: Seat) -> ReviewJob | None:
        """The review of that seat and deal, if one was started (and is still kept, here or by
        :attr:`kept`)."""
        job = self._jobs.get((match_id, deal, seat))
        if job is None and self.kept is not None and (review := self.kept(match_id, deal, seat)) is not None:
            job = self._jobs[(match_id, deal, seat)] = ReviewJob(match_id, deal, seat, None, "done", review=review)
            self._forget()
        if job is not None:
            self._jobs.move_to_end(job.key)
        return job

    def start(self, match_id: str, deal: int, seat: Seat, record_line: str, *, asker: Asker | None = None) -> ReviewJob:
        """The review of that seat in the finished deal whose R11 record is ``record_line``:
        the one started already, or a new one, queued for ``asker`` (raises
        :class:`ReviewRefused` when the server is stopping, when the asker's person or address
        has their share of the line already — 429 — or when too many wait).  A failed review is
        started anew."""
        job = self.find(match_id, deal, seat)
        if job is not None and job.status != "failed":
            return job
        if self._closed:
            raise ReviewRefused(503, Text.of("server.review_stopping"))
        if asker is not None:
            self._check_share(asker)
        if len(self._running) >= self.at_once and len(self._queue) >= self.waiting:
            raise ReviewRefused(503, Text.of("server.review_busy", waiting=len(self._queue)))
        job = ReviewJob(match_id, deal, seat, json.loads(record_line), asker=asker)
        self._jobs[job.key] = job
        self._jobs.move_to_end(job.key)
        self._queue.append(job)
        self._forget()
        self._next()
        return job

    def in_line(self, asker: Asker) -> tuple[int, int]:
        """How many reviews in line (waiting or running) ``asker``'s person started, and how many
        its client address did."""
        jobs = [job.asker for job in (*self._queue, *self._running) if job.asker is not None]
        person = sum(1 for a in jobs if asker.person is not None and a.person == asker.person)
        address = sum(1 for a in jobs if asker.address is not None and a.address == asker.address)
        return person, address

    def _check_share(self, asker: Asker) -> None:
        """Refuse (429) a review that would give ``asker``'s person or address more than their
        share of the line."""
        person, address = self.in_line(asker)
        if person >= self.per_person:
            raise ReviewRefused(429, Text.of("server.review_too_many_yours", most=self.per_person))
        if address >= self.per_address:
            raise ReviewRefused(429, Text.of("server.review_too_many_address", most=self.per_address))

    def position(self, job: ReviewJob) -> int:
        """A queued review's place in the line (1: the next to run)."""
        return self._queue.index(job) + 1 if job in self._queue else 0

    def answer(self, job: ReviewJob) -> tuple[int, dict[str, Any]]:
        """What a request about ``job`` is answered: ``200 {"status": "done", "review"}``,
        ``202 {"status": "queued" | "running", ...}``; raises :class:`ReviewRefused` for a
        failed review."""
        seat = job.seat.name
        if job.status == "done":
            return 200, {"status": "done", "seat": seat, "review": job.review}
        if job.status == "failed":
            if self._closed:
                raise ReviewRefused(503, Text.of("server.review_stopping"))
            if job.unavailable:
                raise ReviewRefused(503, Text.of("server.review_unavailable"))
            raise ReviewRefused(500, Text.of("server.review_failed", match=job.match_id, deal=job.deal,
                                             number=job.deal + 1, seat=job.seat))
        body: dict[str, Any] = {"status": job.status, "seat": seat, "done": job.done, "total": job.total}
        if job.status == "queued":
            body["position"] = self.position(job)
        return 202, body

    # ------------------------------------------------------------------ running

    def _next(self) -> None:
        """Start queued reviews while fewer than ``at_once`` run."""
        while self._queue and len(self._running) < self.at_once and not self._closed:
            job = self._queue.popleft()
            job.status = "running"
            self._running[job] = asyncio.get_running_loop().create_task(self._run(job), name="gongzhu-review")

    async def _run(self, job: ReviewJob) -> None:
        try:
            review = await in_daemon_thread(self._review, job)
        except Exception as e:
            # gongzhu.search's SearchUnavailableError (the C extensions are not built), known by
            # its name: the server does not import the search layer itself.
            job.unavailable = any(c.__name__ == "SearchUnavailableError" for c in type(e).__mro__)
            if self._closed or isinstance(e, _Stopped):
                log.info("review of %s deal %d seat %s stopped with the server", job.match_id, job.deal, job.seat.name)
            elif job.unavailable:
                log.warning("deal reviews are unavailable: %s", e)
            else:
                log.error("the review of %s deal %d seat %s failed", job.match_id, job.deal, job.seat.name,
                          exc_info=e)
            job.status = "failed"
        else:
            job.review = review
            job.status = "done"
            if self.finished is not None:
                self.finished(job)
        finally:
            job.record = None
            self._running.pop(job, None)
            self._forget()
            self._next()

    def _review(self, job: ReviewJob) -> dict[str, Any]:
        """In a thread of the reviews: the review itself, its tasks on the worker processes."""
        from gongzhu.review import DEFAULT_BUDGET, Reviewer

        assert job.record is not None
        if self.reviewer is None:  # only ever in this thread (``at_once`` threads share it, made once)
            with self._making:
                if self.reviewer is None:
                    self.reviewer = Reviewer(self.workers, niceness=SEARCH_NICENESS)
        budget = self.budget if self.budget is not None else DEFAULT_BUDGET
        return self.reviewer.review(job.record, job.seat, budget=budget, progress=job.progress)

    def board_pars(self, seed: str, definition: Mapping[str, Any], commitment: str, seat: Seat, *,
                   replays: int) -> list[float | None]:
        """The par of each board of a challenge (``gongzhu.review.board_pars``), computed on the
        reviews' worker processes; called from a thread of the challenges."""
        from gongzhu.review import Reviewer

        with self._making:
            if self.reviewer is None:
                self.reviewer = Reviewer(self.workers, niceness=SEARCH_NICENESS)
        return self.reviewer.board_pars(seed, definition, commitment, seat, replays=replays)

    def _forget(self) -> None:
        """Let the least recently asked finished reviews go, past ``keep`` of them."""
        finished = [k for k, j in self._jobs.items() if j.status in ("done", "failed")]
        for key in finished[: max(0, len(finished) - self.keep)]:
            del self._jobs[key]

    async def close(self, wait: float = STOP_WAIT) -> None:
        """Stop: the waiting reviews are dropped, the running ones stopped at their next progress,
        the worker processes shut down (after the tasks they are on).  Waits at most ``wait``
        seconds; a review thread still running then is left behind (a daemon thread)."""
        self._closed = True
        for job in self._queue:
            job.status = "failed"
            job.record = None
        self._queue.clear()
        for job in self._running:
            job.stopping = True
        running = list(self._running.values())
        try:
            # Shutting the pool down cancels the tasks not begun; those begun finish, and each
            # running review stops at the progress their finishing reports.
            await asyncio.wait_for(in_daemon_thread(self._close_pool), wait)
            if running:
                await asyncio.wait_for(asyncio.gather(*running, return_exceptions=True), wait)
            # A review that made its pool only after the first close: that pool goes too.
            await asyncio.wait_for(in_daemon_thread(self._close_pool), wait)
        except TimeoutError:
            log.warning("the reviews did not stop within %.0f s: left behind", wait)

    def _close_pool(self) -> None:
        with self._making:
            if self.reviewer is not None:
                self.reviewer.close()

    @property
    def counts(self) -> dict[str, int]:
        """How many reviews are kept, waiting and running (for logs and tests)."""
        return {"kept": len(self._jobs), "waiting": len(self._queue), "running": len(self._running)}


def in_daemon_thread(fn: Callable[..., Any], *args: Any, name: str = "gongzhu-review") -> asyncio.Future[Any]:
    """``fn(*args)`` in a daemon thread of its own (named ``name``), as a future of the running
    loop.  Not the loop's executor: its threads are joined when the interpreter exits, and a
    review (or a what-if) thread must never hold the server's exit up."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def run() -> None:
        try:
            result, error = fn(*args), None
        except BaseException as e:  # handed to the loop as it is
            result, error = None, e
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name=name, daemon=True).start()
    return future
