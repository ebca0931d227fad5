# Every target builds its own virtual environment first; only python3, pip and make are needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test test-slow lint format bench clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $@

demo: $(BIN)/.installed
	$(BIN)/judgebayes demo

test: $(BIN)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest

test-slow: $(BIN)/.installed
	$(BIN)/python -m pytest -m slow

lint: $(BIN)/.installed
	$(BIN)/ruff check .

format: $(BIN)/.installed
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(BIN)/.installed
	$(BIN)/python benchmarks/closed_form_coverage.py
	$(BIN)/python benchmarks/import_time.py
	$(BIN)/python benchmarks/paper_figures.py
	$(BIN)/python benchmarks/bayes_accuracy.py --nodes 12
	$(BIN)/python benchmarks/ranking.py
	$(BIN)/python benchmarks/panel.py
	$(BIN)/python benchmarks/split_protocol.py
	$(BIN)/python benchmarks/large_logs.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build *.egg-info
