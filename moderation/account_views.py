"""A player's own data, from their settings: «Cerrar mi cuenta» (`/cuentas/cerrar/`) and
«Descargar mis datos» (`/cuentas/mis-datos/`). Here, in the top layer, because closing an
account touches every app (queue, tables, tournaments, the audit log) and the export reads them
all (reports included)."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods

from accounts.models import User

from . import closing, export, tasks
from .actions import ModerationError
from .models import DataExport


class CloseForm(forms.Form):
    password = forms.CharField(
        label=gettext_lazy("Tu contraseña"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        error_messages={"required": gettext_lazy("Escribe tu contraseña para confirmarlo.")},
    )

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(
                gettext_lazy("La contraseña no es correcta."), code="password_incorrect"
            )
        return password


@login_required
@require_http_methods(["GET", "POST"])
def close_account(request: HttpRequest) -> HttpResponse:
    user = request.user
    form = CloseForm(request.POST or None, user=user)
    refused = closing.refusal(user)
    if request.method == "POST" and form.is_valid() and refused is None:
        try:
            closing.close_account(user)
        except ModerationError as exc:
            refused = str(exc.message)
        else:
            logout(request)
            messages.success(
                request, _("Tu cuenta está cerrada. Gracias por las partidas y hasta siempre.")
            )
            return redirect("lobby")
    status = 409 if request.method == "POST" and refused is not None else 200
    context = {"form": form, "refused": refused}
    return render(request, "moderation/close_account.html", context, status=status)


def _download(content: Any, user_id: int) -> HttpResponse:
    body = json.dumps(content, ensure_ascii=False, indent=1)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    stamp = timezone.now().strftime("%Y%m%d")
    response["Content-Disposition"] = (
        f'attachment; filename="barajamos-datos-{user_id}-{stamp}.json"'
    )
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_http_methods(["GET", "POST"])
def my_data(request: HttpRequest) -> HttpResponse:
    user = request.user
    if request.method == "POST":
        with transaction.atomic():
            # One request at a time per player: the limit is counted under the lock.
            User.objects.select_for_update().filter(pk=user.pk).first()
            refused = export.refusal(user)
            if refused is None:
                large = export.is_large(user)
                row = DataExport.objects.create(
                    user=user,
                    status=DataExport.Status.PENDING if large else DataExport.Status.READY,
                    finished_at=None if large else timezone.now(),
                )
        if refused is not None:
            return render(request, "moderation/my_data.html", _context(user, refused), status=429)
        if not large:
            return _download(export.build(user), user.pk)
        # On the heavy queue, by its name (`CELERY_TASK_ROUTES`): no turn clock waits for it.
        transaction.on_commit(lambda: tasks.export_player_data.apply_async((row.pk,)))
        messages.success(
            request,
            _(
                "Estamos preparando tus datos: vuelve a esta página en unos minutos para descargarlos."
            ),
        )
        return redirect("mydata:data")
    return render(request, "moderation/my_data.html", _context(user, None))


def _context(user: Any, refused: str | None) -> dict[str, Any]:
    latest = (
        DataExport.objects.filter(user=user)
        .exclude(status=DataExport.Status.READY, content__isnull=True)
        .defer("content")
        .first()
    )
    return {
        "latest": latest,
        "refused": refused,
        "per_day": settings.MUS_DATA_EXPORTS_PER_DAY,
    }


@login_required
@require_GET
def download(request: HttpRequest, export_id: int) -> HttpResponse:
    row = get_object_or_404(
        DataExport, pk=export_id, user=request.user, status=DataExport.Status.READY
    )
    if row.content is None:
        return redirect("mydata:data")
    return _download(row.content, request.user.pk)
