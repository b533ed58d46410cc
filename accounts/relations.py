"""Who follows whom (friends) and who blocked whom: the relations between players.

Following is one-way and needs nobody's consent: the players you follow are your friends (the
lobby shows those online, and you may invite them). Blocking a player ends any following between
you two and cancels the invitations pending between you (either way, of every kind: the `blocked`
signal); while it lasts neither of you can invite the other or follow them, and you are shown no
chat line of theirs. The games app asks these functions; the table sockets of the blocker hear of
every change (`BLOCKS_CHANGED` on the player's group, `sockets.user_group`), so a block takes
effect at once in the chat.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.dispatch import Signal
from django.utils.translation import gettext_lazy as _

from . import sockets
from .models import Block, Follow, User

#: The group message telling a player's sockets whom they block now; carries `blocked`, a list
#: of player ids. The table consumer handles it as `blocks_changed` (every consumer in the
#: player's group must handle it).
BLOCKS_CHANGED = "blocks.changed"

#: Sent inside the transaction that makes a block (kwargs: `blocker_id`, `blocked_id`): the
#: apps above cancel, in the same transaction, whatever the two have pending between them
#: (invitations of every kind, either way).
blocked = Signal()


class RelationError(Exception):
    """A refused follow or block: `code` is stable for clients, `message` is for people."""

    def __init__(self, code: str, message: Any) -> None:
        super().__init__(str(message))
        self.code = code
        self.message = message


def _check_other(user: User, other: User, *, self_message: Any) -> None:
    if other.pk == user.pk:
        raise RelationError("self", self_message)
    if other.is_bot:
        raise RelationError("bot", _("Los bots no tienen amigos ni enemigos."))


def follow(user: User, other: User) -> bool:
    """`user` follows `other` (True if they did not already). Refused when either blocks the
    other."""
    _check_other(user, other, self_message=_("No puedes seguirte a ti mismo."))
    if blocked_either_way(user.pk, other.pk):
        raise RelationError("blocked", _("No puedes seguir a este jugador."))
    try:
        with transaction.atomic():
            return Follow.objects.get_or_create(follower=user, followed=other)[1]
    except IntegrityError:
        return False  # followed twice at the same moment (two tabs)


def unfollow(user: User, other: User) -> bool:
    return bool(Follow.objects.filter(follower=user, followed=other).delete()[0])


def block(user: User, other: User) -> bool:
    """`user` blocks `other`: following between them ends both ways."""
    _check_other(user, other, self_message=_("No puedes bloquearte a ti mismo."))
    with transaction.atomic():
        Follow.objects.filter(
            Q(follower=user, followed=other) | Q(follower=other, followed=user)
        ).delete()
        try:
            with transaction.atomic():
                created = Block.objects.get_or_create(blocker=user, blocked=other)[1]
        except IntegrityError:
            created = False
        blocked.send(sender=Block, blocker_id=user.pk, blocked_id=other.pk)
        _tell_sockets(user.pk)
    return created


def unblock(user: User, other: User) -> bool:
    with transaction.atomic():
        removed = bool(Block.objects.filter(blocker=user, blocked=other).delete()[0])
        _tell_sockets(user.pk)
    return removed


def _tell_sockets(user_id: int) -> None:
    """Once committed, tell the player's table sockets whom they block now."""

    def send() -> None:
        layer = get_channel_layer()
        if layer is not None:
            message = {"type": BLOCKS_CHANGED, "blocked": sorted(blocked_ids(user_id))}
            async_to_sync(layer.group_send)(sockets.user_group(user_id), message)

    transaction.on_commit(send)


def follows(user_id: int, other_id: int) -> bool:
    return Follow.objects.filter(follower_id=user_id, followed_id=other_id).exists()


def blocks(user_id: int, other_id: int) -> bool:
    """Has `user_id` blocked `other_id`?"""
    return Block.objects.filter(blocker_id=user_id, blocked_id=other_id).exists()


def blocked_either_way(a_id: int, b_id: int) -> bool:
    return Block.objects.filter(
        Q(blocker_id=a_id, blocked_id=b_id) | Q(blocker_id=b_id, blocked_id=a_id)
    ).exists()


def blocked_pairs(user_ids: Collection[int]) -> set[frozenset[int]]:
    """The pairs of `user_ids` of whom one blocked the other (quick play keeps them apart)."""
    rows = Block.objects.filter(blocker_id__in=user_ids, blocked_id__in=user_ids)
    return {frozenset(pair) for pair in rows.values_list("blocker_id", "blocked_id")}


def blocked_ids(user_id: int) -> set[int]:
    """The players `user_id` blocks (whose chat lines they are not shown)."""
    return set(Block.objects.filter(blocker_id=user_id).values_list("blocked_id", flat=True))


def friends(user_id: int) -> list[User]:
    """The players `user_id` follows, by name."""
    users = User.objects.filter(followers__follower_id=user_id, is_active=True)
    return sorted(users, key=lambda u: u.public_name.lower())


def with_relation(players: QuerySet[User], viewer: Any) -> QuerySet[User]:
    """`players`, each with whether `viewer` follows and blocks them, read in the same query."""
    if not getattr(viewer, "is_authenticated", False):
        return players
    return players.annotate(
        viewer_follows=Exists(
            Follow.objects.filter(follower_id=viewer.pk, followed=OuterRef("pk"))
        ),
        viewer_blocks=Exists(Block.objects.filter(blocker_id=viewer.pk, blocked=OuterRef("pk"))),
    )


def relation(viewer: Any, player: User) -> dict[str, bool]:
    """What the profile of `player` offers `viewer`: whether they follow and block them (read
    with the player by `with_relation`, or now)."""
    if not getattr(viewer, "is_authenticated", False) or viewer.pk == player.pk or player.is_bot:
        return {}
    following = getattr(player, "viewer_follows", None)
    blocking = getattr(player, "viewer_blocks", None)
    return {
        "following": follows(viewer.pk, player.pk) if following is None else following,
        "blocking": blocks(viewer.pk, player.pk) if blocking is None else blocking,
    }
