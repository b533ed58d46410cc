"""Players' bot accounts and their API tokens (docs/bot-api.md).

A bot account is a player's program: an account of its own, owned by a person (`User.bot_owner`),
marked «bot de <owner>» wherever it shows, that signs in with personal API tokens only (no
password, no session: `ActiveAccountBackend` refuses it) and plays through the bot API. It is
not one of the site's bots (`accounts.bots`, the `is_bot` flag): it may not take their names, and
its games never count for the ladders of people.

Only an account that has never sat at a table becomes a bot account, so no history made as a
person is carried over to a program, and a bot account never turns back into a person's.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from . import names, sockets
from .forms import check_username
from .models import BotToken, User

#: Where the bot API's HTTP endpoints live: the only paths a token works on.
API_PATH = "/api/bot/"
#: What every token starts with, so that a leaked one is recognisable (and greppable).
TOKEN_PREFIX = "mus_"
#: A token's last use is written at most this often (not a write per request).
LAST_USED_EVERY = timedelta(seconds=60)


class Refused(Exception):
    """A refused request about bot accounts: a stable `code` and a message for the player."""

    def __init__(self, code: str, message: object) -> None:
        super().__init__(code)
        self.code = code
        self.message = message


def _check_owner(owner: User) -> None:
    if owner.is_bot or owner.is_bot_account or not owner.may_play:
        raise Refused("not_owner", _("Solo un jugador puede tener cuentas de bot."))


def make_bot_account(account: User, owner: User) -> User:
    """Turn `account`, which has never sat at a table, into a bot account of `owner`."""
    _check_owner(owner)
    with transaction.atomic():
        account = User.objects.select_for_update().get(pk=account.pk)
        if account.pk == owner.pk:
            raise Refused("own_account", _("Tu propia cuenta no puede ser un bot."))
        if account.is_bot or account.is_bot_account:
            raise Refused("already_bot", _("Esa cuenta ya es un bot."))
        if account.is_staff or account.is_superuser:
            raise Refused("staff", _("Una cuenta del equipo no puede ser un bot."))
        if account.seats.exists():
            raise Refused(
                "has_games", _("Solo una cuenta que nunca ha jugado puede convertirse en bot.")
            )
        account.bot_owner = owner
        account.set_unusable_password()  # (ends its sessions too: their hash no longer matches)
        account.email = ""
        account.save()
    sockets.recheck_sockets(account.pk)
    return account


def create_bot_account(owner: User, username: str) -> User:
    """A new account named `username` (the usual name rules), made a bot account of `owner`."""
    _check_owner(owner)
    if owner.bot_accounts.count() >= settings.BOT_ACCOUNTS_PER_OWNER:
        raise Refused("too_many_bots", _("Ya tienes todas las cuentas de bot que se permiten."))
    username = names.normalize(username or "")
    if not username or len(username) > 30:
        raise Refused("bad_name", _("El nombre debe tener entre 1 y 30 caracteres."))
    try:
        check_username(username)
        User.username_validator(username)
    except ValidationError as exc:
        raise Refused("bad_name", exc.messages[0]) from None
    with transaction.atomic():
        account = User(username=username, language=owner.language)
        account.set_unusable_password()
        account.save()
        return make_bot_account(account, owner)


def _digest(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def issue_token(bot: User, name: str = "", days: int | None = None) -> tuple[BotToken, str]:
    """A new token for the bot account `bot`: the row, and the token itself, to show once."""
    if not bot.is_bot_account:
        raise Refused("not_bot_account", _("Solo las cuentas de bot tienen tokens."))
    live = bot.bot_tokens.filter(revoked_at__isnull=True).exclude(expires_at__lte=timezone.now())
    if live.count() >= settings.BOT_TOKENS_PER_ACCOUNT:
        raise Refused("too_many_tokens", _("Este bot ya tiene todos los tokens que se permiten."))
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    expires = None if days is None else timezone.now() + timedelta(days=days)
    token = BotToken.objects.create(
        user=bot,
        name=name[:40],
        key_hash=_digest(raw),
        prefix=raw[:10],
        expires_at=expires,
    )
    return token, raw


def revoke(tokens: QuerySet[BotToken]) -> int:
    """Revoke the tokens of the queryset `tokens`; the sockets they opened close (4401)."""
    rows = list(tokens.filter(revoked_at__isnull=True).values_list("pk", "user_id"))
    BotToken.objects.filter(pk__in=[pk for pk, _user in rows]).update(revoked_at=timezone.now())
    for user_id in {user for _pk, user in rows}:
        sockets.recheck_sockets(user_id)
    return len(rows)


def bearer(header: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, or None."""
    if not header:
        return None
    scheme, _sep, value = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def _may_play(bot: User) -> bool:
    """A bot account plays while it and its owner may: a banned player's programs stop too."""
    owner = bot.bot_owner
    return bot.may_play and owner is not None and owner.may_play


def authenticate(raw: str) -> BotToken | None:
    """The usable token `raw` (its `user` loaded), or None: unknown, revoked or expired, or its
    account is no bot account or may not play (deactivated, banned, or its owner is)."""
    if not raw.startswith(TOKEN_PREFIX) or len(raw) > 100:
        return None
    token = (
        BotToken.objects.select_related("user", "user__bot_owner")
        .filter(key_hash=_digest(raw))
        .first()
    )
    if token is None or not token.is_usable or not _may_play(token.user):
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_EVERY:
        BotToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def token_verdict(token_id: int) -> str | None:
    """For a socket a token opened, as `sockets.session_verdict` for a session's: None while the
    token still signs its bot in, else why not (`sockets.BANNED` or `sockets.SIGNED_OUT`)."""
    token = BotToken.objects.select_related("user", "user__bot_owner").filter(pk=token_id).first()
    if token is None or not token.is_usable or not token.user.is_active:
        return sockets.SIGNED_OUT
    if not _may_play(token.user):
        return sockets.BANNED
    return None
