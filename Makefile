# The command index. `make run` serves the demo; `make test` runs everything CI runs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
# pytest workers for `make test`: one per core (pytest-xdist), at most 8 (each takes a database
# of the shared Redis, 15 downwards: tests/redis_server.py); PYTEST_WORKERS=0 runs in one process.
PYTEST_WORKERS ?= auto
# The database `make test` runs on: DATABASE_URL's when it is set; else PostgreSQL at
# 127.0.0.1:5432 when a server answers there, as in CI (21 tests need it: row locks, query
# plans, stored pages; they skip on SQLite); else SQLite. pytest-django creates and drops its
# own test_glossary databases (one per worker) on that server; `glossary` itself is not needed.
LOCAL_POSTGRES := postgres://postgres@127.0.0.1:5432/glossary
postgres_answers = $(shell $(PYTHON) -c 'import socket; \
	socket.create_connection(("127.0.0.1", 5432), timeout=1).close(); print("yes")' 2>/dev/null)
test_database_url = $(or $(DATABASE_URL),$(if $(postgres_answers),$(LOCAL_POSTGRES),sqlite:///$(CURDIR)/db.sqlite3))
# Decided once, when `make test` first asks (`make lint` never connects).
TEST_DATABASE_URL = $(eval TEST_DATABASE_URL := $(test_database_url))$(TEST_DATABASE_URL)

.PHONY: help run test test-database lint format migrate demo worker beat bench bench-cold browser java clean e2e install-check

help:
	@echo "make run     set up .venv, migrate SQLite, load the demo, then run the web server on"
	@echo "             $(HOST):$(PORT), a Celery worker and beat together (Ctrl-C stops all three)"
	@echo "make test    set up and run the whole suite (ruff, mypy, import contracts, a bare install's"
	@echo "             imports, migrations check, pytest with the Nu HTML Checker over every page type)"
	@echo "             on DATABASE_URL, else PostgreSQL at 127.0.0.1:5432 when it answers, else SQLite"
	@echo "make install-check  install the project alone into .venv-bare and import every module"
	@echo "make bench   run the benchmarks in bench/"
	@echo "make bench-cold  only the cold path: new databases generated and served at once"
	@echo "make worker  run a Celery worker (needs REDIS_URL)"
	@echo "make beat    run Celery beat (needs REDIS_URL)"
	@echo "make e2e     the production shape end to end (PostgreSQL, redis-server, gunicorn, Celery)"

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

# The project alone, without the dev extras, in a venv of its own: what `pip install -e .`
# gives a fresh machine. Rebuilt only when pyproject.toml changes.
BARE := .venv-bare

$(BARE)/.installed: pyproject.toml
	rm -rf $(BARE)
	$(PYTHON) -m venv $(BARE)
	$(BARE)/bin/pip install --quiet --upgrade pip
	$(BARE)/bin/pip install --quiet -e .
	touch $@

# Part of `make test`: every module of the project imports and `manage.py check` passes with
# only the declared dependencies, so an import that a dev tool happened to bring in (yarl came
# with aiohttp) fails here, not on a fresh install. A few seconds once the venv is there.
install-check: $(BARE)/.installed
	DJANGO_SETTINGS_MODULE=config.settings $(BARE)/bin/python -c 'import importlib, pkgutil, django; \
	django.setup(); \
	names = [m.name for p in ("config", "glossary", "editorial", "demo") \
	         for m in pkgutil.walk_packages(importlib.import_module(p).__path__, p + ".")]; \
	[importlib.import_module(name) for name in names]; \
	print(f"install-check: {len(names)} modules import with the declared dependencies alone")'
	$(BARE)/bin/python manage.py check

$(VENV)/.installed-bench: $(VENV)/.installed
	$(BIN)/pip install --quiet -e '.[dev,bench]'
	touch $@

# Browser tests drive Debian's chromium; a test tool never downloads its own.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "Installing Debian's chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# The Nu HTML Checker (vnu.jar, in the dev extras) runs under Java (tests/public/test_html_validity.py).
java:
	@command -v java >/dev/null 2>&1 || { \
	  echo "Installing Debian's Java runtime for the Nu HTML Checker"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless >/dev/null; }

migrate: $(VENV)/.installed
	$(PY) manage.py migrate --noinput

demo: migrate
	$(PY) manage.py rerender
	$(PY) manage.py load_demo
	$(PY) manage.py ensure_demo_admin

# The web server, a worker and beat, on a broker kept in files under .desk/ (no Redis);
# beat checks cited links only with LINKCHECK_ON_SCHEDULE=true (config/management/commands/rundesk.py).
run: demo
	$(PY) manage.py rundesk $(HOST):$(PORT)

lint: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy config glossary editorial demo tests bench docker manage.py
	$(BIN)/lint-imports

format: $(VENV)/.installed
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

test: test-database $(VENV)/.installed browser java lint install-check
	$(PY) manage.py makemigrations --check --dry-run
	DATABASE_URL='$(TEST_DATABASE_URL)' $(BIN)/pytest -n $(PYTEST_WORKERS) --maxprocesses 8 $(PYTEST_ARGS)

# Said first, without the URL's user and password.
test-database:
	@echo "make test: the suite runs on $(firstword $(subst ://, ,$(TEST_DATABASE_URL))) at $(lastword $(subst @, ,$(subst ://, ,$(TEST_DATABASE_URL))))"

# Also part of `make test`; alone it needs PostgreSQL at 127.0.0.1:5432 and redis-server.
e2e: $(VENV)/.installed
	$(BIN)/pytest -m e2e $(PYTEST_ARGS)

worker: $(VENV)/.installed
	$(BIN)/celery -A config worker --loglevel=INFO

beat: $(VENV)/.installed
	$(BIN)/celery -A config beat --loglevel=INFO

bench: $(VENV)/.installed-bench
	$(PY) bench/run.py

# A glossary served the moment `generate_glossary` returns (bench/web/cold.py; also in `make bench`).
bench-cold: $(VENV)/.installed-bench
	$(PY) bench/run.py --cold

clean:
	rm -rf $(VENV) $(BARE) db.sqlite3 staticfiles test-artifacts .desk
