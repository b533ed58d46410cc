"""The moderators' measures in the admin: one intermediate page for every measure that needs a
reason, and the forms it shows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import ValidationError
from django.db.models import Model
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from ..actions import ModerationError

#: One intermediate page for every measure that needs a reason: the action (or the link on a
#: change page) shows the form; posting it back applies the measure.
MEASURE_PAGE = "moderation/admin/measure.html"


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


class PrivateReasonForm(forms.Form):
    """A required reason that only the audit log keeps (players are not told)."""

    reason = forms.CharField(
        label=_("Motivo"),
        max_length=1000,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Queda en el registro de moderación; los jugadores no lo ven."),
    )


class RequestForm(forms.Form):
    """A measure taken at a player's own request (closing their account): how they asked."""

    reason = forms.CharField(
        label=_("Petición del jugador"),
        max_length=1000,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Cómo y cuándo lo pidió. Queda en el registro de moderación."),
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
    result_page: Callable[[list[Any]], HttpResponse] | None = None,
) -> HttpResponse | None:
    """Show the form for a measure, or apply it to every object once the form is posted.

    Returns None once applied (an admin action then goes back to the list), or the form page;
    with `result_page`, what it makes of the measures applied (e.g. a page that shows what the
    measure let the moderator see). Each object refused by `moderation.actions` gets its own
    error message. With `once` the measure is not about the objects (they only carry the
    action's selection): `apply` is called once, with None.
    """
    objects = list(objects)
    form = form_class(request.POST if "confirmar" in request.POST else None)
    if form.is_bound and form.is_valid():
        applied = 0
        results = []
        for obj in [None] if once else objects:
            try:
                results.append(apply(obj, form.cleaned_data))
            except ModerationError as exc:
                text = str(exc.message) if obj is None else f"{obj}: {exc.message}"
                modeladmin.message_user(request, text, messages.ERROR)
            else:
                applied += 1
        if applied and result_page is not None:
            return result_page(results)
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
    }
    request.current_app = modeladmin.admin_site.name
    return TemplateResponse(request, MEASURE_PAGE, context)
