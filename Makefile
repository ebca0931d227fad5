# Every target builds its own virtual environment first; only Python >= 3.12, pip and make
# are needed.  The interpreter: $(PYTHON) if given, else the first of python3.12, python3.13,
# python3 that runs and is >= 3.12, else one installed under pyenv (present but not global
# on some machines); none of them is an error that says so.
VENV := .venv
BIN := $(VENV)/bin

define find_python
for p in python3.12 python3.13 python3; do \
  if command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then \
    command -v $$p; exit 0; \
  fi; \
done; \
root=$$(pyenv root 2>/dev/null || echo "$$HOME/.pyenv"); \
for p in $$root/versions/3.12*/bin/python3 $$root/versions/3.1[3-9]*/bin/python3; do \
  if [ -x "$$p" ] && "$$p" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then \
    echo "$$p"; exit 0; \
  fi; \
done
endef

PYTHON ?= $(shell $(find_python))

.PHONY: demo test test-slow docs lint format bench bench-check notebooks clean python

python:
	@if [ -z "$(PYTHON)" ]; then \
	  echo "judgebayes needs Python >= 3.12 (PyMC 6 does); none found as python3.12, python3.13, python3 or under pyenv. Install one, or run: make PYTHON=/path/to/python3.12 ..." >&2; \
	  exit 2; \
	fi

# the environment itself
$(BIN)/python: | python
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# pip byte-compiles what it installs one file at a time; compileall uses every core. A file
# it cannot compile is only imported slower.
COMPILE = -$(BIN)/python -m compileall -q -j 0 $(VENV)/lib >/dev/null 2>&1

# the package and what the demo needs (no test tools)
$(BIN)/.core: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --no-compile -e .
	$(COMPILE)
	touch $@

# the package with the test extras in one install (peers, Dask, Inspect, a browser
# driver, notebooks), which holds the core too: a fresh test environment in 38 s against
# 57 s for the package, then the extras, each byte-compiled by pip
# irrCAC and krippendorff (GPL) are test-time references for the agreement coefficients,
# never imported by the package; irrCAC pins scipy 1.12 and an old coverage it does not need
# for the raw-ratings coefficients, so it is installed without its pins
$(BIN)/.test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --no-compile -e ".[test]"
	$(BIN)/python -m pip install --quiet --no-compile --no-deps "irrCAC==0.4.4" "krippendorff==0.9.0"
	$(COMPILE)
	touch $@ $(BIN)/.core

demo: $(BIN)/.core
	$(BIN)/judgebayes demo

test: $(BIN)/.test
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  echo "make test: the HTML report's browser test will be skipped: no chromium (Debian/Ubuntu: apt-get install chromium; .ci/run does)"
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest

# the site: Sphinx with warnings as errors (internal references included), then the site's
# own tests in a headless browser (tests/site)
$(BIN)/.docs: pyproject.toml | $(BIN)/.test
	$(BIN)/python -m pip install --quiet --no-compile -e ".[test,docs]"
	touch $@

docs: $(BIN)/.docs
	rm -rf docs/_build docs/reference/generated
	$(BIN)/python -m sphinx -b html -W --keep-going -q docs docs/_build/html
	$(BIN)/python -m pytest -m site -n 0 -p no:cacheprovider tests/site

test-slow: $(BIN)/.test
	$(BIN)/python -m pytest -m slow

lint: $(BIN)/.test
	$(BIN)/ruff check .

format: $(BIN)/.test
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

notebooks: $(BIN)/.test
	$(BIN)/python notebooks/build.py

# the peers the benchmarks compare against; confseq 0.0.11 has no wheel: it is built from
# source against the boost-headers wheel with a current pybind11 (its pinned one predates
# Python 3.12)
$(BIN)/.bench: $(BIN)/.test
	$(BIN)/python -m pip install --quiet -e ".[test,bench]"
	$(BIN)/python -m pip install --quiet boost-headers scikit-build cmake ninja "pybind11>=2.13" multiprocess
	BOOST=$$($(BIN)/python -c 'import boost_headers, os; print(os.path.join(os.path.dirname(boost_headers.__file__), "include"))'); \
	  BOOST_ROOT=$$BOOST SKBUILD_CONFIGURE_OPTIONS="-DBoost_INCLUDE_DIR=$$BOOST" \
	  $(BIN)/python -m pip install --quiet --no-deps --no-build-isolation "confseq==0.0.11"
	touch $@

# the speed guard: each core call against its peer (or a numpy reference op) in one
# process, the CPU-time ratio held to benchmarks/bench_bounds.toml; CI runs it
bench-check: $(BIN)/.test
	$(BIN)/python benchmarks/bench_check.py --fast

bench: $(BIN)/.bench
	$(BIN)/python benchmarks/closed_form_coverage.py
	$(BIN)/python benchmarks/import_time.py
	$(BIN)/python benchmarks/paper_figures.py
	$(BIN)/python benchmarks/bayes_accuracy.py --nodes 12
	$(BIN)/python benchmarks/ranking.py
	$(BIN)/python benchmarks/panel.py
	$(BIN)/python benchmarks/split_protocol.py
	$(BIN)/python benchmarks/large_logs.py
	$(BIN)/python benchmarks/monitoring.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build *.egg-info docs/_build docs/reference/generated
