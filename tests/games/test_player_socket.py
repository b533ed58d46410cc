"""The player's socket (`/ws/jugador/`): every page's notifications, and the queue page holding
the player's place in quick play. Real consumers, the real channel layer (Redis), PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.utils import translation

from accounts import relations
from accounts.models import User
from accounts.names import isolate
from games import services
from games.models import QueuedPlayer, QueueSocket
from games.services import invitations, queue, queue_limits
from games.socket_codes import CLOSE_NOT_LOGGED_IN
from musweb.asgi import application
from tests.factories import UserFactory, login, session_cookie, started_table
from tests.sockets import join as join_table
from tests.sockets import next_of, receive, refused_with

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]
MODE = "4-reyes"


async def page(
    user: User | None, queue_page: bool = False, cookie: str | None = None
) -> WebsocketCommunicator:
    headers = [(b"host", b"localhost"), (b"origin", b"http://localhost")]
    if user is not None:
        cookie = cookie or await database_sync_to_async(session_cookie)(user)
        headers.append((b"cookie", cookie.encode()))
    path = "/ws/jugador/?cola=1" if queue_page else "/ws/jugador/"
    return WebsocketCommunicator(application, path, headers=headers)


async def opened(user: User, queue_page: bool = False) -> WebsocketCommunicator:
    comm = await page(user, queue_page)
    connected, _ = await comm.connect()
    assert connected
    assert (await receive(comm))["type"] == "invitations"
    return comm


@database_sync_to_async
def players(n: int = 5) -> list[User]:
    return UserFactory("s").many(n)


async def test_a_visitor_is_refused(db: None) -> None:
    assert await refused_with(await page(None)) == CLOSE_NOT_LOGGED_IN


async def test_a_log_out_closes_the_pages_of_that_session(db: None) -> None:
    [ana] = await players(1)
    client = await database_sync_to_async(login)(ana)
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    comm = await page(ana, cookie=f"{settings.SESSION_COOKIE_NAME}={key}")
    connected, _ = await comm.connect()
    assert connected
    await receive(comm)
    await database_sync_to_async(client.post)("/cuentas/salir/")
    while (output := await comm.receive_output(timeout=5))["type"] != "websocket.close":
        pass
    assert output["code"] == CLOSE_NOT_LOGGED_IN


async def test_every_page_is_told_the_invitations_waiting_for_an_answer() -> None:
    ana, bea = await players(2)
    await database_sync_to_async(relations.follow)(ana, bea)
    await database_sync_to_async(invitations.send)(ana, bea, "pareja", MODE)
    comm = await page(bea)
    await comm.connect()
    welcome = await receive(comm)
    assert welcome["type"] == "invitations"
    [item] = welcome["items"]
    assert item["from"]["name"] == ana.public_name
    assert item["kind"] == "pareja" and item["mode"] == MODE
    assert item["accept_url"] == f"/invitaciones/{item['id']}/aceptar/"
    await comm.disconnect()


async def test_an_invitation_reaches_the_friend_on_any_page_and_the_answer_its_sender() -> None:
    ana, bea = await players(2)
    await database_sync_to_async(relations.follow)(ana, bea)
    bea_page = await opened(bea)
    ana_page = await opened(ana)
    invitation = await database_sync_to_async(invitations.send)(ana, bea, "pareja", MODE)
    pushed = await next_of(bea_page, "invitation")
    assert pushed["id"] == invitation.pk
    assert pushed["from"]["username"] == ana.username
    await database_sync_to_async(invitations.decline)(bea, invitation.pk)
    answer = await next_of(ana_page, "invitation_answer")
    assert answer["status"] == "rechazada"
    assert answer["message"] == f"{isolate(bea.public_name)} ha rechazado tu invitación."
    assert (await next_of(bea_page, "invitation_closed"))["id"] == invitation.pk
    for comm in (ana_page, bea_page):
        await comm.disconnect()


async def test_each_player_is_told_in_their_own_language() -> None:
    ana, bea = await players(2)
    await User.objects.filter(pk=ana.pk).aupdate(language="en")
    ana = await User.objects.aget(pk=ana.pk)
    await database_sync_to_async(relations.follow)(ana, bea)
    ana_page = await opened(ana)
    invitation = await database_sync_to_async(invitations.send)(ana, bea, "pareja", MODE)
    with translation.override("es"):  # whoever answers, in whatever language
        await database_sync_to_async(invitations.decline)(bea, invitation.pk)
    answer = await next_of(ana_page, "invitation_answer")
    assert answer["message"] == f"{isolate(bea.public_name)} has declined your invitation."
    await ana_page.disconnect()


async def test_the_queue_page_holds_the_place_and_closing_it_lets_go() -> None:
    [ana] = await players(1)
    await database_sync_to_async(queue.join)(ana, MODE)
    comm = await opened(ana, queue_page=True)
    status = await receive(comm)
    assert status["type"] == "queue"
    assert status["mode"] == MODE and status["waiting"] == 1 and status["partner"] is None
    assert status["bots_after"] == queue.BOTS_AFTER_SECONDS
    queued = await database_sync_to_async(QueuedPlayer.objects.get)(user=ana)
    assert queued.sockets == 1
    await comm.disconnect()
    queued = await database_sync_to_async(QueuedPlayer.objects.get)(user=ana)
    assert queued.sockets == 0 and queued.gone_at is not None
    assert not await database_sync_to_async(QueueSocket.objects.exists)()


async def test_other_pages_do_not_hold_a_place_in_the_queue() -> None:
    [ana] = await players(1)
    await database_sync_to_async(queue.join)(ana, MODE)
    comm = await opened(ana)
    assert not await database_sync_to_async(QueueSocket.objects.exists)()
    await comm.disconnect()


async def test_the_queue_page_of_a_player_not_queued_says_so() -> None:
    [ana] = await players(1)
    comm = await opened(ana, queue_page=True)
    left = await receive(comm)
    assert left == {"type": "left", "code": "not_queued", "message": "No estás en la cola."}
    await comm.disconnect()


async def test_the_waiting_see_the_queue_grow_and_are_sent_to_their_table(settings: Any) -> None:
    settings.MUS_QUEUE_SIZE_SECONDS = 0  # every change told at once (coalescing: below)
    people = await players(4)
    pages = []
    for p in people[:3]:
        await database_sync_to_async(queue.join)(p, MODE)
        comm = await opened(p, queue_page=True)
        await next_of(comm, "queue")
        pages.append(comm)
    # The first page heard the second and the third arrive.
    sizes = [(await next_of(pages[0], "queue_size"))["waiting"] for _ in range(2)]
    assert sizes == [2, 3]
    table = await database_sync_to_async(queue.join)(people[3], MODE)
    assert table is not None
    for comm in pages:
        matched = await next_of(comm, "matched")
        assert matched == {"type": "matched", "table": table.pk, "url": f"/mesas/{table.pk}/"}
        await comm.disconnect()


async def test_a_burst_of_joins_and_leaves_tells_the_waiting_a_few_sizes_the_last_one_right(
    settings: Any,
) -> None:
    settings.MUS_QUEUE_SIZE_SECONDS = 1
    settings.MUS_QUEUE_JOINS = 100
    *waiting, restless = await players(3)
    pages = []
    for p in waiting:
        await database_sync_to_async(queue.join)(p, MODE)
        comm = await opened(p, queue_page=True)
        await next_of(comm, "queue")
        pages.append(comm)
    await asyncio.sleep(1.1)  # whatever the arrivals sent is over
    for comm in pages:
        while not await comm.receive_nothing(timeout=0.2):
            await comm.receive_output()
    # 20 joins and 19 leaves in a burst: every one a change of the queue.
    started = time.monotonic()
    for _ in range(19):
        await database_sync_to_async(queue.join)(restless, MODE)
        await database_sync_to_async(queue.leave)(restless)
    await database_sync_to_async(queue.join)(restless, MODE)
    burst = time.monotonic() - started
    await asyncio.sleep(1.1)
    assert await database_sync_to_async(queue_limits.flush_sizes)() == 1  # the clock's sweep
    for comm in pages:
        sizes = []
        while not await comm.receive_nothing(timeout=0.3):
            message = json.loads((await comm.receive_output())["text"])
            if message["type"] == "queue_size":
                sizes.append(message["waiting"])
        # One a second at most, and the one the sweep sends after: not one per change.
        assert 1 <= len(sizes) <= burst + 2, (sizes, burst)
        assert sizes[-1] == 3  # the restless one ended in the queue
        await comm.disconnect()


async def test_a_page_opened_after_the_match_is_sent_to_the_table() -> None:
    people = await players(4)
    table = None
    for p in people:
        table = await database_sync_to_async(queue.join)(p, MODE)
    comm = await opened(people[0], queue_page=True)
    assert (await receive(comm))["url"] == f"/mesas/{table.pk}/"
    await comm.disconnect()


async def test_a_partner_who_leaves_is_told_to_the_other() -> None:
    ana, bea = await players(2)
    await database_sync_to_async(queue.join)(ana, MODE, partner=bea)
    bea_page = await opened(bea, queue_page=True)
    assert (await next_of(bea_page, "queue"))["partner"] == ana.public_name
    await database_sync_to_async(queue.cancel)(ana)
    left = await next_of(bea_page, "left")
    assert left["message"] == "Tu pareja ha salido de la cola."
    await bea_page.disconnect()


async def test_a_bad_frame_gets_an_error_and_the_socket_stays_open() -> None:
    [ana] = await players(1)
    comm = await opened(ana)
    for frame in ("{", "[]", json.dumps({"type": "join"}), "x" * 600):
        await comm.send_to(text_data=frame)
        assert (await receive(comm))["type"] == "error"
    await comm.send_to(text_data=json.dumps({"type": "ping"}))
    assert await receive(comm) == {"type": "pong"}
    await comm.disconnect()


# --------------------------------------------------------------------------------------------
# Blocks at the table: the chat of a blocked player is not shown.
# --------------------------------------------------------------------------------------------
async def chat_lines(comm: Any) -> list[str]:
    lines = []
    while not await comm.receive_nothing(timeout=0.3):
        message = await receive(comm)
        if message["type"] == "chat":
            lines.append(message["text"])
        if message["type"] == "chat_history":
            lines.extend(m["text"] for m in message["messages"])
    return lines


async def test_the_chat_of_a_blocked_player_is_not_shown_to_the_blocker() -> None:
    four = await players(4)
    table = await database_sync_to_async(started_table)(four)
    post = database_sync_to_async(services.chat.post)
    await post(four[1], table.pk, "antes del bloqueo")
    await database_sync_to_async(relations.block)(four[0], four[1])
    blocker = await join_table(table, four[0])
    other = await join_table(table, four[2])
    assert "antes del bloqueo" not in await chat_lines(blocker)
    assert "antes del bloqueo" in await chat_lines(other)
    await post(four[1], table.pk, "sigo aquí")
    await post(four[2], table.pk, "hola")
    assert await chat_lines(blocker) == ["hola"]
    assert await chat_lines(other) == ["sigo aquí", "hola"]
    # Unblocked while the socket is open: shown again from then on.
    await database_sync_to_async(relations.unblock)(four[0], four[1])
    await chat_lines(blocker)
    await post(four[1], table.pk, "de nuevo")
    assert await chat_lines(blocker) == ["de nuevo"]
    for comm in (blocker, other):
        await comm.disconnect()


async def test_a_block_made_while_at_the_table_hides_the_lines_at_once() -> None:
    four = await players(4)
    table = await database_sync_to_async(started_table)(four)
    blocker = await join_table(table, four[0])
    await chat_lines(blocker)
    await database_sync_to_async(relations.block)(four[0], four[3])
    await chat_lines(blocker)
    await database_sync_to_async(services.chat.post)(four[3], table.pk, "pesado")
    assert await chat_lines(blocker) == []
    await blocker.disconnect()
