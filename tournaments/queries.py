"""What the tournament pages show: the lists, a tournament's registration, standings, rounds
and bracket, and the player's own pair and table. A fixed number of queries per page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.names import isolate
from games.models import Table

from . import bracket, standings
from .models import Match, Pair, Tournament
from .services.registration import pair_of
from .services.rounds import results, seeds

#: Finished tournaments listed on `/torneos/` (the latest).
FINISHED_SHOWN = 20

ROUND_NAMES = {
    1: gettext_lazy("Final"),
    2: gettext_lazy("Semifinales"),
    3: gettext_lazy("Cuartos de final"),
    4: gettext_lazy("Octavos de final"),
    5: gettext_lazy("Dieciseisavos de final"),
}


def round_name(tournament: Tournament, number: int) -> str:
    if not tournament.is_swiss:
        name = ROUND_NAMES.get(tournament.planned_rounds - number + 1)
        if name is not None:
            return str(name)
    return _("Ronda %(n)s") % {"n": number}


def lists() -> dict[str, list[Tournament]]:
    """`/torneos/`: upcoming, running and finished tournaments, with their pairs counted."""
    base = Tournament.objects.select_related("winner__first", "winner__second").annotate(
        registered=Count("pairs", filter=Q(pairs__status=Pair.Status.REGISTERED)),
        entered=Count("pairs", filter=Q(pairs__status__in=Pair.ENTERED)),
    )
    return {
        "upcoming": list(
            base.filter(status=Tournament.Status.REGISTRATION).order_by("starts_at", "pk")
        ),
        "running": list(base.filter(status=Tournament.Status.RUNNING).order_by("starts_at", "pk")),
        "finished": list(
            base.filter(
                status__in=(Tournament.Status.FINISHED, Tournament.Status.CANCELLED)
            ).order_by("-finished_at", "-pk")[:FINISHED_SHOWN]
        ),
    }


@dataclass
class Me:
    """The viewer's place in the tournament."""

    pair: Pair | None = None
    invitation: Pair | None = None  # a pair that waits for the viewer's answer
    checked_in: bool = False
    table: Table | None = None  # the viewer's tournament table in play now


def me(tournament: Tournament, user: Any) -> Me:
    if not user.is_authenticated:
        return Me()
    pair = pair_of(tournament, user, (*Pair.LIVE, Pair.Status.ELIMINATED, Pair.Status.REMOVED))
    if pair is None:
        return Me()
    found = Me(pair=pair, checked_in=pair.checked_in_at(user.pk) is not None)
    if pair.status == Pair.Status.INVITED and pair.second_id == user.pk:
        found.invitation = pair
    if pair.status == Pair.Status.PLAYING and tournament.status == Tournament.Status.RUNNING:
        match = (
            tournament.matches.filter(
                round=tournament.current_round,
                status=Match.Status.PLAYING,
                table__status=Table.Status.PLAYING,
            )
            .filter(Q(pair_a=pair) | Q(pair_b=pair))
            .select_related("table")
            .first()
        )
        found.table = None if match is None else match.table
    return found


def table_url(match: Match) -> str:
    """Where to see a match's game: its live table while it is played, then its game page."""
    if match.table is None:
        return ""
    if match.table.status == Table.Status.PLAYING:
        return reverse("games:table", args=[match.table_id])
    return reverse("game_detail", args=[match.table_id])


#: The longest name a bracket's box shows whole.
SHORT_NAME = 10


def _short(name: str) -> str:
    return name if len(name) <= SHORT_NAME else name[: SHORT_NAME - 1] + "…"


def pair_name(pair: Pair | None, *, short: bool = False) -> str:
    """«Ana y Luis», each name isolated (for plain text and SVG); `short` cuts long names."""
    if pair is None:
        return "—"
    cut = _short if short else str
    return _("%(a)s y %(b)s") % {
        "a": isolate(cut(pair.first.public_name)),
        "b": isolate(cut(pair.second.public_name)),
    }


