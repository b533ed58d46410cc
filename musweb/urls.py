from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.views.generic import TemplateView

from accounts import bot_accounts, profile_urls
from accounts import urls as account_urls
from games import views as game_views

# /cuentas/… and /jugadores/… are both the "accounts" namespace.
accounts_patterns = (
    [
        path("cuentas/", include(account_urls.urlpatterns)),
        path("jugadores/", include(profile_urls.urlpatterns)),
    ],
    "accounts",
)

urlpatterns = [
    path("", game_views.lobby, name="lobby"),
    path("reglas/", TemplateView.as_view(template_name="pages/rules.html"), name="rules"),
    path(
        "privacidad/",
        TemplateView.as_view(
            template_name="pages/privacy.html",
            extra_context={
                "contact": settings.MUS_PRIVACY_CONTACT,
                "session_days": settings.SESSION_COOKIE_AGE // 86400,
                "exports_per_day": settings.MUS_DATA_EXPORTS_PER_DAY,
                "email_confirm_days": settings.MUS_EMAIL_CONFIRM_SECONDS // 86400,
            },
        ),
        name="privacy",
    ),
    path("", include(accounts_patterns)),
    path("cuentas/", include("moderation.account_urls")),
    path("mesas/", include("games.urls")),
    path("", include("games.quick_urls")),
    path("mesas/", include("moderation.urls")),
    path("partidas/", include("rankings.game_urls")),
    path("ranking/", include("rankings.urls")),
    path("torneos/", include("tournaments.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path(bot_accounts.API_PATH.lstrip("/"), include("games.bot_urls")),
]
