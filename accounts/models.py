from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.contrib.auth.models import UserManager as DjangoUserManager
from django.db import IntegrityError, models, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from . import names

#: The fields a player is known by, whose confusable skeletons `NameClaim` holds.
NAME_FIELDS = frozenset({"username", "display_name", "is_bot"})


class NameTaken(IntegrityError):
    """Another player holds a name that looks the same (a race the forms' checks lost)."""


class UserManager(DjangoUserManager):
    def get_by_natural_key(self, username: str | None) -> User:
        """Log-in finds an account whatever the case, as sign-up refuses a name another player
        has in any case: «alicia» logs in as «Alicia». An exact match wins (two accounts that
        differ only in case can predate that rule); a case-insensitive one must be the only one.
        """
        try:
            return self.get(username=username)
        except self.model.DoesNotExist:
            found = list(self.filter(username__iexact=username)[:2])
            if len(found) == 1:
                return found[0]
            raise


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
    # When the player closed their account (or staff did, at their request): it signs in no more,
    # its personal fields are erased and its username is a tombstone (`names.tombstone`).
    closed_at = models.DateTimeField(_("cuenta cerrada el"), null=True, blank=True)
    # Set on a player's own bot account (`accounts.bot_accounts`): a program its owner plays
    # through the bot API with tokens, never with a password. Not one of the site's bots
    # (`is_bot`), which fill seats and have reserved names.
    bot_owner = models.ForeignKey(
        "self",
        verbose_name=_("dueño del bot"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="bot_accounts",
    )

    objects = UserManager()

    class Meta:
        verbose_name = _("jugador")
        verbose_name_plural = _("jugadores")

    def __str__(self) -> str:
        return self.public_name

    # The names as read from the database (`from_db`), which `NameClaim.claim` lets keep the
    # claims they have: not a database field.
    stored_names: tuple[str | None, str | None] = (None, None)

    @classmethod
    def from_db(cls, db: str | None, field_names: Any, values: Any, **kwargs: Any) -> User:
        user = super().from_db(db, field_names, values, **kwargs)
        user.stored_names = (user.__dict__.get("username"), user.__dict__.get("display_name"))
        return user

    def save(self, **kwargs: Any) -> None:
        """Save, and claim the skeletons of the player's names in the same transaction
        (`NameClaim`): raises `NameTaken` if another player holds one of a new name's."""
        fields = kwargs.get("update_fields")
        if fields is not None and not NAME_FIELDS.intersection(fields):
            super().save(**kwargs)
            return
        with transaction.atomic(using=kwargs.get("using")):
            super().save(**kwargs)
            NameClaim.claim(self)
        self.stored_names = (self.username, self.display_name)

    @property
    def public_name(self) -> str:
        return names.shown(self.username, self.display_name)

    @property
    def is_bot_account(self) -> bool:
        """A player's own bot account (a program), not one of the site's bots."""
        return self.bot_owner_id is not None

    @property
    def is_banned(self) -> bool:
        if self.banned_at is None:
            return False
        return self.banned_until is None or self.banned_until > timezone.now()

    @property
    def may_play(self) -> bool:
        """Active and not banned: the account may sign in, sit and play (one rule for every
        entry point; why not is for each to say)."""
        return self.is_active and not self.is_banned

    @property
    def is_muted(self) -> bool:
        if self.muted:
            return True
        return self.muted_until is not None and self.muted_until > timezone.now()


class NameClaim(models.Model):
    """One confusable skeleton (`accounts.names.skeletons`) of a player's username or display name.

    The primary key is the rule: of two players racing to be «Alicia» and «Аlicia», one commits
    and the other gets `NameTaken`. A player's own username and display name may look alike
    (their common keys are stored once). A closed account keeps its claims for good. Bots claim nothing: `accounts.bots` reserves whatever
    reads like their names.
    """

    skeleton = models.TextField(primary_key=True)
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="name_claims")

    class Meta:
        verbose_name = _("nombre reservado")
        verbose_name_plural = _("nombres reservados")

    def __str__(self) -> str:
        return self.skeleton

    @staticmethod
    def keys_of(user: User) -> frozenset[str]:
        if user.is_bot:
            return frozenset()
        return names.skeletons(user.username) | names.skeletons(user.display_name)

    @classmethod
    def claim(cls, user: User) -> None:
        """Make the user's claims those of their current names (inside a transaction).

        A new name must be free. A name the player already had keeps what it could claim: two
        players who looked alike before names were checked (see the migration that filled this
        table) are not refused every later save of their accounts.
        """
        if user.closed_at is not None:
            # A closed account keeps the claims of the names it had, and takes no new one:
            # nobody may come along later as «Alicia» and pass for the player who left.
            return
        wanted = cls.keys_of(user)
        held = set(cls.objects.filter(user=user).values_list("skeleton", flat=True))
        cls.objects.filter(user=user, skeleton__in=held - wanted).delete()
        kept: frozenset[str] = frozenset()
        if not user.is_bot:
            for name, stored in zip(
                (user.username, user.display_name), user.stored_names, strict=True
            ):
                if stored is not None and name == stored:
                    kept |= names.skeletons(name)
        missing = wanted - held
        cls.objects.bulk_create(
            [cls(skeleton=key, user=user) for key in missing & kept], ignore_conflicts=True
        )
        try:
            with transaction.atomic():
                cls.objects.bulk_create([cls(skeleton=k, user=user) for k in missing - kept])
        except IntegrityError:
            raise NameTaken(user.username) from None

    @classmethod
    def holder(cls, name: str, *, besides: int | None = None) -> User | None:
        """The other player (not `besides`) whose username or display name looks like `name`."""
        claim = (
            cls.objects.filter(skeleton__in=names.skeletons(name))
            .exclude(user_id=besides)
            .select_related("user")
            .first()
        )
        return None if claim is None else claim.user


