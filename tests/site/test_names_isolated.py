"""Every page that shows a name a player chose isolates it (`<bdi>`, or FSI…PDI in plain text),
so that a right-to-left name cannot reorder the text beside it (#13, 6)."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client

from accounts.models import User
from games import services
from games.models import Table
from tests.factories import finished_game, login, seat_all, start_seated

pytestmark = pytest.mark.django_db

#: An Arabic display name and a username with a right-to-left override, as a player who signed
#: up before the name rules could still have (set directly, past the forms).
DISPLAY = "ليلى"
USERNAME = "lei\u202ela"


@pytest.fixture
def leila() -> User:
    user = User.objects.create_user(username="leila", password="Contraseña-muy-segura-1")
    User.objects.filter(pk=user.pk).update(username=USERNAME, display_name=DISPLAY)
    return User.objects.get(pk=user.pk)


@pytest.fixture
def others() -> list[User]:
    return [
        User.objects.create_user(username=f"otro{i}", password="Contraseña-muy-segura-1")
        for i in range(3)
    ]


def assert_isolated(page: str, *names: str) -> None:
    """Each name occurs on the page, and only inside `<bdi>` or between FSI and PDI."""
    for name in names:
        text = html.escape(name)
        found = [m.start() for m in re.finditer(re.escape(text), page)]
        assert found, f"{name!r} is not on the page"
        for at in found:
            before, after = page[max(0, at - 5) : at], page[at + len(text) : at + len(text) + 6]
            assert (before, after) in (("<bdi>", "</bdi>"), ("\u2068", "\u2069")) or (
                before.endswith("\u2068") and after.startswith("\u2069")
            ), f"{name!r} not isolated: …{page[max(0, at - 60) : at + 60]}…"


def test_the_lobby_isolates_hosts_seated_players_and_who_is_online(
    leila: User, others: list[User]
) -> None:
    seat_all([leila, *others])
    page = login(leila).get("/").content.decode()
    assert_isolated(page, DISPLAY)


def test_the_waiting_room_and_its_polled_body_isolate_the_names(
    leila: User, others: list[User]
) -> None:
    table = seat_all([leila, *others])
    client = login(others[0])
    assert_isolated(client.get(f"/mesas/{table.pk}/").content.decode(), DISPLAY)
    polled = client.get(f"/mesas/{table.pk}/espera/", HTTP_HX_REQUEST="true")
    assert_isolated(polled.content.decode(), DISPLAY)


def test_the_profile_isolates_the_display_name_and_the_username(leila: User) -> None:
    page = Client().get(f"/jugadores/{USERNAME}/").content.decode()
    assert_isolated(page, DISPLAY, USERNAME)


def test_the_leaderboard_history_and_game_page_isolate_the_names(
    leila: User, others: list[User]
) -> None:
    table = finished_game([leila, *others], rate=True)
    client = Client()
    assert_isolated(client.get("/ranking/").content.decode(), DISPLAY)
    assert_isolated(client.get(f"/partidas/?jugador={USERNAME}").content.decode(), DISPLAY)
    assert_isolated(client.get(f"/partidas/{table.pk}/").content.decode(), DISPLAY)


def test_the_rematch_box_and_the_report_form_isolate_the_names(
    leila: User, others: list[User]
) -> None:
    table = finished_game([leila, *others])
    services.rematch(leila, table.pk)
    client = login(others[0])
    box = client.get(f"/mesas/{table.pk}/revancha/", HTTP_HX_REQUEST="true")
    assert_isolated(box.content.decode(), DISPLAY)
    assert_isolated(client.get(f"/mesas/{table.pk}/denunciar/").content.decode(), DISPLAY)


def test_the_page_header_and_the_settings_page_isolate_the_players_own_names(
    leila: User,
) -> None:
    page = login(leila).get("/cuentas/ajustes/").content.decode()
    assert_isolated(page, USERNAME)
    assert f"<bdi>{DISPLAY}</bdi>" in page  # the header's link to the profile


def test_the_live_table_page_isolates_the_names_it_draws_itself(
    leila: User, others: list[User]
) -> None:
    # The felt's names come in the socket's state and table.js isolates them; the page's own
    # HTML (its header) does it here.
    table = seat_all([leila, *others])
    start_seated(leila, table)
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING
    assert_isolated(login(leila).get(f"/mesas/{table.pk}/").content.decode(), DISPLAY)
