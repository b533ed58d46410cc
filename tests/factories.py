"""What the tests build: players, signed-in clients, seated, started and finished tables, and the
sessions WebSocket clients connect with.

Plain functions, no pytest: the fixtures of the conftest.py files call them, and tests call them
directly. Everything here writes to the database, so it runs inside a test that may (a
`django_db` mark or a fixture that needs `db`); the browser tests run it through their `orm`
fixture.
"""

from __future__ import annotations

import itertools
import random
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import Permission
from django.test import Client
from django.utils import timezone

from accounts.models import User
from accounts.sessions import new_session_key as session_key
from accounts.sessions import session_cookie
from games import engine, services
from games.engine.cards import CODE_TO_ID
from games.models import Connection, Seat, Table
from rankings import elo
from rankings import services as rating_services
from rankings.models import PlayerRating
from tests.engine.support import parse, stacked_deck
from tools.engine_bench import play_random_game, random_action

__all__ = [
    "BACKEND",
    "PASSWORD",
    "UserFactory",
    "ended_table",
    "establish",
    "farm_game",
    "finished_game",
    "login",
    "lose_on_purpose",
    "make_players",
    "make_user",
    "play_out",
    "play_steps",
    "record_for",
    "seat_all",
    "session_cookie",
    "session_key",
    "stacked_table",
    "staff_with",
    "started_table",
]

#: Every test player's password unless a test gives another.
PASSWORD = "Contraseña-muy-segura-1"
#: The site's own authentication backend (the first configured one, axes, signs nobody in).
BACKEND = "accounts.backends.ActiveAccountBackend"


# --------------------------------------------------------------------------------------------
# Players and signed-in clients.
# --------------------------------------------------------------------------------------------
def make_user(username: str, *, password: str = PASSWORD, **fields: Any) -> User:
    """A saved player who can sign in with ``password``; ``fields`` are other User fields."""
    return User.objects.create_user(username=username, password=password, **fields)


class UserFactory:
    """``make_user`` for one test, where a player made without a name is called ``prefix0``,
    ``prefix1``…: numbered from 0 in every test, so names sort in the order they were made."""

    def __init__(self, prefix: str = "jugador") -> None:
        self.prefix = prefix
        self._numbers = itertools.count()

    def __call__(self, username: str | None = None, **fields: Any) -> User:
        return make_user(username or f"{self.prefix}{next(self._numbers)}", **fields)

    def many(self, n: int = 4) -> list[User]:
        """``n`` players made without a name."""
        return [self() for _ in range(n)]


def make_players(names: list[str]) -> list[User]:
    return [make_user(name) for name in names]


