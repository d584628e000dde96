"""Shared helpers of the tests: the rules core (docs/rules.md R1–R10) and the server.

Hands are written as text, one string per seat, so a test reads like the rule book: ``"QS 3S AH"``.
:func:`make_deal` builds a :class:`~gongzhu.rules.Deal` from such hands (completing any seat left
short with the unused cards, in card order), declares the wanted exposures and starts play.
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import itertools
import json
import os
import random
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from starlette.applications import Starlette
from starlette.testclient import TestClient, WebSocketTestSession

from gongzhu.cli import play as play_cli
from gongzhu.messages import catalog, render
from gongzhu.rules import (
    ALL_CARDS,
    EXPOSABLE,
    PRESETS,
    Card,
    Deal,
    OptionError,
    Options,
    Phase,
    Seat,
    parse_cards,
)
from gongzhu.search.fast import FastPosition, PlayoutTrace, encode
from gongzhu.server import create_app
from gongzhu.server.identity import Identity, User
from gongzhu.server.store import Seating
from gongzhu.server.table import Table

__all__ = [
    "LOCAL",
    "TIMEOUT_MS",
    "codes",
    "complete_hands",
    "declare_random_exposures",
    "in_phase",
    "legal",
    "local_client",
    "make_deal",
    "not_in_phase",
    "one_deck_option_sets",
    "phase",
    "play_codes",
    "play_first_legal",
    "play_seq",
    "scaled",
    "snapshot",
    "wait_for",
]

#: Hypothesis profiles: the default one runs every example count as written (``make test``, CI);
#: ``fast`` (``--hypothesis-profile=fast``, what ``make test-fast`` passes) a fifth of them.
settings.register_profile("fast", max_examples=20)


def preset_variants(variants: list[tuple[str, dict[str, Any]]], fast: set[str] | None = None) -> list[Any]:
    """Parameters of a test run under every preset and some option variants: the presets as
    they are (or those named in ``fast``) in the fast suite, the rest marked ``slow`` (``make test``)."""
    return [v if not v[1] and (fast is None or v[0] in fast) else pytest.param(*v, marks=pytest.mark.slow)
            for v in variants]


def scaled(n: int) -> int:
    """A count of examples or of deals for a test that checks many: ``n`` under the default
    hypothesis profile, proportionally fewer (``n / 5``, at least 2) under the ``fast`` profile."""
    current = settings.default
    assert current is not None  # a profile is always loaded under pytest
    return max(2, n * current.max_examples // 100)


ExposureItem = str | tuple[str, str]


def codes(cards: Iterable[Card]) -> list[str]:
    return [c.code for c in cards]


def play_codes(play: Sequence[Card]) -> str:
    """A play as text: ``"QS"``, or ``"QS QS"`` / ``"3S 4S"`` for a two-card play."""
    return " ".join(c.code for c in play)


def legal(deal: Deal) -> set[str]:
    """The legal plays of the player to move, as text."""
    return {play_codes(p) for p in deal.legal_plays()}


def complete_hands(
    partial: Mapping[str, str], decks: int = 1, keep_out: str = "", dump: str = "N"
) -> list[list[Card]]:
    """Four hands (N, E, S, W) from text; seats given fewer than ``13 * decks`` cards (or none)
    are topped up, in seat order N, E, S, W, with the cards nobody holds yet, lowest first.

    With ``keep_out`` (suit letters, e.g. ``"S"``) the seats other than ``dump`` are topped up
    without those suits, and ``dump`` gets what is left."""
    size = 13 * decks
    hands: list[list[Card]] = [[], [], [], []]
    for key, text in partial.items():
        hands[Seat.parse(key)] = parse_cards(text)
    used = Counter(c for h in hands for c in h)
    spare = [c for c in ALL_CARDS for _ in range(decks - used[c])]
    dump_seat = Seat.parse(dump)
    if keep_out:
        for seat in Seat:
            if seat != dump_seat:
                h = hands[seat]
                for c in [c for c in spare if c.suit.letter not in keep_out]:
                    if len(h) >= size:
                        break
                    h.append(c)
                    spare.remove(c)
    for h in hands:
        while len(h) < size and spare:
            h.append(spare.pop(0))
    return hands


def make_deal(
    options: Options,
    hands: Mapping[str, str],
    *,
    previous_pig_taker: Seat | None = None,
    first_receiver: Seat = Seat.N,
    exposures: Mapping[str, Sequence[ExposureItem]] | None = None,
    declare: bool = True,
    keep_out: str = "",
    dump: str = "N",
) -> Deal:
    """A deal from explicit hands (completed by :func:`complete_hands`); with ``declare`` every
    seat declares its ``exposures`` (none by default) so the deal is in the play phase."""
    deal = Deal(
        options,
        complete_hands(hands, options.decks, keep_out, dump),
        first_receiver=first_receiver,
        previous_pig_taker=previous_pig_taker,
    )
    if declare and deal.phase == Phase.EXPOSE:
        wanted = {Seat.parse(k): list(v) for k, v in (exposures or {}).items()}
        for seat in Seat:
            deal.declare(seat, wanted.get(seat, []))
    return deal


def phase(deal: Deal) -> Phase:
    """The deal's phase (a call, so that mypy does not narrow it across actions)."""
    return deal.phase


