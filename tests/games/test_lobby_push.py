"""The lobby pushed over `/ws/sala/` (games.services.lobby): rendered once per language and per
change by the beat task, only what changed sent, the whole of it to a socket that connects."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from accounts import relations
from accounts.models import User
from games import services, tasks
from games.models import Table
from games.services import lobby, presence
from musweb.asgi import application
from tests.factories import login, seat_all, start_seated, started_table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_stored_lobby() -> Iterator[None]:
    lobby.forget()
    yield
    lobby.forget()


def lobby_socket(query: str = "lang=es", origin: str = "http://localhost") -> WebsocketCommunicator:
    headers = [(b"host", b"localhost"), (b"origin", origin.encode())]
    return WebsocketCommunicator(application, f"/ws/sala/?{query}", headers=headers)


async def opened(query: str = "lang=es") -> WebsocketCommunicator:
    comm = lobby_socket(query)
    connected, _ = await comm.connect()
    assert connected
    return comm


async def next_message(comm: WebsocketCommunicator) -> dict[str, Any]:
    return json.loads(await comm.receive_from(timeout=10))


publish = sync_to_async(lobby.publish)


async def test_a_table_created_reaches_a_visitors_lobby_socket(
    make_user: Callable[..., User],
) -> None:
    comm = await opened()
    host = await sync_to_async(make_user)("anfitriona")
    table = await sync_to_async(services.create_table)(host, "8-reyes")
    assert await publish() == 2  # both languages changed
    message = await next_message(comm)
    assert message["type"] == "lobby" and message["full"] and message["v"] == 1
    assert message["open"] == [table.pk] and message["playing"] == []
    card = message["cards"][str(table.pk)]
    assert card["host"] == "anfitriona" and card["mode"] == "Mus · 8 reyes"
    assert card["seats"][0][0] == "anfitriona" and card["seats"][1:] == [None, None, None]
    assert "playing" not in card  # a table waiting for players
    await comm.disconnect()


async def test_only_the_cards_that_changed_are_pushed(make_user: Callable[..., User]) -> None:
    host_a, host_b, guest = [await sync_to_async(make_user)(n) for n in ("ana", "bea", "carla")]
    table_a = await sync_to_async(services.create_table)(host_a, "4-reyes")
    table_b = await sync_to_async(services.create_table)(host_b, "4-reyes")
    await publish()
    comm = await opened()
    whole = await next_message(comm)
    assert whole["full"] and set(whole["cards"]) == {str(table_a.pk), str(table_b.pk)}

    await sync_to_async(services.take_seat)(guest, table_b.pk, 2)
    await publish()
    update = await next_message(comm)
    assert not update.get("full") and update["v"] == whole["v"] + 1
    assert set(update["cards"]) == {str(table_b.pk)}  # table A did not change
    assert update["cards"][str(table_b.pk)]["seats"][2][0] == "carla"
    assert "online" not in update
    assert "open" not in update and "playing" not in update  # the order did not change

    assert await publish() == 0  # nothing changed: nothing sent
    assert await comm.receive_nothing(timeout=0.3)
    await comm.disconnect()


async def test_a_started_table_moves_to_the_games_in_play_and_a_closed_one_leaves(
    make_user: Callable[..., User],
) -> None:
    players = [await sync_to_async(make_user)(f"p{i}") for i in range(4)]
    table = await sync_to_async(seat_all)(players)
    other = await sync_to_async(services.create_table)(await sync_to_async(make_user)(), "4-reyes")
    await publish()
    comm = await opened()
    assert set((await next_message(comm))["open"]) == {table.pk, other.pk}

    await sync_to_async(start_seated)(players[0], table)
    await publish()
    update = await next_message(comm)
    assert update["open"] == [other.pk] and update["playing"] == [table.pk]
    assert update["cards"][str(table.pk)]["playing"] is True

    await sync_to_async(services.close_table)(other.host, other.pk)
    await publish()
    update = await next_message(comm)
    assert update["open"] == [] and "playing" not in update  # only the open tables changed
    assert "cards" not in update  # a card gone is said by the order alone
    await comm.disconnect()


async def test_each_socket_gets_the_lobby_in_its_language(make_user: Callable[..., User]) -> None:
    await sync_to_async(services.create_table)(await sync_to_async(make_user)(), "4-reyes")
    await publish()
    spanish, english, unknown = (
        await opened("lang=es"),
        await opened("lang=en"),
        await opened("lang=xx"),
    )
    es, en, fallback = [await next_message(c) for c in (spanish, english, unknown)]
    assert [card["mode"] for card in es["cards"].values()] == ["Mus · 4 reyes"]
    assert [card["mode"] for card in en["cards"].values()] == ["Mus · 4 kings"]
    assert "conectado" in es["online_title"] and "online" in en["online_title"]
    assert fallback == es  # a language the site does not have: the site's own
    for comm in (spanish, english, unknown):
        await comm.disconnect()


async def test_private_tables_and_per_person_things_are_never_pushed(
    make_user: Callable[..., User],
) -> None:
    host = await sync_to_async(make_user)("reservada")
    private = await sync_to_async(services.create_table)(host, "4-reyes", private=True)
    public = await sync_to_async(services.create_table)(await sync_to_async(make_user)(), "4-reyes")
    await publish()
    comm = await opened()
    message = await next_message(comm)
    text = json.dumps(message)
    assert private.pk not in message["open"] and str(private.pk) not in message["cards"]
    assert private.invite_token not in text and "reservada" not in text
    # The same cards for everybody: no session's CSRF token in them.
    assert "csrfmiddlewaretoken" not in text
    assert message["open"] == [public.pk] and str(public.pk) in message["cards"]
    await comm.disconnect()


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("not json", "malformed"),
        ("x" * 600, "malformed"),
        ('{"type": "act", "act": "mus"}', "unknown_type"),
        ("[1, 2]", "unknown_type"),
    ],
)
async def test_bad_frames_get_an_error_and_the_socket_stays_open(frame: str, code: str) -> None:
    comm = await opened()
    await comm.send_to(text_data=frame)
    error = await next_message(comm)
    assert error["type"] == "error" and error["code"] == code and error["message"]
    await comm.send_to(text_data='{"type": "ping"}')
    assert await next_message(comm) == {"type": "pong"}
    await comm.disconnect()


async def test_a_socket_from_another_site_is_refused() -> None:
    comm = lobby_socket(origin="http://evil.example")
    connected, _ = await comm.connect()
    assert not connected


async def test_the_beat_task_pushes_the_lobby(make_user: Callable[..., User]) -> None:
    comm = await opened()
    table = await sync_to_async(services.create_table)(await sync_to_async(make_user)(), "4-reyes")
    assert await sync_to_async(lambda: tasks.push_lobby.apply().get())() == 2
    assert (await next_message(comm))["open"] == [table.pk]
    await comm.disconnect()


# --- The page: what stays each viewer's own. -------------------------------------------------


def test_the_page_shows_the_forms_to_sit_only_to_whoever_may_sit(
    make_user: Callable[..., User],
) -> None:
    table = services.create_table(make_user(), "4-reyes")
    signed_in = login(make_user()).get("/").content.decode()
    anonymous = Client().get("/").content.decode()
    assert 'id="lobby-live" data-lobby-socket="/ws/sala/?lang=es" data-may-sit' in signed_in
    assert "data-may-sit" not in anonymous
    # The form is in both (the cards are the same for everybody); the page's style shows it to
    # whoever may sit, and the server refuses the rest anyway.
    assert f"/mesas/{table.pk}/sentarse/" in anonymous


def test_the_friends_box_is_asked_for_again_only_by_who_follows_somebody(
    make_user: Callable[..., User],
) -> None:
    me, friend = make_user("yo"), make_user("amiga")
    page = login(me).get("/").content.decode()
    assert 'id="lobby-friends"' in page and "parte=amigos" not in page
    relations.follow(me, friend)
    page = login(me).get("/").content.decode()
    assert "?parte=amigos" in page and 'hx-trigger="every 30s"' in page
    box = login(me).get("/?parte=amigos", headers={"HX-Request": "true"}).content.decode()
    assert box.lstrip().startswith('<div id="lobby-friends"') and "lobby-open" not in box
    assert Client().get("/?parte=amigos", headers={"HX-Request": "true"}).status_code == 204


def test_the_refreshed_friends_box_keeps_the_play_as_partners_buttons(
    make_user: Callable[..., User],
) -> None:
    """The box asked for again every 30 s is the box of the whole page: «Jugar de pareja» and
    its mode buttons do not vanish at the first refresh."""
    me, friend = make_user("yo"), make_user("amiga")
    relations.follow(me, friend)
    presence.touch(friend.pk)
    page = login(me).get("/").content.decode()
    box = login(me).get("/?parte=amigos", headers={"HX-Request": "true"}).content.decode()
    buttons = 'name="mode" value="'
    assert page.count(buttons) >= 2 and "pair-invite" in box
    assert box.count(buttons) == 2
    start = page.index('<div id="lobby-friends"')
    in_page = page[start : page.index("</section>", start)]
    assert in_page.count(buttons) == box.count(buttons)


def test_the_lobby_page_and_the_push_show_the_same_card_data(
    make_user: Callable[..., User],
) -> None:
    table = services.create_table(make_user("misma"), "4-reyes")
    lobby.publish()
    stored = json.loads(presence.client().get(lobby.snapshot_key("es")) or b"{}")
    response = Client().get("/")
    (item,) = response.context["open_tables"]
    assert stored["cards"][str(table.pk)] == item["card"]
    # The page carries the card's skeleton once, for its script (the browser test checks that
    # a card built from it is the card the page renders).
    page = response.content.decode()
    assert page.count('id="lobby-card-skeleton"') == 1
    assert 'href="/mesas/0/"' in page and 'action="/mesas/0/sentarse/"' in page


def test_a_pushed_card_is_a_few_hundred_bytes(make_user: Callable[..., User]) -> None:
    players = [make_user(f"jugador_largo_{i}") for i in range(4)]
    table = seat_all(players)
    lobby.publish()
    stored = json.loads(presence.client().get(lobby.snapshot_key("es")) or b"{}")
    assert len(json.dumps(stored["cards"][str(table.pk)])) < 300  # the HTML card was ~1,100


async def test_a_score_that_changes_is_pushed_alone_not_with_its_card(
    make_user: Callable[..., User],
) -> None:
    players = [await sync_to_async(make_user)(f"s{i}") for i in range(4)]
    table = await sync_to_async(started_table)(players)
    await publish()
    comm = await opened()
    whole = await next_message(comm)
    assert whole["scores"] == {str(table.pk): "0 – 0"}
    assert "0 – 0" not in json.dumps(whole["cards"])

    await sync_to_async(Table.objects.filter(pk=table.pk).update)(scores=[2, 5])
    await publish(time.time() + settings.MUS_LOBBY_AMBIENT_SECONDS)
    update = await next_message(comm)
    assert update == {"type": "lobby", "v": whole["v"] + 1, "scores": {str(table.pk): "2 – 5"}}
    await comm.disconnect()


async def test_scores_alone_wait_for_their_interval_and_go_with_the_next_change(
    make_user: Callable[..., User],
) -> None:
    players = [await sync_to_async(make_user)(f"w{i}") for i in range(4)]
    table = await sync_to_async(started_table)(players)
    start = time.time()
    await publish(start)
    comm = await opened()
    whole = await next_message(comm)

    await sync_to_async(Table.objects.filter(pk=table.pk).update)(scores=[4, 0])
    assert await publish(start + settings.MUS_LOBBY_AMBIENT_SECONDS - 1) == 0
    assert await comm.receive_nothing(timeout=0.3)

    # A new table is pushed at once, and the score that waited goes with it.
    other = await sync_to_async(services.create_table)(await sync_to_async(make_user)(), "4-reyes")
    assert await publish(start + 1) == 2
    update = await next_message(comm)
    assert update["v"] == whole["v"] + 1 and update["open"] == [other.pk]
    assert update["scores"] == {str(table.pk): "4 – 0"}
    assert "playing" not in update

    # The stored lobby has it too: a page that connects now sees 4 – 0.
    late = await opened()
    assert (await next_message(late))["scores"] == {str(table.pk): "4 – 0"}
    await comm.disconnect()
    await late.disconnect()


async def test_one_relay_per_process_hands_each_viewer_its_languages_lobby(
    make_user: Callable[..., User],
) -> None:
    got: dict[str, list[dict[str, Any]]] = {}

    def viewer(key: str) -> Callable[[str], Any]:
        async def send(text: str) -> None:
            got.setdefault(key, []).append(json.loads(text))

        return send

    keys = [f"{language}-{i}" for language in ("es", "en") for i in range(60)]
    for key in keys:
        lobby.watch(key, key[:2], viewer(key))
    await asyncio.sleep(0.2)  # the relay listening
    await sync_to_async(services.create_table)(await sync_to_async(make_user)(), "4-reyes")
    await publish()
    for _ in range(100):  # handed out in batches, over up to a second
        if len(got) == len(keys):
            break
        await asyncio.sleep(0.05)
    assert sorted(got) == sorted(keys)
    assert all(len(messages) == 1 for messages in got.values())
    assert "Mus · 4 reyes" in str(got["es-0"][0]["cards"])
    assert "Mus · 4 kings" in str(got["en-59"][0]["cards"])
    for key in keys:
        lobby.unwatch(key)


async def test_the_lobby_lists_only_the_newest_games_in_play(
    make_user: Callable[..., User], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lobby, "PLAYING_LENGTH", 2)
    tables = []
    for n in range(3):
        players = [await sync_to_async(make_user)(f"n{n}{i}") for i in range(4)]
        tables.append(await sync_to_async(started_table)(players))
    waiting = await sync_to_async(services.create_table)(
        await sync_to_async(make_user)(), "4-reyes"
    )
    await publish()
    comm = await opened()
    whole = await next_message(comm)
    await comm.disconnect()
    newest = [tables[2].pk, tables[1].pk]
    assert whole["playing"] == newest and whole["open"] == [waiting.pk]
    assert set(whole["cards"]) == {str(pk) for pk in [*newest, waiting.pk]}
    page = await sync_to_async(lambda: Client().get("/").content.decode())()
    assert f'data-table="{tables[0].pk}"' not in page and f'data-table="{tables[1].pk}"' in page


async def test_many_cards_changing_at_once_reach_the_viewers_a_few_per_update(
    make_user: Callable[..., User], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lobby, "MOST_CARDS", 2)
    await publish()
    comm = await opened()
    whole = await next_message(comm)
    hosts = [await sync_to_async(make_user)(f"h{i}") for i in range(3)]
    tables = [await sync_to_async(services.create_table)(h, "4-reyes") for h in hosts]
    newest = [t.pk for t in reversed(tables)]

    assert await publish() == 2
    first = await next_message(comm)
    assert first["v"] == whole["v"] + 1
    assert first["open"] == newest[:2] and set(first["cards"]) == {str(pk) for pk in newest[:2]}
    # A page that connects now gets what the viewers were sent, not more.
    late = await opened()
    assert (await next_message(late))["open"] == newest[:2]

    assert await publish() == 2
    second = await next_message(comm)
    assert second["open"] == newest and set(second["cards"]) == {str(newest[2])}
    assert await publish() == 0
    await comm.disconnect()
    await late.disconnect()


async def test_who_is_online_alone_waits_like_the_scores(make_user: Callable[..., User]) -> None:
    start = time.time()
    await publish(start)
    comm = await opened()
    whole = await next_message(comm)
    arriving = await sync_to_async(make_user)("recien_llegada")
    await sync_to_async(presence.touch)(arriving.pk)
    assert await publish(start + 1) == 0  # the number online changed, nothing else
    assert await comm.receive_nothing(timeout=0.3)
    assert await publish(start + settings.MUS_LOBBY_AMBIENT_SECONDS) == 2
    update = await next_message(comm)
    assert (
        update["v"] == whole["v"] + 1 and ["recien_llegada", "recien_llegada"] in update["online"]
    )
    assert "open" not in update and "cards" not in update
    await comm.disconnect()


async def test_games_in_play_alone_wait_and_a_waiting_table_goes_at_once(
    make_user: Callable[..., User],
) -> None:
    host, guest = await sync_to_async(make_user)("espera"), await sync_to_async(make_user)("sienta")
    waiting = await sync_to_async(services.create_table)(host, "4-reyes")
    start = time.time()
    await publish(start)
    comm = await opened()
    whole = await next_message(comm)

    # A game that starts elsewhere changes only the games in play: it waits.
    players = [await sync_to_async(make_user)(f"g{i}") for i in range(4)]
    game = await sync_to_async(started_table)(players)
    assert await publish(start + 1) == 0
    assert await comm.receive_nothing(timeout=0.3)

    # A seat taken at a waiting table goes at once, and the game in play with it.
    await sync_to_async(services.take_seat)(guest, waiting.pk, 1)
    assert await publish(start + 2) == 2
    update = await next_message(comm)
    assert update["v"] == whole["v"] + 1 and update["playing"] == [game.pk]
    assert set(update["cards"]) == {str(waiting.pk), str(game.pk)}
    assert update["cards"][str(waiting.pk)]["seats"][1][0] == "sienta"

    # A game that ends leaves the list when the interval has passed.
    await sync_to_async(Table.objects.filter(pk=game.pk).update)(status=Table.Status.FINISHED)
    assert await publish(start + 3) == 0
    assert await publish(start + 2 + settings.MUS_LOBBY_AMBIENT_SECONDS) == 2
    assert (await next_message(comm))["playing"] == []
    await comm.disconnect()
