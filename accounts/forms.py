"""Account forms: sign-up, log-in (which explains refusals), password reset and settings."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm, UserCreationForm
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.utils import formats, timezone, translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.debug import sensitive_variables

from . import bots, names
from .models import NameClaim, User


def ban_message(user: User) -> str:
    """Tell a banned player, in the active language, until when and why."""
    if user.banned_until is not None:
        local = timezone.localtime(user.banned_until)
        message = gettext("Tu cuenta está suspendida hasta el %(until)s (%(zone)s).") % {
            "until": formats.date_format(local, "DATETIME_FORMAT"),
            "zone": local.tzname(),
        }
    else:
        message = gettext("Tu cuenta está suspendida indefinidamente.")
    if user.ban_reason.strip():
        message += " " + gettext("Motivo: %(reason)s") % {"reason": user.ban_reason.strip()}
    return message


#: The longest username a new player may choose: names are read at the table, on a phone.
USERNAME_MAX_LENGTH = 30


def bot_name_error() -> ValidationError:
    return ValidationError(
        _("Los nombres que parecen de bot son de los bots del sitio. Elige otro."),
        code="bot_name",
    )


def check_username(username: str, *, user_id: int | None = None) -> None:
    """The name rules of `accounts.names` for a (normalised) username of the account `user_id`
    (None for a new one): its characters, nothing that reads like a bot's name
    (`accounts.bots`), and no other player's name looking like it."""
    names.clean(username)
    if bots.reads_like_bot(username):
        raise bot_name_error()
    if User.objects.filter(display_name__iexact=username).exclude(pk=user_id).exists():
        raise ValidationError(_("Otro jugador ya usa ese nombre. Elige otro."), code="name_taken")
    if NameClaim.holder(username, besides=user_id) is not None:
        raise ValidationError(
            _("Ese nombre se confunde con el de otro jugador. Elige otro."), code="name_confusable"
        )


def check_display_name(name: str, *, user_id: int | None) -> None:
    """The same for a (normalised, non-empty) display name: the player's own username may look
    like it, nobody else's username or display name."""
    if bots.reads_like_bot(name):
        raise bot_name_error()
    others = User.objects.exclude(pk=user_id)
    if others.filter(display_name__iexact=name).exists():
        raise ValidationError(
            _("Otro jugador ya usa el nombre visible «%(name)s»."),
            code="display_name_taken",
            params={"name": names.isolate(name)},
        )
    if others.filter(username__iexact=name).exists():
        raise ValidationError(
            _("«%(name)s» es el nombre de usuario de otro jugador."),
            code="display_name_is_username",
            params={"name": names.isolate(name)},
        )
    if NameClaim.holder(name, besides=user_id) is not None:
        raise ValidationError(
            _("«%(name)s» se confunde con el nombre de otro jugador. Elige otro."),
            code="name_confusable",
            params={"name": names.isolate(name)},
        )


def cleaned_display_name(raw: str, user: User) -> str:
    """A display name typed for `user`, normalised and checked (only if it changed: a name kept
    from before the checks is not refused again)."""
    name = names.clean(raw)
    limit = User._meta.get_field("display_name").max_length
    if len(name) > limit:  # NFKC can lengthen a name («ﷺ» is 18 letters)
        raise ValidationError(
            _("El nombre visible no puede pasar de %(limit)d caracteres."),
            code="max_length",
            params={"limit": limit},
        )
    if name and name != user.display_name:
        check_display_name(name, user_id=user.pk)
    return name


def signup_rate_error() -> ValidationError:
    """Sign-up refused: too many accounts from the address this hour (`accounts.throttle`)."""
    return ValidationError(
        _(
            "Se han creado demasiadas cuentas desde tu conexión en la última hora. "
            "Vuelve a intentarlo más tarde."
        ),
        code="signup_rate",
    )


def name_taken_error() -> ValidationError:
    """What a form says when its save lost a race for a name (`NameTaken`)."""
    return ValidationError(
        _("Otro jugador acaba de quedarse con ese nombre o con uno que se confunde con él."),
        code="name_taken",
    )


