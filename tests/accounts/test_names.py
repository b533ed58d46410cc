"""Names that look like another player's, hidden characters, and log-in in any case (#13, 6)."""

from __future__ import annotations

import importlib
import unicodedata

import pytest
from django.apps import apps
from django.contrib.auth import SESSION_KEY
from django.test import Client
from django.urls import reverse

from accounts import names
from accounts.models import NameClaim, NameTaken, User
from tests.factories import BACKEND, PASSWORD, make_user

pytestmark = pytest.mark.django_db

SIGNUP_URL = "/cuentas/registro/"
SETTINGS_URL = "/cuentas/ajustes/"
LOGIN_URL = "/cuentas/entrar/"

CYRILLIC_A = "\u0410"  # «А», drawn like the Latin «A»
#: What testers got accepted as a name distinct from «Alicia».
HIDDEN = {
    "zero-width space": "Alicia\u200b",
    "zero-width joiner": "Ali\u200dcia",
    "soft hyphen": "Ali\u00adcia",
    "right-to-left override": "\u202eAlicia",
    "left-to-right mark": "Alicia\u200e",
    "first strong isolate": "\u2068Alicia\u2069",
    "Hangul filler": "Alicia\u3164",
    "byte order mark": "\ufeffAlicia",
    "line separator": "Ali\u2028cia",
    "private use": "Alicia\ue000",
}


def signup(client: Client, username: str):
    return client.post(
        SIGNUP_URL, {"username": username, "password1": PASSWORD, "password2": PASSWORD}
    )


def save_display_name(client: Client, name: str):
    return client.post(SETTINGS_URL, {"display_name": name, "language": "es"})


def error_codes(response, field: str) -> set[str]:
    return {e.code for e in response.context["form"].errors.as_data().get(field, [])}


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user, backend=BACKEND)
    return client


# --------------------------------------------------------------------------------------------
# The rules themselves.
# --------------------------------------------------------------------------------------------
def test_a_cyrillic_letter_makes_the_same_skeleton_as_the_latin_one() -> None:
    assert names.skeletons(f"{CYRILLIC_A}licia") & names.skeletons("Alicia")


def test_decomposed_and_composed_accents_are_one_name() -> None:
    nfd, nfc = unicodedata.normalize("NFD", "Álvaro"), "Álvaro"
    assert nfd != nfc
    assert names.normalize(nfd) == nfc
    assert names.skeletons(nfd) == names.skeletons(nfc)


def test_case_counts_as_the_same_name_and_l_like_capital_i_too() -> None:
    assert names.skeletons("ALICIA") & names.skeletons("alicia")
    assert names.skeletons("Il") & names.skeletons("ll")


def test_names_that_merely_differ_are_not_confused() -> None:
    assert not names.skeletons("Alicia") & names.skeletons("Álicia")
    assert not names.skeletons("pepe") & names.skeletons("pepa")


@pytest.mark.parametrize("name", HIDDEN.values(), ids=HIDDEN.keys())
def test_hidden_and_direction_characters_are_refused_with_their_code_point(name: str) -> None:
    with pytest.raises(names.ValidationError) as refused:
        names.clean(name)
    assert refused.value.code == "hidden_character"
    assert refused.value.params["code"].startswith("U+")


def test_right_to_left_letters_are_a_name_like_any_other() -> None:
    assert names.clean(" שרה ") == "שרה"
    assert names.clean("ليلى") == "ليلى"


def test_tabs_and_line_breaks_are_only_blanks() -> None:
    assert names.clean("La\tSota\n") == "La Sota"


# --------------------------------------------------------------------------------------------
# Sign-up.
# --------------------------------------------------------------------------------------------
def test_signup_refuses_a_username_that_looks_like_another_players(client: Client) -> None:
    make_user(username="Alicia")
    response = signup(client, f"{CYRILLIC_A}licia")
    assert error_codes(response, "username") == {"name_confusable"}
    assert "se confunde con el de otro jugador" in response.content.decode()
    assert User.objects.filter(is_bot=False).count() == 1


def test_signup_refuses_a_username_that_looks_like_another_players_display_name(
    client: Client,
) -> None:
    make_user(username="ali", display_name=f"{CYRILLIC_A}licia")
    response = signup(client, "Alicia")
    assert error_codes(response, "username") == {"name_confusable"}


