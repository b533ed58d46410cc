"""`python manage.py health`: what `/salud/` reports (games/health.py), for people and scripts.
Exit status 0 when everything is healthy, 1 otherwise."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.health import report


class Command(BaseCommand):
    help = "Check PostgreSQL, Redis, both Celery workers and beat's sweep, as /salud/ does."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true", help="print the JSON of /salud/")

    def handle(self, *args: Any, **options: Any) -> None:
        data = report()
        if options["json"]:
            self.stdout.write(json.dumps(data, indent=2))
        else:
            for name in ("postgres", "redis", "worker", "heavy_worker", "beat"):
                check = data[name]
                if check["ok"]:
                    details = [f"{check['ms']} ms"]
                    if "last_sweep_seconds" in check:
                        details.append(f"last sweep {check['last_sweep_seconds']} s ago")
                    if "workers" in check:
                        details.append(", ".join(check["workers"]))
                    self.stdout.write(f"{name:12} ok    {'; '.join(details)}")
                else:
                    self.stdout.write(f"{name:12} FAIL  {check['error']}")
            self.stdout.write(
                "serving: yes" if data["serving"] else "serving: no (PostgreSQL or Redis down)"
            )
        if not data["ok"]:
            sys.exit(1)
