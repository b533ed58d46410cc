"""The table WebSocket (`/ws/mesas/<id>/`, docs/protocol.md).

The consumer only parses, calls `games.services` and replies: every rule lives in the engine and
every change in the service layer.
"""

from __future__ import annotations

import json
from typing import Any

from channels.consumer import get_handler_name
from channels.db import DatabaseSyncToAsync
from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils.translation import gettext as _
from django.utils.translation import override

from . import chat, services

MAX_MESSAGE_BYTES = 4096


def database_sync_to_async(fn: Any) -> Any:
    """Run ORM code in Channels' one shared sync thread.

    Measured with the load test: a thread pool (`thread_sensitive=False`) lets several threads
    fight the event loop for the GIL and made latency worse (docs/performance.md).
    """
    return DatabaseSyncToAsync(fn, thread_sensitive=True)


ACTION_FIELDS = {"type", "v", "act", "to", "cards"}


class TableConsumer(AsyncWebsocketConsumer):
    table_id: int
    seat_key: str
    language: str

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' `dispatch` without its `aclose_old_connections()` before every message.

        That call is a trip through the one sync thread for each frame received and each state
        relayed (four per move at a table), the largest single cost under load
        (docs/performance.md). Nothing here touches Django's connections on the event loop: every
        ORM call goes through `database_sync_to_async`, which closes old connections around it.
        """
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def call(self, fn: Any, *args: Any) -> Any:
        """Run a service function in a worker thread, then send the group messages it made."""

        def run() -> tuple[Any, BaseException | None, list[tuple[str, dict[str, Any]]]]:
            with services.collect_group_messages() as messages:
                try:
                    return fn(*args), None, messages
                except services.ServiceError as exc:
                    return None, exc, messages

        result, error, messages = await database_sync_to_async(run)()
        for group, message in messages:
            await self.channel_layer.group_send(group, message)
        if error is not None:
            raise error
        return result

    async def connect(self) -> None:
        user = self.scope.get("user")
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.joined = self.counted = False
        if user is None or not user.is_authenticated:
            await self.close(code=4401)
            return
        # Two trips through the sync thread, not four: a server restart reconnects every socket
        # at once, and each trip waits behind all the others.
        if not await self.call(self._enter, user):
            await self.close(code=4403)
            return
        self.counted = True
        await self.accept()
        # The others were told first (in _enter), then we join: this socket gets its own fresh
        # state just below, and joining after the announcement spares it a duplicate. A change
        # made in between is in that fresh state, so nothing is missed.
        await self.channel_layer.group_add(services.group_name(self.table_id), self.channel_name)
        self.joined = True
        state, past = await database_sync_to_async(self._welcome)()
        if state is not None:
            await self.send(text_data=json.dumps(state))
        await self.send(text_data=json.dumps({"type": "chat_history", "messages": past}))

    def _enter(self, user: Any) -> bool:
        """May this user watch or play here? If so, count the connection (presence)."""
        table = services.load_table(self.table_id)
        if table is None:
            return False
        token = self.scope.get("session", {}).get(f"invite-{self.table_id}")
        if not services.can_see(table, user, token):
            return False
        seat = services.seat_number(table, user.pk)
        self.seat_key = "-" if seat is None else str(seat)
        self.language = getattr(user, "language", "") or "es"
        services.player_connected(self.table_id, user)
        return True

    def _welcome(self) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        return self._state(), chat.history(self.table_id)

    async def disconnect(self, code: int) -> None:
        if getattr(self, "joined", False):
            await self.channel_layer.group_discard(
                services.group_name(self.table_id), self.channel_name
            )
        if getattr(self, "counted", False):
            await self.call(services.player_disconnected, self.table_id, self.scope["user"])

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if text_data is None:
            await self.send_error("malformed", _("Solo se aceptan mensajes JSON de texto."))
            return
        if len(text_data) > MAX_MESSAGE_BYTES or len(text_data.encode()) > MAX_MESSAGE_BYTES:
            await self.send_error("too_long", _("Mensaje demasiado largo."))
            return
        try:
            message = json.loads(text_data)
        except ValueError:
            await self.send_error("malformed", _("El mensaje no es JSON válido."))
            return
        if not isinstance(message, dict):
            await self.send_error("malformed", _("El mensaje debe ser un objeto JSON."))
            return
        kind = message.get("type")
        if kind == "action":
            await self.handle_action(message)
        elif kind == "chat":
            await self.handle_chat(message)
        elif kind == "ping":
            await self.send(text_data=json.dumps({"type": "pong"}))
        elif kind == "sync":
            await self.send_state()
        else:
            await self.send_error("unknown_type", _("Tipo de mensaje desconocido."))

    async def handle_action(self, message: dict[str, Any]) -> None:
        unknown = set(message) - ACTION_FIELDS
        if unknown:
            await self.send_error("malformed", _("Campos desconocidos en la acción."))
            return
        payload = {k: v for k, v in message.items() if k not in ("type", "v")}
        args = (self.scope["user"], self.table_id, message.get("v"), payload)
        try:
            # Most moves never leave the event loop; the end of a game and tables with bots go
            # through the sync thread (services.act_async says which).
            if not await services.act_async(*args):
                await self.call(services.act, *args)
        except services.ServiceError as exc:
            await self.send_error(exc.code, exc.message)

    async def handle_chat(self, message: dict[str, Any]) -> None:
        if set(message) - {"type", "text"}:
            await self.send_error(
                "malformed", _("Campos desconocidos en el mensaje de chat."), with_state=False
            )
            return
        try:
            await self.call(chat.post, self.scope["user"], self.table_id, message.get("text"))
        except services.ServiceError as exc:
            await self.send_error(exc.code, exc.message, with_state=False)

    async def send_error(self, code: str, message: Any, *, with_state: bool = True) -> None:
        with override(getattr(self, "language", "es")):
            text = str(message)
        await self.send(text_data=json.dumps({"type": "error", "code": code, "message": text}))
        if with_state and getattr(self, "joined", False):
            await self.send_state()

    async def send_state(self) -> None:
        state = await database_sync_to_async(self._state)()
        if state is not None:
            await self.send(text_data=json.dumps(state))

    def _state(self) -> dict[str, Any] | None:
        table = services.load_table(self.table_id)
        if table is None:
            return None
        seat = services.seat_number(table, self.scope["user"].pk)
        self.seat_key = "-" if seat is None else str(seat)
        return services.build_states(table, (self.seat_key,))[self.seat_key]

    async def table_chat(self, event: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(event["message"]))

    # Group messages -------------------------------------------------------------------------
    async def table_state(self, event: dict[str, Any]) -> None:
        # Seats change before the start: find this player's seat again in every message.
        key = event["seat_of"].get(self.scope["user"].username, "-")
        self.seat_key = key
        await self.send(text_data=services.state_text(event, key))

    async def user_banned(self, event: dict[str, Any]) -> None:
        """A moderator banned a player (accounts.moderation.ban): close that player's socket."""
        user = self.scope.get("user")
        if user is not None and user.pk == event.get("user_id"):
            await self.close(code=4403)
