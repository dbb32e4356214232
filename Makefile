# Every target sets up its own virtual environment first: `make test` and
# `make match` work on a fresh clone with nothing else to run.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: install test test-slow lint match bench train data clean

# `make match` plays a short duplicate run on shipped agents; override any of these:
#   make match A=rule B=random SEEDS=1,234,6666 HANDS=3000 GAME=holdem.limit.2p.reverse_blinds
A ?= rule
B ?= random
SEEDS ?= 1,234
HANDS ?= 500
GAME ?= holdem.limit.2p.reverse_blinds
MATCH_ARGS ?=

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

# `make lint` also type-checks (mypy, settings in pyproject.toml) the four packages, tests/
# and the README's doctests. Installed, the repository folders are `acpc_arena.protocol`,
# `acpc_arena.dealer`, ... (pyproject.toml package-dir); the editable install finds them
# through an import hook that mypy cannot follow. So lint builds a link farm,
# .venv/typecheck/acpc_arena/<folder> -> <folder>/, with `acpc_arena` a namespace package
# as installed, and puts it on MYPYPATH: errors name files under those links.
TYPECHECK := $(VENV)/typecheck
PACKAGES := protocol dealer agents models

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	@mkdir -p $(TYPECHECK)/acpc_arena
	@for folder in $(PACKAGES); do ln -sfn $(CURDIR)/$$folder $(TYPECHECK)/acpc_arena/$$folder; done
	@$(PY) -c 'import doctest, sys; print(*(e.source for e in doctest.DocTestParser().get_examples(open(sys.argv[1]).read())), sep="", end="")' \
		README.md > $(TYPECHECK)/readme_doctests.py
	MYPYPATH=$(TYPECHECK) $(VENV)/bin/mypy --explicit-package-bases $(TYPECHECK)/acpc_arena tests $(TYPECHECK)/readme_doctests.py

match: install
	$(VENV)/bin/acpc-match --a $(A) --b $(B) --seeds $(SEEDS) --hands $(HANDS) --game $(GAME) \
		$(if $(OUT),--out $(OUT)) $(if $(CONCURRENCY),--concurrency $(CONCURRENCY)) $(MATCH_ARGS)

# `make train AGENT=cfr|cfr-nl|lstm_dqn|dqn|nfq|poker_cnn|ensemble` retrains that agent's shipped checkpoints (TRAIN_ARGS
# adds options). poker_cnn learns from the decision records that `make data` writes first.
train: install
	@test -n "$(AGENT)" || { echo "usage: make train AGENT=cfr|cfr-nl|lstm_dqn|dqn|nfq|poker_cnn|ensemble [TRAIN_ARGS='--iterations N']"; exit 2; }
	$(PY) -m acpc_arena.models.train $(AGENT) $(TRAIN_ARGS)

# `make data`: Poker-CNN's training set, the teacher's decisions in ACPC logs of its matches (runs/poker_cnn/;
# DATA_ARGS adds options, e.g. DATA_ARGS='--logs LOG... --imitate NAME' to read other logs instead).
data: install
	$(PY) -m acpc_arena.models.poker_cnn.data $(DATA_ARGS)

bench: install
	$(PY) -m tests.bench $(SECTIONS)

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache
