"""Quick play's queue through the services (games.services.queue): tables start the moment four
compatible players are there, pairs stay together, and every refusal says why."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from django.db import connections
from django.utils import timezone

from accounts.models import User
from games import hooks, services
from games.hooks import RatingLabel
from games.models import (
    Abandonment,
    QueueDodge,
    QueuedPlayer,
    QueueEntry,
    QueueSocket,
    Seat,
    ServerProcess,
    Table,
)
from games.services import queue
from games.services.errors import ServiceError
from tests.factories import UserFactory, ended_table, seat_all, start_seated

pytestmark = pytest.mark.django_db
MODE = "4-reyes"


@pytest.fixture
def players(db: None) -> list[User]:
    return UserFactory("q").many(9)


@pytest.fixture
def ratings(monkeypatch: pytest.MonkeyPatch) -> dict[int, int]:
    """Each player's rating for the matcher (1500 unless a test says otherwise)."""
    chosen: dict[int, int] = {}

    def provider(pairs: Any) -> dict[tuple[int, str], RatingLabel]:
        return {p: RatingLabel(chosen.get(p[0], 1500), False) for p in pairs}

    monkeypatch.setattr(hooks, "_ratings", [provider])
    return chosen


def seated_at(table: Table) -> list[int]:
    return list(table.seats.order_by("seat").values_list("user_id", flat=True))


def refused(code: str, call: Any, *args: Any, **kwargs: Any) -> ServiceError:
    with pytest.raises(ServiceError) as exc:
        call(*args, **kwargs)
    assert exc.value.code == code
    return exc.value


def backdate(user: User, seconds: float) -> None:
    """`user`'s entry started waiting `seconds` earlier."""
    entry = QueueEntry.objects.get(players__user=user)
    QueueEntry.objects.filter(pk=entry.pk).update(
        joined_at=entry.joined_at - timedelta(seconds=seconds)
    )


# --------------------------------------------------------------------------------------------
# Sitting down.
# --------------------------------------------------------------------------------------------
def test_four_newcomers_play_the_moment_the_fourth_arrives(players: list[User]) -> None:
    for p in players[:3]:
        assert queue.join(p, MODE) is None
    assert queue.waiting(MODE) == 3
    table = queue.join(players[3], MODE)
    assert table is not None
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    assert table.quick and table.rated and not table.private and not table.practice
    assert sorted(seated_at(table)) == sorted(p.pk for p in players[:4])
    assert table.record is not None  # dealt
    assert queue.waiting(MODE) == 0
    assert not QueueEntry.objects.exists()


def test_modes_have_their_own_queues(players: list[User]) -> None:
    for p in players[:2]:
        queue.join(p, "4-reyes")
    for p in players[2:4]:
        queue.join(p, "8-reyes")
    assert queue.waiting("4-reyes") == queue.waiting("8-reyes") == 2
    assert not Table.objects.exists()


def test_two_tabs_pressing_jugar_ya_count_once(players: list[User]) -> None:
    assert queue.join(players[0], MODE) is None
    assert queue.join(players[0], MODE) is None
    assert queue.waiting(MODE) == 1


def test_nine_players_make_two_tables_and_the_last_waits(players: list[User]) -> None:
    tables = [t for p in players if (t := queue.join(p, MODE)) is not None]
    assert len(tables) == 2
    assert sorted(seated_at(tables[0])) == sorted(p.pk for p in players[:4])
    assert sorted(seated_at(tables[1])) == sorted(p.pk for p in players[4:8])
    assert list(QueuedPlayer.objects.values_list("user_id", flat=True)) == [players[8].pk]


def test_the_pairs_are_balanced_by_rating(players: list[User], ratings: dict[int, int]) -> None:
    for p, r in zip(players[:4], (1540, 1450, 1500, 1510), strict=True):
        ratings[p.pk] = r
        table = queue.join(p, MODE)
    assert table is not None
    seats = seated_at(table)
    # 1540 + 1450 against 1500 + 1510: 1495 against 1505.
    assert {frozenset(seats[0::2]), frozenset(seats[1::2])} == {
        frozenset({players[0].pk, players[1].pk}),
        frozenset({players[2].pk, players[3].pk}),
    }


