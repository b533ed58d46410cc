# `make run` and `make test` (README.md): both do all the setup on a fresh machine.
.PHONY: run test setup lint format bench

setup:
	@bash scripts/bootstrap.sh

run: setup
	@bash scripts/run.sh

test: setup
	@bash scripts/ensure_chromium.sh
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/lint-imports
	.venv/bin/mypy games/engine tools
	.venv/bin/python manage.py makemigrations --check --dry-run
	.venv/bin/python -m pytest

format: setup
	.venv/bin/ruff check --fix .
	.venv/bin/ruff format .

bench: setup
	.venv/bin/python -m tools.engine_bench
