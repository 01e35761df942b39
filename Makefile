# Rabbithole: `make run` sets up and serves the app on the sample knowledge base; `make test` sets up and
# runs every test. Both go through `make setup`, which is idempotent and fast when nothing changed.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.rabbithole-installed
HOST ?= 127.0.0.1
PORT ?= 8000
export HF_HUB_OFFLINE ?= 1
export TRANSFORMERS_OFFLINE ?= 1
export ANONYMIZED_TELEMETRY ?= False

.PHONY: setup run ingest serve test lint format bench clean

setup: $(STAMP)

# torch is pinned first: 2.13.0 has a CPU build; an unpinned torch pulls several GB of CUDA libraries.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "torch==2.13.0"
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

ingest: setup
	$(BIN)/rabbithole ingest kb

run: ingest
	$(BIN)/rabbithole serve --host $(HOST) --port $(PORT)

serve: setup
	$(BIN)/rabbithole serve --host $(HOST) --port $(PORT)

test: setup
	$(BIN)/python -m pytest -q

lint: setup
	$(BIN)/ruff check backend tests benchmarks scripts
	$(BIN)/ruff format --check backend tests benchmarks scripts
	$(BIN)/mypy

format: setup
	$(BIN)/ruff check --fix backend tests benchmarks scripts
	$(BIN)/ruff format backend tests benchmarks scripts

bench: setup
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) data bench-data .pytest_cache .mypy_cache .ruff_cache
