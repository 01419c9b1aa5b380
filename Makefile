# The set-up commands of the README (demo and test) and their undoing:
#   make demo   install everything, start the local sandbox broker, run the tour
#   make test   install everything, run the whole test suite (starts and stops its own broker)
#   make clean  remove .venv (the Kafka jars in ~/.cache/kafkactl and the sandbox stay: see the README)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test install docs clean

$(BIN)/.installed: pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "kafkactl needs Python >= 3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,spark]'
	@touch $@

install: $(BIN)/.installed

demo: install
	PATH="$(CURDIR)/$(BIN):$$PATH" bash scripts/tour.sh

test: install
	$(BIN)/ruff check kafkactl tests bench
	$(BIN)/mypy
	$(BIN)/python -m pytest

# regenerate completions/ and man/ from the command definitions (a test fails when they are stale)
docs: install
	$(BIN)/python -m kafkactl.cli.docs

clean:
	rm -rf $(VENV) .pytest_cache
