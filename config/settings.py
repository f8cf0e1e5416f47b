"""Settings for Glossary Desk, each declared once and read from the environment.

Development defaults are safe to run on a laptop: SQLite, local-memory cache,
Celery tasks run in process. Production sets DATABASE_URL, REDIS_URL,
SECRET_KEY, ALLOWED_HOSTS and DEBUG=false (see .env.example); the deploy
checks in config/checks.py refuse an unsafe combination.
"""

from pathlib import Path
from typing import Any

import dj_database_url
import django_stubs_ext
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_float, env_int, env_list, env_str, env_time_zone
from config.logging import logging_config

# Lets Django's generic classes be subscripted at run time (ModelAdmin[Entry]), as the
# type checker (mypy with django-stubs) wants them written.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent

# --- Core ------------------------------------------------------------------------

DEV_SECRET_KEY = "dev-only-insecure-secret-key-change-me"  # noqa: S105
SECRET_KEY = env_str("SECRET_KEY", DEV_SECRET_KEY)
# Old keys still accepted for signatures (sessions, password reset links) while rotating.
SECRET_KEY_FALLBACKS = env_list("SECRET_KEY_FALLBACKS", [])
DEBUG = env_bool("DEBUG", True)
if not DEBUG and SECRET_KEY == DEV_SECRET_KEY:
    raise ImproperlyConfigured(
        "DEBUG is off but SECRET_KEY is the development default; set SECRET_KEY."
    )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
# The hosts of shows' own public sites (Show.public_host; docs/operations.md), answered as
# well: listed apart so the desk's hosts and the shows' are each plain to read. Never "*".
SHOW_PUBLIC_HOSTS = env_list("SHOW_PUBLIC_HOSTS", [])
ALLOWED_HOSTS = [*ALLOWED_HOSTS, *SHOW_PUBLIC_HOSTS]
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
_DEFAULT_TRUSTED_ORIGINS = [SITE_URL] if not DEBUG and SITE_URL.startswith("https://") else []
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", []) or _DEFAULT_TRUSTED_ORIGINS

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
    "axes",
    # Two-factor sign-in for the desk (editorial.twofactor): authenticator apps and
    # recovery codes.
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    "glossary",
    "editorial",
    # What is not the product: the demo, the synthetic generator, the bench view (demo/).
    "demo",
    # Registers the deploy checks (config/checks.py).
    "config.apps.ProjectConfig",
]

MIDDLEWARE = [
    # Request ids first, so everything after it logs with the id.
    "config.logging.RequestIdMiddleware",
    # Before host validation, the HTTPS redirect and any cache: probes call it directly.
    "config.health.HealthCheckMiddleware",
    # A view that cannot reach the database answers 503 with Retry-After, not 500.
    "config.outage.DatabaseUnavailableMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # A show's own public site, by its path or host (glossary.show_site): before anything
    # that resolves the URL.
    "glossary.show_site.ShowSiteMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Whether the session passed its two-factor step (request.user.is_verified()).
    "django_otp.middleware.OTPMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # A desk page for an unverified session leads to the code (or enrolment) first.
    "editorial.twofactor.RequireTwoFactorMiddleware",
    # The desk's pages show and read times in the newsroom's zone (editorial.newsroom).
    "editorial.newsroom.DeskTimeMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.security.SecurityHeadersMiddleware",
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

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
                "glossary.context_processors.site",
            ],
        },
    },
]

# --- Database ----------------------------------------------------------------------

