"""Following and blocking players from their profiles (accounts.relations)."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts import relations
from accounts.models import Block, Follow, User
from tests.factories import login, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def ana() -> User:
    return make_user("ana", display_name="Ana")


def test_following_from_the_profile_makes_a_friend(
    player_client: Client, player: User, ana: User
) -> None:
    page = player_client.get("/jugadores/ana/").content.decode()
    assert 'action="/jugadores/ana/seguir/"' in page
    response = player_client.post("/jugadores/ana/seguir/", follow=True)
    assert Follow.objects.filter(follower=player, followed=ana).exists()
    page = response.content.decode()
    assert "Ahora sigues a \u2068Ana\u2069." in page
    assert 'action="/jugadores/ana/dejar-de-seguir/"' in page
    assert relations.friends(player.pk) == [ana]


def test_following_twice_is_following_once(player: User, ana: User) -> None:
    assert relations.follow(player, ana) is True
    assert relations.follow(player, ana) is False
    assert Follow.objects.count() == 1


def test_unfollowing_ends_it(player_client: Client, player: User, ana: User) -> None:
    relations.follow(player, ana)
    player_client.post("/jugadores/ana/dejar-de-seguir/")
    assert not Follow.objects.exists()


def test_following_is_one_way(player: User, ana: User) -> None:
    relations.follow(player, ana)
    assert relations.follows(player.pk, ana.pk)
    assert not relations.follows(ana.pk, player.pk)
    assert relations.friends(ana.pk) == []


def test_it_refuses_following_yourself(player_client: Client, player: User) -> None:
    response = player_client.post("/jugadores/carmen/seguir/", follow=True)
    assert "No puedes seguirte a ti mismo." in response.content.decode()
    assert not Follow.objects.exists()


def test_it_refuses_following_a_bot(player: User) -> None:
    bot = make_user("bot-prueba", is_bot=True)
    with pytest.raises(relations.RelationError) as exc:
        relations.follow(player, bot)
    assert exc.value.code == "bot"


def test_your_own_profile_and_a_bots_offer_no_follow_button(
    player_client: Client, player: User
) -> None:
    make_user("bot-prueba", is_bot=True)
    assert "/seguir/" not in player_client.get("/jugadores/carmen/").content.decode()
    assert "/seguir/" not in player_client.get("/jugadores/bot-prueba/").content.decode()


def test_visitors_are_offered_nothing_and_sent_to_log_in(client: Client, ana: User) -> None:
    assert "/seguir/" not in client.get("/jugadores/ana/").content.decode()
    response = client.post("/jugadores/ana/seguir/")
    assert response.status_code == 302
    assert "/cuentas/entrar/" in response["Location"]
    assert not Follow.objects.exists()


def test_following_is_a_post(player_client: Client, ana: User) -> None:
    assert player_client.get("/jugadores/ana/seguir/").status_code == 405
    assert not Follow.objects.exists()


def test_following_an_unknown_player_is_404(player_client: Client) -> None:
    assert player_client.post("/jugadores/nadie/seguir/").status_code == 404


def test_blocking_ends_following_both_ways(player_client: Client, player: User, ana: User) -> None:
    relations.follow(player, ana)
    relations.follow(ana, player)
    response = player_client.post("/jugadores/ana/bloquear/", follow=True)
    assert Block.objects.filter(blocker=player, blocked=ana).exists()
    assert not Follow.objects.exists()
    page = response.content.decode()
    assert "Has bloqueado a \u2068Ana\u2069" in page
    assert 'action="/jugadores/ana/desbloquear/"' in page
    assert relations.blocked_ids(player.pk) == {ana.pk}
    assert relations.blocked_ids(ana.pk) == set()


def test_nobody_can_follow_across_a_block(player: User, ana: User) -> None:
    relations.block(player, ana)
    for a, b in ((player, ana), (ana, player)):
        with pytest.raises(relations.RelationError) as exc:
            relations.follow(a, b)
        assert exc.value.code == "blocked"
    assert relations.blocked_either_way(ana.pk, player.pk)


def test_it_refuses_blocking_yourself(player: User) -> None:
    with pytest.raises(relations.RelationError) as exc:
        relations.block(player, player)
    assert exc.value.code == "self"


def test_unblocking_lets_them_follow_again(player_client: Client, player: User, ana: User) -> None:
    relations.block(player, ana)
    player_client.post("/jugadores/ana/desbloquear/")
    assert not Block.objects.exists()
    assert relations.follow(ana, player) is True


def test_blocking_twice_is_blocking_once(player: User, ana: User) -> None:
    assert relations.block(player, ana) is True
    assert relations.block(player, ana) is False
    assert Block.objects.count() == 1


def test_a_blocked_player_sees_nothing_of_it_on_the_blockers_profile(
    player: User, ana: User
) -> None:
    relations.block(player, ana)
    page = login(ana).get("/jugadores/carmen/").content.decode()
    assert "Has bloqueado" not in page
