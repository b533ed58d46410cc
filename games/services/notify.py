"""Messages to one player wherever they are on the site.

Every page of a signed-in player holds a socket (`/ws/jugador/`, `games.player_consumer`) that
listens to the player's own group (`accounts.sockets.user_group`, which their table sockets join
too): invitations, quick play finding them a table, and the like reach them there. A message is sent once the change that caused it is committed, with its words
in the player's own language.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import override

from accounts.models import User
from accounts.sockets import user_group

from .groups import send_group

#: The group message the player's page sockets relay as it is (its `message`); their table
#: sockets, in the same group, leave it to them.
PLAYER_MESSAGE = "player.message"


def queue_group(mode: str) -> str:
    """The queue pages of the players waiting in a mode (how many are waiting)."""
    return f"queue-{mode}"


def tell(user: User, message: dict[str, Any], text: Any = None) -> None:
    """Send `message` to every page `user` has open, once committed; `text` (a translatable
    message, or a function making one: formatting must happen in the player's language) goes
    in as `message["message"]`, in the player's language."""
    if text is not None:
        with override(user.language or "es"):
            message = {**message, "message": str(text() if callable(text) else text)}
    payload = {"type": PLAYER_MESSAGE, "message": message}
    transaction.on_commit(lambda: send_group(user_group(user.pk), payload))


def tell_queue(mode: str, message: dict[str, Any]) -> None:
    """Send `message` to the queue pages of `mode`, once committed."""
    payload = {"type": PLAYER_MESSAGE, "message": message}
    transaction.on_commit(lambda: send_group(queue_group(mode), payload))
