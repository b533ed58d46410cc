"""The lobby's socket (`/ws/sala/?lang=es`, docs/protocol.md): the public tables and who is
online, as `games.services.lobby` pushes them (through one relay per process, not a channel
per socket). Open to anybody, signed in or not: it carries only
what the lobby page shows every visitor, so it is routed outside the session and user look-up
(`musweb.asgi`) and costs no database query to open.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from .consumers import ListeningConsumer
from .services import lobby


class LobbyConsumer(ListeningConsumer):
    language: str = "es"
    watching: bool = False

    async def connect(self) -> None:
        query = parse_qs(self.scope.get("query_string", b"").decode())
        asked = (query.get("lang") or [""])[0]
        self.language = asked if asked in lobby.languages() else lobby.languages()[0]
        await self.accept()
        # Listen first: a change pushed while the lobby is read arrives after it (or is one
        # the page already has).
        lobby.watch(self.channel_name, self.language, self.send_text)
        self.watching = True
        snapshot = await lobby.snapshot(self.language)
        if snapshot is not None:
            await self.send(text_data=snapshot)

    async def send_text(self, text: str) -> None:
        await self.send(text_data=text)

    async def disconnect(self, code: int) -> None:
        if self.watching:
            lobby.unwatch(self.channel_name)
