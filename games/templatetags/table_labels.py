"""Template library ``table_labels``: the words of the live table (``games.labels``).

{% load table_labels %}
{% table_labels as words %}                  -> the dictionaries, in the active language
{{ words.acts.paso }}                        -> «Paso» / «Pass»
{{ words|json_script:"table-labels" }}       -> once per page, for the table's scripts
{{ seat|seat_name|bdi }}                     -> a seat's player (a `Seat` or a state's seat
                                                entry), a bot with its level: «Bot Nerea (fuerte)»
"""

from __future__ import annotations

from typing import Any

from django import template

from games import labels

register = template.Library()


@register.simple_tag
def table_labels() -> dict[str, Any]:
    return labels.for_table()


register.filter("seat_name", labels.seat_label)
