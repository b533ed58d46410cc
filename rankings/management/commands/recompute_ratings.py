"""Rebuild every Elo ladder from the finished games and compare it with the stored one.

    python manage.py recompute_ratings            # compare, then replace if they differ
    python manage.py recompute_ratings --check    # compare only; exit status 1 on a difference

Games are replayed in the order they were applied (``RatedGame.id``), then any finished rated
game that was never applied (a lost task) in the order it finished.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from rankings import recompute
from rankings.tasks import summary_line


class Command(BaseCommand):
    help = "Recompute the Elo ladders from the finished games (and compare with the stored ones)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--check", action="store_true", help="only compare; exit 1 if they differ"
        )

    def handle(self, *args: Any, check: bool = False, **options: Any) -> None:
        started = time.perf_counter()
        ladder, differences = recompute.recompute(write=not check)
        seconds = time.perf_counter() - started
        self.stdout.write(summary_line(ladder, seconds))
        if not differences:
            self.stdout.write(self.style.SUCCESS("The stored ladders equal the recomputed ones."))
            return
        for line in differences:
            self.stdout.write(f"  {line}")
        if check:
            raise CommandError("The stored ladders differ from the recomputed ones.")
        self.stdout.write(self.style.WARNING("The stored ladders were replaced."))
