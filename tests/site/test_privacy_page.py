"""The privacy page /privacidad/ (issue #35.3): Spanish and English, linked from every page's
footer and from the sign-up form, and true to the code: the cookies the site sets, the figures
of the settings, the two buttons that exercise the rights."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.conf import settings
from django.test import Client, override_settings

from accounts.models import User
from tests.factories import login

PRIVACY = "/privacidad/"


@pytest.mark.django_db
def test_the_privacy_page_is_in_spanish_and_says_what_how_long_who_cookies_and_rights(
    client: Client,
) -> None:
    page = client.get(PRIVACY)
    assert page.status_code == 200
    text = page.content.decode()
    assert '<article class="rules privacy" lang="es">' in text
    for heading in ("Qué guardamos y para qué", "Cuánto tiempo", "Quién lo ve", "Cookies"):
        assert heading in text
    for cookie in (
        settings.SESSION_COOKIE_NAME,
        settings.CSRF_COOKIE_NAME,
        settings.LANGUAGE_COOKIE_NAME,
    ):
        assert f"<code>{cookie}</code>" in text
    assert f"Dura {settings.SESSION_COOKIE_AGE // 86400} días" in text
    assert 'href="/cuentas/mis-datos/"' in text and 'href="/cuentas/cerrar/"' in text
    assert f"mailto:{settings.MUS_PRIVACY_CONTACT}" in text
    assert "Jugador retirado" in text


@pytest.mark.django_db
@override_settings(MUS_PRIVACY_CONTACT="datos@example.org")
def test_the_privacy_page_is_in_english_with_the_language_cookie(client: Client) -> None:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    text = client.get(PRIVACY).content.decode()
    assert '<article class="rules privacy" lang="en">' in text
    for heading in ("What we keep and why", "For how long", "Who sees it", "Your rights"):
        assert heading in text
    assert "<title>Privacy" in text
    assert "Retired player" in text
    assert "Qué guardamos" not in text


@pytest.mark.django_db
def test_every_page_footer_links_to_the_privacy_page(
    client: Client, make_user: Callable[..., User]
) -> None:
    for url in ("/", "/reglas/", "/cuentas/entrar/", "/cuentas/registro/", "/ranking/"):
        footer = re.search(r"<footer.*?</footer>", client.get(url).content.decode(), re.S)
        assert footer is not None and f'href="{PRIVACY}"' in footer.group(0), url
    login(make_user("pilar"), client)
    for url in ("/", "/cuentas/ajustes/"):
        footer = re.search(r"<footer.*?</footer>", client.get(url).content.decode(), re.S)
        assert footer is not None and f'href="{PRIVACY}"' in footer.group(0), url


@pytest.mark.django_db
def test_the_sign_up_form_links_to_the_privacy_page(client: Client) -> None:
    text = client.get("/cuentas/registro/").content.decode()
    form = re.search(r"<form[^>]*action=\"/cuentas/registro/\".*?</form>", text, re.S)
    assert form is not None and f'href="{PRIVACY}"' in form.group(0)
