"""What a clone or an install of gongzhu holds: one version, the licence pyproject names, every
document listed in the README, the rule book (docs/rules.md, R1–R12) inside the package too, shown
by ``gongzhu rules``, and no file that points outside the repository."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import tomllib
from pathlib import Path

import pytest

import gongzhu

ROOT = Path(__file__).resolve().parent.parent
TEXT = (".py", ".md", ".js", ".html", ".css", ".c", ".h", ".toml", ".sh", "")


def test_one_version() -> None:
    assert importlib.metadata.version("gongzhu") == gongzhu.__version__
    assert 'dynamic = ["version"]' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_the_licence_is_the_one_pyproject_names() -> None:
    """An SPDX expression and the licence file (PEP 639), as the installed metadata says too."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    metadata = importlib.metadata.metadata("gongzhu")
    assert metadata["License-Expression"] == "MIT" and "LICENSE" in metadata.get_all("License-File", [])


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


#: The documents the package carries (the rules page shows them), each a link to its one copy in docs/.
SHIPPED_DOCS = {"rules/rules.md": "rules.md", "rules/rules.zh.md": "rules.zh.md",
                "web/how-to-play.md": "how-to-play.md", "web/how-to-play.zh.md": "how-to-play.zh.md"}


@pytest.mark.parametrize(("inside", "doc"), SHIPPED_DOCS.items())
def test_the_rule_book_ships_with_the_package_as_its_one_copy(inside: str, doc: str) -> None:
    """The package holds the rule book the product cites (R1–R12), its Chinese version and the
    how-to-play: in the repository links to docs/, listed as package data, so an install carries
    their text and no copy drifts."""
    from importlib.resources import files

    shipped = ROOT / "src" / "gongzhu" / inside
    assert shipped.is_symlink() and shipped.resolve() == (ROOT / "docs" / doc).resolve()
    assert f'"{inside}"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    package, name = inside.split("/")
    assert files(f"gongzhu.{package}").joinpath(name).read_bytes() == (ROOT / "docs" / doc).read_bytes()


def _headings(book: str) -> list[tuple[int, str]]:
    """Each heading's level and section number ("" for a heading without one)."""
    out = []
    for line in book.splitlines():
        m = re.match(r"^(#+) (R\d+(?:\.\d+)?)?", line)
        if m:
            out.append((len(m.group(1)), m.group(2) or ""))
    return out


def test_the_chinese_rule_book_keeps_step_with_the_rule_book() -> None:
    """docs/rules.zh.md has the English book's headings, at the same levels, in the same order,
    with the same section numbers; the same option keys, values and card codes (every code span),
    the same citations and the same tables' shapes."""
    en = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    zh = (ROOT / "docs" / "rules.zh.md").read_text(encoding="utf-8")
    assert _headings(zh) == _headings(en)
    assert sorted(re.findall(r"`([^`\n]+)`", zh)) == sorted(re.findall(r"`([^`\n]+)`", en))
    cite = r"\bR\d+(?:\.\d+)?\b"
    assert set(re.findall(cite, zh)) == set(re.findall(cite, en))

    def table_shapes(book: str) -> list[int]:
        return [line.count("|") for line in book.splitlines() if line.startswith("|")]

    assert table_shapes(zh) == table_shapes(en)


@pytest.mark.parametrize("doc", ["how-to-play.md", "how-to-play.zh.md"])
def test_the_how_to_play_cites_only_sections_there_are(doc: str) -> None:
    sections = {n for _level, n in _headings((ROOT / "docs" / "rules.md").read_text(encoding="utf-8")) if n}
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    cited = set(re.findall(r"\bR\d+(?:\.\d+)?\b", text))
    assert cited and cited <= sections, cited - sections


def test_a_build_of_the_package_holds_the_rule_book(tmp_path: Path) -> None:
    """setuptools' build of the pure-Python part of the package (what a wheel is made of) holds the
    rule book's text as a plain file."""
    import sys

    subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(tmp_path)],
                   cwd=ROOT, capture_output=True, check=True)
    for inside, doc in SHIPPED_DOCS.items():
        built = tmp_path / "gongzhu" / inside
        assert not built.is_symlink()
        assert built.read_bytes() == (ROOT / "docs" / doc).read_bytes()
    # The learned level's network ships too: the game runs it with numpy alone.
    weights = "players/weights/learned.npz"
    assert (tmp_path / "gongzhu" / weights).read_bytes() == (ROOT / "src" / "gongzhu" / weights).read_bytes()


def test_gongzhu_rules_prints_the_rule_book(capsys: pytest.CaptureFixture[str]) -> None:
    from gongzhu.cli.main import main

    book = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert main(["rules"]) == 0
    assert capsys.readouterr().out == book
    assert main(["rules", "r5.2"]) == 0  # as refusals cite it: the sub-section alone
    out = capsys.readouterr().out
    assert out.startswith("### R5.2 Following and winning") and "### R5.3" not in out and out in book
    assert main(["rules", "R4"]) == 0  # a section with its sub-sections, up to R5
    out = capsys.readouterr().out
    assert out.startswith("## R4. ") and "### R4.5" in out and "## R5." not in out
    assert main(["rules", "R9.1"]) == 0  # no sub-section headings there: the section
    assert capsys.readouterr().out.startswith("## R9. Presets")


@pytest.mark.parametrize(("citation", "words"), [
    ("R13", "give one of R1, R2"), ("R0", "give one of"), ("5", "give one of"), ("R5.9", "R5 has R5.1"), ("", "give"),
])
def test_gongzhu_rules_refuses_an_unknown_section(capsys: pytest.CaptureFixture[str], citation: str,
                                                  words: str) -> None:
    from gongzhu.cli.main import main

    assert main(["rules", citation]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"no rule-book section {citation!r}" in captured.err and words in captured.err
