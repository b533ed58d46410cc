"""Helpers for the browser tests: viewports and logged-in Playwright pages.

Players, tables and sessions come from tests/factories.py; everything that touches the database
must run through the `orm` fixture (see conftest).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def logged_in_page(browser: Any, base_url: str, session_key: str, viewport: dict[str, int]) -> Any:
    """A page in a fresh browser context that carries a logged-in session cookie."""
    context = browser.new_context(viewport=viewport, locale="es-ES")
    context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": session_key, "url": base_url}]
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(
        "console",
        lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None,
    )
    page.js_errors = errors  # checked by the tests: no JS errors, no CSP violations
    return page


def plain(text: str | None) -> str:
    """Text as read, without the invisible isolates (FSI … PDI) around the names players chose."""
    return (text or "").replace("\u2068", "").replace("\u2069", "")
