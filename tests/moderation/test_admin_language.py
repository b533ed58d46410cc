"""The admin speaks its staff member's language throughout (Spanish by default): every changelist,
add form and change form of every registered model, in Spanish with no English left in the
interface (Django's own strings its Spanish catalog leaves untranslated, django-axes' models,
which it ships without Spanish), and in English with no Spanish (our models' names and fields).

English is recognised by the msgids of the catalogs of Django and of the apps it runs (English
sources) that no Spanish catalog translates; Spanish by our catalogs' sources that English
translates differently (`tests.site.test_translations.spanish_only_strings`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import axes
import django
import pytest
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib import admin
from django.contrib.auth.models import Group
from django.db import models
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import trans_real

from accounts.models import User
from games.models import ChatMessage
from moderation.models import ModerationAction, Report
from tests.factories import finished_game, login, make_user
from tests.site.test_translations import read_po, spanish_only_strings
from tests.tournaments.support import ready_tournament

pytestmark = pytest.mark.django_db

#: Words that are the same in both languages.
SAME_IN_BOTH = {"ID", "Mus", "Email", "IP", "Total", "bot"}

#: The attributes whose values people read.
READ_ATTRIBUTES = {"placeholder", "title", "aria-label"}


class Chunks(HTMLParser):
    """The text a person reads on a page: text nodes, a few attributes, the buttons' values."""

    def __init__(self) -> None:
        super().__init__()
        self.chunks: set[str] = set()
        self._skip = 0

    def _add(self, text: str | None) -> None:
        text = " ".join((text or "").split())
        if text:
            self.chunks.add(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "template"):
            self._skip += 1
        values = dict(attrs)
        for name in READ_ATTRIBUTES & set(values):
            self._add(values[name])
        if tag == "input" and values.get("type") in ("submit", "button"):
            self._add(values.get("value"))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "template") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self._add(data.strip().rstrip(":").strip())


def chunks_of(html: str) -> set[str]:
    parser = Chunks()
    parser.feed(html)
    return parser.chunks


def _source_catalogs() -> Iterator[Path]:
    """The .po files whose msgids are the English sources of what Django and axes show."""
    for package in (django, axes):
        root = Path(package.__file__).parent
        for po in root.glob("**/locale/*/LC_MESSAGES/django*.po"):
            if po.parts[-3] in ("en", "de"):
                yield po


def _pattern(msgid: str) -> re.Pattern[str] | None:
    """A regex that matches `msgid` with its placeholders filled; None for a msgid without two
    letters of its own in a row (a bare placeholder would match anything)."""
    parts = re.split(r"%\(\w+\)[sd]|%[sd]|\{\w*\}", msgid)
    if not any(re.search(r"[A-Za-z]{2}", part) for part in parts):
        return None
    return re.compile("(?:.+?)".join(re.escape(part) for part in parts))


@cache
def english_sources() -> list[tuple[str, re.Pattern[str]]]:
    """Django's and axes' English msgids that no Spanish catalog of this site translates."""
    with translation.override("es"):
        catalog = trans_real.translation("es")._catalog  # type: ignore[attr-defined]
        found: dict[str, re.Pattern[str]] = {}
        for po in _source_catalogs():
            for entry in read_po(po):
                msgid = entry.msgid
                if not msgid or msgid in SAME_IN_BOTH or msgid in found:
                    continue
                key = msgid if entry.msgctxt is None else f"{entry.msgctxt}\x04{msgid}"
                if key in catalog or (key, 0) in catalog:
                    continue
                pattern = _pattern(msgid)
                if pattern is not None:
                    found[msgid] = pattern
    return sorted(found.items())


def english_in(chunks: set[str]) -> list[str]:
    return sorted(
        chunk
        for chunk in chunks
        for msgid, pattern in english_sources()
        if pattern.fullmatch(chunk) and re.search(r"[A-Za-z]{2}", chunk)
    )


def spanish_in(chunks: set[str]) -> list[str]:
    return sorted(chunks & spanish_only_strings())


def the_site() -> None:
    """At least one object of every registered model, so that every change form is seen."""
    players = [make_user(f"jugadora{i}") for i in range(4)]
    table = finished_game(players)
    ChatMessage.objects.create(table=table, user=players[0], seat=0, text="hola a todos")
    Report.objects.create(reporter=players[0], reported=players[1], table=table, reason="insultos")
    ModerationAction.objects.create(
        moderator=players[2], moderator_name=players[2].username, kind="expulsar", target=players[1]
    )
    ready_tournament(2, rounds=1)
    Group.objects.create(name="moderación")
    common = {"user_agent": "navegador", "ip_address": "127.0.0.1", "username": "alguien"}
    common |= {"http_accept": "*/*", "path_info": "/cuentas/entrar/"}
    AccessAttempt.objects.create(**common, get_data="", post_data="", failures_since_start=1)
    AccessLog.objects.create(**common)
    AccessFailureLog.objects.create(**common, locked_out=False)


def admin_pages(client: Client) -> Iterator[tuple[str, str]]:
    """Every changelist, add form (where staff may add) and, for one object, change form."""
    request = _request()
    for model, model_admin in admin.site._registry.items():
        meta = model._meta
        base = f"admin:{meta.app_label}_{meta.model_name}"
        urls = [reverse(f"{base}_changelist")]
        if model_admin.has_add_permission(request):
            urls.append(reverse(f"{base}_add"))
        first = model_admin.get_queryset(request).order_by("pk").first()
        if first is not None:
            urls.append(reverse(f"{base}_change", args=[first.pk]))
        for url in urls:
            response = client.get(url)
            assert response.status_code == 200, url
            yield url, response.content.decode()


def _request() -> Any:
    """A request of the staff member, for the admin's own permission checks and querysets."""
    request = RequestFactory().get("/admin/")
    request.user = User.objects.get(username="moderadora")
    return request


@pytest.mark.parametrize("language", ["es", "en"])
def test_the_admin_speaks_the_staff_members_language_on_every_page(language: str) -> None:
    the_site()
    staff = make_user("moderadora", is_staff=True, is_superuser=True, language=language)
    client = login(staff)
    wrong: dict[str, list[str]] = {}
    for url, html in admin_pages(client):
        chunks = chunks_of(html)
        found = english_in(chunks) if language == "es" else spanish_in(chunks)
        if found:
            wrong[url] = found
    import json
    import os

    if os.environ.get("HW_DUMP"):
        print(
            "DUMP", json.dumps(sorted({c for v in wrong.values() for c in v}), ensure_ascii=False)
        )
    assert wrong == {}


def test_every_model_and_field_of_the_admin_has_a_name_in_both_languages() -> None:
    # A field without a verbose_name shows its attribute's name («pair a», «PAIR A» in a
    # column header) in both languages.
    wrong = []
    for model in admin.site._registry:
        meta = model._meta
        names: list[tuple[str, Any]] = [
            ("model", meta.verbose_name),
            ("model plural", meta.verbose_name_plural),
        ]
        names += [
            (field.name, field.verbose_name)
            for field in meta.get_fields()
            if isinstance(field, models.Field) and not field.auto_created
        ]
        for name, text in names:
            if not isinstance(text, Promise):
                wrong.append(f"{meta.label}.{name}: {text!r} is not translated")
                continue
            with translation.override("es"):
                spanish = str(text)
            with translation.override("en"):
                english = str(text)
            if spanish == english and spanish not in SAME_IN_BOTH:
                wrong.append(f"{meta.label}.{name}: {spanish!r} in both languages")
    assert wrong == []
