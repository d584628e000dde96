"""A clock of the test's own, for code that keeps to a time budget.

No test asserts how long something took on the wall clock (a busy machine makes any bound
flaky, and ``benchmarks/`` measure the real times).  Code that stops when its budget has passed
is tested on a :class:`TickingClock` instead: time moves only when the code reads the clock, by
a fixed step a reading, so the budget runs out after a known number of readings, whatever the
machine.  :func:`use_clock` puts it in place of the ``time`` module a module reads its clock
from (``time.perf_counter``, ``time.monotonic``, ``time.time``) for one test.
"""

from __future__ import annotations

import types

import pytest

__all__ = ["SetClock", "TickingClock", "use_clock"]


class SetClock:
    """Seconds since the epoch that move only when the test sets ``t``: the clock of code that
    acts on dates (a challenge's day, a sanction's end, an event's grace)."""

    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


class TickingClock:
    """Seconds that pass only when read: each reading is ``step`` seconds after the one before
    (the first ``start + step``).  ``readings`` counts them.  A step that is a power of two
    (``1 / 64``) keeps the sums exact."""

    def __init__(self, step: float, start: float = 0.0) -> None:
        if step <= 0:
            raise ValueError(f"a ticking clock moves forward, not by {step}")
        self.step = step
        self.now = start
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        self.now += self.step
        return self.now


def use_clock(monkeypatch: pytest.MonkeyPatch, module: types.ModuleType, clock: TickingClock) -> None:
    """For the rest of the test, ``module`` reads its clock from ``clock``: its global ``time``
    becomes a stand-in whose ``perf_counter``, ``monotonic`` and ``time`` are ``clock`` (and whose
    ``sleep`` moves it on rather than waiting).  Other modules keep the real clock."""
    assert isinstance(getattr(module, "time", None), types.ModuleType), f"{module.__name__} has no time module"

    def sleep(seconds: float) -> None:
        clock.now += max(0.0, seconds)

    stand_in = types.SimpleNamespace(perf_counter=clock, monotonic=clock, time=clock, sleep=sleep)
    monkeypatch.setattr(module, "time", stand_in)
