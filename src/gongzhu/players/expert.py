"""The expert: determinized Monte-Carlo search over the hidden cards.

For each decision the expert draws worlds consistent with everything public
(:mod:`gongzhu.players.sampling`, what the worlds share worked out once a decision), plays every
candidate out in each world with the heuristic playout policy in C (:mod:`gongzhu.search.fast`,
:mod:`gongzhu.search.fast2`) and takes the best mean result (R6, R7); exposures are chosen the
same way.  ``endgame=k`` solves each world's last tricks exactly and ``weighting=network`` weighs
the worlds by the learned network; both are off by default.  :class:`FlatMonteCarloPlayer` is the
plain baseline.  This module imports the rules core, the search and the players' sampling,
observation and intermediate player.  The search and its variants: docs/players.md, The expert.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations, product
from typing import TYPE_CHECKING

from gongzhu import search
from gongzhu.players.base import Player
from gongzhu.players.intermediate import IntermediatePlayer
from gongzhu.players.observation import Observation
from gongzhu.players.sampling import NoWorldError, World, WorldSampler
from gongzhu.rules.cards import EXPOSABLE, Card, Seat, hand_masks, mask_of
from gongzhu.rules.legal import SeatView, offends
from gongzhu.rules.model import Exposure, Play
from gongzhu.rules.options import Options
from gongzhu.search import POLICY_HEURISTIC, POLICY_UNIFORM, require

if search.AVAILABLE:
    from gongzhu.search import fast, fast2
    from gongzhu.search.solver import OpenSolver
if TYPE_CHECKING:  # numpy is loaded only by an expert that weighs its worlds
    from gongzhu.players.network import Network
    from gongzhu.players.weighting import PlayLikelihood

__all__ = [
    "DEFAULT_THINK", "ENDGAME_LIMIT", "Evaluation", "ExpertPlayer", "FlatMonteCarloPlayer", "PlayValue",
    "objective_weights",
]

#: Worlds weighed together (``weighting``): one pass of the network for all of them.
_WEIGHING_BATCH = 16
#: The first batch of a decision, smaller, to measure early what weighing a world costs.
_FIRST_WEIGHING_BATCH = 4
#: Default think time per decision, seconds.
DEFAULT_THINK = 0.3
#: Playouts per candidate and world (in C).
_PLAYOUTS_PER_WORLD = 24
#: Positions the open-card solver may search in one world (``endgame``) before the world is
#: played out instead: about 20 ms; at four tricks left a world takes about 3,000.
ENDGAME_LIMIT = 200_000
#: Transposition table of the endgame solver: 2**16 entries (4 MiB), kept for the player's
#: seat and rules, shared by the worlds and the decisions of a deal.
_ENDGAME_TABLE_BITS = 16


def objective_weights(options: Options, seat: Seat) -> tuple[float, float, float, float]:
    """The seat's deal result as a linear function of the four raw scores (R7): its own raw
    minus the others' mean (zero-sum, also used for 猪羊一家 and raw scoring, where the match is
    won on the highest total), or its team's margin under ``partners``."""
    if options.partnership:
        return tuple(0.5 if (s - seat) % 2 == 0 else -0.5 for s in range(4))  # type: ignore[return-value]
    return tuple(1.0 if s == seat else -1 / 3 for s in range(4))  # type: ignore[return-value]


@dataclass(frozen=True)
class PlayValue:
    """A candidate play with its expected result (raw-score units of the objective) and the
    number of continuations behind the estimate: playouts, and worlds solved exactly
    (``endgame``) counting one each."""

    play: Play
    value: float
    samples: int


@dataclass(frozen=True)
class Evaluation:
    """A decision's search in full (:meth:`ExpertPlayer.evaluate_worlds`): ``values`` as
    :meth:`~ExpertPlayer.evaluate` gives them; ``worlds[w][i]``, world ``w``'s value of the
    ``i``-th play; ``baseline[w]``, world ``w``'s value of the position when the playout policy
    chooses for the seat as well."""

    values: list[PlayValue]
    worlds: list[list[float]]
    baseline: list[float]


