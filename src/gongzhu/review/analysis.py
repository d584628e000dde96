"""The review of one seat's decisions in a finished deal (see the package docstring and
docs/review.md for the JSON it returns).

Units.  Every value is the seat's R7 objective in raw points, as the expert plays for it
(:func:`gongzhu.players.expert.objective_weights`): its raw score minus the mean of the others'
(under ``scoring=partners``: half its team's margin).  A decision's *loss* is the expected
value of the best alternative minus that of the play made, both estimated on the same sampled
worlds and continuations (common random numbers), so it is never negative.

Luck and skill add up: ``result = luck + skill``, decision by decision.  Along the deal, the seat's
expected result (the same search at each of its decisions) moves at its own decisions — *skill*,
the choice made against standard play (the playout policy choosing for it) — and between them —
*luck*: the deal itself (the expected result at the first decision, against 0 for an average
deal), then what the others played and showed; the last stretch runs to the result.  ``par`` is
the expert's mean result in the seat over duplicate replays of the same hands, ``loss`` the sum of
the losses against the best choice (docs/review.md).
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import random
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, CancelledError, Executor, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass
from typing import Any, TypeVar

from gongzhu import search
from gongzhu.players.expert import ExpertPlayer, exposure_options, objective_weights
from gongzhu.players.observation import observe
from gongzhu.players.registry import think_error
from gongzhu.records.format import SEATS, deal_to_record
from gongzhu.records.read import DealRecord, parse_record
from gongzhu.records.replay import replay, replay_states
from gongzhu.rules.boards import verify_board_set
from gongzhu.rules.cards import Card, Seat, parse_card
from gongzhu.rules.deal import Deal, Phase
from gongzhu.rules.scoring import is_point_card, raw_scores

__all__ = [
    "DEFAULT_BUDGET", "MARKS", "REVIEW_FORMAT", "Budget", "Reviewer", "Weighed", "mark_for", "review_record", "weigh",
]

REVIEW_FORMAT = "gongzhu-review/2"

log = logging.getLogger("gongzhu.review")

_T = TypeVar("_T")

#: The marks of a decision by its loss in expected raw points (R7 units), worst first: a blunder
#: ?? loses 50 or more (half a pig), a mistake ? 25 or more (a high heart and a half), an
#: inaccuracy ?! 10 or more (one middle heart).
MARKS: tuple[tuple[str, float], ...] = (("??", 50.0), ("?", 25.0), ("?!", 10.0))


def mark_for(loss: float) -> str | None:
    """The mark of a decision that lost ``loss`` expected points (None below every threshold)."""
    for mark, threshold in MARKS:
        if loss >= threshold:
            return mark
    return None


@dataclass(frozen=True)
class Budget:
    """How hard the review looks.

    ``think``: the expert's seconds per decision (the expert plays with 0.3 s); ``worlds``: a
    fixed number of sampled worlds per decision instead (reproducible from the seed);
    ``par_replays`` replays of the deal by four experts of ``par_worlds`` worlds per decision
    give the par; ``exact_limit``: positions the open-card solver may search for one decision
    before giving up on it (0: no limit — an early position can then take minutes)."""

    think: float | None = 0.4
    worlds: int | None = None
    par_replays: int = 8
    par_worlds: int = 16
    exact_limit: int = 3_000_000

    def __post_init__(self) -> None:
        if self.think is None and self.worlds is None:
            raise ValueError("a review budget needs think seconds or a number of worlds")
        if (why := think_error(self.think)) is not None:
            raise ValueError(why)
        if self.worlds is not None and not 1 <= self.worlds <= 100_000:
            raise ValueError(f"worlds must lie in 1..100000, not {self.worlds}")
        if not 0 <= self.par_replays <= 1000 or not 1 <= self.par_worlds <= 10_000:
            raise ValueError("par_replays must lie in 0..1000 and par_worlds in 1..10000")
        if self.exact_limit < 0:
            raise ValueError("exact_limit cannot be negative")


DEFAULT_BUDGET = Budget()


# ---------------------------------------------------------------------- the decisions of a deal


@dataclass(frozen=True)
class _Step:
    """A decision of the seat: the index of the replayed state before it, its kind, and where."""

    state: int  # index in replay_states(record)
    kind: str  # "expose" or "play"
    trick: int | None  # 1-based; None for the declaration
    order: int  # place in the trick (0 leads); 0 for the declaration
    made: list[Any]  # card codes played, or [code, kind] pairs declared
    choices: int  # how many alternatives there were


def _declared(rec: DealRecord, seat: Seat) -> list[list[str]]:
    return [[e.card.code, e.kind] for e in rec.exposures if e.seat == seat and e.kind != "auto"]


def _steps(rec: DealRecord, seat: Seat) -> list[_Step]:
    """The seat's decisions, in order (the replay re-checks the record as it goes)."""
    out: list[_Step] = []
    for i, deal in enumerate(replay_states(rec)):
        if deal.phase == Phase.EXPOSE:
            if seat in deal.undeclared:
                obs = observe(deal, seat)
                n = len(exposure_options(obs))
                out.append(_Step(i, "expose", None, 0, _declared(rec, seat), n))
        elif deal.phase == Phase.PLAY and deal.turn == seat:
            trick = len(deal.tricks)
            order = len(deal.current_trick)
            made = rec.tricks[trick].plays[order][1]
            out.append(_Step(i, "play", trick + 1, order, [c.code for c in made], len(deal.legal_plays())))
    return out


