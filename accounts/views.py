from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse, reverse_lazy
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from . import addresses, names, relations, throttle
from .forms import (
    EmailForm,
    LocalizedPasswordResetForm,
    LoginForm,
    SettingsForm,
    SignupForm,
    name_taken_error,
    signup_rate_error,
)
from .models import NameTaken, User
from .profile import profile_context
from .sessions import password_changed
from .sockets import recheck_sockets

SIGNUP_BACKEND = "accounts.backends.ActiveAccountBackend"


def _safe_next(request: HttpRequest) -> str | None:
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return None


def _remember_language(response: HttpResponse, language: str) -> None:
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )


def _confirm_link(request: HttpRequest) -> Callable[[str], str]:
    def link(token: str) -> str:
        return request.build_absolute_uri(reverse("accounts:email_confirm", args=[token]))

    return link


def _sent_message(email: str) -> str:
    return _(
        "Te hemos enviado un enlace a %(email)s para confirmar el correo. Caduca en %(hours)d "
        "horas; hasta que lo abras, no te podremos enviar nada a esa dirección."
    ) % {"email": email, "hours": settings.MUS_EMAIL_CONFIRM_SECONDS // 3600}


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect(_safe_next(request) or settings.LOGIN_REDIRECT_URL)
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        if not throttle.signup_allowed(request):
            form.add_error(None, signup_rate_error())
            context = {"form": form, "next": _safe_next(request)}
            return render(request, "accounts/signup.html", context, status=429)
        user = form.save(commit=False)
        # The address is used only once confirmed (accounts.addresses): it waits until then.
        email, user.email = user.email, ""
        # A new account keeps the language the visitor was already browsing in.
        current = translation.get_language()
        if current in dict(settings.LANGUAGES):
            user.language = current
        try:
            with transaction.atomic():
                user.save()
        except IntegrityError:
            # Another sign-up took the name (or one that looks the same) since the form's check.
            form.add_error("username", name_taken_error())
        else:
            login(request, user, backend=SIGNUP_BACKEND)
            messages.success(
                request,
                _("Te damos la bienvenida a Barajamos, %(name)s.") % {"name": names.isolate(user)},
            )
            if email and addresses.propose(user, email, _confirm_link(request)):
                messages.info(request, _sent_message(email))
            return redirect(_safe_next(request) or settings.LOGIN_REDIRECT_URL)
    return render(request, "accounts/signup.html", {"form": form, "next": _safe_next(request)})


class LoginView(auth_views.LoginView):
    form_class = LoginForm
    template_name = "accounts/login.html"
    redirect_authenticated_user = True


class LogoutView(auth_views.LogoutView):
    """POST only (Django refuses GET with 405). The session ends, and so do its open sockets."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        user_id = request.user.pk if request.user.is_authenticated else None
        response = super().post(request, *args, **kwargs)
        if user_id is not None:
            recheck_sockets(user_id)  # the session is gone now: its sockets close
        return response


class PasswordChangeView(auth_views.PasswordChangeView):
    """The player's other sessions end (whoever else was signed in with the old password), and
    their sockets close."""

    template_name = "accounts/password_change_form.html"
    success_url = reverse_lazy("accounts:password_change_done")

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        password_changed(form.user, keep=self.request.session.session_key)
        return response


class PasswordChangeDoneView(auth_views.PasswordChangeDoneView):
    template_name = "accounts/password_change_done.html"


class PasswordResetView(auth_views.PasswordResetView):
    form_class = LocalizedPasswordResetForm
    template_name = "accounts/password_reset_form.html"
    email_template_name = "accounts/email/password_reset_body.txt"
    subject_template_name = "accounts/email/password_reset_subject.txt"
    success_url = reverse_lazy("accounts:password_reset_done")


class PasswordResetDoneView(auth_views.PasswordResetDoneView):
    template_name = "accounts/password_reset_done.html"


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """A reset ends every session of the account and closes its sockets: whoever knew the old
    password is out."""

    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("accounts:password_reset_complete")

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        password_changed(form.user)
        return response


class PasswordResetCompleteView(auth_views.PasswordResetCompleteView):
    template_name = "accounts/password_reset_complete.html"


@login_required
@require_http_methods(["GET", "POST"])
def account_settings(request: HttpRequest) -> HttpResponse:
    # A fresh copy: a refused form must not leave its invalid values on request.user (the
    # page header shows the player's name).
    player = User.objects.get(pk=request.user.pk)
    form = SettingsForm(request.POST or None, instance=player)
    if request.method == "POST" and form.is_valid():
        try:
            player = form.save()
        except NameTaken:
            form.add_error("display_name", name_taken_error())
            return render(request, "accounts/settings.html", {"form": form})
        translation.activate(player.language)
        request.LANGUAGE_CODE = player.language
        messages.success(request, _("Ajustes guardados."))
        response = redirect("accounts:settings")
        _remember_language(response, player.language)
        return response
    return render(request, "accounts/settings.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def email_settings(request: HttpRequest) -> HttpResponse:
    """The account's confirmed address, the one waiting for confirmation, and a new one.

    POST `action`: `change` (with `email`), `resend`, `cancel` (the pending one) or `remove`
    (the confirmed one: no password recovery from then on)."""
    player = User.objects.get(pk=request.user.pk)
    form = EmailForm(request.POST if request.POST.get("action") == "change" else None)
    status = 200
    if request.method == "POST":
        action = request.POST.get("action")
        link = _confirm_link(request)
        wait = _(
            "Acabamos de enviarte un correo. Espera %(seconds)d segundos antes de pedir otro."
        ) % {"seconds": settings.MUS_EMAIL_RESEND_SECONDS}
        if action == "change" and form.is_valid():
            email = form.cleaned_data["email"]
            if email.lower() == player.email.lower():
                addresses.cancel(player)
                messages.info(request, _("Ese ya es tu correo confirmado."))
                return redirect("accounts:email")
            if addresses.propose(player, email, link):
                messages.success(request, _sent_message(email))
                return redirect("accounts:email")
            form.add_error(None, wait)
            status = 429
        elif action == "resend":
            resent = addresses.resend(player, link)
            if resent is not None:
                messages.success(request, _sent_message(resent.email))
            else:
                messages.error(request, wait)
            return redirect("accounts:email")
        elif action == "cancel":
            addresses.cancel(player)
            messages.success(request, _("Ya no esperamos la confirmación de ese correo."))
            return redirect("accounts:email")
        elif action == "remove" and player.email:
            player.email = ""
            player.save(update_fields=["email"])
            messages.success(
                request,
                _(
                    "Hemos quitado tu correo: si olvidas la contraseña, no habrá manera de recuperarla."
                ),
            )
            return redirect("accounts:email")
        elif action != "change":
            return redirect("accounts:email")
        else:
            status = 400
    pending = addresses.pending_of(player)
    context = {
        "form": form,
        "confirmed": player.email,
        "pending": pending,
        "pending_expires": addresses.expires_at(pending) if pending else None,
    }
    return render(request, "accounts/email.html", context, status=status)


@require_http_methods(["GET", "POST"])
def email_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """The link mailed to a new address. GET shows what it confirms and a button (a mail
    scanner that opens links confirms nothing); POST confirms it, once. Nobody is signed in
    by it."""
    try:
        if request.method == "POST":
            user = addresses.confirm(token)
            return render(request, "accounts/email_confirmed.html", {"email": user.email})
        pending = addresses.read(token)
    except addresses.Refused as refused:
        context = {"reason": refused.reason.value}
        return render(request, "accounts/email_confirm.html", context, status=400)
    return render(request, "accounts/email_confirm.html", {"pending": pending})


def profile(request: HttpRequest, username: str) -> HttpResponse:
    players = relations.with_relation(User.objects.all(), request.user)
    player = get_object_or_404(players, username=username)
    if player.closed_at is not None:
        # Their games stay in other players' histories, whose links lead here: the page says
        # who left, and shows nothing of theirs.
        return render(request, "accounts/profile_closed.html", {"player": player}, status=410)
    return render(request, "accounts/profile.html", profile_context(request, player))
