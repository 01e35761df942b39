# Rabbithole: `make run` sets up, builds the web app when it is missing or stale, and serves it with the API on
# the sample knowledge base; `make test` sets up and runs every test (Python, the web app's unit tests and the
# browser tests). Both go through `make setup`, which is idempotent and fast when nothing changed.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.rabbithole-installed
HOST ?= 127.0.0.1
PORT ?= 8000
export HF_HUB_OFFLINE ?= 1
export TRANSFORMERS_OFFLINE ?= 1
export ANONYMIZED_TELEMETRY ?= False

# The web app (frontend/): dependencies installed when package-lock.json changed, built when any source is
# newer than the build.
FRONTEND := frontend
NPM := cd $(FRONTEND) && npm
NPM_STAMP := $(FRONTEND)/node_modules/.rabbithole-npm-ci
WEB_BUILD := $(FRONTEND)/dist/index.html
WEB_SOURCES := $(shell find $(FRONTEND)/src $(FRONTEND)/public -type f 2>/dev/null) \
	$(wildcard $(FRONTEND)/index.html $(FRONTEND)/package.json $(FRONTEND)/package-lock.json \
	$(FRONTEND)/vite.config.* $(FRONTEND)/tsconfig*.json)

.PHONY: setup chromium postgres tesseract web run ingest serve test check test-python test-web test-e2e \
	web-lane lint-web-lane lint format bench clean

setup: $(STAMP) $(NPM_STAMP) chromium postgres tesseract

# torch is pinned first: 2.13.0 has a CPU build; an unpinned torch pulls several GB of CUDA libraries.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "torch==2.13.0"
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

$(NPM_STAMP): $(FRONTEND)/package-lock.json
	$(NPM) ci --no-audit --no-fund
	touch $(NPM_STAMP)

chromium:
	@scripts/ensure_chromium.sh

# PostgreSQL's server binaries for the tests of the server backend (a throwaway cluster per test session).
postgres:
	@scripts/ensure_postgres.sh

# Tesseract with German and English data: OCR of scanned PDF pages and of image files (ingestion/ocr).
tesseract:
	@scripts/ensure_tesseract.sh

web: $(WEB_BUILD)

$(WEB_BUILD): $(NPM_STAMP) $(WEB_SOURCES)
	$(NPM) run build
	touch $(WEB_BUILD)

# `rabbithole ingest` exits 3 when some files could not be read: it lists them, ingests the rest, and the
# server starts and shows them (README, "Exit codes"); any other failure (settings, store, model) stops make.
KB ?= kb

ingest: setup
	$(BIN)/rabbithole ingest $(KB) || { code=$$?; test $$code -eq 3 || exit $$code; }

run: ingest web
	$(BIN)/rabbithole serve --host $(HOST) --port $(PORT)

serve: setup
	$(BIN)/rabbithole serve --host $(HOST) --port $(PORT)

# `make test` runs in two lanes side by side: pytest in one, the web app's tests in the other (component
# tests, the build, the browser tests, one after the other). pytest keeps about 1.2 of 2 cores busy on average
# (it waits for servers, subprocesses and streams), so the web lane fits beside it; it runs at a lower
# priority (LANE_NICE), so that it takes the cores pytest leaves idle rather than slowing pytest, the longer
# lane (docs/testing.md, "Where the suite's time goes"). TEST_LANES=1 runs everything one after the other.
# Each lane's output is printed whole when it ends; make waits for both and fails if either does.
# `make check` (CI, .ci/run: `make test WEB_LANE=lint-web-lane`) puts the lint in front of the web lane.
TEST_LANES ?= 2
LANE_NICE ?= nice -n 10
LANE_FLAGS := --no-print-directory -j$(TEST_LANES) --output-sync=target
WEB_LANE ?= web-lane

test: setup
	$(MAKE) $(LANE_FLAGS) test-python $(WEB_LANE)

check: setup
	$(MAKE) --no-print-directory test WEB_LANE=lint-web-lane

test-python: setup
	$(BIN)/python -m pytest -q

test-web: setup
	$(NPM) test

# The browser tests start the real server (.venv) and the fake Ollama, and drive the built app in Chromium.
test-e2e: setup web
	$(NPM) run test:e2e

# The lanes' second half: the same recipes as test-web, web and test-e2e, one after the other.
web-lane: setup
	cd $(FRONTEND) && $(LANE_NICE) npm test
	$(LANE_NICE) $(MAKE) --no-print-directory web
	cd $(FRONTEND) && $(LANE_NICE) npm run test:e2e

lint-web-lane: setup
	$(LANE_NICE) $(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory web-lane

lint: setup
	$(BIN)/ruff check backend tests benchmarks scripts
	$(BIN)/ruff format --check backend tests benchmarks scripts
	$(BIN)/mypy
	$(BIN)/mypy benchmarks
	$(NPM) run lint
	$(NPM) run check:generated

format: setup
	$(BIN)/ruff check --fix backend tests benchmarks scripts
	$(BIN)/ruff format backend tests benchmarks scripts

bench: setup web
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) data bench-data .pytest_cache .mypy_cache .ruff_cache
	rm -rf $(FRONTEND)/node_modules $(FRONTEND)/dist $(FRONTEND)/e2e/artifacts
