from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Mesas y partidas")

    def ready(self) -> None:
        from accounts.profile import register_profile_context
        from accounts.relations import blocked

        from .services.withdrawals import on_block
        from .views import profile_status

        register_profile_context(profile_status)
        blocked.connect(on_block, dispatch_uid="games.invitations_end_with_a_block")