def _state(rec: DealRecord, index: int) -> Deal:
    for i, deal in enumerate(replay_states(rec)):
        if i == index:
            return deal.copy()
    raise ValueError(f"the record has no state {index}")


def _objective(rec: DealRecord, seat: Seat, raw: tuple[int, int, int, int] | list[int]) -> float:
    weights = objective_weights(rec.options, seat)
    return sum(w * r for w, r in zip(weights, raw, strict=True))


# ---------------------------------------------------------------------- tasks (worker processes)


def _expert(budget: Budget, seed: int) -> ExpertPlayer:
    if budget.worlds is not None:
        return ExpertPlayer(seed=seed, iterations=budget.worlds)
    return ExpertPlayer(seed=seed, think=budget.think)


@dataclass(frozen=True)
class Weighed:
    """One decision weighed from what the seat could see (:func:`weigh`).

    ``alternatives``: each choice with its expected result, in the search's order; ``played``
    and ``best``: indexes into it; ``loss`` = best − played and ``loss_spread`` its standard
    error over the sampled worlds (the worlds are shared by every choice, so this is the spread
    of the difference); ``before``: the seat's expected result at the decision under standard
    play (the playout policy choosing for the seat too; the best choice's value for a
    declaration, which the playout policy never makes); ``skill`` = played − before, with its
    spread ``skill_spread``."""

    alternatives: list[tuple[list[Any], float]]
    played: int
    best: int
    loss: float
    loss_spread: float | None
    before: float
    skill: float
    skill_spread: float | None


def _mean_and_spread(xs: list[float]) -> tuple[float, float | None]:
    """The mean of ``xs`` and its standard error (None from fewer than two values)."""
    n = len(xs)
    mean = sum(xs) / n
    if n < 2:
        return mean, None
    variance = sum((x - mean) ** 2 for x in xs) / (n - 1)
    return mean, (variance / n) ** 0.5


def weigh(choices: list[list[Any]], worlds: list[list[float]], baseline: list[float] | None,
          made: list[Any]) -> Weighed:
    """A decision's :class:`Weighed` from each world's value of each choice (``worlds[w][i]``)
    and of standard play (``baseline[w]``; None: a declaration, weighed against its best
    choice).  ``made`` is the choice the seat made."""
    if not worlds:
        raise ValueError("a decision is weighed on one world or more")
    n = len(choices)
    means = [sum(row[i] for row in worlds) / len(worlds) for i in range(n)]
    played = next((i for i, c in enumerate(choices) if _same(c, made)), None)
    if played is None:  # cannot happen for a record the replay accepted
        raise ValueError(f"{made} is not among the choices {choices}")
    best = max(range(n), key=lambda i: means[i])
    loss, loss_spread = _mean_and_spread([row[best] - row[played] for row in worlds])
    if baseline is None:
        before, skill, skill_spread = means[best], -loss, loss_spread
    else:
        if len(baseline) != len(worlds):
            raise ValueError("standard play is valued in every world or in none")
        before = sum(baseline) / len(baseline)
        skill, skill_spread = _mean_and_spread([row[played] - b for row, b in zip(worlds, baseline, strict=True)])
    return Weighed(list(zip(choices, means, strict=True)), played, best, max(0.0, loss), loss_spread,
                   before, skill, skill_spread)


