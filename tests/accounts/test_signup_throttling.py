"""Bulk sign-up: accounts created from one address are limited per hour (#13, 8)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db

_addresses = itertools.count(1)


@pytest.fixture
def address() -> str:
    """An address of its own for each test: the counter lives in Redis, across tests."""
    n = next(_addresses)
    return f"2001:db8:{n:x}::1"


def signup(username: str, address: str, language: str = "es"):
    client = Client()
    client.cookies["django_language"] = language
    return client.post(
        "/cuentas/registro/",
        {"username": username, "password1": PASSWORD, "password2": PASSWORD},
        REMOTE_ADDR=address,
    )


def test_sign_ups_beyond_the_hourly_limit_from_one_address_are_refused(
    address: str, settings: Any
) -> None:
    settings.SIGNUP_PER_IP_PER_HOUR = 3
    assert [signup(f"nuevo{i}", address).status_code for i in range(3)] == [302] * 3
    refused = signup("nuevo3", address)
    assert refused.status_code == 429
    assert "Se han creado demasiadas cuentas desde tu conexión" in refused.content.decode()
    assert not User.objects.filter(username="nuevo3").exists()
    assert User.objects.filter(is_bot=False).count() == 3


def test_the_refusal_is_in_english_for_an_english_visitor(address: str, settings: Any) -> None:
    settings.SIGNUP_PER_IP_PER_HOUR = 1
    signup("first", address, "en")
    refused = signup("second", address, "en")
    assert refused.status_code == 429
    assert "Too many accounts have been created from your connection" in refused.content.decode()


def test_another_address_may_still_sign_up(address: str, settings: Any) -> None:
    settings.SIGNUP_PER_IP_PER_HOUR = 1
    assert signup("uno", address).status_code == 302
    assert signup("dos", address).status_code == 429
    assert signup("dos", f"{address}1").status_code == 302


def test_an_invalid_form_is_not_counted(address: str, settings: Any) -> None:
    settings.SIGNUP_PER_IP_PER_HOUR = 1
    client = Client()
    for _ in range(3):
        client.post("/cuentas/registro/", {"username": "x", "password1": "a"}, REMOTE_ADDR=address)
    assert signup("valida", address).status_code == 302
