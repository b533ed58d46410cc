"""The actions a player can send, in the shape records and the protocol use."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import IllegalAction

#: Acts written to records. ``repartir`` (deal the next hand) is only an Action: a record shows
#: the new hand with its deck instead.
RECORD_ACTS: frozenset[str] = frozenset(
    ("mus", "corto", "descarte", "paso", "envido", "ordago", "quiero", "no_quiero")
)
ACTS: frozenset[str] = RECORD_ACTS | {"repartir"}


@dataclass(frozen=True, slots=True)
class Action:
    """One player's action. ``to`` only for ``envido``; ``cards`` (codes) only for ``descarte``."""

    seat: int
    act: str
    to: int | None = None
    cards: tuple[str, ...] | None = None

    @classmethod
    def from_dict(cls, d: Any, seat: int | None = None) -> Action:
        """Build an Action from its record/protocol form, strictly.

        ``seat`` (when given, e.g. from the session) is used instead of a ``"seat"`` key; if
        both are present they must agree. Shape errors raise IllegalAction ``malformed``, an act
        that does not exist raises ``unknown_act``. Whether the action is legal *now* is checked
        by ``apply``.
        """
        if not isinstance(d, dict):
            raise IllegalAction("malformed", "An action must be a JSON object.")
        extra = set(d) - {"seat", "act", "to", "cards"}
        if extra:
            raise IllegalAction("malformed", f"Unknown field {sorted(map(str, extra))[0]!r}.")
        if "seat" in d:
            s = d["seat"]
            if type(s) is not int or not 0 <= s <= 3:
                raise IllegalAction("malformed", "The seat must be a number from 0 to 3.")
            if seat is not None and s != seat:
                raise IllegalAction("malformed", "That action is for another seat.")
            seat = s
        if seat is None:
            raise IllegalAction("malformed", "The action does not say which seat it is for.")
        if type(seat) is not int or not 0 <= seat <= 3:
            raise IllegalAction("malformed", "The seat must be a number from 0 to 3.")
        act = d.get("act")
        if type(act) is not str:
            raise IllegalAction("malformed", "The action has no act.")
        if act not in ACTS:
            raise IllegalAction("unknown_act", f"There is no action called {act[:30]!r}.")
        to = d.get("to")
        cards = d.get("cards")
        if act == "envido":
            if type(to) is not int:
                raise IllegalAction("malformed", "An envido needs a whole number of tantos.")
        elif "to" in d:
            raise IllegalAction("malformed", f"A {act} takes no amount.")
        if act == "descarte":
            if not isinstance(cards, (list, tuple)) or not all(type(c) is str for c in cards):
                raise IllegalAction("malformed", "A descarte needs the list of cards.")
            cards = tuple(cards)
        elif "cards" in d:
            raise IllegalAction("malformed", f"A {act} takes no cards.")
        return cls(seat, act, to, cards)

    def to_dict(self) -> dict[str, Any]:
        """The record form: ``{"seat", "act"}`` plus ``"to"`` or ``"cards"`` when they apply."""
        d: dict[str, Any] = {"seat": self.seat, "act": self.act}
        if self.to is not None:
            d["to"] = self.to
        if self.cards is not None:
            d["cards"] = list(self.cards)
        return d
