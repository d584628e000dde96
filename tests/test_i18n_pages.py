"""The pages speak the page's language in what they show before and after the server answers:
the text a page holds before its scripts relabel it is the catalog's Chinese, labels read to a
screen reader come from the catalog, the fields the server bounds carry the same bounds, the
new-match dialog shows the server's refusal by its code, and a page that cannot reach the server
says so in the catalog's words alone (never the browser's own error text)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from gongzhu.formats.web import CLAIM_SCORE_LIMIT
from gongzhu.messages import catalog

STATIC = Path(__file__).resolve().parent.parent / "src" / "gongzhu" / "web" / "static"
#: Elements with no content (their text is never relabelled).
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
#: The pages whose scripts fetch from the server, and what they show when the server cannot be reached.
FETCHING = ("setup.js", "history.js", "rules.js", "challenges.js", "lobby.js", "profile.js", "challenge.js",
            "leaderboard.js", "admin.js")


def read(name: str) -> str:
    return (STATIC / name).read_text(encoding="utf-8")


class Page(HTMLParser):
    """Each element's attributes, and the text each [data-i18n] element holds."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[dict[str, str | None]] = []
        self.texts: list[tuple[str, str]] = []
        self._open: list[list[str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append(dict(attrs))
        if tag not in VOID:
            self._open.append([dict(attrs).get("data-i18n") or "", ""])

    def handle_endtag(self, tag: str) -> None:
        if tag not in VOID and self._open:
            key, text = self._open.pop()
            if key and text.strip():
                self.texts.append((key, text.strip()))

    def handle_data(self, data: str) -> None:
        for item in self._open:
            item[1] += data

    def by_id(self, name: str) -> dict[str, str | None]:
        [found] = [e for e in self.elements if e.get("id") == name]
        return found


def page(name: str) -> Page:
    p = Page()
    p.feed(read(name))
    return p


@pytest.mark.parametrize("name", sorted(p.name for p in STATIC.glob("*.html")))
def test_the_text_before_the_scripts_is_the_catalogs_chinese(name: str) -> None:
    zh = catalog("zh")
    p = page(name)
    assert p.texts
    assert [(key, text) for key, text in p.texts if zh[key] != text] == []
    labelled = [e for e in p.elements if e.get("data-i18n-aria-label")]
    assert [e for e in labelled if e.get("aria-label") != zh[str(e["data-i18n-aria-label"])]] == []


def test_the_referee_desks_scores_are_labelled_by_seat() -> None:
    p = page("event.html")
    for seat in "NESW":
        field = p.by_id(f"raw-{seat}")
        assert field["data-i18n-aria-label"] == f"seat.{seat}" and field["aria-label"] == catalog("zh")[f"seat.{seat}"]


def test_the_fields_carry_the_servers_bounds() -> None:
    p = page("index.html")
    claim = p.by_id("claim-value")
    assert (claim["min"], claim["max"]) == (str(-CLAIM_SCORE_LIMIT), str(CLAIM_SCORE_LIMIT))
    assert p.by_id("setup-seed")["min"] == "0"


def test_the_manifest_describes_the_game_in_its_language() -> None:
    manifest = json.loads(read("manifest.webmanifest"))
    assert manifest["lang"] == "zh-CN"
    assert re.search(r"[\u4e00-\u9fff]", manifest["description"])
    assert not re.search(r"[A-Za-z]{3,}", manifest["description"]), manifest["description"]


def test_the_new_match_dialog_shows_the_servers_refusal_by_its_code() -> None:
    setup = read("setup.js")
    assert "refusalText({ body: data, status: res.status })" in setup
    assert "data.error" not in setup


@pytest.mark.parametrize("name", FETCHING)
def test_a_network_failure_is_said_in_the_catalogs_words_alone(name: str) -> None:
    """No text shown is built from a caught error (the browser's "TypeError: Failed to fetch", in
    its own language); the server's refusals are shown by their codes."""
    text = read(name)
    built = re.findall(r"\$\{err\b|String\(err\)|text: err\.message|(?:failure|why) = err\.message", text)
    assert built == [], name
    for caught in re.findall(r"catch \((\w+)\) \{([^}]*)\}", text):
        variable, body = caught
        if f"{variable}.message" in body:  # only an Error the page made itself, from the catalog
            assert name in ("lobby.js", "admin.js"), (name, body)
            assert 'throw new Error(t("msg.offline"))' in text, name
