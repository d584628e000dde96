"""The browser game's application inside the test process, through Starlette's test client.

:func:`local_client` reaches it at :data:`LOCAL` (WebSockets included); :func:`new_match` starts a
single-player match (South against the quick computer players of :data:`QUICK`); a
:class:`Browser` is one WebSocket of the test client that records every message and plays South
(:func:`act`, :func:`play_deal`); :func:`refused` checks a catalog refusal in both languages.
The fixtures that make the application (``client``, ``db_url``) are in ``tests/conftest.py``.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Mapping, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.routing import Route
from starlette.testclient import TestClient, WebSocketTestSession

from gongzhu.messages import catalog, render
from gongzhu.rules import Deal
from gongzhu.server.identity import Identity, User
from gongzhu.server.store import Seating
from gongzhu.server.table import Table
from gongzhu.server.whatif import PATH, WhatIfRoute, WhatIfs

__all__ = [
    "LOCAL",
    "QUICK",
    "Browser",
    "LocalClient",
    "Message",
    "act",
    "all_matches",
    "assert_resumed",
    "deal_of",
    "local_client",
    "new_match",
    "play_deal",
    "random_exposures",
    "random_move",
    "refused",
    "seating",
    "settled",
    "state_message",
    "unversioned",
    "user_of",
]

#: A JSON message or state as the server sends it.
Message = dict[str, Any]
#: Computer opponents that answer at once: the server tests' usual table (South is the person).
QUICK = {"N": "random", "E": "beginner", "W": "intermediate"}

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


def random_move(state: Message, seat: str, rng: random.Random) -> Message | None:
    """``seat``'s move where ``state`` waits for it: random exposures, or a random legal play;
    None where it waits for another seat (or for nobody)."""
    if state["phase"] == "expose" and seat in state["undeclared"]:
        return random_exposures(state, rng)
    if state["phase"] == "play" and state["turn"] == seat and state["legal"]:
        return {"type": "play", "cards": rng.choice(state["legal"])}
    return None


def act(browser: Browser, rng: random.Random) -> None:
    """South's move in a settled state: declare, play, or deal the next deal."""
    state = browser.state
    if state["phase"] == "expose":
        browser.send(random_exposures(state, rng))
    elif state["phase"] == "play":
        browser.send({"type": "play", "cards": rng.choice(state["legal"])})
    else:
        browser.send({"type": "next"})


def play_deal(client: TestClient, match_id: str, seed: int | random.Random = 3) -> Message:
    """South plays the deal in progress of ``match_id`` to its end (random legal plays, R5, from
    ``seed`` or the generator given); the final state."""
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        state = browser.settle()
        while state["phase"] not in ("deal-over", "match-over"):
            act(browser, rng)
            state = browser.settle()
        return state


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    """A refusal of the catalog: its status, its code, its text in English and in Chinese."""
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["code"] == code
    assert body["error"] == render(code, "en", body["params"])
    assert body["message_zh"] == render(code, "zh", body["params"])
    assert code in catalog("zh") and code in catalog("en")
    return body


def play_match(client: TestClient, deals: int, seed: int) -> str:
    """A single-player match of ``deals`` deals played to its end by South's random legal plays."""
    match_id = new_match(client, seed=seed, options={"match_end": f"deals:{deals}"})
    rng = random.Random(seed)
    with client.websocket_connect(f"/ws/{match_id}") as ws:
        browser = Browser(ws)
        state = browser.settle()
        while state["phase"] != "match-over":
            act(browser, rng)
            state = browser.settle()
    return match_id


def whatifs_of(client: TestClient) -> WhatIfs:
    """The application's what-ifs (:class:`~gongzhu.server.whatif.WhatIfs`), behind their route."""
    app = client.app
    assert isinstance(app, Starlette)
    route = next(r for r in app.routes if isinstance(r, Route) and r.path == PATH)
    owner = getattr(route.endpoint, "__self__", None)
    assert isinstance(owner, WhatIfRoute)
    return owner.whatifs
