"""Tournaments for pairs: what staff create, who registers, and the games of each round.

- `Tournament`: created by staff in the admin (name, mode, format, start, registration deadline,
  maximum pairs, seconds per turn); its status moves on by itself (`tournaments.services`).
- `Pair`: two players registered together: one invites, the other accepts; both check in
  («Estoy») in the window before the start.
- `Match`: one game of a round between two pairs (or a pair's bye), at an ordinary table of
  the games app once it is set up, and how it ended for the tournament.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from games.models import Mode

#: The most pairs a tournament may take (a 64-pair bracket, six knockout rounds).
MAX_PAIRS = 64
#: The most rounds of a Swiss tournament.
MAX_SWISS_ROUNDS = 12


class Tournament(models.Model):
    class Format(models.TextChoices):
        SWISS = "suizo", _("Suizo")
        KNOCKOUT = "eliminatoria", _("Eliminatoria")

    class Status(models.TextChoices):
        REGISTRATION = "inscripcion", _("Inscripción abierta")
        RUNNING = "en_juego", _("En juego")
        FINISHED = "terminado", _("Terminado")
        CANCELLED = "cancelado", _("Cancelado")

    name = models.CharField(_("nombre"), max_length=80)
    mode = models.CharField(_("modalidad"), max_length=8, choices=Mode.choices)
    format = models.CharField(
        _("formato"), max_length=12, choices=Format.choices, default=Format.SWISS
    )
    rounds = models.PositiveSmallIntegerField(
        _("rondas"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_SWISS_ROUNDS)],
        help_text=_(
            "Solo en el suizo. Si se confirman pocas parejas, se juegan las rondas que permiten "
            "sin repetir rivales."
        ),
    )
    starts_at = models.DateTimeField(_("empieza"))
    registration_deadline = models.DateTimeField(
        _("fin de la inscripción"), help_text=_("No puede ser después del comienzo.")
    )
    checkin_minutes = models.PositiveSmallIntegerField(
        _("minutos para confirmar"),
        default=15,
        validators=[MinValueValidator(1), MaxValueValidator(24 * 60)],
        help_text=_(
            "La confirmación («Estoy») se abre estos minutos antes del comienzo; las parejas "
            "que no confirman las dos se quedan fuera."
        ),
    )
    max_pairs = models.PositiveSmallIntegerField(
        _("máximo de parejas"),
        default=16,
        validators=[MinValueValidator(2), MaxValueValidator(MAX_PAIRS)],
    )
    turn_seconds = models.PositiveSmallIntegerField(
        _("segundos por turno"),
        default=30,
        validators=[MinValueValidator(5), MaxValueValidator(300)],
    )
    status = models.CharField(
        _("estado"),
        max_length=12,
        choices=Status.choices,
        default=Status.REGISTRATION,
        db_index=True,
    )
    # The round being played (0 before the start); for a Swiss tournament, `planned_rounds` is
    # what is played: `rounds`, or fewer if the pairs checked in allow fewer without rematches.
    current_round = models.PositiveSmallIntegerField(_("ronda en juego"), default=0)
    planned_rounds = models.PositiveSmallIntegerField(_("rondas previstas"), default=0)
    winner = models.ForeignKey(
        "Pair",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("pareja ganadora"),
    )
    cancel_reason = models.TextField(_("motivo de la cancelación"), blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("creado por"),
    )
    created_at = models.DateTimeField(_("creado"), auto_now_add=True)
    started_at = models.DateTimeField(_("empezó"), null=True, blank=True)
    finished_at = models.DateTimeField(_("terminó"), null=True, blank=True)

    class Meta:
        verbose_name = _("torneo")
        verbose_name_plural = _("torneos")
        ordering = ["-starts_at", "-pk"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("tournaments:detail", args=[self.pk])

    def clean(self) -> None:
        errors = {}
        if self.format == self.Format.SWISS and not self.rounds:
            errors["rounds"] = _("Un torneo suizo necesita su número de rondas.")
        if (
            self.registration_deadline
            and self.starts_at
            and self.registration_deadline > self.starts_at
        ):
            errors["registration_deadline"] = _(
                "La inscripción tiene que cerrarse antes del comienzo, o a la vez."
            )
        if errors:
            raise ValidationError(errors)

    @property
    def checkin_opens_at(self) -> datetime:
        return self.starts_at - timedelta(minutes=self.checkin_minutes)

    @property
    def expected_rounds(self) -> int:
        """The rounds it plays: those planned at the start, or before it the Swiss rounds asked
        for, or a full knockout of `max_pairs`."""
        if self.planned_rounds:
            return self.planned_rounds
        if self.is_swiss:
            return self.rounds or 1
        return max(1, math.ceil(math.log2(self.max_pairs)))

    @property
    def expected_end(self) -> datetime:
        """When it should be over: its rounds at `MUS_TOURNAMENT_ROUND_MINUTES` each."""
        minutes = self.expected_rounds * settings.MUS_TOURNAMENT_ROUND_MINUTES
        return self.starts_at + timedelta(minutes=minutes)

    def overlaps(self, other: Tournament, now: datetime) -> bool:
        """Whether one player could not play both: their expected times overlap, or `other`
        is still being played once this one's check-in has opened (it ran long)."""
        if self.starts_at < other.expected_end and other.starts_at < self.expected_end:
            return True
        return other.status == self.Status.RUNNING and now >= self.checkin_opens_at

    @property
    def is_swiss(self) -> bool:
        return self.format == self.Format.SWISS

    @property
    def is_over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.CANCELLED)


