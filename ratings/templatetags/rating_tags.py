"""Template filters for rating pages: signed changes and the trend arrow."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from functools import lru_cache

from django import template
from django.conf import settings
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

from ladder.clubs.access import Person
from ladder.clubs.formatting import format_change, format_day, format_rd, shown_change
from ladder.clubs.models import Ladder
from ladder.matches.visibility import ShownMatch
from ratings.histories import match_changes

register = template.Library()


@register.filter
def shown(value: float | None, after: float) -> float | None:
    """A change as the shown ratings differ, beside ``after`` (formatting.shown_change):
    ``{{ change|shown:rating_after|signed }}``, and its colour from the same number."""
    return None if value is None else shown_change(value, after)


@register.filter
def signed(value: float | None) -> str:
    """A rating change in display units, signed: 84 points read "+0.08", −12 "−0.01";
    "–" for none (RATINGS.md §8: never raw points beside a 2.0–9.0 rating)."""
    return format_change(value)


@register.filter
def trend(value: float | None, after: float | None = None) -> SafeString:
    """A change as an arrow and its size in rating units, coloured: 151 points read
    "▲0.15" beside a rating of 4.52; "–" without a match in that time. With ``after``
    (``{{ row.trend|trend:row.rating }}``), the change between the shown ratings; a change
    that shows as 0.00 is neither up nor down."""
    if value is None:
        return mark_safe('<span class="muted" title="No match in this period">–</span>')
    if after is not None:
        value = shown_change(value, after)
    size = format_rd(abs(value))
    if size == "0.00":
        return mark_safe('<span class="muted" title="No change">0.00</span>')
    if value > 0:
        return format_html('<span class="up" title="Up {}">▲{}</span>', size, size)
    return format_html('<span class="down" title="Down {}">▼{}</span>', size, size)


@register.filter
def day(value: date | None) -> str:
    """A date as the tables write it, "5 Mar 2026": ``|date:"j M Y"`` without its format
    parsing and translation lookups, which cost more than the rest of a row in the long
    lists (leaderboard, match history, head-to-head). English month names, like the site."""
    return format_day(value)


@register.simple_tag
def player_url(username: str) -> str:
    """``{% url 'ratings:player' username %}``, remembered per name: reversing a URL on each
    of a leaderboard's fifty rows was a quarter of the time it took to draw them."""
    return _path("ratings:player", username)


@register.simple_tag
def match_url(pk: int) -> str:
    """``{% url 'match_detail' pk %}``, remembered (``player_url``) for the match lists."""
    return _path("match_detail", pk)


@register.simple_tag
def people(persons: Iterable[Person], ladder_slug: str, linked: bool = True) -> SafeString:
    """Players joined by " & ", each linked to their page on the ladder; a hidden player
    (no username), or everyone when not ``linked`` (inside a row that is itself a link), is
    named without a link. A tag, not an include per side: the includes were a third of the
    time it took to draw a player's match list."""
    return mark_safe(
        " &amp; ".join(
            format_html(
                '<a href="{}?ladder={}">{}</a>', player_url(p.username), ladder_slug, p.name
            )
            if p.username and linked
            else conditional_escape(p.name)
            for p in persons
        )
    )


def _path(name: str, arg: str | int) -> str:
    return _reverse(settings.ROOT_URLCONF, get_urlconf(), get_script_prefix(), name, arg)


@lru_cache(maxsize=100_000)
def _reverse(root_urlconf: str, urlconf: str | None, prefix: str, name: str, arg: str | int) -> str:
    # The URL configuration and script prefix are part of the key: they decide the path.
    return reverse(name, args=[arg])


@register.inclusion_tag("ratings/_match_changes.html")
def match_ratings(shown: ShownMatch) -> dict[str, object]:
    """The match page's "What it did to the ratings": each player's change, explained, with
    the names the viewer may see. A template tag, so the matches app shows ratings without
    importing them."""
    return {"rows": match_changes(shown), "match": shown.match}


@register.simple_tag
def to_be_ranked(matches: int, ladder: Ladder) -> str:
    """What a provisional player still needs (RATINGS.md §8): "3 more matches to be ranked",
    or, with enough matches but an RD still above the ladder's limit, how it comes down.

    Not "after another match": a match lowers the RD by what it tells (Glicko's
    ``g² E (1 − E)``), next to nothing when the result was all but certain, while the RD grows
    each rating period. Seen on the demo: the club's best player, 28–3 against players rated
    far below, stayed at ± 0.13 for two months of matches."""
    missing = ladder.ranked_min_matches - (matches or 0)
    if missing > 0:
        return f"{missing} more match{'es' if missing != 1 else ''} to be ranked"
    return f"± above {format_rd(ladder.ranked_rd)}: closer-rated opponents lower it most"
