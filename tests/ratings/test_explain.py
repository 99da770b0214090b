"""A rating change in plain words (ratings.explain), from hand-made rows."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from ladder.clubs.formatting import format_change
from ratings.explain import Context, earlier_meetings, explain, ordinal, score_from
from ratings.models import RatingChange

DAY = date(2024, 6, 1)


def change(**fields: object) -> RatingChange:
    values: dict[str, object] = {
        "played_on": DAY,
        "side": "a",
        "rating_before": 4500.0,
        "rd_before": 90.0,
        "volatility_before": 0.06,
        "rating_after": 4584.0,
        "rd_after": 85.0,
        "volatility_after": 0.06,
        "expected": 0.31,
        "outcome": 1.0,
        "won": True,
        "margin_multiplier": 1.0,
        "floor_applied": False,
        "repetition_weight": 1.0,
        "diversity_ratio": 0.8,
        "gate_open": True,
        "performance_weight": 1.0,
    }
    values.update(fields)
    values["change"] = values["rating_after"] - values["rating_before"]  # type: ignore[operator]
    return RatingChange(**values)


SEEN_BEFORE = Context(
    score="21-12 21-15", opponents=("Sam",), previous_rd=90.0, previous_played_on=date(2024, 5, 30)
)


def test_the_example_of_the_product_page():
    text = explain(change(repetition_weight=1 / 1.4, margin_multiplier=2.0), SEEN_BEFORE)
    assert text == (
        "31% chance to win, won 21-12 21-15: +0.08; a clear win: counted 2.0× a narrow one;"
        " third match against Sam in 90 days, counted at 0.71"
    )


def test_a_loss_and_its_sign():
    text = explain(
        change(outcome=0.0, won=False, expected=0.64, rating_after=4437.6),
        Context(score="15-21 19-21", opponents=("Sam",), previous_rd=90.0, previous_played_on=DAY),
    )
    assert text == "64% chance to win, lost 15-21 19-21: \u22120.06"


def test_won_is_the_stored_result_not_the_outcome():
    # Under the score model with a small bonus a win can count below 0.5: still a win.
    text = explain(
        change(outcome=0.45, won=True),
        Context(score="21-19", outcome_model="score", has_previous=False),
    )
    assert text.startswith("31% chance to win, won 21-19: +0.08")


def test_how_much_the_margin_counted():
    """margin_information (RATINGS.md §3 step 2): m = 1 + boost at a clear margin, less below."""
    partial = explain(change(margin_multiplier=1.38), SEEN_BEFORE)
    assert partial.endswith("; the margin counted: 1.4× a narrow win")
    clear_loss = explain(
        change(won=False, outcome=0.0, rating_after=4450.0, margin_multiplier=2.0), SEEN_BEFORE
    )
    assert (
        clear_loss
        == "31% chance to win, lost 21-12 21-15: \u22120.05; a clear loss: counted 2.0× a narrow one"
    )
    boosted = Context(score="21-5", margin_boost=3.0, has_previous=False)
    assert explain(change(margin_multiplier=4.0), boosted).endswith(
        "; a clear win: counted 4.0× a narrow one"
    )
    assert explain(change(margin_multiplier=2.0), boosted).endswith(
        "; the margin counted: 2.0× a narrow win"
    )
    # The narrowest win counts once: nothing to say.
    assert explain(change(), SEEN_BEFORE) == "31% chance to win, won 21-12 21-15: +0.08"


def test_the_wrong_way_floor_is_explained():
    """RATINGS.md §3 step 9: under the score model a narrow win over a much weaker player
    would lower the winner; the floor keeps the rating, and the explanation says so."""
    score = Context(
        score="21-19 21-19", opponents=("Sam",), outcome_model="score", has_previous=False
    )
    narrow = explain(
        change(expected=0.98, outcome=0.93, rating_after=4500.0, floor_applied=True), score
    )
    assert narrow == (
        "98% chance to win, won 21-19 21-19: 0.00; a narrow win against a weaker player: no change"
        " (a win never lowers a rating); the score counted 0.93 of a win"
    )
    close = explain(
        change(won=False, expected=0.2, outcome=0.35, rating_after=4500.0, floor_applied=True),
        Context(
            score="19-21 20-22",
            opponents=("Sam", "Kim"),
            outcome_model="score",
            has_previous=False,
        ),
    )
    assert close.startswith(
        "20% chance to win, lost 19-21 20-22: 0.00; a close loss against a stronger side: no change"
        " (a loss never raises a rating)"
    )
    # Without the floor, the score model says how the score counted; no floor note.
    plain = explain(change(outcome=0.9625), score)
    assert plain == "31% chance to win, won 21-19 21-19: +0.08; the score counted 0.96 of a win"
    # Under margin_information the notes of the score model never appear.
    assert "score counted" not in explain(change(outcome=1.0, floor_applied=True), SEEN_BEFORE)


def test_a_change_that_rounds_to_nothing():
    assert explain(change(rating_after=4500.3), SEEN_BEFORE).endswith(": 0.00")


def test_the_diversity_gate_kept_rd_from_shrinking():
    text = explain(change(gate_open=False, diversity_ratio=0.15), SEEN_BEFORE)
    assert text.endswith("; RD kept from shrinking: 15% different opponents in 90 days (needs 20%)")


def test_performance_weight():
    above = explain(change(performance_weight=1.25), SEEN_BEFORE)
    assert above.endswith("; performance weight 1.25 (above the side's average)")
    below = explain(change(performance_weight=0.8), SEEN_BEFORE)
    assert below.endswith("; performance weight 0.80 (below the side's average)")


def test_inactivity_and_the_first_match():
    back = explain(
        change(played_on=date(2024, 6, 1), rd_before=140.0),
        Context(score="21-12 21-15", previous_rd=70.0, previous_played_on=date(2024, 1, 1)),
    )
    assert back.endswith("; first match in 152 days: RD had grown from ± 0.07 to ± 0.14")
    first = explain(change(rd_before=250.0), Context(score="21-12 21-15"))
    assert first.endswith("; first rated match, starting from 4.50 ± 0.25")
    # A growth that reads the same in display units is still a long break.
    small = explain(
        change(rd_before=84.0),
        Context(score="21-12 21-15", previous_rd=80.0, previous_played_on=date(2024, 1, 1)),
    )
    assert small.endswith("; first match in 152 days: RD had grown a little, to ± 0.08")
    # A week or two off grows RD a little, as every week does: not worth a note.
    short = explain(
        change(rd_before=92.0),
        Context(score="21-12 21-15", previous_rd=90.0, previous_played_on=date(2024, 5, 3)),
    )
    assert short == "31% chance to win, won 21-12 21-15: +0.08"
    # Without knowing the previous match (has_previous False), nothing is claimed.
    unknown = explain(change(), Context(score="21-12 21-15", has_previous=False))
    assert unknown == "31% chance to win, won 21-12 21-15: +0.08"


def test_everything_at_once_in_order():
    text = explain(
        change(
            repetition_weight=1 / 1.2, gate_open=False, diversity_ratio=0.1, performance_weight=1.1
        ),
        Context(
            score="21-12 21-15",
            opponents=("Sam",),
            lookback_days=60,
            repetition_alpha=0.2,
            diversity_threshold=0.25,
            previous_rd=80.0,
            previous_played_on=date(2024, 4, 1),
        ),
    )
    assert text == (
        "31% chance to win, won 21-12 21-15: +0.08; first match in 61 days: RD had grown from ± 0.08 to ± 0.09;"
        " second match against Sam in 60 days, counted at 0.83;"
        " RD kept from shrinking: 10% different opponents in 60 days (needs 25%);"
        " performance weight 1.10 (above the side's average)"
    )


def test_teams_repetition_is_a_mean():
    text = explain(
        change(repetition_weight=0.9),
        Context(
            score="21-12 21-15", opponents=("Sam", "Kim"), previous_rd=90.0, previous_played_on=DAY
        ),
    )
    assert text.endswith("; opponents met before in the last 90 days, counted at 0.90")


@pytest.mark.parametrize(
    ("weight", "alpha", "expected"),
    [(1 / 1.2, 0.2, 1), (1 / 1.4, 0.2, 2), (1 / 3.0, 0.5, 4), (0.9, 0.2, None), (0.5, 0.0, None)],
)
def test_earlier_meetings(weight, alpha, expected):
    assert earlier_meetings(weight, alpha) == expected


def test_small_helpers():
    assert [ordinal(n) for n in (1, 2, 3, 10, 11, 12, 13, 21, 22, 23, 101)] == [
        "first", "second", "third", "tenth", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st"
    ]  # fmt: skip
    # The change reads in display units, like the rating beside it (issue 16).
    assert [format_change(x) for x in (83.6, -12.4, 0.4, -0.4)] == [
        "+0.08",
        "\u22120.01",
        "0.00",
        "0.00",
    ]
    assert score_from("a", [(21, 12), (15, 21)]) == "21-12 15-21"
    assert score_from("b", [(21, 12), (15, 21)]) == "12-21 21-15"


def test_a_season_start_that_grew_the_rd_is_named():
    """RATINGS.md §3 step 1: a ladder that raises RDs at a season's start says so, after a
    short break too; a long one says both."""
    short = Context(score="21-12 21-15", previous_rd=90.0, previous_played_on=date(2024, 5, 20))
    raised = explain(change(rd_before=110.0), replace(short, new_season=True))
    assert raised.endswith("; first match of a new season: RD had grown from ± 0.09 to ± 0.11")
    assert explain(change(rd_before=110.0), short) == "31% chance to win, won 21-12 21-15: +0.08"
    long = Context(
        score="21-12 21-15", previous_rd=70.0, previous_played_on=date(2024, 1, 1), new_season=True
    )
    both = explain(change(rd_before=140.0), long)
    assert both.endswith(
        "; first match in 152 days and of a new season: RD had grown from ± 0.07 to ± 0.14"
    )