class Pair(models.Model):
    """Two players in a tournament: `first` invited `second`."""

    class Status(models.TextChoices):
        INVITED = "invitada", _("Invitación pendiente")
        REGISTERED = "inscrita", _("Inscrita")
        DECLINED = "rechazada", _("Invitación rechazada")
        WITHDRAWN = "retirada", _("Retirada")
        NOT_CHECKED_IN = "sin_confirmar", _("No confirmó a tiempo")
        PLAYING = "compite", _("Compite")
        ELIMINATED = "eliminada", _("Eliminada")
        REMOVED = "descalificada", _("Descalificada por la organización")

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="pairs", verbose_name=_("torneo")
    )
    first = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("jugador que invita"),
    )
    second = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("compañero"),
    )
    status = models.CharField(
        _("estado"), max_length=14, choices=Status.choices, default=Status.INVITED
    )
    first_checked_in_at = models.DateTimeField(_("confirmación del primero"), null=True, blank=True)
    second_checked_in_at = models.DateTimeField(
        _("confirmación del segundo"), null=True, blank=True
    )
    # At the start: the pair's rating (the mean of its players' in the mode) and its seed.
    rating = models.FloatField(_("puntuación al empezar"), null=True, blank=True)
    seed = models.PositiveSmallIntegerField(_("cabeza de serie"), null=True, blank=True)
    removed_reason = models.TextField(_("motivo de la descalificación"), blank=True)
    created_at = models.DateTimeField(_("invitada"), auto_now_add=True)
    answered_at = models.DateTimeField(_("respondida"), null=True, blank=True)

    class Meta:
        verbose_name = _("pareja")
        verbose_name_plural = _("parejas")
        ordering = ["created_at", "pk"]
        indexes = [
            models.Index(fields=["first", "status"], name="pair_first_status"),
            models.Index(fields=["second", "status"], name="pair_second_status"),
        ]
        constraints = [
            models.CheckConstraint(condition=~Q(first=models.F("second")), name="pair_of_two"),
        ]

    def __str__(self) -> str:
        return f"{self.first.public_name} / {self.second.public_name}"

    #: A pair that still counts: registered or invited (before the start), or in the tournament.
    LIVE = (Status.INVITED, Status.REGISTERED, Status.PLAYING)
    #: A pair that took part once the tournament started (it has standings).
    ENTERED = (Status.PLAYING, Status.ELIMINATED, Status.REMOVED)

    @property
    def players(self) -> tuple[int, int]:
        return (self.first_id, self.second_id)

    @property
    def checked_in(self) -> bool:
        return self.first_checked_in_at is not None and self.second_checked_in_at is not None

    def checked_in_at(self, user_id: int) -> datetime | None:
        return self.first_checked_in_at if user_id == self.first_id else self.second_checked_in_at


class Match(models.Model):
    """One game of a round: `pair_a` (seats 0 and 2) against `pair_b` (seats 1 and 3), or
    `pair_a`'s bye (`pair_b` empty); in a knockout, match `number` of a round is fed by matches
    2·number and 2·number + 1 of the round before."""

    class Status(models.TextChoices):
        WAITING = "esperando", _("Esperando mesa")
        PLAYING = "jugando", _("En juego")
        # The table was cancelled by a moderator or the site: the organisers decide the result.
        AWAITING = "pendiente", _("Pendiente de la organización")
        DONE = "decidida", _("Decidida")

    #: Not decided yet.
    OPEN = (Status.WAITING, Status.PLAYING, Status.AWAITING)

    class Outcome(models.TextChoices):
        PLAYED = "mesa", _("Jugada")
        ABANDONED = "abandono", _("Abandono")
        NO_SHOW = "incomparecencia", _("Incomparecencia")
        ADJUDICATED = "arbitraje", _("Decidida por la organización")
        REMOVED = "descalificacion", _("Descalificación")
        BYE = "exenta", _("Descansa")

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="matches", verbose_name=_("torneo")
    )
    round = models.PositiveSmallIntegerField(_("ronda"))
    number = models.PositiveSmallIntegerField(_("número"))
    pair_a = models.ForeignKey(
        Pair,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("pareja A"),
    )
    pair_b = models.ForeignKey(
        Pair,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("pareja B"),
    )
    table = models.OneToOneField(
        "games.Table",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="tournament_match",
        verbose_name=_("mesa"),
    )
    status = models.CharField(
        _("estado"), max_length=10, choices=Status.choices, default=Status.WAITING, db_index=True
    )
    outcome = models.CharField(_("cómo acabó"), max_length=16, choices=Outcome.choices, blank=True)
    winner = models.ForeignKey(
        Pair,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("ganadora"),
    )
    tantos_a = models.PositiveSmallIntegerField(_("tantos de la pareja A"), default=0)
    tantos_b = models.PositiveSmallIntegerField(_("tantos de la pareja B"), default=0)
    note = models.TextField(_("nota"), blank=True)
    paired_at = models.DateTimeField(_("emparejada"), auto_now_add=True)
    decided_at = models.DateTimeField(_("decidida"), null=True, blank=True)

    class Meta:
        verbose_name = _("partida del torneo")
        verbose_name_plural = _("partidas del torneo")
        ordering = ["round", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "round", "number"], name="one_match_per_place"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tournament} · {self.round}.{self.number}"

    def pairs(self) -> list[Pair]:
        return [p for p in (self.pair_a, self.pair_b) if p is not None]
