"""Site-wide guards on what a request may carry, and on what it holds when it is done."""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponse, QueryDict
from django.views.defaults import bad_request

from accounts.hashers import release_connections


def _carries_nul(data: QueryDict) -> bool:
    return any("\x00" in key or any("\x00" in v for v in values) for key, values in data.lists())


class RejectNulMiddleware:
    """A NUL character in the path, the query or the form data gets the site's 400 page.

    PostgreSQL stores no NUL in text and refuses it in a comparison, so any view that looked such
    a value up (`/ranking/?q=%00`, `/jugadores/a%00b/`) failed with a 500; no name, search or
    token of the site contains one.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.path or _carries_nul(request.GET) or _carries_nul(request.POST):
            return bad_request(request, SuspiciousOperation("NUL character in the request"))
        return self.get_response(request)


class ConnectionsBackMiddleware:
    """The request's database connections go back to the pool as soon as its thread is done,
    whether or not anybody still waits for the answer.

    Django gives them back when the response is closed, from the event loop. When the visitor
    leaves while the view still runs (a log-in waiting for its hash on a busy machine) and the
    view outlasts daphne's `application_close_timeout`, daphne cancels the request and that close
    never comes: the thread finished the view and kept its connection for good. A few dozen such
    log-ins emptied the pool (`DB_POOL_MAX`) and every page and socket of the process failed
    with it (#34, 4). This is the outermost middleware, so it runs in the view's thread last.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            return self.get_response(request)
        finally:
            release_connections()
