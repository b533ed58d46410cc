"""Registering as a pair, withdrawing and checking in, and every refusal (issue #17)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts import relations
from accounts.models import User
from accounts.names import isolate
from games import services as games
from games.models import Abandonment, Table
from games.services import invitations, queue
from tests.factories import seat_all, started_table
from tournaments import services
from tournaments.models import Pair, Tournament

from .support import check_in_all, make_tournament, ready_tournament, register_pairs, start_now

pytestmark = pytest.mark.django_db


@pytest.fixture
def tournament() -> Tournament:
    return make_tournament()


def refused(code: str, fn: Any, *args: Any) -> str:
    """Call `fn(*args)`, which must be refused with `code`; its message (in Spanish)."""
    with pytest.raises(games.ServiceError) as error:
        fn(*args)
    assert error.value.code == code, error.value.message
    return str(error.value.message)


def test_a_player_invites_a_partner_who_accepts_and_the_pair_is_registered(
    tournament: Tournament, make_user: Any
) -> None:
    ana, luis = make_user("ana"), make_user("luis")
    pair = services.invite(ana, tournament.pk, "LUIS")  # usernames in any case, as at log-in
    assert (pair.first, pair.second, pair.status) == (ana, luis, Pair.Status.INVITED)
    services.accept(luis, tournament.pk)
    pair.refresh_from_db()
    assert pair.status == Pair.Status.REGISTERED


def test_it_refuses_registering_twice(tournament: Tournament, make_user: Any) -> None:
    ana, luis, _eva = make_user("ana"), make_user("luis"), make_user("eva")
    services.invite(ana, tournament.pk, "luis")
    # Invited and waiting, or registered: either way, once.
    assert "Ya estás inscrito" in refused(
        "already_registered", services.invite, ana, tournament.pk, "eva"
    )
    services.accept(luis, tournament.pk)
    refused("already_registered", services.invite, luis, tournament.pk, "eva")


def test_it_refuses_a_partner_already_registered(tournament: Tournament, make_user: Any) -> None:
    ana, _luis, eva = make_user("ana"), make_user("luis"), make_user("eva")
    services.invite(ana, tournament.pk, "luis")
    message = refused("partner_registered", services.invite, eva, tournament.pk, "luis")
    assert message == "luis ya está inscrito en este torneo con otra pareja."
    refused("partner_registered", services.invite, eva, tournament.pk, "ana")


def test_it_refuses_a_banned_partner(tournament: Tournament, make_user: Any) -> None:
    ana = make_user("ana")
    make_user("luis", banned_at=timezone.now())
    assert "expulsado" in refused("partner_banned", services.invite, ana, tournament.pk, "luis")


def suspend(user: User, make_user: Any) -> None:
    """Two abandonments within a day: suspended from sitting for 10 minutes (docs/rules.md §8.4)."""
    for _ in range(2):
        table = started_table([user, *make_user.many(3)])
        games.cancel_game(table.pk, Table.CancelReason.ABANDONED, abandoned_seat=0)
        Abandonment.objects.create(user=user, table=table, seat=0)
    assert games.suspended_until(user) is not None


def test_it_refuses_a_partner_suspended_for_abandoning(
    tournament: Tournament, make_user: Any
) -> None:
    ana, luis = make_user("ana"), make_user("luis")
    suspend(luis, make_user)
    message = refused("partner_suspended", services.invite, ana, tournament.pk, "luis")
    assert "suspendido por abandonar" in message
    # And a suspended player may not register either.
    refused("suspended", services.invite, luis, tournament.pk, "ana")


def test_it_refuses_inviting_yourself_a_bot_or_nobody(
    tournament: Tournament, make_user: Any
) -> None:
    ana = make_user("ana")
    bot = User.objects.filter(is_bot=True).first()  # the site's bots exist from the migrations
    assert bot is not None
    assert "tu propia pareja" in refused("self", services.invite, ana, tournament.pk, "Ana")
    refused("no_player", services.invite, ana, tournament.pk, bot.username)
    refused("no_player", services.invite, ana, tournament.pk, "nadie")
    refused("no_player", services.invite, ana, tournament.pk, "")


def test_it_refuses_registering_after_the_deadline(make_user: Any) -> None:
    tournament = make_tournament(
        registration_deadline=timezone.now() - timedelta(minutes=1),
    )
    ana, _luis = make_user("ana"), make_user("luis")
    assert "cerrada" in refused("closed", services.invite, ana, tournament.pk, "luis")


def test_it_refuses_registering_or_accepting_when_full(make_user: Any) -> None:
    tournament = make_tournament(max_pairs=2)
    register_pairs(tournament, 1)
    ana, luis = make_user("ana"), make_user("luis")
    services.invite(ana, tournament.pk, "luis")  # room for one more: invited
    eva, leo = make_user("eva"), make_user("leo")
    services.invite(eva, tournament.pk, "leo")
    services.accept(luis, tournament.pk)  # the second pair: now full
    refused("full", services.accept, leo, tournament.pk)
    uno, _dos = make_user("uno"), make_user("dos")
    refused("full", services.invite, uno, tournament.pk, "dos")


def test_only_the_invited_partner_answers(tournament: Tournament, make_user: Any) -> None:
    ana, luis, eva = make_user("ana"), make_user("luis"), make_user("eva")
    services.invite(ana, tournament.pk, "luis")
    refused("no_invitation", services.accept, ana, tournament.pk)
    refused("no_invitation", services.accept, eva, tournament.pk)
    services.decline(luis, tournament.pk)
    # Declined: both are free to register again, with anybody.
    services.invite(luis, tournament.pk, "eva")
    services.accept(eva, tournament.pk)
    services.invite(ana, tournament.pk, make_user("leo").username)


@pytest.mark.parametrize("blocker", ["ana", "luis"])
def test_tournament_invitations_never_cross_a_block(
    tournament: Tournament, make_user: Any, blocker: str
) -> None:
    ana, luis = make_user("ana"), make_user("luis")
    relations.block(*((ana, luis) if blocker == "ana" else (luis, ana)))
    assert refused("blocked", services.invite, ana, tournament.pk, "luis") == (
        "No puedes invitar a este jugador."
    )
    assert not Pair.objects.exists()


@pytest.mark.parametrize("blocker", ["ana", "luis"])
def test_a_block_takes_back_a_pending_tournament_invitation(
    tournament: Tournament, make_user: Any, blocker: str
) -> None:
    ana, luis = make_user("ana"), make_user("luis")
    pair = services.invite(ana, tournament.pk, "luis")
    relations.block(*((ana, luis) if blocker == "ana" else (luis, ana)))
    assert Pair.objects.get(pk=pair.pk).status == Pair.Status.WITHDRAWN
    refused("no_invitation", services.accept, luis, tournament.pk)


def test_accepting_a_tournament_invitation_checks_blocks_again(
    tournament: Tournament, make_user: Any
) -> None:
    ana, luis = make_user("ana"), make_user("luis")
    services.invite(ana, tournament.pk, "luis")
    relations.Block.objects.create(blocker=ana, blocked=luis)  # in the same instant: no signal
    refused("blocked", services.accept, luis, tournament.pk)
    assert Pair.objects.get().status == Pair.Status.INVITED


def test_tournament_invitations_are_rate_limited_with_the_others(
    tournament: Tournament, make_user: Any
) -> None:
    """Withdrawing and inviting again in a loop pestered the invited player with a chimed
    notice each time; a table or partner invitation counts against the same limit."""
    ana, _luis, eva = make_user("ana"), make_user("luis"), make_user("eva")
    relations.follow(ana, eva)
    invitations.send(ana, eva, "pareja", "4-reyes")
    for _ in range(invitations.RATE_COUNT - 1):
        services.invite(ana, tournament.pk, "luis")
        services.withdraw(ana, tournament.pk)
    message = refused("invitation_rate", services.invite, ana, tournament.pk, "luis")
    assert message == "Demasiadas invitaciones seguidas: espera un minuto."
    assert Pair.objects.count() == invitations.RATE_COUNT - 1
    assert not Pair.objects.filter(status=Pair.Status.INVITED).exists()


def test_an_invited_player_registers_with_somebody_else_which_declines_the_invitation(
    tournament: Tournament, make_user: Any
) -> None:
    ana, luis, eva = make_user("ana"), make_user("luis"), make_user("eva")
    unwanted = services.invite(ana, tournament.pk, "luis")
    wanted = services.invite(luis, tournament.pk, "eva")
    services.accept(eva, tournament.pk)
    assert Pair.objects.get(pk=unwanted.pk).status == Pair.Status.DECLINED
    assert Pair.objects.get(pk=wanted.pk).status == Pair.Status.REGISTERED
    refused("no_invitation", services.accept, luis, tournament.pk)
    # The inviter is free too.
    services.invite(ana, tournament.pk, make_user("leo").username)


def test_either_player_withdraws_before_the_start_but_not_after(
    tournament: Tournament, make_user: Any
) -> None:
    pairs = register_pairs(tournament, 3)
    services.withdraw(pairs[0].second, tournament.pk)
    assert Pair.objects.get(pk=pairs[0].pk).status == Pair.Status.WITHDRAWN
    refused("not_registered", services.withdraw, pairs[0].first, tournament.pk)
    check_in_all(tournament, pairs[1:])
    start_now(tournament)
    message = refused("started", services.withdraw, pairs[1].first, tournament.pk)
    assert message == "El torneo ya ha empezado: ya no puedes retirarte."


def test_it_refuses_checking_in_for_someone_else(tournament: Tournament) -> None:
    pair = register_pairs(tournament, 1)[0]
    message = refused(
        "not_yours", services.check_in, pair.first, tournament.pk, pair.second.username
    )
    assert "Solo puedes confirmar por ti" in message
    services.check_in(pair.first, tournament.pk, pair.first.username.upper())
    pair.refresh_from_db()
    assert pair.first_checked_in_at is not None and pair.second_checked_in_at is None


def test_checking_in_opens_a_while_before_the_start(make_user: Any) -> None:
    tournament = make_tournament(starts_at=timezone.now() + timedelta(hours=2), checkin_minutes=30)
    pair = register_pairs(tournament, 1)[0]
    assert "La confirmación se abre a las" in refused(
        "checkin_not_open", services.check_in, pair.first, tournament.pk
    )


def test_checking_in_needs_a_registered_pair_and_a_free_player(
    tournament: Tournament, make_user: Any
) -> None:
    ana, luis = make_user("ana"), make_user("luis")
    refused("not_registered", services.check_in, ana, tournament.pk)
    services.invite(ana, tournament.pk, "luis")
    refused("not_accepted", services.check_in, ana, tournament.pk)
    services.accept(luis, tournament.pk)
    table = seat_all([ana, *make_user.many(3)])
    refused("seated", services.check_in, ana, tournament.pk)
    games.leave_seat(ana, table.pk)
    services.check_in(ana, tournament.pk)


def test_a_checked_in_player_sits_at_no_other_table_until_their_tournament_ends(
    tournament: Tournament, make_user: Any
) -> None:
    pair = register_pairs(tournament, 1)[0]
    other = games.create_table(make_user("host"), "4-reyes")
    games.take_seat(pair.first, other.pk, 1)  # not checked in yet: free
    games.leave_seat(pair.first, other.pk)
    services.check_in(pair.first, tournament.pk)
    message = refused("in_tournament", games.take_seat, pair.first, other.pk, 1)
    assert message.startswith("Estás jugando un torneo")
    refused("in_tournament", games.create_table, pair.first, "4-reyes")
    # Practice is open to them; their partner, not checked in yet, is free.
    assert games.start_practice(pair.first, "4-reyes").status == Table.Status.PLAYING
    games.take_seat(pair.second, other.pk, 2)
    games.leave_seat(pair.second, other.pk)
    services.withdraw(pair.first, tournament.pk)
    games.create_table(pair.second, "4-reyes")


def test_at_the_start_pairs_not_checked_in_are_dropped(tournament: Tournament) -> None:
    pairs = register_pairs(tournament, 4)
    check_in_all(tournament, pairs[:2])
    services.check_in(pairs[2].first, tournament.pk)  # only one of the two
    start_now(tournament)
    statuses = [Pair.objects.get(pk=p.pk).status for p in pairs]
    assert statuses == [Pair.Status.PLAYING] * 2 + [Pair.Status.NOT_CHECKED_IN] * 2
    assert tournament.status == Tournament.Status.RUNNING


def test_with_fewer_than_two_pairs_checked_in_the_tournament_is_cancelled(
    tournament: Tournament,
) -> None:
    pairs = register_pairs(tournament, 2)
    check_in_all(tournament, pairs[:1])
    start_now(tournament)
    assert tournament.status == Tournament.Status.CANCELLED
    assert not tournament.matches.exists()
    # Nobody is held any more.
    games.create_table(pairs[0].first, "4-reyes")


def test_nothing_starts_before_its_time(tournament: Tournament) -> None:
    pairs = register_pairs(tournament, 2)
    check_in_all(tournament, pairs)
    services.sweep()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.REGISTRATION
    assert services.start(tournament.pk) is False


def test_a_disqualified_player_does_not_register_again(
    tournament: Tournament, make_user: Any
) -> None:
    pair = register_pairs(tournament, 1)[0]
    services.remove_pair(pair.pk, "Suplantación")
    eva = make_user("eva")
    message = refused("removed", services.invite, pair.first, tournament.pk, "eva")
    assert message == f"{pair.first.username} está descalificado de este torneo."
    refused("removed", services.invite, eva, tournament.pk, pair.second.username)


def test_a_checked_in_player_does_not_join_quick_play(tournament: Tournament) -> None:
    pair = register_pairs(tournament, 1)[0]
    services.check_in(pair.first, tournament.pk)
    refused("in_tournament", queue.join, pair.first, "4-reyes")
    assert queue.join(pair.second, "4-reyes") is None  # not checked in: waits in the queue


# --------------------------------------------------------------------------------------------
# One tournament at a time.
# --------------------------------------------------------------------------------------------
def test_nobody_registers_for_two_tournaments_played_at_the_same_time(make_user: Any) -> None:
    first = make_tournament(name="Jueves")
    second = make_tournament(name="Jueves bis", starts_at=first.starts_at + timedelta(minutes=1))
    ana, luis, eva, leo = (make_user(n) for n in ("ana", "luis", "eva", "leo"))
    services.invite(eva, second.pk, "ana")  # pending when ana registers for the first
    services.invite(ana, first.pk, "luis")
    services.accept(luis, first.pk)
    message = refused("overlap", services.accept, ana, second.pk)
    assert message.startswith(f"{isolate('ana')} ya juega el torneo «Jueves» (empieza el ")
    assert message.endswith("que coincide con este: nadie puede jugar dos torneos a la vez.")
    refused("overlap", services.invite, ana, second.pk, "leo")
    refused("overlap", services.invite, leo, second.pk, "luis")  # busy as a partner too
    assert not Pair.objects.filter(tournament=second, status=Pair.Status.REGISTERED).exists()


def test_the_second_check_in_at_the_same_time_is_refused(make_user: Any) -> None:
    """Registered in two (before this rule, or the start moved since): «Estoy» in one only."""
    first = make_tournament(name="Jueves")
    second = make_tournament(name="Jueves bis", starts_at=first.starts_at)
    ana, luis, eva = make_user("ana"), make_user("luis"), make_user("eva")
    for tournament, partner in ((first, luis), (second, eva)):
        Pair.objects.create(
            tournament=tournament, first=ana, second=partner, status=Pair.Status.REGISTERED
        )
    services.check_in(ana, second.pk)
    assert "coincide con este" in refused("overlap", services.check_in, ana, first.pk)
    services.check_in(luis, first.pk)  # the partner is free


def test_tournaments_far_enough_apart_are_both_open(make_user: Any, settings: Any) -> None:
    first = make_tournament(rounds=3)  # 3 rounds at MUS_TOURNAMENT_ROUND_MINUTES
    later = first.starts_at + timedelta(minutes=3 * settings.MUS_TOURNAMENT_ROUND_MINUTES)
    second = make_tournament(starts_at=later, registration_deadline=later)
    ana, luis, eva = make_user("ana"), make_user("luis"), make_user("eva")
    services.invite(ana, first.pk, "luis")
    services.accept(luis, first.pk)
    services.invite(ana, second.pk, "eva")
    services.accept(eva, second.pk)


def test_a_tournament_that_runs_long_keeps_its_players_from_the_next(make_user: Any) -> None:
    running, pairs = ready_tournament(2, rounds=1)
    Tournament.objects.filter(pk=running.pk).update(
        starts_at=timezone.now() - timedelta(days=1),
        registration_deadline=timezone.now() - timedelta(days=1),
    )
    player = pairs[0].first
    assert Pair.objects.get(pk=pairs[0].pk).status == Pair.Status.PLAYING
    nxt = make_tournament()  # its check-in is open
    Pair.objects.create(
        tournament=nxt, first=player, second=make_user("eva"), status=Pair.Status.REGISTERED
    )
    refused("overlap", services.check_in, player, nxt.pk)
