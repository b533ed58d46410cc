"""Barajamos settings: one module, driven by environment variables with working defaults.

Every value a deployment may change is read through the typed helpers in `musweb.env`, which
refuse malformed values at start-up.
"""

from pathlib import Path

from django.utils.csp import CSP
from django.utils.translation import gettext_lazy as _

from .dbpool import check_connection
from .env import ConfigError, database_from_url, env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DJANGO_DEBUG", True)
_DEV_SECRET = "dev-only-insecure-secret-key-change-me-in-production-0123456789abcdef"
SECRET_KEY = env_str("DJANGO_SECRET_KEY", _DEV_SECRET if DEBUG else "")
if not SECRET_KEY:
    raise ConfigError("DJANGO_SECRET_KEY is required when DJANGO_DEBUG=0")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "channels",
    "django_htmx",
    "axes",
    "accounts",
    "games",
    "rankings",
    "tournaments",
    "moderation",
]

MIDDLEWARE = [
    # The request's database connections back to the pool when its thread is done, even if the
    # visitor left meanwhile (musweb/middleware.py).
    "musweb.middleware.ConnectionsBackMiddleware",
    # /salud/ (games/health.py), answered before sessions, users and the HTTPS redirect.
    "musweb.outages.HealthMiddleware",
    # A bot's token works on the bot API only, never on a person's page (docs/bot-api.md).
    "accounts.middleware.BearerTokenMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # PostgreSQL or Redis down: the site's own 503 page instead of a 500 (musweb/outages.py).
    "musweb.outages.ServiceUnavailableMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    # Before anything reads the path or the query (in the visitor's language, for its 400 page).
    "musweb.middleware.RejectNulMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.ActiveAccountMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "accounts.middleware.UserLanguageMiddleware",
    # Axes must be last so it sees the outcome of every authentication attempt.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "musweb.urls"
WSGI_APPLICATION = None
ASGI_APPLICATION = "musweb.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": {
        **database_from_url(env_str("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/musweb")),
        # Connections come from psycopg's pool instead of being kept per thread: daphne and
        # Channels run sync code in many threads, and a pool bounds the total.
        "CONN_MAX_AGE": 0,
        "OPTIONS": {
            "pool": {
                "min_size": env_int("DB_POOL_MIN", 4, minimum=1),
                "max_size": env_int("DB_POOL_MAX", 20, minimum=1),
                # Waiting for a connection while PostgreSQL is down ends in a 503 this soon
                # (musweb.outages), not after the default 30 s.
                "timeout": 5,
                # Every connection is checked as it leaves the pool (an empty query): after a
                # PostgreSQL restart the pool's dead connections are replaced there, unseen,
                # instead of failing the next requests (docs/deploy.md, «Caídas»); the first
                # found dead has every idle one checked at once (musweb.dbpool).
                "check": check_connection,
                # While PostgreSQL is down the pool's attempts to connect back off (1, 2, 4, 8 s…):
                # given up after 2 s, the next request tries again at once, so service comes
                # back within a second of PostgreSQL, whatever the length of the outage.
                "reconnect_timeout": 2,
            }
        },
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "accounts.backends.ActiveAccountBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Argon2id at OWASP's setting, the hashes stored before it (PBKDF2) still checked, all computed
# in a low-priority thread of its own with no database connection held (accounts/hashers.py).
SITE_PASSWORD_HASHERS = [
    "accounts.hashers.Argon2PasswordHasher",
    "accounts.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
# Tests only: the site's hash is deliberately slow (some 20 ms); tests of the hash ask for the
# site's list (SITE_PASSWORD_HASHERS) themselves.
PASSWORD_HASHERS = (
    ["django.contrib.auth.hashers.MD5PasswordHasher"]
    if env_bool("MUS_FAST_PASSWORD_HASHER", False)
    else SITE_PASSWORD_HASHERS
)
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "lobby"
LOGOUT_REDIRECT_URL = "lobby"

REDIS_URL = env_str("REDIS_URL", "redis://127.0.0.1:6379/0")
# Redis pub/sub: a table's state is published once and every daphne process hands it to its own
# sockets at that table. The list-based core layer queued one copy per socket and popped each
# separately, the largest single cost of an action under load (docs/performance.md).
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "musweb.channel_layer.PubSubChannelLayer",
        "CONFIG": {
            "hosts": [REDIS_URL],
            "prefix": env_str("CHANNELS_PREFIX", "musweb"),
        },
    }
}

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": env_str("CACHE_PREFIX", "musweb"),
    }
}

CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Two queues, each with its own worker processes (scripts/run.sh, docs/deploy.md): the live game
# (the clock's sweep, bot turns, the lobby, ratings, tournaments) on CELERY_QUEUE, and heavy work
# (hand analyses, ladder recomputes) on its own, so a clock never waits behind an analysis: 14 of
# them on one worker once stopped every clock on the site for half a minute.
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", "musweb")
MUS_HEAVY_QUEUE = f"{CELERY_TASK_DEFAULT_QUEUE}-heavy"
#: The worker roles (`python -m musweb.worker ROLE`) and the queue each consumes.
MUS_WORKER_QUEUES = {"live": CELERY_TASK_DEFAULT_QUEUE, "heavy": MUS_HEAVY_QUEUE}
CELERY_TASK_ROUTES = {
    "rankings.analyse_game": {"queue": MUS_HEAVY_QUEUE},
    "rankings.recompute_ratings": {"queue": MUS_HEAVY_QUEUE},
    "moderation.export_player_data": {"queue": MUS_HEAVY_QUEUE},
}
CELERY_TIMEZONE = "UTC"
# Notes in the database when it cannot send a task (Redis down): games.services.clockwork.
CELERY_BEAT_SCHEDULER = "musweb.celery:Scheduler"

# Game timing (docs/rules.md §8.2 and §8.3).
MUS_TURN_SECONDS = env_int("MUS_TURN_SECONDS", 30, minimum=1)
MUS_RECONNECT_SECONDS = env_int("MUS_RECONNECT_SECONDS", 60, minimum=1)
MUS_RECUENTO_SECONDS = env_int("MUS_RECUENTO_SECONDS", 15, minimum=1)
MUS_BOT_DELAY_MS = env_int("MUS_BOT_DELAY_MS", 900, minimum=0)
MUS_SWEEP_SECONDS = env_int("MUS_SWEEP_SECONDS", 1, minimum=1)
# The bot API (docs/bot-api.md), per token: HTTP requests and WebSocket connections opened per
# minute, actions and chat lines sent per minute over its sockets, and the protocol errors
# (malformed frames, unknown types or acts) one socket may make before it is closed.
BOT_API_REQUESTS_PER_MINUTE = env_int("BOT_API_REQUESTS_PER_MINUTE", 60, minimum=1)
BOT_API_CONNECTIONS_PER_MINUTE = env_int("BOT_API_CONNECTIONS_PER_MINUTE", 10, minimum=1)
BOT_API_ACTIONS_PER_MINUTE = env_int("BOT_API_ACTIONS_PER_MINUTE", 120, minimum=1)
BOT_API_PROTOCOL_ERRORS = env_int("BOT_API_PROTOCOL_ERRORS", 10, minimum=1)
# Bot accounts a player may own, and live tokens per bot account.
BOT_ACCOUNTS_PER_OWNER = env_int("BOT_ACCOUNTS_PER_OWNER", 3, minimum=0)
BOT_TOKENS_PER_ACCOUNT = env_int("BOT_TOKENS_PER_ACCOUNT", 5, minimum=1)
# How long a bot account has to answer a challenge («Retar», docs/bot-api.md).
BOT_CHALLENGE_SECONDS = env_int("BOT_CHALLENGE_SECONDS", 120, minimum=10)
# A bot account waiting in the bots' quick play keeps its place this long after it last asked
# how its wait goes (GET /api/bot/cola/): a program that stopped asking has left.
BOT_QUEUE_HOLD_SECONDS = env_int("BOT_QUEUE_HOLD_SECONDS", 30, minimum=5)
# How often the lobby's lists are rendered and what changed pushed to its sockets (games.push_lobby).
MUS_LOBBY_SECONDS = env_int("MUS_LOBBY_SECONDS", 2, minimum=1)
# A change of the games in play, their scores or who is online alone is pushed to the lobby at most
# this often: every update is a frame to every viewer, and a game in play a few seconds old tells a
# visitor as much (the tables waiting for players go at once).
MUS_LOBBY_AMBIENT_SECONDS = env_int("MUS_LOBBY_AMBIENT_SECONDS", 10, minimum=0)
# Sweeps further apart than this were stopped by an outage: every clock in play moves on by the time
# lost (games.services.clockwork). A busy worker leaves 3-12 s between sweeps with no outage.
MUS_SWEEP_GAP_SECONDS = env_int("MUS_SWEEP_GAP_SECONDS", 20, minimum=3)
# Presence that survives a crashed server process (docs/rules.md §8.3): each daphne process beats
# every MUS_PROCESS_BEAT_SECONDS; the sockets of one silent for MUS_PROCESS_TIMEOUT_SECONDS are
# dropped.
MUS_PROCESS_BEAT_SECONDS = env_int("MUS_PROCESS_BEAT_SECONDS", 5, minimum=1)
MUS_PROCESS_TIMEOUT_SECONDS = env_int("MUS_PROCESS_TIMEOUT_SECONDS", 15, minimum=2)
# A rematch table waits this long for its four players (docs/rules.md §8.5), then closes.
MUS_REMATCH_SECONDS = env_int("MUS_REMATCH_SECONDS", 120, minimum=1)
# How long a tournament round is expected to last: a tournament's expected length is its rounds
# at this many minutes each, and a player may not be in two tournaments whose expected times
# overlap (tournaments.models.Tournament.overlaps).
MUS_TOURNAMENT_ROUND_MINUTES = env_int("MUS_TOURNAMENT_ROUND_MINUTES", 45, minimum=1)
# Database connections of each daphne process for moves on the event loop (services.act_on_loop).
MUS_ASYNC_DB_CONNECTIONS = env_int("MUS_ASYNC_DB_CONNECTIONS", 4, minimum=1)
# Quick play: a player joins the queue at most MUS_QUEUE_JOINS times in MUS_QUEUE_JOINS_SECONDS
# (each join takes the queue's lock and tells every waiting player), and the waiting are told
# its size at most once per MUS_QUEUE_SIZE_SECONDS (0: at every change).
MUS_QUEUE_JOINS = env_int("MUS_QUEUE_JOINS", 10, minimum=1)
MUS_QUEUE_JOINS_SECONDS = env_int("MUS_QUEUE_JOINS_SECONDS", 60, minimum=1)
MUS_QUEUE_SIZE_SECONDS = env_int("MUS_QUEUE_SIZE_SECONDS", 1, minimum=0)
# Hand analysis of finished games (rankings.analysis): each player may have this many analyses
# queued or running at once, and ask for this many new ones an hour (an analysis already made is
# shown to everybody without counting). One pending or running that has not moved for
# MUS_ANALYSIS_STALE_SECONDS was lost with its worker and may be asked for again.
MUS_ANALYSES_RUNNING_PER_PLAYER = env_int("MUS_ANALYSES_RUNNING_PER_PLAYER", 1, minimum=1)
MUS_ANALYSES_PER_HOUR = env_int("MUS_ANALYSES_PER_HOUR", 10, minimum=1)
MUS_ANALYSIS_STALE_SECONDS = env_int("MUS_ANALYSIS_STALE_SECONDS", 600, minimum=10)
# Analyses queued or running at once on the whole site: beyond it a request is refused with a
# word to come back in a few minutes (the heavy worker runs them one by one per process).
MUS_ANALYSES_IN_FLIGHT = env_int("MUS_ANALYSES_IN_FLIGHT", 6, minimum=1)
# Deals the estimator draws per decision (more: steadier figures, slower analyses); 0: the
# estimator's own default (docs/engine.md).
MUS_ANALYSIS_SAMPLES = env_int("MUS_ANALYSIS_SAMPLES", 0, minimum=0)
# «Descargar mis datos» (moderation.export): a player asks at most MUS_DATA_EXPORTS_PER_DAY times
# in 24 hours; up to MUS_DATA_EXPORT_INLINE_GAMES games the file is made in the request, a larger
# one by the task moderation.export_player_data on the heavy queue (CELERY_TASK_ROUTES).
MUS_DATA_EXPORTS_PER_DAY = env_int("MUS_DATA_EXPORTS_PER_DAY", 3, minimum=1)
MUS_DATA_EXPORT_INLINE_GAMES = env_int("MUS_DATA_EXPORT_INLINE_GAMES", 300, minimum=0)
# Where players write about their data (the privacy page, /privacidad/).
MUS_PRIVACY_CONTACT = env_str("MUS_PRIVACY_CONTACT", "privacidad@barajamos.local")

