"""The web application of the browser game (Starlette, run by uvicorn): the routes and the
WebSocket of ``docs/web-protocol.md``.  Plain Starlette rather than FastAPI: the API is a handful
of JSON routes, their bodies declared in ``gongzhu.formats.web`` (``table.parse_new_match``),
and FastAPI's import alone costs about half a second of the start command's one-second budget (docs/benchmarks.md).

:func:`create_app` builds it on a database URL (``sqlite:///path/gongzhu.db`` by default from
``gongzhu serve``).  The page files live in ``gongzhu/web/static`` (``index.html`` at ``/``,
``history.html`` at ``/history``, everything at ``/static/...``); while they are missing, ``/``
answers 503 saying the page is not built.  The message catalog of :mod:`gongzhu.messages`, which
the page loads before it draws, is at ``/messages/zh.json`` and ``/messages/en.json``.

Everything that arrives passes :class:`~gongzhu.server.policy.SitePolicy` first (hosts, origins,
header sizes, security headers); the routes then bound bodies and WebSocket messages and rate
each connection's messages (``docs/web-protocol.md``, Limits and the origin policy).  Before it,
:class:`~gongzhu.server.logs.RequestIds` gives each request its id; the operator's routes
(``/healthz``, ``/readyz``, ``/metrics``) are :mod:`gongzhu.server.operations`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy.exc import DataError, DBAPIError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from gongzhu.formats.web import MAX_TIMER, MIN_TIMER, PlayNowBody
from gongzhu.jsontext import show
from gongzhu.messages import LANGS, Text, catalog_bytes
from gongzhu.players.registry import LEVELS
from gongzhu.records.format import RecordError
from gongzhu.records.replay import check_records
from gongzhu.rules.cards import Seat
from gongzhu.rules.dealing import match_commitment
from gongzhu.rules.options import (
    INTEGER_LIMITS,
    INTEGER_OPTIONS,
    MAX_MATCH_DEALS,
    OPTION_CHOICES,
    OPTION_KEYS,
    PRESETS,
    Options,
)
from gongzhu.rules.scoring import POINT_CARDS
from gongzhu.server.accounts import routes as account_routes
from gongzhu.server.accounts import too_many
from gongzhu.server.accuracy import routes as accuracy_routes
from gongzhu.server.bodies import (
    DEFAULT_LEVEL,
    DEFAULT_SPEED,
    PERSON,
    SPEEDS,
    BodyError,
    NewTable,
    json_body,
    parse_new_match,
    parse_new_table,
    typed_body,
)
from gongzhu.server.bus import ClusterUnavailable
from gongzhu.server.challenge_api import routes as challenge_routes
from gongzhu.server.challenges import LEVEL, PAR_REPLAYS, Challenges
from gongzhu.server.cluster import Cluster
from gongzhu.server.events import routes as event_routes
from gongzhu.server.identity import GUESTS_PER_ADDRESS, GuestsRefused, Identity, User, device_of
from gongzhu.server.logs import RequestIds
from gongzhu.server.metrics import Metrics
from gongzhu.server.moderation import Moderation
from gongzhu.server.moderation import routes as moderation_routes
from gongzhu.server.operations import METRICS_ALLOW, watch
from gongzhu.server.operations import routes as operation_routes
from gongzhu.server.people import People
from gongzhu.server.people import routes as people_routes
from gongzhu.server.policy import (
    FORWARDED_HEADER,
    LOOPBACK_HOSTS,
    MAX_BODY_BYTES,
    MAX_MESSAGE_BYTES,
    WEBSOCKETS_PER_ADDRESS,
    RateLimiter,
    SitePolicy,
    SocketSlots,
    TrustedProxies,
    counted_address,
)
from gongzhu.server.registry import Tables
from gongzhu.server.reviews import WORKERS, Asker, ReviewJob, ReviewRefused, Reviews, parse_body, parse_seat
from gongzhu.server.rooms import Connection, Outbox, Person, Room
from gongzhu.server.rulebook import rules_page
from gongzhu.server.store import MatchInfo, Store, why_kept
from gongzhu.server.whatif import WhatIfs
from gongzhu.server.whatif import routes as whatif_routes
from gongzhu.server.wire import MessageError, Refused, encode, plain_error, refusal, refused_answer

if TYPE_CHECKING:
    from gongzhu.review import Budget

__all__ = ["STATIC_DIR", "config", "create_app", "match_summary"]

#: What the session check found of one connection: the person its session is of now (None: the
#: session ended), and why that person may not play (None: they may).
_Found = tuple[User | None, Text | None]

log = logging.getLogger("gongzhu.server")

#: The headers of an answer that depends on who asks (a challenge's board is shown only to those
#: who finished it): no cache shared between people keeps it.
PER_PERSON = {"Cache-Control": "private", "Vary": "Cookie"}

#: Where the page files are: ``gongzhu/web/static``.
STATIC_DIR = Path(__file__).resolve().parent.parent / "web" / "static"


def config() -> dict[str, Any]:
    """``GET /api/config``: presets with their resolved options, every R10 key with its values,
    the levels, the speeds and the point cards (R2, for the pages' record replays)."""
    values: dict[str, Any] = {}
    for key in OPTION_KEYS:
        if key in OPTION_CHOICES:
            values[key] = list(OPTION_CHOICES[key])
        elif key in INTEGER_OPTIONS:
            values[key] = "integer"
        else:  # match_end
            values[key] = ["loser", "either", "deals:N"]
    return {
        "presets": {name: opts.to_dict() for name, opts in PRESETS.items()},
        "default_preset": "online",
        "options": values,
        "defaults": Options().to_dict(),
        "limits": {**INTEGER_LIMITS, "match_end_deals": MAX_MATCH_DEALS},
        "timers": {"min": MIN_TIMER, "max": MAX_TIMER, "turn": 30, "expose": 20},
        "levels": list(LEVELS),
        "default_level": DEFAULT_LEVEL,
        "speeds": dict(SPEEDS),
        "default_speed": DEFAULT_SPEED,
        "seat": PERSON.name,
        "point_cards": [c.code for c in POINT_CARDS],
    }


def match_summary(info: MatchInfo, newest_solo: str | None = None, *,
                  played: Sequence[tuple[str, str, str | None]] = (), user: str | None = None) -> dict[str, Any]:
    """A match as ``GET /api/matches`` lists it.  The seed, from which every hand of the match
    can be dealt again, is shown only once the match is over (null before).  ``solo``: one person
    against three computer players; ``abandoned``: such a match without a finished deal that its
    person left for a newer one (``newest_solo``, their newest single-player match, which the table
    page goes on with) — not to be continued, and theirs to delete.  ``players``: who played each
    seat — the person sitting there, else the one whose last deal of the match was there (of
    ``played``, :meth:`~gongzhu.server.store.Store.players`, the latest), else the computer
    player's level; ``your_seat``: where ``user`` sits or last played (null: nowhere)."""
    return {
        "match_id": info.match_id,
        "created": info.created,
        "preset": info.preset,
        "options": info.options,
        "levels": info.levels,
        "seats": {s: (o[1] if o is not None else None) for s, o in zip("NESW", info.seating.seats, strict=True)},
        "status": info.seating.status,
        "speed": info.speed,
        "seed": info.seed if info.over else None,
        "deals": info.deals,
        "totals": dict(zip("NESW", info.totals, strict=True)),
        "over": info.over,
        "winners": info.winners,
        "pigs": info.pigs,
        "solo": info.solo,
        "seeded": info.seeded,
        "abandoned": _abandoned(info, newest_solo),
        **_players(info, played, user),
    }


def _players(info: MatchInfo, played: Sequence[tuple[str, str, str | None]], user: str | None) -> dict[str, Any]:
    """``players`` and ``your_seat`` of :func:`match_summary`."""
    seated = {occupant[0]: seat for seat, occupant in zip("NESW", info.seating.seats, strict=True) if occupant}
    last = {person: (seat, name) for person, name, seat in played  # each person once, by their last deal
            if seat in ("N", "E", "S", "W") and person not in seated}
    names = {seat: name for seat, name in last.values()}  # the latest last deal at a seat wins it
    names.update((seat, occupant[1]) for seat, occupant in zip("NESW", info.seating.seats, strict=True) if occupant)
    mine = None if user is None else seated.get(user) or (last[user][0] if user in last else None)
    return {
        "players": {s: {"name": names[s], "computer": None} if s in names
                    else {"name": None, "computer": info.levels.get(s)} for s in "NESW"},
        "your_seat": mine,
    }


def _abandoned(info: MatchInfo, newest_solo: str | None) -> bool:
    """A single-player match left for a newer one, with no finished deal: it may be deleted.  A
    challenge's entry never is (its challenge's page goes on with it)."""
    return (info.solo and info.challenge is None and not info.over and info.deals == 0
            and newest_solo is not None and newest_solo != info.match_id)


#: Why a match may not be deleted (:func:`gongzhu.server.store.why_kept`): the HTTP status and the
#: catalog key of the refusal.
_KEPT = {
    "unknown": (404, "server.delete_unknown"),
    "not_yours": (403, "server.delete_not_yours"),
    "table": (409, "server.delete_table"),
    "challenge": (409, "server.delete_challenge"),
    "deals": (409, "server.delete_has_deals"),
    "open": (409, "server.delete_open"),
}


#: A review's body refused by :func:`json_body`, by its status (else ``server.review_bad_body``).
_BODY_REFUSALS = {
    413: Text.of("server.review_body_too_large", limit=MAX_BODY_BYTES),
    415: Text.of("server.review_body_type"),
}

#: A deal number in a URL: plain ASCII digits, few enough to be a deal of a match.
_DEAL_NUMBER = re.compile(r"[0-9]{1,6}")
#: A match id as the server makes them (``m-`` and hex digits), give or take: anything else in a
#: URL is an unknown match without asking the database.
_MATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: How long a connection's first messages wait for the table's owner to let it in (seconds).
ADMISSION_WAIT = 60.0
#: How often (seconds) a server checks that its table connections' sessions go on (a session
#: ended through another server, or by ``gongzhu admin`` on the database); a session ended
#: through this one closes them at once.
SESSION_RECHECK = 5.0
#: Idle guests are forgotten this often (seconds), the first time a minute after the start
#: (:meth:`~gongzhu.server.identity.Identity.forget_idle_guests`).
GUEST_SWEEP, GUEST_SWEEP_FIRST = 3600.0, 60.0
#: The version a reconnecting page last saw (``?since=``): plain digits.
_VERSION = re.compile(r"[0-9]{1,15}")
_T = TypeVar("_T")
#: The close code of a WebSocket refused because its address holds as many as it may (as HTTP's 429).
TOO_MANY_SOCKETS = 4429


async def _http_error(_request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (an unknown path, a method a route does not take) as JSON."""
    assert isinstance(exc, HTTPException)
    return JSONResponse({"error": exc.detail}, status_code=exc.status_code, headers=exc.headers)


async def _no_guest(_request: Request, exc: Exception) -> Response:
    """A request that would make one guest too many for its address (429, ``Retry-After``)."""
    assert isinstance(exc, GuestsRefused)
    return too_many(exc.wait, "server.too_many_guests")


async def _internal_error(_request: Request | None, exc: Exception) -> Response:
    if isinstance(exc, DataError):  # a value of the request's that the database cannot keep (U+0000 in a path)
        log.warning("a value the database cannot keep: %s", exc.__class__.__name__)
        return refused_answer(400, Text.of("server.value_not_kept"))
    if isinstance(exc, DBAPIError):  # the database is away (restarting): try again later
        log.warning("the database cannot be reached: %s", exc.__class__.__name__)
        return refused_answer(503, Text.of("server.store_unavailable"))
    log.error("unexpected error", exc_info=exc)
    return refused_answer(500, Text.of("server.request_failed"))


async def _answer_to_error(exc: Exception) -> Response:
    """:func:`_internal_error` inside :class:`RequestIds`, so that a failed request's answer and
    lines carry its id (Starlette's own handler runs outside every middleware)."""
    return await _internal_error(None, exc)


def _page(path: Path, name: str) -> Response:
    if path.is_file():
        return FileResponse(path, media_type="text/html")
    return PlainTextResponse(
        f"The {name} page is not built: {path} is missing. The API (/api/...) and the "
        "WebSocket (/ws/{match_id}) are running.",
        status_code=503,
    )


def create_app(db_url: str, *, static_dir: Path | None = None, pace: float | None = None,
               hint_think: float | None = None, allowed_hosts: Sequence[str] = LOOPBACK_HOSTS,
               allowed_origins: Sequence[str] = (), redis_url: str | None = None,
               review_workers: int = WORKERS, review_budget: Budget | None = None,
               trusted_proxies: Sequence[str] = (), forwarded_header: str = FORWARDED_HEADER,
               websockets_per_address: int = WEBSOCKETS_PER_ADDRESS, par_replays: int = PAR_REPLAYS,
               guests_per_address: int = GUESTS_PER_ADDRESS, challenge_level: str = LEVEL,
               now: Callable[[], float] = time.time, metrics_allow: Sequence[str] = METRICS_ALLOW) -> Starlette:
    """The application on the database ``db_url`` (any SQLAlchemy URL).  ``static_dir`` replaces
    the page files' folder; ``pace`` (seconds per computer play) overrides every table's speed
    setting, ``hint_think`` the expert's search time per hint (tests use small values).
    ``allowed_hosts`` are the host names the server answers to (``"*"``: any) and
    ``allowed_origins`` the pages of other origins that may use it (see
    :mod:`gongzhu.server.policy`; the server's own origin always may).  ``redis_url`` makes the
    server one of several sharing the tables of one database (:mod:`gongzhu.server.cluster`).
    ``review_workers`` are the worker processes of the deal reviews and ``review_budget`` how hard
    each looks (:mod:`gongzhu.server.reviews`; by default ``gongzhu.review.DEFAULT_BUDGET``, tests
    use a small one).  ``trusted_proxies`` are the addresses and networks of the proxies whose
    forwarding headers give a client's address (:func:`~gongzhu.server.policy.client_address`),
    ``forwarded_header`` the one kind of those headers they write and the server reads
    (``x-forwarded-for`` or ``forwarded``, :class:`~gongzhu.server.policy.TrustedProxies`),
    ``websockets_per_address`` how many WebSockets one client address may hold open at once
    and ``guests_per_address`` how many guests it may make in an hour (0: no bound, either).
    ``par_replays`` are the expert replays of each board that give a challenge's par (0: none),
    ``challenge_level`` the computer players of the challenges, ``now`` the challenges' clock.
    ``metrics_allow`` are the client addresses and networks that may read ``GET /metrics``
    (:mod:`gongzhu.server.operations`; this machine by default)."""
    metrics = Metrics()
    store = Store(db_url)
    metrics.watch_store(store.engine)
    identity = Identity(store, guests_per_address=guests_per_address)
    tables = Tables(store, pace=pace, hint_think=hint_think, metrics=metrics)
    reviews = Reviews(workers=review_workers, budget=review_budget)
    watch(metrics, tables, reviews)

    def par(seed: str, definition: Mapping[str, Any], commitment: str, seat: Seat) -> list[float | None]:
        return reviews.board_pars(seed, definition, commitment, seat, replays=par_replays)

    challenges = Challenges(store, now=now, par=par if par_replays else None, level=challenge_level)
    tables.challenges = challenges
    static = Path(static_dir) if static_dir is not None else STATIC_DIR
    slots = SocketSlots(websockets_per_address)
    # a ValueError now for what is no address or network, or a header the server does not read
    proxies = TrustedProxies(trusted_proxies, forwarded_header)
    #: The open table connections of this server, with their sockets: each goes on only while the
    #: session it was opened with does (sign-out, sign-up, signing in over it end that session).
    watched: dict[Connection, WebSocket] = {}

    #: The open lobby connections of a person here: the events' news goes to them while their
    #: session lasts.
    lobby_watched: dict[Outbox, WebSocket] = {}

    async def off_the_loop(work: Callable[..., _T], *args: Any) -> _T:
        """``work(*args)`` in a thread, so that a database slow to answer holds no table, page or
        health check meanwhile — on the loop for a database in memory, which no other process
        shares and whose one connection a thread must not share (Store.in_memory)."""
        return work(*args) if store.in_memory else await asyncio.to_thread(work, *args)

    def looked_up(lobbies: list[tuple[Outbox, WebSocket]], connections: list[tuple[Connection, WebSocket]],
                  ) -> tuple[dict[Outbox, _Found], dict[Connection, _Found]] | None:
        """The database's side of :func:`recheck` — whose session each connection still is, and
        whether a person whose session ended is suspended or banned — with nothing changed; None
        when the database is away (nothing to tell yet).  Touches no connection, so it runs in a
        thread as well as on the event loop."""
        try:
            lobby_found: dict[Outbox, _Found] = {outbox: (identity.user_for(ws), None) for outbox, ws in lobbies}
            table_found: dict[Connection, _Found] = {}
            for connection, ws in connections:
                user = identity.user_for(ws)
                barred = moderation.barred(connection.person.id) if user is None or user.id != connection.person.id \
                    else None
                table_found[connection] = (user, barred)
        except DBAPIError:
            return None
        return lobby_found, table_found

    def told_of(found: tuple[dict[Outbox, _Found], dict[Connection, _Found]] | None) -> None:
        """The connections' side of :func:`recheck`: each connection whose session ended (or whose
        person's name changed) since :func:`looked_up` is told and closed, unless it closed meanwhile."""
        if found is None:
            return
        for outbox, (user, _) in found[0].items():
            if outbox in lobby_watched and (user is None or user.id != tables.lobby.people.get(outbox)):
                lobby_watched.pop(outbox, None)
                tables.lobby.people.pop(outbox, None)
        for connection, (user, barred) in found[1].items():
            if connection not in watched:
                continue
            if user is None or user.id != connection.person.id:
                watched.pop(connection, None)
                if barred is not None:
                    connection.outbox.put(encode(refusal(barred)))
                    connection.outbox.close(4403, "suspended or banned")
                    continue
                connection.outbox.put(encode(refusal(Text.of("server.session_ended"))))
                connection.outbox.close(4401, "the session ended")
            elif user.name != connection.person.name:
                watched.pop(connection, None)
                connection.outbox.put(encode(refusal(Text.of("server.name_changed", name=user.name))))
                connection.outbox.close(4401, "the name changed")

    def of_whom(user_id: str | None) -> tuple[list[tuple[Outbox, WebSocket]], list[tuple[Connection, WebSocket]]]:
        """The open lobby and table connections here (of ``user_id``; of everyone without)."""
        lobbies = [(o, ws) for o, ws in lobby_watched.items() if user_id in (None, tables.lobby.people.get(o))]
        return lobbies, [(c, ws) for c, ws in watched.items() if user_id in (None, c.person.id)]

    def recheck(user_id: str | None = None) -> None:
        """Close this server's table connections (of ``user_id``; of everyone without) whose
        session ended: the page is told so (``server.session_ended``) and closed with 4401 — or,
        for a person suspended or banned, told why and closed with 4403 (it does not come back);
        one that knows its person by a name they no longer have is told so
        (``server.name_changed``) and closed with 4401 too, to connect again under the new one.
        A lobby connection whose session ended goes on as nobody's (no event's news)."""
        told_of(looked_up(*of_whom(user_id)))

    async def recheck_off_the_loop() -> None:
        """:func:`recheck` of every connection with the database read :func:`off_the_loop`."""
        told_of(await off_the_loop(looked_up, *of_whom(None)))

    identity.on_ended = recheck
    moderation = Moderation(store, identity, tables, now)
    identity.barred = moderation.barred
    tables.muted = moderation.muted

    def tell(user_id: str, text: Text) -> int:
        """Say ``text`` to every open table connection of ``user_id`` here; how many there were."""
        told = [c for c in watched if c.person.id == user_id]
        for connection in told:
            connection.outbox.put(encode(refusal(text)))
        return len(told)

    moderation.tell = tell

    def share(user_id: str, text: Text | None) -> None:
        """A sanction's news for the other servers' pages of ``user_id`` (with several servers)."""
        if tables.bus.shared:
            tables.bus.to_lobby({"op": "moderated", "user": user_id,
                                 "text": [text.key, dict(text.params)] if text is not None else None})

    def moderated(payload: Mapping[str, Any]) -> None:
        said = payload.get("text")
        text = Text(str(said[0]), dict(said[1])) if isinstance(said, list) and len(said) == 2 else None
        moderation.heard(str(payload["user"]), text)

    moderation.share = share
    tables.moderated = moderated
    identity.on_deleted = tables.forget

    async def recheck_every(seconds: float) -> None:
        """Sessions ended on another server, or by an operator's command on the database
        (``gongzhu admin reset-password``): this one's connections are checked every ``seconds``."""
        while True:
            await asyncio.sleep(seconds)
            try:
                await recheck_off_the_loop()
            except Exception:  # a defect: logged, the next round tries again
                log.exception("checking the sessions of the open connections failed")

    async def forget_guests_every(seconds: float) -> None:
        """Guests with nothing kept are forgotten every ``seconds`` (the first time a minute
        after the start), off the event loop; the connections they still had close."""
        await asyncio.sleep(min(seconds, GUEST_SWEEP_FIRST))
        while True:
            try:
                gone = await off_the_loop(identity.forget_idle_guests)
            except Exception:  # the database away, or a defect: logged, the next round tries again
                log.exception("forgetting the idle guests failed")
            else:
                if gone:
                    log.info("forgot %d idle guests", len(gone))
                    await recheck_off_the_loop()
            await asyncio.sleep(seconds)

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        store.checkpoint_in_background()
        if redis_url is not None:  # one of several servers (gongzhu.server.cluster)
            tables.use(Cluster(redis_url, tables.node, tables, metrics))
        # Sessions end elsewhere too: on another server, or by `gongzhu admin` on the database.
        rechecking = asyncio.create_task(recheck_every(SESSION_RECHECK))
        await tables.bus.start()
        if tables.events is not None:
            await tables.events.resume()  # the events' start times, grace and stages, watched again
        lag = asyncio.create_task(metrics.watch_loop())
        forgetting = asyncio.create_task(forget_guests_every(GUEST_SWEEP))
        yield
        forgetting.cancel()
        lag.cancel()
        rechecking.cancel()
        await reviews.close()  # their worker processes too
        owned = tables.owned()
        await tables.close()
        await tables.bus.close(release=owned)  # the others may take these tables at once
        store.close()

    def known(match_id: str) -> MatchInfo | None:
        return store.match(match_id) if _MATCH_ID.fullmatch(match_id) else None

    def person(request: Request) -> tuple[Person, str | None]:
        """The request's person, made when it has none, as it is about to host or sit (marked
        seen: :meth:`~gongzhu.server.identity.Identity.seen`)."""
        user, cookie = identity.ensure(request)
        if not identity.seen(user):  # forgotten as an idle guest this moment: someone new
            user, cookie = identity.ensure(request)
        return Person(user.id, user.name), cookie

    people = People(store)

    def table_url(match_id: str, user: str) -> str | None:
        """The address of a table ``user`` sits at or hosts, not over (a private one's with its
        invitation), for inviting a friend to it; None otherwise."""
        info = known(match_id)
        if info is None or info.solo or info.over or info.seating.status == "over" or info.challenge is not None:
            return None  # (a table an operator closed is over without its match being)
        seating = info.seating
        if seating.host != user and all(o is None or o[0] != user for o in seating.seats):
            return None
        url = f"/table/{match_id}"
        return f"{url}?invite={seating.invite}" if seating.visibility == "private" and seating.invite else url

    def with_cookie(response: Response, cookie: str | None) -> Response:
        if cookie is not None:
            response.headers.append("set-cookie", cookie)
        return response

    def page(request: Request, path: Path, name: str) -> Response:
        """A page, with the browser's session made first: the requests its scripts send at once,
        side by side, then share that one session (each would otherwise make a guest of its own,
        and the last answer would decide who the browser is)."""
        try:
            _, cookie = identity.ensure(request)
        except GuestsRefused:  # its address made guests enough: the page, without one (its person
            cookie = None      # may sign in or up there; playing as a guest waits)
        return with_cookie(_page(path, name), cookie)

    def page_route(path: str, file: str, name: str) -> Route:
        """The route of a page of the static folder (made with the browser's session)."""

        async def endpoint(request: Request) -> Response:
            return page(request, static / file, name)

        return Route(path, endpoint)

    async def get_rules(request: Request) -> Response:
        lang = request.path_params["lang"]
        if lang not in LANGS:
            return plain_error(404, f"no rule book in {show(lang)}: one of {', '.join(LANGS)}")
        return JSONResponse(rules_page(lang))

    async def get_config(_request: Request) -> Response:
        return JSONResponse(config())

    async def get_messages(request: Request) -> Response:
        lang = request.path_params["lang"]
        if lang not in LANGS:
            return plain_error(404, f"no message catalog for {show(lang)}: one of {', '.join(LANGS)}")
        return Response(catalog_bytes(lang), media_type="application/json")

    async def _new(request: Request, parse: Any) -> NewTable | Response:
        try:
            return parse(await json_body(request))  # type: ignore[no-any-return]
        except BodyError as e:
            return plain_error(e.status, str(e))
        except MessageError as e:
            return plain_error(400, str(e))
        except Refused as e:
            return refused_answer(400, e.text)

    def cluster_down() -> Response | None:
        """A refusal while this server, one of several, cannot reach Redis: a table made now could
        not be opened (whether another server runs it cannot be known), so none is made."""
        if tables.bus.shared and not tables.bus.up:
            return refused_answer(503, Text.of("server.cluster_down"))
        return None

    async def new_match(request: Request) -> Response:
        new = await _new(request, parse_new_match)
        if isinstance(new, Response):
            return new
        if (down := cluster_down()) is not None:
            return down
        host, cookie = person(request)
        info = tables.create(new, host)
        return with_cookie(JSONResponse({"match_id": info.match_id, "url": f"/table/{info.match_id}"},
                                        status_code=201), cookie)

    async def new_table(request: Request) -> Response:
        new = await _new(request, parse_new_table)
        if isinstance(new, Response):
            return new
        if (down := cluster_down()) is not None:
            return down
        host, cookie = person(request)
        info = tables.create(new, host)
        body = {"table_id": info.match_id, "url": f"/table/{info.match_id}"}
        if info.seating.visibility == "private":
            body["invite"] = info.seating.invite or ""
            body["url"] += f"?invite={info.seating.invite}"
        return with_cookie(JSONResponse(body, status_code=201), cookie)

    async def play_now(request: Request) -> Response:
        try:
            body = await typed_body(request, PlayNowBody)
        except BodyError as e:
            return plain_error(e.status, str(e))
        if body.preset is not None and body.preset not in PRESETS:
            return plain_error(400, f"preset {show(body.preset)}: one of {', '.join(PRESETS)}")
        if (down := cluster_down()) is not None:
            return down
        who, cookie = person(request)
        if body.ranked and not store.accounts([who.id]):
            return with_cookie(refused_answer(403, Text.of("server.ranked_account_needed")), cookie)
        identity.came_from(who.id, request)  # (seated before their table page comes: its network)
        table_id = tables.play_now(who, preset=body.preset, ranked=body.ranked)
        return with_cookie(JSONResponse({"table_id": table_id, "url": f"/table/{table_id}"}), cookie)

    async def get_node(_request: Request) -> Response:
        return JSONResponse({"node": tables.node, "shared": redis_url is not None})

    async def list_tables(_request: Request) -> Response:
        return JSONResponse(tables.lobby.listing())

    async def list_matches(request: Request) -> Response:
        user = identity.user_for(request)
        if user is None:
            return JSONResponse([])
        found = store.matches(user.id)
        newest = next((m.match_id for m in found if m.solo and m.seating.host == user.id), None)
        played = store.players([m.match_id for m in found])
        return JSONResponse([match_summary(m, newest, played=played.get(m.match_id, ()), user=user.id)
                             for m in found])

    def hidden(request: Request, info: MatchInfo, k: int | None) -> Response | None:
        """A refusal when the match is a challenge's whose boards the person may not see yet, or
        an event's table that is not theirs."""
        user = identity.user_for(request)
        if challenges.may_read(info, k, user.id if user is not None else None):
            return None
        return refused_answer(403, challenges.hidden_text(info, k))

    async def get_match(request: Request) -> Response:
        match_id = request.path_params["match_id"]
        info = known(match_id)
        if info is None:
            return plain_error(404, f"unknown match {show(match_id)}")
        if (refused := hidden(request, info, None)) is not None:
            return refused
        host = info.seating.host
        newest = store.newest_solo(host) if info.solo and host is not None and info.deals == 0 else None
        user = identity.user_for(request)
        played = store.players([info.match_id]).get(info.match_id, ())
        return JSONResponse(match_summary(info, newest, played=played, user=user.id if user is not None else None),
                            headers=PER_PERSON)

    async def delete_match(request: Request) -> Response:
        match_id = request.path_params["match_id"]
        if not _MATCH_ID.fullmatch(match_id):
            return refused_answer(400, Text.of("server.delete_bad_id", match=show(match_id)))
        user = identity.user_for(request)
        if user is None:
            return refused_answer(401, Text.of("server.no_session"))
        info = store.match(match_id)
        why = "unknown" if info is None else why_kept(info, user.id)
        room, table = tables.rooms.get(match_id), tables.loaded(match_id)
        if why is None and ((room is not None and room.connections) or (table is not None and table.presences)):
            why = "open"  # a page shows it now: it would break under that page
        if why is None:
            try:
                owner = await tables.bus.owner(match_id)
            except ClusterUnavailable:
                return refused_answer(503, Text.of("server.cluster_unavailable"))
            if owner is not None and owner != tables.node:
                why = "open"  # another server runs it now, for a page there
        if why is None:
            if table is not None:  # loaded still, nobody there: stopped before its rows go
                tables.release(table)
            why = store.delete_match(match_id, user.id)  # checks again, in the deleting transaction
        if why is not None:
            status, key = _KEPT[why]
            return refused_answer(status, Text.of(key, match=show(match_id)))
        log.info("match %s deleted by its person", match_id)
        return JSONResponse({"deleted": match_id}, headers={"Cache-Control": "no-store"})

    async def get_deal(request: Request) -> Response:
        match_id, k = request.path_params["match_id"], request.path_params["k"]
        info = known(match_id)
        if info is None:
            return plain_error(404, f"unknown match {show(match_id)}")
        if _DEAL_NUMBER.fullmatch(k) and (refused := hidden(request, info, int(k))) is not None:
            return refused
        line = store.record(match_id, int(k)) if _DEAL_NUMBER.fullmatch(k) else None
        if line is None:
            return plain_error(404, f"match {show(match_id)} has no finished deal {show(k)}")
        return Response(line, media_type="application/json", headers=PER_PERSON)

    async def get_records(request: Request) -> Response:
        match_id = request.path_params["match_id"]
        info = known(match_id)
        if info is None:
            return plain_error(404, f"unknown match {show(match_id)}")
        if (refused := hidden(request, info, None)) is not None:
            return refused
        text = "".join(line + "\n" for line in store.records(match_id))
        return Response(text, media_type="application/x-ndjson; charset=utf-8",
                        headers={**PER_PERSON,
                                 "Content-Disposition": f'attachment; filename="gongzhu-{match_id}.jsonl"'})

    async def verify_match(request: Request) -> Response:
        """``GET /api/matches/{id}/verify``: the commitment to the match's cards, and once it is
        over its seed and whether every finished deal was dealt from it (the server's own check of
        what ``gongzhu replay --match-seed S --commitment C`` checks anywhere)."""
        match_id = request.path_params["match_id"]
        info = known(match_id)
        if info is None:
            return plain_error(404, f"unknown match {show(match_id)}")
        if (refused := hidden(request, info, None)) is not None:
            return refused
        if info.challenge is not None:
            return plain_error(404, f"match {show(match_id)} plays a challenge's boards: its challenge's "
                                    "commitment is what they are checked against")
        options = Options.from_dict(info.options).to_dict()
        commitment = match_commitment(info.seed, options)
        # A seed the host chose may be one of few: its hash would give it away before the end.
        shown = commitment if info.over or not info.seeded else None
        answer: dict[str, Any] = {"match_id": match_id, "commitment": shown, "seed": None, "deals": info.deals,
                                  "verified": None, "problem": None}
        if info.over:
            answer["seed"] = str(info.seed)
            try:
                lines = [json.loads(line) for line in store.records(match_id)]
                answer["verified"] = len(list(check_records(lines, match_seed=info.seed, commitment=commitment)))
            except RecordError as e:
                answer["verified"], answer["problem"] = False, str(e)
        return JSONResponse(answer, headers={"Cache-Control": "no-store"})

    async def my_records(request: Request) -> Response:
        user = identity.user_for(request)
        if user is None:
            return refused_answer(401, Text.of("server.no_session"))
        lines = [line for m in reversed(store.matches(user.id)) for line in store.records(m.match_id)]
        return Response("".join(line + "\n" for line in lines), media_type="application/x-ndjson; charset=utf-8",
                        headers={"Content-Disposition": 'attachment; filename="gongzhu-my-records.jsonl"'})

    def review_deal(request: Request) -> tuple[MatchInfo, int]:
        """The match and the deal number of a review's URL (refused when either is unknown)."""
        match_id, k = request.path_params["match_id"], request.path_params["k"]
        info = known(match_id)
        if info is None:
            raise ReviewRefused(404, Text.of("server.review_unknown_match", match=show(match_id)))
        if not _DEAL_NUMBER.fullmatch(k):
            raise ReviewRefused(404, Text.of("server.review_no_deal", match=show(match_id), deal=show(k)))
        user = identity.user_for(request)
        if not challenges.may_read(info, int(k), user.id if user is not None else None):
            raise ReviewRefused(403, challenges.hidden_text(info, int(k)))
        return info, int(k)

    def finished_record(info: MatchInfo, k: int) -> str:
        """The stored R11 record of finished deal ``k`` (a deal still being played is refused)."""
        line = store.record(info.match_id, k)
        if line is not None:
            return line
        if k == info.deals and not info.over and info.seating.status != "waiting":
            raise ReviewRefused(409, Text.of("server.review_not_finished", match=show(info.match_id), deal=k))
        raise ReviewRefused(404, Text.of("server.review_no_deal", match=show(info.match_id), deal=k))

    def review_refused(e: ReviewRefused) -> Response:
        response = refused_answer(e.status, e.text)
        if e.status == 503:
            response.headers["Retry-After"] = "5"
        return response

    def review_answer(job: ReviewJob) -> Response:
        try:
            status, body = reviews.answer(job)
        except ReviewRefused as e:
            return review_refused(e)
        return JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store"})

    async def start_review(request: Request) -> Response:
        try:
            body = await json_body(request)
        except BodyError as e:
            return refused_answer(e.status, _BODY_REFUSALS.get(e.status, Text.of("server.review_bad_body")))
        try:
            seat = parse_body(body)
            info, k = review_deal(request)
            job = reviews.find(info.match_id, k, seat)
            if job is None or job.status == "failed":
                # The caller's share of the line: their person's (none without a session) and address's.
                user = identity.user_for(request)
                job = reviews.start(info.match_id, k, seat, finished_record(info, k),
                                    asker=Asker(user.id if user is not None else None, counted_address(request)))
                try:
                    _who, cookie = person(request)  # a POST makes its caller a person, as every other does
                except GuestsRefused:  # (its address made guests enough: the review is under way all the same)
                    cookie = None
            else:
                cookie = None
        except ReviewRefused as e:
            return review_refused(e)
        return with_cookie(review_answer(job), cookie)

    async def get_review(request: Request) -> Response:
        try:
            seat = parse_seat(request.query_params.get("seat"))
            info, k = review_deal(request)
            job = reviews.find(info.match_id, k, seat)
            if job is None:
                finished_record(info, k)  # refused if the deal is not finished (or not there)
                raise ReviewRefused(404, Text.of("server.review_not_started", match=show(info.match_id),
                                                 deal=k, seat=seat))
        except ReviewRefused as e:
            return review_refused(e)
        return review_answer(job)

    async def refuse(websocket: WebSocket, message: dict[str, Any], code: int, reason: str = "") -> None:
        await websocket.send_text(encode(message))
        await websocket.close(code=code, reason=reason)

    def bounded(handler: Callable[[WebSocket], Awaitable[None]]) -> Callable[[WebSocket], Awaitable[None]]:
        """``handler`` for a WebSocket that holds one of its address's slots while it is open; past
        them it is refused (an ``error``, then close code :data:`TOO_MANY_SOCKETS`)."""

        async def socket(websocket: WebSocket) -> None:
            address = counted_address(websocket)
            if not slots.take(address):
                log.info("a WebSocket from %s refused: it holds %d already", address, slots.most)
                await websocket.accept()
                text = Text.of("server.too_many_connections", limit=slots.most)
                await refuse(websocket, refusal(text), TOO_MANY_SOCKETS, "too many connections from one address")
                return
            try:
                await handler(websocket)
            finally:
                slots.give_back(address)

        return socket

    async def table_socket(websocket: WebSocket) -> None:
        match_id = websocket.path_params["match_id"]
        await websocket.accept()
        try:
            user = identity.user_for(websocket)
            # a guest is marked seen, so that the idle guests' sweep keeps it; one forgotten a
            # moment ago has no session
            present = user is not None and identity.seen(user)
        except DBAPIError as e:  # the database is away (restarting): the page tries again
            log.warning("the database cannot be reached: %s", e.__class__.__name__)
            await refuse(websocket, refusal(Text.of("server.store_unavailable")), 1013)
            return
        if user is None or not present:
            await refuse(websocket, refusal(Text.of("server.no_session")), 4401)
            return
        since_text = websocket.query_params.get("since")
        since = int(since_text) if since_text is not None and _VERSION.fullmatch(since_text) else None
        try:
            room = await tables.open_room(match_id) if _MATCH_ID.fullmatch(match_id) else None
        except ClusterUnavailable:  # (Redis did not answer: who runs the table cannot be known)
            await refuse(websocket, refusal(Text.of("server.cluster_down")), 1013)
            return
        except DBAPIError as e:
            log.warning("the database cannot be reached: %s", e.__class__.__name__)
            await refuse(websocket, refusal(Text.of("server.store_unavailable")), 1013)
            return
        except Exception:  # a stored match that no longer replays: say so, do not guess
            log.exception("cannot open match %s", match_id)
            await refuse(websocket, refusal(Text.of("server.table_broken", table=show(match_id))), 1011)
            return
        if room is None:
            await refuse(websocket, refusal(Text.of("server.unknown_table", table=show(match_id))), 4404)
            return
        same_browser: tuple[str, ...] = ()
        try:  # the network the page came from (a rated table seats one player per network)
            identity.came_from(user.id, websocket)
            # the other accounts of its browser: a mute of one holds chat here too
            device = device_of(websocket)
            if device is not None:
                same_browser = tuple(u for u in identity.accounts_of_browser(device) if u != user.id)
        except DBAPIError as e:  # (kept at the next page: nothing here depends on it)
            log.warning("the database cannot be reached: %s", e.__class__.__name__)
        # The warnings not told yet, once the connection below is open (gongzhu.server.moderation).
        asyncio.get_running_loop().call_soon(moderation.tell_unseen, user.id)
        await _serve(websocket, tables, room, Person(user.id, user.name, same_browser), since,
                     websocket.query_params.get("invite"), watched)

    async def lobby_socket(websocket: WebSocket) -> None:
        await websocket.accept()
        outbox = Outbox(lambda: encode(tables.lobby.snapshot()), name="lobby")
        tables.lobby.outboxes.add(outbox)
        person = identity.user_for(websocket)  # an event's news goes to its own people only
        if person is not None:
            tables.lobby.people[outbox] = person.id
            lobby_watched[outbox] = websocket
        outbox.put(encode(tables.lobby.snapshot()))
        pump = asyncio.create_task(_pump(websocket, outbox))
        try:
            while not pump.done():
                receiving = asyncio.ensure_future(websocket.receive())
                await asyncio.wait({receiving, pump}, return_when=asyncio.FIRST_COMPLETED)
                if not receiving.done():
                    receiving.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await receiving
                    break
                if receiving.result()["type"] == "websocket.disconnect":
                    break
                outbox.put(encode({"type": "error", "message": "the lobby takes no messages: it only lists tables"}))
        except WebSocketDisconnect:
            pass
        finally:
            tables.lobby.outboxes.discard(outbox)
            tables.lobby.people.pop(outbox, None)
            lobby_watched.pop(outbox, None)
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pump

    routes: list[Route | WebSocketRoute | Mount] = [
        page_route("/", "index.html", "table"),
        page_route("/table/{match_id}", "index.html", "table"),
        page_route("/lobby", "lobby.html", "lobby"),
        page_route("/history", "history.html", "history"),
        page_route("/profile", "profile.html", "profile"),
        page_route("/leaderboard", "leaderboard.html", "leaderboard"),
        page_route("/rules", "rules.html", "rules"),
        page_route("/admin", "admin.html", "admin"),
        *account_routes(identity),
        *people_routes(people, identity, table_url, tables.blocked),
        *moderation_routes(moderation, identity),
        *challenge_routes(challenges, tables, identity, page, static),
        *event_routes(store, tables, identity, page, static, now, par if par_replays else None),
        *operation_routes(metrics, tables, store, metrics_allow, proxies),
        *accuracy_routes(store, identity, reviews),
        Route("/api/config", get_config),
        Route("/messages/{lang}.json", get_messages),
        Route("/api/rules/{lang}", get_rules),
        Route("/api/matches", new_match, methods=["POST"]),
        Route("/api/tables", new_table, methods=["POST"]),
        Route("/api/tables", list_tables),
        Route("/api/node", get_node),
        Route("/api/tables/play-now", play_now, methods=["POST"]),
        Route("/api/matches", list_matches),
        Route("/api/matches/{match_id}", get_match),
        Route("/api/matches/{match_id}", delete_match, methods=["DELETE"]),
        Route("/api/matches/{match_id}/deals/{k}", get_deal),
        Route("/api/matches/{match_id}/deals/{k}/review", start_review, methods=["POST"]),
        Route("/api/matches/{match_id}/deals/{k}/review", get_review),
        *whatif_routes(WhatIfs(), known, store, challenges, identity),
        Route("/api/matches/{match_id}/records.jsonl", get_records),
        Route("/api/matches/{match_id}/verify", verify_match),
        Route("/api/me/records.jsonl", my_records),
        WebSocketRoute("/ws/lobby", bounded(lobby_socket)),
        WebSocketRoute("/ws/{match_id}", bounded(table_socket)),
    ]
    if static.is_dir():
        routes.append(Mount("/static", StaticFiles(directory=static), name="static"))
    app = Starlette(
        routes=routes, lifespan=lifespan,
        middleware=[Middleware(RequestIds, trusted_proxies=proxies, errors=_answer_to_error),
                    Middleware(SitePolicy, allowed_hosts=list(allowed_hosts),
                               allowed_origins=list(allowed_origins), trusted_proxies=list(trusted_proxies),
                               forwarded_header=forwarded_header)],
        exception_handlers={HTTPException: _http_error, GuestsRefused: _no_guest, Exception: _internal_error},
    )
    app.state.tables = tables
    app.state.store = store
    app.state.identity = identity
    app.state.reviews = reviews
    app.state.challenges = challenges
    app.state.sockets = slots
    app.state.metrics = metrics
    return app


async def _serve(websocket: WebSocket, tables: Tables, room: Room, person: Person, since: int | None,
                 invite: str | None, watched: dict[Connection, WebSocket]) -> None:
    """One connection of ``person``: its outbox is pumped by a task while browser messages are
    read, each one no larger than :data:`MAX_MESSAGE_BYTES`, at the connection's rate
    (:class:`~gongzhu.server.policy.RateLimiter`), and handed to the table's owner.  It is
    ``watched`` while it is open (closed when its session ends)."""
    connection = room.connect(person, since)
    watched[connection] = websocket
    outbox = connection.outbox
    pump = asyncio.create_task(_pump(websocket, outbox))
    limiter = RateLimiter()
    loop = asyncio.get_running_loop()

    def reply(message: dict[str, Any]) -> None:
        outbox.put(encode(message))

    try:
        await tables.hello(connection, invite)
        while not pump.done():
            receiving = asyncio.ensure_future(websocket.receive())
            await asyncio.wait({receiving, pump}, return_when=asyncio.FIRST_COMPLETED)
            if not receiving.done():  # the pump stopped: the connection is over
                receiving.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await receiving
                break
            message = receiving.result()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            data = message.get("bytes")
            size = len(text.encode("utf-8", "surrogatepass")) if text is not None else len(data or b"")
            wait = limiter.delay(loop.time())
            if wait > 0:
                await asyncio.sleep(wait)
            if size > MAX_MESSAGE_BYTES:
                reply(refusal(Text.of("server.message_too_large", size=size, limit=MAX_MESSAGE_BYTES)))
                continue
            if not connection.admitted:  # the table's owner (another server) has not answered yet
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(connection.ready.wait(), ADMISSION_WAIT)
                if not connection.admitted:
                    reply(refusal(Text.of("server.cluster_unavailable")))
                    continue
            try:
                await tables.message(connection, text)
            except Exception:  # a defect, not the browser's fault: say so, keep the connection
                log.exception("%s: a message failed", room.table_id)
                reply(refusal(Text.of("server.message_failed")))
    except WebSocketDisconnect:
        pass
    finally:
        watched.pop(connection, None)
        tables.bye(connection)
        pump.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await pump


async def _pump(websocket: WebSocket, outbox: Outbox) -> None:
    """Send the outbox's messages until it closes the connection (or sending fails)."""
    try:
        while (text := await outbox.get()) is not None:
            await websocket.send_text(text)
        code, reason = outbox.closing or (1000, "")
        await websocket.close(code=code, reason=reason)
    except asyncio.CancelledError:
        raise
    except Exception as e:  # the socket is gone: the read loop ends too
        log.debug("%s: sending stopped: %s", outbox.name, e)
