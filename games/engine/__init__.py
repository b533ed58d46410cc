"""Barajamos' Mus rules engine: pure Python, no Django.

See docs/engine.md. The web layer uses ``new_game``, ``legal_actions``, ``apply``, ``view``,
``default_action``, ``cancel`` and the record functions; everything is re-exported here.
"""

from .actions import Action
from .cards import MODES
from .errors import IllegalAction, RecordError
from .game import LANCES, PHASES, Game, apply, cancel, default_action, legal_actions, new_game
from .record import export_record, replay, replay_result
from .view import seat_view, step_key, view

__all__ = [
    "LANCES",
    "MODES",
    "PHASES",
    "Action",
    "Game",
    "IllegalAction",
    "RecordError",
    "apply",
    "cancel",
    "default_action",
    "export_record",
    "legal_actions",
    "new_game",
    "replay",
    "replay_result",
    "seat_view",
    "step_key",
    "view",
]
