# noneuclid: `make reproduce-all` (main job) and `make test` (tests). `make help` lists every target.
SHELL := /bin/bash
PROFILE ?= cpu
PYTHON_BOOT ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# The data root: ../shared/data when it sits beside the checkout, else ./data (filled by `make data`).
DATA_DIR ?= $(if $(wildcard ../shared/data/mnist),$(abspath ../shared/data),$(abspath data))
DATA_MIRROR ?=
RUNS_DIR ?= runs
export NONEUCLID_DATA_DIR := $(DATA_DIR)
export NONEUCLID_RUNS_DIR := $(RUNS_DIR)

.PHONY: help setup data test smoke bench reproduce-all reproduce-brantner tables figures report sync clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-20s %s\n", $$1, $$2}'

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON_BOOT) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test]"
	touch $@

setup: $(VENV)/.installed  ## create .venv and install the package (pinned) with its test extra

data: setup  ## fill DATA_DIR (from DATA_MIRROR when given, else download); verifies sha256
	$(PY) -m noneuclid.data fetch mnist --data-dir $(DATA_DIR) $(if $(DATA_MIRROR),--mirror $(DATA_MIRROR))

test: setup  ## run the test suite (no network, no real datasets needed)
	$(PY) -m pytest

smoke: setup  ## every experiment at profile=smoke (seconds)
	$(MAKE) reproduce-all PROFILE=smoke

bench: setup  ## benchmarks: ratios against baselines measured in the same run
	$(PY) -m noneuclid.bench stiefel

reproduce-brantner: setup  ## Brantner: train the four runs of Fig. 3 / Table 2 at PROFILE, redraw results/brantner
	$(PY) -m noneuclid.data verify mnist --data-dir $(DATA_DIR)
	$(PY) -m noneuclid.train -m experiment=brantner/table2 profile=$(PROFILE)
	$(PY) -m noneuclid.report brantner --runs $(RUNS_DIR) --profile $(PROFILE)

reproduce-all: reproduce-brantner  ## every paper at PROFILE (default cpu; PROFILE=smoke for a quick look)

report: setup  ## redraw results/ (tables, figures, README block) from existing run folders, no training
	$(PY) -m noneuclid.report brantner --runs $(RUNS_DIR) --profile $(PROFILE)

tables: report  ## same as report (tables and figures are drawn together)

figures: report  ## same as report

sync: setup  ## upload offline W&B runs (needs WANDB_API_KEY and a network)
	@find $(RUNS_DIR) -type d -name 'offline-run-*' -print0 | xargs -0 -r -n1 $(VENV)/bin/wandb sync

clean:  ## remove run folders (results/ stays)
	rm -rf $(RUNS_DIR)
