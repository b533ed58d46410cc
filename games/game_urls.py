from django.urls import path

from rankings import views as rankings_views

from . import views

urlpatterns = [
    path("", rankings_views.history, name="game_history"),
    path("<int:table_id>/", rankings_views.game_detail, name="game_detail"),
    path("<int:table_id>/registro.json", views.game_record, name="game_record"),
]
