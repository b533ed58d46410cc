"""A player the host takes off a table does not sit straight back down, and is told (#13, 7)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from accounts.models import User
from games import services
from games.models import Kick, Table
from tests.factories import login

pytestmark = pytest.mark.django_db

KICKED = "El anfitrión te ha sacado de esta mesa."


def test_a_kicked_player_cannot_sit_at_that_table_again(make_user: Callable[..., User]) -> None:
    host, guest = make_user(), make_user()
    table = services.create_table(host, "4-reyes")
    services.take_seat(guest, table.pk, 1)
    services.kick(host, table.pk, 1)
    version = Table.objects.get(pk=table.pk).version
    for seat in (1, 2):
        with pytest.raises(services.ServiceError) as refused:
            services.take_seat(guest, table.pk, seat)
        assert refused.value.code == "kicked"
        assert str(refused.value) == KICKED
    assert not table.seats.filter(user=guest).exists()
    assert Table.objects.get(pk=table.pk).version == version  # nothing changed


def test_the_invitation_kept_in_the_session_no_longer_seats_a_kicked_player(
    make_user: Callable[..., User],
) -> None:
    host, guest = make_user(), make_user()
    table = services.create_table(host, "4-reyes", private=True)
    client = login(guest)
    client.get(f"/mesas/invitacion/{table.invite_token}/")
    assert client.post(f"/mesas/{table.pk}/sentarse/", {"seat": "1"}).status_code == 302
    assert login(host).post(f"/mesas/{table.pk}/expulsar/", {"seat": "1"}).status_code == 302

    response = client.post(f"/mesas/{table.pk}/sentarse/", {"seat": "1"}, follow=True)
    assert KICKED in [str(m) for m in response.context["messages"]]
    assert not table.seats.filter(user=guest).exists()


def test_the_kicked_players_waiting_room_says_they_were_removed_and_offers_no_seat(
    make_user: Callable[..., User],
) -> None:
    host, guest = make_user(), make_user()
    table = services.create_table(host, "4-reyes")
    client = login(guest)
    client.post(f"/mesas/{table.pk}/sentarse/", {"seat": "1"})
    before = client.get(f"/mesas/{table.pk}/espera/", HTTP_HX_REQUEST="true").content.decode()
    assert KICKED not in before

    services.kick(host, table.pk, 1)

    polled = client.get(f"/mesas/{table.pk}/espera/", HTTP_HX_REQUEST="true").content.decode()
    assert KICKED in polled
    assert f"/mesas/{table.pk}/sentarse/" not in polled
    # Only them: somebody else still gets the seats.
    other = login(make_user()).get(f"/mesas/{table.pk}/espera/", HTTP_HX_REQUEST="true")
    assert KICKED not in other.content.decode()
    assert f"/mesas/{table.pk}/sentarse/" in other.content.decode()


def test_a_kick_is_for_that_table_only(make_user: Callable[..., User]) -> None:
    host, guest = make_user(), make_user()
    table = services.create_table(host, "4-reyes")
    services.take_seat(guest, table.pk, 1)
    services.kick(host, table.pk, 1)
    other_host = make_user()
    other = services.create_table(other_host, "4-reyes")
    services.take_seat(guest, other.pk, 1)
    assert other.seats.filter(user=guest).exists()
    assert list(Kick.objects.values_list("table_id", "user_id")) == [(table.pk, guest.pk)]
