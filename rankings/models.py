"""Ratings: one Elo ladder per mode for people and one per mode for bots, every change kept.

- ``Ladder``: the ladders' keys, kept in the ``mode`` columns below: a mode's own for the
  people's, ``b`` and the mode for the bots ladder of games with a player's bot account at the
  table (docs/bot-api.md, «Ratings»).

- ``PlayerRating``: a player's current standing in one mode (the leaderboard reads only this).
- ``RatedGame``: one row per game applied to the ladder. Its unique ``table`` makes rating a
  game happen at most once; its ``id`` is the order in which games were applied, which the
  recompute command follows to reproduce the ladder exactly.
- ``RatingChange``: one row per player and rated game (before, after), for histories and charts.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from accounts import names
from games.models import BOTS_PREFIX, Mode, bots_ladder

from . import elo

#: ``hidden_until`` of a player hidden for good (a ban without end, a deactivated account that
#: was not closed by its player).
FOREVER = datetime(9999, 12, 31, tzinfo=UTC)


class Ladder(models.TextChoices):
    """The ladders, with their names on screen (the leaderboard's choices)."""

    CUATRO_REYES = Mode.CUATRO_REYES.value, Mode.CUATRO_REYES.label
    OCHO_REYES = Mode.OCHO_REYES.value, Mode.OCHO_REYES.label
    BOTS_CUATRO_REYES = BOTS_PREFIX + Mode.CUATRO_REYES.value, _("Bots · 4 reyes")
    BOTS_OCHO_REYES = BOTS_PREFIX + Mode.OCHO_REYES.value, _("Bots · 8 reyes")


def is_bots_ladder(ladder: str) -> bool:
    return ladder in BOTS_LADDERS


BOTS_LADDERS = frozenset(bots_ladder(m) for m in Mode.values)
if not set(Ladder.values) >= BOTS_LADDERS:  # pragma: no cover - a mode added without its ladder
    raise ImproperlyConfigured("rankings.models.Ladder must list a bots ladder for every mode")


class PlayerRating(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    mode = models.CharField(_("modalidad"), max_length=8, choices=Ladder.choices)
    rating = models.FloatField(_("puntuación"), default=elo.INITIAL_RATING)
    games = models.PositiveIntegerField(_("partidas puntuadas"), default=0)
    # How many different players they have shared a rated table with in the mode (their
    # `Acquaintance` rows): the circle that decides how much results with them count (elo.py).
    met = models.PositiveIntegerField(_("jugadores distintos"), default=0)
    wins = models.PositiveIntegerField(_("victorias"), default=0)
    best_rating = models.FloatField(_("mejor puntuación"), default=elo.INITIAL_RATING)
    last_played_at = models.DateTimeField(_("última partida"), null=True, blank=True)
    # The player's names in lower case, for the leaderboard's prefix search by index (kept up to
    # date when a game is rated and when the player's account is saved).
    username_key = models.CharField(max_length=150, blank=True, default="")
    display_key = models.CharField(max_length=40, blank=True, default="")
    # Mirrors the account: NULL while the player may be shown on leaderboards; the end of their
    # ban (FOREVER for a ban without end or a deactivated account) otherwise. Kept by a post_save
    # receiver on the user, so leaderboards never join the users table to filter.
    hidden_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("puntuación")
        verbose_name_plural = _("puntuaciones")
        constraints = [
            models.UniqueConstraint(fields=["user", "mode"], name="one_rating_per_mode"),
        ]
        indexes = [
            # The leaderboard: one mode, best first, ties by id.
            # (Games included so that counting the players above a rating reads the index only.)
            models.Index(
                fields=["mode", "-rating", "id"],
                name="rating_ladder_games",
                include=["games", "hidden_until"],
            ),
            models.Index(
                fields=["mode", "rating"],
                name="rating_hidden_players",
                condition=Q(hidden_until__isnull=False),
            ),
            models.Index(
                fields=["username_key"],
                name="rating_username_search",
                opclasses=["varchar_pattern_ops"],
            ),
            models.Index(
                fields=["display_key"],
                name="rating_display_search",
                opclasses=["varchar_pattern_ops"],
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.mode} {self.rating:.0f}"

    @property
    def provisional(self) -> bool:
        return elo.is_provisional(self.games)

    @staticmethod
    def player_fields(
        username: str,
        display_name: str,
        is_active: bool = True,
        banned_at: datetime | None = None,
        banned_until: datetime | None = None,
    ) -> dict[str, object]:
        """The columns copied from the player's account (names for search, visibility). A closed
        account keeps its place, as «Jugador retirado»: its results are the others' history too."""
        if not is_active and not names.is_tombstone(username):
            hidden = FOREVER
        elif banned_at is not None:
            hidden = banned_until or FOREVER
        else:
            hidden = None
        return {
            "username_key": username.lower(),
            "display_key": (display_name or "").lower(),
            "hidden_until": hidden,
        }

    PLAYER_FIELDS = ("username", "display_name", "is_active", "banned_at", "banned_until")

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.games if self.games else None


class RatingBucket(models.Model):
    """How many players of a ladder have a rating in [bucket, bucket + 1).

    Kept in the same transaction as the ratings, so that a player's place on the ladder is the
    sum of the buckets above plus a short index scan inside their own bucket, instead of counting
    up to 100,000 rows.
    """

    mode = models.CharField(max_length=8, choices=Ladder.choices)
    bucket = models.IntegerField()
    players = models.IntegerField(default=0)
    established = models.IntegerField(default=0)  # of them, with 30 rated games or more

    class Meta:
        constraints = [models.UniqueConstraint(fields=["mode", "bucket"], name="one_bucket")]

    def __str__(self) -> str:
        return f"{self.mode} {self.bucket}: {self.players}"


class Acquaintance(models.Model):
    """Two players who have shared a rated table in a mode (one row each way), played to the
    end, and in how many games. ``PlayerRating.met`` counts a player's rows; the ladder's weight
    reads them (elo.py)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    other = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    mode = models.CharField(max_length=8, choices=Ladder.choices)
    games = models.PositiveIntegerField(default=1)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "mode", "other"], name="one_acquaintance"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}~{self.other_id} {self.mode}"


class RatedGame(models.Model):
    """The mark that a finished game has been applied to its ladder (exactly once)."""

    table = models.OneToOneField("games.Table", on_delete=models.CASCADE, related_name="rating")
    mode = models.CharField(max_length=8, choices=Ladder.choices)
    winner_team = models.PositiveSmallIntegerField()
    # A game cancelled because this seat's player abandoned it (docs/rules.md §8.4): only they
    # moved.
    abandoned_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    rated_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("partida puntuada")
        verbose_name_plural = _("partidas puntuadas")

    def __str__(self) -> str:
        return f"#{self.table_id}"


class WeightLimit(models.TextChoices):
    """Why a change counted less than in full (values from rankings.elo.Limit), as the game page
    says it."""

    FULL = elo.Limit.FULL, "—"
    NEW = elo.Limit.NEW, _("alguien en la mesa lleva menos de %(n)s partidas puntuadas")
    RIVALS = elo.Limit.RIVALS, _("los rivales han jugado con pocos jugadores que tú no conoces")
    FAMILIAR = elo.Limit.FAMILIAR, _("buena parte de las partidas de los rivales han sido contigo")
    CLOSED = elo.Limit.CLOSED, _("los otros tres apenas han jugado fuera de su grupo")
    SETTLED = elo.Limit.SETTLED, _("una puntuación asentada, y la de los otros aún es provisional")


class RatingChange(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    table = models.ForeignKey(
        "games.Table", on_delete=models.CASCADE, related_name="rating_changes"
    )
    mode = models.CharField(max_length=8, choices=Ladder.choices)
    seat = models.PositiveSmallIntegerField()
    before = models.FloatField()
    after = models.FloatField()
    k = models.PositiveSmallIntegerField()
    # How much the result counted and what limited it (rankings.elo, docs/ratings.md).
    weight = models.FloatField(default=1.0)
    limit = models.CharField(max_length=8, blank=True, default="", choices=WeightLimit.choices)
    won = models.BooleanField()
    played_at = models.DateTimeField()

    class Meta:
        verbose_name = _("cambio de puntuación")
        verbose_name_plural = _("cambios de puntuación")
        constraints = [
            models.UniqueConstraint(fields=["user", "table"], name="one_change_per_player_game"),
            models.CheckConstraint(condition=Q(seat__gte=0, seat__lte=3), name="change_seat_0_3"),
        ]
        indexes = [
            # A player's history in one mode, in the order the changes were applied.
            models.Index(fields=["user", "mode", "-id"], name="rating_change_history"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} #{self.table_id} {self.before:.0f}→{self.after:.0f}"

    @property
    def delta(self) -> float:
        return self.after - self.before

    @property
    def weight_percent(self) -> int:
        return round(self.weight * 100)

    @property
    def limit_reason(self) -> str:
        """Why it counted less than in full, in one clause (empty when it counted in full)."""
        if self.weight >= 1 or not self.limit:
            return ""
        return str(WeightLimit(self.limit).label) % {"n": elo.FIRST_GAMES}


class GameAnalysis(models.Model):
    """The hand analysis of a finished game (`games.engine.analysis`), computed once by a Celery
    task on demand (`rankings.analysis`) and kept with the game: every decision with its player's
    chances per lance, what the strong bot would have done and what it cost, and the summary."""

    class Status(models.TextChoices):
        PENDING = "pendiente", _("en cola")
        RUNNING = "analizando", _("analizando")
        DONE = "lista", _("lista")
        FAILED = "fallida", _("fallida")

    table = models.OneToOneField(
        "games.Table", on_delete=models.CASCADE, primary_key=True, related_name="analysis"
    )
    status = models.CharField(
        _("estado"), max_length=10, choices=Status.choices, default=Status.PENDING
    )
    # Who asked for it (the per-player limits count these); kept if the account goes.
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="analyses",
    )
    # Progress: decisions analysed so far, of `total`.
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    requested_at = models.DateTimeField(_("pedido"), auto_now_add=True)
    # Touched with every progress report: a pending or running analysis untouched for long was
    # lost with its worker and may be asked for again.
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("análisis de partida")
        verbose_name_plural = _("análisis de partidas")
        indexes = [models.Index(fields=["requested_by", "status"])]

    def __str__(self) -> str:
        return f"{self.table_id}: {self.status}"

    @property
    def percent(self) -> int:
        return 100 if self.status == self.Status.DONE else int(100 * self.done / max(1, self.total))
