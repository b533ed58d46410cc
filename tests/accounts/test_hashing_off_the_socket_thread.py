"""A log-in hashes its password beside the live game, not in its way (#34, 4): in the hashing
threads (never the table sockets' sync thread), at the lowest CPU priority, and without holding
a database connection meanwhile (accounts/hashers.py)."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import HttpCommunicator
from django.contrib.auth.hashers import MD5PasswordHasher, check_password, make_password
from django.db import connections

from accounts import hashers
from accounts.models import User
from games.services.live import in_worker
from musweb.asgi import application
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db(transaction=True)


class HeldMD5(MD5PasswordHasher):
    """Once armed, a hash says where it runs and waits until the test releases it."""

    armed = threading.Event()
    hashing = threading.Event()
    release = threading.Event()
    seen: dict[str, Any] = {}

    def encode(self, password: str, salt: str) -> str:
        if self.armed.is_set():
            self.seen["thread"] = threading.current_thread()
            self.seen["niceness"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
            if sys.platform.startswith("linux"):
                self.seen["policy"] = os.sched_getscheduler(0)
            self.hashing.set()
            self.release.wait(30)
        return super().encode(password, salt)


class HeldHasher(hashers.HashingBesideTheGame, HeldMD5):
    """The site's way of hashing (accounts.hashers) around the held hash; it notes the calling
    thread's database connection, to look at while the hash is held."""

    def encode(self, password: str, salt: str, *args: Any, **kwargs: Any) -> str:
        if self.armed.is_set() and "caller_db" not in self.seen:
            self.seen["caller"] = threading.current_thread()
            self.seen["caller_db"] = connections["default"]
        return super().encode(password, salt, *args, **kwargs)


@pytest.fixture
def held(settings: Any) -> Iterator[type[HeldMD5]]:
    settings.PASSWORD_HASHERS = [f"{__name__}.HeldHasher"]
    for event in (HeldMD5.armed, HeldMD5.hashing, HeldMD5.release):
        event.clear()
    HeldMD5.seen.clear()
    yield HeldMD5
    HeldMD5.release.set()


def log_in_request(username: str) -> HttpCommunicator:
    """The log-in form posted to the site's ASGI application, as daphne hands it a request."""
    token = "a" * 32  # the CSRF cookie's secret, sent back in the form
    body = f"username={username}&password={PASSWORD}&csrfmiddlewaretoken={token}".encode()
    return HttpCommunicator(
        application,
        "POST",
        "/cuentas/entrar/",
        body=body,
        headers=[
            (b"content-type", b"application/x-www-form-urlencoded"),
            (b"cookie", f"csrftoken={token}".encode()),
            (b"host", b"localhost"),
        ],
    )


@pytest.mark.asyncio
async def test_a_log_in_hashes_beside_the_table_sockets_sync_thread(held: Any) -> None:
    user = await sync_to_async(make_user)(username="pilar")
    held.armed.set()
    posting = asyncio.create_task(log_in_request(user.username).get_response(timeout=30))
    assert await asyncio.to_thread(held.hashing.wait, 10), "the log-in never hashed"
    # The log-in is held in the middle of its hash. The sockets' sync thread answers meanwhile
    # (it is not the thread hashing, nor the one the request waits in)...
    socket_thread = await asyncio.wait_for(in_worker(threading.current_thread), timeout=10)
    assert socket_thread not in (held.seen["thread"], held.seen["caller"])
    # ...the hash runs in a hashing thread, at the lowest priority where threads have their own...
    assert held.seen["thread"].name.startswith("password-hashing")
    if sys.platform.startswith("linux"):
        assert held.seen["niceness"] == hashers.NICENESS
        assert held.seen["policy"] == os.SCHED_IDLE  # preempted by any other task waking
    # ...and the request waits for it holding no database connection (it had one: it looked
    # the account up).
    assert held.seen["caller_db"].connection is None
    held.release.set()
    response = await posting
    assert response["status"] == 302  # signed in, as ever


def test_a_hash_inside_a_transaction_keeps_the_transactions_connection(held: Any) -> None:
    from django.db import transaction

    encoded = make_password(PASSWORD)
    held.armed.set()
    with transaction.atomic():
        User.objects.exists()
        connection = connections["default"].connection
        held.release.set()
        assert check_password(PASSWORD, encoded)
        assert connections["default"].connection is connection
        assert User.objects.exists() is False
