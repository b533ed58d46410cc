from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from games.services import GameEnd

log = logging.getLogger(__name__)


def enqueue_rating(sender: object, ending: GameEnd, **kwargs: object) -> None:
    """games.signals.game_ended → the rating task, for an end that may move a ladder (the game
    has already been committed; `services.rate_table` checks the table's ladder)."""
    from .tasks import rate_game

    if ending.ladder_result is None:
        return
    table_id = ending.table_id
    try:
        rate_game.delay(table_id)
    except Exception:
        # The broker being down must not break the request that finished the game; the game
        # stays pending and `manage.py rate_pending` (or any later recompute) applies it.
        log.exception("could not enqueue the rating of table %s", table_id)


def user_saved(
    sender: object, instance: object, update_fields: object = None, **kwargs: object
) -> None:
    from .models import PlayerRating

    if update_fields is not None and not set(PlayerRating.PLAYER_FIELDS) & set(update_fields):
        return  # e.g. last_login on every log-in
    from .services import refresh_player

    refresh_player(instance)


class RankingsConfig(AppConfig):
    name = "rankings"
    verbose_name = _("Clasificaciones")

    def ready(self) -> None:
        from django.db.models.signals import post_save

        from accounts.models import User
        from accounts.profile import register_profile_context
        from games.hooks import provide_ratings
        from games.signals import game_ended

        from .profile import profile_provider
        from .queries import rating_labels

        game_ended.connect(enqueue_rating, dispatch_uid="rankings.enqueue_rating")
        provide_ratings(rating_labels)
        register_profile_context(profile_provider)
        post_save.connect(user_saved, sender=User, dispatch_uid="rankings.user_saved")
