# `make run` and `make test` (README.md): both do all the setup on a fresh machine.
.PHONY: run run-prod test test-fast setup lint format bench

setup:
	@bash scripts/bootstrap.sh

run: setup
	@bash scripts/run.sh

# The production topology on this machine: nginx in front of DAPHNE_PROCESSES (2) daphne
# processes, the Celery workers and beat, DEBUG off (docs/deploy.md).
run-prod: setup
	@bash scripts/run_prod.sh

lint: setup
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/lint-imports
	.venv/bin/mypy games/engine games/matchmaking.py games/clock.py tools

test: lint
	@bash scripts/ensure_chromium.sh
	@bash scripts/ensure_nginx.sh
	.venv/bin/python manage.py makemigrations --check --dry-run
	.venv/bin/python -m pytest

# Everything but the tests marked slow: those that start daphne, a Celery worker or a browser.
test-fast: lint
	.venv/bin/python manage.py makemigrations --check --dry-run
	.venv/bin/python -m pytest -m "not slow"

format: setup
	.venv/bin/ruff check --fix .
	.venv/bin/ruff format .

bench: setup
	.venv/bin/python -m tools.engine_bench
