import ast
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client


@pytest.mark.django_db
def test_the_base_page_is_served_in_spanish_by_default(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert '<html lang="es">' in response.content.decode()
    assert "Barajamos" in response.content.decode()


def test_it_reads_the_database_and_redis_from_the_environment() -> None:
    assert settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
    assert settings.DATABASES["default"]["CONN_MAX_AGE"] == 0
    assert "pool" in settings.DATABASES["default"]["OPTIONS"]
    assert settings.CELERY_BROKER_URL.startswith("redis://")
    assert (
        settings.CHANNEL_LAYERS["default"]["BACKEND"]
        == "channels_redis.pubsub.RedisPubSubChannelLayer"
    )


RUNTIME_APPS = ("accounts", "games", "moderation", "musweb", "rankings")


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_the_runtime_apps_never_import_the_tools() -> None:
    # Benchmarks and load tests live in tools/ (not runtime code); only the management commands
    # that start them may import it.
    root = Path(__file__).resolve().parents[2]
    offenders = []
    checked = 0
    for app in RUNTIME_APPS:
        for path in (root / app).rglob("*.py"):
            if "management" in path.relative_to(root).parts:
                continue
            checked += 1
            if any(m == "tools" or m.startswith("tools.") for m in _imported_modules(path)):
                offenders.append(str(path.relative_to(root)))
    assert checked > 50
    assert offenders == []
