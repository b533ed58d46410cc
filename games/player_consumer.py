"""The player's socket (`/ws/jugador/`, docs/protocol.md): every page of a signed-in player
opens one, to be told what concerns them wherever they are on the site (invitations, quick play
seating them); the queue page's (`?cola=1`) also holds the player's place in quick play's queue,
which they leave when it closes.

Like the table's consumer it only relays: the service layer decides (`games.services.player_live`).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

from accounts.sockets import user_group

from .consumers import ListeningConsumer, refuse
from .services import live, player_live, queue_group
from .socket_codes import CLOSE_NOT_LOGGED_IN


class PlayerConsumer(ListeningConsumer):
    queue_page: bool = False
    joined: bool = False
    language: str = "es"

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await refuse(self, CLOSE_NOT_LOGGED_IN)
            return
        query = parse_qs(self.scope.get("query_string", b"").decode())
        self.queue_page = query.get("cola") == ["1"]
        # Listen first, so nothing sent while the page is being welcomed is missed. The player's
        # group is the one every socket of theirs joins (`accounts.sockets`): a log-out closes
        # this one too.
        await self.listen(user_group(user.pk))
        welcome = await player_live.join(user, self.channel_name, self.queue_page)
        self.joined = True
        self.language = welcome.language
        if welcome.mode is not None:
            await self.listen(queue_group(welcome.mode))
        await self.accept()
        for message in welcome.messages:
            await self.send(text_data=json.dumps(message))

    async def disconnect(self, code: int) -> None:
        if not self.joined:
            return
        await self.leave_groups()
        if self.queue_page:
            await player_live.leave(self.channel_name)

    async def pinged(self) -> None:
        await player_live.heartbeat(self.scope["user"])

    async def player_message(self, event: dict[str, Any]) -> None:
        """`services.notify.PLAYER_MESSAGE`: relayed as it is."""
        await self.send(text_data=json.dumps(event["message"]))

    async def blocks_changed(self, event: dict[str, Any]) -> None:
        """`accounts.relations.BLOCKS_CHANGED`: for the player's table sockets (the chat)."""

    async def account_changed(self, event: dict[str, Any]) -> None:
        """`accounts.sockets.ACCOUNT_CHANGED`: closes if its session no longer signs it in."""
        code = await live.recheck(self.scope["user"], self.scope.get("session"))
        if code is not None:
            await self.close(code=code)