def _decision_task(record: Mapping[str, Any], seat: int, state: int, kind: str, made: list[Any], budget: Budget,
                   seed: int) -> Weighed:
    """One decision weighed from what the seat could see (:func:`weigh`)."""
    rec = parse_record(record)
    deal = _state(rec, state)
    obs = observe(deal, Seat(seat))
    expert = _expert(budget, seed)
    if kind == "expose":
        options, worlds = expert.evaluate_exposures_worlds(obs)
        return weigh([[[c.code, k] for c, k in chosen] for chosen in options], worlds, None, made)
    evaluation = expert.evaluate_worlds(obs)
    return weigh([[c.code for c in v.play] for v in evaluation.values], evaluation.worlds, evaluation.baseline,
                 made)


def _play_key(cards: Iterable[str]) -> str:
    """A play's key in the hindsight values: its card codes in card order, joined by ``+`` (one
    card: its code; a two-deck pair ``5H+5H``)."""
    return "+".join(sorted(cards, key=lambda code: parse_card(code).index))


def _hindsight_task(record: Mapping[str, Any], seat: int, states: list[int],
                    limit: int) -> dict[str, Any]:
    """Exact open-card values of every legal play at the seat's plays (latest first, so that
    the earlier, larger searches find the endings in the table), and the line of best play from
    the earliest position solved.  Two decks (:class:`~gongzhu.search.solver2.OpenSolver2`): the
    positions where no hand holds more than :data:`~gongzhu.search.solver2.FITS_CARDS` cards."""
    rec = parse_record(record)
    if rec.options.decks == 2:
        from gongzhu.search import fast2
        from gongzhu.search.solver2 import OpenSolver2, fits
        return _hindsight_along(rec, states, OpenSolver2(rec.options, Seat(seat)), fast2.encode, fits, limit)
    from gongzhu.search import fast
    from gongzhu.search.solver import OpenSolver
    return _hindsight_along(rec, states, OpenSolver(rec.options, Seat(seat)), fast.encode, lambda _pos: True, limit)


def _hindsight_along(rec: DealRecord, states: list[int], solver: Any, encode: Callable[[Deal], Any],
                     fits: Callable[[Any], bool], limit: int) -> dict[str, Any]:
    """:func:`_hindsight_task` with ``solver`` (one deck's or two decks', each with ``values`` and
    ``line`` of a position ``encode`` makes), for the positions it ``fits``, each within ``limit``
    positions searched.  A play is named by its cards' codes joined by ``+``."""
    def name(play: Card | Sequence[Card]) -> str:
        return play.code if isinstance(play, Card) else "+".join(c.code for c in play)

    wanted = set(states)
    positions: dict[int, Deal] = {i: d.copy() for i, d in enumerate(replay_states(rec)) if i in wanted}
    values: dict[int, dict[str, float]] = {}
    for i in sorted(states, reverse=True):
        pos = encode(positions[i])
        if not fits(pos):
            break  # earlier positions hold more cards still
        got = solver.values(pos, limit=limit)
        if got is None:
            break  # earlier positions are larger still
        values[i] = {name(p): v for p, v in got.items()}
    line: dict[str, Any] | None = None
    if values:
        first = min(values)
        deal = positions[first].copy()
        best = solver.line(encode(deal), limit=limit)
        if best is not None:
            plays = []
            for p in best:
                turn = deal.turn
                assert turn is not None
                plays.append({"trick": len(deal.tricks) + 1, "seat": SEATS[turn], "card": name(p)})
                deal.play(p, turn)
            line = {"from_trick": len(positions[first].tricks) + 1, "plays": plays, "raw": list(deal.score.raw)}
    return {"values": {str(k): v for k, v in values.items()}, "line": line}


