"""Every surface reads a number the same way (issue 24: "4505 reads 4.51 on the board and
4.50 in its explanation"). The amounts chosen sit on a rounding edge, where a float
f-string and the board's decimal half-up disagree: 4505 → "4.51", an RD of 125 → "0.13",
a change of 15 → "+0.02"."""

from __future__ import annotations

from datetime import date

from django.template import Context as TemplateContext
from django.template import Template

from ladder.clubs.formatting import format_change, format_rating, format_rd
from ladder.integrity import bans, detectors
from ratings.chart import Point
from ratings.explain import Context, explain
from ratings.models import RatingChange

RATING, RD, CHANGE = 4505.0, 125.0, 15.0


def test_the_edges_read_half_up_not_as_floats() -> None:
    # The float way would read these "4.50" or "4.51", "0.12" and "+0.01".
    assert (f"{RD / 1000:.2f}", f"{CHANGE / 1000:.2f}") == ("0.12", "0.01")
    assert format_rating(RATING) == "4.51"
    assert format_rd(RD) == "0.13"
    assert format_change(CHANGE) == "+0.02"
    assert format_change(-CHANGE) == "\u22120.02"


def test_templates_read_as_the_formatter() -> None:
    page = Template(
        "{% load ladder_tags rating_tags %}{{ r|rating }} ± {{ d|rd }} {{ c|signed }}"
    ).render(TemplateContext({"r": RATING, "d": RD, "c": CHANGE}))
    assert page == "4.51 ± 0.13 +0.02"


def test_the_chart_reads_as_the_board() -> None:
    point = Point(0.0, 0.0, date(2026, 3, 5), RATING, RD, matches=1, wins=1, change=CHANGE)
    assert point.label == "5 Mar 2026: 4.51 ± 0.13, +0.02 (won)"


def test_an_explanation_reads_as_the_board() -> None:
    first = RatingChange(
        played_on=date(2026, 3, 5),
        side="a",
        rating_before=RATING,
        rd_before=RD,
        volatility_before=0.06,
        rating_after=RATING + CHANGE,
        rd_after=RD,
        volatility_after=0.06,
        change=CHANGE,
        expected=0.5,
        outcome=1.0,
        won=True,
        margin_multiplier=1.0,
        floor_applied=False,
        repetition_weight=1.0,
        diversity_ratio=1.0,
        gate_open=True,
        performance_weight=1.0,
    )
    text = explain(first, Context(has_previous=True, previous_played_on=None))
    # 4505 → 4520 reads "4.51 → 4.52": the change shown is theirs, +0.01 (issue 37).
    assert "won: +0.01;" in text
    assert "starting from 4.51 ± 0.13" in text


def test_moderation_notices_and_flags_read_as_the_board() -> None:
    assert bans.change_text(CHANGE) == "+0.02"
    assert detectors.level(RATING) == "4.51"