class Follow(models.Model):
    """`follower` follows `followed`: `followed` is one of their friends (the lobby lists the
    friends who are online, and they may be invited to a table or to play as a pair)."""

    follower = models.ForeignKey(User, on_delete=models.CASCADE, related_name="follows")
    followed = models.ForeignKey(User, on_delete=models.CASCADE, related_name="followers")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("seguimiento")
        verbose_name_plural = _("seguimientos")
        constraints = [
            models.UniqueConstraint(fields=["follower", "followed"], name="follow_once"),
            models.CheckConstraint(
                condition=~models.Q(follower=models.F("followed")), name="follow_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.follower_id} → {self.followed_id}"


class Block(models.Model):
    """`blocker` blocked `blocked`: no invitations between them, and `blocker` is shown no chat
    line of `blocked`."""

    blocker = models.ForeignKey(User, on_delete=models.CASCADE, related_name="blocks")
    blocked = models.ForeignKey(User, on_delete=models.CASCADE, related_name="blocked_by")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("bloqueo")
        verbose_name_plural = _("bloqueos")
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="block_once"),
            models.CheckConstraint(
                condition=~models.Q(blocker=models.F("blocked")), name="block_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.blocker_id} ⊘ {self.blocked_id}"


class PendingEmail(models.Model):
    """An address a player gave (at sign-up or in their settings) and has not confirmed yet.

    `User.email` is only ever a confirmed address, the one password resets go to; a new one waits
    here until the player opens the link mailed to it (`accounts.addresses`), so the old one stays
    in force meanwhile. One at a time: giving another replaces it (and its link stops working).
    Unconfirmed, it expires after `MUS_EMAIL_CONFIRM_SECONDS`.
    """

    user = models.OneToOneField(User, on_delete=models.CASCADE, related_name="pending_email")
    email = models.EmailField(_("correo electrónico"))
    created_at = models.DateTimeField(_("dado el"), default=timezone.now)

    class Meta:
        verbose_name = _("correo sin confirmar")
        verbose_name_plural = _("correos sin confirmar")

    def __str__(self) -> str:
        return self.email


class BotToken(models.Model):
    """A personal API token of a bot account (`accounts.bot_accounts`): the token itself is
    shown once, when made; only its SHA-256 is kept (it is random, 256 bits: no salt or slow
    hash needed to make a leaked table useless)."""

    user = models.ForeignKey(
        User, verbose_name=_("cuenta de bot"), on_delete=models.CASCADE, related_name="bot_tokens"
    )
    name = models.CharField(_("nombre"), max_length=40, blank=True)
    key_hash = models.CharField(_("huella del token"), max_length=64, unique=True)
    # The token's first characters, to tell tokens apart in lists.
    prefix = models.CharField(_("comienzo del token"), max_length=12)
    created_at = models.DateTimeField(_("creado el"), auto_now_add=True)
    expires_at = models.DateTimeField(_("caduca el"), null=True, blank=True)
    last_used_at = models.DateTimeField(_("usado por última vez"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revocado el"), null=True, blank=True)

    class Meta:
        verbose_name = _("token de bot")
        verbose_name_plural = _("tokens de bot")

    def __str__(self) -> str:
        return f"{self.prefix}…"

    @property
    def is_usable(self) -> bool:
        if self.revoked_at is not None:
            return False
        return self.expires_at is None or self.expires_at > timezone.now()
