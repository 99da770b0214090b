"""The Ladder model: the engine mapping, validation and display helpers."""

from __future__ import annotations

from dataclasses import fields

import pytest
from django.core.exceptions import ValidationError

from ladder.models import PARAM_FIELDS, Ladder, format_rating
from ratings.engine.formats import get_format
from ratings.engine.types import Params

# full_clean() checks the unique slug in the database.
pytestmark = pytest.mark.django_db


def valid_ladder(**overrides) -> Ladder:
    values = {"name": "Test", "slug": "test"}
    values.update(overrides)
    return Ladder(**values)


def errors_of(ladder: Ladder) -> dict[str, list[str]]:
    with pytest.raises(ValidationError) as info:
        ladder.full_clean()
    return info.value.message_dict


def test_a_new_ladders_params_are_the_engine_defaults():
    # Everything RATINGS.md §2/§5 says, nothing overridden.
    assert Ladder().params() == Params()


def test_every_explicit_param_field_reaches_params():
    changed = {
        "tau": 0.7,
        "scale_factor": 350.0,
        "repetition_alpha": 0.3,
        "diversity_threshold": 0.25,
        "match_win_bonus": 0.35,
        "margin_weight": 0.2,
        "margin_clamp": 0.3,
        "rating_center": 4000.0,
        "rating_min": 1500.0,
        "rating_max": 8000.0,
        "rd_max": 400.0,
        "initial_rating": 4200.0,
        "initial_rd": 220.0,
        "initial_volatility": 0.05,
        "lookback_days": 60,
        "rating_period_days": 14,
        "team_method": "individual",
        "composite_rd": "rms",
    }
    assert set(changed) == set(PARAM_FIELDS)
    params = Ladder(**changed).params()
    for name, value in changed.items():
        assert getattr(params, name) == value, name
    # Nothing else differs from the defaults.
    others = {f.name for f in fields(Params)} - set(changed)
    assert all(getattr(params, name) == getattr(Params(), name) for name in others)


def test_method_options_reach_params():
    ladder = Ladder(
        team_method="performance_weighted",
        method_options={
            "stat_weights": {"kills": 1, "deaths": -0.7},
            "perf_alpha": 0.3,
            "delta_max": 150,
            "g1_boost": False,
        },
    )
    params = ladder.params()
    assert dict(params.stat_weights) == {"kills": 1.0, "deaths": -0.7}
    assert params.perf_alpha == 0.3
    assert params.delta_max == 150.0
    assert params.g1_boost is False
    assert params.team_method == "performance_weighted"


def test_model_defaults_match_the_spec():
    ladder = valid_ladder()
    ladder.full_clean()
    ladder.save()
    ladder.refresh_from_db()
    assert ladder.params() == Params()
    assert (
        ladder.max_report_age_days,
        ladder.confirm_within_hours,
        ladder.max_pending_reports,
    ) == (
        14,
        168,
        10,
    )
    assert ladder.reports_per_hour == 20
    assert ladder.is_public and ladder.team_size == 1 and ladder.scoring_format == "badminton_21"


@pytest.mark.parametrize(
    ("fmt", "best_of", "points"),
    [("badminton_21", 3, 21), ("badminton_15", 3, 15), ("badminton_11", 5, 11)],
)
def test_badminton_formats_derive_best_of_and_points(fmt, best_of, points):
    ladder = valid_ladder(scoring_format=fmt)
    ladder.full_clean()
    assert (ladder.best_of, ladder.points_per_game) == (best_of, points)
    assert ladder.scoring() == get_format(fmt)


def test_badminton_refuses_other_points():
    assert "points_per_game" in errors_of(valid_ladder(points_per_game=15))


def test_generic_needs_best_of_and_points():
    errors = errors_of(valid_ladder(scoring_format="generic"))
    assert "best_of" in errors and "points_per_game" in errors


@pytest.mark.parametrize("best_of", [0, 2, 4, 9])
def test_generic_best_of_must_be_odd_1_to_7(best_of):
    errors = errors_of(valid_ladder(scoring_format="generic", best_of=best_of, points_per_game=16))
    assert list(errors) == ["best_of"]


def test_generic_ladder_scoring():
    ladder = valid_ladder(scoring_format="generic", best_of=1, points_per_game=16)
    ladder.full_clean()
    assert ladder.scoring() == get_format("generic", best_of=1, points_per_game=16)
    assert ladder.format_label == "1 game (16 points)"


@pytest.mark.parametrize("size", [0, 6])
def test_team_size_is_1_to_5(size):
    assert "team_size" in errors_of(valid_ladder(team_size=size))


@pytest.mark.parametrize(
    "options",
    [
        {"tau": 0.4},  # an explicit field, not an option
        {"unknown": 1},
        {"stat_weights": ["kills"]},
        {"stat_weights": {"kills": "lots"}},
        {"perf_alpha": "high"},
        {"delta_max": -5},
        {"g1_boost": "yes"},
        {"perf_weight_min": 1.2},
        [1, 2],
    ],
)
def test_bad_method_options_are_refused(options):
    assert "method_options" in errors_of(valid_ladder(method_options=options))


def test_bad_bounds_are_refused():
    assert "rating_max" in errors_of(valid_ladder(rating_min=5000, rating_max=4000))
    assert "initial_rating" in errors_of(valid_ladder(initial_rating=9500))
    assert "initial_rd" in errors_of(valid_ladder(initial_rd=600))
    assert "team_method" in errors_of(valid_ladder(team_method="best_guess"))


def test_display_helpers():
    assert format_rating(4500) == "4.50"
    assert format_rating(None) == "–"
    assert Ladder(team_size=1).team_label == "Singles"
    assert Ladder(team_size=2).team_label == "Doubles"
    assert Ladder(team_size=5).team_label == "5 a side"
    assert Ladder(confirm_within_hours=168).confirm_within_label == "7 days"
    assert Ladder(confirm_within_hours=36).confirm_within_label == "36 hours"
    singles = valid_ladder()
    singles.full_clean()
    assert singles.format_label == "Badminton to 21, best of 3"
    assert singles.format_description == "Best of 3 games to 21, win by 2, capped at 30"
    assert Ladder(method_options={"stat_weights": {"kills": 1}}).stat_names == []
    assert Ladder(
        team_method="performance_weighted",
        method_options={"stat_weights": {"kills": 1, "adr": 0.1}},
    ).stat_names == ["adr", "kills"]
