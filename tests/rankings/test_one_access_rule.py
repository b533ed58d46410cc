"""Who may see a private game: the lists (the history, a profile's latest games) and the game
page answer alike for every kind of viewer (games.services.access, one rule)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib import auth
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games import services
from games.models import Table
from rankings import queries
from tests.factories import finished_game, login

pytestmark = pytest.mark.django_db

HISTORY = reverse("game_history")


def listed(client: Client, params: dict[str, str]) -> set[int]:
    return {row.id for row in client.get(HISTORY, params).context["page"].rows}


def on_profile(client: Client, player: User, table: Table) -> bool:
    page = client.get(reverse("accounts:profile", args=[player.username])).content.decode()
    return reverse("game_detail", args=[table.pk]) in page


def opens(client: Client, table: Table) -> bool:
    return client.get(reverse("game_detail", args=[table.pk])).status_code == 200


@pytest.mark.parametrize(
    ("viewer", "sees"),
    [
        ("staff", True),
        ("host", True),
        ("seated", True),
        ("invitation", True),
        ("invitation_signed_out", True),
        ("stranger", False),
        ("signed_out", False),
    ],
)
def test_the_lists_and_the_game_page_agree_on_a_private_game(
    players: Callable[[int], list[User]],
    make_user: Callable[..., User],
    viewer: str,
    sees: bool,
) -> None:
    four = players(4)
    private = finished_game(four, private=True)
    public = finished_game(four)
    client = Client()
    if viewer == "staff":
        login(make_user("guardia", is_staff=True), client)
    elif viewer == "host":
        # A host who no longer sat there (they handed their seat on): the page lets them in.
        host = make_user("anfitriona")
        Table.objects.filter(pk=private.pk).update(host=host)
        login(host, client)
    elif viewer == "seated":
        login(four[2], client)
    elif viewer == "stranger":
        login(make_user("mirona"), client)
    elif viewer.startswith("invitation"):
        if viewer == "invitation":
            login(make_user("invitada"), client)
        client.get(reverse("games:invite", args=[private.invite_token]))
    theirs = listed(client, {"jugador": four[0].username})
    assert public.pk in theirs
    assert opens(client, private) is sees
    assert (private.pk in theirs) is sees
    assert on_profile(client, four[0], private) is sees
    # Everybody's latest games (the history without a player, shown to a signed-out visitor).
    user = auth.get_user(client)
    held = services.invitations_held(client.session)
    everybody = {row.id for row in queries.recent_games(user, held=held).rows}
    assert public.pk in everybody
    assert (private.pk in everybody) is sees
    if not user.is_authenticated:
        assert (private.pk in listed(client, {})) is sees


def test_an_invitation_opens_its_own_game_and_no_other(
    players: Callable[[int], list[User]], make_user: Callable[..., User]
) -> None:
    four = players(4)
    followed, other = finished_game(four, private=True), finished_game(four, private=True)
    client = login(make_user("invitada"))
    client.get(reverse("games:invite", args=[followed.invite_token]))
    # A forged session entry (a guessed token) opens nothing: the token must be the table's.
    session = client.session
    session[f"invite-{other.pk}"] = followed.invite_token
    session.save()
    assert listed(client, {"jugador": four[0].username}) == {followed.pk}
    assert opens(client, followed) and not opens(client, other)
