"""Table chat: validation, rate limit and delivery (issue: moderation, chat and security)."""

from __future__ import annotations

import unicodedata
from collections.abc import Generator
from functools import cache
from typing import Any

from django.db import connection
from django.utils.translation import gettext_lazy as _

from accounts.models import Block, User

from ..models import ChatMessage, Table
from . import ratelimit
from .errors import ServiceError, no_table
from .executor import Step
from .groups import group_name, send_group
from .pipeline import reading
from .storage import seat_number

MAX_LENGTH = 300
#: Combining marks kept on one letter (after NFC, which makes most accented letters one
#: character): enough for any language's accents, too few to stack «zalgo» over the next lines.
MAX_MARKS = 2
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
    text = _fewer_marks(" ".join(unicodedata.normalize("NFC", text).split()))
    if not text:
        raise ServiceError("empty_chat", _("El mensaje está vacío."))
    if len(text) > MAX_LENGTH:
        raise ServiceError(
            "chat_too_long", _("El mensaje es demasiado largo (máximo 300 caracteres).")
        )
    return text


def _fewer_marks(text: str) -> str:
    """`text` with at most `MAX_MARKS` combining marks on each character (the rest dropped)."""
    kept: list[str] = []
    marks = 0
    for ch in text:
        if unicodedata.category(ch)[0] == "M":
            marks += 1
            if marks > MAX_MARKS:
                continue
        else:
            marks = 0
        kept.append(ch)
    return "".join(kept)


def _within_rate(user_id: int) -> bool:
    return ratelimit.within_rate("chat", user_id, RATE_COUNT, RATE_WINDOW_SECONDS)


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
    # `user_id` (not part of the message) lets each socket leave out a player it blocks.
    event = {"type": "table.chat", "message": message.to_message(), "user_id": user.pk}
    send_group(group_name(table_id), event)
    return message


def recent(
    table_id: int, reader: int | None
) -> Generator[Step, Any, tuple[list[dict[str, Any]], set[int]]]:
    """The latest lines of the table's chat for a socket joining, but those of whom `reader`
    blocks; and whom they block (`accounts.relations.blocked_ids`), in two reads (steps for the
    pipeline's executors: `pipeline.run`, `pipeline.run_on_loop`)."""
    hidden: set[int] = set()
    if reader is not None:
        (blocked,) = yield from reading(Step("fetch", (_blocked_sql(), [reader])))
        hidden = set(blocked)
    rows = yield from reading(Step("fetch", (_history_sql(), [table_id, list(hidden)], True)))
    recent = [
        ChatMessage(
            id=pk,
            seat=seat,
            text=text,
            created_at=created_at,
            user=User(id=author, username=username, display_name=display_name),
        )
        for pk, seat, text, created_at, author, username, display_name in rows
    ]
    return [m.to_message() for m in reversed(recent)], hidden


@cache
def _blocked_sql() -> str:
    block = connection.ops.quote_name(Block._meta.db_table)
    return f"SELECT coalesce(array_agg(blocked_id), '{{}}') FROM {block} WHERE blocker_id = %s"


@cache
def _history_sql() -> str:
    qn = connection.ops.quote_name
    return (
        "SELECT m.id, m.seat, m.text, m.created_at, u.id, u.username, u.display_name "
        f"FROM {qn(ChatMessage._meta.db_table)} m JOIN {qn(User._meta.db_table)} u "
        "ON u.id = m.user_id WHERE m.table_id = %s AND NOT (m.user_id = ANY(%s)) "
        f"ORDER BY m.created_at DESC, m.id DESC LIMIT {HISTORY}"
    )
