"""Loaded with `-p` before pytest-django reads the settings: the test run's environment.

Each run gets its own Redis prefixes and Celery queue, so a `make run` on the same Redis never sees
the tests' messages, and a fast password hasher (the real one costs half a second per user). The
subprocesses that tests start (daphne, Celery) inherit the same environment.
"""

import os

_RUN = f"musweb-test-{os.getpid()}"
os.environ.setdefault("CHANNELS_PREFIX", _RUN)
os.environ.setdefault("CACHE_PREFIX", _RUN)
os.environ.setdefault("CELERY_QUEUE", _RUN)
os.environ.setdefault("MUS_FAST_PASSWORD_HASHER", "1")
