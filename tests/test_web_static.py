"""The browser pages without a browser: the static files exist and are
packaged, they load nothing from the network, both languages of the message catalog they read have
the same strings, the scripts' imports resolve, and the stable surface that outside browser tests
rely on is in place; where Node.js is installed, the modules that read rule data (the point cards)
are run against the rules core.  Game terms follow docs/rules.md (R1 seats, R2 card names, R4 exposure
kinds, R6 events, R8 titles)."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import tomllib
from html.parser import HTMLParser
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from gongzhu.messages import LANGS, catalog, params_of
from gongzhu.rules import ALL_CARDS
from gongzhu.rules.scoring import POINT_CARDS, is_point_card

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "src" / "gongzhu" / "web" / "static"
# The table page's modules (app.js is its entry point; README.md maps them).
TABLE_MODULES = (
    "app.js", "actions.js", "connection.js", "dom.js", "keys.js", "next-table.js", "render.js", "settings.js",
    "setup.js", "sound.js", "state.js", "view-chat.js", "view-controls.js", "view-hand.js", "view-summary.js",
    "view-table.js", "view-waiting.js",
)
SHARED_MODULES = ("cards.js", "i18n.js", "replay.js", "review.js", "whatif.js", "options-form.js", "socket.js")
FILES = ("index.html", "history.html", "history.js", "challenges.html", "challenges.js", "challenge.html",
         "challenge.js", "played.js", "lobby.html", "lobby.js", "profile.html", "profile.js",
         "leaderboard.html", "leaderboard.js", "rules.html", "rules.js", "header.js", *TABLE_MODULES, *SHARED_MODULES,
         "style.css", "motion.css", "README.md", "manifest.webmanifest", "icon.svg", "icon-192.png", "icon-512.png",
         "admin.html", "admin.js", "event.html", "event.js")
PAGES = ("index.html", "history.html", "lobby.html", "profile.html", "leaderboard.html", "rules.html",
         "challenges.html", "challenge.html", "admin.html", "event.html")
SCRIPTS = tuple(f for f in FILES if f.endswith(".js"))
IMPORT = re.compile(r"^import\s*(?:\{[^}]*\}\s*from\s*)?\"\./([\w.-]+)\";", re.M)


def read(name: str) -> str:
    return (STATIC / name).read_text(encoding="utf-8")


def i18n_tables() -> dict[str, dict[str, str]]:
    """The two tables the page reads: the message catalog (gongzhu.messages), which i18n.js loads."""
    return {lang: dict(catalog(lang)) for lang in LANGS}


class Refs(HTMLParser):
    """Collects the attributes that load something (src, href) and the data-i18n keys."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[tuple[str, str, str]] = []
        self.i18n: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        d = dict(attrs)
        self.tags.append((tag, d))
        for key in ("src", "href"):
            value = d.get(key)
            if value is not None:
                self.refs.append((tag, key, value))
        for key in ("data-i18n", "data-i18n-title", "data-i18n-aria-label"):
            value = d.get(key)
            if value:
                self.i18n.append(value)


def parse(name: str) -> Refs:
    p = Refs()
    p.feed(read(name))
    return p


def test_static_files_exist_and_are_packaged() -> None:
    for name in FILES:
        assert (STATIC / name).is_file(), name
    # importlib.resources finds them in the package, as the server does.
    static = resources.files("gongzhu.web") / "static"
    for name in FILES:
        assert (static / name).is_file(), name
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "web/static/*" in pyproject["tool"]["setuptools"]["package-data"]["gongzhu"]


def test_web_package_imports_nothing() -> None:
    source = (STATIC.parent / "__init__.py").read_text(encoding="utf-8")
    assert not re.search(r"^\s*(import|from)\s", source, re.M)


@pytest.mark.parametrize("page", PAGES)
def test_pages_load_only_local_static_assets(page: str) -> None:
    refs = parse(page).refs
    assert refs, page
    for tag, attr, value in refs:
        assert not re.match(r"(https?:)?//", value), f"{page}: <{tag} {attr}={value!r}> loads from the network"
        if tag in ("script", "link") and not value.startswith("data:"):
            assert value.startswith("/static/"), f"{page}: {value!r} is not under /static/"
            assert (STATIC / value.removeprefix("/static/")).is_file(), f"{page}: {value!r} does not exist"
    assert "http://" not in read(page) and "https://" not in read(page)


