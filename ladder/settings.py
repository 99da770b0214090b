"""Settings from the environment, with safe local defaults (SQLite, in-process tasks, console email).

DEBUG is off unless DEBUG=1 says otherwise (`make run` and the tests say so). Production sets
SECRET_KEY, ALLOWED_HOSTS, DATABASE_URL, CELERY_BROKER_URL, CACHE_URL, LEADERBOARD_CACHE_URL,
TRUSTED_PROXY_COUNT and email; without SECRET_KEY it refuses to start.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from ladder.env import cache_from_url, database_from_url, envbool, envint, envlist, envstr

BASE_DIR = Path(__file__).resolve().parent.parent

# Off unless explicitly on: a forgotten variable must not publish tracebacks and settings.
DEBUG = envbool("DEBUG", False)

_DEV_SECRET = "dev-only-insecure-secret-key-never-use-in-production-0123456789"
SECRET_KEY = envstr("SECRET_KEY") or ""
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = _DEV_SECRET

ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "knox",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "axes",
    "csp",
    "accounts",
    "ladder",  # the project: settings, URLs, the Celery app, the pages that compose the apps
    "ladder.clubs",
    "ladder.matches",
    "ratings",
    "ladder.clubnight",
    "ladder.integrity",
    "ladder.play",
]

MIDDLEWARE = [
    # /healthz and /readyz, answered before the host check and the HTTPS redirect.
    "ladder.health.ProbeMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "core.refusals.RefuseBadInput",  # NUL bytes and oversized API bodies: a 400, not a 500
    # Visitors' pages and an API client's repeat, answered from the shared cache before
    # sessions, CSRF, authentication and the rest (ladder.pagecache).
    "ladder.pagecache.PageCacheMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A sign-in's device cookie: that browser keeps its own login allowance (accounts.security).
    "accounts.security.DeviceCookieMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "csp.middleware.CSPMiddleware",
    # A domain error a page's view leaves uncaught, as the 403 or error page (core.refusals).
    "core.refusals.DomainErrorPages",
    # Last, as django-axes asks: it turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "ladder.urls"
WSGI_APPLICATION = "ladder.wsgi.application"

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
                "ladder.context_processors.site",
            ],
        },
    },
]

DATABASE_URL = envstr("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
DATABASES = {"default": database_from_url(DATABASE_URL)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Wait for a writer instead of failing at once; runserver and in-process tasks share the file.
    DATABASES["default"]["OPTIONS"] = {"timeout": 20}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "accounts.User"
# AxesStandaloneBackend first: it refuses a locked-out login before any password is checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-gb"
# The club's time zone (an IANA name such as Pacific/Auckland): members' "today", the report
# form's date and its "not in the future", expiry, club nights and every date shown are in
# it. Left unset it is Europe/London: `check --deploy` warns (ladder.W002), and the admin's
# index shows the zone with today's date. Empty means UTC.
DEFAULT_TIME_ZONE = "Europe/London"
TIME_ZONE = envstr("TIME_ZONE", DEFAULT_TIME_ZONE) or "UTC"
TIME_ZONE_SET = envstr("TIME_ZONE") is not None
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(envstr("STATIC_ROOT") or BASE_DIR / "staticfiles")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Email: console by default; set EMAIL_HOST (and friends) for real delivery.
EMAIL_HOST = envstr("EMAIL_HOST") or ""
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = envint("EMAIL_PORT", 587)
    EMAIL_HOST_USER = envstr("EMAIL_HOST_USER") or ""
    EMAIL_HOST_PASSWORD = envstr("EMAIL_HOST_PASSWORD") or ""
    EMAIL_USE_TLS = envbool("EMAIL_USE_TLS", True)
else:
    EMAIL_BACKEND = envstr("EMAIL_BACKEND") or "django.core.mail.backends.console.EmailBackend"
DEFAULT_FROM_EMAIL = envstr("DEFAULT_FROM_EMAIL") or "ladder@localhost"
# The site's address for links in emails (sent after commit, with no request at hand): the
# one source of every link mailed. `make run` sets it to the port it serves; `manage.py check
# --deploy` warns (ladder.W003) when it is not an address of ALLOWED_HOSTS.
SITE_URL = envstr("SITE_URL") or "http://127.0.0.1:8000"
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# Celery: without a broker, tasks run in-process (eagerly) so `make run` needs no other service.
CELERY_BROKER_URL = envstr("CELERY_BROKER_URL") or ""
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = False
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Rating hints are published after commit, in the request (ratings.tasks.enqueue_rating):
# these bound how long a broker that does not answer holds it up, once; after that the
# breaker (CACHE_BREAKER_SECONDS) skips the broker and the periodic sweep catches up.
# Celery's default connection timeout is 4 s. The worker reads the broker without a socket
# timeout (ladder/celery.py: an acknowledgement that timed out stopped it taking work).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.5,
    "socket_timeout": 1.0,
    "socket_connect_timeout": 1.0,
    # An unacknowledged message (its worker died mid-task) is delivered again after this;
    # longer than any rating run, short enough that a crash costs little.
    "visibility_timeout": envint("CELERY_VISIBILITY_TIMEOUT", 300),
    # How often a worker looks for such messages (every check scans Redis once).
    "unacked_restore_interval": envint("CELERY_RESTORE_INTERVAL", 10),
    "unacked_restore_throttle": 1,
}
CELERY_TASK_PUBLISH_RETRY = False
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULE = {
    # Challenges unanswered past their ladder's expiry_days: both sides are told.
    "expire-open-challenges": {
        "task": "ladder.play.tasks.expire_open_challenges",
        "schedule": 600.0,
    },
    # Writes down expiries; a report past its window is refused before this runs anyway.
    "expire-pending-matches": {
        "task": "ladder.matches.tasks.expire_pending_matches",
        "schedule": 600.0,
    },
    # Removes sign-ups never confirmed (their username and address become free again).
    "purge-unconfirmed-signups": {
        "task": "accounts.tasks.purge_unconfirmed",
        "schedule": 3600.0,
    },
    # Deletes the login failure log's old rows (the login caps read its last hour).
    "prune-login-failures": {
        "task": "accounts.tasks.prune_login_failures",
        "schedule": 86400.0,
    },
    # Rates confirmed matches whose message was lost (broker down, worker killed).
    "sweep-unrated-matches": {
        "task": "ratings.sweep",
        "schedule": envint("RATING_SWEEP_SECONDS", 60),
    },
    # Stores the table of each season that is over (a read of it would store it too).
    "freeze-ended-seasons": {
        "task": "ratings.freeze_seasons",
        "schedule": 900.0,
    },
}

# The largest honest request (a report, a club night of 200 names) is a few kilobytes;
# core.refusals.RefuseBadInput holds every body, of any content type, to it (413).
DATA_UPLOAD_MAX_MEMORY_SIZE = 256 * 1024
# No file uploads anywhere: a multipart body is held to the limit above as a whole
# (core.refusals.RefuseBadInput) and parsed in memory, never spooled to disk.
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE

# Who is the client? Behind N reverse proxies that each append the address they saw to
# X-Forwarded-For, the client is the N-th address from the right; every address left of
# it was written by the client and may be forged. 0 (the default): the app is reached
# directly, X-Forwarded-For is ignored and REMOTE_ADDR is the client. One rule for the API
# throttles (DRF's NUM_PROXIES), the login lockout and the password-reset limit:
# accounts.security.client_ip.
TRUSTED_PROXY_COUNT = envint("TRUSTED_PROXY_COUNT", 0)
if TRUSTED_PROXY_COUNT < 0:
    raise ImproperlyConfigured("TRUSTED_PROXY_COUNT must be 0 or more.")

# Login lockout (django-axes) on every way in that takes a password: the login page, the
# admin's login and the API's token endpoint. Failures are counted per account *and* client
# address together, so an attacker cannot lock a member out from elsewhere, and stored in
# the database, so every web process sees them. The LOGIN_FAILURE_LIMIT-th failure locks
# that account from that address for LOGIN_LOCKOUT_MINUTES; a success clears the count.
AXES_FAILURE_LIMIT = envint("LOGIN_FAILURE_LIMIT", 20)
AXES_COOLOFF_TIME = timedelta(minutes=envint("LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
# Attempts while locked out do not push the end of the lockout further away.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_CLIENT_IP_CALLABLE = "accounts.security.client_ip"
# Over that lockout, two caps an hour (accounts.security.LoginGuard): failures on one account
# from all addresses together (guessing from many addresses: OWASP ASVS 4.0.3 §2.2.1 allows
# at most 100), and failures from one address across all accounts (spraying). A browser that
# signed in to the account before (its device cookie) is not held by either.
AXES_HANDLER = "accounts.security.LoginGuard"
AXES_ENABLE_ACCESS_FAILURE_LOG = True  # the caps count its rows
LOGIN_ACCOUNT_FAILURE_LIMIT = envint("LOGIN_ACCOUNT_FAILURE_LIMIT", 100)
LOGIN_ADDRESS_FAILURE_LIMIT = envint("LOGIN_ADDRESS_FAILURE_LIMIT", 50)
AXES_LOCKOUT_CALLABLE = "accounts.security.lockout_response"
AXES_VERBOSE = False

REST_FRAMEWORK = {
    # Token first: a missing, revoked or malformed token answers 401 with
    # "WWW-Authenticate: Token" (the first class names the challenge; session-first gives 403).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.tokens.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    # core/api_support.py: JSON only (what the API documents and accepts), pages checked,
    # every error a client can meet in the schema, bad requests a 400 rather than a 500.
    "DEFAULT_PARSER_CLASSES": ["core.api_support.JSONParser"],
    # JSON, and in a browser the browsable API under the site's CSP (core/api_support.py).
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "core.api_support.BrowsableAPIRenderer",
    ],
    "DEFAULT_SCHEMA_CLASS": "core.api_schema.Schema",
    "DEFAULT_PAGINATION_CLASS": "core.api_support.Pagination",
    "EXCEPTION_HANDLER": "core.api_support.exception_handler",
    "PAGE_SIZE": 50,
    "DEFAULT_THROTTLE_CLASSES": [
        "accounts.security.AnonRateThrottle",  # DRF's, let through when the cache is down
        "accounts.security.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": envstr("API_THROTTLE_ANON") or "120/min",
        "user": envstr("API_THROTTLE_USER") or "600/min",
        # POST /api/v1/matches/ (ScopedRateThrottle), on top of each ladder's reports_per_hour.
        "match_report": envstr("API_THROTTLE_MATCH_REPORT") or "60/hour",
        # The password-reset form (accounts.security.limit_password_reset): per client
        # address, and per e-mail address so nobody's mailbox can be flooded.
        "password_reset": envstr("PASSWORD_RESET_RATE") or "5/hour",
        # The token endpoint (POST /api/v1/auth/token/), per client address, over the lockout.
        "token": envstr("API_THROTTLE_TOKEN") or "60/hour",
        # The sign-up form (accounts.security.limit_signup): per client address, and per
        # e-mail address (each sign-up mails that address once).
        "signup": envstr("SIGNUP_RATE") or "20/hour",
        "signup_email": envstr("SIGNUP_EMAIL_RATE") or "3/hour",
    },
    # The client address the throttles count: see TRUSTED_PROXY_COUNT.
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
}
# API tokens (django-rest-knox, stored hashed): each expires this many days after it was
# made; a password change or reset ends them all.
API_TOKEN_DAYS = envint("API_TOKEN_DAYS", 30)
KNOX_TOKEN_MODEL = "accounts.ApiToken"
# knox's own migrations create its AuthToken table even when the model is swapped for ours;
# the table would be unused, and its foreign key to the users stops test flushes.
MIGRATION_MODULES = {"knox": None}
REST_KNOX = {
    "TOKEN_TTL": timedelta(days=API_TOKEN_DAYS),
    "AUTH_HEADER_PREFIX": "Token",
    # Tokens a member may hold at once (one per device or script).
    "TOKEN_LIMIT_PER_USER": envint("API_TOKENS_PER_MEMBER", 20),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Club ladder API",
    "DESCRIPTION": "Matches, confirmations, disputes, ratings and predictions of the club ladder.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # A match's state appears as state, from_state and to_state: one named enum.
    "ENUM_NAME_OVERRIDES": {"MatchStateEnum": "ladder.matches.models.MATCH_STATES"},
    # A <slug:…> in an address is a slug: anything else is a 404 page, never a ladder's.
    "PATH_CONVERTER_OVERRIDES": {
        "slug": {"type": "string", "pattern": "^[-a-zA-Z0-9_]+$", "maxLength": 80}
    },
}

CACHES = {
    # The API's throttles and the password-reset limit count here. With CACHE_URL (a Redis)
    # every web process counts together; without, each process counts alone (check --deploy
    # warns, see ladder.checks).
    "default": cache_from_url("default", envstr("CACHE_URL") or ""),
    # Leaderboard pages (ratings.leaderboards.board_page), the API's leaderboard pages, the
    # visitors' whole pages and API clients' repeats (ladder.pagecache). With
    # LEADERBOARD_CACHE_URL (a Redis of its own with maxmemory and LRU eviction, apart from
    # the broker: docs/DEPLOY.md) the web processes share them; without, each keeps its own.
    # Entries are keyed by versions the database changes, or tagged with the epoch that
    # every change replaces (core.cache), so no process serves a stale page.
    "leaderboard": cache_from_url("leaderboard", envstr("LEADERBOARD_CACHE_URL") or ""),
}
# A Redis (cache or broker) that timed out or refused a connection is not asked again for this
# many seconds, by this process: each request meets at most one timeout, not one per call
# (core.cache; docs/DEPLOY.md "When Redis is away"). 0 = ask every time.
CACHE_BREAKER_SECONDS = envint("CACHE_BREAKER_SECONDS", 5)
# How long an entry is kept (it frees memory: a change shows at once anyway); 0 = no cache.
LEADERBOARD_CACHE_SECONDS = envint("LEADERBOARD_CACHE_SECONDS", 300)
# Visitors' pages answered by the first middleware (ladder.pagecache.PageCacheMiddleware)
# from that cache without asking the database: only when every process shares it, since a
# change made in another process (a rating run in the worker) must reach them all at once.
VISITOR_PAGES_EARLY = envbool("VISITOR_PAGES_EARLY", bool(envstr("LEADERBOARD_CACHE_URL")))

# Content-Security-Policy (django-csp): the site's pages load scripts, styles and images
# from their own origin only; no inline script, no inline style. The API docs pages
# (ladder.urls) add what Redoc and Swagger UI need.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
        "base-uri": [SELF],
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": envstr("LOG_LEVEL") or "WARNING"},
}

if not DEBUG:
    SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 60 * 60 * 24 * 365)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"
