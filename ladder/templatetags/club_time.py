"""The club's time zone and its date now, for the moderators' admin."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from django import template
from django.conf import settings
from django.utils import timezone

register = template.Library()


@register.inclusion_tag("admin/_club_time_zone.html")
def club_time_zone() -> dict[str, object]:
    """The zone every date of the site is in (TIME_ZONE), whether it was set, and its now."""
    return {
        "zone": settings.TIME_ZONE,
        "zone_set": settings.TIME_ZONE_SET,
        "now": timezone.localtime(timezone=ZoneInfo(settings.TIME_ZONE)),
    }