def test_scripts_are_modules_and_fetch_nothing_remote() -> None:
    for page in PAGES:
        scripts = [d for tag, d in parse(page).tags if tag == "script"]
        assert scripts and all(d.get("type") == "module" for d in scripts), page
    for name in SCRIPTS:
        text = read(name)
        # The only absolute URL allowed is the SVG namespace (an identifier, never fetched).
        urls = set(re.findall(r"https?://[^\s\"'`]+", text)) - {"http://www.w3.org/2000/svg"}
        assert not urls, f"{name}: {urls}"
    css = read("style.css") + read("motion.css")
    assert "@import" not in css and "@font-face" not in css and not re.search(r"url\(\s*['\"]?https?:", css)


def test_module_imports_resolve() -> None:
    """Each `import {a, b} from "./x.js"` names a file in static/ that exports a and b."""
    for name in SCRIPTS:
        for names, target in re.findall(r"import\s*\{([^}]*)\}\s*from\s*\"\./([\w.-]+)\"", read(name)):
            assert (STATIC / target).is_file(), f"{name} imports missing {target}"
            exported = set(re.findall(r"^export (?:async )?(?:function|const|let|class) ([\w$]+)", read(target), re.M))
            for imported in (n.strip() for n in names.split(",")):
                if imported:
                    assert imported in exported, f"{name} imports {imported} that {target} does not export"


def test_every_script_is_listed() -> None:
    assert {p.name for p in STATIC.glob("*.js")} == set(SCRIPTS)


def imports(name: str) -> set[str]:
    return set(IMPORT.findall(read(name)))


def test_modules_keep_to_what_they_may_import() -> None:
    """Each module's header says what it may import ("May import: a.js, b.js." or "nothing"); its
    imports keep to that, and the table page reaches every one of its modules from app.js."""
    for name in SCRIPTS:
        m = re.search(r"^// May import: (.*?)\.?$", read(name), re.M)
        assert m, f"{name}: no 'May import:' line"
        allowed = set(re.findall(r"[\w-]+\.js", m.group(1)))
        if "view-*.js" in m.group(1):
            allowed |= {f for f in SCRIPTS if f.startswith("view-")}
        if "every module of the table page" in m.group(1):
            allowed |= set(TABLE_MODULES) | set(SHARED_MODULES)
        assert imports(name) <= allowed, f"{name} imports {imports(name) - allowed}, beyond its header"
    reached, todo = set(), ["app.js"]
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo.extend(imports(name))
    assert reached == set(TABLE_MODULES) | set(SHARED_MODULES)
    # What the page knows changes only through state.js's update functions.
    write = re.compile(r"\bpage\.[\w.]+\s*(?:=[^=]|\+\+|--|[-+*/]=)"
                       r"|\bpage\.\w+\.(?:set|delete|clear|add|push|splice)\(")
    for name in TABLE_MODULES:
        writes = write.findall(read(name))
        assert not writes, f"{name} writes {writes}"
    # The views never reach the connection, the actions or the wiring.
    for view in ("render.js", "view-chat.js", "view-controls.js", "view-hand.js", "view-summary.js", "view-table.js",
                 "view-waiting.js", "state.js"):
        assert not imports(view) & {"app.js", "actions.js", "connection.js", "keys.js", "setup.js"}, view


def test_the_page_has_no_copy_of_the_server_configuration() -> None:
    """Presets, options, levels and speeds come from GET /api/config alone."""
    for name in SCRIPTS:
        text = read(name)
        for gone in ("FALLBACK_CONFIG", "normalizeConfig", "DEFAULT_SETTINGS"):
            assert gone not in text, f"{name} still has {gone}"
        # No preset or option value list written into the page.
        assert not re.search(r"\[\s*\"ccw\"\s*,\s*\"cw\"\s*\]", text), name
        assert "pig_sheep: {}" not in text, name
    assert 'fetch("/api/config")' in read("app.js") and 'fetch("/api/config")' in read("lobby.js")
    setup = read("setup.js")
    for part in ("page.config", "c.levels", "c.default_preset", "c.default_level", "c.default_speed"):
        assert part in setup, part
    # The option rows of the new-match dialog and the lobby's new-table form: from the configuration passed in.
    rows = read("options-form.js")
    for part in ("config.presets[preset]", "Object.entries(config.options)"):
        assert part in rows, part
    lobby = read("lobby.js")
    for part in ("config.levels", "config.default_level", "config.default_preset", "buildOptionRows("):
        assert part in lobby, part


