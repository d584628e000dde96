# Set-up and everyday commands.  `make play` and `make test` work on a fresh clone: the first
# run creates .venv and installs the package (compiling its C fast path) with its dev tools.
# `make play` starts the browser game's local server; `make terminal` plays in the terminal.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: play terminal test lint bench clean

$(STAMP): pyproject.toml setup.py $(wildcard src/gongzhu/rules/_fast*.[ch])
	$(PYTHON) -c 'import sys; sys.exit("gongzhu needs Python >= 3.11" if sys.version_info < (3, 11) else 0)'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

play: $(STAMP)
	$(BIN)/gongzhu serve $(ARGS)

terminal: $(STAMP)
	$(BIN)/gongzhu play $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

test: lint
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/pip install -q -e '.[bench]'
	$(BIN)/python benchmarks/playout.py

clean:
	rm -rf $(VENV) build src/*.egg-info src/gongzhu/rules/*.so
