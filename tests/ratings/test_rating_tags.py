"""The leaderboard's fast template helpers read exactly as the Django built-ins they replace."""

from __future__ import annotations

from datetime import date

from django.template.defaultfilters import date as date_filter
from django.urls import reverse, set_script_prefix

from ratings.templatetags.rating_tags import day, player_url


def test_day_reads_like_the_date_filter() -> None:
    for value in (date(2026, 3, 5), date(2024, 12, 31), date(2025, 1, 1)):
        assert day(value) == date_filter(value, "j M Y")
    assert day(None) == ""


def test_player_url_is_reverse_remembered_per_name_and_prefix() -> None:
    for name in ("ann", "o.brien+1", "a@b"):
        assert player_url(name) == reverse("ratings:player", args=[name])
    set_script_prefix("/club/")
    try:
        assert player_url("ann") == "/club/players/ann/"  # not the path remembered above
    finally:
        set_script_prefix("/")
    assert player_url("ann") == "/players/ann/"
