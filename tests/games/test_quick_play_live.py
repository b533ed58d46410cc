"""Quick play through the real stack: scripted players press «Jugar ya» over HTTP against a
daphne process and wait on real WebSockets (tools/quickplay_bench.py's client)."""

from __future__ import annotations

import asyncio

import pytest

from games.models import QueuedPlayer, Table
from tests.factories import UserFactory, session_cookie
from tests.live import daphne_process
from tools.quickplay_bench import Player, run_players

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.mark.parametrize(("n", "tables", "left_waiting"), [(8, 2, 0), (9, 2, 1)])
def test_players_arriving_one_after_another_fill_tables_of_four(
    n: int, tables: int, left_waiting: int
) -> None:
    users = UserFactory("live").many(n)
    players = [Player(u.pk, session_cookie(u), arrives=0.2 * i) for i, u in enumerate(users)]
    with daphne_process() as url:
        asyncio.run(run_players(url, players, "4-reyes", stay=3))
    assert [p.error for p in players if p.error] == []
    dealt = [p for p in players if p.dealt is not None]
    assert len(dealt) == 4 * tables
    by_table: dict[int, list[Player]] = {}
    for p in dealt:
        assert p.table is not None
        by_table.setdefault(p.table, []).append(p)
    assert len(by_table) == tables
    for table_id, four in by_table.items():
        table = Table.objects.get(pk=table_id)
        assert table.status == Table.Status.PLAYING and table.quick and table.rated
        assert sorted(table.seats.values_list("user_id", flat=True)) == sorted(
            p.user_id for p in four
        )
        # The fourth arrival's own request seated the table; the three before it were told on
        # their queue page's socket.
        assert sum(p.via_redirect for p in four) == 1
        assert all("matched" in p.heard for p in four if not p.via_redirect)
    waiting = [p for p in players if p.table is None]
    assert len(waiting) == left_waiting
    for p in waiting:
        assert p.heard[:2] == ["invitations", "queue"] and "matched" not in p.heard
        assert QueuedPlayer.objects.filter(user_id=p.user_id).exists()
