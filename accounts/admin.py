"""Moderation in the Django admin: players (ban, unban, mute, unmute), reports and the audit log.

Every measure goes through `accounts.moderation`, which applies it (logging the player out,
taking them away from their table, cancelling their game) and writes the audit log.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import UserChangeForm
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Model, Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template import engines
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from . import moderation
from .models import ModerationAction, Report, User

# --------------------------------------------------------------------------------------------
# One intermediate page for every measure that needs a reason: the action (or the button on a
# change page) shows a form; posting it back applies the measure.
# --------------------------------------------------------------------------------------------
_FORM_PAGE = engines["django"].from_string(
    """{% extends "admin/base_site.html" %}
{% load i18n l10n admin_urls static %}
{% block extrahead %}{{ block.super }}{{ form.media }}
<script src="{% static 'admin/js/cancel.js' %}" async></script>{% endblock %}
{% block bodyclass %}{{ block.super }} app-{{ opts.app_label }} model-{{ opts.model_name }} moderation-form{% endblock %}
{% block breadcrumbs %}
<ol class="breadcrumbs">
<li><a href="{% url 'admin:index' %}">{% translate 'Home' %}</a></li>
<li><a href="{% url 'admin:app_list' app_label=opts.app_label %}">{{ opts.app_config.verbose_name }}</a></li>
<li><a href="{% url opts|admin_urlname:'changelist' %}">{{ opts.verbose_name_plural|capfirst }}</a></li>
<li aria-current="page">{{ title }}</li>
</ol>
{% endblock %}
{% block content %}
<p>{{ intro }}</p>
{% if show_objects %}<ul class="moderation-objects">{% for obj in objects %}<li>{{ obj }}</li>{% endfor %}</ul>{% endif %}
<form method="post">{% csrf_token %}
<div>
{{ form.as_div }}
{% if action %}{% for obj in objects %}<input type="hidden" name="{{ checkbox_name }}" value="{{ obj.pk|unlocalize }}">
{% endfor %}<input type="hidden" name="action" value="{{ action }}">{% endif %}
<input type="hidden" name="confirmar" value="1">
<div class="submit-row">
<input type="submit" value="{{ submit }}">
<a role="button" href="{{ back_url }}" class="button cancel-link">{{ back_label }}</a>
</div>
</div>
</form>
{% endblock %}"""
)


class ReasonForm(forms.Form):
    """A measure with a required reason and an optional end."""

    reason = forms.CharField(
        label=_("Motivo"),
        max_length=1000,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Queda en el registro de moderación."),
    )
    until = forms.DateTimeField(
        label=_("Hasta"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text=_("Déjalo vacío para que no tenga fin. Hora de Madrid."),
    )

    def clean_until(self) -> Any:
        until = self.cleaned_data.get("until")
        if until is not None and until <= timezone.now():
            raise ValidationError(_("Esa fecha ya ha pasado."), code="past")
        return until


class OptionalReasonForm(forms.Form):
    reason = forms.CharField(
        label=_("Motivo"),
        max_length=1000,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Opcional. Queda en el registro de moderación."),
    )


class RequiredReasonForm(forms.Form):
    reason = forms.CharField(
        label=_("Motivo"),
        max_length=300,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Los jugadores de la mesa lo verán. Queda en el registro de moderación."),
    )


class NoteForm(forms.Form):
    note = forms.CharField(
        label=_("Nota de la resolución"),
        max_length=1000,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Opcional. Queda en la denuncia y en el registro de moderación."),
    )


def measure_page(
    modeladmin: admin.ModelAdmin,
    request: HttpRequest,
    objects: Iterable[Model],
    *,
    form_class: type[forms.Form],
    title: Any,
    intro: Any,
    submit: Any,
    apply: Callable[[Model, dict[str, Any]], Any],
    done: Callable[[int], str],
    action: str = "",
    back_url: str = "",
    once: bool = False,
) -> HttpResponse | None:
    """Show the form for a measure, or apply it to every object once the form is posted.

    Returns None once applied (an admin action then goes back to the list), or the form page.
    Each object refused by `accounts.moderation` gets its own error message. With `once` the
    measure is not about the objects (they only carry the action's selection): `apply` is
    called once, with None.
    """
    objects = list(objects)
    form = form_class(request.POST if "confirmar" in request.POST else None)
    if form.is_bound and form.is_valid():
        applied = 0
        for obj in [None] if once else objects:
            try:
                apply(obj, form.cleaned_data)
            except moderation.ModerationError as exc:
                text = str(exc.message) if obj is None else f"{obj}: {exc.message}"
                modeladmin.message_user(request, text, messages.ERROR)
            else:
                applied += 1
        if applied:
            modeladmin.message_user(request, done(applied), messages.SUCCESS)
        elif not objects and not once:
            modeladmin.message_user(
                request, gettext("No había nada a lo que aplicarlo."), messages.WARNING
            )
        return None
    opts = modeladmin.model._meta
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": title,
        "subtitle": None,
        "intro": intro,
        "objects": objects,
        "show_objects": not once,
        "form": form,
        "opts": opts,
        "action": action,
        "checkbox_name": ACTION_CHECKBOX_NAME,
        "submit": submit,
        "back_url": back_url or reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"),
        "back_label": gettext("Volver sin cambiar nada"),
    }
    request.current_app = modeladmin.admin_site.name
    return TemplateResponse(request, _FORM_PAGE, context)


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


class PlayerChangeForm(UserChangeForm):
    """The player form: a ban entered by hand needs a reason, and nobody bans themselves."""

    moderator: User | None = None

    class Meta(UserChangeForm.Meta):
        model = User

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("banned_at") and not (data.get("ban_reason") or "").strip():
            self.add_error("ban_reason", _("Una expulsión necesita un motivo."))
        moderator = self.moderator
        if (
            moderator is not None
            and self.instance.pk == moderator.pk
            and (data.get("banned_at") or data.get("muted") or data.get("muted_until"))
        ):
            raise ValidationError(_("No puedes aplicarte una medida de moderación a ti mismo."))
        return data


MODERATION_FIELDS = ("banned_at", "banned_until", "ban_reason", "muted", "muted_until")
USER_MEASURES = {
    "expulsar": ("ban", ReasonForm),
    "readmitir": ("unban", OptionalReasonForm),
    "silenciar": ("mute", ReasonForm),
    "quitar-silencio": ("unmute", OptionalReasonForm),
}


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    """Django's user admin plus the player's fields and the moderation measures."""

    form = PlayerChangeForm
    list_display = (
        "username",
        "display_name",
        "email",
        "date_joined",
        "last_login",
        "is_staff",
        "is_bot",
        "banned_at",
        "banned_until",
        "muted",
        "muted_until",
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
    readonly_fields = ("date_joined", "last_login", "moderation_tools")
    fieldsets = (
        *DjangoUserAdmin.fieldsets,
        (_("Jugador"), {"fields": ("display_name", "language", "is_bot")}),
        (
            _("Moderación"),
            {
                "fields": (
                    "moderation_tools",
                    "banned_at",
                    "banned_until",
                    "ban_reason",
                    "muted",
                    "muted_until",
                )
            },
        ),
    )
    actions = ["ban_players", "unban_players", "mute_players", "unmute_players"]

    # -- the measures, from the list ---------------------------------------------------------
    @admin.action(description=_("Expulsar a los jugadores elegidos…"), permissions=["change"])
    def ban_players(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self._measure(request, queryset, "ban", action="ban_players")

    @admin.action(description=_("Readmitir a los jugadores elegidos…"), permissions=["change"])
    def unban_players(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self._measure(request, queryset, "unban", action="unban_players")

    @admin.action(description=_("Silenciar a los jugadores elegidos…"), permissions=["change"])
    def mute_players(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self._measure(request, queryset, "mute", action="mute_players")

    @admin.action(
        description=_("Quitar el silencio a los jugadores elegidos…"), permissions=["change"]
    )
    def unmute_players(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self._measure(request, queryset, "unmute", action="unmute_players")

    def _measure(
        self,
        request: HttpRequest,
        users: Iterable[User],
        measure: str,
        *,
        action: str = "",
        back_url: str = "",
    ) -> HttpResponse | None:
        moderator = request.user
        texts = {
            "ban": (
                _("Expulsar"),
                _(
                    "Los jugadores expulsados salen de su sesión, no pueden entrar, dejan las "
                    "mesas que no han empezado y su partida en juego se cancela."
                ),
                _("Expulsar"),
                lambda n: gettext("Jugadores expulsados: %(n)d.") % {"n": n},
            ),
            "unban": (
                _("Readmitir"),
                _("Estos jugadores podrán volver a entrar."),
                _("Readmitir"),
                lambda n: gettext("Jugadores readmitidos: %(n)d.") % {"n": n},
            ),
            "mute": (
                _("Silenciar"),
                _("Los jugadores silenciados no pueden escribir en el chat de las mesas."),
                _("Silenciar"),
                lambda n: gettext("Jugadores silenciados: %(n)d.") % {"n": n},
            ),
            "unmute": (
                _("Quitar el silencio"),
                _("Estos jugadores podrán volver a escribir en el chat."),
                _("Quitar el silencio"),
                lambda n: gettext("Jugadores que ya pueden escribir: %(n)d.") % {"n": n},
            ),
        }
        title, intro, submit, done = texts[measure]

        def apply(user: Model, data: dict[str, Any]) -> Any:
            if measure == "ban":
                return moderation.ban(moderator, user, data["reason"], data["until"])
            if measure == "mute":
                return moderation.mute(moderator, user, data["reason"], data["until"])
            if measure == "unban":
                return moderation.unban(moderator, user, data["reason"])
            return moderation.unmute(moderator, user, data["reason"])

        form_class = next(f for m, f in USER_MEASURES.values() if m == measure)
        return measure_page(
            self,
            request,
            users,
            form_class=form_class,
            title=title,
            intro=intro,
            submit=submit,
            apply=apply,
            done=done,
            action=action,
            back_url=back_url,
        )

    # -- the measures, from a player's page --------------------------------------------------
    def get_urls(self) -> list:
        info = self.opts.app_label, self.opts.model_name
        return [
            path(
                "<path:object_id>/moderar/<str:slug>/",
                self.admin_site.admin_view(self.measure_view),
                name=f"{info[0]}_{info[1]}_measure",
            ),
            *super().get_urls(),
        ]

    def measure_view(self, request: HttpRequest, object_id: str, slug: str) -> HttpResponse:
        if slug not in USER_MEASURES:
            raise Http404
        user = self.get_object(request, object_id)
        if user is None:
            raise Http404
        if not self.has_change_permission(request, user):
            raise PermissionDenied
        change_url = reverse("admin:accounts_user_change", args=[user.pk])
        response = self._measure(request, [user], USER_MEASURES[slug][0], back_url=change_url)
        return response if response is not None else HttpResponseRedirect(change_url)

    @admin.display(description=_("Medidas"))
    def moderation_tools(self, obj: User) -> str:
        if obj is None or obj.pk is None:
            return "—"
        labels = {
            "expulsar": _("Expulsar…"),
            "readmitir": _("Readmitir…"),
            "silenciar": _("Silenciar…"),
            "quitar-silencio": _("Quitar el silencio…"),
        }
        shown = [
            slug
            for slug in labels
            if (slug == "expulsar")
            or (slug == "readmitir" and obj.banned_at is not None)
            or (slug == "silenciar")
            or (slug == "quitar-silencio" and (obj.muted or obj.muted_until is not None))
        ]
        log_url = reverse("admin:accounts_moderationaction_changelist")
        links = format_html_join(
            " · ",
            '<a href="{}">{}</a>',
            (
                (reverse("admin:accounts_user_measure", args=[obj.pk, slug]), labels[slug])
                for slug in shown
            ),
        )
        return format_html(
            '{} · <a href="{}?target__id__exact={}">{}</a>',
            links,
            log_url,
            obj.pk,
            gettext("Historial de moderación"),
        )

    # -- a ban or a silence typed into the player's page -------------------------------------
    def get_form(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> type:
        form = super().get_form(request, obj, **kwargs)
        if issubclass(form, PlayerChangeForm):
            form = type(form.__name__, (form,), {"moderator": request.user})
        return form

    def save_model(self, request: HttpRequest, obj: User, form: Any, change: bool) -> None:
        if not change or not set(form.changed_data) & set(MODERATION_FIELDS):
            super().save_model(request, obj, form, change)
            return
        before = User.objects.get(pk=obj.pk)
        super().save_model(request, obj, form, change)
        note = gettext("Cambio en la ficha del jugador.")
        ban_changed = {"banned_at", "banned_until", "ban_reason"} & set(form.changed_data)
        if obj.is_banned and ban_changed:
            # The full ban, as from the list: logged out, away from the table, socket closed.
            moderation.ban(request.user, obj, obj.ban_reason, obj.banned_until, since=obj.banned_at)
        elif before.is_banned and not obj.is_banned:
            moderation.record(request.user, ModerationAction.Kind.UNBAN, target=obj, reason=note)
        if {"muted", "muted_until"} & set(form.changed_data):
            if obj.is_muted:
                moderation.record(
                    request.user,
                    ModerationAction.Kind.MUTE,
                    target=obj,
                    reason=note,
                    until=None if obj.muted else obj.muted_until,
                )
            elif before.is_muted:
                moderation.record(
                    request.user, ModerationAction.Kind.UNMUTE, target=obj, reason=note
                )


# --------------------------------------------------------------------------------------------
# Reports: a queue for moderators.
# --------------------------------------------------------------------------------------------
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
        reports = reverse("admin:accounts_report_changelist")
        log = reverse("admin:accounts_moderationaction_changelist")
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


# --------------------------------------------------------------------------------------------
# The audit log: readable, never editable, by anybody (superusers included).
# --------------------------------------------------------------------------------------------
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
        "details",
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
