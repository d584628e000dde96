"""What a clone or an install of gongzhu holds: one version, the licence pyproject names, every
document listed in the README, and no file that points outside the repository (the rule book is
docs/rules.md, R1–R12)."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
from pathlib import Path

import gongzhu

ROOT = Path(__file__).resolve().parent.parent
TEXT = (".py", ".md", ".js", ".html", ".css", ".c", ".h", ".toml", ".sh", "")


def test_one_version() -> None:
    assert importlib.metadata.version("gongzhu") == gongzhu.__version__
    assert 'dynamic = ["version"]' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_the_licence_is_the_one_pyproject_names() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'license = {text = "MIT"}' in pyproject
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


def test_the_readme_lists_every_document() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for doc in sorted((ROOT / "docs").glob("*.md")):
        assert f"[docs/{doc.name}](docs/{doc.name})" in readme, doc.name


def test_the_rule_book_is_in_the_repository_with_every_section() -> None:
    rules = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    for n in range(1, 13):
        assert re.search(rf"^## R{n}\. ", rules, re.MULTILINE), f"R{n}"


def test_no_file_points_outside_the_repository() -> None:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    outside = re.compile(r"\.\./shared|shared/RULES|shared/seeds")
    hits = []
    for name in files:
        path = ROOT / name
        if path.suffix not in TEXT or not path.is_file():
            continue
        if name == "tests/test_packaging.py":
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        hits += [f"{name}: {m.group(0)}" for m in outside.finditer(text)]
    assert hits == []


def test_the_readme_command_table_gives_every_flag() -> None:
    """Each ``gongzhu COMMAND`` row of the README's table names every option the command takes."""
    import argparse

    from gongzhu.cli.main import build_parser

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = {m.group(2): m.group(1) for m in re.finditer(r"^\| `(gongzhu (\w+)[^`]*)`", readme, re.MULTILINE)}
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert set(rows) == set(commands.choices)
    for name, parser in commands.choices.items():
        flags = [o for a in parser._actions for o in a.option_strings if o.startswith("--") and o != "--help"]
        missing = [f for f in flags if f not in rows[name]]
        assert missing == [], (name, missing)
