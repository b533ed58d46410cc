"""Tournaments played to the end through the real stack: daphne, a Celery worker with beat,
PostgreSQL and Redis, sixteen scripted players on real WebSockets (tests/tournaments/players.py)
and short clocks. Standings are checked against a computation by hand from the tables."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games.models import Abandonment, Table
from rankings.models import PlayerRating, RatedGame
from tests.factories import session_cookie
from tests.live import celery_worker, daphne_process, wait_until
from tournaments import queries
from tournaments.models import Match, Pair, Tournament

from .players import Player, play_all
from .support import check_in_all, make_tournament, register_pairs

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

#: Seconds a seat waits for its player in these tests (MUS_RECONNECT_SECONDS).
RECONNECT = "6"
ENV = {"MUS_RECONNECT_SECONDS": RECONNECT, "MUS_SWEEP_SECONDS": "1"}


def seeded(n: int, **fields: Any) -> tuple[Tournament, list[Pair]]:
    """`n` registered, checked-in pairs with ratings that make them seeds 1..n in order."""
    tournament = make_tournament(turn_seconds=5, **fields)
    pairs = register_pairs(tournament, n)
    for i, pair in enumerate(pairs):
        for user in (pair.first, pair.second):
            PlayerRating.objects.create(user=user, mode=tournament.mode, rating=1800 - 40 * i)
    check_in_all(tournament, pairs)
    return tournament, pairs


def start_soon(tournament: Tournament) -> None:
    """The start comes in a moment (the worker and daphne are up): Celery beat starts it."""
    starts = timezone.now() + timedelta(seconds=1)
    Tournament.objects.filter(pk=tournament.pk).update(
        starts_at=starts, registration_deadline=starts
    )


def scripted(base: str, tournament: Tournament, pairs: list[Pair]) -> list[Player]:
    start_soon(tournament)
    return [
        Player(base, tournament.pk, user.username, session_cookie(user))
        for pair in pairs
        for user in (pair.first, pair.second)
    ]


def by_hand(tournament: Tournament) -> list[tuple[int, float, float, int]]:
    """(pair, points, Buchholz, tantos difference) for each pair, best first, computed from the
    tables themselves: in a game played to its end the winner counts 40 (reached, or won with an
    órdago) and the loser its tantos; one a pair abandoned or did not come to is 40–0 for the
    other pair (0–0 and no winner if both)."""
    points: dict[int, float] = {}
    tantos: dict[int, int] = {}
    met: dict[int, list[int]] = {}
    for match in tournament.matches.select_related("table"):
        a, b, table = match.pair_a_id, match.pair_b_id, match.table
        points.setdefault(a, 0)
        tantos.setdefault(a, 0)
        if b is None:
            points[a] += 1
            continue
        points.setdefault(b, 0)
        tantos.setdefault(b, 0)
        met.setdefault(a, []).append(b)
        met.setdefault(b, []).append(a)
        if table.status == Table.Status.FINISHED:
            score = list(table.scores)
            score[table.winner_team] = 40
            winner = a if table.winner_team == 0 else b
        else:  # abandoned or not come to: that seat's team loses (both if both teams left)
            assert table.cancel_reason in (
                Table.CancelReason.ABANDONED,
                Table.CancelReason.NO_SHOW,
            )
            losers = {match.pair_a_id if table.abandoned_seat % 2 == 0 else match.pair_b_id}
            winner = ({a, b} - losers).pop() if len(losers) == 1 else None
            score = [40, 0] if winner == a else [0, 40]
        tantos[a] += score[0] - score[1]
        tantos[b] += score[1] - score[0]
        if winner is not None:
            points[winner] += 1
    rating = dict(tournament.pairs.values_list("pk", "rating"))
    rows = [(p, points[p], sum(points[o] for o in met.get(p, [])), tantos[p]) for p in points]
    return sorted(rows, key=lambda r: (-r[1], -r[2], -r[3], -rating[r[0]]))


def pairing_delays(tournament: Tournament) -> list[float]:
    """Seconds from the end of each round's last game to the next round's pairing."""
    delays = []
    for number in range(2, tournament.planned_rounds + 1):
        ended = (
            Table.objects.filter(
                tournament_match__tournament=tournament, tournament_match__round=number - 1
            )
            .order_by("-finished_at")[0]
            .finished_at
        )
        paired = tournament.matches.filter(round=number).order_by("paired_at")[0].paired_at
        delays.append((paired - ended).total_seconds())
    return delays


def test_an_eight_pair_three_round_swiss_through_the_real_stack() -> None:
    tournament, pairs = seeded(8, rounds=3, name="Suizo real")
    with celery_worker(beat=True, **ENV) as worker, daphne_process(**ENV) as base:
        players = scripted(base, tournament, pairs)
        # One player of the last pair never comes to their second table: their seat waits the
        # reconnection budget, the game is cancelled as a no-show, and their pair loses it.
        absent = players[14]
        absent.absent_from = {2}
        asyncio.run(play_all(players, 600))
        tournament.refresh_from_db()
        # The ladder's worker has rated every game played.
        played = Table.objects.filter(
            tournament_match__tournament=tournament, status=Table.Status.FINISHED
        )
        wait_until(lambda: RatedGame.objects.filter(table__in=played).count() == played.count())
        # Each game's end queued the tournament's task (game_ended), besides beat's sweep.
        assert worker.finished("tournaments.run") >= played.count()
    assert tournament.status == Tournament.Status.FINISHED
    matches = list(tournament.matches.order_by("round", "number"))
    assert [m.round for m in matches] == [1] * 4 + [2] * 4 + [3] * 4
    assert all(m.status == Match.Status.DONE for m in matches)
    # No two pairs met twice.
    met = [frozenset((m.pair_a_id, m.pair_b_id)) for m in matches]
    assert len(set(met)) == len(met)
    # The absent player's game: a no-show, lost by their pair, never an abandonment (they never
    # came to it: docs/rules.md §8.3).
    no_show = [m for m in matches if m.outcome == Match.Outcome.NO_SHOW]
    assert len(no_show) == 1 and no_show[0].round == 2
    lost = no_show[0]
    absent_pair = pairs[7].pk
    assert absent_pair in (lost.pair_a_id, lost.pair_b_id) and lost.winner_id != absent_pair
    assert lost.table.cancel_reason == Table.CancelReason.NO_SHOW
    assert not Abandonment.objects.exists()
    assert {m.outcome for m in matches} == {Match.Outcome.PLAYED, Match.Outcome.NO_SHOW}
    # Every table had the tournament's clock, and every game counted for the ladder.
    tables = Table.objects.filter(tournament_match__tournament=tournament)
    assert set(tables.values_list("turn_seconds", "rated")) == {(5, True)}
    # Standings as computed by hand from the tables.
    shown = [
        (r["row"].pair, r["row"].points, r["row"].buchholz, r["row"].tantos)
        for r in queries.detail(tournament, pairs[0].first)["standings"]
    ]
    assert shown == by_hand(tournament)
    assert tournament.winner_id == shown[0][0]
    delays = pairing_delays(tournament)
    print(f"\nSwiss: next round paired {[f'{d:.2f} s' for d in delays]} after the last game")
    errors = sum((p.errors for p in players), Counter())
    print(f"actions sent: {sum(p.actions for p in players)}, refused: {dict(errors)}")
    assert all(d < 5 for d in delays)


def test_an_eight_pair_knockout_through_the_real_stack() -> None:
    tournament, pairs = seeded(8, format=Tournament.Format.KNOCKOUT, rounds=None, name="KO real")
    with celery_worker(beat=True, **ENV), daphne_process(**ENV) as base:
        players = scripted(base, tournament, pairs)
        asyncio.run(play_all(players, 600))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    matches = list(tournament.matches.order_by("round", "number"))
    assert [(m.round, m.number) for m in matches] == [
        (1, 0), (1, 1), (1, 2), (1, 3), (2, 0), (2, 1), (3, 0),
    ]  # fmt: skip
    assert all(m.outcome == Match.Outcome.PLAYED for m in matches)
    # Seeds 1–8, 4–5, 2–7, 3–6 in the first round; each later match between the winners of
    # the two matches before it.
    seed = {p.pk: p.seed for p in tournament.pairs.all()}
    first = [(seed[m.pair_a_id], seed[m.pair_b_id]) for m in matches[:4]]
    assert first == [(1, 8), (4, 5), (2, 7), (3, 6)]
    for m in matches[4:]:
        before = [x for x in matches if x.round == m.round - 1]
        feeders = {before[2 * m.number].winner_id, before[2 * m.number + 1].winner_id}
        assert {m.pair_a_id, m.pair_b_id} == feeders
    # Each game's winner is the table's: the pair of the team that reached 40 or won an órdago.
    for m in matches:
        assert m.winner_id == (m.pair_a_id if m.table.winner_team == 0 else m.pair_b_id)
        won = m.table.scores[m.table.winner_team] >= 40 or m.table.ended_by == "ordago"
        assert won and max(m.tantos_a, m.tantos_b) == 40
    final = matches[-1]
    assert tournament.winner_id == final.winner_id
    eliminated = set(
        tournament.pairs.filter(status=Pair.Status.ELIMINATED).values_list("pk", flat=True)
    )
    assert eliminated == {p.pk for p in pairs} - {final.winner_id}
    delays = pairing_delays(tournament)
    print(f"\nKnockout: next round paired {[f'{d:.2f} s' for d in delays]} after the last game")
    assert all(d < 5 for d in delays)
