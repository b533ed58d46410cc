from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from . import engine
from .engine import bot


class Mode(models.TextChoices):
    """The two modes of docs/rules.md §2.3, with their names on screen; the values are the
    engine's."""

    CUATRO_REYES = engine.MODES[0], _("Mus · 4 reyes")
    OCHO_REYES = engine.MODES[1], _("Mus · 8 reyes")


if tuple(Mode.values) != engine.MODES:  # pragma: no cover - a mode added to the engine only
    raise ImproperlyConfigured(f"games.models.Mode must list the engine's modes {engine.MODES}")

#: The prefix of a mode's bots-ladder key, ``b4-reyes`` (it fits the 8 characters of a mode).
#: Defined here, below the ladders (rankings), because games reads those ratings too: beside a
#: bot table's seats, and in the bots' quick play.
BOTS_PREFIX = "b"


def bots_ladder(mode: str) -> str:
    """The key of `mode`'s bots ladder (docs/bot-api.md, «Ratings»)."""
    return BOTS_PREFIX + mode


class BotLevel(models.TextChoices):
    """How well a bot seat plays (the engine's `bot.LEVELS`), with its name on screen: a bot is
    shown as «Bot Nerea (fuerte)» (`games.labels.seat_name`)."""

    PRINCIPIANTE = "principiante", _("principiante")
    NORMAL = "normal", _("normal")
    FUERTE = "fuerte", _("fuerte")


#: The level of a bot seat nobody chose one for.
DEFAULT_BOT_LEVEL = BotLevel.NORMAL.value

if tuple(BotLevel.values) != bot.LEVELS or DEFAULT_BOT_LEVEL != bot.DEFAULT_LEVEL:
    raise ImproperlyConfigured(  # pragma: no cover - a level added to the engine only
        f"games.models.BotLevel must list the engine's levels {bot.LEVELS}"
    )


def new_invite_token() -> str:
    return secrets.token_urlsafe(18)


