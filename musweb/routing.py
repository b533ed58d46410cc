from django.urls import path, re_path

from games.consumers import NoSuchSocket, TableConsumer
from games.player_consumer import PlayerConsumer

websocket_urlpatterns = [
    path("ws/mesas/<int:table_id>/", TableConsumer.as_asgi()),
    path("ws/jugador/", PlayerConsumer.as_asgi()),
    # Anything else is refused with a close code (not a routing error and its traceback).
    re_path(r"", NoSuchSocket.as_asgi()),
]