def test_players_who_come_as_a_pair_play_as_partners(
    players: list[User], ratings: dict[int, int]
) -> None:
    a, b, c, d = players[:4]
    ratings.update({a.pk: 1550, b.pk: 1550, c.pk: 1450, d.pk: 1450})  # best split: a+c, b+d
    assert queue.join(a, MODE, partner=b) is None
    assert queue.waiting(MODE) == 2
    queue.join(c, MODE)
    table = queue.join(d, MODE)
    assert table is not None
    seats = seated_at(table)
    assert {seats[0], seats[2]} == {a.pk, b.pk} or {seats[1], seats[3]} == {a.pk, b.pk}


def test_two_pairs_play_each_other(players: list[User]) -> None:
    a, b, c, d = players[:4]
    queue.join(a, MODE, partner=b)
    table = queue.join(c, MODE, partner=d)
    assert table is not None
    seats = seated_at(table)
    assert {frozenset(seats[0::2]), frozenset(seats[1::2])} == {
        frozenset({a.pk, b.pk}),
        frozenset({c.pk, d.pk}),
    }


def test_a_player_alone_who_finds_a_partner_keeps_their_place(players: list[User]) -> None:
    queue.join(players[0], MODE)
    backdate(players[0], 12)
    since = QueueEntry.objects.get().joined_at
    queue.join(players[0], MODE, partner=players[1])
    entry = QueueEntry.objects.get()
    assert entry.joined_at == since
    assert entry.players.count() == 2


def test_a_far_rating_waits_until_the_windows_widen(
    players: list[User], ratings: dict[int, int]
) -> None:
    ratings[players[3].pk] = 1900
    for p in players[:4]:
        queue.join(p, MODE)
    assert queue.waiting(MODE) == 4  # ±100 now
    for p in players[:4]:
        backdate(p, 31)
    assert queue.sweep() == 4  # the clock's sweep: anyone after 30 s
    assert Table.objects.filter(status=Table.Status.PLAYING).count() == 1


# --------------------------------------------------------------------------------------------
# Who may not queue.
# --------------------------------------------------------------------------------------------
def test_it_refuses_a_suspended_player(players: list[User]) -> None:
    others = UserFactory("x")
    for _ in range(2):
        table = ended_table([*others.many(3), players[0]], Table.Status.CANCELLED)
        Abandonment.objects.create(user=players[0], table=table, seat=3)
    error = refused("suspended", queue.join, players[0], MODE)
    assert "minutos" in str(error.message)
    assert not QueueEntry.objects.exists()


def test_it_refuses_a_banned_player(players: list[User]) -> None:
    User.objects.filter(pk=players[0].pk).update(banned_at=timezone.now())
    refused("banned", queue.join, User.objects.get(pk=players[0].pk), MODE)


def test_it_refuses_a_player_seated_elsewhere(players: list[User]) -> None:
    services.create_table(players[0], MODE)
    refused("already_seated", queue.join, players[0], MODE)


def test_it_refuses_a_pair_whose_partner_is_seated_elsewhere(players: list[User]) -> None:
    services.create_table(players[1], MODE)
    refused("already_seated", queue.join, players[0], MODE, partner=players[1])
    assert not QueueEntry.objects.exists()


def test_it_refuses_a_bot(db: None) -> None:
    bot = User.objects.create(username="bot-x", is_bot=True)
    refused("bot", queue.join, bot, MODE)


def test_it_refuses_an_unknown_mode(players: list[User]) -> None:
    refused("unknown_mode", queue.join, players[0], "mus-a-ciegas")


def test_it_refuses_being_your_own_partner(players: list[User]) -> None:
    refused("self", queue.join, players[0], MODE, partner=players[0])


