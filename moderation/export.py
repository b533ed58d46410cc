"""«Descargar mis datos» (issue #35.2): everything the site keeps about a player, as one JSON
document (`FORMAT`), and the rules for asking for it.

In it: the account and its settings, the sign-ins (when, from which address and browser), the
ratings with every change, the games the player sat at
(with the record of each ended game, which its players may download from the game's page
anyway: a game in play gives no record, its cards are still hidden), the chat lines the player
wrote, the reports they made, the tournaments they entered, the abandonments and quick-play
dodges counted against them, and whom they follow and block.

Never in it: another player's email or settings, the chat lines of others, reports made against
the player, who blocks or follows them, the moderators' notes, or the cards of a game in play.
Other players appear only by the name every page shows them with.

A player may ask `MUS_DATA_EXPORTS_PER_DAY` times in 24 hours (every request is a `DataExport`
row). Up to `MUS_DATA_EXPORT_INLINE_GAMES` games the file is made at once, in the request; a
larger one by the Celery task `moderation.export_player_data`, on the heavy queue
(`CELERY_TASK_ROUTES`), and the player downloads it from the same page when it is ready.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from axes.models import AccessLog
from django.conf import settings
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import Block, Follow, PendingEmail, User
from games.models import ENDED_STATUSES, Abandonment, ChatMessage, QueueDodge, Seat
from rankings.models import PlayerRating, RatingChange
from tournaments.models import Pair

from .models import DataExport, Report

FORMAT = "barajamos-datos/1"

#: A pending export older than this was lost with its worker: it no longer holds the next back.
STALE = timedelta(hours=1)


def _at(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


# --------------------------------------------------------------------------------------------
# Asking for it.
# --------------------------------------------------------------------------------------------
def window_start() -> datetime:
    return timezone.now() - timedelta(hours=24)


def refusal(user: User) -> str | None:
    """Why `user` may not ask for another export now, or None."""
    pending = DataExport.objects.filter(user=user, status=DataExport.Status.PENDING)
    if pending.filter(requested_at__gte=timezone.now() - STALE).exists():
        return str(_("Ya estamos preparando tus datos: vuelve a esta página en unos minutos."))
    asked = DataExport.objects.filter(user=user, requested_at__gte=window_start()).count()
    if asked >= settings.MUS_DATA_EXPORTS_PER_DAY:
        return str(
            _("Ya has pedido tus datos %(n)d veces en las últimas 24 horas: inténtalo mañana.")
            % {"n": asked}
        )
    return None


def is_large(user: User) -> bool:
    """Whether the export is made by a Celery task rather than in the request."""
    limit = settings.MUS_DATA_EXPORT_INLINE_GAMES
    return Seat.objects.filter(user=user).count() > limit


# --------------------------------------------------------------------------------------------
# What it holds.
# --------------------------------------------------------------------------------------------
def build(user: User) -> dict[str, Any]:
    """The player's data as one JSON-ready dictionary (see the module's docstring)."""
    return {
        "format": FORMAT,
        "made_at": _at(timezone.now()),
        "account": _account(user),
        "settings": {"display_name": user.display_name, "language": user.language},
        "sign_ins": [
            {
                "at": _at(a.attempt_time),
                "ip_address": a.ip_address,
                "user_agent": a.user_agent,
                "logout_at": _at(a.logout_time),
            }
            for a in AccessLog.objects.filter(username__iexact=user.username).order_by("pk")
        ],
        "ratings": _ratings(user),
        "rating_history": _rating_history(user),
        "games": _games(user),
        "chat": [
            {"table": m.table_id, "at": _at(m.created_at), "text": m.text}
            for m in ChatMessage.objects.filter(user=user).order_by("created_at", "pk").iterator()
        ],
        "reports_made": _reports(user),
        "tournaments": _tournaments(user),
        "abandonments": [
            {"table": a.table_id, "seat": a.seat, "at": _at(a.created_at)}
            for a in Abandonment.objects.filter(user=user).order_by("created_at")
        ],
        "quick_play_dodges": [
            {"table": d.table_id, "at": _at(d.created_at)}
            for d in QueueDodge.objects.filter(user=user).order_by("created_at")
        ],
        "follows": [
            {
                "username": f.followed.username,
                "name": f.followed.public_name,
                "since": _at(f.created_at),
            }
            for f in Follow.objects.filter(follower=user).select_related("followed")
        ],
        "blocks": [
            {
                "username": b.blocked.username,
                "name": b.blocked.public_name,
                "since": _at(b.created_at),
            }
            for b in Block.objects.filter(blocker=user).select_related("blocked")
        ],
    }


def _account(user: User) -> dict[str, Any]:
    pending = PendingEmail.objects.filter(user=user).first()
    return {
        "id": user.pk,
        "username": user.username,
        "display_name": user.display_name,
        "email": user.email,
        # An address given and not confirmed yet (`accounts.addresses`).
        "pending_email": (
            {"email": pending.email, "given_at": _at(pending.created_at)} if pending else None
        ),
        "first_name": user.first_name,
        "last_name": user.last_name,
        "date_joined": _at(user.date_joined),
        "last_login": _at(user.last_login),
        "is_staff": user.is_staff,
        "banned_at": _at(user.banned_at),
        "banned_until": _at(user.banned_until),
        "ban_reason": user.ban_reason,
        "muted": user.is_muted,
        "muted_until": _at(user.muted_until),
    }


def _ratings(user: User) -> list[dict[str, Any]]:
    return [
        {
            "mode": r.mode,
            "rating": r.rating,
            "games": r.games,
            "wins": r.wins,
            "best_rating": r.best_rating,
            "players_met": r.met,
            "last_played_at": _at(r.last_played_at),
        }
        for r in PlayerRating.objects.filter(user=user).order_by("mode")
    ]


def _rating_history(user: User) -> list[dict[str, Any]]:
    return [
        {
            "table": c.table_id,
            "mode": c.mode,
            "played_at": _at(c.played_at),
            "before": c.before,
            "after": c.after,
            "won": c.won,
            "k": c.k,
            "weight": c.weight,
        }
        for c in RatingChange.objects.filter(user=user).order_by("id").iterator()
    ]


def _games(user: User) -> list[dict[str, Any]]:
    games = []
    mine = (
        Seat.objects.filter(user=user)
        .select_related("table")
        .prefetch_related("table__seats__user")
        .order_by("table__created_at", "table_id")
    )
    for seat in mine.iterator(chunk_size=200):
        table = seat.table
        players = [
            {"seat": s.seat, "name": s.user.public_name, "you": s.user_id == user.pk}
            for s in sorted(table.seats.all(), key=lambda s: s.seat)
        ]
        ended = table.status in ENDED_STATUSES
        games.append(
            {
                "table": table.pk,
                "seat": seat.seat,
                "mode": table.mode,
                "status": table.status,
                "private": table.private,
                "rated": table.rated,
                "practice": table.practice,
                "created_at": _at(table.created_at),
                "started_at": _at(table.started_at),
                "finished_at": _at(table.finished_at),
                "players": players,
                "scores": table.scores,
                "winner_team": table.winner_team,
                "ended_by": table.ended_by,
                "cancel_reason": table.cancel_reason,
                # A game in play keeps its cards hidden, from its own players too.
                "record": table.record if ended else None,
            }
        )
    return games


def _reports(user: User) -> list[dict[str, Any]]:
    return [
        {
            "table": r.table_id,
            "reported": r.reported.public_name,
            "reason": r.reason,
            "text": r.text,
            "at": _at(r.created_at),
            "status": r.status,
        }
        for r in Report.objects.filter(reporter=user).select_related("reported").order_by("pk")
    ]


def _tournaments(user: User) -> list[dict[str, Any]]:
    pairs = (
        Pair.objects.filter(Q(first=user) | Q(second=user))
        .select_related("tournament", "first", "second")
        .order_by("created_at", "pk")
    )
    return [
        {
            "tournament": p.tournament_id,
            "name": p.tournament.name,
            "partner": (p.second if p.first_id == user.pk else p.first).public_name,
            "invited_by_you": p.first_id == user.pk,
            "status": p.status,
            "checked_in_at": _at(p.checked_in_at(user.pk)),
        }
        for p in pairs
    ]
