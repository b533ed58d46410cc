"""Who opens a socket, read on the event loop.

Channels' `AuthMiddleware` reads the session and then the user through its one sync thread, two
queries per socket opened, behind whatever else that thread is doing: in a storm of sockets (a
restart, games ending at many tables) every handshake queued there (docs/performance.md). This
does the same on the event loop's own database connections (`services.adb`), for the sessions
signed in with a model backend (the site's); anything else goes to Channels' way.

What it decides is Channels' (and Django's) rule: a session that exists and has not expired,
whose backend is configured, whose user the backend would load (active, not banned), and whose
password hash still matches. One difference: a session whose hash no longer matches is left as
it is (Channels flushes it); it signs nothing in either way, and expires.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from channels.auth import AuthMiddleware
from channels.db import database_sync_to_async
from channels.sessions import CookieMiddleware, SessionMiddleware
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, load_backend
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import AnonymousUser
from django.contrib.sessions.models import Session
from django.db import DEFAULT_DB_ALIAS, connection
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from accounts import bot_accounts
from accounts.models import User

from .services import adb, bot_api


class EventLoopAuthMiddleware(AuthMiddleware):
    async def resolve_scope(self, scope: dict[str, Any]) -> None:
        user = await user_here(scope["session"])
        if user is None:
            await super().resolve_scope(scope)
        else:
            scope["user"]._wrapped = user


def EventLoopAuthMiddlewareStack(inner: Any) -> Any:
    return CookieMiddleware(SessionMiddleware(EventLoopAuthMiddleware(inner)))


async def user_here(session: Any) -> Any | None:
    """The user `session` signs in, or AnonymousUser; None when Channels must decide (a backend
    that loads users its own way)."""
    if settings.SESSION_ENGINE != "django.contrib.sessions.backends.db":
        return None
    key = session.session_key
    if not key:
        return AnonymousUser()
    row = await adb.fetch_one(_session_sql(), [key, timezone.now()])
    if row is None:
        return AnonymousUser()
    data = session.decode(row[0])
    session._session_cache = data  # read once: the consumers read the session's invitations
    try:
        user_id = User._meta.pk.to_python(data[SESSION_KEY])
        backend_path = data[BACKEND_SESSION_KEY]
    except (KeyError, ValueError):
        return AnonymousUser()
    if backend_path not in settings.AUTHENTICATION_BACKENDS:
        return AnonymousUser()
    backend = load_backend(backend_path)
    if not isinstance(backend, ModelBackend) or type(backend).get_user is not ModelBackend.get_user:
        return None
    row = await adb.fetch_one(_user_sql(), [user_id])
    if row is None:
        return AnonymousUser()
    user = User.from_db(DEFAULT_DB_ALIAS, _user_fields(), list(row))
    if not backend.user_can_authenticate(user):
        return AnonymousUser()
    session_hash = data.get(HASH_SESSION_KEY)
    if not (session_hash and constant_time_compare(session_hash, user.get_session_auth_hash())):
        return AnonymousUser()
    return user


@cache
def _session_sql() -> str:
    table = connection.ops.quote_name(Session._meta.db_table)
    return f"SELECT session_data FROM {table} WHERE session_key = %s AND expire_date > %s"


@cache
def _user_fields() -> list[str]:
    return [field.attname for field in User._meta.concrete_fields]


@cache
def _user_sql() -> str:
    qn = connection.ops.quote_name
    columns = ", ".join(qn(field.column) for field in User._meta.concrete_fields)
    return f"SELECT {columns} FROM {qn(User._meta.db_table)} WHERE {qn('id')} = %s"


class BearerTokenRouter:
    """A WebSocket handshake with `Authorization: Bearer <token>` is a bot's (docs/bot-api.md):
    it goes to `bots`, signed in by its token alone (no cookie, no session, and no `Origin`
    check: a browser cannot set that header, so the token is no ambient credential a page could
    borrow). Every other handshake goes to `browsers`.

    An unusable token, or one over its connections' rate, still reaches the consumer, with the
    close code to refuse it with in `scope["bot_refusal"]`, so the client can read why."""

    def __init__(self, *, bots: Any, browsers: Any) -> None:
        self.bots = bots
        self.browsers = browsers

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        header = next(
            (value for name, value in scope.get("headers", []) if name == b"authorization"), None
        )
        scheme = b"" if header is None else header.strip().partition(b" ")[0]
        if scheme.lower() != b"bearer":
            return await self.browsers(scope, receive, send)
        raw = bot_accounts.bearer(header.decode("latin-1")) or ""  # type: ignore[union-attr]
        token, refusal = await database_sync_to_async(bot_api.admit_socket)(raw)
        scope = {
            **scope,
            "user": AnonymousUser() if token is None else token.user,
            "session": None,
            "bot_token_id": None if token is None else token.pk,
            "bot_refusal": refusal,
        }
        return await self.bots(scope, receive, send)
