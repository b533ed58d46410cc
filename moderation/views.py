"""Reporting another player of a finished or cancelled game (`/mesas/<id>/denunciar/`).

Reports go to the moderators' queue in the admin (`moderation.admin.ReportAdmin`).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from accounts import names
from accounts.models import User
from games.models import Table

from .models import Report

TEXT_MAX = 1000


class ReportForm(forms.Form):
    jugador = forms.CharField(
        label=gettext_lazy("Jugador"),
        max_length=150,
        error_messages={"required": gettext_lazy("Elige a qué jugador denuncias.")},
    )
    motivo = forms.ChoiceField(
        label=gettext_lazy("Motivo"),
        choices=Report.Reason.choices,
        widget=forms.RadioSelect,
        error_messages={
            "required": gettext_lazy("Elige un motivo."),
            "invalid_choice": gettext_lazy("Ese motivo no existe."),
        },
    )
    texto = forms.CharField(
        label=gettext_lazy("Explicación"),
        max_length=TEXT_MAX,
        required=False,
        widget=forms.Textarea(attrs={"rows": 5, "maxlength": TEXT_MAX}),
        help_text=gettext_lazy("Opcional salvo con «Otro motivo». Hasta 1000 caracteres."),
        error_messages={
            "max_length": gettext_lazy("La explicación no puede pasar de 1000 caracteres.")
        },
    )

    def __init__(self, *args: Any, table: Table, reporter: User, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.table = table
        self.reporter = reporter
        self.players = [s.user for s in table.seats.select_related("user").order_by("seat")]
        candidates = [
            (u.username, names.bdi(u.public_name))
            for u in self.players
            if u.pk != reporter.pk and not u.is_bot
        ]
        self.fields["jugador"].widget = forms.RadioSelect(choices=candidates)

    @property
    def has_candidates(self) -> bool:
        return bool(self.fields["jugador"].widget.choices)

    def clean_jugador(self) -> User:
        name = self.cleaned_data["jugador"]
        if name == self.reporter.username:
            raise ValidationError(_("No puedes denunciarte a ti mismo."), code="self")
        reported = next((u for u in self.players if u.username == name), None)
        if reported is None:
            raise ValidationError(_("Ese jugador no jugó esta partida."), code="not_player")
        if reported.is_bot:
            raise ValidationError(
                _("Los bots no se pueden denunciar: no hay nadie detrás."), code="bot"
            )
        return reported

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("motivo") == Report.Reason.OTHER and not data.get("texto"):
            self.add_error("texto", _("Con «Otro motivo», explica qué pasó."))
        reported = data.get("jugador")
        if isinstance(reported, User) and self._already_open(reported):
            raise ValidationError(
                _("Ya denunciaste a este jugador por esta partida: un moderador la revisará."),
                code="duplicate",
            )
        return data

    def _already_open(self, reported: User) -> bool:
        return Report.objects.filter(
            reporter=self.reporter,
            reported=reported,
            table=self.table,
            status=Report.Status.OPEN,
        ).exists()

    def save(self) -> Report:
        try:
            with transaction.atomic():
                return Report.objects.create(
                    reporter=self.reporter,
                    reported=self.cleaned_data["jugador"],
                    table=self.table,
                    reason=self.cleaned_data["motivo"],
                    text=self.cleaned_data["texto"],
                )
        except IntegrityError:  # the same report sent twice at once
            self.add_error(
                None,
                _("Ya denunciaste a este jugador por esta partida: un moderador la revisará."),
            )
            raise


def _refuse(request: HttpRequest, table: Table, message: str, status: int) -> HttpResponse:
    return render(
        request,
        "moderation/report_refused.html",
        {"table": table, "message": message},
        status=status,
    )


@login_required
@require_http_methods(["GET", "POST"])
def report_player(request: HttpRequest, table_id: int) -> HttpResponse:
    table = get_object_or_404(Table, pk=table_id)
    is_player = table.seats.filter(user=request.user).exists()
    if not is_player:
        if table.private:
            # Private tables do not reveal that they exist.
            raise Http404(_("Esa mesa no existe o es privada."))
        return _refuse(
            request,
            table,
            _("Solo los jugadores de una partida pueden denunciar a otro jugador de ella."),
            403,
        )
    if not table.is_over:
        return _refuse(
            request,
            table,
            _("Solo se puede denunciar cuando la partida ha terminado o se ha cancelado."),
            400,
        )
    form = ReportForm(
        request.POST if request.method == "POST" else None,
        table=table,
        reporter=request.user,
        initial={"jugador": request.GET.get("jugador", "")},
    )
    if not form.has_candidates:
        return _refuse(
            request, table, _("En esta partida no hay otro jugador al que denunciar."), 400
        )
    if request.method == "POST":
        if form.is_valid():
            try:
                form.save()
            except IntegrityError:
                pass
            else:
                messages.success(
                    request, _("Denuncia enviada. Un moderador la revisará. Gracias por avisar.")
                )
                return redirect("game_detail", table.pk)
        return render(request, "moderation/report.html", {"table": table, "form": form}, status=400)
    return render(request, "moderation/report.html", {"table": table, "form": form})
