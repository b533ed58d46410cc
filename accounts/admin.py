from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .models import User


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


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    """Django's user admin plus the player's fields. Moderation actions are added later."""

    list_display = (
        "username",
        "display_name",
        "email",
        "date_joined",
        "last_login",
        "is_staff",
        "is_bot",
        "banned_at",
        "muted",
    )
    list_filter = (
        BannedFilter,
        "muted",
        "is_bot",
        "is_staff",
        "is_superuser",
        "is_active",
        "language",
        "date_joined",
    )
    search_fields = ("username", "display_name", "email", "first_name", "last_name")
    ordering = ("-date_joined",)
    date_hierarchy = "date_joined"
    readonly_fields = ("date_joined", "last_login")
    fieldsets = (
        *DjangoUserAdmin.fieldsets,
        (_("Jugador"), {"fields": ("display_name", "language", "is_bot")}),
        (
            _("Moderación"),
            {"fields": ("banned_at", "banned_until", "ban_reason", "muted", "muted_until")},
        ),
    )
