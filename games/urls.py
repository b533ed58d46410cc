from django.urls import path

from . import views

app_name = "games"

urlpatterns = [
    path("nueva/", views.create_table, name="create"),
    path("<int:table_id>/", views.table_page, name="table"),
]
