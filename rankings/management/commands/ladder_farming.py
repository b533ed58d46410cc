"""`python manage.py ladder_farming`: see tools/ladder_farming.py."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from tools import ladder_farming


class Command(BaseCommand):
    help = (
        "Simulate a launch cohort and ladder farms under the ladder's rule, plain Elo and"
        " trust by game count."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        ladder_farming.main(write=self.stdout.write)
