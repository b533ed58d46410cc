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
    #: No channel of its own: the lobby reaches it through its process's relay, and a channel
    #: would be a receive pending on channels_redis for every viewer, beside the tables' own.
    #: An alias with no layer configured gives the consumer none (`get_channel_layer`).
    channel_layer_alias = "lobby-sockets-need-no-channel"
    language: str = "es"
    watching: bool = False
    key: str = ""

    async def connect(self) -> None:
        query = parse_qs(self.scope.get("query_string", b"").decode())
        asked = (query.get("lang") or [""])[0]
        self.language = asked if asked in lobby.languages() else lobby.languages()[0]
        await self.accept()
        # Listen first: a change pushed while the lobby is read arrives after it (or is one
        # the page already has).
        self.key = f"lobby-{id(self)}"
        lobby.watch(self.key, self.language, self.send_text)
        self.watching = True
        snapshot = await lobby.snapshot(self.language)
        if snapshot is not None:
            await self.send(text_data=snapshot)

    async def send_text(self, text: str) -> None:
        await self.send(text_data=text)

    async def disconnect(self, code: int) -> None:
        if self.watching:
            lobby.unwatch(self.key)
