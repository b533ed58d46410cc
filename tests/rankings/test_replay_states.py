"""The replay's table is drawn in the browser from a state per step (rankings.replay.replay_state):
it shows what the replay has always shown at that step (every hand as it was then, face up, and
what the table showed an onlooker), never a card of the pile, of a hand still to come, or one the
record's step had not reached."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games import engine
from tests.factories import finished_game, login, play_out, started_table
from tests.sockets import CARD_RE

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def held_at(record: dict, hand_no: int, step: int) -> list[list[str]]:
    """Each seat's cards after action `step` of hand `hand_no`, replayed here from the record."""
    hands = record["hands"]
    if step == 0:
        first = {"deck": hands[hand_no - 1]["deck"], "actions": []}
        game = engine.replay({**record, "hands": [*hands[: hand_no - 1], first]})
    else:
        before = sum(len(h["actions"]) for h in hands[: hand_no - 1])
        game = engine.replay({**record, "hands": hands[:hand_no]}, upto=before + step)
    return [game.hand_codes(seat) for seat in range(4)]


def test_no_step_of_the_replay_shows_a_card_its_step_would_not(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    # A game played through the site (discards, bets, recuentos), every step of every hand.
    table = play_out(started_table(players(4)), seed=5)
    record = table.record
    url = reverse("game_detail", args=[table.pk])
    for n, hand in enumerate(record["hands"], 1):
        for k in range(len(hand["actions"]) + 1):
            response = client.get(url, {"mano": n, "paso": k}, **HTMX)
            state = response.context["replay_state"]
            held = held_at(record, n, k)
            # Every hand as it was at this step, face up: what the replay always showed.
            assert state["hands"] == held, (n, k)
            discarded = {c for a in hand["actions"][:k] for c in a.get("cards") or []}
            allowed = {c for cards in held for c in cards} | discarded
            shown = set(CARD_RE.findall(json.dumps(state)))
            assert shown <= allowed, (n, k, shown - allowed)
            # The page carries exactly that state for the renderer.
            page = response.content.decode()
            drawn = re.search(r'id="mus-table"[^>]* data-state="([^"]*)"', page)
            assert drawn and json.loads(html.unescape(drawn.group(1))) == state
            assert "you" not in state and "pile" not in state and "deck" not in state
            # Before the recuento the state says no more than an onlooker's socket did.
            if state["phase"] not in ("recuento", "terminada", "cancelada"):
                assert not state["breakdown"]
                assert all(
                    lance["winner"] is None
                    for lance in state["lances"]
                    if lance["how"] not in ("no_querido", "no_jugado")
                ), (n, k)


def test_the_replays_state_names_the_players_and_puts_the_viewer_at_the_bottom(
    client: Client, players: Callable[[int], list[User]]
) -> None:
    four = players(4)
    table = finished_game(four, winner=1)
    url = reverse("game_detail", args=[table.pk])
    login(four[2], client)
    state = client.get(url, {"mano": 1, "paso": 1}).context["replay_state"]
    assert state["view_from"] == 2 and state["replay"] is True
    assert [s["name"] for s in state["seats"]] == [p.public_name for p in four]
    # Nobody presses «Seguir» in a replay: nobody is to act at the recuento.
    last = len(table.record["hands"][0]["actions"])
    end = client.get(url, {"mano": 1, "paso": last}, **HTMX).context["replay_state"]
    assert end["phase"] in ("recuento", "terminada") and end["to_act"] == []
