"""The engine tests need no database, Django or browser.

tests/conftest.py has autouse fixtures that set up the test database, clean up after the
site's consumers and reset Django's active language; they are overridden here by no-ops of the
same names so that the engine tests run anywhere, also with ``-p no:django``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session", autouse=True)
def _close_connection_pools() -> Iterator[None]:
    yield


@pytest.fixture(autouse=True)
def _close_async_database_connections() -> Iterator[None]:
    yield


@pytest.fixture(autouse=True)
def _fresh_channel_layer() -> Iterator[None]:
    yield


@pytest.fixture(autouse=True)
def _default_language() -> Iterator[None]:
    yield
