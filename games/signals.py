"""Signals other apps listen to (the rankings app rates finished and abandoned games)."""

from django.dispatch import Signal

#: Sent once the transaction that finished a game has committed; kwargs: table_id.
game_finished = Signal()

#: Sent once the transaction that cancelled a rated game for an abandoned seat has committed
#: (docs/rules.md §8.4); kwargs: table_id, user_id, seat.
game_abandoned = Signal()
