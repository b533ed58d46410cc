"""What the game page shows of a game's hand analysis (`rankings.analysis`): the panel (ask for
it, its progress, the summary) and, in the replay, the decision taken at the step shown.

Decisions are numbered as the replay's steps: the decision at ``?mano=n&paso=k`` is action k+1
of hand n, taken by its player with the table as the replay shows it at step k.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

from django.utils.translation import gettext_lazy as _

from games import labels
from games.engine import analysis as engine_analysis

from .models import GameAnalysis
from .replay import said_label

#: The lances the estimator gives chances for, in the order of the game.
LANCES = ("grande", "chica", "pares", "juego")

#: A decision's cost from which it is marked: «dudosa» and «grave».
DOUBTFUL = 0.03
BAD = 0.10

SEVERITY = {"grave": _("grave"), "dudosa": _("dudosa")}


def severity(cost: float | None) -> str:
    if cost is None:
        return ""
    if cost >= BAD:
        return "grave"
    if cost >= DOUBTFUL:
        return "dudosa"
    return ""


def step_url(hand: int, step: int) -> str:
    return "?" + urlencode({"mano": hand, "paso": step}) + "#replay"


def action_text(action: Mapping[str, Any] | None) -> str:
    """An action of the analysis as the table says it («Envido 2», «Cambia 3»)."""
    return said_label(action) if action else "—"


def lance_percent(d: Mapping[str, Any]) -> int | None:
    """The chance of the lance being bet on (punto is juego's place), as a percentage: what
    makes «an órdago with a 20 % chance» stand out. None outside the lances."""
    lance = "juego" if d.get("lance") == "punto" else d.get("lance")
    chances = d.get("chances") or {}
    return round(100 * float(chances[lance])) if lance in chances else None


def decision_row(d: Mapping[str, Any], names: Sequence[str]) -> dict[str, Any]:
    """One decision as the page shows it."""
    cost = d.get("cost")
    level = severity(cost)
    return {
        "hand": d["hand"],
        "step": d["step"],
        "url": step_url(d["hand"], d["step"]),
        "seat": d["seat"],
        "team": d["seat"] % 2,
        "name": names[d["seat"]],
        "said": action_text(d["action"]),
        "cards": list(d["action"].get("cards") or []),
        "clock": d.get("clock", False),
        "best": action_text(d.get("best")),
        "best_cards": list((d.get("best") or {}).get("cards") or []),
        "same": d.get("same", False),
        "lance": str(labels.LANCES[d["lance"]]) if d.get("lance") in labels.LANCES else "",
        "phase": str(labels.PHASES.get(d.get("phase") or "", d.get("phase") or "")),
        "chances": [
            {
                "lance": lance,
                "label": str(labels.LANCES[lance]),
                "percent": round(100 * float(d["chances"][lance])),
            }
            for lance in LANCES
            if lance in (d.get("chances") or {})
        ],
        "lance_percent": lance_percent(d),
        "cost": cost,
        "cost_points": None if cost is None else round(100 * cost, 1),
        "severity": level,
        "severity_label": str(SEVERITY[level]) if level else "",
    }


def seat_costs(decisions: Sequence[Mapping[str, Any]], seat: int) -> dict[str, Any]:
    """What a seat's decisions cost, as a player reads it: the average chance of winning the
    game lost per valued decision and the costliest one, in percentage points. (A sum would
    add chances of different moments past 100: no chance anybody had.)"""
    costs = [float(d["cost"]) for d in decisions if d["seat"] == seat and d.get("cost") is not None]
    return {
        "team": seat % 2,
        "valued": len(costs),
        "mean_points": round(100 * sum(costs) / len(costs), 1) if costs else None,
        "max_points": round(100 * max(costs), 1) if costs else None,
    }


def _decisions(item: GameAnalysis | None) -> list[dict[str, Any]] | None:
    if item is None or item.status != GameAnalysis.Status.DONE or not item.result:
        return None
    if item.result.get("format") != engine_analysis.FORMAT:
        return None
    return list(item.result.get("decisions") or [])


def panel(item: GameAnalysis | None, names: Sequence[str]) -> dict[str, Any]:
    """The analysis panel of the game page: its state and, once made, the summary."""
    decisions = _decisions(item)
    context: dict[str, Any] = {
        "item": item,
        "ready": decisions is not None,
        "polling": item is not None
        and item.status
        in (
            GameAnalysis.Status.PENDING,
            GameAnalysis.Status.RUNNING,
        ),
        "failed": item is not None and item.status == GameAnalysis.Status.FAILED,
    }
    if decisions is None or item is None or item.result is None:
        return context
    summary = item.result.get("summary") or {}
    context["worst"] = [decision_row(decisions[i], names) for i in summary.get("worst") or []]
    context["seats"] = [
        {**seat, **seat_costs(decisions, seat["seat"]), "name": names[seat["seat"]]}
        for seat in summary.get("seats") or []
    ]
    context["count"] = len(decisions)
    return context


def at_step(
    item: GameAnalysis | None, hand: int, step: int, names: Sequence[str]
) -> dict[str, Any] | None:
    """In the replay at hand `hand`, step `step`: the decision taken there (the next action) and
    the hand's decisions with their marks; None when there is no analysis yet."""
    decisions = _decisions(item)
    if decisions is None:
        return None
    in_hand = [d for d in decisions if d["hand"] == hand]
    here = next((d for d in in_hand if d["step"] == step), None)
    return {
        "decision": decision_row(here, names) if here else None,
        "hand": [decision_row(d, names) for d in in_hand],
    }
