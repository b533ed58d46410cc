"""Template library ``table_labels``: the words of the live table (``games.labels``).

{% load table_labels %}
{% table_labels as words %}                  -> the dictionaries, in the active language
{{ words.acts.paso }}                        -> «Paso» / «Pass»
{{ words|json_script:"table-labels" }}       -> once per page, for the table's scripts
{{ seat|seat_name|bdi }}                     -> a seat's player (a `Seat` or a state's seat
                                                entry), a bot with its level: «Bot Nerea (fuerte)»
{% for n, seat in seats|by_pairs %}          -> four seats pair by pair: 0, 2 (pair A), 1, 3
{{ said|quoted }}                            -> «Paso» / “Pass”: quoted as the language quotes
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


#: The seats pair by pair: partners sit opposite (0 and 2 are pair A, 1 and 3 pair B), and a
#: list of the seats in order would alternate the pairs.
PAIR_ORDER = (0, 2, 1, 3)


@register.filter
def by_pairs(seats: list[Any]) -> list[tuple[int, Any]]:
    """The four `seats` (in seat order) as (seat number, seat), pair A's first."""
    return [(n, seats[n]) for n in PAIR_ORDER]


@register.filter
def quoted(text: Any) -> str:
    """`text` between the active language's quotation marks (`labels.QUOTED`)."""
    return labels.fill(labels.QUOTED, quoted=text)
