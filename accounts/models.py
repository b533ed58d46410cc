from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class User(AbstractUser):
    """A player (or a staff member, or a bot seat filler)."""

    display_name = models.CharField(_("nombre visible"), max_length=40, blank=True)
    language = models.CharField(
        _("idioma"), max_length=8, choices=settings.LANGUAGES, default=settings.LANGUAGE_CODE
    )
    is_bot = models.BooleanField(_("bot"), default=False)
    banned_at = models.DateTimeField(_("expulsado el"), null=True, blank=True)
    banned_until = models.DateTimeField(_("expulsado hasta"), null=True, blank=True)
    ban_reason = models.TextField(_("motivo de la expulsión"), blank=True)
    muted_until = models.DateTimeField(_("silenciado hasta"), null=True, blank=True)
    muted = models.BooleanField(_("silenciado"), default=False)

    class Meta:
        verbose_name = _("jugador")
        verbose_name_plural = _("jugadores")

    def __str__(self) -> str:
        return self.public_name

    @property
    def public_name(self) -> str:
        return self.display_name or self.username

    @property
    def is_banned(self) -> bool:
        if self.banned_at is None:
            return False
        return self.banned_until is None or self.banned_until > timezone.now()

    @property
    def is_muted(self) -> bool:
        if self.muted:
            return True
        return self.muted_until is not None and self.muted_until > timezone.now()