class ExpertPlayer(Player):
    """Determinized Monte-Carlo search (see the module docstring).

    ``think`` is the time budget per decision (default :data:`DEFAULT_THINK`); ``iterations``
    a fixed number of worlds per decision instead, which makes the player reproducible from
    ``seed``.  ``endgame``: solve each world exactly once at most this many tricks are left,
    the current one included (one deck only; 0, the default, never)."""

    level = "expert"
    infer = True  # respect voids and hidden exposures when sampling worlds
    policy = POLICY_HEURISTIC

    def __init__(self, seed: int | None = None, think: float | None = None, iterations: int | None = None,
                 *, endgame: int = 0, weighting: Network | None = None, temper: float = 0.5) -> None:
        require(f"the {self.level} player")
        if endgame < 0:
            raise ValueError(f"endgame must be 0 (off) or a number of tricks, not {endgame}")
        self.seed = seed
        self.rng = random.Random(seed)
        self.think = DEFAULT_THINK if think is None and iterations is None else think
        self.iterations = iterations
        self.endgame = endgame
        self.weighting = weighting
        if not 0.0 <= temper <= 1.0:
            raise ValueError(f"temper must be between 0 and 1, not {temper}")
        self.temper = temper
        self._solver: OpenSolver | None = None
        # Only for an observation no world fits (a self-contradictory bot request): the rules.
        self._fallback = IntermediatePlayer(seed)

    # ------------------------------------------------------------------ budget

    def _budget(self) -> tuple[float | None, int | None]:
        deadline = time.perf_counter() + self.think if self.think is not None else None
        return deadline, self.iterations

    @staticmethod
    def _more(done: int, deadline: float | None, limit: int | None) -> bool:
        if limit is not None and done >= limit:
            return False
        return deadline is None or done == 0 or time.perf_counter() < deadline

    # ------------------------------------------------------------------ worlds

    def _worlds(self, obs: Observation) -> Callable[[], World]:
        """Draws the decision's worlds, one a call, from the player's generator."""
        if self.infer:
            sampler = WorldSampler(obs)
            return lambda: sampler.sample(self.rng)
        return lambda: _uniform_world(obs, self.rng)

    # ------------------------------------------------------------------ playing

    def choose_play(self, obs: Observation) -> Play:
        plays = obs.legal_plays()
        if not plays:
            raise ValueError(f"{obs.seat.english} has no legal play: it is not their turn")
        if len(plays) == 1:
            return plays[0]
        try:
            ranked = self.evaluate(obs)
        except NoWorldError:
            return self._fallback.choose_play(obs)
        best = max(v.value for v in ranked)
        return next(v.play for v in ranked if v.value == best)

    def evaluate(self, obs: Observation) -> list[PlayValue]:
        """Every legal play with its expected result, in the order of ``obs.legal_plays()``:
        the mean over the sampled worlds of its value in each (the mean of its playouts, or
        its exact value where the world is solved, ``endgame``)."""
        return self._evaluate(obs, None)

    def evaluate_worlds(self, obs: Observation) -> Evaluation:
        """:meth:`evaluate` with what lies behind the means: each world's value of each legal
        play, and each world's value of the position itself when the playout policy makes the
        seat's choice too (the same continuations: the seat's expected result under standard
        play, against which the deal review measures a choice)."""
        worlds: list[list[float]] = []
        baseline: list[float] = []
        values = self._evaluate(obs, (worlds, baseline))
        return Evaluation(values, worlds, baseline)

    def _evaluate(self, obs: Observation, keep: tuple[list[list[float]], list[float]] | None) -> list[PlayValue]:
        if keep is not None and self.weighting is not None:
            raise ValueError("the values of single worlds are kept for an unweighted search only")
        plays = list(obs.legal_plays())
        weights = objective_weights(obs.options, obs.seat)
        solver = self._endgame_solver(obs)
        deadline, limit = self._budget()
        likelihood = None
        if self.weighting is not None:
            from gongzhu.players.weighting import PlayLikelihood

            likelihood = PlayLikelihood(self.weighting, obs, temper=self.temper)
        draw = self._worlds(obs)
        positions = _Positions(obs)
        per_world: list[list[float]] = []
        log_weights: list[float] = []
        waiting: list[World] = []  # worlds whose likelihood is still to be computed, in a batch
        weighing = _Weighing()
        samples = 0
        done = 0
        # With a think budget the worlds still to be weighed are paid for inside it: sampling
        # stops when what they will cost (at the rate measured so far) would run past it.
        while self._more(done, weighing.stop_by(deadline, len(waiting)), limit):
            world = draw()
            seed = self.rng.getrandbits(63)
            pos = positions.of(world)
            exact = None
            if solver is not None and isinstance(pos, fast.FastPosition):
                exact = solver.values(pos, limit=ENDGAME_LIMIT)
            if exact is not None and all(p[0] in exact for p in plays):
                per_world.append([float(exact[p[0]]) for p in plays])
                samples += 1
                if keep is not None:
                    keep[1].append(max(per_world[-1]))  # solved: standard play is best play
            else:
                values = []
                for p in plays:
                    after = pos.play(p[0]) if isinstance(pos, fast.FastPosition) else pos.play(p)
                    # Common random numbers: every candidate meets the same continuations.
                    sums = after.playout_sums(_PLAYOUTS_PER_WORLD, seed, policy=self.policy)
                    values.append(sum(w * s for w, s in zip(weights, sums, strict=True)) / _PLAYOUTS_PER_WORLD)
                per_world.append(values)
                samples += _PLAYOUTS_PER_WORLD
                if keep is not None:
                    sums = pos.playout_sums(_PLAYOUTS_PER_WORLD, seed, policy=self.policy)
                    keep[1].append(sum(w * s for w, s in zip(weights, sums, strict=True)) / _PLAYOUTS_PER_WORLD)
            if likelihood is not None:
                waiting.append(world)
                # A small first batch measures the rate early.
                if len(waiting) == (_WEIGHING_BATCH if weighing.worlds else _FIRST_WEIGHING_BATCH):
                    log_weights += weighing.weigh(likelihood, waiting)
                    waiting = []
            done += 1
        if likelihood is not None:
            log_weights += weighing.weigh(likelihood, waiting)
        means = _weighted_means(per_world, log_weights, len(plays))
        if keep is not None:
            keep[0].extend(per_world)
        return [PlayValue(p, means[i], samples) for i, p in enumerate(plays)]

    def _endgame_solver(self, obs: Observation) -> OpenSolver | None:
        """The open-card solver when this decision is to be solved exactly (``endgame``: one
        deck, at most that many tricks left, the current one included), else None.  Its table
        is kept while the seat and the rules stay the same."""
        if not self.endgame or obs.options.decks != 1 or len(obs.hand) > self.endgame:
            return None
        solver = self._solver
        if solver is None or solver.seat != obs.seat or solver.options != obs.options:
            solver = self._solver = OpenSolver(obs.options, obs.seat, table_bits=_ENDGAME_TABLE_BITS)
        return solver

    # ------------------------------------------------------------------ exposing (R4)

    def choose_exposures(self, obs: Observation) -> list[tuple[Card, str]]:
        options = exposure_options(obs)
        if len(options) == 1:
            return options[0]
        try:
            return self._choose_exposures(obs, options)
        except NoWorldError:
            return self._fallback.choose_exposures(obs)

    def _choose_exposures(self, obs: Observation, options: list[list[tuple[Card, str]]]) -> list[tuple[Card, str]]:
        values = self._exposure_values(obs, options)
        return options[values.index(max(values))]

    def evaluate_exposures(self, obs: Observation) -> list[tuple[list[tuple[Card, str]], float]]:
        """Every declaration the seat may make (each allowed set of exposures, R4.4) with its
        expected result, in the order of the seat's exposable cards."""
        options = exposure_options(obs)
        return list(zip(options, self._exposure_values(obs, options), strict=True))

    def evaluate_exposures_worlds(self, obs: Observation) -> tuple[list[list[tuple[Card, str]]], list[list[float]]]:
        """:meth:`evaluate_exposures` as each world's value of each declaration."""
        options = exposure_options(obs)
        worlds: list[list[float]] = []
        self._exposure_values(obs, options, worlds)
        return options, worlds

    def _exposure_values(self, obs: Observation, options: list[list[tuple[Card, str]]],
                         keep: list[list[float]] | None = None) -> list[float]:
        weights = objective_weights(obs.options, obs.seat)
        totals = [0.0] * len(options)
        counts = [0] * len(options)
        deadline, limit = self._budget()
        done = 0
        draw = self._worlds(obs)
        while self._more(done, deadline, limit):
            world = draw()
            seed = self.rng.getrandbits(63)
            leader = _first_leader(obs, world, self.rng)
            row = []
            for i, chosen in enumerate(options):
                exposures = [*world.exposures, *(Exposure(obs.seat, c, k) for c, k in chosen)]
                pos = _start_position(obs, world, exposures, leader)
                sums = pos.playout_sums(_PLAYOUTS_PER_WORLD, seed, policy=self.policy)
                value = sum(w * s for w, s in zip(weights, sums, strict=True))
                totals[i] += value
                counts[i] += _PLAYOUTS_PER_WORLD
                row.append(value / _PLAYOUTS_PER_WORLD)
            if keep is not None:
                keep.append(row)
            done += 1
        return [totals[i] / counts[i] for i in range(len(options))]

    def __repr__(self) -> str:
        extra = f", endgame={self.endgame!r}" if self.endgame else ""
        return (f"{type(self).__name__}(seed={self.seed!r}, think={self.think!r}, "
                f"iterations={self.iterations!r}{extra})")


