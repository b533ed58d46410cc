from django.urls import path

from . import bot_views, views

app_name = "accounts"

urlpatterns = [
    path("registro/", views.signup, name="signup"),
    path("entrar/", views.LoginView.as_view(), name="login"),
    path("salir/", views.LogoutView.as_view(), name="logout"),
    path("ajustes/", views.account_settings, name="settings"),
    path("correo/", views.email_settings, name="email"),
    path("correo/confirmar/<str:token>/", views.email_confirm, name="email_confirm"),
    path("bots/", bot_views.bot_list, name="bots"),
    path("bots/nuevo/", bot_views.create_bot, name="create_bot"),
    path("bots/<str:username>/tokens/", bot_views.create_token, name="create_bot_token"),
    path("bots/tokens/<int:token_id>/revocar/", bot_views.revoke_token, name="revoke_bot_token"),
    path("contrasena/", views.PasswordChangeView.as_view(), name="password_change"),
    path(
        "contrasena/cambiada/",
        views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("contrasena/olvidada/", views.PasswordResetView.as_view(), name="password_reset"),
    path(
        "contrasena/olvidada/enviada/",
        views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "contrasena/nueva/<uidb64>/<token>/",
        views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "contrasena/restablecida/",
        views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
]
