"""The game as an app a phone can add to its home screen: every page names the web app manifest,
its icons and the theme colour, and lets the page reach the screen's edges (``viewport-fit=cover``,
the safe areas in ``style.css``); the manifest opens the table full-screen at ``/``.  Chromium
reads the manifest as the server sends it with no error and finds nothing that keeps the game from
being installed (but the tests' private browsing, which no phone has).  Skipped without Chromium or
Playwright, unless ``CI`` is set (then failed), like ``test_browser.py``."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import pytest

STATIC = Path(__file__).resolve().parent.parent / "src" / "gongzhu" / "web" / "static"
PAGES = ("index.html", "history.html", "lobby.html", "profile.html", "leaderboard.html", "rules.html",
         "challenges.html", "challenge.html")


def png_size(path: Path) -> tuple[int, int]:
    """A PNG file's width and height, from its IHDR chunk."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", f"{path.name} is not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_manifest_opens_the_table_full_screen_with_its_icons() -> None:
    manifest = json.loads((STATIC / "manifest.webmanifest").read_text(encoding="utf-8"))
    assert manifest["start_url"] == manifest["scope"] == "/" and manifest["display"] == "fullscreen"
    assert manifest["name"] and manifest["short_name"] and manifest["theme_color"] == manifest["background_color"]
    sizes = {}
    for icon in manifest["icons"]:
        path = STATIC / icon["src"].removeprefix("/static/")
        assert path.is_file(), icon["src"]
        if icon["type"] == "image/png":
            width, height = png_size(path)
            assert icon["sizes"] == f"{width}x{height}", icon
            sizes[width] = icon["src"]
        else:
            assert icon["type"] == "image/svg+xml" and path.read_text(encoding="utf-8").startswith("<svg")
    assert {192, 512} <= set(sizes)  # what a phone's launcher and splash screen ask for


@pytest.mark.parametrize("page", PAGES)
def test_every_page_names_the_manifest_and_reaches_the_safe_areas(page: str) -> None:
    html = (STATIC / page).read_text(encoding="utf-8")
    manifest = json.loads((STATIC / "manifest.webmanifest").read_text(encoding="utf-8"))
    assert '<link rel="manifest" href="/static/manifest.webmanifest">' in html
    assert '<link rel="icon" href="/static/icon.svg" type="image/svg+xml">' in html
    assert '<link rel="apple-touch-icon" href="/static/icon-192.png">' in html
    assert f'<meta name="theme-color" content="{manifest["theme_color"]}">' in html
    assert "viewport-fit=cover" in html
    assert "safe-area-inset" in (STATIC / "style.css").read_text(encoding="utf-8")


@pytest.mark.browser
def test_chromium_reads_the_manifest_and_could_install_the_game(page_factory: Any) -> None:
    page = page_factory(390, 844, is_mobile=True, has_touch=True)
    page.goto("/")
    page.wait_for_selector("#status")
    cdp = page.context.new_cdp_session(page)
    got = cdp.send("Page.getAppManifest")
    assert got["url"].endswith("/static/manifest.webmanifest") and got["errors"] == [], got["errors"]
    parsed = got["manifest"]
    assert parsed["display"] == "kFullscreen" and parsed["name"] == "拱猪 Gongzhu"
    assert {i["sizes"] for i in parsed["icons"]} >= {"192x192", "512x512"}
    errors = {e["errorId"] for e in cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]}
    assert errors <= {"in-incognito"}, errors  # a test's browser context is private; a phone's is not
    response = page.request.get("/static/manifest.webmanifest")
    assert response.ok and response.headers["content-type"].startswith("application/manifest+json")
