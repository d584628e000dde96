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
    "server": {"rules", "players", "records", "review", "jsontext", "formats", "messages"},
    "cli": {"rules", "search", "players", "records", "arena", "review", "server", "jsontext", "formats", "messages"},
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
