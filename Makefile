# Every target sets up its own virtual environment first: `make test` and
# `make match` work on a fresh clone with nothing else to run.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
# The hot path (protocol/native.py's COMPILED: the engine's state.py, wire.py, cards.py, ..., and the
# dealer's blocking loop, dealer/server/engine.py, sync_match.py, ...) compiled with mypyc and the C
# compiler, rebuilt when they or the modules they were type-checked against (TYPED_AGAINST) change;
# a failed build leaves the pure-Python modules in use. NATIVE=0 removes the compiled modules and builds none.
NATIVE ?= 1
NATIVE_SOURCES := $(addprefix protocol/,state.py wire.py cards.py rank_lookup.py dealing.py errors.py evaluator.py \
	game.py disk_cache.py rank_rules.py rng.py native.py native_build.py) \
	$(addprefix dealer/server/,lines.py seat_rules.py blocking_seat.py engine.py sync_match.py logfiles.py match.py \
	match_config.py signal_point.py)
NATIVE_STAMP := $(VENV)/.native-stamp-$(NATIVE)

.PHONY: help install test test-slow lint docs results match tournament spar web bench train data clean

# `make help` lists the targets: the text after `##` on each target's line.
help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  make %-10s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# `make match` plays a short duplicate run on shipped agents (the default: the limit CFR agent
# against seed 000's rule opponent); override any of these:
#   make match A=lstm_dqn B=cfr SEEDS=1,234,6666 HANDS=3000 GAME=holdem.limit.2p.reverse_blinds
A ?= cfr
B ?= rule
SEEDS ?= 1,234
HANDS ?= 500
GAME ?= holdem.limit.2p.reverse_blinds
MATCH_ARGS ?=

# The torch that `make install` puts in .venv (when it has none): TORCH is the requirement,
# TORCH_INDEX the package index it comes from (empty: pip's own settings, which find the
# CPU wheel of /opt/wheels here). For example, CUDA 12.4 wheels:
#   make install TORCH_INDEX=https://download.pytorch.org/whl/cu124
# or CPU wheels from the PyTorch index: TORCH_INDEX=https://download.pytorch.org/whl/cpu.
# TORCH=none installs no torch (the dealer, runner and report work without it).
TORCH ?= torch==2.13.0
TORCH_INDEX ?=

install: $(STAMP) $(NATIVE_STAMP) ## make .venv: the project (editable) with every extra, torch (TORCH, TORCH_INDEX), the compiled engine (NATIVE)

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@if [ "$(TORCH)" != none ]; then $(PY) -c 'import torch' 2>/dev/null \
		|| $(PY) -m pip install --quiet '$(TORCH)' $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX)); fi
	$(PY) -m pip install --quiet -e '.[$(if $(filter none,$(TORCH)),plots,all),test,bench,docs]'
	@$(PY) -c 'import torch; print("make install: torch", torch.__version__, "with CUDA " + torch.version.cuda if torch.version.cuda else "(CPU only)")' \
		2>/dev/null || echo "make install: no torch (TORCH=none): the neural agents are not available"
	@touch $(STAMP)

$(NATIVE_STAMP): $(STAMP) $(NATIVE_SOURCES)
	@rm -f $(VENV)/.native-stamp-*
	@if [ "$(NATIVE)" = 0 ]; then $(PY) -m acpc_arena.protocol.native_build --clean; \
	else $(PY) -m acpc_arena.protocol.native_build > $(VENV)/native-build.log 2>&1; tail -n 1 $(VENV)/native-build.log; fi
	@touch $@

# `make test` runs the suite in parallel (pytest-xdist) with a worker a core and two more, since its tests spend
# part of their time waiting on the processes and sockets they test (JOBS=N: N workers; JOBS=0 in make's own
# process), and prints its slowest tests at the end.
JOBS ?= $(shell $(PYTHON) -c 'import os; print((os.cpu_count() or 1) + 2)')