def _played_by_experts(deal: Deal, worlds: int, seed: int) -> Deal:
    """The deal (as dealt, before any declaration) played to its end by four experts of
    ``worlds`` worlds per decision."""
    rng = random.Random(seed)
    players = [ExpertPlayer(seed=rng.getrandbits(63), iterations=worlds) for _ in Seat]
    for s in list(deal.undeclared):
        deal.declare(s, players[s].choose_exposures(observe(deal, s)))
    while (turn := deal.turn) is not None:
        deal.play(players[turn].choose_play(observe(deal, turn)), turn)
    return deal


def _par_task(record: Mapping[str, Any], seat: int, worlds: int, seed: int) -> float:
    """One duplicate replay of the deal's hands by four experts: the seat's result."""
    rec = parse_record(record)
    deal = _played_by_experts(next(replay_states(rec)).copy(), worlds, seed)
    return _objective(rec, Seat(seat), deal.score.raw)


def _board_task(seed: str, definition: Mapping[str, Any], commitment: str, number: int, seat: int, worlds: int,
                rng_seed: int) -> int:
    """One replay of a board by four experts: the seat's result (R7, as a match totals it)."""
    boards = verify_board_set(seed, definition, commitment)
    deal = _played_by_experts(boards.board(number).deal(boards.options), worlds, rng_seed)
    return deal.score.result[seat]


# ---------------------------------------------------------------------- putting it together


class _Inline(Executor):
    """Runs each task at once in this process (a review without worker processes)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        f: Future[Any] = Future()
        try:
            f.set_result(fn(*args, **kwargs))
        except BaseException as e:
            f.set_exception(e)
        return f


def _start_worker(niceness: int) -> None:
    """In a worker process: Ctrl-C is the parent's to handle; a lower priority if asked."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if niceness:
        with contextlib.suppress(OSError, AttributeError):
            os.nice(niceness)


