"""Real outages (tools/outage.py): a throwaway PostgreSQL cluster and redis-server of the test's
own, daphne, a Celery worker and beat against them, live tables of bot clients over WebSockets;
PostgreSQL restarted with no traffic, then PostgreSQL and Redis each stopped and started again
mid-game. The machine's own PostgreSQL and Redis are never touched.

The figures (recovery times) are printed; what is asserted is what must always hold.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.live import ROOT, free_port, free_ports

pytestmark = [pytest.mark.slow]


def test_restarts_of_postgresql_and_redis_mid_game_lose_nothing_and_play_resumes() -> None:
    from tests import live

    live._require_slow("a throwaway PostgreSQL, Redis, daphne and Celery")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tools.outage",
            "--tables",
            "4",
            "--warmup",
            "8",
            "--steady",
            "5",
            "--down",
            "4",
            "--quiet-actions",
            "20",
            "--quiet-pages",
            "40",
            "--timeout",
            "600",  # the drill stops everything it started by then, before pytest's own limit
            "--json",
            "--port",
            str(free_port()),
            "--pg-port",
            str(free_ports(1)),
            "--redis-port",
            str(free_port()),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    print(done.stdout)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["broken"] == [], done.stdout[-3000:] + done.stderr[-3000:]
    assert done.returncode == 0
    phases = {p["name"]: p for p in figures["phases"]}
    assert set(phases) == {"play", "postgres-quiet", "postgres", "redis"}
    for phase in phases.values():
        assert phase["sent"] > 0, phase
        assert phase["unanswered"] == 0, phase  # every action answered, never silence
    # After a restart with no traffic: every page and every action succeeds.
    quiet = phases["postgres-quiet"]
    assert quiet["pages"] == {"200": 40}
    assert quiet["sent"] >= 20 and quiet["failures_after"] == 0, quiet
    for name in ("postgres", "redis"):
        # Every table in play moved on by itself once the service was back, and nothing failed
        # from then on.
        assert phases[name]["recovered"] is not None, phases[name]
        assert phases[name]["failures_after"] == 0, phases[name]
    games = figures["games"]
    assert games["tables"] == 4 and games["corrupt"] == [] and games["behind"] == []
    assert "cancelada" not in games["statuses"]  # nobody charged with abandonment
    assert games["by_clock"] == 0  # nor with a turn
