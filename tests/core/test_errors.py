"""One error family (core/errors.py): every app's errors derive from ``DomainError``, and
each surface translates them in one place."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from core import errors

ROOT = Path(__file__).resolve().parents[2]
APPS = ("accounts", "ladder", "ratings")
# Pure code, not apps: the rating engine and its lab raise ValueErrors (EngineError, ScoreError)
# that the apps read and turn into their own refusals.
PURE = ("ratings/engine/", "ratings/lab/")
ERROR_CLASS = re.compile(r"^class (\w*Error)\(", re.MULTILINE)


def app_errors() -> list[tuple[str, str]]:
    """(module, class) for every ``class …Error(`` in the apps' source."""
    found = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "/migrations/" in relative or relative.startswith(PURE):
                continue
            for name in ERROR_CLASS.findall(path.read_text()):
                found.append((relative[: -len(".py")].replace("/", "."), name))
    return found


def test_the_scan_finds_every_family() -> None:
    names = {name for _, name in app_errors()}
    assert {
        "MatchError",
        "ModerationError",
        "ClubNightError",
        "LadderError",
        "SeasonError",
    } <= names


@pytest.mark.parametrize(("module", "name"), app_errors())
def test_every_app_error_is_a_domain_error(module: str, name: str) -> None:
    error = getattr(importlib.import_module(module), name)
    assert issubclass(error, errors.DomainError), f"{module}.{name}"


def test_a_validation_error_given_a_message_is_the_inputs_as_a_whole() -> None:
    error = errors.DomainValidationError("Say what is wrong.")
    assert (error.message, error.errors, error.status) == (
        "Say what is wrong.",
        {errors.ALL: ["Say what is wrong."]},
        400,
    )


def test_each_kind_has_its_status() -> None:
    assert [
        kind("x").status
        for kind in (errors.DomainPermissionError, errors.DomainStateError, errors.DomainNotFound)
    ] == [403, 409, 404]
    limited = errors.DomainRateLimited("Wait a minute.", retry_after=0)
    assert (limited.status, limited.retry_after) == (429, 1)