POSTGRESQL_ENGINE = "config.postgresql"
_DEFAULT_DATABASE_URL = f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
DATABASE_URL = env_str("DATABASE_URL", _DEFAULT_DATABASE_URL)
try:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
except ValueError as exc:
    raise ImproperlyConfigured(f"DATABASE_URL is not a database URL: {exc}") from None
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend with a health check that needs no round trip (config/postgresql).
    DATABASES["default"]["ENGINE"] = POSTGRESQL_ENGINE
    DATABASES["default"]["TEST"] = {"NAME": env_str("TEST_DATABASE_NAME", "") or None}
    # Reconnect after a database restart instead of failing the first request.
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = env_int(
        "DATABASE_CONNECT_TIMEOUT", 5, minimum=1
    )
    # The statements the public pages keep prepared (glossary.selectors, `keep_plan`) are
    # written so that one plan serves every value: planned once, not per request. Left to
    # choose, PostgreSQL planned the A–Z index's statement afresh on every run (0.7 ms,
    # more than running it). The ORM binds its values on the client and never prepares,
    # so nothing else is affected.
    #
    # No parallel workers either: every statement here is a request's, and the largest (the
    # dashboard's search for live entries failing a check, editorial.gates.may_fail_blocking)
    # builds the same hash tables in each worker: 92 ms with two workers at 10,000 entries,
    # 46 ms without (2-core machine); the public pages measured the same either way.
    _options = DATABASES["default"]["OPTIONS"]
    _options["options"] = (
        f"{_options.get('options', '')} -c plan_cache_mode=force_generic_plan"
        " -c max_parallel_workers_per_gather=0"
    )

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A transaction takes the write lock when it begins, and waits its turn for it:
    # begun deferred, two processes that both read then write (two Celery workers
    # recording checks) deadlock on the lock upgrade, and SQLite fails one at once
    # with "database is locked" rather than waiting; the task's retry then checked
    # its sources a second time.
    DATABASES["default"].setdefault("OPTIONS", {})["transaction_mode"] = "IMMEDIATE"

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- People and sign-in ------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    # First, so a locked-out client is refused before its password is even checked.
    "axes.backends.AxesStandaloneBackend",
    # Django's model backend, where a show member's permissions are their teams' roles.
    "editorial.permissions.ShowTeamBackend",
]
# Five wrong passwords for one username from one address lock that pair out for
# AXES_COOLOFF_MINUTES; other addresses (the rest of the newsroom) can still sign in.
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = env_int("AXES_COOLOFF_MINUTES", 15, minimum=1) / 60  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "config.security.client_ip"
AXES_SENSITIVE_PARAMETERS = ["password", "password1", "password2", "csrfmiddlewaretoken"]
# Says until when (newsroom time) and who can help, instead of axes' one line.
AXES_LOCKOUT_CALLABLE = "editorial.admin.lockout.lockout_response"
# Two-factor sign-in (editorial.twofactor, docs/two-factor.md). On, editors and admins
# (anyone who may publish or manage accounts) must enrol an authenticator app before
# using the desk; anyone who enrolled is asked for a code at every sign-in either way.
# On by default in production (`check --deploy` warns when it is off), off under
# `make run` so the demo logins work with a password alone.
DESK_REQUIRE_2FA = env_bool("DESK_REQUIRE_2FA", not DEBUG)
# The name authenticator apps list the desk's codes under.
OTP_TOTP_ISSUER = env_str("OTP_TOTP_ISSUER", "Glossary Desk")
# How many proxies in front of gunicorn append to X-Forwarded-For (0: none, use REMOTE_ADDR).
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0, minimum=0)

# --- Time ----------------------------------------------------------------------------

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
# The zone the newsroom schedules and reads dates in (editorial.newsroom): every time the
# desk shows (its pages, emails, messages) is in it; readers' pages keep TIME_ZONE.
NEWSROOM_TIME_ZONE = env_time_zone("NEWSROOM_TIME_ZONE", "America/New_York")
# DATETIME_FORMAT as the desk writes an instant, "Dec 1, 2026, 09:00 EST" (config/formats/).
FORMAT_MODULE_PATH = ["config.formats"]

# --- Static files ------------------------------------------------------------------------

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", "") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"] if (BASE_DIR / "static").is_dir() else []
# Hashed, compressed static files: set at image build time for collectstatic too.
STATIC_MANIFEST = env_bool("STATIC_MANIFEST", not DEBUG)
if STATIC_MANIFEST:
    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }

# --- Email (editorial.notify; docs/notifications.md) ------------------------------------

