"""The tournament admins with the organisers' measures, each in the audit log: cancel a
tournament, remove (disqualify) a pair, take back a pending invitation, decide a game (`moderation.actions`)."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from tournaments.admin import MatchAdmin, PairAdmin, TournamentAdmin
from tournaments.models import Match, Pair, Tournament

from .. import actions as moderation
from .measures import PrivateReasonForm, measure_page


class PublicReasonForm(forms.Form):
    reason = forms.CharField(
        label=_("Motivo"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Se ve en la página del torneo. Queda en el registro de moderación."),
    )


class AdjudicateForm(forms.Form):
    winner = forms.ChoiceField(
        label=_("Resultado"),
        choices=[
            ("a", _("Gana la pareja A (asientos 0 y 2)")),
            ("b", _("Gana la pareja B (asientos 1 y 3)")),
            ("ninguna", _("Pierden las dos")),
        ],
        widget=forms.RadioSelect,
    )
    reason = forms.CharField(
        label=_("Motivo"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Queda en la partida del torneo y en el registro de moderación."),
    )


class ModeratedTournamentAdmin(TournamentAdmin):
    actions = ["cancel_tournaments"]

    @admin.action(description=_("Cancelar los torneos elegidos…"), permissions=["change"])
    def cancel_tournaments(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        moderator = request.user
        return measure_page(
            self,
            request,
            queryset,
            form_class=PublicReasonForm,
            title=_("Cancelar torneos"),
            intro=_(
                "El torneo se cancela y sus partidas en juego también (sin puntuar, como "
                "cualquier partida que cancela un moderador). Lo jugado sigue en su página."
            ),
            submit=_("Cancelar los torneos"),
            apply=lambda t, data: moderation.cancel_tournament(moderator, t, data["reason"]),
            done=lambda n: gettext("Torneos cancelados: %(n)d.") % {"n": n},
            action="cancel_tournaments",
        )


class ModeratedPairAdmin(PairAdmin):
    actions = ["remove_pairs", "withdraw_invitations"]

    @admin.action(description=_("Descalificar las parejas elegidas…"), permissions=["change"])
    def remove_pairs(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        moderator = request.user
        return measure_page(
            self,
            request,
            queryset.select_related("tournament", "first", "second"),
            form_class=PublicReasonForm,
            title=_("Descalificar parejas"),
            intro=_(
                "La pareja pierde la partida que esté jugando (su mesa se cancela) y no se la "
                "empareja más; en una eliminatoria, su rival pasa de ronda."
            ),
            submit=_("Descalificar"),
            apply=lambda p, data: moderation.remove_pair(moderator, p, data["reason"]),
            done=lambda n: gettext("Parejas descalificadas: %(n)d.") % {"n": n},
            action="remove_pairs",
        )

    @admin.action(description=_("Retirar las invitaciones elegidas…"), permissions=["change"])
    def withdraw_invitations(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        moderator = request.user
        return measure_page(
            self,
            request,
            queryset.select_related("tournament", "first", "second"),
            form_class=PrivateReasonForm,
            title=_("Retirar invitaciones"),
            intro=_(
                "La invitación pendiente desaparece sin descalificar a nadie: el invitado queda "
                "libre y los dos pueden inscribirse otra vez (si el invitado bloquea a quien le "
                "invita, este ya no puede invitarle)."
            ),
            submit=_("Retirar"),
            apply=lambda p, data: moderation.withdraw_tournament_invitation(
                moderator, p, data["reason"]
            ),
            done=lambda n: gettext("Invitaciones retiradas: %(n)d.") % {"n": n},
            action="withdraw_invitations",
        )


class ModeratedMatchAdmin(MatchAdmin):
    actions = ["adjudicate"]

    @admin.action(description=_("Decidir las partidas elegidas…"), permissions=["change"])
    def adjudicate(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        moderator = request.user
        return measure_page(
            self,
            request,
            queryset.select_related("tournament"),
            form_class=AdjudicateForm,
            title=_("Decidir partidas del torneo"),
            intro=_(
                "Una partida cancelada por un moderador o por el sitio espera a que la "
                "organización la decida; también puedes decidir una que se está jugando (su "
                "mesa se cancela). Gana 40 a 0; si pierden las dos, 0 a 0."
            ),
            submit=_("Decidir"),
            apply=lambda m, data: moderation.adjudicate(
                moderator, m, data["winner"], data["reason"]
            ),
            done=lambda n: gettext("Partidas decididas: %(n)d.") % {"n": n},
            action="adjudicate",
        )


for model, model_admin in (
    (Tournament, ModeratedTournamentAdmin),
    (Pair, ModeratedPairAdmin),
    (Match, ModeratedMatchAdmin),
):
    admin.site.unregister(model)
    admin.site.register(model, model_admin)
