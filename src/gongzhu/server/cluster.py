"""Several servers on one database: the tables shared through Redis.

With ``gongzhu serve --redis URL`` the server processes share one Redis and one database.  Each
table has one owner, the process that runs its rules, clock and computer players, held as a
lease in Redis (:data:`LEASE_MS`, renewed every :data:`RENEW_EVERY` seconds) that a process with
connections to an ownerless table claims; every write is fenced by the table's stored version, so
two owners at once cannot both store a change.  Changes, forwarded messages and the lobby go
through Redis pub/sub; a process cut off from Redis keeps serving its own tables and catches up
once Redis is back.  The design, the channels and the failover: ``docs/deploy.md``, What runs.
:class:`Cluster` is a :class:`~gongzhu.server.bus.Bus`: imports ``redis`` (the ``cluster``
extra), the bus and the metrics (each Redis command timed, each failure counted).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from gongzhu.server.bus import ClusterUnavailable, Receiver
from gongzhu.server.metrics import Metrics

__all__ = ["LEASE_MS", "Cluster", "ClusterUnavailable"]

log = logging.getLogger("gongzhu.server.cluster")

#: How long an owner's lease lasts without renewal, and how often it is renewed and looked at.
LEASE_MS = 4000
RENEW_EVERY = 0.5
#: A process's heartbeat: how long it counts as alive without one (or without a word from it: a
#: hello, a message or a bye of one of its connections).
HEARTBEAT_MS = 3000
#: How long a room behind its table's version, or a connection not yet let in by the table's
#: owner, waits before asking the owner again.
CATCH_UP_EVERY = 1.5

_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""


async def _close_quietly(pubsub: Any) -> None:
    """Close a Redis subscription, whatever state the connection is in (typed loosely: redis-py
    types ``PubSub.aclose`` in some releases and not in others)."""
    with contextlib.suppress(Exception):
        await pubsub.aclose()


def owner_key(table_id: str) -> str:
    return f"gz:owner:{table_id}"


def channels_of(db: int) -> str:
    """What the names of the publish/subscribe channels of the processes sharing Redis database
    ``db`` begin with.  Redis keeps keys apart by database, but a channel is heard in every
    database of the server: two sites sharing one Redis on two database numbers would hear each
    other's tables and lobbies.  Database 0's channels keep the names they always had (``gz:``)."""
    return "gz:" if db == 0 else f"gz{db}:"


def table_channel(table_id: str, site: str) -> str:
    return f"{site}t:{table_id}"


def node_channel(node: str, site: str) -> str:
    return f"{site}n:{node}"



def _timed_client(url: str, metrics: Metrics) -> Any:
    """redis-py's asyncio client of ``url``, each command it sends timed into ``metrics``."""
    import redis.asyncio as aioredis

    seconds = metrics.redis_seconds

    class Timed(aioredis.Redis):
        async def execute_command(self, *args: Any, **options: Any) -> Any:
            started = time.perf_counter()
            try:
                return await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]
            finally:
                seconds.observe(time.perf_counter() - started)

    return Timed.from_url(url, socket_connect_timeout=2.0, socket_timeout=5.0)


