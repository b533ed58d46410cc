"""A Celery worker of one role (docs/deploy.md, «Queues and workers»):

    python -m musweb.worker live  [celery worker options]   the live game's queue
    python -m musweb.worker heavy [celery worker options]   hand analyses, ladder recomputes, data exports
    python -m musweb.worker live,heavy [...]                 one worker for both (tests, tools)

Each role consumes its own queue (`settings.MUS_WORKER_QUEUES`), so heavy work never holds up a
turn clock; the queues' names are the settings', so this is the one place that turns a role into
`celery worker -Q`. The hostname is `ROLE@%h` (`live+heavy@%h`) unless given: `/salud/` asks the
workers of each role by it, so a hostname given must keep the role before the `@`.
"""

from __future__ import annotations

import os
import sys


def argv(role: str, options: list[str], queues: dict[str, str]) -> list[str]:
    """`celery worker`'s arguments for `role` (or roles joined by commas: one worker for both,
    as the tests run it) with the caller's `options`."""
    roles = role.split(",")
    unknown = [r for r in roles if r not in queues]
    if unknown:
        raise SystemExit(f"musweb.worker: a role is one of {', '.join(queues)}, not {unknown[0]!r}")
    args = ["worker", "-Q", ",".join(queues[r] for r in roles), *options]
    if not any(o == "-n" or o.startswith("--hostname") for o in options):
        args.append(f"--hostname={'+'.join(roles)}@%h")
    return args


def main(args: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "musweb.settings")
    from django.conf import settings

    from musweb.celery import app

    if not args:
        raise SystemExit(__doc__)
    app.worker_main(argv(args[0], args[1:], settings.MUS_WORKER_QUEUES))


if __name__ == "__main__":
    main(sys.argv[1:])
