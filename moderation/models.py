"""Reports of players and the moderators' audit log.

The tables were created by the accounts app and keep their names (`accounts_report`,
`accounts_moderationaction`): moving the models here changed no row.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Report(models.Model):
    """A player's report of another player of a finished or cancelled game."""

    class Reason(models.TextChoices):
        INSULTS = "insultos", _("Insultos o acoso")
        CHEATING = "trampas", _("Trampas o colusión")
        ABANDON = "abandono", _("Abandono de la partida")
        NAME = "nombre", _("Nombre ofensivo")
        OTHER = "otro", _("Otro motivo")

    class Status(models.TextChoices):
        OPEN = "abierta", _("Abierta")
        RESOLVED = "resuelta", _("Resuelta")

    class Resolution(models.TextChoices):
        NO_ACTION = "sin_medidas", _("Sin medidas")
        MUTED = "silenciado", _("Jugador silenciado")
        BANNED = "expulsado", _("Jugador expulsado")

    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="reports_made",
        verbose_name=_("denunciante"),
    )
    reported = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="reports_received",
        verbose_name=_("denunciado"),
    )
    table = models.ForeignKey(
        "games.Table",
        on_delete=models.CASCADE,
        related_name="reports",
        verbose_name=_("partida"),
    )
    reason = models.CharField(_("motivo"), max_length=10, choices=Reason.choices)
    text = models.TextField(_("explicación"), max_length=1000, blank=True)
    status = models.CharField(
        _("estado"), max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True
    )
    created_at = models.DateTimeField(_("enviada el"), auto_now_add=True)
    resolved_at = models.DateTimeField(_("resuelta el"), null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="reports_resolved",
        verbose_name=_("resuelta por"),
    )
    resolution = models.CharField(
        _("resolución"), max_length=12, choices=Resolution.choices, blank=True
    )
    resolution_note = models.TextField(_("nota de la resolución"), blank=True)

    class Meta:
        db_table = "accounts_report"
        verbose_name = _("denuncia")
        verbose_name_plural = _("denuncias")
        ordering = ["created_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["reporter", "reported", "table"],
                condition=models.Q(status="abierta"),
                name="one_open_report_per_player_and_game",
            ),
            models.CheckConstraint(
                condition=~models.Q(reporter=models.F("reported")), name="no_self_report"
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.reporter_id}→{self.reported_id} ({self.table_id})"


class ModerationAction(models.Model):
    """The audit log: every moderator action, who did it, to whom, when and why.

    Written only by `moderation.actions` (and a recompute's result, by `moderation.tasks`); the
    admin shows it and never lets anybody change it.
    """

    class Kind(models.TextChoices):
        BAN = "expulsar", _("Expulsión")
        UNBAN = "readmitir", _("Fin de la expulsión")
        MUTE = "silenciar", _("Silencio")
        UNMUTE = "quitar_silencio", _("Fin del silencio")
        CANCEL_GAME = "cancelar", _("Partida cancelada")
        RESOLVE_REPORT = "resolver", _("Denuncia resuelta")
        RECOMPUTE = "recalcular", _("Ranking recalculado")
        REVEAL_HANDS = "ver_cartas", _("Cartas de una partida en juego vistas")
        CANCEL_TOURNAMENT = "cancelar_torneo", _("Torneo cancelado")
        REMOVE_PAIR = "descalificar", _("Pareja descalificada de un torneo")
        WITHDRAW_INVITATION = "invit_retirada", _("Invitación a un torneo retirada")
        ADJUDICATE = "arbitrar", _("Partida de torneo decidida por la organización")
        CLOSE_ACCOUNT = "cerrar_cuenta", _("Cuenta cerrada")
        REVOKE_TOKENS = "revocar_tokens", _("Tokens de un bot revocados")

    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="moderation_done",
        verbose_name=_("moderador"),
    )
    moderator_name = models.CharField(_("nombre del moderador"), max_length=150)
    kind = models.CharField(_("acción"), max_length=16, choices=Kind.choices, db_index=True)
    target = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="moderation_received",
        verbose_name=_("jugador afectado"),
    )
    target_name = models.CharField(_("nombre del jugador afectado"), max_length=150, blank=True)
    table = models.ForeignKey(
        "games.Table",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="moderation_actions",
        verbose_name=_("mesa"),
    )
    report = models.ForeignKey(
        Report,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="moderation_actions",
        verbose_name=_("denuncia"),
    )
    reason = models.TextField(_("motivo"), blank=True)
    until = models.DateTimeField(_("hasta"), null=True, blank=True)
    details = models.JSONField(_("detalles"), default=dict, blank=True)
    created_at = models.DateTimeField(_("fecha"), auto_now_add=True, db_index=True)

    class Meta:
        db_table = "accounts_moderationaction"
        verbose_name = _("acción de moderación")
        verbose_name_plural = _("registro de moderación")
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.moderator_name}: {self.get_kind_display()} {self.target_name}".strip()


class DataExport(models.Model):
    """A player's «Descargar mis datos» (`moderation.export`): every request is a row, which the
    rate limit counts; a large export is made by a Celery task and kept here (`content`) for its
    player to download until they ask for another one or close the account."""

    class Status(models.TextChoices):
        PENDING = "pendiente", _("Preparándose")
        READY = "lista", _("Lista")
        FAILED = "fallida", _("Fallida")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="data_exports"
    )
    status = models.CharField(
        _("estado"), max_length=10, choices=Status.choices, default=Status.PENDING
    )
    requested_at = models.DateTimeField(_("pedida el"), auto_now_add=True, db_index=True)
    finished_at = models.DateTimeField(_("terminada el"), null=True, blank=True)
    content = models.JSONField(null=True, blank=True)

    class Meta:
        verbose_name = _("exportación de datos")
        verbose_name_plural = _("exportaciones de datos")
        ordering = ["-requested_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.user_id} {self.status} {self.requested_at:%Y-%m-%d %H:%M}"