# Development prints each email to the console; production sends through SMTP
# (EMAIL_BACKEND=django.core.mail.backends.smtp.EmailBackend and EMAIL_HOST etc.).
EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.console.EmailBackend"
    if DEBUG
    else "django.core.mail.backends.smtp.EmailBackend",
)
# Where django's filebased backend writes one file per email (EMAIL_FILE_PATH).
EMAIL_FILE_PATH = env_str("EMAIL_FILE_PATH", "") or None
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured("Set EMAIL_USE_TLS or EMAIL_USE_SSL, not both.")
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 30, minimum=1)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Glossary Desk <desk@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# A person with no preference saved gets this: immediate, daily or off.
NOTIFY_DEFAULT_DELIVERY = env_str("NOTIFY_DEFAULT_DELIVERY", "immediate")
if NOTIFY_DEFAULT_DELIVERY not in ("immediate", "daily", "off"):
    raise ImproperlyConfigured(
        f"NOTIFY_DEFAULT_DELIVERY must be immediate, daily or off, not {NOTIFY_DEFAULT_DELIVERY!r}"
    )
# How often waiting notifications go out; link-check alerts wait for this run.
NOTIFY_INTERVAL_SECONDS = env_int("NOTIFY_INTERVAL_SECONDS", 300, minimum=1)
# The hour (0-23, newsroom time) daily digests are sent.
NOTIFY_DIGEST_HOUR = env_int("NOTIFY_DIGEST_HOUR", 8, minimum=0)
if NOTIFY_DIGEST_HOUR > 23:
    raise ImproperlyConfigured(f"NOTIFY_DIGEST_HOUR must be 0 to 23, not {NOTIFY_DIGEST_HOUR}")

# --- Cache and Celery ----------------------------------------------------------------------

REDIS_URL = env_str("REDIS_URL", "")
# The page cache's own Redis (bounded, LRU); the broker's by default, which
# `check --deploy` warns about in production.
CACHE_REDIS_URL = env_str("CACHE_REDIS_URL", "") or REDIS_URL
HEALTH_CHECK_TIMEOUT = env_float("HEALTH_CHECK_TIMEOUT", 2.0, minimum=0.1)
_CACHE_TIMEOUT = env_int("CACHE_TIMEOUT", 3600, minimum=0)
if CACHE_REDIS_URL:
    CACHES = {
        "default": {
            # A Redis outage degrades the cache to misses instead of failing pages.
            "BACKEND": "config.cache.ResilientRedisCache",
            "LOCATION": CACHE_REDIS_URL,
            "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "glossary"),
            "TIMEOUT": _CACHE_TIMEOUT,
            "OPTIONS": {
                "socket_connect_timeout": HEALTH_CHECK_TIMEOUT,
                "socket_timeout": HEALTH_CHECK_TIMEOUT,
            },
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "TIMEOUT": _CACHE_TIMEOUT,
        }
    }

