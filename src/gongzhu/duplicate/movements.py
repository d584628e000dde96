"""Movements of duplicate events: who sits where in each round, and which boards each table plays.

An event's entrants are numbered from 1: pairs (two players who sit opposite, N–S or E–W, R1),
individual players, or teams of four.  A :class:`Movement` lists, round by round, every table in
play as a :class:`Sitting`: the round (轮: one meeting of the entrants at that table), the
session (节: a part of a round, teams only), the table, the boards it plays and the
:class:`Place` (entrant and member) at each seat N, E, S, W; and who sits out each round.  The
boards of an event are numbered from ``first``, ``boards_per_round`` to a group: group g holds
boards ``first + (g − 1) × boards_per_round`` onwards.

- :func:`mitchell` (pairs): N–S pairs stay at their tables, E–W pairs move up one table and the
  boards down one each round.  With an even number of tables the E–W pairs skip a table after
  half the tables' rounds (a skip Mitchell, at most tables − 1 rounds); with an odd number of
  pairs a phantom E–W pair completes the last table and whoever meets it sits out.
- :func:`howell` (pairs): every pair meets every other once over pairs − 1 rounds (fewer rounds:
  a partial Howell), by the circle method: the last pair stays at the last table, the others
  move round a circle.  Every table of a round plays the round's boards (boards are dealt, not
  carried, so no board waits for a table).  With an odd number of pairs a phantom makes the
  count even and whoever meets it sits out.
- :func:`individual` (4k players, k ≥ 1): a whist tournament developed cyclically from one
  starting round (:data:`WHIST_STARTS`): over 4k − 1 rounds every player partners every other
  exactly once and plays against every other exactly twice; every table of a round plays the
  round's boards, seats turned one place each round.
- :func:`team_match` (计副制队式赛, two teams of four): team 1 sits N–S at table 1 and E–W at
  table 2 on the same boards, team 2 the other way round; between sessions (节) the teams swap
  directions, and every two sessions each pair changes opponents.  :func:`swiss_pairings`
  pairs more teams round by round by score, avoiding rematches where it can, and
  :func:`team_round` seats one round of such matches.

Pure data and arithmetic; imports nothing outside the standard library.  The properties each
movement keeps are listed in docs/tournaments.md (Movements) and checked by
tests/test_movements.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "FORMS",
    "SEATS",
    "WHIST_STARTS",
    "Movement",
    "MovementError",
    "Place",
    "Sitting",
    "board_group",
    "howell",
    "individual",
    "max_rounds",
    "mitchell",
    "swiss_pairings",
    "team_match",
    "team_round",
]

#: The seats in order, as records write them (R1).
SEATS: tuple[str, str, str, str] = ("N", "E", "S", "W")
#: The forms of an event: two pairs movements, the individual movement, team matches.
FORMS: tuple[str, ...] = ("mitchell", "howell", "individual", "teams")

#: Starting rounds of the cyclic whist tournaments, by number of tables k: the players of
#: Z_(4k − 1) and ∞ (written -1) in k tables (a, b, c, d), a and c partners against b and d.
#: Round r adds r to every number but ∞.  Found by search; tests/test_movements.py checks that
#: each gives every pair of players one partnership and two meetings as opponents.
WHIST_STARTS: dict[int, tuple[tuple[int, int, int, int], ...]] = {
    1: ((-1, 0, 2, 1),),
    2: ((-1, 4, 2, 1), (0, 5, 6, 3)),
    3: ((-1, 8, 9, 1), (2, 7, 4, 6), (5, 3, 10, 0)),
    4: ((-1, 5, 13, 0), (3, 7, 9, 8), (2, 14, 10, 11), (1, 4, 12, 6)),
    5: ((-1, 9, 11, 14), (18, 0, 10, 6), (16, 2, 1, 3), (5, 17, 12, 8), (4, 15, 7, 13)),
}


class MovementError(ValueError):
    """A movement that cannot be made: too few or too many entrants or rounds; the message says
    what is allowed."""


@dataclass(frozen=True, slots=True, order=True)
class Place:
    """Who sits in a seat: ``entrant`` (numbered from 1) and ``member`` (from 0: a pair's N or E
    player is member 0 and its S or W player member 1; a team's members 0 to 3, its first pair
    0 and 1; an individual player is member 0)."""

    entrant: int
    member: int = 0


@dataclass(frozen=True, slots=True)
class Sitting:
    """One table in one round: ``round`` and ``session`` (from 1), ``table`` (from 1), the
    ``boards`` it plays, in order, and ``seats``: the :class:`Place` at N, E, S and W.  In team
    events ``match`` numbers the match the table belongs to (tables 2m − 1 and 2m)."""

    round: int
    table: int
    boards: tuple[int, ...]
    seats: tuple[Place, Place, Place, Place]
    session: int = 1
    match: int | None = None

    def entrant_at(self, seat: int) -> int:
        """The entrant in seat ``seat`` (0 N, 1 E, 2 S, 3 W)."""
        return self.seats[seat].entrant

    @property
    def entrants(self) -> frozenset[int]:
        return frozenset(p.entrant for p in self.seats)


@dataclass(frozen=True, slots=True)
class Movement:
    """A whole movement: its ``form`` (:data:`FORMS`), the number of ``entrants`` and
    ``tables``, the ``rounds`` and ``sessions`` a round, the ``boards_per_round`` (a session's,
    in team matches) and every :class:`Sitting` in order of round, session and table;
    ``sit_outs`` holds, for each round, the entrants who do not play in it."""

    form: str
    entrants: int
    tables: int
    rounds: int
    boards_per_round: int
    sittings: tuple[Sitting, ...]
    sit_outs: tuple[tuple[int, ...], ...]
    sessions: int = 1

    @property
    def boards(self) -> tuple[int, ...]:
        """Every board some table plays, in number order."""
        return tuple(sorted({b for s in self.sittings for b in s.boards}))

    def in_round(self, round_: int, session: int = 1) -> tuple[Sitting, ...]:
        """The tables in play in one round (and session)."""
        return tuple(s for s in self.sittings if s.round == round_ and s.session == session)


def board_group(group: int, boards_per_round: int, first: int = 1) -> tuple[int, ...]:
    """The boards of group ``group`` (from 1): ``boards_per_round`` consecutive numbers."""
    start = first + (group - 1) * boards_per_round
    return tuple(range(start, start + boards_per_round))


def _check_count(name: str, value: int, low: int, high: int) -> None:
    if type(value) is not int or not low <= value <= high:
        raise MovementError(f"{name} is a whole number from {low} to {high}, not {value!r}")


def max_rounds(form: str, entrants: int) -> int:
    """The most rounds a movement of ``form`` has for ``entrants`` without a rematch or a board
    played twice: Mitchell, one per table (tables − 1 with an even number of tables); Howell,
    pairs − 1 (the phantom counted); individual, players − 1; a team match has no limit here."""
    if form == "mitchell":
        tables = (entrants + 1) // 2
        return tables if tables % 2 else tables - 1
    if form == "howell":
        return entrants - 1 if entrants % 2 == 0 else entrants
    if form == "individual":
        return entrants - 1
    raise MovementError(f"the form is one of {', '.join(FORMS)}, not {form!r}")


def _rounds(form: str, entrants: int, rounds: int | None) -> int:
    most = max_rounds(form, entrants)
    if rounds is None:
        return most
    _check_count(f"a {form} movement for {entrants} entrants has rounds, which", rounds, 1, most)
    return rounds


def mitchell(pairs: int, rounds: int | None = None, boards_per_round: int = 1, first: int = 1) -> Movement:
    """A Mitchell movement for ``pairs`` pairs (5 or more): N–S pairs 1 … T sit at tables 1 … T,
    E–W pairs T + 1 … 2T start at tables 1 … T.  Each round an E–W pair moves up one table (from
    T to 1), and with an even T it skips one more after round T / 2; the boards move down one
    table (from 1 to T).  Group g starts at table g.  With an odd number of pairs the phantom is
    E–W pair 2T, and the N–S pair it meets sits out with its table."""
    _check_count("a Mitchell movement's pairs", pairs, 5, 128)
    _check_count("boards a round", boards_per_round, 1, 64)
    tables = (pairs + 1) // 2
    rounds = _rounds("mitchell", pairs, rounds)
    sittings: list[Sitting] = []
    sit_outs: list[tuple[int, ...]] = []
    for r in range(rounds):
        skip = 1 if tables % 2 == 0 and r >= tables // 2 else 0
        out: list[int] = []
        at: dict[int, int] = {(e + r + skip) % tables: e for e in range(tables)}
        for t in range(tables):
            ns, ew = t + 1, tables + at[t] + 1
            if ew > pairs:  # the phantom
                out.append(ns)
                continue
            group = (t + r) % tables + 1
            sittings.append(Sitting(r + 1, t + 1, board_group(group, boards_per_round, first),
                                    (Place(ns, 0), Place(ew, 0), Place(ns, 1), Place(ew, 1))))
        sit_outs.append(tuple(out))
    return Movement("mitchell", pairs, tables, rounds, boards_per_round, tuple(sittings), tuple(sit_outs))


def howell(pairs: int, rounds: int | None = None, boards_per_round: int = 1, first: int = 1) -> Movement:
    """A Howell movement for ``pairs`` pairs (3 or more) by the circle method.  With P the pairs
    made even by a phantom, pairs 1 … P − 1 stand on a circle of m = P − 1 places and pair P
    stays; in round r (from 0) pair r + 1 meets pair P, and the pairs j places either side of
    it meet at table j, the one ahead N–S for odd j and the one behind for even j (so each pair
    sits N–S in half its rounds, give or take one).  Pair P's table is the last; P sits N–S in
    even rounds.  Every table of round r plays group r + 1.  With an odd number of pairs, P is
    the phantom and its table does not play: whoever meets it sits out."""
    _check_count("a Howell movement's pairs", pairs, 3, 64)
    _check_count("boards a round", boards_per_round, 1, 64)
    even = pairs + pairs % 2
    m = even - 1
    rounds = _rounds("howell", pairs, rounds)
    sittings: list[Sitting] = []
    sit_outs: list[tuple[int, ...]] = []
    for r in range(rounds):
        boards = board_group(r + 1, boards_per_round, first)
        out: list[int] = []
        matches: list[tuple[int, int, int]] = []  # table, N–S pair, E–W pair
        for j in range(1, (m - 1) // 2 + 1):
            ahead, behind = (r + j) % m + 1, (r - j) % m + 1
            matches.append((j, ahead, behind) if j % 2 else (j, behind, ahead))
        fixed, mover = even, r % m + 1
        if pairs % 2:
            out.append(mover)
        else:
            last = (m - 1) // 2 + 1
            matches.append((last, fixed, mover) if r % 2 == 0 else (last, mover, fixed))
        for table, ns, ew in matches:
            sittings.append(Sitting(r + 1, table, boards, (Place(ns, 0), Place(ew, 0), Place(ns, 1), Place(ew, 1))))
        sit_outs.append(tuple(out))
    tables = even // 2 - pairs % 2
    return Movement("howell", pairs, tables, rounds, boards_per_round, tuple(sittings), tuple(sit_outs))


def individual(players: int, rounds: int | None = None, boards_per_round: int = 1, first: int = 1) -> Movement:
    """An individual movement for ``players`` = 4k players (k from 1 to 5): the cyclic whist
    tournament of :data:`WHIST_STARTS` for k tables.  Player x + 1 is the number x of
    Z_(4k − 1) and player 4k is ∞; in round r (from 0) table i seats the starting round's
    table i with r added to each number, a and c partners against b and d.  Which
    partnership of a table sits N–S is chosen to bring every player's rounds N–S and E–W close
    to even (one table's choice flipped at a time while that helps), and which of its two turns
    to spread each player over the four seats.  Every table of round r plays group r + 1."""
    if type(players) is not int or players % 4 or not 4 <= players <= 4 * max(WHIST_STARTS):
        raise MovementError(
            f"an individual movement seats 4, 8, … {4 * max(WHIST_STARTS)} players (a multiple of four), "
            f"not {players!r}"
        )
    _check_count("boards a round", boards_per_round, 1, 64)
    k = players // 4
    m = players - 1
    rounds = _rounds("individual", players, rounds)
    tables = [[[players if x < 0 else (x + r) % m + 1 for x in start] for start in WHIST_STARTS[k]]
              for r in range(rounds)]
    # which partnership of each table sits N–S (0: a and c, 1: b and d): flipped one at a time
    # while that brings the players' rounds N–S and E–W closer to even
    way = [[0] * k for _ in range(rounds)]
    north_south = [0] * (players + 1)
    for r in range(rounds):
        for who in tables[r]:
            north_south[who[0]] += 1
            north_south[who[2]] += 1
    better = True
    while better:
        better = False
        for r in range(rounds):
            for i, who in enumerate(tables[r]):
                now, then = (who[0], who[2]), (who[1], who[3])
                if way[r][i]:
                    now, then = then, now
                before = sum((2 * north_south[p] - rounds) ** 2 for p in who)
                after = sum((2 * (north_south[p] + (p in then) - (p in now)) - rounds) ** 2 for p in who)
                if after < before:
                    way[r][i] ^= 1
                    for p in now:
                        north_south[p] -= 1
                    for p in then:
                        north_south[p] += 1
                    better = True
    sittings: list[Sitting] = []
    in_seat = [[0] * 4 for _ in range(players + 1)]
    for r in range(rounds):
        boards = board_group(r + 1, boards_per_round, first)
        for i, who in enumerate(tables[r]):
            def repeats(t: int, who: list[int] = who) -> int:
                return sum(in_seat[p][(j + t) % 4] for j, p in enumerate(who))

            turn = min((way[r][i], way[r][i] + 2), key=repeats)
            seats = [Place(0)] * 4
            for position, player in enumerate(who):
                seats[(position + turn) % 4] = Place(player)
                in_seat[player][(position + turn) % 4] += 1
            sittings.append(Sitting(r + 1, i + 1, boards, (seats[0], seats[1], seats[2], seats[3])))
    return Movement("individual", players, k, rounds, boards_per_round, tuple(sittings), ((),) * rounds)


def _match_tables(home: int, away: int, session: int) -> tuple[tuple[Place, ...], tuple[Place, ...]]:
    """The seats N, E, S, W at the two tables of a match in session ``session`` (from 0): the home
    team's first pair at the first table; directions swap every session, opponents every two."""
    h1, h2 = (Place(home, 0), Place(home, 1)), (Place(home, 2), Place(home, 3))
    a1, a2 = (Place(away, 0), Place(away, 1)), (Place(away, 2), Place(away, 3))
    first, second = ((h1, a1), (h2, a2)) if (session // 2) % 2 == 0 else ((h1, a2), (h2, a1))
    if session % 2 == 0:  # home N–S at the first table, E–W at the second
        one, two = first, (second[1], second[0])
    else:
        one, two = (first[1], first[0]), second
    return ((one[0][0], one[1][0], one[0][1], one[1][1]), (two[0][0], two[1][0], two[0][1], two[1][1]))


def team_round(
    matches: Sequence[tuple[int, int]],
    round_: int,
    sessions: int,
    boards_per_round: int,
    first_group: int,
    first: int = 1,
) -> list[Sitting]:
    """One round (轮) of team matches: match i (from 1) between ``matches[i - 1]`` = (home,
    away) at tables 2i − 1 and 2i; session s (from 1) plays group ``first_group + s − 1`` at
    both tables.  The home team sits N–S at the first table and E–W at the second in odd
    sessions, the other way round in even ones."""
    out: list[Sitting] = []
    for s in range(sessions):
        boards = board_group(first_group + s, boards_per_round, first)
        for i, (home, away) in enumerate(matches):
            one, two = _match_tables(home, away, s)
            for table, seats in ((2 * i + 1, one), (2 * i + 2, two)):
                out.append(Sitting(round_, table, boards, (seats[0], seats[1], seats[2], seats[3]), s + 1, i + 1))
    return out


def team_match(sessions: int = 1, boards_per_round: int = 16, first: int = 1) -> Movement:
    """A team match (计副制队式赛) of two teams over ``sessions`` sessions (节) of
    ``boards_per_round`` boards (16: one 盘); see :func:`team_round`."""
    _check_count("a match's sessions", sessions, 1, 64)
    _check_count("boards a session", boards_per_round, 1, 64)
    sittings = team_round([(1, 2)], 1, sessions, boards_per_round, 1, first)
    return Movement("teams", 2, 2, 1, boards_per_round, tuple(sittings), ((),), sessions)


def swiss_pairings(
    ranking: Sequence[int],
    played: Iterable[tuple[int, int]] = (),
    byes: Iterable[int] = (),
) -> tuple[list[tuple[int, int]], int | None]:
    """The next round's matches of a Swiss event: ``ranking`` lists the teams best first,
    ``played`` the matches so far, ``byes`` the teams that have had a bye.  With an odd number
    of teams the lowest-ranked team without a bye has one (every team has had one: the
    lowest).  The others are paired from the top, each with the best-ranked team left that it
    has not met; among the pairings with the fewest rematches the first in that order is
    taken.  The better-ranked team of a match is the home team."""
    teams = list(ranking)
    if len(set(teams)) != len(teams):
        raise MovementError("a team is ranked twice")
    met = {frozenset(m) for m in played}
    had = set(byes)
    bye: int | None = None
    if len(teams) % 2:
        bye = next((t for t in reversed(teams) if t not in had), teams[-1])
        teams.remove(bye)
    for allowed in range(len(teams) // 2 + 1):
        found = _pair(teams, met, allowed)
        if found is not None:
            return found, bye
    raise AssertionError("some pairing always exists")


def _pair(teams: list[int], met: set[frozenset[int]], allowed: int) -> list[tuple[int, int]] | None:
    """The first pairing (top team with the best-ranked possible) with at most ``allowed``
    rematches, or None."""
    if not teams:
        return []
    top, rest = teams[0], teams[1:]
    for i, other in enumerate(rest):
        again = frozenset((top, other)) in met
        if again and not allowed:
            continue
        tail = _pair(rest[:i] + rest[i + 1:], met, allowed - again)
        if tail is not None:
            return [(top, other), *tail]
    return None
