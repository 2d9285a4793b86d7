# The two commands: `make demo` runs the app, `make test` passes the tests. Both set up first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt | cksum | cut -d' ' -f1)

.PHONY: demo test install lint bench clean-data

$(STAMP): requirements.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@rm -f $(VENV)/.installed-*
	@touch $@

install: $(STAMP)

demo: $(STAMP)
	$(PY) -m agentsite.demo

test: $(STAMP)
	$(PY) -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

# Stops the embedded servers and deletes their data (demo and tests).
clean-data: $(STAMP)
	$(PY) -c "from pathlib import Path; from agentsite import embedded; [embedded.wipe(p) for p in (Path('.data/test'), Path('.data'))]"
