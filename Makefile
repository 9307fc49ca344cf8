PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed
# Ray RLlib pins gymnasium 1.2.x while the client suite tests gymnasium 1.4, so the RLlib
# tests run in a venv of their own (the same project, with the [rllib] extra).
RLLIB_VENV := .venv-rllib
RLLIB_STAMP := $(RLLIB_VENV)/.installed
RLLIB_TESTS := tests/rllib
PYTEST_ARGS ?=
# The suite and its pure-Python rerun on every core (pytest-xdist); a test file's tests stay
# in one process, so a module's fixtures are made once. PARALLEL= runs them in one process.
PARALLEL ?= -n auto --dist loadfile
# The C sources, the folder setup.py builds into src/widderkopf_env/_core*.so and
# src/widderkopf_env/agents/_solver*.so: a change to any of them reinstalls.
C_SOURCES := $(wildcard csrc/*.[ch] csrc/solver/*.[ch])
# The engine, env and vector tests, run a second time on the pure-Python fallback
# (WIDDERKOPF_PURE_PYTHON=1), so that both implementations pass them.
PURE_TESTS := tests/vector tests/core/test_engine_rules.py tests/core/test_engine_api.py \
	tests/core/test_engine_properties.py tests/core/test_aec_env.py tests/core/test_gym_env.py \
	tests/core/test_aec_protocol.py tests/core/test_no_leak.py tests/core/test_seeding.py \
	tests/core/test_variants.py \
	tests/core/test_seeded_deals.py tests/core/test_corrupted_slots.py

.PHONY: venv .venv test test-loaded demo bench dist clean browser docs

# `make .venv` (or `make venv`) creates the virtualenv and installs the project.
venv .venv: $(STAMP)

# torch==2.13.0 is installed first, pinned, so that a local CPU wheel of it can serve,
# whereas an unpinned torch may pull gigabytes of CUDA packages.
# The "torch>=2.1" in the train extra is then already satisfied. The editable install
# also compiles the optional C accelerators (setup.py) when a C compiler is present.
$(STAMP): pyproject.toml setup.py $(C_SOURCES)
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/pip install torch==2.13.0
	$(VENV)/bin/pip install -e ".[train,dev,clients,render,docs,openspiel]"
	touch $@

$(RLLIB_STAMP): pyproject.toml setup.py $(C_SOURCES)
	$(PYTHON) -m venv $(RLLIB_VENV)
	$(RLLIB_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(RLLIB_VENV)/bin/pip install torch==2.13.0
	$(RLLIB_VENV)/bin/pip install -e ".[train,dev,rllib]"
	touch $@

# The real-browser replay test (tests/core/test_replay_browser.py) drives Debian's chromium and
# chromium-driver. Where they are missing and we may install them (apt-get, as root or
# with password-less sudo, as in CI) this installs them; elsewhere it does nothing and
# that test is skipped with a message.
browser:
	@if ! { command -v chromium && command -v chromedriver; } >/dev/null 2>&1 \
	    && command -v apt-get >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then sudo=; elif sudo -n true 2>/dev/null; then sudo="sudo -n"; \
	  else exit 0; fi; \
	  $$sudo apt-get update && $$sudo env DEBIAN_FRONTEND=noninteractive \
	    apt-get install -y --no-install-recommends chromium chromium-driver; \
	fi

# The suite (tests/project/test_docs.py builds the site in strict mode and opens it in
# Chromium), then every Python code block of README.md and docs/ (pytest-markdown-docs;
# docs/clients.md's blocks run in tests/clients/test_readme_clients.py).
test: $(STAMP) $(RLLIB_STAMP) browser
	$(VENV)/bin/ruff check .
	$(VENV)/bin/python -m pytest $(PARALLEL) $(PYTEST_ARGS) --ignore=$(RLLIB_TESTS)
	WIDDERKOPF_PURE_PYTHON=1 $(VENV)/bin/python -m pytest $(PARALLEL) $(PYTEST_ARGS) $(PURE_TESTS)
	$(VENV)/bin/python -m pytest $(PYTEST_ARGS) --markdown-docs README.md docs \
	    --ignore=docs/clients.md
	$(RLLIB_VENV)/bin/python -m pytest $(PYTEST_ARGS) $(RLLIB_TESTS) tests/project/test_architecture.py

# The suite beside two busy loops (BUSY_LOOPS=N for more): it asserts no timing that load breaks.
test-loaded:
	scripts/busy_load.sh $(MAKE) test

# The documentation site into site/: offline, strict (a broken link or anchor, a missing API
# object or any warning fails). Open site/index.html, or serve it: python -m http.server -d site
docs: $(STAMP)
	$(VENV)/bin/python -m mkdocs build --strict

demo: $(STAMP)
	$(VENV)/bin/python -m widderkopf_env.train.demo

# The quick form of each benchmark (a few minutes in all); every bench/*.py script takes
# --full for its long form (the sizes the documented figures use).
bench: $(STAMP)
	$(VENV)/bin/python bench/engine.py
	$(VENV)/bin/python bench/env.py
	$(VENV)/bin/python bench/agents.py

# The sdist and the wheel in dist/ (what a release uploads; see docs/RELEASING.md).
# An isolated build: pip fetches setuptools for it as pyproject.toml asks.
dist: $(STAMP)
	rm -rf dist
	$(VENV)/bin/python -m build --outdir dist

clean:
	rm -rf $(VENV) $(RLLIB_VENV) build dist site *.egg-info .pytest_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	rm -f src/widderkopf_env/_core*.so src/widderkopf_env/_core*.pyd
	rm -f src/widderkopf_env/agents/_solver*.so src/widderkopf_env/agents/_solver*.pyd
