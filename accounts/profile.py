"""Extension points of the public profile page (`/jugadores/<username>/`).

The page has two sections that other apps fill: the ratings per mode and the game history. An
app contributes by registering a context provider, usually from its ``AppConfig.ready()``::

    from accounts.profile import register_profile_context

    @register_profile_context
    def ratings_for_profile(request, player):
        return {"ratings": [...]}                 # fills the default ratings section
        # or {"ratings_template": "rankings/profile_ratings.html", ...} to draw it yourself

Context keys the page understands (all optional; the defaults render empty states):

``ratings``
    A list of objects or dicts with ``mode_label``, ``rating`` and ``games`` (games played).
``games``
    A list of objects or dicts with ``url``, ``title``, ``finished_at`` and ``result``.
``status_template``
    A template included under the player's name, for what they are doing now (games: the
    table they sit at).
``ratings_template`` / ``history_template``
    Templates included in the two sections instead of ``accounts/profile_ratings.html`` and
    ``accounts/profile_history.html``; they receive the whole page context (``player`` included).
``sections``
    Templates of more sections, included after those two in the order the providers give them
    (every provider's are kept, not replaced); they receive the whole page context.

Templates that extend ``accounts/profile.html`` may also override the ``ratings`` and
``history`` blocks, or add to the ``profile_extra`` block.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.http import HttpRequest

from . import relations

ProfileContextProvider = Callable[[HttpRequest, Any], Mapping[str, Any] | None]

_providers: list[ProfileContextProvider] = []


def register_profile_context(provider: ProfileContextProvider) -> ProfileContextProvider:
    """Add `provider(request, player) -> dict` to the profile page's context (idempotent)."""
    if provider not in _providers:
        _providers.append(provider)
    return provider


def unregister_profile_context(provider: ProfileContextProvider) -> None:
    if provider in _providers:
        _providers.remove(provider)


def profile_context(request: HttpRequest, player: Any) -> dict[str, Any]:
    context: dict[str, Any] = {
        "player": player,
        "is_own_profile": request.user.is_authenticated and request.user.pk == player.pk,
        "ratings": [],
        "games": [],
        "ratings_template": "accounts/profile_ratings.html",
        "history_template": "accounts/profile_history.html",
        # Whether the viewer follows and blocks this player (empty on your own profile).
        "relation": relations.relation(request.user, player),
    }
    sections: list[str] = []
    for provider in _providers:
        extra = dict(provider(request, player) or {})
        sections += extra.pop("sections", [])
        context.update(extra)
    context["sections"] = sections
    return context
