import logging

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

log = logging.getLogger(__name__)


def on_game_ended(sender: object, table_id: int, **kwargs: object) -> None:
    """games.signals.game_ended, however it ended: if it was a tournament's game, move the
    tournament on in a Celery task (the beat sweep does it too, a second later at most), which
    settles it from its `GameEnd` (`rounds.settle`)."""
    from .models import Match
    from .tasks import run_tournament

    tournament_id = (
        Match.objects.filter(table_id=table_id).values_list("tournament_id", flat=True).first()
    )
    if tournament_id is None:
        return
    try:
        run_tournament.delay(tournament_id)
    except Exception:
        log.exception("could not queue tournament %s after table %s", tournament_id, table_id)


class TournamentsConfig(AppConfig):
    """Tournaments for pairs: between rankings (the pairs' ratings) and moderation (which
    moderates them); games never imports it."""

    name = "tournaments"
    verbose_name = _("Torneos")

    def ready(self) -> None:
        from accounts.profile import register_profile_context
        from accounts.relations import blocked
        from games.hooks import provide_sit_check, provide_table_links, provide_table_tags
        from games.signals import game_ended

        from .links import tournament_link, tournament_tags
        from .profile import profile_provider
        from .services import check_may_sit
        from .services.registration import withdraw_blocked

        game_ended.connect(on_game_ended, dispatch_uid="tournaments.game_ended")
        provide_sit_check(check_may_sit)
        provide_table_links(tournament_link)
        provide_table_tags(tournament_tags)
        register_profile_context(profile_provider)
        blocked.connect(withdraw_blocked, dispatch_uid="tournaments.invitations_end_with_a_block")
