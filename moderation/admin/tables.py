"""The table admin with the moderators' measures: cancel games in progress (from the list or a
table's page), let a superuser see a live game's cards, and recompute the ladders, each in the
audit log.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.names import shown
from games import services
from games.admin import TableAdmin
from games.models import Table
from games.templatetags.cards import card_name

from .. import actions as moderation
from ..models import ModerationAction
from .measures import OptionalReasonForm, PrivateReasonForm, measure_page


class ModeratedTableAdmin(TableAdmin):
    """The games app's read-only table admin plus cancelling games, seeing a live game's cards
    (superusers) and recomputing ladders."""

    actions = ["cancel_games", "recompute_ratings"]
    change_form_template = "moderation/admin/table_change_form.html"

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        table = self.get_object(request, object_id)
        reveal = (
            reverse("admin:games_table_reveal", args=[table.pk])
            if table is not None
            and table.status == Table.Status.PLAYING
            and request.user.is_superuser
            else None
        )
        return super().change_view(
            request, object_id, form_url, {"reveal_url": reveal, **(extra_context or {})}
        )

    def measure_links(self, obj: Table) -> list[tuple[str, str]]:
        links = super().measure_links(obj)
        if obj.status == Table.Status.PLAYING:
            links.insert(
                0,
                (
                    reverse("admin:games_table_cancel", args=[obj.pk]),
                    gettext("Cancelar la partida…"),
                ),
            )
        reports = reverse("admin:moderation_report_changelist")
        links.append(
            (
                f"{reports}?estado=todas&table__id__exact={obj.pk}",
                gettext("Denuncias de esta partida"),
            )
        )
        return links

    # -- cancelling games --------------------------------------------------------------------
    def _cancel(
        self, request: HttpRequest, tables: Any, *, action: str = "", back_url: str = ""
    ) -> HttpResponse | None:
        moderator = request.user
        return measure_page(
            self,
            request,
            tables,
            form_class=PrivateReasonForm,
            title=_("Cancelar partidas en juego"),
            intro=_(
                "Las partidas se cancelan sin puntuar para el ranking; su registro se conserva "
                "y los jugadores vuelven al vestíbulo con el motivo."
            ),
            submit=_("Cancelar las partidas"),
            apply=lambda table, data: moderation.cancel_game(moderator, table, data["reason"]),
            done=lambda n: gettext("Partidas canceladas: %(n)d.") % {"n": n},
            action=action,
            back_url=back_url,
        )

    @admin.action(description=_("Cancelar las partidas en juego elegidas…"), permissions=["change"])
    def cancel_games(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        playing = queryset.filter(status=Table.Status.PLAYING)
        if not playing.exists():
            self.message_user(
                request,
                gettext("Ninguna de esas mesas tiene una partida en juego."),
                messages.WARNING,
            )
            return None
        return self._cancel(request, playing, action="cancel_games")

    def get_urls(self) -> list:
        return [
            path(
                "<path:object_id>/cancelar/",
                self.admin_site.admin_view(self.cancel_view),
                name="games_table_cancel",
            ),
            path(
                "<path:object_id>/ver-cartas/",
                self.admin_site.admin_view(self.reveal_view),
                name="games_table_reveal",
            ),
            *super().get_urls(),
        ]

    def cancel_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        table = self.get_object(request, object_id)
        if table is None:
            raise Http404
        if not self.has_change_permission(request, table):
            raise PermissionDenied
        change_url = reverse("admin:games_table_change", args=[table.pk])
        response = self._cancel(request, [table], back_url=change_url)
        return response if response is not None else HttpResponseRedirect(change_url)

    # -- a live game's cards (superusers, logged) ----------------------------------------------
    def reveal_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        table = self.get_object(request, object_id)
        if table is None:
            raise Http404
        if not request.user.is_superuser:
            raise PermissionDenied
        change_url = reverse("admin:games_table_change", args=[table.pk])
        moderator = request.user
        response = measure_page(
            self,
            request,
            [table],
            form_class=PrivateReasonForm,
            title=_("Ver las cartas de una partida en juego"),
            intro=_(
                "Las cartas y el mazo de una partida en juego no se muestran a nadie del equipo "
                "hasta que termina. Verlas ahora queda en el registro de moderación con tu "
                "nombre y el motivo."
            ),
            submit=_("Ver las cartas"),
            apply=lambda obj, data: moderation.reveal_hands(moderator, obj, data["reason"]),
            done=lambda _n: "",
            back_url=change_url,
            result_page=lambda entries: self._revealed(request, table, entries[0]),
        )
        return response if response is not None else HttpResponseRedirect(change_url)

    def _revealed(self, request: HttpRequest, table: Table, entry: ModerationAction) -> Any:
        game = services.game_of(table)
        names = {
            row["seat"]: shown(row["username"], row["display_name"])
            for row in services.seat_rows(table)
        }
        seats = [
            {
                "seat": seat,
                "name": names.get(seat, ""),
                "cards": [(code, card_name(code)) for code in game.hand_codes(seat)],
            }
            for seat in range(4)
        ]
        context = {
            **self.admin_site.each_context(request),
            "title": _("Cartas de la partida #%(id)s") % {"id": table.pk},
            "opts": self.opts,
            "table": table,
            "seats": seats,
            "record": json.dumps(table.record, indent=2, ensure_ascii=False),
            "entry": entry,
            "change_url": reverse("admin:games_table_change", args=[table.pk]),
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, "moderation/admin/revealed.html", context)

    # -- the ladders -------------------------------------------------------------------------
    @admin.action(
        description=_("Recalcular el ranking desde las partidas terminadas…"),
        permissions=["change"],
    )
    def recompute_ratings(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        moderator = request.user
        # The ladders are rebuilt from every finished game, whichever tables were ticked.
        return measure_page(
            self,
            request,
            queryset,
            form_class=OptionalReasonForm,
            title=_("Recalcular el ranking"),
            intro=_(
                "Se vuelven a calcular todas las clasificaciones Elo a partir de las partidas "
                "terminadas y puntuadas, en el orden en que se aplicaron. Los jugadores "
                "expulsados no aparecen en las clasificaciones mientras dure la expulsión. "
                "Lo hace un proceso aparte: el resultado queda en el registro de moderación."
            ),
            submit=_("Recalcular"),
            apply=lambda _none, data: moderation.recompute_ratings(moderator, data["reason"]),
            done=lambda _n: gettext(
                "Recálculo del ranking encargado: el registro de moderación dirá el resultado."
            ),
            action="recompute_ratings",
            once=True,
        )


admin.site.unregister(Table)
admin.site.register(Table, ModeratedTableAdmin)
