"""Bot levels at tables: chosen for practice and by the host, kept on the seat, played at, named
with the bot everywhere («Bot Nerea (fuerte)»), and unknown levels refused."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest

from accounts.models import User
from games import engine, labels, services
from games.models import DEFAULT_BOT_LEVEL, BotLevel, Seat, Table
from games.services import bots, turns
from tests.factories import login


def bot_levels(table: Table) -> dict[int, str]:
    return dict(
        Seat.objects.filter(table=table, user__is_bot=True).values_list("seat", "bot_level")
    )


def test_the_site_offers_exactly_the_engines_levels_with_normal_by_default() -> None:
    assert tuple(BotLevel.values) == engine.bot.LEVELS
    assert DEFAULT_BOT_LEVEL == engine.bot.DEFAULT_LEVEL == "normal"


@pytest.mark.django_db
def test_a_practice_against_strong_bots_seats_three_strong_bots(
    make_user: Callable[..., User],
) -> None:
    player = make_user()
    login(player).post("/mesas/practicar/", {"mode": "4-reyes", "level": "fuerte"})
    table = Table.objects.get()
    assert bot_levels(table) == {1: "fuerte", 2: "fuerte", 3: "fuerte"}
    assert Seat.objects.get(table=table, user=player).bot_level == ""


@pytest.mark.django_db
def test_a_practice_without_a_level_is_against_normal_bots(
    make_user: Callable[..., User],
) -> None:
    login(make_user()).post("/mesas/practicar/", {"mode": "4-reyes"})
    assert set(bot_levels(Table.objects.get()).values()) == {"normal"}


@pytest.mark.django_db
def test_the_host_fills_seats_with_beginner_bots(make_user: Callable[..., User]) -> None:
    host = make_user()
    table = services.create_table(host, "8-reyes")
    login(host).post(f"/mesas/{table.pk}/bots/", {"level": "principiante"})
    assert bot_levels(table) == {1: "principiante", 2: "principiante", 3: "principiante"}


@pytest.mark.django_db
@pytest.mark.parametrize("level", ["experto", "FUERTE", "fuerte ", "x" * 500, "normal\x00"])
def test_practice_refuses_an_unknown_level_and_creates_nothing(
    make_user: Callable[..., User], level: str
) -> None:
    player = make_user()
    with pytest.raises(services.ServiceError) as refused:
        services.start_practice(player, "4-reyes", level=level)
    assert refused.value.code == "unknown_level"
    assert "principiante, normal o fuerte" in refused.value.message
    assert not Table.objects.exists()


@pytest.mark.django_db
def test_the_practice_form_says_why_an_unknown_level_is_refused(
    make_user: Callable[..., User],
) -> None:
    response = login(make_user()).post(
        "/mesas/practicar/", {"mode": "4-reyes", "level": "dios"}, follow=True
    )
    said = [str(m) for m in response.context["messages"]]
    assert said == ["Ese nivel de bot no existe: elige principiante, normal o fuerte."]
    assert not Table.objects.exists()


@pytest.mark.django_db
def test_filling_seats_refuses_an_unknown_level_and_seats_nobody(
    make_user: Callable[..., User],
) -> None:
    host = make_user()
    table = services.create_table(host, "4-reyes")
    response = login(host).post(f"/mesas/{table.pk}/bots/", {"level": "dios"}, follow=True)
    assert "Ese nivel de bot no existe: elige principiante, normal o fuerte." in [
        str(m) for m in response.context["messages"]
    ]
    assert table.seats.count() == 1
    table.refresh_from_db()
    assert table.rated  # unchanged: no bots came


def _play_bot_turns(
    table: Table, turns_at_most: int, done: Callable[[list[tuple[dict[str, Any], str]]], bool]
) -> list[tuple[dict[str, Any], str]]:
    """Play the table's turns (the person's by the clock's choice) until ``done`` says so or
    ``turns_at_most`` were tried; returns each view a bot decided on, with its level."""
    seen: list[tuple[dict[str, Any], str]] = []
    real = engine.bot.decide

    def spy(view: dict[str, Any], rng: Any = None, level: str = "normal") -> engine.Action:
        seen.append((view, level))
        return real(view, rng, level=level)

    with mock.patch.object(turns.bot, "decide", spy):
        for _ in range(turns_at_most):
            table.refresh_from_db()
            if done(seen):
                break
            if not bots.play_bot_turn(table.pk, table.version):
                game = services.game_of(table)
                if 0 in game.to_act():  # the person's turn: the clock's choice for them
                    services.apply_action(table, engine.default_action(game, 0))
    return seen


@pytest.mark.django_db
def test_a_bot_turn_is_decided_at_the_bots_own_level(make_user: Callable[..., User]) -> None:
    table = bots.start_practice(make_user(), "4-reyes", random.Random(4), level="fuerte")
    Seat.objects.filter(table=table, seat=3).update(bot_level="principiante")
    seen = _play_bot_turns(table, 12, lambda seen: False)
    assert seen
    for view, level in seen:
        assert level == ("principiante" if view["you"]["seat"] == 3 else "fuerte")


@pytest.mark.django_db
def test_site_bots_remember_the_hands_shown_at_earlier_recuentos(
    make_user: Callable[..., User],
) -> None:
    # «fuerte» reads the rivals' earlier acts against the cards the recuento showed: the site
    # must give its bots the view with the earlier hands, and never put them in the states.
    player = make_user()
    table = bots.start_practice(player, "4-reyes", random.Random(4), level="fuerte")
    decided = _play_bot_turns(table, 300, lambda s: bool(s) and s[-1][0]["hand_no"] >= 2)
    seen = [view for view, _level in decided]
    assert seen[-1]["hand_no"] == 2
    assert all(len(v["past"]) == v["hand_no"] - 1 for v in seen)
    shown = seen[-1]["past"][0]["hands"]
    assert [len(h) for h in shown] == [4, 4, 4, 4]
    assert "past" not in services.state_for(services.load_table(table.pk), player)


@pytest.mark.django_db
def test_the_state_tells_each_bots_level_and_people_have_none(
    make_user: Callable[..., User],
) -> None:
    player = make_user()
    table = bots.start_practice(player, "4-reyes", random.Random(1), level="principiante")
    state = services.state_for(services.load_table(table.pk), player)
    assert [s["bot_level"] for s in state["seats"]] == [
        None,
        "principiante",
        "principiante",
        "principiante",
    ]
    # The existing fields are unchanged: the name is the account's.
    assert state["seats"][1]["name"].startswith("Bot ")
    assert "(" not in state["seats"][1]["name"]


@pytest.mark.django_db
def test_a_bot_is_named_with_its_level_in_spanish_and_english(
    make_user: Callable[..., User],
) -> None:
    from django.utils import translation

    assert labels.seat_name("Bot Nerea", "fuerte") == "Bot Nerea (fuerte)"
    assert labels.seat_name("Alicia", None) == "Alicia"
    with translation.override("en"):
        assert labels.seat_name("Bot Nerea", "principiante") == "Bot Nerea (beginner)"
        assert labels.seat_name("Bot Nerea", "fuerte") == "Bot Nerea (strong)"


@pytest.mark.django_db
def test_the_pages_name_the_bots_with_their_level(make_user: Callable[..., User]) -> None:
    player = make_user()
    table = bots.start_practice(player, "4-reyes", random.Random(1), level="fuerte")
    names = [labels.seat_label(s) for s in Seat.objects.filter(table=table).select_related("user")]
    bot_names = [n for n in names if n.startswith("Bot ")]
    assert len(bot_names) == 3 and all(n.endswith(" (fuerte)") for n in bot_names)
    client = login(player)
    page = client.get(f"/mesas/{table.pk}/").content.decode()
    # The live table's script names them from the state and the words: both are on the page.
    assert '"bot_level": "fuerte"' in page and '"bot_name": "{name} ({level})"' in page
    services.cancel_game(table.pk, Table.CancelReason.PRACTICE_LEFT)
    detail = client.get(f"/partidas/{table.pk}/").content.decode()
    history = client.get("/partidas/").content.decode()
    for name in bot_names:
        assert name in detail
        assert name in history
