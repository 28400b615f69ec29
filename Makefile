# Developer entry points. Works on a fresh clone with only python3 and make: the first
# target that needs the virtualenv creates it and installs into it from a lock file.
#
#   requirements/run.txt  the runtime dependencies, pinned: all that `make run` installs
#   requirements/dev.txt  runtime + dev extra (tests, linters, fuzzers, client generator, pip-tools)
#
# Both also pin Floe's own build requirements (pyproject.toml [build-system]), and both are
# generated from pyproject.toml by `make lock` (pip-compile): never edit them by hand. The
# index comes from pip's own configuration: no URL is written here or in the locks.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip --disable-pip-version-check
RUN_LOCK := requirements/run.txt
DEV_LOCK := requirements/dev.txt
# One stamp per lock, written only on success; each is redone when its lock (or pyproject.toml:
# entry points, package list) is newer, so pulling a new lock re-installs on the next make.
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev
PYTEST_ARGS ?=
# e.g. make bench BENCH_ARGS=--quick (python -m bench --help lists the knobs)
BENCH_ARGS ?=
# e.g. make lock LOCK_ARGS=--upgrade, or LOCK_ARGS='--upgrade-package flask'
LOCK_ARGS ?=
PIP_COMPILE := CUSTOM_COMPILE_COMMAND='make lock' $(BIN)/python -m piptools compile --quiet --allow-unsafe \
	--strip-extras --no-emit-index-url --no-emit-trusted-host --no-emit-find-links \
	--no-emit-options --build-deps-for editable $(LOCK_ARGS)

# Lint only the source trees that exist yet (ruff fails on missing paths).
LINT_PATHS := $(wildcard domain service replay bench tests)

.DELETE_ON_ERROR:
.PHONY: .venv install install-dev lock run test lint bench bench-ai bench-ai-full bench-tournament bench-cluster bench-servers bench-attacks clean chromium postgresql debian-redis docs

# The runtime only (what `make run` needs); install-dev adds every development tool.
.venv install: $(RUN_STAMP)
install-dev: $(DEV_STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The lock first, then Floe itself without dependencies (editable: the code is this tree).
# Each lock also pins Floe's build requirements (setuptools, wheel), so Floe is built with
# those, not in an isolated environment fetched afresh on every install.
INSTALL_FLOE := $(PIP) install --progress-bar off --no-deps --no-build-isolation -e .

$(RUN_STAMP): $(RUN_LOCK) pyproject.toml | $(BIN)/python
	$(PIP) install --progress-bar off -r $(RUN_LOCK)
	$(INSTALL_FLOE)
	touch $@

$(DEV_STAMP): $(DEV_LOCK) pyproject.toml | $(BIN)/python
	$(PIP) install --progress-bar off -r $(DEV_LOCK)
	$(INSTALL_FLOE)
	touch $@

# Regenerate both locks from pyproject.toml, keeping every pin that still fits (LOCK_ARGS to
# upgrade). dev.txt is constrained by run.txt, so tests run the very versions `make run` does.
lock: $(DEV_STAMP)
	$(PIP_COMPILE) --output-file $(RUN_LOCK) pyproject.toml
	$(PIP_COMPILE) --extra dev --constraint $(RUN_LOCK) --output-file $(DEV_LOCK) pyproject.toml

run: $(RUN_STAMP)
	$(BIN)/floe run

# The browser tests (tests/browser) drive Debian's Chromium through Playwright (never a browser
# of Playwright's own download): install the `chromium` package when it is missing, as root
# with apt-get (CI is root), else stop and say what to install.
CHROMIUM := /usr/bin/chromium

chromium:
	@test -x $(CHROMIUM) || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "make: installing Debian's chromium for the browser tests"; \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; \
	  fi; \
	  test -x $(CHROMIUM) || { echo "make: the browser tests need $(CHROMIUM): install Debian's chromium package (sudo apt-get install chromium)" >&2; exit 1; }; \
	}

# The archive's tests (tests/integration/test_archive.py) start a private PostgreSQL from
# Debian's package (never a server already running): install `postgresql` when no
# /usr/lib/postgresql/*/bin/postgres exists, as root with apt-get, as for chromium.
# (The cluster Debian's package may set up on 5432 is never used: each session makes its own.)
postgresql:
	@ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "make: installing Debian's postgresql for the archive tests"; \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql; \
	  fi; \
	  ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || { echo "make: the archive tests need PostgreSQL: install Debian's postgresql package (sudo apt-get install postgresql)" >&2; exit 1; }; \
	}

