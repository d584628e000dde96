"""pytest's side of the tests: the hypothesis profiles, the test session's environment and the
fixtures (the server's stores, the application, real browsers).  What the test modules share
besides lives in the package ``helpers`` (``tests/helpers/``), which they import from."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings
from starlette.testclient import TestClient

from gongzhu.server import create_app
from gongzhu.server.identity import CHEAP_HASHING_ENV
from helpers.browser import CHROMIUM, CHROMIUM_ARGS, TIMEOUT_MS, browser_missing
from helpers.client import local_client
from helpers.database import REDIS, SHARED_PG, ThrowawayPostgres, service_missing
from helpers.servers import LiveServer

if TYPE_CHECKING:
    from playwright.sync_api import Browser as ChromiumBrowser
    from playwright.sync_api import Page

#: Hypothesis profiles: the default one runs every example count as written (``make test``, CI);
#: ``fast`` (``--hypothesis-profile=fast``, what ``make test-fast`` passes) a fifth of them
#: (``helpers.volume.scaled``).
settings.register_profile("fast", max_examples=20)


def pytest_configure(config: pytest.Config) -> None:
    """Passwords are hashed with argon2id's cheapest parameters in the tests' servers, those of
    the test process and the ``gongzhu serve`` processes it starts alike
    (:data:`gongzhu.server.identity.CHEAP_HASHING_ENV`; the tests sign up and in hundreds of times).
    Set it to ``0`` to run them at the production parameters."""
    os.environ.setdefault(CHEAP_HASHING_ENV, "1")


# ---------------------------------------------------------------------- the server's stores


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[ThrowawayPostgres]:
    """A running throwaway PostgreSQL server for the whole test session."""
    server = ThrowawayPostgres()
    try:
        yield server
    finally:
        server.remove()


@pytest.fixture
def pg_url(postgres_server: ThrowawayPostgres) -> str:
    """A fresh, empty database on the throwaway PostgreSQL server, as a SQLAlchemy URL."""
    return postgres_server.new_database()


@pytest.fixture
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The server's store as a SQLAlchemy URL: a SQLite file in the test's folder, or, when the
    test is parametrized with ``"postgresql"`` (``helpers.database.STORES``), a fresh PostgreSQL
    database."""
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


# ---------------------------------------------------------------------- real browsers


@pytest.fixture(scope="module")
def browser() -> Iterator[ChromiumBrowser]:
    """One headless Chromium for a module.  Without Chromium or Playwright the test is skipped,
    unless ``CI`` is set: then it fails, so CI can't pass by skipping it."""
    why = browser_missing()
    if why is not None:
        if os.environ.get("CI"):
            pytest.fail(f"browser tests cannot run under CI: {why}")
        pytest.skip(f"browser tests skipped: {why}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        opened = b.new_context

        def new_context(**options: Any) -> Any:
            # A Chinese browser unless the test says otherwise: the page's language, until a
            # person chooses one, is the browser's (settings.js), and the tests read Chinese.
            options.setdefault("locale", "zh-CN")
            return opened(**options)

        b.new_context = new_context  # type: ignore[method-assign]
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real server for a module's browser tests (:class:`LiveServer`: uvicorn on a free loopback
    port, a SQLite file, computer players at pace 0; its challenges played against quick computer
    players, with no par replays); its base URL."""
    db = tmp_path_factory.mktemp("browser") / "gz.db"
    with LiveServer(f"sqlite:///{db}", challenge_level="random", par_replays=0) as live:
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


@pytest.fixture
def database() -> Iterator[str]:
    """A new database on the PostgreSQL server of GONGZHU_TEST_PG, dropped afterwards."""
    import secrets

    import psycopg
    from sqlalchemy.engine import make_url

    url = make_url(SHARED_PG)
    name = f"gongzhu_cluster_{secrets.token_hex(4)}"
    admin = dict(host=url.host or "127.0.0.1", port=url.port or 5432, user=url.username or "postgres",
                 dbname=url.database or "postgres", autocommit=True)
    try:
        with psycopg.connect(**admin, connect_timeout=3) as c:  # type: ignore[arg-type]
            c.execute(f"CREATE DATABASE {name}")
    except psycopg.OperationalError as e:
        service_missing(f"PostgreSQL at {SHARED_PG} cannot be reached: {e}")
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(**admin) as c:  # type: ignore[arg-type]
            c.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def redis_url() -> str:
    """The Redis of GONGZHU_TEST_REDIS, once it answers."""
    import redis

    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=2).ping()
    except redis.RedisError as e:
        service_missing(f"Redis at {REDIS} cannot be reached: {e}")
    return REDIS
