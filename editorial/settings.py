"""Settings for Glossary Desk, read from the environment.

Development defaults are safe to run on a laptop: SQLite, local-memory cache,
Celery tasks run in process. Production sets DATABASE_URL, REDIS_URL,
SECRET_KEY, ALLOWED_HOSTS and DEBUG=false (see .env.example).
"""

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from editorial.env import env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent

DEV_SECRET_KEY = "dev-only-insecure-secret-key-change-me"  # noqa: S105
SECRET_KEY = env_str("SECRET_KEY", DEV_SECRET_KEY)
DEBUG = env_bool("DEBUG", True)
if not DEBUG and SECRET_KEY == DEV_SECRET_KEY:
    raise ImproperlyConfigured(
        "DEBUG is off but SECRET_KEY is the development default; set SECRET_KEY."
    )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000").rstrip("/")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.sitemaps",
    "django.contrib.postgres",
    "taggit",
    "glossary",
    "editorial",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "editorial.urls"
WSGI_APPLICATION = "editorial.wsgi.application"

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

_DEFAULT_DATABASE_URL = f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
DATABASE_URL = env_str("DATABASE_URL", _DEFAULT_DATABASE_URL)
try:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
except ValueError as exc:
    raise ImproperlyConfigured(f"DATABASE_URL is not a database URL: {exc}") from None
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("TEST", {})
    DATABASES["default"]["TEST"]["NAME"] = env_str("TEST_DATABASE_NAME", "") or None

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
# The zone the newsroom schedules and reads dates in; named on every form that takes a time.
NEWSROOM_TIME_ZONE = env_str("NEWSROOM_TIME_ZONE", "America/New_York")

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"] if (BASE_DIR / "static").is_dir() else []

REDIS_URL = env_str("REDIS_URL", "")

if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "glossary"),
            "TIMEOUT": env_int("CACHE_TIMEOUT", 3600, minimum=0),
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "TIMEOUT": env_int("CACHE_TIMEOUT", 3600, minimum=0),
        }
    }

# Celery: with no Redis configured (the embedded default) tasks run in process.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL or "memory://")
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", not REDIS_URL)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"

# Editorial policy.
CITATION_FRESHNESS_DAYS = env_int("CITATION_FRESHNESS_DAYS", 180, minimum=1)
SUMMARY_MAX_LENGTH = 300

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

# --- Link verification (editorial.linkcheck; see docs/linkcheck.md) ----------
# Everything below belongs to the link checker. Durations are in seconds unless named _DAYS.


def _env_float(name: str, default: float, *, minimum: float = 0.0) -> float:
    import os

    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, not {raw!r}") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {value}")
    return value


LINKCHECK_CONTACT_URL = env_str("LINKCHECK_CONTACT_URL", f"{SITE_URL}/about/")
LINKCHECK_USER_AGENT = env_str(
    "LINKCHECK_USER_AGENT",
    f"GlossaryDeskLinkCheck/1.0 (+{LINKCHECK_CONTACT_URL})",
)
# Addresses or networks the SSRF guard lets through, e.g. "127.0.0.1,::1". Tests and
# local development only; empty in production.
LINKCHECK_ALLOW_PRIVATE = env_list("LINKCHECK_ALLOW_PRIVATE", [])
LINKCHECK_CONNECT_TIMEOUT = _env_float("LINKCHECK_CONNECT_TIMEOUT", 10.0, minimum=0.01)
LINKCHECK_READ_TIMEOUT = _env_float("LINKCHECK_READ_TIMEOUT", 15.0, minimum=0.01)
LINKCHECK_TOTAL_TIMEOUT = _env_float("LINKCHECK_TOTAL_TIMEOUT", 30.0, minimum=0.01)
LINKCHECK_MAX_BYTES = env_int("LINKCHECK_MAX_BYTES", 2 * 1024 * 1024, minimum=1024)
LINKCHECK_MAX_REDIRECTS = env_int("LINKCHECK_MAX_REDIRECTS", 10, minimum=0)
LINKCHECK_CONCURRENCY = env_int("LINKCHECK_CONCURRENCY", 64, minimum=1)
# 0 lifts the per-host limit (benchmarks only).
LINKCHECK_PER_HOST_CONCURRENCY = env_int("LINKCHECK_PER_HOST_CONCURRENCY", 2, minimum=0)
LINKCHECK_HOST_SPACING = _env_float("LINKCHECK_HOST_SPACING", 0.5, minimum=0.0)
LINKCHECK_RETRIES = env_int("LINKCHECK_RETRIES", 2, minimum=0)
LINKCHECK_BACKOFF = _env_float("LINKCHECK_BACKOFF", 1.0, minimum=0.0)
LINKCHECK_RETRY_AFTER_MAX = _env_float("LINKCHECK_RETRY_AFTER_MAX", 60.0, minimum=0.0)
# HEAD first, then GET only when HEAD is refused or the page's text is needed.
LINKCHECK_HEAD_FIRST = env_bool("LINKCHECK_HEAD_FIRST", True)
# A source is declared broken after this many failing checks, each at least
# LINKCHECK_FAILURE_SPACING_DAYS after the previous counted one.
LINKCHECK_BROKEN_AFTER = env_int("LINKCHECK_BROKEN_AFTER", 3, minimum=1)
LINKCHECK_FAILURE_SPACING_DAYS = _env_float("LINKCHECK_FAILURE_SPACING_DAYS", 3.0, minimum=0.0)
LINKCHECK_HEALTHY_INTERVAL_DAYS = (
    _env_float("LINKCHECK_HEALTHY_MIN_DAYS", 14.0, minimum=0.0),
    _env_float("LINKCHECK_HEALTHY_MAX_DAYS", 28.0, minimum=0.0),
)
LINKCHECK_FAILING_INTERVAL_DAYS = (
    _env_float("LINKCHECK_FAILING_MIN_DAYS", 3.0, minimum=0.0),
    _env_float("LINKCHECK_FAILING_MAX_DAYS", 4.0, minimum=0.0),
)
# Sources cited only by archived entries are re-checked this many times less often.
LINKCHECK_ARCHIVED_FACTOR = _env_float("LINKCHECK_ARCHIVED_FACTOR", 4.0, minimum=1.0)
LINKCHECK_RETENTION_DAYS = env_int("LINKCHECK_RETENTION_DAYS", 400, minimum=1)
# Sources per Celery task: one task checks a batch concurrently.
LINKCHECK_BATCH_SIZE = env_int("LINKCHECK_BATCH_SIZE", 200, minimum=1)
LINKCHECK_MAX_PER_RUN = env_int("LINKCHECK_MAX_PER_RUN", 20000, minimum=1)
# A claimed source is not handed out again for this long; a lost run is picked
# up again by a later beat once it passes. Keep it above the visibility timeout.
LINKCHECK_CLAIM_SECONDS = env_int("LINKCHECK_CLAIM_SECONDS", 2 * 3600, minimum=1)
LINKCHECK_SCHEDULE_SECONDS = env_int("LINKCHECK_SCHEDULE_SECONDS", 24 * 3600, minimum=1)

# acks_late + a visibility timeout: a task whose worker dies is redelivered after it.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600, minimum=1)
}
CELERY_BEAT_SCHEDULE = {
    **globals().get("CELERY_BEAT_SCHEDULE", {}),
    "linkcheck-due-sources": {
        "task": "editorial.tasks.check_due_sources",
        "schedule": float(LINKCHECK_SCHEDULE_SECONDS),
    },
}
