"""What the server's instruments cost (gongzhu.server.metrics, gongzhu.server.logs): the work
added to a person's play, a computer's play and a store transaction, and one table action's
JSON log line, each timed with timeit (the fastest of several repeats, in microseconds).

    .venv/bin/python benchmarks/metrics.py [--number N] [--repeat R]

The instruments cannot be switched off in the server, so each is timed on its own here, in the
shape the server calls it; a play costs about 1.1-1.2 ms of server CPU on this machine
(docs/benchmarks.md, Online tables), against which these figures are set in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import io
import logging
import time
import timeit
from collections.abc import Callable

from sqlalchemy import create_engine, text

from gongzhu.server.logs import JsonLines, about, context
from gongzhu.server.metrics import ARRIVED, Metrics


def best_us(fn: Callable[[], object], number: int, repeat: int) -> float:
    """The fastest of ``repeat`` runs of ``number`` calls, per call, in microseconds."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--number", type=int, default=20_000, help="calls per repeat")
    parser.add_argument("--repeat", type=int, default=7, help="repeats (the fastest counts)")
    args = parser.parse_args()
    metrics = Metrics()

    def person_play() -> None:  # what registry and table add to a person's play
        token = ARRIVED.set(time.perf_counter())
        with about(table="m-0123456789ab", person="u-0123456789ab"):
            metrics.played("person")
            metrics.play_done()
        ARRIVED.reset(token)

    think = metrics.think_seconds.labels("expert", "play")

    def computer_play() -> None:
        metrics.played("computer")
        think.observe(0.3)

    plain = create_engine("sqlite://")
    watched = create_engine("sqlite://")
    metrics.watch_store(watched)

    def transaction(engine: object) -> Callable[[], None]:
        def run() -> None:
            with engine.begin() as c:  # type: ignore[attr-defined]
                c.execute(text("SELECT 1"))
        return run

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonLines())

    class Context(logging.Filter):
        def filter(self, record: logging.LogRecord) -> bool:
            record.gongzhu_context = context()
            return True

    handler.addFilter(Context())
    log = logging.getLogger("gongzhu.bench.actions")
    log.propagate = False
    log.addHandler(handler)
    log.setLevel(logging.INFO)

    def action_line() -> None:
        with about(request_id="0123456789abcdef", table="m-0123456789ab", person="u-0123456789ab"):
            log.info("%s: %s", "play", "ok", extra={"action": "play", "outcome": "ok", "code": None})
        stream.seek(0)
        stream.truncate()

    n, r = args.number, args.repeat
    rows = [
        ("a person's play: arrival, log context, counter, latency", best_us(person_play, n, r)),
        ("a computer's play: counter, think-time histogram", best_us(computer_play, n, r)),
        ("a store transaction, without the pool events", best_us(transaction(plain), n // 4, r)),
        ("a store transaction, with the pool events", best_us(transaction(watched), n // 4, r)),
        ("a table action's JSON log line", best_us(action_line, n // 4, r)),
    ]
    for what, us in rows:
        print(f"{what:58s} {us:8.2f} µs")


if __name__ == "__main__":
    main()