def test_it_refuses_a_second_mode_at_once(players: list[User]) -> None:
    queue.join(players[0], "4-reyes")
    refused("already_queued", queue.join, players[0], "8-reyes")


def test_repeated_dodges_suspend_quick_play_for_a_few_minutes(players: list[User]) -> None:
    QueueDodge.objects.bulk_create(QueueDodge(user=players[0]) for _ in range(2))
    error = refused("queue_suspended", queue.join, players[0], MODE)
    assert "5 minutos" in str(error.message)
    assert queue.dodge_suspended_until(players[1]) is None


def test_one_dodge_is_forgiven(players: list[User]) -> None:
    QueueDodge.objects.create(user=players[0])
    assert queue.join(players[0], MODE) is None


def test_a_player_who_sat_down_elsewhere_while_waiting_is_dropped_when_matched(
    players: list[User],
) -> None:
    queue.join(players[0], MODE)
    services.create_table(players[0], MODE)  # by hand, in another tab
    for p in players[1:4]:
        assert queue.join(p, MODE) is None
    assert not QueuedPlayer.objects.filter(user=players[0]).exists()
    assert queue.waiting(MODE) == 3
    assert queue.join(players[4], MODE) is not None


# --------------------------------------------------------------------------------------------
# Leaving.
# --------------------------------------------------------------------------------------------
def test_cancelar_leaves_the_queue_with_the_partner(players: list[User]) -> None:
    queue.join(players[0], MODE, partner=players[1])
    assert queue.cancel(players[1]) is True
    assert not QueuedPlayer.objects.exists()
    assert queue.cancel(players[1]) is False


def test_a_new_entry_keeps_its_place_until_its_page_opens(players: list[User]) -> None:
    queue.join(players[0], MODE)
    assert queue.drop_leavers() == 0
    QueueEntry.objects.update(hold_until=timezone.now() - timedelta(seconds=1))
    assert queue.drop_leavers() == 1
    assert not QueuedPlayer.objects.exists()


def test_closing_the_queue_page_leaves_the_queue_unless_it_comes_back(players: list[User]) -> None:
    queue.join(players[0], MODE)
    queue.socket_opened(players[0].pk, "page-1", "proc")
    QueueEntry.objects.update(hold_until=timezone.now() - timedelta(seconds=1))
    queue.socket_closed("page-1")
    assert QueuedPlayer.objects.get().gone_at is not None
    assert queue.drop_leavers() == 0  # a reload has RELOAD_SECONDS
    queue.socket_opened(players[0].pk, "page-2", "proc")  # it came back
    QueuedPlayer.objects.update(gone_at=timezone.now() - timedelta(seconds=60))
    assert QueuedPlayer.objects.get().sockets == 1
    assert queue.drop_leavers() == 0
    queue.socket_closed("page-2")
    QueuedPlayer.objects.update(gone_at=timezone.now() - timedelta(seconds=queue.RELOAD_SECONDS))
    assert queue.drop_leavers() == 1
    assert not QueuedPlayer.objects.exists()


def test_a_player_who_left_the_page_is_not_matched_meanwhile(players: list[User]) -> None:
    queue.join(players[0], MODE)
    queue.socket_opened(players[0].pk, "page-1", "proc")
    queue.socket_closed("page-1")
    for p in players[1:4]:
        assert queue.join(p, MODE) is None
    assert queue.join(players[4], MODE) is not None
    assert QueuedPlayer.objects.filter(user=players[0]).exists()


def test_two_tabs_keep_the_place_while_either_is_open(players: list[User]) -> None:
    queue.join(players[0], MODE)
    queue.socket_opened(players[0].pk, "tab-1", "proc")
    queue.socket_opened(players[0].pk, "tab-2", "proc")
    queue.socket_closed("tab-1")
    queued = QueuedPlayer.objects.get()
    assert queued.sockets == 1 and queued.gone_at is None
    assert queue.waiting(MODE) == 1


