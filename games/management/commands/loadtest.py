"""`python manage.py loadtest --tables N --seconds S`: see tools/loadtest.py and docs/performance.md."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.models import Mode
from tools import loadtest


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
        parser.add_argument("--mode", default=Mode.CUATRO_REYES, choices=Mode.values)
        parser.add_argument(
            "--think", type=float, default=1.0, help="mean seconds a client waits before acting"
        )
        parser.add_argument("--connect-rate", type=int, default=400, help="new sockets per second")
        parser.add_argument("--keep", action="store_true", help="leave the games running")
        parser.add_argument(
            "--reconnect",
            action="store_true",
            help="dropped sockets come back like a browser's (to measure a connection storm)",
        )

        parser.add_argument(
            "--lobby-viewers",
            type=int,
            default=0,
            help="people looking at the lobby meanwhile: its socket open (/ws/sala/)",
        )
        parser.add_argument(
            "--lobby-poll",
            action="store_true",
            help="the lobby viewers ask for its fragment every 2 s instead (as before #18)",
        )
        parser.add_argument(
            "--public-tables",
            action="store_true",
            help="the tables are public, so the lobby lists them (private by default)",
        )
        parser.add_argument(
            "--logins-per-second",
            type=float,
            default=0.0,
            help="people logging in meanwhile (the log-in page, then its form), from the steady "
            "state on; their latency is reported",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        loadtest.main(
            options["tables"],
            options["seconds"],
            options["url"] or ["http://127.0.0.1:8000"],
            options["mode"],
            options["think"],
            options["connect_rate"],
            options["keep"],
            write=self.stdout.write,
            reconnect=options["reconnect"],
            viewers=options["lobby_viewers"],
            poll=options["lobby_poll"],
            public=options["public_tables"],
            logins_per_second=options["logins_per_second"],
        )
