from django.urls import path

from . import views

urlpatterns = [
    path("", views.history, name="game_history"),
    path("<int:table_id>/", views.game_detail, name="game_detail"),
    path("<int:table_id>/registro.json", views.game_record, name="game_record"),
    path("<int:table_id>/analisis/", views.game_analysis, name="game_analysis"),
]