def test_signup_refuses_a_decomposed_accent_when_the_composed_name_exists(client: Client) -> None:
    make_user(username="Álvaro")
    response = signup(client, unicodedata.normalize("NFD", "Álvaro"))
    assert response.status_code == 200
    assert error_codes(response, "username")
    assert User.objects.filter(is_bot=False).count() == 1


@pytest.mark.parametrize("name", [".", "..", "...", "-_-", "@+", "._."])
def test_signup_refuses_a_username_of_dots_and_signs_only(client: Client, name: str) -> None:
    response = signup(client, name)
    assert error_codes(response, "username") == {"no_letter"}
    assert not User.objects.filter(is_bot=False).exists()


@pytest.mark.parametrize("name", ["Alicia\u200b", "Ali\u200dcia", "Ali\u00adcia", "\u202eAlicia"])
def test_signup_refuses_a_username_with_a_hidden_character(client: Client, name: str) -> None:
    response = signup(client, name)
    assert error_codes(response, "username")
    assert not User.objects.filter(is_bot=False).exists()


def test_a_signup_that_loses_the_race_for_a_name_is_told_so(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_user(username="Alicia")
    # As if the other sign-up committed between this form's check and its save.
    monkeypatch.setattr(NameClaim, "holder", classmethod(lambda cls, name, besides=None: None))
    response = signup(client, f"{CYRILLIC_A}licia")
    assert response.status_code == 200
    assert error_codes(response, "username") == {"name_taken"}
    assert SESSION_KEY not in client.session
    assert list(User.objects.filter(is_bot=False).values_list("username", flat=True)) == ["Alicia"]


def test_the_database_refuses_a_second_player_with_a_confusable_name() -> None:
    make_user(username="Alicia")
    with pytest.raises(NameTaken):
        make_user(username=f"{CYRILLIC_A}licia")
    assert User.objects.filter(is_bot=False).count() == 1


def test_bots_claim_no_name() -> None:
    make_user(username="bot-1", display_name="Bot Lola", is_bot=True)
    make_user(username="bot-2", display_name="Bot Lola", is_bot=True)
    assert not NameClaim.objects.exists()


# --------------------------------------------------------------------------------------------
# Display names.
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name", ["Bot Nerea (normal)", "Bot Nérea", "B\u03bft Lola", "ＢＯＴ Koldo", "Koldo el bot"]
)
def test_a_display_name_that_reads_like_a_bots_is_refused(name: str) -> None:
    player = make_user(username="carmen", display_name="Carmen")
    response = save_display_name(signed_in(player), name)
    assert error_codes(response, "display_name") == {"bot_name"}
    player.refresh_from_db()
    assert player.display_name == "Carmen"


@pytest.mark.parametrize("name", HIDDEN.values(), ids=HIDDEN.keys())
def test_a_display_name_with_a_hidden_character_is_refused(name: str) -> None:
    player = make_user(username="carmen", display_name="Carmen")
    response = save_display_name(signed_in(player), name)
    assert error_codes(response, "display_name") == {"hidden_character"}
    player.refresh_from_db()
    assert player.display_name == "Carmen"


def test_a_display_name_like_another_players_username_is_refused() -> None:
    make_user(username="Alicia")
    player = make_user(username="carmen")
    response = save_display_name(signed_in(player), f"{CYRILLIC_A}licia")
    assert error_codes(response, "display_name") == {"name_confusable"}


def test_a_display_name_like_another_players_display_name_is_refused() -> None:
    make_user(username="ali", display_name="La Reina")
    player = make_user(username="carmen")
    response = save_display_name(signed_in(player), "La R\u0435ina")  # Cyrillic «е»
    assert error_codes(response, "display_name") == {"name_confusable"}


def test_a_display_name_in_full_width_letters_is_normalised_and_then_compared() -> None:
    make_user(username="Alicia")
    player = make_user(username="carmen")
    response = save_display_name(signed_in(player), "Ａｌｉｃｉａ")
    assert error_codes(response, "display_name")
    response = save_display_name(signed_in(player), "Ｃａｒｍｅｎｃｉｔａ")
    assert response.status_code == 302
    player.refresh_from_db()
    assert player.display_name == "Carmencita"


def test_a_display_name_that_normalises_too_long_is_refused_not_a_crash() -> None:
    player = make_user(username="carmen")
    response = save_display_name(signed_in(player), "ﷺ" * 3)  # 3 characters, 54 once NFKC
    assert response.status_code == 200
    assert error_codes(response, "display_name") == {"max_length"}


