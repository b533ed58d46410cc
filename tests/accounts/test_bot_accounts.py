"""Players' bot accounts and their tokens (issue #36, docs/bot-api.md): who may become one, how a
token signs a bot in over HTTP, and what it never opens."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from accounts import bot_accounts, relations
from accounts.models import BotToken, User
from games import labels, services
from games.models import Seat, Table
from tests.factories import PASSWORD, finished_game, login, make_user, seat_all, start_seated

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner() -> User:
    return make_user("dueña")


@pytest.fixture
def bot(owner: User) -> User:
    return bot_accounts.create_bot_account(owner, "Trasto")


def api(raw: str | None, path: str = "/api/bot/cuenta/", method: str = "get", **data: Any) -> Any:
    headers = {} if raw is None else {"Authorization": f"Bearer {raw}"}
    client = Client(enforce_csrf_checks=True)
    call = getattr(client, method)
    if method == "post":
        return call(path, data, content_type="application/json", headers=headers)
    return call(path, headers=headers)


# Becoming a bot account ----------------------------------------------------------------------
def test_a_new_account_becomes_a_bot_of_its_owner_that_no_password_signs_in(
    owner: User, bot: User
) -> None:
    assert bot.bot_owner == owner and bot.is_bot_account and not bot.is_bot
    assert not bot.has_usable_password()
    bot.set_password(PASSWORD)  # even with a password set behind the site's back
    bot.save()
    client = Client()
    answer = client.post("/cuentas/entrar/", {"username": "Trasto", "password": PASSWORD})
    assert answer.status_code == 200  # the form again: not signed in
    assert "_auth_user_id" not in client.session


def test_an_account_that_has_played_never_becomes_a_bot(owner: User) -> None:
    players = [make_user(f"p{i}") for i in range(4)]
    finished_game(players)
    with pytest.raises(bot_accounts.Refused) as refused:
        bot_accounts.make_bot_account(players[1], owner)
    assert refused.value.code == "has_games"
    assert not User.objects.get(pk=players[1].pk).is_bot_account


@pytest.mark.parametrize("who", ["self", "staff", "site_bot", "bot_owner_is_bot"])
def test_other_accounts_never_become_bots(owner: User, bot: User, who: str) -> None:
    account, by = {
        "self": (owner, owner),
        "staff": (make_user("equipo", is_staff=True), owner),
        "site_bot": (User.objects.filter(is_bot=True).first(), owner),
        "bot_owner_is_bot": (make_user("nuevo"), bot),
    }[who]
    before = account.bot_owner_id
    with pytest.raises(bot_accounts.Refused):
        bot_accounts.make_bot_account(account, by)
    assert User.objects.get(pk=account.pk).bot_owner_id == before


def test_a_bot_account_may_not_take_a_name_that_reads_like_the_sites_bots(owner: User) -> None:
    for name in ("Bot Nerea", "bot-lola", "B0T"):
        with pytest.raises(bot_accounts.Refused) as refused:
            bot_accounts.create_bot_account(owner, name)
        assert refused.value.code == "bad_name"


def test_an_owner_has_a_limited_number_of_bot_accounts(owner: User, settings: Any) -> None:
    settings.BOT_ACCOUNTS_PER_OWNER = 1
    bot_accounts.create_bot_account(owner, "Uno")
    with pytest.raises(bot_accounts.Refused) as refused:
        bot_accounts.create_bot_account(owner, "Dos")
    assert refused.value.code == "too_many_bots"


# Tokens over HTTP ----------------------------------------------------------------------------
def test_a_token_signs_its_bot_in_on_the_api_without_session_or_csrf(bot: User) -> None:
    token, raw = bot_accounts.issue_token(bot, "portátil")
    assert raw.startswith("mus_") and raw not in token.key_hash  # only its hash is kept
    answer = api(raw)
    assert answer.status_code == 200
    assert answer.json()["username"] == "Trasto" and answer.json()["bot_of"] == "dueña"
    assert answer.cookies.get("sessionid") is None
    token.refresh_from_db()
    assert token.last_used_at is not None


@pytest.mark.parametrize("case", ["revoked", "expired", "unknown", "none", "human", "banned"])
def test_an_unusable_token_is_refused_with_401(bot: User, owner: User, case: str) -> None:
    token, raw = bot_accounts.issue_token(bot, days=1)
    if case == "revoked":
        bot_accounts.revoke(BotToken.objects.filter(pk=token.pk))
    elif case == "expired":
        BotToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(1))
    elif case == "unknown":
        raw = raw[:-4] + "abcd"
    elif case == "none":
        raw = None  # type: ignore[assignment]
    elif case == "human":  # a token row on a person's account (never issued by the site)
        BotToken.objects.filter(pk=token.pk).update(user=owner)
    elif case == "banned":
        User.objects.filter(pk=bot.pk).update(banned_at=timezone.now())
    answer = api(raw)
    assert answer.status_code == 401
    assert answer.json()["error"] == "bad_token"


def test_a_person_gets_no_token(owner: User) -> None:
    with pytest.raises(bot_accounts.Refused):
        bot_accounts.issue_token(owner)


@pytest.mark.parametrize("path", ["/", "/cuentas/ajustes/", "/mesas/nueva/", "/admin/"])
def test_a_token_sent_to_a_page_is_refused(bot: User, path: str) -> None:
    _token, raw = bot_accounts.issue_token(bot)
    for method in ("get", "post"):
        answer = getattr(Client(), method)(path, headers={"Authorization": f"Bearer {raw}"})
        assert answer.status_code == 403
        assert answer.json()["error"] == "token_not_here"


def test_a_bearer_request_to_the_api_ignores_a_session_cookie(bot: User, owner: User) -> None:
    """A person's session riding along with somebody's token signs nobody but the token's bot in,
    and a page's cookie never makes an API request without a token work."""
    _token, raw = bot_accounts.issue_token(bot)
    client = login(owner)
    answer = client.get("/api/bot/cuenta/", headers={"Authorization": f"Bearer {raw}"})
    assert answer.json()["username"] == "Trasto"
    assert client.get("/api/bot/cuenta/").status_code == 401


