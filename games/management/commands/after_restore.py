"""Run once on a database restored from a backup, before the site starts (scripts/backup.py).

    python manage.py after_restore

Every game that was being played when the backup was taken is cancelled through the site's own
path (`games.services.cancel_game`, reason «sistema»): unrated, its record kept up to its last
move, nobody charged with abandoning it. Its players left when the old site stopped, and the time
since (hours, maybe) is nobody's fault; left as they were, their clocks would run out or their
seats be counted abandoned at the first sweep.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from games import services
from games.models import Table


class Command(BaseCommand):
    help = "Cancel the games that were in play when the restored backup was taken."

    def handle(self, *args: Any, **options: Any) -> None:
        live = list(Table.objects.filter(status=Table.Status.PLAYING).values_list("pk", flat=True))
        cancelled = [pk for pk in live if services.cancel_game(pk, Table.CancelReason.SYSTEM)]
        self.stdout.write(
            f"{len(cancelled)} games in play cancelled (unrated, nobody charged)"
            + (f": {', '.join(map(str, cancelled))}" if cancelled else "")
        )
