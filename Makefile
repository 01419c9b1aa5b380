# The set-up commands of the README (demo and test), the contributor's loop and their undoing:
#   make demo   install everything, start the local sandbox broker, run the tour
#   make test   install everything, run the whole test suite (starts and stops its own brokers and Spark)
#   make gssapi a second environment whose confluent-kafka speaks Kerberos (scripts/gssapi-client.sh; make test
#               builds it for the Kerberos tests)
#   make check  lint, types and every test that starts nothing (no broker, JVM or Spark), in parallel
#   make clean  remove .venv (the Kafka jars in ~/.cache/kafkactl and the sandbox stay: see the README)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
GSSAPI := .venv-gssapi

.PHONY: demo test check lint install docs clean gssapi

$(BIN)/.installed: pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "kafkactl needs Python >= 3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,spark]'
	@touch $@

install: $(BIN)/.installed

$(GSSAPI)/.complete: $(BIN)/.installed scripts/gssapi-client.sh
	rm -f $@
	bash scripts/gssapi-client.sh $(GSSAPI) $(VENV)

gssapi: $(GSSAPI)/.complete

demo: install
	PATH="$(CURDIR)/$(BIN):$$PATH" bash scripts/tour.sh

# the markers of what a test starts come from its fixtures (tests/markers.py); STARTS_NOTHING selects none of them
STARTS_NOTHING := not (broker or multi_broker or tls or versions or spark or java_clients or jvm)
# two workers, for the machine's two cores (WORKERS=N to change); a module that starts something stays whole on
# one worker, the longest modules first (tests/markers.py)
WORKERS ?= 2
XDIST   := -n $(WORKERS) --dist loadgroup --no-loadscope-reorder

lint: install
	$(BIN)/ruff check kafkactl tests bench
	$(BIN)/mypy

check: lint
	$(BIN)/python -m pytest $(XDIST) -m "$(STARTS_NOTHING)" -p no:cacheprovider

# with the 30 slowest tests and the time of each part in the summary (CI's log keeps them)
test: lint gssapi
	$(BIN)/python -m pytest $(XDIST) --durations=30

# regenerate completions/ and man/ from the command definitions (a test fails when they are stale)
docs: install
	$(BIN)/python -m kafkactl.cli.docs

clean:
	rm -rf $(VENV) $(GSSAPI) .pytest_cache
