"""Every change to a tournament, by concern; views, the admin's measures (through
`moderation.actions`), Celery tasks and tests call these functions.

- `registration`: inviting a partner, accepting or declining, withdrawing, checking in
  («Estoy»), and the check that keeps a checked-in player from sitting elsewhere.
- `rounds`: the start, each round's pairing and tables, results, the end (`run`, `sweep`).
- `staff`: cancelling a tournament, removing a pair, taking back an invitation, deciding a game.
- `notify`: what players are told wherever they are on the site.
"""

from .registration import accept, check_in, check_may_sit, committed, decline, invite, withdraw
from .rounds import run, start, sweep
from .staff import adjudicate, cancel, remove_pair, withdraw_invitation

__all__ = [
    "accept",
    "adjudicate",
    "cancel",
    "check_in",
    "check_may_sit",
    "committed",
    "decline",
    "invite",
    "remove_pair",
    "run",
    "start",
    "sweep",
    "withdraw",
    "withdraw_invitation",
]
