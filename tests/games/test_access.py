"""One access policy (games.services.access): the list's filter and the page's check are one
rule, and the site acts as itself, never as a borrowed host."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from accounts.models import User
from games import services
from games.models import Table
from games.services.access import can_view, visible_to
from tests.factories import finished_game, seat_all

pytestmark = pytest.mark.django_db


def test_visible_to_and_can_view_agree_for_every_viewer_and_table(
    four_players: list[User], make_user: Callable[..., User]
) -> None:
    public = finished_game(four_players)
    private = finished_game(four_players, private=True)
    hosted = finished_game(four_players, private=True)
    host = make_user("anfitrion")
    Table.objects.filter(pk=hosted.pk).update(host=host)
    hosted.refresh_from_db()
    tables = [public, private, hosted]
    viewers = {
        "staff": (make_user("guardia", is_staff=True), None),
        "host": (host, None),
        "seated": (four_players[1], None),
        "invitation": (make_user("invitada"), private),
        "invitation_signed_out": (AnonymousUser(), private),
        "stranger": (make_user("mirona"), None),
        "signed_out": (AnonymousUser(), None),
        "system": (services.SYSTEM, None),
    }
    seen = {}
    for name, (user, invited) in viewers.items():
        held = {invited.pk: invited.invite_token} if invited else {}
        listed = set(Table.objects.filter(visible_to(user, held)).values_list("pk", flat=True))
        paged = {t.pk for t in tables if can_view(t, user, held.get(t.pk))}
        assert listed == paged, name
        seen[name] = paged
    assert seen["staff"] == seen["seated"] == {public.pk, private.pk, hosted.pk}
    assert seen["host"] == {public.pk, hosted.pk}
    assert seen["invitation"] == seen["invitation_signed_out"] == {public.pk, private.pk}
    assert seen["stranger"] == seen["signed_out"] == seen["system"] == {public.pk}


def test_the_site_starts_and_closes_a_table_without_being_its_host(
    four_players: list[User], make_user: Callable[..., User]
) -> None:
    table = seat_all(four_players)
    with pytest.raises(services.ServiceError) as refused:
        services.start_game(four_players[1], table.pk)
    assert refused.value.code == "not_host"
    started = services.start_game(services.SYSTEM, table.pk, by_hand=False)
    assert started.status == Table.Status.PLAYING and started.host_id == four_players[0].pk
    other = services.create_table(make_user("sola"), "4-reyes")
    assert services.close_table(services.SYSTEM, other.pk).status == Table.Status.CLOSED
    with pytest.raises(services.ServiceError) as refused:
        services.kick(services.SYSTEM, other.pk, 0)
    assert refused.value.code == "started"


def test_a_rematch_is_dealt_by_the_site_even_when_its_host_may_no_longer_play(
    four_players: list[User],
) -> None:
    old = finished_game(four_players)
    new = services.rematch(four_players[0], old.pk)
    for seat in (1, 2):
        services.rematch(four_players[seat], old.pk)
    # The host's account is banned meanwhile (before the ban's measures reach the table).
    User.objects.filter(pk=four_players[0].pk).update(banned_at=timezone.now())
    assert services.rematch(four_players[3], old.pk).pk == new.pk
    new.refresh_from_db()
    assert new.status == Table.Status.PLAYING and new.host_id == four_players[0].pk


def test_may_play_is_active_and_not_banned(make_user: Callable[..., User]) -> None:
    player = make_user("jugadora")
    assert player.may_play
    player.banned_at = timezone.now()
    assert not player.may_play
    player.banned_until = timezone.now()
    assert player.may_play  # a ban that has run out
    player.is_active = False
    assert not player.may_play
