"""Names players chose, shown so that they cannot reorder the page around them:
`{{ player.public_name|bdi }}` in HTML, `|isolate` in plain text (a page title)."""

from django import template

from accounts import names

register = template.Library()
register.filter("bdi", names.bdi)
register.filter("isolate", names.isolate)
