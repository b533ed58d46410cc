from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse_lazy
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from . import names, relations, throttle
from .forms import (
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


def profile(request: HttpRequest, username: str) -> HttpResponse:
    players = relations.with_relation(User.objects.all(), request.user)
    player = get_object_or_404(players, username=username)
    return render(request, "accounts/profile.html", profile_context(request, player))
