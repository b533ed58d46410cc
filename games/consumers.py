"""The table WebSocket (`/ws/mesas/<id>/`, docs/protocol.md).

The consumer only parses frames, makes one call to `games.services.live` per frame and replies:
every rule lives in the engine and every change in the service layer.
"""

from __future__ import annotations

import json
from typing import Any

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import override

from accounts.sockets import user_group

from .services import (
    OUTAGES,
    ServiceError,
    Unavailable,
    group_name,
    live,
    release_channel,
    state_text,
)
from .socket_codes import (
    CLOSE_NOT_FOUND,
    CLOSE_NOT_LOGGED_IN,
    CLOSE_PROTOCOL_ERRORS,
    CLOSE_REFUSED,
    CLOSE_TRY_AGAIN,
)

MAX_MESSAGE_BYTES = 4096
ACTION_FIELDS = {"type", "v", "act", "to", "cards"}
#: The refusals that a well-written client never causes, whatever the table does meanwhile (not
#: `stale`, `conflict` or `not_your_turn`, which a race gives anybody): a bot's socket that
#: collects `BOT_API_PROTOCOL_ERRORS` of them is closed with `CLOSE_PROTOCOL_ERRORS`.
PROTOCOL_ERRORS = frozenset(
    {"malformed", "too_long", "unknown_type", "bad_version", "unknown_act", "rate_limited"}
)


async def refuse(consumer: AsyncWebsocketConsumer, code: int) -> None:
    """Refuse a socket so that the browser learns why: closed before the handshake completes,
    daphne answers HTTP 403 and the page only sees 1006 (and would keep reconnecting); accepted
    and then closed, it gets the close code (docs/protocol.md)."""
    await consumer.accept()
    await consumer.close(code=code)


class RelayingConsumer(AsyncWebsocketConsumer):
    """A consumer whose messages need no database on the event loop."""

    #: The channel-layer groups this socket listens to (`listen`).
    listening: list[str]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Channels' consumer, which leaves its groups and its channel however it ends: closed
        as a message for it arrived, failed or given up on by daphne while being welcomed
        (`services.release_channel`)."""
        self.listening = []
        try:
            await super().__call__(scope, receive, send)
        finally:
            # (no channel when Redis was down as the socket opened: nothing to leave)
            if getattr(self, "channel_name", None):
                await self.leave_groups()
                await release_channel(self.channel_name)

    async def listen(self, group: str) -> None:
        self.listening.append(group)
        await self.channel_layer.group_add(group, self.channel_name)

    async def leave_groups(self) -> None:
        listening, self.listening = self.listening, []
        try:
            for group in listening:
                await self.channel_layer.group_discard(group, self.channel_name)
        except OUTAGES:
            pass  # Redis is down: its subscriptions went with it

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' `dispatch` without its `aclose_old_connections()` before every message.

        That call is a trip through the one sync thread for each frame received and each
        message relayed (four per move at a table, one per lobby viewer per lobby change), the
        largest single cost under load (docs/performance.md). Nothing here touches Django's
        connections on the event loop: the service calls that use the ORM run in the sync
        thread, which closes old connections.
        """
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)


class ListeningConsumer(RelayingConsumer):
    """A socket that only listens (the player's, the lobby's): a ping gets a pong (`pinged`
    first), anything else an error; the socket stays open."""

    max_message_bytes = 512
    language: str = "es"

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            if text_data is None or len(text_data) > self.max_message_bytes:
                raise ValueError
            message = json.loads(text_data)
        except ValueError:
            await self.send_error("malformed", _("Mensaje mal formado."))
            return
        if isinstance(message, dict) and message.get("type") == "ping":
            await self.pinged()
            await self.send(text_data='{"type": "pong"}')
        else:
            await self.send_error("unknown_type", _("Tipo de mensaje desconocido."))

    async def pinged(self) -> None:
        """What a ping means besides its pong."""

    async def send_error(self, code: str, message: Any) -> None:
        with override(self.language):
            text = str(message)
        await self.send(text_data=json.dumps({"type": "error", "code": code, "message": text}))


