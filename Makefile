# Every target sets up its own virtual environment first: `make test` and
# `make match` work on a fresh clone with nothing else to run.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: install test test-slow lint match bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -c 'import torch' 2>/dev/null || $(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e '.[test,bench]'
	@touch $(STAMP)

test: install
	$(PY) -m pytest -q

test-slow: install
	$(PY) -m pytest -q -m slow

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

match: install
	@echo "make match arrives with the dealer and the match runner."

bench: install
	$(PY) -m tests.bench $(SECTIONS)

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache
