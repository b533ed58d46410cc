"""A player's open sockets as the accounts app knows them: one channel-layer group per player,
which every socket of theirs joins (the table socket, `games.consumers`; the socket every page
opens, `games.player_consumer`), and the message that asks each of them to check its session
again. Every consumer in the group handles every message sent to it: this one, the blocks'
(`relations.BLOCKS_CHANGED`) and the messages for the player's pages
(`games.services.notify.PLAYER_MESSAGE`).

Sent after whatever may have ended a session: a log-out, a password change or reset, a ban. Each
socket then asks `session_verdict` whether its own session still signs it in, and closes if not
(docs/protocol.md gives the close codes): a log-out closes that session's sockets, a password
change every other session's, a reset or a ban all of them.
"""

from __future__ import annotations

from importlib import import_module

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY
from django.db import transaction
from django.utils.crypto import constant_time_compare

from .models import User

#: The group message; the consumer handles it as `account_changed`.
ACCOUNT_CHANGED = "account.changed"

#: Why a socket's session no longer signs it in.
SIGNED_OUT = "signed_out"
BANNED = "banned"


def user_group(user_id: int) -> str:
    """Every open socket of one player, whatever page or table it belongs to."""
    return f"user-{user_id}"


def recheck_sockets(user_id: int) -> None:
    """Once the current transaction commits (so the sockets see the change), ask every socket
    of the player to check its session."""

    def send() -> None:
        layer = get_channel_layer()
        if layer is not None:
            async_to_sync(layer.group_send)(user_group(user_id), {"type": ACCOUNT_CHANGED})

    transaction.on_commit(send)


def session_verdict(session_key: str | None, user_id: int) -> str | None:
    """None while the stored session `session_key` still signs in `user_id` (as Django would
    read it for a page); else why not: `BANNED`, or `SIGNED_OUT` (the session ended, or the
    password changed since it was made, or the account is gone or deactivated)."""
    user = User.objects.filter(pk=user_id).first()
    if user is None or not user.is_active:
        return SIGNED_OUT
    if user.is_banned:
        return BANNED
    if not session_key:
        return SIGNED_OUT
    data = import_module(settings.SESSION_ENGINE).SessionStore(session_key).load()
    if str(data.get(SESSION_KEY)) != str(user.pk):
        return SIGNED_OUT
    stored = str(data.get(HASH_SESSION_KEY) or "")
    hashes = (user.get_session_auth_hash(), *user.get_session_auth_fallback_hash())
    if not any(constant_time_compare(stored, h) for h in hashes):
        return SIGNED_OUT
    return None
