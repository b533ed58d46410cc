from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Mesas y partidas")

    def ready(self) -> None:
        from accounts.profile import register_profile_context

        from .views import profile_status

        register_profile_context(profile_status)
