"""Real browsers: Debian's Chromium driven by Playwright (tests marked ``browser``).

The fixtures ``browser``, ``server`` and ``page_factory`` (``tests/conftest.py``) start them; the
selectors here wait on a page without evaluating script in it (the pages' Content-Security-Policy
has no ``'unsafe-eval'``), and :func:`wait_until` asks the page through ``page.evaluate``."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Page

__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "HAVE_PLAYWRIGHT",
    "TIMEOUT_MS",
    "VISIBLE_BOX_JS",
    "browser_missing",
    "in_phase",
    "not_in_phase",
    "wait_for",
    "wait_until",
]

try:
    import playwright.sync_api  # noqa: F401

    HAVE_PLAYWRIGHT = True
except ImportError:  # pragma: no cover - depends on the environment
    HAVE_PLAYWRIGHT = False

#: A page script's ``box(e)``: an element's box on the screen (left, top, right, bottom, width,
#: height), or null when it is absent or shows nothing; the first lines of a function's body.
VISIBLE_BOX_JS = """  const box = (e) => {
    if (!e || !e.getClientRects().length) return null;
    const r = e.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height };
  };
"""

#: Debian's Chromium, which Playwright drives (tests marked ``browser``).
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]
#: Playwright's default wait for a selector or an action in the browser tests.
TIMEOUT_MS = 20_000


def browser_missing() -> str | None:
    """Why the browser tests cannot run here (no Playwright, no Chromium), or None."""
    if not HAVE_PLAYWRIGHT:
        return "the playwright package is not installed (pip install -e '.[dev]')"
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install chromium fonts-noto-cjk)"
    return None


def wait_for(page: Page, selector: str) -> None:
    """Wait until ``selector`` matches an element.

    A selector is matched by Playwright's own script, whatever the page's Content-Security-Policy
    (it has no 'unsafe-eval'); ``page.wait_for_function`` evaluates its predicate in the page,
    which the policy refuses wherever Playwright polls with ``eval`` (before 1.55), and takes a
    returned promise for a truthy value (:func:`wait_until` awaits it).
    """
    page.wait_for_selector(selector, state="attached")


def wait_until(page: Page, script: str, arg: Any = None, *, timeout_ms: int = TIMEOUT_MS) -> Any:
    """Wait until the page function ``script`` (called with ``arg``) returns a truthy value, and
    return it.

    ``page.wait_for_function`` takes a returned promise for a truthy value and returns at once,
    so a predicate that awaits something (a module's ``import()``) cannot go there; ``page.evaluate``
    awaits it, and is asked again every 50 ms.
    """
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        value = page.evaluate(script, arg)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout_ms} ms for {script}")
        page.wait_for_timeout(50)


def in_phase(*phases: str) -> str:
    """A selector matching ``<html>`` while the table is in one of ``phases``."""
    return ", ".join(f'html[data-phase="{p}"]' for p in phases)


def not_in_phase(name: str) -> str:
    """A selector matching ``<html>`` once the table is no longer in phase ``name``."""
    return f'html:not([data-phase="{name}"])'


def api_get(page: Page, path: str) -> Any:
    """GET ``path`` as the page's person (the browser context's session cookie): its JSON."""
    response = page.request.get(path)
    assert response.ok, (path, response.status, response.text())
    return response.json()


def api_post(page: Page, path: str, body: dict[str, Any]) -> Any:
    """POST ``body`` as JSON to ``path`` as the page's person (who becomes a match's player, a
    table's host): the answer's JSON."""
    response = page.request.post(path, data=json.dumps(body), headers={"Content-Type": "application/json"})
    assert response.ok, (path, response.status, response.text())
    return response.json()


def phase(page: Page) -> str:
    """The table page's phase (``<html data-phase>``)."""
    value: str = page.evaluate("document.documentElement.dataset.phase")
    return value
