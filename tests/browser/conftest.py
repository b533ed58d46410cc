"""Fixtures of the browser tests: a real site, Chromium, and database access beside them.

`live_site` and `browser` come from tests/live.py (a daphne subprocess on the test database,
Debian's Chromium). Tests that use them must be `django_db(transaction=True)`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.live import browser, live_site  # noqa: F401  (the fixtures these tests use)


@pytest.fixture
def orm() -> Iterator[Callable[..., Any]]:
    """Run database code away from Playwright's event loop.

    Playwright's sync API keeps an event loop running in the test's thread, where Django refuses
    ORM calls and `async_to_sync` (the services broadcast through it). `orm(fn, *args)` runs
    `fn` in one worker thread and returns its result.
    """
    from django.db import connections

    with ThreadPoolExecutor(max_workers=1) as pool:

        def run(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
            return pool.submit(fn, *args, **kwargs).result()

        yield run
        pool.submit(connections.close_all).result()