# The cluster tests also run a cluster of Debian's Redis 7 (redis-server beside the bundled 6.2,
# which starts replicas' first sync later): install `redis-server` when /usr/bin/redis-server is
# missing, as root with apt-get, as for chromium. (Any service the package starts is never used.)
DEBIAN_REDIS := /usr/bin/redis-server

debian-redis:
	@test -x $(DEBIAN_REDIS) || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "make: installing Debian's redis-server for the cluster tests"; \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server; \
	  fi; \
	  test -x $(DEBIAN_REDIS) || { echo "make: the cluster tests need $(DEBIAN_REDIS): install Debian's redis-server package (sudo apt-get install redis-server)" >&2; exit 1; }; \
	}

# Every test (no path given: pytest uses testpaths from pyproject.toml), on TEST_WORKERS xdist
# workers: those that run Floe's services (floe run, gunicorn, workers, the cluster, Chromium;
# tests/conftest.py groups them) one at a time on one worker, the rest beside them.
# TEST_WORKERS=0 runs everything in the one pytest process.
TEST_WORKERS ?= 2
test: $(DEV_STAMP) chromium postgresql debian-redis
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

# The fast lane, about a minute: lint and types, then the tests that no marker calls slow,
# processes, browser or cluster (pyproject.toml says what each means), on every core.
FAST_TESTS := not slow and not processes and not browser and not cluster
.PHONY: check
check: lint
	$(BIN)/pytest -n auto -m "$(FAST_TESTS)" $(PYTEST_ARGS)

lint: $(DEV_STAMP)
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/mypy

# The default set (python -m bench --help), a few minutes. (a) also measures boardgame.io
# 0.50.2 (bench/peer: `npm ci` on first use; skipped, saying so, without node and npm) and, on
# 2 cores or more, runs pinned too: server on one core, load on the other (about a minute;
# BENCH_ARGS='--no-bgio --no-pinned' skips both).
bench: $(DEV_STAMP)
	$(BIN)/python -m bench $(BENCH_ARGS)

# Bot strength and think time: quick (about 15 minutes), or the full 200 games per pairing.
bench-ai: $(DEV_STAMP)
	$(BIN)/python -m bench.ai $(BENCH_AI_ARGS)

bench-ai-full: $(DEV_STAMP)
	$(BIN)/python -m bench.ai --full --resume $(BENCH_AI_ARGS)

# A 64-bot swiss on 1, 2 and 4 job workers, each a fresh `floe run` (about 5 minutes; also
# `make bench BENCH_ARGS='--only g'`). e.g. BENCH_TOURNAMENT_ARGS='--players 16 --workers 1,2'
bench-tournament: $(DEV_STAMP)
	$(BIN)/python -m bench.tournament $(BENCH_TOURNAMENT_ARGS)

# Floe on a three-master Redis Cluster (a replica each) against one Redis, each behind its own
# `floe run` (about 5 minutes; also `make bench BENCH_ARGS='--only h'`). e.g.
# BENCH_CLUSTER_ARGS='--quick' or '--clients 4,16 --games 100'
bench-cluster: $(DEV_STAMP)
	$(BIN)/python -m bench.cluster $(BENCH_CLUSTER_ARGS)

# Honest clients under each hostile load (uploads, slowloris, idle streams, read-ahead, board
# flood, bot flood) against one `floe run`, idle against attacked in the same run (about 6
# minutes). e.g. BENCH_ATTACKS_ARGS='--quick --only bots --strict'
bench-attacks: $(DEV_STAMP)
	$(BIN)/python -m bench.attacks $(BENCH_ATTACKS_ARGS)

# HTTP servers for the Flask app (gunicorn gevent/gthread, granian), each pinned to one core
# and loaded by wrk from the other, plus 200 idle streams each (about 2 minutes; needs
# Debian's wrk). e.g. BENCH_SERVERS_ARGS='--candidates floe-run,granian-1w --rounds 1'
bench-servers: $(DEV_STAMP)
	$(BIN)/python -m bench.servers $(BENCH_SERVERS_ARGS)

# openapi.yaml (the repository's and service/api/spec's, which /openapi.yaml serves), written from
# service/api/spec/*.yaml, the marshmallow schemas and each game's contract (tests fail while
# either copy is stale).
.PHONY: spec
spec: $(DEV_STAMP)
	$(BIN)/python -m service.api.spec

# docs/reference/configuration.md, written from the Settings declarations in service/settings.py
# (tests/unit/test_configuration_reference.py fails while the committed page differs).
docs: $(RUN_STAMP)
	$(BIN)/python -m service.settings_reference docs/reference/configuration.md

clean:
	rm -rf $(VENV) .floe-data
