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
    path("", include(accounts_patterns)),
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
