# ntk-notebooks: the two commands are `make lab` (set up, open the lessons) and `make test`
# (set up, run every test). Both need only Python 3.11 and pip; they create .venv/ here.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg --nbval-cell-timeout=300

.PHONY: setup lab test test-fast browser-deps benchmark environment notebooks exercises autograde dashboard site clean
LESSON ?= 02_mlp_recursion

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e ".[lab,test]"
	touch $(STAMP)

lab: setup
	$(BIN)/jupyter lab notebooks/00_start_here.ipynb

test: setup browser-deps
	$(BIN)/python -m pytest tests notebooks $(NBVAL)

test-fast: setup            ## unit tests only: no notebooks, no browser, no grading pipeline
	$(BIN)/python -m pytest tests -m "not browser and not grading"

browser-deps:               ## Debian's Chromium for the real-browser widget test (never a downloaded browser)
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core >/dev/null; \
	  else echo "note: /usr/bin/chromium missing and cannot apt-get it; the browser test will be skipped"; fi; \
	fi

benchmark: setup
	$(BIN)/python benchmarks/bench_ntk.py
	$(BIN)/python benchmarks/bench_cnn_kernel.py

environment: setup          ## regenerate environment.yml from pyproject.toml
	$(BIN)/p2c project --overwrite force

notebooks: setup            ## re-create every lesson .ipynb from its .py source and execute it
	$(BIN)/python tools/build_notebooks.py

exercises: setup           ## rebuild solutions/*.ipynb from their .py sources and regenerate exercises/
	$(BIN)/python tools/build_notebooks.py solutions/chapter4/ex*.py
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/nbgrader generate_assignment chapter4 --force

autograde: setup           ## grade grading/submitted/*/chapter4, export grades.csv, write feedback
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/nbgrader autograde chapter4 --force
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/nbgrader export
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/nbgrader generate_feedback chapter4 --force

dashboard: setup           ## one lesson's widgets and plots without code (Voila): make dashboard LESSON=04_resnet
	$(BIN)/voila notebooks/$(LESSON).ipynb --port=8866 --Voila.ip=127.0.0.1

site: setup                ## static HTML of the executed lessons in build/site/
	$(BIN)/python tools/build_site.py build/site

clean:
	rm -rf $(VENV) build .pytest_cache
