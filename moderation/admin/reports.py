"""The report queue and the audit log in the admin.

Reports are resolved only through `moderation.actions.resolve_report`; the audit log is
readable, never editable, by anybody (superusers included).
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.admin import NoAddOrDeleteMixin, ReadOnlyAdmin, admin_link

from .. import actions as moderation
from ..models import ModerationAction, Report
from .measures import NoteForm, measure_page


class ReportStatusFilter(admin.SimpleListFilter):
    """Open reports first: the queue shows them unless another status is chosen."""

    title = _("estado")
    parameter_name = "estado"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list:
        return [
            (None, _("Abiertas")),
            ("resuelta", _("Resueltas")),
            ("todas", _("Todas")),
        ]

    def choices(self, changelist: Any) -> Any:
        for lookup, title in self.lookup_choices:
            yield {
                "selected": self.value() == lookup,
                "query_string": changelist.get_query_string({self.parameter_name: lookup}, [])
                if lookup
                else changelist.get_query_string(remove=[self.parameter_name]),
                "display": title,
            }

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "todas":
            return queryset
        if self.value() == "resuelta":
            return queryset.filter(status=Report.Status.RESOLVED)
        return queryset.filter(status=Report.Status.OPEN)


@admin.register(Report)
class ReportAdmin(NoAddOrDeleteMixin, admin.ModelAdmin):
    list_display = (
        "id",
        "created_at",
        "reporter_link",
        "reported_link",
        "table_link",
        "reason",
        "status",
        "resolution",
        "resolved_by",
    )
    list_display_links = ("id", "created_at")
    list_filter = (ReportStatusFilter, "reason", "resolution", "created_at")
    search_fields = (
        "reporter__username",
        "reporter__display_name",
        "reported__username",
        "reported__display_name",
        "text",
    )
    list_select_related = ("reporter", "reported", "table", "resolved_by")
    ordering = ("created_at", "pk")
    date_hierarchy = "created_at"
    fields = (
        "reporter_link",
        "reported_link",
        "table_link",
        "reason",
        "text",
        "created_at",
        "status",
        "resolution",
        "resolution_note",
        "resolved_by",
        "resolved_at",
        "reported_record",
    )
    readonly_fields = fields
    actions = ["resolve_no_action", "resolve_mute", "resolve_ban"]

    @admin.display(description=_("denunciante"), ordering="reporter__username")
    def reporter_link(self, obj: Report) -> str:
        return admin_link(obj.reporter, obj.reporter.get_username())

    @admin.display(description=_("denunciado"), ordering="reported__username")
    def reported_link(self, obj: Report) -> str:
        return admin_link(obj.reported, obj.reported.get_username())

    @admin.display(description=_("partida"), ordering="table")
    def table_link(self, obj: Report) -> str:
        return admin_link(obj.table, f"#{obj.table_id}")

    @admin.display(description=_("Otras denuncias y medidas del denunciado"))
    def reported_record(self, obj: Report) -> str:
        reports = reverse("admin:moderation_report_changelist")
        log = reverse("admin:moderation_moderationaction_changelist")
        return format_html(
            '<a href="{}?estado=todas&amp;q={}">{}</a> · <a href="{}?target__id__exact={}">{}</a>',
            reports,
            obj.reported.get_username(),
            gettext("Denuncias"),
            log,
            obj.reported_id,
            gettext("Historial de moderación"),
        )

    def _resolve(
        self, request: HttpRequest, queryset: QuerySet, resolution: str, action: str, title: Any
    ) -> HttpResponse | None:
        moderator = request.user
        return measure_page(
            self,
            request,
            queryset.select_related("reporter", "reported"),
            form_class=NoteForm,
            title=title,
            intro=_("Se resolverán estas denuncias (las ya resueltas se dejan como están)."),
            submit=title,
            apply=lambda report, data: moderation.resolve_report(
                moderator, report, resolution, data["note"]
            ),
            done=lambda n: gettext("Denuncias resueltas: %(n)d.") % {"n": n},
            action=action,
        )

    @admin.action(description=_("Resolver sin medidas…"), permissions=["change"])
    def resolve_no_action(self, request: HttpRequest, queryset: QuerySet) -> Any:
        return self._resolve(
            request,
            queryset,
            Report.Resolution.NO_ACTION,
            "resolve_no_action",
            _("Resolver sin medidas"),
        )

    @admin.action(description=_("Resolver y silenciar al denunciado…"), permissions=["change"])
    def resolve_mute(self, request: HttpRequest, queryset: QuerySet) -> Any:
        return self._resolve(
            request,
            queryset,
            Report.Resolution.MUTED,
            "resolve_mute",
            _("Resolver y silenciar al denunciado"),
        )

    @admin.action(
        description=_("Resolver y expulsar al denunciado 7 días…"), permissions=["change"]
    )
    def resolve_ban(self, request: HttpRequest, queryset: QuerySet) -> Any:
        return self._resolve(
            request,
            queryset,
            Report.Resolution.BANNED,
            "resolve_ban",
            _("Resolver y expulsar al denunciado 7 días"),
        )


@admin.register(ModerationAction)
class ModerationActionAdmin(ReadOnlyAdmin):
    list_display = (
        "created_at",
        "moderator_name",
        "kind",
        "target_name",
        "table_link",
        "report_link",
        "short_reason",
        "until",
    )
    list_filter = ("kind", "created_at")
    search_fields = ("moderator_name", "target_name", "reason")
    list_select_related = ("table", "report")
    date_hierarchy = "created_at"
    fields = (
        "created_at",
        "moderator_name",
        "moderator",
        "kind",
        "target_name",
        "target",
        "table_link",
        "report_link",
        "reason",
        "until",
        "details_list",
    )
    readonly_fields = fields

    @admin.display(description=_("mesa"), ordering="table")
    def table_link(self, obj: ModerationAction) -> str:
        return admin_link(obj.table, f"#{obj.table_id}") if obj.table_id else "—"

    @admin.display(description=_("denuncia"), ordering="report")
    def report_link(self, obj: ModerationAction) -> str:
        return admin_link(obj.report, f"#{obj.report_id}") if obj.report_id else "—"

    @admin.display(description=_("motivo"))
    def short_reason(self, obj: ModerationAction) -> str:
        return obj.reason if len(obj.reason) <= 80 else obj.reason[:79] + "…"

    @admin.display(description=_("detalles"))
    def details_list(self, obj: ModerationAction) -> str:
        """One line per detail; texts (a recompute's output) keep their lines."""
        if not obj.details:
            return "—"
        return format_html(
            '<dl class="moderation-details">{}</dl>',
            format_html_join(
                "",
                "<dt>{}</dt><dd><pre>{}</pre></dd>",
                (
                    (
                        key,
                        value if isinstance(value, str) else json.dumps(value, ensure_ascii=False),
                    )
                    for key, value in obj.details.items()
                ),
            ),
        )
