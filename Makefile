# noneuclid: `make reproduce-all` (main job) and `make test` (tests). `make help` lists every target.
SHELL := /bin/bash
PROFILE ?= cpu
PYTHON_BOOT ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# The data root: ../shared/data when it sits beside the checkout, else ./data (filled by `make data`).
DATA_DIR ?= $(if $(wildcard ../shared/data/mnist),$(abspath ../shared/data),$(abspath data))
DATA_MIRROR ?=
# A WordNet 3.0 dict folder to copy from (default: Debian's /usr/share/wordnet, apt-get installed when missing)
WORDNET_DICT ?=
RUNS_DIR ?= runs
# Extra training overrides for every sweep, e.g. TRAIN_ARGS='hydra/launcher=slurm trainer.threads=1'
TRAIN_ARGS ?=
# Training processes side by side in a parallel sweep (empty: one per core)
JOBS ?= $(NONEUCLID_JOBS)
# Files the suite writes itself: PREFIX splits, CIFAR-10 binary batches made from a mirror.
GENERATED_DIR ?= $(abspath data/generated)
export NONEUCLID_DATA_DIR := $(DATA_DIR)
export NONEUCLID_RUNS_DIR := $(RUNS_DIR)
export NONEUCLID_GENERATED_DIR := $(GENERATED_DIR)
export NONEUCLID_JOBS := $(JOBS)

.PHONY: help setup data lint test test-slow smoke bench reproduce-all reproduce-brantner reproduce-hnn reproduce-phydi tables figures report runs sync clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-20s %s\n", $$1, $$2}'
	@echo "  JOBS=<n>             training processes side by side in a sweep (default: one per core)"

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON_BOOT) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test]"
	touch $@

setup: $(VENV)/.installed  ## create .venv and install the package (pinned) with its test extra

data: setup  ## fill DATA_DIR and GENERATED_DIR with data/registry.py's datasets (DATA_MIRROR or download)
	$(PY) scripts/data.py fetch --data-dir $(DATA_DIR) --generated-dir $(GENERATED_DIR) \
		$(if $(DATA_MIRROR),--mirror $(DATA_MIRROR)) $(if $(WORDNET_DICT),--wordnet-dict $(WORDNET_DICT))

lint: setup  ## ruff: the linter and the formatter's check (settings in pyproject.toml)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

test: setup  ## run the test suite on every core (no network, no real datasets needed)
	$(PY) -m pytest -n auto

test-slow: setup  ## the long tests left out of `make test`, results/ redrawn byte for byte among them (minutes)
	$(PY) -m pytest -n auto -m slow -rs

smoke: setup  ## every paper's tables and figures at profile=smoke (minutes; the ablations are left to the tests)
	$(MAKE) reproduce-all PROFILE=smoke

bench: setup  ## benchmarks: ratios against baselines measured in the same run
	$(PY) -m pip install -q -e ".[test,bench]"
	$(PY) scripts/bench.py stiefel
	$(PY) scripts/bench.py hyperbolic
	$(PY) scripts/bench.py hypercomplex
	$(PY) scripts/bench.py poincare
	$(PY) scripts/bench.py charts

reproduce-all: setup  ## every paper at PROFILE (default cpu; PROFILE=smoke for a quick look), then results/index.html; resumable
	$(PY) scripts/reproduce.py all --profile $(PROFILE) $(if $(TRAIN_ARGS),-- $(TRAIN_ARGS))

reproduce-brantner: setup  ## Brantner: Fig. 3 / Table 2 runs and the section experiment at PROFILE, the authors' networks, then results/brantner
	$(PY) scripts/reproduce.py brantner --profile $(PROFILE) $(if $(TRAIN_ARGS),-- $(TRAIN_ARGS))

reproduce-hnn: setup  ## Ganea et al.: Table 1 sweep (six models x PREFIX-10/30/50 [x SNLI]), then Table 2 (WordNet) at PROFILE, then results/hnn
	$(PY) scripts/reproduce.py hnn --profile $(PROFILE) $(if $(TRAIN_ARGS),-- $(TRAIN_ARGS))

reproduce-phydi: setup  ## PHYDI: Tables 1-2 (PHResNets, CIFAR-10) and Fig. 4 (PHTransformers, WikiText-2) at PROFILE
	$(PY) scripts/reproduce.py phydi --profile $(PROFILE) $(if $(TRAIN_ARGS),-- $(TRAIN_ARGS))

report: setup  ## redraw results/ (every table and figure, results/index.html) and the claims digests of docs/<paper>.md from run folders, no training
	$(if $(wildcard results/hnn/paper/runs.csv),$(PY) scripts/report.py hnn hnn --runs $(RUNS_DIR) --profile paper)
	$(PY) scripts/report.py all --runs $(RUNS_DIR) --profile $(PROFILE) --docs

tables: report  ## same as report (tables and figures are drawn together)

figures: report  ## same as report

runs: setup  ## every run folder under RUNS_DIR as one tidy table, seeds grouped
	$(PY) -m noneuclid.runs table $(RUNS_DIR)

sync: setup  ## upload offline W&B runs (needs WANDB_API_KEY and a network)
	@find $(RUNS_DIR) -type d -name 'offline-run-*' -print0 | xargs -0 -r -n1 $(VENV)/bin/wandb sync

clean:  ## remove run folders (results/ stays)
	rm -rf $(RUNS_DIR)
