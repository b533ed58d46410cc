"""Signals other apps listen to (the rankings app rates a game, a tournament moves on)."""

from django.dispatch import Signal

#: Sent once for every game that ends, however it ends (`games.services.finish`), after the
#: transaction that ended it has committed; kwargs: table_id, ending (a
#: `games.services.endings.GameEnd`: how it ended, who won, who was charged).
game_ended = Signal()
