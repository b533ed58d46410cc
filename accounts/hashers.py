"""Password hashing: Argon2id, beside the live game and not in its way (#34, 4).

**The hash.** New passwords, and old ones at their next log-in, are hashed with Argon2id at the
first setting the OWASP Password Storage Cheat Sheet recommends (19 MiB of memory, 2 passes, 1
lane): about 20 ms of one core. Until 2026-12 the site used Django's default, PBKDF2-SHA256 at
1,500,000 iterations: about 320 ms of one core, sixteen times the CPU, for a hash that graphics
cards and ASICs crack far more cheaply than a memory-hard one (Argon2 won the Password Hashing
Competition; Django and OWASP both name it first). Five log-ins a second were 1.6 of this
machine's two cores; they are now a tenth of one. Stored PBKDF2 hashes keep working: Django
checks them with their own hasher and stores the password again with Argon2id when it is right.

**Where it runs.** Every hash and every check goes through the hasher's `encode` or `verify`
(a log-in, a sign-up, a password change or reset, Django's dummy hash for an unknown username,
the upgrade of an old hash), so the hasher is the one place that decides where that work runs:

- **in one thread of its own per process, at the lowest CPU priority** (`SCHED_IDLE` and
  `nice` 19 for that thread only, on Linux). Argon2 (through cffi) and OpenSSL's PBKDF2 release
  the GIL, so the hash runs on another core beside daphne's event loop; when the cores are busy
  the kernel gives the loop (the live tables) the CPU first and the log-ins wait, rather than
  the other way round.
- **without a database connection.** The request gives its connection back to the pool while
  it waits for the hash (unless it is inside a transaction) and takes one again for what
  follows. A log-in held one for the whole hash: with log-ins waiting on a busy machine the pool
  (`DB_POOL_MAX`) ran dry and the table sockets' own database work timed out with it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

from django.contrib.auth import hashers
from django.db import connections

#: The hashing threads' niceness: the lowest priority, so the live game comes first.
NICENESS = 19
THREADS = 1

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _lower_priority() -> None:
    """The current thread (only it) at the lowest priority Linux has: `SCHED_IDLE`, which a task
    of any other policy waking on its core preempts at once, whatever group either is in (a
    nice value only ranks a thread against its own session's or cgroup's: the hash would take
    its turn against PostgreSQL and the live loop as an equal); and `nice` 19 besides. Linux
    gives each thread its own; elsewhere the thread keeps the process's."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICENESS)
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


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


def _beside(work: Callable[..., Any], *args: Any) -> Any:
    """`work(*args)` in the hashing thread, this thread's database connections given back
    meanwhile; directly when this is the hashing thread already (PBKDF2's `verify` calls
    `encode`)."""
    if threading.current_thread().name.startswith("password-hashing"):
        return work(*args)
    release_connections()
    return hashing_pool().submit(work, *args).result()


class HashingBesideTheGame:
    """A mixin for a Django hasher: its `encode` (which `make_password` calls, and PBKDF2's
    `verify`) and its `verify` (Argon2's does not call `encode`) run in the hashing thread."""

    def encode(self, password: str, salt: str, *args: Any, **kwargs: Any) -> str:
        encode = partial(super().encode, **kwargs)  # type: ignore[misc]
        result: str = _beside(encode, password, salt, *args)
        return result

    def verify(self, password: str, encoded: str) -> bool:
        result: bool = _beside(super().verify, password, encoded)  # type: ignore[misc]
        return result


class Argon2PasswordHasher(HashingBesideTheGame, hashers.Argon2PasswordHasher):
    """Argon2id at OWASP's first recommended setting (the module's docstring says why)."""

    time_cost = 2
    memory_cost = 19 * 1024  # KiB
    parallelism = 1


class PBKDF2PasswordHasher(HashingBesideTheGame, hashers.PBKDF2PasswordHasher):
    """Django's default hasher (`pbkdf2_sha256`, its iterations), for the hashes stored before
    Argon2id: checked in the hashing thread, then stored again with Argon2id."""
