"""The moderation admin: the report queue, the audit log, and the player and table admins of the
accounts and games apps registered again with the moderators' measures.
"""

from . import players, reports, tables

__all__ = ["players", "reports", "tables"]
