# Set-up and everyday commands.  `make play` and `make test` work on a fresh clone: the first
# run creates .venv and installs the package (compiling its C fast path); `make play` installs
# only what playing needs, `make test` adds the dev tools.
# `make play` starts the browser game's local server; `make terminal` plays in the terminal.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SOURCES := pyproject.toml setup.py $(wildcard src/gongzhu/rules/_fast*.[ch])
# Two stamps: playing needs the package alone; testing adds the dev tools (ruff, mypy, pytest …).
PLAY_STAMP := $(VENV)/.installed-play
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: play terminal test test-fast lint bench clean

$(BIN)/python:
	$(PYTHON) -c 'import sys; sys.exit("gongzhu needs Python >= 3.11" if sys.version_info < (3, 11) else 0)'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(PLAY_STAMP): $(SOURCES) | $(BIN)/python
	$(BIN)/pip install -q -e .
	touch $(PLAY_STAMP)

$(DEV_STAMP): $(SOURCES) | $(BIN)/python
	$(BIN)/pip install -q -e '.[dev]'
	touch $(DEV_STAMP) $(PLAY_STAMP)

play: $(PLAY_STAMP)
	$(BIN)/gongzhu serve $(ARGS)

terminal: $(PLAY_STAMP)
	$(BIN)/gongzhu play $(ARGS)

lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

test: lint
	$(BIN)/pytest

# The fast suite: everything but the real-browser, PostgreSQL, long-running and strength tests, on every
# core (pytest-xdist), with a fifth of the examples of the property and volume tests
# (hypothesis profile `fast`, tests/conftest.py); `make test` runs everything at full count.
test-fast: $(DEV_STAMP)
	$(BIN)/pytest -m "not browser and not postgres and not slow and not strength" -n auto --dist worksteal --hypothesis-profile=fast

bench: $(DEV_STAMP)
	$(BIN)/pip install -q -e '.[bench]'
	$(BIN)/python benchmarks/playout.py

clean:
	rm -rf $(VENV) build src/*.egg-info src/gongzhu/rules/*.so