def play_seq(deal: Deal, plays: str) -> None:
    """Play a sequence written as ``"2C 3C 4C 5C / AS KS"``: plays separated by spaces, two-card
    plays joined with ``+`` (``"4S+4S"``); ``/`` is ignored and only helps the reader."""
    for token in plays.replace("/", " ").split():
        deal.play(token.split("+"))


def play_first_legal(deal: Deal, n: int) -> None:
    """Play the first legal play ``n`` times (a deterministic filler)."""
    for _ in range(n):
        deal.play(deal.legal_plays()[0])


def snapshot(deal: Deal) -> tuple[Any, ...]:
    """Everything a refused action must leave exactly as it was."""
    return (
        deal.phase,
        deal.turn,
        deal.leader,
        tuple(tuple(deal.hand(s)) for s in Seat),
        tuple(deal.current_trick),
        tuple(deal.tricks),
        tuple(deal.exposures),
        tuple(deal.undeclared),
        tuple(tuple(deal.captured(s)) for s in Seat),
        tuple(deal.legal_plays()),
        tuple(deal.suits_led),
        deal.pig_taker,
        tuple(deal.restricted_copies(s, c) for s in Seat for c in ALL_CARDS),
        tuple(tuple(deal.exposable(s)) for s in Seat),
    )


def declare_random_exposures(deal: Deal, rng: random.Random, p: float = 0.5) -> None:
    """The exposure phase (R4) with random choices: the seats declare in a random order, each
    exposing each card it may with probability ``p``, in a random allowed kind."""
    seats = list(deal.undeclared)
    rng.shuffle(seats)
    for seat in seats:
        chosen = [(c, rng.choice(deal.exposure_kinds(seat, c))) for c in deal.exposable(seat) if rng.random() < p]
        deal.declare(seat, chosen)


def one_deck_option_sets(overrides: Sequence[Mapping[str, Any]]) -> list[tuple[str, Options]]:
    """Every one-deck preset (R9) with each set of overrides on top (R10)."""
    return preset_option_sets(overrides, decks=1)


def preset_option_sets(overrides: Sequence[Mapping[str, Any]], decks: int) -> list[tuple[str, Options]]:
    """Every preset (R9) with ``decks`` decks, with each set of overrides on top (R10), labelled
    ``preset,key=value…``; combinations the options refuse (e.g. exposure on pig_sheep, R7.4)
    are left out."""
    out: list[tuple[str, Options]] = []
    for name, preset in PRESETS.items():
        if preset.decks != decks:
            continue
        for over in overrides:
            try:
                opts = preset.replace(**over)
            except OptionError:
                continue
            out.append((name + "".join(f",{k}={v}" for k, v in over.items()), opts))
    return out


# ---------------------------------------------------------------------- the C fast path

