"""The audit log: readable in the admin, never added to, changed or deleted there."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from moderation import actions
from moderation.models import ModerationAction
from tests.factories import started_table

pytestmark = pytest.mark.django_db

LOG = reverse("admin:moderation_moderationaction_changelist")


@pytest.fixture
def entry(make_user: Callable[..., User], moderator: User) -> ModerationAction:
    return actions.mute(moderator, make_user("pilar"), "Insultos en el chat")


def test_the_log_lists_who_what_to_whom_when_and_why(
    admin_client: Client, entry: ModerationAction
) -> None:
    response = admin_client.get(LOG)
    assert response.status_code == 200
    page = response.content.decode()
    for text in ("moderadora", "pilar", "Insultos en el chat", "Silencio"):
        assert text in page
    detail = admin_client.get(reverse("admin:moderation_moderationaction_change", args=[entry.pk]))
    assert detail.status_code == 200
    assert 'name="_save"' not in detail.content.decode()


def test_the_log_filters_by_kind_and_searches_names(
    admin_client: Client, entry: ModerationAction, make_user: Callable[..., User], moderator: User
) -> None:
    other = actions.ban(moderator, make_user("pepe"), "Trampas")
    by_kind = admin_client.get(LOG, {"kind__exact": "expulsar"}).context["cl"].queryset
    assert list(by_kind) == [other]
    by_name = admin_client.get(LOG, {"q": "pilar"}).context["cl"].queryset
    assert list(by_name) == [entry]


def test_nobody_can_add_to_the_log_in_the_admin_not_even_a_superuser(
    admin_client: Client,
) -> None:
    add = reverse("admin:moderation_moderationaction_add")
    assert admin_client.get(add).status_code == 403
    assert admin_client.post(add, {"kind": "expulsar", "reason": "falso"}).status_code == 403
    assert not ModerationAction.objects.exists()


def test_nobody_can_change_an_entry_in_the_admin_not_even_a_superuser(
    admin_client: Client, entry: ModerationAction
) -> None:
    url = reverse("admin:moderation_moderationaction_change", args=[entry.pk])
    response = admin_client.post(url, {"reason": "otra cosa", "kind": "readmitir"})
    assert response.status_code == 403
    entry.refresh_from_db()
    assert (entry.reason, entry.kind) == ("Insultos en el chat", "silenciar")


def test_nobody_can_delete_an_entry_in_the_admin_not_even_a_superuser(
    admin_client: Client, entry: ModerationAction
) -> None:
    url = reverse("admin:moderation_moderationaction_delete", args=[entry.pk])
    assert admin_client.get(url).status_code == 403
    assert admin_client.post(url, {"post": "yes"}).status_code == 403
    bulk = admin_client.post(
        LOG, {"action": "delete_selected", "_selected_action": [entry.pk], "post": "yes"}
    )
    assert bulk.status_code in (200, 302)
    assert ModerationAction.objects.filter(pk=entry.pk).exists()


def test_the_log_admin_refuses_every_permission_to_everybody(
    admin_client: Client, moderator: User
) -> None:
    from django.contrib import admin as django_admin

    model_admin = django_admin.site._registry[ModerationAction]
    request = admin_client.get(LOG).wsgi_request
    assert request.user == moderator and moderator.is_superuser
    assert not model_admin.has_add_permission(request)
    assert not model_admin.has_change_permission(request)
    assert not model_admin.has_delete_permission(request)
    assert model_admin.has_view_permission(request)
    assert "delete_selected" not in model_admin.get_actions(request)


def test_every_measure_writes_one_entry(
    four_players: list[User], moderator: User, make_user: Callable[..., User]
) -> None:
    player = make_user("pilar")
    actions.ban(moderator, player, "a")
    actions.unban(moderator, player, "b")
    actions.mute(moderator, player, "c")
    actions.unmute(moderator, player, "d")
    table = started_table(four_players)
    actions.cancel_game(moderator, table, "e")
    kinds = list(ModerationAction.objects.order_by("pk").values_list("kind", "reason"))
    assert kinds == [
        ("expulsar", "a"),
        ("readmitir", "b"),
        ("silenciar", "c"),
        ("quitar_silencio", "d"),
        ("cancelar", "e"),
    ]
