"""The example bot (tools/example_bot.py) through the real stack: daphne, a Celery worker for the
site's bots and the clock, and a person at the same table; or four of them from the bots' quick
play (issue #36, docs/bot-api.md)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from typing import Any

import pytest
from websockets.sync.client import connect

from accounts import bot_accounts
from accounts.models import User
from games import services
from games.models import QueueDodge, Seat, Table
from rankings.models import PlayerRating
from tests.factories import make_user, session_cookie
from tests.live import ROOT, celery_worker, child_env, daphne_server, wait_until
from tests.sockets import leaked_cards
from tools.example_bot import choose

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def person_socket(base: str, table: Table, person: User) -> Any:
    url = base.replace("http://", "ws://") + f"/ws/mesas/{table.pk}/"
    headers = {"Cookie": session_cookie(person), "Origin": base}
    return connect(url, additional_headers=headers, open_timeout=10)


def play_as_person(ws: Any, seconds: float = 240) -> dict[str, Any]:
    """A person's browser at seat 0: random legal moves until the game is over; the last state.
    Fails if any state shows them a card that is not theirs."""
    rng = random.Random(5)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        message = json.loads(ws.recv(timeout=30))
        if message["type"] != "state":
            continue
        assert not leaked_cards(message, 0), message
        if message["phase"] in ("terminada", "cancelada"):
            return dict(message)
        you = message.get("you") or {}
        if you.get("legal"):
            action = choose(you["legal"], you["cards"], rng)
            ws.send(json.dumps({"type": "action", "v": message["v"], **action}))
    raise AssertionError("the game did not end in time")


def test_the_example_bot_plays_a_whole_game_against_a_person_and_the_sites_bots() -> None:
    host = make_user("anfitriona")
    bot = bot_accounts.create_bot_account(make_user("dueña"), "Trasto")
    _token, raw = bot_accounts.issue_token(bot)
    table = services.create_table(host, "4-reyes", bots_allowed=True)
    fast = {"MUS_BOT_DELAY_MS": "10"}
    with celery_worker(beat=True, **fast), daphne_server(**fast) as (base, _proc):
        example = subprocess.Popen(
            [sys.executable, "-m", "tools.example_bot", "--url", base, "--token", raw,
             "--table", str(table.pk), "--seat", "2", "--seed", "3"],
            cwd=ROOT,
            env=child_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )  # fmt: skip
        try:
            with person_socket(base, table, host) as ws:
                # The host starts once everybody seated has the table open (docs/rules.md §8.3).
                wait_until(
                    lambda: Seat.objects.filter(table=table, user=bot, connections__gt=0).exists(),
                    timeout=30,
                )
                services.fill_with_bots(host, table.pk)
                services.start_game(host, table.pk)
                final = play_as_person(ws)
            output, _ = example.communicate(timeout=60)
        finally:
            example.kill()
    assert final["phase"] == "terminada"
    assert example.returncode == 0, output
    assert "sitting at table" in output and "game terminada" in output
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED and not table.rated
    assert [s["bot_of"] for s in final["seats"]] == [None, None, "dueña", None]


def example_bot(base: str, raw: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tools.example_bot", "--url", base, "--token", raw, *args],
        cwd=ROOT,
        env=child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_four_example_bots_play_a_quick_game_for_the_bots_ladder() -> None:
    """`--quick`: four programs wait in the bots' quick play, are seated together by it, learn
    their table by asking, come to it in time and play it to the end; it is rated on the bots
    ladder (the worker rates it), and on no people's ladder."""
    owners = [make_user("dueña"), make_user("dueño")]
    raws = []
    for i in range(4):
        bot = bot_accounts.create_bot_account(owners[i % 2], f"Trasto{i}")
        raws.append(bot_accounts.issue_token(bot)[1])
    fast = {"MUS_BOT_DELAY_MS": "10"}
    with celery_worker(beat=True, **fast), daphne_server(**fast) as (base, _proc):
        examples = [
            example_bot(base, raw, "--quick", "4-reyes", "--seed", str(i))
            for i, raw in enumerate(raws)
        ]
        try:
            outputs = [example.communicate(timeout=300)[0] for example in examples]
            table = Table.objects.get()
            wait_until(lambda: PlayerRating.objects.filter(mode="b4-reyes").count() == 4)
        finally:
            for example in examples:
                example.kill()
    for example, output in zip(examples, outputs, strict=True):
        assert example.returncode == 0, output
        assert "waiting in quick play (4-reyes)" in output and f"table {table.pk}" in output
    assert table.status == Table.Status.FINISHED and table.quick and not table.rated
    assert table.unrated_reason == Table.UnratedReason.BOTS
    assert not PlayerRating.objects.exclude(mode="b4-reyes").exists()
    assert not QueueDodge.objects.exists()