def test_the_page_loads_the_catalog_before_it_draws() -> None:
    """i18n.js holds no strings of its own: it awaits both catalog files at the top level, so every
    module importing it (and so the page) runs with them."""
    text = read("i18n.js")
    assert "await Promise.all([loadCatalog(\"zh\"), loadCatalog(\"en\")])" in text
    assert "fetch(`/messages/${name}.json`" in text
    assert not re.search(r'^\s*"btn\.start"', text, re.M)


def test_i18n_tables_have_the_same_keys_and_parameters() -> None:
    tables = i18n_tables()
    zh, en = tables["zh"], tables["en"]
    assert set(zh) == set(en), f"only zh: {set(zh) - set(en)}; only en: {set(en) - set(zh)}"
    for key in zh:
        assert zh[key].strip() and en[key].strip(), key
        params = (params_of(zh[key]), params_of(en[key]))
        assert params[0] == params[1], f"{key}: parameters differ {params}"


def test_chinese_terms_of_the_rule_book() -> None:
    zh = i18n_tables()["zh"]
    assert [zh[f"seat.{s}"] for s in "NESW"] == ["北", "东", "南", "西"]  # R1
    assert (zh["card.QS"], zh["card.JD"], zh["card.TC"]) == ("猪", "羊", "变压器")  # R2
    assert (zh["kind.first"], zh["kind.hidden"], zh["seat.exposed"]) == ("首明", "暗卖", "亮牌")  # R4
    assert (zh["event.all_hearts"], zh["event.grand_slam"]) == ("满红", "满贯")  # R6
    assert "当猪" in zh["summary.pigs"]  # R8
    for title in ("八戒", "猪小弟", "猪倌", "帝王"):  # R8 titles
        assert f"title.{title}" in zh


def test_every_string_key_used_exists() -> None:
    zh = i18n_tables()["zh"]
    used = [key for page in PAGES for key in parse(page).i18n]
    for name in SCRIPTS:
        used += re.findall(r"\bt\(\"([\w.]+)\"", read(name))
        used += re.findall(r"data-i18n=\"([\w.]+)\"", read(name))
    assert len(used) > 50
    missing = sorted({key for key in used if key not in zh})
    assert not missing, missing


def test_stable_surface() -> None:
    """What outside browser tests rely on: the stable test surface."""
    hand, summary, index = read("view-hand.js"), read("view-summary.js"), read("index.html")
    # Hand cards: <button data-card="QS" aria-disabled="true|false">.
    assert 'createElement("button")' in hand
    assert 'setAttribute("data-card", code)' in hand
    # ... enabled exactly for the legal plays (and, in the exposure phase, the exposable cards).
    assert "const usable = legal.has(code) || kinds.length > 0;" in hand
    assert 'setAttribute("aria-disabled", usable ? "false" : "true")' in hand
    # Each seat's R7 result after a deal.
    assert 'setAttribute("data-deal-result", seat)' in summary
    # The phase on the root element, and every phase name.
    assert 'document.documentElement.setAttribute("data-phase", displayedPhase())' in read("render.js")
    assert re.search(r"<html[^>]*\bdata-phase=\"setup\"", index)
    for phase in ("expose", "play", "deal-over", "match-over"):
        assert f'"{phase}"' in read("state.js"), phase
    # The button that ends the exposure phase says what it does: 不亮 / Expose none, and with cards
    # marked 亮出所选 / Expose selected (view-controls.js).
    start = [d for tag, d in parse("index.html").tags if tag == "button" and d.get("id") == "start"]
    assert len(start) == 1 and start[0].get("data-i18n") == "btn.start" and "aria-label" not in start[0]
    assert re.search(r'<button[^>]*id="start"[^>]*>不亮</button>', index)
    tables = i18n_tables()
    assert (tables["zh"]["btn.start"], tables["en"]["btn.start"]) == ("不亮", "Expose none")
    assert (tables["zh"]["btn.exposeMarked"], tables["en"]["btn.exposeMarked"]) == ("亮出所选", "Expose selected")
    assert 't(page.marks.size ? "btn.exposeMarked" : "btn.start")' in read("view-controls.js")