class Cluster:
    """This process among the others (docs/deploy.md, What runs).  ``metrics``: where its Redis
    commands are timed and its failures counted."""

    shared = True

    def __init__(self, url: str, node: str, tables: Receiver, metrics: Metrics | None = None) -> None:
        self.url = url
        self.tables = tables
        self.node = node
        self.metrics = metrics if metrics is not None else Metrics()
        self.redis = _timed_client(url, self.metrics)
        #: The beginning of this site's channel names (:func:`channels_of` its database number).
        self.site = channels_of(int(self.redis.connection_pool.connection_kwargs.get("db") or 0))
        self.lobby = f"{self.site}lobby"
        self.up = False
        self._listened = False  # whether the listener has subscribed once: later, Redis is back
        self._away = False  # whether Redis was said to be away (at the start, or since): its return is said
        self._unpublished = 0  # messages not published since Redis went away (the first is logged)
        self._outgoing: asyncio.Queue[tuple[str, Any, Callable[[], None] | None]] = asyncio.Queue()
        self._wanted: set[str] = set()  # the table channels this process listens to
        self._ready: dict[str, asyncio.Event] = {}  # set once subscribed
        self._subscribed: set[str] = set()
        self._tasks: list[asyncio.Task[None]] = []
        #: When a Redis command last failed: for a lease's length after, only a table's last
        #: owner claims it (Redis may have restarted and kept no keys, and the owner may not have
        #: renewed its lease yet), so that tables do not change hands needlessly.
        self._failed_at = 0.0
        #: When each other process last sent this one something of its connections (a hello, a
        #: message, a bye): a process heard from within a heartbeat's length lives, whatever its
        #: heartbeat says (it may have stood still, and said something before renewing it).
        self._heard: dict[str, float] = {}
        self._renew = self.redis.register_script(_RENEW)
        self._release = self.redis.register_script(_RELEASE)

    # ------------------------------------------------------------------ running

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            await self.redis.ping()
            self.up = True
        except Exception as e:  # the tables this process runs are served; it tries again and again
            self.metrics.redis_errors.inc()
            self._away = True
            log.warning("cluster: Redis does not answer (%s); serving the tables this process runs", e)
        self._tasks = [loop.create_task(self._listen(), name="gongzhu-cluster-listen"),
                       loop.create_task(self._publish(), name="gongzhu-cluster-publish"),
                       loop.create_task(self._upkeep(), name="gongzhu-cluster-upkeep")]

    async def close(self, release: Iterable[str] = ()) -> None:
        """Stop, letting go of the leases of the tables in ``release`` (those this process ran)."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for table_id in release:
            with contextlib.suppress(Exception):
                await self._release(keys=[owner_key(table_id)], args=[self.node])
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    async def ping(self) -> None:
        """Ask Redis whether it answers, through this process's connection (raises if not)."""
        try:
            await self.redis.ping()
        except Exception:
            self.metrics.redis_errors.inc()
            raise

    def _failed(self) -> None:
        """A Redis command failed: Redis counts as away, and the lease's length of caution starts."""
        self.metrics.redis_errors.inc()
        self.up = False
        self._failed_at = asyncio.get_running_loop().time()

    # ------------------------------------------------------------------ ownership

    async def owner(self, table_id: str) -> str | None:
        try:
            value = await self.redis.get(owner_key(table_id))
        except Exception as e:
            self._failed()
            raise ClusterUnavailable(str(e)) from None
        return value.decode() if isinstance(value, bytes) else value

    async def claim(self, table_id: str) -> bool:
        """Become the table's owner if it has none."""
        try:
            return bool(await self.redis.set(owner_key(table_id), self.node, nx=True, px=LEASE_MS))
        except Exception as e:
            self._failed()
            raise ClusterUnavailable(str(e)) from None

    def release(self, table_id: str) -> None:
        """Give up the lease of a table this process lets go of."""
        self._outgoing.put_nowait(("release", table_id, None))

    # ------------------------------------------------------------------ messages

    def post(self, channel: str, payload: dict[str, Any], failed: Callable[[], None] | None = None) -> None:
        """Publish ``payload`` on ``channel``, after whatever was posted before (in order);
        ``failed`` is called when nobody got it (Redis could not take it, or no process listens
        on the channel) to tell whoever sent it."""
        self._outgoing.put_nowait((channel, payload, failed))

    def to_node(self, node: str, payload: dict[str, Any], failed: Callable[[], None] | None = None) -> None:
        self.post(node_channel(node, self.site), payload, failed)

    def to_table(self, table_id: str, payload: dict[str, Any]) -> None:
        self.post(table_channel(table_id, self.site), payload)

    def to_lobby(self, payload: dict[str, Any]) -> None:
        self.post(self.lobby, {**payload, "from": self.node})

    async def listen(self, table_id: str) -> None:
        """Listen to a table's changes, from when this returns (or a few seconds have passed)."""
        channel = table_channel(table_id, self.site)
        self._wanted.add(channel)
        ready = self._ready.setdefault(channel, asyncio.Event())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(ready.wait(), 5.0)

    def unlisten(self, table_id: str) -> None:
        self._wanted.discard(table_channel(table_id, self.site))
        self._ready.pop(table_channel(table_id, self.site), None)

    async def _publish(self) -> None:
        while True:
            channel, payload, failed = await self._outgoing.get()
            try:
                if channel == "release":
                    await self._release(keys=[owner_key(payload)], args=[self.node])
                elif not await self.redis.publish(channel, json.dumps(payload, separators=(",", ":"))) and failed:
                    failed()  # nobody listens (the process is gone, or not back yet)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # Redis away: what others would have had is made good on its return
                self._failed()
                self._unpublished += 1
                if self._unpublished == 1:  # (once an outage: the others are counted, and said on its end)
                    log.warning("cluster: could not publish on %s: %s", channel, e)
                if failed is not None:
                    failed()

    async def _listen(self) -> None:
        pubsub = None
        while True:
            try:
                if pubsub is None:
                    pubsub = self.redis.pubsub()
                    await pubsub.subscribe(node_channel(self.node, self.site), self.lobby)
                    self._subscribed = set()
                    first, self._listened, self.up = not self._listened, True, True
                    await self._recovered(first=first)
                adding = self._wanted - self._subscribed
                dropping = self._subscribed - self._wanted
                if adding:
                    await pubsub.subscribe(*adding)
                    self._subscribed |= adding
                    for channel in adding:
                        self._ready.setdefault(channel, asyncio.Event()).set()
                if dropping:
                    await pubsub.unsubscribe(*dropping)
                    self._subscribed -= dropping
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.05)
                if message is not None and message.get("type") == "message":
                    self._take(message)
            except asyncio.CancelledError:
                if pubsub is not None:
                    await _close_quietly(pubsub)
                raise
            except Exception as e:
                if self.up:
                    self._away = True
                    log.warning("cluster: Redis is away (%s); serving the tables this process runs", e)
                self._failed()
                if pubsub is not None:
                    await _close_quietly(pubsub)
                pubsub = None
                await asyncio.sleep(0.25)

    def _take(self, message: dict[str, Any]) -> None:
        """One message the bus brought, handled; one this server cannot read (not JSON, or not of
        the shape it knows: a server of another version, or anything else that can publish) is
        logged and dropped — it is not Redis being away, and the messages after it go on."""
        channel = message["channel"]
        channel = channel.decode() if isinstance(channel, bytes) else channel
        try:
            self._received(channel, json.loads(message["data"]))
        except Exception as e:  # (an error of this message's alone)
            log.warning("cluster: a message on %s could not be handled (%s: %s); dropped", channel,
                        e.__class__.__name__, e)

    async def _recovered(self, *, first: bool) -> None:
        """Redis answers (again): claim the tables this process runs again, and introduce every
        connection again to its table's owner (which may have changed meanwhile)."""
        self._failed_at = asyncio.get_running_loop().time()
        for table_id in list(self.tables.owned()):
            if not await self.redis.set(owner_key(table_id), self.node, nx=True, px=LEASE_MS):
                holder = await self.owner(table_id)
                if holder != self.node:
                    self.tables.lost(table_id)
        self.post(self.lobby, {"op": "ask", "from": self.node})
        if not first or self._away:  # at the level of "Redis is away", so that every log that has the one has the other
            unpublished, self._unpublished, self._away = self._unpublished, 0, False
            log.warning("cluster: Redis is back" + (f" ({unpublished} messages could not be published meanwhile)"
                                                     if unpublished > 1 else ""))
        for table_id in list(self.tables.owned()):
            self.tables.republish(table_id)  # what the others missed meanwhile
        # and, once the others have subscribed again too, introduce this process's connections
        # again to their tables' owners (a new owner knows nobody; an old one answers with a state)
        asyncio.get_running_loop().create_task(self._reintroduce_all(0.0 if first else RENEW_EVERY))

    async def _reintroduce_all(self, after: float) -> None:
        await asyncio.sleep(after)
        for table_id in self.tables.open_rooms():
            await self.tables.reintroduce(table_id)

    def _received(self, channel: str, payload: dict[str, Any]) -> None:
        tables = self.tables
        if channel == self.lobby:
            if payload.get("from") != self.node:
                tables.lobby_news(payload)
            return
        if channel.startswith(f"{self.site}t:"):
            table_id = channel[len(self.site) + 2:]
            if payload.get("from") == self.node:
                return
            if payload["op"] == "change":
                tables.deliver_here(table_id, payload["change"])
            elif payload["op"] == "beat":
                tables.beat(table_id, payload["v"], CATCH_UP_EVERY)
            elif payload["op"] == "owned":
                tables.owned_by(table_id, payload["from"])
            return
        op = payload["op"]
        if op in ("hello", "msg", "bye"):
            self._heard[payload["ref"][0]] = asyncio.get_running_loop().time()
        if op == "send":
            tables.send((self.node, payload["cid"]), payload.get("text"),
                        close=(payload["close"][0], payload["close"][1]) if payload.get("close") else None,
                        admit=bool(payload.get("admit")), v=payload.get("v"))
        elif op == "hello":
            tables.remote_hello(payload)
        elif op == "msg":
            tables.remote_message(payload)
        elif op == "bye":
            tables.remote_bye(payload)
        elif op == "close":
            tables.remote_close(payload)
        elif op == "rejoin":
            asyncio.get_running_loop().create_task(tables.rejoin(payload["cid"], payload.get("text")))

    # ------------------------------------------------------------------ upkeep

    async def _upkeep(self) -> None:
        """Renew this process's heartbeat and leases, let go of the tables another process took,
        prune the connections of processes that died, and claim the tables of this process's
        connections that have no owner (failover)."""
        while True:
            await asyncio.sleep(RENEW_EVERY)
            try:
                await self.redis.set(f"gz:node:{self.node}", "1", px=HEARTBEAT_MS)
                for table_id in list(self.tables.owned()):
                    version = self.tables.version_of(table_id)
                    if version is not None:  # rooms that missed a change find out by this
                        self.post(table_channel(table_id, self.site), {"op": "beat", "from": self.node, "v": version})
                    if not await self._renew(keys=[owner_key(table_id)], args=[self.node, LEASE_MS]):
                        holder = await self.owner(table_id)
                        if holder is None and await self.claim(table_id):
                            continue  # the lease had lapsed (Redis restarted): taken again
                        self.tables.lost(table_id)
                # (right after Redis failed, a process's heartbeat may be missing though it lives)
                settled = asyncio.get_running_loop().time() - self._failed_at > LEASE_MS / 1000
                nodes = self.tables.remote_nodes() if settled else []
                if nodes:
                    alive = await self.redis.mget([f"gz:node:{n}" for n in nodes])
                    now = asyncio.get_running_loop().time()
                    for node, beat in zip(nodes, alive, strict=True):
                        heard = self._heard.get(node)
                        if beat is None and (heard is None or now - heard >= HEARTBEAT_MS / 1000):
                            self.tables.node_gone(node)
                now = asyncio.get_running_loop().time()
                self._heard = {n: t for n, t in self._heard.items() if now - t < HEARTBEAT_MS / 1000}
                for table_id in self.tables.open_rooms() if settled else []:
                    if table_id in self.tables.owned():
                        continue
                    if await self.owner(table_id) is None and await self.claim(table_id):
                        await self.tables.took_over(table_id)
                await self.tables.knock_again(CATCH_UP_EVERY)
                self.up = True
            except asyncio.CancelledError:
                raise
            except Exception as e:
                if self.up:
                    log.warning("cluster: upkeep failed: %s", e)
                self._failed()
