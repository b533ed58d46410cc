"""Apply the finished rated games whose rating task never ran (e.g. the broker was down)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from rankings import services


class Command(BaseCommand):
    help = "Rate finished games that have not been applied to their ladder yet."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--limit", type=int, default=None)

    def handle(self, *args: Any, limit: int | None = None, **options: Any) -> None:
        done = sum(services.rate_table(pk) for pk in services.pending_table_ids(limit))
        self.stdout.write(f"{done} games rated.")