def test_a_player_may_show_a_display_name_like_their_own_username() -> None:
    player = make_user(username="Alicia")
    response = save_display_name(signed_in(player), f"{CYRILLIC_A}LICIA")
    assert response.status_code == 302
    player.refresh_from_db()
    assert player.display_name == f"{CYRILLIC_A}LICIA"


def test_a_display_name_given_up_is_free_for_others() -> None:
    first = make_user(username="carmen", display_name="La Reina")
    save_display_name(signed_in(first), "Carmen")
    other = make_user(username="pepa")
    assert save_display_name(signed_in(other), "La Reina").status_code == 302


def test_the_admin_refuses_a_rename_that_looks_like_another_player() -> None:
    make_user(username="Alicia")
    player = make_user(username="pilar")
    staff = make_user(username="jefa", is_staff=True, is_superuser=True)
    url = reverse("admin:accounts_user_change", args=[player.pk])
    form = signed_in(staff).get(url).context["adminform"].form
    data = {k: v for k, v in form.initial.items() if v is not None and k != "password"}
    data.update(
        username=f"{CYRILLIC_A}licia",
        date_joined_0=player.date_joined.strftime("%Y-%m-%d"),
        date_joined_1=player.date_joined.strftime("%H:%M:%S"),
        groups=[],
        user_permissions=[],
    )
    response = signed_in(staff).post(url, data)
    assert response.status_code == 200
    assert "username" in response.context["adminform"].form.errors
    player.refresh_from_db()
    assert player.username == "pilar"


# --------------------------------------------------------------------------------------------
# Players who already looked alike when the rules came.
# --------------------------------------------------------------------------------------------
def grandfathered_pair() -> tuple[User, User]:
    """Two players who signed up as «Alicia» and «Аlicia» before names were checked."""
    older = make_user(username="Alicia")
    newer = make_user(username="otra")
    User.objects.filter(pk=newer.pk).update(username=f"{CYRILLIC_A}licia")
    NameClaim.objects.all().delete()
    migration = importlib.import_module("accounts.migrations.0004_name_claims")
    migration.claim_existing_names(apps, None)
    return older, User.objects.get(pk=newer.pk)


def test_the_migration_gives_each_key_to_the_older_account() -> None:
    older, newer = grandfathered_pair()
    assert set(older.name_claims.values_list("skeleton", flat=True)) == names.skeletons("Alicia")
    assert not newer.name_claims.filter(skeleton__in=names.skeletons("Alicia")).exists()


def test_a_player_whose_name_predates_the_rules_can_still_save_their_settings() -> None:
    _older, newer = grandfathered_pair()
    response = signed_in(newer).post(SETTINGS_URL, {"display_name": "", "language": "en"})
    assert response.status_code == 302
    newer.refresh_from_db()
    assert newer.language == "en"


# --------------------------------------------------------------------------------------------
# Log-in in any case, as sign-up.
# --------------------------------------------------------------------------------------------
def test_a_player_who_signed_up_as_alicia_logs_in_as_alicia_in_lower_case() -> None:
    assert signup(Client(), "Alicia").status_code == 302
    client = Client()
    response = client.post(LOGIN_URL, {"username": "alicia", "password": PASSWORD})
    assert response.status_code == 302
    assert client.session[SESSION_KEY] == str(User.objects.get(username="Alicia").pk)


def test_log_in_in_another_case_still_needs_the_right_password() -> None:
    make_user(username="Alicia")
    client = Client()
    response = client.post(LOGIN_URL, {"username": "ALICIA", "password": "no-es-esta"})
    assert response.status_code == 200
    assert SESSION_KEY not in client.session


def test_of_two_old_accounts_differing_in_case_the_exact_one_logs_in() -> None:
    upper = make_user(username="Pepe")
    lower = make_user(username="otro")
    User.objects.filter(pk=lower.pk).update(username="pepe")
    for typed, owner in (("Pepe", upper), ("pepe", lower)):
        client = Client()
        assert client.post(LOGIN_URL, {"username": typed, "password": PASSWORD}).status_code == 302
        assert client.session[SESSION_KEY] == str(owner.pk)
    response = Client().post(LOGIN_URL, {"username": "PEPE", "password": PASSWORD})
    assert response.status_code == 200  # ambiguous: neither account
