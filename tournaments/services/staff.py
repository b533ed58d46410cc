"""The organisers' measures on a tournament: cancel it, remove a pair, take back an invitation,
decide a game.

`moderation.actions` calls these and writes each to the audit log; the admin calls those.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import services
from games.models import Table
from games.services import ServiceError

from ..models import Match, Pair, Tournament
from . import rounds
from .registration import lock


def _cancel_tables(table_ids: list[int], reason: str) -> None:
    for table_id in table_ids:
        services.cancel_game(table_id, Table.CancelReason.MODERATOR, note=reason)


def _playing_table(match: Match) -> list[int]:
    table = match.table
    return [table.pk] if table is not None and table.status == Table.Status.PLAYING else []


def cancel(tournament_id: int, reason: str) -> Tournament:
    """Cancel the tournament: its games in play are cancelled too (unrated, as any game a
    moderator cancels); what was played stays on its page."""
    with transaction.atomic():
        tournament = lock(tournament_id)
        if tournament.is_over:
            raise ServiceError("over", _("El torneo ya ha terminado."))
        tournament.status = Tournament.Status.CANCELLED
        tournament.cancel_reason = reason
        tournament.finished_at = timezone.now()
        tournament.save(update_fields=["status", "cancel_reason", "finished_at"])
        tables = [
            t
            for m in tournament.matches.filter(status=Match.Status.PLAYING).select_related("table")
            for t in _playing_table(m)
        ]
    _cancel_tables(tables, reason)
    return tournament


def remove_pair(pair_id: int, reason: str) -> Pair:
    """Take a pair out: its game in progress is lost (its table cancelled), and it is paired no
    more (in a knockout, whoever would have met it goes through)."""
    tournament_id = Pair.objects.filter(pk=pair_id).values_list("tournament_id", flat=True).first()
    if tournament_id is None:
        raise ServiceError("no_pair", _("Esa pareja no existe."))
    with transaction.atomic():
        tournament = lock(tournament_id)
        pair = Pair.objects.select_for_update().get(pk=pair_id)
        if tournament.is_over:
            raise ServiceError("over", _("El torneo ya ha terminado."))
        if pair.status not in Pair.LIVE:
            raise ServiceError("not_in", _("Esa pareja ya no está en el torneo."))
        pair.status = Pair.Status.REMOVED
        pair.removed_reason = reason
        pair.save(update_fields=["status", "removed_reason"])
        tables: list[int] = []
        match = (
            tournament.matches.select_for_update(of=("self",))
            .select_related("table")
            .filter(status__in=Match.OPEN, round=tournament.current_round)
            .filter(Q(pair_a=pair) | Q(pair_b=pair))
            .first()
        )
        if match is not None:
            tables = _playing_table(match)
            rounds.decide_losers(
                match, {0 if match.pair_a_id == pair.pk else 1}, Match.Outcome.REMOVED, reason
            )
    _cancel_tables(tables, reason)
    rounds.run(tournament_id)
    return pair


def withdraw_invitation(pair_id: int) -> Pair:
    """Take back a pending invitation (one player pestering another): neither player is
    disqualified, and both may register again, with each other or anybody else."""
    tournament_id = Pair.objects.filter(pk=pair_id).values_list("tournament_id", flat=True).first()
    if tournament_id is None:
        raise ServiceError("no_pair", _("Esa pareja no existe."))
    with transaction.atomic():
        lock(tournament_id)
        pair = Pair.objects.select_for_update().get(pk=pair_id)
        if pair.status != Pair.Status.INVITED:
            raise ServiceError("not_invitation", _("Esa pareja no es una invitación pendiente."))
        pair.status = Pair.Status.WITHDRAWN
        pair.save(update_fields=["status"])
    return pair


def adjudicate(match_id: int, winner_id: int | None, note: str) -> Match:
    """Decide a game the organisers have to (a cancelled table, a dispute): `winner_id` one of
    its pairs, or None for a game both pairs lose. A game still in play is cancelled."""
    tournament_id = (
        Match.objects.filter(pk=match_id).values_list("tournament_id", flat=True).first()
    )
    if tournament_id is None:
        raise ServiceError("no_match", _("Esa partida del torneo no existe."))
    with transaction.atomic():
        tournament = lock(tournament_id)
        match = (
            Match.objects.select_for_update(of=("self",)).select_related("table").get(pk=match_id)
        )
        if tournament.status != Tournament.Status.RUNNING:
            raise ServiceError("over", _("El torneo no está en juego."))
        if match.status not in Match.OPEN:
            raise ServiceError("decided", _("Esa partida ya está decidida."))
        if winner_id is not None and winner_id not in (match.pair_a_id, match.pair_b_id):
            raise ServiceError("not_in_match", _("Esa pareja no juega esta partida."))
        tables = _playing_table(match)
        if winner_id is None:
            rounds.decide_losers(match, {0, 1}, Match.Outcome.ADJUDICATED, note)
        else:
            loser = 1 if winner_id == match.pair_a_id else 0
            rounds.decide_losers(match, {loser}, Match.Outcome.ADJUDICATED, note)
    _cancel_tables(tables, note)
    rounds.run(tournament_id)
    return match