# With no Redis configured (the embedded default) tasks run in process.
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
# Celery keeps Django's logging config instead of installing its own handlers.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# acks_late + a visibility timeout: a task whose worker dies is redelivered after it.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600, minimum=1),
    # How often a worker sweeps for messages whose visibility timeout passed
    # (kombu's defaults: every 10th call of a 10 s timer).
    "unacked_restore_interval": env_int("CELERY_UNACKED_RESTORE_INTERVAL", 10, minimum=1),
    "unacked_restore_throttle": env_int("CELERY_UNACKED_RESTORE_THROTTLE", 10, minimum=1),
}
# `make run` (manage.py rundesk) runs a worker and beat with no Redis: the broker is
# kombu's file-system transport (CELERY_BROKER_URL=filesystem://), one file per message
# under this directory, shared by the web server, the worker and beat on one machine.
# Development only; config/celery.py points the transport at it.
CELERY_BROKER_DIR = Path(env_str("CELERY_BROKER_DIR", "") or BASE_DIR / ".desk" / "broker")
# Where beat remembers when each task last ran (the compose file puts it on a volume).
CELERY_BEAT_SCHEDULE_FILENAME = env_str("CELERY_BEAT_SCHEDULE_FILENAME", "celerybeat-schedule")
# How often beat runs the scheduler, and how late its last run may be before the
# dashboard warns that beat or the workers are down.
SCHEDULER_INTERVAL_SECONDS = env_int("SCHEDULER_INTERVAL_SECONDS", 60, minimum=1)
SCHEDULER_LATE_AFTER_SECONDS = env_int(
    "SCHEDULER_LATE_AFTER_SECONDS", 5 * SCHEDULER_INTERVAL_SECONDS, minimum=60
)
LINKCHECK_SCHEDULE_SECONDS = env_int("LINKCHECK_SCHEDULE_SECONDS", 24 * 3600, minimum=1)
# How often beat re-imports the feeds of shows that have a feed URL (docs/feeds.md).
FEED_REFRESH_SECONDS = env_int("FEED_REFRESH_SECONDS", 6 * 3600, minimum=1)
# The largest feed read, from a URL or a file: a bigger one is refused, never cut short.
FEED_MAX_BYTES = env_int("FEED_MAX_BYTES", 16 * 1024 * 1024, minimum=1024)
# Whether beat checks the cited sources on its own. `make run` turns it off unless you
# set it: the demo cites real-world pages, which a laptop should not fetch unasked.
# "Check now" in the admin still checks the sources an editor picks.
LINKCHECK_ON_SCHEDULE = env_bool("LINKCHECK_ON_SCHEDULE", True)
CELERY_BEAT_SCHEDULE: dict[str, dict[str, Any]] = {
    "publish-scheduled-entries": {
        "task": "editorial.tasks.publish_due",
        "schedule": float(SCHEDULER_INTERVAL_SECONDS),
    },
    # Shows with a feed URL only; a show without one is never fetched (docs/feeds.md).
    "refresh-show-feeds": {
        "task": "editorial.tasks.refresh_feeds",
        "schedule": float(FEED_REFRESH_SECONDS),
    },
    # Waiting notifications, link-check alerts gathered into one email per person.
    "deliver-notifications": {
        "task": "editorial.tasks.deliver_notifications",
        "schedule": float(NOTIFY_INTERVAL_SECONDS),
    },
    # Hourly; acts only in NOTIFY_DIGEST_HOUR (newsroom time), once per person per day.
    "send-daily-digests": {
        "task": "editorial.tasks.send_daily_digests",
        "schedule": 3600.0,
    },
    # Presence marks of entry pages closed without saying so (docs/who-is-editing.md).
    "prune-presence-marks": {
        "task": "editorial.tasks.prune_presence",
        "schedule": 3600.0,
    },
}
if LINKCHECK_ON_SCHEDULE:
    CELERY_BEAT_SCHEDULE["linkcheck-due-sources"] = {
        "task": "editorial.tasks.check_due_sources",
        "schedule": float(LINKCHECK_SCHEDULE_SECONDS),
    }

# --- Archived copies of confirmed sources (editorial.archive; docs/archive.md) -----------

# Confirming a citation asks the Wayback Machine's Save Page Now to save the page, and
# the archive URL goes on the source (readers get it with the next publish). On in
# production; `make run` turns it off unless you set it, as it does the fetch on confirm.
ARCHIVE_ON_CONFIRM = env_bool("ARCHIVE_ON_CONFIRM", True)
# Save Page Now's base: POST <base>/save, GET <base>/save/status/<job>, copies at
# <base>/web/<timestamp>/<url>. Tests point it at a local fake (and allow its address
# in LINKCHECK_ALLOW_PRIVATE); nothing else should.
ARCHIVE_BASE_URL = env_str("ARCHIVE_BASE_URL", "https://web.archive.org").rstrip("/")
if not ARCHIVE_BASE_URL.startswith(("http://", "https://")):
    raise ImproperlyConfigured(
        f"ARCHIVE_BASE_URL must be an http:// or https:// address, not {ARCHIVE_BASE_URL!r}"
    )
# The archive.org S3-style keys (https://archive.org/account/s3.php), sent as
# "Authorization: LOW key:secret". Without them captures are requested anonymously,
# under the archive's lower limits.
ARCHIVE_ACCESS_KEY = env_str("ARCHIVE_ACCESS_KEY")
ARCHIVE_SECRET_KEY = env_str("ARCHIVE_SECRET_KEY")
if bool(ARCHIVE_ACCESS_KEY) != bool(ARCHIVE_SECRET_KEY):
    raise ImproperlyConfigured("Set both ARCHIVE_ACCESS_KEY and ARCHIVE_SECRET_KEY, or neither")