def test_the_pages_of_a_dead_server_process_leave_no_phantom_in_the_queue(
    players: list[User], settings: Any
) -> None:
    queue.join(players[0], MODE)
    past = timezone.now() - timedelta(seconds=settings.MUS_PROCESS_TIMEOUT_SECONDS + 1)
    ServerProcess.objects.create(name="dead", beat_at=past)
    ServerProcess.objects.create(name="alive", beat_at=timezone.now())
    queue.socket_opened(players[0].pk, "on-dead", "dead")
    queue.join(players[1], MODE)
    queue.socket_opened(players[1].pk, "on-alive", "alive")
    assert queue.reap_silent_sockets() == 1
    assert list(QueueSocket.objects.values_list("channel", flat=True)) == ["on-alive"]
    QueuedPlayer.objects.filter(user=players[0]).update(gone_at=past)
    QueueEntry.objects.update(hold_until=past)
    assert queue.drop_leavers() == 1
    assert list(QueuedPlayer.objects.values_list("user_id", flat=True)) == [players[1].pk]


def test_a_partner_who_leaves_takes_the_pair_out(players: list[User]) -> None:
    queue.join(players[0], MODE, partner=players[1])
    queue.socket_opened(players[0].pk, "a", "proc")
    queue.socket_opened(players[1].pk, "b", "proc")
    queue.socket_closed("b")
    QueuedPlayer.objects.filter(user=players[1]).update(
        gone_at=timezone.now() - timedelta(seconds=10)
    )
    assert queue.drop_leavers() == 1
    assert not QueuedPlayer.objects.exists()


# --------------------------------------------------------------------------------------------
# Bots.
# --------------------------------------------------------------------------------------------
def test_bots_are_offered_only_after_a_wait(players: list[User]) -> None:
    queue.join(players[0], MODE)
    refused("too_soon", queue.complete_with_bots, players[0])
    refused("not_queued", queue.complete_with_bots, players[1])


def test_completing_with_bots_starts_an_unrated_table_at_once(players: list[User]) -> None:
    queue.join(players[0], MODE, partner=players[1])
    backdate(players[0], queue.BOTS_AFTER_SECONDS)
    table = queue.complete_with_bots(players[1])
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING and table.quick and not table.rated
    seats = table.seats.select_related("user").order_by("seat")
    assert [s.user.is_bot for s in seats] == [False, True, False, True]
    assert {seats[0].user_id, seats[2].user_id} == {players[0].pk, players[1].pk}
    assert not QueuedPlayer.objects.exists()


# --------------------------------------------------------------------------------------------
# Dodging.
# --------------------------------------------------------------------------------------------
def matched(players: list[User]) -> Table:
    table = None
    for p in players[:4]:
        table = queue.join(p, MODE)
    assert table is not None
    return table


def arrive(table: Table, users: list[User]) -> None:
    """As a socket at the table does: the seat stops waiting for its player."""
    Seat.objects.filter(table=table, user__in=users).update(
        disconnected_at=None, reconnect_deadline=None, connections=1, arrived=True
    )


def test_cancelar_right_after_the_match_is_a_dodge(players: list[User]) -> None:
    table = matched(players)
    arrive(table, players[1:4])
    assert queue.cancel(players[0]) is True
    table.refresh_from_db()
    assert table.status == Table.Status.CANCELLED
    assert table.cancel_reason == Table.CancelReason.NO_SHOW
    assert list(QueueDodge.objects.values_list("user_id", flat=True)) == [players[0].pk]
    assert not Abandonment.objects.exists()  # not an abandonment: nobody loses rating


def test_cancelar_at_the_table_one_came_to_is_no_dodge(players: list[User]) -> None:
    table = matched(players)
    arrive(table, players[:4])
    assert queue.cancel(players[0]) is False
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING


