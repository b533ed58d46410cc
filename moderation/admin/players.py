"""The player admin with the moderation measures: ban, unban, mute and unmute, from the list and
from a player's page, and a ban or a silence typed into the page, each in the audit log; and
the list of suspicious account clusters (moderation.clusters), linked from the player list.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Model, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.admin import MODERATION_FIELDS, MODERATION_FIELDSET, UserAdmin
from accounts.admin import PlayerChangeForm as AccountsPlayerChangeForm
from accounts.models import User

from .. import actions as moderation
from .. import closing, clusters
from ..models import ModerationAction
from .measures import OptionalReasonForm, ReasonForm, RequestForm, measure_page


class PlayerChangeForm(AccountsPlayerChangeForm):
    """The player form (with the name rules): a ban entered by hand needs a reason, and nobody
    bans themselves."""

    moderator: User | None = None

    class Meta(AccountsPlayerChangeForm.Meta):
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


USER_MEASURES = {
    "expulsar": ("ban", ReasonForm),
    "readmitir": ("unban", OptionalReasonForm),
    "silenciar": ("mute", ReasonForm),
    "quitar-silencio": ("unmute", OptionalReasonForm),
    "cerrar-cuenta": ("close", RequestForm),
}


class ModeratedUserAdmin(UserAdmin):
    """The accounts app's player admin plus the moderation measures and their audit log."""

    form = PlayerChangeForm
    readonly_fields = (*UserAdmin.readonly_fields, "moderation_tools")
    fieldsets = (
        *(fieldset for fieldset in UserAdmin.fieldsets if fieldset is not MODERATION_FIELDSET),
        (MODERATION_FIELDSET[0], {"fields": ("moderation_tools", *MODERATION_FIELDS)}),
    )
    actions = [
        "ban_players",
        "unban_players",
        "mute_players",
        "unmute_players",
        "close_accounts",
        "revoke_bot_tokens",
    ]
    change_list_template = "moderation/admin/player_change_list.html"

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

    @admin.action(
        description=_("Cerrar las cuentas elegidas, a petición de sus jugadores…"),
        permissions=["change"],
    )
    def close_accounts(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self._measure(request, queryset, "close", action="close_accounts")

    @admin.action(
        description=_("Revocar los tokens de las cuentas de bot elegidas"), permissions=["change"]
    )
    def revoke_bot_tokens(self, request: HttpRequest, queryset: QuerySet) -> None:
        bots = queryset.filter(bot_owner__isnull=False)
        for bot in bots:
            moderation.revoke_bot_tokens(request.user, bot)
        self.message_user(
            request, gettext("Cuentas de bot sin tokens: %(n)d.") % {"n": bots.count()}
        )

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
            "close": (
                _("Cerrar la cuenta"),
                _(
                    "Solo a petición del propio jugador. La cuenta no vuelve a entrar; deja la "
                    "cola, las mesas sin empezar, las invitaciones y los torneos que no han "
                    "empezado; su correo y sus nombres se borran y en las partidas de los demás "
                    "pasa a llamarse «Jugador retirado». No se puede deshacer. No se cierra "
                    "mientras juega una partida o un torneo en curso."
                ),
                _("Cerrar la cuenta"),
                lambda n: gettext("Cuentas cerradas: %(n)d.") % {"n": n},
            ),
        }
        title, intro, submit, done = texts[measure]

        def apply(user: Model, data: dict[str, Any]) -> Any:
            if measure == "ban":
                return moderation.ban(moderator, user, data["reason"], data["until"])
            if measure == "mute":
                return moderation.mute(moderator, user, data["reason"], data["until"])
            if measure == "close":
                return closing.close_account(user, moderator=moderator, reason=data["reason"])
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
                "sospechosos/",
                self.admin_site.admin_view(self.clusters_view),
                name=f"{info[0]}_{info[1]}_clusters",
            ),
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

    # -- suspicious account clusters ---------------------------------------------------------
    def clusters_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            "title": _("Grupos de cuentas sospechosos"),
            "opts": self.opts,
            "clusters": clusters.suspicious_clusters(),
            "window_days": clusters.WINDOW_DAYS,
            "young_days": clusters.YOUNG_DAYS,
            "min_games": clusters.MIN_GAMES,
            "lopsided_percent": round(clusters.LOPSIDED * 100),
            "closed": clusters.CLOSED,
            "tables_url": reverse("admin:games_table_changelist"),
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, "moderation/admin/clusters.html", context)

    @admin.display(description=_("Medidas"))
    def moderation_tools(self, obj: User) -> str:
        if obj is None or obj.pk is None:
            return "—"
        labels = {
            "expulsar": _("Expulsar…"),
            "readmitir": _("Readmitir…"),
            "silenciar": _("Silenciar…"),
            "quitar-silencio": _("Quitar el silencio…"),
            "cerrar-cuenta": _("Cerrar la cuenta…"),
        }
        shown = [
            slug
            for slug in labels
            if (slug == "expulsar")
            or (slug == "readmitir" and obj.banned_at is not None)
            or (slug == "silenciar")
            or (slug == "quitar-silencio" and (obj.muted or obj.muted_until is not None))
            or (slug == "cerrar-cuenta" and obj.closed_at is None)
        ]
        log_url = reverse("admin:moderation_moderationaction_changelist")
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


admin.site.unregister(User)
admin.site.register(User, ModeratedUserAdmin)
