"""Players in the Django admin, and the admin helpers the other apps share.

The moderation app registers a subclass of `UserAdmin` with the moderators' measures (ban, mute,
the audit log); this one only lists and edits players.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import (
    AdminPasswordChangeForm,
    AdminUserCreationForm,
    UserChangeForm,
)
from django.core.exceptions import ValidationError
from django.db.models import Model, Q, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from .forms import check_username, cleaned_display_name
from .models import BotToken, User
from .sessions import password_changed


class NoAddOrDeleteMixin:
    """For a model admin or an inline: rows are never added or deleted here (superusers included).

    The signatures fit both `ModelAdmin` and `InlineModelAdmin` (whose methods take `obj`).
    """

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyMixin(NoAddOrDeleteMixin):
    """Nor changed: only looked at."""

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """A list and detail pages nobody can add to, change or delete from (superusers included)."""


def admin_link(obj: Model | None, label: Any = None) -> str:
    """A link to an object's admin change page (or a dash)."""
    if obj is None:
        return "—"
    opts = obj._meta
    url = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])
    return format_html('<a href="{}">{}</a>', url, label if label is not None else str(obj))


class BannedFilter(admin.SimpleListFilter):
    """Banned now (the ban has no end or has not ended yet), or not."""

    title = _("expulsión")
    parameter_name = "expulsado"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list:
        return [("si", _("Expulsado ahora")), ("no", _("Sin expulsión en vigor"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        banned_now = Q(banned_at__isnull=False) & (
            Q(banned_until__isnull=True) | Q(banned_until__gt=timezone.now())
        )
        if self.value() == "si":
            return queryset.filter(banned_now)
        if self.value() == "no":
            return queryset.exclude(banned_now)
        return queryset


MODERATION_FIELDS = ("banned_at", "banned_until", "ban_reason", "muted", "muted_until")
MODERATION_FIELDSET = (_("Moderación"), {"fields": MODERATION_FIELDS})


class PlayerCreationForm(AdminUserCreationForm):
    """Staff follow the players' name rules (`accounts.names`) too."""

    def clean_username(self) -> str | None:
        username = super().clean_username()
        if username:
            check_username(username)
        return username


class PlayerChangeForm(UserChangeForm):
    """A renamed player follows the name rules; names kept from before them are not refused."""

    def clean_username(self) -> str:
        username = self.cleaned_data.get("username") or ""
        if username and username != self.instance.username:
            if User.objects.filter(username__iexact=username).exclude(pk=self.instance.pk).exists():
                raise ValidationError(
                    _("Ya hay otro jugador con ese nombre de usuario."), code="unique"
                )
            check_username(username, user_id=self.instance.pk)
        return username

    def clean_display_name(self) -> str:
        return cleaned_display_name(self.cleaned_data.get("display_name") or "", self.instance)


class PlayerPasswordForm(AdminPasswordChangeForm):
    """A password set by staff ends the player's sessions and closes their sockets, as their own
    change or reset would."""

    def save(self, commit: bool = True) -> Any:
        user = super().save(commit)
        if commit:
            password_changed(user)
        return user


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    """Django's user admin plus the player's fields and their bans and silences."""

    form = PlayerChangeForm
    add_form = PlayerCreationForm
    change_password_form = PlayerPasswordForm

    list_display = (
        "username",
        "display_name",
        "email",
        "date_joined",
        "last_login",
        "is_staff",
        "is_bot",
        "bot_owner",
        "banned_at",
        "banned_until",
        "muted",
        "muted_until",
    )
    list_filter = (
        BannedFilter,
        "muted",
        "is_bot",
        ("bot_owner", admin.EmptyFieldListFilter),
        "is_staff",
        "is_superuser",
        "is_active",
        "language",
        "date_joined",
    )
    search_fields = ("username", "display_name", "email", "first_name", "last_name")
    ordering = ("-date_joined",)
    date_hierarchy = "date_joined"
    # A bot account's owner is set by `accounts.bot_accounts` alone (only an account that never
    # played becomes one): not editable here.
    readonly_fields = ("date_joined", "last_login", "bot_owner")
    fieldsets = (
        *DjangoUserAdmin.fieldsets,
        (_("Jugador"), {"fields": ("display_name", "language", "is_bot", "bot_owner")}),
        MODERATION_FIELDSET,
    )


@admin.register(BotToken)
class BotTokenAdmin(admin.ModelAdmin):
    """Bot accounts' tokens, to read: they are made by their owners and revoked with the
    players' action «Revocar los tokens…» (in the audit log)."""

    list_display = (
        "prefix",
        "name",
        "user",
        "created_at",
        "last_used_at",
        "expires_at",
        "revoked_at",
    )
    list_filter = (("revoked_at", admin.EmptyFieldListFilter),)
    search_fields = ("user__username", "prefix", "name")
    readonly_fields = (
        "user",
        "name",
        "prefix",
        "created_at",
        "expires_at",
        "last_used_at",
        "revoked_at",
    )
    exclude = ("key_hash",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False
