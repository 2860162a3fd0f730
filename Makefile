# ntk-notebooks: the two commands are `make lab` (set up, open the lessons) and `make test`
# (set up, run every test). Both need only Python 3.11, 3.12 or 3.13 and pip; they create .venv/ here.

# The Python of .venv/: PYTHON=/path/to/python if given, else the first of these names that runs and is a tested
# version (tools/find_python.sh; the list matches pyproject.toml's classifiers, a test checks).
TESTED_PYTHONS := 3.11 3.12 3.13
PYTHON ?= $(shell TESTED="$(TESTED_PYTHONS)" sh tools/find_python.sh python3 python3.13 python3.12 python3.11 python)
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg --nbval-cell-timeout=300
# The lessons run a second time as if on another machine: one thread, torch's generic (non-SIMD) kernels,
# MKL limited to AVX and OpenBLAS's Sandybridge kernels, so rounding differs everywhere. Every assert and
# every printed number must survive that (a lesson's claims must not depend on the CPU it runs on).
OTHER_MACHINE := OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 ATEN_CPU_CAPABILITY=default \
                 MKL_ENABLE_INSTRUCTIONS=AVX OPENBLAS_CORETYPE=Sandybridge

.PHONY: setup lab test test-fast test-lesson other-python links zh-catalog browser-deps benchmark environment notebooks exercises autograde dashboard site student clean
LESSON ?= 02_mlp_recursion

setup: $(STAMP)

$(STAMP): pyproject.toml
	@TESTED="$(TESTED_PYTHONS)" sh tools/find_python.sh --check "$(PYTHON)"
	@echo "Setting up $(VENV)/ with $(PYTHON) ($$($(PYTHON) --version)); torch 2.13.0 is most of the download (README, 'Which Python, which torch')"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e ".[lab,test]"
	@# The lessons' kernel (this .venv only): torch's OpenMP threads sleep instead of spinning when they wait,
	@# so a lesson stays fast when other programs share the cores (README, "Speed on a busy machine").
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (ipykernel)" \
	  --env OMP_WAIT_POLICY PASSIVE >/dev/null
	touch $(STAMP)

lab: setup
	$(BIN)/jupyter lab notebooks/00_start_here.ipynb

# The tests keep matplotlib's font cache in build/ (MPLCONFIGDIR), so a stale or broken cache in the user's home
# (one written while a venv was being deleted lacks matplotlib's own STIX fonts: every plot with maths then warns on
# stderr, which nbval rejects) cannot fail them.
TEST_ENV := MPLCONFIGDIR=$(CURDIR)/build/matplotlib

test: setup browser-deps    ## every test; nbval runs the English and the Chinese lessons, then the English as if elsewhere
	$(TEST_ENV) $(BIN)/python -m pytest tests notebooks $(NBVAL)
	$(TEST_ENV) $(OTHER_MACHINE) $(BIN)/python -m pytest -p no:cacheprovider notebooks --ignore=notebooks/zh $(NBVAL)

test-fast: setup            ## unit tests only: no notebooks, no browser, no grading pipeline
	$(BIN)/python -m pytest -p no:cacheprovider tests -m "not browser and not grading"

test-lesson: setup          ## one lesson under nbval: make test-lesson LESSON=03_cnn
	$(BIN)/python -m pytest -p no:cacheprovider notebooks/$(LESSON).ipynb $(NBVAL)

# A second Python beside .venv/: its own venv (.venv-3.12/ ...), the unit tests and lesson 03 (numba's compiled
# path). Not part of `make test`: off Python 3.11 pip downloads torch's default CUDA build (README).
other-python:               ## make other-python OTHER=python3.12 (or a path): unit tests + lesson 03 in .venv-3.12/
	@test -n "$(OTHER)" || { echo "name the interpreter: make other-python OTHER=python3.12" >&2; exit 2; }
	@TESTED="$(TESTED_PYTHONS)" sh tools/find_python.sh --check "$(OTHER)"
	$(MAKE) test-fast test-lesson PYTHON="$(OTHER)" LESSON=03_cnn \
	  VENV=.venv-$$($(OTHER) -c 'import sys; print("%d.%d" % sys.version_info[:2])')

links: setup                ## point the Colab/Binder links and install cells at a fork: make links REPOSITORY=owner/name
	$(BIN)/python tools/install_links.py $(REPOSITORY)

browser-deps:               ## Debian's Chromium for the real-browser tests (never a downloaded browser) and a CJK font
	@missing=""; [ -x /usr/bin/chromium ] || missing="chromium fonts-dejavu-core"; \
	fc-list :lang=zh 2>/dev/null | grep -q . || missing="$$missing fonts-noto-cjk"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "note: cannot apt-get$$missing; the browser tests will be skipped or show boxes for Chinese"; fi; \
	fi

benchmark: setup
	$(BIN)/python benchmarks/bench_ntk.py
	$(BIN)/python benchmarks/bench_cnn_kernel.py
	$(BIN)/python benchmarks/bench_lessons.py
	$(BIN)/python benchmarks/bench_lessons.py --load
	$(BIN)/python benchmarks/bench_scaling.py
	$(BIN)/python benchmarks/bench_busy.py

environment: setup          ## regenerate environment.yml from pyproject.toml
	$(BIN)/p2c project --overwrite force

zh-catalog: setup           ## after editing English lessons: mark their changed texts in notebooks/locale/zh/*.po
	$(BIN)/python tools/zh_catalog.py update
	$(BIN)/python tools/zh_catalog.py check || true

notebooks: setup            ## re-create every lesson .ipynb from its .py source and execute it, then the Chinese ones
	$(BIN)/python tools/build_notebooks.py
	$(BIN)/python tools/build_zh.py

exercises: setup           ## rebuild solutions/*.ipynb from their .py sources and regenerate exercises/
	$(BIN)/python tools/build_notebooks.py solutions/chapter4/ex*.py
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/nbgrader generate_assignment chapter4 --force

autograde: setup           ## grade grading/submitted/*/chapter4, export grades.csv, write feedback
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/nbgrader autograde chapter4 --force
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/nbgrader export
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/nbgrader generate_feedback chapter4 --force

dashboard: setup           ## one lesson's sliders and plots, no code (Voila): LESSON=04_resnet, or zh/04_resnet
	$(BIN)/voila notebooks/$(LESSON).ipynb --port=8866 --Voila.ip=127.0.0.1

site: setup                ## static HTML of the executed lessons: build/site/, Chinese in zh/ (offline: index.html)
	$(BIN)/python tools/build_site.py build/site

student:                   ## a copy of the course for students, no solutions: make student [DEST=folder] (build/student)
	$(PYTHON) tools/make_student_copy.py $(or $(DEST),build/student)

clean:
	rm -rf $(VENV) .venv-*/ build .pytest_cache
