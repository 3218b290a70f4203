# Quick start:  make demo   (the main job)   |   make test   (every test)
# Both bootstrap .venv (and, for test, npm packages and Debian packages) on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-python test-vscode lint bench bench-smoke soak vsix clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/python examples/demo.py

test: test-python

test-python: $(STAMP)
	$(PY) -m pytest -q

lint: $(STAMP)
	$(VENV)/bin/ruff check hwf_lsp tests bench

clean:
	rm -rf $(VENV) build *.egg-info