# Politeness: capture requests sent per minute, captures under way at once, and how many
# times a passing fault (a 429, a 5xx, a timeout) is retried, ARCHIVE_BACKOFF_SECONDS
# doubling each time; a Retry-After is honoured up to ARCHIVE_RETRY_AFTER_MAX.
ARCHIVE_RATE_PER_MINUTE = env_int("ARCHIVE_RATE_PER_MINUTE", 4, minimum=1)
ARCHIVE_CONCURRENCY = env_int("ARCHIVE_CONCURRENCY", 2, minimum=1)
ARCHIVE_RETRIES = env_int("ARCHIVE_RETRIES", 4, minimum=0)
ARCHIVE_BACKOFF_SECONDS = env_float("ARCHIVE_BACKOFF_SECONDS", 120.0, minimum=1.0)
ARCHIVE_RETRY_AFTER_MAX = env_float("ARCHIVE_RETRY_AFTER_MAX", 3600.0, minimum=1.0)
# A capture's status is asked at most this often (and beat sweeps this often); it fails
# when still pending after ARCHIVE_MAX_POLLS asks.
ARCHIVE_POLL_SECONDS = env_int("ARCHIVE_POLL_SECONDS", 30, minimum=1)
ARCHIVE_MAX_POLLS = env_int("ARCHIVE_MAX_POLLS", 40, minimum=1)
if ARCHIVE_ON_CONFIRM:
    CELERY_BEAT_SCHEDULE["archive-confirmed-sources"] = {
        "task": "editorial.tasks.archive_due",
        "schedule": float(ARCHIVE_POLL_SECONDS),
    }

# --- Logging ----------------------------------------------------------------------------

# JSON lines in production (one object per record, with request_id / task_id);
# LOG_FORMAT=plain for reading on a laptop.
LOG_FORMAT = env_str("LOG_FORMAT", "plain" if DEBUG else "json")
if LOG_FORMAT not in ("json", "plain"):
    raise ImproperlyConfigured(f"LOG_FORMAT must be json or plain, not {LOG_FORMAT!r}")
LOGGING = logging_config(env_str("LOG_LEVEL", "INFO"), json_logs=LOG_FORMAT == "json")

# --- Security ------------------------------------------------------------------------------

# A deliberate exception to `check --deploy`, named by id (e.g. glossary.W002), never a blanket.
SILENCED_SYSTEM_CHECKS = env_list("SILENCED_SYSTEM_CHECKS", [])
CONTENT_SECURITY_POLICY_REPORT_ONLY = env_bool("CONTENT_SECURITY_POLICY_REPORT_ONLY", False)
if not DEBUG:
    # Missing or weak production settings are reported by `check --deploy`
    # (config/checks.py), which the migrate service runs before every deploy.
    # TLS ends at the proxy in front of gunicorn, which must set X-Forwarded-Proto.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 365 * 24 * 3600, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SESSION_COOKIE_HTTPONLY = True

# --- Editorial policy (editorial.gates, editorial.workflow; docs/workflow.md) -------------

# How long an editorial source check stays fresh.
CITATION_FRESHNESS_DAYS = env_int("CITATION_FRESHNESS_DAYS", 180, minimum=1)
# How far (seconds) from its stored timestamp a quote may be found in the episode's
# transcript and still count as a match (docs/transcripts.md).
TRANSCRIPT_TOLERANCE_SECONDS = env_int("TRANSCRIPT_TOLERANCE_SECONDS", 10, minimum=0)
# The largest transcript fetched from a URL; a two-hour WebVTT is about 1.5 MB.
TRANSCRIPT_MAX_BYTES = env_int("TRANSCRIPT_MAX_BYTES", 10 * 1024 * 1024, minimum=1024)
SUMMARY_MAX_LENGTH = 300
# Search engines show about this many characters of a meta description; a longer
# summary is a publish warning (the summary field itself allows SUMMARY_MAX_LENGTH).
META_DESCRIPTION_MAX_LENGTH = env_int("META_DESCRIPTION_MAX_LENGTH", 160, minimum=50)
# The dashboard's aging report lists published entries not published again for this long.
DASHBOARD_AGING_DAYS = env_int("DASHBOARD_AGING_DAYS", 365, minimum=1)
# Whether the person who wrote a change may also approve and publish it. Off by
# default: a second pair of eyes. Turn it on for a one-person team.
WORKFLOW_ALLOW_SELF_APPROVAL = env_bool("WORKFLOW_ALLOW_SELF_APPROVAL", False)
# How long a preview share link works, in hours, from when it is made.
PREVIEW_LINK_MAX_AGE_HOURS = env_int("PREVIEW_LINK_MAX_AGE_HOURS", 72, minimum=1)
# Who else has an entry open (editorial.presence, docs/who-is-editing.md): an open entry
# page reports every PRESENCE_HEARTBEAT_SECONDS; a person not heard from for
# PRESENCE_GONE_AFTER_SECONDS is taken to have left.
PRESENCE_HEARTBEAT_SECONDS = env_int("PRESENCE_HEARTBEAT_SECONDS", 30, minimum=5)
PRESENCE_GONE_AFTER_SECONDS = env_int("PRESENCE_GONE_AFTER_SECONDS", 120, minimum=10)

