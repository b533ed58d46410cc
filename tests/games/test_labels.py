"""games.labels: the words on screen, defined once for the live table and the replay."""

from __future__ import annotations

import json

from django.conf import settings
from django.utils import translation

from games import labels
from games.models import Table
from rankings import replay
from tests.factories import login, make_user


def test_fill_replaces_the_placeholders_it_has_values_for_and_keeps_the_others() -> None:
    assert labels.fill("Envite: {n} · {name}", n=4) == "Envite: 4 · {name}"
    assert labels.fill("{a} y {b}", a="Ana", b="{n}") == "Ana y {n}"  # values are not re-read
    assert labels.fill(None) == ""


def test_the_recuentos_seguir_is_carry_on_in_english_not_the_follow_of_a_profile(
    db: None,
) -> None:
    """«Seguir» has two senses on the site: the recuento's (carry on to the next hand) and a
    profile's (follow a player); each has its own English word."""
    with translation.override("en"):
        assert labels.for_table()["acts"]["repartir"] == "Carry on"
    with translation.override("es"):
        assert labels.for_table()["acts"]["repartir"] == "Seguir"
    viewer, other = make_user("viewer", language="en"), make_user("other")
    client = login(viewer)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    page = client.get(f"/jugadores/{other.username}/")
    assert page.status_code == 200
    body = page.content.decode()
    assert ">Follow</button>" in body and "Carry on" not in body


def test_the_table_gets_every_word_once_in_the_active_language() -> None:
    with translation.override("es"):
        spanish = labels.for_table()
        reasons = {code: str(label) for code, label in Table.CancelReason.choices}
    with translation.override("en"):
        english = labels.for_table()
    # English keeps the calls in Spanish, as the English rules page does.
    assert spanish["acts"]["paso"] == "Paso" and english["acts"]["paso"] == "Paso"
    assert spanish["said"]["raise"] == "{n} más" and english["said"]["raise"] == "{n} more"
    assert english["numbers"]["5"] == "Five" and english["hows"]["no_querido"] == "no querido"
    assert english["table"]["card_back"] == "face-down card"
    # A cancelled game's reason is a code: its words are the model's.
    assert spanish["cancel_reasons"] == reasons
    assert english["cancel_reasons"]["abandono"] == "A player did not come back in time."
    # A bot's level, and how a bot is named with it («Bot Nerea (fuerte)»).
    assert spanish["bot_levels"] == {
        "principiante": "principiante",
        "normal": "normal",
        "fuerte": "fuerte",
    }
    assert english["bot_levels"]["fuerte"] == "strong"
    assert spanish["table"]["bot_name"] == english["table"]["bot_name"] == "{name} ({level})"
    assert (
        set(spanish)
        == set(english)
        == {
            "lances",
            "phases",
            "acts",
            "said",
            "hows",
            "numbers",
            "at_lance",
            "parts",
            "combos",
            "cancel_reasons",
            "bot_levels",
            "table",
        }
    )
    for words in english.values():
        assert all(isinstance(text, str) and text for text in words.values())
    json.dumps(english)  # what the page emits as JSON


def test_the_replay_says_what_the_table_says() -> None:
    with translation.override("en"):
        assert replay.said_label({"act": "descarte", "cards": ["1o", "5c"]}) == "Changes 2"
        assert replay.said_label({"act": "envido", "to": 5}) == labels.said("envido", n=5)
        assert replay.said_label({"act": "paso", "by": "clock"}) == "Paso (time)"
    with translation.override("es"):
        assert labels.said_text({"act": "envido", "to": 7, "more": 5}) == (
            "Cinco más",
            "7 en la mesa",
        )
        assert labels.said_text({"act": "envido", "to": 30, "more": 12})[0] == "12 más"
        assert replay.said_label({"act": "no_quiero"}) == "No quiero"
        assert replay.said_label({"act": "nada"}) == "nada"  # an unknown act as it is