def test_requests_over_the_tokens_rate_get_429(bot: User, settings: Any) -> None:
    settings.BOT_API_REQUESTS_PER_MINUTE = 3
    _token, raw = bot_accounts.issue_token(bot)
    codes = [api(raw).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]


# Sitting through the API ---------------------------------------------------------------------
def test_a_bot_sits_only_where_the_host_allowed_bots(bot: User, owner: User) -> None:
    _token, raw = bot_accounts.issue_token(bot)
    closed = services.create_table(make_user("anfitrion1"), "4-reyes")
    refused = api(raw, f"/api/bot/mesas/{closed.pk}/sentarse/", "post")
    assert refused.status_code == 400 and refused.json()["error"] == "no_bot_accounts"
    table = services.create_table(make_user("anfitrion2"), "4-reyes", bots_allowed=True)
    assert not table.rated  # a table that admits bots never counts for people's ladders
    listed = api(raw, "/api/bot/mesas/").json()
    assert [t["id"] for t in listed] == [table.pk]
    sat = api(raw, f"/api/bot/mesas/{table.pk}/sentarse/", "post", seat=2)
    assert sat.status_code == 200 and sat.json()["seat"] == 2
    assert api(raw).json()["table"]["id"] == table.pk
    assert api(raw, f"/api/bot/mesas/{table.pk}/levantarse/", "post").json() == {"ok": True}


def test_a_private_table_that_admits_bots_needs_its_invitation(bot: User) -> None:
    _token, raw = bot_accounts.issue_token(bot)
    table = services.create_table(
        make_user("anfitrion"), "4-reyes", private=True, bots_allowed=True
    )
    assert api(raw, "/api/bot/mesas/").json() == []
    refused = api(raw, f"/api/bot/mesas/{table.pk}/sentarse/", "post")
    assert refused.json()["error"] == "private"
    sat = api(raw, f"/api/bot/mesas/{table.pk}/sentarse/", "post", invitation=table.invite_token)
    assert sat.status_code == 200


def test_a_game_with_a_bot_account_never_counts_for_the_ladder(bot: User) -> None:
    people = [make_user(f"p{i}") for i in range(3)]
    table = seat_all([*people, bot], bots_allowed=True)
    Table.objects.filter(pk=table.pk).update(rated=True)  # whatever made it rated
    start_seated(people[0], table)
    assert not Table.objects.get(pk=table.pk).rated


def test_a_bot_account_creates_no_table(bot: User) -> None:
    with pytest.raises(services.ServiceError) as refused:
        services.create_table(bot, "4-reyes")
    assert refused.value.code == "no_bot_accounts"


# «Mis bots» ----------------------------------------------------------------------------------
def test_an_owner_makes_a_bot_and_a_token_shown_once_then_revokes_it(owner: User) -> None:
    client = login(owner)
    assert client.post("/cuentas/bots/nuevo/", {"username": "Trasto"}).status_code == 302
    bot = User.objects.get(username="Trasto")
    assert bot.bot_owner == owner
    page = client.post("/cuentas/bots/Trasto/tokens/", {"name": "casa", "days": "30"})
    token = BotToken.objects.get(user=bot)
    raw = page.content.decode().split('class="bot-token">')[1].split("<")[0]
    assert bot_accounts.authenticate(raw) == token and token.expires_at is not None
    assert raw not in client.get("/cuentas/bots/").content.decode()  # never shown again
    client.post(f"/cuentas/bots/tokens/{token.pk}/revocar/")
    assert bot_accounts.authenticate(raw) is None


