"""Shared fixtures. Tests run against the real PostgreSQL and Redis configured by the environment."""

import os

# Each test run gets its own channel-layer and cache prefixes, so a `make run` on the same Redis
# never sees the test suite's messages (and vice versa).
os.environ.setdefault("CHANNELS_PREFIX", f"musweb-test-{os.getpid()}")
os.environ.setdefault("CACHE_PREFIX", f"musweb-test-{os.getpid()}")
os.environ.setdefault("CELERY_QUEUE", f"musweb-test-{os.getpid()}")


import pytest


@pytest.fixture(scope="session", autouse=True)
def _close_connection_pools(django_db_setup: None, django_db_blocker: object) -> object:
    """Close psycopg's pools before pytest-django drops the test database.

    Consumers and Celery-style code run in other threads and leave pooled connections open; the
    database can only be dropped once they are gone.
    """
    yield
    from django.db import connections

    for conn in connections.all():
        if hasattr(conn, "close_pool"):
            conn.close_pool()
        conn.close()
