"""Staff create and edit tournaments here; the moderators' measures on them (cancel, remove a
pair, decide a game) are added by `moderation.admin.tournaments`, which registers this admin
again with them."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from .models import Match, Pair, Tournament


class PairInline(admin.TabularInline):
    model = Pair
    fk_name = "tournament"
    extra = 0
    fields = ("first", "second", "status", "seed", "rating", "checked_in")
    readonly_fields = fields
    can_delete = False
    show_change_link = False

    @admin.display(boolean=True, description=_("confirmada"))
    def checked_in(self, obj: Pair) -> bool:
        return obj.checked_in

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class MatchInline(admin.TabularInline):
    model = Match
    extra = 0
    fields = ("round", "number", "pair_a", "pair_b", "table", "status", "outcome", "winner")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class TournamentAdmin(admin.ModelAdmin):
    list_display = ("name", "mode", "format", "starts_at", "status", "current_round", "max_pairs")
    list_filter = ("status", "format", "mode")
    search_fields = ("name",)
    date_hierarchy = "starts_at"
    fieldsets = (
        (None, {"fields": ("name", "mode", "format", "rounds")}),
        (
            _("Fechas"),
            {"fields": ("starts_at", "registration_deadline", "checkin_minutes")},
        ),
        (_("Mesas"), {"fields": ("max_pairs", "turn_seconds")}),
        (
            _("Estado"),
            {
                "fields": (
                    "status",
                    "current_round",
                    "planned_rounds",
                    "winner",
                    "cancel_reason",
                    "created_by",
                    "started_at",
                    "finished_at",
                )
            },
        ),
    )
    readonly_fields = (
        "status",
        "current_round",
        "planned_rounds",
        "winner",
        "cancel_reason",
        "created_by",
        "started_at",
        "finished_at",
    )
    inlines = [PairInline, MatchInline]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        """Once it has started, nothing of a tournament is edited here (the measures remain)."""
        if obj is not None and obj.status != Tournament.Status.REGISTRATION:
            return [f.name for f in Tournament._meta.fields]
        return self.readonly_fields

    def save_model(self, request: HttpRequest, obj: Tournament, form: Any, change: bool) -> None:
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # A tournament is cancelled, never deleted: its games and pages stay.
        return False


admin.site.register(Tournament, TournamentAdmin)


class PairAdmin(admin.ModelAdmin):
    """The pairs of every tournament, to look at (the measures come from moderation)."""

    list_display = ("__str__", "tournament", "status", "seed", "rating", "checked_in")
    list_filter = ("status", "tournament")
    search_fields = ("first__username", "second__username", "tournament__name")
    list_select_related = ("tournament", "first", "second")
    readonly_fields = [f.name for f in Pair._meta.fields]

    @admin.display(boolean=True, description=_("confirmada"))
    def checked_in(self, obj: Pair) -> bool:
        return obj.checked_in

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class MatchAdmin(admin.ModelAdmin):
    """The games of every tournament, to look at (the measures come from moderation)."""

    list_display = ("__str__", "pair_a", "pair_b", "status", "outcome", "winner", "table")
    list_filter = ("status", "outcome", "tournament")
    list_select_related = (
        "tournament",
        "pair_a__first",
        "pair_a__second",
        "pair_b__first",
        "pair_b__second",
        "winner__first",
        "winner__second",
    )
    readonly_fields = [f.name for f in Match._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


admin.site.register(Pair, PairAdmin)
admin.site.register(Match, MatchAdmin)
