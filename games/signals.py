"""Signals other apps listen to (the rankings app rates finished games)."""

from django.dispatch import Signal

#: Sent once the transaction that finished a game has committed; kwargs: table_id.
game_finished = Signal()
