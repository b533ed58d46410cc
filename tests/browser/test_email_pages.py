"""The email pages in the browser: a change waits for its link, the link's page confirms it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from accounts import addresses
from accounts.models import User
from tests.factories import make_user, session_key
from tests.live import screenshot

from .support import DESKTOP, PHONE, logged_in_page

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_new_address_waits_for_its_link_and_the_old_one_stays_until_then(
    live_site: str, browser: Any, orm: Callable[..., Any]
) -> None:
    carmen = orm(make_user, "carmen", email="carmen@example.com")
    desktop = logged_in_page(browser, live_site, orm(session_key, carmen), DESKTOP)
    desktop.goto(f"{live_site}/cuentas/ajustes/")
    desktop.click("a[href='/cuentas/correo/']")
    desktop.fill("input[name=email]", "carmen@nuevo.example")
    desktop.click("button[value=change]")
    notice = desktop.locator(".email-pending")
    notice.wait_for(timeout=10_000)
    assert "carmen@nuevo.example" in notice.inner_text()
    assert "carmen@example.com" in desktop.inner_text("main")
    screenshot(desktop, "email-pending-desktop")
    assert orm(lambda: User.objects.get(pk=carmen.pk).email) == "carmen@example.com"
    # The mail left from daphne's process (its console): the link is made here, as the site
    # makes it.
    pending = orm(lambda: User.objects.get(pk=carmen.pk).pending_email)
    link = f"{live_site}/cuentas/correo/confirmar/{orm(addresses.token_for, pending)}/"
    phone = browser.new_context(viewport=PHONE, locale="es-ES").new_page()
    phone.goto(link)
    assert "carmen@nuevo.example" in phone.inner_text("main")
    screenshot(phone, "email-confirm-phone")
    phone.click("main button[type=submit]")
    phone.get_by_role("heading", name="Correo confirmado").wait_for(timeout=10_000)
    assert orm(lambda: User.objects.get(pk=carmen.pk).email) == "carmen@nuevo.example"
