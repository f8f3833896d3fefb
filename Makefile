# Everything a fresh machine with Python 3 needs: `make demo` (the main job) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# where torch comes from: empty = the default index (PyPI: the CUDA build on Linux x86-64);
# TORCH_INDEX=https://download.pytorch.org/whl/cpu for the CPU-only build
TORCH_INDEX ?=
TORCH := torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))

.PHONY: setup demo test test-slow test-planted test-wheel lint bench clean integrations-venv test-integrations

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install $(TORCH)
	$(BIN)/pip install -e ".[dev]"
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/cardzoo demo

test: $(STAMP)
	$(BIN)/pytest -q

test-slow: $(STAMP)
	$(BIN)/pytest -q -m slow

# The planted rule bugs (tests/legality/planted_bugs.py), each in a temporary copy: the tests must
# catch every one (also part of test-slow)
test-planted: $(STAMP)
	$(BIN)/pytest -q -m slow tests/test_planted_bugs.py

# The habits (CONTRIBUTING.md): ruff's lint rules, its formatter and mypy's type check, configured
# in pyproject.toml.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	MYPY=$(BIN)/mypy .ci/typecheck

# The package as a user gets it: sdist + wheel, installed in a fresh venv, used from another folder.
test-wheel:
	bash .ci/wheel-check

# RLlib + Tianshou live in their own venv: Ray pins an older gymnasium than the core install.
# torch is named in the same pip call so the extras can never pull another build.
INTEG := .venv-integrations
INTEG_STAMP := $(INTEG)/.installed

$(INTEG_STAMP): pyproject.toml
	$(PYTHON) -m venv $(INTEG)
	$(INTEG)/bin/pip install $(TORCH)
	$(INTEG)/bin/pip install torch==2.13.0 -e ".[dev,rllib,tianshou]"
	touch $(INTEG_STAMP)

integrations-venv: $(INTEG_STAMP)

test-integrations: $(INTEG_STAMP)
	$(INTEG)/bin/pytest -q -m integrations tests/integrations
	$(INTEG)/bin/pytest -q "tests/test_docs.py::test_page_runs[docs/integrations.md]"

bench: $(STAMP)
	$(BIN)/cardzoo bench

clean:
	rm -rf $(VENV) $(INTEG) build dist *.egg-info
