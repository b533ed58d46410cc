"""`python manage.py bench_pages [--runs N --warmup W]`: see tools/bench_pages.py."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from tools import bench_pages


class Command(BaseCommand):
    help = "Median server time of the leaderboard, profile, history and game pages."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--runs", type=int, default=50)
        parser.add_argument("--warmup", type=int, default=5)

    def handle(self, *args: Any, runs: int = 50, warmup: int = 5, **options: Any) -> None:
        bench_pages.main(runs, warmup, write=self.stdout.write)
