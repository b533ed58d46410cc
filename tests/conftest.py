"""Shared fixtures. Tests run against the real PostgreSQL and Redis configured by the environment.

What the fixtures build comes from tests/factories.py. Django is imported inside the fixtures, not
here: the engine tests run without it (``-p no:django``, tests/engine/conftest.py).
"""

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

_ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config: pytest.Config) -> None:
    """A compiled engine older than its sources would test the old code: rebuild it first.

    (Only when one was built: after ``scripts/build_engine.py --clean`` the tests run the
    pure-Python engine. A failed build removes the compiled modules and says why on stderr.)
    """
    subprocess.run([sys.executable, str(_ROOT / "scripts" / "build_engine.py"), "--stale"])


@pytest.fixture(scope="session")
def django_db_modify_db_settings() -> None:
    """Give each test run its own database, so runs started side by side never collide."""
    from django.conf import settings

    suffix = os.environ.get("TEST_DB_SUFFIX", str(os.getpid()))
    test = settings.DATABASES["default"].setdefault("TEST", {})
    test["NAME"] = f"test_{settings.DATABASES['default']['NAME']}_{suffix}"


@pytest.fixture(scope="session", autouse=True)
def _close_connection_pools(django_db_setup: None, django_db_blocker: object) -> object:
    """Close psycopg's pools before pytest-django drops the test database.

    Consumers and Celery-style code run in other threads and leave pooled connections open; the
    database can only be dropped once they are gone.
    """
    yield
    from django.db import connections

    with django_db_blocker.unblock():
        for conn in connections.all():
            if hasattr(conn, "close_pool"):
                conn.close_pool()
            conn.close()
        # A connection still checked out by a finished consumer thread would keep the database
        # busy; end those sessions so the test database can be dropped.
        with connections["default"].cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        connections["default"].close()
        if hasattr(connections["default"], "close_pool"):
            connections["default"].close_pool()


@pytest.fixture(autouse=True)
def _close_async_database_connections() -> object:
    """The consumers' event-loop connection (games.services.act_on_loop) dies with its test."""
    yield
    from games.services import adb, connections

    connections.forget_local_sockets()
    adb.close_all()


@pytest.fixture(autouse=True)
def _fresh_channel_layer() -> object:
    """A new channel-layer instance per test.

    channels_redis binds its locks to the event loop that first used them; every async test has
    its own loop, so sharing one instance across tests lets one test's timeout poison the next.
    """
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def _default_language() -> object:
    """Every test starts and ends in the site's language: a request in English leaves English
    active in the thread (LocaleMiddleware), and the next test's messages would be English."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _whether_slow(request: pytest.FixtureRequest) -> None:
    """tests/live.py refuses to start a process or a browser for a test not marked slow."""
    from tests import live

    live.current_test_is_slow = request.node.get_closest_marker("slow") is not None


@pytest.fixture
def make_user(db: None) -> Any:
    """``make_user(username=None, **fields)``: a player of this test (tests.factories.UserFactory)."""
    from tests.factories import UserFactory

    return UserFactory()


@pytest.fixture
def four_players(make_user: Any) -> list[Any]:
    """Players p0 to p3."""
    return [make_user(f"p{i}") for i in range(4)]
