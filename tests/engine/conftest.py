"""The engine tests need no database, Django or browser.

tests/conftest.py has a session-wide autouse fixture that sets up the test database; it is
overridden here by a no-op of the same name so that the engine tests run anywhere, also with
``-p no:django``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session", autouse=True)
def _close_connection_pools() -> Iterator[None]:
    yield
