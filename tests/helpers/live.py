"""People using a live server (:class:`~helpers.servers.LiveServer`, or a ``gongzhu serve``
process, :class:`~helpers.servers.ServeProcess`): :class:`Someone` is an HTTP client keeping a
session cookie, :class:`Live` one of their table WebSockets (``websockets``' synchronous client),
recording every message it receives."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Mapping
from typing import Any

from .client import Message, random_move

__all__ = ["Live", "Someone", "account", "befriend", "random_moves"]

#: The password of the accounts :func:`account` makes.
PASSWORD = "a quiet tiger 42 on a live server"


class Someone:
    """A person using a live server: an HTTP client keeping their session cookie, and their
    table connections (``websockets``' synchronous client) that record every message."""

    def __init__(self, server: Any, address: str | None = None) -> None:
        """``server``: a :class:`LiveServer`, or anything with its ``base`` and ``ws_base``;
        ``address``: the client address a trusted proxy forwards for this person (a server
        started with ``trusted_proxies=["127.0.0.1"]``), so that many people on one machine are
        not one address to the per-address limits."""
        import httpx

        self.server = server
        self.headers = {"X-Forwarded-For": address} if address is not None else {}
        self.http = httpx.Client(base_url=server.base, timeout=10, headers=self.headers)
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
        self.http = httpx.Client(base_url=server.base, timeout=10, cookies=cookies, headers=self.headers)

    def cookie_header(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.http.cookies.items())

    def connect(self, table_id: str, *, since: int | None = None, invite: str | None = None) -> Live:
        query = "&".join(f"{k}={v}" for k, v in (("since", since), ("invite", invite)) if v is not None)
        url = f"{self.server.ws_base}/ws/{table_id}" + (f"?{query}" if query else "")
        return Live(url, self.cookie_header(), self.headers)



def account(server: Any, name: str, address: str | None = None) -> Someone:
    """A new person on ``server`` who makes an account named ``name`` (a guest first, as every
    browser), from ``address`` if given (:class:`Someone`)."""
    person = Someone(server, address)
    r = person.http.post("/api/account", json={"name": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    person.name = name
    return person


def befriend(one: Someone, *others: Someone) -> None:
    """``one`` asks each of ``others`` to be friends, and they accept (docs/people.md)."""
    for other in others:
        assert one.http.post(f"/api/people/{other.name}/friend").json()["state"] == "asked"
        assert other.http.post(f"/api/people/{one.name}/friend").json()["state"] == "friends"


def settle(store: Any, *users: str) -> None:
    """The accounts ``users`` of ``store`` have played fifty deals counted toward the lifetime score
    and came over a week ago: settled here (docs/ratings.md, Won from one person)."""
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import update

    from gongzhu.server.store import SETTLED_AGE, SETTLED_DEALS, USERS

    long_ago = (datetime.now(UTC) - SETTLED_AGE - timedelta(hours=1)).isoformat(timespec="microseconds")
    with store.engine.begin() as c:
        c.execute(update(USERS).where(USERS.c.id.in_(users)).values(deals=SETTLED_DEALS, created=long_ago))


def counted_shares(finals: list[int]) -> int:
    """What the lifetime score counts of these finals, one a deal, each shared whole to one settled
    account: a loss whole, a win while the net counted stays within 10,000."""
    from gongzhu.server.store import WON_FROM_ONE

    net = 0
    for final in finals:
        net += min(final, max(0, WON_FROM_ONE - net)) if final > 0 else final
    return net


def counted_deal(state: Message, seat: str) -> int:
    """What the lifetime score of the person at ``seat`` counts of the deal just finished in
    ``state`` (their table's state) when every other person dealt it is an account new here
    (docs/ratings.md, Won from one person): nothing — their page says the whole final was not
    counted."""
    final: int = state["deal_result"]["final"][seat]
    assert state["lifetime"]["withheld"] == final, (state["lifetime"], final)
    return 0


class Live:
    """One table connection of a live server: every message it received, the last state."""

    def __init__(self, url: str, cookie: str, headers: dict[str, str] | None = None) -> None:
        from websockets.sync.client import connect

        sent = {**(headers or {}), **({"Cookie": cookie} if cookie else {})}
        self._opened = connect(url, additional_headers=sent or None, open_timeout=10)
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
        return the error.  Nothing else may come in answer.  A connection that has not had its
        first state yet waits for it: the server sends it as the connection is let in, and on a
        loaded machine that can come after the message is sent."""
        if not self.state:
            self.until(lambda _: True)
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


def random_moves(lives: Mapping[str, Live], acted: dict[str, int], rng: random.Random) -> bool:
    """Each seat whose connection's newest state waits for it, and that has not acted on that
    state yet (``acted``: the version each seat last acted on), sends a random move
    (:func:`~helpers.client.random_move`); whether any did."""
    moved = False
    for seat, live in lives.items():
        state = live.state
        if not state or acted.get(seat, -1) >= state["v"]:
            continue
        move = random_move(state, seat, rng)
        if move is None:
            continue
        live.send(move)
        acted[seat] = state["v"]
        moved = True
    return moved
