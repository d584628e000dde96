"""The message bus between the servers that share one database: who runs each table, and the
messages for another server, for every room of a table and for every lobby (``docs/deploy.md``).

:class:`Bus` is what a server's tables ask of it; :class:`LocalBus` is a server on its own — it
runs every table it is asked for and has nobody to tell — and
:class:`~gongzhu.server.cluster.Cluster` the servers on one Redis.  What a bus brings in it hands
to its :class:`Receiver` (:class:`~gongzhu.server.registry.Tables`).

Imports nothing of the server.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

__all__ = ["Bus", "ClusterUnavailable", "LocalBus", "Receiver"]

#: A connection anywhere: the server it is on (its node) and its number there.
Ref = tuple[str, int]


class ClusterUnavailable(RuntimeError):
    """The other servers cannot be reached: what needs another server is refused for now."""


class Bus(Protocol):
    """What a server's tables ask of the servers they share a database with."""

    #: This server among the others.
    node: str
    #: Whether the others can be reached now.
    up: bool
    #: Whether other servers run tables of this database too: a table that does not run here may
    #: run elsewhere, and is not this server's to load.
    shared: bool

    async def start(self) -> None: ...

    async def close(self, release: Iterable[str] = ()) -> None:
        """Stop, letting go of the tables in ``release`` (those this server ran)."""

    async def owner(self, table_id: str) -> str | None:
        """The server that runs the table (None: none does); raises :class:`ClusterUnavailable`."""

    async def claim(self, table_id: str) -> bool:
        """Become the table's owner if it has none; raises :class:`ClusterUnavailable`."""

    def release(self, table_id: str) -> None:
        """Give up a table this server lets go of."""

    async def listen(self, table_id: str) -> None:
        """Receive the table's changes from now on."""

    def unlisten(self, table_id: str) -> None: ...

    def to_node(self, node: str, payload: dict[str, Any], failed: Callable[[], None] | None = None) -> None:
        """A message for one server, in order; ``failed`` is called when nobody got it."""

    def to_table(self, table_id: str, payload: dict[str, Any]) -> None:
        """A message for every server with a room of the table."""

    def to_lobby(self, payload: dict[str, Any]) -> None:
        """A message for every other server's lobby."""


class LocalBus:
    """A server on its own: every table is its own, and there is nobody else to tell."""

    shared = False
    up = True

    def __init__(self, node: str) -> None:
        self.node = node

    async def start(self) -> None:
        return None

    async def close(self, release: Iterable[str] = ()) -> None:
        return None

    async def owner(self, table_id: str) -> str | None:
        return self.node

    async def claim(self, table_id: str) -> bool:
        return True

    def release(self, table_id: str) -> None:
        return None

    async def listen(self, table_id: str) -> None:
        return None

    def unlisten(self, table_id: str) -> None:
        return None

    def to_node(self, node: str, payload: dict[str, Any], failed: Callable[[], None] | None = None) -> None:
        if failed is not None:  # there is no other server to get it
            failed()

    def to_table(self, table_id: str, payload: dict[str, Any]) -> None:
        return None  # this server's rooms have had the change already

    def to_lobby(self, payload: dict[str, Any]) -> None:
        return None


class Receiver(Protocol):
    """What a bus hands the server it serves."""

    def owned(self) -> list[str]:
        """The tables this server runs."""

    def open_rooms(self) -> list[str]:
        """The tables this server has connections to."""

    def lost(self, table_id: str) -> None: ...

    def republish(self, table_id: str) -> None: ...

    async def reintroduce(self, table_id: str) -> None: ...

    async def took_over(self, table_id: str) -> None: ...

    def version_of(self, table_id: str) -> int | None: ...

    def beat(self, table_id: str, version: int, every: float) -> None:
        """The owner's table is at ``version``: a room behind it catches up (at most once in
        ``every`` seconds)."""

    def owned_by(self, table_id: str, node: str) -> None:
        """Another server runs the table now."""

    def remote_close(self, payload: Mapping[str, Any]) -> None:
        """An operator on another server closed a table this server runs."""

    def deliver_here(self, table_id: str, change: Mapping[str, Any]) -> None: ...

    def send(self, ref: Ref, text: str | None, *, close: tuple[int, str] | None = None, admit: bool = False,
             v: int | None = None) -> None: ...

    def remote_hello(self, payload: Mapping[str, Any]) -> None: ...

    def remote_message(self, payload: Mapping[str, Any]) -> None:
        """A browser message another server forwards (who it is from is settled at once, in the
        order the messages came; what it asks is answered by a task)."""

    def remote_bye(self, payload: Mapping[str, Any]) -> None: ...

    async def rejoin(self, cid: int, text: str | None) -> None: ...

    def remote_nodes(self) -> list[str]: ...

    def node_gone(self, node: str) -> None: ...

    async def knock_again(self, after: float) -> None: ...

    def lobby_news(self, payload: dict[str, Any]) -> None: ...