class FlatMonteCarloPlayer(ExpertPlayer):
    """The plain baseline: no inference when dealing the hidden cards, uniformly random
    playouts."""

    level = "flatmc"
    infer = False
    policy = POLICY_UNIFORM


# ---------------------------------------------------------------------- helpers


class _Weighing:
    """What weighing worlds has cost so far in one decision, to keep the last batch inside the
    think budget."""

    __slots__ = ("seconds", "worlds")

    def __init__(self) -> None:
        self.seconds = 0.0
        self.worlds = 0

    def weigh(self, likelihood: PlayLikelihood, worlds: list[World]) -> list[float]:
        start = time.perf_counter()
        out = likelihood.log_weights(worlds)
        self.seconds += time.perf_counter() - start
        self.worlds += len(worlds)
        return out

    def stop_by(self, deadline: float | None, waiting: int) -> float | None:
        """When sampling has to stop for ``waiting`` unweighed worlds to be weighed by ``deadline``."""
        if deadline is None or not self.worlds or not waiting:
            return deadline
        return deadline - waiting * self.seconds / self.worlds


def _weighted_means(per_world: list[list[float]], log_weights: list[float], n: int) -> list[float]:
    """Each candidate's mean value over the worlds: plain, or weighted by the worlds' likelihood
    (``log_weights``, :class:`~gongzhu.players.weighting.PlayLikelihood`)."""
    if not per_world:
        return [0.0] * n
    if not log_weights:
        return [sum(v[i] for v in per_world) / len(per_world) for i in range(n)]
    top = max(log_weights)
    w = [math.exp(x - top) for x in log_weights]
    total = sum(w)
    return [sum(wk * v[i] for wk, v in zip(w, per_world, strict=True)) / total for i in range(n)]


