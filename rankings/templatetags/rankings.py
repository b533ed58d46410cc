"""Small filters for the rankings pages: ``{% load rankings %}``."""

from __future__ import annotations

from django import template
from django.utils.formats import number_format

register = template.Library()


@register.filter
def rating(value: float | None) -> str:
    """A rating as a whole number (ratings are kept unrounded)."""
    return "" if value is None else str(round(value))


@register.filter
def signed(value: float | None) -> str:
    """A rating change: «+12», «−8», «±0»."""
    if value is None:
        return ""
    n = round(value)
    if n > 0:
        return f"+{n}"
    if n < 0:
        return f"−{-n}"
    return "±0"


@register.filter
def percent(value: float | None) -> str:
    if value is None:
        return "—"
    # Rounded, not cut: 1 of 6 is 17 %, not 16 %.
    return f"{number_format(round(value * 100), 0)} %"


@register.filter
def team_letter(team: int) -> str:
    return "AB"[team] if team in (0, 1) else ""
