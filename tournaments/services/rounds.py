"""A tournament under way: the start, each round's pairing and tables, the results its games
bring, and the end.

`run(tournament_id)` is the one entry point, called when a tournament game ends (the games
app's signals, through a Celery task) and every second by Celery beat's sweep (`sweep`), which
also starts the tournaments whose time has come: it settles the games that ended, pairs the
next round once every game of the current one is decided, and sets up the tables still missing.
Each step locks the tournament's row, so running it twice at once, or late, does nothing more.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from asgiref.sync import async_to_sync
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games import services
from games.engine.game import TARGET
from games.models import ENDED_STATUSES, Table
from games.services import collect_group_messages, send_groups
from rankings import elo
from rankings.services import ratings_by_user

from .. import pairing, standings
from ..models import MAX_SWISS_ROUNDS, Match, Pair, Tournament
from . import notify
from .registration import lock

log = logging.getLogger(__name__)


# --------------------------------------------------------------------------------------------
# Starting.
# --------------------------------------------------------------------------------------------
def start(tournament_id: int) -> bool:
    """Start the tournament if its time has come: the pairs that both checked in play, seeded
    by rating; round 1 is paired. With fewer than two such pairs it is cancelled."""
    now = timezone.now()
    with transaction.atomic():
        tournament = lock(tournament_id)
        if tournament.status != Tournament.Status.REGISTRATION or tournament.starts_at > now:
            return False
        pairs = list(
            tournament.pairs.filter(status__in=(Pair.Status.INVITED, Pair.Status.REGISTERED))
        )
        playing = [p for p in pairs if p.status == Pair.Status.REGISTERED and p.checked_in]
        out = [p.pk for p in pairs if p not in playing]
        Pair.objects.filter(pk__in=out).update(status=Pair.Status.NOT_CHECKED_IN)
        ratings = ratings_by_user([u for p in playing for u in p.players], tournament.mode)
        for pair in playing:
            pair.rating = (
                sum(ratings[u].rating if u in ratings else elo.INITIAL_RATING for u in pair.players)
                / 2
            )
        playing.sort(key=lambda p: (-(p.rating or 0), p.created_at, p.pk))
        for seed, pair in enumerate(playing, start=1):
            pair.seed = seed
            pair.status = Pair.Status.PLAYING
        Pair.objects.bulk_update(playing, ["rating", "seed", "status"])
        tournament.started_at = now
        if len(playing) < 2:
            tournament.status = Tournament.Status.CANCELLED
            tournament.finished_at = now
            tournament.save(update_fields=["status", "started_at", "finished_at"])
            return True
        tournament.status = Tournament.Status.RUNNING
        tournament.current_round = 1
        tournament.planned_rounds = (
            min(tournament.rounds or 1, pairing.max_swiss_rounds(len(playing)))
            if tournament.is_swiss
            else pairing.knockout_rounds(len(playing))
        )
        tournament.save(update_fields=["status", "started_at", "current_round", "planned_rounds"])
        _pair_round(tournament)
    run(tournament_id)
    return True


# --------------------------------------------------------------------------------------------
# Pairing a round.
# --------------------------------------------------------------------------------------------
def seeds(tournament: Tournament) -> list[standings.Seed]:
    """The pairs that took part, best seed first."""
    return [
        standings.Seed(pk, rating or elo.INITIAL_RATING)
        for pk, rating in tournament.pairs.filter(status__in=Pair.ENTERED)
        .order_by("seed", "pk")
        .values_list("pk", "rating")
    ]


def results(matches: list[Match]) -> list[standings.Result]:
    """The decided games among `matches`, as the standings count them."""
    return [
        standings.Result(m.pair_a_id, m.pair_b_id, m.winner_id, m.tantos_a, m.tantos_b)
        for m in matches
        if m.status == Match.Status.DONE and m.pair_a_id is not None
    ]


def _pair_round(tournament: Tournament) -> None:
    """The matches of `tournament.current_round` (byes and walkovers decided at once)."""
    number = tournament.current_round
    active = list(tournament.pairs.filter(status=Pair.Status.PLAYING).order_by("seed", "pk"))
    if tournament.is_swiss:
        done = list(tournament.matches.all())
        points = {
            row.pair: row.points for row in standings.standings(seeds(tournament), results(done))
        }
        entrants = [pairing.Entrant(p.pk, points.get(p.pk, 0.0), p.rating or 0.0) for p in active]
        played = {
            frozenset((m.pair_a_id, m.pair_b_id)) for m in done if m.pair_a_id and m.pair_b_id
        }
        byes = {m.pair_a_id for m in done if m.pair_a_id and m.pair_b_id is None}
        found = pairing.swiss_round(entrants, played, byes)
        if found.rematches:
            log.info("tournament %s round %s: %s rematches", tournament.pk, number, found.rematches)
        slots: list[tuple[int | None, int | None]] = list(found.pairs)
        if found.bye is not None:
            slots.append((found.bye, None))
    elif number == 1:
        slots = pairing.knockout_bracket([p.pk for p in active])
    else:
        alive = {p.pk for p in active}
        before = tournament.matches.filter(round=number - 1).order_by("number")
        winners = [m.winner_id if m.winner_id in alive else None for m in before]
        slots = pairing.knockout_next(winners)
    now = timezone.now()
    matches = []
    for place, (a, b) in enumerate(slots):
        if a is None:
            a, b = b, None
        match = Match(tournament=tournament, round=number, number=place, pair_a_id=a, pair_b_id=b)
        if b is None:  # a bye (or, in a knockout, a walkover; nobody at all if both lost)
            match.status = Match.Status.DONE
            match.decided_at = now
            match.winner_id = a
            match.outcome = Match.Outcome.BYE if a is not None else ""
        matches.append(match)
    Match.objects.bulk_create(matches)


# --------------------------------------------------------------------------------------------
# Tables.
# --------------------------------------------------------------------------------------------
def open_tables(tournament_id: int) -> int:
    """Set up the tables the current round still needs; returns how many matches were decided
    without one (a refused player's pair loses)."""
    waiting = Match.objects.filter(
        tournament_id=tournament_id,
        tournament__status=Tournament.Status.RUNNING,
        status=Match.Status.WAITING,
        table__isnull=True,
    ).values_list("pk", flat=True)
    # What the tables and players are told goes out at the end, together: one trip to the
    # channel layer for the whole round instead of five per table (docs/tournaments.md).
    with collect_group_messages() as messages:
        decided = sum(open_table(match_id) for match_id in waiting)
    async_to_sync(send_groups)(messages)
    return decided


def open_table(match_id: int) -> bool:
    """The table of one match, its four players seated and the cards dealt; True if the match
    was decided instead: a player who is banned, suspended, or still in another game after the
    reconnection budget (`MUS_RECONNECT_SECONDS`) makes their pair lose it."""
    with transaction.atomic():
        tournament_id = Match.objects.filter(pk=match_id).values_list("tournament_id", flat=True)
        tournament = lock(tournament_id[0])
        match = (
            Match.objects.select_for_update(of=("self",))
            .select_related("pair_a__first", "pair_a__second", "pair_b__first", "pair_b__second")
            .filter(pk=match_id, status=Match.Status.WAITING, table__isnull=True)
            .first()
        )
        if match is None or tournament.status != Tournament.Status.RUNNING:
            return False
        match.tournament = tournament
        a, b = match.pair_a, match.pair_b
        assert a is not None and b is not None
        players = [a.first, b.first, a.second, b.second]  # pair a at seats 0 and 2
        try:
            table = services.start_arranged(
                players, tournament.mode, turn_seconds=tournament.turn_seconds
            )
        except services.SeatsRefused as exc:
            busy = all(e.code == "already_seated" for e in exc.refused.values())
            grace = timedelta(seconds=settings.MUS_RECONNECT_SECONDS)
            if busy and timezone.now() - match.paired_at < grace:
                return False  # they may still finish the game they are playing
            note = ", ".join(f"{players[s].username}: {e.code}" for s, e in exc.refused.items())
            decide_losers(match, {seat % 2 for seat in exc.refused}, Match.Outcome.NO_SHOW, note)
            return True
        match.table = table
        match.status = Match.Status.PLAYING
        match.save(update_fields=["table", "status"])
        notify.table_ready(match, table.pk)
    return False


# --------------------------------------------------------------------------------------------
# Results.
# --------------------------------------------------------------------------------------------
def decide(
    match: Match, winner: int | None, outcome: str, tantos: tuple[int, int], note: str = ""
) -> None:
    match.winner_id = winner
    match.outcome = outcome
    match.tantos_a, match.tantos_b = tantos
    match.status = Match.Status.DONE
    match.decided_at = timezone.now()
    match.note = note
    match.save(
        update_fields=["winner", "outcome", "tantos_a", "tantos_b", "status", "decided_at", "note"]
    )


def decide_losers(match: Match, teams: set[int], outcome: str, note: str = "") -> None:
    """`match` is lost by the pairs of `teams` (0: pair a, 1: pair b) without being played to
    the end: the other pair wins 40–0 (both lost: nobody wins, 0–0)."""
    if teams >= {0, 1}:
        decide(match, None, outcome, (0, 0), note)
    elif 0 in teams:
        decide(match, match.pair_b_id, outcome, (0, TARGET), note)
    else:
        decide(match, match.pair_a_id, outcome, (TARGET, 0), note)


#: How a pair that lost its game by leaving it loses the match.
FORFEITS = {
    Table.CancelReason.ABANDONED: Match.Outcome.ABANDONED,
    # A player who never came to the table: a forfeit for their pair (docs/rules.md §8.3).
    Table.CancelReason.NO_SHOW: Match.Outcome.NO_SHOW,
    Table.CancelReason.BANNED: Match.Outcome.REMOVED,
}


def settle(match: Match) -> None:
    """Bring the result of `match`'s game, which has ended, into the tournament, as its
    `GameEnd` says (the games app works out how it ended, once)."""
    table = match.table
    assert table is not None
    ending = services.ending_of(table)
    assert ending is not None
    if ending.played_out and ending.winner_team in (0, 1):
        # The winner counts the game's 40 tantos (reached, or won with an órdago, which may
        # leave it behind on the scoreboard); the loser what it had.
        loser = 1 - ending.winner_team
        tantos = [TARGET, TARGET]
        tantos[loser] = min((*ending.scores, 0, 0)[loser], TARGET - 1)
        winner = match.pair_a_id if ending.winner_team == 0 else match.pair_b_id
        decide(match, winner, Match.Outcome.PLAYED, (tantos[0], tantos[1]))
        return
    if ending.reason in FORFEITS and ending.losing_teams:
        decide_losers(match, set(ending.losing_teams), FORFEITS[ending.reason])
        return
    # Cancelled by a moderator or by the site: the organisers decide (`staff.adjudicate`).
    match.status = Match.Status.AWAITING
    match.save(update_fields=["status"])


# --------------------------------------------------------------------------------------------
# Rounds.
# --------------------------------------------------------------------------------------------
def advance(tournament_id: int) -> bool:
    """Settle the ended games of the current round; once all are decided, pair the next round
    or finish the tournament. True if a round was paired or the tournament finished."""
    with transaction.atomic():
        tournament = lock(tournament_id)
        if tournament.status != Tournament.Status.RUNNING:
            return False
        current = tournament.matches.filter(round=tournament.current_round)
        ended = current.filter(status=Match.Status.PLAYING, table__status__in=ENDED_STATUSES)
        for match in ended.select_related("table"):
            settle(match)
        if current.filter(status__in=Match.OPEN).exists():
            return False
        if not tournament.is_swiss:
            _eliminate_losers(tournament)
        alive = tournament.pairs.filter(status=Pair.Status.PLAYING).count()
        if tournament.current_round >= tournament.planned_rounds or alive < 2:
            _finish(tournament)
            return True
        tournament.current_round += 1
        tournament.save(update_fields=["current_round"])
        _pair_round(tournament)
    return True


def _eliminate_losers(tournament: Tournament) -> None:
    lost = set()
    for match in tournament.matches.filter(round=tournament.current_round):
        lost |= {p for p in (match.pair_a_id, match.pair_b_id) if p and p != match.winner_id}
    tournament.pairs.filter(pk__in=lost, status=Pair.Status.PLAYING).update(
        status=Pair.Status.ELIMINATED
    )


def _finish(tournament: Tournament) -> None:
    if tournament.is_swiss:
        removed = set(
            tournament.pairs.filter(status=Pair.Status.REMOVED).values_list("pk", flat=True)
        )
        rows = standings.standings(seeds(tournament), results(list(tournament.matches.all())))
        # The first of the standings (not disqualified), if it won anything at all.
        first = next((r for r in rows if r.pair not in removed), None)
        tournament.winner_id = first.pair if first is not None and first.points else None
    else:
        final = tournament.matches.filter(round=tournament.current_round).order_by("number").first()
        alive = tournament.pairs.filter(status=Pair.Status.PLAYING)
        winner = None if final is None else final.winner_id
        tournament.winner_id = winner if alive.filter(pk=winner).exists() else None
    tournament.status = Tournament.Status.FINISHED
    tournament.finished_at = timezone.now()
    tournament.save(update_fields=["winner", "status", "finished_at"])


def run(tournament_id: int) -> None:
    """Move the tournament on as far as it goes now: results, rounds, tables."""
    # Each pass either pairs a round, finishes, or decides matches; a round of nothing but byes
    # and forfeits is over at once, so a few passes may follow each other.
    for _ in range(2 * MAX_SWISS_ROUNDS + 2):
        moved = advance(tournament_id)
        decided = open_tables(tournament_id)
        if not moved and not decided:
            return


def sweep() -> int:
    """Celery beat's safety net, every `MUS_SWEEP_SECONDS`: start the tournaments whose time has
    come, and run those with a game that ended or a table still to set up."""
    now = timezone.now()
    due = Tournament.objects.filter(status=Tournament.Status.REGISTRATION, starts_at__lte=now)
    moved = sum(start(pk) for pk in due.values_list("pk", flat=True))
    pending = Match.objects.filter(tournament__status=Tournament.Status.RUNNING).filter(
        Q(status=Match.Status.PLAYING, table__status__in=ENDED_STATUSES)
        | Q(status=Match.Status.WAITING)
    )
    for tournament_id in set(pending.values_list("tournament_id", flat=True)):
        run(tournament_id)
        moved += 1
    return moved
