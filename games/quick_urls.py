from django.urls import path

from . import quick_views

app_name = "quick"

urlpatterns = [
    path("jugar/", quick_views.queue_page, name="queue"),
    path("jugar/salir/", quick_views.leave_queue, name="leave"),
    path("jugar/bots/", quick_views.complete_with_bots, name="bots"),
    path("invitaciones/", quick_views.invite, name="invite"),
    path("invitaciones/retar/", quick_views.challenge, name="challenge"),
    path("invitaciones/<int:invitation_id>/aceptar/", quick_views.accept, name="accept"),
    path("invitaciones/<int:invitation_id>/rechazar/", quick_views.decline, name="decline"),
]
