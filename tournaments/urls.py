from django.urls import path

from . import views

app_name = "tournaments"

urlpatterns = [
    path("", views.tournament_list, name="list"),
    path("<int:tournament_id>/", views.detail, name="detail"),
    path("<int:tournament_id>/inscribirse/", views.register, name="register"),
    path("<int:tournament_id>/aceptar/", views.accept, name="accept"),
    path("<int:tournament_id>/rechazar/", views.decline, name="decline"),
    path("<int:tournament_id>/retirarse/", views.withdraw, name="withdraw"),
    path("<int:tournament_id>/estoy/", views.check_in, name="check_in"),
]
