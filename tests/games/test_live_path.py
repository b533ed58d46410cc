"""The cheap parts of the live path (docs/performance.md) say exactly what the plain ones did."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection

from accounts.models import User
from games import services
from games.models import Table
from tests.factories import started_table
from tests.sockets import leaked_cards

pytestmark = pytest.mark.django_db


def _timeless(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k != "now"}  # the server's clock when built


def _texts(table: Table) -> dict[str, str]:
    message = services.table_message(table)
    return {key: services.state_text(message, key) for key in services.ALL_KEYS}


def test_each_spliced_state_text_is_the_json_of_that_audiences_state(
    four_players: list[User],
) -> None:
    table = started_table(four_players)
    phases = []
    for _ in range(5):  # four «mus», then the discards (shown to nobody else)
        table = services.load_table(table.pk)
        states = services.build_states(table)
        phases.append(states["-"]["phase"])
        for key, text in _texts(table).items():
            decoded = json.loads(text)
            assert _timeless(decoded) == _timeless(states[key])
            assert not leaked_cards(decoded, None if key == "-" else int(key))
        if states["-"]["phase"] == "mus":
            seat = states["-"]["to_act"][0]
            services.act(four_players[seat], table.pk, table.version, {"act": "mus"})
    assert phases == ["mus"] * 4 + ["descarte"]


def test_the_state_of_a_table_not_started_yet_splices_the_same_way(
    four_players: list[User],
) -> None:
    table = services.create_table(four_players[0], "4-reyes")
    table = services.load_table(table.pk)
    texts = _texts(table)
    assert json.loads(texts["0"])["you"] == {"seat": 0, "cards": [], "legal": []}
    assert json.loads(texts["-"])["you"] is None
    assert _timeless(json.loads(texts["-"])) == _timeless(services.build_states(table)["-"])


def test_a_move_rewrites_the_table_row_in_place_without_touching_an_index(
    four_players: list[User],
) -> None:
    # A HOT update (docs/performance.md): no index entry per move, old versions pruned with the
    # page. It needs every column a move changes to be unindexed, and room on the page.
    table = started_table(four_players)
    mano = services.build_states(table)["-"]["to_act"][0]

    def updates() -> tuple[int, int]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables WHERE relname = %s",
                [Table._meta.db_table],
            )
            return cursor.fetchone()

    before = updates()
    services.act(four_players[mano], table.pk, table.version, {"act": "mus"})
    after = updates()
    assert after[0] == before[0] + 1
    assert after[1] == before[1] + 1  # the one update was a heap-only one
