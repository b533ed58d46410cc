"""Template library ``table_labels``: the words of the live table (``games.labels``).

{% load table_labels %}
{% table_labels as words %}                  -> the dictionaries, in the active language
{{ words.acts.paso }}                        -> «Paso» / «Pass»
{{ words|json_script:"table-labels" }}       -> once per page, for the table's scripts
"""

from __future__ import annotations

from typing import Any

from django import template

from games import labels

register = template.Library()


@register.simple_tag
def table_labels() -> dict[str, Any]:
    return labels.for_table()
