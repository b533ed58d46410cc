"""Sessions: made without a log-in form (load-test clients, tests), and ended for a player."""

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.utils import timezone

from .models import User
from .sockets import recheck_sockets


def new_session_key(user: User) -> str:
    """A new database session in which `user` is logged in, as Django's `login()` makes it."""
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "accounts.backends.ActiveAccountBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return session.session_key


def session_cookie(user: User) -> str:
    """The `Cookie` header value carrying a new session of `user`."""
    return f"{settings.SESSION_COOKIE_NAME}={new_session_key(user)}"


def end_sessions(user: User, *, keep: str | None = None) -> int:
    """Delete every stored session signed in as `user` but the one keyed `keep`; return how
    many. (Sessions are signed data, not columns: every live one is read.)"""
    wanted = str(user.pk)
    ended = 0
    for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator():
        if session.session_key == keep:
            continue
        try:
            data = session.get_decoded()
        except Exception:  # pragma: no cover - a corrupt session is simply not the user's
            continue
        if str(data.get(SESSION_KEY)) == wanted:
            session.delete()
            ended += 1
    return ended


def password_changed(user: User, *, keep: str | None = None) -> int:
    """After `user`'s password changed: end their sessions but `keep` (the one that changed it,
    which Django's `update_session_auth_hash` carried over) and have their open sockets check
    theirs. Returns how many sessions ended."""
    ended = end_sessions(user, keep=keep)
    recheck_sockets(user.pk)
    return ended
