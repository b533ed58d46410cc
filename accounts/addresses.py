"""Email addresses confirmed before they are used.

`User.email` is the confirmed address, the only one a password reset goes to (Django's reset form
looks there and says the same whether or not it found an account). An address a player gives, at
sign-up or later, waits in `PendingEmail` until they open the link mailed to it: a signed token
(`django.core.signing`, salted for this use) naming the account, the pending address and its row,
valid for `MUS_EMAIL_CONFIRM_SECONDS`. Confirming moves the address to `User.email` and deletes
the row, so a link works once, and a link for one account's address cannot set another's. The
old confirmed address stays in force until then. Unconfirmed rows are ignored once expired and
deleted by beat (`accounts.expire_emails`).

Addresses stored in `User.email` before this rule stay in force: taking them away would leave
those players no way to recover their password; each may remove theirs on the email page.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from enum import Enum

from django.conf import settings
from django.core import signing
from django.core.cache import cache
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone, translation

from .models import PendingEmail, User

SALT = "accounts.addresses.confirm"


class Refusal(Enum):
    """Why a confirmation link did nothing (the page says which)."""

    INVALID = "invalid"  # not a link we made (mistyped, cut, tampered with)
    EXPIRED = "expired"  # older than MUS_EMAIL_CONFIRM_SECONDS
    USED = "used"  # already confirmed, or replaced by another address, or cancelled


class Refused(Exception):
    def __init__(self, reason: Refusal) -> None:
        super().__init__(reason.value)
        self.reason = reason


def _lifetime() -> timedelta:
    return timedelta(seconds=settings.MUS_EMAIL_CONFIRM_SECONDS)


def pending_of(user: User) -> PendingEmail | None:
    """The player's unconfirmed address, if it has not expired."""
    return PendingEmail.objects.filter(
        user=user, created_at__gt=timezone.now() - _lifetime()
    ).first()


def expires_at(pending: PendingEmail) -> datetime:
    return pending.created_at + _lifetime()


def token_for(pending: PendingEmail) -> str:
    return signing.dumps({"u": pending.user_id, "p": pending.pk, "e": pending.email}, salt=SALT)


def _claim(user: User) -> bool:
    """One confirmation mail per player per MUS_EMAIL_RESEND_SECONDS (False: wait)."""
    seconds = settings.MUS_EMAIL_RESEND_SECONDS
    return seconds == 0 or cache.add(f"accounts:email-sent:{user.pk}", 1, timeout=seconds)


def _send(pending: PendingEmail, link: Callable[[str], str]) -> None:
    user = pending.user
    context = {
        "user": user,
        "email": pending.email,
        "link": link(token_for(pending)),
        "hours": settings.MUS_EMAIL_CONFIRM_SECONDS // 3600,
    }
    with translation.override(user.language or None):
        subject = render_to_string("accounts/email/confirm_subject.txt", context).strip()
        body = render_to_string("accounts/email/confirm_body.txt", context)
    send_mail(subject, body, None, [pending.email])


def propose(user: User, email: str, link: Callable[[str], str]) -> PendingEmail | None:
    """Make `email` the player's pending address and mail it the confirmation link
    (`link(token)` is the absolute URL). None, and nothing changed, if a mail went to this player
    less than MUS_EMAIL_RESEND_SECONDS ago. The confirmed address is left as it is."""
    if not _claim(user):
        return None
    with transaction.atomic():
        # A new row (a new primary key): the link of the address it replaces stops working.
        PendingEmail.objects.filter(user=user).delete()
        pending = PendingEmail.objects.create(user=user, email=email)
    _send(pending, link)
    return pending


def resend(user: User, link: Callable[[str], str]) -> PendingEmail | None:
    """Mail the pending address a fresh link, its time to expire starting again; None if there
    is none or the player must wait (MUS_EMAIL_RESEND_SECONDS)."""
    pending = pending_of(user)
    if pending is None or not _claim(user):
        return None
    pending.created_at = timezone.now()
    pending.save(update_fields=["created_at"])
    _send(pending, link)
    return pending


def cancel(user: User) -> bool:
    return PendingEmail.objects.filter(user=user).delete()[0] > 0


def read(token: str) -> PendingEmail:
    """The pending address a link confirms, or `Refused`."""
    try:
        data = signing.loads(token, salt=SALT, max_age=_lifetime())
    except signing.SignatureExpired:
        raise Refused(Refusal.EXPIRED) from None
    except signing.BadSignature:
        raise Refused(Refusal.INVALID) from None
    if not isinstance(data, dict) or not {"u", "p", "e"} <= data.keys():
        raise Refused(Refusal.INVALID)
    pending = (
        PendingEmail.objects.select_related("user")
        .filter(pk=data["p"], user_id=data["u"], email=data["e"])
        .first()
    )
    if pending is None:
        raise Refused(Refusal.USED)
    if pending.created_at <= timezone.now() - _lifetime():
        raise Refused(Refusal.EXPIRED)
    return pending


def confirm(token: str) -> User:
    """Make the link's address its player's confirmed one (once), or `Refused`."""
    with transaction.atomic():
        pending = read(token)
        # Compare-and-set: of two clicks at once, one deletes the row, the other finds it gone.
        if PendingEmail.objects.filter(pk=pending.pk).delete()[0] == 0:
            raise Refused(Refusal.USED)
        user = pending.user
        user.email = pending.email
        user.save(update_fields=["email"])
    return user


def expire() -> int:
    """Delete the unconfirmed addresses that have expired (beat's `accounts.expire_emails`)."""
    return PendingEmail.objects.filter(created_at__lte=timezone.now() - _lifetime()).delete()[0]
