"""The Ladder model: the engine mapping, validation and display helpers."""

from __future__ import annotations

from dataclasses import fields

import pytest
from django.core.exceptions import ValidationError

from ladder.clubs.formatting import format_percent, format_rating, format_rd
from ladder.clubs.models import Ladder
from ladder.clubs.params import PARAM_FIELDS
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
        "outcome_model": "score",
        "margin_boost": 2.5,
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
        "newcomer_start": "recent_newcomers",
        "lookback_days": 60,
        "rating_period_days": 14,
        "season_start_periods": 4,
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
    # RATINGS.md §8: ± RD in display units, two decimals.
    assert [format_rd(x) for x in (189, 120, 250, 4.9, 5.1, None)] == [
        "0.19", "0.12", "0.25", "0.00", "0.01", "–"
    ]  # fmt: skip
    # One way to show a probability on every page (a missing one is never a made-up number).
    assert [format_percent(x) for x in (0.634, 0.0051, 0.994, 1.0, 0.0, None)] == [
        "63%", "1%", "99%", "100%", "0%", "–"
    ]  # fmt: skip
    # A near-certainty is not a certainty.
    assert [format_percent(x) for x in (0.9996, 0.996, 0.0004, 0.0049)] == [
        ">99%", ">99%", "<1%", "<1%"
    ]  # fmt: skip
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


# ---- RATINGS.md v2: outcome model, margin boost, the floor, ranked settings --------------------


def test_the_wrong_way_floor_is_always_on_for_a_ladder():
    """RATINGS.md §2 and §3 step 9: no field, no option switches it off."""
    assert Ladder().params().wrong_way_floor is True
    assert Ladder(outcome_model="score", match_win_bonus=0.05).params().wrong_way_floor is True
    assert not any(f.name == "wrong_way_floor" for f in Ladder._meta.get_fields())
    errors = errors_of(valid_ladder(method_options={"wrong_way_floor": False}))
    assert "method_options" in errors


def test_new_ladders_use_margin_as_information():
    ladder = valid_ladder()
    ladder.full_clean()
    assert (ladder.outcome_model, ladder.margin_boost) == ("margin_information", 1.0)
    assert (ladder.ranked_min_matches, ladder.ranked_rd) == (5, 120.0)


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"margin_boost": -0.5}, "margin_boost", "Margin boost must be between 0 and 10."),
        ({"margin_boost": 10.5}, "margin_boost", "Margin boost must be between 0 and 10."),
        ({"margin_boost": float("nan")}, "margin_boost", "Margin boost must be a finite number."),
        (
            {"team_method": "performance_weighted"},
            "team_method",
            "Performance weighted needs stat weights: without them it would silently be "
            "composite_opponent; set the ladder's stat weights or choose another team method.",
        ),
        (
            {"team_method": "performance_weighted", "method_options": {"stat_weights": {}}},
            "team_method",
            "Performance weighted needs stat weights",
        ),
        ({"ranked_min_matches": 0}, "ranked_min_matches", "greater than or equal to 1"),
        ({"ranked_rd": 0.0}, "ranked_rd", "The ranked RD must be above 0."),
        ({"ranked_rd": -5.0}, "ranked_rd", "The ranked RD must be above 0."),
        ({"ranked_rd": 500.5}, "ranked_rd", "The ranked RD cannot exceed the RD maximum."),
        (
            {"rd_max": 300.0, "initial_rd": 200.0, "ranked_rd": 301.0},
            "ranked_rd",
            "The ranked RD cannot exceed the RD maximum.",
        ),
    ],
)
def test_bad_v2_settings_are_refused_with_a_clear_message(overrides, field, message):
    errors = errors_of(valid_ladder(**overrides))
    assert any(message in text for text in errors[field]), errors


def test_an_unknown_outcome_model_is_refused():
    assert "outcome_model" in errors_of(valid_ladder(outcome_model="best_guess"))


def test_the_engine_is_the_one_place_parameters_are_checked(monkeypatch):
    """Ladder.clean asks the engine's validate_params and maps its messages to fields."""
    import ladder.clubs.models as models
    from ratings.engine.errors import ParamsError, Problem

    def refuse(params):  # type: ignore[no-untyped-def]
        raise ParamsError(
            [
                Problem("margin_boost", "margin_boost must be odd"),
                Problem("tau", "tau must be even; or else"),
                Problem("stat_weights", "stat weight for 'k' must be a finite number"),
            ]
        )

    monkeypatch.setattr(models, "validate_params", refuse)
    errors = errors_of(valid_ladder())
    assert errors["margin_boost"] == ["Margin boost must be odd."]
    # Each refusal names its setting: a "; " inside one message stays in that message.
    assert errors["tau"] == ["Tau must be even; or else."]
    assert errors["method_options"] == ["Stat weight for 'k' must be a finite number."]


def test_edge_values_are_accepted():
    for overrides in (
        {"margin_boost": 0.0},
        {"margin_boost": 10.0},
        {"ranked_rd": 500.0, "ranked_min_matches": 1},
        {"team_method": "performance_weighted", "method_options": {"stat_weights": {"k": 1}}},
        {"outcome_model": "score", "match_win_bonus": 0.0},
    ):
        valid_ladder(**overrides).full_clean()
