"""Loaded with `-p` before pytest-django reads the settings: the test run's environment.

Each run gets its own Redis prefixes and Celery queue, so a `make run` on the same Redis never sees
the tests' messages, a fast password hasher (the real one costs half a second per user) and no
practical limit on sign-ups per address. The subprocesses that tests start (daphne, Celery)
inherit the same environment.
"""

import os

_RUN = f"musweb-test-{os.getpid()}"
os.environ.setdefault("CHANNELS_PREFIX", _RUN)
os.environ.setdefault("CACHE_PREFIX", _RUN)
os.environ.setdefault("CELERY_QUEUE", _RUN)
os.environ.setdefault("MUS_FAST_PASSWORD_HASHER", "1")
# The whole run signs players up from 127.0.0.1 (the counter lives in Redis, not in each test's
# database); the tests of the limit set their own.
os.environ.setdefault("SIGNUP_PER_IP_PER_HOUR", "1000000")
