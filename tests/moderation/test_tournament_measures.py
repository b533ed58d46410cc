"""The organisers' measures on tournaments in the admin: creating one, cancelling it, removing a
pair, deciding a game; each in the audit log, each refused without a reason."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.models import Table
from moderation import actions
from moderation.models import ModerationAction
from tests.factories import make_user
from tests.tournaments.support import current_matches, make_tournament, ready_tournament
from tournaments import services
from tournaments.models import Match, Pair, Tournament

from .support import action_post, confirm_post

pytestmark = pytest.mark.django_db

TOURNAMENTS = reverse("admin:tournaments_tournament_changelist")
PAIRS = reverse("admin:tournaments_pair_changelist")
MATCHES = reverse("admin:tournaments_match_changelist")


def test_staff_create_a_tournament_in_the_admin(admin_client: Client, moderator: User) -> None:
    starts = timezone.localtime() + timedelta(days=2)
    form = {
        "name": "Torneo de Navidad",
        "mode": "8-reyes",
        "format": "suizo",
        "rounds": "4",
        "starts_at_0": starts.strftime("%d/%m/%Y"),
        "starts_at_1": starts.strftime("%H:%M:%S"),
        "registration_deadline_0": starts.strftime("%d/%m/%Y"),
        "registration_deadline_1": starts.strftime("%H:%M:%S"),
        "checkin_minutes": "15",
        "max_pairs": "16",
        "turn_seconds": "25",
    }
    inlines = {
        f"{prefix}-{key}": value
        for prefix in ("pairs", "matches")
        for key, value in (("TOTAL_FORMS", "0"), ("INITIAL_FORMS", "0"))
    }
    response = admin_client.post(reverse("admin:tournaments_tournament_add"), {**form, **inlines})
    assert response.status_code == 302, response.context["adminform"].form.errors
    tournament = Tournament.objects.get()
    assert (tournament.name, tournament.mode, tournament.rounds, tournament.turn_seconds) == (
        "Torneo de Navidad",
        "8-reyes",
        4,
        25,
    )
    assert tournament.created_by == moderator
    assert tournament.status == Tournament.Status.REGISTRATION
    # A Swiss tournament needs its rounds; registration cannot close after the start.
    late = starts + timedelta(hours=1)
    bad = {
        **form,
        **inlines,
        "rounds": "",
        "registration_deadline_0": late.strftime("%d/%m/%Y"),
        "registration_deadline_1": late.strftime("%H:%M:%S"),
    }
    errors = (
        admin_client.post(reverse("admin:tournaments_tournament_add"), bad)
        .context["adminform"]
        .form.errors
    )
    assert set(errors) == {"rounds", "registration_deadline"}


def test_cancelling_a_tournament_goes_into_the_audit_log(
    admin_client: Client, moderator: User
) -> None:
    tournament, _pairs = ready_tournament(4)
    form = action_post(admin_client, TOURNAMENTS, "cancel_tournaments", [tournament.pk])
    assert "Cancelar torneos" in form.content.decode()
    refused = confirm_post(admin_client, TOURNAMENTS, "cancel_tournaments", [tournament.pk])
    assert refused.status_code == 200  # the form again: a reason is required
    confirm_post(
        admin_client, TOURNAMENTS, "cancel_tournaments", [tournament.pk], reason="Fallo eléctrico"
    )
    tournament.refresh_from_db()
    assert (tournament.status, tournament.cancel_reason) == (
        Tournament.Status.CANCELLED,
        "Fallo eléctrico",
    )
    entry = ModerationAction.objects.get(kind=ModerationAction.Kind.CANCEL_TOURNAMENT)
    assert entry.moderator == moderator and entry.reason == "Fallo eléctrico"
    assert entry.details["tournament"] == tournament.pk
    page = Client().get(f"/torneos/{tournament.pk}/").content.decode()
    assert "Fallo eléctrico" in page


def test_removing_a_pair_goes_into_the_audit_log_for_both_players(
    admin_client: Client, moderator: User
) -> None:
    _tournament, pairs = ready_tournament(4)
    pair = pairs[0]
    confirm_post(admin_client, PAIRS, "remove_pairs", [pair.pk], reason="Colusión")
    pair.refresh_from_db()
    assert pair.status == Pair.Status.REMOVED
    entries = ModerationAction.objects.filter(kind=ModerationAction.Kind.REMOVE_PAIR)
    assert {e.target for e in entries} == {pair.first, pair.second}
    assert {e.reason for e in entries} == {"Colusión"}
    # A second time is refused with a message, and logged once only.
    response = confirm_post(admin_client, PAIRS, "remove_pairs", [pair.pk], reason="Otra vez")
    assert response.status_code == 302
    assert entries.count() == 2


def test_staff_take_back_one_players_invitation_without_touching_the_other(
    admin_client: Client, moderator: User
) -> None:
    tournament = make_tournament()
    pest, victim, friend = make_user("pesado"), make_user("victima"), make_user("amiga")
    invitation = services.invite(pest, tournament.pk, "victima")
    confirm_post(admin_client, PAIRS, "withdraw_invitations", [invitation.pk], reason="Acoso")
    invitation.refresh_from_db()
    assert invitation.status == Pair.Status.WITHDRAWN  # nobody disqualified
    entry = ModerationAction.objects.get(kind=ModerationAction.Kind.WITHDRAW_INVITATION)
    assert (entry.target, entry.reason, entry.details["invited"]) == (pest, "Acoso", "victima")
    services.invite(victim, tournament.pk, "amiga")
    services.accept(friend, tournament.pk)
    # Only a pending invitation is taken back: a registered pair is refused, and not logged.
    registered = Pair.objects.get(first=victim)
    response = confirm_post(
        admin_client, PAIRS, "withdraw_invitations", [registered.pk], reason="Otra"
    )
    assert response.status_code == 302
    assert Pair.objects.get(pk=registered.pk).status == Pair.Status.REGISTERED
    assert ModerationAction.objects.filter(kind=entry.kind).count() == 1


def test_deciding_a_game_goes_into_the_audit_log(admin_client: Client, moderator: User) -> None:
    tournament, _pairs = ready_tournament(2, rounds=1)
    match = current_matches(tournament)[0]
    confirm_post(
        admin_client, MATCHES, "adjudicate", [match.pk], winner="b", reason="Disputa resuelta"
    )
    match.refresh_from_db()
    assert (match.status, match.winner_id, match.outcome) == (
        Match.Status.DONE,
        match.pair_b_id,
        Match.Outcome.ADJUDICATED,
    )
    assert Table.objects.get(pk=match.table_id).status == Table.Status.CANCELLED
    entry = ModerationAction.objects.get(kind=ModerationAction.Kind.ADJUDICATE)
    assert (entry.table_id, entry.details["winner_pair"]) == (match.table_id, match.pair_b_id)


def test_every_measure_needs_a_reason(moderator: User) -> None:
    tournament, pairs = ready_tournament(2, rounds=1)
    match = current_matches(tournament)[0]
    with pytest.raises(actions.ModerationError):
        actions.cancel_tournament(moderator, tournament, " ")
    with pytest.raises(actions.ModerationError):
        actions.remove_pair(moderator, pairs[0], "")
    with pytest.raises(actions.ModerationError):
        actions.withdraw_tournament_invitation(moderator, pairs[0], "")
    with pytest.raises(actions.ModerationError):
        actions.adjudicate(moderator, match, "a", "")
    with pytest.raises(actions.ModerationError):
        actions.adjudicate(moderator, match, "c", "sin ganador válido")
    assert not ModerationAction.objects.exists()
