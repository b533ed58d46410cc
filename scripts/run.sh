#!/usr/bin/env bash
# The whole site on one machine: daphne (HTTP + WebSockets), the Celery workers (the live game's
# and the heavy work's) and Celery beat.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${PORT:-8000}"
mkdir -p run
.venv/bin/python manage.py migrate --noinput
.venv/bin/python manage.py collectstatic --noinput --verbosity 0

pids=()
cleanup() {
  trap - INT TERM EXIT
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup INT TERM EXIT

# Two workers (docs/deploy.md, «Queues and workers»): the live game's (the clock, bots, the
# lobby, tournaments) and the heavy work's (hand analyses, ladder recomputes), which runs niced:
# a flood of analyses neither holds up a clock nor takes the CPU from one.
.venv/bin/python -m musweb.worker live --loglevel=INFO \
  --concurrency="${CELERY_CONCURRENCY:-2}" >run/celery-worker.log 2>&1 &
pids+=($!)
nice -n 10 .venv/bin/python -m musweb.worker heavy --loglevel=INFO \
  --concurrency="${CELERY_HEAVY_CONCURRENCY:-1}" >run/celery-heavy.log 2>&1 &
pids+=($!)
.venv/bin/celery -A musweb beat --loglevel=INFO --schedule=run/celerybeat-schedule \
  >run/celery-beat.log 2>&1 &
pids+=($!)

# DAPHNE_PROCESSES=2 starts a second daphne on PORT+1 (and so on), all sharing Redis: the
# multi-process setup the load test measures. `make run-prod` puts nginx in front of them.
# A handshake waits up to 30 s for the consumer to accept (daphne's default is 5): after a
# restart every browser reconnects at once, and dropping the ones still queued only makes them
# come back again (docs/performance.md, «Connection storms»).
for ((i = 0; i < ${DAPHNE_PROCESSES:-1}; i++)); do
  # musweb.server is daphne that closes an oversized frame with 1009 instead of a TCP reset.
  .venv/bin/python -m musweb.server -b 0.0.0.0 -p "$((PORT + i))" --websocket_connect_timeout 30 \
    musweb.asgi:application &
  pids+=($!)
  [ "$i" -gt 0 ] && echo "  another daphne process: http://127.0.0.1:$((PORT + i))/"
done
echo "Barajamos: http://127.0.0.1:${PORT}/  (Celery logs in run/; Ctrl-C stops everything)"
wait -n "${pids[@]}"
