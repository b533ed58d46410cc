"""Signed-in sessions made without a log-in form (load-test clients, tests)."""

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore

from .models import User


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
