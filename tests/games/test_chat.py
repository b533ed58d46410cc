"""Table chat over the table's WebSocket."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from channels.db import database_sync_to_async

from accounts.models import User
from games.models import ChatMessage
from games.services import ServiceError, chat
from tests.factories import started_table
from tests.sockets import join, next_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def test_a_chat_line_reaches_everybody_at_the_table_and_is_kept(
    four_players: list[User],
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    sender, other = await join(table, four_players[0]), await join(table, four_players[1])
    await next_of(sender, "chat_history")
    await next_of(other, "chat_history")
    await sender.send_to(text_data=json.dumps({"type": "chat", "text": "  ¡Bien   jugado!  "}))
    for comm in (sender, other):
        line = await next_of(comm, "chat")
        assert line["text"] == "¡Bien jugado!"
        assert line["seat"] == 0 and line["name"] == "p0"
    stored = await database_sync_to_async(list)(ChatMessage.objects.values_list("text", "seat"))
    assert stored == [("¡Bien jugado!", 0)]
    late = await join(table, four_players[2])
    history = await next_of(late, "chat_history")
    assert [m["text"] for m in history["messages"]] == ["¡Bien jugado!"]
    for comm in (sender, other, late):
        await comm.disconnect()


async def test_html_in_a_chat_line_is_kept_as_text_not_markup(four_players: list[User]) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    comm = await join(table, four_players[0])
    await comm.send_to(text_data=json.dumps({"type": "chat", "text": "<script>x()</script>"}))
    line = await next_of(comm, "chat")
    # Delivered verbatim inside JSON; the page renders it with textContent, never as HTML.
    assert line["text"] == "<script>x()</script>"
    await comm.disconnect()


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        ({"text": ""}, "empty_chat"),
        ({"text": "   \n\t "}, "empty_chat"),
        ({"text": "x" * 301}, "chat_too_long"),
        ({"text": 42}, "bad_chat"),
        ({"text": None}, "bad_chat"),
        ({"text": "hola", "seat": 3}, "malformed"),
    ],
)
async def test_it_refuses_a_bad_chat_line(
    four_players: list[User], payload: dict[str, Any], code: str
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    comm = await join(table, four_players[0])
    await comm.send_to(text_data=json.dumps({"type": "chat", **payload}))
    error = await next_of(comm, "error")
    assert error["code"] == code
    assert await database_sync_to_async(ChatMessage.objects.count)() == 0
    await comm.send_to(text_data='{"type": "ping"}')
    assert (await next_of(comm, "pong"))["type"] == "pong"
    await comm.disconnect()


async def test_zalgo_reaches_nobody_only_the_letters_with_two_marks_at_most(
    four_players: list[User],
) -> None:
    """299 combining marks on one letter used to cover the chat of the whole table."""
    table = await database_sync_to_async(started_table)(four_players)
    sender, other = await join(table, four_players[0]), await join(table, four_players[1])
    zalgo = "h" + "\u0301" * 299 + "ola"
    await sender.send_to(text_data=json.dumps({"type": "chat", "text": zalgo}))
    for comm in (sender, other):
        assert (await next_of(comm, "chat"))["text"] == "h\u0301\u0301ola"
    # Accents written as combining marks are kept, as the letters they make.
    await sender.send_to(text_data=json.dumps({"type": "chat", "text": "e\u0301 ñ Ê\u0323"}))
    assert (await next_of(other, "chat"))["text"] == "é ñ Ệ"
    stored = await database_sync_to_async(list)(ChatMessage.objects.values_list("text", flat=True))
    assert stored == ["h\u0301\u0301ola", "é ñ Ệ"]
    for comm in (sender, other):
        await comm.disconnect()


async def test_a_300_character_line_is_accepted(four_players: list[User]) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    comm = await join(table, four_players[0])
    await comm.send_to(text_data=json.dumps({"type": "chat", "text": "a" * 300}))
    assert len((await next_of(comm, "chat"))["text"]) == 300
    await comm.disconnect()


async def test_it_allows_five_lines_in_ten_seconds_and_refuses_the_sixth(
    four_players: list[User],
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    comm = await join(table, four_players[0])
    for i in range(5):
        await comm.send_to(text_data=json.dumps({"type": "chat", "text": f"línea {i}"}))
        assert (await next_of(comm, "chat"))["text"] == f"línea {i}"
    await comm.send_to(text_data=json.dumps({"type": "chat", "text": "una más"}))
    assert (await next_of(comm, "error"))["code"] == "chat_rate"
    assert await database_sync_to_async(ChatMessage.objects.count)() == 5
    await comm.disconnect()


async def test_a_muted_player_cannot_chat(four_players: list[User]) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    await database_sync_to_async(User.objects.filter(pk=four_players[1].pk).update)(muted=True)
    comm = await join(table, four_players[1])
    await comm.send_to(text_data=json.dumps({"type": "chat", "text": "hola"}))
    assert (await next_of(comm, "error"))["code"] == "muted"
    assert await database_sync_to_async(ChatMessage.objects.count)() == 0
    await comm.disconnect()


async def test_an_onlooker_cannot_chat(four_players: list[User], make_user: Any) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    stranger = await database_sync_to_async(make_user)("mirona")
    comm = await join(table, stranger)
    await comm.send_to(text_data=json.dumps({"type": "chat", "text": "hola"}))
    assert (await next_of(comm, "error"))["code"] == "not_seated"
    await comm.disconnect()


async def test_lines_sent_at_the_same_moment_cannot_pass_the_rate_limit_together(
    four_players: list[User],
) -> None:
    """The window is checked and filled in one atomic step: twelve lines posted in parallel
    threads get five through, not one per thread that checked before any was added."""
    table = await database_sync_to_async(started_table)(four_players)
    barrier = threading.Barrier(12)
    results: list[str] = []

    def post(i: int) -> None:
        barrier.wait()
        try:
            chat.post(four_players[0], table.pk, f"línea {i}")
            results.append("ok")
        except ServiceError as exc:
            results.append(exc.code)

    def post_all() -> None:
        threads = [threading.Thread(target=post, args=(i,)) for i in range(12)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    await database_sync_to_async(post_all, thread_sensitive=False)()
    assert results.count("ok") == chat.RATE_COUNT
    assert results.count("chat_rate") == 12 - chat.RATE_COUNT
    assert await database_sync_to_async(ChatMessage.objects.count)() == chat.RATE_COUNT