def staff_with(*codenames: str, name: str = "ayudante") -> User:
    """A staff member (not a superuser) with just these permissions."""
    user = make_user(name, is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    return User.objects.get(pk=user.pk)


def login(user: User, client: Client | None = None, **client_options: Any) -> Client:
    """``client`` (by default a new ``Client(**client_options)``) signed in as ``user``, through
    the site's own authentication backend."""
    if client is None:
        client = Client(**client_options)
    client.force_login(user, backend=BACKEND)
    return client


# --------------------------------------------------------------------------------------------
# Tables.
# --------------------------------------------------------------------------------------------
def seat_all(players: list[User], mode: str = "4-reyes", **kwargs: Any) -> Table:
    """An open table of ``players[0]`` (``kwargs`` go to ``create_table``) with players[i] at
    seat i."""
    table = services.create_table(players[0], mode, **kwargs)
    for i in range(1, 4):
        services.take_seat(players[i], table.pk, i, table.invite_token)
    table.refresh_from_db()
    return table


def started_table(
    players: list[User], mode: str = "4-reyes", seed: int = 1, **kwargs: Any
) -> Table:
    """``seat_all`` (with ``kwargs``), then the host starts the game: the first hand dealt from a seeded deck.

    With its four players at the table: as if each had a socket open when it started (so nobody
    is waited for, docs/rules.md §8.3), sockets that then went without a trace. A test's own sockets
    are counted from there; closing the last one makes the seat wait.
    """
    table = seat_all(players, mode, **kwargs)
    return start_seated(players[0], table, random.Random(seed))


def start_seated(host: User, table: Table, rng: Any = None) -> Table:
    """The host presses «Empezar» with every seated player at the table (a host may not start
    with one away, docs/rules.md §8.3): as if each had a socket open then, sockets that then went
    without a trace."""
    seated = User.objects.filter(seats__table=table, is_bot=False)
    Connection.objects.bulk_create(
        Connection(channel=f"placeholder-{table.pk}-{p.pk}", process="tests", table=table, user=p)
        for p in seated
    )
    try:
        services.start_game(host, table.pk, rng)
    finally:
        Connection.objects.filter(process="tests", table=table).delete()
    table.refresh_from_db()
    return table


class StackedDeal(random.Random):
    """A generator that draws `mano` as the first mano and deals `hands` (seat -> "c1 c2 c3 c4")
    when the game starts: `start_game`'s draw and shuffle, stacked."""

    def __init__(self, hands: dict[int, str], mano: int) -> None:
        super().__init__(0)
        self.mano = mano
        self.deck = [CODE_TO_ID[c] for c in stacked_deck(hands, mano)]

    def randrange(self, *args: Any, **kwargs: Any) -> int:  # type: ignore[override]
        return self.mano

    def shuffle(self, x: list[Any]) -> None:  # type: ignore[override]
        x[:] = self.deck


def stacked_table(
    players: list[User], hands: dict[int, str], mano: int = 0, mode: str = "4-reyes"
) -> Table:
    """``started_table`` with the first hand dealt as ``hands`` and ``mano`` as its mano."""
    return start_seated(players[0], seat_all(players, mode), StackedDeal(hands, mano))


def play_steps(table_id: int, *steps: str) -> Table:
    """Play ``steps`` («2 envido 5», «1 descarte 12o 3c», «0 paso») at a started table through
    games.services, one after the other."""
    for step in steps:
        table = Table.objects.get(pk=table_id)
        services.apply_action(table, parse(step))
    return Table.objects.get(pk=table_id)


def ended_table(players: list[User], status: str = Table.Status.FINISHED, **kwargs: Any) -> Table:
    """A table whose game has been played and is over (`terminada` or `cancelada`)."""
    table = started_table(players, **kwargs)
    if status == Table.Status.CANCELLED:
        services.cancel_game(table.pk, Table.CancelReason.ABANDONED)
    else:
        # As services leave a finished game: seats no longer live, the table over.
        table.seats.update(active=False)
        Table.objects.filter(pk=table.pk).update(
            status=Table.Status.FINISHED, phase="terminada", winner_team=0, scores=[40, 12]
        )
    table.refresh_from_db()
    return table


def play_out(table: Table, seed: int = 7, max_actions: int = 20_000) -> Table:
    """Play a started table to its end through games.services (random legal moves)."""
    rng = random.Random(seed)
    for _ in range(max_actions):
        table.refresh_from_db()
        if table.status != Table.Status.PLAYING:
            return table
        game = services.game_of(table)
        services.apply_action(table, random_action(game, rng))
    raise AssertionError("the game did not end")


_RECORDS: dict[tuple[str, int, str | None], dict[str, Any]] = {}


def record_for(
    mode: str = "4-reyes", winner: int = 0, ended_by: str | None = None
) -> dict[str, Any]:
    """A real, complete record of a random game of ``mode`` won by ``winner`` (cached)."""
    key = (mode, winner, ended_by)
    if key not in _RECORDS:
        seed = 0
        while True:
            seed += 1
            game, _n = play_random_game(mode, random.Random(seed))
            if game.winner == winner and game.ended_by == ended_by:
                _RECORDS[key] = engine.export_record(game)
                break
    return _RECORDS[key]


_clock = iter(range(1, 10_000_000))


def finished_game(
    players: list[User],
    mode: str = "4-reyes",
    winner: int = 0,
    *,
    ended_by: str = "puntos",
    rated: bool = True,
    private: bool = False,
    practice: bool = False,
    status: str = Table.Status.FINISHED,
    finished_at: datetime | None = None,
    rate: bool = False,
) -> Table:
    """A table whose game has ended, stored as games.services leaves it (record, scores…).

    Seats 0–3 get ``players`` in order. ``rate=True`` also applies it to the ladder.
    """
    record = record_for(mode, winner, ended_by)
    result = engine.replay_result(record)
    finished_at = finished_at or timezone.now() - timedelta(days=1) + timedelta(
        seconds=next(_clock)
    )
    cancelled = status == Table.Status.CANCELLED
    table = Table.objects.create(
        mode=mode,
        host=players[0],
        private=private,
        rated=rated and not practice,
        practice=practice,
        status=status,
        phase="cancelada" if cancelled else "terminada",
        record=record,
        scores=result["scores"],
        winner_team=None if cancelled else result["winner"],
        ended_by="" if cancelled else result["ended_by"],
        started_at=finished_at - timedelta(minutes=20),
        finished_at=finished_at,
    )
    Seat.objects.bulk_create(
        [Seat(table=table, seat=i, user=p, active=False) for i, p in enumerate(players)]
    )
    if rate:
        rating_services.rate_table(table.pk)
    return table


def establish(
    players: list[User],
    mode: str = "4-reyes",
    *,
    rating: float = elo.INITIAL_RATING,
    games: int = elo.PROVISIONAL_GAMES,
    met: int = 100,
) -> None:
    """Give ``players`` a settled rating (``games`` rated games, ``met`` different players met)
    without playing them: results with brand-new accounts or closed groups count for nothing
    (rankings.elo), so most ladder tests need players the ladder already trusts. Not for
    recompute tests: no games back these rows."""
    for player in players:
        PlayerRating.objects.update_or_create(
            user=player,
            mode=mode,
            defaults={
                "rating": rating,
                "games": games,
                "met": met,
                "best_rating": rating,
                **PlayerRating.player_fields(player.username, player.display_name),
            },
        )
    rating_services.rebuild_buckets()


def lose_on_purpose(table: Table, winners: int) -> Table:
    """The farming script of issue #13, through games.services as the table's sockets call it:
    «corto»; the losers open with «envido 40»; the winners answer «órdago»; the losers say «no
    quiero», which hands the winners the 40 tantos (six or seven actions)."""
    players = {s.seat: s.user for s in table.seats.select_related("user")}
    for _ in range(50):
        table = services.load_table(table.pk)
        if table.status != Table.Status.PLAYING:
            return table
        game = services.game_of(table)
        seat, legal = next(
            (s, acts)
            for s in range(4)
            if (acts := {a["act"] for a in engine.legal_actions(game, s)})
        )
        ours = seat % 2 == winners
        if "corto" in legal:
            payload: dict[str, Any] = {"act": "corto"}
        elif "quiero" in legal:
            payload = {"act": "ordago"} if ours else {"act": "no_quiero"}
        elif not ours and "envido" in legal:
            payload = {"act": "envido", "to": 40}
        else:
            payload = {"act": "paso"}
        services.act(players[seat], table.pk, table.version, payload)
    raise AssertionError("the farming script did not end the game")


def farm_game(booster: User, partner: User, rivals: list[User], seed: int = 1) -> Table:
    """One farming game at a private rated table: the booster hosts (seat 0) with `partner`
    (seat 2); `rivals` sit at 1 and 3 and lose on purpose."""
    table = services.create_table(booster, "4-reyes", private=True, rated=True)
    for seat, user in ((1, rivals[0]), (2, partner), (3, rivals[1])):
        services.take_seat(user, table.pk, seat, table.invite_token)
    start_seated(booster, table, random.Random(seed))
    return lose_on_purpose(Table.objects.get(pk=table.pk), winners=0)