test: install ## the test suite in parallel, at most 8 minutes on 2 cores: JOBS=N workers (default cores + 2)
	$(PY) -m pytest -q -n '$(JOBS)' --dist worksteal --durations=25

test-slow: install ## the long exhaustive tests, the full-size documented examples, and the property fuzzing
	$(PY) -m pytest -q -n '$(JOBS)' --dist worksteal --durations=25 -m slow
	$(PY) -m pytest -q --hypothesis-profile=slow tests/test_fuzz_properties.py

# `make lint` also type-checks (mypy, settings in pyproject.toml) the four packages, tests/, benchmarks/
# and the docs' doctests. Installed, the repository folders are `acpc_arena.protocol`,
# `acpc_arena.dealer`, ... (pyproject.toml package-dir); the editable install finds them
# through an import hook that mypy cannot follow. So lint builds a link farm,
# .venv/typecheck/acpc_arena/<folder> -> <folder>/, with `acpc_arena` a namespace package
# as installed, and puts it on MYPYPATH: errors name files under those links.
TYPECHECK := $(VENV)/typecheck
PACKAGES := protocol dealer agents models
# The pages whose `>>>` examples mypy checks (pytest runs them all as doctests).
DOCTEST_PAGES := $(shell grep -l '^>>> ' README.md $$(find docs -name '*.md' -not -path 'docs/_build/*'))

lint: install ## ruff (check, format), the import layers (lint-imports) and mypy
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	@mkdir -p $(TYPECHECK)/acpc_arena
	@for folder in $(PACKAGES); do ln -sfn $(CURDIR)/$$folder $(TYPECHECK)/acpc_arena/$$folder; done
	@$(PY) -c 'import doctest, sys; print(*(e.source for f in sys.argv[1:] for e in doctest.DocTestParser().get_examples(open(f).read())), sep="", end="")' \
		$(DOCTEST_PAGES) > $(TYPECHECK)/docs_doctests.py
	MYPYPATH=$(TYPECHECK) $(VENV)/bin/mypy --explicit-package-bases $(TYPECHECK)/acpc_arena tests benchmarks $(TYPECHECK)/docs_doctests.py

match: install ## a short duplicate run: A=cfr B=rule SEEDS=1,234 HANDS=500 GAME=... OUT=...
	$(VENV)/bin/acpc-match --a '$(A)' --b '$(B)' --seeds '$(SEEDS)' --hands '$(HANDS)' --game '$(GAME)' \
		$(if $(OUT),--out '$(OUT)') $(if $(CONCURRENCY),--concurrency '$(CONCURRENCY)') $(MATCH_ARGS)

# `make tournament`: every pair of AGENTS in duplicate, the crosstable printed at the end (SEEDS, HANDS,
# GAME, OUT as for `make match`; TOURNAMENT_ARGS adds options, e.g. '--concurrency 4' or '--ray').
AGENTS ?= random,call,raise,rule,cfr
TOURNAMENT_ARGS ?=

tournament: install ## a round robin: AGENTS=random,call,raise,rule,cfr SEEDS=1,234 HANDS=500 GAME=... OUT=...
	$(VENV)/bin/acpc-tournament --agents '$(AGENTS)' --seeds '$(SEEDS)' --hands '$(HANDS)' --game '$(GAME)' \
		$(if $(OUT),--out '$(OUT)') $(TOURNAMENT_ARGS)

# `make spar AGENT=cfr SUITE=limit|nolimit`: AGENT against a sparring suite (agents/sparring/), a round robin in
# tournaments/sparring-SUITE (the bots' own pairs are played once; another AGENT adds only its pairs).
AGENT ?= cfr
SUITE ?= limit
SPAR_limit := spar_equity,spar_tag,spar_lag,spar_station,spar_rock,spar_bluffer
SPAR_nolimit := spar_shove10,spar_shove30,spar_shove60,spar_overbet,spar_minraise,spar_limper,spar_fractions,spar_oddsize,spar_fuzz
SPAR_GAME_limit := holdem.limit.2p.reverse_blinds
SPAR_GAME_nolimit := holdem.nolimit.2p.reverse_blinds

