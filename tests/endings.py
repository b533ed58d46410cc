"""What the finisher announces, as a test sees it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from games.services.endings import GameEnd
from games.signals import game_ended


@contextmanager
def endings_sent(capture: Callable[..., Any]) -> Iterator[list[GameEnd]]:
    """The `GameEnd`s announced inside the block, once its transaction's commit callbacks ran."""
    sent: list[GameEnd] = []

    def receive(sender: object, table_id: int, ending: GameEnd, **kwargs: object) -> None:
        assert table_id == ending.table_id
        sent.append(ending)

    game_ended.connect(receive, weak=False, dispatch_uid="test_finisher")
    try:
        with capture(execute=True):
            yield sent
    finally:
        game_ended.disconnect(dispatch_uid="test_finisher")
