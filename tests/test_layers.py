"""The package layers of ``gongzhu`` (docs/architecture.md): each package imports only the layers
below it — the message catalog nothing, the rules core nothing outside itself but the catalog —
and each says so in its docstring."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "gongzhu"

#: What each package (or top-level module) of gongzhu may import besides itself and the standard
#: library and third-party packages.  Lower layers first.
ALLOWED: dict[str, set[str]] = {
    "messages": set(),
    "jsontext": set(),
    "rules": {"messages"},
    "search": {"rules", "messages"},
    "formats": {"rules", "jsontext", "messages"},
    "records": {"rules", "jsontext", "formats", "messages"},
    "players": {"rules", "search", "jsontext", "formats", "messages"},
    "arena": {"rules", "players", "records", "messages"},
    "env": {"rules", "search", "players", "messages"},
    "learning": {"rules", "search", "players", "messages"},
    "review": {"rules", "search", "players", "records", "formats", "jsontext", "messages"},
    "duplicate": {"rules", "messages"},
    "ratings": {"rules"},
    "server": {"rules", "search", "players", "records", "review", "duplicate", "ratings", "jsontext", "formats",
               "messages"},
    "cli": {"rules", "search", "players", "records", "arena", "review", "duplicate", "ratings", "server", "jsontext",
            "formats", "messages"},
    "web": set(),
}


def _layer_of(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0].removesuffix(".py")


def _imported_layers(path: Path) -> set[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[tuple[str, int]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [(node.module, node.lineno)]
        else:
            continue
        for name, line in names:
            parts = name.split(".")
            if parts[0] == "gongzhu" and len(parts) > 1:
                found.add((parts[1], line))
    return found


def _modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if p.name != "__init__.py" or p.parent != SRC)


def test_every_package_is_placed_in_a_layer() -> None:
    layers = {_layer_of(p) for p in _modules()}
    assert layers <= set(ALLOWED), f"packages with no layer in ALLOWED: {layers - set(ALLOWED)}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_imports_stay_within_the_layers_below(path: Path) -> None:
    """R-independent structure: a module imports only its own package and the layers its package
    may build on (the rules core, none)."""
    layer = _layer_of(path)
    bad = [(name, line) for name, line in _imported_layers(path)
           if name != layer and name not in ALLOWED[layer]]
    assert not bad, f"{path.relative_to(SRC)} imports {bad}: {layer} may import only {sorted(ALLOWED[layer])}"


@pytest.mark.parametrize("package", sorted(p.name for p in SRC.iterdir() if (p / "__init__.py").exists()))
def test_every_package_says_what_lives_there_and_what_it_may_import(package: str) -> None:
    doc = importlib.import_module(f"gongzhu.{package}").__doc__ or ""
    assert len(doc.split()) >= 8, f"gongzhu.{package} has no docstring saying what lives there"
    assert "import" in doc, f"gongzhu.{package}'s docstring does not say what it may import"


# ---------------------------------------------------------------------- the game server's rooms

SERVER = SRC / "server"

#: The game server's modules, lower floors first (docs/architecture.md, The game server): each may
#: import only modules before it — at the top of the file, inside a function or for type
#: checking alike — so no two of them import each other, however indirectly.
SERVER_FLOORS: list[str] = [
    "policy", "metrics", "logs", "names", "wire", "bus", "clock", "rulebook", "matchmaking",
    "migrations", "store", "migrations.env", "transport",
    "bodies", "challenges", "views", "rooms", "thinking", "claiming", "lobby", "table", "dispatch", "registry",
    "cluster",
    "identity", "account_care", "accounts", "people", "moderation", "challenge_api", "events", "reviews", "whatif",
    "operations",
    "accuracy", "app",
    "__init__",
]


def _server_module(path: Path) -> str:
    rel = path.relative_to(SERVER)
    if rel.parts[0] == "migrations":
        return "migrations.env" if rel.name == "env.py" else "migrations"
    return rel.stem


def _server_imports(path: Path) -> set[tuple[str, int]]:
    """The server's modules ``path`` imports, wherever the import stands."""
    found: set[tuple[str, int]] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            parts = node.module.split(".")
            if parts[:2] != ["gongzhu", "server"]:
                continue
            if len(parts) > 2:
                found.add((parts[2], node.lineno))
            else:  # from gongzhu.server import migrations
                found.update((a.name, node.lineno) for a in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[:2] == ["gongzhu", "server"] and len(parts) > 2:
                    found.add((parts[2], node.lineno))
    return found


def _server_modules() -> list[Path]:
    return sorted(SERVER.rglob("*.py"))


def test_every_server_module_has_a_floor() -> None:
    modules = {_server_module(p) for p in _server_modules()}
    assert modules == set(SERVER_FLOORS), (f"without a floor: {sorted(modules - set(SERVER_FLOORS))}; "
                                           f"gone: {sorted(set(SERVER_FLOORS) - modules)}")


@pytest.mark.parametrize("path", _server_modules(), ids=lambda p: str(p.relative_to(SERVER)))
def test_server_modules_import_only_the_floors_below(path: Path) -> None:
    """No import circle among the server's modules: the table does not know the registry, the
    lobby or the bus's Redis side; the registry hands the table a hub, the lobby a lookup."""
    module = _server_module(path)
    floor = SERVER_FLOORS.index(module)
    bad = [(name, line) for name, line in _server_imports(path)
           if name != module and name in SERVER_FLOORS and SERVER_FLOORS.index(name) >= floor]
    unknown = [(name, line) for name, line in _server_imports(path)
               if name not in SERVER_FLOORS and not (module == "migrations" and name == "migrations")]
    assert not unknown, f"{path.relative_to(SRC)} imports server modules without a floor: {unknown}"
    assert not bad, f"{path.relative_to(SRC)} imports {bad}: {module} may import only {SERVER_FLOORS[:floor]}"


@pytest.mark.parametrize("path", _server_modules(), ids=lambda p: str(p.relative_to(SERVER)))
def test_server_modules_use_no_private_name_of_another(path: Path) -> None:
    """A module of the server reaches another only through its public names: no ``_name``
    imported from it, no ``other._name`` of an object that is not ``self`` (SQLAlchemy's
    ``row._mapping`` is public, its underscore only keeps it apart from column names)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("gongzhu."):
            bad += [(a.name, node.lineno) for a in node.names if a.name.startswith("_") and a.name != "__version__"]
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            if node.attr == "_mapping":
                continue
            bad.append((ast.unparse(node), node.lineno))
    assert not bad, f"{path.relative_to(SRC)} uses private names of other modules or objects: {bad}"
