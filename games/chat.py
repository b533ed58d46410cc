"""Table chat: validation, rate limit and delivery (issue: moderation, chat and security)."""

from __future__ import annotations

import time
import unicodedata
import uuid
from typing import Any

from django.conf import settings
from django.utils.translation import gettext_lazy as _

from accounts.models import User

from . import presence
from .models import ChatMessage, Table
from .services import ServiceError, group_name, seat_number, send_group

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


def _within_rate(user_id: int) -> bool:
    """Sliding window in Redis, shared by every daphne process."""
    key = f"{settings.CACHES['default']['KEY_PREFIX']}:chat-rate:{user_id}"
    now = time.time()
    client = presence._client()
    pipe = client.pipeline()
    pipe.zremrangebyscore(key, 0, now - RATE_WINDOW_SECONDS)
    pipe.zcard(key)
    _removed, count = pipe.execute()
    if count >= RATE_COUNT:
        return False
    pipe = client.pipeline()
    pipe.zadd(key, {f"{now}:{uuid.uuid4().hex[:8]}": now})
    pipe.expire(key, RATE_WINDOW_SECONDS + 1)
    pipe.execute()
    return True


def post(user: User, table_id: int, raw: Any) -> ChatMessage:
    table = Table.objects.filter(pk=table_id).only("pk", "status").first()
    if table is None:
        raise ServiceError("no_table", _("Esa mesa no existe."))
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
