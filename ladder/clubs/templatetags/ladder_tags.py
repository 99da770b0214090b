"""Template filters for ladder values."""

from __future__ import annotations

from django import template

from ladder.clubs.formatting import format_percent, format_rating, format_rd

register = template.Library()


@register.filter
def rating(value: float | None) -> str:
    """Rating points as the ladder shows them: 4500 → "4.50"."""
    return format_rating(value)


@register.filter
def rd(value: float | None) -> str:
    """An RD in display units, as "± {{ x|rd }}" reads: 189 → "0.19" (RATINGS.md §8)."""
    return format_rd(value)


@register.filter
def percent(probability: float | None) -> str:
    return format_percent(probability)
