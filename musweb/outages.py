"""PostgreSQL or Redis down (a restart): pages answer the site's own 503 and sockets are closed
with «try again later», never a 500 and its traceback (docs/deploy.md, «Caídas»).

Django turns an exception anywhere under a middleware into a 500 response before the middleware
above it sees it, so the exception is noted when Django reports it (`got_request_exception`) and
`ServiceUnavailableMiddleware`, near the top, swaps that 500 for the 503 page. The page is
rendered without the request (no session, no user: they live in the services that are down), in
the visitor's language.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

from django.core.signals import got_request_exception
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils import translation

from games.health import PATH as HEALTH_PATH
from games.health import health_view
from games.services import OUTAGES, Unavailable
from games.socket_codes import CLOSE_TRY_AGAIN

log = logging.getLogger(__name__)

#: What a browser or a proxy is told to wait before trying again.
RETRY_AFTER_SECONDS = 5


@receiver(got_request_exception)
def _note_outage(sender: Any, request: HttpRequest | None = None, **_: Any) -> None:
    exc = sys.exc_info()[1]
    if request is not None and isinstance(exc, OUTAGES):
        request.service_unavailable = True  # type: ignore[attr-defined]


def unavailable_page(request: HttpRequest) -> HttpResponse:
    """The site's 503 page, in the visitor's language (their cookie or their browser's)."""
    with translation.override(translation.get_language_from_request(request)):
        body = render_to_string("503.html")
    response = HttpResponse(body, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


class ServiceUnavailableMiddleware:
    """A request that failed because PostgreSQL or Redis is down gets the 503 page."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            response = self.get_response(request)
        except OUTAGES:
            return unavailable_page(request)
        if response.status_code == 500 and getattr(request, "service_unavailable", False):
            return unavailable_page(request)
        return response


class HealthMiddleware:
    """`/salud/` (games/health.py) before anything else: no session, no user, no redirect to
    HTTPS, so a proxy or a monitor reads it over plain HTTP whatever is down."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path == HEALTH_PATH and request.method in ("GET", "HEAD"):
            return health_view(request)
        return self.get_response(request)


class SocketOutageGuard:
    """ASGI: a WebSocket whose session, consumer or channel layer fails because PostgreSQL or
    Redis is down is closed with `CLOSE_TRY_AGAIN` (accepted first, so the browser gets the
    code), not dropped: the table page keeps reconnecting and says «Reconectando…»."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        sent: set[str] = set()

        async def tracking_send(message: dict[str, Any]) -> None:
            sent.add(message["type"])
            await send(message)

        try:
            return await self.inner(scope, receive, tracking_send)
        except (*OUTAGES, Unavailable):
            log.warning("socket closed: service unavailable", exc_info=True)
            if "websocket.close" in sent:
                return None
            try:
                if "websocket.accept" not in sent:
                    await send({"type": "websocket.accept"})
                await send({"type": "websocket.close", "code": CLOSE_TRY_AGAIN})
            except Exception:  # the socket is gone already
                pass
            return None
