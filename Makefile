PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=

.PHONY: venv .venv test demo bench clean

# `make .venv` (or `make venv`) creates the virtualenv and installs the project.
venv .venv: $(STAMP)

# torch==2.13.0 is installed first: on our machines that exact version comes from a
# local CPU wheel, whereas an unpinned torch would pull gigabytes of CUDA packages.
# The "torch>=2.1" in the train extra is then already satisfied. The editable install
# also compiles the optional C accelerator (setup.py) when a C compiler is present.
$(STAMP): pyproject.toml setup.py widderkopf_env/_speedups.c
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/pip install torch==2.13.0
	$(VENV)/bin/pip install -e ".[train,dev,rllib]"
	touch $@

test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/python -m pytest $(PYTEST_ARGS)

demo: $(STAMP)
	$(VENV)/bin/python -m widderkopf_env.train.demo

bench: $(STAMP)
	$(VENV)/bin/python bench/engine.py
	$(VENV)/bin/python bench/env.py
	$(VENV)/bin/python bench/agents.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	rm -f widderkopf_env/_speedups*.so widderkopf_env/_speedups*.pyd
