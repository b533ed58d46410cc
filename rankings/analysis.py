"""Hand analysis of finished games: asking for one, running it, and what the game page shows.

The analysis itself is the engine's (`games.engine.analysis`, pure); here it is asked for, run
by a Celery task (`rankings.analyse_game`) with its progress in the database, and kept with the
game (`GameAnalysis`), so a second request never computes it again.

Rules (docs/protocol.md, «Hand analysis»):
- only a game that was played to its end (`terminada`): never a game in play, so the analysis
  cannot help anybody at a live table; a cancelled game is refused too (a choice: its record
  stops wherever it was cut short, and a game left halfway is no game to learn from);
- whoever may see the game's page may see its analysis; only a logged-in player may ask for one;
- per player, `MUS_ANALYSES_RUNNING_PER_PLAYER` (1) queued or running at once and
  `MUS_ANALYSES_PER_HOUR` (10) new ones an hour; an analysis already made or under way costs
  nothing to look at;
- on the whole site, `MUS_ANALYSES_IN_FLIGHT` (6) queued or running at once: beyond it the
  request is refused (`analysis_busy`), to be asked again in a few minutes. They run on the
  heavy work's queue and worker, never the live game's (docs/deploy.md).
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from games import engine
from games.engine import analysis as engine_analysis
from games.models import Table
from games.services import ServiceError, within_rate

from .models import GameAnalysis

log = logging.getLogger(__name__)

#: The Celery task (rankings.tasks.analyse_game), sent by name.
ANALYSE_TASK = "rankings.analyse_game"

#: Progress is written at most this often (and at the end): a row update per decision would
#: cost more than it tells a page that asks once a second.
PROGRESS_EVERY_SECONDS = 0.5

LIVE = (GameAnalysis.Status.PENDING, GameAnalysis.Status.RUNNING)

# The transaction-level advisory lock under which an analysis is counted and queued (an
# arbitrary constant, not games.services.queue's).
_LOCK_KEY = 7_318_205


def _stale_before() -> Any:
    return timezone.now() - timedelta(seconds=settings.MUS_ANALYSIS_STALE_SECONDS)


def is_stale(item: GameAnalysis) -> bool:
    """A pending or running analysis that has not moved for long: its worker was lost."""
    return item.status in LIVE and item.updated_at < _stale_before()


def analysable(table: Table) -> bool:
    return table.status == Table.Status.FINISHED and bool(table.record)


def check_analysable(table: Table) -> None:
    if table.status in (Table.Status.OPEN, Table.Status.PLAYING, Table.Status.CLOSED):
        raise ServiceError(
            "not_finished",
            _("Solo se analizan partidas terminadas: esta todavía no ha terminado."),
        )
    if table.status == Table.Status.CANCELLED:
        raise ServiceError(
            "cancelled", _("Una partida cancelada no se analiza: no llegó a terminarse.")
        )
    if not table.record:
        raise ServiceError("no_record", _("Esta partida no tiene registro que analizar."))


def analysis_of(table: Table) -> GameAnalysis | None:
    return GameAnalysis.objects.filter(table=table).first()


def request_analysis(user: User, table: Table) -> GameAnalysis:
    """Ask for the analysis of `table`: the one made or under way, or a new one queued.

    Refusals (`ServiceError`): `login` (not logged in), `not_finished`, `cancelled`,
    `no_record`, `analysis_running` (the player's limit of analyses under way),
    `analysis_busy` (the site's), `analysis_rate` (the player's limit per hour). Whoever may
    see the game may ask (the views check that first, as for the game page).
    """
    if not user.is_authenticated:
        raise ServiceError("login", _("Entra con tu cuenta para pedir un análisis."))
    check_analysable(table)
    existing = analysis_of(table)
    if existing is not None and (
        existing.status == GameAnalysis.Status.DONE
        or (existing.status in LIVE and not is_stale(existing))
    ):
        return existing  # made, or being made: nothing to count
    fields = {
        "status": GameAnalysis.Status.PENDING,
        "requested_by": user,
        "done": 0,
        "total": engine_analysis.decision_count(table.record),
        "result": None,
        "error": "",
        "finished_at": None,
    }
    with transaction.atomic():
        # Counted and queued under one lock: requests sent at once cannot all pass the count.
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK_KEY])
        _check_limits(user, table)
        item, created = GameAnalysis.objects.select_for_update().get_or_create(
            table=table, defaults=fields
        )
        if not created:
            # Two players asking at once: only the first restarts a failed or lost one.
            if item.status == GameAnalysis.Status.DONE or (
                item.status in LIVE and not is_stale(item)
            ):
                return item
            for name, value in fields.items():
                setattr(item, name, value)
            item.save()
        transaction.on_commit(lambda: current_app.send_task(ANALYSE_TASK, args=[table.pk]))
    return item


def _check_limits(user: User, table: Table) -> None:
    """The player's analyses under way, the site's, then the player's hour (counted last: a
    refusal for the others costs nothing)."""
    live = GameAnalysis.objects.filter(status__in=LIVE, updated_at__gte=_stale_before()).exclude(
        table=table
    )
    if live.filter(requested_by=user).count() >= settings.MUS_ANALYSES_RUNNING_PER_PLAYER:
        raise ServiceError(
            "analysis_running",
            _("Ya tienes un análisis en marcha: espera a que termine antes de pedir otro."),
        )
    if live.count() >= settings.MUS_ANALYSES_IN_FLIGHT:
        raise ServiceError(
            "analysis_busy",
            _(
                "Ahora mismo se están analizando muchas partidas. Vuelve a pedirlo dentro de "
                "unos minutos."
            ),
        )
    if not within_rate("analysis", user.pk, settings.MUS_ANALYSES_PER_HOUR, 3600):
        raise ServiceError(
            "analysis_rate",
            _("Has pedido demasiados análisis en la última hora. Prueba un poco más tarde."),
        )


def run_analysis(table_id: int) -> bool:
    """The task's work: claim the pending analysis (a duplicate message finds it claimed and does
    nothing), run the engine's analysis with progress, and keep the result."""
    claimed = GameAnalysis.objects.filter(
        Q(status=GameAnalysis.Status.PENDING)
        | Q(status=GameAnalysis.Status.RUNNING, updated_at__lt=_stale_before()),
        table_id=table_id,
    ).update(status=GameAnalysis.Status.RUNNING, done=0, updated_at=timezone.now())
    if not claimed:
        return False
    table = Table.objects.only("status", "record").get(pk=table_id)
    if not analysable(table):  # cannot happen through request_analysis; never for a live game
        GameAnalysis.objects.filter(table_id=table_id).update(
            status=GameAnalysis.Status.FAILED, error="not finished", updated_at=timezone.now()
        )
        return False
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - last[0] < PROGRESS_EVERY_SECONDS:
            return
        last[0] = now
        GameAnalysis.objects.filter(table_id=table_id).update(
            done=done, total=total, updated_at=timezone.now()
        )

    samples = settings.MUS_ANALYSIS_SAMPLES or None
    try:
        result = engine_analysis.analyse(
            table.record, seed=table_id, samples=samples, progress=progress
        )
    except (engine.RecordError, ValueError, KeyError, TypeError, IndexError) as exc:
        log.exception("analysis of game %s failed", table_id)
        GameAnalysis.objects.filter(table_id=table_id).update(
            status=GameAnalysis.Status.FAILED, error=str(exc)[:500], updated_at=timezone.now()
        )
        return False
    GameAnalysis.objects.filter(table_id=table_id).update(
        status=GameAnalysis.Status.DONE,
        result=result,
        done=len(result["decisions"]),
        total=len(result["decisions"]),
        finished_at=timezone.now(),
        updated_at=timezone.now(),
    )
    return True
