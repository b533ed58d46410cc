from django.contrib import admin
from django.urls import include, path
from django.views.generic import TemplateView

from games import views as game_views

urlpatterns = [
    path("", game_views.lobby, name="lobby"),
    path("reglas/", TemplateView.as_view(template_name="pages/rules.html"), name="rules"),
    path("cuentas/", include("accounts.urls")),
    path("jugadores/", include("accounts.profile_urls")),
    path("mesas/", include("games.urls")),
    path("partidas/", include("games.game_urls")),
    path("ranking/", include("rankings.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]
