"""Table chat: validation, rate limit and delivery (issue: moderation, chat and security)."""

from __future__ import annotations

import time
import unicodedata
import uuid
from functools import cache
from typing import Any

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from redis.commands.core import Script

from accounts.models import User

from ..models import ChatMessage, Table
from . import presence
from .errors import ServiceError, no_table
from .groups import group_name, send_group
from .storage import seat_number

MAX_LENGTH = 300
RATE_COUNT = 5
RATE_WINDOW_SECONDS = 10
HISTORY = 50
QUICK_PHRASES = [
    _("¡Bien jugado!"),
    _("Buena mano"),
    _("¡Vaya suerte!"),
    _("Gracias"),
    _("¡Suerte!"),
    _("Un momento, por favor"),
]


def clean_text(raw: Any) -> str:
    if not isinstance(raw, str):
        raise ServiceError("bad_chat", _("El mensaje de chat debe ser texto."))
    # Control characters (other than spaces) have no business in a chat line.
    text = "".join(
        ch if unicodedata.category(ch)[0] != "C" else " " for ch in raw.replace("\n", " ")
    )
    text = " ".join(text.split())
    if not text:
        raise ServiceError("empty_chat", _("El mensaje está vacío."))
    if len(text) > MAX_LENGTH:
        raise ServiceError(
            "chat_too_long", _("El mensaje es demasiado largo (máximo 300 caracteres).")
        )
    return text


# One atomic step in Redis (a script runs alone): with a check and an add in two trips, lines
# sent in parallel all passed the check before any of them was added.
_RATE_SCRIPT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, ARGV[1] - ARGV[2])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[2] + 1)
return 1
"""


@cache
def _rate_script() -> Script:
    return presence.client().register_script(_RATE_SCRIPT)


def _within_rate(user_id: int) -> bool:
    """Sliding window in Redis, shared by every daphne process."""
    key = f"{settings.CACHES['default']['KEY_PREFIX']}:chat-rate:{user_id}"
    script = _rate_script()
    member = uuid.uuid4().hex
    return bool(script(keys=[key], args=[time.time(), RATE_WINDOW_SECONDS, RATE_COUNT, member]))


def post(user: User, table_id: int, raw: Any) -> ChatMessage:
    table = Table.objects.filter(pk=table_id).only("pk", "status").first()
    if table is None:
        raise no_table()
    seat = seat_number(table, user.pk)
    if seat is None:
        raise ServiceError("not_seated", _("Solo los jugadores de la mesa pueden escribir."))
    # The socket's user was loaded when it connected: a mute since then must still count.
    user = User.objects.get(pk=user.pk)
    if user.is_muted:
        raise ServiceError("muted", _("Un moderador te ha silenciado: no puedes escribir."))
    text = clean_text(raw)
    if not _within_rate(user.pk):
        raise ServiceError("chat_rate", _("Demasiados mensajes seguidos: espera unos segundos."))
    message = ChatMessage.objects.create(table=table, user=user, seat=seat, text=text)
    send_group(group_name(table_id), {"type": "table.chat", "message": message.to_message()})
    return message


def history(table_id: int) -> list[dict[str, Any]]:
    recent = (
        ChatMessage.objects.filter(table_id=table_id)
        .select_related("user")
        .order_by("-created_at", "-pk")[:HISTORY]
    )
    return [m.to_message() for m in reversed(recent)]
