"""Dates, times and levels at the border: the one parser for each (RULES.md "Dates, times
and numbers"). Every form and API body that takes an instant, a day or a level reads it
here, so that what the database and the time zone arithmetic receive is always in range:
a year from 1900 to 2100, an offset within ±14:00 (what PostgreSQL and every time zone
on Earth allow), a level inside the ladder's rating scale.

A bad value raises :class:`BadInput` with a message for people; the domain puts it on
its field (a 400 naming the field in the API, the message beside the field on a page).
The form fields below do the same for Django forms. The API's fields are in
``core/api_support.py``.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from django import forms
from django.utils import timezone
from django.utils.dateparse import parse_datetime

EARLIEST_YEAR = 1900
LATEST_YEAR = 2100
# The widest offsets in use (Kiribati +14:00, Baker Island −12:00); PostgreSQL stores no
# offset beyond ±15:59, and Python's arithmetic near year 1 or 9999 overflows with one.
MAX_OFFSET = timedelta(hours=14)
MAX_TEXT = 64  # characters of a date or time: an ISO 8601 one is at most 32
INSTANT_EXAMPLE = "2026-05-04T18:30+01:00"


class BadInput(ValueError):
    """A value at the border that is not what it should be; ``message`` is for people."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _quoted(value: object) -> str:
    text = repr(value) if not isinstance(value, str) else repr(value.strip())
    return text if len(text) <= 40 else text[:39] + "…"


def _check_year(year: int, what: str) -> None:
    if not EARLIEST_YEAR <= year <= LATEST_YEAR:
        raise BadInput(f"{what} must be in the years {EARLIEST_YEAR} to {LATEST_YEAR}.")


def parse_instant(value: object, what: str = "A time") -> datetime:
    """An ISO 8601 time (or a datetime) as an aware datetime; a time without an offset is
    the club's. Refused: anything else, a year outside 1900–2100, an offset beyond ±14:00."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str) and len(value) <= MAX_TEXT:
        try:
            parsed = parse_datetime(value.strip())
        except (ValueError, OverflowError):
            parsed = None
        if parsed is None:
            raise BadInput(f"{_quoted(value)} is not a time like {INSTANT_EXAMPLE}.")
        moment = parsed
    else:
        raise BadInput(f"{_quoted(value)} is not a time like {INSTANT_EXAMPLE}.")
    offset = moment.utcoffset()
    if offset is not None and abs(offset) > MAX_OFFSET:
        raise BadInput(f"{what}'s offset from UTC must be within ±14:00.")
    _check_year(moment.year, what)
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    # In range in the club's time zone too (2100-12-31T23:30-12:00 is 2101 in UTC).
    _check_year(timezone.localtime(moment).year, what)
    return moment


def parse_day(value: object, what: str = "A date") -> date:
    """A day, ``YYYY-MM-DD`` (or a date), in the years 1900–2100."""
    if isinstance(value, datetime):
        raise BadInput(f"{_quoted(str(value))} is not a date like 2026-05-04.")
    if isinstance(value, date):
        day = value
    elif isinstance(value, str) and len(value.strip()) == 10:
        try:
            day = date.fromisoformat(value.strip())
        except ValueError:
            raise BadInput(f"{_quoted(value)} is not a date like 2026-05-04.") from None
    else:
        raise BadInput(f"{_quoted(value)} is not a date like 2026-05-04.")
    _check_year(day.year, what)
    return day


def parse_level(value: object, low: float, high: float) -> int:
    """A level in rating points (4500 reads "4.50"), a whole number from ``low`` to
    ``high`` (a ladder's ``rating_min`` and ``rating_max``: 2000 and 9000 by default)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e9:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput("A level is a rating in points, like 4500 (4.50).")
    if not low <= value <= high:
        raise BadInput(
            f"A level is a rating from {low / 1000:.2f} to {high / 1000:.2f} "
            f"({low:.0f} to {high:.0f} points)."
        )
    return value


# ---- the same parsers as form fields -----------------------------------------------------


class InstantField(forms.DateTimeField):
    """A form's time (a ``datetime-local`` input: the club's time zone), read by
    :func:`parse_instant`."""

    def to_python(self, value: object) -> datetime | None:
        if value in self.empty_values:
            return None
        try:
            return parse_instant(value, str(self.label or "The time"))
        except BadInput as exc:
            raise forms.ValidationError(exc.message, code="invalid") from None


class DayField(forms.DateField):
    """A form's day (a ``date`` input), read by :func:`parse_day`."""

    def to_python(self, value: object) -> date | None:
        if value in self.empty_values:
            return None
        try:
            return parse_day(value, str(self.label or "The date"))
        except BadInput as exc:
            raise forms.ValidationError(exc.message, code="invalid") from None
