"""ASGI entry point: Django for HTTP, Channels for the table WebSockets."""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "musweb.settings")
# Django must be set up before the consumers (and their models) are imported.
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.urls import re_path  # noqa: E402

from games.socket_auth import BearerTokenRouter, EventLoopAuthMiddlewareStack  # noqa: E402

from .outages import SocketOutageGuard  # noqa: E402
from .routing import (  # noqa: E402
    bot_websocket_urlpatterns,
    public_websocket_urlpatterns,
    websocket_urlpatterns,
)

# A daphne process keeps thousands of long-lived objects (sockets, consumers, cached games); the
# cyclic collector's full passes over them paused the event loop for tens of milliseconds under
# load, which showed as the p99 of moves (docs/performance.md). What start-up loaded is moved out
# of its reach and the young generation is collected less often.
gc.freeze()
gc.set_threshold(10_000, 20, 100)

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": SocketOutageGuard(
            BearerTokenRouter(
                bots=URLRouter(bot_websocket_urlpatterns),
                browsers=AllowedHostsOriginValidator(
                    URLRouter(
                        [
                            *public_websocket_urlpatterns,
                            re_path(
                                r"",
                                EventLoopAuthMiddlewareStack(URLRouter(websocket_urlpatterns)),
                            ),
                        ]
                    )
                ),
            )
        ),
    }
)
