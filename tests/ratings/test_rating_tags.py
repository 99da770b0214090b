"""The rating pages' fast template helpers read exactly as the Django built-ins and the
includes they replace."""

from __future__ import annotations

from datetime import date

from django.template.defaultfilters import date as date_filter
from django.urls import reverse, set_script_prefix

from ladder.clubs.access import Person
from ratings.templatetags.rating_tags import day, match_url, people, player_url


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


def test_match_url_is_reverse() -> None:
    for pk in (1, 42, 10_000_001):
        assert match_url(pk) == reverse("match_detail", args=[pk])


def test_people_links_each_visible_player_and_escapes_names() -> None:
    sides = [
        Person("Ann <Smith>", "ann"),
        Person("a hidden player", None),
        Person("Bo & Co", "b.o"),
    ]
    assert people(sides, "doubles") == (
        '<a href="/players/ann/?ladder=doubles">Ann &lt;Smith&gt;</a> &amp; '
        "a hidden player &amp; "
        '<a href="/players/b.o/?ladder=doubles">Bo &amp; Co</a>'
    )
    assert people([], "doubles") == ""
