from datetime import datetime

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from accounts.profile import register_profile_context, unregister_profile_context
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def test_the_profile_url_is_under_jugadores() -> None:
    assert reverse("accounts:profile", args=["carmen"]) == "/jugadores/carmen/"


def test_an_unknown_player_is_404(client: Client) -> None:
    assert client.get("/jugadores/nadie/").status_code == 404


def test_the_username_is_matched_exactly(client: Client, player: User) -> None:
    assert client.get("/jugadores/CARMEN/").status_code == 404


def test_it_shows_display_name_username_and_member_since(client: Client) -> None:
    make_user(
        username="carmen",
        display_name="Carmen la del Órdago",
        date_joined=timezone.make_aware(datetime(2026, 3, 14, 12, 0)),
    )
    response = client.get("/jugadores/carmen/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "<h1><bdi>Carmen la del Órdago</bdi>" in page
    assert "@<bdi>carmen</bdi>" in page
    assert "Miembro desde el 14 de marzo de 2026" in page


def test_a_player_without_display_name_is_shown_by_username(client: Client) -> None:
    make_user(username="pepe")
    assert "<h1><bdi>pepe</bdi>" in client.get("/jugadores/pepe/").content.decode()


def test_it_shows_empty_states_for_ratings_and_history(client: Client, player: User) -> None:
    page = client.get("/jugadores/carmen/").content.decode()
    assert "Puntuación por modalidad" in page
    assert "Aún no hay partidas puntuadas." in page
    assert "Últimas partidas" in page
    assert "Aún no hay partidas." in page


def test_usernames_with_dots_and_at_signs_have_profiles(client: Client) -> None:
    make_user(username="ana.m@casa")
    assert client.get(reverse("accounts:profile", args=["ana.m@casa"])).status_code == 200


def test_a_bot_has_a_profile_marked_as_bot(client: Client) -> None:
    make_user(username="bot-1", display_name="Mus-o-matic", is_bot=True)
    response = client.get("/jugadores/bot-1/")
    assert response.status_code == 200
    assert '<span class="badge">Bot</span>' in response.content.decode()


def test_the_owner_sees_links_to_settings_and_password(player_client: Client, player: User) -> None:
    page = player_client.get("/jugadores/carmen/").content.decode()
    assert reverse("accounts:settings") in page
    assert reverse("accounts:password_change") in page


def test_others_do_not_see_the_owner_links(client: Client, player: User) -> None:
    page = client.get("/jugadores/carmen/").content.decode()
    assert reverse("accounts:settings") not in page


def test_the_profile_uses_no_inline_styles_or_scripts(client: Client, player: User) -> None:
    page = client.get("/jugadores/carmen/").content.decode()
    assert "style=" not in page
    assert "<script>" not in page
    assert "css/accounts.css" in page


class TestExtensionPoints:
    """Other apps fill the ratings and history sections through accounts.profile."""

    def test_a_provider_fills_ratings_and_history(self, client: Client, player: User) -> None:
        def provider(request, shown):
            assert shown == player
            return {
                "ratings": [{"mode_label": "8 reyes", "rating": 1612, "games": 9}],
                "games": [
                    {
                        "url": "/partidas/7/registro.json",
                        "title": "Partida 7",
                        "finished_at": timezone.now(),
                        "result": "Ganada",
                    }
                ],
            }

        register_profile_context(provider)
        try:
            page = client.get("/jugadores/carmen/").content.decode()
        finally:
            unregister_profile_context(provider)
        assert "<td>8 reyes</td><td>1612</td><td>9</td>" in page
        assert '<a href="/partidas/7/registro.json">Partida 7</a>' in page
        assert "Ganada" in page
        assert "Aún no hay partidas" not in page

    def test_a_provider_may_replace_a_section_template(self, client: Client, player: User) -> None:
        def provider(request, shown):
            return {"history_template": "accounts/profile_ratings.html"}

        register_profile_context(provider)
        try:
            page = client.get("/jugadores/carmen/").content.decode()
        finally:
            unregister_profile_context(provider)
        assert "Aún no hay partidas." not in page
        assert page.count("Aún no hay partidas puntuadas.") == 2

    def test_registering_twice_adds_the_provider_once(self) -> None:
        calls = []

        def provider(request, shown):
            calls.append(shown)

        register_profile_context(provider)
        register_profile_context(provider)
        try:
            from django.test import RequestFactory

            from accounts.profile import profile_context

            request = RequestFactory().get("/")
            request.user = make_user("pepe")
            profile_context(request, request.user)
        finally:
            unregister_profile_context(provider)
        assert len(calls) == 1