class Table(models.Model):
    """A table in the lobby and the one game played at it (a «mesa» is a «partida»)."""

    class Status(models.TextChoices):
        OPEN = "abierta", _("Esperando jugadores")
        PLAYING = "jugando", _("En juego")
        FINISHED = "terminada", _("Terminada")
        CANCELLED = "cancelada", _("Cancelada")
        CLOSED = "cerrada", _("Cerrada")

    class CancelReason(models.TextChoices):
        """Why a game was cancelled: a code the pages translate (a moderator's own words go to
        `cancel_note`, which players do not see)."""

        ABANDONED = "abandono", _("Un jugador no volvió a tiempo.")
        PRACTICE_LEFT = "practica", _("Has dejado la práctica.")
        BANNED = "expulsion", _("Un moderador ha expulsado a un jugador.")
        MODERATOR = "moderacion", _("Un moderador ha cancelado la partida.")
        SYSTEM = "sistema", _("La partida se ha cancelado.")
        NO_SHOW = "ausencia", _("Un jugador no llegó a la mesa.")

    class UnratedReason(models.TextChoices):
        """Why a table meant for the ladder was played unrated (games.services.fairplay), or off
        the people's ladders (`BOTS`, games.services.play.start)."""

        PAIR_LIMIT = (
            "parejas",
            _(
                "No puntúa: estas dos parejas ya han llegado a su límite de partidas puntuadas "
                "en 24 horas."
            ),
        )
        # A player's bot account sat at it, and none of the site's bots: the game counts for
        # the bots ladder only (docs/bot-api.md, «Ratings»).
        BOTS = "bots", _("Cuenta solo para el ranking de bots.")

    mode = models.CharField(_("modalidad"), max_length=8, choices=Mode.choices)
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="hosted_tables",
        verbose_name=_("anfitrión"),
    )
    private = models.BooleanField(_("privada"), default=False)
    rated = models.BooleanField(_("puntúa para el ranking"), default=True)
    practice = models.BooleanField(_("práctica"), default=False)
    # Set, with `rated` turned off, when the game starts (games.services.fairplay).
    unrated_reason = models.CharField(
        _("motivo de no puntuar"), max_length=10, choices=UnratedReason.choices, blank=True
    )
    # Made by quick play for players from its queue (games.services.queue).
    quick = models.BooleanField(_("partida rápida"), default=False)
    # The host let players' bot accounts (programs, docs/bot-api.md) sit here: never rated.
    bots_allowed = models.BooleanField(_("admite bots de jugadores"), default=False)
    invite_token = models.CharField(
        _("enlace de invitación"), max_length=32, unique=True, default=new_invite_token
    )
    # The turn clock of this table when it is not the site's (`MUS_TURN_SECONDS`): a tournament
    # chooses its own (`services.clock.turn_seconds`).
    turn_seconds = models.PositiveSmallIntegerField(_("segundos por turno"), null=True, blank=True)
    status = models.CharField(
        _("estado"), max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True
    )
    # The engine's phase (blank before the deal), kept beside the record so lists never need to
    # replay a game. What a browser is told is `public_phase`, which also covers the table status.
    phase = models.CharField(_("fase"), max_length=10, blank=True, default="")
    version = models.PositiveIntegerField(_("versión"), default=0)
    # Version at which the current step of the hand began (a discard round, a vote...): actions
    # sent against any version since then are still meaningful (see services.act).
    step_version = models.PositiveIntegerField(_("versión del paso"), default=0)
    record = models.JSONField(_("registro"), null=True, blank=True)
    # At the recuento: the seats whose players pressed «Seguir» (docs/rules.md §8.2).
    ready_seats = models.JSONField(_("asientos listos"), default=list, blank=True)
    scores = models.JSONField(_("marcador"), default=list, blank=True)
    winner_team = models.PositiveSmallIntegerField(_("pareja ganadora"), null=True, blank=True)
    ended_by = models.CharField(_("terminada por"), max_length=10, blank=True)
    cancel_reason = models.CharField(
        _("motivo de la cancelación"), max_length=10, choices=CancelReason.choices, blank=True
    )
    cancel_note = models.TextField(_("nota del moderador"), blank=True)
    # The seat whose player used up their reconnection budget (docs/rules.md §8.3-8.4).
    abandoned_seat = models.PositiveSmallIntegerField(
        _("asiento abandonado"), null=True, blank=True
    )
    # The table its players opened for a rematch once this game was over (services.rematch).
    rematch = models.OneToOneField(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="rematch_of",
        verbose_name=_("revancha"),
    )
    # Not indexed: the deadline changes on every move, and a changed indexed column makes
    # PostgreSQL write a new entry in every index of the table (no HOT update). The clock's sweep
    # finds overdue tables through the status index (only playing tables, a few hundred rows).
    deadline = models.DateTimeField(_("límite del turno"), null=True, blank=True)
    created_at = models.DateTimeField(_("creada el"), auto_now_add=True)
    started_at = models.DateTimeField(_("empezada el"), null=True, blank=True)
    finished_at = models.DateTimeField(_("terminada el"), null=True, blank=True, db_index=True)

    class Meta:
        verbose_name = _("mesa")
        verbose_name_plural = _("mesas")
        indexes = [models.Index(fields=["status", "-created_at"])]

    # The seats with their players as `games.services.load_table` reads them in the same query
    # as the table (None when the table came from the ORM): not a database field.
    seat_rows: list[dict[str, Any]] | None = None

    def __str__(self) -> str:
        return f"#{self.pk} {self.get_mode_display()}"

    def get_absolute_url(self) -> str:
        return reverse("games:table", args=[self.pk])

    @property
    def ratings_ladder(self) -> str:
        """The ladder whose ratings show beside the seats: the mode's bots ladder at a table that
        counts for it (started so, or still open and admitting players' bots), else the mode's."""
        if self.unrated_reason == self.UnratedReason.BOTS or (
            self.bots_allowed and not self.practice and self.status == self.Status.OPEN
        ):
            return bots_ladder(self.mode)
        return self.mode

    @property
    def is_over(self) -> bool:
        return self.status in ENDED_STATUSES

    @property
    def public_phase(self) -> str:
        return public_phase(self.status, self.phase)


#: A game that has ended, one way or the other: it has a record and a page, and nobody sits there.
ENDED_STATUSES = (Table.Status.FINISHED, Table.Status.CANCELLED)


def public_phase(status: str, phase: str) -> str:
    """The `phase` of the state message (docs/protocol.md): the engine's phase while there is a
    game, `esperando` while seats fill, `cancelada` once cancelled whatever the engine said."""
    if status == Table.Status.CANCELLED:
        return "cancelada"
    if status in (Table.Status.OPEN, Table.Status.CLOSED) or not phase:
        return "esperando"
    return phase


