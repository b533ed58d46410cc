"""Shared fixtures. Tests run against the real PostgreSQL and Redis configured by the environment."""

import os

# Each test run gets its own channel-layer and cache prefixes, so a `make run` on the same Redis
# never sees the test suite's messages (and vice versa).
os.environ.setdefault("CHANNELS_PREFIX", f"musweb-test-{os.getpid()}")
os.environ.setdefault("CACHE_PREFIX", f"musweb-test-{os.getpid()}")
os.environ.setdefault("CELERY_QUEUE", f"musweb-test-{os.getpid()}")