def detail(tournament: Tournament, user: Any) -> dict[str, Any]:
    """Everything the tournament page shows (its polled part included)."""
    now = timezone.now()
    pairs = list(
        tournament.pairs.select_related("first", "second").order_by("seed", "created_at", "pk")
    )
    by_id = {p.pk: p for p in pairs}
    matches = list(tournament.matches.select_related("table").order_by("round", "number"))
    viewer = me(tournament, user)
    registration = tournament.status == Tournament.Status.REGISTRATION
    context: dict[str, Any] = {
        "tournament": tournament,
        "me": viewer,
        "registration_open": registration
        and now <= tournament.registration_deadline
        and now < tournament.starts_at,
        "checkin_open": registration and tournament.checkin_opens_at <= now < tournament.starts_at,
        "registered": [p for p in pairs if p.status == Pair.Status.REGISTERED],
        "entered": [p for p in pairs if p.status in Pair.ENTERED],
        "rounds": _rounds(tournament, matches, by_id, viewer.pair),
        "standings": [],
        "bracket": None,
        "live": not tournament.is_over,
        # The countdown to the start, as the polled part says it («empieza en 12 minutos»):
        # None once the start time has come.
        "starts_in": tournament.starts_at - now
        if registration and now < tournament.starts_at
        else None,
        "starting": registration and now >= tournament.starts_at,
    }
    if tournament.started_at is not None and tournament.is_swiss:
        rows = standings.standings(seeds(tournament), results(matches))
        context["standings"] = [{"row": row, "pair": by_id[row.pair]} for row in rows]
    if tournament.started_at is not None and not tournament.is_swiss and matches:
        context["bracket"] = _bracket(tournament, matches, by_id)
    return context


def _rounds(
    tournament: Tournament, matches: list[Match], by_id: dict[int, Pair], mine: Pair | None
) -> list[dict[str, Any]]:
    rounds: dict[int, list[dict[str, Any]]] = {}
    for match in matches:
        if match.pair_a_id is None:
            continue  # an empty place of a knockout (both pairs before it lost)
        rounds.setdefault(match.round, []).append(
            {
                "match": match,
                "a": by_id.get(match.pair_a_id),
                "b": by_id.get(match.pair_b_id) if match.pair_b_id else None,
                "mine": mine is not None and mine.pk in (match.pair_a_id, match.pair_b_id),
                "url": table_url(match),
            }
        )
    return [
        {"number": n, "name": round_name(tournament, n), "matches": items}
        for n, items in sorted(rounds.items(), reverse=True)
    ]


def _bracket(
    tournament: Tournament, matches: list[Match], by_id: dict[int, Pair]
) -> dict[str, Any]:
    """The knockout's bracket: every round, those not paired yet with empty places."""
    first = [m for m in matches if m.round == 1]
    columns: list[list[tuple[bracket.Side, bracket.Side, str]]] = []
    for r in range(1, tournament.planned_rounds + 1):
        count = max(1, len(first) // 2 ** (r - 1))
        played = {m.number: m for m in matches if m.round == r}
        column = []
        for place in range(count):
            match = played.get(place)
            if match is None:
                column.append((bracket.Side("…"), bracket.Side("…"), ""))
                continue
            column.append(_sides(match, by_id))
        columns.append(column)
    titles = [round_name(tournament, r) for r in range(1, tournament.planned_rounds + 1)]
    return bracket.bracket(columns, titles)


def _sides(match: Match, by_id: dict[int, Pair]) -> tuple[bracket.Side, bracket.Side, str]:
    a = by_id.get(match.pair_a_id) if match.pair_a_id else None
    b = by_id.get(match.pair_b_id) if match.pair_b_id else None
    done = match.status == Match.Status.DONE
    played = done and match.outcome != Match.Outcome.BYE
    side_a = bracket.Side(
        pair_name(a, short=True) if a else "—",
        full=pair_name(a) if a else "",
        won=done and a is not None and match.winner_id == a.pk,
        tantos=str(match.tantos_a) if played else "",
    )
    side_b = bracket.Side(
        pair_name(b, short=True) if b else (_("descansa") if a else "—"),
        full=pair_name(b) if b else "",
        won=done and b is not None and match.winner_id == b.pk,
        tantos=str(match.tantos_b) if played else "",
    )
    return side_a, side_b, table_url(match)
