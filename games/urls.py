from django.urls import path

from . import views

app_name = "games"

urlpatterns = [
    path("nueva/", views.create_table, name="create"),
    path("practicar/", views.practice, name="practice"),
    path("<int:table_id>/dejar-practica/", views.leave_practice, name="leave_practice"),
    path("invitacion/<str:token>/", views.invite, name="invite"),
    path("<int:table_id>/", views.table_page, name="table"),
    path("<int:table_id>/espera/", views.waiting_room, name="waiting"),
    path("<int:table_id>/sentarse/", views.sit, name="sit"),
    path("<int:table_id>/levantarse/", views.stand, name="stand"),
    path("<int:table_id>/empezar/", views.start, name="start"),
    path("<int:table_id>/expulsar/", views.kick, name="kick"),
    path("<int:table_id>/cerrar/", views.close, name="close"),
    path("<int:table_id>/bots/", views.fill_bots, name="fill_bots"),
    path("<int:table_id>/revancha/", views.rematch, name="rematch"),
]