ONE_DECK_OVERRIDES: list[dict[str, Any]] = [
    {},
    {"discard_color": "enforce"},
    {"discard_color": "penalty"},
    {"exposed_discard_before_suit_led": True},
    {"heart_values": "book"},
    {"self_catch": True},
    {"direction": "cw"},
    {"direction": "ccw"},
    {"exposure": "hidden"},
    {"exposure": "sell_x4_x2"},
    {"exposure": "first_card"},
    {"exposure": "all"},
    {"exposure": "all_but_sheep"},
    {"first_lead": "club2_any"},
    {"first_lead": "spade3_any"},
    {"auto_expose_fourth": True},
    {"discard_color": "penalty", "exposed_discard_before_suit_led": True, "self_catch": True},
    {"discard_color": "enforce", "heart_values": "book", "direction": "cw"},
]

#: Every one-deck preset under each of :data:`ONE_DECK_OVERRIDES` (the C fast path's test grid).
ONE_DECK_OPTION_SETS = one_deck_option_sets(ONE_DECK_OVERRIDES)


def played_deal(
    options: Options, seed: int, n_plays: int, expose_p: float = 0.5, later: bool = False
) -> Deal:
    """A deal dealt from ``seed``, random exposures declared (R4), ``n_plays`` random plays."""
    rng = random.Random(seed * 7919 + 17)
    prev = Seat(rng.randrange(4)) if later else None
    deal = Deal.new(options, seed, deal_index=1 if later else 0, previous_pig_taker=prev)
    declare_random_exposures(deal, rng, expose_p)
    assert deal.phase == Phase.PLAY
    for _ in range(n_plays):
        if deal.is_over:
            break
        deal.play(rng.choice(deal.legal_plays())[0])
    return deal


def python_deal(options: Options, pos: FastPosition) -> Deal:
    """The deal of ``random_deal_trace``'s position built through the reference ``Deal``."""
    hands = [[c for c in ALL_CARDS if pos.hands[s] >> c.index & 1] for s in range(4)]
    deal = Deal(options, hands)
    if deal.phase == Phase.EXPOSE:
        kind = "hidden" if options.exposure == "hidden" else "shown"
        for seat in Seat:
            # Under hidden, a restricted exposed card can only be the automatic fourth (R4.4),
            # which Deal applies itself.
            mine = [(c, kind) for k, c in enumerate(EXPOSABLE)
                    if pos.factors[k] > 1 and pos.dealt_to[k] == seat
                    and not (kind == "hidden" and pos.restricted[seat] >> c.index & 1)]
            deal.declare(seat, mine)
    assert deal.phase == Phase.PLAY
    assert encode(deal) == pos
    return deal


def replay_playout(deal: Deal, start: FastPosition, trace: PlayoutTrace) -> None:
    """Replay a C playout through Deal.play, checking every step against the reference."""
    pos = start
    assert len(trace.cards) == len(trace.legal)
    for c, legal in zip(trace.cards, trace.legal, strict=True):
        assert not deal.is_over
        assert encode(deal) == pos, "C position differs from the encoded Python position"
        assert deal.legal_mask() == legal == pos.legal_mask()
        assert legal >> c & 1, f"C played {ALL_CARDS[c]}, not legal"
        deal.play(ALL_CARDS[c])
        pos = pos.play(c)
    assert deal.is_over and pos.is_over
    assert pos.legal_mask() == 0
    assert deal.score.raw == trace.raw == pos.raw_scores()
    hands_empty: tuple[int, int, int, int] = (0, 0, 0, 0)
    assert pos.hands == hands_empty
    for s in range(4):
        assert pos.captured[s] == sum(1 << c.index for c in deal.captured(Seat(s)))


# ---------------------------------------------------------------------- rule-book tables and hands

# R10 table: every key and the values it takes (integers and deals:N by example).
R10_VALUES: dict[str, list[Any]] = {
    "decks": [1, 2],
    "direction": ["ccw", "cw"],
    "heart_values": ["standard", "book"],
    "exposure": ["standard", "first_card", "hidden", "sell_x4_x2", "all_but_sheep", "all", "none"],
    "auto_expose_fourth": [True, False],
    "exposed_discard_before_suit_led": [True, False],
    "first_lead": ["club2_must", "club2_any", "spade3_any"],
    "discard_color": ["off", "enforce", "penalty"],
    "self_catch": [True, False],
    "scoring": ["raw", "zero_sum", "partners", "pig_sheep"],
    "one_deck_factor": [12, 1, 7],
    "match_limit": [1000, 800, 1],
    "match_end": ["loser", "either", "deals:16", "deals:1"],
    "double_pig": [True, False],
}

