"""The server's metrics for its operator, in Prometheus's text format (``GET /metrics``,
``docs/operations.md``): what the tables, the store, Redis, the computer players and the event
loop are doing.

:class:`Metrics` holds every instrument in a registry of its own (never prometheus-client's
global one: several applications in one process each count their own).  The modules that do the
work record into it — the table its plays and their latency (:data:`ARRIVED`, when the play's
message arrived), the thinking its computer players' decisions, the cluster its Redis commands —
and :meth:`Metrics.watch_store` times the store's use of its database through SQLAlchemy's
events, so no statement of :mod:`gongzhu.server.store` changes.  What is counted at a scrape
(open connections, tables by state, reviews) is read from the functions given to
:meth:`Metrics.sample`.

Imports prometheus-client and SQLAlchemy's events; nothing of ``gongzhu``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import event
from sqlalchemy.engine import Engine

__all__ = ["ARRIVED", "CONTENT_TYPE", "LAG_EVERY", "Metrics"]

#: The media type of ``GET /metrics`` (Prometheus's text format 0.0.4).
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

#: When the browser message being handled arrived (``time.perf_counter()``), while a table
#: handles it: a person's play is timed from there to its commit and publication.
ARRIVED: ContextVar[float | None] = ContextVar("gongzhu_arrived", default=None)

#: How often (seconds) the event loop's lag is measured: a sleep of this long, and how much later
#: than asked it ended.
LAG_EVERY = 0.5

#: Buckets (seconds) of the fast things: a play, a store transaction, a Redis command, the lag.
_FAST = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
#: Buckets (seconds) of a computer player's decision: from a random player's microseconds to the
#: expert's seconds.
_THINK = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

#: Where a connection of the store's pool keeps when it was taken.
_TAKEN = "gongzhu.metrics.taken"


class _Sampled(Collector):
    """A gauge read at each scrape: ``read()`` gives each label value its number (a value it
    leaves out, among ``always``, is 0)."""

    def __init__(self, name: str, documentation: str, label: str, read: Callable[[], Mapping[str, float]],
                 always: Iterable[str] = ()) -> None:
        self.name = name
        self.documentation = documentation
        self.label = label
        self.read = read
        self.always = tuple(always)

    def collect(self) -> Iterable[GaugeMetricFamily]:
        family = GaugeMetricFamily(self.name, self.documentation, labels=[self.label])
        values = {value: 0.0 for value in self.always}
        values.update(self.read())
        for value, number in sorted(values.items()):
            family.add_metric([value], float(number))
        yield family

    def describe(self) -> Iterable[GaugeMetricFamily]:
        yield GaugeMetricFamily(self.name, self.documentation, labels=[self.label])


class Metrics:
    """One server's instruments (docs/operations.md lists each, its type, labels and meaning)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.plays = Counter("gongzhu_plays", "Plays committed at the tables this server runs, by who made "
                             "them: person, computer, timeout (a stand-in for a person whose time ran out) or "
                             "played_out (a claim's or a settled deal's rest, played by the server)",
                             ["by"], registry=r)
        self.play_seconds = Histogram("gongzhu_play_seconds", "A person's play: from its message's arrival to "
                                      "its commit to the store and its publication to the table's rooms",
                                      buckets=_FAST, registry=r)
        self.think_seconds = Histogram("gongzhu_think_seconds", "A computer player's decision (its thinking "
                                       "alone, not the pace it keeps), by level and kind (play, declare)",
                                       ["level", "kind"], buckets=_THINK, registry=r)
        self.store_seconds = Histogram("gongzhu_store_seconds", "A use of the store's database: a "
                                       "connection taken from the pool until it is given back (its statements "
                                       "and commit), by kind: write (committed) or read",
                                       ["kind"], buckets=_FAST, registry=r)
        self.store_errors = Counter("gongzhu_store_errors", "Database errors of the store: a statement that "
                                    "failed, a connection that could not be made", registry=r)
        self.redis_seconds = Histogram("gongzhu_redis_seconds", "A Redis command of the cluster (--redis), "
                                       "from sending it to its answer", buckets=_FAST, registry=r)
        self.redis_errors = Counter("gongzhu_redis_errors", "Redis operations of the cluster that failed "
                                    "(a command, a publication, the subscription)", registry=r)
        self.loop_lag = Histogram("gongzhu_event_loop_lag_seconds", "How much later than asked a sleep of "
                                  f"{LAG_EVERY} s on the server's event loop ended: the time the loop was held "
                                  "by other work", buckets=_FAST, registry=r)
        self._plays = {by: self.plays.labels(by) for by in ("person", "computer", "timeout", "played_out")}

    def sample(self, name: str, documentation: str, label: str, read: Callable[[], Mapping[str, float]],
               always: Iterable[str] = ()) -> None:
        """A gauge ``name`` by ``label``, read from ``read()`` at each scrape (the values of
        ``always`` shown as 0 when ``read`` leaves them out)."""
        self.registry.register(_Sampled(name, documentation, label, read, always))

    def text(self) -> bytes:
        """Every metric, in Prometheus's text format."""
        return generate_latest(self.registry)

    # ------------------------------------------------------------------ what is timed here

    def played(self, by: str) -> None:
        """One more play ``by`` a person, a computer, a stand-in or the server playing out."""
        counter = self._plays.get(by)
        if counter is None:
            counter = self._plays[by] = self.plays.labels(by)
        counter.inc()

    def play_done(self) -> None:
        """A person's play is committed and published: timed from :data:`ARRIVED`."""
        arrived = ARRIVED.get()
        if arrived is not None:
            self.play_seconds.observe(time.perf_counter() - arrived)

    def watch_store(self, engine: Engine) -> None:
        """Time each use of ``engine``'s connections — checked out of the pool until it is given
        back: one of the store's transactions — as a write when it ended in a commit (or a
        rollback: a write that failed), as a read when its transaction was closed unfinished
        (``with engine.connect()``), and count its errors.  Only the pool's events: an event of
        the connections themselves would slow down every statement."""
        read, write = self.store_seconds.labels("read"), self.store_seconds.labels("write")
        errors = self.store_errors

        def taken(_dbapi: Any, record: Any, _proxy: Any) -> None:
            record.info[_TAKEN] = time.perf_counter()

        def given_back(_dbapi: Any, record: Any, state: Any) -> None:
            started = record.info.pop(_TAKEN, None) if record is not None else None
            if started is not None:
                (read if state.transaction_was_reset else write).observe(time.perf_counter() - started)

        def failed(_context: Any) -> None:
            errors.inc()

        event.listen(engine, "checkout", taken)
        event.listen(engine, "reset", given_back)
        event.listen(engine, "handle_error", failed)

    async def watch_loop(self, every: float = LAG_EVERY) -> None:
        """Measure the event loop's lag until cancelled: sleep ``every`` seconds, and record how
        much later the sleep ended."""
        loop = asyncio.get_running_loop()
        while True:
            started = loop.time()
            await asyncio.sleep(every)
            self.loop_lag.observe(max(0.0, loop.time() - started - every))
