"""Players the host took off a table: they do not sit there again (the invitation their session
may hold notwithstanding), and their waiting room tells them why."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _

from ..models import Kick, Table
from .errors import ServiceError


def record(table: Table, user_id: int) -> None:
    """`user_id` was taken off `table` (inside the kick's transaction)."""
    Kick.objects.get_or_create(table=table, user_id=user_id)


def was_kicked(table: Table, user: Any) -> bool:
    return bool(
        user is not None
        and user.is_authenticated
        and Kick.objects.filter(table=table, user_id=user.pk).exists()
    )


def refuse_if_kicked(table: Table, user: Any) -> None:
    if was_kicked(table, user):
        raise ServiceError("kicked", _("El anfitrión te ha sacado de esta mesa."))
