"""An address is confirmed by a link before password resets go to it (accounts.addresses)."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail, signing
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import addresses
from accounts.models import PendingEmail, User
from accounts.tasks import expire_emails
from tests.factories import PASSWORD, login, make_user

pytestmark = pytest.mark.django_db

EMAIL_URL = "/cuentas/correo/"


def sign_up(client: Client, username: str = "pilar", email: str = "pilar@example.com") -> User:
    client.post(
        reverse("accounts:signup"),
        {"username": username, "password1": PASSWORD, "password2": PASSWORD, "email": email},
    )
    return User.objects.get(username=username)


def link_in(message: Any) -> str:
    found = re.search(r"https?://testserver(/cuentas/correo/confirmar/\S+/)", message.body)
    assert found, message.body
    return found.group(1)


def request_reset(email: str) -> Any:
    return Client().post(reverse("accounts:password_reset"), {"email": email})


def confirm(link: str) -> Any:
    return Client().post(link)


def test_sign_up_mails_a_confirmation_link_in_spanish(client: Client) -> None:
    user = sign_up(client)
    assert user.email == ""
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["pilar@example.com"]
    assert message.subject == "Confirma tu correo de Barajamos"
    assert "«pilar»" in message.body


def test_the_confirmation_mail_is_in_the_account_language(client: Client) -> None:
    john = make_user("john", language="en")
    addresses.propose(john, "john@example.com", lambda token: f"http://testserver/{token}/")
    assert mail.outbox[0].subject == "Confirm your Barajamos email"
    assert "The link expires in 72 hours." in mail.outbox[0].body


def test_an_unconfirmed_address_gets_no_password_reset_and_the_page_says_the_same(
    client: Client,
) -> None:
    sign_up(client)
    mail.outbox.clear()
    unconfirmed = request_reset("pilar@example.com")
    nobody = request_reset("nadie@example.com")
    assert mail.outbox == []
    # Nothing tells whether an account (or an unconfirmed address) exists.
    assert unconfirmed.status_code == nobody.status_code == 302
    assert unconfirmed.url == nobody.url == reverse("accounts:password_reset_done")


def test_once_confirmed_the_address_gets_password_resets(client: Client) -> None:
    user = sign_up(client)
    page = Client().get(link_in(mail.outbox[0]))
    assert page.status_code == 200
    assert "pilar@example.com" in page.content.decode()
    user.refresh_from_db()
    assert user.email == ""  # opening the link is not confirming: a mail scanner opens links
    done = confirm(link_in(mail.outbox[0]))
    assert done.status_code == 200
    assert "Correo confirmado" in done.content.decode()
    user.refresh_from_db()
    assert user.email == "pilar@example.com"
    assert not PendingEmail.objects.filter(user=user).exists()
    mail.outbox.clear()
    request_reset("pilar@example.com")
    assert [m.to for m in mail.outbox] == [["pilar@example.com"]]


def test_a_confirmation_link_works_once(client: Client) -> None:
    sign_up(client)
    link = link_in(mail.outbox[0])
    assert confirm(link).status_code == 200
    again = confirm(link)
    assert again.status_code == 400
    assert "ya no sirve" in again.content.decode()


def test_a_confirmation_link_expires(client: Client, settings: Any) -> None:
    user = sign_up(client)
    link = link_in(mail.outbox[0])
    later = timezone.now() + timedelta(seconds=settings.MUS_EMAIL_CONFIRM_SECONDS + 1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(timezone, "now", lambda: later)
        patch.setattr(signing.time, "time", lambda: later.timestamp())
        refused = confirm(link)
        assert refused.status_code == 400
        assert "ha caducado" in refused.content.decode()
        assert addresses.pending_of(user) is None  # lazily: an expired address is no address
    user.refresh_from_db()
    assert user.email == ""


def test_beat_forgets_expired_addresses_and_keeps_fresh_ones(settings: Any) -> None:
    old, fresh = make_user("viejo"), make_user("nuevo")
    PendingEmail.objects.create(
        user=old,
        email="viejo@example.com",
        created_at=timezone.now() - timedelta(seconds=settings.MUS_EMAIL_CONFIRM_SECONDS + 1),
    )
    PendingEmail.objects.create(user=fresh, email="nuevo@example.com")
    assert expire_emails() == 1
    assert list(PendingEmail.objects.values_list("user__username", flat=True)) == ["nuevo"]


def test_a_link_cannot_confirm_someone_elses_address(client: Client) -> None:
    victim = sign_up(client, "victima", "compartido@example.com")
    victim_link = link_in(mail.outbox[0])
    other = make_user("otro")
    addresses.propose(other, "otro@example.com", lambda token: f"http://testserver/{token}/")
    own_token = addresses.token_for(other.pending_email)
    # A token rewritten to name the victim's account (or row) is not a token we signed.
    payload = signing.loads(own_token, salt=addresses.SALT)
    for forged in (
        {**payload, "u": victim.pk},
        {**payload, "p": victim.pending_email.pk},
        {"u": victim.pk, "p": victim.pending_email.pk, "e": "otro@example.com"},
    ):
        tampered = signing.dumps(forged, salt="otra-sal")
        response = confirm(reverse("accounts:email_confirm", args=[tampered]))
        assert response.status_code == 400
        assert "no es válido" in response.content.decode()
    # Another account's own, valid link confirms that account's address only.
    assert confirm(reverse("accounts:email_confirm", args=[own_token])).status_code == 200
    victim.refresh_from_db()
    other.refresh_from_db()
    assert victim.email == "" and other.email == "otro@example.com"
    # And signed in as somebody else, the victim's link still confirms the victim's own
    # address, never the visitor's.
    response = login(other).post(victim_link)
    assert response.status_code == 200
    victim.refresh_from_db()
    other.refresh_from_db()
    assert victim.email == "compartido@example.com" and other.email == "otro@example.com"


def test_a_changed_address_waits_and_the_old_one_stays_in_force() -> None:
    carmen = make_user("carmen", email="carmen@example.com")
    client = login(carmen)
    response = client.post(EMAIL_URL, {"action": "change", "email": "carmen@nuevo.example"})
    assert response.status_code == 302
    assert [m.to for m in mail.outbox] == [["carmen@nuevo.example"]]
    link = link_in(mail.outbox[0])
    page = client.get(EMAIL_URL).content.decode()
    assert "carmen@example.com" in page and "carmen@nuevo.example" in page
    carmen.refresh_from_db()
    assert carmen.email == "carmen@example.com"
    mail.outbox.clear()
    request_reset("carmen@nuevo.example")
    assert mail.outbox == []  # the new one is not used yet
    request_reset("carmen@example.com")
    assert [m.to for m in mail.outbox] == [["carmen@example.com"]]  # the old one still is
    assert confirm(link).status_code == 200
    carmen.refresh_from_db()
    assert carmen.email == "carmen@nuevo.example"
    mail.outbox.clear()
    request_reset("carmen@example.com")
    assert mail.outbox == []  # the old one is no longer the account's


def test_a_second_change_makes_the_first_link_useless(settings: Any) -> None:
    settings.MUS_EMAIL_RESEND_SECONDS = 0
    carmen = make_user("carmen", email="carmen@example.com")
    client = login(carmen)
    client.post(EMAIL_URL, {"action": "change", "email": "uno@example.com"})
    client.post(EMAIL_URL, {"action": "change", "email": "dos@example.com"})
    first, second = (link_in(m) for m in mail.outbox)
    assert confirm(first).status_code == 400
    carmen.refresh_from_db()
    assert carmen.email == "carmen@example.com"
    assert confirm(second).status_code == 200
    carmen.refresh_from_db()
    assert carmen.email == "dos@example.com"


def test_the_confirmation_mail_is_sent_at_most_once_a_minute() -> None:
    carmen = make_user("carmen")
    client = login(carmen)
    client.post(EMAIL_URL, {"action": "change", "email": "uno@example.com"})
    refused = client.post(EMAIL_URL, {"action": "change", "email": "dos@example.com"})
    assert refused.status_code == 429
    assert "Espera 60 segundos" in refused.content.decode()
    client.post(EMAIL_URL, {"action": "resend"})
    assert [m.to for m in mail.outbox] == [["uno@example.com"]]
    assert PendingEmail.objects.get(user=carmen).email == "uno@example.com"


def test_cancelling_a_change_and_removing_the_address() -> None:
    carmen = make_user("carmen", email="carmen@example.com")
    client = login(carmen)
    client.post(EMAIL_URL, {"action": "change", "email": "uno@example.com"})
    link = link_in(mail.outbox[0])
    client.post(EMAIL_URL, {"action": "cancel"})
    assert confirm(link).status_code == 400
    client.post(EMAIL_URL, {"action": "remove"})
    carmen.refresh_from_db()
    assert carmen.email == ""
    page = client.get(EMAIL_URL).content.decode()
    assert "no habrá manera de recuperarla" in page


def test_the_email_page_refuses_a_malformed_address_and_asks_for_login() -> None:
    assert Client().get(EMAIL_URL).status_code == 302
    client = login(make_user("carmen"))
    response = client.post(EMAIL_URL, {"action": "change", "email": "no-es-un-correo"})
    assert response.status_code == 400
    assert mail.outbox == []
    assert client.post(EMAIL_URL, {"action": "otra"}).status_code == 302


def test_a_garbled_link_is_refused() -> None:
    response = Client().get(reverse("accounts:email_confirm", args=["basura"]))
    assert response.status_code == 400
    assert "no es válido" in response.content.decode()


def test_the_sign_up_page_says_what_signing_up_without_an_address_means(client: Client) -> None:
    page = client.get(reverse("accounts:signup")).content.decode()
    assert "sin él no hay manera de recuperar la contraseña" in page