class Seat(models.Model):
    """Who sits where. Seats 0+2 and 1+3 are partners (docs/rules.md §1.1)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="seats"
    )
    # True while the table is open or playing: a player sits at one live table at a time (bots,
    # a fixed pool of accounts, sit at many and are never active).
    active = models.BooleanField(default=True)
    # A bot's level (BotLevel), chosen when it was seated; blank for a person.
    bot_level = models.CharField(
        _("nivel del bot"), max_length=12, choices=BotLevel.choices, blank=True, default=""
    )
    # Open sockets of this player at this table (`Connection` rows, counted).
    connections = models.PositiveIntegerField(default=0)
    # Whether the player has had a socket at this table in its game (counted from the start):
    # one who never came is a no-show, never charged an abandonment (docs/rules.md §8.3).
    arrived = models.BooleanField(default=False)
    # Before the start, since when the seat has had no socket (it is freed after
    # MUS_RECONNECT_SECONDS). docs/rules.md §8.3: in play, while the player is away the seat waits
    # until `reconnect_deadline`, which is what is left of their budget for the game
    # (`away_seconds` already spent)...
    disconnected_at = models.DateTimeField(null=True, blank=True)
    reconnect_deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    away_seconds = models.FloatField(default=0)
    # ... and their turn clock is stopped with `clock_left` seconds, for the step of the hand
    # (`Table.step_version`) it was stopped in.
    clock_left = models.FloatField(null=True, blank=True)
    clock_step = models.PositiveIntegerField(null=True, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("asiento")
        verbose_name_plural = _("asientos")
        constraints = [
            models.UniqueConstraint(fields=["table", "seat"], name="one_player_per_seat"),
            models.UniqueConstraint(fields=["table", "user"], name="one_seat_per_table"),
            models.UniqueConstraint(
                fields=["user"], condition=Q(active=True), name="one_live_table_per_player"
            ),
            models.CheckConstraint(condition=Q(seat__gte=0, seat__lte=3), name="seat_0_to_3"),
        ]

    def __str__(self) -> str:
        return f"{self.table_id}:{self.seat} {self.user_id}"


class Connection(models.Model):
    """An open table socket and the server process holding it: the sockets of a process that
    died without closing them are found (its heartbeat stops) and dropped (docs/rules.md §8.3)."""

    channel = models.CharField(max_length=100, unique=True)
    process = models.CharField(max_length=64, db_index=True)
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="connections")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    opened_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["table", "user"])]

    def __str__(self) -> str:
        return f"{self.table_id}:{self.user_id} @{self.process}"


class ServerProcess(models.Model):
    """A daphne process's heartbeat (`beat_at`, every few seconds while it runs)."""

    name = models.CharField(max_length=64, primary_key=True)
    beat_at = models.DateTimeField()

    def __str__(self) -> str:
        return self.name


class SweepMark(models.Model):
    """When the clock's sweep (`games.sweep_deadlines`) last ran, one row: the health check
    reports its age, and a sweep that finds a gap (PostgreSQL, Redis, the worker or beat was
    down) first moves every clock on by it (`services.clockwork`)."""

    name = models.CharField(max_length=32, primary_key=True)
    ran_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name} @{self.ran_at}"


