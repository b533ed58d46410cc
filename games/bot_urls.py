"""The bot API's HTTP endpoints, under `accounts.bot_accounts.API_PATH` (docs/bot-api.md)."""

from django.urls import path

from . import bot_views

urlpatterns = [
    path("cuenta/", bot_views.account, name="bot_api_account"),
    path("mesas/", bot_views.open_tables, name="bot_api_tables"),
    path("mesas/<int:table_id>/sentarse/", bot_views.sit, name="bot_api_sit"),
    path("mesas/<int:table_id>/levantarse/", bot_views.stand, name="bot_api_stand"),
    path("retos/", bot_views.challenges, name="bot_api_challenges"),
    path("retos/<int:invitation_id>/aceptar/", bot_views.accept, name="bot_api_accept"),
    path("retos/<int:invitation_id>/rechazar/", bot_views.decline, name="bot_api_decline"),
    path("cola/", bot_views.quick_play, name="bot_api_queue"),
    path("cola/entrar/", bot_views.join_quick_play, name="bot_api_queue_join"),
    path("cola/salir/", bot_views.leave_quick_play, name="bot_api_queue_leave"),
]
