"""A tournament played to the end through the services: Swiss and knockout pairing round after
round, standings against a hand computation, and every way a game ends in a tournament."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from accounts.models import User
from games import services as games
from games.models import Abandonment, Seat, Table
from musweb.asgi import application
from rankings.models import PlayerRating
from tests.factories import make_user, session_cookie, started_table
from tests.sockets import next_of, receive
from tournaments import queries, services
from tournaments.models import Match, Pair, Tournament

from .support import (
    check_in_all,
    current_matches,
    make_tournament,
    register_pairs,
    start_now,
)

pytestmark = pytest.mark.django_db


def seeded_tournament(n: int, **fields: Any) -> tuple[Tournament, list[Pair]]:
    """`n` pairs whose ratings make them seeds 1..n in order (P1 the best), started."""
    tournament = make_tournament(**fields)
    pairs = register_pairs(tournament, n)
    for i, pair in enumerate(pairs):
        for user in (pair.first, pair.second):
            PlayerRating.objects.create(user=user, mode=tournament.mode, rating=1800 - 50 * i)
    check_in_all(tournament, pairs)
    start_now(tournament)
    return tournament, [Pair.objects.get(pk=p.pk) for p in pairs]


def end_game(table: Table, tantos_a: int, tantos_b: int) -> None:
    """The game at `table` ends as the services leave it: `tantos_a` for seats 0 and 2."""
    table.seats.update(active=False)
    Table.objects.filter(pk=table.pk).update(
        status=Table.Status.FINISHED,
        phase="terminada",
        winner_team=0 if tantos_a > tantos_b else 1,
        scores=[tantos_a, tantos_b],
        finished_at=timezone.now(),
    )


def play(tournament: Tournament, pairs: list[Pair], games_: dict[tuple[int, int], tuple[int, int]]):
    """Check the current round is exactly `games_` (P numbers, the higher-ranked pair first) and
    end each game with its tantos; then the tournament moves on."""
    number = {p.pk: i + 1 for i, p in enumerate(pairs)}
    matches = current_matches(tournament)
    paired = {(number[m.pair_a_id], number[m.pair_b_id]) for m in matches if m.pair_b_id}
    assert paired == set(games_)
    for match in matches:
        if match.pair_b_id:
            assert match.status == Match.Status.PLAYING
            end_game(match.table, *games_[(number[match.pair_a_id], number[match.pair_b_id])])
    services.sweep()
    tournament.refresh_from_db()


def test_an_eight_pair_three_round_swiss_as_computed_by_hand() -> None:
    tournament, pairs = seeded_tournament(8, rounds=3)
    assert tournament.planned_rounds == 3
    # Round 1: the top half against the bottom half by rating.
    play(
        tournament, pairs, {(1, 5): (40, 20), (2, 6): (35, 40), (3, 7): (40, 10), (4, 8): (39, 40)}
    )
    # Round 2: the 1-point group (1, 3, 6, 8) and the 0-point group (2, 4, 5, 7), each split.
    play(tournament, pairs, {(1, 6): (40, 30), (3, 8): (25, 40), (2, 5): (38, 40), (4, 7): (40, 5)})
    # Round 3: 1–8 on 2 points; 3 (1 point) plays 5, not 8 nor 7 whom it met; 4–6; 2–7.
    play(
        tournament, pairs, {(1, 8): (36, 40), (3, 5): (40, 22), (4, 6): (33, 40), (2, 7): (40, 12)}
    )
    assert tournament.status == Tournament.Status.FINISHED
    # By hand: points P1 2, P2 1, P3 2, P4 1, P5 1, P6 2, P7 0, P8 3.
    # Buchholz: P1 5+6+8 → 1+2+3 = 6; P2 6+5+7 → 3; P3 7+8+5 → 4; P4 8+7+6 → 5;
    # P5 1+2+3 → 5; P6 2+1+4 → 4; P7 3+4+2 → 4; P8 4+3+1 → 5.
    # Tantos: P1 +20+10−4 = 26; P2 −5−2+28 = 21; P3 +30−15+18 = 33; P4 −1+35−7 = 27;
    # P5 −20+2−18 = −36; P6 +5−10+7 = 2; P7 −30−35−28 = −93; P8 +1+15+4 = 20.
    # Order: P8; P1 (B 6), P3 and P6 (B 4: tantos 33 > 2); P4 and P5 (B 5: 27 > −36), P2; P7.
    number = {p.pk: i + 1 for i, p in enumerate(pairs)}
    page = queries.detail(tournament, pairs[0].first)
    table = [
        (r["row"].rank, number[r["pair"].pk], r["row"].points, r["row"].buchholz, r["row"].tantos)
        for r in page["standings"]
    ]
    assert table == [
        (1, 8, 3, 5, 20),
        (2, 1, 2, 6, 26),
        (3, 3, 2, 4, 33),
        (4, 6, 2, 4, 2),
        (5, 4, 1, 5, 27),
        (6, 5, 1, 5, -36),
        (7, 2, 1, 3, 21),
        (8, 7, 0, 4, -93),
    ]
    assert tournament.winner_id == pairs[7].pk
    # Every game was an ordinary rated table of the tournament's mode and clock.
    tables = Table.objects.filter(tournament_match__tournament=tournament)
    assert tables.count() == 12
    assert set(tables.values_list("rated", "mode", "turn_seconds")) == {(True, "4-reyes", 20)}
    # The players are free again.
    games.create_table(pairs[0].first, "4-reyes")


def test_an_odd_swiss_gives_a_bye_worth_a_win_to_a_different_pair_each_round() -> None:
    tournament, pairs = seeded_tournament(5, rounds=3)
    byes = []
    for _ in range(3):
        matches = current_matches(tournament)
        bye = [m for m in matches if m.pair_b_id is None]
        assert len(bye) == 1 and bye[0].status == Match.Status.DONE
        assert bye[0].winner_id == bye[0].pair_a_id and bye[0].outcome == Match.Outcome.BYE
        byes.append(bye[0].pair_a_id)
        for m in matches:
            if m.pair_b_id:
                end_game(m.table, 40, 10)
        services.sweep()
        tournament.refresh_from_db()
    assert len(set(byes)) == 3
    assert byes[0] == pairs[4].pk  # the lowest seed first
    assert tournament.status == Tournament.Status.FINISHED


def test_a_swiss_of_more_rounds_than_its_pairs_allow_plays_fewer() -> None:
    tournament, _pairs = seeded_tournament(4, rounds=5)
    assert tournament.planned_rounds == 3


def test_an_eight_pair_knockout_played_to_the_end() -> None:
    tournament, pairs = seeded_tournament(8, format=Tournament.Format.KNOCKOUT, rounds=None)
    assert tournament.planned_rounds == 3
    # Seeds: 1–8, 4–5, 2–7, 3–6. Winners: 1, 5, 7, 3.
    play(tournament, pairs, {(1, 8): (40, 0), (4, 5): (10, 40), (2, 7): (22, 40), (3, 6): (40, 39)})
    eliminated = {p.pk for p in tournament.pairs.filter(status=Pair.Status.ELIMINATED)}
    assert eliminated == {pairs[i - 1].pk for i in (8, 4, 2, 6)}
    # Semifinals: the winners of matches 1 and 2, of 3 and 4, in bracket order.
    play(tournament, pairs, {(1, 5): (30, 40), (7, 3): (12, 40)})
    play(tournament, pairs, {(5, 3): (40, 38)})
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.winner_id == pairs[4].pk
    assert queries.round_name(tournament, 3) == "Final"
    bracket = queries.detail(tournament, pairs[0].first)["bracket"]
    assert len(bracket["boxes"]) == 4 + 2 + 1 and len(bracket["links"]) == 6


def test_a_knockout_of_six_gives_the_top_two_seeds_a_bye() -> None:
    tournament, pairs = seeded_tournament(6, format=Tournament.Format.KNOCKOUT, rounds=None)
    matches = current_matches(tournament)
    byes = {m.pair_a_id for m in matches if m.pair_b_id is None}
    assert byes == {pairs[0].pk, pairs[1].pk}
    play(tournament, pairs, {(4, 5): (40, 1), (3, 6): (0, 40)})
    play(tournament, pairs, {(1, 4): (40, 2), (2, 6): (40, 3)})
    play(tournament, pairs, {(1, 2): (40, 30)})
    assert tournament.winner_id == pairs[0].pk


# --------------------------------------------------------------------------------------------
# Games that do not end at the table.
# --------------------------------------------------------------------------------------------
def test_the_pair_that_abandons_loses_the_game(make_user: Any) -> None:
    tournament, pairs = seeded_tournament(2, rounds=1)
    match = current_matches(tournament)[0]
    table = match.table
    # Everybody is here but pair b's second player (seat 3), who came, left, and whose budget
    # runs out.
    Seat.objects.filter(table=table).exclude(seat=3).update(
        connections=1, reconnect_deadline=None, disconnected_at=None, arrived=True
    )
    Seat.objects.filter(table=table, seat=3).update(
        reconnect_deadline=timezone.now() - timedelta(seconds=1), arrived=True
    )
    assert games.cancel_if_abandoned(table.pk)
    services.sweep()
    match.refresh_from_db()
    assert (match.outcome, match.winner_id) == (Match.Outcome.ABANDONED, pairs[0].pk)
    assert (match.tantos_a, match.tantos_b) == (40, 0)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.winner_id == pairs[0].pk


def test_a_player_who_never_came_forfeits_for_their_pair_without_an_abandonment() -> None:
    """docs/rules.md §8.3: a no-show, never an abandonment (nothing on the ladder or against
    their record for abandoning)."""
    tournament, pairs = seeded_tournament(2, rounds=1)
    match = current_matches(tournament)[0]
    table = match.table
    Seat.objects.filter(table=table).exclude(seat=2).update(
        connections=1, reconnect_deadline=None, disconnected_at=None, arrived=True
    )
    Seat.objects.filter(table=table, seat=2).update(
        reconnect_deadline=timezone.now() - timedelta(seconds=1)
    )
    assert games.cancel_if_abandoned(table.pk)
    services.sweep()
    match.refresh_from_db()
    assert (match.outcome, match.winner_id) == (Match.Outcome.NO_SHOW, pairs[1].pk)
    assert (match.tantos_a, match.tantos_b) == (0, 40)
    assert not Abandonment.objects.exists()


def test_when_both_pairs_never_came_both_lose() -> None:
    tournament, _pairs = seeded_tournament(2, rounds=1)
    match = current_matches(tournament)[0]
    Seat.objects.filter(table=match.table).update(
        reconnect_deadline=timezone.now() - timedelta(seconds=1)
    )
    assert games.cancel_if_abandoned(match.table.pk)
    services.sweep()
    match.refresh_from_db()
    assert (match.outcome, match.winner_id) == (Match.Outcome.NO_SHOW, None)
    assert not Abandonment.objects.exists()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED and tournament.winner is None


def test_a_game_a_moderator_cancels_waits_for_the_organisers_decision() -> None:
    tournament, pairs = seeded_tournament(4, rounds=2)
    first, second = current_matches(tournament)
    games.cancel_game(first.table.pk, Table.CancelReason.MODERATOR, note="trampas")
    end_game(second.table, 40, 0)
    services.sweep()
    first.refresh_from_db()
    tournament.refresh_from_db()
    assert first.status == Match.Status.AWAITING
    assert tournament.current_round == 1  # the round waits for it
    services.adjudicate(first.pk, first.pair_b_id, "Trampas de la pareja A")
    first.refresh_from_db()
    assert (first.outcome, first.winner_id, first.tantos_a, first.tantos_b) == (
        Match.Outcome.ADJUDICATED,
        first.pair_b_id,
        0,
        40,
    )
    tournament.refresh_from_db()
    assert tournament.current_round == 2
    assert len(pairs) == 4


def test_deciding_a_game_in_play_cancels_its_table_and_moves_on() -> None:
    tournament, _pairs = seeded_tournament(2, rounds=1)
    match = current_matches(tournament)[0]
    services.adjudicate(match.pk, None, "Las dos parejas se han pasado cartas")
    assert Table.objects.get(pk=match.table.pk).cancel_reason == Table.CancelReason.MODERATOR
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED and tournament.winner is None
    with pytest.raises(games.ServiceError) as refused:
        services.adjudicate(match.pk, None, "otra vez")
    assert refused.value.code == "over"


def test_a_banned_players_pair_loses_its_game() -> None:
    tournament, pairs = seeded_tournament(2, rounds=1)
    match = current_matches(tournament)[0]
    pairs[1].second.banned_at = timezone.now()
    pairs[1].second.save(update_fields=["banned_at"])
    games.cancel_game(match.table.pk, Table.CancelReason.BANNED)
    services.sweep()
    match.refresh_from_db()
    assert (match.outcome, match.winner_id) == (Match.Outcome.REMOVED, pairs[0].pk)


def test_a_player_who_cannot_sit_loses_the_game_for_their_pair(make_user: Any) -> None:
    tournament = make_tournament(rounds=1)
    pairs = register_pairs(tournament, 2)
    check_in_all(tournament, pairs)
    pairs[0].second.banned_at = timezone.now()
    pairs[0].second.save(update_fields=["banned_at"])
    start_now(tournament)
    match = tournament.matches.get()
    assert match.table is None
    assert (match.outcome, match.winner_id) == (Match.Outcome.NO_SHOW, pairs[1].pk)
    assert "banned" in match.note


def test_a_player_still_in_another_game_is_waited_for_as_long_as_the_reconnection_budget(
    make_user: Any, settings: Any
) -> None:
    tournament = make_tournament(rounds=1)
    pairs = register_pairs(tournament, 2)
    # A game started before they checked in (once checked in they may not start one).
    busy = started_table([pairs[1].first, *make_user.many(3)])
    check_in_all(tournament, pairs)
    start_now(tournament)
    match = tournament.matches.get()
    assert match.status == Match.Status.WAITING  # waiting for them
    games.cancel_game(busy.pk, Table.CancelReason.SYSTEM)
    services.sweep()
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING and match.table is not None
    # Another time they are still playing when the budget runs out: their pair loses.
    tournament = make_tournament(rounds=1, name="Otro")
    pairs = register_pairs(tournament, 2, prefix="k")
    started_table([pairs[0].second, *make_user.many(3)])
    check_in_all(tournament, pairs)
    start_now(tournament)
    match = tournament.matches.get()
    Match.objects.filter(pk=match.pk).update(
        paired_at=timezone.now() - timedelta(seconds=settings.MUS_RECONNECT_SECONDS + 1)
    )
    services.sweep()
    match.refresh_from_db()
    assert (match.outcome, match.winner_id) == (Match.Outcome.NO_SHOW, pairs[1].pk)


def test_the_tournament_takes_players_from_practice_to_their_table() -> None:
    tournament = make_tournament(rounds=1)
    pairs = register_pairs(tournament, 2)
    check_in_all(tournament, pairs)
    practice = games.start_practice(pairs[0].first, "4-reyes")
    start_now(tournament)
    assert Table.objects.get(pk=practice.pk).status == Table.Status.CANCELLED
    assert tournament.matches.get().status == Match.Status.PLAYING


# --------------------------------------------------------------------------------------------
# The organisers' measures.
# --------------------------------------------------------------------------------------------
def test_a_removed_pair_loses_its_game_in_play_and_is_paired_no_more() -> None:
    tournament, pairs = seeded_tournament(4, rounds=3)
    match = next(m for m in current_matches(tournament) if pairs[0].pk == m.pair_a_id)
    services.remove_pair(pairs[0].pk, "Insultos en el chat")
    match.refresh_from_db()
    assert (match.outcome, match.winner_id) == (Match.Outcome.REMOVED, match.pair_b_id)
    assert Table.objects.get(pk=match.table_id).status == Table.Status.CANCELLED
    for m in current_matches(tournament):
        if m.status == Match.Status.PLAYING:
            end_game(m.table, 40, 0)
    services.sweep()
    tournament.refresh_from_db()
    assert tournament.current_round == 2
    round_two = current_matches(tournament)
    assert all(pairs[0].pk not in (m.pair_a_id, m.pair_b_id) for m in round_two)
    assert len([m for m in round_two if m.pair_b_id is None]) == 1  # three left: a bye
    with pytest.raises(games.ServiceError):
        services.remove_pair(pairs[0].pk, "otra vez")


def test_in_a_knockout_the_removed_pairs_next_rival_goes_through() -> None:
    tournament, pairs = seeded_tournament(4, format=Tournament.Format.KNOCKOUT, rounds=None)
    play(tournament, pairs, {(1, 4): (40, 0), (2, 3): (40, 0)})
    services.remove_pair(pairs[0].pk, "No se presentó a la final")
    final = current_matches(tournament)[0]
    final.refresh_from_db()
    tournament.refresh_from_db()
    assert final.winner_id == pairs[1].pk
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.winner_id == pairs[1].pk


def test_cancelling_a_tournament_cancels_its_games_in_play() -> None:
    tournament, _pairs = seeded_tournament(4, rounds=3)
    tables = [m.table.pk for m in current_matches(tournament)]
    services.cancel(tournament.pk, "Se ha caído el servidor de correo")
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert set(Table.objects.filter(pk__in=tables).values_list("status", flat=True)) == {
        Table.Status.CANCELLED
    }
    services.sweep()  # nothing more happens
    assert tournament.matches.count() == 2
    with pytest.raises(games.ServiceError):
        services.cancel(tournament.pk, "otra vez")


def test_running_twice_changes_nothing_more() -> None:
    tournament, pairs = seeded_tournament(4, rounds=2)
    for m in current_matches(tournament):
        end_game(m.table, 40, 0)
    services.run(tournament.pk)
    services.run(tournament.pk)
    services.sweep()
    assert tournament.matches.count() == 4
    assert len(pairs) == 4


async def player_page(user_id: int) -> WebsocketCommunicator:
    """The socket every page of a signed-in player opens (`/ws/jugador/`), welcomed."""
    user = await User.objects.aget(pk=user_id)
    cookie = await database_sync_to_async(session_cookie)(user)
    headers = [
        (b"host", b"localhost"),
        (b"origin", b"http://localhost"),
        (b"cookie", cookie.encode()),
    ]
    comm = WebsocketCommunicator(application, "/ws/jugador/", headers=headers)
    connected, _ = await comm.connect()
    assert connected
    assert (await receive(comm))["type"] == "invitations"
    return comm


@pytest.mark.django_db(transaction=True)
async def test_the_four_players_are_told_their_table_is_ready_wherever_they_are() -> None:
    def setup() -> tuple[Tournament, list[int]]:
        tournament = make_tournament(rounds=1, name="Aviso")
        pairs = register_pairs(tournament, 2)
        check_in_all(tournament, pairs)
        return tournament, [u for p in pairs for u in p.players]

    tournament, users = await database_sync_to_async(setup)()
    pages = [await player_page(user_id) for user_id in users]
    await database_sync_to_async(start_now)(tournament)
    table = await tournament.matches.values_list("table_id", flat=True).aget()
    for comm in pages:
        message = await next_of(comm, "tournament_table")
        assert (message["table"], message["url"], message["round"]) == (
            table,
            f"/mesas/{table}/",
            1,
        )
        assert message["message"] == "Tu mesa del torneo está lista" and message["sound"]
        await comm.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_partner_is_told_of_the_invitation_and_the_inviter_of_the_answer() -> None:
    def setup() -> tuple[Tournament, User, User]:
        return make_tournament(name="Copa"), make_user("ana"), make_user("luis", language="en")

    tournament, ana, luis = await database_sync_to_async(setup)()
    ana_page, luis_page = await player_page(ana.pk), await player_page(luis.pk)
    await database_sync_to_async(services.invite)(ana, tournament.pk, "luis")
    invitation = await next_of(luis_page, "tournament_invitation")
    assert invitation["url"] == tournament.get_absolute_url() and invitation["sound"]
    # In the partner's own language, the inviter's name isolated.
    assert (
        invitation["message"]
        == "\u2068ana\u2069 invites you to play the tournament “Copa” as their partner."
    )
    assert invitation["link"] == "See the tournament"
    await database_sync_to_async(services.accept)(luis, tournament.pk)
    answer = await next_of(ana_page, "tournament_answer")
    assert (answer["status"], answer["message"]) == (
        "inscrita",
        "Tu pareja ha aceptado: estáis inscritos en el torneo.",
    )
    await ana_page.disconnect()
    await luis_page.disconnect()