LANGUAGE_CODE = "es"
LANGUAGES = [("es", _("Español")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "Europe/Madrid"
# English dates as «1 Dec 2026», not Django's American 12/01/2026 (musweb/formats/en).
FORMAT_MODULE_PATH = ["musweb.formats"]
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
# Where collectstatic writes: behind nginx, the directory nginx serves `/static/` from.
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "musweb.storage.StaticFiles"
        )
    },
}

# Debug prints mail on the console; production sends it by SMTP unless told otherwise.
_EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.console.EmailBackend"
    if DEBUG
    else "django.core.mail.backends.smtp.EmailBackend",
)
_SMTP_OPTIONS = {
    "host": env_str("EMAIL_HOST", "localhost"),
    "port": env_int("EMAIL_PORT", 25, minimum=1),
    "username": env_str("EMAIL_HOST_USER", ""),
    "password": env_str("EMAIL_HOST_PASSWORD", ""),
    "use_tls": env_bool("EMAIL_USE_TLS", False),
}
MAILERS = {
    "default": {
        "BACKEND": _EMAIL_BACKEND,
        "OPTIONS": _SMTP_OPTIONS if _EMAIL_BACKEND.endswith("smtp.EmailBackend") else {},
    }
}
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Barajamos <no-responder@barajamos.local>")
# An address a player gives is confirmed by a link before password resets go to it
# (accounts.addresses): the link and the unconfirmed address expire after
# MUS_EMAIL_CONFIRM_SECONDS; a player may have the link mailed at most once every
# MUS_EMAIL_RESEND_SECONDS (nobody's mailbox is flooded through the settings page).
MUS_EMAIL_CONFIRM_SECONDS = env_int("MUS_EMAIL_CONFIRM_SECONDS", 3 * 24 * 3600, minimum=60)
MUS_EMAIL_RESEND_SECONDS = env_int("MUS_EMAIL_RESEND_SECONDS", 60, minimum=0)

# Login throttling against password guessing (accounts/throttle.py): a username from an address,
# and an address across usernames (password spraying).
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5, minimum=1)
AXES_IP_FAILURE_LIMIT = env_int("AXES_IP_FAILURE_LIMIT", 10, minimum=1)
AXES_COOLOFF_TIME = 0.25  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "accounts/lockout.html"
AXES_HANDLER = "accounts.throttle.AxesHandler"
AXES_USERNAME_CALLABLE = "accounts.throttle.attempted_username"
# Accounts created from one address in an hour.
SIGNUP_PER_IP_PER_HOUR = env_int("SIGNUP_PER_IP_PER_HOUR", 10, minimum=1)

# Only the site's own scripts and styles; HTMX is configured not to inject inline styles.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "font-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # HTMX reads the token from the page, not the cookie.
if not DEBUG:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.channels.server": {"level": "WARNING"}},
}
WHITENOISE_USE_FINDERS = DEBUG