class Reviewer:
    """Reviews deals on a pool of ``workers`` processes (``spawn``; started on first use and
    kept, their scheduling priority lowered by ``niceness``); ``workers=0`` reviews in the
    calling process, one task after another.  :meth:`close` may be called from another thread
    while a review runs: that review then raises :class:`concurrent.futures.CancelledError`.

    A pool that lost a worker process (killed, or out of memory) is broken for good: the
    reviewer shuts it down, starts a new pool and runs the review (or the board pars) that found
    it broken once more on the new one; a second break in a row is raised
    (:class:`concurrent.futures.process.BrokenProcessPool`), the pool renewed for the next use.
    ``restarts`` counts the pools renewed so, each logged."""

    def __init__(self, workers: int = 2, *, niceness: int = 0) -> None:
        if workers < 0:
            raise ValueError("workers cannot be negative")
        self.workers = workers
        self.niceness = niceness
        self._pool: Executor | None = None
        self._lock = threading.Lock()  # the reviews' thread, the challenges' and close() share the pool
        #: Pools renewed because a worker process of theirs died.
        self.restarts = 0

    def _new_pool(self) -> Executor:
        if self.workers == 0:
            return _Inline()
        return ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_start_worker, initargs=(self.niceness,))

    def _executor(self) -> Executor:
        with self._lock:
            if self._pool is None:
                self._pool = self._new_pool()
            return self._pool

    def _renew(self, broken: Executor, error: BrokenProcessPool) -> Executor | None:
        """``broken`` lost a worker process: put a new pool in its place (once, whichever thread
        finds it broken first) and shut it down.  The pool to use now; None when the reviewer was
        closed meanwhile."""
        with self._lock:
            replaced = self._pool is broken
            if replaced:
                self._pool = self._new_pool()
                self.restarts += 1
            current = self._pool
        if replaced:
            log.warning("a worker process of the reviews died (%s): its pool is shut down and %d new worker "
                        "processes take its place", error, self.workers)
            broken.shutdown(wait=False, cancel_futures=True)
        return current

    def _on_workers(self, what: str, job: Callable[[Executor], _T]) -> _T:
        """``job`` on the worker processes; run once more on a new pool when the pool breaks
        under it (``what`` names it in the log)."""
        pool = self._executor()
        try:
            return job(pool)
        except BrokenProcessPool as e:
            again = self._renew(pool, e)
            if again is None:  # closed meanwhile: nothing is retried
                raise
            log.warning("%s is run again on the new worker processes", what)
        try:
            return job(again)
        except BrokenProcessPool as e:
            self._renew(again, e)  # for the next use; this one fails
            raise

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def review(self, record: Mapping[str, Any] | DealRecord, seat: Seat, *, budget: Budget = DEFAULT_BUDGET,
               seed: int = 0, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
        return self._on_workers("a deal review", lambda pool: review_record(
            record, seat, budget=budget, seed=seed, progress=progress, executor=pool))

    def board_pars(self, seed: str, definition: Mapping[str, Any], commitment: str, seat: Seat, *,
                   replays: int = 4, worlds: int = 16, rng_seed: int = 0) -> list[float | None]:
        """:func:`board_pars` on this reviewer's worker processes."""
        return self._on_workers("the pars of a board set", lambda pool: board_pars(
            seed, definition, commitment, seat, replays=replays, worlds=worlds, rng_seed=rng_seed, executor=pool))


def board_pars(seed: str, definition: Mapping[str, Any], commitment: str, seat: Seat, *, replays: int = 4,
               worlds: int = 16, rng_seed: int = 0, executor: Executor | None = None) -> list[float | None]:
    """The par of each board of a board set (R8.1): the mean result of ``seat`` over ``replays``
    replays of the board by four experts, the same players whose moves the review's par replays
    (None for a board with no replay).  ``executor`` runs the replays (default: in this process)."""
    search.require("the par of a board")
    count = int(verify_board_set(seed, definition, commitment).definition["count"])
    first = int(definition.get("first", 1))
    pool = executor if executor is not None else _Inline()
    rng = random.Random(rng_seed)
    tasks = {pool.submit(_board_task, seed, dict(definition), commitment, first + k, int(seat), worlds,
                         rng.getrandbits(63)): k
             for k in range(count) for _ in range(replays)}
    results: list[list[int]] = [[] for _ in range(count)]
    for f in _completed(tasks):
        results[tasks[f]].append(f.result())
    return [round(sum(r) / len(r), 1) if r else None for r in results]


def _record_object(record: Mapping[str, Any] | DealRecord) -> tuple[DealRecord, dict[str, Any]]:
    if isinstance(record, DealRecord):
        deal = replay(record)
        board = record.board
        return record, deal_to_record(deal, match_id=record.match, preset=record.preset,
                                      board=board.number if board is not None else None,
                                      event=board.event if board is not None else None)
    return parse_record(record), dict(record)


def review_record(record: Mapping[str, Any] | DealRecord, seat: Seat, *, budget: Budget = DEFAULT_BUDGET,
                  seed: int = 0, progress: Callable[[int, int], None] | None = None,
                  executor: Executor | None = None) -> dict[str, Any]:
    """The review of ``seat``'s decisions in a finished deal's record (R11); see the module
    docstring.  The record is re-checked by replaying it (a :class:`RecordError` if it does not
    hold).  ``progress(done, total)`` is called as tasks finish; ``executor`` runs the tasks
    (default: in this process)."""
    search.require("a deal review")
    rec, obj = _record_object(record)
    steps = _steps(rec, seat)
    pool = executor if executor is not None else _Inline()
    rng = random.Random(seed)
    tasks: dict[Future[Any], tuple[str, int]] = {}
    for k, step in enumerate(steps):
        if step.choices > 1:
            f = pool.submit(_decision_task, obj, int(seat), step.state, step.kind, step.made, budget,
                            rng.getrandbits(63))
            tasks[f] = ("decision", k)
    plays = [s.state for s in steps if s.kind == "play"]
    if plays:
        tasks[pool.submit(_hindsight_task, obj, int(seat), plays, budget.exact_limit)] = ("hindsight", 0)
    for r in range(budget.par_replays):
        tasks[pool.submit(_par_task, obj, int(seat), budget.par_worlds, rng.getrandbits(63))] = ("par", r)
    total = len(tasks)
    if progress is not None:
        progress(0, total)
    evaluated: dict[int, Weighed] = {}
    hindsight: dict[str, Any] = {"values": {}, "line": None}
    pars: dict[int, float] = {}
    for done, f in enumerate(_completed(tasks), start=1):
        what, k = tasks[f]
        result: Any = f.result()
        if what == "decision":
            evaluated[k] = result
        elif what == "hindsight":
            hindsight = result
        else:
            pars[k] = result
        if progress is not None:
            progress(done, total)
    return _assemble(rec, seat, steps, evaluated, hindsight, [pars[r] for r in sorted(pars)], budget)


def _completed(tasks: Mapping[Future[Any], Any]) -> Iterator[Future[Any]]:
    """The tasks as they finish; :class:`CancelledError` as soon as one is cancelled (the pool
    was shut down under the review), which :func:`as_completed` would wait for forever."""
    pending = set(tasks)
    while pending:
        done, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
        yield from done
        if any(f.cancelled() for f in pending):
            raise CancelledError("the review's worker processes were shut down")


def _trick_deltas(rec: DealRecord, seat: Seat) -> list[float]:
    """The change in the seat's objective (R6 raw scores of the cards taken so far) made by
    each trick."""
    taken: list[list[Card]] = [[], [], [], []]
    dealt = [list(h) for h in rec.hands]
    before = 0.0
    out = []
    for trick in rec.tricks:
        taken[trick.taker].extend(c for _, p in trick.plays for c in p if is_point_card(c))
        now = _objective(rec, seat, raw_scores(rec.options, taken, rec.exposures, dealt)[0])
        out.append(now - before)
        before = now
    return out


def _assemble(rec: DealRecord, seat: Seat, steps: list[_Step], evaluated: dict[int, Weighed],
              hindsight: dict[str, Any], pars: list[float], budget: Budget) -> dict[str, Any]:
    exact: dict[str, dict[str, float]] = hindsight["values"]
    result = _objective(rec, seat, rec.raw)
    decisions: list[dict[str, Any]] = []
    graph: list[dict[str, Any]] = []
    # Luck and skill along the deal (docs/review.md): the seat's expected result moves at its own
    # decisions (skill: the choice made against standard play) and between them (luck: the deal,
    # then what the others played and what it showed); the parts add up to the result.
    # Shown to one decimal, every part is the difference of two rounded running values, so that
    # what the page adds up (luck + skill, the parts along the graph) is exactly what it shows.
    after: float | None = None  # the expected result after the seat's last weighed decision
    skill = 0.0
    shown_after = shown_skill = 0.0  # the same, rounded, as the graph shows them
    deal_luck: float | None = None
    for k, step in enumerate(steps):
        d: dict[str, Any] = {"index": k, "kind": step.kind, "trick": step.trick, "order": step.order,
                             "cards": step.made, "forced": step.choices <= 1}
        w = evaluated.get(k)
        if w is None:
            d.update(best=step.made, expected=None, best_expected=None, before=None, loss=0.0, loss_spread=None,
                     mark=None, uncertain=False, skill=None, skill_spread=None, luck=None, alternatives=[])
        else:
            skill += w.skill
            after = w.before + w.skill
            step_skill = round(round(skill, 1) - shown_skill, 1)
            step_luck = round(round(after, 1) - shown_after - step_skill, 1)
            before = round(shown_after + step_luck, 1)
            if deal_luck is None:
                deal_luck = step_luck
            shown_after, shown_skill = round(after, 1), round(skill, 1)
            loss = round(w.loss, 1)
            spread = None if w.loss_spread is None else round(w.loss_spread, 1)
            mark = mark_for(loss)
            d.update(best=w.alternatives[w.best][0], expected=round(w.alternatives[w.played][1], 1),
                     best_expected=round(w.alternatives[w.best][1], 1), before=before,
                     loss=loss, loss_spread=spread, mark=mark,
                     uncertain=mark is not None and (spread is None or loss - 1.96 * spread < MARKS[-1][1]),
                     skill=step_skill,
                     skill_spread=None if w.skill_spread is None else round(w.skill_spread, 1),
                     luck=step_luck,
                     alternatives=[{"cards": c, "expected": round(v, 1),
                                    "exact": _exact_of(exact.get(str(step.state)), c)}
                                   for c, v in sorted(w.alternatives, key=lambda a: -a[1])])
            graph.append({"decision": k, "trick": step.trick or 0, "before": before, "expected": shown_after,
                          "luck": round(shown_after - shown_skill, 1), "skill": shown_skill})
        exact_here = exact.get(str(step.state))
        if step.kind == "play" and exact_here is not None:
            best_exact = max(exact_here.values())
            played_exact = exact_here[_play_key(step.made)]
            d.update(exact=round(played_exact, 1), exact_best=round(best_exact, 1),
                     exact_loss=round(best_exact - played_exact, 1),
                     hindsight_differs=w is not None and exact_here.get(_play_key(d["best"]), best_exact) < best_exact)
        else:
            d.update(exact=None, exact_best=None, exact_loss=None, hindsight_differs=False)
        decisions.append(d)
    luck = round(round(result, 1) - shown_skill, 1)
    if deal_luck is None:  # no decision weighed: the deal was all
        deal_luck = luck
    graph.append({"decision": None, "trick": len(rec.tricks), "before": None, "expected": round(result, 1),
                  "luck": luck, "skill": shown_skill})
    loss_total = sum(d["loss"] for d in decisions)
    par = sum(pars) / len(pars) if pars else None
    deltas = _trick_deltas(rec, seat)
    solved = [s for s in steps if str(s.state) in exact]
    return {
        "format": REVIEW_FORMAT,
        "match": rec.match,
        "deal_index": rec.deal_index,
        "seat": SEATS[seat],
        "scoring": "partners" if rec.options.partnership else "individual",
        "thresholds": {mark: threshold for mark, threshold in MARKS},
        "budget": asdict(budget),
        "result": round(result, 1),
        "par": None if par is None else round(par, 1),
        "par_replays": len(pars),
        "loss": round(loss_total, 1),
        "luck": luck,
        "skill": shown_skill,
        "luck_parts": {"deal": deal_luck, "play": round(luck - deal_luck, 1)},
        "decisions": decisions,
        "graph": graph,
        "tricks": [round(x, 1) for x in deltas],
        "moments": _moments(rec, seat, decisions, deltas),
        "hindsight": {
            "solver": "paranoid" if not rec.options.partnership else "two teams",
            "meaning": "two_teams" if rec.options.partnership else "worst_case",
            "from_trick": min((s.trick for s in solved if s.trick is not None), default=None),
            "line": hindsight["line"],
        },
    }


def _same(a: list[Any], b: list[Any]) -> bool:
    return sorted(map(str, a)) == sorted(map(str, b))


def _exact_of(exact_here: dict[str, float] | None, cards: list[Any]) -> float | None:
    if exact_here is None or not cards or not all(isinstance(c, str) for c in cards):
        return None
    v = exact_here.get(_play_key(cards))
    return None if v is None else round(v, 1)


def _moments(rec: DealRecord, seat: Seat, decisions: list[dict[str, Any]], deltas: list[float]) -> list[dict[str, Any]]:
    """The three costliest moments: decisions that lost something, costliest first, each with
    the trick at or after it where the seat's objective fell most (where the points landed), if
    any did.  Each moment is named once: a decision whose points landed in a trick that a
    costlier one already names is part of that moment, not another."""
    out: list[dict[str, Any]] = []
    named: set[int] = set()
    for d in sorted((d for d in decisions if d["loss"] > 0), key=lambda d: (-d["loss"], d["index"])):
        start = (d["trick"] or 1) - 1
        landed = None
        worst = min(range(start, len(deltas)), key=lambda t: deltas[t], default=None)
        if worst is not None and deltas[worst] < 0:
            if worst in named:
                continue
            named.add(worst)
            trick = rec.tricks[worst]
            points = [c.code for _, p in trick.plays for c in p if is_point_card(c)]
            landed = {"trick": worst + 1, "cards": points, "taker": SEATS[trick.taker],
                      "change": round(deltas[worst], 1)}
        out.append({"decision": d["index"], "trick": d["trick"], "kind": d["kind"], "cards": d["cards"],
                    "best": d["best"], "loss": d["loss"], "mark": d["mark"], "landed": landed})
        if len(out) == 3:
            break
    return out
