"""The staff's list of suspicious account clusters: farming shows up, normal play does not."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from moderation import clusters
from rankings import services as rating_services
from tests.factories import farm_game, finished_game, login, staff_with

pytestmark = pytest.mark.django_db

URL = reverse("admin:accounts_user_clusters")


def recently(minutes: int) -> object:
    return timezone.now() - timedelta(minutes=minutes)


def test_a_booster_farming_fresh_accounts_shows_up_with_everybody_it_met(
    admin_client: Client, make_user: Callable[..., User]
) -> None:
    booster = make_user("booster")
    User.objects.filter(pk=booster.pk).update(date_joined=timezone.now() - timedelta(days=400))
    fresh = []
    for game in range(5):
        partner, *rivals = (make_user() for _ in range(3))
        fresh += [partner, *rivals]
        table = farm_game(booster, partner, rivals, seed=game)
        rating_services.rate_table(table.pk)
    found = clusters.suspicious_clusters()
    assert len(found) == 1
    cluster = found[0]
    assert len(cluster.games) == 5 and cluster.young == 15
    assert {m.user.pk for m in cluster.members} == {booster.pk, *(u.pk for u in fresh)}
    [flagged] = cluster.flagged
    assert flagged.user == booster and not flagged.young
    assert flagged.reasons == [clusters.Reason("lopsided", 5, 5)]
    assert flagged.gained == 0  # the ladder gave nothing for it
    page = admin_client.get(URL).content.decode()
    assert "booster" in page and "ganó 5 de 5 partidas con cuentas nuevas" in page
    assert "5 partidas, 16 cuentas (15 nuevas)" in page


def test_a_ring_of_new_accounts_playing_each_other_shows_up(
    admin_client: Client, make_user: Callable[..., User]
) -> None:
    ring = [make_user(f"anillo{i}") for i in range(4)]
    seatings = [[0, 1, 2, 3], [0, 2, 1, 3], [0, 3, 1, 2]]
    for n in range(6):
        seated = [ring[i] for i in seatings[n % 3]]
        finished_game(seated, winner=n % 2, finished_at=recently(60 - n), rate=True)
    [cluster] = clusters.suspicious_clusters()
    assert {m.user.pk for m in cluster.members} == {u.pk for u in ring}
    assert all(clusters.Reason("closed", 6, 3) in m.reasons for m in cluster.members)
    page = admin_client.get(URL).content.decode()
    assert "6 partidas con cuentas nuevas entre solo 3 personas" in page


def test_normal_play_shows_up_nowhere(admin_client: Client, make_user: Callable[..., User]) -> None:
    # Eight newcomers in six public games, partners and rivals changing, results mixed.
    p = [make_user(f"novato{i}") for i in range(8)]
    games = [
        ([0, 1, 2, 3], 0),
        ([4, 5, 6, 7], 1),
        ([0, 4, 1, 5], 1),
        ([2, 6, 3, 7], 0),
        ([0, 2, 4, 6], 0),
        ([1, 3, 5, 7], 1),
    ]
    for n, (seats, winner) in enumerate(games):
        finished_game([p[i] for i in seats], winner=winner, finished_at=recently(90 - n))
    # Four old accounts who play each other a lot, one pair winning every time.
    old = [make_user(f"veterano{i}") for i in range(4)]
    User.objects.filter(pk__in=[u.pk for u in old]).update(
        date_joined=timezone.now() - timedelta(days=300)
    )
    for n in range(10):
        finished_game(old, winner=0, finished_at=recently(30 - n))
    # A farm from long ago is outside the window.
    booster = make_user("antiguo")
    for n in range(5):
        finished_game(
            [booster, make_user(), make_user(), make_user()],
            winner=0,
            finished_at=timezone.now() - timedelta(days=clusters.WINDOW_DAYS + 1, minutes=n),
        )
    assert clusters.suspicious_clusters() == []
    page = admin_client.get(URL).content.decode()
    assert 'id="no-clusters"' in page


def test_the_list_is_linked_from_the_players_and_needs_the_players_view_permission(
    admin_client: Client, make_user: Callable[..., User]
) -> None:
    assert URL in admin_client.get(reverse("admin:accounts_user_changelist")).content.decode()
    for codenames, status in ((("view_table",), 403), (("view_user",), 200)):
        client = login(staff_with(*codenames, name=f"ayudante-{codenames[0]}"))
        assert client.get(URL).status_code == status
