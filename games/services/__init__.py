"""Every change to a table, by concern; views, the consumer, Celery tasks, bots, tools and other
apps call these functions and nothing below them.

- `tables`: a table's life before and after its game (create, sit, stand, kick, close, start,
  rematch, and a table set up for four by somebody else: `start_arranged`); `kicks`: who the host took off a table (they do not sit there again); `bots`: bot
  seats, practice and bot turns.
- `play` (with the pure planning of `moves`): a player's or a bot's action, the clock's
  defaults, cancelling a game; all committed by `pipeline`, the one move pipeline (load, plan,
  compare-and-set, publish), whose steps run through `executor` (Django's connection, or the
  event loop's own: `adb`).
- `connections`: sockets joining and leaving, reconnection windows; `live`: the socket's calls.
- `clockwork`: after an outage, the clocks move on by the time lost (nobody is charged for it).
- `state`: what each audience sees, and broadcasts; `access`: who may see a table.
- `chat`, `presence`: table chat and who is online.
- `fairplay`: how often the same two pairs count for the ladder, checked at the start.
- `queue`: quick play (the pure matcher is `games.matchmaking`); `invitations`: inviting a
  friend to your table or to be your partner; `notify`: messages to a player's every page.
- `storage` (loading, the game cache, compare-and-set), `turns`, `groups`, `adb` and `errors` are
  the layer underneath.

Import the public names from here (`from games import services`); the socket's calls from
`games.services.live`.
"""

from . import clockwork, invitations, lobby, queue
from .abandonment import check_may_sit, suspended_until
from .access import can_view, can_view_in, invitation, remember_invitation
from .bots import fill_with_bots, leave_practice, play_bot_turn, start_practice
from .connections import (
    beat,
    cancel_if_abandoned,
    overdue_seats,
    reap_silent_processes,
    socket_closed,
    socket_opened,
)
from .errors import OUTAGES, Conflict, SeatsRefused, ServiceError, Unavailable
from .groups import collect_group_messages, group_name, release_channel
from .moves import Outcome, step_key
from .play import act, act_on_loop, apply_action, cancel_game, play_defaults
from .state import ALL_KEYS, broadcast, build_states, state_for, state_text, table_message
from .storage import game_of, live_seat_of, load_table, seat_number, seat_rows
from .tables import (
    close_stale_rematches,
    close_table,
    create_table,
    free_away_seats,
    kick,
    leave_seat,
    rematch,
    seat_four,
    start_arranged,
    start_game,
    take_seat,
)

__all__ = [
    "ALL_KEYS",
    "OUTAGES",
    "Conflict",
    "Outcome",
    "SeatsRefused",
    "ServiceError",
    "Unavailable",
    "act",
    "act_on_loop",
    "apply_action",
    "beat",
    "broadcast",
    "build_states",
    "can_view",
    "can_view_in",
    "cancel_game",
    "cancel_if_abandoned",
    "check_may_sit",
    "clockwork",
    "close_stale_rematches",
    "close_table",
    "collect_group_messages",
    "create_table",
    "fill_with_bots",
    "free_away_seats",
    "game_of",
    "group_name",
    "invitation",
    "invitations",
    "kick",
    "leave_practice",
    "leave_seat",
    "live_seat_of",
    "load_table",
    "lobby",
    "overdue_seats",
    "play_bot_turn",
    "play_defaults",
    "queue",
    "reap_silent_processes",
    "release_channel",
    "rematch",
    "remember_invitation",
    "seat_four",
    "seat_number",
    "seat_rows",
    "socket_closed",
    "socket_opened",
    "start_arranged",
    "start_game",
    "start_practice",
    "state_for",
    "state_text",
    "step_key",
    "suspended_until",
    "table_message",
    "take_seat",
]
