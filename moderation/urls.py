"""Under `/mesas/` beside the games app's URLs: the report form belongs to a table's page."""

from django.urls import path

from . import views

app_name = "moderation"

urlpatterns = [
    path("<int:table_id>/denunciar/", views.report_player, name="report"),
]
