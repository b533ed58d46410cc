"""Quick play for players' bot accounts (issue #36, docs/bot-api.md «Quick play for bots»): bots
join, poll and leave through the API, wait in a pool of their own, sit down four at a time at a
table for the bots ladder, and answer to the same no-show rules as people."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from accounts import bot_accounts
from accounts.models import BotToken, User
from games import hooks, services
from games.hooks import RatingLabel
from games.models import QueueDodge, QueuedPlayer, QueueEntry, Seat, Table
from games.services import bot_queue, queue
from rankings.services import ladder_of
from tests.factories import UserFactory, login, make_user, play_out

pytestmark = pytest.mark.django_db
MODE = "4-reyes"
QUEUE = "/api/bot/cola/"


@pytest.fixture
def owner() -> User:
    return make_user("dueña")


@pytest.fixture
def bots(owner: User) -> list[tuple[User, str]]:
    """Five bot accounts of two owners, each with a token: (account, token)."""
    other = make_user("otro")
    made = []
    for i in range(5):
        bot = bot_accounts.create_bot_account(owner if i < 3 else other, f"Trasto{i}")
        made.append((bot, bot_accounts.issue_token(bot)[1]))
    return made


def api(raw: str | None, path: str = QUEUE, method: str = "get", **data: Any) -> Any:
    headers = {} if raw is None else {"Authorization": f"Bearer {raw}"}
    client = Client(enforce_csrf_checks=True)
    if method == "post":
        return client.post(path, data, content_type="application/json", headers=headers)
    return client.get(path, headers=headers)


def join(raw: str, mode: str = MODE) -> Any:
    return api(raw, QUEUE + "entrar/", "post", mode=mode)


def four_seated(bots: list[tuple[User, str]]) -> Table:
    for _bot, raw in bots[:3]:
        assert join(raw).json()["table"] is None
    answer = join(bots[3][1]).json()
    assert answer["queued"] is False and answer["table"] is not None
    return Table.objects.get(pk=answer["table"]["id"])


def arrive(table: Table, users: list[User]) -> None:
    """As a socket at the table does: the seat stops waiting for its player."""
    Seat.objects.filter(table=table, user__in=users).update(
        disconnected_at=None, reconnect_deadline=None, connections=1, arrived=True
    )


# Joining, polling, leaving ---------------------------------------------------------------------
def test_a_bot_joins_polls_and_leaves_the_queue_through_the_api(
    bots: list[tuple[User, str]],
) -> None:
    _bot, raw = bots[0]
    answer = join(raw)
    assert answer.status_code == 200
    body = answer.json()
    assert body["queued"] is True and body["mode"] == MODE and body["table"] is None
    assert body["waiting"] == 1 and body["hold_seconds"] == 30 and body["since"].endswith("Z")
    assert api(raw).json()["queued"] is True
    assert join(raw).json()["since"] == body["since"]  # joining again keeps its place
    left = api(raw, QUEUE + "salir/", "post")
    assert left.json() == {"ok": True, "left": True}
    assert api(raw).json() == {"queued": False, "table": None}
    assert api(raw, QUEUE + "salir/", "post").json() == {"ok": True, "left": False}


def test_joining_asks_for_a_known_mode_and_one_mode_at_a_time(
    bots: list[tuple[User, str]],
) -> None:
    raw = bots[0][1]
    assert join(raw, "mus-loco").json()["error"] == "unknown_mode"
    join(raw, "4-reyes")
    refused = join(raw, "8-reyes")
    assert refused.status_code == 400 and refused.json()["error"] == "already_queued"


@pytest.mark.parametrize(
    "case", ["unknown", "none", "human", "human_session", "banned", "inactive"]
)
def test_the_queue_refuses_whatever_is_not_a_usable_bot_token(
    bots: list[tuple[User, str]], owner: User, case: str
) -> None:
    bot, raw = bots[0]
    client = Client()
    if case == "unknown":
        raw = raw[:-4] + "abcd"
    elif case == "human":  # a token row on a person's account (never issued by the site)
        BotToken.objects.filter(user=bot).update(user=owner)
    elif case == "human_session":  # a person's signed-in browser, without a token
        client = login(owner)
    elif case == "banned":
        User.objects.filter(pk=bot.pk).update(banned_at=timezone.now())
    elif case == "inactive":
        User.objects.filter(pk=bot.pk).update(is_active=False)
    headers = {} if case in ("none", "human_session") else {"Authorization": f"Bearer {raw}"}
    for path in (QUEUE, QUEUE + "entrar/", QUEUE + "salir/"):
        call = client.get if path == QUEUE else client.post
        answer = call(path, {"mode": MODE}, headers=headers)
        assert answer.status_code == 401 and answer.json()["error"] == "bad_token"
    assert not QueuedPlayer.objects.exists()


def test_joining_is_rate_limited_per_token_and_per_bot(
    bots: list[tuple[User, str]], settings: Any
) -> None:
    settings.BOT_API_REQUESTS_PER_MINUTE = 3
    raw = bots[0][1]
    assert [api(raw).status_code for _ in range(4)] == [200, 200, 200, 429]
    assert join(raw).json()["error"] == "rate_limited"
    settings.BOT_API_REQUESTS_PER_MINUTE = 60
    settings.MUS_QUEUE_JOINS = 2
    raw = bots[1][1]
    for _ in range(2):
        join(raw)
        api(raw, QUEUE + "salir/", "post")
    assert join(raw).json()["error"] == "queue_rate"


def test_a_seated_bot_may_not_queue(bots: list[tuple[User, str]]) -> None:
    bot, raw = bots[0]
    table = services.create_table(make_user("anfitriona"), MODE, bots_allowed=True)
    services.take_seat(bot, table.pk, 1)
    refused = join(raw)
    assert refused.status_code == 400 and refused.json()["error"] == "already_seated"


def test_a_bot_that_stops_polling_leaves_the_queue(bots: list[tuple[User, str]]) -> None:
    (_stale, stale_raw), (fresh, fresh_raw) = bots[:2]
    join(stale_raw)
    join(fresh_raw)
    past = timezone.now() - timedelta(seconds=1)
    QueueEntry.objects.update(hold_until=past)
    api(fresh_raw)  # asking holds its place again
    assert queue.drop_leavers() == 1
    assert list(QueuedPlayer.objects.values_list("user_id", flat=True)) == [fresh.pk]


# Matching --------------------------------------------------------------------------------------
def test_four_bots_sit_down_at_a_quick_table_for_the_bots_ladder_only(
    bots: list[tuple[User, str]],
) -> None:
    table = four_seated(bots)
    assert table.status == Table.Status.PLAYING and table.quick and table.bots_allowed
    assert not table.rated and table.unrated_reason == Table.UnratedReason.BOTS
    assert sorted(table.seats.values_list("user_id", flat=True)) == sorted(
        b.pk for b, _raw in bots[:4]
    )
    for _bot, raw in bots[:4]:  # each learns its table by asking
        answer = api(raw).json()
        assert answer["queued"] is False and answer["table"]["id"] == table.pk
        assert answer["table"]["socket"] == f"/ws/mesas/{table.pk}/"
    assert not QueueEntry.objects.exists()
    assert ladder_of(play_out(table)) == "b4-reyes"


def test_bots_and_people_wait_apart(bots: list[tuple[User, str]]) -> None:
    people = UserFactory("persona").many(3)
    for person in people:
        assert queue.join(person, MODE) is None
    for _bot, raw in bots[:3]:
        join(raw)
    assert not Table.objects.exists()  # six waiting, in two pools of three
    assert queue.waiting(MODE) == 3 and bot_queue.waiting(MODE) == 3
    table = four_seated([*bots[:3], bots[3]])
    assert not table.seats.filter(user__in=people).exists()
    assert queue.waiting(MODE) == 3 and bot_queue.waiting(MODE) == 0


def test_a_bot_never_enters_the_peoples_queue_nor_a_person_the_bots(
    bots: list[tuple[User, str]],
) -> None:
    with pytest.raises(services.ServiceError) as refused:
        queue.join(bots[0][0], MODE)
    assert refused.value.code == "bot"
    person = make_user("persona")
    with pytest.raises(services.ServiceError) as refused:
        bot_queue.join(person, MODE)
    assert refused.value.code == "not_bot_account"
    assert login(person).post(QUEUE + "entrar/", {"mode": MODE}).status_code == 401
    assert not QueuedPlayer.objects.exists()


def test_the_bots_pool_matches_on_the_bots_ladder(
    bots: list[tuple[User, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each bot's rating for the matcher is its bots-ladder one: a bot 900 points apart there
    waits while the other four sit down."""
    asked: list[str] = []

    def provider(pairs: Any) -> dict[tuple[int, str], RatingLabel]:
        pairs = list(pairs)
        asked.extend(ladder for _user, ladder in pairs)
        far = bots[0][0].pk
        return {p: RatingLabel(2400 if p[0] == far else 1500, False) for p in pairs}

    monkeypatch.setattr(hooks, "_ratings", [provider])
    for _bot, raw in bots:
        join(raw)
    assert set(asked) == {"b4-reyes"}
    table = Table.objects.get()
    assert bots[0][0].pk not in table.seats.values_list("user_id", flat=True)
    assert list(QueuedPlayer.objects.values_list("user_id", flat=True)) == [bots[0][0].pk]