def test_readable_chinese_without_web_fonts() -> None:
    css = read("style.css")
    m = re.search(r"font-family:([^;]+);", css)
    assert m
    stack = m.group(1)
    for font in ('"Noto Sans CJK SC"', '"Noto Sans SC"', '"PingFang SC"', '"Microsoft YaHei"', "sans-serif"):
        assert font in stack, font


def test_cards_are_drawn_as_svg() -> None:
    cards = read("cards.js")
    assert "createElementNS(SVG_NS" in cards
    for part in ("export function cardFace", "export function cardBack", 'el("pattern"', "url(#gz-back)"):
        assert part in cards, part
    # One drawn shape per suit (R1: ♠ ♥ ♣ ♦).
    shapes = re.search(r"const SUIT_SHAPES = \{(.*?)\n\};", cards, re.S)
    assert shapes and all(re.search(rf"^\s*{s}: \[", shapes.group(1), re.M) for s in "SHCD")


def run_modules(script: str) -> Any:
    """Run ``script``, an ES module that may import the page's modules by their file URLs, with
    Node.js (the modules that touch no DOM load there as in the page), and read back the JSON it
    prints."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed: the page's modules cannot be run without a browser")
    done = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_page_takes_its_point_cards_from_the_rules_core() -> None:
    """R2: the page decides no point card by itself: until it is handed the server's list none is
    one, and with the list of the rules core (``POINT_CARDS``, which ``GET /api/config`` gives as
    ``point_cards``) it agrees with ``is_point_card`` on every card."""
    codes = [c.code for c in ALL_CARDS]
    seen = run_modules(f"""
        const cards = await import({json.dumps((STATIC / "cards.js").as_uri())});
        const codes = {json.dumps(codes)};
        const before = codes.filter((c) => cards.isPointCard(c));
        cards.setPointCards({json.dumps([c.code for c in POINT_CARDS])});
        console.log(JSON.stringify({{ before, after: codes.filter((c) => cards.isPointCard(c)) }}));
    """)
    assert seen == {"before": [], "after": [c.code for c in ALL_CARDS if is_point_card(c)]}


def test_a_trick_carries_points_as_the_server_counts_them() -> None:
    """R2: the table's cue for a trick (``state.js`` ``notePlayed`` / ``noteTrick``, the sound after
    a trick) is "won" or "lost" exactly when the rules core counts a point card among the cards
    the server said were played in it ("won" when South, or the partner under ``partners``, took
    it), and none otherwise — every trick, one after another as the messages come."""
    rng = random.Random(5)
    cases = []
    for _ in range(300):
        trick = rng.sample(ALL_CARDS, 4)
        taker = rng.choice("NESW")
        partners = rng.random() < 0.5
        side = {"S", "N"} if partners else {"S"}
        points = any(is_point_card(c) for c in trick)
        cases.append({"plays": [[s, [c.code]] for s, c in zip("NESW", trick, strict=True)], "taker": taker,
                      "scoring": "partners" if partners else "zero_sum",
                      "cue": ([] if not points else ["won" if taker in side else "lost"])})
    seen = run_modules(f"""
        const cards = await import({json.dumps((STATIC / "cards.js").as_uri())});
        const state = await import({json.dumps((STATIC / "state.js").as_uri())});
        cards.setPointCards({json.dumps([c.code for c in POINT_CARDS])});
        const cases = {json.dumps(cases)};
        state.showMatch("m", false);
        const out = cases.map((k) => {{
          state.applyServerState({{ match_id: "m", deal_index: 0, seat: "S", phase: "play", hand: [],
                                    tricks_played: 1, options: {{ scoring: k.scoring }} }});
          for (const [seat, played] of k.plays) state.notePlayed(seat, played);
          state.noteTrick({{ winner: k.taker, taker: k.taker }});
          return state.takeCues();
        }});
        console.log(JSON.stringify(out));
    """)
    assert seen == [k["cue"] for k in cases]
    assert 0 < sum(1 for c in seen if c) < len(seen)