def _uniform_world(obs: Observation, rng: random.Random) -> World:
    """Hidden cards dealt uniformly, respecting only hand sizes and visible exposures."""
    others = [s for s in Seat if s != obs.seat]
    hands: dict[Seat, Counter[Card]] = {s: Counter() for s in others}
    room = {s: obs.cards_left(s) for s in others}
    pool = obs.unseen()
    for s, known in obs.known_holdings().items():
        hands[s] += known
        room[s] -= sum(known.values())
        pool -= known
    deck = list(pool.elements())
    rng.shuffle(deck)
    exposures = list(obs.exposures)
    at = 0
    for s in others:
        for c in deck[at:at + room[s]]:
            hands[s][c] += 1
        at += room[s]
        # Hidden exposures: any of the exposable cards it was dealt.
        mine = [c for c in hands[s].elements() if c in EXPOSABLE]
        exposures += [Exposure(s, c, "hidden") for c in mine[:obs.hidden_counts[s]]]
    hands[obs.seat] = Counter(obs.hand)
    return World(hands, tuple(exposures))


def _played_by(obs: Observation) -> dict[Seat, list[Card]]:
    out: dict[Seat, list[Card]] = {s: [] for s in Seat}
    for s, c in obs.played():
        out[s].append(c)
    return out


