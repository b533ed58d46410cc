import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from accounts.models import User
from tests.factories import make_user

pytestmark = pytest.mark.django_db

SETTINGS_URL = "/cuentas/ajustes/"


def save(client: Client, display_name: str = "", language: str = "es"):
    return client.post(SETTINGS_URL, {"display_name": display_name, "language": language})


def error_codes(response, field: str) -> set[str]:
    return {e.code for e in response.context["form"].errors.as_data().get(field, [])}


def test_the_settings_url() -> None:
    assert reverse("accounts:settings") == SETTINGS_URL


def test_it_asks_for_login_first(client: Client) -> None:
    response = client.get(SETTINGS_URL)
    assert response.status_code == 302
    assert response.url == f"{reverse('accounts:login')}?next={SETTINGS_URL}"


def test_it_shows_the_current_settings(player_client: Client) -> None:
    response = player_client.get(SETTINGS_URL)
    assert response.status_code == 200
    page = response.content.decode()
    assert 'value="Carmen"' in page
    assert 'name="language"' in page
    assert reverse("accounts:password_change") in page


def test_it_saves_a_trimmed_display_name(player_client: Client, player: User) -> None:
    response = save(player_client, "  La   Sota  ")
    assert response.status_code == 302
    assert response.url == SETTINGS_URL
    player.refresh_from_db()
    assert player.display_name == "La Sota"
    assert "Ajustes guardados." in player_client.get(SETTINGS_URL).content.decode()


def test_an_empty_display_name_falls_back_to_the_username(
    player_client: Client, player: User
) -> None:
    save(player_client, "   ")
    player.refresh_from_db()
    assert player.display_name == ""
    assert player.public_name == "carmen"


def test_it_refuses_a_display_name_longer_than_40(player_client: Client, player: User) -> None:
    response = save(player_client, "x" * 41)
    assert response.status_code == 200
    assert error_codes(response, "display_name") == {"max_length"}
    player.refresh_from_db()
    assert player.display_name == "Carmen"


def test_it_refuses_a_display_name_another_player_uses_in_any_case(
    player_client: Client, player: User
) -> None:
    make_user(username="otra", display_name="El Rey")
    response = save(player_client, "el rey")
    assert error_codes(response, "display_name") == {"display_name_taken"}
    assert (
        "Otro jugador ya usa el nombre visible «\u2068el rey\u2069»." in response.content.decode()
    )
    player.refresh_from_db()
    assert player.display_name == "Carmen"


def test_it_refuses_another_players_username_as_display_name(
    player_client: Client, player: User
) -> None:
    make_user(username="pepe")
    response = save(player_client, "PEPE")
    assert error_codes(response, "display_name") == {"display_name_is_username"}
    assert (
        "«\u2068PEPE\u2069» es el nombre de usuario de otro jugador." in response.content.decode()
    )


def test_a_refused_name_does_not_leak_into_the_page_header(
    player_client: Client, player: User
) -> None:
    make_user(username="pepe")
    response = save(player_client, "pepe")
    page = response.content.decode()
    assert f'href="{reverse("accounts:profile", args=["carmen"])}"><bdi>Carmen</bdi></a>' in page


def test_a_player_may_keep_their_own_name_or_use_their_username(
    player_client: Client, player: User
) -> None:
    assert save(player_client, "CARMEN").status_code == 302
    player.refresh_from_db()
    assert player.display_name == "CARMEN"


def test_it_refuses_an_unknown_language(player_client: Client) -> None:
    response = save(player_client, "Carmen", "fr")
    assert error_codes(response, "language") == {"invalid_choice"}


def test_switching_to_english_changes_the_next_page(player_client: Client, player: User) -> None:
    response = save(player_client, "Carmen", "en")
    assert response.status_code == 302
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    player.refresh_from_db()
    assert player.language == "en"
    page = player_client.get(SETTINGS_URL).content.decode()
    assert '<html lang="en">' in page
    assert "Settings saved." in page
    assert "Display name" in page
    profile = player_client.get("/jugadores/carmen/").content.decode()
    assert "No rated games yet." in profile


def test_the_account_language_wins_over_the_browser(player_client: Client, player: User) -> None:
    player.language = "en"
    player.save()
    page = player_client.get(SETTINGS_URL, headers={"accept-language": "es"}).content.decode()
    assert '<html lang="en">' in page


def test_switching_language_from_the_header_is_saved_on_the_account(
    player_client: Client, player: User
) -> None:
    response = player_client.post(reverse("set_language"), {"language": "en", "next": "/"})
    assert response.status_code == 302
    player.refresh_from_db()
    assert player.language == "en"
    page = player_client.get(SETTINGS_URL).content.decode()
    assert '<html lang="en">' in page
