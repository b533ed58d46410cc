"""Fill the database with benchmark players, finished games and ladders (COPY, fast).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/musweb_bench \\
        python manage.py seed_bench_data                     # 100,000 players, 1,000,000 games
    python manage.py seed_bench_data --players 2000 --games 20000

The data is added to whatever is there (new players only play among themselves). To keep the
development database small, more than 50,000 games are refused unless the database's name
ends in ``_bench`` (or ``--force``). The work is done by tools/bench_data.py.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from tools import bench_data


class Command(BaseCommand):
    help = "Seed benchmark data: players, finished games and consistent Elo ladders."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--players", type=int, default=100_000)
        parser.add_argument("--games", type=int, default=1_000_000)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--days", type=int, default=365, help="spread the games over N days")
        parser.add_argument("--force", action="store_true", help="allow any database")

    def handle(self, *args: Any, **opts: Any) -> None:
        bench_data.main(
            opts["players"],
            opts["games"],
            seed=opts["seed"],
            days=opts["days"],
            force=opts["force"],
            write=self.stdout.write,
        )
