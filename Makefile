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
# Files the suite writes itself: PREFIX splits, CIFAR-10 binary batches made from a mirror.
GENERATED_DIR ?= $(abspath data/generated)
export NONEUCLID_DATA_DIR := $(DATA_DIR)
export NONEUCLID_RUNS_DIR := $(RUNS_DIR)
export NONEUCLID_GENERATED_DIR := $(GENERATED_DIR)
# Ganea et al.: the SNLI column runs only when its training split is in the data root.
comma := ,
HNN_DATA ?= prefix10,prefix30,prefix50$(if $(wildcard $(DATA_DIR)/snli/*train*),$(comma)snli)

.PHONY: help setup data test smoke bench reproduce-all reproduce-brantner reproduce-hnn reproduce-phydi tables figures report sync clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-20s %s\n", $$1, $$2}'

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON_BOOT) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test]"
	touch $@

setup: $(VENV)/.installed  ## create .venv and install the package (pinned) with its test extra

data: setup  ## fill DATA_DIR (from DATA_MIRROR when given, else download); verifies sha256
	$(PY) -m noneuclid.data fetch mnist wikitext2 --data-dir $(DATA_DIR) $(if $(DATA_MIRROR),--mirror $(DATA_MIRROR))
	$(PY) -m noneuclid.data fetch cifar10 --data-dir $(if $(DATA_MIRROR),$(GENERATED_DIR),$(DATA_DIR)) $(if $(DATA_MIRROR),--mirror $(DATA_MIRROR))

test: setup  ## run the test suite (no network, no real datasets needed)
	$(PY) -m pytest

smoke: setup  ## every experiment at profile=smoke (seconds)
	$(MAKE) reproduce-all PROFILE=smoke

bench: setup  ## benchmarks: ratios against baselines measured in the same run
	$(PY) -m noneuclid.bench stiefel
	$(PY) -m noneuclid.bench hyperbolic
	$(PY) -m noneuclid.bench hypercomplex

reproduce-brantner: setup  ## Brantner: train the four runs of Fig. 3 / Table 2 at PROFILE, redraw results/brantner
	$(PY) -m noneuclid.data verify mnist --data-dir $(DATA_DIR)
	$(PY) -m noneuclid.train -m experiment=brantner/table2 profile=$(PROFILE)
	$(PY) -m noneuclid.report brantner --runs $(RUNS_DIR) --profile $(PROFILE)

reproduce-hnn: setup  ## Ganea et al.: Table 1 sweep (six models x PREFIX-10/30/50 [x SNLI]) at PROFILE, redraw results/hnn
	@$(if $(findstring snli,$(HNN_DATA)),,echo "SNLI training split not in $(DATA_DIR)/snli: its Table 1 column reads 'not run (data missing)'")
	$(PY) -m noneuclid.train -m experiment=hnn/table1 profile=$(PROFILE) data=$(HNN_DATA)
	$(PY) -m noneuclid.report hnn --runs $(RUNS_DIR) --profile $(PROFILE)

reproduce-phydi: setup  ## PHYDI: Tables 1-2 (PHResNets, CIFAR-10) and Fig. 4 (PHTransformers, WikiText-2) at PROFILE
	$(if $(wildcard $(DATA_DIR)/cifar10/materialize.py),$(PY) -m noneuclid.data fetch cifar10 --data-dir $(GENERATED_DIR) --mirror $(DATA_DIR),$(PY) -m noneuclid.data verify cifar10 --data-dir $(DATA_DIR))
	$(PY) -m noneuclid.train -m experiment=phydi/table1 profile=$(PROFILE)
	$(PY) -m noneuclid.train -m experiment=phydi/table2 profile=$(PROFILE)
	$(PY) -m noneuclid.train -m experiment=phydi/fig4 profile=$(PROFILE)
	$(PY) -m noneuclid.report phydi --runs $(RUNS_DIR) --profile $(PROFILE)

reproduce-all: reproduce-brantner reproduce-hnn reproduce-phydi  ## every paper at PROFILE (default cpu; PROFILE=smoke for a quick look)

report: setup  ## redraw results/ (tables, figures, README block) from existing run folders, no training
	$(PY) -m noneuclid.report brantner --runs $(RUNS_DIR) --profile $(PROFILE)
	$(PY) -m noneuclid.report hnn --runs $(RUNS_DIR) --profile $(PROFILE)
	$(PY) -m noneuclid.report phydi --runs $(RUNS_DIR) --profile $(PROFILE)

tables: report  ## same as report (tables and figures are drawn together)

figures: report  ## same as report

sync: setup  ## upload offline W&B runs (needs WANDB_API_KEY and a network)
	@find $(RUNS_DIR) -type d -name 'offline-run-*' -print0 | xargs -0 -r -n1 $(VENV)/bin/wandb sync

clean:  ## remove run folders (results/ stays)
	rm -rf $(RUNS_DIR)
