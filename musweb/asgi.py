"""ASGI entry point: Django for HTTP, Channels for the table WebSockets."""

import os
import sys

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "musweb.settings")
# The database work of every socket runs in one thread beside the event loop. After each query
# that thread needs the GIL back, and by default it waits up to 5 ms for the busy loop to let go;
# under load that wait, not the query, set the pace of every action (docs/performance.md).
sys.setswitchinterval(float(os.environ.get("MUS_GIL_SWITCH_SECONDS", "0.0005")))
# Django must be set up before the consumers (and their models) are imported.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from .routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)
