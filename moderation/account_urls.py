"""Under `/cuentas/` beside the accounts app's URLs: a player's own data (`account_views`)."""

from django.urls import path

from . import account_views

app_name = "mydata"

urlpatterns = [
    path("cerrar/", account_views.close_account, name="close"),
    path("mis-datos/", account_views.my_data, name="data"),
    path("mis-datos/<int:export_id>/", account_views.download, name="download"),
]