# Hand set A: no one holds anything odd; S is void in spades, N in nothing.
HANDS_A = {
    "N": "3S 4S QS 2H 3H AH 2C 3C 2D 3D 4D 5D 6D",
    "E": "2S 6S 7S 8S TS JS KS AS 6H 7H 8H 9H TH",
    "S": "JH QH KH 7C 8C 9C JC QC KC AC QD KD AD",
    "W": "5S 9S 4H 5H 4C 5C 6C TC 7D 8D 9D TD JD",
}
# Hand set B: N holds ♠Q with two small spades and no hearts; W and S hold the hearts.
HANDS_B = {
    "N": "QS 3S 4S 2C 3C 4C 5C 6C 7C 2D 3D 4D 5D",
    "W": "2H 3H 4H 5H 6H 7H 8H 2S 5S 8C 9C TC JC",
    "S": "9H TH JH QH KH AH AS 7S 8S QC KC AC 6D",
    "E": "6S 9S TS JS KS 7D 8D 9D TD JD QD KD AD",
}


TWO_DECK_OPTS = Options(decks=2, auto_expose_fourth=False)
# R5.3 source example: A = N plays ♠4♠4, B = W ♠K♠K, C = S ♠Q♠8, D = E discards.
SOURCE_EXAMPLE = {
    "N": "4S 4S 2S 2S 3S 3S 5S 5S 6S 6S 7S 7S 2H 2H 3H 3H 4H 4H 5H 5H 6H 6H 7H 7H 8H 8H",
    "E": "9H 9H TH TH JH JH QH QH KH KH AH AH 2C 2C 3C 3C 4C 4C 5C 5C 6C 6C 7C 7C 8C 8C",
    "S": "QS 8S 9C 9C TC TC JC JC QC QC KC KC AC AC 2D 2D 3D 3D 4D 4D 5D 5D 6D 6D 7D 7D",
    "W": "KS KS AS AS QS 8S 9S 9S TS TS JS JS 8D 8D 9D 9D TD TD JD JD QD QD KD KD AD AD",
}


def two_deck_deal(
    hands: dict[str, str], leader: Seat, keep_out: str = "", **overrides: Any
) -> Deal:
    opts = TWO_DECK_OPTS.replace(**overrides) if overrides else TWO_DECK_OPTS
    return make_deal(opts, hands, previous_pig_taker=leader, keep_out=keep_out,
                     dump=leader.name)



# ---------------------------------------------------------------------- the terminal game

def run_play(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="gongzhu")
    play_cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["play", *argv])
    code: int = args.run(args)
    return code


#: The address the server tests reach the application at: one of the host names it answers to.
LOCAL = "http://127.0.0.1"


class LocalClient(TestClient):
    """Starlette's test client reaching the application at :data:`LOCAL`, WebSockets included
    (the plain one always says ``Host: testserver`` for them)."""

    def websocket_connect(self, url: str, subprotocols: Sequence[str] | None = None,
                          **kwargs: Any) -> WebSocketTestSession:
        if url.startswith("/"):
            url = "ws://127.0.0.1" + url
        return super().websocket_connect(url, subprotocols, **kwargs)


def local_client(app: Starlette, cookies: Mapping[str, str] | None = None, *, loopback: bool = False) -> TestClient:
    """A test client for the browser game's application, reaching it at :data:`LOCAL`; with
    ``cookies`` (another client's, e.g. its session cookie), as the same browser; with
    ``loopback``, from a loopback address, as a browser on the server's own machine (the
    client is otherwise Starlette's ``testclient``, no address)."""
    address = ("127.0.0.1", 50000) if loopback else ("testclient", 50000)
    return LocalClient(app, base_url=LOCAL, cookies=dict(cookies) if cookies is not None else None, client=address)


# ---------------------------------------------------------------------- the browser game's server

#: A JSON message or state as the server sends it.
Message = dict[str, Any]
#: Computer opponents that answer at once: the server tests' usual table (South is the person).
QUICK = {"N": "random", "E": "beginner", "W": "intermediate"}


