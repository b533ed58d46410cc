"""`{{ pair|pair_names }}`: «Ana y Luis» in HTML, each name a player chose in its own `<bdi>`."""

from __future__ import annotations

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from accounts.names import bdi

from ..models import Pair

register = template.Library()


@register.filter
def pair_names(pair: Pair | None) -> SafeString | str:
    if pair is None:
        return "—"
    names = {"a": bdi(pair.first.public_name), "b": bdi(pair.second.public_name)}
    return mark_safe(escape(gettext("%(a)s y %(b)s")) % names)  # the pattern escaped, the names too