# --- Public site (glossary views, feeds, API; docs/public-site.md) ---------------------

PUBLIC_SITE_NAME = env_str("PUBLIC_SITE_NAME", "The Show Glossary")
# Rendered public pages are kept in the default cache and dropped on every publish.
PUBLIC_PAGE_CACHE = env_bool("PUBLIC_PAGE_CACHE", True)
# Cache-Control max-age for public pages; 0 means "store, but revalidate every time".
PUBLIC_CACHE_MAX_AGE = env_int("PUBLIC_CACHE_MAX_AGE", 0, minimum=0)
PUBLIC_API_PAGE_SIZE = env_int("PUBLIC_API_PAGE_SIZE", 20, minimum=1)
# How long a process trusts its copy of the cache generation before asking again:
# other processes see a publish within this many seconds (the publishing one at once).
PUBLIC_CACHE_SYNC_SECONDS = env_float("PUBLIC_CACHE_SYNC_SECONDS", 1.0, minimum=0.0)
# Pages each process keeps in its own memory in front of the shared cache.
PUBLIC_CACHE_LOCAL_PAGES = env_int("PUBLIC_CACHE_LOCAL_PAGES", 256, minimum=0)
# How long a process trusts the shows' slugs and public hosts it read (glossary.show_site)
# before reading them again: a show's new host is served within this many seconds.
SHOW_SITES_SYNC_SECONDS = env_float("SHOW_SITES_SYNC_SECONDS", 30.0, minimum=0.0)
# Per-client limits (glossary.throttle): requests per window, "" for none.
PUBLIC_SEARCH_RATE_LIMIT = env_str("PUBLIC_SEARCH_RATE_LIMIT", "60/m")
PUBLIC_API_RATE_LIMIT = env_str("PUBLIC_API_RATE_LIMIT", "300/m")
# The client behind the trusted proxies, for the limits.
RATELIMIT_IP_META_KEY = "config.security.client_ip"
# Benchmarks only (bench/web): adds /bench/trivial/, a view with no queries or template.
BENCH_TRIVIAL_VIEW = env_bool("BENCH_TRIVIAL_VIEW", False)

# --- Link verification (editorial.linkcheck; docs/linkcheck.md) -------------------------
# Durations are in seconds unless named _DAYS.

