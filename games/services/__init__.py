"""Every change to a table, by concern; views, the consumer, Celery tasks, bots, tools and other
apps call these functions and nothing below them.

The modules, by concept (docs/architecture.md, «The service layer»):

- **The pipeline** (every change to a game): `pipeline` (load, plan, compare-and-set, publish,
  written once as steps), `executor` (where the steps run: Django's connection, or the event
  loop's own, `adb`), `storage` (the one load statement, the caches, the compare-and-set
  statement), `moves` (pure planning), `play` (a player's or a bot's action, the first deal).
- **The clock**: `clock` (the facts of the pure `games.clock.TurnClock`), `clockwork` (the sweep
  that plays overdue turns; after an outage, every clock moved on by the time lost).
- **The end of a game**: `finish` (the finisher: every ending but a game played out),
  `endings` (the `GameEnd`, announced once with `games.signals.game_ended`), `abandonment`.
- **Who may**: `access` (see, sit, manage; the site acts as `SYSTEM`), `kicks`.
- **Tables**: `tables` (create, sit, stand, kick, close, start, rematch, `start_arranged`),
  `bots` (bot seats, practice, bot turns), `fairplay` (the same two pairs, at the start),
  `turns` (whose turn it is, the next bot's turn).
- **Sockets and presence**: `connections` (sockets coming and going, server processes' beats),
  `live` and `player_live` (one call per frame of the table's and the player's socket),
  `presence` (who is online), `chat`, `state` (what each audience sees), `groups` and `notify`
  (messages to a table, to a player).
- **Matchmaking**: `queue` (quick play; the pure matcher is `games.matchmaking`), `bot_queue`
  and `bot_api` (players' bots), `queue_limits`, `invitations`, `withdrawals`; `lobby`.
- **Underneath**: `errors` (refusals), `ratelimit`, `redis_clients`.

Import the public names from here (`from games import services`). Other apps and `tools/`
import nothing else of this package (import-linter's contract in pyproject.toml): a name they
need is made public here, by the name it has below, or by a longer one where the module's
name said what the short one is about:

- for tournaments: `check_invitation_rate` (`invitations.check_rate`: a tournament invitation
  counts as one more invitation), `send_groups`, `tell` (a message to a
  player's every page);
- for moderation: `cancel_invitations` (`withdrawals.cancel`), `leave_queue` (`queue.leave`);
- for rankings: `within_rate` (the shared Redis rate limit); how a game ended and whether it
  moves a ladder (`GameEnd`, `ending_of`, `ladder_result`, `LADDER_RESULT`);
- for Celery beat (musweb): `record_outage` (`clockwork.record_outage`);
- for the benchmarks: `join_queue`, `sweep_queue`, `reap_queue_sockets`
  (`queue.join`, `queue.sweep`, `queue.reap_silent_sockets`), `expire_invitations`
  (`invitations.expire`), `PAIR_GAMES_PER_DAY`.

Inside games, the socket consumers use nothing else of this package but its names here and
three modules taken whole as namespaces, one call per frame: `live` (the table's socket),
`player_live` (the player's) and `lobby` (the lobby's); the player's socket listens to
`queue_group`, as `group_name` names a table's. The rest of games (views, tasks, the bots' API,
the socket's sign-in) may still call the modules by name: the contract inside games is only
that nothing here imports them, and nothing below (models, engine) imports this package.
"""

from . import clockwork, invitations, live, lobby, player_live, queue
from .abandonment import check_may_sit, suspended_until
from .access import (
    SYSTEM,
    Actor,
    can_view,
    can_view_in,
    invitation,
    invitations_held,
    remember_invitation,
    visible_to,
)
from .bots import fill_with_bots, leave_practice, play_bot_turn, start_practice
from .clockwork import play_defaults, record_outage
from .connections import (
    beat,
    overdue_seats,
    reap_silent_processes,
    socket_closed,
    socket_opened,
)
from .endings import LADDER_RESULT, GameEnd, ending_of, ladder_result
from .errors import OUTAGES, Conflict, SeatsRefused, ServiceError, Unavailable
from .fairplay import PAIR_GAMES_PER_DAY
from .finish import cancel_game, cancel_if_abandoned
from .groups import collect_group_messages, group_name, release_channel, send_groups
from .invitations import check_rate as check_invitation_rate
from .invitations import expire as expire_invitations
from .moves import Outcome, step_key
from .notify import queue_group, tell
from .play import act, act_on_loop, apply_action
from .queue import join as join_queue
from .queue import leave as leave_queue
from .queue import reap_silent_sockets as reap_queue_sockets
from .queue import sweep as sweep_queue
from .ratelimit import within_rate
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
from .withdrawals import cancel as cancel_invitations

__all__ = [
    "ALL_KEYS",
    "LADDER_RESULT",
    "OUTAGES",
    "PAIR_GAMES_PER_DAY",
    "SYSTEM",
    "Actor",
    "Conflict",
    "GameEnd",
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
    "cancel_invitations",
    "check_invitation_rate",
    "check_may_sit",
    "clockwork",
    "close_stale_rematches",
    "close_table",
    "collect_group_messages",
    "create_table",
    "ending_of",
    "expire_invitations",
    "fill_with_bots",
    "free_away_seats",
    "game_of",
    "group_name",
    "invitation",
    "invitations",
    "invitations_held",
    "join_queue",
    "kick",
    "ladder_result",
    "leave_practice",
    "leave_queue",
    "leave_seat",
    "live",
    "live_seat_of",
    "load_table",
    "lobby",
    "overdue_seats",
    "play_bot_turn",
    "play_defaults",
    "player_live",
    "queue",
    "queue_group",
    "reap_queue_sockets",
    "reap_silent_processes",
    "record_outage",
    "release_channel",
    "rematch",
    "remember_invitation",
    "seat_four",
    "seat_number",
    "seat_rows",
    "send_groups",
    "socket_closed",
    "socket_opened",
    "start_arranged",
    "start_game",
    "start_practice",
    "state_for",
    "state_text",
    "step_key",
    "suspended_until",
    "sweep_queue",
    "table_message",
    "take_seat",
    "tell",
    "visible_to",
    "within_rate",
]
