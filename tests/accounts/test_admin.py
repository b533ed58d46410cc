import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from tests.factories import login, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client: Client) -> Client:
    return login(make_user(username="jefa", is_staff=True, is_superuser=True), client)


def test_the_player_list_shows_the_moderation_columns(staff_client: Client) -> None:
    make_user(username="pilar", display_name="Pili", muted=True)
    response = staff_client.get(reverse("admin:accounts_user_changelist"))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Pili" in page
    for column in ("column-display_name", "column-date_joined", "column-banned_at"):
        assert column in page


def test_the_player_list_searches_display_names(staff_client: Client) -> None:
    make_user(username="pilar", display_name="La Sota")
    make_user(username="pepe")
    response = staff_client.get(reverse("admin:accounts_user_changelist"), {"q": "sota"})
    assert list(response.context["cl"].queryset.values_list("username", flat=True)) == ["pilar"]


def test_the_player_list_filters_banned_players(staff_client: Client) -> None:
    make_user(username="pilar", banned_at=timezone.now())
    make_user(username="pepe")
    url = reverse("admin:accounts_user_changelist")
    banned = staff_client.get(url, {"expulsado": "si"}).context["cl"].queryset
    assert list(banned.values_list("username", flat=True)) == ["pilar"]
    clean = staff_client.get(url, {"expulsado": "no"}).context["cl"].queryset
    assert "pilar" not in clean.values_list("username", flat=True)


def test_the_change_and_add_pages_load(staff_client: Client) -> None:
    user = make_user(username="pilar")
    change = staff_client.get(reverse("admin:accounts_user_change", args=[user.pk]))
    assert change.status_code == 200
    assert 'name="ban_reason"' in change.content.decode()
    assert staff_client.get(reverse("admin:accounts_user_add")).status_code == 200


def test_staff_can_ban_from_the_change_page(staff_client: Client) -> None:
    user = make_user(username="pilar")
    page = staff_client.get(reverse("admin:accounts_user_change", args=[user.pk]))
    form = page.context["adminform"].form
    data = {
        name: value
        for name, value in form.initial.items()
        if value is not None and name not in ("groups", "user_permissions", "password")
    }
    data.update(
        {
            "date_joined_0": user.date_joined.strftime("%Y-%m-%d"),
            "date_joined_1": user.date_joined.strftime("%H:%M:%S"),
            "banned_at_0": "2026-11-29",
            "banned_at_1": "12:00:00",
            "ban_reason": "Trampas",
        }
    )
    data.pop("date_joined", None)
    data.pop("last_login", None)
    data.pop("banned_at", None)
    response = staff_client.post(reverse("admin:accounts_user_change", args=[user.pk]), data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    user.refresh_from_db()
    assert user.is_banned
    assert user.ban_reason == "Trampas"
    assert User.objects.get(username="pilar").banned_at is not None
