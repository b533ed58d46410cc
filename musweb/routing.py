from django.urls import path, re_path

from games.consumers import NoSuchSocket, TableConsumer
from games.lobby_consumer import LobbyConsumer
from games.player_consumer import PlayerConsumer

#: Sockets that carry only what every visitor may see: no session or user is looked up for them.
public_websocket_urlpatterns = [
    path("ws/sala/", LobbyConsumer.as_asgi()),
]

#: What a bot's token may open (docs/bot-api.md): a table's socket, nothing else.
bot_websocket_urlpatterns = [
    path("ws/mesas/<int:table_id>/", TableConsumer.as_asgi()),
    re_path(r"", NoSuchSocket.as_asgi()),
]

websocket_urlpatterns = [
    path("ws/mesas/<int:table_id>/", TableConsumer.as_asgi()),
    path("ws/jugador/", PlayerConsumer.as_asgi()),
    # Anything else is refused with a close code (not a routing error and its traceback).
    re_path(r"", NoSuchSocket.as_asgi()),
]