spar: install ## AGENT against a sparring suite: AGENT=cfr SUITE=limit|nolimit SEEDS=1,234 HANDS=500 OUT=...
	@test -n "$(SPAR_$(SUITE))" || { echo "make spar: SUITE is limit or nolimit, not '$(SUITE)'" >&2; exit 2; }
	$(VENV)/bin/acpc-tournament --agents '$(AGENT),$(SPAR_$(SUITE))' --game '$(SPAR_GAME_$(SUITE))' --seeds '$(SEEDS)' \
		--hands '$(HANDS)' --out '$(or $(OUT),tournaments/sparring-$(SUITE))' $(TOURNAMENT_ARGS)

# `make web`: the browser view (replayer, results, a seat to play) of the runs here, on 127.0.0.1:PORT.
PORT ?= 8080

web: install ## the browser view of runs/ and matches/: PORT=8080 (acpc-match --web PORT shows a run live)
	$(VENV)/bin/acpc-web $(wildcard runs matches) --port '$(PORT)'

# `make train AGENT=cfr|cfr-nl|lstm_dqn|dqn|nfq|poker_cnn|ensemble` retrains that agent's checkpoints into runs/train/
# (TRAIN_ARGS adds options); INSTALL=1 writes over the shipped ones in models/checkpoints/ instead.
# poker_cnn learns from the teacher's decisions that `make data` records first (made by `make train` when missing).
train: install ## retrain an agent's checkpoints into runs/train: AGENT=cfr|... [INSTALL=1] [TRAIN_ARGS=...]
	@test -n "$(AGENT)" || { echo "usage: make train AGENT=cfr|cfr-nl|lstm_dqn|dqn|nfq|poker_cnn|ensemble [INSTALL=1] [TRAIN_ARGS='--iterations N']"; exit 2; }
	$(VENV)/bin/acpc-train '$(AGENT)' $(if $(filter 1,$(INSTALL)),--install) $(TRAIN_ARGS)

# `make data`: the default Poker-CNN's training set, the teacher's decisions recorded while it plays
# (runs/poker_cnn-default/; DATA_ARGS adds options, e.g. DATA_ARGS='--shards 20'). The seed configuration's
# (poker_cnn-seed), from ACPC logs: python -m acpc_arena.models.training.poker_cnn_data.
data: install ## the default Poker-CNN's training records (runs/poker_cnn-default/)
	$(PY) -m acpc_arena.models.training.poker_cnn_teacher $(DATA_ARGS)

# `make docs`: the documentation site into docs/_build/html, in strict mode (a warning, a broken link or
# reference fails the build); `.ci/run` builds it. Open docs/_build/html/index.html.
docs: install ## the documentation site (docs/_build/html), strict: a warning fails
	$(VENV)/bin/sphinx-build -E -W --keep-going -q -b html docs docs/_build/html

# `make results PAGES=limit-round-robin,...`: play the runs a results page names and write its page,
# docs/results/NAME.md, from a clean tree (runs are kept in runs/results/ and reused while their command and
# commit are unchanged);
# VERIFY of each page's matches are then replayed at the current commit and compared, the page saying so.
PAGES ?=
VERIFY ?= 3
results: install ## regenerate docs/results pages from their runs: PAGES=name,... VERIFY=3 (all pages: hours)
	$(PY) docs/results/regenerate.py $(if $(PAGES),--pages '$(PAGES)') --verify '$(VERIFY)'

bench: install ## benchmarks: SECTIONS='dealer runner ...' (default all)
	$(PY) -m benchmarks $(SECTIONS)

clean: ## remove .venv and the caches
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache docs/_build
	rm -f protocol/*.so protocol/*.pyd
