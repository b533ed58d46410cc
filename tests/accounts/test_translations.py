import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

import accounts
from tests.factories import make_user

LOCALE = Path(accounts.__file__).parent / "locale" / "en" / "LC_MESSAGES"


def test_every_accounts_string_has_an_english_translation() -> None:
    po = (LOCALE / "django.po").read_text(encoding="utf-8")
    entries = po.split("\n\n")[1:]  # the first block is the header
    untranslated = [
        entry
        for entry in entries
        if re.search(r'^msgstr(\[\d\])? ""\n(?!")', entry + "\n", re.MULTILINE)
        and "#~" not in entry
    ]
    assert untranslated == []
    assert "#, fuzzy" not in po
    assert (LOCALE / "django.mo").exists()


@pytest.mark.django_db
def test_the_account_pages_are_in_english_for_an_english_visitor(client: Client) -> None:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    login = client.get("/cuentas/entrar/").content.decode()
    assert "Forgot your password?" in login
    signup = client.get("/cuentas/registro/").content.decode()
    assert "Repeat the password" in signup


@pytest.mark.django_db
def test_the_lockout_page_is_in_english_for_an_english_visitor(client: Client) -> None:
    make_user(username="pilar")
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    for _ in range(settings.AXES_FAILURE_LIMIT):
        response = client.post("/cuentas/entrar/", {"username": "pilar", "password": "mal"})
    assert response.status_code == 429
    assert "Too many failed attempts" in response.content.decode()
