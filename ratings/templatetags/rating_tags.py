"""Template filters for rating pages: signed changes, the trend arrow, percentages."""

from __future__ import annotations

from datetime import date
from functools import lru_cache

from django import template
from django.conf import settings
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from ratings.chart import MONTHS

register = template.Library()

MINUS = "\u2212"  # a real minus sign lines up with the plus in tables


@register.filter
def signed(value: float | None) -> str:
    """A change in rating points: +84, −12, 0; "–" for none."""
    if value is None:
        return "–"
    points = round(value)
    if points == 0:
        return "0"
    return f"+{points}" if points > 0 else f"{MINUS}{-points}"


@register.filter
def points(value: float | None) -> str:
    """Rating points rounded to whole points (an RD: 87); "–" for none. Cheaper than
    ``floatformat:0`` in long tables."""
    return "–" if value is None else f"{value:.0f}"


@register.filter
def trend(value: float | None) -> SafeString:
    """The 30-day trend as an arrow and points, coloured; "–" without a match in that time."""
    if value is None:
        return mark_safe('<span class="muted" title="No match in this period">–</span>')
    points = round(value)
    if points > 0:
        return format_html('<span class="up" title="Up {} points">▲ {}</span>', points, points)
    if points < 0:
        return format_html(
            '<span class="down" title="Down {} points">▼ {}</span>', -points, -points
        )
    return mark_safe('<span class="muted" title="No change">0</span>')


@register.filter
def percent(value: float | None) -> str:
    """0.634 → "63%"."""
    return "–" if value is None else f"{value:.0%}"


@register.filter
def day(value: date | None) -> str:
    """A date as the tables write it, "5 Mar 2026": ``|date:"j M Y"`` without its format
    parsing and translation lookups, which cost more than the rest of a row in the long
    lists (leaderboard, match history, head-to-head). English month names, like the site."""
    return "" if value is None else f"{value.day} {MONTHS[value.month - 1]} {value.year}"


@register.simple_tag
def player_url(username: str) -> str:
    """``{% url 'ratings:player' username %}``, remembered per name: reversing a URL on each
    of a leaderboard's fifty rows was a quarter of the time it took to draw them."""
    return _player_path(settings.ROOT_URLCONF, get_urlconf(), get_script_prefix(), username)


@lru_cache(maxsize=100_000)
def _player_path(root_urlconf: str, urlconf: str | None, prefix: str, username: str) -> str:
    # The URL configuration and script prefix are part of the key: they decide the path.
    return reverse("ratings:player", args=[username])
