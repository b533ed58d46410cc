"""The Spanish pages speak to the player with «tú», Django's own messages included (its Spanish
catalog says «usted»: «Su contraseña…», «Introduzca…»), and greet without assuming a gender."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.factories import PASSWORD, login, make_user

pytestmark = pytest.mark.django_db

USTED = re.compile(r"\b(Su|su|Sus|sus|Introduzca|Introduza|Asegúrese|Escoja|Seleccione|vuelva)\b")


def text_of(response) -> str:
    return re.sub(r"<[^>]+>", " ", response.content.decode())


def test_sign_up_speaks_tu_in_its_help_and_its_errors(client: Client) -> None:
    make_user("ocupado")
    page = text_of(client.get("/cuentas/registro/"))
    assert "Tu contraseña no puede tener solo números." in page
    assert not USTED.search(page)
    refused = client.post(
        "/cuentas/registro/",
        {"username": "ocupado", "email": "no es un correo", "password1": "123", "password2": "1"},
    )
    errors = text_of(refused)
    assert "Escribe un correo electrónico válido." in errors
    assert "Las dos contraseñas no coinciden." in errors
    assert not USTED.search(errors), USTED.search(errors)


def test_changing_the_password_speaks_tu(client: Client) -> None:
    login(make_user("rocio"), client)
    refused = client.post(
        "/cuentas/contrasena/",
        {"old_password": "otra", "new_password1": "12345678", "new_password2": "12345678"},
    )
    errors = text_of(refused)
    assert "La contraseña actual no es correcta. Escríbela otra vez." in errors
    assert "Esta contraseña solo tiene números." in errors
    assert not USTED.search(errors)


def test_a_new_player_is_welcomed_without_a_gender(client: Client) -> None:
    response = client.post(
        "/cuentas/registro/",
        {"username": "alex", "password1": PASSWORD, "password2": PASSWORD},
        follow=True,
    )
    page = response.content.decode()
    assert "Te damos la bienvenida a Barajamos, \u2068alex\u2069." in page
    assert "Bienvenid" not in page