def _penalty_offender(obs: Observation, world: World) -> int:
    """Under ``discard_color=penalty``, who in the trick in progress has made the first offence
    (R5.2), judged as the rules judge it against what the world says each seat held then — except
    that R4.3's hold on exposed cards is left out of that judgement (a rare case: exposed cards,
    a discard and the penalty rule in one trick)."""
    if not obs.options.discard_penalty or not obs.trick:
        return -1
    plays = [(int(s), tuple(c.index for c in p)) for s, p in obs.trick]
    led = plays[0][1][0] // 13
    for i, (s, play) in enumerate(plays[1:], 1):
        if all(c // 13 == led for c in play):
            continue
        h1, h2 = hand_masks([*world.hands[Seat(s)].elements(), *obs.trick[i][1]])
        view = SeatView(obs.options, h1, h2, 0, 0, tuple(plays[:i]), obs.suits_led_mask(), False)
        if offends(view, play):
            return s
    return -1


class _Positions:
    """The C positions of one observation's worlds in the play phase: what every world shares
    (the trick, who leads and plays, the points taken, the cards each seat has played, the
    seat's own exposed cards bound by R4.3) is worked out once."""

    __slots__ = ("captured", "leader", "led", "obs", "own_bound", "played", "plays", "suits_led", "trick", "turn")

    def __init__(self, obs: Observation) -> None:
        self.obs = obs
        self.turn = int(obs.turn) if obs.turn is not None else int(obs.seat)
        self.leader = int(obs.trick[0][0]) if obs.trick else self.turn
        self.captured = [obs.captured(s) for s in Seat]
        self.played = _played_by(obs)
        self.suits_led = obs.suits_led_mask()
        self.own_bound = mask_of(obs.restricted_in_hand())
        self.plays = [p for _, p in obs.trick]
        self.trick = [c.index for p in self.plays for c in p]
        self.led = obs.trick[0][1][0].suit if obs.trick else -1

    def of(self, world: World) -> fast.FastPosition | fast2.FastPosition2:
        """The world's position."""
        obs = self.obs
        if obs.options.decks == 2:
            return fast2.encode_parts(
                obs.options,
                hands=[list(world.hands[s].elements()) for s in Seat],
                bound=[obs.bound_in_hand(s, world.hands[s].elements()) for s in Seat],
                captured=self.captured,
                exposures=world.exposures,
                trick=self.plays,
                leader=self.leader,
                turn=self.turn,
                offender=_penalty_offender(obs, world),
                suits_led=self.suits_led,
                must_lead_c2=obs.must_lead_c2,
            )
        hands = [list(world.hands[s].elements()) for s in Seat]  # positive counts only
        # Exposed cards bound by R4.3 still in each hand.
        restricted = [0, 0, 0, 0]
        restricted[obs.seat] = self.own_bound
        for e in world.exposures:
            if e.seat != obs.seat and e.kind in ("shown", "auto") and world.hands[e.seat][e.card] > 0:
                restricted[e.seat] |= 1 << e.card.index
        return fast.encode_parts(
            obs.options,
            hands=[mask_of(h) for h in hands],
            restricted=restricted,
            captured=self.captured,
            exposures=world.exposures,
            dealt=[[*hands[s], *self.played[s]] for s in Seat],
            trick=self.trick,
            leader=self.leader,
            turn=self.turn,
            led=self.led,
            offender=_penalty_offender(obs, world),
            suits_led=self.suits_led,
            must_lead_c2=obs.must_lead_c2,
        )


def exposure_options(obs: Observation) -> list[list[tuple[Card, str]]]:
    """Every declaration the seat may make: each subset of its exposable cards, each card in
    each allowed kind, at most one 首明 (R4.4)."""
    cards = obs.exposable()
    out: list[list[tuple[Card, str]]] = []
    for k in range(len(cards) + 1):
        for subset in sorted(set(combinations(cards, k)), key=lambda t: [c.index for c in t]):
            for kinds in product(*(obs.exposure_kinds(c) for c in subset)):
                if list(kinds).count("first") <= 1:
                    out.append(list(zip(subset, kinds, strict=True)))
    return out


def _first_leader(obs: Observation, world: World, rng: random.Random) -> int:
    """Who leads the first trick of the world (R5.1): in a later deal the previous deal's pig
    taker (the first receiver); else the holder of ♣2 (♠3 under ``spade3_any``) — with two decks
    whoever received the first copy, unknown when two seats hold one: drawn at random."""
    if obs.led_by_pig_taker:
        return int(obs.first_receiver)
    target = obs.options.first_lead_card
    holders = [int(s) for s in Seat if world.hands[s][target] > 0]
    return holders[0] if len(holders) == 1 else rng.choice(holders)


def _start_position(obs: Observation, world: World, exposures: list[Exposure],
                    leader: int) -> fast.FastPosition | fast2.FastPosition2:
    """The C position at the first lead of the deal, with these exposures."""
    options = obs.options
    must = not obs.led_by_pig_taker and options.must_lead_club2
    if options.decks == 2:
        bound: list[list[Card]] = [[], [], [], []]
        for e in exposures:
            if Options.restricted_kind(e.kind):
                bound[e.seat].append(e.card)
        return fast2.encode_parts(
            options,
            hands=[list(world.hands[s].elements()) for s in Seat],
            bound=bound,
            captured=[[], [], [], []],
            exposures=exposures,
            leader=leader,
            turn=leader,
            must_lead_c2=must,
        )
    restricted = [0, 0, 0, 0]
    for e in exposures:
        if Options.restricted_kind(e.kind):
            restricted[e.seat] |= 1 << e.card.index
    exposed = {e.card for e in exposures}
    if options.auto_fourth_applies and len(exposed) == 3:  # 逼明 (R4.4)
        (fourth,) = set(EXPOSABLE) - exposed
        holder = next(s for s in Seat if world.hands[s][fourth] > 0)
        exposures = [*exposures, Exposure(holder, fourth, "auto")]
        restricted[holder] |= 1 << fourth.index
    return fast.encode_parts(
        options,
        hands=[mask_of(world.hands[s].elements()) for s in Seat],
        restricted=restricted,
        captured=[[], [], [], []],
        exposures=exposures,
        dealt=[list(world.hands[s].elements()) for s in Seat],
        leader=leader,
        turn=leader,
        must_lead_c2=must,
    )
