import math
from datetime import timedelta

from django import template

register = template.Library()


@register.filter
def minutes(value: timedelta | None) -> int:
    """Whole minutes in a timedelta, rounded up (a 30-second wait is "1 minute")."""
    if not value:
        return 0
    return max(1, math.ceil(value.total_seconds() / 60))
