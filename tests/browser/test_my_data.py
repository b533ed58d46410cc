"""A player's own data in a browser, against the running site: the privacy page from the footer,
and closing the account from the settings with the password."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from tests.factories import PASSWORD, make_players, session_key
from tests.live import screenshot

from .support import DESKTOP, PHONE, logged_in_page

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SIZES = {"desktop": {"width": 1366, "height": 800}, "phone": PHONE}


def test_the_privacy_page_opens_from_the_footer_and_fits_a_phone(
    live_site: str, browser: Any, orm: Any
) -> None:
    key = orm(lambda: session_key(make_players(["pilar"])[0]))
    for name, viewport in SIZES.items():
        page = logged_in_page(browser, live_site, key, viewport)
        page.goto(f"{live_site}/")
        page.locator("footer a[href='/privacidad/']").click()
        page.locator("article.privacy h1").wait_for()
        assert page.locator("article.privacy h1").inner_text() == "Privacidad"
        overflow = page.evaluate("document.documentElement.scrollWidth") - viewport["width"]
        assert overflow <= 0, f"{name}: {overflow} px too wide"
        screenshot(page, f"privacy-{name}")
        page.goto(f"{live_site}/cuentas/cerrar/")
        screenshot(page, f"close-account-{name}")
        page.goto(f"{live_site}/cuentas/mis-datos/")
        screenshot(page, f"my-data-{name}")
        assert not page.js_errors


def test_a_player_closes_the_account_from_the_settings_and_cannot_sign_in_again(
    live_site: str, browser: Any, orm: Any
) -> None:
    key = orm(lambda: session_key(make_players(["pilar"])[0]))
    page = logged_in_page(browser, live_site, key, DESKTOP)
    page.goto(f"{live_site}/cuentas/ajustes/")
    page.get_by_role("link", name="Cerrar mi cuenta").click()
    page.get_by_label("Tu contraseña").fill(PASSWORD)
    page.get_by_role("button", name="Cerrar mi cuenta para siempre").click()
    page.wait_for_url(f"{live_site}/")
    assert "Tu cuenta está cerrada" in page.content()
    assert orm(lambda: User.objects.get(username__startswith="~retirado-").closed_at) is not None
    page.goto(f"{live_site}/cuentas/entrar/")
    page.get_by_label("Nombre de usuario").fill("pilar")
    page.get_by_label("Contraseña").fill(PASSWORD)
    page.locator("form[action='/cuentas/entrar/'] button[type=submit]").click()
    page.locator(".form-alert").wait_for()
    assert page.url.startswith(f"{live_site}/cuentas/entrar/")
    assert "incorrectos" in page.locator(".form-alert").inner_text()
    assert not page.js_errors
