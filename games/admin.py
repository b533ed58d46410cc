"""Tables and games in the Django admin: read-only, with the record and the chat.

Tables change only through `games.services`; nothing here edits a table row directly. The
record of a game in progress (every hand and the pile) is not shown: staff may be playing. The
moderation app registers a subclass of `TableAdmin` with the moderators' measures.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.admin import NoAddOrDeleteMixin, ReadOnlyAdmin, ReadOnlyMixin, admin_link

from .models import ChatMessage, Seat, Table


class ReadOnlyInline(ReadOnlyMixin, admin.TabularInline):
    extra = 0
    max_num = 0
    can_delete = False
    show_change_link = False


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ("seat", "player", "active", "connections", "reconnect_deadline", "joined_at")
    readonly_fields = fields
    ordering = ("seat",)
    verbose_name_plural = _("jugadores")

    @admin.display(description=_("jugador"))
    def player(self, obj: Seat) -> str:
        return admin_link(obj.user, obj.user.get_username())

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("user")


class ChatInline(ReadOnlyInline):
    model = ChatMessage
    fields = ("created_at", "seat", "author", "text")
    readonly_fields = fields
    ordering = ("created_at", "pk")
    verbose_name_plural = _("chat de la mesa")

    @admin.display(description=_("jugador"))
    def author(self, obj: ChatMessage) -> str:
        return admin_link(obj.user, obj.user.get_username())

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("user")


@admin.register(Table)
class TableAdmin(NoAddOrDeleteMixin, admin.ModelAdmin):
    list_display = (
        "id",
        "mode",
        "status",
        "phase",
        "host",
        "players",
        "private",
        "rated",
        "practice",
        "scores",
        "created_at",
        "started_at",
        "finished_at",
    )
    list_display_links = ("id", "mode")
    list_filter = (
        "status",
        "mode",
        "private",
        "rated",
        "practice",
        "created_at",
        "started_at",
        "finished_at",
    )
    # A number finds the table with that id; a name finds the tables where that player sat.
    search_fields = ("=id", "seats__user__username", "seats__user__display_name")
    search_help_text = _("Número de mesa, o nombre de un jugador.")
    list_select_related = ("host",)
    date_hierarchy = "created_at"
    ordering = ("-created_at",)
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "measures",
                    ("mode", "status", "phase"),
                    ("host", "private", "rated", "practice"),
                    ("version", "scores", "winner_team", "ended_by"),
                    ("cancel_reason", "rematch"),
                    ("created_at", "started_at", "finished_at", "deadline"),
                )
            },
        ),
        (_("Registro de la partida (mus-record/1)"), {"fields": ("record_pretty",)}),
    )
    readonly_fields = (
        "measures",
        "mode",
        "status",
        "phase",
        "host",
        "private",
        "rated",
        "practice",
        "version",
        "scores",
        "winner_team",
        "ended_by",
        "cancel_reason",
        "rematch",
        "created_at",
        "started_at",
        "finished_at",
        "deadline",
        "record_pretty",
    )
    inlines = [SeatInline, ChatInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).annotate(player_count=Count("seats", distinct=True))

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet, search_term: str
    ) -> tuple[QuerySet, bool]:
        # "=id" only makes sense for a number; a name must not be compared with the id column.
        if search_term.strip().lstrip("#").isdigit():
            return queryset.filter(pk=int(search_term.strip().lstrip("#"))), False
        self.search_fields = ("seats__user__username", "seats__user__display_name")
        try:
            return super().get_search_results(request, queryset, search_term)
        finally:
            self.search_fields = type(self).search_fields

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        # Every field is read-only: a save button would pretend otherwise.
        extra = {
            "show_save": False,
            "show_save_and_continue": False,
            "show_save_and_add_another": False,
            "show_delete": False,
            **(extra_context or {}),
        }
        return super().change_view(request, object_id, form_url, extra)

    @admin.display(description=_("jugadores"), ordering="player_count")
    def players(self, obj: Table) -> int:
        return getattr(obj, "player_count", None) or obj.seats.count()

    @admin.display(description=_("registro"))
    def record_pretty(self, obj: Table) -> str:
        if obj.record is None:
            return gettext("Sin registro: la partida no llegó a empezar.")
        if not obj.is_over:
            # The record holds every hand and the pile: staff may be playing too. The moderation
            # admin lets a superuser reveal a live game, with a reason in its audit log.
            return gettext("Oculto mientras se juega la partida: se verá cuando termine.")
        text = json.dumps(obj.record, indent=2, ensure_ascii=False)
        return format_html('<pre class="game-record">{}</pre>', text)

    def measure_links(self, obj: Table) -> list[tuple[str, str]]:
        """(url, label) of the links under «Medidas»; a subclass may add its own."""
        links = [
            (
                reverse("admin:games_chatmessage_changelist") + f"?mesa={obj.pk}",
                gettext("Chat de la mesa"),
            )
        ]
        if obj.is_over and obj.record is not None:
            links.append((reverse("game_record", args=[obj.pk]), gettext("Registro en JSON")))
        return links

    @admin.display(description=_("Medidas"))
    def measures(self, obj: Table) -> str:
        return format_html_join(" · ", '<a href="{}">{}</a>', self.measure_links(obj))


class ChatTableFilter(admin.SimpleListFilter):
    """One table's chat: the latest tables with chat are listed, any id works in the URL."""

    title = _("mesa")
    parameter_name = "mesa"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list:
        latest = (
            ChatMessage.objects.order_by("-created_at")
            .values_list("table_id", flat=True)
            .distinct()[:200]
        )
        seen: list[int] = []
        for table_id in latest:
            if table_id not in seen:
                seen.append(table_id)
            if len(seen) == 20:
                break
        return [(str(t), f"#{t}") for t in seen]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        value = self.value()
        if value is None:
            return queryset
        if not str(value).isdigit():
            return queryset.none()
        return queryset.filter(table_id=int(value))


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "table_link", "seat", "author", "text")
    list_filter = (ChatTableFilter, "created_at")
    search_fields = ("text", "user__username", "user__display_name")
    list_select_related = ("user", "table")
    date_hierarchy = "created_at"
    ordering = ("-created_at", "-pk")
    fields = ("created_at", "table_link", "seat", "author", "text")
    readonly_fields = fields

    @admin.display(description=_("mesa"), ordering="table")
    def table_link(self, obj: ChatMessage) -> str:
        return admin_link(obj.table, f"#{obj.table_id}")

    @admin.display(description=_("jugador"), ordering="user__username")
    def author(self, obj: ChatMessage) -> str:
        return admin_link(obj.user, obj.user.get_username())