def test_a_matched_player_who_never_comes_is_charged_a_dodge(players: list[User]) -> None:
    table = matched(players)
    arrive(table, players[:3])
    assert queue.cancel_no_shows() == 0  # SHOW_UP_SECONDS to come
    Table.objects.filter(pk=table.pk).update(
        started_at=timezone.now() - timedelta(seconds=queue.SHOW_UP_SECONDS + 1)
    )
    Seat.objects.filter(table=table, user=players[3]).update(
        disconnected_at=timezone.now() - timedelta(seconds=queue.SHOW_UP_SECONDS + 2)
    )
    assert queue.cancel_no_shows() == 1
    table.refresh_from_db()
    assert table.cancel_reason == Table.CancelReason.NO_SHOW
    assert list(QueueDodge.objects.values_list("user_id", flat=True)) == [players[3].pk]


def test_a_player_who_came_and_went_is_not_a_no_show(players: list[User]) -> None:
    table = matched(players)
    arrive(table, players[:4])
    past = timezone.now() - timedelta(seconds=queue.SHOW_UP_SECONDS + 1)
    Table.objects.filter(pk=table.pk).update(started_at=past - timedelta(seconds=5))
    Seat.objects.filter(table=table, user=players[0]).update(disconnected_at=past)  # left later
    assert queue.cancel_no_shows() == 0
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING


def test_tables_made_by_hand_have_no_show_up_rule(players: list[User]) -> None:
    table = seat_all(players[:4])
    start_seated(players[0], table)
    Table.objects.filter(pk=table.pk).update(started_at=timezone.now() - timedelta(seconds=60))
    assert queue.cancel_no_shows() == 0


# --------------------------------------------------------------------------------------------
# Arrivals at the same moment.
# --------------------------------------------------------------------------------------------
@pytest.mark.django_db(transaction=True)
def test_players_arriving_at_once_each_sit_at_one_table(db: None) -> None:
    people = UserFactory("c").many(8)
    barrier = threading.Barrier(len(people))
    errors: list[BaseException] = []

    def arrive_now(user: User) -> None:
        try:
            barrier.wait()
            queue.join(user, MODE)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=arrive_now, args=(p,)) for p in people]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert Table.objects.filter(status=Table.Status.PLAYING).count() == 2
    seated = list(Seat.objects.values_list("user_id", flat=True))
    assert sorted(seated) == sorted(p.pk for p in people)
    assert not QueuedPlayer.objects.exists()


def test_quick_play_never_seats_a_player_with_one_they_blocked(players: list[User]) -> None:
    from accounts import relations

    relations.block(players[3], players[0])
    for p in players[:4]:
        assert queue.join(p, MODE) is None
    table = queue.join(players[4], MODE)  # the first three and the fifth
    assert table is not None
    assert players[3].pk not in seated_at(table) and players[0].pk in seated_at(table)


def test_quick_play_tables_start_through_the_table_services(
    players: list[User], monkeypatch: pytest.MonkeyPatch
) -> None:
    # So every rule of starting a game applies to them too (the ladder's fair-play limits...).
    from games.services import tables

    started: list[int] = []
    real = tables.start_game

    def spy(host: User, table_id: int, rng: Any = None, *, by_hand: bool = True) -> Table:
        started.append(table_id)
        return real(host, table_id, rng, by_hand=by_hand)

    monkeypatch.setattr(tables, "start_game", spy)
    table = matched(players)
    assert started == [table.pk]


def test_the_same_four_matched_again_and_again_count_under_the_fair_play_limits(
    players: list[User],
) -> None:
    from games.services import fairplay

    rated = []
    for _ in range(fairplay.PAIR_GAMES_PER_DAY + 1):
        table = matched(players)
        table.refresh_from_db()
        rated.append((table.rated, table.unrated_reason))
        # The game is over (as the services leave a finished one): the four are free again.
        table.seats.update(active=False)
        Table.objects.filter(pk=table.pk).update(status=Table.Status.FINISHED, phase="terminada")
    assert rated[:-1] == [(True, "")] * fairplay.PAIR_GAMES_PER_DAY
    assert rated[-1] == (False, Table.UnratedReason.PAIR_LIMIT)
