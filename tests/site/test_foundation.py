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
    # channels_redis's pub/sub layer, made to survive a Redis restart (musweb.channel_layer).
    assert (
        settings.CHANNEL_LAYERS["default"]["BACKEND"] == "musweb.channel_layer.PubSubChannelLayer"
    )
