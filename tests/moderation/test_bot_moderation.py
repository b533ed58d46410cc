"""Staff and players' bot accounts (issue #36): revoking a bot's tokens from the admin, in the
audit log; a ban keeps a bot out like anybody."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from accounts import bot_accounts
from accounts.models import User
from moderation import actions
from moderation.models import ModerationAction
from tests.factories import make_user

from .support import action_post

pytestmark = pytest.mark.django_db


def test_staff_revoke_a_bots_tokens_from_the_admin_in_the_audit_log(admin_client: Client) -> None:
    bot = bot_accounts.create_bot_account(make_user("dueña"), "Trasto")
    _token, raw = bot_accounts.issue_token(bot)
    person = make_user("persona")
    action_post(
        admin_client,
        reverse("admin:accounts_user_changelist"),
        "revoke_bot_tokens",
        [bot.pk, person.pk],
    )
    assert bot_accounts.authenticate(raw) is None
    entry = ModerationAction.objects.get(kind=ModerationAction.Kind.REVOKE_TOKENS)
    assert entry.target == bot and entry.details == {"tokens_revoked": 1}


def test_a_banned_bot_account_is_refused_by_its_tokens() -> None:
    bot = bot_accounts.create_bot_account(make_user("dueña"), "Trasto")
    _token, raw = bot_accounts.issue_token(bot)
    actions.ban(make_user("moderadora", is_staff=True), bot, "hace trampas")
    assert bot_accounts.authenticate(raw) is None
    answer = Client().get("/api/bot/cuenta/", headers={"Authorization": f"Bearer {raw}"})
    assert answer.status_code == 401
    assert User.objects.get(pk=bot.pk).is_banned


def test_a_banned_players_bots_stop_with_them() -> None:
    owner = make_user("dueña")
    bot = bot_accounts.create_bot_account(owner, "Trasto")
    token, raw = bot_accounts.issue_token(bot)
    actions.ban(make_user("moderadora", is_staff=True), owner, "granja de cuentas")
    assert bot_accounts.authenticate(raw) is None
    assert bot_accounts.token_verdict(token.pk) == "banned"
    actions.unban(None, owner)
    assert bot_accounts.authenticate(raw) is not None
