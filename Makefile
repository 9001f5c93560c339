# The two commands of the README. Each sets itself up on a fresh machine (a virtualenv in .venv with the
# project and its test extras) and is quick once set up: the install reruns only when pyproject.toml
# changes.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: demo test

# Without DATABASE_URL, each runs on a private PostgreSQL started for it and stopped after it
# (ladder/private_postgres.py); with it, on that database.
WITH_DATABASE := $(VENV)/bin/python -m ladder.private_postgres --

demo: $(STAMP)
	DEBUG=$${DEBUG:-1} $(WITH_DATABASE) $(VENV)/bin/python manage.py demo

test: $(STAMP)
	$(VENV)/bin/lint-imports --no-cache
	$(WITH_DATABASE) $(VENV)/bin/python -m pytest -q $(PYTEST_ARGS)

$(STAMP): pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)
