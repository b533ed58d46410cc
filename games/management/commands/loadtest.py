"""`python manage.py loadtest --tables N --seconds S`: see games/loadtest.py and docs/performance.md."""

from __future__ import annotations

import asyncio
import gc
import secrets
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games import loadtest


class Command(BaseCommand):
    help = "Play N tables of four bot clients over real WebSockets against a running site."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tables", type=int, default=50)
        parser.add_argument("--seconds", type=float, default=60)
        parser.add_argument(
            "--url",
            action="append",
            help="a running server (repeat for several daphne processes); "
            "default http://127.0.0.1:8000",
        )
        parser.add_argument("--mode", default="4-reyes", choices=["4-reyes", "8-reyes"])
        parser.add_argument(
            "--think", type=float, default=1.0, help="mean seconds a client waits before acting"
        )
        parser.add_argument("--connect-rate", type=int, default=400, help="new sockets per second")
        parser.add_argument("--keep", action="store_true", help="leave the games running")

    def handle(self, *args: Any, **options: Any) -> None:
        urls = options["url"] or ["http://127.0.0.1:8000"]
        run = secrets.token_hex(3)
        started = time.monotonic()
        clients = loadtest.setup_tables(options["tables"], options["mode"], run)
        for i, client in enumerate(clients):
            # Players of one table are spread over the servers: the table must work across them.
            client.url = urls[i % len(urls)].rstrip("/")
        self.stdout.write(
            f"setup: {options['tables']} tables, {len(clients)} players in "
            f"{time.monotonic() - started:.1f} s (run {run})"
        )
        # The client holds thousands of sockets and states: its cyclic collector paused it for up
        # to 80 ms, and every reply waiting meanwhile was counted as the server's latency.
        gc.freeze()
        gc.set_threshold(10_000, 20, 100)
        cpu0 = {g: loadtest.cpu_seconds(p) for g, p in loadtest.server_processes().items()}
        busy0, total0 = loadtest.machine_busy()
        stats, wall = asyncio.run(
            loadtest.run_clients(
                clients, options["seconds"], options["think"], options["connect_rate"]
            )
        )
        busy1, total1 = loadtest.machine_busy()
        groups = loadtest.server_processes()
        cpu = loadtest.cpu_during(cpu0, groups)
        rss = {g: loadtest.rss_mb(p) for g, p in groups.items()}
        machine = (busy1 - busy0, total1 - total0)
        self.stdout.write(loadtest.report(stats, wall, options["tables"], urls, cpu, rss, machine))
        if not options["keep"]:
            loadtest.teardown_tables(run)
