"""The web application of the browser game (Starlette, run by uvicorn): the routes and the
WebSocket of ``docs/web-protocol.md``.  Plain Starlette rather than FastAPI: the API is a handful
of JSON routes validated by hand (``table.parse_new_match``), and FastAPI's import alone costs
about half a second of the start command's one-second budget (docs/benchmarks.md).

:func:`create_app` builds it on a database URL (``sqlite:///path/gongzhu.db`` by default from
``gongzhu serve``).  The page files live in ``gongzhu/web/static`` (``index.html`` at ``/``,
``history.html`` at ``/history``, everything at ``/static/...``); while they are missing, ``/``
answers 503 saying the page is not built.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from gongzhu.jsontext import JSONTextError, loads_strict
from gongzhu.players.registry import LEVELS
from gongzhu.rules.match import title_for
from gongzhu.rules.options import INTEGER_OPTIONS, OPTION_CHOICES, OPTION_KEYS, PRESETS, Options
from gongzhu.server.store import MatchInfo, Store
from gongzhu.server.table import (
    DEFAULT_LEVEL,
    DEFAULT_SPEED,
    PERSON,
    SPEEDS,
    MessageError,
    Table,
    Tables,
    encode,
    parse_new_match,
)

__all__ = ["STATIC_DIR", "config", "create_app", "match_summary"]

log = logging.getLogger("gongzhu.server")

#: Where the page files are (written by the page's own change: ``gongzhu/web/static``).
STATIC_DIR = Path(__file__).resolve().parent.parent / "web" / "static"


def config() -> dict[str, Any]:
    """``GET /api/config``: presets with their resolved options, every R10 key with its values,
    the levels and the speeds."""
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
        "levels": list(LEVELS),
        "default_level": DEFAULT_LEVEL,
        "speeds": dict(SPEEDS),
        "default_speed": DEFAULT_SPEED,
        "seat": PERSON.name,
    }


def match_summary(info: MatchInfo) -> dict[str, Any]:
    """A match as ``GET /api/matches`` lists it."""
    return {
        "match_id": info.match_id,
        "created": info.created,
        "preset": info.preset,
        "options": info.options,
        "levels": info.levels,
        "speed": info.speed,
        "seed": info.seed,
        "deals": info.deals,
        "totals": dict(zip("NESW", info.totals, strict=True)),
        "over": info.over,
        "winners": info.winners,
        "pigs": info.pigs,
    }


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _page(path: Path, name: str) -> Response:
    if path.is_file():
        return FileResponse(path, media_type="text/html")
    return PlainTextResponse(
        f"The {name} page is not built: {path} is missing. The API (/api/...) and the "
        "WebSocket (/ws/{match_id}) are running.",
        status_code=503,
    )


def create_app(db_url: str, *, static_dir: Path | None = None, pace: float | None = None,
               hint_think: float | None = None) -> Starlette:
    """The application on the database ``db_url`` (any SQLAlchemy URL).  ``static_dir`` replaces
    the page files' folder; ``pace`` (seconds per computer play) overrides every table's speed
    setting, ``hint_think`` the expert's search time per hint (tests use small values)."""
    store = Store(db_url)
    tables = Tables(store, pace=pace, hint_think=hint_think)
    static = Path(static_dir) if static_dir is not None else STATIC_DIR

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        yield
        await tables.close()
        store.close()

    async def table_page(_request: Request) -> Response:
        return _page(static / "index.html", "table")

    async def history_page(_request: Request) -> Response:
        return _page(static / "history.html", "history")

    async def get_config(_request: Request) -> Response:
        return JSONResponse(config())

    async def new_match(request: Request) -> Response:
        body = await request.body()
        try:
            try:
                data = loads_strict(body.decode("utf-8")) if body.strip() else {}
            except (JSONTextError, UnicodeDecodeError) as e:
                raise MessageError(f"the body is not JSON: {e}") from None
            new = parse_new_match(data)
        except MessageError as e:
            return _error(400, str(e))
        info = tables.create(new)
        return JSONResponse({"match_id": info.match_id}, status_code=201)

    async def list_matches(_request: Request) -> Response:
        return JSONResponse([match_summary(m) for m in store.matches()])

    async def get_match(request: Request) -> Response:
        match_id = request.path_params["match_id"]
        info = store.match(match_id)
        if info is None:
            return _error(404, f"unknown match {match_id!r}")
        return JSONResponse(match_summary(info))

    async def get_deal(request: Request) -> Response:
        match_id, k = request.path_params["match_id"], request.path_params["k"]
        if store.match(match_id) is None:
            return _error(404, f"unknown match {match_id!r}")
        line = store.record(match_id, int(k)) if k.isdigit() else None
        if line is None:
            return _error(404, f"match {match_id!r} has no finished deal {k!r}")
        return Response(line, media_type="application/json")

    async def get_records(request: Request) -> Response:
        match_id = request.path_params["match_id"]
        if store.match(match_id) is None:
            return _error(404, f"unknown match {match_id!r}")
        text = "".join(line + "\n" for line in store.records(match_id))
        return Response(text, media_type="application/x-ndjson; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="gongzhu-{match_id}.jsonl"'})

    async def get_profile(_request: Request) -> Response:
        profile = store.profile()
        return JSONResponse({"lifetime": profile.lifetime, "title": title_for(profile.lifetime),
                             "matches": profile.matches, "deals": profile.deals})

    async def table_socket(websocket: WebSocket) -> None:
        match_id = websocket.path_params["match_id"]
        await websocket.accept()
        try:
            table = tables.get(match_id)
        except Exception as e:  # a stored match that no longer replays: say so, do not guess
            log.exception("cannot open match %s", match_id)
            await websocket.send_text(encode({"type": "error", "message": f"cannot open match {match_id!r}: {e}"}))
            await websocket.close(code=1011)
            return
        if table is None:
            await websocket.send_text(encode({"type": "error", "message": f"unknown match {match_id!r}"}))
            await websocket.close(code=4404)
            return
        await _serve(websocket, table)

    routes: list[Route | WebSocketRoute | Mount] = [
        Route("/", table_page),
        Route("/history", history_page),
        Route("/api/config", get_config),
        Route("/api/matches", new_match, methods=["POST"]),
        Route("/api/matches", list_matches),
        Route("/api/matches/{match_id}", get_match),
        Route("/api/matches/{match_id}/deals/{k}", get_deal),
        Route("/api/matches/{match_id}/records.jsonl", get_records),
        Route("/api/profile", get_profile),
        WebSocketRoute("/ws/{match_id}", table_socket),
    ]
    if static.is_dir():
        routes.append(Mount("/static", StaticFiles(directory=static), name="static"))
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.tables = tables
    app.state.store = store
    return app


async def _serve(websocket: WebSocket, table: Table) -> None:
    """One connection: its outgoing queue is pumped by a task while browser messages are read."""
    queue = table.subscribe()
    pump = asyncio.create_task(_pump(websocket, queue))

    def reply(message: dict[str, Any]) -> None:
        queue.put_nowait(encode(message))

    try:
        table.kick()
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            await table.receive(message.get("text"), reply)
    except WebSocketDisconnect:
        pass
    finally:
        table.unsubscribe(queue)
        pump.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await pump


async def _pump(websocket: WebSocket, queue: asyncio.Queue[str]) -> None:
    while True:
        text = await queue.get()
        await websocket.send_text(text)
