"""Settings read from the environment: production is safe, bad values fail loudly."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from ladder import env

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = {
    "DEBUG": "0",
    "CACHE_URL": "redis://cache.example.org:6379/2",
    "SECRET_KEY": "x7!kq9-production-secret-that-is-long-and-random-enough-2026-abcdefgh",
    "ALLOWED_HOSTS": "ladder.example.org",
    "DATABASE_URL": "postgres://ladder:secret@db.example.org:5432/ladder",
    "CELERY_BROKER_URL": "redis://cache.example.org:6379/0",
    "EMAIL_HOST": "smtp.example.org",
    "TIME_ZONE": "Europe/London",
    "SITE_URL": "https://ladder.example.org",
}


def run_manage(*args: str, **environ: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in PRODUCTION
        and k not in ("TEST_DATABASE_URL", "DJANGO_ALLOW_ASYNC_UNSAFE", "SECRET_KEY")
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **environ},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_with_production_settings_reports_nothing() -> None:
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_debug_is_off_unless_set() -> None:
    """DEBUG unset is production: a forgotten variable publishes no tracebacks."""
    minimal = {
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "ladder.example.org",
        "DATABASE_URL": "postgres://ladder:secret@db.example.org:5432/ladder",
        "CACHE_URL": "redis://cache.example.org:6379/2",
        "TIME_ZONE": "Europe/London",
        "SITE_URL": "https://ladder.example.org",
    }
    shown = run_manage(
        "shell",
        "--verbosity",
        "0",
        "-c",
        "from django.conf import settings; print(settings.DEBUG)",
        **minimal,
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == "False"
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", **minimal)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_debug_unset_without_a_secret_key_refuses_to_start() -> None:
    result = run_manage("check")
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off." in result.stderr


def test_check_deploy_warns_when_the_throttles_count_per_process() -> None:
    settings = {k: v for k, v in PRODUCTION.items() if k != "CACHE_URL"}
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", **settings)
    assert result.returncode != 0
    assert "ladder.W001" in result.stderr + result.stdout
    assert "CACHE_URL" in result.stderr + result.stdout


def test_check_deploy_warns_when_the_club_time_zone_is_left_at_the_default() -> None:
    settings = {k: v for k, v in PRODUCTION.items() if k != "TIME_ZONE"}
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", **settings)
    out = result.stderr + result.stdout
    assert result.returncode != 0
    assert "ladder.W002" in out and "TIME_ZONE is not set" in out
    assert "Pacific/Auckland" in out  # the hint says what to write
    # Set, even to the default's own zone, there is nothing to warn about.
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ladder.W002" not in result.stdout + result.stderr


def test_the_club_time_zone_is_read_from_the_environment() -> None:
    show = "from django.conf import settings; print(settings.TIME_ZONE, settings.TIME_ZONE_SET)"
    for environ, expected in (
        ({}, "Europe/London False"),
        ({"TIME_ZONE": "Pacific/Auckland"}, "Pacific/Auckland True"),
    ):
        result = run_manage("shell", "--verbosity", "0", "-c", show, DEBUG="1", **environ)
        assert result.stdout.strip() == expected, result.stderr
    bad = run_manage("check", DEBUG="1", TIME_ZONE="Mars/Olympus_Mons")
    assert bad.returncode != 0
    assert "Incorrect timezone setting: Mars/Olympus_Mons" in bad.stderr


@pytest.mark.parametrize("site_url", [None, "http://127.0.0.1:8000", "https://other.example.org"])
def test_check_deploy_warns_when_e_mail_links_lead_elsewhere(site_url) -> None:  # type: ignore[no-untyped-def]
    """Issue 23, bug 5: e-mail links pointed to port 8000 whatever the site ran on."""
    settings = {k: v for k, v in PRODUCTION.items() if k != "SITE_URL"}
    if site_url:
        settings["SITE_URL"] = site_url
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", **settings)
    assert result.returncode != 0
    assert "ladder.W003" in result.stderr + result.stdout


def test_production_refuses_to_start_without_secret_key() -> None:
    settings = {k: v for k, v in PRODUCTION.items() if k != "SECRET_KEY"}
    result = run_manage("check", **settings)
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off." in result.stderr


def test_development_defaults_are_sqlite_and_in_process_tasks() -> None:
    result = run_manage(
        "shell",
        "--verbosity",
        "0",
        "-c",
        "from django.conf import settings as s; "
        "print(s.DATABASES['default']['ENGINE'], s.CELERY_TASK_ALWAYS_EAGER, s.EMAIL_BACKEND)",
        DEBUG="1",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "django.db.backends.sqlite3",
        "True",
        "django.core.mail.backends.console.EmailBackend",
    ]


@pytest.mark.parametrize(
    ("raw", "expected"), [("1", True), ("true", True), ("No", False), ("0", False), ("", False)]
)
def test_envbool_reads_common_spellings(
    monkeypatch: pytest.MonkeyPatch, raw: str, expected: bool
) -> None:
    monkeypatch.setenv("SOME_FLAG", raw)
    assert env.envbool("SOME_FLAG", not expected) is expected


def test_envbool_and_envint_fail_loudly_on_nonsense(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="SOME_FLAG='maybe' is not a boolean"):
        env.envbool("SOME_FLAG", False)
    monkeypatch.setenv("SOME_NUMBER", "ten")
    with pytest.raises(ImproperlyConfigured, match="SOME_NUMBER='ten' is not an integer"):
        env.envint("SOME_NUMBER", 3)


def test_database_url_parsing() -> None:
    pg = env.database_from_url("postgres://u:p%40ss@h.example:6543/club?sslmode=require")
    assert (pg["ENGINE"], pg["NAME"], pg["USER"], pg["PASSWORD"], pg["HOST"], pg["PORT"]) == (
        "django.db.backends.postgresql",
        "club",
        "u",
        "p@ss",
        "h.example",
        "6543",
    )
    assert pg["OPTIONS"] == {"sslmode": "require"}
    assert (
        env.database_from_url("sqlite:////var/db/ladder.sqlite3")["NAME"]
        == "/var/db/ladder.sqlite3"
    )
    assert env.database_from_url("sqlite:///ladder.sqlite3")["NAME"] == "ladder.sqlite3"
    with pytest.raises(ImproperlyConfigured, match="scheme 'mysql' is not supported"):
        env.database_from_url("mysql://x@y/z")


def test_cache_url_parsing() -> None:
    assert env.cache_from_url("boards", "") == {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "boards",
    }
    redis = env.cache_from_url("boards", "redis://cache.example:6379/1")
    assert (redis["BACKEND"], redis["LOCATION"]) == (
        "core.cache.RedisCache",
        "redis://cache.example:6379/1",
    )
    assert redis["OPTIONS"] == {"socket_connect_timeout": 0.25, "socket_timeout": 0.25}
    with pytest.raises(ImproperlyConfigured, match="The boards cache needs a Redis URL"):
        env.cache_from_url("boards", "memcached://x:11211")
