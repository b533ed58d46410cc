"""Posting Django admin actions, as the moderation tests do through the change lists."""

from __future__ import annotations

from typing import Any

from django.test import Client


def action_post(client: Client, url: str, action: str, ids: list[int], **data: Any) -> Any:
    """Post an admin action from the change list (the first step: the form)."""
    return client.post(url, {"action": action, "_selected_action": ids, "index": 0, **data})


def confirm_post(client: Client, url: str, action: str, ids: list[int], **data: Any) -> Any:
    """Post an admin action's intermediate form back (the second step: apply)."""
    return client.post(url, {"action": action, "_selected_action": ids, "confirmar": "1", **data})
