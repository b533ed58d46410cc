"""Password spraying and bulk sign-up from one address.

django-axes locks a username from an address after `AXES_FAILURE_LIMIT` failures. Trying one
password on many usernames never reaches that, so failures from an address are also counted
across usernames (`AXES_IP_FAILURE_LIMIT`, from axes' own records of them). Sign-ups are counted
per address in Redis (`SIGNUP_PER_IP_PER_HOUR`). Both limits come from the environment, so tests
and load tools can raise them.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from axes.attempts import get_cool_off_threshold
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_ip_address
from axes.models import AccessAttempt
from django.conf import settings
from django.core.cache import cache
from django.db.models import Sum
from django.http import HttpRequest

SIGNUP_WINDOW_SECONDS = 3600


def attempted_username(request: HttpRequest, credentials: dict[str, Any] | None) -> str | None:
    """The username axes counts failures under (`AXES_USERNAME_CALLABLE`): as log-in finds
    accounts, whatever the case, so «Alicia», «alicia» and «ALICIA» share one count."""
    source = credentials if credentials is not None else request.POST
    username = source.get(settings.AXES_USERNAME_FORM_FIELD) if source else None
    if not isinstance(username, str):
        return None
    return unicodedata.normalize("NFKC", username).lower()


def address_failures(request: HttpRequest) -> int:
    """Failed log-ins from the request's address within the cool-off, whatever the username."""
    attempts = AccessAttempt.objects.filter(
        ip_address=request.axes_ip_address,
        attempt_time__gte=get_cool_off_threshold(request),
    )
    return attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0


class AxesHandler(AxesDatabaseHandler):
    """axes' database handler that also locks an address out after `AXES_IP_FAILURE_LIMIT`
    failures across usernames; the lockout page says so (`request.axes_ip_locked_out`)."""

    def _address_locked(self, request: HttpRequest) -> bool:
        if address_failures(request) < settings.AXES_IP_FAILURE_LIMIT:
            return False
        request.axes_ip_locked_out = True
        return True

    def is_locked(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> bool:
        if super().is_locked(request, credentials):
            return True
        return self._address_locked(request)

    def user_login_failed(
        self, sender: Any, credentials: dict[str, Any], request: Any = None, **kwargs: Any
    ) -> None:
        super().user_login_failed(sender, credentials, request, **kwargs)
        if request is None or getattr(request, "axes_locked_out", False):
            return
        if not self.is_whitelisted(request, credentials) and self._address_locked(request):
            # The failure that reaches the limit is answered with the lockout, as axes does for
            # a username's.
            request.axes_locked_out = True
            request.axes_credentials = credentials


def signup_allowed(request: HttpRequest) -> bool:
    """Count a sign-up from the request's address; False once more than
    `SIGNUP_PER_IP_PER_HOUR` were counted there within the hour after the first."""
    key = f"signup-ip:{get_client_ip_address(request) or 'unknown'}"
    cache.add(key, 0, timeout=SIGNUP_WINDOW_SECONDS)
    try:
        count = cache.incr(key)
    except ValueError:  # the key expired between the two calls
        cache.set(key, 1, timeout=SIGNUP_WINDOW_SECONDS)
        count = 1
    return count <= settings.SIGNUP_PER_IP_PER_HOUR
