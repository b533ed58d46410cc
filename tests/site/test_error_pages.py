"""Error pages are the site's own, in the visitor's language, with a way back to the tables."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client, RequestFactory
from django.utils import translation
from django.views import defaults

pytestmark = pytest.mark.django_db


def test_an_unknown_page_answers_404_with_the_way_back() -> None:
    response = Client().get("/no-existe/")
    page = response.content.decode()
    assert response.status_code == 404
    assert "Aquí no hay nada" in page and 'href="/"' in page and "site-header" in page
    english = Client()
    english.cookies["django_language"] = "en"
    page = english.get("/no-existe/").content.decode()
    assert "Nothing here" in page and "Aquí no hay nada" not in page


def test_a_private_table_is_an_ordinary_404() -> None:
    page = Client().get("/mesas/987654/").content.decode()
    assert "Esta página no existe, o es de una mesa privada que no puedes ver." in page


def test_a_form_without_its_csrf_token_explains_what_to_do() -> None:
    response = Client(enforce_csrf_checks=True).post("/cuentas/entrar/", {"username": "x"})
    assert response.status_code == 403
    assert "El formulario ha caducado" in response.content.decode()


@pytest.mark.parametrize(
    ("view", "status", "text", "english"),
    [
        (defaults.bad_request, 400, "Esa petición no se entiende", "That request makes no sense"),
        (defaults.permission_denied, 403, "No puedes hacer esto", "You cannot do this"),
        (defaults.server_error, 500, "Algo ha fallado", "Something went wrong"),
    ],
)
def test_the_other_error_pages_render_in_both_languages(
    view: object, status: int, text: str, english: str
) -> None:
    request = RequestFactory().get("/algo/")
    request.user = None  # the 500 page must not need anything from the request
    args = () if view is defaults.server_error else (PermissionDenied(),)
    response = view(request, *args)  # type: ignore[operator]
    assert response.status_code == status and text in response.content.decode()
    with translation.override("en"):
        response = view(request, *args)  # type: ignore[operator]
    assert english in response.content.decode()
