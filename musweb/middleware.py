"""Site-wide guards on what a request may carry."""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponse, QueryDict
from django.views.defaults import bad_request


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