class SignupForm(UserCreationForm):
    """Django's UserCreationForm (`username`, `password1`, `password2`) plus an optional email."""

    email = forms.EmailField(
        label=_("Correo electrónico (opcional)"),
        required=False,
        help_text=_(
            "Solo para recuperar la contraseña si la olvidas: te enviaremos un enlace para "
            "confirmarlo. Sin un correo confirmado no habrá manera de recuperarla."
        ),
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        username = self.fields["username"]
        username.label = _("Nombre de usuario")
        # Others read it at the table: a new one is kept short (the model allows Django's 150).
        username.max_length = USERNAME_MAX_LENGTH
        username.widget.attrs["maxlength"] = str(USERNAME_MAX_LENGTH)
        username.validators.append(MaxLengthValidator(USERNAME_MAX_LENGTH))
        username.help_text = _(
            "Hasta %(n)d caracteres: letras, números y los signos @ . + - _ (sin espacios), con "
            "al menos una letra o una cifra. Con él entras en el sitio."
        ) % {"n": USERNAME_MAX_LENGTH}
        username.widget.attrs["autocomplete"] = "username"
        self.fields["password1"].label = _("Contraseña")
        self.fields["password2"].label = _("Repite la contraseña")
        self.fields["password2"].help_text = _("Escribe la misma contraseña otra vez.")

    def clean_username(self) -> str | None:
        username = super().clean_username()
        if username:
            check_username(username)
        return username

    def clean_email(self) -> str:
        return User.objects.normalize_email(self.cleaned_data.get("email") or "")


class LoginForm(AuthenticationForm):
    """Log-in that tells a banned or deactivated player why they cannot enter.

    The backend refuses those accounts, so authentication fails for them exactly as for a wrong
    password. Only when the password given is the account's own (and the client is not locked out
    by axes) do we say why; a wrong password gets the usual, uninformative refusal.
    """

    error_messages = {
        "invalid_login": _(
            "Nombre de usuario o contraseña incorrectos. En la contraseña se distinguen "
            "mayúsculas y minúsculas."
        ),
        "inactive": _(
            "Esta cuenta está desactivada. Si crees que es un error, escribe a los moderadores."
        ),
    }

    def __init__(self, request: Any = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(request, *args, **kwargs)
        self.fields["username"].label = _("Nombre de usuario")
        self.fields["username"].widget.attrs["autocomplete"] = "username"
        self.fields["password"].label = _("Contraseña")

    def confirm_login_allowed(self, user: User) -> None:
        if user.is_banned:
            raise ValidationError(ban_message(user), code="banned")
        super().confirm_login_allowed(user)

    def get_invalid_login_error(self) -> ValidationError:
        return self._refusal_with_right_password() or super().get_invalid_login_error()

    @sensitive_variables("password")
    def _refusal_with_right_password(self) -> ValidationError | None:
        if getattr(self.request, "axes_locked_out", False):
            return None
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if not username or not password:
            return None
        try:
            user = User._default_manager.get_by_natural_key(username)
        except User.DoesNotExist:
            # Spend the same hashing time as for a real account (as ModelBackend does).
            User().set_password(password)
            return None
        if not user.check_password(password):
            return None
        if user.is_banned:
            return ValidationError(ban_message(user), code="banned")
        if not user.is_active:
            return ValidationError(self.error_messages["inactive"], code="inactive")
        return None


class LocalizedPasswordResetForm(PasswordResetForm):
    """Writes each reset email in the language the account chose."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["email"].label = _("Correo electrónico")

    def send_mail(
        self,
        subject_template_name: str,
        email_template_name: str,
        context: dict[str, Any],
        from_email: str | None,
        to_email: str,
        html_email_template_name: str | None = None,
    ) -> None:
        with translation.override(context["user"].language or None):
            super().send_mail(
                subject_template_name,
                email_template_name,
                context,
                from_email,
                to_email,
                html_email_template_name,
            )


class EmailForm(forms.Form):
    """A new address for the account (`accounts.addresses` confirms it before it is used)."""

    email = forms.EmailField(
        label=_("Correo electrónico nuevo"),
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )

    def clean_email(self) -> str:
        return User.objects.normalize_email(self.cleaned_data["email"])


class SettingsForm(forms.ModelForm):
    """What a player may change about themselves: the name others see and the language."""

    class Meta:
        model = User
        fields = ("display_name", "language")
        labels = {"display_name": _("Nombre visible"), "language": _("Idioma")}
        help_texts = {
            "display_name": _(
                "Lo que ven los demás en las mesas y el ranking (hasta 40 caracteres). "
                "Déjalo vacío para usar tu nombre de usuario."
            )
        }

    def clean_display_name(self) -> str:
        return cleaned_display_name(self.cleaned_data.get("display_name") or "", self.instance)