# Showing up ------------------------------------------------------------------------------------
def test_a_bot_that_never_comes_to_its_quick_table_is_charged_a_dodge(
    bots: list[tuple[User, str]],
) -> None:
    table = four_seated(bots)
    arrive(table, [b for b, _raw in bots[:3]])
    assert queue.cancel_no_shows() == 0  # SHOW_UP_SECONDS to come
    late = timezone.now() - timedelta(seconds=queue.SHOW_UP_SECONDS + 1)
    Table.objects.filter(pk=table.pk).update(started_at=late)
    assert queue.cancel_no_shows() == 1
    table.refresh_from_db()
    assert table.status == Table.Status.CANCELLED
    assert table.cancel_reason == Table.CancelReason.NO_SHOW
    assert list(QueueDodge.objects.values_list("user_id", flat=True)) == [bots[3][0].pk]


def test_a_bot_that_leaves_once_seated_but_before_coming_dodged(
    bots: list[tuple[User, str]],
) -> None:
    table = four_seated(bots)
    arrive(table, [b for b, _raw in bots[1:4]])
    assert api(bots[0][1], QUEUE + "salir/", "post").json() == {"ok": True, "left": True}
    table.refresh_from_db()
    assert table.cancel_reason == Table.CancelReason.NO_SHOW
    assert list(QueueDodge.objects.values_list("user_id", flat=True)) == [bots[0][0].pk]


def test_repeated_dodges_suspend_a_bot_from_quick_play(bots: list[tuple[User, str]]) -> None:
    bot, raw = bots[0]
    QueueDodge.objects.bulk_create(QueueDodge(user=bot) for _ in range(2))
    refused = join(raw)
    assert refused.status_code == 400 and refused.json()["error"] == "queue_suspended"
