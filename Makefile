# Developer entry points. Works on a fresh clone with only python3 and make:
# the first target that needs the virtualenv creates it and installs the project.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PYTEST_ARGS ?=
# e.g. make bench BENCH_ARGS=--quick (python -m bench --help lists the knobs)
BENCH_ARGS ?=

# Lint only the source trees that exist yet (ruff fails on missing paths).
LINT_PATHS := $(wildcard domain service replay bench tests)

.DELETE_ON_ERROR:
.PHONY: .venv install run test lint bench bench-ai bench-ai-full clean

.venv install: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Re-install whenever the dependency list changes; the stamp is written only on success.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --disable-pip-version-check --progress-bar off -e '.[dev]'
	touch $@

run: $(STAMP)
	$(BIN)/floe run

# No path given: pytest uses testpaths = ["tests"] from pyproject.toml.
test: $(STAMP)
	$(BIN)/pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python -m bench $(BENCH_ARGS)

# Bot strength and think time: quick (about 15 minutes), or the full 200 games per pairing.
bench-ai: $(STAMP)
	$(BIN)/python -m bench.ai $(BENCH_AI_ARGS)

bench-ai-full: $(STAMP)
	$(BIN)/python -m bench.ai --full --resume $(BENCH_AI_ARGS)

clean:
	rm -rf $(VENV) .floe-data
