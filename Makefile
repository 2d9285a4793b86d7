# The two commands: `make demo` runs the app, `make test` passes the tests. Both set up first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt | cksum | cut -d' ' -f1)

.PHONY: demo test install lint bench eval clean-data system-deps

$(STAMP): requirements.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@rm -f $(VENV)/.installed-*
	@touch $@

install: $(STAMP)

# `make demo WEB_PROCESSES=2`: that many daphne processes behind HAProxy (docs/operations.md).
WEB_PROCESSES ?= 1
export WEB_PROCESSES
demo: $(STAMP) $(if $(filter-out 1,$(WEB_PROCESSES)),system-deps)
	$(PY) -m agentsite.demo

test: system-deps $(STAMP)
	$(PY) -m pytest $(PYTEST_ARGS)

# System packages from Debian: Chromium for the browser tests (tests/web; Playwright cannot download
# a browser offline), a CJK font so Chinese does not render as boxes, gettext for
# `manage.py compilemessages`, HAProxy for several web processes and PgBouncer, which the
# multi-process tests put between them and PostgreSQL. Skipped when present; otherwise apt-get as
# root (sudo if not root).
SYSTEM_DEPS := chromium fonts-wqy-microhei gettext haproxy pgbouncer
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
system-deps:
	@if [ -x /usr/bin/chromium ] && [ -f /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ] && command -v msgfmt >/dev/null \
		&& [ -x /usr/sbin/haproxy ] && [ -x /usr/sbin/pgbouncer ]; then \
		:; \
	else \
		$(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q $(SYSTEM_DEPS); \
	fi

# The evaluation (docs/eval.md): scenario files with memory off and on on its own embedded servers
# under .data/eval (never the demo's or the tests'); writes reports/eval.md, eval.json and charts.
eval: $(STAMP)
	EMBEDDED_DATA_DIR=$(CURDIR)/.data/eval CLOCK_ALLOW_OFFSET=1 OMP_NUM_THREADS=1 $(PY) manage.py eval $(EVAL_ARGS)

# The quick benchmarks (docs in benchmarks/report.py), each on embedded servers of its own; writes
# reports/bench.md. Takes ~11 minutes on a quiet 2-core machine, more on a busy one. Recall at 1M and forgetting run separately.
bench: $(STAMP)
	OMP_NUM_THREADS=1 $(PY) benchmarks/report.py $(BENCH_ARGS)

# mypy (mypy.ini) loads the settings through django-stubs' plugin: the two URLs keep the settings from
# starting embedded servers, and nothing connects to them.
lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(VENV)/bin/lint-imports
	DATABASE_URL=postgres://mypy@localhost/unused REDIS_URL=redis://localhost/0 $(VENV)/bin/mypy

# Stops the embedded servers and deletes their data (demo and tests).
clean-data: $(STAMP)
	$(PY) -c "from pathlib import Path; from agentsite import embedded; [embedded.wipe(p) for p in (Path('.data/test'), Path('.data'))]"
