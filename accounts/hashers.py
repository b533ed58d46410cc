"""Password hashing beside the live game, not in its way (#34, 4).

A PBKDF2 hash of the site's strength is about a third of a second of CPU. Every hash and every
check goes through the hasher's `encode` (a log-in, a sign-up, a password change or reset,
Django's own dummy hash for an unknown username, an upgrade of an old hash), so the hasher is the
one place that decides where that work runs:

- **in one thread of its own per process, at the lowest CPU priority** (`nice` 19 for that
  thread only, on Linux). OpenSSL's PBKDF2 releases the GIL, so the hash runs on another core
  beside daphne's event loop; when the cores are busy the kernel gives the loop (the live
  tables) the CPU first and the log-ins wait, rather than the other way round. One thread: a
  process hashes on one core at most (a daphne process per core, docs/deploy.md, makes one
  hashing thread per core), and log-ins beyond what it hashes wait in its queue.
- **without a database connection.** The request gives its connection back to the pool while
  it waits for the hash (unless it is inside a transaction) and takes one again for what
  follows. A log-in held one for the whole hash: with log-ins waiting on a busy machine the pool
  (`DB_POOL_MAX`) ran dry and the table sockets' own database work timed out with it.

The hash itself is Django's, unchanged (algorithm, iterations, salt): stored hashes are the
same and keep working whichever of the two computed them.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.contrib.auth import hashers
from django.db import connections

#: The hashing threads' niceness: the lowest priority, so the live game comes first.
NICENESS = 19
THREADS = 1

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _lower_priority() -> None:
    """The current thread (only it) at `NICENESS`. Linux gives each thread its own niceness
    (`setpriority` on its thread id); elsewhere the thread keeps the process's."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICENESS)


def _forget_pool() -> None:
    """In a forked child (a Celery worker's processes): the parent's thread did not come along,
    so the child starts its own when it first hashes."""
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def hashing_pool() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(
                THREADS, thread_name_prefix="password-hashing", initializer=_lower_priority
            )
        return _pool


def release_connections() -> None:
    """Give this thread's database connections back to the pool, but any in a transaction
    (closing it would end the transaction): Django opens one again at the next query."""
    for conn in connections.all(initialized_only=True):
        if conn.connection is not None and conn.get_autocommit() and not conn.in_atomic_block:
            conn.close()


class HashingBesideTheGame:
    """A mixin for a Django hasher: its `encode` (which `verify` and `make_password` call) runs
    in the hashing threads, with this thread's database connections given back meanwhile."""

    def encode(self, password: str, salt: str, *args: Any, **kwargs: Any) -> str:
        if threading.current_thread().name.startswith("password-hashing"):
            return super().encode(password, salt, *args, **kwargs)  # type: ignore[misc]
        release_connections()
        hashed = hashing_pool().submit(super().encode, password, salt, *args, **kwargs)  # type: ignore[misc]
        result: str = hashed.result()
        return result


class PBKDF2PasswordHasher(HashingBesideTheGame, hashers.PBKDF2PasswordHasher):
    """Django's default hasher (`pbkdf2_sha256`, its iterations), hashing beside the game."""
