from django.urls import path

from . import views

urlpatterns = [
    path("<int:table_id>/registro.json", views.game_record, name="game_record"),
]
