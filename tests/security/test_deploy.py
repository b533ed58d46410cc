"""Production settings: `check --deploy` is clean, cookies are secure, HSTS and the CSP are on."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from tests.factories import PASSWORD

ROOT = Path(__file__).resolve().parents[2]


def production_env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "MUS_FAST", "EMAIL_")) and k != "ALLOWED_HOSTS"
    }
    env.update(
        {
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(64),
            "ALLOWED_HOSTS": "barajamos.example",
            # A production site needs a real mailer (password resets): Django 6.1's deploy
            # checks refuse the console backend that the development default uses.
            "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "DJANGO_SETTINGS_MODULE": "musweb.settings",
        }
    )
    env.update(extra)
    return env


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_check_deploy_has_no_warnings_in_production() -> None:
    result = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], production_env())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_sends_mail_by_smtp_unless_told_otherwise() -> None:
    env = production_env()
    del env["EMAIL_BACKEND"]
    result = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], env)
    assert result.returncode == 0, result.stdout + result.stderr


def test_check_deploy_refuses_the_console_mailer_in_production() -> None:
    env = production_env()
    env["EMAIL_BACKEND"] = "django.core.mail.backends.console.EmailBackend"
    result = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], env)
    assert result.returncode != 0
    assert "mail" in result.stderr.lower()


def test_production_refuses_to_start_without_a_secret_key() -> None:
    env = production_env()
    del env["DJANGO_SECRET_KEY"]
    result = run(["manage.py", "check"], env)
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr


def test_production_cookies_are_secure_and_http_only_with_hsts() -> None:
    names = [
        "DEBUG",
        "SESSION_COOKIE_SECURE",
        "SESSION_COOKIE_HTTPONLY",
        "CSRF_COOKIE_SECURE",
        "SECURE_SSL_REDIRECT",
        "SECURE_HSTS_SECONDS",
        "SECURE_HSTS_INCLUDE_SUBDOMAINS",
        "SECURE_CONTENT_TYPE_NOSNIFF",
        "X_FRAME_OPTIONS",
    ]
    code = (
        "import django, json; django.setup(); from django.conf import settings; "
        f"print(json.dumps({{n: getattr(settings, n) for n in {names!r}}}))"
    )
    result = run(["-c", code], production_env())
    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout.strip().splitlines()[-1])
    assert values["DEBUG"] is False
    assert values["SESSION_COOKIE_SECURE"] and values["SESSION_COOKIE_HTTPONLY"]
    assert values["CSRF_COOKIE_SECURE"]
    assert values["SECURE_SSL_REDIRECT"]
    assert values["SECURE_HSTS_SECONDS"] >= 31536000
    assert values["SECURE_HSTS_INCLUDE_SUBDOMAINS"]
    assert values["SECURE_CONTENT_TYPE_NOSNIFF"]
    assert values["X_FRAME_OPTIONS"] == "DENY"


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/cuentas/entrar/", "/reglas/"])
def test_pages_carry_a_csp_that_allows_only_the_sites_own_scripts(
    client: Client, path: str
) -> None:
    response = client.get(path)
    assert response.status_code == 200
    policy = {
        part.split()[0]: part.split()[1:]
        for part in response["Content-Security-Policy"].split(";")
        if part.strip()
    }
    assert policy["script-src"] == ["'self'"]
    assert policy["default-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert "'unsafe-inline'" not in response["Content-Security-Policy"]
    assert "'unsafe-eval'" not in response["Content-Security-Policy"]
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"


@pytest.mark.django_db
def test_the_admin_works_under_the_csp(client: Client) -> None:
    response = client.get("/admin/login/")
    assert response.status_code == 200
    assert "script-src 'self'" in response["Content-Security-Policy"]


@pytest.mark.django_db
def test_the_session_cookie_is_http_only(client: Client, make_user) -> None:
    make_user("pilar")
    response = client.post("/cuentas/entrar/", {"username": "pilar", "password": PASSWORD})
    cookie = response.cookies[settings.SESSION_COOKIE_NAME]
    assert cookie["httponly"]
    assert cookie["samesite"] == "Lax"
