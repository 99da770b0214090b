# Two commands matter: `make run` (a working site on http://127.0.0.1:8000) and
# `make test` (the whole suite). Both create the virtual environment first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck venv clean bench

venv: $(STAMP)

$(STAMP): pyproject.toml ratings/engine/_native.c
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev,peers]"
	touch $(STAMP)

# DEBUG is off unless set; the development commands set it (the tests: pyproject's `env`).
run typecheck: export DEBUG ?= 1
# `make run PORT=8001`: the e-mails printed in the terminal link to the port it serves.
PORT ?= 8000
run: export SITE_URL ?= http://127.0.0.1:$(PORT)

run: $(STAMP)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py seed_demo --if-empty
	$(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports  # the apps depend one way (docs/ARCHITECTURE.md)

typecheck: $(STAMP)
	$(BIN)/mypy core ladder ratings accounts

bench: $(STAMP)
	$(BIN)/python benchmarks/engine.py

clean:
	rm -rf $(VENV)
