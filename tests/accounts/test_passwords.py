import re

import pytest
from django.contrib.auth import SESSION_KEY
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.models import User
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "sota-caballo-y-rey"


class TestPasswordChange:
    def test_it_asks_for_login_first(self, client: Client) -> None:
        response = client.get(reverse("accounts:password_change"))
        assert response.status_code == 302
        assert response.url.startswith(reverse("accounts:login"))

    def test_it_shows_the_form(self, player_client: Client) -> None:
        response = player_client.get(reverse("accounts:password_change"))
        assert response.status_code == 200
        page = response.content.decode()
        for name in ("old_password", "new_password1", "new_password2"):
            assert f'name="{name}"' in page

    def test_it_changes_the_password_and_keeps_the_player_signed_in(
        self, player_client: Client, player: User
    ) -> None:
        response = player_client.post(
            reverse("accounts:password_change"),
            {
                "old_password": PASSWORD,
                "new_password1": NEW_PASSWORD,
                "new_password2": NEW_PASSWORD,
            },
        )
        assert response.status_code == 302
        assert response.url == reverse("accounts:password_change_done")
        player.refresh_from_db()
        assert player.check_password(NEW_PASSWORD)
        assert player_client.session[SESSION_KEY] == str(player.pk)
        done = player_client.get(response.url)
        assert "Contraseña cambiada" in done.content.decode()

    def test_it_refuses_a_wrong_old_password(self, player_client: Client, player: User) -> None:
        response = player_client.post(
            reverse("accounts:password_change"),
            {
                "old_password": "no-la-se",
                "new_password1": NEW_PASSWORD,
                "new_password2": NEW_PASSWORD,
            },
        )
        assert response.status_code == 200
        codes = {e.code for e in response.context["form"].errors.as_data()["old_password"]}
        assert codes == {"password_incorrect"}
        player.refresh_from_db()
        assert player.check_password(PASSWORD)

    def test_it_applies_the_password_validators(self, player_client: Client) -> None:
        response = player_client.post(
            reverse("accounts:password_change"),
            {"old_password": PASSWORD, "new_password1": "12345", "new_password2": "12345"},
        )
        codes = {e.code for e in response.context["form"].errors.as_data()["new_password2"]}
        assert {"password_too_short", "password_entirely_numeric"} <= codes


class TestPasswordReset:
    def request_reset(self, client: Client, email: str):
        return client.post(reverse("accounts:password_reset"), {"email": email})

    def reset_link(self) -> str:
        assert len(mail.outbox) == 1
        match = re.search(r"https?://testserver(/\S+)", mail.outbox[0].body)
        assert match, mail.outbox[0].body
        return match.group(1)

    def test_it_shows_the_request_form(self, client: Client) -> None:
        response = client.get(reverse("accounts:password_reset"))
        assert response.status_code == 200
        assert 'name="email"' in response.content.decode()

    def test_it_emails_a_reset_link_in_spanish(self, client: Client, player: User) -> None:
        response = self.request_reset(client, "carmen@example.com")
        assert response.status_code == 302
        assert response.url == reverse("accounts:password_reset_done")
        assert len(mail.outbox) == 1
        message = mail.outbox[0]
        assert message.to == ["carmen@example.com"]
        assert message.subject == "Restablece tu contraseña de Barajamos"
        assert "Hola, Carmen:" in message.body
        assert "carmen" in message.body  # the username, in case it was forgotten
        assert "Revisa tu correo" in client.get(response.url).content.decode()

    def test_the_email_is_in_the_account_language(self, client: Client) -> None:
        make_user(username="john", email="john@example.com", language="en")
        self.request_reset(client, "john@example.com")
        assert mail.outbox[0].subject == "Reset your Barajamos password"

    def test_the_link_sets_a_new_password(self, client: Client, player: User) -> None:
        self.request_reset(client, "carmen@example.com")
        link = self.reset_link()
        response = client.get(link)
        # Django swaps the token for a session value and redirects to the form.
        assert response.status_code == 302
        form_url = response.url
        form_page = client.get(form_url)
        assert form_page.status_code == 200
        assert form_page.context["validlink"] is True
        response = client.post(
            form_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
        )
        assert response.status_code == 302
        assert response.url == reverse("accounts:password_reset_complete")
        player.refresh_from_db()
        assert player.check_password(NEW_PASSWORD)
        assert "Contraseña restablecida" in client.get(response.url).content.decode()
        # The new password opens the account.
        other = Client()
        logged = other.post(
            reverse("accounts:login"), {"username": "carmen", "password": NEW_PASSWORD}
        )
        assert logged.status_code == 302

    def test_a_used_link_no_longer_works(self, client: Client, player: User) -> None:
        self.request_reset(client, "carmen@example.com")
        link = self.reset_link()
        form_url = client.get(link).url
        client.post(form_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
        response = Client().get(link)
        assert response.status_code == 200
        assert response.context["validlink"] is False
        assert "Enlace no válido" in response.content.decode()

    def test_an_unknown_email_gets_the_same_answer_and_no_mail(self, client: Client) -> None:
        response = self.request_reset(client, "nadie@example.com")
        assert response.status_code == 302
        assert response.url == reverse("accounts:password_reset_done")
        assert mail.outbox == []

    def test_an_inactive_account_gets_no_mail(self, client: Client) -> None:
        make_user(username="pepe", email="pepe@example.com", is_active=False)
        self.request_reset(client, "pepe@example.com")
        assert mail.outbox == []
