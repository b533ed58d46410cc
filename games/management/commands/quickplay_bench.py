"""`python manage.py quickplay_bench --players 40 --seconds 60`: see tools/quickplay_bench.py and
docs/performance.md."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.models import Mode
from tools import quickplay_bench


class Command(BaseCommand):
    help = "Scripted players press «Jugar ya» against a running site; times and the queue's cost."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--players", type=int, default=40)
        parser.add_argument("--seconds", type=float, default=60, help="arrivals spread over")
        parser.add_argument("--url", default="http://127.0.0.1:8000", help="a running server")
        parser.add_argument("--mode", default=Mode.CUATRO_REYES, choices=Mode.values)
        parser.add_argument(
            "--spread", type=float, default=150, help="ratings' standard deviation around 1500"
        )
        parser.add_argument("--matches", type=int, default=20, help="matches timed in process")
        parser.add_argument("--seed", type=int, default=1)

    def handle(self, *args: Any, **options: Any) -> None:
        quickplay_bench.main(
            options["players"],
            options["seconds"],
            options["url"],
            options["mode"],
            options["spread"],
            options["matches"],
            options["seed"],
            write=self.stdout.write,
        )
