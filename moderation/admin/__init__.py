"""The moderation admin: the report queue, the audit log, and the player and table admins of the
accounts, games and tournaments apps registered again with the moderators' measures.
"""

from . import players, reports, tables, tournaments

__all__ = ["players", "reports", "tables", "tournaments"]