def test_nobody_but_the_owner_makes_tokens_for_a_bot(bot: User) -> None:
    other = login(make_user("otra"))
    assert other.post("/cuentas/bots/Trasto/tokens/", {"name": "x"}).status_code == 404
    token, raw = bot_accounts.issue_token(bot)
    other.post(f"/cuentas/bots/tokens/{token.pk}/revocar/")
    assert bot_accounts.authenticate(raw) is not None


def test_a_bot_account_is_named_with_its_owner_on_its_profile_and_at_tables(bot: User) -> None:
    page = Client().get("/jugadores/Trasto/").content.decode()
    assert "bot de \u2068dueña\u2069" in page or "bot de <bdi>dueña</bdi>" in page
    table = seat_all([make_user(f"p{i}") for i in range(3)] + [bot], bots_allowed=True)
    seat = table.seats.select_related("user").get(seat=3)
    assert labels.seat_label(seat) == "Trasto (bot de dueña)"
    assert labels.seat_label({"name": "Trasto", "bot_of": "dueña"}) == "Trasto (bot de dueña)"


# «Retar» -------------------------------------------------------------------------------------
def test_a_person_challenges_a_bot_which_lists_and_accepts_it_at_its_seat(bot: User) -> None:
    _token, raw = bot_accounts.issue_token(bot)
    person = make_user("retadora")
    client = login(person)
    assert 'action="/invitaciones/retar/"' in client.get("/jugadores/Trasto/").content.decode()
    answer = client.post(
        "/invitaciones/retar/", {"to": "Trasto", "mode": "8-reyes", "como": "pareja"}
    )
    table = Table.objects.get(host=person)
    assert answer.status_code == 302 and table.bots_allowed and table.private and not table.rated
    listed = api(raw, "/api/bot/retos/").json()
    assert [(c["table"], c["mode"], c["seat"]) for c in listed] == [(table.pk, "8-reyes", 2)]
    accepted = api(raw, f"/api/bot/retos/{listed[0]['id']}/aceptar/", "post").json()
    assert accepted["id"] == table.pk and accepted["seat"] == 2
    assert api(raw, "/api/bot/retos/").json() == []


def test_a_bot_declines_a_challenge(bot: User) -> None:
    _token, raw = bot_accounts.issue_token(bot)
    invitation = services.invitations.challenge(make_user("retadora"), bot, "4-reyes")
    assert invitation.seat == 1  # a rival's seat by default
    assert api(raw, f"/api/bot/retos/{invitation.pk}/rechazar/", "post").json() == {"ok": True}
    refused = api(raw, f"/api/bot/retos/{invitation.pk}/aceptar/", "post")
    assert refused.status_code == 400 and refused.json()["error"] == "answered"


@pytest.mark.parametrize("case", ["person", "site_bot", "blocked_by_owner", "rate"])
def test_a_challenge_is_refused(bot: User, owner: User, case: str, settings: Any) -> None:
    person = make_user("retadora")
    target = bot
    if case == "person":
        target = make_user("humana")
    elif case == "site_bot":
        target = User.objects.filter(is_bot=True).first()
    elif case == "blocked_by_owner":
        relations.block(owner, person)
    elif case == "rate":
        for _ in range(5):
            services.invitations.check_rate(person)
    with pytest.raises(services.ServiceError) as refused:
        services.invitations.challenge(person, target, "4-reyes")
    expected = {
        "person": "not_bot_account",
        "site_bot": "not_bot_account",
        "blocked_by_owner": "blocked",
        "rate": "invitation_rate",
    }
    assert refused.value.code == expected[case]


def test_a_bot_account_never_reaches_quick_play_or_a_friends_invitation(bot: User) -> None:
    """The ways into rated games that do not go through a table that admits bots."""
    assert services.queue.refusal(bot).code == "bot"  # type: ignore[union-attr]
    person = make_user("amiga")
    relations.follow(person, bot)
    services.create_table(person, "4-reyes")
    for kind, mode in (("mesa", ""), ("pareja", "4-reyes")):
        with pytest.raises(services.ServiceError) as refused:
            services.invitations.send(person, bot, kind, mode)
        assert refused.value.code == "bot"


def test_quick_play_seats_no_bot_account_and_any_deal_with_one_is_unrated(bot: User) -> None:
    people = [make_user(f"p{i}") for i in range(3)]
    with pytest.raises(services.ServiceError) as refused:
        services.seat_four([*people, bot], "4-reyes")
    assert refused.value.code == "no_bot_accounts"
    table = seat_all([*people, make_user("p3")])
    assert table.rated
    Seat.objects.filter(table=table, seat=3).update(user=bot)  # however it came to sit there
    start_seated(people[0], table)
    assert not Table.objects.get(pk=table.pk).rated
