"""Cancelling pending invitations that no longer hold: a block between the two players, or a
table invitation whose sender has left (or been kicked from) that table.

Its own module so that `tables` (kicks, leaving) and `invitations` (which sits people through
`tables`) can both use it. The recipient's pages drop the notice (`invitation_closed`, status
`cancelada`); the sender is told nothing: they blocked, left or were kicked themselves, or were
blocked, which nobody is told.
"""

from __future__ import annotations

from django.db.models import Q, QuerySet

from ..models import Invitation
from .notify import tell


def cancel(invitations: QuerySet[Invitation]) -> int:
    """Cancel those of `invitations` still pending (inside the caller's transaction); how many."""
    rows = list(
        invitations.filter(status=Invitation.Status.PENDING)
        .select_for_update(of=("self",))
        .select_related("recipient")
    )
    Invitation.objects.filter(pk__in=[row.pk for row in rows]).update(
        status=Invitation.Status.CANCELLED
    )
    for row in rows:
        row.status = Invitation.Status.CANCELLED
        tell(
            row.recipient,
            {"type": "invitation_closed", "id": row.pk, "status": Invitation.Status.CANCELLED},
        )
    return len(rows)


def between(a_id: int, b_id: int) -> int:
    """Every pending invitation between two players, either way (one has blocked the other)."""
    return cancel(
        Invitation.objects.filter(
            Q(sender_id=a_id, recipient_id=b_id) | Q(sender_id=b_id, recipient_id=a_id)
        )
    )


def on_block(sender: object, blocker_id: int, blocked_id: int, **kwargs: object) -> None:
    """`accounts.relations.blocked`: the two players' invitations end with the block."""
    between(blocker_id, blocked_id)


def to_table_from(user_id: int, table_id: int) -> int:
    """The invitations `user_id` sent to `table_id` (they are no longer seated there)."""
    return cancel(
        Invitation.objects.filter(sender_id=user_id, table_id=table_id, kind=Invitation.Kind.TABLE)
    )