LINKCHECK_CONTACT_URL = env_str("LINKCHECK_CONTACT_URL", f"{SITE_URL}/about/")
LINKCHECK_USER_AGENT = env_str(
    "LINKCHECK_USER_AGENT",
    f"GlossaryDeskLinkCheck/1.0 (+{LINKCHECK_CONTACT_URL})",
)
# Addresses or networks the SSRF guard lets through, e.g. "127.0.0.1,::1". Tests and
# local development only; empty in production.
LINKCHECK_ALLOW_PRIVATE = env_list("LINKCHECK_ALLOW_PRIVATE", [])
LINKCHECK_CONNECT_TIMEOUT = env_float("LINKCHECK_CONNECT_TIMEOUT", 10.0, minimum=0.01)
LINKCHECK_READ_TIMEOUT = env_float("LINKCHECK_READ_TIMEOUT", 15.0, minimum=0.01)
LINKCHECK_TOTAL_TIMEOUT = env_float("LINKCHECK_TOTAL_TIMEOUT", 30.0, minimum=0.01)
LINKCHECK_MAX_BYTES = env_int("LINKCHECK_MAX_BYTES", 2 * 1024 * 1024, minimum=1024)
LINKCHECK_MAX_REDIRECTS = env_int("LINKCHECK_MAX_REDIRECTS", 10, minimum=0)
LINKCHECK_CONCURRENCY = env_int("LINKCHECK_CONCURRENCY", 64, minimum=1)
# 0 lifts the per-host limit (benchmarks only).
LINKCHECK_PER_HOST_CONCURRENCY = env_int("LINKCHECK_PER_HOST_CONCURRENCY", 2, minimum=0)
LINKCHECK_HOST_SPACING = env_float("LINKCHECK_HOST_SPACING", 0.5, minimum=0.0)
LINKCHECK_RETRIES = env_int("LINKCHECK_RETRIES", 2, minimum=0)
LINKCHECK_BACKOFF = env_float("LINKCHECK_BACKOFF", 1.0, minimum=0.0)
LINKCHECK_RETRY_AFTER_MAX = env_float("LINKCHECK_RETRY_AFTER_MAX", 60.0, minimum=0.0)
# Off: one streamed GET per URL (HEAD only for file-like paths such as .pdf or .mp3).
# On: HEAD first for every URL, then GET when HEAD is refused or the page's text is needed.
LINKCHECK_HEAD_FIRST = env_bool("LINKCHECK_HEAD_FIRST", False)
# Redis where workers share per-host start slots, so the spacing holds across workers.
LINKCHECK_SHARED_SPACING_URL = env_str("LINKCHECK_SHARED_SPACING_URL", REDIS_URL)
# A source is declared broken after this many failing checks, each at least
# LINKCHECK_FAILURE_SPACING_DAYS after the previous counted one.
LINKCHECK_BROKEN_AFTER = env_int("LINKCHECK_BROKEN_AFTER", 3, minimum=1)
LINKCHECK_FAILURE_SPACING_DAYS = env_float("LINKCHECK_FAILURE_SPACING_DAYS", 3.0, minimum=0.0)
LINKCHECK_HEALTHY_INTERVAL_DAYS = (
    env_float("LINKCHECK_HEALTHY_MIN_DAYS", 14.0, minimum=0.0),
    env_float("LINKCHECK_HEALTHY_MAX_DAYS", 28.0, minimum=0.0),
)
LINKCHECK_FAILING_INTERVAL_DAYS = (
    env_float("LINKCHECK_FAILING_MIN_DAYS", 3.0, minimum=0.0),
    env_float("LINKCHECK_FAILING_MAX_DAYS", 4.0, minimum=0.0),
)
# Sources cited only by archived entries are re-checked this many times less often.
LINKCHECK_ARCHIVED_FACTOR = env_float("LINKCHECK_ARCHIVED_FACTOR", 4.0, minimum=1.0)
LINKCHECK_RETENTION_DAYS = env_int("LINKCHECK_RETENTION_DAYS", 400, minimum=1)
# Stored page texts (editorial.sourcetext, docs/sources.md): every text a confirmation
# saw is kept, plus each source's latest this many distinct texts; the rest is pruned
# with the check history. 3 keeps ~6.5 KB per source (bench/README.md).
SOURCETEXT_KEEP_LATEST = env_int("SOURCETEXT_KEEP_LATEST", 3, minimum=1)
# Confirming a citation whose page has no stored text fetches the page then. Off where
# the desk must not reach the internet (an air-gapped install, the test suite): such
# confirmations keep no text until a check finds the page changed.
SOURCETEXT_FETCH_ON_CONFIRM = env_bool("SOURCETEXT_FETCH_ON_CONFIRM", True)
# Sources per Celery task: one task checks a batch concurrently.
LINKCHECK_BATCH_SIZE = env_int("LINKCHECK_BATCH_SIZE", 200, minimum=1)
LINKCHECK_MAX_PER_RUN = env_int("LINKCHECK_MAX_PER_RUN", 20000, minimum=1)
# A claimed source is not handed out again for this long; a lost run is picked
# up again by a later beat once it passes. Keep it above the visibility timeout.
LINKCHECK_CLAIM_SECONDS = env_int("LINKCHECK_CLAIM_SECONDS", 2 * 3600, minimum=1)
