#!/usr/bin/env bash
# The production topology on this machine (`make run-prod`): nginx in front of DAPHNE_PROCESSES
# daphne processes (2), a Celery worker and beat, DEBUG off. scripts/run_prod.py says how;
# docs/deploy.md says why and how it spreads over several machines.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure_nginx.sh
exec .venv/bin/python scripts/run_prod.py "$@"
