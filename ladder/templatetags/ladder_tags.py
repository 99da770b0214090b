"""Template filters for ladder values."""

from __future__ import annotations

from django import template

from ladder.models import format_rating

register = template.Library()


@register.filter
def rating(value: float | None) -> str:
    """Rating points as the ladder shows them: 4500 → "4.50"."""
    return format_rating(value)
