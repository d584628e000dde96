"""Challenges: robot duplicate (docs/tournaments.md).

A challenge is a set of boards (:mod:`gongzhu.rules.boards`) that every entrant plays in the same
seat (South) against the same computer players (three experts), each in a single-player match of
their own whose deals are the boards, in board order.  Each day the server opens the day's
challenge (``daily-YYYY-MM-DD``, made by the first request that asks for it, on any server); a
person may open a private one on demand and share its address.  An account enters once; a guest
may play, is compared with the field, and is not ranked.

What nobody sees before finishing a board: its hands, its records, its results and its review.
An entrant's own match shows them their hands as any match does; the board's results (the
traveller), the four hands and the other entrants' records open to a person once they have
finished that board, and to everyone once the challenge has closed, when its seed is published so
that anyone can check the boards against the commitment published when it opened
(``gongzhu boards verify``).  The results that count are those finished before it closed.

Boards are compared board by board (:mod:`gongzhu.duplicate.scoring`): matchpoints and the 拱猪
scale, against the field of ranked entrants; beside them the computers' own result on each board
(the par: the mean result of South over replays of the board by four experts,
:func:`gongzhu.review.board_par`), computed in the background once the challenge is made.

Imports the store, the rules core, :mod:`gongzhu.duplicate`, :mod:`gongzhu.review` (for the
par, on first use) and the message catalog.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from gongzhu.duplicate.scoring import score_board, standings
from gongzhu.jsontext import show
from gongzhu.messages import Text
from gongzhu.ratings import family_of, placed_last
from gongzhu.rules.boards import Board, make_board_set, verify_board_set
from gongzhu.rules.cards import Seat
from gongzhu.rules.options import PRESETS, Options, resolve_options
from gongzhu.server.store import MatchInfo, Rated, Store, is_event

__all__ = [
    "BOARDS",
    "DAILY_PRESET",
    "LEVEL",
    "MAX_BOARDS",
    "PAR_REPLAYS",
    "PRIVATE_DAYS",
    "SEAT",
    "Challenge",
    "ChallengeRefused",
    "Challenges",
]

log = logging.getLogger("gongzhu.server")

#: Boards in a challenge, by default, and at most.
BOARDS = 8
MAX_BOARDS = 16
#: The preset of the daily challenge.
DAILY_PRESET = "online"
#: The computer players of every challenge.
LEVEL = "expert"
#: The entrants' seat.
SEAT = Seat.S
#: Challenges whose standings are kept in memory, the most recently made.
RANKINGS_KEPT = 32
#: How long a private challenge stays open.
PRIVATE_DAYS = 7
#: Replays of each board by four experts that give its par.
PAR_REPLAYS = 8


class ChallengeRefused(Exception):
    """A request about a challenge refused: the HTTP status and the catalog message."""

    def __init__(self, status: int, key: str, **params: Any) -> None:
        self.status = status
        self.text = Text.of(key, **params)
        super().__init__(self.text.render("en"))


@dataclass(frozen=True, slots=True)
class Challenge:
    """A challenge as stored: ``seed`` is secret until ``closes`` (an ISO time, UTC)."""

    id: str
    kind: str  # "daily" or "private"
    title: str
    created: str
    closes: str
    host: str | None
    preset: str
    options: dict[str, Any]
    level: str
    seed: str
    definition: dict[str, Any]
    commitment: str
    par: list[float | None] | None

    @property
    def count(self) -> int:
        return int(self.definition["count"])

    def closed(self, now: float) -> bool:
        return now >= datetime.fromisoformat(self.closes).timestamp()

    def public(self, now: float) -> dict[str, Any]:
        """What anyone may know of it: the seed only once it has closed."""
        closed = self.closed(now)
        return {
            "id": self.id, "kind": self.kind, "title": self.title, "created": self.created,
            "closes": self.closes, "closed": closed, "preset": self.preset, "options": self.options,
            "level": self.level, "seat": SEAT.name, "boards": self.count, "definition": self.definition,
            "commitment": self.commitment, "seed": self.seed if closed else None, "url": f"/challenge/{self.id}",
        }


def _challenge(row: Mapping[str, Any]) -> Challenge:
    return Challenge(
        id=row["id"], kind=row["kind"], title=row["title"], created=row["created"], closes=row["closes"],
        host=row["host"], preset=row["preset"], options=dict(row["options"]), level=row["level"],
        seed=row["seed"], definition=dict(row["definition"]), commitment=row["commitment"],
        par=list(row["par"]) if row["par"] is not None else None,
    )


def _rated_sides(number: int, results: Mapping[str, int],
                 people: Mapping[str, Mapping[str, Any]]) -> tuple[tuple[tuple[str, ...], int], ...]:
    """The sides of board ``number`` rated at a challenge's close: every account that finished it,
    with its result, and after them every account dealt it that did not finish it (it left the
    board, or finished it after the close), level in last place — else leaving a board going
    badly would spare its rating."""
    sides = [((user,), result) for user, result in results.items() if not people[user]["guest"]]
    if not sides:
        return ()
    left = [user for user, p in people.items() if not p["guest"] and user not in results and number <= p["dealt"]]
    return placed_last([*sides, *(((user,), 0) for user in left)], left)


def _iso(t: datetime) -> str:
    return t.astimezone(UTC).isoformat(timespec="seconds")


#: A challenge's results by board (board → user → result), and who each entrant is (name, guest,
#: their match and the deal of each board they finished).
_Results = tuple[dict[int, dict[str, int]], dict[str, dict[str, Any]]]

#: Computes the par of each board of a challenge: (seed, definition, commitment, seat) → one value
#: per board (None where it could not be computed).
ParComputer = Callable[[str, Mapping[str, Any], str, Seat], list[float | None]]


class Challenges:
    """The challenges of a server (see the module docstring).  ``now``: the clock (seconds since
    the epoch); ``par``: how the par of a new challenge's boards is computed (in a thread of its
    own; None: not computed); ``level``: the computer players of the challenges it makes."""

    def __init__(self, store: Store, *, now: Callable[[], float] = time.time,
                 par: ParComputer | None = None, level: str = LEVEL) -> None:
        self.store = store
        self.level = level
        self.now = now
        self.par = par
        self._boards: dict[str, tuple[Board, ...]] = {}
        #: Each challenge's results and standings, with the count of results they were made from.
        self._ranking: dict[str, tuple[tuple[int, bool], dict[int, dict[str, int]], dict[str, dict[str, Any]],
                                       list[dict[str, Any]]]] = {}
        #: The standings over some of an open challenge's boards (those a viewer finished), by the
        #: challenge, its count of results and those boards.
        self._views: dict[tuple[str, int, tuple[int, ...]], list[dict[str, Any]]] = {}
        self._threads: list[threading.Thread] = []
        #: The challenges whose par is to be computed, and the thread computing them (None: none).
        self._par_jobs: deque[Challenge] = deque()
        self._par_lock = threading.Lock()
        self._par_thread: threading.Thread | None = None

    # ------------------------------------------------------------------ making them

    def daily(self) -> Challenge:
        """Today's challenge (UTC), made by the first request of the day (which also has the
        daily challenges closed since rated, in a thread: :meth:`rate_closed`)."""
        today = datetime.fromtimestamp(self.now(), UTC).date()
        challenge_id = f"daily-{today.isoformat()}"
        found = self.store.challenge(challenge_id)
        if found is not None:
            return _challenge(found)
        self._start(self.rate_closed, "gongzhu-ratings")
        start = datetime(today.year, today.month, today.day, tzinfo=UTC)
        return self._make(challenge_id, "daily", f"{today.isoformat()}", DAILY_PRESET, BOARDS,
                          host=None, closes=start + timedelta(days=1))

    @staticmethod
    def check_new(preset: str, boards: int) -> None:
        """Refuse what no private challenge can be made of (before anything is counted)."""
        if preset not in PRESETS:
            raise ChallengeRefused(400, "server.challenge_bad_preset", preset=preset)
        if not 1 <= boards <= MAX_BOARDS:
            raise ChallengeRefused(400, "server.challenge_bad_boards", max=MAX_BOARDS)

    def create(self, host: str, *, preset: str = DAILY_PRESET, boards: int = BOARDS) -> Challenge:
        """A private challenge made by ``host``, open for :data:`PRIVATE_DAYS` days."""
        self.check_new(preset, boards)
        challenge_id = "c-" + secrets.token_hex(6)
        now = datetime.fromtimestamp(self.now(), UTC)
        return self._make(challenge_id, "private", challenge_id, preset, boards, host=host,
                          closes=now + timedelta(days=PRIVATE_DAYS))

    def _make(self, challenge_id: str, kind: str, title: str, preset: str, count: int, *, host: str | None,
              closes: datetime) -> Challenge:
        options = resolve_options(preset, {"match_end": f"deals:{count}"})
        made = make_board_set(options, count, event=challenge_id, preset=preset)
        row = {
            "id": challenge_id, "kind": kind, "title": title, "created": _iso(datetime.fromtimestamp(self.now(), UTC)),
            "closes": _iso(closes), "host": host, "preset": preset, "options": options.to_dict(), "level": self.level,
            "seed": made.seed, "definition": dict(made.definition), "commitment": made.commitment, "par": None,
        }
        if self.store.create_challenge(row):
            self._boards[challenge_id] = tuple(made.boards)
            self._start_par(_challenge(row))
        found = self.store.challenge(challenge_id)
        assert found is not None
        return _challenge(found)

    def _start_par(self, challenge: Challenge) -> None:
        """Compute the challenge's par in the background: one thread works through the pars
        asked for, a day's challenge first (a thread each would let many private challenges made
        at once take every core)."""
        if self.par is None:
            return
        with self._par_lock:
            if challenge.kind == "daily":
                self._par_jobs.appendleft(challenge)
            else:
                self._par_jobs.append(challenge)
            if self._par_thread is None:
                self._par_thread = threading.Thread(target=self._work_on_pars, name="gongzhu-par", daemon=True)
                self._threads = [t for t in self._threads if t.is_alive()] + [self._par_thread]
                self._par_thread.start()

    def _work_on_pars(self) -> None:
        """The pars asked for, one after another, until none is left (a failure is logged)."""
        par = self.par
        assert par is not None
        while True:
            with self._par_lock:
                if not self._par_jobs:
                    self._par_thread = None
                    return
                challenge = self._par_jobs.popleft()
            try:
                self.store.set_par(challenge.id, par(challenge.seed, challenge.definition, challenge.commitment, SEAT))
            except Exception:
                log.exception("%s: its par failed", challenge.id)
            except BaseException:  # the thread ends: the next par asked for starts another
                with self._par_lock:
                    self._par_thread = None
                raise

    def _start(self, work: Callable[[], object], name: str) -> None:
        """Run ``work`` in a thread of its own (a failure is logged: the server goes on)."""

        def run() -> None:
            try:
                work()
            except Exception:
                log.exception("%s failed", name)

        thread = threading.Thread(target=run, name=name, daemon=True)
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()

    def rate_closed(self) -> list[str]:
        """Move ratings by the boards of every daily challenge closed and not rated yet: on each
        board, everyone with a name of their own who played it, ordered by their result there —
        the cards dealt cancel out — as one rated deal, those who were dealt it and did not finish
        it last (docs/ratings.md).  Private challenges are not rated (their entrants choose each
        other).  Returns the challenges rated now."""
        rated = []
        for challenge_id in self.store.challenges_to_rate(_iso(datetime.fromtimestamp(self.now(), UTC))):
            try:
                challenge = self.get(challenge_id)
            except ChallengeRefused:  # gone meanwhile: the others are rated all the same
                continue
            boards, people = self._results(challenge)
            family = family_of(Options.from_dict(challenge.options))
            sides = {number: Rated(family, _rated_sides(number, results, people))
                     for number, results in boards.items()}
            if self.store.rate_challenge(challenge_id, {n: r for n, r in sides.items() if len(r.sides) >= 2}):
                rated.append(challenge_id)
        return rated

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the par computations started here (tests, and a server that stops)."""
        for thread in list(self._threads):
            thread.join(timeout)

    # ------------------------------------------------------------------ reading them

    def get(self, challenge_id: str) -> Challenge:
        found = self.store.challenge(challenge_id) if len(challenge_id) <= 64 else None
        if found is None:
            raise ChallengeRefused(404, "server.challenge_unknown", challenge=show(challenge_id))
        return _challenge(found)

    def boards_of(self, challenge_id: str) -> tuple[Board, ...]:
        """The boards of a challenge (from its stored seed, checked against its commitment)."""
        boards = self._boards.get(challenge_id)
        if boards is None:
            c = self.get(challenge_id)
            boards = self._boards[challenge_id] = tuple(verify_board_set(c.seed, c.definition, c.commitment).boards)
        return boards

    def listing(self, user: str | None) -> list[dict[str, Any]]:
        """The newest challenges (every daily one, and the private ones ``user`` made or entered),
        each with how many took part and, for ``user``, their place."""
        now = self.now()
        rows = [_challenge(row) for row in self.store.challenges(user=user)]
        counts = self.store.entrant_counts([c.id for c in rows])
        played = {challenge_id for challenge_id, _ in self.store.challenges_played(user)} if user else set()
        out = []
        for c in rows:
            # Standings only where the person played: the list's other rows need a count alone.
            mine = next((s for s in self.standings(c, user)[0] if s["user"] == user), None) if c.id in played else None
            out.append({**c.public(now), "entrants": counts.get(c.id, 0),
                        "me": None if mine is None else {"rank": mine["rank"], "boards": mine["boards"],
                                                          "percent": mine["percent"]}})
        return out

    # ------------------------------------------------------------------ playing them

    def entry(self, challenge_id: str, user: str) -> str | None:
        """The match in which ``user`` plays the challenge (None: not entered yet)."""
        return self.store.challenge_match(challenge_id, user)

    def closed(self, challenge_id: str) -> bool:
        """Whether the challenge has closed (or is unknown)."""
        try:
            return self.get(challenge_id).closed(self.now())
        except ChallengeRefused:
            return True

    def check_open(self, challenge: Challenge) -> None:
        if challenge.closed(self.now()):
            raise ChallengeRefused(409, "server.challenge_closed", challenge=challenge.id)

    def check_one_person(self, challenge: Challenge, user: str, devices: Sequence[str]) -> None:
        """Refused (409) when one of the browsers ``devices`` (digests: the one entering, and those
        the person was signed in from) entered the challenge as someone else, or is one that an
        account which entered it was signed in from: a browser plays a challenge's boards as one
        person."""
        if self.store.entered_as_others(challenge.id, devices, user):
            raise ChallengeRefused(409, "server.challenge_other_person", challenge=challenge.id)

    def entered(self, challenge: Challenge, user: str, match_id: str, devices: Sequence[str]) -> None:
        """``user`` entered the challenge from the first browser of ``devices`` (digests; the
        others the account was signed in from), to play it in the match ``match_id``: as a guest
        if they are one now, for good."""
        self.store.add_entry(challenge.id, user, match_id)
        self.store.entered_from(challenge.id, devices, user)

    def board_finished(self, challenge_id: str, user: str, match_id: str, deal_index: int, result: int) -> None:
        """An entrant finished a board (the match's deal ``deal_index``): their result counts if the
        challenge had not closed."""
        try:
            challenge = self.get(challenge_id)
        except ChallengeRefused:
            return
        if challenge.closed(self.now()):
            return
        self.store.add_result(challenge_id, deal_index + 1, user, match_id=match_id, deal_index=deal_index,
                              result=result)

    # ------------------------------------------------------------------ comparing them

    def _results(self, challenge: Challenge, board: int | None = None) -> _Results:
        """The results by board (board → user → result; of one board with ``board``) and who each
        entrant is: everyone who entered, or finished a board, with how many of its boards they
        were dealt."""
        boards: dict[int, dict[str, int]] = {}
        people: dict[str, dict[str, Any]] = {}
        for user, name, guest, match_id, dealt in self.store.entries(challenge.id):
            # An entry begun as a guest stays a guest's, even once its person has signed up.
            people[user] = {"name": name, "guest": guest, "match": match_id, "boards": {}, "dealt": dealt}
        for number, user, result, match_id, deal_index, name, guest in self.store.results(challenge.id, board=board):
            boards.setdefault(int(number), {})[user] = int(result)
            entrant = people.get(user)
            if entrant is None:
                entrant = people[user] = {"name": name, "guest": bool(guest), "match": match_id, "boards": {},
                                          "dealt": 0}
            # A board played as a guest makes the entrant a guest of the challenge: compared, not
            # ranked nor rated, even once they have signed up.
            entrant["guest"] = entrant["guest"] or bool(guest)
            entrant["boards"][int(number)] = int(deal_index)
        return boards, people

    def _ranked(self, challenge: Challenge) -> tuple[dict[int, dict[str, int]], dict[str, dict[str, Any]],
                                                      list[dict[str, Any]]]:
        """The results and the standings (:meth:`_ranking_of`)."""
        _, boards, people, table = self._ranking_of(challenge)
        return boards, people, table

    def _ranking_of(self, challenge: Challenge) -> tuple[tuple[int, bool], dict[int, dict[str, int]],
                                                         dict[str, dict[str, Any]], list[dict[str, Any]]]:
        """The count of results they were read at and whether closed then, the results and the
        standings, kept until the challenge has another result or closes (a page asked for every
        few seconds by every entrant reads them again only then).  Once closed, the standings hold every entrant who
        finished a board to every board: one they did not finish is a last place."""
        count = self.store.result_count(challenge.id)
        closed = challenge.closed(self.now())
        kept = self._ranking.get(challenge.id)
        if kept is None or kept[0] != (count, closed):
            boards, people = results = self._results(challenge)
            kept = self._ranking[challenge.id] = ((count, closed), boards, people,
                                                  self._standings(results, challenge.count if closed else 0))
            while len(self._ranking) > RANKINGS_KEPT:
                del self._ranking[next(iter(self._ranking))]
        return kept

    def standings(self, challenge: Challenge, user: str | None) -> tuple[list[dict[str, Any]], list[int]]:
        """The ranking as ``user`` may see it, and the boards it counts: every entrant with a
        finished board among those, ranked by their mean matchpoint percentage on them, then the
        拱猪 scale; guests compared, not ranked.  While the challenge is open it counts only the
        boards ``user`` finished (a ranking over a board tells how its entrants did on it: the
        same rule as its traveller's); once closed every board, each entrant held to all of them
        (one they did not finish is a last place: :meth:`_standings`)."""
        (count, closed), boards, people, table = self._ranking_of(challenge)
        every = list(range(1, challenge.count + 1))
        if closed:
            return table, every
        mine = sorted(people.get(user, {}).get("boards", {})) if user is not None else []
        if mine == every:
            return table, every
        key = (challenge.id, count, tuple(mine))
        kept = self._views.get(key)
        if kept is None:
            shown = {n: boards[n] for n in mine if n in boards}
            kept = self._views[key] = self._standings((shown, people))
            while len(self._views) > RANKINGS_KEPT:
                del self._views[next(iter(self._views))]
        return kept, mine

    @staticmethod
    def _standings(results: _Results, held: int = 0) -> list[dict[str, Any]]:
        """The standings of ``results``; with ``held``, everyone who finished a board is held to
        boards 1 to ``held``, each of them they did not finish counting as a last place (a closed
        challenge: else leaving a board that went badly, or playing only the first, would rank
        above playing them all)."""
        boards, people = results
        guests = [u for u, p in people.items() if p["guest"]]
        unfinished = {n: [u for u, p in people.items() if p["boards"] and n not in p["boards"]]
                      for n in range(1, held + 1)}
        return [{"user": s.entrant, "name": people[s.entrant]["name"], "guest": people[s.entrant]["guest"],
                 "rank": s.rank, "boards": s.boards, "unfinished": s.unfinished, "percent": s.percent,
                 "matchpoints": s.matchpoints, "top": s.top, "steps": s.steps}
                for s in standings(boards, guests, unfinished)]

    def finished_boards(self, challenge: Challenge, user: str | None) -> set[int]:
        """The boards of the challenge ``user`` finished."""
        if user is None:
            return set()
        return self.store.boards_finished(challenge.id, user)

    def may_see_board(self, challenge: Challenge, number: int, user: str | None) -> bool:
        """Whether ``user`` may see board ``number``'s hands, results and records: they finished
        it, or the challenge has closed."""
        return challenge.closed(self.now()) or number in self.finished_boards(challenge, user)

    def summary(self, challenge_id: str, user: str | None) -> dict[str, Any]:
        """The challenge page: the challenge, the live ranking (without user ids), the par of the
        boards the person may see, and the person's own progress."""
        c = self.get(challenge_id)
        now = self.now()
        boards, people, _ = self._ranked(c)
        table, counted = self.standings(c, user)
        closed = c.closed(now)
        mine = set(people.get(user, {}).get("boards", {})) if user is not None else set()
        par = c.par or [None] * c.count
        shown = [{"board": n, "played": len(boards.get(n, {})), "open": closed or n in mine,
                  "par": par[n - 1] if (closed or n in mine) and n - 1 < len(par) else None}
                 for n in range(1, c.count + 1)]
        me: dict[str, Any] | None = None
        if user is not None:
            match = self.entry(c.id, user)
            scores = {n: score for n in mine
                      if (score := self._score_of(boards.get(n, {}), people, user)) is not None}
            row = next((s for s in table if s["user"] == user), None)
            me = {"match": match, "url": f"/table/{match}" if match else None, "finished": sorted(mine),
                  "rank": row["rank"] if row else None,
                  "boards": {str(n): s for n, s in scores.items()}}
        return {**c.public(now), "standings": [{k: v for k, v in s.items() if k != "user"} | {"me": s["user"] == user}
                                               for s in table],
                "standings_boards": counted, "entrants": sum(1 for p in people.values() if p["boards"]),
                "board_list": shown, "me": me}

    @staticmethod
    def _score_of(results: Mapping[str, int], people: Mapping[str, Mapping[str, Any]],
                  user: str) -> dict[str, Any] | None:
        if user not in results:
            return None
        field = {u: r for u, r in results.items() if not people[u]["guest"]}
        others = {u: r for u, r in results.items() if people[u]["guest"]}
        s = score_board(field, others)[user]
        return {"result": s.result, "matchpoints": s.matchpoints, "top": s.top, "percent": s.percent,
                "datum": s.datum, "steps": s.steps}

    def traveller(self, challenge_id: str, number: int, user: str | None) -> dict[str, Any]:
        """Board ``number``'s traveller: every entrant's result on it with matchpoints and the
        scale, the par, the four hands and each result's record — for a person who finished the
        board, or for anyone once the challenge has closed (refused otherwise: nothing of the board
        is in the refusal)."""
        c = self.get(challenge_id)
        if not 1 <= number <= c.count:
            raise ChallengeRefused(404, "server.challenge_no_board", challenge=c.id, board=number, boards=c.count)
        if not self.may_see_board(c, number, user):
            raise ChallengeRefused(403, "server.challenge_board_hidden", board=number)
        boards, people = self._results(c, board=number)
        results = boards.get(number, {})
        field = {u: r for u, r in results.items() if not people[u]["guest"]}
        others = {u: r for u, r in results.items() if people[u]["guest"]}
        scores = score_board(field, others)
        rows = sorted(
            ({"name": people[u]["name"], "guest": people[u]["guest"], "me": u == user,
              "result": s.result, "matchpoints": s.matchpoints, "top": s.top, "percent": s.percent,
              "steps": s.steps,
              "record_url": f"/api/matches/{people[u]['match']}/deals/{people[u]['boards'][number]}"}
             for u, s in scores.items()),
            key=lambda r: (-r["result"], r["name"]))
        board = self.boards_of(c.id)[number - 1]
        par = (c.par or [None] * c.count)[number - 1] if c.par and number - 1 < len(c.par) else None
        mine = people.get(user or "", {}).get("boards", {})
        return {
            "challenge": c.id, "board": number, "seat": SEAT.name, "first_receiver": board.first_receiver.name,
            "hands": {s.name: [card.code for card in board.hands[s]] for s in Seat},
            "par": par, "datum": next(iter(scores.values())).datum if scores else None,
            "results": rows,
            "review": ({"match": people[user or ""]["match"], "deal": mine[number], "seat": SEAT.name}
                       if number in mine else None),
        }

    def may_read(self, info: MatchInfo, deal_index: int | None, user: str | None) -> bool:
        """Whether ``user`` may read a challenge match's records (``deal_index`` None: all of
        them): its own entrant may; another person a board they finished themselves (every board
        for the whole match), or any once the challenge has closed.  An event's table
        (``challenge`` naming an event) is read by its own players alone, their finished boards
        being theirs to see; the event serves its records to everyone else once every table has
        played the board (docs/tournaments.md, Who sees what)."""
        if info.challenge is None or (user is not None and user == info.seating.host):
            return True
        if is_event(info.challenge):
            return user is not None and (user in info.seating.dealt_to
                                         or any(s is not None and s[0] == user for s in info.seating.seats))
        try:
            c = self.get(info.challenge)
        except ChallengeRefused:
            return False
        if c.closed(self.now()):
            return True
        mine = self.finished_boards(c, user)
        if deal_index is None:  # (and someone who finished none reads no entrant's match, not even one just begun)
            return bool(mine) and all(n in mine for n in range(1, info.deals + 1))
        return deal_index + 1 in mine

    @staticmethod
    def hidden_text(info: MatchInfo, deal_index: int | None) -> Text:
        """Why :meth:`may_read` refused: a challenge's board not played yet, or an event's table
        that is not the caller's."""
        if info.challenge is not None and is_event(info.challenge):
            return Text.of("event.board_hidden", url=f"/event/{info.challenge}")
        return Text.of("server.challenge_board_hidden", board=(deal_index + 1) if deal_index is not None else "…")

    def played_by(self, user: str) -> list[dict[str, Any]]:
        """The challenges ``user`` played (a board finished), newest first, with their place."""
        out: list[dict[str, Any]] = []
        for challenge_id, count in self.store.challenges_played(user):
            try:
                c = self.get(challenge_id)
            except ChallengeRefused:
                continue
            table = self.standings(c, user)[0]
            row = next((s for s in table if s["user"] == user), None)
            people = self._ranked(c)[1]
            out.append({"id": c.id, "title": c.title, "kind": c.kind, "created": c.created, "boards": c.count,
                        "finished": count, "rank": row["rank"] if row else None,
                        "percent": row["percent"] if row else None, "url": f"/challenge/{c.id}",
                        "entrants": sum(1 for p in people.values() if not p["guest"] and p["boards"])})
        out.sort(key=lambda r: str(r["created"]), reverse=True)
        return out