class Abandonment(models.Model):
    """A rated game a player left for good (docs/rules.md §8.4): charged as a loss to them alone,
    counted on their profile, and repeated ones suspend them from sitting for a while."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="abandonments"
    )
    table = models.OneToOneField(Table, on_delete=models.CASCADE, related_name="abandonment")
    seat = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("abandono")
        verbose_name_plural = _("abandonos")

    def __str__(self) -> str:
        return f"{self.user_id} @{self.table_id}"


class ChatMessage(models.Model):
    """Table chat, kept with the game for moderators."""

    table = models.ForeignKey(
        Table, on_delete=models.CASCADE, related_name="chat", verbose_name=_("mesa")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, verbose_name=_("jugador")
    )
    seat = models.PositiveSmallIntegerField(_("asiento"), null=True, blank=True)
    text = models.CharField(_("texto"), max_length=300)
    created_at = models.DateTimeField(_("enviado"), auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("mensaje de chat")
        verbose_name_plural = _("mensajes de chat")
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.text[:40]}"

    def to_message(self) -> dict[str, object]:
        return {
            "type": "chat",
            "id": self.pk,
            "seat": self.seat,
            "name": self.user.public_name,
            "text": self.text,
            "at": self.created_at.isoformat().replace("+00:00", "Z"),
        }


class Kick(models.Model):
    """A player the host took off a table before its start: they may not sit there again
    (`services.kicks`), whatever invitation their session holds, and their waiting room says so.
    """

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="kicks")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("jugador echado")
        verbose_name_plural = _("jugadores echados")
        constraints = [
            models.UniqueConstraint(fields=["table", "user"], name="one_kick_per_player_and_table")
        ]

    def __str__(self) -> str:
        return f"{self.table_id}: {self.user_id}"


# --------------------------------------------------------------------------------------------
# Quick play and invitations (games.services.queue, games.services.invitations).
# --------------------------------------------------------------------------------------------
class QueueEntry(models.Model):
    """Quick play: one player, or a pair who came together, waiting for a table in a mode."""

    mode = models.CharField(_("modalidad"), max_length=8, choices=Mode.choices)
    # When they started waiting: the matcher's order and their rating windows count from here.
    joined_at = models.DateTimeField(default=timezone.now)
    # A player who has not opened the queue page yet keeps the place until then (the page opens
    # right after «Jugar ya»; a pair's inviter is sent there when the partner accepts).
    hold_until = models.DateTimeField()

    class Meta:
        verbose_name = _("entrada de la cola")
        verbose_name_plural = _("entradas de la cola")
        indexes = [models.Index(fields=["mode", "joined_at"])]

    def __str__(self) -> str:
        return f"{self.mode} #{self.pk}"


class QueuedPlayer(models.Model):
    """A player in the queue (one entry at most: the primary key is the player)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="queued"
    )
    entry = models.ForeignKey(QueueEntry, on_delete=models.CASCADE, related_name="players")
    # Their rating in the entry's mode when they joined (through games.hooks.ratings).
    rating = models.FloatField()
    # Open queue pages (`QueueSocket` rows, counted), and when the last one closed.
    sockets = models.PositiveIntegerField(default=0)
    gone_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.user_id} @{self.entry_id}"


class QueueSocket(models.Model):
    """An open queue page's socket and the server process holding it (like `Connection`)."""

    channel = models.CharField(max_length=100, unique=True)
    process = models.CharField(max_length=64, db_index=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    opened_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.user_id} @{self.process}"


class QueueDodge(models.Model):
    """A player matched by quick play who did not come to the table: counted like declining the
    game, and repeated dodges suspend them from quick play for a while."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="queue_dodges"
    )
    table = models.ForeignKey(Table, on_delete=models.SET_NULL, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("plantón en partida rápida")
        verbose_name_plural = _("plantones en partida rápida")

    def __str__(self) -> str:
        return f"{self.user_id} @{self.table_id}"


class Invitation(models.Model):
    """One player inviting another to their table, or to play quick play as their partner."""

    class Kind(models.TextChoices):
        TABLE = "mesa", _("a una mesa")
        PAIR = "pareja", _("de pareja")

    class Status(models.TextChoices):
        PENDING = "pendiente", _("pendiente")
        ACCEPTED = "aceptada", _("aceptada")
        DECLINED = "rechazada", _("rechazada")
        EXPIRED = "caducada", _("caducada")
        # Withdrawn by the site: a block between the two, or the sender left the table.
        CANCELLED = "cancelada", _("cancelada")

    sender = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations_sent"
    )
    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations_received"
    )
    kind = models.CharField(max_length=8, choices=Kind.choices)
    table = models.ForeignKey(Table, on_delete=models.CASCADE, null=True, blank=True)
    mode = models.CharField(max_length=8, choices=Mode.choices)
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    # The seat a challenged bot account takes (`invitations.challenge`): the challenger's
    # partner's or a rival's; null: the first free one.
    seat = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        verbose_name = _("invitación")
        verbose_name_plural = _("invitaciones")
        constraints = [
            # One pending invitation from one player to another at a time.
            models.UniqueConstraint(
                fields=["sender", "recipient"],
                condition=Q(status="pendiente"),
                name="one_pending_invitation_per_pair",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.sender_id} → {self.recipient_id} ({self.kind})"
