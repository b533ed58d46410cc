import logging

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

log = logging.getLogger(__name__)


def enqueue_rating(sender: object, table_id: int, **kwargs: object) -> None:
    """games.signals.game_finished → the rating task (the game has already been committed)."""
    from .tasks import rate_game

    try:
        rate_game.delay(table_id)
    except Exception:
        # The broker being down must not break the request that finished the game; the game
        # stays pending and `manage.py rate_pending` (or any later recompute) applies it.
        log.exception("could not enqueue the rating of table %s", table_id)


class RankingsConfig(AppConfig):
    name = "rankings"
    verbose_name = _("Clasificaciones")

    def ready(self) -> None:
        from accounts.profile import register_profile_context
        from games.signals import game_finished

        from .profile import profile_provider

        game_finished.connect(enqueue_rating, dispatch_uid="rankings.enqueue_rating")
        register_profile_context(profile_provider)