class TableConsumer(RelayingConsumer):
    table_id: int
    #: The players whose chat lines this socket leaves out (its player blocked them).
    blocked: frozenset[int] = frozenset()
    seat_key: str = "-"
    language: str = "es"
    joined: bool = False
    #: The bot API token that opened this socket (docs/bot-api.md); None for a browser's.
    bot_token_id: int | None = None
    protocol_errors: int = 0

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        if self.scope.get("bot_refusal") is not None:
            await refuse(self, self.scope["bot_refusal"])
            return
        self.bot_token_id = self.scope.get("bot_token_id")
        user = self.scope.get("user")
        # Listen first: whatever changes while this socket is being welcomed reaches it after
        # the welcome (group messages wait until `connect` returns), so nothing is missed; the
        # player's own group too, so a log-out from now on closes it (`account_changed`) and a
        # block takes effect in the chat at once (`blocks_changed`).
        try:
            await self.listen(group_name(self.table_id))
            if user is not None and user.is_authenticated:
                await self.listen(user_group(user.pk))
            welcome = await live.join(
                self.table_id, user, self.scope.get("session"), self.channel_name
            )
        except (Unavailable, *OUTAGES):
            # PostgreSQL or Redis is down: the page keeps trying (and says «Reconectando…»).
            # The socket may have been counted before the failure: uncounted (now, or by this
            # process's next beat when the database is still down).
            await self.leave_groups()
            await live.leave(self.channel_name)
            await refuse(self, CLOSE_TRY_AGAIN)
            return
        except ServiceError as exc:
            await self.leave_groups()
            await refuse(self, CLOSE_NOT_LOGGED_IN if exc.code == "login" else CLOSE_REFUSED)
            return
        self.joined = True
        self.seat_key, self.language = welcome.key, welcome.language
        self.blocked = welcome.blocked
        await self.accept()
        await self.send(text_data=json.dumps(welcome.state))
        await self.send(text_data=json.dumps({"type": "chat_history", "messages": welcome.chat}))

    async def disconnect(self, code: int) -> None:
        if not self.joined:
            return
        await self.leave_groups()
        await live.leave(self.channel_name)

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
        if (
            kind in ("action", "chat")
            and self.bot_token_id is not None
            and not await live.bot_may_act(self.bot_token_id)
        ):
            await self.send_error(
                "rate_limited", _("Demasiadas acciones: espera un poco."), with_state=False
            )
            return
        if kind == "action":
            await self.handle_action(message)
        elif kind == "chat":
            await self.handle_chat(message)
        elif kind == "ping":
            await live.heartbeat(self.scope["user"])
            await self.send(text_data=json.dumps({"type": "pong"}))
        elif kind == "sync":
            if not await self.send_state():  # asked for the table: never silence
                await self.send_error("unavailable", Unavailable().message, with_state=False)
        else:
            await self.send_error("unknown_type", _("Tipo de mensaje desconocido."))

    async def handle_action(self, message: dict[str, Any]) -> None:
        if set(message) - ACTION_FIELDS:
            await self.send_error("malformed", _("Campos desconocidos en la acción."))
            return
        payload = {k: v for k, v in message.items() if k not in ("type", "v")}
        try:
            unsent = await live.submit(self.scope["user"], self.table_id, message.get("v"), payload)
        except ServiceError as exc:
            await self.send_error(exc.code, exc.message)
            return
        if unsent:  # committed, but Redis is down: this socket at least gets its answer
            await self.send_state()

    async def handle_chat(self, message: dict[str, Any]) -> None:
        if set(message) - {"type", "text"}:
            await self.send_error(
                "malformed", _("Campos desconocidos en el mensaje de chat."), with_state=False
            )
            return
        try:
            await live.say(self.scope["user"], self.table_id, message.get("text"))
        except ServiceError as exc:
            await self.send_error(exc.code, exc.message, with_state=False)

    async def send_error(self, code: str, message: Any, *, with_state: bool = True) -> None:
        with override(self.language):
            text = str(message)
        await self.send(text_data=json.dumps({"type": "error", "code": code, "message": text}))
        if self.bot_token_id is not None and code in PROTOCOL_ERRORS:
            self.protocol_errors += 1
            if self.protocol_errors >= settings.BOT_API_PROTOCOL_ERRORS:
                await self.close(code=CLOSE_PROTOCOL_ERRORS)
                return
        if with_state:
            await self.send_state()

    async def send_state(self) -> bool:
        """This socket's state of the table; False when the database could not be read."""
        try:
            state = await live.current_state(self.table_id, self.scope["user"])
        except ServiceError:
            return False  # the database is down: the table is sent again when it is back
        if state is not None:
            await self.send(text_data=json.dumps(state))
        return True

    # Group messages -------------------------------------------------------------------------
    async def table_state(self, event: dict[str, Any]) -> None:
        if event["skip"] == self.channel_name:
            return  # this socket's own arrival: it was welcomed with a fresher state
        # Seats change before the start: find this player's seat again in every message.
        self.seat_key = event["seat_of"].get(str(self.scope["user"].pk), "-")
        await self.send(text_data=state_text(event, self.seat_key))

    async def table_chat(self, event: dict[str, Any]) -> None:
        if event.get("user_id") in self.blocked:
            return  # a player this one blocked
        await self.send(text_data=json.dumps(event["message"]))

    async def blocks_changed(self, event: dict[str, Any]) -> None:
        """`accounts.relations.BLOCKS_CHANGED`: the player blocked or unblocked somebody."""
        self.blocked = frozenset(event["blocked"])

    async def player_message(self, event: dict[str, Any]) -> None:
        """`services.notify.PLAYER_MESSAGE`, for the player's every page: the page's own
        player socket (`/ws/jugador/`) shows it, not the table's."""

    async def account_changed(self, event: dict[str, Any]) -> None:
        """`accounts.sockets.ACCOUNT_CHANGED`: a log-out, a password change or reset, a ban.
        The socket closes if its session no longer signs it in."""
        code = await live.recheck(self.scope["user"], self.scope.get("session"), self.bot_token_id)
        if code is not None:
            await self.close(code=code)


class NoSuchSocket(AsyncWebsocketConsumer):
    """Any other WebSocket path (`/ws/mesas/-1/`): refused with `CLOSE_NOT_FOUND`, not a
    routing error."""

    async def connect(self) -> None:
        await refuse(self, CLOSE_NOT_FOUND)