def _pg_bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


class ThrowawayPostgres:
    """A PostgreSQL server of the tests' own: ``initdb`` + ``pg_ctl`` of the machine's
    PostgreSQL, listening on a Unix socket in a temporary folder only, run as the ``postgres``
    user when the tests run as root.  :meth:`stop` and :meth:`start` restart it; :meth:`remove`
    stops it and deletes its files."""

    def __init__(self) -> None:
        initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
        if initdb is None or pg_ctl is None:
            if os.environ.get("CI"):
                pytest.fail("PostgreSQL (initdb, pg_ctl) is not installed; .ci/run installs it")
            pytest.skip("PostgreSQL is not installed")
        self._pg_ctl = pg_ctl
        self._as_user: list[str] = []
        self.root = Path(tempfile.mkdtemp(prefix="gongzhu-pg-"))
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            self._as_user = ["runuser", "-u", "postgres", "--"]
            shutil.chown(self.root, "postgres")
        self.data, self.socket = self.root / "data", str(self.root)
        self.port = 5400 + (os.getpid() + next(_pg_servers)) % 500
        subprocess.run([*self._as_user, initdb, "-D", str(self.data), "-U", "gongzhu", "--auth=trust", "-E", "UTF8"],
                       check=True, capture_output=True)
        self.start()

    def start(self) -> None:
        options = f"-c listen_addresses='' -k {self.socket} -p {self.port} -c fsync=off"
        subprocess.run([*self._as_user, self._pg_ctl, "-D", str(self.data), "-o", options, "-w",
                        "-l", str(self.root / "log"), "start"], check=True, capture_output=True)

    def stop(self, mode: str = "fast") -> None:
        subprocess.run([*self._as_user, self._pg_ctl, "-D", str(self.data), "-m", mode, "-w", "stop"],
                       capture_output=True)

    def remove(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def new_database(self) -> str:
        """A fresh, empty database on this server, as a SQLAlchemy URL."""
        import psycopg

        name = f"gongzhu_test_{next(_pg_databases)}"
        with psycopg.connect(host=self.socket, port=self.port, user="gongzhu", dbname="postgres",
                             autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return f"postgresql+psycopg://gongzhu@/{name}?host={self.socket}&port={self.port}"


_pg_servers = itertools.count()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[ThrowawayPostgres]:
    """A running throwaway PostgreSQL server for the whole test session."""
    server = ThrowawayPostgres()
    try:
        yield server
    finally:
        server.remove()


_pg_databases = itertools.count()


@pytest.fixture
def pg_url(postgres_server: ThrowawayPostgres) -> str:
    """A fresh, empty database on the throwaway PostgreSQL server, as a SQLAlchemy URL."""
    return postgres_server.new_database()


#: The stores a server test can run on: ``@pytest.mark.parametrize("db_url", STORES, indirect=True)``
#: runs it on a SQLite file and on a throwaway PostgreSQL (marked ``postgres``).
STORES = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


@pytest.fixture
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The server's store as a SQLAlchemy URL: a SQLite file in the test's folder, or, when the
    test is parametrized with ``"postgresql"`` (:data:`STORES`), a fresh PostgreSQL database."""
    if getattr(request, "param", "sqlite") == "postgresql":
        url: str = request.getfixturevalue("pg_url")
        return url
    return f"sqlite:///{tmp_path / 'gongzhu.db'}"


@pytest.fixture
def client(db_url: str, tmp_path: Path) -> Iterator[TestClient]:
    """The browser game's application on :func:`db_url`, computer players paced at 0 s."""
    app = create_app(db_url, pace=0, hint_think=0.05, static_dir=tmp_path / "no-static")
    with local_client(app) as c:
        yield c


def new_match(client: TestClient, **body: Any) -> str:
    """A new single-player match (South against three computer players).  The test client keeps
    the session cookie the answer sets: its WebSockets are then South's."""
    body.setdefault("levels", QUICK)
    response = client.post("/api/matches", json=body)
    assert response.status_code == 201, response.text
    match_id: str = response.json()["match_id"]
    return match_id


def seating(person: tuple[str, str] | None = None, **changes: Any) -> Seating:
    """The seating of a single-player table as the store keeps it: ``person`` (user id, name) at
    South, host and dealt the deal in progress, the computer players of :data:`QUICK` at N, E and
    W; ``changes`` replace fields."""
    seats = (None, None, person, None)
    base = Seating(host=person[0] if person is not None else None, seats=seats, levels={**QUICK, "S": "intermediate"},
                   visibility="private", invite="an-invite", turn_seconds=None, expose_seconds=None,
                   status="playing", version=0, auto=(False,) * 4, timeouts=(0,) * 4, deadline=None,
                   dealt_to=tuple(s[0] if s is not None else None for s in seats))
    return dataclasses.replace(base, **changes)


def deal_of(table: Table) -> Deal:
    """The deal a started table shows: the one in progress, or the one just finished."""
    deal = table.deal
    assert deal is not None, "the table has not started"
    return deal


def state_message(state: Message) -> Message:
    """The ``state`` message that carries ``state`` (at the table's version it names)."""
    return {"type": "state", "v": state["v"], "state": state}


def assert_resumed(after: Message, before: Message) -> None:
    """A table opened again (by a restarted server, or loaded again from the store) shows what it
    showed before, at a later version: coming back to the table is a change (its person is
    connected again)."""
    assert after["v"] > before["v"]
    assert {**after, "v": before["v"]} == before


def unversioned(message: Message) -> Message:
    """A table message without its version ``v``."""
    return {k: v for k, v in message.items() if k != "v"}


def user_of(client: TestClient) -> User:
    """The person of the test client's session cookie, as the server has them stored (lifetime
    score, deals, matches, pigs)."""
    identity: Identity = client.app.state.identity  # type: ignore[attr-defined]
    user = identity.user_for(dict(client.cookies))
    assert user is not None, "the client has no session"
    return user


def all_matches(client: TestClient) -> list[str]:
    """The ids of every match in the server's store, whoever played it (``GET /api/matches``
    lists only the current person's)."""
    store = client.app.state.store  # type: ignore[attr-defined]
    return [m.match_id for m in store.matches()]


def settled(state: Message) -> bool:
    """Whether the table waits for South (or the deal is over): nothing more comes unasked.  In
    the exposure phase the computer players declare at once, in secret: the table waits for
    South once South is the only seat yet to declare."""
    phase = state["phase"]
    if phase in ("deal-over", "match-over"):
        return True
    if phase == "expose":
        return bool(state["undeclared"] == ["S"])
    return bool(state["turn"] == "S")


class Browser:
    """One WebSocket connection that records every message the server sends."""

    def __init__(self, ws: WebSocketTestSession) -> None:
        self.ws = ws
        self.messages: list[Message] = []
        self.state: Message = {}

    def receive(self) -> Message:
        message: Message = self.ws.receive_json()
        self.messages.append(message)
        if message["type"] == "state":
            self.state = message["state"]
        return message

    def settle(self) -> Message:
        """Read until the table waits for South; return that state."""
        while True:
            message = self.receive()
            if message["type"] == "state" and settled(message["state"]):
                return self.state

    def send(self, message: Message | str) -> None:
        self.ws.send_text(message if isinstance(message, str) else json.dumps(message))

    def refused(self, message: Message | str | bytes) -> str:
        """Send a message that must be refused; return the error text."""
        if isinstance(message, bytes):
            self.ws.send_bytes(message)
        else:
            self.send(message)
        reply = self.receive()
        assert reply["type"] == "error", reply
        text: str = reply["message"]
        assert text
        return text


def random_exposures(state: Message, rng: random.Random) -> Message:
    cards: list[str] = []
    kinds: list[str] = []
    for item in state["exposable"]:
        if rng.random() < 0.5:
            choices = [k for k in item["kinds"] if not (k == "first" and "first" in kinds)]
            cards.append(item["card"])
            kinds.append(rng.choice(choices))
    message: Message = {"type": "expose", "cards": cards}
    default = "hidden" if state["options"]["exposure"] == "hidden" else "shown"
    if rng.random() < 0.5 or any(k != default for k in kinds):
        message["kinds"] = kinds  # else the option's usual kind is taken
    return message


def act(browser: Browser, rng: random.Random) -> None:
    """South's move in a settled state: declare, play, or deal the next deal."""
    state = browser.state
    if state["phase"] == "expose":
        browser.send(random_exposures(state, rng))
    elif state["phase"] == "play":
        browser.send({"type": "play", "cards": rng.choice(state["legal"])})
    else:
        browser.send({"type": "next"})


def play_deal(client: TestClient, match_id: str, seed: int = 3) -> None:
    """South plays the deal in progress of ``match_id`` to its end (random legal plays, R5)."""
    rng = random.Random(seed)
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        state = browser.settle()
        while state["phase"] not in ("deal-over", "match-over"):
            act(browser, rng)
            state = browser.settle()


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    """A refusal of the catalog: its status, its code, its text in English and in Chinese."""
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["code"] == code
    assert body["error"] == render(code, "en", body["params"])
    assert body["message_zh"] == render(code, "zh", body["params"])
    assert code in catalog("zh") and code in catalog("en")
    return body


# ---------------------------------------------------------------------- a live server and its people


def stop_process(proc: Any) -> None:
    """End a server process a test started: terminate, and kill it if it does not end in 10 s."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover
        proc.kill()
        proc.wait()


class LiveServer:
    """The browser game's application served by uvicorn on a free loopback port, in a thread of
    the test process (computer players paced at 0 s unless ``pace`` says otherwise).  Stopping it
    and starting another on the same database is a server restart.  ``app_options`` go to
    :func:`~gongzhu.server.create_app` as they are (e.g. ``review_budget``)."""

    def __init__(self, db_url: str, *, pace: float = 0.0, static_dir: Path | None = None, **app_options: Any) -> None:
        import threading

        import uvicorn

        self.app = create_app(db_url, pace=pace, hint_think=0.05, static_dir=static_dir, **app_options)
        config = uvicorn.Config(app=self.app, host="127.0.0.1", port=0, log_level="warning", lifespan="on",
                                ws_max_size=64 * 1024)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="gongzhu-live", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.01)
        port = self._server.servers[0].sockets[0].getsockname()[1]
        self.base = f"http://127.0.0.1:{port}"
        self.ws_base = f"ws://127.0.0.1:{port}"

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(15)

    def __enter__(self) -> LiveServer:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()


class Someone:
    """A person using a live server: an HTTP client keeping their session cookie, and their
    table connections (``websockets``' synchronous client) that record every message."""

    def __init__(self, server: Any) -> None:
        """``server``: a :class:`LiveServer`, or anything with its ``base`` and ``ws_base``."""
        import httpx

        self.server = server
        self.http = httpx.Client(base_url=server.base, timeout=10)
        me = self.http.get("/api/me")
        assert me.status_code == 200, me.text
        self.id: str = me.json()["id"]
        self.name: str = me.json()["name"]

    def rebind(self, server: Any) -> None:
        """The same person (same cookie) on another server on the same database."""
        import httpx

        cookies = self.http.cookies
        self.http.close()
        self.server = server
        self.http = httpx.Client(base_url=server.base, timeout=10, cookies=cookies)

    def cookie_header(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.http.cookies.items())

    def connect(self, table_id: str, *, since: int | None = None, invite: str | None = None) -> Live:
        query = "&".join(f"{k}={v}" for k, v in (("since", since), ("invite", invite)) if v is not None)
        url = f"{self.server.ws_base}/ws/{table_id}" + (f"?{query}" if query else "")
        return Live(url, self.cookie_header())


class Live:
    """One table connection of a live server: every message it received, the last state."""

    def __init__(self, url: str, cookie: str) -> None:
        from websockets.sync.client import connect

        self._opened = connect(url, additional_headers={"Cookie": cookie} if cookie else None, open_timeout=10)
        self.ws = self._opened.__enter__()
        self.messages: list[Message] = []
        self.state: Message = {}

    def receive(self, timeout: float = 10) -> Message:
        message: Message = json.loads(self.ws.recv(timeout=timeout))
        self.messages.append(message)
        if message["type"] == "state":
            self.state = message["state"]
        return message

    def until(self, done: Any, timeout: float = 30) -> Message:
        """Read until ``done(state)`` holds for the last state; return that state."""
        if self.state and done(self.state):
            return self.state
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"the table never reached the state waited for; last: {self.state}")
            message = self.receive(left)
            if message["type"] == "state" and done(self.state):
                return self.state

    def drain(self, quiet: float = 0.2) -> None:
        """Read what has come, until nothing more comes for ``quiet`` seconds."""
        import contextlib

        with contextlib.suppress(TimeoutError):
            while True:
                self.receive(quiet)

    def send(self, message: Message | str) -> None:
        self.ws.send(message if isinstance(message, str) else json.dumps(message))

    def refused(self, message: Message | str) -> Message:
        """Send a message that must be refused (on a table where nothing else happens meanwhile);
        return the error.  Nothing else may come in answer."""
        self.drain(0.05)
        self.send(message)
        reply = self.receive()
        assert reply["type"] == "error", f"a refused message was answered with {reply}"
        return reply

    def close(self) -> None:
        self._opened.__exit__(None, None, None)

    def closed_for_the_session(self, timeout: float = 10) -> None:
        """Read until the server closes the connection: it must have said its session ended and
        closed it with 4401 (the page then asks who it is and connects again)."""
        from websockets.exceptions import ConnectionClosed

        got: list[Message] = []
        try:
            while True:
                got.append(self.receive(timeout))
        except ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 4401, closed
        assert any(m.get("code") == "server.session_ended" for m in got), got

# ---------------------------------------------------------------------- real browsers

try:
    from playwright.sync_api import Browser as ChromiumBrowser
    from playwright.sync_api import Page, sync_playwright

    HAVE_PLAYWRIGHT = True
except ImportError:  # pragma: no cover - depends on the environment
    HAVE_PLAYWRIGHT = False

#: Debian's Chromium, which Playwright drives (tests marked ``browser``).
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]
#: Playwright's default wait for a selector or an action in the browser tests.
TIMEOUT_MS = 20_000


def _browser_missing() -> str | None:
    if not HAVE_PLAYWRIGHT:
        return "the playwright package is not installed (pip install -e '.[dev]')"
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install chromium fonts-noto-cjk)"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[ChromiumBrowser]:
    """One headless Chromium for a module.  Without Chromium or Playwright the test is skipped,
    unless ``CI`` is set: then it fails, so CI can't pass by skipping it."""
    why = _browser_missing()
    if why is not None:
        if os.environ.get("CI"):
            pytest.fail(f"browser tests cannot run under CI: {why}")
        pytest.skip(f"browser tests skipped: {why}")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real server for a module's browser tests (:class:`LiveServer`: uvicorn on a free loopback
    port, a SQLite file, computer players at pace 0); its base URL."""
    db = tmp_path_factory.mktemp("browser") / "gz.db"
    with LiveServer(f"sqlite:///{db}") as live:
        yield live.base


@pytest.fixture
def page_factory(browser: ChromiumBrowser, server: str) -> Iterator[Any]:
    """``make(width, height, **context options)``: a page in a fresh browser context (its own
    cookies and storage: another person, with no remembered match or settings)."""
    contexts = []

    def make(width: int = 1280, height: int = 800, **kw: Any) -> Page:
        ctx = browser.new_context(viewport={"width": width, "height": height}, base_url=server, **kw)
        contexts.append(ctx)
        pg = ctx.new_page()
        pg.set_default_timeout(TIMEOUT_MS)
        return pg

    yield make
    for ctx in contexts:
        ctx.close()


def wait_for(page: Page, selector: str) -> None:
    """Wait until ``selector`` matches an element.

    The page's Content-Security-Policy has no 'unsafe-eval', and ``page.wait_for_function``
    evaluates its predicate with ``eval`` inside the page on every animation frame, which the
    policy refuses; a selector is matched by Playwright's own script instead.
    """
    page.wait_for_selector(selector, state="attached")


def in_phase(*phases: str) -> str:
    """A selector matching ``<html>`` while the table is in one of ``phases``."""
    return ", ".join(f'html[data-phase="{p}"]' for p in phases)


def not_in_phase(name: str) -> str:
    """A selector matching ``<html>`` once the table is no longer in phase ``name``."""
    return f'html:not([data-phase="{name}"])'
