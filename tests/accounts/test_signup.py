import pytest
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.test import Client
from django.urls import reverse

from accounts.models import User
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

SIGNUP_URL = "/cuentas/registro/"


def signup(client: Client, **overrides: str):
    data = {"username": "pilar", "password1": PASSWORD, "password2": PASSWORD, **overrides}
    return client.post(SIGNUP_URL, data)


def error_codes(response, field: str) -> set[str]:
    return {error.code for error in response.context["form"].errors.as_data().get(field, [])}


def test_the_signup_url_is_the_one_the_protocol_promises() -> None:
    assert reverse("accounts:signup") == SIGNUP_URL


def test_it_shows_the_signup_form_in_spanish(client: Client) -> None:
    response = client.get(SIGNUP_URL)
    assert response.status_code == 200
    page = response.content.decode()
    assert "Crear cuenta" in page
    for name in ("username", "email", "password1", "password2"):
        assert f'name="{name}"' in page
    assert "csrfmiddlewaretoken" in page


def test_it_creates_the_account_logs_it_in_and_redirects(client: Client) -> None:
    response = signup(client)
    assert response.status_code == 302
    assert response.url == reverse(settings.LOGIN_REDIRECT_URL)
    user = User.objects.get(username="pilar")
    assert user.check_password(PASSWORD)
    assert user.email == ""
    assert client.session[SESSION_KEY] == str(user.pk)


def test_it_keeps_the_optional_email_until_it_is_confirmed(client: Client) -> None:
    signup(client, email="pilar@Example.COM")
    user = User.objects.get(username="pilar")
    assert user.email == ""  # not used for resets before it is confirmed (test_email_confirmation)
    assert user.pending_email.email == "pilar@example.com"


def test_it_refuses_a_malformed_email(client: Client) -> None:
    response = signup(client, email="no-es-un-correo")
    assert response.status_code == 200
    assert error_codes(response, "email") == {"invalid"}


def test_it_follows_a_safe_next_after_signup(client: Client) -> None:
    response = client.post(
        f"{SIGNUP_URL}?next=/ranking/",
        {"username": "pilar", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.url == "/ranking/"


def test_it_ignores_a_next_pointing_to_another_site(client: Client) -> None:
    response = client.post(
        f"{SIGNUP_URL}?next=https://malo.example/",
        {"username": "pilar", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.url == reverse(settings.LOGIN_REDIRECT_URL)


def test_a_new_account_keeps_the_language_being_browsed(client: Client) -> None:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    signup(client)
    assert User.objects.get(username="pilar").language == "en"


def test_a_new_account_is_spanish_by_default(client: Client) -> None:
    signup(client)
    assert User.objects.get(username="pilar").language == "es"


def test_a_signed_in_player_visiting_signup_is_sent_on(player_client: Client) -> None:
    response = player_client.get(SIGNUP_URL)
    assert response.status_code == 302


def test_it_refuses_a_signup_with_mismatched_passwords(client: Client) -> None:
    response = signup(client, password2="otra-cosa-distinta-9")
    assert response.status_code == 200
    assert error_codes(response, "password2") == {"password_mismatch"}
    assert not User.objects.filter(username="pilar").exists()
    assert SESSION_KEY not in client.session


def test_it_refuses_a_too_short_password(client: Client) -> None:
    response = signup(client, password1="k7#pq", password2="k7#pq")
    assert "password_too_short" in error_codes(response, "password2")
    assert not User.objects.filter(username="pilar").exists()


def test_it_refuses_a_common_password(client: Client) -> None:
    response = signup(client, password1="password123", password2="password123")
    assert "password_too_common" in error_codes(response, "password2")
    assert not User.objects.filter(username="pilar").exists()


def test_it_refuses_an_entirely_numeric_password(client: Client) -> None:
    response = signup(client, password1="83619472058", password2="83619472058")
    assert "password_entirely_numeric" in error_codes(response, "password2")
    assert not User.objects.filter(username="pilar").exists()


def test_it_refuses_a_password_too_like_the_username(client: Client) -> None:
    response = signup(
        client, username="guillermina", password1="guillermina1", password2="guillermina1"
    )
    assert "password_too_similar" in error_codes(response, "password2")


def test_it_refuses_a_duplicate_username(client: Client) -> None:
    make_user(username="pilar")
    response = signup(client)
    assert response.status_code == 200
    assert error_codes(response, "username") == {"unique"}
    assert User.objects.filter(username="pilar").count() == 1


def test_it_refuses_a_username_differing_only_in_case(client: Client) -> None:
    make_user(username="Pilar")
    response = signup(client, username="pilar")
    assert error_codes(response, "username") == {"unique"}


def test_it_refuses_a_username_another_player_shows_as_display_name(client: Client) -> None:
    make_user(username="pili", display_name="Pilar")
    response = signup(client, username="pilar")
    assert error_codes(response, "username") == {"name_taken"}
    assert "Otro jugador ya usa ese nombre" in response.content.decode()


@pytest.mark.parametrize(
    "username", ["Bot_Nerea", "bot.koldo", "B0T-Maite", "botnerea", "bot", "bot-pepe", "bot-lola-2"]
)
def test_nobody_signs_up_with_a_name_that_reads_like_a_bots(client: Client, username: str) -> None:
    response = signup(client, username=username)
    assert error_codes(response, "username") == {"bot_name"}
    assert "Los nombres que parecen de bot son de los bots del sitio." in response.content.decode()
    assert not User.objects.filter(is_bot=False).exists()


def test_the_bots_usernames_belong_to_the_bots_from_the_start(client: Client) -> None:
    """Before the pool existed, «bot-lola» was free, and the first practice seated its owner."""
    response = signup(client, username="BOT-LOLA")
    assert error_codes(response, "username") == {"unique"}
    assert not User.objects.filter(is_bot=False).exists()


@pytest.mark.parametrize("username", ["Botella", "robot", "abbot", "Talbot"])
def test_a_name_that_only_contains_bot_is_free(client: Client, username: str) -> None:
    assert signup(client, username=username).status_code == 302


def test_it_refuses_an_invalid_username(client: Client) -> None:
    response = signup(client, username="con espacios")
    assert error_codes(response, "username") == {"invalid"}


def test_signup_enforces_csrf() -> None:
    client = Client(enforce_csrf_checks=True)
    response = client.post(
        SIGNUP_URL, {"username": "pilar", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 403
    assert not User.objects.filter(username="pilar").exists()


def test_signup_with_the_csrf_token_works_under_enforced_checks() -> None:
    client = Client(enforce_csrf_checks=True)
    client.get(SIGNUP_URL)
    token = client.cookies[settings.CSRF_COOKIE_NAME].value
    response = client.post(
        SIGNUP_URL,
        {
            "username": "pilar",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "csrfmiddlewaretoken": token,
        },
    )
    assert response.status_code == 302
    assert User.objects.filter(username="pilar").exists()


def test_a_new_username_is_kept_short_enough_to_read_at_a_table(client) -> None:
    from accounts.forms import USERNAME_MAX_LENGTH

    long_name = "FranciscoJavierDeLaSantisimaTrinidad"
    assert len(long_name) > USERNAME_MAX_LENGTH
    response = client.post(
        "/cuentas/registro/",
        {
            "username": long_name,
            "password1": "Clave-muy-segura-9",
            "password2": "Clave-muy-segura-9",
        },
    )
    assert response.status_code == 200
    assert "max_length" in [e.code for e in response.context["form"].errors.as_data()["username"]]
    assert f'maxlength="{USERNAME_MAX_LENGTH}"' in response.content.decode()
