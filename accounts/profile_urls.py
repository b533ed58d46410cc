from django.urls import path

from . import relation_views, views

urlpatterns = [
    path("<str:username>/", views.profile, name="profile"),
    path("<str:username>/seguir/", relation_views.follow, name="follow"),
    path("<str:username>/dejar-de-seguir/", relation_views.unfollow, name="unfollow"),
    path("<str:username>/bloquear/", relation_views.block, name="block"),
    path("<str:username>/desbloquear/", relation_views.unblock, name="unblock"),
]
